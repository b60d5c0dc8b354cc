//! The `tfwire` binary: data on stdout, diagnostics on stderr (each line after `tfwire: `),
//! exit codes 0/1/2, `--help`, the flags. (`tests/cli_habits.rs`: the same habits across
//! subcommands; `tests/cli_pipes.rs`: a closed stdout.)

mod common;
#[path = "support/run.rs"]
mod run;

use std::path::PathBuf;
use std::process::Output;

fn tfwire(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run::tfwire(args, stdin.unwrap_or_default())
}

fn example(name: &str) -> String {
    PathBuf::from("tests/data/example")
        .join(name)
        .display()
        .to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

#[test]
fn decode_example_prints_the_expected_dump() {
    let schema = example("aws_security_group.schema.json");
    let out = tfwire(
        &[
            "decode",
            "--schema",
            &schema,
            &example("aws_security_group.msgpack"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(out.stderr.is_empty());
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let want: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(example("aws_security_group.dump.json")).expect("dump"),
    )
    .expect("JSON");
    // The example has no floats and no sets of more than one element, so plain JSON equality
    // is the dumpcmp comparison here.
    assert_eq!(got, want);
}

#[test]
fn decode_reads_stdin_and_type_from_a_file() {
    let out = tfwire(
        &["decode", "--type", "[\"list\",\"number\"]", "-"],
        Some(&[0x92, 0x01, 0xff]),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "[1,-1]\n");
    let out = tfwire(
        &[
            "decode",
            "--type",
            &format!("@{}", "tests/data/example/README.md"),
        ],
        Some(&[0xc0]),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a type file that is not type JSON is bad input"
    );
    assert_eq!(
        text(&out.stderr),
        "tfwire: tests/data/example/README.md: at byte 0: invalid type JSON: expected value\n"
    );
    // Inline, it is the command line that is wrong.
    let out = tfwire(&["decode", "--type", "bogus"], Some(&[0xc0]));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "tfwire: --type: at byte 0: invalid type JSON: expected value\n"
    );
}

#[test]
fn decode_error_exits_1_with_path_and_offset_on_stderr() {
    let schema = example("aws_security_group.schema.json");
    let mut bytes = std::fs::read(example("aws_security_group.msgpack")).expect("example");
    bytes.truncate(100);
    let out = tfwire(&["decode", "--schema", &schema, "-"], Some(&bytes));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        "tfwire: error at .description (byte 89): unexpected end of input\n"
    );
}

#[test]
fn decode_error_at_root_names_root() {
    let out = tfwire(
        &["decode", "--type", "\"string\"", "-"],
        Some(&[0x92, 0x01]),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "tfwire: error at (root) (byte 0): expected string, found msgpack fixarray\n"
    );
}

/// Each decode option changes the outcome: without it the value fails, with it it decodes.
#[test]
fn drift_options_reach_the_decoder() {
    let outcome = |args: &[&str], input: &[u8]| {
        let out = tfwire(args, Some(input));
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    // {"a": 1, "z": 2} for object {a}: unknown attribute unless skipped.
    let input = [0x82, 0xa1, b'a', 0x01, 0xa1, b'z', 0x02];
    let ty = r#"["object",{"a":"number"}]"#;
    assert_eq!(
        outcome(&["decode", "--type", ty, "-"], &input),
        (
            Some(1),
            String::new(),
            "tfwire: error at (root) (byte 4): unsupported attribute \"z\"\n".into()
        )
    );
    assert_eq!(
        outcome(
            &["decode", "--type", ty, "--skip-unknown-attrs", "-"],
            &input
        ),
        (Some(0), "{\"a\":1}\n".into(), String::new())
    );
    // {"a": 1} for object {a, b}: a missing attribute unless read as null.
    let ty2 = r#"["object",{"a":"number","b":"string"}]"#;
    let short = [0x81, 0xa1, b'a', 0x01];
    assert_eq!(
        outcome(&["decode", "--type", ty2, "-"], &short),
        (
            Some(1),
            String::new(),
            "tfwire: error at (root) (byte 0): attribute \"b\" is required\n".into()
        )
    );
    assert_eq!(
        outcome(
            &["decode", "--type", ty2, "--missing-attrs-null", "-"],
            &short
        ),
        (Some(0), "{\"a\":1,\"b\":null}\n".into(), String::new())
    );
    // {"b": []} for a LIST block of at least one: counted only when asked.
    let dir = common::scratch_dir("cli-item-counts");
    let schema = dir.join("block.json");
    std::fs::write(
        &schema,
        r#"{"version":0,"block":{"block_types":{"b":{"nesting_mode":"list","min_items":1,
            "block":{"attributes":{"x":{"type":"string","optional":true}}}}}}}"#,
    )
    .unwrap();
    let schema = schema.to_str().unwrap();
    let empty = [0x81, 0xa1, b'b', 0x90];
    assert_eq!(
        outcome(&["decode", "--schema", schema, "-"], &empty),
        (Some(0), "{\"b\":[]}\n".into(), String::new())
    );
    assert_eq!(
        outcome(
            &["decode", "-s", schema, "--check-item-counts", "-"],
            &empty
        ),
        (
            Some(1),
            String::new(),
            "tfwire: error at .b (byte 3): at least 1 blocks are required (0 given)\n".into()
        )
    );
}

/// 2 only when the command line itself is wrong.
#[test]
fn usage_errors_exit_2() {
    for args in [
        vec![],
        vec!["decode"],
        vec!["decode", "--type", "\"bogus\""],
        vec!["decode", "--type", "\"string\"", "--resource", "x"],
        vec!["decode", "--type", "\"string\"", "--format", "yaml"],
        vec!["decode", "--type", "\"string\"", "--missing-attrs"],
        vec!["state", "--schemas", "x.json", "--jobs", "0", "x.tfstate"],
        vec![
            "state",
            "--schemas",
            "x.json",
            "--missing-attrs-null",
            "x.tfstate",
        ],
        vec!["frobnicate"],
    ] {
        let out = tfwire(&args, Some(&[0xc0]));
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// Files that cannot be read or do not load are bad input: 1, naming the file.
#[test]
fn unreadable_or_bad_files_exit_1() {
    let toy = "tests/data/states/toy.schemas.json";
    for (args, message) in [
        (
            vec!["decode", "--schema", "no/such/file.json"],
            "tfwire: no/such/file.json: No such file or directory (os error 2)\n",
        ),
        (
            vec!["decode", "--type", "\"string\"", "no/such/input"],
            "tfwire: no/such/input: No such file or directory (os error 2)\n",
        ),
        (
            vec!["decode", "--stream", "--type", "\"string\"", "no/such/input"],
            "tfwire: no/such/input: No such file or directory (os error 2)\n",
        ),
        (
            vec!["type", "--schema", "tests/data/example/README.md"],
            "tfwire: tests/data/example/README.md: at byte 0: schema is not valid JSON: expected value\n",
        ),
        (
            vec!["type", "--schema", toy],
            "tfwire: tests/data/states/toy.schemas.json: a providers-schema document needs --resource NAME, --data-source NAME or --provider PROVIDER\n",
        ),
        (
            vec!["state", "--schemas", "no/such/file.json", "tests/data/states/toy.tfstate"],
            "tfwire: no/such/file.json: No such file or directory (os error 2)\n",
        ),
    ] {
        let out = tfwire(&args, Some(&[0xc0]));
        assert_eq!(
            (out.status.code(), text(&out.stderr).as_str()),
            (Some(1), message),
            "{args:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn type_and_disasm() {
    let schema = example("aws_security_group.schema.json");
    let out = tfwire(&["type", "--schema", &schema], None);
    assert_eq!(out.status.code(), Some(0));
    let ty = text(&out.stdout);
    assert!(ty.starts_with("[\"object\",{\"arn\":\"string\",\"description\":\"string\",\"egress\":[\"set\",[\"object\",{\"cidr_blocks\":[\"list\",\"string\"]"), "{ty}");
    let out = tfwire(
        &["disasm", "--type", "[\"list\",[\"map\",\"string\"]]"],
        None,
    );
    assert_eq!(
        text(&out.stdout),
        "; type [\"list\",[\"map\",\"string\"]]\n; 3 ops, root @2\n@0: string\n@1: map @0\n@2: list @1\n"
    );
}

#[test]
fn every_subcommand_has_help() {
    for sub in ["decode", "transcode", "type", "disasm", "state"] {
        for help in ["--help", "-h"] {
            let out = tfwire(&[sub, help], None);
            assert_eq!(out.status.code(), Some(0), "{sub}");
            assert!(out.stderr.is_empty(), "{sub}");
            assert!(
                text(&out.stdout).contains(&format!("Usage: tfwire {sub}")),
                "{sub}"
            );
        }
    }
    let out = tfwire(&["--help"], None);
    let help = text(&out.stdout);
    assert!(
        help.contains("Exit status: 0 on success; 1 on bad input"),
        "{help}"
    );
    // `bench` is a developer tool: only in a binary built with `--features bench`.
    let out = tfwire(&["bench", "--help"], None);
    if cfg!(feature = "bench") {
        assert_eq!(out.status.code(), Some(0));
        assert!(text(&out.stdout).contains("Usage: tfwire bench"));
        assert!(help.contains("\n  bench "), "{help}");
    } else {
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            "tfwire: unrecognized subcommand 'bench'\n\
             tfwire: Usage: tfwire <COMMAND>\n\
             tfwire: For more information, try '--help'.\n"
        );
        assert!(!help.contains("bench"), "{help}");
    }
}

#[test]
fn selectors_pick_one_schema_of_a_document() {
    let doc = "tests/data/states/toy.schemas.json";
    let out = tfwire(
        &["type", "--schema", doc, "--data-source", "toy_image"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "[\"object\",{\"id\":\"string\",\"name\":\"string\"}]\n"
    );
    let out = tfwire(
        &[
            "type",
            "--schema",
            doc,
            "--resource",
            "toy_server",
            "--provider",
            "toy",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = tfwire(
        &["type", "--schema", doc, "--resource", "toy_nothing"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "tfwire: tests/data/states/toy.schemas.json: resource \"toy_nothing\" not found in the providers-schema document\n"
    );
}

#[test]
fn decode_json_and_auto_format() {
    let ty = r#"["object",{"id":"string","n":"number"}]"#;
    let json = br#"{"id": "a", "n": "5"}"#;
    for format in ["json", "auto"] {
        let out = tfwire(
            &["decode", "--type", ty, "--format", format, "-"],
            Some(json),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), "{\"id\":\"a\",\"n\":5}\n");
    }
    // auto: a non-ASCII first byte (a msgpack map header) is MessagePack.
    let mp = [0x82, 0xa2, b'i', b'd', 0xa1, b'a', 0xa1, b'n', 0x05];
    let out = tfwire(
        &["decode", "--type", ty, "--format", "auto", "-"],
        Some(&mp),
    );
    assert_eq!(text(&out.stdout), "{\"id\":\"a\",\"n\":5}\n");
    let out = tfwire(
        &["decode", "--type", ty, "--format", "json", "-"],
        Some(b"{\"id\": 1,}"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "tfwire: error at (root) (byte 9): expected a string key, found '}'\n"
    );
}

#[test]
fn transcode_crosses_formats_and_back_to_the_same_bytes() {
    let schema = example("aws_security_group.schema.json");
    let msgpack = std::fs::read(example("aws_security_group.msgpack")).unwrap();
    let to_json = tfwire(
        &["transcode", "--schema", &schema, "--to", "json", "-"],
        Some(&msgpack),
    );
    assert_eq!(
        to_json.status.code(),
        Some(0),
        "stderr: {}",
        text(&to_json.stderr)
    );
    assert!(to_json.stderr.is_empty());
    let json = to_json.stdout;
    assert!(json.starts_with(b"{\"arn\":"), "{}", text(&json));
    // Back from JSON (named, and detected): go-cty's MessagePack bytes again.
    for from in ["json", "auto"] {
        let back = tfwire(
            &[
                "transcode",
                "--schema",
                &schema,
                "--from",
                from,
                "--to",
                "msgpack",
            ],
            Some(&json),
        );
        assert_eq!(
            back.status.code(),
            Some(0),
            "stderr: {}",
            text(&back.stderr)
        );
        assert_eq!(back.stdout, msgpack);
    }
    let same = tfwire(
        &[
            "transcode",
            "--schema",
            &schema,
            "--to",
            "msgpack",
            &example("aws_security_group.msgpack"),
        ],
        None,
    );
    assert_eq!(same.stdout, msgpack);
}

#[test]
fn transcode_refuses_what_the_target_cannot_hold() {
    // {"a": unknown, "b": 1}: JSON has no unknowns; MessagePack does.
    let input = [0x82, 0xa1, b'a', 0xd4, 0x00, 0x00, 0xa1, b'b', 0x01];
    let ty = r#"["object",{"a":"string","b":"number"}]"#;
    let out = tfwire(
        &[
            "transcode",
            "--type",
            ty,
            "--from",
            "msgpack",
            "--to",
            "json",
        ],
        Some(&input),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(text(&out.stderr), "tfwire: at .a: value is not known\n");
    let out = tfwire(
        &[
            "transcode",
            "--type",
            ty,
            "--from",
            "msgpack",
            "--to",
            "msgpack",
        ],
        Some(&input),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, input);
    // An infinity, from decimal text.
    let out = tfwire(
        &[
            "transcode",
            "--type",
            "[\"list\",\"number\"]",
            "--to",
            "json",
        ],
        Some(&[0x91, 0xa4, b'-', b'I', b'n', b'f']),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "tfwire: at [0]: cannot serialize infinity as JSON\n"
    );
    // A decode error is bad input too; a missing --to is a usage error.
    let out = tfwire(
        &["transcode", "--type", "\"number\"", "--to", "json"],
        Some(b"[1"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "tfwire: error at (root) (byte 0): expected number, found JSON array\n"
    );
    let out = tfwire(&["transcode", "--type", "\"number\""], Some(b"1"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn decode_stream_prints_a_dump_per_value_and_fails_at_the_end() {
    let ty = r#"["object",{"n":"number"}]"#;
    let out = tfwire(
        &["decode", "--type", ty, "--format", "json", "--stream"],
        Some(b"{\"n\":1}\n{\"n\":true}\n\n{\"n\":3}\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "{\"n\":1}\n{\"n\":3}\n");
    assert_eq!(
        text(&out.stderr),
        "tfwire: value 1: at .n (byte 5): expected number, found JSON bool\n\
         tfwire: 1 of 3 values failed\n"
    );
    // Length-prefixed MessagePack from a file, every value good: exit 0.
    let mut frames = Vec::new();
    for n in [1u8, 2] {
        frames.extend_from_slice(&[0, 0, 0, 4, 0x81, 0xa1, b'n', n]);
    }
    let out = tfwire(
        &[
            "decode",
            "--type",
            ty,
            "--stream",
            "--framing",
            "length-prefixed",
        ],
        Some(&frames),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "{\"n\":1}\n{\"n\":2}\n");
    // Concatenated (the default for MessagePack).
    let out = tfwire(
        &["decode", "--type", ty, "--stream"],
        Some(&[0x81, 0xa1, b'n', 1, 0x81, 0xa1, b'n', 2]),
    );
    assert_eq!(text(&out.stdout), "{\"n\":1}\n{\"n\":2}\n");
    // --framing needs --stream.
    let out = tfwire(&["decode", "--type", ty, "--framing", "ndjson"], Some(b""));
    assert_eq!(out.status.code(), Some(2));
}

/// A state read from a pipe (no length to size the reader by) gives the same lines as the
/// same state read from its file.
#[cfg(target_os = "linux")]
#[test]
fn state_from_a_pipe_equals_state_from_its_file() {
    let schemas = "tests/data/states/toy.schemas.json";
    let file = "tests/data/states/toy.tfstate";
    let bytes = std::fs::read(file).expect("the toy state");
    let from_file = tfwire(
        &["state", "--format", "ndjson", "--schemas", schemas, file],
        None,
    );
    let from_pipe = tfwire(
        &[
            "state",
            "--format",
            "ndjson",
            "--schemas",
            schemas,
            "/dev/stdin",
        ],
        Some(&bytes),
    );
    let lines = text(&from_file.stdout);
    assert!(lines.lines().count() >= 4, "{lines}");
    assert_eq!(
        (from_pipe.status.code(), text(&from_pipe.stdout)),
        (
            from_file.status.code(),
            lines.replace(&format!("\"file\":\"{file}\""), "\"file\":\"/dev/stdin\"")
        )
    );
}

/// `--select` projects the type (`type`) and the decode (`decode`); a path the type does not
/// have is a usage error.
#[test]
fn select_projects_type_and_decode() {
    let ty =
        r#"["object",{"id":"string","ebs":["list",["object",{"size":"number","id":"string"}]]}]"#;
    let out = tfwire(
        &[
            "type",
            "-t",
            ty,
            "--select",
            "ebs[*].size",
            "--select",
            "id",
        ],
        None,
    );
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr)),
        (
            Some(0),
            "[\"object\",{\"ebs\":[\"list\",[\"object\",{\"size\":\"number\"}]],\"id\":\"string\"}]\n"
                .into(),
            String::new()
        )
    );
    let input = br#"{"id":"x","ebs":[{"size":1,"id":"y"},{"size":2,"id":"z"}]}"#;
    let out = tfwire(
        &["decode", "-f", "json", "-t", ty, "--select", "ebs[*].size"],
        Some(input),
    );
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr)),
        (
            Some(0),
            "{\"ebs\":[{\"size\":1},{\"size\":2}]}\n".into(),
            String::new()
        )
    );
    let out = tfwire(&["type", "-t", ty, "--select", "ebs.size"], None);
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr)),
        (
            Some(2),
            String::new(),
            "tfwire: --select: selection .ebs.size: at .ebs: the elements of a list are selected \
             with [*] or [N]\n"
                .into()
        )
    );
    // One element picked: the list of it.
    let out = tfwire(
        &["decode", "-f", "json", "-t", ty, "--select", "ebs[1].id"],
        Some(input),
    );
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr)),
        (
            Some(0),
            "{\"ebs\":[{\"id\":\"z\"}]}\n".into(),
            String::new()
        )
    );
}

/// `tfwire bench` on the `aws_instance` workload with the typed-columns contenders: their rows
/// are checked equal before timing, and each gets a figure (one short round: a smoke test of
/// the contenders, not a measurement).
#[cfg(feature = "bench")]
#[test]
fn bench_runs_the_arrow_contenders() {
    for format in ["json", "msgpack"] {
        let out = tfwire(
            &[
                "bench",
                "--only",
                "aws_instance",
                "--format",
                format,
                "--contenders",
                "tfwire_arrow,arrow_json",
                "--rounds",
                "1",
                "--round-ms",
                "1",
                "--json",
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = &report["rows"][0];
        assert_eq!(row["workload"], "aws_instance");
        assert_eq!(row["format"], format);
        for contender in ["tfwire_arrow", "arrow_json"] {
            let mbps = row["mbps"][contender].as_f64().unwrap_or(0.0);
            assert!(mbps > 0.0, "{contender}: {row}");
        }
    }
}
