//! The JSON encoder against go-cty: every conformance case's `i.json` and every workload's
//! `value.json` (go-cty's `ctyjson.Marshal` output) decodes and re-encodes to exactly the same
//! bytes; and, with the go-cty oracle's `transcode`, every case and workload crosses formats
//! to go-cty's bytes: MessagePack → JSON and JSON → MessagePack equal the oracle's output byte
//! for byte, and where the oracle refuses (an unknown or an infinity in JSON), tfwire refuses
//! with the same path and message.
//!
//! The shared checkout and the oracle are `common::shared_dir` / `common::oracle`: their
//! absence is a skip for a developer and a failure in CI.

#[path = "support/cases.rs"]
mod cases;
mod common;

use std::path::Path;
use std::process::Command;

use bumpalo::Bump;
use tfwire::{JsonEncoder, MsgpackEncoder, Program};

use cases::{case_dirs, case_program, for_each_case, read_bytes, read_text};

/// Where two byte strings first differ, for the failure message.
fn first_difference(got: &[u8], want: &[u8]) -> String {
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let show = |b: &[u8]| {
        String::from_utf8_lossy(&b[at.min(b.len())..(at + 40).min(b.len())]).into_owned()
    };
    format!(
        "{} vs {} bytes, first difference at {at}: got {:?} want {:?}",
        got.len(),
        want.len(),
        show(got),
        show(want)
    )
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Msgpack,
    Json,
}

/// Decodes `input` in `from` and encodes the value in `to`: the bytes, or the encoder's
/// error as `at PATH: MESSAGE`.
fn transcode(program: &Program, input: &[u8], from: Format, to: Format) -> Result<Vec<u8>, String> {
    let bump = Bump::new();
    let value = match from {
        Format::Msgpack => program.decode_msgpack(input, &bump),
        Format::Json => program.decode_json(input, &bump),
    }
    .unwrap_or_else(|e| panic!("decode error {e}"));
    let mut out = Vec::new();
    match to {
        Format::Msgpack => MsgpackEncoder::new().encode(program, value, &mut out),
        Format::Json => JsonEncoder::new().encode(program, value, &mut out),
    }
    // In the shape of the oracle's go-cty errors (`error at PATH: MESSAGE`), to compare paths
    // and messages (tfwire itself displays `at PATH: MESSAGE`).
    .map_err(|e| {
        let path = if e.path().is_empty() {
            "(root)"
        } else {
            e.path()
        };
        format!("error at {path}: {}", e.message())
    })?;
    Ok(out)
}

#[test]
fn conformance_cases_reencode_to_go_cty_json() {
    let shared = common::shared_dir("the shared conformance cases are not run");
    let run = for_each_case(&case_dirs(shared.as_deref()), ".json", |dir, id| {
        let program = case_program(dir, id)?;
        let bytes = read_bytes(&dir.join(format!("{id}.json")))?;
        let out = transcode(&program, &bytes, Format::Json, Format::Json)?;
        if out != bytes {
            return Err(first_difference(&out, &bytes));
        }
        Ok(())
    });
    assert!(run > 0);
}

#[test]
fn workloads_reencode_to_go_cty_json() {
    let Some(shared) = common::shared_dir("the shared workloads are not run") else {
        return;
    };
    let mut run = 0;
    for entry in std::fs::read_dir(shared.join("workloads")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(bytes) = std::fs::read(dir.join("value.json")) else {
            continue;
        };
        let type_json = read_text(&dir.join("type.json")).unwrap();
        let program = Program::from_type_json(&type_json).unwrap();
        let out = transcode(&program, &bytes, Format::Json, Format::Json).unwrap();
        if out != bytes {
            panic!("{}: {}", dir.display(), first_difference(&out, &bytes));
        }
        run += 1;
    }
    assert!(run >= 7, "{run} workloads with JSON");
}

/// The oracle's `transcode` of `input`: its bytes, or its error line without the
/// `encode error ` prefix.
fn oracle_transcode(
    oracle: &Path,
    ty: &[&str],
    input: &Path,
    from: &str,
    to: &str,
) -> Result<Vec<u8>, String> {
    let out = Command::new(oracle)
        .arg("transcode")
        .args(ty)
        .args(["--from", from, "--to", to])
        .arg(input)
        .arg("-")
        .output()
        .unwrap();
    match out.status.code() {
        Some(0) => Ok(out.stdout),
        Some(1) => {
            let err = String::from_utf8_lossy(&out.stderr);
            let line = err.lines().next().unwrap_or_default();
            Err(line.strip_prefix("encode ").unwrap_or(line).to_string())
        }
        _ => panic!(
            "oracle failed on {}: {}",
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// tfwire's error against go-cty's: the same message and path, where go-cty's `[?]` (a set
/// element) may be any index, and a map key with escapes is compared only up to the key
/// (Go quotes with `%q`, tfwire with Rust's `{:?}`).
fn same_error(tfwire: &str, go: &str) -> bool {
    let (t, g) = (tfwire.as_bytes(), go.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < t.len() && j < g.len() {
        if g[j..].starts_with(b"[?]") && t[i] == b'[' {
            let digits = t[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if digits > 0 && t.get(i + 1 + digits) == Some(&b']') {
                i += digits + 2;
                j += 3;
                continue;
            }
        }
        if t[i] != g[j] {
            // Inside a quoted key: the messages after the path must agree.
            let in_key = tfwire[..i].contains("[\"");
            return in_key && tfwire.rsplit(": ").next() == go.rsplit(": ").next();
        }
        i += 1;
        j += 1;
    }
    i == t.len() && j == g.len()
}

/// Both crossings of one input pair against the oracle.
fn cross(
    oracle: &Path,
    program: &Program,
    ty: &[&str],
    msgpack: &Path,
    json: Option<&Path>,
) -> Result<(), String> {
    let mut inputs = vec![(msgpack, Format::Msgpack, "msgpack", Format::Json, "json")];
    if let Some(json) = json {
        inputs.push((json, Format::Json, "json", Format::Msgpack, "msgpack"));
    }
    for (path, from, from_name, to, to_name) in inputs {
        let input = read_bytes(path)?;
        let want = oracle_transcode(oracle, ty, path, from_name, to_name);
        let got = transcode(program, &input, from, to);
        match (got, want) {
            (Ok(g), Ok(w)) if g == w => {}
            (Ok(g), Ok(w)) => {
                return Err(format!(
                    "{from_name} → {to_name}: {}",
                    first_difference(&g, &w)
                ))
            }
            (Err(g), Err(w)) if same_error(&g, &w) => {}
            // go-cty 1.12 (the oracle's) drops the error of a value at a dynamic position
            // (`marshalDynamic` ignores what `marshal` returns; fixed in 1.14.4, research
            // §2.2): it writes `{"value":` and what it had, then goes on. So where tfwire
            // refuses an unknown, go-cty 1.12 writes invalid JSON or refuses a later unknown.
            (Err(g), w)
                if g.ends_with(": value is not known")
                    && match &w {
                        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(bytes).is_err(),
                        Err(w) => w.ends_with(": value is not known"),
                    } => {}
            (g, w) => {
                let show = |r: Result<Vec<u8>, String>| {
                    r.map(|b| {
                        String::from_utf8_lossy(&b)
                            .chars()
                            .take(80)
                            .collect::<String>()
                    })
                };
                return Err(format!(
                    "{from_name} → {to_name}: tfwire {:?}, go-cty {:?}",
                    show(g),
                    show(w)
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn conformance_cases_cross_formats_as_go_cty_does() {
    let shared = common::shared_dir("the shared conformance cases are not run");
    let Some(oracle) = common::oracle("the cross-format comparison is not run") else {
        return;
    };
    let run = for_each_case(&case_dirs(shared.as_deref()), ".msgpack", |dir, id| {
        let program = case_program(dir, id)?;
        let schema = dir.join(format!("{id}.schema.json"));
        let schema = schema.to_str().unwrap();
        let json = dir.join(format!("{id}.json"));
        let json = json.is_file().then_some(json.as_path());
        cross(
            &oracle,
            &program,
            &["--schema", schema],
            &dir.join(format!("{id}.msgpack")),
            json,
        )
    });
    assert!(run > 0);
}

#[test]
fn workloads_cross_formats_as_go_cty_does() {
    let Some(shared) = common::shared_dir("the shared workloads are not run") else {
        return;
    };
    let Some(oracle) = common::oracle("the cross-format comparison is not run") else {
        return;
    };
    let mut run = 0;
    for entry in std::fs::read_dir(shared.join("workloads")).unwrap() {
        let dir = entry.unwrap().path();
        let msgpack = dir.join("value.msgpack");
        if !msgpack.is_file() {
            continue;
        }
        let type_file = dir.join("type.json");
        let program = Program::from_type_json(&read_text(&type_file).unwrap()).unwrap();
        let ty = format!("@{}", type_file.display());
        let json = dir.join("value.json");
        let json = json.is_file().then_some(json.as_path());
        if let Err(e) = cross(&oracle, &program, &["--type", &ty], &msgpack, json) {
            panic!("{}: {e}", dir.display());
        }
        run += 1;
    }
    assert!(run >= 8, "{run} workloads");
}
