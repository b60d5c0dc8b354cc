//! `type`, `disasm`, `--help` everywhere, selectors, JSON and `transcode`.

use super::*;

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
