//! `tfwire::state` and `tfwire state`: addresses, provider references, the schema set's
//! candidate rules, a hand-made state (tests/data/states/) through the binary with exact
//! output, and every state file of the shared corpus with pinned counts.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bumpalo::Bump;
use tfwire::state::{
    normalize_provider, provider_address, Attributes, IndexKey, Instance, InstanceRef, Mode,
    Outcome, Resource, SchemaSet, StateFile,
};
use tfwire::DecodeOptions;

fn address(
    module: Option<&str>,
    mode: Mode,
    key: Option<IndexKey>,
    deposed: Option<&str>,
) -> String {
    let resource = Resource {
        module: module.map(String::from),
        mode,
        type_name: "aws_instance".into(),
        name: "web".into(),
        provider: String::new(),
        provider_address: String::new(),
        instances: Vec::new(),
    };
    let instance = Instance {
        index_key: key,
        deposed: deposed.map(String::from),
        schema_version: 0,
        attributes: Attributes::Absent,
    };
    InstanceRef {
        resource: &resource,
        instance: &instance,
    }
    .address()
}

#[test]
fn addresses() {
    use IndexKey::{Int, String as Key};
    let (m, d) = (Mode::Managed, Mode::Data);
    assert_eq!(address(None, m, None, None), "aws_instance.web");
    assert_eq!(address(None, m, Some(Int(0)), None), "aws_instance.web[0]");
    assert_eq!(
        address(None, m, Some(Int(-3)), None),
        "aws_instance.web[-3]"
    );
    assert_eq!(address(None, d, None, None), "data.aws_instance.web");
    assert_eq!(
        address(Some("module.x"), m, Some(Int(12)), None),
        "module.x.aws_instance.web[12]"
    );
    assert_eq!(
        address(Some("module.a.module.b"), d, Some(Key("k".into())), None),
        r#"module.a.module.b.data.aws_instance.web["k"]"#
    );
    assert_eq!(
        address(Some(r#"module.a["x"].module.b[1]"#), m, None, None),
        r#"module.a["x"].module.b[1].aws_instance.web"#
    );
    assert_eq!(
        address(None, m, Some(Key("say \"hi\"\\\n\u{1}é".into())), None),
        r#"aws_instance.web["say \"hi\"\\\n\u0001é"]"#
    );
    assert_eq!(
        address(None, m, None, Some("00000001")),
        "aws_instance.web (deposed 00000001)"
    );
    assert_eq!(
        address(Some("module.m"), d, Some(Key(String::new())), Some("ab")),
        r#"module.m.data.aws_instance.web[""] (deposed ab)"#
    );
}

#[test]
fn provider_references() {
    let aws = "registry.terraform.io/hashicorp/aws";
    for r in [
        r#"provider["registry.terraform.io/hashicorp/aws"]"#,
        r#"provider["registry.terraform.io/hashicorp/aws"].west"#,
        r#"module.a.module.b["k.x"].provider["registry.terraform.io/hashicorp/aws"]"#,
        r#"provider["aws"]"#,
        r#"provider["hashicorp/aws"]"#,
        r#"provider["Registry.Terraform.io/HashiCorp/AWS"]"#,
        "provider.aws",
        "provider.aws.west",
        "module.a[0].provider.aws",
    ] {
        assert_eq!(provider_address(r).unwrap(), aws, "{r}");
    }
    assert_eq!(
        provider_address("provider.terraform").unwrap(),
        "terraform.io/builtin/terraform"
    );
    assert_eq!(
        provider_address(r#"provider["registry.opentofu.org/-/null"]"#).unwrap(),
        "registry.opentofu.org/-/null"
    );
    for bad in [
        "",
        "aws",
        "provider",
        "provider.",
        "provider[aws]",
        r#"provider["aws""#,
        r#"provider["aws"]x"#,
        "module.a",
        "module.a.aws",
    ] {
        assert!(provider_address(bad).is_err(), "{bad:?}");
    }
    assert_eq!(
        normalize_provider("integrations/github"),
        "registry.terraform.io/integrations/github"
    );
}

fn doc(provider: &str, attrs: &str) -> String {
    format!(
        r#"{{"format_version":"1.0","provider_schemas":{{"{provider}":{{"resource_schemas":{{
        "thing":{{"version":2,"block":{{"attributes":{attrs}}}}}}},
        "data_source_schemas":{{"thing":{{"block":{{"attributes":{{"d":{{"type":"bool"}}}}}}}}}}}}}}}}"#
    )
}

fn state(provider: &str, instances: &str) -> String {
    format!(
        r#"{{"version":4,"resources":[{{"mode":"managed","type":"thing","name":"t",
        "provider":"{provider}","instances":[{instances}]}}]}}"#
    )
}

#[test]
fn schema_set_candidates() {
    fn shared<T: Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    shared::<SchemaSet>();
    shared::<tfwire::state::StateReader<&[u8]>>();
    shared::<tfwire::state::StateReader<std::io::Empty>>();
    let mut set = SchemaSet::new();
    // Two documents define the same provider; a third, another namespace with the same type name.
    set.add_json(&doc(
        "registry.terraform.io/hashicorp/x",
        r#"{"a":{"type":"number"}}"#,
    ))
    .unwrap();
    set.add_json(&doc(
        "x",
        r#"{"a":{"type":"string"},"b":{"type":"string"}}"#,
    ))
    .unwrap();
    set.add_json(&doc(
        "registry.opentofu.org/other/x",
        r#"{"c":{"type":"bool"}}"#,
    ))
    .unwrap();
    assert_eq!(set.documents(), 3);
    let text = state(
        r#"provider[\"registry.terraform.io/hashicorp/x\"]"#,
        r#"{"attributes":{"a":1}}, {"attributes":{"a":"s","b":"t"}}, {"attributes":{"c":true}},
           {"attributes":{"a":"s","b":"t","zz":1}}, {"attributes":{"a":[1]}}, {"schema_version":0}"#,
    );
    let st = StateFile::parse(&text).unwrap();
    let bump = Bump::new();
    // The same candidates decode when the set writes DUMPs (the attributes of the first
    // three are then written straight).
    let mut dumping = set.clone();
    dumping.write_dumps(true);
    let results = |set: &SchemaSet| -> Vec<String> {
        set.decode_all(&st, &bump, &DecodeOptions::default())
            .map(|(_, outcome)| match outcome {
                Outcome::Ok(_, m) | Outcome::Dumped(_, m) => {
                    format!("ok doc {} {} v{}", m.document, m.provider, m.schema_version)
                }
                Outcome::Error(e, m) => format!("error doc {}: {e}", m.document),
                Outcome::NoSchema => "no schema".into(),
                Outcome::Legacy => "legacy".into(),
            })
            .collect()
    };
    assert_eq!(results(&dumping), results(&set));
    // The reader (its decode of attributes a read may cut) gives the same lines, whole and
    // in pieces of 1 to 7 bytes: candidates passed over unread when their type lacks a key
    // (`{"c":true}` for docs 0 and 1) and, when no candidate takes an instance, all decoded
    // again for the error.
    use common::state::{by_parse, by_reader, small, Chunked};
    let want = by_parse(&set, &text).unwrap();
    assert_eq!(by_parse(&dumping, &text).unwrap(), want);
    assert_eq!(
        by_reader(&dumping, text.as_bytes(), small(1 << 20)).unwrap(),
        want
    );
    let pieces = Chunked {
        data: text.as_bytes(),
        seed: 7,
        max: 7,
    };
    assert_eq!(by_reader(&dumping, pieces, small(5)).unwrap(), want);
    assert!(
        want[3].ends_with(r#"unsupported attribute "zz" (document 1)"#),
        "{want:?}"
    );
    let dumped: Vec<bool> = (dumping.decode_all(&st, &bump, &DecodeOptions::default()))
        .map(|(_, o)| matches!(o, Outcome::Dumped(..)))
        .collect();
    assert_eq!(dumped, [true, true, true, false, false, true]);
    assert_eq!(
        results(&set),
        [
            "ok doc 0 registry.terraform.io/hashicorp/x v2",
            "ok doc 1 x v2",
            "ok doc 2 registry.opentofu.org/other/x v2",
            // All three fail; doc 1 failed furthest into the input.
            r#"error doc 1: at (root) (byte 17): unsupported attribute "zz""#,
            // All fail at byte 5; the earliest candidate's error is kept.
            "error doc 0: at .a (byte 5): expected number, found JSON array",
            // Neither attributes nor attributes_flat: `{}`.
            "ok doc 0 registry.terraform.io/hashicorp/x v2",
        ]
    );
    assert_eq!(set.compiled(), 3, "each candidate compiled once");
    // Data sources are separate; other providers have no candidates.
    assert_eq!(
        set.candidates("registry.terraform.io/hashicorp/x", Mode::Data, "thing")
            .count(),
        3
    );
    assert_eq!(
        set.candidates("registry.terraform.io/hashicorp/y", Mode::Managed, "thing")
            .count(),
        0
    );
    assert_eq!(
        set.candidates("registry.terraform.io/hashicorp/x", Mode::Managed, "nope")
            .count(),
        0
    );
    // Exact address first, then same type name: doc 2 comes before doc 0 for its own address.
    let order: Vec<usize> = set
        .candidates("registry.opentofu.org/other/x", Mode::Managed, "thing")
        .map(|m| m.document)
        .collect();
    assert_eq!(order, [2, 0, 1]);
    // The drift option passes through.
    let skip = DecodeOptions::default().with_skip_unknown_attributes(true);
    let mut docs = Vec::new();
    set.visit(&st, &skip, |_, o| match o {
        Outcome::Ok(_, m) => docs.push(m.document),
        _ => unreachable!(),
    });
    // Skipping, doc 0 takes `{"c":true}` (all null); doc 1 skips `zz`; `{"a":[1]}` decodes
    // with doc 2, whose object has no `a`.
    assert_eq!(docs, [0, 1, 0, 1, 2, 0]);
    // `candidates` compiled the data sources too.
    assert_eq!(set.compiled(), 6);
}

#[test]
fn state_envelope_errors() {
    let msg = |text: &str| StateFile::parse(text).unwrap_err().to_string();
    let e = StateFile::parse("{").unwrap_err();
    assert_eq!(
        (e.path(), e.offset(), e.message()),
        (
            "",
            Some(1),
            "not a state file: invalid JSON: EOF while parsing an object"
        )
    );
    assert_eq!(
        msg("{\n  \"version\": 4,\n  x"),
        "at byte 20: not a state file: invalid JSON: key must be a string"
    );
    assert_eq!(
        msg(r#"{"version":3}"#),
        "unsupported state format version 3 (only version 4 is supported)"
    );
    assert_eq!(msg(r#"{"serial":1}"#), r#"not a state file: no "version""#);
    let bad_mode =
        r#"{"version":4,"resources":[{"mode":"x","type":"t","name":"n","provider":"provider.a"}]}"#;
    assert_eq!(
        msg(bad_mode),
        r#"at .resources[0]: invalid resource mode "x""#
    );
    let bad_key = state("provider.a", r#"{"index_key":1.5,"attributes":{}}"#);
    assert_eq!(
        msg(&bad_key),
        "at .resources[0].instances[0]: index_key: expected a string or an integer, found 1.5"
    );
    assert_eq!(
        msg(&state("aws", "")),
        r#"at .resources[0]: invalid provider reference "aws""#
    );
    // Repeated keys: the last wins (Go's decoder); resources may be absent.
    let st = StateFile::parse(r#"{"version":4,"version":4,"terraform_version":"1.9.0"}"#).unwrap();
    assert_eq!(st.terraform_version.as_deref(), Some("1.9.0"));
    assert_eq!(st.instances().count(), 0);
}

#[test]
fn attributes_are_borrowed() {
    let text = state(
        "provider.x",
        r#"{"attributes":{"a": "v"}}, {"attributes_flat":{"a":"v"}}"#,
    );
    let st = StateFile::parse(&text).unwrap();
    let items: Vec<_> = st.instances().collect();
    let json = items[0].instance.attributes.json().unwrap();
    assert_eq!(json, r#"{"a": "v"}"#);
    let range = text.as_bytes().as_ptr_range();
    assert!(
        range.contains(&json.as_ptr()),
        "zero copy: a slice of the state text"
    );
    assert!(items[1].instance.attributes.json().is_none());
    let set = SchemaSet::new();
    let bump = Bump::new();
    assert!(matches!(
        set.decode(items[1], &bump, &DecodeOptions::default()),
        Outcome::Legacy
    ));
    assert!(matches!(
        set.decode(items[0], &bump, &DecodeOptions::default()),
        Outcome::NoSchema
    ));
}

fn tfwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args(args)
        .output()
        .unwrap()
}

fn data(name: &str) -> String {
    common::data_dir()
        .join("states")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// stderr with the summary's timing as `seconds=S`.
fn stderr(out: &Output) -> String {
    common::stderr_timeless(out)
}

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
