//! Which schema each instance is read with, the envelope's errors, and attributes borrowed from
//! the state text.

use super::*;

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
