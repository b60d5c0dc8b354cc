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

/// The toy state made compact (its whitespace outside strings dropped): read in place, an
/// instance as go-cty writes it is given as its own bytes (`Prefix::Input`: the DUMP lies in
/// the state's buffer, uncopied), read in 7-byte reads as the same text; the lines are those
/// of the indented state. Run under Miri by `.ci/miri` (the envelope's `attributes_text` of
/// such an instance).
#[test]
fn compact_instances_are_their_own_dump() {
    let mut set = SchemaSet::new();
    set.add_json(include_str!("../../tests/data/states/toy.schemas.json"))
        .unwrap();
    set.write_dumps(true);
    let indented = include_bytes!("../../tests/data/states/toy.tfstate");
    let mut state = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for &b in indented {
        if in_string || !b.is_ascii_whitespace() {
            state.push(b);
        }
        (in_string, escaped) = match (in_string, escaped, b) {
            (true, true, _) => (true, false),
            (true, false, b'\\') => (true, true),
            (_, _, b'"') => (!in_string, false),
            (s, _, _) => (s, false),
        };
    }
    // (Shared with the reader, which reads these very bytes in place.)
    let state: std::sync::Arc<[u8]> = state.into();
    let reader = StateReader::in_memory(std::sync::Arc::clone(&state));
    let (lines, uncopied) = dumps(reader, &set, &state, true);
    assert_eq!(uncopied, 3);
    assert_eq!(
        lines,
        [
            r#"toy_server.web[0] {"disk":[{"size":10}],"id":"s-0","name":"web-0","port":443,"tags":{"env":"prod"}}"#,
            r#"toy_server.web[0] (deposed 3f2a9c1b) {"disk":[],"id":"s-old","name":"web-0","port":null,"tags":null}"#,
            r#"module.app.data.toy_image.base {"id":"img-1","name":"debian"}"#,
        ]
    );
    let small_reads = ReaderOptions {
        read_size: 7,
        ..ReaderOptions::default()
    };
    let reader = StateReader::with_options(&state[..], small_reads);
    let (small, _) = dumps(reader, &set, &state, false);
    assert_eq!(small, lines);
}

/// The address and DUMP of each instance `reader` gives as its DUMP, and how many of those lie
/// in `state`'s bytes (all of them when `in_place`).
fn dumps<R: std::io::Read>(
    reader: StateReader<R>,
    set: &SchemaSet,
    state: &[u8],
    in_place: bool,
) -> (Vec<String>, usize) {
    let (mut lines, mut uncopied) = (Vec::new(), 0usize);
    let f = |item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
        if let Outcome::Dumped(text, _) = outcome {
            let within = state.as_ptr_range().contains(&text.as_ptr());
            uncopied = uncopied.wrapping_add(usize::from(within));
            assert!(!in_place || within, "{text}");
            lines.push(format!("{} {text}", item.address()));
        }
    };
    reader.visit(set, &DecodeOptions::default(), f).unwrap();
    (lines, uncopied)
}
