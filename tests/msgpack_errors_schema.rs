//! Error kinds of the MessagePack VM about the data's fit to the type, each with its exact
//! byte offset, value path and message: UnknownAttribute, MissingAttribute, DuplicateKey,
//! InvalidKey, WrongLength, InvalidDynamic, InvalidType, InconsistentTypes.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use decode::{assert_err, err};
use mp::{hex, mp};
use tfwire::{Category, ErrorKind};

// ---- Object keys ----------------------------------------------------------------------------

#[test]
fn unknown_attribute() {
    let e = err(r#"["object",{"a":"number"}]"#, &hex("81a16301"));
    assert_err(
        &e,
        ErrorKind::UnknownAttribute,
        1,
        "",
        r#"unsupported attribute "c""#,
    );
    assert_eq!(e.classify(), Category::Data);
    let ty = r#"["object",{"rule":["list",["object",{"port":"number"}]]}]"#;
    let head = mp()
        .map(1)
        .s("rule")
        .arr(2)
        .map(1)
        .s("port")
        .int(1)
        .map(2)
        .s("port")
        .int(2);
    let at = head.len();
    let e = err(ty, &head.s("with space").int(3).done());
    assert_err(
        &e,
        ErrorKind::UnknownAttribute,
        at,
        ".rule[1]",
        r#"unsupported attribute "with space""#,
    );
}

#[test]
fn missing_attribute() {
    let ab = r#"["object",{"a":"number","b":"number"}]"#;
    assert_err(
        &err(ab, &hex("80")),
        ErrorKind::MissingAttribute,
        0,
        "",
        r#"attribute "a" is required"#,
    );
    let e = err(ab, &hex("81a16101"));
    assert_err(
        &e,
        ErrorKind::MissingAttribute,
        0,
        "",
        r#"attribute "b" is required"#,
    );
    let e = err(ab, &hex("81a16201"));
    assert_err(
        &e,
        ErrorKind::MissingAttribute,
        0,
        "",
        r#"attribute "a" is required"#,
    );
    // Out of order: the first missing attribute in name order.
    let abc = r#"["object",{"a":"number","b":"number","c":"number"}]"#;
    let e = err(abc, &mp().map(2).s("c").int(1).s("a").int(1).done());
    assert_err(
        &e,
        ErrorKind::MissingAttribute,
        0,
        "",
        r#"attribute "b" is required"#,
    );
    let ty = r#"["list",["object",{"x":"bool","y":"bool"}]]"#;
    let head = mp().arr(2).map(2).s("x").nil().s("y").nil();
    let at = head.len();
    let e = err(ty, &head.map(1).s("x").bool(true).done());
    assert_err(
        &e,
        ErrorKind::MissingAttribute,
        at,
        "[1]",
        r#"attribute "y" is required"#,
    );
}

#[test]
fn duplicate_key() {
    let ab = r#"["object",{"a":"number","b":"number"}]"#;
    let e = err(ab, &hex("82a16101a16102"));
    assert_err(
        &e,
        ErrorKind::DuplicateKey,
        4,
        ".a",
        r#"duplicate attribute "a""#,
    );
    // After out-of-order keys, and in a one-attribute object.
    let abc = r#"["object",{"a":"number","b":"number","c":"number"}]"#;
    let input = mp().map(3).s("b").int(1).s("a").int(2).s("b").int(3).done();
    assert_err(
        &err(abc, &input),
        ErrorKind::DuplicateKey,
        7,
        ".b",
        r#"duplicate attribute "b""#,
    );
    let input = mp().map(2).s("c").int(1).s("c").int(2).done();
    assert_err(
        &err(abc, &input),
        ErrorKind::DuplicateKey,
        4,
        ".c",
        r#"duplicate attribute "c""#,
    );
    let e = err(
        r#"["map",["object",{"a":"bool"}]]"#,
        &hex("81a16b82a161c3a161c2"),
    );
    assert_err(
        &e,
        ErrorKind::DuplicateKey,
        7,
        r#"["k"].a"#,
        r#"duplicate attribute "a""#,
    );
}

#[test]
fn invalid_key() {
    let m = r#"["map","number"]"#;
    let e = err(m, &hex("810102"));
    assert_err(
        &e,
        ErrorKind::InvalidKey,
        1,
        "",
        "map keys must be strings, found msgpack positive fixint",
    );
    let e = err(m, &hex("81c001"));
    assert_err(
        &e,
        ErrorKind::InvalidKey,
        1,
        "",
        "map keys must be strings, found msgpack nil",
    );
    let e = err(m, &hex("82a16101d40000 01"));
    assert_err(
        &e,
        ErrorKind::InvalidKey,
        4,
        "",
        "map keys must be strings, found msgpack ext",
    );
    let e = err(r#"["object",{"a":"number"}]"#, &hex("810102"));
    let msg = "object keys must be strings, found msgpack positive fixint";
    assert_err(&e, ErrorKind::InvalidKey, 1, "", msg);
    let e = err(
        r#"["object",{"tags":["map","string"]}]"#,
        &hex("81a47461677381c3a0"),
    );
    assert_err(
        &e,
        ErrorKind::InvalidKey,
        7,
        ".tags",
        "map keys must be strings, found msgpack true",
    );
}

// ---- Tuples and dynamic values --------------------------------------------------------------

#[test]
fn wrong_length() {
    let e = err(r#"["tuple",["string"]]"#, &hex("90"));
    assert_err(
        &e,
        ErrorKind::WrongLength,
        0,
        "",
        "a tuple of length 1 is required (0 given)",
    );
    let e = err(r#"["tuple",["string","bool"]]"#, &hex("93a0c3c3"));
    assert_err(
        &e,
        ErrorKind::WrongLength,
        0,
        "",
        "a tuple of length 2 is required (3 given)",
    );
    let e = err(r#"["tuple",[]]"#, &hex("91c0"));
    assert_err(
        &e,
        ErrorKind::WrongLength,
        0,
        "",
        "a tuple of length 0 is required (1 given)",
    );
    let ty = r#"["object",{"t":"dynamic"}]"#;
    let head = mp().map(1).s("t").dynamic(r#"["tuple",["number"]]"#);
    let at = head.len();
    let e = err(ty, &head.arr(2).int(1).int(2).done());
    assert_err(
        &e,
        ErrorKind::WrongLength,
        at,
        ".t",
        "a tuple of length 1 is required (2 given)",
    );
}

#[test]
fn invalid_dynamic() {
    let d = "\"dynamic\"";
    let two = "dynamic value array must have exactly two elements";
    assert_err(
        &err(d, &hex("91c0")),
        ErrorKind::InvalidDynamic,
        0,
        "",
        &format!("{two} (1 given)"),
    );
    assert_err(
        &err(d, &hex("90")),
        ErrorKind::InvalidDynamic,
        0,
        "",
        &format!("{two} (0 given)"),
    );
    let e = err(d, &hex("93c0c0c0"));
    assert_err(
        &e,
        ErrorKind::InvalidDynamic,
        0,
        "",
        &format!("{two} (3 given)"),
    );
    let e = err(d, &hex("dc0005c0c0c0c0c0"));
    assert_err(
        &e,
        ErrorKind::InvalidDynamic,
        0,
        "",
        &format!("{two} (5 given)"),
    );
    let found = "expected a dynamic value [type, value], found msgpack";
    assert_err(
        &err(d, &hex("a178")),
        ErrorKind::InvalidDynamic,
        0,
        "",
        &format!("{found} fixstr"),
    );
    assert_err(
        &err(d, &hex("c3")),
        ErrorKind::InvalidDynamic,
        0,
        "",
        &format!("{found} true"),
    );
    assert_err(
        &err(d, &hex("81a161c0")),
        ErrorKind::InvalidDynamic,
        0,
        "",
        &format!("{found} fixmap"),
    );
    let slot = "dynamic value type must be JSON in bin or str, found msgpack";
    assert_err(
        &err(d, &hex("9201c0")),
        ErrorKind::InvalidDynamic,
        1,
        "",
        &format!("{slot} positive fixint"),
    );
    assert_err(
        &err(d, &hex("92c0c0")),
        ErrorKind::InvalidDynamic,
        1,
        "",
        &format!("{slot} nil"),
    );
    let e = err(r#"["map","dynamic"]"#, &hex("81a17891c0"));
    assert_err(
        &e,
        ErrorKind::InvalidDynamic,
        3,
        r#"["x"]"#,
        &format!("{two} (1 given)"),
    );
}

#[test]
fn invalid_type() {
    let d = "\"dynamic\"";
    let e = err(d, &mp().dynamic("\"foo\"").nil().done());
    assert_err(
        &e,
        ErrorKind::InvalidType,
        1,
        "",
        r#"invalid dynamic type: invalid primitive type name "foo""#,
    );
    let e = err(
        d,
        &mp()
            .dynamic(r#"["object",{"a":"string"},["z"]]"#)
            .nil()
            .done(),
    );
    let msg =
        r#"invalid dynamic type: optional attribute "z" is not an attribute of the object type"#;
    assert_err(&e, ErrorKind::InvalidType, 1, "", msg);
    let e = err(d, &mp().dynamic(r#"["frob","string"]"#).nil().done());
    let msg = r#"invalid dynamic type: invalid complex type kind name "frob""#;
    assert_err(&e, ErrorKind::InvalidType, 1, "", msg);
    let e = err(d, &mp().dynamic("").nil().done());
    let msg = "invalid dynamic type: invalid type JSON: EOF while parsing a value";
    assert_err(&e, ErrorKind::InvalidType, 1, "", msg);
    let e = err(d, &mp().arr(2).bin(&[0xff, 0xfe]).nil().done());
    assert_eq!(
        (e.kind(), e.offset().unwrap()),
        (ErrorKind::InvalidType, 1),
        "{e}"
    );
    let ty = r#"["object",{"extra":"dynamic"}]"#;
    let head = mp().map(1).s("extra").arr(2);
    let at = head.len();
    let e = err(ty, &head.s("null").nil().done());
    assert_err(
        &e,
        ErrorKind::InvalidType,
        at,
        ".extra",
        "invalid dynamic type: invalid type description",
    );
}

#[test]
fn inconsistent_types() {
    let input = mp()
        .arr(3)
        .dynamic("\"string\"")
        .s("a")
        .nil()
        .dynamic("\"number\"")
        .int(1)
        .done();
    let e = err(r#"["list","dynamic"]"#, &input);
    let msg = r#"elements have different types: "string" and "number""#;
    assert_err(&e, ErrorKind::InconsistentTypes, 0, "", msg);
    let e = err(r#"["set","dynamic"]"#, &input);
    assert_err(&e, ErrorKind::InconsistentTypes, 0, "", msg);
    let ty = r#"["object",{"m":["map","dynamic"]}]"#;
    let head = mp().map(1).s("m");
    let at = head.len();
    let input = head
        .map(2)
        .s("x")
        .dynamic(r#"["list","string"]"#)
        .arr(0)
        .s("y")
        .dynamic(r#"["set","string"]"#)
        .arr(0)
        .done();
    let e = err(ty, &input);
    let msg = r#"elements have different types: ["list","string"] and ["set","string"]"#;
    assert_err(&e, ErrorKind::InconsistentTypes, at, ".m", msg);
}
