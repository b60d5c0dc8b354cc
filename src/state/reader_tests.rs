//! `reader.rs`'s unit tests (run under Miri by `.ci/miri`).

use super::*;
use crate::dump;
use crate::state::Outcome;

/// The toy state (every envelope key Terraform writes, a deposed object, a data source, a
/// resource without a schema, a legacy `attributes_flat`) read whole and in 7-byte reads:
/// the envelope's unsafe paths, with the same lines either way, and the same again with
/// the set writing DUMPs (the decoded instances then written straight, whole or cut by
/// the reads), and read in place from memory. Run under Miri by `.ci/miri`.
#[test]
fn toy_state_in_one_piece_and_in_small_reads() {
    let mut set = SchemaSet::new();
    set.add_json(include_str!("../../tests/data/states/toy.schemas.json"))
        .unwrap();
    let mut dumping = set.clone();
    dumping.write_dumps(true);
    let state = include_bytes!("../../tests/data/states/toy.tfstate");
    // (`None`: the state in memory, read in place.)
    let read_with = |set: &SchemaSet, options: Option<ReaderOptions>| {
        let mut lines = Vec::new();
        let mut dumped = 0;
        let f = |item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
            let result = match outcome {
                Outcome::Ok(v, m) => dump::to_string(m.program, *v).unwrap(),
                Outcome::Dumped(text, _) => {
                    dumped += 1;
                    text.to_string()
                }
                Outcome::Error(e, _) => e.to_string(),
                Outcome::NoSchema => "no schema".into(),
                Outcome::Legacy => "legacy".into(),
            };
            lines.push(format!("{} {result}", item.address()));
        };
        let options_ = DecodeOptions::default();
        let summary = match options {
            Some(o) => StateReader::with_options(&state[..], o).visit(set, &options_, f),
            None => StateReader::in_memory(&state[..]).visit(set, &options_, f),
        };
        (summary.unwrap().instances, lines, dumped)
    };
    let small_reads = ReaderOptions {
        read_size: 7,
        ..ReaderOptions::default()
    };
    let whole = read_with(&set, Some(ReaderOptions::default()));
    assert_eq!(whole, read_with(&set, Some(small_reads.clone())));
    assert_eq!(whole, read_with(&set, None));
    assert_eq!((whole.0, whole.2), (7, 0));
    // Written straight: the three that decode.
    let (instances, lines, dumped) = read_with(&dumping, Some(ReaderOptions::default()));
    assert_eq!((instances, &lines, dumped), (7, &whole.1, 3));
    let small = read_with(&dumping, Some(small_reads));
    assert_eq!((small.0, &small.1, small.2), (7, &whole.1, 3));
    let in_memory = read_with(&dumping, None);
    assert_eq!((in_memory.0, &in_memory.1, in_memory.2), (7, &whole.1, 3));
    let want = [
        r#"toy_server.web[0] {"disk":[{"size":10}],"id":"s-0","name":"web-0","port":443,"tags":{"env":"prod"}}"#,
        r#"toy_server.web[0] (deposed 3f2a9c1b) {"disk":[],"id":"s-old","name":"web-0","port":null,"tags":null}"#,
        r#"toy_server.web[1] at .disk[0].size (byte 19): "big" is not a valid number"#,
        r#"module.app.data.toy_image.base {"id":"img-1","name":"debian"}"#,
        r#"module.app.module.db["eu"].toy_server.primary["a\"b"] at (root) (byte 28): unsupported attribute "extra""#,
        "other_thing.x no schema",
        "toy_server.old legacy",
    ];
    assert_eq!(whole.1, want);
}
