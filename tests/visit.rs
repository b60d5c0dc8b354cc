//! `Program::visit`: on every conformance case (both encodings, the full program and random
//! projections) and on generated values with a byte sometimes changed, what a visit tells
//! rebuilds the decoded value, and a visit fails where the decode fails (the shared check in
//! `reference/visit.rs`); and the order of the calls on a small value, exactly.

#[path = "support/cases.rs"]
mod cases;
mod common;
#[path = "reference/mod.rs"]
mod reference;
#[path = "support/rng.rs"]
mod rng;

use tfwire::schema::Selection;
use tfwire::{Container, DecodeOptions, Encoding, ErrorKind, Program, Value, Visitor};

use cases::{case_dirs, case_program, for_each_case, read_bytes};
use reference::project::{render, selection_paths};
use reference::visit::same_as_decode;
use rng::Rng;

/// Every call, as text.
#[derive(Default)]
struct Log(Vec<String>);

impl Visitor for Log {
    fn scalar(&mut self, value: Value<'_>) {
        self.0.push(format!("{value:?}"));
    }
    fn begin(&mut self, container: Container<'_>) {
        self.0.push(match container {
            Container::Dynamic(p) => format!("begin dynamic {}", p.root_type()),
            c => format!("begin {c:?}"),
        });
    }
    fn attr(&mut self, name: &str) {
        self.0.push(format!(".{name}"));
    }
    fn key(&mut self, key: &str) {
        self.0.push(format!("[{key:?}]"));
    }
    fn end(&mut self) {
        self.0.push("end".into());
    }
}

const TYPE: &str = r#"["object",{"id":"string","n":"number","tags":["map","string"],
    "disks":["list",["object",{"size":"number"}]],"extra":"dynamic"}]"#;

#[test]
fn calls_come_in_input_order_with_missing_attributes_last() {
    let program = Program::from_type_json(TYPE).unwrap();
    let input = br#"{"tags":{"b":"x\u00e9","a":"y"},"id":"i-1","disks":[{"size":8},{"size":"16"}],
        "extra":{"value":[1,true],"type":["tuple",["number","bool"]]}}"#;
    let mut log = Log::default();
    program
        .visit(Encoding::Json, input, &mut log, &DecodeOptions::default())
        .unwrap();
    let want = [
        "begin Object",
        ".tags",
        "begin Map",
        r#"["b"]"#,
        r#"String("xé")"#,
        r#"["a"]"#,
        r#"String("y")"#,
        "end",
        ".id",
        r#"String("i-1")"#,
        ".disks",
        "begin List",
        "begin Object",
        ".size",
        "Int(8)",
        "end",
        "begin Object",
        ".size",
        r#"Decimal("16")"#,
        "end",
        "end",
        ".extra",
        r#"begin dynamic ["tuple",["number","bool"]]"#,
        "begin Tuple",
        "Int(1)",
        "Bool(true)",
        "end",
        "end",
        ".n",
        "Null",
        "end",
    ];
    assert_eq!(log.0, want);
    // The same value in MessagePack (go-cty's encoding of it), keys in go-cty's order.
    let bump = bumpalo::Bump::new();
    let mut msgpack = Vec::new();
    let value = program.decode_json(input, &bump).unwrap();
    program.encode_msgpack(value, &mut msgpack).unwrap();
    let mut log = Log::default();
    program
        .visit(
            Encoding::Msgpack,
            &msgpack,
            &mut log,
            &DecodeOptions::default(),
        )
        .unwrap();
    let want = [
        "begin Object",
        ".disks",
        "begin List",
        "begin Object",
        ".size",
        "Int(8)",
        "end",
        "begin Object",
        ".size",
        "Int(16)",
        "end",
        "end",
        ".extra",
        r#"begin dynamic ["tuple",["number","bool"]]"#,
        "begin Tuple",
        "Int(1)",
        "Bool(true)",
        "end",
        "end",
        ".id",
        r#"String("i-1")"#,
        ".n",
        "Null",
        ".tags",
        "begin Map",
        r#"["a"]"#,
        r#"String("y")"#,
        r#"["b"]"#,
        r#"String("xé")"#,
        "end",
        "end",
    ];
    assert_eq!(log.0, want);
}

#[test]
fn a_visit_fails_where_the_decode_fails_having_told_what_came_before() {
    let program = Program::from_type_json(TYPE).unwrap();
    let mut log = Log::default();
    let e = program
        .visit(
            Encoding::Json,
            br#"{"id":"a","disks":[{"size":1},{"size":true}]}"#,
            &mut log,
            &DecodeOptions::default(),
        )
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset()),
        (ErrorKind::TypeMismatch, ".disks[1].size", Some(38))
    );
    assert_eq!(
        log.0[..4],
        ["begin Object", ".id", r#"String("a")"#, ".disks"]
    );
}

/// Every conformance case, both encodings: the full program, then random projections.
#[test]
fn a_visit_tells_what_a_decode_builds_on_every_case() {
    let dirs = case_dirs(common::shared_dir("the shared conformance cases are not run").as_deref());
    let run = for_each_case(&dirs, ".msgpack", |dir, id| {
        let full = case_program(dir, id)?;
        let mut inputs = vec![(
            Encoding::Msgpack,
            read_bytes(&dir.join(format!("{id}.msgpack")))?,
        )];
        if let Ok(json) = read_bytes(&dir.join(format!("{id}.json"))) {
            inputs.push((Encoding::Json, json));
        }
        let options = DecodeOptions::default();
        for (encoding, input) in &inputs {
            same_as_decode(&full, *encoding, input, &options)
                .map_err(|e| format!("{encoding:?}: {e}"))?;
        }
        let mut paths = Vec::new();
        selection_paths(full.root_type(), &[], &["a", "Name"], &mut paths);
        if paths.is_empty() {
            return Ok(());
        }
        let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ id.wrapping_mul(0x1000_0001));
        for _ in 0..3 {
            let chosen: Vec<String> = (0..1 + rng.index(3))
                .map(|_| render(&paths[rng.index(paths.len())]))
                .collect();
            let selection = Selection::parse(&chosen).map_err(|e| e.to_string())?;
            let program = full.select(&selection).map_err(|e| e.to_string())?;
            for (encoding, input) in &inputs {
                same_as_decode(&program, *encoding, input, &options)
                    .map_err(|e| format!("{encoding:?} {chosen:?}: {e}"))?;
            }
        }
        Ok(())
    });
    assert!(run > 0);
}

/// Generated types and values (as the `visit` fuzz target draws them), sometimes a byte
/// changed.
#[test]
fn a_visit_tells_what_a_decode_builds_on_generated_values() {
    let mut rng = reference::gen::Rng::new(23);
    let rounds = if cfg!(debug_assertions) { 400 } else { 4000 };
    for _ in 0..rounds {
        let data: Vec<u8> = (0..512)
            .map(|_| reference::gen::Source::byte(&mut rng))
            .collect();
        reference::visit::visit(&data);
    }
}
