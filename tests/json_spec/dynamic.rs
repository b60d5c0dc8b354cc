//! Dynamic values (`{"type": T, "value": V}`) and go-cty's coercions.

use super::*;

// ---- dynamic: {"type": T, "value": V} -----------------------------------------------------

#[test]
fn dynamic_in_either_key_order() {
    for input in [
        r#"{"type":"string","value":"hello"}"#,
        r#"{"value":"hello","type":"string"}"#,
        r#" { "value" : "hello" , "type" : "string" } "#,
    ] {
        with_value("\"dynamic\"", input, |_, v| {
            let Value::Dynamic(d) = v else {
                panic!("{v:?}")
            };
            assert_eq!(d.program.root_type(), &Type::String);
            assert_eq!(d.value, Value::String("hello"));
        });
    }
    // Containers, nested dynamics, either order at each level. The wrapper's type holds
    // `dynamic`, so the value reads through to the inner wrapper (ctyoracle decode).
    let want =
        r#"{"type":["object",{"a":"bool","b":["list","number"]}],"value":{"a":true,"b":[1,2]}}"#;
    for input in [
        r#"{"type":["object",{"a":"dynamic","b":["list","number"]}],"value":{"a":{"type":"bool","value":true},"b":[1,2]}}"#,
        r#"{"value":{"a":{"value":true,"type":"bool"},"b":[1,2]},"type":["object",{"a":"dynamic","b":["list","number"]}]}"#,
        r#"{"value":{"b":[1,2],"a":{"type":"bool","value":true}},"type":["object",{"b":["list","number"],"a":"dynamic"}]}"#,
    ] {
        assert_eq!(dump_of("\"dynamic\"", input), want, "{input}");
    }
    // A value-first wrapper inside a list, followed by more elements.
    assert_eq!(
        dump_of(
            r#"["list","dynamic"]"#,
            r#"[{"value":[1,[2]],"type":["tuple",["number",["list","number"]]]},null]"#
        ),
        r#"[{"type":["tuple",["number",["list","number"]]],"value":[1,[2]]},null]"#
    );
    // The type's program is cached by the exact type JSON, shared by every wrapper.
    with_value(
        r#"["list","dynamic"]"#,
        r#"[{"value":1,"type":"number"},{"type":"number","value":2}]"#,
        |_, v| {
            let e = v.elements().unwrap();
            let (Value::Dynamic(a), Value::Dynamic(b)) = (e[0], e[1]) else {
                panic!()
            };
            assert!(std::ptr::eq(a.program, b.program));
        },
    );
}

#[test]
fn dynamic_nulls() {
    // `"value": null` is a null that keeps its type (go-cty writes it back in a wrapper; the
    // DUMP shows it bare); a JSON null is a null of type dynamic.
    let typed_null = |ty: &'static str| {
        move |_: &Program, v: Value<'_>| {
            assert!(v.is_null());
            let Value::Dynamic(d) = v else {
                panic!("{v:?}")
            };
            assert_eq!(d.value, Value::Null);
            assert_eq!(d.program.root_type().to_json(), ty);
        }
    };
    with_value(
        "\"dynamic\"",
        r#"{"value":null,"type":"string"}"#,
        typed_null("\"string\""),
    );
    with_value(
        "\"dynamic\"",
        r#"{"type":["list","string"],"value":null}"#,
        typed_null(r#"["list","string"]"#),
    );
    with_value("\"dynamic\"", "null", |_, v| assert_eq!(v, Value::Null));
}

#[test]
fn dynamic_malformed_wrappers() {
    let d = "\"dynamic\"";
    let invalid = |m: &str| (ErrorKind::InvalidDynamic, m.to_string());
    assert_eq!(
        fails(d, "{}"),
        invalid("missing type in dynamically-typed value")
    );
    assert_eq!(
        fails(d, r#"{"value":true}"#),
        invalid("missing type in dynamically-typed value")
    );
    assert_eq!(
        fails(d, r#"{"type":"bool"}"#),
        invalid("missing value in dynamically-typed value")
    );
    let extra = invalid(r#"invalid key "x" in dynamically-typed value"#);
    assert_eq!(fails(d, r#"{"x":1,"type":"bool","value":true}"#), extra);
    assert_eq!(fails(d, r#"{"type":"bool","x":1,"value":true}"#), extra);
    assert_eq!(fails(d, r#"{"value":true,"type":"bool","x":1}"#), extra);
    assert_eq!(fails(d, r#"{"type":"bool","value":true,"x":1}"#), extra);
    assert_eq!(
        fails(d, r#"{"Type":"bool","value":true}"#),
        invalid(r#"invalid key "Type" in dynamically-typed value"#)
    );
    let dup = |k: &str| {
        (
            ErrorKind::DuplicateKey,
            format!("duplicate key {k:?} in dynamically-typed value"),
        )
    };
    assert_eq!(
        fails(d, r#"{"type":"bool","type":"bool","value":true}"#),
        dup("type")
    );
    assert_eq!(
        fails(d, r#"{"value":true,"value":true,"type":"bool"}"#),
        dup("value")
    );
    assert_eq!(
        fails(d, r#"{"type":"bool","value":true,"value":true}"#),
        dup("value")
    );
    assert_eq!(
        fails(d, r#"{"value":true,"type":"bool","type":"bool"}"#),
        dup("type")
    );
    // Not an object at all.
    let not = invalid(r#"expected a dynamic value {"type": T, "value": V}, found JSON string"#);
    assert_eq!(fails(d, r#""x""#), not);
    assert_eq!(fails(d, "[1]").0, ErrorKind::InvalidDynamic);
    assert_eq!(fails(d, "1").0, ErrorKind::InvalidDynamic);
    // A bad type, and a value that does not fit the type.
    assert_eq!(
        fails(d, r#"{"type":"strin","value":"x"}"#),
        (
            ErrorKind::InvalidType,
            r#"invalid dynamic type: invalid primitive type name "strin""#.into()
        )
    );
    assert_eq!(
        fails(d, r#"{"type":null,"value":"x"}"#).0,
        ErrorKind::InvalidType
    );
    assert_eq!(
        fails(d, r#"{"value":"x","type":["list"]}"#).0,
        ErrorKind::InvalidType
    );
    assert_eq!(
        fails(d, r#"{"value":"x","type":"bool"}"#),
        (
            ErrorKind::TypeMismatch,
            r#"expected bool, found JSON string "x""#.into()
        )
    );
}

#[test]
fn dynamic_collections_need_one_concrete_type() {
    let mixed = r#"[{"value":true,"type":"bool"},{"value":"x","type":"string"}]"#;
    let (kind, msg) = fails(r#"["list","dynamic"]"#, mixed);
    assert_eq!(kind, ErrorKind::InconsistentTypes);
    assert_eq!(msg, r#"elements have different types: "bool" and "string""#);
    assert_eq!(
        fails(r#"["set","dynamic"]"#, mixed).0,
        ErrorKind::InconsistentTypes
    );
    let map = r#"{"a":{"value":1,"type":"number"},"b":{"value":[],"type":["list","string"]}}"#;
    assert_eq!(
        fails(r#"["map","dynamic"]"#, map).0,
        ErrorKind::InconsistentTypes
    );
    // Nulls mix with anything.
    assert_eq!(
        dump_of(
            r#"["list","dynamic"]"#,
            r#"[null,{"value":1,"type":"number"},null]"#
        ),
        r#"[null,{"type":"number","value":1},null]"#
    );
    // A tuple's elements are independent.
    assert_eq!(
        dump_of(
            r#"["tuple",["dynamic","dynamic"]]"#,
            r#"[{"value":1,"type":"number"},{"value":"x","type":"string"}]"#
        ),
        r#"[{"type":"number","value":1},{"type":"string","value":"x"}]"#
    );
}

// ---- go-cty's coercions (DESIGN §4.6) -----------------------------------------------------

#[test]
fn number_from_a_json_string() {
    // Go's ParseFloat grammar, not JSON's.
    for (text, want) in [
        ("5", "5"),
        ("-5", "-5"),
        ("+5", "5"),
        ("1e3", "1e3"),
        (".5", "0.5"),
        ("5.", "5"),
        ("007", "7"),
        ("1p4", "16"),
        ("Inf", "\"+Inf\""),
        ("-inf", "\"-Inf\""),
        ("0.10", "0.10"),
    ] {
        assert_eq!(
            dump_of("\"number\"", &format!("\"{text}\"")),
            want,
            "{text}"
        );
    }
    with_value("\"number\"", r#""12""#, |_, v| {
        assert_eq!(v.as_number().and_then(|n| n.decimal_text()), Some("12"))
    });
    // With escapes: unescaped first.
    assert_eq!(dump_of("\"number\"", r#""\u0031\u0032""#), "12");
    for bad in [
        "", " 5", "5 ", "0x10", "NaN", "abc", "1e", "1_000", "Infinity",
    ] {
        assert_eq!(
            fails("\"number\"", &format!("\"{bad}\"")),
            (
                ErrorKind::InvalidNumber,
                format!("{bad:?} is not a valid number")
            ),
            "{bad}"
        );
    }
    assert_eq!(
        dump_of(r#"["list","number"]"#, r#"[1,"2",3.5,"4.5"]"#),
        "[1,2,3.5,4.5]"
    );
}

#[test]
fn bool_from_a_json_string() {
    for (text, want) in [("true", true), ("1", true), ("false", false), ("0", false)] {
        with_value("\"bool\"", &format!("\"{text}\""), |_, v| {
            assert_eq!(v, Value::Bool(want))
        });
    }
    for bad in ["TRUE", "True", "yes", "", "2", " true"] {
        assert_eq!(
            fails("\"bool\"", &format!("\"{bad}\"")),
            (
                ErrorKind::TypeMismatch,
                format!("expected bool, found JSON string {bad:?}")
            ),
            "{bad}"
        );
    }
    // Bool from a JSON number is an error (go-cty: "bool is required").
    for n in ["1", "0", "1.0"] {
        assert_eq!(
            fails("\"bool\"", n),
            (
                ErrorKind::TypeMismatch,
                "expected bool, found JSON number".into()
            )
        );
    }
}

#[test]
fn string_from_a_json_number_or_bool() {
    for text in [
        "15",
        "1.50",
        "-0",
        "1e3",
        "1E-7",
        "123456789012345678901234567890",
    ] {
        with_value("\"string\"", text, |_, v| {
            assert_eq!(v, Value::String(text))
        });
    }
    with_value("\"string\"", "true", |_, v| {
        assert_eq!(v, Value::String("true"))
    });
    with_value("\"string\"", "false", |_, v| {
        assert_eq!(v, Value::String("false"))
    });
    assert_eq!(
        dump_of(r#"["map","string"]"#, r#"{"a":1.50,"b":false}"#),
        r#"{"a":"1.50","b":"false"}"#
    );
    // The number must still be a JSON number.
    assert_eq!(fails("\"string\"", "01").0, ErrorKind::Syntax);
}

#[test]
fn other_mismatches() {
    let m = |ty: &str, input: &str, msg: &str| {
        assert_eq!(
            fails(ty, input),
            (ErrorKind::TypeMismatch, msg.to_string()),
            "{ty} {input}"
        );
    };
    m("\"number\"", "true", "expected number, found JSON bool");
    m("\"number\"", "[1]", "expected number, found JSON array");
    m("\"string\"", "{}", "expected string, found JSON object");
    m("\"bool\"", "[]", "expected bool, found JSON array");
    m(
        r#"["list","string"]"#,
        "{}",
        "expected list (a JSON array), found JSON object",
    );
    m(
        r#"["set","string"]"#,
        "\"a\"",
        "expected set (a JSON array), found JSON string",
    );
    m(
        r#"["tuple",["string"]]"#,
        "{}",
        "expected tuple (a JSON array), found JSON object",
    );
    m(
        r#"["map","string"]"#,
        "[]",
        "expected map (a JSON object), found JSON array",
    );
    m(
        r#"["object",{}]"#,
        "1",
        "expected object (a JSON object), found JSON number",
    );
}
