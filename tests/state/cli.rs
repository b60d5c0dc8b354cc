//! `tfwire state` on hand-made states: lines, `--select` and `--type`, exit codes.

use super::*;

#[test]
fn cli_hand_made_state() {
    let (schemas, st) = (data("toy.schemas.json"), data("toy.tfstate"));
    let out = tfwire(&["state", "--schemas", &schemas, &st]);
    assert_eq!(
        stdout(&out),
        "toy_server.web[0]\tok\n\
         toy_server.web[0] (deposed 3f2a9c1b)\tok\n\
         toy_server.web[1]\terror at .disk[0].size (byte 19): \"big\" is not a valid number\n\
         module.app.data.toy_image.base\tok\n\
         module.app.module.db[\"eu\"].toy_server.primary[\"a\\\"b\"]\terror at (root) (byte 28): unsupported attribute \"extra\"\n\
         other_thing.x\tno schema\n\
         toy_server.old\tno schema (legacy flatmap attributes are not supported)\n"
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "tfwire: instances=7 ok=3 errors=2 no_schema=2 bytes=320 seconds=S\n\
         tfwire: 2 of 7 instances failed to decode\n"
    );

    // Drift option, --dump, two files (each line after its file's name and a tab).
    let out = tfwire(&[
        "state",
        "--skip-unknown-attrs",
        "--dump",
        "--schemas",
        &schemas,
        &st,
        &st,
    ]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2 * (7 + 4));
    assert!(lines.iter().all(|l| l.starts_with(&format!("{st}\t"))));
    let lines: Vec<&str> = lines.iter().map(|l| &l[st.len() + 1..]).collect();
    assert_eq!(
        lines[0..3],
        [
            "toy_server.web[0]\tok",
            r#"{"disk":[{"size":10}],"id":"s-0","name":"web-0","port":443,"tags":{"env":"prod"}}"#,
            "toy_server.web[0] (deposed 3f2a9c1b)\tok",
        ]
    );
    assert_eq!(
        lines[7],
        "module.app.module.db[\"eu\"].toy_server.primary[\"a\\\"b\"]\tok"
    );
    assert_eq!(
        lines[8],
        r#"{"disk":null,"id":"s-2","name":"db","port":null,"tags":null}"#
    );
    assert_eq!(lines[..11], lines[11..]);
    assert_eq!(
        stderr(&out),
        "tfwire: instances=14 ok=8 errors=2 no_schema=4 bytes=640 seconds=S\n\
         tfwire: 2 of 14 instances failed to decode\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// `--type` keeps one type's instances (the others stepped over, counted as skipped) and
/// `--select` projects each value: the same lines with one job and two. A selected value
/// that does not decode still fails; an unknown attribute outside the selection is stepped
/// over; a path the type lacks fails its instances with a schema error; a bad path is usage.
#[test]
fn cli_select_and_type() {
    let (schemas, st) = (data("toy.schemas.json"), data("toy.tfstate"));
    let args = |jobs: &'static str| {
        let select = ["--type", "toy_server", "--select", "tags", "--select"];
        let mut a = vec!["state", "--schemas", &schemas, "--dump", "--jobs", jobs];
        a.extend(select);
        a.extend(["disk[*].size", &st]);
        a.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let run = |jobs| {
        let a = args(jobs);
        tfwire(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let one = run("1");
    assert_eq!(
        stdout(&one),
        "toy_server.web[0]\tok\n\
         {\"disk\":[{\"size\":10}],\"tags\":{\"env\":\"prod\"}}\n\
         toy_server.web[0] (deposed 3f2a9c1b)\tok\n\
         {\"disk\":[],\"tags\":null}\n\
         toy_server.web[1]\terror at .disk[0].size (byte 19): \"big\" is not a valid number\n\
         module.app.module.db[\"eu\"].toy_server.primary[\"a\\\"b\"]\tok\n\
         {\"disk\":null,\"tags\":null}\n\
         toy_server.old\tno schema (legacy flatmap attributes are not supported)\n"
    );
    assert_eq!(
        stderr(&one),
        "tfwire: instances=5 ok=3 errors=1 no_schema=1 skipped=2 bytes=287 seconds=S\n\
         tfwire: 1 of 5 instances failed to decode\n"
    );
    assert_eq!(one.status.code(), Some(1));
    let two = run("2");
    assert_eq!(two.stdout, one.stdout);
    assert_eq!(stderr(&two), stderr(&one));

    let out = tfwire(&["state", "--schemas", &schemas, "--select", "nope", &st]);
    let text = stdout(&out);
    assert_eq!(
        text.lines().next(),
        Some(
            "toy_server.web[0]\terror at (root) (byte 0): the schema does not load: \
             selection .nope: at the root: the object has no attribute \"nope\""
        )
    );
    assert_eq!(out.status.code(), Some(1));
    let out = tfwire(&["state", "--schemas", &schemas, "--select", "a[", &st]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tfwire: --select: selection \"a[\": a bad [ ] step\n"
    );
    assert!(out.stdout.is_empty());
}

/// With `--format ndjson`, `--type` and `--select` give the lines of the instances
/// kept, each `value` holding the projected object; with one job and two alike.
#[test]
fn cli_select_and_type_ndjson() {
    let (schemas, st) = (data("toy.schemas.json"), data("toy.tfstate"));
    let run = |jobs: &str| {
        tfwire(&[
            "state",
            "--schemas",
            &schemas,
            "--format",
            "ndjson",
            "--jobs",
            jobs,
            "--type",
            "toy_server",
            "--select",
            "tags",
            "--select",
            "disk[*].size",
            &st,
        ])
    };
    let one = run("1");
    let lines: Vec<serde_json::Value> = stdout(&one)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let seen: Vec<(&str, &str, String)> = lines
        .iter()
        .map(|l| {
            let kept = l.get("value").or(l.get("error"));
            (
                l["address"].as_str().unwrap(),
                l["status"].as_str().unwrap(),
                kept.map_or(String::new(), |v| v.to_string()),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "toy_server.web[0]",
                "ok",
                r#"{"disk":[{"size":10}],"tags":{"env":"prod"}}"#.into()
            ),
            (
                "toy_server.web[0] (deposed 3f2a9c1b)",
                "ok",
                r#"{"disk":[],"tags":null}"#.into()
            ),
            (
                "toy_server.web[1]",
                "error",
                r#"{"message":"\"big\" is not a valid number","offset":19,"path":".disk[0].size"}"#
                    .into()
            ),
            (
                r#"module.app.module.db["eu"].toy_server.primary["a\"b"]"#,
                "ok",
                r#"{"disk":null,"tags":null}"#.into()
            ),
            ("toy_server.old", "no_schema", String::new()),
        ]
    );
    assert!(lines
        .iter()
        .all(|l| l["type"] == "toy_server" && l["file"] == st.as_str()));
    assert_eq!(one.status.code(), Some(1));
    assert_eq!(run("2").stdout, one.stdout);
}

#[test]
fn cli_exit_codes() {
    let (schemas, st) = (data("toy.schemas.json"), data("toy.tfstate"));
    let dir = common::scratch_dir("state-test");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let good = write("good.tfstate", &state("provider.toy", ""));
    let not_json = write("bad.tfstate", "{\"version\":4,");
    let v3 = write("v3.tfstate", r#"{"version":3,"modules":[]}"#);
    let block = write("block.json", r#"{"attributes":{}}"#);

    let out = tfwire(&["state", "--schemas", &schemas, &good]);
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (
            Some(0),
            String::new(),
            "tfwire: instances=0 ok=0 errors=0 no_schema=0 bytes=0 seconds=S\n".into()
        )
    );
    // An unreadable or invalid file is reported, the others still decoded, exit 1.
    let missing = dir.join("missing.tfstate").to_str().unwrap().to_string();
    let out = tfwire(&[
        "state",
        "--schemas",
        &schemas,
        &not_json,
        &v3,
        &missing,
        &good,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        format!(
            "tfwire: {not_json}: at byte 13: not a state file: invalid JSON: unexpected end of input\n\
             tfwire: {v3}: at byte 11: unsupported state format version 3 (only version 4 is supported)\n\
             tfwire: {missing}: No such file or directory (os error 2)\n\
             tfwire: instances=0 ok=0 errors=0 no_schema=0 bytes=0 seconds=S\n\
             tfwire: 3 state files could not be read\n"
        )
    );
    // Bad or missing schema documents: exit 1 before any output; usage errors: exit 2.
    for (args, code) in [
        (vec!["state", "--schemas", &block, &st], 1),
        (vec!["state", "--schemas", &missing, &st], 1),
        (vec!["state", &st], 2),
        (vec!["state", "--schemas", &schemas], 2),
    ] {
        let out = tfwire(&args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = tfwire(&["state", "--schemas", &block, &st]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a providers-schema document"));
    let help = tfwire(&["state", "--help"]);
    let help_text = String::from_utf8_lossy(&help.stdout);
    assert_eq!(help.status.code(), Some(0));
    for word in [
        "--schemas",
        "--skip-unknown-attrs",
        "--dump",
        "no schema",
        "Exit status",
    ] {
        assert!(help_text.contains(word), "{word}: {help_text}");
    }
    // JSON always reads a missing attribute as null: there is no flag for it.
    assert!(!help_text.contains("--missing-attrs-null"), "{help_text}");
}
