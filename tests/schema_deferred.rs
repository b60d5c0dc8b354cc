//! `SchemaSet::add_json_deferred` (what `tfwire state` loads its `--schemas` with) against
//! the eager `SchemaSet::add_json`: the same candidates and the same outcome for every type of
//! every corpus schema document, the same error for a malformed outline, and a malformed
//! schema reported on first use with the eager parse's message.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use bumpalo::Bump;
use tfwire::state::{normalize_provider, Mode, Outcome, SchemaSet, StateFile};
use tfwire::{DecodeOptions, ErrorKind};

/// Every `.json` file under `dir`, sorted.
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "json") {
            out.push(path);
        }
    }
}

/// (mode, provider, type) of every resource and data source schema in a document, read with
/// serde_json (not with either loader under test).
fn types_of(text: &str) -> Vec<(Mode, String, String)> {
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut out = Vec::new();
    let Some(providers) = doc.get("provider_schemas").and_then(|p| p.as_object()) else {
        return out;
    };
    for (provider, p) in providers {
        for (mode, key) in [
            (Mode::Managed, "resource_schemas"),
            (Mode::Data, "data_source_schemas"),
        ] {
            for name in p.get(key).and_then(|m| m.as_object()).into_iter().flatten() {
                out.push((mode, provider.clone(), name.0.clone()));
            }
        }
    }
    out
}

/// A state with one instance of each type, attributes `{}` (every attribute missing: an
/// outcome that depends on the whole schema).
fn state_of(types: &[(Mode, String, String)]) -> String {
    let mut s = String::from(r#"{"version":4,"resources":["#);
    for (i, (mode, provider, name)) in types.iter().enumerate() {
        let mode = if *mode == Mode::Data {
            "data"
        } else {
            "managed"
        };
        let provider = serde_json::to_string(&format!("provider[\"{provider}\"]")).unwrap();
        let name_json = serde_json::to_string(name).unwrap();
        let comma = if i > 0 { "," } else { "" };
        write!(
            s,
            r#"{comma}{{"mode":"{mode}","type":{name_json},"name":"r{i}","provider":{provider},"instances":[{{"attributes":{{}}}}]}}"#
        )
        .unwrap();
    }
    s.push_str("]}");
    s
}

fn outcomes(set: &SchemaSet, state: &StateFile<'_>) -> Vec<String> {
    let bump = Bump::new();
    set.decode_all(state, &bump, &DecodeOptions::default())
        .map(|(item, outcome)| {
            let what = match outcome {
                Outcome::Ok(v, m) => format!(
                    "ok {} {} v{} {}",
                    m.document,
                    m.provider,
                    m.schema_version,
                    tfwire::dump::to_string(m.program, v).unwrap()
                ),
                Outcome::Dumped(text, m) => format!(
                    "ok {} {} v{} {text}",
                    m.document, m.provider, m.schema_version
                ),
                Outcome::Error(e, m) => {
                    format!("error {} {} {:?}: {e}", m.document, m.provider, e.kind())
                }
                Outcome::NoSchema => "no schema".into(),
                Outcome::Legacy => "legacy".into(),
            };
            format!("{}: {what}", item.address())
        })
        .collect()
}

#[test]
fn deferred_equals_eager_on_the_corpus() {
    let Some(shared) = common::shared_dir("skipping the corpus schema documents") else {
        return;
    };
    let mut files = Vec::new();
    json_files(&shared.join("corpus/schemas"), &mut files);
    assert!(files.len() >= 30, "{} schema documents", files.len());
    let (mut loaded, mut malformed, mut types_checked) = (0, 0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let mut eager = SchemaSet::new();
        let mut deferred = SchemaSet::new();
        let eager_result = eager.add_json(&text);
        let deferred_result = deferred.add_json_deferred(text.clone());
        let types = types_of(&text);
        let state_text = state_of(&types);
        let state = StateFile::parse(&state_text).unwrap();
        match eager_result {
            Ok(_) => {
                loaded += 1;
                assert_eq!(
                    deferred_result.map_err(|e| e.to_string()),
                    Ok(0),
                    "{path:?}"
                );
                assert_eq!(
                    deferred.compiled(),
                    0,
                    "{path:?}: nothing compiled before use"
                );
                let mut dumping = deferred.clone();
                dumping.write_dumps(true);
                assert_eq!(
                    outcomes(&deferred, &state),
                    outcomes(&eager, &state),
                    "{path:?}"
                );
                // Every type's `{}` written straight: the same DUMP (each attribute null).
                assert_eq!(
                    outcomes(&dumping, &state),
                    outcomes(&eager, &state),
                    "{path:?}, writing DUMPs"
                );
                for (mode, provider, name) in &types {
                    let key = |m: tfwire::state::Match<'_>| {
                        (
                            m.document,
                            m.provider.to_string(),
                            m.schema_version,
                            m.program.root_type().to_string(),
                        )
                    };
                    let p = normalize_provider(provider);
                    let a: Vec<_> = eager.candidates(&p, *mode, name).map(key).collect();
                    let b: Vec<_> = deferred.candidates(&p, *mode, name).map(key).collect();
                    assert_eq!(a, b, "{path:?} {provider} {name}");
                }
                types_checked += types.len();
            }
            Err(e) => {
                malformed += 1;
                match deferred_result {
                    // The outline itself is malformed: the same error.
                    Err(d) => assert_eq!(d.to_string(), e.to_string(), "{path:?}"),
                    // A schema is: its instances say so with the eager parse's message.
                    Ok(_) => {
                        let expected = format!("the schema does not load: {}", e.message());
                        let bump = Bump::new();
                        let found = deferred
                            .decode_all(&state, &bump, &DecodeOptions::default())
                            .any(|(_, o)| {
                                matches!(o, Outcome::Error(d, _)
                                if d.kind() == ErrorKind::Schema && d.message() == expected)
                            });
                        assert!(found, "{path:?}: no instance fails with {expected:?}");
                    }
                }
            }
        }
    }
    assert!(
        loaded >= 30 && types_checked > 5000,
        "{loaded} documents, {types_checked} types"
    );
    eprintln!("{loaded} documents loaded ({types_checked} types), {malformed} malformed");
}

/// An outline that is not what the deferred reader expects goes to the eager parse: the
/// same error, or (a repeated key) the eager reading.
#[test]
fn malformed_outlines_fail_as_the_eager_parse_fails() {
    let cases = [
        r#"{"provider_schemas":{}"#,
        r#"{"provider_schemas":{}} x"#,
        r#"{"format_version":1,"provider_schemas":{}}"#,
        r#"{"provider_schemas":[]}"#,
        r#"{"provider_schemas":{"a":{"resource_schemas":{"r":1}}}}"#,
        r#"{"provider_schemas":{"a":{"resource_schemas":[]}}}"#,
        r#"{"provider_schemas":{"a":{"provider":{"version":"1"}}}}"#,
        r#"{"provider_schemas":{"a":{"provider":{"block":{"attributes":{"x":{}}}}}}}"#,
        r#"{"provider_schemas":{"a":[]}}"#,
        r#"{"type":"string"}"#,
        r#"{"block":{}}"#,
        r#"["provider_schemas"]"#,
        "{\"provider_schemas\":{\"a\":{\"resource_schemas\":{\"r\":{\"x\":\"\u{1}\"}}}}}",
    ];
    for text in cases {
        let eager = SchemaSet::new().add_json(text).map_err(|e| e.to_string());
        let deferred = SchemaSet::new()
            .add_json_deferred(text.to_string())
            .map_err(|e| e.to_string());
        assert!(eager.is_err(), "{text}");
        assert_eq!(deferred, eager, "{text}");
    }
    // A repeated type: the last wins, read eagerly.
    let text = r#"{"provider_schemas":{"registry.terraform.io/hashicorp/a":{"resource_schemas":{
        "r":{"version":1},"r":{"version":2}}}}}"#;
    let mut set = SchemaSet::new();
    set.add_json_deferred(text.to_string()).unwrap();
    let versions: Vec<_> = set
        .candidates("registry.terraform.io/hashicorp/a", Mode::Managed, "r")
        .map(|m| m.schema_version)
        .collect();
    assert_eq!(versions, [2]);
}

/// A malformed schema fails each instance it is a candidate for, and only when used; a
/// later candidate that loads still decodes.
#[test]
fn a_malformed_schema_fails_its_instances_on_first_use() {
    let doc = |version: &str| {
        format!(
            r#"{{"provider_schemas":{{"registry.terraform.io/hashicorp/a":{{"resource_schemas":{{
            "r":{{"version":{version},"block":{{"attributes":{{"id":{{"type":"string"}}}}}}}},
            "unused":{{"block":{{"attributes":{{"x":{{"type":"strang"}}}}}}}}}}}}}}}}"#
        )
    };
    let mut set = SchemaSet::new();
    assert_eq!(set.add_json_deferred(doc(r#""one""#)), Ok(0));
    assert_eq!(set.add_json_deferred(doc("3")), Ok(1));
    assert!(
        SchemaSet::new().add_json(&doc("3")).is_err(),
        "`unused` is malformed"
    );
    let state = StateFile::parse(
        r#"{"version":4,"resources":[{"mode":"managed","type":"r","name":"x",
        "provider":"provider[\"registry.terraform.io/hashicorp/a\"]",
        "instances":[{"attributes":{"id":"i"}},{"attributes":{"id":[7]}}]}]}"#,
    )
    .unwrap();
    assert_eq!(
        outcomes(&set, &state),
        [
            r#"r.x: ok 1 registry.terraform.io/hashicorp/a v3 {"id":"i"}"#,
            // Both candidates fail: document 1 furthest into the attributes (byte 6; the
            // schema error of document 0 is at byte 0).
            r#"r.x: error 1 registry.terraform.io/hashicorp/a TypeMismatch: at .id (byte 6): expected string, found JSON array"#,
        ]
    );
    let mut only_bad = SchemaSet::new();
    only_bad.add_json_deferred(doc(r#""one""#)).unwrap();
    assert_eq!(
        outcomes(&only_bad, &state)[0],
        "r.x: error 0 registry.terraform.io/hashicorp/a Schema: at (root) (byte 0): the schema \
         does not load: at provider \"registry.terraform.io/hashicorp/a\", resource \"r\": \
         version: expected an integer, found a string"
    );
    assert_eq!(only_bad.compiled(), 0);
}

/// `tfwire state` loads its `--schemas` deferred: a schema malformed inside fails only the
/// instances of its type (status `error`, exit 1) and the others decode; a document whose
/// JSON is broken fails the run at start (exit 1, bad input) with the eager parse's message.
#[test]
fn tfwire_state_with_a_malformed_schema() {
    let dir = common::scratch_dir("deferred");
    let schemas = dir.join("schemas.json");
    std::fs::write(
        &schemas,
        r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/a":{
          "resource_schemas":{
            "good":{"version":0,"block":{"attributes":{"id":{"type":"string"}}}},
            "bad":{"version":0,"block":{"attributes":{"id":{"type":"strang"}}}}}}}}"#,
    )
    .unwrap();
    let state = dir.join("s.tfstate");
    std::fs::write(
        &state,
        r#"{"version":4,"resources":[
          {"mode":"managed","type":"bad","name":"b","provider":"provider[\"registry.terraform.io/hashicorp/a\"]",
           "instances":[{"attributes":{"id":"x"}}]},
          {"mode":"managed","type":"good","name":"g","provider":"provider[\"registry.terraform.io/hashicorp/a\"]",
           "instances":[{"attributes":{"id":"y"}}]}]}"#,
    )
    .unwrap();
    let run = |schemas: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tfwire"))
            .args(["state", "--format", "ndjson", "--jobs", "1", "--schemas"])
            .arg(schemas)
            .arg(&state)
            .output()
            .unwrap()
    };
    let out = run(&schemas);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["address"], "bad.b");
    assert_eq!(lines[0]["status"], "error");
    let eager = SchemaSet::new()
        .add_json(&std::fs::read_to_string(&schemas).unwrap())
        .unwrap_err();
    assert_eq!(
        lines[0]["error"],
        serde_json::json!({"path": "(root)", "offset": 0,
            "message": format!("the schema does not load: {eager}")})
    );
    assert_eq!(
        (eager.path(), eager.offset(), eager.message()),
        (
            r#"provider "registry.terraform.io/hashicorp/a", resource "bad", attribute "id""#,
            None,
            r#"invalid type "strang": invalid primitive type name "strang""#
        )
    );
    assert_eq!(lines[1]["address"], "good.g");
    assert_eq!(lines[1]["status"], "ok");
    assert_eq!(lines[1]["value"], serde_json::json!({"id": "y"}));

    let broken = dir.join("broken.json");
    std::fs::write(
        &broken,
        r#"{"provider_schemas":{"a":{"resource_schemas":{"r":{]}}}}"#,
    )
    .unwrap();
    let out = run(&broken);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    let eager = SchemaSet::new()
        .add_json(&std::fs::read_to_string(&broken).unwrap())
        .unwrap_err();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr, format!("tfwire: {}: {eager}\n", broken.display()));
}
