//! Limit errors, and what is not an error (gaps, keys out of order, indented keys).

use super::*;

// ---- Limits ---------------------------------------------------------------------------------------

fn limits(l: Limits) -> DecodeOptions {
    DecodeOptions::default().with_limits(l)
}

#[test]
fn limit_errors() {
    let depth = limits(Limits::DEFAULT.with_max_depth(3));
    let nested = r#"["list",["list",["list",["list","number"]]]]"#;
    assert!(prog(nested)
        .decode_json_with(b"[[[]]]", &Bump::new(), &depth)
        .is_ok());
    let e = json_err_with(nested, b"[[[[]]]]", &depth);
    assert_err(
        &e,
        ErrorKind::Limit,
        3,
        "[0][0][0]",
        "nesting deeper than max_depth (3)",
    );
    // Inside a skipped value and a value-first dynamic wrapper, the same limit applies.
    let skip = depth.with_skip_unknown_attributes(true);
    let e = json_err_with(r#"["object",{}]"#, br#"{"x":[[[1]]]}"#, &skip);
    assert_err(
        &e,
        ErrorKind::Limit,
        7,
        ".x",
        "nesting deeper than max_depth (3)",
    );
    let e = json_err_with(
        "\"dynamic\"",
        br#"{"value":[[[1]]],"type":["list",["list",["list","number"]]]}"#,
        &depth,
    );
    assert_err(
        &e,
        ErrorKind::Limit,
        11,
        "",
        "nesting deeper than max_depth (3)",
    );

    let strings = limits(Limits::DEFAULT.with_max_string_len(3));
    assert!(prog("\"string\"")
        .decode_json_with(b"\"abc\"", &Bump::new(), &strings)
        .is_ok());
    let e = json_err_with(r#"["list","string"]"#, b"[\"abc\",\"abcd\"]", &strings);
    assert_err(
        &e,
        ErrorKind::Limit,
        7,
        "[1]",
        "string of 4 bytes exceeds max_string_len (3)",
    );
    // The decoded length counts: six escapes decode to three bytes.
    assert!(prog("\"string\"")
        .decode_json_with(br#""\u0041\u0042\u0043""#, &Bump::new(), &strings)
        .is_ok());
    let e = json_err_with(MAP, b"{\"long\":1}", &strings);
    assert_err(
        &e,
        ErrorKind::Limit,
        1,
        "",
        "string of 4 bytes exceeds max_string_len (3)",
    );

    let len = limits(Limits::DEFAULT.with_max_container_len(2));
    assert!(prog(LIST)
        .decode_json_with(b"[1,2]", &Bump::new(), &len)
        .is_ok());
    let e = json_err_with(LIST, b"[1,2,3]", &len);
    assert_err(
        &e,
        ErrorKind::Limit,
        5,
        "",
        "more than max_container_len (2) elements",
    );
    let e = json_err_with(MAP, b"{\"a\":1,\"b\":2,\"c\":3}", &len);
    assert_err(
        &e,
        ErrorKind::Limit,
        13,
        "",
        "more than max_container_len (2) elements",
    );

    let tj = limits(Limits::DEFAULT.with_max_type_json_len(8));
    assert!(prog("\"dynamic\"")
        .decode_json_with(br#"{"type":"string","value":"x"}"#, &Bump::new(), &tj)
        .is_ok());
    let e = json_err_with(
        "\"dynamic\"",
        br#"{"type":["list","bool"],"value":[]}"#,
        &tj,
    );
    assert_err(
        &e,
        ErrorKind::Limit,
        8,
        "",
        "type JSON of 15 bytes exceeds max_type_json_len (8)",
    );

    let types = limits(Limits::DEFAULT.with_max_dynamic_types(1));
    let p = prog(r#"["tuple",["dynamic","dynamic"]]"#);
    let bump = Bump::new();
    let input = br#"[{"type":"string","value":"x"},{"type":"bool","value":true}]"#;
    let e = p.decode_json_with(input, &bump, &types).unwrap_err();
    assert_err(
        &e,
        ErrorKind::Limit,
        39,
        "[1]",
        "more than max_dynamic_types (1) distinct dynamic types",
    );
}

/// Not errors: keys the input leaves out in order (a schema newer than the value), keys out
/// of order after such a gap, and indented keys (`"key" : value`) decode to the same value.
#[test]
fn gaps_out_of_order_and_indented_keys_decode() {
    let program = tfwire::Program::from_type_json(OBJ).unwrap();
    let bump = Bump::new();
    let dump = |input: &str| {
        let v = program.decode_json(input.as_bytes(), &bump).unwrap();
        tfwire::dump::to_string(&program, v).unwrap()
    };
    let want = r#"{"a":1,"b":["x"],"with space":null}"#;
    for input in [
        r#"{"a":1,"b":["x"]}"#,
        r#"{"b":["x"],"a":1}"#,
        "{\n  \"a\" : 1,\n  \"b\":\t[\"x\"]\n}",
        r#"{"b":["x"],"with space":null,"a":1}"#,
    ] {
        assert_eq!(dump(input), want, "{input}");
    }
    assert_eq!(
        dump(r#"{"with space":{"k":"v"}}"#),
        r#"{"a":null,"b":null,"with space":{"k":"v"}}"#
    );
}
