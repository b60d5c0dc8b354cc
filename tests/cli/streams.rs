//! Streams of values, states from a pipe, `--select`, and `bench`'s Arrow contenders.

use super::*;

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
    // Repeated, the paths add up.
    let out = tfwire(
        &[
            "decode",
            "-f",
            "json",
            "-t",
            ty,
            "--select",
            "ebs[*].size",
            "--select",
            "id",
        ],
        Some(input),
    );
    assert_eq!(
        (out.status.code(), text(&out.stdout), text(&out.stderr)),
        (
            Some(0),
            "{\"ebs\":[{\"size\":1},{\"size\":2}],\"id\":\"x\"}\n".into(),
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
