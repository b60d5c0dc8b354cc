//! The rest of the MessagePack error kinds, each with its exact byte offset, value path and
//! message: InvalidRefinement (malformed and inconsistent refinements, which go-cty panics
//! on), ItemCount, TrailingBytes and Limit.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use bumpalo::Bump;
use decode::{assert_err, checking_item_counts, err, err_with, prog};
use mp::{hex, mp};
use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
use tfwire::{Category, DecodeOptions, ErrorKind, Limits, Program, Type};

fn limits(l: Limits) -> DecodeOptions {
    DecodeOptions::default().with_limits(l)
}

#[track_caller]
fn refinement_err(ty: &str, input: &str, offset: usize, message: &str) {
    let e = err(ty, &hex(input));
    assert_err(&e, ErrorKind::InvalidRefinement, offset, "", message);
    assert_eq!(e.classify(), Category::Data);
}

const S: &str = "\"string\"";
const N: &str = "\"number\"";
const L: &str = r#"["list","string"]"#;

// ---- InvalidRefinement ----------------------------------------------------------------------

#[test]
fn refinement_for_the_wrong_type() {
    let prefix = "string prefix refinement for non-string type";
    refinement_err(N, "d60c8102a161", 3, prefix);
    refinement_err(r#""bool""#, "d60c8102a161", 3, prefix);
    refinement_err(L, "d60c8102a161", 3, prefix);
    let bound = "numeric bound refinement for non-number type";
    refinement_err(S, "c7050c81039201c3", 4, bound);
    refinement_err(r#"["map","number"]"#, "c7050c81049201c3", 4, bound);
    let length = "length bound refinement for non-collection type";
    refinement_err(N, "d60c81050100", 3, length);
    refinement_err(r#"["object",{}]"#, "d60c81060100", 3, length);
    refinement_err(r#"["tuple",["string"]]"#, "d60c81060100", 3, length);
}

#[test]
fn refinement_payload_shape() {
    refinement_err(
        S,
        "d50c9101",
        2,
        "refinements must be a msgpack map, found fixarray",
    );
    refinement_err(
        S,
        "d50ca178",
        2,
        "refinements must be a msgpack map, found fixstr",
    );
    refinement_err(S, "d60c81a178c2", 3, "non-integer key in refinement map");
    refinement_err(S, "d60c81c0c200", 3, "non-integer key in refinement map");
    refinement_err(S, "d60c81c3c200", 3, "non-integer key in refinement map");
    // Conflicting repeats (go-cty panics).
    refinement_err(S, "c7050c8201c201c3", 6, "refinement key 1 repeated");
    refinement_err(L, "c7050c8205010502", 6, "refinement key 5 repeated");
    // A reserved byte inside a skipped unknown key's value.
    refinement_err(S, "d60c8107c100", 4, "reserved byte 0xc1");
}

#[test]
fn refinement_payload_that_ends_early() {
    // The extension is complete; its payload is not. More input would not help.
    let msg = "refinement payload ends early";
    refinement_err(S, "d50c8201", 2, msg);
    refinement_err(S, "d60c8102a568", 4, msg);
    refinement_err(S, "d50c81de", 2, msg);
    refinement_err(N, "d60c810392cd", 5, msg);
    // Truncated integers: a key, a length bound.
    refinement_err(S, "c7030c81cd00", 4, msg);
    refinement_err(L, "d60c8105cd01", 4, msg);
    refinement_err(L, "c7050c8105d30000", 5, msg);
}

#[test]
fn refinement_values_of_the_wrong_shape() {
    refinement_err(
        r#""bool""#,
        "d60c81010100",
        4,
        "nullness refinement must be a bool, found positive fixint",
    );
    refinement_err(
        S,
        "d60c81020100",
        4,
        "string prefix refinement must be a string, found positive fixint",
    );
    refinement_err(
        S,
        "c7040c8102a1ff",
        5,
        "string prefix refinement is not valid UTF-8",
    );
    refinement_err(L, "d60c8105ff00", 4, "length bound refinement is negative");
    refinement_err(L, "d60c8106d0ff", 4, "length bound refinement is negative");
    refinement_err(
        L,
        "d60c8105c200",
        4,
        "length bound refinement must be an integer",
    );
    refinement_err(
        L,
        "d60c8106a131",
        4,
        "length bound refinement must be an integer",
    );
}

#[test]
fn number_bound_of_the_wrong_shape() {
    let shape = "numeric bound refinement must be a [number, bool] array";
    refinement_err(N, "c7030c810390", 5, shape);
    refinement_err(N, "c7040c81039101", 5, shape);
    refinement_err(N, "c7060c8103930101c3", 5, shape);
    refinement_err(N, "c7050c8103920101", 5, shape);
    refinement_err(N, "c7050c810392c2c3", 6, shape);
    refinement_err(N, "c7030c8103c0", 5, shape);
    refinement_err(
        N,
        "c7060c810392a178c3",
        6,
        "numeric bound refinement is not a valid number",
    );
    refinement_err(
        N,
        "c70d0c810392cb7ff8000000000000c3",
        6,
        "numeric bound refinement is NaN",
    );
}

#[test]
fn inconsistent_refinements() {
    let number = "number lower bound refinement is above the upper bound";
    refinement_err(N, "c7090c820392 05c3 049201c3", 3, number);
    // Equal bounds are consistent only when both are inclusive.
    refinement_err(N, "c7090c820392 02c2 049202c3", 3, number);
    refinement_err(N, "c7090c820392 02c3 049202c2", 3, number);
    // Compared exactly, not through f64.
    let bounds = |lo: mp::Mp, hi: mp::Mp| {
        let map = mp()
            .map(2)
            .int(3)
            .arr(2)
            .then(lo)
            .bool(true)
            .int(4)
            .arr(2)
            .then(hi)
            .bool(true);
        mp().refined(map).done()
    };
    for (lo, hi) in [
        (mp().s("1.0000000000000000000001"), mp().int(1)),
        (mp().s("9007199254740993"), mp().uint(9007199254740992)),
        (mp().f64(0.1), mp().s("0.1")),
        (mp().s("-0.1"), mp().f64(-0.1)),
        (mp().s("Inf"), mp().s("1e400")),
        (mp().s("1e400"), mp().f64(f64::MAX)),
        (mp().s("-1e400"), mp().s("-Inf")),
    ] {
        let input = bounds(lo, hi);
        let e = err(N, &input);
        let at = if input[0] == 0xc7 { 3 } else { 2 };
        assert_err(&e, ErrorKind::InvalidRefinement, at, "", number);
    }
    refinement_err(
        L,
        "c7050c8205050601",
        3,
        "collection length upper bound 1 is less than lower bound 5",
    );
    let null = "a definitely-null unknown cannot carry other refinements";
    refinement_err(S, "c7060c8201c302a170", 3, null);
    refinement_err(L, "c7050c8201c30601", 3, null);
}

#[test]
fn refinement_errors_carry_the_value_path() {
    let input = mp().arr(2).int(1).raw(&hex("d60c8102a161")).done();
    let e = err(r#"["list","number"]"#, &input);
    let msg = "string prefix refinement for non-string type";
    assert_err(&e, ErrorKind::InvalidRefinement, 5, "[1]", msg);
    let head = mp().map(1).s("tags");
    let at = head.len();
    let input = head.raw(&hex("c7050c8205050601")).done();
    let e = err(r#"["object",{"tags":["map","string"]}]"#, &input);
    let msg = "collection length upper bound 1 is less than lower bound 5";
    assert_err(&e, ErrorKind::InvalidRefinement, at + 3, ".tags", msg);
}

// ---- ItemCount ------------------------------------------------------------------------------

fn rule() -> Block {
    Block::new().attribute("port", Attribute::new(Type::Number))
}

#[test]
fn item_count_of_list_and_set_blocks() {
    for mode in [NestingMode::List, NestingMode::Set] {
        let block = Block::new().block("rule", NestedBlock::new(mode, rule()).items(1, 2));
        let p = Program::from_block(&block).unwrap();
        let head = mp().map(1).s("rule");
        let at = head.len();
        let e = err_with(&p, &head.clone().arr(0).done(), &checking_item_counts());
        assert_err(
            &e,
            ErrorKind::ItemCount,
            at,
            ".rule",
            "at least 1 blocks are required (0 given)",
        );
        assert_eq!(e.classify(), Category::Data);
        let three = head
            .arr(3)
            .map(1)
            .s("port")
            .int(1)
            .map(1)
            .s("port")
            .int(2)
            .map(1)
            .s("port")
            .int(3);
        let e = err_with(&p, &three.done(), &checking_item_counts());
        assert_err(
            &e,
            ErrorKind::ItemCount,
            at,
            ".rule",
            "at most 2 blocks are allowed (3 given)",
        );
    }
}

#[test]
fn item_count_error_path_in_nested_blocks() {
    let inner = NestedBlock::new(NestingMode::Set, rule()).items(0, 1);
    let outer = Block::new().block("inner", inner);
    let block = Block::new().block("outer", NestedBlock::new(NestingMode::List, outer));
    let p = Program::from_block(&block).unwrap();
    let head = mp()
        .map(1)
        .s("outer")
        .arr(2)
        .map(1)
        .s("inner")
        .arr(0)
        .map(1)
        .s("inner");
    let at = head.len();
    let input = head
        .arr(2)
        .map(1)
        .s("port")
        .int(1)
        .map(1)
        .s("port")
        .int(2)
        .done();
    let e = err_with(&p, &input, &checking_item_counts());
    assert_err(
        &e,
        ErrorKind::ItemCount,
        at,
        ".outer[1].inner",
        "at most 1 blocks are allowed (2 given)",
    );
}

// ---- TrailingBytes --------------------------------------------------------------------------

#[test]
fn trailing_bytes_after_the_value() {
    let e = err(N, &hex("0102"));
    assert_err(
        &e,
        ErrorKind::TrailingBytes,
        1,
        "",
        "1 bytes after the value",
    );
    assert_eq!(e.classify(), Category::Syntax);
    assert_err(
        &err(S, &hex("c0c0c0")),
        ErrorKind::TrailingBytes,
        1,
        "",
        "2 bytes after the value",
    );
    assert_err(
        &err(L, &hex("90c1")),
        ErrorKind::TrailingBytes,
        1,
        "",
        "1 bytes after the value",
    );
    assert_err(
        &err(S, &hex("d4000000")),
        ErrorKind::TrailingBytes,
        3,
        "",
        "1 bytes after the value",
    );
    let e = err(r#"["object",{"a":"bool"}]"#, &hex("81a161c3 81a161c3"));
    assert_err(
        &e,
        ErrorKind::TrailingBytes,
        4,
        "",
        "4 bytes after the value",
    );
    let e = err("\"dynamic\"", &hex("92c40822737472696e6722a0 00"));
    assert_err(
        &e,
        ErrorKind::TrailingBytes,
        12,
        "",
        "1 bytes after the value",
    );
}

// ---- Limit ----------------------------------------------------------------------------------

#[test]
fn limit_max_depth() {
    let p = prog(r#"["list",["list",["list","number"]]]"#);
    let opts = limits(Limits::DEFAULT.with_max_depth(2));
    let e = err_with(&p, &hex("91919101"), &opts);
    assert_err(
        &e,
        ErrorKind::Limit,
        2,
        "[0][0]",
        "nesting deeper than max_depth (2)",
    );
    assert_eq!(e.classify(), Category::Limit);
    // Exactly max_depth levels decode.
    let bump = Bump::new();
    let two = prog(r#"["list",["list","number"]]"#);
    assert!(two
        .decode_msgpack_with(&hex("919101"), &bump, &opts)
        .is_ok());

    let p = prog(r#"["object",{"a":["object",{"b":["object",{"c":"bool"}]}]}]"#);
    let input = mp()
        .map(1)
        .s("a")
        .map(1)
        .s("b")
        .map(1)
        .s("c")
        .bool(true)
        .done();
    let e = err_with(&p, &input, &opts);
    assert_err(
        &e,
        ErrorKind::Limit,
        6,
        ".a.b",
        "nesting deeper than max_depth (2)",
    );

    // A dynamic wrapper is a level.
    let p = prog("\"dynamic\"");
    let opts = limits(Limits::DEFAULT.with_max_depth(1));
    let head = mp().dynamic(r#"["list","number"]"#);
    let at = head.len();
    let e = err_with(&p, &head.arr(1).int(1).done(), &opts);
    assert_err(
        &e,
        ErrorKind::Limit,
        at,
        "",
        "nesting deeper than max_depth (1)",
    );
}

#[test]
fn limit_max_container_len() {
    let opts = limits(Limits::DEFAULT.with_max_container_len(2));
    let msg = "3 elements exceed max_container_len (2)";
    let e = err_with(&prog(r#"["list","number"]"#), &hex("93010203"), &opts);
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let e = err_with(&prog(r#"["set","number"]"#), &hex("dc0003010203"), &opts);
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let e = err_with(
        &prog(r#"["map","number"]"#),
        &hex("83a16101a16202a16303"),
        &opts,
    );
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let obj = prog(r#"["object",{"a":"number","b":"number","c":"number"}]"#);
    let e = err_with(&obj, &hex("83a16101a16202a16303"), &opts);
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let e = err_with(
        &prog(r#"["tuple",["number","number","number"]]"#),
        &hex("93010203"),
        &opts,
    );
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let e = err_with(
        &prog(r#"["map",["list","bool"]]"#),
        &hex("81a16b93c3c3c3"),
        &opts,
    );
    assert_err(&e, ErrorKind::Limit, 3, r#"["k"]"#, msg);
    let bump = Bump::new();
    assert!(prog(r#"["list","number"]"#)
        .decode_msgpack_with(&hex("920102"), &bump, &opts)
        .is_ok());
}

#[test]
fn limit_max_string_len() {
    let opts = limits(Limits::DEFAULT.with_max_string_len(3));
    let msg = "string of 4 bytes exceeds max_string_len (3)";
    let e = err_with(&prog(S), &hex("a461626364"), &opts);
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let e = err_with(&prog(S), &hex("c40461626364"), &opts);
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let e = err_with(&prog(N), &hex("a431323334"), &opts);
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let e = err_with(&prog(r#"["map","bool"]"#), &hex("81a461626364c3"), &opts);
    assert_err(&e, ErrorKind::Limit, 1, "", msg);
    let e = err_with(&prog(L), &hex("92a0a461626364"), &opts);
    assert_err(&e, ErrorKind::Limit, 2, "[1]", msg);
    let bump = Bump::new();
    assert!(prog(S)
        .decode_msgpack_with(&hex("a3616263"), &bump, &opts)
        .is_ok());
}

#[test]
fn limit_max_refinement_len() {
    let mut input = vec![0xc8, 0x04, 0x01, 0x0c, 0x81, 0x02, 0xda, 0x03, 0xfc];
    input.extend(std::iter::repeat_n(b'p', 0x3fc));
    let e = err(S, &input);
    let msg = "refinement payload of 1025 bytes exceeds max_refinement_len (1024)";
    assert_err(&e, ErrorKind::Limit, 0, "", msg);
    let opts = limits(Limits::DEFAULT.with_max_refinement_len(2));
    let input = mp().arr(1).raw(&hex("c7030c8101c2")).done();
    let e = err_with(&prog(L), &input, &opts);
    // (The list's element is a string: only nullness is allowed, which is what this is.)
    let msg = "refinement payload of 3 bytes exceeds max_refinement_len (2)";
    assert_err(&e, ErrorKind::Limit, 1, "[0]", msg);
}

#[test]
fn limit_max_type_json_len() {
    let opts = limits(Limits::DEFAULT.with_max_type_json_len(6));
    let e = err_with(
        &prog("\"dynamic\""),
        &mp().dynamic("\"string\"").s("x").done(),
        &opts,
    );
    assert_err(
        &e,
        ErrorKind::Limit,
        1,
        "",
        "type JSON of 8 bytes exceeds max_type_json_len (6)",
    );
    let bump = Bump::new();
    let input = mp().dynamic("\"bool\"").bool(true).done();
    assert!(prog("\"dynamic\"")
        .decode_msgpack_with(&input, &bump, &opts)
        .is_ok());
}

#[test]
fn limit_max_dynamic_types() {
    let p = prog(r#"["list","dynamic"]"#);
    let opts = limits(Limits::DEFAULT.with_max_dynamic_types(1));
    let bump = Bump::new();
    // One type, many times: fine; the cache outlives the decode.
    let same = mp()
        .arr(2)
        .dynamic("\"string\"")
        .s("a")
        .dynamic("\"string\"")
        .s("b")
        .done();
    assert!(p.decode_msgpack_with(&same, &bump, &opts).is_ok());
    assert!(p.decode_msgpack_with(&same, &bump, &opts).is_ok());
    let head = mp().arr(2).dynamic("\"string\"").s("a").arr(2);
    let at = head.len();
    let input = head.bin(b"\"number\"").int(1).done();
    let e = err_with(&p, &input, &opts);
    let msg = "more than max_dynamic_types (1) distinct dynamic types";
    assert_err(&e, ErrorKind::Limit, at, "[1]", msg);
    // Each program has its own cache.
    let other = prog(r#"["list","dynamic"]"#);
    let number = mp().arr(1).dynamic("\"number\"").int(1).done();
    assert!(other.decode_msgpack_with(&number, &bump, &opts).is_ok());
}
