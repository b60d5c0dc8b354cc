//! Rows read straight into the columns (`BatchBuilder::decode_msgpack`, `decode_json`)
//! against the general way (the program's decode, then `BatchBuilder::append`), the oracle:
//! on every conformance case and on variants of it (cut short, a byte changed: rows that give
//! up half-way), each row's outcome is the same (the same error text) and the batches are
//! equal; and hand-made rows that give up at each kind of place, between rows that do not.

#[path = "support/cases.rs"]
mod cases;
mod common;
#[path = "reference/mod.rs"]
mod reference;

use bumpalo::Bump;
use tfwire::arrow::{ArrowOptions, BatchBuilder};
use tfwire::{Program, Type};

use cases::{case_dirs, case_program, for_each_case, read_bytes};
use reference::arrow_rows::{both_ways, Encoding};

/// The input, then copies cut short and with one byte changed (at spread positions), the
/// input again between them.
fn variants(input: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![input.to_vec()];
    let n = input.len();
    for k in 1..=4 {
        let at = n * k / 5;
        out.push(input[..at].to_vec());
        for byte in [0xc1, b'"', 0xd4, b'}'] {
            let mut changed = input.to_vec();
            if let Some(b) = changed.get_mut(at) {
                *b = byte;
                out.push(changed);
            }
        }
        out.push(input.to_vec());
    }
    out
}

#[test]
fn every_case_and_its_variants_read_straight_as_the_general_way() {
    let dirs = case_dirs(common::shared_dir("the shared conformance cases are not run").as_deref());
    let straight_rows = std::sync::atomic::AtomicUsize::new(0);
    for (suffix, encoding) in [
        (".msgpack", Encoding::MessagePack),
        (".json", Encoding::Json),
    ] {
        let run = for_each_case(&dirs, suffix, |dir, id| {
            let program = case_program(dir, id)?;
            if !matches!(program.root_type(), Type::Object(_)) {
                return Ok(());
            }
            let input = read_bytes(&dir.join(format!("{id}{suffix}")))?;
            let options = ArrowOptions::default();
            let ok = both_ways(&program, &options, encoding, &variants(&input))?;
            straight_rows.fetch_add(ok, std::sync::atomic::Ordering::Relaxed);
            // The side column of unknowns' paths: filled the same both ways.
            let options = options.with_unknown_paths(true);
            both_ways(&program, &options, encoding, &[input.clone(), input])?;
            Ok(())
        });
        assert!(run > 0);
    }
    assert!(straight_rows.into_inner() > 1000);
}

const TYPE: &str = r#"["object",{
    "id":"string",
    "ok":"bool",
    "n":"number",
    "names":["list","string"],
    "tags":["map","string"],
    "blocks":["set",["object",{"a":"string","b":["list","number"]}]],
    "inner":["object",{"x":"number","y":["map",["list","bool"]]}]
}]"#;

/// A row as go-cty writes it (MessagePack built from its JSON by the program's encoder).
const GOOD: &str = r#"{"blocks":[{"a":"p","b":[1,2]},{"a":null,"b":null}],"id":"i-1",
    "inner":{"x":-3,"y":{"k":[true,false]}},"n":42,"names":["a","é"],"ok":true,
    "tags":{"Name":"web","env":"prod"}}"#;

#[test]
fn rows_that_give_up_half_way_leave_the_columns_as_before() {
    let program = Program::from_type_json(TYPE).unwrap();
    let json_rows: Vec<&str> = vec![
        GOOD,
        // Out of order at the top, in a nested object and in a map's keys.
        r#"{"id":"i-2","blocks":[],"inner":null,"n":1,"names":[],"ok":false,"tags":{}}"#,
        r#"{"blocks":[{"b":[7],"a":"q"}],"id":"i-3","inner":null,"n":1,"names":null,"ok":null,"tags":null}"#,
        r#"{"blocks":null,"id":"i-4","inner":{"x":1,"y":{"z":[],"a":[true]}},"n":1,"names":["x"],"ok":true,"tags":{"b":"1","a":"2"}}"#,
        // An escape, a fraction, a missing attribute, deep in the row.
        r#"{"blocks":[{"a":"p","b":[1,2]}],"id":"i-5","inner":null,"n":1,"names":["a\nb"],"ok":true,"tags":null}"#,
        r#"{"blocks":[{"a":"p","b":[1,2.5]}],"id":"i-6","inner":null,"n":1,"names":[],"ok":true,"tags":null}"#,
        r#"{"blocks":[{"a":"p"}],"id":"i-7","inner":null,"n":1,"names":["m"],"ok":true,"tags":{"k":"v"}}"#,
        // Faults after some columns were filled: the general decode names them.
        r#"{"blocks":[{"a":"p","b":[1]}],"id":"i-8","inner":{"x":1,"y":{"k":[true,"no"]}},"n":1,"names":["m"],"ok":true,"tags":null}"#,
        r#"{"blocks":[],"id":"i-9","inner":null,"n":1,"names":["m"],"ok":true,"tags":{"k":"v"}} x"#,
        r#"{"blocks":[],"id":"i-10","inner":null,"n":1,"names":["m"],"ok":true,"tags":{"k":"v"},"zz":1}"#,
        r#"null"#,
        GOOD,
    ];
    let inputs: Vec<Vec<u8>> = json_rows.iter().map(|r| r.as_bytes().to_vec()).collect();
    for options in [
        ArrowOptions::default(),
        ArrowOptions::default().with_unknown_paths(true),
    ] {
        let ok = both_ways(&program, &options, Encoding::Json, &inputs).unwrap();
        assert_eq!(ok, 9, "rows that decode");
    }

    // MessagePack: each row that decodes, encoded by the program (as go-cty writes it), and
    // copies with an unknown value in place of a nested number and with a `bin` string.
    let bump = Bump::new();
    let mut mp_inputs = Vec::new();
    for r in &json_rows {
        if let Ok(v) = program.decode_json(r.as_bytes(), &bump) {
            let mut out = Vec::new();
            program.encode_msgpack(v, &mut out).unwrap();
            mp_inputs.push(out);
        }
    }
    let good = mp_inputs[0].clone();
    // `"x":-3` is `a1 78 fd`: the -3 replaced by an unknown (fixext1 of type 0).
    let at = good
        .windows(3)
        .position(|w| w == [0xa1, b'x', 0xfd])
        .unwrap()
        + 2;
    let mut unknown = good.clone();
    unknown.splice(at..=at, [0xd4, 0x00, 0x00]);
    // `"p"` (`a1 70`) as a `bin8` of one byte.
    let at = good.windows(2).position(|w| w == [0xa1, b'p']).unwrap();
    let mut bin = good.clone();
    bin.splice(at..=at, [0xc4, 0x01]);
    mp_inputs.extend([unknown, bin, good]);
    for options in [
        ArrowOptions::default(),
        ArrowOptions::default().with_unknown_paths(true),
    ] {
        let n = mp_inputs.len();
        let ok = both_ways(&program, &options, Encoding::MessagePack, &mp_inputs).unwrap();
        assert_eq!(ok, n, "every MessagePack row decodes");
    }
}

/// A builder given a program of another type decodes with that program, as `append` would
/// be given its values: the same errors.
#[test]
fn a_program_of_another_type_goes_the_general_way() {
    let program = Program::from_type_json(r#"["object",{"a":"string"}]"#).unwrap();
    let other = Program::from_type_json(r#"["object",{"a":"number"}]"#).unwrap();
    let same = Program::from_type_json(r#"["object",{"a":"string"}]"#).unwrap();
    let mut batch = BatchBuilder::new(&program, &ArrowOptions::default()).unwrap();
    let bump = Bump::new();
    let e = batch.decode_json(&other, br#"{"a":1}"#, &bump).unwrap_err();
    assert!(e.to_string().contains("found Int(1)"), "{e}");
    batch.decode_json(&same, br#"{"a":"x"}"#, &bump).unwrap();
    batch
        .decode_msgpack(&program, b"\x81\xa1a\xa1y", &bump)
        .unwrap();
    let batch = batch.finish().unwrap();
    let a = batch.column(0);
    let a = a
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap();
    assert_eq!((a.value(0), a.value(1)), ("x", "y"));
}

/// Generated types and values (the reference generator, as the `arrow_rows` fuzz target
/// draws them from its bytes) as rows, both encodings, sometimes a byte changed.
#[test]
fn generated_rows_read_straight_as_the_general_way() {
    let mut rng = reference::gen::Rng::new(23);
    let rounds = if cfg!(debug_assertions) { 300 } else { 3000 };
    for _ in 0..rounds {
        let data: Vec<u8> = (0..512)
            .map(|_| reference::gen::Source::byte(&mut rng))
            .collect();
        reference::arrow_rows::rows(&data);
    }
}

/// The cases a review found: a projection's picks (the same root type, fewer elements), a
/// program of another type made after the builder's was dropped, nesting past the default
/// `max_depth`, and a row given up after a null (no validity bitmap left behind).
#[test]
fn projections_other_programs_depth_and_nulls_go_as_the_general_way() {
    let full = Program::from_type_json(
        r#"["object",{"id":"string","tags":["map","string"],"big":["list","number"]}]"#,
    )
    .unwrap();
    let selection = tfwire::schema::Selection::parse([r#"tags["c"]"#, "big[1]", "id"]).unwrap();
    let projected = full.select(&selection).unwrap();
    let json = br#"{"big":[1,2,3],"id":"x","tags":{"a":"b","c":"d"}}"#.to_vec();
    let bump = Bump::new();
    let mut msgpack = Vec::new();
    full.encode_msgpack(full.decode_json(&json, &bump).unwrap(), &mut msgpack)
        .unwrap();
    let options = ArrowOptions::default();
    for program in [&projected, &full] {
        both_ways(
            program,
            &options,
            Encoding::Json,
            &[json.clone(), json.clone()],
        )
        .unwrap();
        both_ways(program, &options, Encoding::MessagePack, &[msgpack.clone()]).unwrap();
    }
    // A builder of the full program given the projection (the same root type here: a pick
    // keeps a list or map of the same type): the projection's rows.
    let mut batch = BatchBuilder::new(&full, &options).unwrap();
    batch.decode_json(&projected, &json, &bump).unwrap();
    let batch = batch.finish().unwrap();
    let big = batch.column_by_name("big").unwrap();
    let big = big
        .as_any()
        .downcast_ref::<arrow_array::ListArray>()
        .unwrap();
    assert_eq!(big.value_length(0), 1, "only big[1]");

    // The builder's program dropped, another of another type in its place.
    let mut program = Program::from_type_json(r#"["object",{"id":"string"}]"#).unwrap();
    let mut batch = BatchBuilder::new(&program, &options).unwrap();
    program = Program::from_type_json(r#"["object",{"id":"number"}]"#).unwrap();
    let e = batch
        .decode_json(&program, br#"{"id":"x"}"#, &bump)
        .unwrap_err();
    assert!(e.to_string().contains("not a valid number"), "{e}");

    // 300 nested lists: deeper than the default max_depth (256), both ways an error.
    // (Built by hand: type JSON that deep passes serde_json's recursion limit.)
    let mut deep = Type::String;
    for _ in 0..300 {
        deep = Type::List(Box::new(deep));
    }
    let row = tfwire::schema::ObjectType::new([("a", deep)], &[]).unwrap();
    let program = Program::new(&Type::Object(row)).unwrap();
    let input = format!(r#"{{"a":{}{}}}"#, "[".repeat(300), "]".repeat(300)).into_bytes();
    assert_eq!(
        both_ways(&program, &options, Encoding::Json, &[input]).unwrap(),
        0
    );
    let mut input = vec![0x81, 0xa1, b'a'];
    input.extend(std::iter::repeat_n(0x91, 299));
    input.push(0x90);
    assert_eq!(
        both_ways(&program, &options, Encoding::MessagePack, &[input]).unwrap(),
        0
    );

    // A name JSON escapes, written unescaped: no JSON, both ways an error; escaped, a row.
    let row = tfwire::schema::ObjectType::new([("a\"b", Type::String)], &[]).unwrap();
    let program = Program::new(&Type::Object(row)).unwrap();
    let rows = [&br#"{"a"b":"x"}"#[..], br#"{"a\"b":"x"}"#];
    let rows: Vec<Vec<u8>> = rows.iter().map(|r| r.to_vec()).collect();
    assert_eq!(
        both_ways(&program, &options, Encoding::Json, &rows).unwrap(),
        1
    );

    // A null, then the row given up: no bitmap is left behind.
    let program = Program::from_type_json(r#"["object",{"a":"string","b":"number"}]"#).unwrap();
    let rows = [
        &br#"{"a":"x","b":1}"#[..],
        br#"{"a":null,"b":true}"#,
        br#"{"a":"y","b":2}"#,
    ];
    let rows: Vec<Vec<u8>> = rows.iter().map(|r| r.to_vec()).collect();
    assert_eq!(
        both_ways(&program, &options, Encoding::Json, &rows).unwrap(),
        2
    );
}
