//! The Unix habits of `tfwire`, across subcommands: only data on stdout (`tfwire state … >
//! out` in every format), every diagnostic line after `tfwire: `, a truncated state named
//! with its place and offset (exit 1), short flags, no progress bar in a pipe.

mod common;
#[path = "support/run.rs"]
mod run;

use std::path::Path;
use std::process::{Command, Output, Stdio};

const SCHEMAS: &str = "tests/data/states/toy.schemas.json";
const TOY: &str = "tests/data/states/toy.tfstate";

use run::tfwire;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

/// stderr with the summary's timing as `seconds=S`.
fn stderr(out: &Output) -> String {
    let text = text(&out.stderr);
    match text.split_once(" seconds=") {
        Some((before, after)) => {
            let (seconds, rest) = after.split_once('\n').unwrap();
            assert!(seconds.parse::<f64>().is_ok(), "{seconds}");
            format!("{before} seconds=S\n{rest}")
        }
        None => text,
    }
}

/// The toy state's lines (`tests/state.rs` checks them against the instances).
const TOY_TEXT: &str = "toy_server.web[0]\tok\n\
    toy_server.web[0] (deposed 3f2a9c1b)\tok\n\
    toy_server.web[1]\terror at .disk[0].size (byte 19): \"big\" is not a valid number\n\
    module.app.data.toy_image.base\tok\n\
    module.app.module.db[\"eu\"].toy_server.primary[\"a\\\"b\"]\terror at (root) (byte 28): unsupported attribute \"extra\"\n\
    other_thing.x\tno schema\n\
    toy_server.old\tno schema (legacy flatmap attributes are not supported)\n";

/// `tfwire state … > out` leaves only data in `out`, in every format, with one file and
/// with several; the summary goes to stderr.
#[test]
fn state_output_is_only_data() {
    let dir = common::scratch_dir("cli-habits-out");
    let summary = |n: u64| {
        format!(
            "tfwire: instances={} ok={} errors={} no_schema={} bytes={} seconds=S\n\
             tfwire: {} of {} instances failed to decode\n",
            7 * n,
            3 * n,
            2 * n,
            2 * n,
            320 * n,
            2 * n,
            7 * n
        )
    };
    for format in ["text", "ndjson"] {
        for dump in [false, true] {
            for files in [vec![TOY], vec![TOY, TOY]] {
                let mut args = vec!["state", "--schemas", SCHEMAS, "--format", format];
                if dump {
                    args.push("--dump");
                }
                args.extend(&files);
                // stdout to a file, as `> out` does.
                let out_path = dir.join("out");
                let out_file = std::fs::File::create(&out_path).unwrap();
                let run = Command::new(env!("CARGO_BIN_EXE_tfwire"))
                    .args(&args)
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .stdout(out_file)
                    .stderr(Stdio::piped())
                    .output()
                    .unwrap();
                assert_eq!(run.status.code(), Some(1), "{args:?}");
                assert_eq!(stderr(&run), summary(files.len() as u64), "{args:?}");
                let out = std::fs::read_to_string(&out_path).unwrap();
                assert_eq!(
                    out.lines().count(),
                    files.len() * if dump && format == "text" { 10 } else { 7 }
                );
                for line in out.lines() {
                    match format {
                        "ndjson" => {
                            let obj: serde_json::Value = serde_json::from_str(line).unwrap();
                            assert_eq!(obj["file"], TOY, "{line}");
                        }
                        _ => {
                            let line = match files.len() {
                                1 => line,
                                _ => line.strip_prefix(&format!("{TOY}\t")).unwrap(),
                            };
                            let is_dump = serde_json::from_str::<serde_json::Value>(line).is_ok();
                            assert!(
                                is_dump || TOY_TEXT.lines().any(|l| l == line),
                                "{args:?}: {line}"
                            );
                        }
                    }
                }
                if format == "text" && !dump {
                    let want: String = files
                        .iter()
                        .map(|f| match files.len() {
                            1 => TOY_TEXT.to_string(),
                            _ => TOY_TEXT.lines().map(|l| format!("{f}\t{l}\n")).collect(),
                        })
                        .collect();
                    assert_eq!(out, want);
                }
            }
        }
    }
}

/// A truncated state file: exit 1, the instances before the cut on stdout, and on stderr the
/// file, the place in the state and the byte offset.
#[test]
fn a_truncated_state_file() {
    let dir = common::scratch_dir("cli-habits-cut");
    let cut = dir.join("cut.tfstate");
    let toy = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(TOY)).unwrap();
    // Inside the attributes of the second instance (`toy_server.web[0] (deposed …)`).
    std::fs::write(&cut, &toy[..700]).unwrap();
    let cut = cut.to_str().unwrap();
    for jobs in ["1", "2"] {
        let out = tfwire(&["state", "-s", SCHEMAS, "-j", jobs, cut], b"");
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(text(&out.stdout), "toy_server.web[0]\tok\n");
        assert_eq!(
            stderr(&out),
            format!(
                "tfwire: {cut}: at .resources[0].instances[1].attributes (byte 700): \
                 invalid JSON: unexpected end of input\n\
                 tfwire: instances=1 ok=1 errors=0 no_schema=0 bytes=92 seconds=S\n\
                 tfwire: 1 state file could not be read\n"
            )
        );
    }
    // With another file: that one is still decoded, in its place.
    let out = tfwire(&["state", "-s", SCHEMAS, "-f", "ndjson", cut, TOY], b"");
    assert_eq!(out.status.code(), Some(1));
    let files: Vec<String> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].to_string())
        .collect();
    assert_eq!(files.len(), 8);
    assert!(files[1..].iter().all(|f| *f == format!("{TOY:?}")));
    assert_eq!(
        stderr(&out),
        format!(
            "tfwire: {cut}: at .resources[0].instances[1].attributes (byte 700): \
             invalid JSON: unexpected end of input\n\
             tfwire: instances=8 ok=4 errors=2 no_schema=2 bytes=412 seconds=S\n\
             tfwire: 2 of 8 instances failed to decode\n\
             tfwire: 1 state file could not be read\n"
        )
    );
}

/// Every line on stderr starts with `tfwire: `, whatever failed.
#[test]
fn every_diagnostic_starts_with_tfwire() {
    let ty = r#"["object",{"n":"number"}]"#;
    let runs: Vec<(Vec<&str>, &[u8])> = vec![
        (vec!["decode", "--type", ty, "-"], &[0x81, 0xa1, b'n', 0xc3]),
        (
            vec!["decode", "--type", ty, "--format", "json", "--stream"],
            b"{\"n\":1}\n{\"n\":true}\n[\n",
        ),
        (
            vec!["transcode", "--type", ty, "--to", "json"],
            &[0x81, 0xa1, b'n', 0xd4, 0, 0],
        ),
        (
            vec!["state", "--schemas", SCHEMAS, TOY, "no/such.tfstate"],
            b"",
        ),
        (vec!["state", "--schemas", "no/such.json", TOY], b""),
        (vec!["type", "--schema", "no/such.json"], b""),
        (vec!["decode", "--bogus"], b""),
        (vec!["decode", "--type"], b""),
        (vec!["state", TOY], b""),
        (vec![], b""),
    ];
    for (args, input) in runs {
        let out = tfwire(&args, input);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        let err = text(&out.stderr);
        assert!(!err.is_empty(), "{args:?}");
        for line in err.lines() {
            assert!(line.starts_with("tfwire: "), "{args:?}: {line:?}");
        }
    }
}

/// `-s`, `-t`, `-f`, `-j` are `--schema(s)`, `--type`, `--format`, `--jobs`.
#[test]
fn short_flags_are_the_long_ones() {
    let schema = "tests/data/example/aws_security_group.schema.json";
    let value = "tests/data/example/aws_security_group.msgpack";
    let same = |short: &[&str], long: &[&str], input: &[u8]| {
        let (a, b) = (tfwire(short, input), tfwire(long, input));
        assert_eq!(a.status.code(), b.status.code(), "{short:?}");
        assert_eq!(a.stdout, b.stdout, "{short:?}");
        assert!(!a.stdout.is_empty(), "{short:?}");
    };
    same(
        &["decode", "-s", schema, value],
        &["decode", "--schema", schema, value],
        b"",
    );
    same(
        &["decode", "-t", r#"["list","number"]"#, "-f", "json"],
        &[
            "decode",
            "--type",
            r#"["list","number"]"#,
            "--format",
            "json",
        ],
        b"[1, 2]",
    );
    same(&["type", "-s", schema], &["type", "--schema", schema], b"");
    same(
        &["disasm", "-t", "\"string\""],
        &["disasm", "--type", "\"string\""],
        b"",
    );
    same(
        &["transcode", "-s", schema, "--to", "json", value],
        &["transcode", "--schema", schema, "--to", "json", value],
        b"",
    );
    same(
        &["state", "-s", SCHEMAS, "-f", "ndjson", "-j", "2", TOY],
        &[
            "state",
            "--schemas",
            SCHEMAS,
            "--format",
            "ndjson",
            "--jobs",
            "2",
            TOY,
        ],
        b"",
    );
}

/// A run long enough for a progress bar (1,000 files) shows none when stderr is not a
/// terminal: stderr holds the summary alone.
#[test]
fn no_progress_bar_in_a_pipe() {
    let mut args = vec!["state", "--schemas", SCHEMAS, "--format", "ndjson"];
    args.extend(std::iter::repeat_n(TOY, 1000));
    let out = tfwire(&args, b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout).lines().count(), 7000);
    assert_eq!(
        stderr(&out),
        "tfwire: instances=7000 ok=3000 errors=2000 no_schema=2000 bytes=320000 seconds=S\n\
         tfwire: 2000 of 7000 instances failed to decode\n"
    );
}

/// With `--stream` the framing decides the encoding: a `--format` that says otherwise is a
/// usage error, not ignored.
#[test]
fn stream_format_agrees_with_framing() {
    let ty = r#"["object",{"n":"number"}]"#;
    let run = |extra: &[&str]| {
        let mut args = vec!["decode", "--type", ty, "--stream"];
        args.extend(extra);
        let out = tfwire(&args, b"{\"n\":1}\n");
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let ok = (Some(0), "{\"n\":1}\n".to_string(), String::new());
    assert_eq!(run(&["--format", "json"]), ok);
    assert_eq!(run(&["--framing", "ndjson"]), ok);
    assert_eq!(run(&["-f", "json", "--framing", "ndjson"]), ok);
    for (extra, message) in [
        (
            &["-f", "json", "--framing", "concat"][..],
            "--framing concat cannot carry --format json",
        ),
        (
            &["-f", "json", "--framing", "length-prefixed"],
            "--framing length-prefixed cannot carry --format json",
        ),
        (
            &["-f", "msgpack", "--framing", "ndjson"],
            "--framing ndjson cannot carry --format msgpack",
        ),
        (
            &["-f", "auto"],
            "--stream reads --format msgpack or json, not auto",
        ),
    ] {
        assert_eq!(
            run(extra),
            (Some(2), String::new(), format!("tfwire: {message}\n")),
            "{extra:?}"
        );
    }
}

/// `state --check-item-counts` reaches the decoder: a LIST block below its `min_items` fails
/// only when asked.
#[test]
fn state_checks_item_counts_when_asked() {
    let dir = common::scratch_dir("cli-habits-items");
    let schemas = dir.join("schemas.json");
    std::fs::write(
        &schemas,
        r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/a":{
          "resource_schemas":{"r":{"version":0,"block":{"block_types":{"b":{"nesting_mode":"list",
            "min_items":1,"block":{"attributes":{"x":{"type":"string","optional":true}}}}}}}}}}}"#,
    )
    .unwrap();
    let state = dir.join("s.tfstate");
    std::fs::write(
        &state,
        r#"{"version":4,"resources":[{"mode":"managed","type":"r","name":"n",
          "provider":"provider[\"registry.terraform.io/hashicorp/a\"]",
          "instances":[{"attributes":{"b":[]}}]}]}"#,
    )
    .unwrap();
    let (schemas, state) = (schemas.to_str().unwrap(), state.to_str().unwrap());
    let out = tfwire(&["state", "-s", schemas, state], b"");
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "r.n\tok\n".into())
    );
    let out = tfwire(&["state", "-s", schemas, "--check-item-counts", state], b"");
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (
            Some(1),
            "r.n\terror at .b (byte 5): at least 1 blocks are required (0 given)\n".into()
        )
    );
}
