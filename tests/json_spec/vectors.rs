//! The research doc's JSON vectors, whitespace and the single value.

use super::*;

// ---- The research doc's JSON vectors (reference-semantics.md §8, J1–J10) -------------------

#[test]
fn vector_j1_string_from_number_and_bool() {
    with_value("\"string\"", "15", |_, v| {
        assert_eq!(v, Value::String("15"))
    });
    with_value("\"string\"", "true", |_, v| {
        assert_eq!(v, Value::String("true"))
    });
}

#[test]
fn vector_j2_number_from_string_and_exponent() {
    with_value("\"number\"", r#""5""#, |_, v| {
        assert_eq!(v.as_i64(), Some(5))
    });
    assert_eq!(dump_of("\"number\"", r#""5""#), "5");
    with_value("\"number\"", "1e3", |_, v| {
        assert_eq!(v.as_i64(), Some(1000))
    });
}

#[test]
fn vector_j3_bool_from_string_not_number() {
    with_value("\"bool\"", r#""1""#, |_, v| {
        assert_eq!(v, Value::Bool(true))
    });
    // go-cty: "bool is required" (tftypes would give true; we follow go-cty).
    assert_eq!(fails("\"bool\"", "1").0, ErrorKind::TypeMismatch);
}

#[test]
fn vector_j4_empty_object_fills_nulls() {
    assert_eq!(
        dump_of(r#"["object",{"a":"string"}]"#, "{}"),
        r#"{"a":null}"#
    );
}

#[test]
fn vector_j5_unsupported_attribute() {
    let (kind, msg) = fails(
        r#"["object",{"test":"string"}]"#,
        r#"{"not-test":"test-value"}"#,
    );
    assert_eq!(
        (kind, msg.as_str()),
        (
            ErrorKind::UnknownAttribute,
            r#"unsupported attribute "not-test""#
        )
    );
}

#[test]
fn vector_j6_not_enough_tuple_elements() {
    assert_eq!(
        fails(r#"["tuple",["bool","bool"]]"#, "[true]"),
        (
            ErrorKind::WrongLength,
            "not enough tuple elements (need 2)".into()
        )
    );
}

#[test]
fn vector_j7_dynamic_either_order() {
    for input in [
        r#"{"value":true,"type":"bool"}"#,
        r#"{"type":"bool","value":true}"#,
    ] {
        assert_eq!(
            dump_of("\"dynamic\"", input),
            r#"{"type":"bool","value":true}"#
        );
    }
}

#[test]
fn vector_j8_dynamic_missing_type_and_extra_key() {
    assert_eq!(
        fails("\"dynamic\"", r#"{"value":true}"#).1,
        "missing type in dynamically-typed value"
    );
    assert_eq!(
        fails("\"dynamic\"", r#"{"value":true,"type":"bool","x":1}"#).1,
        r#"invalid key "x" in dynamically-typed value"#
    );
}

#[test]
fn vector_j9_list_of_dynamic() {
    with_value(
        r#"["list","dynamic"]"#,
        r#"[{"value":true,"type":"bool"},{"value":false,"type":"bool"}]"#,
        |_, v| {
            let e = v.elements().unwrap();
            assert_eq!(e.len(), 2);
            for (x, want) in e.iter().zip([true, false]) {
                let Value::Dynamic(d) = x else {
                    panic!("{x:?}")
                };
                assert_eq!(d.program.root_type(), &Type::Bool);
                assert_eq!(d.value, Value::Bool(want));
            }
        },
    );
}

/// J10 is about go-cty's JSON *marshal* (unknowns and infinities cannot be written); the
/// decoder's side of it: JSON has no unknown values, and an infinity arrives only as the
/// number string go-cty's `ParseNumberVal` accepts.
#[test]
fn vector_j10_no_unknowns_and_infinity_only_as_a_string() {
    assert_eq!(fails("\"number\"", "Infinity").0, ErrorKind::Syntax);
    assert_eq!(dump_of("\"number\"", r#""+Inf""#), r#""+Inf""#);
    // Whatever the input, a JSON decode never yields an unknown.
    with_value(r#"["list","string"]"#, r#"["$unknown",null]"#, |_, v| {
        assert!(v.elements().unwrap().iter().all(|e| e.is_known()))
    });
}

// ---- Whitespace and the single value ------------------------------------------------------

#[test]
fn whitespace_between_every_token() {
    let ty = r#"["object",{"a":["list","number"],"m":["map","bool"],"d":"dynamic","t":["tuple",["string"]]}]"#;
    let tight = r#"{"a":[1,2],"m":{"k":true},"d":{"value":"x","type":"string"},"t":["s"]}"#;
    let want = dump_of(ty, tight);
    // Whitespace of every kind around every structural character (none inside a string).
    let mut loose = String::new();
    let mut in_string = false;
    for c in tight.chars() {
        let structural = !in_string && "{}[],:".contains(c);
        if structural {
            loose.push_str(" \t\r\n");
        }
        loose.push(c);
        if structural {
            loose.push_str("\n ");
        }
        if c == '"' {
            in_string = !in_string;
        }
    }
    assert_eq!(dump_of(ty, &loose), want, "{loose}");
    // Trailing whitespace is fine; a second value is not.
    assert_eq!(dump_of("\"number\"", "1 \n\t\r"), "1");
    assert_eq!(fails("\"number\"", "1 2").0, ErrorKind::TrailingBytes);
}
