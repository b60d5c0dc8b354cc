//! Hostile MessagePack: every truncation of valid inputs, every single-byte corruption,
//! headers that claim 2^32-1 elements or bytes in a few bytes of input, nesting 100,000 deep
//! (lists, dynamic wrappers, skipped values), and oversized refinement payloads. Nothing may
//! panic or overflow the stack; errors are the documented kinds. Allocation bounds are checked
//! in `msgpack_alloc.rs` (a separate binary with a counting allocator).

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use decode::{dump_with, prog};
use mp::{hex, mp, Mp};
use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
use tfwire::{DecodeOptions, ErrorKind, Limits, Program, Type};

/// A realistic resource: every kind of position, unknowns with refinements, dynamic values.
fn resource() -> (Program, Vec<u8>) {
    let ingress = Block::new()
        .attribute(
            "cidr_blocks",
            Attribute::new(Type::List(Box::new(Type::String))),
        )
        .attribute("from_port", Attribute::new(Type::Number))
        .attribute("meta", Attribute::new(Type::Dynamic));
    let block = Block::new()
        .attribute("id", Attribute::new(Type::String))
        .attribute("tags", Attribute::new(Type::Map(Box::new(Type::String))))
        .attribute("ratio", Attribute::new(Type::Number))
        .attribute("enabled", Attribute::new(Type::Bool))
        .attribute(
            "pair",
            Attribute::new(Type::Tuple(vec![Type::String, Type::Number])),
        )
        .block("ingress", NestedBlock::new(NestingMode::Set, ingress));
    let p = Program::from_block(&block).unwrap();
    let rule = |port: Mp, meta: Mp| {
        mp().map(3)
            .s("cidr_blocks")
            .arr(2)
            .s("10.0.0.0/8")
            .str16(b"192.168.0.0/16")
            .s("from_port")
            .then(port)
            .s("meta")
            .then(meta)
    };
    let input = mp()
        .map(6)
        .s("enabled")
        .bool(true)
        .s("id")
        .str8(b"sg-0123456789abcdef")
        .s("ingress")
        .arr(3)
        .then(rule(
            mp().uint(443),
            mp().dynamic(r#"["map","number"]"#).map(1).s("w").f64(0.5),
        ))
        .then(rule(mp().s("1e3"), mp().unknown()))
        .then(rule(
            mp().refined(
                mp().map(2)
                    .int(3)
                    .arr(2)
                    .int(0)
                    .bool(true)
                    .int(4)
                    .arr(2)
                    .uint(65535)
                    .bool(true),
            ),
            mp().nil(),
        ))
        .s("pair")
        .arr(2)
        .bin(b"x")
        .raw(&hex("d3fffffffffffffff0"))
        .s("ratio")
        .f32(0.25)
        .s("tags")
        .map(2)
        .s("Name")
        .refined(mp().map(2).int(1).bool(false).int(2).s("web-"))
        .s("env")
        .str32(b"prod")
        .done();
    (p, input)
}

fn samples() -> Vec<(Program, Vec<u8>)> {
    let list_dyn = mp()
        .arr(3)
        .dynamic(r#"["object",{"a":["list","number"]}]"#)
        .map(1)
        .s("a")
        .arr(2)
        .int(1)
        .raw(&hex("cb3ff8000000000000"))
        .dynamic(r#"["object",{"a":["list","number"]}]"#)
        .nil()
        .raw(&hex("c7070c8301c205020602"))
        .done();
    vec![
        resource(),
        (prog(r#"["list","dynamic"]"#), list_dyn),
        (prog(r#""string""#), mp().str32(&[b'z'; 300]).done()),
        (prog(r#""number""#), hex("cf ffffffffffffffff")),
        (
            prog(r#""dynamic""#),
            mp().dynamic("\"dynamic\"")
                .dynamic("\"bool\"")
                .bool(true)
                .done(),
        ),
        (
            prog(r#"["map",["set","number"]]"#),
            mp().map16(2)
                .bin(b"k")
                .arr16(1)
                .int(-100)
                .s("")
                .arr32(0)
                .done(),
        ),
    ]
}

#[test]
fn every_truncation_is_an_eof_error() {
    for (p, input) in samples() {
        let full = dump_with(&p, &input, &DecodeOptions::default())
            .unwrap_or_else(|e| panic!("the full input must decode: {e}"));
        assert!(!full.is_empty());
        // MessagePack is prefix-free: no strict prefix of one value is a complete value.
        for n in 0..input.len() {
            match dump_with(&p, &input[..n], &DecodeOptions::default()) {
                Ok(v) => panic!("prefix of {n}/{} bytes decoded to {v}", input.len()),
                Err(e) => {
                    assert_eq!(e.kind(), ErrorKind::Eof, "prefix {n}: {e}");
                    assert!(
                        e.offset().unwrap() <= n,
                        "prefix {n}: offset beyond the input: {e}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_single_byte_corruption_is_handled() {
    for (p, input) in samples() {
        for i in 0..input.len() {
            for b in 0..=255u8 {
                let mut bad = input.clone();
                bad[i] = b;
                for opts in [
                    DecodeOptions::default(),
                    DecodeOptions::default()
                        .with_skip_unknown_attributes(true)
                        .with_missing_attributes_null(true)
                        .with_check_item_counts(true),
                ] {
                    if let Err(e) = dump_with(&p, &bad, &opts) {
                        assert!(e.offset().unwrap() <= bad.len(), "{i}:{b:02x}: {e}");
                        assert!(!e.message().is_empty());
                    }
                }
            }
        }
    }
}

#[test]
fn every_byte_pair_as_a_whole_input() {
    for ty in [
        r#""string""#,
        r#""number""#,
        r#""dynamic""#,
        r#"["list","bool"]"#,
        r#"["object",{"a":"bool"}]"#,
    ] {
        let p = prog(ty);
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let _ = dump_with(&p, &[a], &DecodeOptions::default());
                let _ = dump_with(&p, &[a, b], &DecodeOptions::default());
            }
        }
    }
}

/// Headers claiming 2^32-1 elements or bytes, followed by a few bytes.
fn huge_claims() -> Vec<(&'static str, Vec<u8>)> {
    let tail = [0x01u8, 0x02, 0x03, 0x04, 0x05];
    let with = |head: &str| {
        let mut v = hex(head);
        v.extend_from_slice(&tail);
        v
    };
    vec![
        (r#"["list","number"]"#, with("ddffffffff")),
        (r#"["set","number"]"#, with("ddffffffff")),
        (r#"["tuple",["number"]]"#, with("ddffffffff")),
        (r#"["map","number"]"#, with("dfffffffff")),
        (r#"["object",{"a":"number"}]"#, with("dfffffffff")),
        (r#""string""#, with("dbffffffff")),
        (r#""string""#, with("c6ffffffff")),
        (r#""number""#, with("dbffffffff")),
        (r#""number""#, with("c6ffffffff")),
        (r#""string""#, with("c9ffffffff0c")),
        (r#""string""#, with("c9ffffffff00")),
        (r#"["list",["list","number"]]"#, with("91ddffffffff")),
        (r#"["map",["map","number"]]"#, with("81a16bdfffffffff")),
    ]
}

#[test]
fn headers_claiming_huge_lengths_fail_fast_with_eof() {
    for (ty, input) in huge_claims() {
        let e = dump_with(&prog(ty), &input, &DecodeOptions::default()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Eof, "{ty} {input:02x?}: {e}");
    }
    // A dynamic value's type JSON meets max_type_json_len (1 MiB) before the end of input.
    for head in ["92c6ffffffff", "92dbffffffff"] {
        let input = hex(&format!("{head}0102030405"));
        let e = dump_with(&prog("\"dynamic\""), &input, &DecodeOptions::default()).unwrap_err();
        let msg = "type JSON of 4294967295 bytes exceeds max_type_json_len (1048576)";
        assert_eq!(
            (e.kind(), e.offset().unwrap(), e.message()),
            (ErrorKind::Limit, 1, msg)
        );
    }
    // With a lower max_string_len, a huge string meets the limit first.
    let opts = DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_string_len(10));
    let e = dump_with(&prog("\"string\""), &hex("dbffffffff01"), &opts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
}

#[test]
fn huge_claims_inside_skipped_values_and_refinements() {
    let p = prog(r#"["object",{"a":"number"}]"#);
    let opts = DecodeOptions::default().with_skip_unknown_attributes(true);
    for skipped in [
        "ddffffffff",
        "dfffffffff",
        "dbffffffff",
        "c6ffffffff",
        "c9ffffffff0c",
        "91dfffffffff",
    ] {
        let input = mp().map(1).s("x").hex(skipped).int(1).int(2).done();
        let e = dump_with(&p, &input, &opts).unwrap_err();
        assert_eq!(
            (e.kind(), e.path()),
            (ErrorKind::Eof, ".x"),
            "{skipped}: {e}"
        );
    }
    // Inside a complete refinement payload, a huge claim is a malformed refinement.
    for payload in ["dfffffffff", "81 07 ddffffffff", "81 02 dbffffffff"] {
        let input = mp().ext(12, &hex(payload)).done();
        let e = dump_with(&prog(r#""string""#), &input, &DecodeOptions::default()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRefinement, "{payload}: {e}");
    }
}

/// A list type nested `depth` deep (built in Rust: type JSON stops at 100 levels).
fn nested_list(depth: usize) -> Program {
    let mut t = Type::Number;
    for _ in 0..depth {
        t = Type::List(Box::new(t));
    }
    Program::new(&t).unwrap()
}

const DEPTH_MSG: &str = "nesting deeper than max_depth (256)";

#[test]
fn one_hundred_thousand_nested_arrays() {
    let p = nested_list(300);
    let input = vec![0x91u8; 100_000];
    let e = dump_with(&p, &input, &DecodeOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset().unwrap(), e.message()),
        (ErrorKind::Limit, 256, DEPTH_MSG)
    );
    assert_eq!(e.path(), "[0]".repeat(256));
    // Exactly max_depth levels decode.
    let mut ok = vec![0x91u8; 255];
    ok.push(0x90);
    let p = nested_list(256);
    assert_eq!(
        dump_with(&p, &ok, &DecodeOptions::default()).unwrap(),
        format!("{}[]{}", "[".repeat(255), "]".repeat(255))
    );
    // A type nested deeper than the wire: a type mismatch, not a limit.
    let shallow = nested_list(3);
    let e = dump_with(&shallow, &input, &DecodeOptions::default()).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset().unwrap(), e.path()),
        (ErrorKind::TypeMismatch, 3, "[0][0][0]")
    );
}

#[test]
fn deep_nesting_under_a_lower_max_depth() {
    let opts = DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_depth(10));
    let e = dump_with(&nested_list(300), &vec![0x91u8; 100_000], &opts).unwrap_err();
    let msg = "nesting deeper than max_depth (10)";
    assert_eq!(
        (e.kind(), e.offset().unwrap(), e.message()),
        (ErrorKind::Limit, 10, msg)
    );
}

#[test]
fn one_hundred_thousand_nested_dynamic_wrappers() {
    let wrapper = mp().dynamic("\"dynamic\"").done();
    let input = wrapper.repeat(100_000);
    let e = dump_with(&prog("\"dynamic\""), &input, &DecodeOptions::default()).unwrap_err();
    assert_eq!((e.kind(), e.message()), (ErrorKind::Limit, DEPTH_MSG));
    assert_eq!((e.offset().unwrap(), e.path()), (256 * wrapper.len(), ""));
    // The same, ending in a value after 200 wrappers: decodes, to the innermost value (a
    // wrapper of type dynamic reads through, as in go-cty).
    let mut ok = wrapper.repeat(200);
    ok.extend(mp().dynamic("\"bool\"").bool(true).done());
    let dumped = dump_with(&prog("\"dynamic\""), &ok, &DecodeOptions::default()).unwrap();
    assert_eq!(dumped, r#"{"type":"bool","value":true}"#);
    // With the depth limit raised, 100,000 of them read through in one pass each.
    let deep = DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_depth(1_000_000));
    let mut ok = input.clone();
    ok.extend(mp().dynamic("\"bool\"").bool(true).done());
    let dumped = dump_with(&prog("\"dynamic\""), &ok, &deep).unwrap();
    assert_eq!(dumped, r#"{"type":"bool","value":true}"#);
    // 100,000 list(dynamic) wrappers recurse (a wrapper, then a list, …): past the
    // executors' recursion cap, a limit, whatever max_depth says.
    let list = mp().dynamic(r#"["list","dynamic"]"#).arr(1).done();
    let mut nested = list.repeat(100_000);
    nested.extend(mp().dynamic("\"bool\"").bool(true).done());
    let e = dump_with(&prog("\"dynamic\""), &nested, &deep).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert_eq!(
        e.message(),
        "nesting deeper than MAX_DEPTH (512), the executors' recursion cap"
    );
    assert_eq!(e.offset().unwrap(), 256 * list.len());
    // Within the cap, they decode, and the read-through walk's own bound refuses them.
    let mut nested = list.repeat(200);
    nested.extend(mp().dynamic("\"bool\"").bool(true).done());
    let e = dump_with(&prog("\"dynamic\""), &nested, &deep).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert!(e.message().contains("nests deeper than 128 levels"), "{e}");
    // Just within the bound, the walk's recursion fits a 1 MiB thread stack (even in a debug
    // build, whose frames are the largest).
    let n = tfwire::MAX_READ_THROUGH_DEPTH as usize / 2 - 1;
    let mut within = list.repeat(n);
    within.extend(mp().dynamic("\"bool\"").bool(true).done());
    let want = format!(
        r#"{{"type":{}"bool"{},"value":{}true{}}}"#,
        r#"["list","#.repeat(n),
        "]".repeat(n),
        "[".repeat(n),
        "]".repeat(n)
    );
    let dumped = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || dump_with(&prog("\"dynamic\""), &within, &DecodeOptions::default()))
        .unwrap()
        .join()
        .unwrap()
        .unwrap();
    assert_eq!(dumped, want);
}

#[test]
fn one_hundred_thousand_nested_dynamic_lists() {
    // ["list","dynamic"] holding itself: a list level and a wrapper level per step.
    let step = mp().dynamic(r#"["list","dynamic"]"#).arr(1).done();
    let input = step.repeat(100_000);
    let e = dump_with(&prog("\"dynamic\""), &input, &DecodeOptions::default()).unwrap_err();
    assert_eq!((e.kind(), e.message()), (ErrorKind::Limit, DEPTH_MSG));
    assert_eq!(e.offset().unwrap(), 128 * step.len());
    assert_eq!(e.path(), "[0]".repeat(128));
}

#[test]
fn deep_values_in_maps_and_objects() {
    // map(dynamic) → object wrappers: 100,000 levels of {"k": ...}.
    let step = mp().map(1).s("k").dynamic(r#"["map","dynamic"]"#).done();
    let mut input = mp().dynamic(r#"["map","dynamic"]"#).done();
    for _ in 0..100_000 {
        input.extend_from_slice(&step);
    }
    let e = dump_with(&prog("\"dynamic\""), &input, &DecodeOptions::default()).unwrap_err();
    assert_eq!((e.kind(), e.message()), (ErrorKind::Limit, DEPTH_MSG));
    assert!(e.path().starts_with(r#"["k"]["k"]"#), "{}", &e.path()[..40]);
}

#[test]
fn deep_skipped_values_do_not_overflow_the_stack() {
    let p = prog(r#"["object",{"a":"number"}]"#);
    let opts = DecodeOptions::default().with_skip_unknown_attributes(true);
    let mut input = mp().map(2).s("x").done();
    input.extend(std::iter::repeat_n(0x91u8, 100_000));
    input.push(0xc0);
    input.extend(mp().s("a").int(7).done());
    assert_eq!(dump_with(&p, &input, &opts).unwrap(), r#"{"a":7}"#);
    // Deep maps too, and a truncated deep skip.
    let mut maps = mp().map(2).s("x").done();
    for _ in 0..100_000 {
        maps.extend(mp().map(1).s("k").done());
    }
    maps.push(0xc0);
    maps.extend(mp().s("a").int(7).done());
    assert_eq!(dump_with(&p, &maps, &opts).unwrap(), r#"{"a":7}"#);
    let cut = &maps[..maps.len() - 5];
    let e = dump_with(&p, cut, &opts).unwrap_err();
    assert_eq!((e.kind(), e.path()), (ErrorKind::Eof, ".x"));
}

#[test]
fn deep_values_inside_refinement_payloads() {
    // An unknown key whose value nests 1000 deep: skipped, within 1024 bytes.
    let mut payload = mp().map(2).int(9).done();
    payload.extend(std::iter::repeat_n(0x91u8, 1000));
    payload.push(0xc0);
    payload.extend(mp().int(1).bool(false).done());
    let input = mp().ext(12, &payload).done();
    let got = dump_with(&prog(r#""string""#), &input, &DecodeOptions::default()).unwrap();
    assert_eq!(got, r#"{"$unknown":{"null":false}}"#);
    // 100,000 deep: over the payload limit.
    let mut payload = mp().map(1).int(9).done();
    payload.extend(std::iter::repeat_n(0x91u8, 100_000));
    payload.push(0xc0);
    let input = mp().ext(12, &payload).done();
    let e = dump_with(&prog(r#""string""#), &input, &DecodeOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert_eq!(
        e.message(),
        "refinement payload of 100003 bytes exceeds max_refinement_len (1024)"
    );
}

#[test]
fn refinement_payload_over_1024_bytes() {
    for n in [1025usize, 4096, 70_000] {
        // map(1) 2 => str: header sizes vary, so build the prefix to reach exactly n bytes.
        let mut k = n - 6;
        let mut payload = mp().map(1).int(2).s(&"p".repeat(k)).done();
        while payload.len() != n {
            k = k + n - payload.len();
            payload = mp().map(1).int(2).s(&"p".repeat(k)).done();
        }
        let input = mp().ext(12, &payload).done();
        let e = dump_with(&prog(r#""string""#), &input, &DecodeOptions::default()).unwrap_err();
        let msg = format!("refinement payload of {n} bytes exceeds max_refinement_len (1024)");
        assert_eq!(
            (e.kind(), e.offset().unwrap(), e.message()),
            (ErrorKind::Limit, 0, &*msg)
        );
    }
}

#[test]
fn many_distinct_dynamic_types_hit_the_cache_limit() {
    let p = prog(r#"["list","dynamic"]"#);
    let n = 10_001;
    let mut b = mp().arr(n);
    for i in 0..n {
        b = b.dynamic(&format!(r#"["object",{{"a{i}":"bool"}}]"#)).nil();
    }
    let e = dump_with(&p, &b.done(), &DecodeOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert_eq!(e.path(), "[10000]");
    assert_eq!(
        e.message(),
        "more than max_dynamic_types (10000) distinct dynamic types"
    );
}
