//! Replays every input of `tests/regressions/` through the checks of the fuzz target that
//! found it (`reference/check.rs`). A file is `TARGET.what-it-exercises.bin`, or
//! `open-TARGET.what-it-exercises.bin` for an input on which the VM is still wrong (an open
//! finding of `fuzz/README.md`): those pass here with the reference reproducing the known
//! bugs, and `open_findings_are_fixed` (ignored until they are) replays them against the
//! correct behaviour.

#[path = "reference/mod.rs"]
mod reference;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use bumpalo::Bump;
use reference::check::{self, Format};
use tfwire::{dump, Program};

fn replay(target: &str, data: &[u8]) {
    match target {
        "msgpack_differential" => check::typed_differential(Format::Msgpack, data),
        "json_differential" => check::typed_differential(Format::Json, data),
        "msgpack_schema" => check::schema_text(Format::Msgpack, data),
        "json_schema" => check::schema_text(Format::Json, data),
        "msgpack_fixed" | "json_fixed" => {
            let f = if target == "msgpack_fixed" {
                Format::Msgpack
            } else {
                Format::Json
            };
            let schemas = ["aws_security_group", "azurerm_states", "deep_dynamic"];
            let i = (data.first().copied().unwrap_or(0) as usize >> 5) % 4 % 3;
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("fuzz/schemas/{}.schema.json", schemas[i]));
            let text = std::fs::read_to_string(path).unwrap();
            check::fixed(&Program::from_schema_json(&text).unwrap(), f, data);
        }
        "roundtrip" => check::roundtrip(data),
        "type_json" => check::type_json(data),
        "schema_doc" => check::schema_doc(data),
        t => panic!("unknown target {t}"),
    }
}

/// `(open, target, path)` of every regression input.
fn inputs() -> Vec<(bool, String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut out: Vec<(bool, String, PathBuf)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let open = name.starts_with("open-");
            let target = name
                .trim_start_matches("open-")
                .split('.')
                .next()
                .unwrap()
                .to_string();
            (open, target, p)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_regression_input_passes_its_target_checks() {
    let all = inputs();
    assert!(all.len() >= 5, "the regression inputs are there");
    for (_, target, path) in &all {
        let data = std::fs::read(path).unwrap();
        let r = std::panic::catch_unwind(|| replay(target, &data));
        assert!(r.is_ok(), "{} failed its checks", path.display());
    }
}

#[test]
#[ignore = "open findings: the VM is still wrong on these (fuzz/README.md)"]
fn open_findings_are_fixed() {
    reference::EMULATE_KNOWN_BUGS.store(false, Ordering::Relaxed);
    let mut failed = Vec::new();
    for (open, target, path) in inputs() {
        let data = std::fs::read(&path).unwrap();
        if open && std::panic::catch_unwind(|| replay(&target, &data)).is_err() {
            failed.push(path.display().to_string());
        }
    }
    assert!(failed.is_empty(), "still open: {failed:#?}");
}

/// go-cty reads a dynamic value whose type JSON holds `dynamic` through to the inner
/// wrappers: `["\"dynamic\"", ["\"bool\"", true]]` is the bool (ctyoracle:
/// `{"type":"bool","value":true}`), and a `["list","dynamic"]` wrapper is a list of the
/// inner values' type (`{"type":["list","bool"],"value":[true]}`). tfwire keeps the outer
/// type and the inner wrappers.
#[test]
#[ignore = "open finding: dynamic wrappers whose type holds dynamic (fuzz/README.md)"]
fn a_wrapper_typed_dynamic_reads_through_as_go_cty_does() {
    let p = Program::from_type_json("\"dynamic\"").unwrap();
    let bump = Bump::new();
    let cases: [(&[u8], &str); 2] = [
        (
            b"\x92\xa9\"dynamic\"\x92\xa6\"bool\"\xc3",
            r#"{"type":"bool","value":true}"#,
        ),
        (
            b"\x92\xb2[\"list\",\"dynamic\"]\x91\x92\xa6\"bool\"\xc3",
            r#"{"type":["list","bool"],"value":[true]}"#,
        ),
    ];
    for (input, go_cty) in cases {
        let v = p.decode_msgpack(input, &bump).unwrap();
        assert_eq!(dump::to_string(&p, v), go_cty);
    }
}
