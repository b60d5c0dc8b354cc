//! Every state file of the corpus against every standard providers-schema document.

use super::*;

fn files(dir: &Path, ext: &str, recursive: bool, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if recursive {
                files(&path, ext, true, out);
            }
        } else if path.to_str().unwrap().ends_with(ext) {
            out.push(path);
        }
    }
    out.sort();
}

/// Every state file of the corpus against every standard providers-schema document of the
/// corpus (schemas/*.json and schemas/derived/*.json; the best schema of each state file, as
/// SOURCES.md names it, is among them). Pinned counts, strict decoding (the default):
///
/// - 376 ok. A Python model of go-cty's JSON rules over the implied types agrees with tfwire
///   on every (document, instance) pair of the corpus (16,770 pairs; checked when pinning).
/// - 5 errors, each a genuine mismatch between a state and every loaded schema of its type:
///   - `github_branch_protection.main_repo[0..2]`: `push_restrictions`, an attribute of the
///     github provider 4.x that wrote the state, removed before 6.6.0 (the only github schema);
///   - driftctl `unsupported_attribute` (`aws_instance.web`): the fixture's deliberate
///     attribute `unsupported_attribute`;
///   - driftctl `testdata/v4/valid` (`aws_instance.vm`): `network_interface_id`, an aws 2.x
///     attribute that no loaded aws schema (fv0.1, 3.58, 3.62, 4.13) has.
///
///   With `--skip-unknown-attrs` all five decode (381 ok, exit 0).
/// - 49 no schema: 35 instances of the tfcoremock test provider and 1 of OpenTofu's in-tree
///   `test` provider (`test_resource`), which no standard document covers; 13 legacy
///   `attributes_flat` instances (OpenTofu's roundtrip fixtures v4-simple, v4-modules,
///   v4-future and v4-legacy-simple).
///
/// cdktf-fixture-aws-provider and cdktf-fixture-elasticstack-provider are not passed: their
/// `resource_schemas` is a JSON array (`[]`), not a providers-schema document (exit 1).
#[test]
fn corpus_states() {
    let Some(shared) = common::shared_dir("the corpus state test") else {
        return;
    };
    let corpus = shared.join("corpus");
    let mut docs = Vec::new();
    files(&corpus.join("schemas"), ".json", false, &mut docs);
    files(
        &corpus.join("schemas").join("derived"),
        ".json",
        false,
        &mut docs,
    );
    let mut states = Vec::new();
    files(&corpus.join("states"), "", true, &mut states);
    assert_eq!(states.len(), 213);

    let empty = std::env::temp_dir().join(format!("tfwire-empty-{}.tfstate", std::process::id()));
    std::fs::write(&empty, r#"{"version":4}"#).unwrap();
    let mut args: Vec<String> = vec!["state".into()];
    let mut rejected = Vec::new();
    for d in &docs {
        let d = d.to_str().unwrap();
        let out = tfwire(&["state", "--schemas", d, empty.to_str().unwrap()]);
        if out.status.code() == Some(0) {
            args.extend(["--schemas".into(), d.into()]);
        } else {
            assert_eq!(out.status.code(), Some(1));
            rejected.push(
                Path::new(d)
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string(),
            );
        }
    }
    std::fs::remove_file(&empty).unwrap();
    assert_eq!(
        rejected,
        [
            "cdktf-fixture-aws-provider.schemas.json",
            "cdktf-fixture-elasticstack-provider.schemas.json"
        ]
    );
    // SOURCES.md's coverage table names each state's best schema(s): all are passed.
    let sources = std::fs::read_to_string(corpus.join("SOURCES.md")).unwrap();
    let mut named = 0;
    for row in sources
        .lines()
        .filter(|l| l.starts_with("| `states/") && l.contains("| yes"))
    {
        let cells: Vec<&str> = row.split(" | ").collect();
        for name in cells[2].split(", ") {
            let name = name.trim_matches('`');
            assert!(
                args.iter().any(|a| a.ends_with(&format!("/{name}"))),
                "{name}"
            );
            named += 1;
        }
    }
    assert!(named >= 179, "{named}");
    args.extend(states.iter().map(|p| p.to_str().unwrap().to_string()));
    let run = |extra: Option<&str>| {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.extend(extra);
        tfwire(&a)
    };

    let out = run(None);
    let text = stdout(&out);
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        stderr(&out),
        "tfwire: instances=430 ok=376 errors=5 no_schema=49 bytes=268222 seconds=S\n\
         tfwire: 5 of 430 instances failed to decode\n"
    );
    assert_eq!(out.status.code(), Some(1));
    let mut errors = Vec::new();
    let (mut no_schema, mut legacy) = (0, 0);
    for line in text.lines() {
        // FILE<TAB>ADDRESS<TAB>STATUS (several files).
        let (path, line) = line.split_once('\t').unwrap();
        let file = path.rsplit('/').next().unwrap();
        if line.contains("\terror at ") {
            errors.push(format!("{file}: {line}"));
        } else if line.ends_with("\tno schema") {
            no_schema += 1;
            let ty = line.split('\t').next().unwrap();
            assert!(
                ty.contains("tfcoremock_") || ty == "test_resource.main[0]",
                "{line}"
            );
        } else if line.ends_with("(legacy flatmap attributes are not supported)") {
            legacy += 1;
        }
    }
    assert_eq!((no_schema, legacy), (36, 13));
    assert_eq!(
        errors,
        [
            "state-test-github_branch_protection.tfstate: github_branch_protection.main_repo[0]\terror at (root) (byte 226): unsupported attribute \"push_restrictions\"",
            "state-test-github_branch_protection.tfstate: github_branch_protection.main_repo[1]\terror at (root) (byte 226): unsupported attribute \"push_restrictions\"",
            "state-test-github_branch_protection.tfstate: github_branch_protection.main_repo[2]\terror at (root) (byte 226): unsupported attribute \"push_restrictions\"",
            "state-test-unsupported_attribute.tfstate: aws_instance.web\terror at (root) (byte 14): unsupported attribute \"unsupported_attribute\"",
            "state-testdata-v4-valid.tfstate: aws_instance.vm\terror at (root) (byte 1309): unsupported attribute \"network_interface_id\"",
        ]
    );

    let out = run(Some("--skip-unknown-attrs"));
    assert_eq!(
        stderr(&out),
        "tfwire: instances=430 ok=381 errors=0 no_schema=49 bytes=268222 seconds=S\n"
    );
    assert_eq!(out.status.code(), Some(0));

    // Every worker count gives the same output; NDJSON says, instance by instance, what the
    // text output and its DUMPs say.
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.extend(extra);
        tfwire(&a)
    };
    let text_one = with(&["--dump", "--jobs", "1"]);
    let text_two = with(&["--dump", "--jobs", "2"]);
    assert_eq!(stdout(&text_one), stdout(&text_two));
    let nd_one = with(&["--format", "ndjson", "--jobs", "1"]);
    let nd_two = with(&["--format", "ndjson", "--jobs", "2"]);
    assert_eq!(nd_one.stdout, nd_two.stdout);
    assert_eq!(nd_two.status.code(), Some(1));
    assert_eq!(
        stderr(&nd_two),
        "tfwire: instances=430 ok=376 errors=5 no_schema=49 bytes=268222 seconds=S\n\
         tfwire: 5 of 430 instances failed to decode\n"
    );
    let text = stdout(&text_one);
    let mut text_lines = text.lines().peekable();
    let mut compared = 0;
    for line in String::from_utf8(nd_one.stdout).unwrap().lines() {
        let obj: serde_json::Value = serde_json::from_str(line).unwrap();
        // The next instance line of the text output: FILE<TAB>ADDRESS<TAB>STATUS.
        let (file, t) = text_lines.next().unwrap().split_once('\t').unwrap();
        let (address, status) = t.split_once('\t').unwrap();
        assert_eq!(obj["file"], file);
        assert_eq!(obj["address"], address);
        match obj["status"].as_str().unwrap() {
            "ok" => {
                assert_eq!(status, "ok");
                let (dump_file, dump) = text_lines.next().unwrap().split_once('\t').unwrap();
                assert_eq!(dump_file, file);
                let dump: serde_json::Value = serde_json::from_str(dump).unwrap();
                assert_eq!(obj["value"], dump, "{address}");
            }
            "error" => {
                let e = &obj["error"];
                let want = format!(
                    "error at {} (byte {}): {}",
                    e["path"].as_str().unwrap(),
                    e["offset"],
                    e["message"].as_str().unwrap()
                );
                assert_eq!(status, want);
            }
            "no_schema" => assert!(status.starts_with("no schema"), "{status}"),
            other => panic!("{other}"),
        }
        // The keys in the documented order.
        let keys = [
            "file",
            "address",
            "mode",
            "type",
            "name",
            "module",
            "index_key",
            "deposed",
            "provider",
            "status",
        ];
        let at: Vec<usize> = keys
            .iter()
            .map(|k| line.find(&format!("\"{k}\":")).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]) && at[0] == 1, "{line}");
        assert!(address.contains(obj["type"].as_str().unwrap()));
        assert!(address.contains(obj["name"].as_str().unwrap()));
        compared += 1;
    }
    assert_eq!(compared, 430);
    assert_eq!(text_lines.next(), None);
}
