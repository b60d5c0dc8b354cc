//! The go-cty conformance cases in JSON, and the JSON workloads.
//!
//! - Every `i.json` of `../shared/conformance/generated/*/` (when the shared checkout is
//!   present) and of the in-repo copy `tests/data/conformance/*/` (always) decodes, and its
//!   DUMP equals `i.json.dump.json` as `dumpcmp.py --f64` compares them.
//! - For every case with both encodings, the MessagePack and JSON decodes are equal value by
//!   value (numbers by `f64` equality: go-cty writes a float64 to msgpack as a float and to
//!   JSON as its shortest decimal text).
//! - The JSON workloads of `../shared/workloads/*/value.json` decode to their expected DUMP
//!   (`value.json.dump.json.gz` when present, else `value.msgpack.dump.json.gz`).
//!
//! The shared checkout is `$TFWIRE_SHARED`, else `<CARGO_MANIFEST_DIR>/../shared`; its absence
//! is a skip, except in CI where it fails (`common::strict`).

#[path = "support/cases.rs"]
mod cases;
mod common;

use std::fs;
use std::path::{Path, PathBuf};

use bumpalo::Bump;
use tfwire::{dump, Program, Value};

use cases::dumpcmp::compare;
use cases::{case_dirs, case_program, compare_dumps, for_each_case, read_bytes, read_text, F64};

/// The shared checkout, or `None` (after a skip message) when it is absent.
fn shared_dir() -> Option<PathBuf> {
    common::shared_dir("the shared JSON cases and workloads are not run")
}

/// Every conformance folder: the shared ones, then the in-repo copies.
fn all_folders() -> Vec<PathBuf> {
    case_dirs(shared_dir().as_deref())
}

#[test]
fn json_cases_match_their_dumps() {
    for_each_case(&all_folders(), ".json", |dir, id| {
        let program = case_program(dir, id)?;
        let type_json = read_text(&dir.join(format!("{id}.type.json")))?;
        let expected = read_text(&dir.join(format!("{id}.json.dump.json")))?;
        let input = read_bytes(&dir.join(format!("{id}.json")))?;
        let bump = Bump::new();
        let value = program
            .decode_json(&input, &bump)
            .map_err(|e| format!("decode error {e}"))?;
        compare_dumps(
            &type_json,
            &dump::to_string(&program, value).unwrap(),
            &expected,
        )
    });
}

#[test]
fn json_and_msgpack_decode_to_equal_values() {
    for_each_case(&all_folders(), ".json", |dir, id| {
        let program = case_program(dir, id)?;
        let json = read_bytes(&dir.join(format!("{id}.json")))?;
        let msgpack = read_bytes(&dir.join(format!("{id}.msgpack")))?;
        let bump = Bump::new();
        let a = program
            .decode_msgpack(&msgpack, &bump)
            .map_err(|e| format!("msgpack: {e}"))?;
        let b = program
            .decode_json(&json, &bump)
            .map_err(|e| format!("json: {e}"))?;
        same(&program, a, b, &mut String::new())
    });
}

/// Structural equality of two decodes under one program: numbers by `f64` equality, sets as
/// multisets, maps by key (last of repeated keys), dynamic values by concrete type.
fn same(program: &Program, a: Value<'_>, b: Value<'_>, path: &mut String) -> Result<(), String> {
    let differ = |why: &str| Err(format!("differ at {path:?}: {why}: {a:?} vs {b:?}"));
    match (a, b) {
        (Value::Null, Value::Null) => Ok(()),
        (Value::Bool(x), Value::Bool(y)) if x == y => Ok(()),
        (Value::String(x), Value::String(y)) if x == y => Ok(()),
        (x, y) if is_number(x) && is_number(y) => {
            if x.as_f64() == y.as_f64() {
                Ok(())
            } else {
                differ("numbers")
            }
        }
        (Value::List(x), Value::List(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            if x.len() != y.len() {
                return differ("lengths");
            }
            for (i, (&x, &y)) in x.iter().zip(y).enumerate() {
                let n = path.len();
                path.push_str(&format!("[{i}]"));
                same(program, x, y, path)?;
                path.truncate(n);
            }
            Ok(())
        }
        (Value::Set(x), Value::Set(y)) => {
            if x.len() != y.len() {
                return differ("set lengths");
            }
            // In order when the encoders agree on it; else as multisets.
            let in_order = x
                .iter()
                .zip(y)
                .all(|(&x, &y)| same(program, x, y, &mut path.clone()).is_ok());
            if in_order {
                return Ok(());
            }
            let mut used = vec![false; y.len()];
            for &e in x {
                let hit = (0..y.len())
                    .find(|&k| !used[k] && same(program, e, y[k], &mut path.clone()).is_ok());
                match hit {
                    Some(k) => used[k] = true,
                    None => return differ("set element of msgpack missing from JSON"),
                }
            }
            Ok(())
        }
        (Value::Map(_), Value::Map(_)) => {
            let x = last_wins(a);
            let y = last_wins(b);
            if x.iter().map(|e| e.0).ne(y.iter().map(|e| e.0)) {
                return differ("map keys");
            }
            for ((k, x), (_, y)) in x.into_iter().zip(y) {
                let n = path.len();
                path.push_str(&format!("[{k:?}]"));
                same(program, x, y, path)?;
                path.truncate(n);
            }
            Ok(())
        }
        (Value::Object(x), Value::Object(y)) => {
            let (p, q, x, y) = (x.op(), y.op(), x.attrs(), y.attrs());
            if p != q || x.len() != y.len() {
                return differ("object shapes");
            }
            let names = program.typed(a).attrs().map(|(n, _)| n).collect::<Vec<_>>();
            for (i, (&x, &y)) in x.iter().zip(y).enumerate() {
                let n = path.len();
                path.push('.');
                path.push_str(names.get(i).copied().unwrap_or("?"));
                same(program, x, y, path)?;
                path.truncate(n);
            }
            Ok(())
        }
        (Value::Dynamic(x), Value::Dynamic(y)) => {
            if x.program.root_type() != y.program.root_type() {
                return differ("dynamic types");
            }
            same(x.program, x.value, y.value, path)
        }
        _ => differ("values"),
    }
}

fn last_wins<'a>(v: Value<'a>) -> Vec<(&'a str, Value<'a>)> {
    let mut entries: Vec<(&str, Value)> = v.entries().unwrap_or(&[]).to_vec();
    entries.sort_by(|a, b| a.0.cmp(b.0)); // stable: wire order among equal keys
    let mut out: Vec<(&str, Value)> = Vec::with_capacity(entries.len());
    for e in entries {
        match out.last_mut() {
            Some(last) if last.0 == e.0 => *last = e,
            _ => out.push(e),
        }
    }
    out
}

// ------------------------------------------------------------------ workloads

const WORKLOADS: &[&str] = &[
    "aws_states",
    "azurerm_states",
    "big_set_blocks",
    "deep_dynamic",
    "google_states",
    "number_heavy",
    "string_heavy",
];

fn gunzip(path: &Path) -> String {
    let out = std::process::Command::new("zcat")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("zcat {}: {e}", path.display()));
    assert!(out.status.success(), "zcat {} failed", path.display());
    String::from_utf8(out.stdout).expect("UTF-8 dump")
}

#[test]
fn json_workloads_match_their_dumps() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("workloads");
    let mut failures = Vec::new();
    let mut run = 0;
    for name in WORKLOADS {
        let w = dir.join(name);
        let Ok(input) = fs::read(w.join("value.json")) else {
            println!("{name}: no value.json");
            continue;
        };
        run += 1;
        let schema = fs::read_to_string(w.join("schema.json")).unwrap();
        let type_json = fs::read_to_string(w.join("type.json")).unwrap();
        let program = Program::from_schema_json(&schema).unwrap();
        let json_dump = w.join("value.json.dump.json.gz");
        let expected = if json_dump.exists() {
            gunzip(&json_dump)
        } else {
            gunzip(&w.join("value.msgpack.dump.json.gz"))
        };
        let bump = Bump::new();
        let got = match program.decode_json(&input, &bump) {
            Ok(v) => dump::to_string(&program, v).unwrap(),
            Err(e) => {
                failures.push(format!("{name}: decode error {e}"));
                continue;
            }
        };
        match compare(&type_json, &got, &expected, F64) {
            Ok(()) => println!("{name}: {} bytes, DUMP equal", input.len()),
            Err(e) => failures.push(format!(
                "{name}: {}",
                e.lines().take(3).collect::<Vec<_>>().join(" | ")
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(run, WORKLOADS.len(), "some workloads lack value.json");
}

/// Throughput of the JSON and MessagePack decoders on every workload (release build):
/// `cargo test --release --test json_conformance -- --ignored --nocapture throughput`.
#[test]
#[ignore]
fn throughput() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("workloads");
    // `TFWIRE_WORKLOAD=name` picks one workload (for profiling).
    let only = std::env::var("TFWIRE_WORKLOAD").ok();
    for name in WORKLOADS
        .iter()
        .filter(|n| only.as_deref().is_none_or(|o| o == **n))
    {
        let w = dir.join(name);
        let schema = fs::read_to_string(w.join("schema.json")).unwrap();
        let program = Program::from_schema_json(&schema).unwrap();
        let json = fs::read(w.join("value.json")).unwrap();
        let msgpack = fs::read(w.join("value.msgpack")).unwrap();
        let mut bump = Bump::new();
        // The fastest of many single decodes: robust against a busy machine.
        let mut rate = |input: &[u8], json: bool| {
            let mut best = f64::MAX;
            for _ in 0..80 {
                bump.reset();
                let t = std::time::Instant::now();
                let v = if json {
                    program.decode_json(input, &bump).map(|_| ())
                } else {
                    program.decode_msgpack(input, &bump).map(|_| ())
                };
                best = best.min(t.elapsed().as_secs_f64());
                v.unwrap();
            }
            input.len() as f64 / best / 1e6
        };
        let j = rate(&json, true);
        let m = rate(&msgpack, false);
        println!(
            "{name:16} json {:>9} B {j:8.0} MB/s   msgpack {:>9} B {m:8.0} MB/s",
            json.len(),
            msgpack.len()
        );
    }
}

/// A number variant (not a dynamic value that holds one).
fn is_number(v: Value<'_>) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_)
    )
}
