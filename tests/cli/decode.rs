//! `tfwire decode`: the DUMP, stdin, errors, drift options, exit codes.

use super::*;

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
