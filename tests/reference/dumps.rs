//! The straight DUMP check (`SchemaSet::write_dumps`), shared by `tests/state_reader.rs`
//! and the `dump_straight` fuzz target: a generated type and value as attribute `a` of an
//! instance (beside a string `b`), in the JSON encodings the input picks (key orders,
//! escapes, numbers' forms), once more with a byte changed and once spaced out, read from a
//! state file by a set that writes DUMPs and by one that does not, under limits the input
//! picks: the same outcome for every instance (the same DUMP, or the same error), or the
//! same error for the file. Sometimes a first document defines the type without `b`: its
//! straight DUMP then refuses the instances (`b` is no attribute of it) and the second
//! document's candidate takes them, as its decode does after the first one's fails.

use tfwire::state::{Outcome, SchemaSet, StateReader};
use tfwire::{dump, DecodeOptions, Limits};

use super::encode;
use super::gen::{self, Bytes, Source};

/// One line per instance: its DUMP (written straight or not) or its outcome.
fn lines(
    set: &SchemaSet,
    state: &[u8],
    options: &DecodeOptions,
) -> (Result<Vec<String>, String>, usize) {
    let mut lines = Vec::new();
    let mut dumped = 0;
    let read = StateReader::new(state).visit(set, options, |_, o| {
        // (With the document that took it: passing over a candidate that would have taken
        // it shows.)
        lines.push(match o {
            Outcome::Ok(v, m) => {
                let text = dump::to_string(m.program, *v).unwrap();
                format!("ok {text} (document {})", m.document)
            }
            Outcome::Dumped(text, m) => {
                dumped += 1;
                format!("ok {text} (document {})", m.document)
            }
            Outcome::Error(e, m) => format!("error {e} (document {})", m.document),
            Outcome::NoSchema => "no schema".into(),
            Outcome::Legacy => "legacy".into(),
        })
    });
    (read.map(|_| lines).map_err(|e| e.to_string()), dumped)
}

/// The check: returns how many instances went straight.
pub fn dumps(data: &[u8]) -> usize {
    let mut s = Bytes::new(data);
    let (t, plan) = gen::small_case(&mut s);
    if super::has_unknown(&plan) {
        return 0; // (JSON has no unknowns.)
    }
    let schemas = format!(
        r#"{{"provider_schemas":{{"registry.terraform.io/hashicorp/t":{{"resource_schemas":{{"t_r":{{"version":0,"block":{{"attributes":{{"a":{{"type":{},"optional":true}},"b":{{"type":"string","optional":true}}}}}}}}}}}}}}}}"#,
        t.to_json()
    );
    let mut set = SchemaSet::new();
    if s.chance(128) {
        let without_b = format!(
            r#"{{"provider_schemas":{{"registry.terraform.io/hashicorp/t":{{"resource_schemas":{{"t_r":{{"version":0,"block":{{"attributes":{{"a":{{"type":{},"optional":true}}}}}}}}}}}}}}}}"#,
            t.to_json()
        );
        if set.add_json(&without_b).is_err() {
            return 0;
        }
    }
    if set.add_json(&schemas).is_err() {
        return 0; // (A type at the nesting limit has no room for the object around it.)
    }
    let mut dumping = set.clone();
    dumping.write_dumps(true);
    let a = encode::json(&mut s, &t, &plan);
    let row = [&br#"{"a":"#[..], &a, br#","b":"x"}"#].concat();
    let mut changed = row.clone();
    if s.chance(128) {
        let i = s.below(changed.len());
        changed[i] = s.byte();
    }
    let spaced = [&b"{ \"a\" :\t"[..], &a, b" ,\n \"b\" : \"x\" }"].concat();
    let mut state = br#"{"version":4,"resources":[{"mode":"managed","type":"t_r","name":"x","provider":"provider[\"registry.terraform.io/hashicorp/t\"]","instances":["#.to_vec();
    for (k, attrs) in [&row, &changed, &spaced, &row].into_iter().enumerate() {
        if k > 0 {
            state.push(b',');
        }
        state.extend_from_slice(br#"{"attributes":"#);
        state.extend_from_slice(attrs);
        state.push(b'}');
    }
    state.extend_from_slice(b"]}]}");
    // The decode's limits, sometimes low enough to stop it (the straight DUMP checks them
    // as the decode does: the arena bytes of objects whose attributes are left out above
    // all).
    let limits = match s.byte() % 8 {
        0 => Limits::DEFAULT.with_max_arena_bytes(s.below(4096) as u64),
        1 => Limits::DEFAULT.with_max_values(s.below(64) as u64),
        2 => Limits::DEFAULT
            .with_max_string_len(s.below(16) as u32)
            .with_max_container_len(s.below(8) as u32),
        3 => Limits::DEFAULT.with_max_depth(s.below(8) as u32),
        _ => Limits::DEFAULT,
    };
    let options = DecodeOptions::default().with_limits(limits);
    let (want, _) = lines(&set, &state, &options);
    let (got, dumped) = lines(&dumping, &state, &options);
    assert_eq!(got, want, "{}", String::from_utf8_lossy(&state));
    dumped
}
