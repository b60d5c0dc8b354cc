//! Error kinds of the MessagePack VM about the bytes themselves, each with its exact byte
//! offset, value path (Terraform notation: `.ingress[2].cidr_blocks[0]`, `.tags["Name"]`,
//! `["with space"]`) and message: Eof, Syntax, TypeMismatch, InvalidUtf8, InvalidNumber.
//! Keys, tuples and dynamic values are in `msgpack_errors_schema.rs`; refinements, item
//! counts, trailing bytes and limits in `msgpack_errors_more.rs`.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use decode::{assert_err, err, err_with, prog};
use mp::{hex, mp};
use tfwire::{Category, DecodeOptions, ErrorKind};

const EOF: &str = "unexpected end of input";

// ---- Eof ------------------------------------------------------------------------------------

#[test]
fn eof_at_every_kind_of_position() {
    assert_err(&err("\"string\"", &[]), ErrorKind::Eof, 0, "", EOF);
    assert_err(
        &err("\"string\"", &hex("a56865")),
        ErrorKind::Eof,
        0,
        "",
        EOF,
    );
    assert_err(&err("\"number\"", &hex("cd01")), ErrorKind::Eof, 0, "", EOF);
    assert_err(
        &err("\"number\"", &hex("cb3ff8")),
        ErrorKind::Eof,
        0,
        "",
        EOF,
    );
    assert_err(
        &err(r#"["list","number"]"#, &hex("9201cd01")),
        ErrorKind::Eof,
        2,
        "[1]",
        EOF,
    );
    assert_err(
        &err(r#"["list","number"]"#, &hex("dc00")),
        ErrorKind::Eof,
        0,
        "",
        EOF,
    );
    // A map key, then a map value.
    assert_err(
        &err(r#"["map","string"]"#, &hex("81a36b")),
        ErrorKind::Eof,
        1,
        "",
        EOF,
    );
    assert_err(
        &err(r#"["map","string"]"#, &hex("81a16b")),
        ErrorKind::Eof,
        3,
        r#"["k"]"#,
        EOF,
    );
    // An object value; a dynamic type slot; an extension body.
    let obj = err(r#"["object",{"a":"string"}]"#, &hex("81a161a378"));
    assert_err(&obj, ErrorKind::Eof, 3, ".a", EOF);
    assert_err(
        &err("\"dynamic\"", &hex("92c4082273")),
        ErrorKind::Eof,
        1,
        "",
        EOF,
    );
    let e = err("\"dynamic\"", &hex("92"));
    assert_err(
        &e,
        ErrorKind::Eof,
        0,
        "",
        "header claims 2 items but only 0 bytes remain",
    );
    assert_err(
        &err("\"string\"", &hex("c7050c81")),
        ErrorKind::Eof,
        0,
        "",
        EOF,
    );
    assert_err(
        &err("\"string\"", &hex("c9000000")),
        ErrorKind::Eof,
        0,
        "",
        EOF,
    );
    assert_eq!(err("\"string\"", &[]).classify(), Category::Eof);
}

#[test]
fn eof_when_a_header_claims_more_than_the_input_holds() {
    let e = err(r#"["list","number"]"#, &hex("ddffffffff01"));
    assert_err(
        &e,
        ErrorKind::Eof,
        0,
        "",
        "header claims 4294967295 items but only 1 bytes remain",
    );
    let e = err(
        r#"["map",["map","number"]]"#,
        &hex("81a16b df00010000 0102"),
    );
    let msg = "header claims 131072 items but only 2 bytes remain";
    assert_err(&e, ErrorKind::Eof, 3, r#"["k"]"#, msg);
    let e = err(r#"["object",{"a":"number"}]"#, &hex("82a16101"));
    assert_err(
        &e,
        ErrorKind::Eof,
        0,
        "",
        "header claims 4 items but only 3 bytes remain",
    );
}

// ---- Syntax ---------------------------------------------------------------------------------

#[test]
fn reserved_byte_c1_at_a_value_of_every_type() {
    let cases = [
        ("\"string\"", "string"),
        ("\"number\"", "number"),
        ("\"bool\"", "bool"),
        (r#"["list","string"]"#, "list"),
        (r#"["set","string"]"#, "set"),
        (r#"["map","string"]"#, "map"),
        (r#"["object",{"a":"string"}]"#, "object"),
        (r#"["tuple",["string"]]"#, "tuple"),
    ];
    for (ty, what) in cases {
        let msg = format!("expected {what}, found msgpack reserved byte 0xc1");
        assert_err(&err(ty, &[0xc1]), ErrorKind::Syntax, 0, "", &msg);
    }
    let e = err(r#"["list","bool"]"#, &hex("92c3c1"));
    assert_err(
        &e,
        ErrorKind::Syntax,
        2,
        "[1]",
        "expected bool, found msgpack reserved byte 0xc1",
    );
    assert_eq!(e.classify(), Category::Syntax);
}

#[test]
fn reserved_byte_c1_in_keys_and_dynamic_wrappers() {
    let e = err(r#"["map","string"]"#, &hex("81c1a178"));
    assert_err(
        &e,
        ErrorKind::Syntax,
        1,
        "",
        "map keys must be strings, found msgpack reserved byte 0xc1",
    );
    let e = err(r#"["object",{"a":"string"}]"#, &hex("81c1a178"));
    let msg = "object keys must be strings, found msgpack reserved byte 0xc1";
    assert_err(&e, ErrorKind::Syntax, 1, "", msg);
    let e = err("\"dynamic\"", &[0xc1]);
    let msg = "expected a dynamic value [type, value], found msgpack reserved byte 0xc1";
    assert_err(&e, ErrorKind::Syntax, 0, "", msg);
    let e = err("\"dynamic\"", &hex("92c1c0"));
    let msg = "dynamic value type must be JSON in bin or str, found msgpack reserved byte 0xc1";
    assert_err(&e, ErrorKind::Syntax, 1, "", msg);
}

#[test]
fn reserved_byte_c1_inside_a_skipped_attribute() {
    let p = prog(r#"["object",{"a":"number"}]"#);
    let opts = DecodeOptions::default().with_skip_unknown_attributes(true);
    let input = mp()
        .map(2)
        .s("x")
        .arr(2)
        .int(1)
        .raw(&[0xc1])
        .s("a")
        .int(1)
        .done();
    let e = err_with(&p, &input, &opts);
    assert_err(&e, ErrorKind::Syntax, 5, ".x", "reserved msgpack byte 0xc1");
    let input = mp()
        .map(2)
        .s("a")
        .int(1)
        .s("with space")
        .map(1)
        .int(1)
        .raw(&[0xc1])
        .done();
    let e = err_with(&p, &input, &opts);
    assert_err(
        &e,
        ErrorKind::Syntax,
        17,
        r#"["with space"]"#,
        "reserved msgpack byte 0xc1",
    );
    // A skipped value that runs past the end.
    let input = mp().map(1).s("x").arr(3).int(1).done();
    assert_err(&err_with(&p, &input, &opts), ErrorKind::Eof, 3, ".x", EOF);
}

// ---- TypeMismatch ---------------------------------------------------------------------------

#[test]
fn type_mismatch_names_both_sides() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "\"string\"",
            "01",
            "expected string, found msgpack positive fixint",
        ),
        (
            "\"string\"",
            "ff",
            "expected string, found msgpack negative fixint",
        ),
        ("\"string\"", "c3", "expected string, found msgpack true"),
        (
            "\"string\"",
            "90",
            "expected string, found msgpack fixarray",
        ),
        ("\"number\"", "c2", "expected number, found msgpack false"),
        ("\"number\"", "80", "expected number, found msgpack fixmap"),
        (
            "\"number\"",
            "dc0000",
            "expected number, found msgpack array16",
        ),
        ("\"bool\"", "a0", "expected bool, found msgpack fixstr"),
        ("\"bool\"", "c400", "expected bool, found msgpack bin8"),
        ("\"bool\"", "cc01", "expected bool, found msgpack uint8"),
        ("\"bool\"", "d001", "expected bool, found msgpack int8"),
        (
            "\"bool\"",
            "cb0000000000000000",
            "expected bool, found msgpack float64",
        ),
        (
            "\"bool\"",
            "ca00000000",
            "expected bool, found msgpack float32",
        ),
        (
            r#"["list","string"]"#,
            "80",
            "expected list, found msgpack fixmap",
        ),
        (
            r#"["set","string"]"#,
            "a0",
            "expected set, found msgpack fixstr",
        ),
        (
            r#"["map","string"]"#,
            "90",
            "expected map, found msgpack fixarray",
        ),
        (
            r#"["list","string"]"#,
            "de0000",
            "expected list, found msgpack map16",
        ),
        (
            r#"["object",{}]"#,
            "90",
            "expected object, found msgpack fixarray",
        ),
        (
            r#"["object",{}]"#,
            "d90161",
            "expected object, found msgpack str8",
        ),
        (
            r#"["tuple",[]]"#,
            "80",
            "expected tuple, found msgpack fixmap",
        ),
        (
            r#"["tuple",[]]"#,
            "df00000000",
            "expected tuple, found msgpack map32",
        ),
    ];
    for (ty, input, msg) in cases {
        let e = err(ty, &hex(input));
        assert_err(&e, ErrorKind::TypeMismatch, 0, "", msg);
        assert_eq!(e.classify(), Category::Data);
    }
}

#[test]
fn type_mismatch_paths_through_lists_objects_and_maps() {
    let ty = r#"["object",{"ingress":["list",["object",{"cidr_blocks":["list","string"],"from_port":"number"}]]}]"#;
    let rule = |cidr: mp::Mp| {
        mp().map(2)
            .s("cidr_blocks")
            .then(cidr)
            .s("from_port")
            .int(22)
    };
    let head = mp()
        .map(1)
        .s("ingress")
        .arr(3)
        .then(rule(mp().arr(0)))
        .then(rule(mp().arr(1).s("10.0.0.0/8")))
        .map(2)
        .s("cidr_blocks")
        .arr(1);
    let at = head.len();
    let input = head.int(10).s("from_port").int(22).done();
    let e = err(ty, &input);
    let msg = "expected string, found msgpack positive fixint";
    assert_err(
        &e,
        ErrorKind::TypeMismatch,
        at,
        ".ingress[2].cidr_blocks[0]",
        msg,
    );

    let ty = r#"["object",{"tags":["map","string"]}]"#;
    let head = mp().map(1).s("tags").map(2).s("env").s("prod").s("Name");
    let at = head.len();
    let e = err(ty, &head.int(5).done());
    assert_err(&e, ErrorKind::TypeMismatch, at, r#".tags["Name"]"#, msg);
}

#[test]
fn attribute_names_that_are_not_identifiers_are_bracketed() {
    for (name, path) in [
        ("with space", r#"["with space"]"#),
        ("1st", r#"["1st"]"#),
        ("", r#"[""]"#),
        ("é", r#"["é"]"#),
        ("quote\"d", r#"["quote\"d"]"#),
        ("foo-bar", ".foo-bar"),
        ("_x9", "._x9"),
    ] {
        let ty = format!(
            r#"["object",{{{}:"number"}}]"#,
            serde_json::to_string(name).unwrap()
        );
        let head = mp().map(1).s(name);
        let at = head.len();
        let e = err(&ty, &head.bool(true).done());
        assert_err(
            &e,
            ErrorKind::TypeMismatch,
            at,
            path,
            "expected number, found msgpack true",
        );
    }
    // Map keys are always bracketed.
    let e = err(
        r#"["map","number"]"#,
        &mp().map(1).s("ok").bool(true).done(),
    );
    assert_err(
        &e,
        ErrorKind::TypeMismatch,
        4,
        r#"["ok"]"#,
        "expected number, found msgpack true",
    );
}

#[test]
fn type_mismatch_paths_through_tuples_sets_and_dynamic_values() {
    let e = err(r#"["tuple",["string","number"]]"#, &hex("92a161c3"));
    assert_err(
        &e,
        ErrorKind::TypeMismatch,
        3,
        "[1]",
        "expected number, found msgpack true",
    );
    let e = err(r#"["set","bool"]"#, &hex("94c3c2c0 01"));
    assert_err(
        &e,
        ErrorKind::TypeMismatch,
        4,
        "[3]",
        "expected bool, found msgpack positive fixint",
    );

    // Into a dynamic value: the wrapper adds no step.
    let ty = r#"["object",{"extra":"dynamic"}]"#;
    let head = mp()
        .map(1)
        .s("extra")
        .dynamic(r#"["object",{"n":["list","number"]}]"#)
        .map(1)
        .s("n")
        .arr(2)
        .int(1);
    let at = head.len();
    let e = err(ty, &head.bool(true).done());
    assert_err(
        &e,
        ErrorKind::TypeMismatch,
        at,
        ".extra.n[1]",
        "expected number, found msgpack true",
    );

    // list(dynamic) holding a list(number).
    let head = mp()
        .arr(2)
        .nil()
        .dynamic(r#"["list","number"]"#)
        .arr(2)
        .int(1);
    let at = head.len();
    let e = err(r#"["list","dynamic"]"#, &head.s("x").done());
    assert_eq!(e.kind(), ErrorKind::InvalidNumber);
    assert_eq!((e.offset().unwrap(), e.path()), (at, "[1][1]"));

    // Everything at once.
    let ty = r#"["object",{"a b":["map",["list",["tuple",["string","dynamic"]]]]}]"#;
    let head = mp()
        .map(1)
        .s("a b")
        .map(1)
        .s("k")
        .arr(1)
        .arr(2)
        .s("s")
        .dynamic(r#"["object",{"n":["list","bool"]}]"#)
        .map(1)
        .s("n")
        .arr(3)
        .bool(true)
        .bool(false);
    let at = head.len();
    let e = err(ty, &head.int(0).done());
    let msg = "expected bool, found msgpack positive fixint";
    assert_err(
        &e,
        ErrorKind::TypeMismatch,
        at,
        r#"["a b"]["k"][0][1].n[2]"#,
        msg,
    );
}

// ---- InvalidUtf8 / InvalidNumber ------------------------------------------------------------

#[test]
fn invalid_utf8_in_strings_and_keys() {
    let msg = "string is not valid UTF-8";
    assert_err(
        &err("\"string\"", &hex("a2c328")),
        ErrorKind::InvalidUtf8,
        0,
        "",
        msg,
    );
    assert_err(
        &err("\"string\"", &hex("c403616280")),
        ErrorKind::InvalidUtf8,
        0,
        "",
        msg,
    );
    // Surrogates encoded in UTF-8 (CESU) and overlong forms are invalid.
    assert_err(
        &err("\"string\"", &hex("a3eda080")),
        ErrorKind::InvalidUtf8,
        0,
        "",
        msg,
    );
    assert_err(
        &err("\"string\"", &hex("a2c0af")),
        ErrorKind::InvalidUtf8,
        0,
        "",
        msg,
    );
    let e = err(r#"["list","string"]"#, &hex("92a0a1ff"));
    assert_err(&e, ErrorKind::InvalidUtf8, 2, "[1]", msg);
    let e = err(r#"["map","number"]"#, &hex("82a16101a1fe02"));
    assert_err(&e, ErrorKind::InvalidUtf8, 4, "", msg);
    let e = err(r#"["object",{"a":"number"}]"#, &hex("81a2c32801"));
    assert_err(&e, ErrorKind::InvalidUtf8, 1, "", msg);
    assert_eq!(e.classify(), Category::Syntax);
}

#[test]
fn invalid_numbers() {
    let e = err("\"number\"", &hex("cb7ff8000000000001"));
    assert_err(&e, ErrorKind::InvalidNumber, 0, "", "NaN is not a number");
    let e = err("\"number\"", &hex("ca7fc00000"));
    assert_err(&e, ErrorKind::InvalidNumber, 0, "", "NaN is not a number");
    for text in [
        "0x10", "", "NaN", "nan", " 1", "1 ", "1_000", "1e", "e5", ".", "+", "--1", "1.2.3",
        "Infinity", "1p99999",
    ] {
        let e = err("\"number\"", &mp().s(text).done());
        let msg = format!("{text:?} is not a valid number");
        assert_err(&e, ErrorKind::InvalidNumber, 0, "", &msg);
    }
    // Long text is cut to 40 bytes in the message.
    let long = format!("{}x", "1".repeat(60));
    let e = err("\"number\"", &mp().s(&long).done());
    let msg = format!("{:?} is not a valid number", "1".repeat(40));
    assert_err(&e, ErrorKind::InvalidNumber, 0, "", &msg);
    // In bin, nested.
    let head = mp().map(1).s("n");
    let at = head.len();
    let e = err(r#"["object",{"n":"number"}]"#, &head.bin(b"12abc").done());
    assert_err(
        &e,
        ErrorKind::InvalidNumber,
        at,
        ".n",
        r#""12abc" is not a valid number"#,
    );
}
