//! The go-cty conformance cases in MessagePack, and the self-tests of the `dumpcmp.py` port.
//!
//! Every case of `../shared/conformance/generated/*/` (when the shared checkout is present)
//! and of the in-repo copy `tests/data/conformance/*/` (always): for case `i` of a folder,
//! the implied type of `i.schema.json` must print as `i.type.json`, and the DUMP of
//! `i.msgpack` must equal `i.dump.json` as `dumpcmp.py --f64` compares them (the port in
//! `support/dumpcmp.rs`). Every failing case is reported, then the test fails. The JSON cases
//! are in `json_conformance.rs`.
//!
//! The shared checkout is `$TFWIRE_SHARED`, else `<CARGO_MANIFEST_DIR>/../shared`; its absence
//! is a skip, except in CI where it fails (`common::strict`).

#[path = "support/cases.rs"]
mod cases;
mod common;

use std::fs;
use std::path::Path;

use bumpalo::Bump;
use tfwire::schema::{SchemaSelector, SchemaSource};
use tfwire::{dump, Program};

use cases::dumpcmp::{compare, Options};
use cases::{case_dirs, compare_dumps, for_each_case, read_bytes, read_text};

/// Case `id` of `dir`: the implied type and the program's type against `i.type.json`, then
/// the DUMP of `i.msgpack` against `i.dump.json`.
fn check_msgpack_case(dir: &Path, id: u64) -> Result<(), String> {
    let schema = read_text(&dir.join(format!("{id}.schema.json")))?;
    let type_json = read_text(&dir.join(format!("{id}.type.json")))?;
    let expected = read_text(&dir.join(format!("{id}.dump.json")))?;
    let bytes = read_bytes(&dir.join(format!("{id}.msgpack")))?;

    let source = SchemaSource::parse(&schema).map_err(|e| format!("schema: {e}"))?;
    let sel = SchemaSelector::default();
    let ty = source.select(&sel).map_err(|e| format!("schema: {e}"))?;
    if ty.to_json() != type_json.trim() {
        return Err(format!(
            "implied type {} != expected {}",
            ty.to_json(),
            type_json.trim()
        ));
    }
    let program = Program::from_source(&source, &sel).map_err(|e| format!("schema: {e}"))?;
    if program.root_type().to_json() != type_json.trim() {
        return Err(format!(
            "program type {} != expected {}",
            program.root_type(),
            type_json.trim()
        ));
    }

    let bump = Bump::new();
    let value = program
        .decode_msgpack(&bytes, &bump)
        .map_err(|e| format!("decode error {e}"))?;
    compare_dumps(
        &type_json,
        &dump::to_string(&program, value).unwrap(),
        &expected,
    )
}

#[test]
fn msgpack_cases() {
    let shared = common::shared_dir("the shared conformance cases are not run");
    for_each_case(
        &case_dirs(shared.as_deref()),
        ".msgpack",
        check_msgpack_case,
    );
}

// ------------------------------------------------------------------ dumpcmp self-tests

/// `(flags, type, A, B, expected)`: `expected` is `"equal"` or the first line `dumpcmp.py`
/// prints. Flags: `f` = `--f64`, `r` = `--ignore-refinements`.
const CMP_CASES: &[(&str, &str, &str, &str, &str)] = &[
    ("", "\"number\"", "0.10", "1e-1", "equal"),
    ("", "\"number\"", "100", "1E+2", "equal"),
    ("", "\"number\"", "-0", "0.0", "equal"),
    ("", "\"number\"", "0.1", "0.1000000000000000055511151231257827021181583404541015625", "differ at (root): different numbers"),
    ("f", "\"number\"", "0.1", "0.1000000000000000055511151231257827021181583404541015625", "equal"),
    ("f", "\"number\"", "0.1", "0.1000000000000001", "differ at (root): different numbers"),
    ("f", "\"number\"", "1e400", "2e400", "equal"),
    ("", "\"number\"", "1e400", "2e400", "differ at (root): different numbers"),
    ("f", "\"number\"", "\"+Inf\"", "\"+Inf\"", "equal"),
    ("f", "\"number\"", "\"+Inf\"", "1e400", "differ at (root): different numbers"),
    ("", "\"number\"", "\"1\"", "1", "differ at (root): number expected"),
    ("", "\"string\"", "1", "1.0", "equal"),
    ("", "\"string\"", "\"\\u00e9\\ud83d\\ude00\"", "\"é😀\"", "equal"),
    ("", "\"bool\"", "true", "false", "differ at (root): different bools"),
    ("", "{\"type\":\"number\"}", "5", "5.0", "equal"),
    ("", "[\"set\",\"number\"]", "[1,2,2]", "[2,1,2.0]", "equal"),
    ("", "[\"set\",\"number\"]", "[1,2,2]", "[1,1,2]", "differ at [#2]: set element of A not in B (sets have 3 vs 3 elements)"),
    ("", "[\"set\",\"number\"]", "[1]", "[1,3]", "differ at [#1]: set element of B not in A (sets have 1 vs 2 elements)"),
    ("f", "[\"set\",\"number\"]", "[0.1,1]", "[1,0.1000000000000000055511151231257827021181583404541015625]", "equal"),
    ("", "[\"set\",[\"set\",\"number\"]]", "[[1,2],[3]]", "[[3],[2,1]]", "equal"),
    ("", "[\"map\",\"string\"]", "{\"b\":\"x\",\"a\":\"y\"}", "{\"a\":\"y\",\"b\":\"x\"}", "equal"),
    ("", "[\"map\",\"string\"]", "{\"a\":\"y\"}", "{\"a\":\"y\",\"b c\":\"x\"}", "differ at [\"b c\"]: key only in B"),
    ("", "[\"object\",{\"with space\":\"string\",\"a\":\"number\"}]", "{\"with space\":\"x\",\"a\":1}", "{\"a\":1,\"with space\":\"y\"}", "differ at [\"with space\"]: different strings"),
    ("", "[\"object\",{\"a\":\"string\"}]", "{}", "{\"a\":null}", "differ at .a: attribute only in B"),
    ("", "[\"list\",[\"object\",{\"a\":[\"set\",\"number\"]}]]", "[{\"a\":[1,2]}]", "[{\"a\":[1,3]}]", "differ at [0].a[#1]: set element of A not in B (sets have 2 vs 2 elements)"),
    ("", "[\"tuple\",[\"string\",\"number\"]]", "[\"a\",1]", "[\"a\",1,2]", "differ at (root): different lengths 2 vs 3"),
    ("", "\"dynamic\"", "{\"type\":\"number\",\"value\":1}", "{\"value\":1.0,\"type\":\"number\"}", "equal"),
    ("", "\"dynamic\"", "{\"type\":[\"list\",\"string\"],\"value\":[]}", "{\"type\":[\"set\",\"string\"],\"value\":[]}", "differ at (root): different dynamic types list(string) vs set(string)"),
    ("", "\"dynamic\"", "{\"type\":[\"object\",{\"a\":\"string\",\"b\":\"number\"}],\"value\":{\"a\":\"x\",\"b\":2}}", "{\"type\":[\"object\",{\"b\":\"number\",\"a\":\"string\"}],\"value\":{\"b\":2,\"a\":\"x\"}}", "equal"),
    ("", "\"dynamic\"", "1", "{\"type\":\"number\",\"value\":1}", "differ at (root): A is not a {\"type\",\"value\"} dynamic wrapper"),
    ("", "[\"set\",\"dynamic\"]", "[{\"type\":\"string\",\"value\":\"1\"},{\"type\":\"number\",\"value\":1}]", "[{\"type\":\"number\",\"value\":1.0},{\"type\":\"string\",\"value\":\"1\"}]", "equal"),
    ("", "[\"set\",\"dynamic\"]", "[{\"type\":\"string\",\"value\":\"1\"}]", "[{\"type\":\"number\",\"value\":1}]", "differ at [#0]: set element of A not in B (sets have 1 vs 1 elements)"),
    ("", "\"string\"", "{\"$unknown\":{}}", "{\"$unknown\":{\"null\":false}}", "differ at (root): different unknown refinements"),
    ("r", "\"string\"", "{\"$unknown\":{}}", "{\"$unknown\":{\"null\":false}}", "equal"),
    ("", "\"number\"", "{\"$unknown\":{\"lower\":[1,true]}}", "{\"$unknown\":{\"lower\":[1.0,true]}}", "equal"),
    ("", "\"string\"", "{\"$unknown\":{}}", "\"x\"", "differ at (root): unknown vs known"),
    ("", "[\"list\",\"string\"]", "[null]", "[\"x\"]", "differ at [0]: null vs non-null"),
    ("", "[\"set\",\"string\"]", "[{\"$unknown\":{}},null]", "[null,{\"$unknown\":{}}]", "equal"),
];

fn run_cmp_case(flags: &str, ty: &str, a: &str, b: &str) -> String {
    let opts = Options {
        f64: flags.contains('f'),
        ignore_refinements: flags.contains('r'),
    };
    match compare(ty, a, b, opts) {
        Ok(()) => "equal".to_string(),
        Err(e) => e.lines().next().unwrap().to_string(),
    }
}

#[test]
fn dumpcmp_self_test() {
    let mut bad = Vec::new();
    for &(flags, ty, a, b, want) in CMP_CASES {
        let got = run_cmp_case(flags, ty, a, b);
        if got != want {
            bad.push(format!(
                "[{flags}] {ty} {a} {b}: got {got:?}, want {want:?}"
            ));
        }
        // Symmetric cases stay equal with the sides swapped.
        if want == "equal" && run_cmp_case(flags, ty, b, a) != "equal" {
            bad.push(format!("[{flags}] {ty} {b} {a}: not equal when swapped"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn dumpcmp_rejects_invalid_input() {
    let o = Options::default();
    for (ty, a, b) in [
        ("number", "1", "{\"a\":1,\"a\":2}"),
        ("number", "01", "1"),
        ("number", "1 2", "1"),
        ("number", "\"\\ud800\"", "1"),
        ("[\"lst\",\"string\"]", "[]", "[]"),
        ("\"nmber\"", "1", "1"),
    ] {
        let e = compare(ty, a, b, o).expect_err(a);
        assert!(e.starts_with("dumpcmp: "), "{ty} {a} {b}: {e}");
    }
}

/// The table against the script itself, when python3 and the shared checkout are present.
#[test]
fn dumpcmp_agrees_with_script() {
    let Some(shared) = common::shared_dir("dumpcmp.py is not run") else {
        return;
    };
    let Some(python3) = common::python3("dumpcmp.py is not run") else {
        return;
    };
    let script = shared.join("oracle").join("dumpcmp.py");
    let tmp = std::env::temp_dir().join(format!("tfwire-dumpcmp-{}", std::process::id()));
    fs::create_dir_all(&tmp).unwrap();
    let mut bad = Vec::new();
    for (i, &(flags, ty, a, b, want)) in CMP_CASES.iter().enumerate() {
        let (fa, fb) = (
            tmp.join(format!("{i}.a.json")),
            tmp.join(format!("{i}.b.json")),
        );
        fs::write(&fa, a).unwrap();
        fs::write(&fb, b).unwrap();
        let mut cmd = std::process::Command::new(python3);
        cmd.arg(&script);
        if flags.contains('f') {
            cmd.arg("--f64");
        }
        if flags.contains('r') {
            cmd.arg("--ignore-refinements");
        }
        let out = cmd.arg(ty).arg(&fa).arg(&fb).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let first = stdout.lines().next().unwrap_or("");
        if first != want {
            bad.push(format!(
                "case {i} [{flags}] {ty} {a} {b}: script says {first:?}, table {want:?}"
            ));
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
