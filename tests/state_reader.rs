//! `tfwire::state::StateReader`, the incremental state reader: the same instances, outcomes
//! and values as `StateFile::parse` for every corpus state, whatever the chunks the input
//! arrives in; the envelope rules and their error messages; key orders other than
//! Terraform's; memory bounded by the largest instance.

mod common;
#[path = "reference/mod.rs"]
mod reference;

use common::state::{by_parse, by_reader, doc, one_resource, small, Chunked, PROVIDER};
use tfwire::state::{Outcome, ReaderOptions, SchemaSet, StateReader};
use tfwire::DecodeOptions;

fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every corpus state against every corpus providers-schema document that loads: the
/// reader, fed in random chunks with buffers from 7 bytes up, gives exactly what
/// `StateFile::parse` gives (and fails where it fails); and so does a set that writes
/// DUMPs, whose instances as go-cty writes them come as DUMPs written straight.
#[test]
fn reader_equals_parse_on_the_corpus() {
    let Some(shared) = common::shared_dir("the corpus state reader test") else {
        return;
    };
    let corpus = shared.join("corpus");
    let mut set = SchemaSet::new();
    let mut docs = Vec::new();
    files(&corpus.join("schemas"), &mut docs);
    docs.retain(|d| d.extension().is_some_and(|e| e == "json"));
    docs.sort();
    for d in &docs {
        let _ = set.add_json(&std::fs::read_to_string(d).unwrap());
    }
    assert!(set.documents() >= 20, "{}", set.documents());
    let mut dumping = set.clone();
    dumping.write_dumps(true);
    let mut dumped = 0;
    let mut states = Vec::new();
    files(&corpus.join("states"), &mut states);
    states.sort();
    assert_eq!(states.len(), 213);
    let (mut instances, mut failed) = (0, 0);
    for (k, path) in states.iter().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let want = by_parse(&set, text);
        let name = path.display();
        let one_shot = by_reader(&set, &bytes[..], ReaderOptions::default());
        match (&want, &one_shot) {
            (Ok(w), Ok(g)) => assert_eq!(g, w, "{name}"),
            (Err(_), Err(_)) => failed += 1,
            _ => panic!("{name}: parse {want:?}\nreader {one_shot:?}"),
        }
        for (round, read_size) in [7, 64, 4096].into_iter().enumerate() {
            let chunked = Chunked {
                data: &bytes,
                seed: (k * 3 + round) as u64,
                max: 1 + round * 100,
            };
            let got = by_reader(&set, chunked, small(read_size));
            assert_eq!(got, one_shot, "{name}, read size {read_size}");
            let chunked = Chunked {
                data: &bytes,
                seed: (k * 3 + round) as u64,
                max: 1 + round * 100,
            };
            let got = by_reader(&dumping, chunked, small(read_size));
            assert_eq!(
                got, one_shot,
                "{name}, writing DUMPs, read size {read_size}"
            );
        }
        if one_shot.is_ok() {
            let reader = StateReader::new(&bytes[..]);
            let options = DecodeOptions::default();
            reader
                .visit(&dumping, &options, |_, o| {
                    dumped += usize::from(matches!(o, Outcome::Dumped(..)))
                })
                .unwrap();
        }
        instances += want.map_or(0, |w| w.len());
    }
    assert_eq!(instances, 430);
    // Written straight: all but those that fail, or hold a number for a string, a dynamic
    // value, an escape the DUMP writes otherwise or the like.
    assert_eq!(dumped, 371, "instances written straight");
    // (Every corpus state is a valid v4 file.)
    assert_eq!(failed, 0);
}

/// Both readers on `text`, each in every chunking: their lines, or their errors.
fn both(text: &str) -> (Result<Vec<String>, String>, Result<Vec<String>, String>) {
    let set = doc();
    let reader = by_reader(&set, text.as_bytes(), ReaderOptions::default());
    for max in [1, 3, 17] {
        let chunked = Chunked {
            data: text.as_bytes(),
            seed: max as u64,
            max,
        };
        assert_eq!(by_reader(&set, chunked, small(5)), reader, "{text}");
    }
    (by_parse(&set, text), reader)
}

#[test]
fn key_orders_other_than_terraforms() {
    // Terraform's order, then `jq -S`'s (sorted: instances before mode, type, name and
    // provider; version last), then attributes before index_key.
    let terraform = format!(
        r#"{{"version":4,"resources":[{{"mode":"managed","type":"null_resource","name":"a",
        "provider":"{PROVIDER}","instances":[{{"index_key":"k","attributes":{{"id":"x","n":1}}}}]}}]}}"#
    );
    let sorted = format!(
        r#"{{"resources":[{{"instances":[{{"attributes":{{"id":"x","n":1}},"index_key":"k"}}],
        "mode":"managed","name":"a","provider":"{PROVIDER}","type":"null_resource"}}],"version":4}}"#
    );
    let (want, got) = both(&terraform);
    assert_eq!(got, want);
    assert_eq!(
        got.unwrap(),
        [
            r#"null_resource.a["k"] v0 Some(16) registry.terraform.io/hashicorp/null ok {"id":"x","n":1}"#
        ]
    );
    let (want_sorted, got_sorted) = both(&sorted);
    assert_eq!(got_sorted, want_sorted);
    assert_eq!(got_sorted, want);
    // A resource key repeated after its instances (which were decoded with the first).
    let repeated = format!(
        r#"{{"version":4,"resources":[{{"mode":"managed","type":"null_resource","name":"a",
        "provider":"{PROVIDER}","instances":[],"name":"b"}}]}}"#
    );
    assert_eq!(
        both(&repeated).1.unwrap_err(),
        r#"at .resources[0] (byte 166): "name" repeated after "instances""#
    );
    // `module` only after the instances: a root module agrees with the addresses they went
    // out with (as `StateFile::parse` reads it); a module does not (found by `state_chunks`).
    for (module, ok) in [("null", true), (r#""""#, true), (r#""module.m""#, false)] {
        let late = format!(
            r#"{{"version":4,"resources":[{{"mode":"managed","type":"null_resource","name":"a",
            "provider":"{PROVIDER}","instances":[{{"attributes":{{"id":"x"}}}}],"module":{module}}}]}}"#
        );
        let (want, got) = both(&late);
        if ok {
            assert_eq!(got, want, "{module}");
        } else {
            assert_eq!(
                got.unwrap_err(),
                r#"at .resources[0] (byte 204): "module" after "instances" (the instances were handed out without it)"#
            );
        }
    }
    // A `module` both before and after the instances is a repeat, as for the other keys.
    let twice = format!(
        r#"{{"version":4,"resources":[{{"module":"module.m","mode":"managed","type":"null_resource",
        "name":"a","provider":"{PROVIDER}","instances":[],"module":"module.m"}}]}}"#
    );
    assert_eq!(
        both(&twice).1.unwrap_err(),
        r#"at .resources[0] (byte 186): "module" repeated after "instances""#
    );
}

/// A state of `n` `null_resource`s, resource `k` naming provider reference `provider(k)`
/// (as written in JSON), each with one instance.
fn with_providers(n: usize, provider: impl Fn(usize) -> String) -> String {
    let resources: Vec<String> = (0..n)
        .map(|k| {
            format!(
                r#"{{"mode":"managed","type":"null_resource","name":"r{k}","provider":"{}",
                "instances":[{{"attributes":{{"id":"x"}}}}]}}"#,
                provider(k)
            )
        })
        .collect();
    format!(r#"{{"version":4,"resources":[{}]}}"#, resources.join(","))
}

/// More provider references than the reader keeps addresses for (32), each coming back after
/// the others: every resource still gets its own reference's address, as `StateFile::parse`
/// gives it.
#[test]
fn many_provider_references_keep_their_addresses() {
    let text = with_providers(80, |k| {
        format!(r#"provider[\"registry.terraform.io/ns{}/null\"]"#, k % 40)
    });
    let (want, got) = both(&text);
    assert_eq!(got, want);
    let got = got.unwrap();
    assert_eq!(got.len(), 80);
    assert_eq!(
        got[45],
        // (Decoded by the hashicorp/null schema: same type, same last address segment.)
        r#"null_resource.r45 v0 Some(10) registry.terraform.io/ns5/null ok {"id":"x","n":null}"#
    );
}

/// The reader knows a provider reference seen before by its JSON bytes: resources naming
/// references in turn, one of them also spelled with `\u0022` escapes (the same reference,
/// other bytes), one a prefix of another's bytes, get each its own address; a bad reference
/// fails each time it comes.
#[test]
fn provider_references_known_by_their_bytes() {
    let providers = [
        r#"provider[\"registry.terraform.io/hashicorp/null\"]"#,
        r#"provider[\"registry.terraform.io/hashicorp/null\"].second"#,
        r#"provider[\u0022registry.terraform.io/hashicorp/null\u0022]"#,
        "provider.null",
        "provider.nul",
    ];
    let text = with_providers(15, |k| providers[(k * 3) % providers.len()].to_string());
    let (want, got) = both(&text);
    assert_eq!(got, want);
    let got = got.unwrap();
    let addresses: Vec<&str> = got.iter().map(|l| l.split(' ').nth(3).unwrap()).collect();
    // (References in the order 0, 3, 1, 4, 2 of `providers`; the legacy `provider.NAME`
    // names a hashicorp provider.)
    let null = "registry.terraform.io/hashicorp/null";
    let nul = "registry.terraform.io/hashicorp/nul";
    assert_eq!(addresses[..5], [null, null, null, nul, null], "{got:?}");
    assert_eq!(addresses[5..10], addresses[..5]);
    // A reference that is not one fails its resource, again after a good one.
    let bad = r#"{"mode":"managed","type":"null_resource","name":"b","provider":"provider[\"x","instances":[]}"#;
    let good = r#"{"mode":"managed","type":"null_resource","name":"g","provider":"provider.null","instances":[]}"#;
    for text in [
        format!(r#"{{"version":4,"resources":[{bad}]}}"#),
        format!(r#"{{"version":4,"resources":[{good},{bad}]}}"#),
    ] {
        let (want, got) = both(&text);
        assert_eq!(got, want);
        assert!(got.unwrap_err().contains(".resources["), "{text}");
    }
}

#[test]
fn envelope_errors() {
    let err = |text: &str| both(text).1.unwrap_err();
    assert_eq!(
        err("{"),
        "at byte 1: not a state file: invalid JSON: unexpected end of input"
    );
    assert_eq!(
        err("[]"),
        "at byte 0: not a state file: expected a JSON object"
    );
    assert_eq!(
        err(r#"{"version":3}"#),
        "at byte 11: unsupported state format version 3 (only version 4 is supported)"
    );
    assert_eq!(
        err(r#"{"serial":1}"#),
        r#"at byte 12: not a state file: no "version""#
    );
    assert_eq!(
        err(r#"{"version":4} x"#),
        "at byte 14: not a state file: invalid JSON: bytes after the state's object"
    );
    let resource = |body: &str| format!(r#"{{"version":4,"resources":[{body}]}}"#);
    assert_eq!(
        err(&resource(
            r#"{"mode":"x","type":"t","name":"n","provider":"provider.a"}"#
        )),
        r#"at .resources[0]: invalid resource mode "x""#
    );
    assert_eq!(
        err(&resource(r#"{"mode":"managed","type":"t","name":"n"}"#)),
        "at .resources[0]: missing provider"
    );
    let instance = |body: &str| {
        resource(&format!(
            r#"{{"mode":"managed","type":"null_resource","name":"a","provider":"{PROVIDER}","instances":[{body}]}}"#
        ))
    };
    assert_eq!(
        err(&instance(r#"{"index_key":1.5,"attributes":{}}"#)),
        "at .resources[0].instances[0] (byte 168): index_key: expected a string or an integer, found 1.5"
    );
    // Attributes that are not JSON: an error for the file, at the file offset, naming where
    // in the state it is.
    let bad = instance(r#"{"attributes":{"id":"x",}}"#);
    let at = bad.find(",}").unwrap() + 1;
    assert_eq!(
        err(&bad),
        format!("at .resources[0].instances[0].attributes (byte {at}): invalid JSON: expected a string key, found '}}'")
    );
    // Cut short in the attributes, in an instance, between instances, in a resource, between
    // resources: the place in the state and the offset.
    let two = instance(r#"{"attributes":{"id":"x"}},{"index_key":1,"attributes":{"id":"y"}}"#);
    let cut = |text: &str| {
        let end = two.find(text).unwrap() + text.len();
        (end, err(&two[..end]))
    };
    // (A string cut short: at its opening quote.)
    assert_eq!(
        cut(r#"{"id":"y"#),
        (
            217,
            "at .resources[0].instances[1].attributes (byte 215): invalid JSON: unexpected end \
             of input in a string"
                .into()
        )
    );
    let eof = |at: &str, end: usize| {
        format!("at {at} (byte {end}): invalid JSON: unexpected end of input")
    };
    for (text, at) in [
        (
            r#"{"id":"x"}},{"index_key":1,"#,
            ".resources[0].instances[1]",
        ),
        (r#"{"id":"x"}},"#, ".resources[0].instances"),
        (r#""name":"a","#, ".resources[0]"),
        (r#""resources":["#, ".resources"),
    ] {
        let (end, got) = cut(text);
        assert_eq!(got, eof(at, end), "{text}");
    }
    // Cut short anywhere: an error, never a panic or a partial success.
    let good = instance(r#"{"index_key":0,"attributes":{"id":"x","n":2.5}}"#);
    for cut in 0..good.len() {
        assert!(both(&good[..cut]).1.is_err(), "{}", &good[..cut]);
    }
}

#[test]
fn instance_outcomes_match_parse() {
    let text = format!(
        r#"{{"version":4,"terraform_version":"1.9.0","resources":[
        {{"module":"module.m","mode":"managed","type":"null_resource","name":"a","provider":"{PROVIDER}",
          "instances":[
            {{"index_key":0,"schema_version":2,"attributes":{{"id":"x"}}}},
            {{"index_key":1,"attributes":{{"id":"y","extra":[1,{{"z":"\u00e9"}}]}}}},
            {{"index_key":2,"attributes_flat":{{"id":"z"}}}},
            {{"index_key":3}},
            {{"index_key":4,"deposed":"abc","attributes":null}}]}},
        {{"mode":"data","type":"nothing","name":"b","provider":"provider.null","instances":[{{"attributes":{{}}}}]}}]}}"#
    );
    let (want, got) = both(&text);
    assert_eq!(got, want);
    assert_eq!(
        got.unwrap(),
        [
            r#"module.m.null_resource.a[0] v2 Some(10) registry.terraform.io/hashicorp/null ok {"id":"x","n":null}"#,
            r#"module.m.null_resource.a[1] v0 Some(37) registry.terraform.io/hashicorp/null error at (root) (byte 10): unsupported attribute "extra" (document 0)"#,
            "module.m.null_resource.a[2] v0 None registry.terraform.io/hashicorp/null legacy",
            r#"module.m.null_resource.a[3] v0 Some(2) registry.terraform.io/hashicorp/null ok {"id":null,"n":null}"#,
            "module.m.null_resource.a[4] (deposed abc) v0 Some(4) registry.terraform.io/hashicorp/null ok null",
            "data.nothing.b v0 Some(2) registry.terraform.io/hashicorp/null no schema",
        ]
    );
}

/// 20,000 instances read through a buffer limited to 4 KiB per unit: memory is bounded by
/// the largest instance, not the file (a unit larger than the limit is an error).
#[test]
fn memory_is_bounded_by_the_largest_instance() {
    let text = one_resource(
        20_000,
        |i| format!(r#"{{"id":"{}","n":{i}}}"#, "x".repeat(i % 100)),
        "",
    );
    assert!(text.len() > 1_500_000);
    let set = doc();
    let bounded = ReaderOptions::default()
        .with_read_size(1024)
        .with_max_unit_bytes(4096);
    let mut count = 0u64;
    let summary = StateReader::with_options(text.as_bytes(), bounded.clone())
        .visit(&set, &DecodeOptions::default(), |_, o| {
            assert!(matches!(o, Outcome::Ok(..)));
            count += 1;
        })
        .unwrap();
    assert_eq!(
        (count, summary.instances, summary.resources),
        (20_000, 20_000, 1)
    );
    assert_eq!(summary.bytes, text.len() as u64);
    // One instance larger than the limit.
    let big = text.replacen(r#""id":"""#, &format!(r#""id":"{}""#, "y".repeat(5000)), 1);
    let e = StateReader::with_options(big.as_bytes(), bounded)
        .visit(&set, &DecodeOptions::default(), |_, _| {})
        .unwrap_err();
    // (The top level: the unit starts at the instance's `{`.)
    let at = big.find(r#"{"index_key":0,"#).unwrap();
    assert_eq!(
        (e.path(), e.offset(), e.message()),
        (
            "",
            Some(at),
            "a part of the state larger than max_unit_bytes (4096)"
        ),
        "{e}"
    );
}

/// The `state_chunks` fuzz check over every corpus state (its seeds), with a few piece
/// patterns, and over hand-made states that exercise its rules.
#[test]
fn the_fuzz_check_passes_on_its_seeds() {
    let mut inputs: Vec<Vec<u8>> = vec![
        br#"{"version":4,"resources":[{"mode":"managed","type":"null_resource","name":"a","provider":"provider.null","instances":[{"attributes":{"id":"x","l":["a"],"m":{"k":true},"d":{"value":1,"type":"number"},"b":[{"x":"y"}]}}]}]}"#.to_vec(),
        br#"{"resources":[{"instances":[{"attributes":{"id":"x"}}],"mode":"data","name":"a","provider":"provider.null","type":"null_data_source"}],"version":4}"#.to_vec(),
        br#"{"version":4,"resources":[],"resources":[]}"#.to_vec(),
        br#"{"version":4,"resources":[{"mode":"managed","type":"null_resource","name":"a","provider":"provider.null","instances":[],"name":"b"}]}"#.to_vec(),
    ];
    if let Some(shared) = common::shared_dir("the corpus seeds of the state fuzz check") {
        let mut states = Vec::new();
        files(&shared.join("corpus").join("states"), &mut states);
        states.sort();
        inputs.extend(states.iter().map(|p| std::fs::read(p).unwrap()));
    }
    for text in &inputs {
        for prefix in [[0u8, 0], [7, 200], [12, 3]] {
            let mut data = prefix.to_vec();
            data.extend_from_slice(text);
            reference::state::state_chunks(&data);
        }
    }
}

/// Generated types and values (the reference generator, as the `dump_straight` fuzz target
/// draws them from its bytes) as instances in the encodings the generator picks, one with a
/// byte changed, one spaced out: a set that writes DUMPs gives every instance's outcome as
/// one that does not, and writes some of them straight.
#[test]
fn generated_instances_dump_straight_as_decoded() {
    let mut rng = reference::gen::Rng::new(29);
    let rounds = if cfg!(debug_assertions) { 300 } else { 3000 };
    let mut straight = 0;
    for _ in 0..rounds {
        let data: Vec<u8> = (0..512)
            .map(|_| reference::gen::Source::byte(&mut rng))
            .collect();
        straight += reference::dumps::dumps(&data);
    }
    // (Four instances a round; the generator's number forms, escapes and key orders, its
    // dynamic values and tuples, and changed bytes send most of them the general way.)
    assert!(
        straight * 5 > rounds,
        "{straight} of {} written straight",
        4 * rounds
    );
}
