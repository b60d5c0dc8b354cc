//! The spec's `"dynamic"` row: a `[type JSON, value]` array whose first element is bin or
//! str (in every format), the value decoded with that type; typed nulls and unknowns; dynamic
//! values nested in dynamic values and in lists, maps and objects.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use decode::{dump, with_value};
use mp::{hex, mp};
use tfwire::{dump, Value};

// ---- "dynamic" ------------------------------------------------------------------------------

#[test]
fn dynamic_with_bin_or_str_type_json() {
    let ty = r#""dynamic""#;
    let want = r#"{"type":"string","value":"hello"}"#;
    let t = br#""string""#;
    for head in [
        mp().arr(2).bin8(t),
        mp().arr(2).bin16(t),
        mp().arr(2).bin32(t),
        mp().arr(2).s("\"string\""),
        mp().arr(2).str8(t),
        mp().arr(2).str16(t),
        mp().arr(2).str32(t),
        mp().arr16(2).bin8(t),
        mp().arr32(2).bin8(t),
    ] {
        let input = head.s("hello").done();
        assert_eq!(dump(ty, &input), want);
        with_value(ty, &input, |_, v| {
            let Value::Dynamic(d) = v else {
                panic!("{v:?}")
            };
            assert_eq!(d.program.root_type().to_string(), "\"string\"");
            assert_eq!(d.value, Value::String("hello"));
            assert_eq!(v.as_str(), Some("hello"));
        });
    }
}

#[test]
fn dynamic_of_every_concrete_type() {
    let cases: &[(&str, mp::Mp, &str)] = &[
        ("\"number\"", mp().int(7), "7"),
        ("\"bool\"", mp().bool(true), "true"),
        (
            r#"["list","string"]"#,
            mp().arr(1).s("hello"),
            r#"["hello"]"#,
        ),
        (r#"["set","number"]"#, mp().arr(2).int(1).int(1), "[1,1]"),
        (
            r#"["map","number"]"#,
            mp().map(1).s("k").int(1),
            r#"{"k":1}"#,
        ),
        (
            r#"["object",{"n":"number"}]"#,
            mp().map(1).s("n").int(7),
            r#"{"n":7}"#,
        ),
        (
            r#"["tuple",["string","bool"]]"#,
            mp().arr(2).s("a").bool(false),
            r#"["a",false]"#,
        ),
    ];
    for (t, value, want) in cases {
        let input = mp().dynamic(t).then(value.clone()).done();
        assert_eq!(
            dump("\"dynamic\"", &input),
            format!(r#"{{"type":{t},"value":{want}}}"#)
        );
    }
}

#[test]
fn dynamic_typed_null_unknown_and_dynamic_null() {
    // A typed null and a typed unknown keep their type (go-cty writes them back in their
    // wrappers), and read as null and unknown; the DUMP shows them bare. A null and an
    // unknown of type dynamic are bare values.
    let typed_null = hex("92c40822737472696e6722c0");
    with_value("\"dynamic\"", &typed_null, |_, v| {
        let Value::Dynamic(d) = v else {
            panic!("{v:?}")
        };
        assert_eq!(
            (d.value, d.program.root_type().to_json()),
            (Value::Null, "\"string\"".into())
        );
        assert!(v.is_null() && v.is_known());
    });
    assert_eq!(dump("\"dynamic\"", &typed_null), "null");
    let typed_unknown = mp().dynamic(r#"["list","string"]"#).unknown().done();
    with_value("\"dynamic\"", &typed_unknown, |_, v| {
        let Value::Dynamic(d) = v else {
            panic!("{v:?}")
        };
        assert_eq!(d.value, Value::Unknown(None));
        assert_eq!(d.program.root_type().to_json(), r#"["list","string"]"#);
        assert!(!v.is_known() && !v.is_null());
    });
    assert_eq!(dump("\"dynamic\"", &typed_unknown), r#"{"$unknown":{}}"#);
    with_value("\"dynamic\"", &[0xc0], |_, v| assert_eq!(v, Value::Null));
    assert_eq!(dump("\"dynamic\"", &[0xc0]), "null");
    assert_eq!(dump("\"dynamic\"", &hex("d40000")), r#"{"$unknown":{}}"#);
    // Unknowns inside a concrete value keep their position.
    let inner = mp()
        .dynamic(r#"["list","number"]"#)
        .arr(2)
        .int(1)
        .unknown()
        .done();
    assert_eq!(
        dump("\"dynamic\"", &inner),
        r#"{"type":["list","number"],"value":[1,{"$unknown":{}}]}"#
    );
}

/// A wrapper whose type holds `dynamic` reads through to the inner wrappers, as go-cty does
/// (`ctyoracle decode`; see also `tests/regression_dynamic_read_through.rs`).
#[test]
fn dynamic_nested_in_dynamic() {
    let input = mp()
        .dynamic("\"dynamic\"")
        .dynamic("\"number\"")
        .int(5)
        .done();
    assert_eq!(
        dump("\"dynamic\"", &input),
        r#"{"type":"number","value":5}"#
    );
    let list = mp()
        .dynamic(r#"["list","dynamic"]"#)
        .arr(2)
        .dynamic("\"string\"")
        .s("a")
        .nil()
        .done();
    assert_eq!(
        dump("\"dynamic\"", &list),
        r#"{"type":["list","string"],"value":["a",null]}"#
    );
}

#[test]
fn list_map_and_object_of_dynamic() {
    let list = mp()
        .arr(3)
        .dynamic("\"string\"")
        .s("a")
        .dynamic("\"string\"")
        .s("b")
        .unknown()
        .done();
    assert_eq!(
        dump(r#"["list","dynamic"]"#, &list),
        r#"[{"type":"string","value":"a"},{"type":"string","value":"b"},{"$unknown":{}}]"#
    );
    let map = mp()
        .map(2)
        .s("x")
        .dynamic("\"bool\"")
        .bool(true)
        .s("y")
        .nil()
        .done();
    assert_eq!(
        dump(r#"["map","dynamic"]"#, &map),
        r#"{"x":{"type":"bool","value":true},"y":null}"#
    );
    let ty = r#"["object",{"extra":"dynamic","id":"string"}]"#;
    let obj = mp()
        .map(2)
        .s("extra")
        .dynamic(r#"["object",{"n":"number"}]"#)
        .map(1)
        .s("n")
        .int(7)
        .s("id")
        .s("i-1")
        .done();
    with_value(ty, &obj, |p, v| {
        let root = p.typed(v);
        assert_eq!(
            root.attr("extra")
                .and_then(|e| e.attr("n"))
                .and_then(|n| n.value.as_i64()),
            Some(7)
        );
        assert_eq!(
            dump::to_string(p, v).unwrap(),
            r#"{"extra":{"type":["object",{"n":"number"}],"value":{"n":7}},"id":"i-1"}"#
        );
    });
}

#[test]
fn dynamic_type_json_with_optional_attributes_and_spaces() {
    let t = r#"[ "object" , { "b":"number", "a":"string" }, ["b"] ]"#;
    let input = mp().dynamic(t).map(2).s("a").s("x").s("b").nil().done();
    // The printed type is go-cty's compact form, attributes sorted, without the optional
    // markers (a value's type has none).
    assert_eq!(
        dump("\"dynamic\"", &input),
        r#"{"type":["object",{"a":"string","b":"number"}],"value":{"a":"x","b":null}}"#
    );
}
