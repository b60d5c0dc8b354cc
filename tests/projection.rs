//! Projection (`Selection`, `Type::project`, `Program::select`): the projected type, the
//! paths' notation and errors, and the property that on every conformance case (both
//! encodings) a projected decode equals the full decode restricted to the selection, for
//! random selections of the case's attribute paths.

#[path = "support/cases.rs"]
mod cases;
mod common;
#[path = "reference/mod.rs"]
mod reference;
#[path = "support/rng.rs"]
mod rng;

use std::collections::BTreeMap;

use bumpalo::Bump;
use serde::Deserialize;
use tfwire::schema::Selection;
use tfwire::{dump, from_typed, Program, Type};

use cases::{case_dirs, case_program, for_each_case, read_bytes};
use reference::project::{compare, render, same_selected, selection_paths, Step};
use rng::Rng;

fn projected(ty: &str, paths: &[&str]) -> Result<String, String> {
    let ty = Type::from_json(ty).unwrap();
    let selection = Selection::parse(paths).map_err(|e| e.to_string())?;
    ty.project(&selection)
        .map(|t| t.to_string())
        .map_err(|e| e.to_string())
}

const INSTANCE: &str = r#"["object",{"id":"string","tags":["map","string"],"meta":"dynamic",
    "ebs":["list",["object",{"size":"number","id":"string","kms":["object",{"key":"string"}]}]],
    "root":["set",["object",{"size":"number","kind":"string"}]],
    "pair":["tuple",[["object",{"a":"string","b":"bool"}],["object",{"a":"number"}]]],
    "a b":["object",{"c":"string","d":"string"}]},["tags"]]"#;

#[test]
fn projected_types() {
    let cases: &[(&[&str], &str)] = &[
        (&["id"], r#"["object",{"id":"string"}]"#),
        // Optional markers stay on the attributes kept.
        (
            &["tags", "id"],
            r#"["object",{"id":"string","tags":["map","string"]},["tags"]]"#,
        ),
        (
            &["ebs[*].id", "ebs[*].kms.key", ".root[*].size"],
            r#"["object",{"ebs":["list",["object",{"id":"string","kms":["object",{"key":"string"}]}]],"root":["set",["object",{"size":"number"}]]}]"#,
        ),
        // A path that ends keeps the whole subtree, whatever else goes below it.
        (
            &["ebs", "ebs[*].id"],
            r#"["object",{"ebs":["list",["object",{"id":"string","kms":["object",{"key":"string"}],"size":"number"}]]}]"#,
        ),
        (
            &["pair[*].a"],
            r#"["object",{"pair":["tuple",[["object",{"a":"string"}],["object",{"a":"number"}]]]}]"#,
        ),
        (
            &[r#"["a b"].d"#],
            r#"["object",{"a b":["object",{"d":"string"}]}]"#,
        ),
        (&["meta"], r#"["object",{"meta":"dynamic"}]"#),
        // Inside a dynamic value, paths are the value's business: it stays dynamic.
        (
            &["meta.x[0]", "id"],
            r#"["object",{"id":"string","meta":"dynamic"}]"#,
        ),
        // Picks: a list and a map keep their type; a tuple keeps the elements picked.
        (
            &["ebs[1].id", r#"tags["Name"]"#, "tags.Env"],
            r#"["object",{"ebs":["list",["object",{"id":"string"}]],"tags":["map","string"]},["tags"]]"#,
        ),
        (
            &["pair[1]"],
            r#"["object",{"pair":["tuple",[["object",{"a":"number"}]]]}]"#,
        ),
        // Element 0 of a tuple on the paths through [*] and [0]; element 1 through [*].
        (
            &["pair[*].a", "pair[0].b"],
            r#"["object",{"pair":["tuple",[["object",{"a":"string","b":"bool"}],["object",{"a":"number"}]]]}]"#,
        ),
        // A list's elements share one type: every path into the list projects each.
        (
            &["ebs[0].id", "ebs[2].size"],
            r#"["object",{"ebs":["list",["object",{"id":"string","size":"number"}]]}]"#,
        ),
        (&[""], &Type::from_json(INSTANCE).unwrap().to_string()),
    ];
    for (paths, want) in cases {
        assert_eq!(
            projected(INSTANCE, paths).as_deref(),
            Ok(*want),
            "{paths:?}"
        );
    }
}

#[test]
fn selection_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "nope",
            r#"selection .nope: at the root: the object has no attribute "nope""#,
        ),
        (
            "ebs[*].nope",
            r#"selection .ebs[*].nope: at .ebs[*]: the object has no attribute "nope""#,
        ),
        (
            "ebs.id",
            "selection .ebs.id: at .ebs: the elements of a list are selected with [*] or [N]",
        ),
        (
            "root[0].size",
            "selection .root[0].size: at .root: a set's elements have no order: select them \
             with [*]",
        ),
        (
            "tags[0]",
            r#"selection .tags[0]: at .tags: the entries of a map are selected with [*] or ["key"]"#,
        ),
        (
            "pair[2]",
            "selection .pair[2]: at .pair: the tuple has 2 elements",
        ),
        (
            "pair.a",
            "selection .pair.a: at .pair: the elements of a tuple are selected with [*] or [N]",
        ),
        ("id.x", "selection .id.x: at .id: a string has no parts"),
        (
            "[*]",
            "selection [*]: at the root: an object's parts are attributes",
        ),
        ("ebs[x]", r#"selection "ebs[x]": a bad [ ] step"#),
        ("ebs..id", r#"selection "ebs..id": an empty attribute name"#),
        (
            "ebs id",
            r#"selection "ebs id": expected `.`, `[` or the end"#,
        ),
    ];
    for (path, want) in cases {
        assert_eq!(
            projected(INSTANCE, &[path]),
            Err(want.to_string()),
            "{path}"
        );
    }
}

#[test]
fn a_projected_decode_steps_over_the_rest() {
    let full = Program::from_type_json(INSTANCE).unwrap();
    let program = full
        .select(&Selection::parse(["id", "ebs[*].size"]).unwrap())
        .unwrap();
    let bump = Bump::new();
    let input = br#"{"id":"i-1","tags":{"a":"b"},"meta":{"value":[1,{"x":"y"}],"type":["tuple",["number",["object",{"x":"string"}]]]},
        "ebs":[{"size":8,"id":"v","kms":null},{"size":"16","id":"w","kms":{"key":"k"}}],
        "root":[],"pair":null,"a b":null}"#;
    let value = program.decode_json(input, &bump).unwrap();
    assert_eq!(
        dump::to_string(&program, value).unwrap(),
        r#"{"ebs":[{"size":8},{"size":16}],"id":"i-1"}"#
    );
    // Bytes stepped over are still checked: JSON, and UTF-8.
    let bad = br#"{"id":"i-1","tags":{"a":tru},"ebs":[]}"#;
    let e = program.decode_json(bad, &bump).unwrap_err();
    assert_eq!((e.path(), e.offset()), (".tags", Some(24)), "{e}");
    // A string or `null` stepped over is checked as the skip checks it: escapes, control
    // bytes, UTF-8, the literal's letters (whitespace before it allowed).
    for (bad, kind, offset) in [
        (
            &br#"{"id":"i-1","tags":"a\qb","ebs":[]}"#[..],
            tfwire::ErrorKind::InvalidUtf8,
            21,
        ),
        (
            b"{\"id\":\"i-1\",\"tags\":\"a\x01b\",\"ebs\":[]}",
            tfwire::ErrorKind::Syntax,
            21,
        ),
        (
            b"{\"id\":\"i-1\",\"tags\":\"a\xffb\",\"ebs\":[]}",
            tfwire::ErrorKind::InvalidUtf8,
            21,
        ),
        (
            br#"{"id":"i-1","tags": nul,"ebs":[]}"#,
            tfwire::ErrorKind::Syntax,
            20,
        ),
        (br#"{"id":"i-1","tags":"ab"#, tfwire::ErrorKind::Eof, 19),
    ] {
        let e = program.decode_json(bad, &bump).unwrap_err();
        assert_eq!(
            (e.kind(), e.path(), e.offset()),
            (kind, ".tags", Some(offset)),
            "{e}"
        );
    }
    let spaced = br#"{"id":"i-1","tags":  "x" ,"pair":  null,"ebs":[]}"#;
    let value = program.decode_json(spaced, &bump).unwrap();
    assert_eq!(
        dump::to_string(&program, value).unwrap(),
        r#"{"ebs":[],"id":"i-1"}"#
    );
    // A type reason inside a part stepped over is not checked (the full decode rejects it).
    let mistyped = br#"{"id":"i-1","tags":{"a":[]},"ebs":[]}"#;
    assert!(full.decode_json(mistyped, &bump).is_err());
    let value = program.decode_json(mistyped, &bump).unwrap();
    assert_eq!(
        dump::to_string(&program, value).unwrap(),
        r#"{"ebs":[],"id":"i-1"}"#
    );
    // Inside a part selected whole, the full type's rules hold: a dynamic value's object
    // with a key its type does not have is an error, as in the full decode.
    let program = full.select(&Selection::parse(["meta"]).unwrap()).unwrap();
    let odd = br#"{"meta":{"value":{"x":"y","z":1},"type":["object",{"x":"string"}]}}"#;
    for p in [&full, &program] {
        let e = p.decode_json(odd, &bump).unwrap_err();
        assert_eq!(
            (e.kind(), e.path(), e.message()),
            (
                tfwire::ErrorKind::UnknownAttribute,
                ".meta",
                r#"unsupported attribute "z""#
            ),
            "{e}"
        );
    }
    let program = full
        .select(&Selection::parse(["id", "ebs[*].size"]).unwrap())
        .unwrap();
    // MessagePack: the same, from go-cty's encoding of the full value.
    let mut msgpack = Vec::new();
    full.encode_msgpack(full.decode_json(input, &bump).unwrap(), &mut msgpack)
        .unwrap();
    let value = program.decode_msgpack(&msgpack, &bump).unwrap();
    assert_eq!(
        dump::to_string(&program, value).unwrap(),
        r#"{"ebs":[{"size":8},{"size":16}],"id":"i-1"}"#
    );
}

/// Inputs changed by one byte, per case, selection and encoding.
const MUTATIONS: usize = 4;

/// Random selections of each case's selection paths (attributes, `[*]`, `[N]`, map keys):
/// the projected decode of its MessagePack and (when it has one) JSON encoding equals its
/// full decode restricted to the paths (`reference::project::compare`); so it does with a
/// byte changed while the full decode accepts, and fails when the input is no longer
/// well-formed by serde_json or `skip_msgpack`.
#[test]
fn projection_equals_the_full_decode_restricted() {
    let dirs = case_dirs(common::shared_dir("the shared conformance cases are not run").as_deref());
    let run = for_each_case(&dirs, ".msgpack", |dir, id| {
        let full = case_program(dir, id)?;
        let mut paths = Vec::new();
        selection_paths(full.root_type(), &[], &["a", "Name"], &mut paths);
        if paths.is_empty() {
            return Ok(());
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ id.wrapping_mul(0x1000_0001));
        let mut inputs = vec![("msgpack", read_bytes(&dir.join(format!("{id}.msgpack")))?)];
        if let Ok(json) = read_bytes(&dir.join(format!("{id}.json"))) {
            inputs.push(("json", json));
        }
        for _ in 0..4 {
            let n = 1 + rng.index(3);
            let steps: Vec<&[Step]> = (0..n)
                .map(|_| paths[rng.index(paths.len())].as_slice())
                .collect();
            let chosen: Vec<String> = steps.iter().map(|p| render(p)).collect();
            let selection = Selection::parse(&chosen).map_err(|e| e.to_string())?;
            let program = full
                .select(&selection)
                .map_err(|e| format!("{chosen:?}: {e}"))?;
            for (format, input) in &inputs {
                let msgpack = *format == "msgpack";
                compare(&full, &program, &steps, msgpack, input);
                // The same with one byte changed, a few times: equal where the full decode
                // still accepts, failing where the input is no longer well-formed.
                for _ in 0..MUTATIONS.min(input.len()) {
                    let mut bytes = input.clone();
                    let at = rng.index(bytes.len());
                    bytes[at] = rng.next() as u8;
                    compare(&full, &program, &steps, msgpack, &bytes);
                }
            }
        }
        Ok(())
    });
    assert!(run > 0);
}

/// Generated types and values (the reference generator, as the `projection` fuzz target
/// draws them from its bytes), both encodings, random selections, sometimes a byte changed.
#[test]
fn projection_of_generated_values() {
    let mut rng = reference::gen::Rng::new(22);
    let rounds = if cfg!(debug_assertions) { 300 } else { 3000 };
    for _ in 0..rounds {
        let data: Vec<u8> = (0..512)
            .map(|_| reference::gen::Source::byte(&mut rng))
            .collect();
        reference::project::projection(&data);
    }
}

/// Picks (`[N]`, `["key"]`): the elements kept, the ones stepped over still checked (errors
/// at their path and byte), a tuple's length still checked, in both encodings.
#[test]
fn picks_keep_their_elements_and_check_the_rest() {
    let full = Program::from_type_json(INSTANCE).unwrap();
    let program = full
        .select(&Selection::parse(["ebs[1].id", r#"tags["b"]"#, "pair[1].a"]).unwrap())
        .unwrap();
    let bump = Bump::new();
    let input = br#"{"id":"i-1","tags":{"a":"x","b":"y","c":"z"},
        "ebs":[{"size":8,"id":"v","kms":null},{"size":16,"id":"w","kms":{"key":"k"}},{"id":"u"}],
        "pair":[{"a":"s","b":true},{"a":2}]}"#;
    let want = r#"{"ebs":[{"id":"w"}],"pair":[{"a":2}],"tags":{"b":"y"}}"#;
    let value = program.decode_json(input, &bump).unwrap();
    assert_eq!(dump::to_string(&program, value).unwrap(), want);
    let mut msgpack = Vec::new();
    full.encode_msgpack(full.decode_json(input, &bump).unwrap(), &mut msgpack)
        .unwrap();
    let value = program.decode_msgpack(&msgpack, &bump).unwrap();
    assert_eq!(dump::to_string(&program, value).unwrap(), want);
    // The projected value encodes under the projected program, as a value of the projected
    // type (which the projected program, reading the full type's shape, does not decode:
    // its picks would pick again).
    let mut again = Vec::new();
    program.encode_json(value, &mut again).unwrap();
    let projected_type = Program::new(program.root_type()).unwrap();
    let value = projected_type.decode_json(&again, &bump).unwrap();
    assert_eq!(dump::to_string(&projected_type, value).unwrap(), want);

    let check = |input: &[u8], kind: tfwire::ErrorKind, path: &str, offset: usize| {
        let e = program.decode_json(input, &bump).unwrap_err();
        assert_eq!(
            (e.kind(), e.path(), e.offset()),
            (kind, path, Some(offset)),
            "{e}"
        );
    };
    // An element stepped over is still JSON.
    check(
        br#"{"ebs":[{"id":tru},{"id":"w"}]}"#,
        tfwire::ErrorKind::Syntax,
        ".ebs[0]",
        14,
    );
    check(
        br#"{"tags":{"a":[1,}}}"#,
        tfwire::ErrorKind::Syntax,
        r#".tags["a"]"#,
        16,
    );
    // A picked tuple still has its length.
    check(
        br#"{"pair":[{"a":"s"}]}"#,
        tfwire::ErrorKind::WrongLength,
        ".pair",
        18,
    );
    check(
        br#"{"pair":[1,{"a":2},3]}"#,
        tfwire::ErrorKind::WrongLength,
        ".pair",
        19,
    );
    // A type reason inside an element stepped over is not checked.
    let value = program
        .decode_json(br#"{"ebs":[7,{"id":"w"}],"tags":{"a":[]}}"#, &bump)
        .unwrap();
    assert_eq!(
        dump::to_string(&program, value).unwrap(),
        r#"{"ebs":[{"id":"w"}],"pair":null,"tags":{}}"#
    );
    // MessagePack: an element stepped over still has its UTF-8 checked.
    let list = [0x81, 0xa3, b'e', b'b', b's', 0x92, 0xa1, 0xff, 0x80];
    let e = program.decode_msgpack(&list, &bump).unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset()),
        (tfwire::ErrorKind::InvalidUtf8, ".ebs[0]", Some(6)),
        "{e}"
    );
}

/// Paths inside a dynamic value select by the type it comes with (after go-cty's
/// read-through of nested wrappers): its type projected on the paths it has, null when it has
/// none, a null or unknown value kept; both encodings.
#[test]
fn paths_inside_dynamic_values_select_by_their_type() {
    let full = Program::from_type_json(INSTANCE).unwrap();
    let bump = Bump::new();
    let input = br#"{"id":"i-1","meta":{"value":{"x":{"value":[{"k":"v","n":2},{"k":"w","n":3}],
        "type":["list",["object",{"k":"string","n":"number"}]]},"y":"z"},
        "type":["object",{"x":"dynamic","y":"string"}]}}"#;
    let mut msgpack = Vec::new();
    full.encode_msgpack(full.decode_json(input, &bump).unwrap(), &mut msgpack)
        .unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["meta.x[1].k"],
            r#"{"meta":{"type":["object",{"x":["list",["object",{"k":"string"}]]}],"value":{"x":[{"k":"w"}]}}}"#,
        ),
        (
            &["meta.x[*].n", "meta.y", "id"],
            r#"{"id":"i-1","meta":{"type":["object",{"x":["list",["object",{"n":"number"}]],"y":"string"}],"value":{"x":[{"n":2},{"n":3}],"y":"z"}}}"#,
        ),
        // A path the value's type lacks selects nothing; with none left, null.
        (
            &["meta.y", "meta.nope", "meta.x.k"],
            r#"{"meta":{"type":["object",{"y":"string"}],"value":{"y":"z"}}}"#,
        ),
        (&["meta.nope"], r#"{"meta":null}"#),
    ];
    for (paths, want) in cases {
        let program = full.select(&Selection::parse(*paths).unwrap()).unwrap();
        let value = program.decode_json(input, &bump).unwrap();
        assert_eq!(
            dump::to_string(&program, value).unwrap(),
            *want,
            "{paths:?}"
        );
        let value = program.decode_msgpack(&msgpack, &bump).unwrap();
        assert_eq!(
            dump::to_string(&program, value).unwrap(),
            *want,
            "{paths:?}"
        );
    }
    // A typed null is kept as it is.
    let program = full.select(&Selection::parse(["meta.x"]).unwrap()).unwrap();
    let null = br#"{"meta":{"value":null,"type":["object",{"x":"string"}]}}"#;
    let value = program.decode_json(null, &bump).unwrap();
    assert_eq!(
        dump::to_string(&program, value).unwrap(),
        r#"{"meta":null}"#
    );
}

/// One instance of the `aws_instance` workload as the issue's paths project it, for serde.
#[derive(Debug, Deserialize, PartialEq)]
struct Projected<'a> {
    id: &'a str,
    instance_type: &'a str,
    #[serde(borrow)]
    tags: Option<BTreeMap<&'a str, &'a str>>,
    root_block_device: Vec<BTreeMap<&'a str, u32>>,
    ebs_block_device: Vec<BTreeMap<&'a str, &'a str>>,
}

/// The issue's own paths on the repository's `aws_instance` workload (`perf/workloads/`: 711
/// instances of a real aws schema, both encodings): `[*]`, `[0]` of a list block, a map key
/// and a list block's attribute. The projected DUMP, exactly; the projection equals the full
/// decode restricted to the paths; serde reads the projected value into a derived struct.
#[test]
fn the_issues_paths_on_the_aws_instance_workload() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("perf/workloads/aws_instance");
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let full = Program::from_schema_json(&String::from_utf8(read("schema.json")).unwrap()).unwrap();
    let paths = [
        "aws_instance[*].id",
        "aws_instance[*].instance_type",
        r#"aws_instance[*].tags["Name"]"#,
        "aws_instance[*].root_block_device[0].volume_size",
        "aws_instance[*].ebs_block_device[*].volume_id",
    ];
    let program = full.select(&Selection::parse(paths).unwrap()).unwrap();
    let one = [
        r#"{"ebs_block_device":[],"id":"i-0d3650a23f4e45dc0","instance_type":"t3.nano","root_block_device":[{"volume_size":8}],"tags":null}"#,
        r#"{"ebs_block_device":[],"id":"i-07dbbae1c3fc4c194","instance_type":"t3.nano","root_block_device":[{"volume_size":8}],"tags":{"Name":"DEMO VM DESTROY ME - default"}}"#,
        r#"{"ebs_block_device":[],"id":"i-002c7d44410fee60e","instance_type":"t3.micro","root_block_device":[{"volume_size":8}],"tags":{"Name":"HelloWorld"}}"#,
    ]
    .join(",");
    let expected = format!(r#"{{"aws_instance":[{}]}}"#, vec![one; 237].join(","));
    let attr = |name: &str| Step::Attr(name.into());
    let each = |rest: Vec<Step>| [vec![attr("aws_instance"), Step::Every], rest].concat();
    let steps = [
        each(vec![attr("id")]),
        each(vec![attr("instance_type")]),
        each(vec![attr("tags"), Step::Key("Name".into())]),
        each(vec![
            attr("root_block_device"),
            Step::Index(0),
            attr("volume_size"),
        ]),
        each(vec![
            attr("ebs_block_device"),
            Step::Every,
            attr("volume_id"),
        ]),
    ];
    // (The reference's rendering of each path is the notation given above.)
    for (p, s) in paths.iter().zip(&steps) {
        assert_eq!(render(s), format!(".{p}"));
    }
    let steps: Vec<&[Step]> = steps.iter().map(Vec::as_slice).collect();
    for (format, input) in [
        ("msgpack", read("value.msgpack")),
        ("json", read("value.json")),
    ] {
        let bump = Bump::new();
        let (a, b) = match format {
            "msgpack" => (
                full.decode_msgpack(&input, &bump),
                program.decode_msgpack(&input, &bump),
            ),
            _ => (
                full.decode_json(&input, &bump),
                program.decode_json(&input, &bump),
            ),
        };
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(dump::to_string(&program, b).unwrap(), expected, "{format}");
        same_selected(
            full.root_type(),
            &steps,
            full.typed(a),
            program.typed(b),
            "",
        )
        .unwrap_or_else(|e| panic!("{format}: {e}"));
        let typed: BTreeMap<&str, Vec<Projected>> = from_typed(program.typed(b)).unwrap();
        let instances = &typed["aws_instance"];
        assert_eq!(instances.len(), 711);
        assert_eq!(
            instances[1],
            Projected {
                id: "i-07dbbae1c3fc4c194",
                instance_type: "t3.nano",
                tags: Some(BTreeMap::from([("Name", "DEMO VM DESTROY ME - default")])),
                root_block_device: vec![BTreeMap::from([("volume_size", 8)])],
                ebs_block_device: vec![],
            }
        );
    }
}
