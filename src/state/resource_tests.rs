//! Tests of `resource.rs`: the keys read in Terraform's order, the unwanted instances and
//! runs, each against the general loop.

use super::*;
use crate::state::providers::empty_resource;
use crate::state::reader::PartStart;
use crate::state::{InstanceRef, Outcome, ReaderOptions, SchemaSet, StateReader};
use crate::DecodeOptions;

/// A resource whose bytes are those of the one before it but for a plain name is taken by
/// `same_header` with the `[` that `keys_in_order` finds, and with the keys it reads; any
/// other difference is left to `keys_in_order`.
#[test]
fn same_header_takes_what_keys_in_order_reads_alike() {
    let mut providers = ProviderCache::default();
    for reference in ["provider.aws", "provider.b"] {
        let token = format!("\"{reference}\"");
        providers
            .set(&mut empty_resource(), reference, token.as_bytes())
            .unwrap();
    }
    let first = r#"{"module":"module.a","mode":"managed","type":"aws_x","name":"n","each":"list","provider":"provider.aws","instances":[]}"#;
    let cases = [
        (first.replace(r#""n""#, r#""another_name""#), true),
        (first.replace(":[]", r#":[{"a":1}]"#), true),
        (first.replace(r#""n""#, r#""n\u0021""#), false),
        (first.replace("module.a", "module.b"), false),
        (first.replace("managed", "data"), false),
        (first.replace("aws_x", "aws_y"), false),
        (first.replace(r#","type""#, r#", "type""#), false),
        (first.replace("provider.aws", "provider.b"), false),
        (first.replace(r#""each":"list","#, ""), false),
        (first.replace(r#""instances""#, r#""instance""#), false),
    ];
    for (case, same) in cases {
        // (`plain_string` reads a block of 32 bytes after a quote: the padding.)
        let text = format!("{first},{case}{}", " ".repeat(40));
        let buf = text.as_bytes();
        let (_, header) = keys_and_header(buf, 0, &providers).unwrap();
        let at = first.len() + 1;
        let fast = same_header(buf, at, header);
        assert_eq!(fast.is_some(), same, "{case}");
        if let Some(list) = fast {
            let (keys, read) = keys_in_order(buf, at, &providers).unwrap();
            assert_eq!(list, read, "{case}");
            assert_eq!(buf[list], b'[');
            assert_eq!(
                (keys.module, keys.mode, keys.type_name),
                (Some("module.a"), Some("managed"), Some("aws_x"))
            );
            assert!(matches!(keys.provider, ProviderKey::Kept(0)));
        }
    }
    // A resource cut by the end of the bytes before its `[`: not taken, wherever it is cut.
    let whole = format!("{first},{first}");
    let (_, header) = keys_and_header(whole.as_bytes(), 0, &providers).unwrap();
    let at = first.len() + 1;
    let list = at + first.find('[').unwrap();
    assert_eq!(same_header(whole.as_bytes(), at, header), Some(list));
    for cut in at..=list {
        assert_eq!(
            same_header(&whole.as_bytes()[..cut], at, header),
            None,
            "{cut}"
        );
    }
}

/// Terraform's order is read in one go; anything else is left to the general loop.
#[test]
fn keys_in_order_take_terraforms_order_only() {
    let mut providers = ProviderCache::default();
    providers
        .set(&mut empty_resource(), "provider.aws", br#""provider.aws""#)
        .unwrap();
    // (`plain_string` reads a block of 32 bytes after a quote: the padding.)
    let pad = |s: &str| format!("{s}{}", " ".repeat(40));
    let ok = pad(
        r#"{"module":"module.a","mode":"managed","type":"aws_x","name":"n","each":"list","provider":"provider.aws","instances":[]}"#,
    );
    let (keys, list) = keys_in_order(ok.as_bytes(), 0, &providers).unwrap();
    assert_eq!(
        (keys.module, keys.mode, keys.type_name, keys.name),
        (Some("module.a"), Some("managed"), Some("aws_x"), Some("n"))
    );
    assert!(matches!(keys.provider, ProviderKey::Kept(0)));
    assert_eq!(ok.as_bytes()[list..].first_chunk(), Some(b"[]"));
    let plain =
        pad(r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","instances":[]}"#);
    let (keys, _) = keys_in_order(plain.as_bytes(), 0, &providers).unwrap();
    assert_eq!((keys.module, keys.mode), (None, Some("data")));
    // Indented as Terraform writes state files.
    let indented = pad(
        "{\n  \"mode\": \"data\",\n  \"type\": \"t\",\n  \"name\": \"n\",\n  \"each\": \"map\",\n  \"provider\": \"provider.aws\",\n  \"instances\": [",
    );
    let (keys, at) = keys_in_order(indented.as_bytes(), 0, &providers).unwrap();
    assert_eq!((keys.type_name, keys.name), (Some("t"), Some("n")));
    assert_eq!(indented.as_bytes()[at], b'[');
    for other in [
        r#"{"mode" : "data","type":"t","name":"n","provider":"provider.aws","instances":[]}"#,
        r#"{"mode":null,"type":"t","name":"n","provider":"provider.aws","instances":[]}"#,
        r#"{"mode":"data","type":"t","name":"\u006e","provider":"provider.aws","instances":[]}"#,
        r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","each":"list","instances":[]}"#,
        r#"{"mode":"data","type":"t","name":"n","each":null,"provider":"provider.aws","instances":[]}"#,
        r#"{"mode":"data","type":"t","name":"n","provider":"provider.gcp","instances":[]}"#,
        r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","instances":null}"#,
        r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","x":1,"instances":[]}"#,
        r#"{"type":"t","mode":"data","name":"n","provider":"provider.aws","instances":[]}"#,
    ] {
        assert!(
            keys_in_order(pad(other).as_bytes(), 0, &providers).is_none(),
            "{other}"
        );
    }
    // Cut short anywhere before the `[` (a streamed read's buffer): left to the general
    // loop, which asks for more.
    for end in 1..=list {
        let cut = &ok.as_bytes()[..end];
        assert!(keys_in_order(cut, 0, &providers).is_none(), "{end}");
    }
}

/// The instances of an unwanted resource are stepped over a unit\'s worth at a time;
/// anything else is left to the walk.
#[test]
fn unwanted_instances_take_terraforms_form_only() {
    let at = |s: &str| unwanted_instances(s.as_bytes(), 0);
    assert_eq!(at(r#"[{"a":"}"},{"b":[{}]}]},"#), Some((23, 2, true)));
    assert_eq!(at(r#"[]}"#), Some((3, 0, true)));
    assert_eq!(at("[\n {\"a\":1}\n ]\n}"), Some((15, 1, true)));
    assert_eq!(at("[ ] }"), Some((5, 0, true)));
    // A unit\'s worth: the walk goes on at the comma after the last one.
    let many = format!("[{}]}}", vec![r#"{"a":1}"#; 70].join(", "));
    let end = 1 + RESOURCE_ITEMS * 9 - 2;
    assert_eq!(at(&many), Some((end, RESOURCE_ITEMS as u64, false)));
    assert_eq!(&many[end..end + 2], ", ");
    for other in [
        r#"[{"a":1}],"x":1}"#,
        r#"[{"a":1}]"#,
        r#"[{"a":1}"#,
        r#"[{"a":1"#,
        r#"[1]}"#,
        r#"[{"a":1},]}"#,
        r#"[{"a":1}]]"#,
    ] {
        assert_eq!(at(other), None, "{other}");
    }
}

/// The state of the runs' tests (eighteen resources of the toy schemas, `toy_server` and
/// `toy_other` mixed), with `sep` after each comma and colon and `before` before each
/// colon, and the offset of each resource's `{`.
fn runs_state(sep: &str, before: &str) -> (String, Vec<usize>) {
    let c = format!("{before}:{sep}");
    let resource = |ty: &str, module: &str, each: &str, name: &str, n: usize| {
        let instance = format!(
            r#"{{"schema_version":1,"attributes":{{"disk":[],"id":"{name}","name":"x","port":1,"tags":null}}}}"#
        );
        let instances = vec![instance; n].join(&format!(",{sep}"));
        format!(
            r#"{{{sep}{module}"mode"{c}"managed",{sep}"type"{c}"{ty}",{sep}"name"{c}"{name}",{sep}{each}"provider"{c}"provider[\"registry.terraform.io/hashicorp/toy\"]",{sep}"instances"{c}[{sep}{instances}{sep}]{sep}}}"#
        )
    };
    let module = format!(r#""module"{c}"module.m",{sep}"#);
    let each = format!(r#""each"{c}"list",{sep}"#);
    // (Runs of a type not wanted: `f` to `i2` then `g`, which has more instances than
    // a unit reads; `j`, `k`, `k2`, then `z`, of the type wanted. In a run, `h2`, `h4`,
    // `i2` and `k2` differ from the resource before them by name only, `h3` by its
    // `each` too, and `h!` has a name that is not a plain string.)
    let resources = [
        resource("toy_server", "", "", "a", 1),
        resource("toy_server", &module, &each, "b", 1),
        resource("toy_other", "", &each, "e", 2),
        resource("toy_server", "", &each, "c\\u0021", 1),
        resource("toy_other", &module, "", "f", 0),
        resource("toy_other", "", "", "h", 3),
        resource("toy_other", "", "", "h2", 1),
        resource("toy_other", "", &each, "h3", 2),
        resource("toy_other", "", &each, "h4", 1),
        resource("toy_other", "", &each, "h\\u0021", 1),
        resource("toy_other", &module, &each, "i", 1),
        resource("toy_other", &module, &each, "i2", 1),
        resource("toy_other", "", "", "g", 70),
        resource("toy_server", &module, "", "d", 1),
        resource("toy_other", "", "", "j", 2),
        resource("toy_other", "", "", "k", 1),
        resource("toy_other", "", "", "k2", 1),
        resource("toy_server", "", "", "z", 1),
    ];
    let mut text = r#"{"version":4,"resources":["#.to_string();
    let mut offsets = Vec::new();
    for (k, resource) in resources.iter().enumerate() {
        if k > 0 {
            text.push(',');
        }
        offsets.push(text.len());
        text.push_str(resource);
    }
    text.push_str("]}");
    (text, offsets)
}

/// A state in Terraform\'s order, compact, spaced and indented (its resources read by
/// `keys_in_order` once the provider is known, the instances of a type not wanted stepped
/// over by `unwanted_instances`, a unit\'s worth at a time, and the resources after one
/// of a type not wanted by `unwanted_run`), reads as its twin with a space before every
/// colon (every resource read by the general loop), whole and in small reads, with a
/// resource that strays from the form between them; with every type wanted and with one.
/// A bad mode in a run of resources not wanted fails as the general loop fails.
#[test]
fn terraforms_form_reads_as_the_general_loop_reads() {
    let mut set = SchemaSet::new();
    set.add_json(include_str!("../../tests/data/states/toy.schemas.json"))
        .unwrap();
    let mut servers = set.clone();
    servers.only_types(["toy_server"]);
    let state = |sep: &str, before: &str| runs_state(sep, before).0;
    let read = |set: &SchemaSet, text: &str, read_size: usize| {
        let mut lines = Vec::new();
        let f = |item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
            let ok = matches!(outcome, Outcome::Ok(..));
            lines.push(format!(
                "{} {} {ok}",
                item.address(),
                item.resource.provider
            ));
        };
        let options = ReaderOptions {
            read_size,
            ..ReaderOptions::default()
        };
        let reader = StateReader::with_options(text.as_bytes(), options);
        let summary = reader.visit(set, &DecodeOptions::default(), f).unwrap();
        assert_eq!(summary.resources, 18);
        (summary.instances, summary.skipped, lines)
    };
    for set in [&set, &servers] {
        let general = read(set, &state(" ", " "), 1 << 16);
        for sep in ["", " ", "\n      "] {
            assert_eq!(read(set, &state(sep, ""), 1 << 16), general, "{sep:?}");
            assert_eq!(read(set, &state(sep, ""), 7), general, "{sep:?}");
        }
    }
    let provider = r#"provider["registry.terraform.io/hashicorp/toy"]"#;
    let want = [
        format!("toy_server.a {provider} true"),
        format!("module.m.toy_server.b {provider} true"),
        format!("toy_server.c! {provider} true"),
        format!("module.m.toy_server.d {provider} true"),
        format!("toy_server.z {provider} true"),
    ];
    assert_eq!(
        read(&servers, &state("", ""), 1 << 16),
        (5, 86, want.to_vec())
    );
    let all = read(&set, &state("", ""), 1 << 16);
    assert_eq!((all.0, all.1, all.2.len()), (91, 0, 91));
    assert_eq!(all.2[2], format!("toy_other.e {provider} false"));
    let fails = |text: &str| {
        // The seventh resource's mode (`h2`, in a run after `f` and `h`, otherwise as `h`).
        let (at, _) = text.match_indices(r#""managed""#).nth(6).unwrap();
        let bad = format!("{}\"other\"{}", &text[..at], &text[at + 9..]);
        let reader = StateReader::with_options(bad.as_bytes(), ReaderOptions::default());
        let e = reader.visit(&servers, &DecodeOptions::default(), |_, _| {});
        e.unwrap_err().to_string()
    };
    let general = fails(&state(" ", " "));
    assert!(
        general.contains("resources[6]: invalid resource mode \"other\""),
        "{general}"
    );
    for sep in ["", "\n      "] {
        assert_eq!(fails(&state(sep, "")), general, "{sep:?}");
    }
}

/// A part's walk stops before the first resource that starts at or after its stop, inside
/// a run of resources not wanted as anywhere else (`Unit::unwanted_run` checks the stop
/// before each resource it takes): whole and in small reads, at each resource's `{` and
/// one byte after it, and in memory from a resource's offset.
#[test]
fn runs_stop_where_a_part_stops() {
    let mut servers = SchemaSet::new();
    servers
        .add_json(include_str!("../../tests/data/states/toy.schemas.json"))
        .unwrap();
    servers.only_types(["toy_server"]);
    let (text, offsets) = runs_state("", "");
    for read_size in [1 << 16, 7] {
        for (k, &at) in offsets.iter().enumerate() {
            for (stop, before) in [(at, k), (at + 1, k + 1)] {
                let options = ReaderOptions {
                    read_size,
                    ..ReaderOptions::default()
                };
                let reader = StateReader::with_options(text.as_bytes(), options);
                let (summary, end) = reader
                    .walk_part(
                        &servers,
                        &DecodeOptions::default(),
                        PartStart::File,
                        Some(stop as u64),
                        |_, _| {},
                    )
                    .unwrap();
                assert_eq!(summary.resources, before as u64, "{read_size} {stop}");
                let next = offsets.get(before).map(|&o| o as u64);
                assert_eq!(end.next, next, "{read_size} {stop}");
            }
        }
    }
    // In memory, from a resource's offset (the fifth, `f`, the run's first): a part read in
    // place gives what the part streamed from there gives, offsets the file's.
    let from = PartStart::Resource {
        offset: offsets[4] as u64,
        index: 4,
    };
    for (k, &at) in offsets.iter().enumerate().skip(5) {
        fn part<R: std::io::Read>(
            reader: StateReader<R>,
            set: &SchemaSet,
            from: PartStart,
            stop: u64,
        ) -> (crate::state::Summary, Option<u64>, bool) {
            let decode = DecodeOptions::default();
            let walked = reader.walk_part(set, &decode, from, Some(stop), |_, _| {});
            let (summary, end) = walked.unwrap();
            (summary, end.next, end.version_seen)
        }
        let memory = StateReader::in_memory(text.clone().into_bytes());
        let in_memory = part(memory, &servers, from, at as u64);
        let stream = StateReader::new(&text.as_bytes()[offsets[4]..]);
        let streamed = part(stream, &servers, from, at as u64);
        assert_eq!(in_memory, streamed, "{k}");
        assert_eq!(
            (in_memory.0.resources, in_memory.1),
            (k as u64, Some(at as u64))
        );
    }
}
