//! The JSON rows of the wire-format spec (`Schema.Attribute` and `Schema.NestedBlock` mapping
//! rules for JSON), DESIGN.md §4's JSON points (missing attributes null, unknown ones an
//! error unless skipped, duplicate keys an error, go-cty's coercions, `{"type","value"}` in
//! either order), and the research doc's JSON vectors J1–J10, each with its exact value.

#[path = "support/decode.rs"]
mod decode;

use bumpalo::Bump;
use decode::{json_err_with, prog, ALL_TYPES};
use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
use tfwire::{dump, DecodeOptions, ErrorKind, Number, Program, Type, Value};

/// The DUMP of `input` decoded as `ty`.
#[track_caller]
fn dump_of(ty: &str, input: &str) -> String {
    let p = prog(ty);
    let bump = Bump::new();
    match p.decode_json(input.as_bytes(), &bump) {
        Ok(v) => dump::to_string(&p, v).unwrap(),
        Err(e) => panic!("{ty} {input}: {e}"),
    }
}

/// The error kind and message decoding `input` as `ty`.
#[track_caller]
fn fails(ty: &str, input: &str) -> (ErrorKind, String) {
    fails_with(ty, input, &DecodeOptions::default())
}

#[track_caller]
fn fails_with(ty: &str, input: &str, options: &DecodeOptions) -> (ErrorKind, String) {
    let e = json_err_with(ty, input.as_bytes(), options);
    (e.kind(), e.message().to_string())
}

/// Decodes and hands the value to `check`.
fn with_value(ty: &str, input: &str, check: impl FnOnce(&Program, Value<'_>)) {
    let p = prog(ty);
    let bump = Bump::new();
    let v = p
        .decode_json(input.as_bytes(), &bump)
        .unwrap_or_else(|e| panic!("{ty} {input}: {e}"));
    check(&p, v);
}

// ---- "A null value is always represented as JSON null." -----------------------------------

#[test]
fn null_is_null_for_every_type() {
    for ty in ALL_TYPES {
        with_value(ty, "null", |_, v| assert_eq!(v, Value::Null, "{ty}"));
        with_value(ty, " \n\tnull\r\n ", |_, v| {
            assert_eq!(v, Value::Null, "{ty}")
        });
    }
    // Nulls inside containers.
    assert_eq!(
        dump_of(r#"["list","string"]"#, "[null,\"a\",null]"),
        r#"[null,"a",null]"#
    );
    assert_eq!(
        dump_of(r#"["map","number"]"#, r#"{"k":null}"#),
        r#"{"k":null}"#
    );
    assert_eq!(
        dump_of(r#"["object",{"a":"bool"}]"#, r#"{"a":null}"#),
        r#"{"a":null}"#
    );
    assert_eq!(
        dump_of(r#"["tuple",["bool","string"]]"#, "[null,null]"),
        "[null,null]"
    );
    assert_eq!(dump_of(r#"["list","dynamic"]"#, "[null]"), "[null]");
}

// ---- "string": a JSON string --------------------------------------------------------------

#[test]
fn strings() {
    with_value("\"string\"", r#""hello""#, |_, v| {
        assert_eq!(v, Value::String("hello"))
    });
    with_value("\"string\"", r#""""#, |_, v| {
        assert_eq!(v, Value::String(""))
    });
    with_value("\"string\"", "\"é😀 ☃\"", |_, v| {
        assert_eq!(v, Value::String("é😀 ☃"))
    });
    // Every escape of RFC 8259.
    let input = r#""\"\\\/\b\f\n\r\t\u0041\u00e9\u2603\ud83d\ude00\u0000""#;
    with_value("\"string\"", input, |_, v| {
        assert_eq!(v, Value::String("\"\\/\u{8}\u{c}\n\r\tAé☃😀\u{0}"))
    });
    // Upper-case hex digits; an escaped slash and quote in a longer string.
    with_value("\"string\"", r#""\u00C9t\u00e9 \"x\" a\/b""#, |_, v| {
        assert_eq!(v, Value::String("Été \"x\" a/b"))
    });
    // Not NFC-normalized (DESIGN §4.4): "e" + combining acute stays two code points.
    with_value("\"string\"", "\"e\u{301}\"", |_, v| {
        assert_eq!(v, Value::String("e\u{301}"))
    });
    // DEL and other bytes >= 0x20 need no escape.
    with_value("\"string\"", "\"a\u{7f}b\"", |_, v| {
        assert_eq!(v, Value::String("a\u{7f}b"))
    });
}

#[test]
fn strings_without_escapes_borrow_from_the_input() {
    let p = prog(r#"["list","string"]"#);
    let input = br#"["plain", "caf\u00e9", "na\u00efve \u2603", "x\ny"]"#;
    let input = &input[..];
    let bump = Bump::new();
    let v = p.decode_json(input, &bump).unwrap();
    let e = v.elements().unwrap();
    let inside = |s: &str| input.as_ptr_range().contains(&s.as_ptr());
    assert_eq!(e[0], Value::String("plain"));
    assert!(inside(e[0].as_str().unwrap()), "unescaped: borrowed");
    assert_eq!(e[1], Value::String("café"));
    assert!(!inside(e[1].as_str().unwrap()), "escaped: in the arena");
    assert_eq!(e[2], Value::String("naïve ☃"));
    assert_eq!(e[3], Value::String("x\ny"));
    // Raw UTF-8 without escapes is borrowed too.
    let raw = "[\"café\"]".as_bytes();
    let v = p.decode_json(raw, &bump).unwrap();
    let s = v.index(0).unwrap().as_str().unwrap();
    assert_eq!(s, "café");
    assert!(raw.as_ptr_range().contains(&s.as_ptr()));
}

#[test]
fn long_strings_with_escapes_at_every_position() {
    // Escapes straddling the 16-byte chunks of the scanner and the unescaper.
    for len in 0..70 {
        for at in 0..len.min(40) {
            let mut text: Vec<char> = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            let mut json = String::from("\"");
            for (i, c) in text.iter().enumerate() {
                if i == at {
                    json.push_str("\\n\\u00e9");
                }
                json.push(*c);
            }
            json.push('"');
            text.insert(at, '\n');
            text.insert(at + 1, 'é');
            let want: String = text.into_iter().collect();
            let p = prog("\"string\"");
            let bump = Bump::new();
            let v = p.decode_json(json.as_bytes(), &bump).unwrap();
            assert_eq!(v, Value::String(&want), "{json}");
        }
    }
}

// ---- "number": a JSON number, arbitrary precision -----------------------------------------

#[test]
fn numbers_keep_their_exact_text() {
    with_value("\"number\"", "0", |_, v| {
        assert_eq!(v, Value::from(Number::Int(0)))
    });
    // `-0` keeps its sign (go-cty writes it back as `-0` in JSON).
    with_value("\"number\"", "-0", |_, v| {
        assert_eq!(v, Value::from(Number::Decimal("-0")))
    });
    with_value("\"number\"", "42", |_, v| {
        assert_eq!(v, Value::from(Number::Int(42)))
    });
    with_value("\"number\"", "-17", |_, v| {
        assert_eq!(v, Value::from(Number::Int(-17)))
    });
    let max = "9223372036854775807";
    with_value("\"number\"", max, |_, v| {
        assert_eq!(v, Value::from(Number::Int(i64::MAX)))
    });
    let min = "-9223372036854775808";
    with_value("\"number\"", min, |_, v| {
        assert_eq!(v, Value::from(Number::Int(i64::MIN)))
    });
    // Beyond i64, fractions and exponents: the text as received.
    for text in [
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "1.5",
        "-0.0",
        "1.50",
        "1e3",
        "1E+3",
        "2.5e-10",
        "0.1000000000000000055511151231257827021181583404541015625",
        "123456789012345678901234567890123456789012345678901234567890",
    ] {
        with_value("\"number\"", text, |_, v| {
            assert_eq!(
                v.as_number().and_then(|n| n.decimal_text()),
                Some(text),
                "{text}"
            )
        });
    }
    // The DUMP is the exact value: no rounding through f64.
    assert_eq!(dump_of("\"number\"", "1.50"), "1.50");
    assert_eq!(dump_of("\"number\"", "1E+3"), "1e+3");
    assert_eq!(
        dump_of(
            "\"number\"",
            "99999999999999999999999999.000000000000000001"
        ),
        "99999999999999999999999999.000000000000000001"
    );
    with_value("\"number\"", "1e3", |_, v| {
        assert_eq!(v.as_i64(), Some(1000))
    });
    with_value("\"number\"", "0.8", |_, v| {
        assert_eq!(v.as_f64(), Some(0.8))
    });
}

#[test]
fn bools() {
    with_value("\"bool\"", "true", |_, v| assert_eq!(v, Value::Bool(true)));
    with_value("\"bool\"", "false", |_, v| {
        assert_eq!(v, Value::Bool(false))
    });
}

// ---- list, set: JSON arrays ---------------------------------------------------------------

#[test]
fn lists_and_sets() {
    with_value(r#"["list","number"]"#, "[]", |_, v| {
        assert_eq!(v, Value::List(&[]))
    });
    with_value(r#"["set","number"]"#, "[ ]", |_, v| {
        assert_eq!(v, Value::Set(&[]))
    });
    with_value(r#"["list","number"]"#, "[1, 2 ,3]", |_, v| {
        let want = [1, 2, 3].map(|i| Value::from(Number::Int(i)));
        assert_eq!(v, Value::List(&want));
    });
    // Sets keep wire order and duplicates (DESIGN §4.4).
    with_value(r#"["set","string"]"#, r#"["b","a","b"]"#, |_, v| {
        assert_eq!(
            v,
            Value::Set(&[Value::String("b"), Value::String("a"), Value::String("b")])
        );
    });
    assert_eq!(
        dump_of(r#"["list",["list","number"]]"#, "[[1],[],[2,3]]"),
        "[[1],[],[2,3]]"
    );
    assert_eq!(
        dump_of(
            r#"["list",["set",["list","string"]]]"#,
            r#"[[["a"],[]],[],[["b","c"]]]"#
        ),
        r#"[[["a"],[]],[],[["b","c"]]]"#
    );
    // Many elements: the scratch vectors grow and the arena slice holds them all.
    let n = 10_000;
    let input = format!(
        "[{}]",
        (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    );
    with_value(r#"["list","number"]"#, &input, |_, v| {
        let e = v.elements().unwrap();
        assert_eq!(e.len(), n);
        assert!(e
            .iter()
            .enumerate()
            .all(|(i, x)| x.as_i64() == Some(i as i64)));
    });
}

// ---- map: a JSON object, any keys ---------------------------------------------------------

#[test]
fn maps() {
    with_value(r#"["map","string"]"#, "{}", |_, v| {
        assert_eq!(v, Value::Map(&[]))
    });
    with_value(
        r#"["map","string"]"#,
        r#"{"b":"x","a":"y","":"z"}"#,
        |_, v| {
            assert_eq!(
                v,
                Value::Map(&[
                    ("b", Value::String("x")),
                    ("a", Value::String("y")),
                    ("", Value::String("z"))
                ])
            );
        },
    );
    // Keys with escapes are unescaped; keys of any form, non-identifiers included.
    with_value(
        r#"["map","number"]"#,
        r#"{"caf\u00e9":1,"with space":2,"a\"b":3}"#,
        |_, v| {
            assert_eq!(v.map_get("café").and_then(|x| x.as_i64()), Some(1));
            assert_eq!(v.map_get("with space").and_then(|x| x.as_i64()), Some(2));
            assert_eq!(v.map_get("a\"b").and_then(|x| x.as_i64()), Some(3));
        },
    );
    // Duplicate keys are kept; lookups and the DUMP see the last (DESIGN §4.4, go-cty).
    with_value(r#"["map","number"]"#, r#"{"a":1,"b":2,"a":3}"#, |_, v| {
        assert_eq!(v.entries().unwrap().len(), 3);
        assert_eq!(v.map_get("a").and_then(|x| x.as_i64()), Some(3));
    });
    assert_eq!(
        dump_of(r#"["map","number"]"#, r#"{"a":1,"b":2,"a":3}"#),
        r#"{"a":3,"b":2}"#
    );
    // Maps of containers and maps in maps.
    assert_eq!(
        dump_of(
            r#"["map",["map",["list","number"]]]"#,
            r#"{"x":{"p":[1],"q":[]},"y":{}}"#
        ),
        r#"{"x":{"p":[1],"q":[]},"y":{}}"#
    );
}

// ---- object: a JSON object, one property per attribute ------------------------------------

#[test]
fn objects_any_key_order() {
    let ty = r#"["object",{"a":"string","b":"number","c":["list","bool"]}]"#;
    let want = r#"{"a":"x","b":1,"c":[true]}"#;
    for input in [
        r#"{"a":"x","b":1,"c":[true]}"#,
        r#"{"c":[true],"b":1,"a":"x"}"#,
        r#"{"b":1,"c":[true],"a":"x"}"#,
        r#" { "c" : [ true ] , "a" : "x" , "b" : 1 } "#,
    ] {
        assert_eq!(dump_of(ty, input), want, "{input}");
    }
    // Attribute names that need escapes on the wire, and an escaped spelling of a plain one.
    let ty = r#"["object",{"a\"b":"number","café":"number","plain":"number"}]"#;
    assert_eq!(
        dump_of(ty, r#"{"a\"b":1,"caf\u00e9":2,"pl\u0061in":3}"#),
        r#"{"a\"b":1,"café":2,"plain":3}"#
    );
    assert_eq!(
        dump_of(ty, r#"{"café":2}"#),
        r#"{"a\"b":null,"café":2,"plain":null}"#
    );
}

#[test]
fn objects_missing_attributes_are_null_always() {
    let ty = r#"["object",{"a":"string","b":["list","number"],"c":"dynamic"}]"#;
    assert_eq!(dump_of(ty, "{}"), r#"{"a":null,"b":null,"c":null}"#);
    assert_eq!(dump_of(ty, r#"{"b":[]}"#), r#"{"a":null,"b":[],"c":null}"#);
    // `missing_attributes_null: false` is a MessagePack option: JSON still reads null.
    let p = prog(ty);
    let bump = Bump::new();
    let strict = DecodeOptions::default().with_missing_attributes_null(false);
    let v = p.decode_json_with(b"{}", &bump, &strict).unwrap();
    assert_eq!(
        dump::to_string(&p, v).unwrap(),
        r#"{"a":null,"b":null,"c":null}"#
    );
}

#[test]
fn objects_unknown_attributes_fail_or_are_skipped() {
    let ty = r#"["object",{"id":"string"}]"#;
    let input = r#"{"extra":{"deep":[1,{"x":"\u00e9"}],"s":"}"},"id":"i-1","more":[[],{}]}"#;
    assert_eq!(
        fails(ty, input),
        (
            ErrorKind::UnknownAttribute,
            r#"unsupported attribute "extra""#.into()
        )
    );
    let skip = DecodeOptions::default().with_skip_unknown_attributes(true);
    let p = prog(ty);
    let bump = Bump::new();
    let v = p.decode_json_with(input.as_bytes(), &bump, &skip).unwrap();
    assert_eq!(dump::to_string(&p, v).unwrap(), r#"{"id":"i-1"}"#);
    // A skipped value must still be JSON.
    assert_eq!(
        fails_with(ty, r#"{"x":[1,],"id":"a"}"#, &skip).0,
        ErrorKind::Syntax
    );
    assert_eq!(
        fails_with(ty, r#"{"x":"\q","id":"a"}"#, &skip).0,
        ErrorKind::InvalidUtf8
    );
}

#[test]
fn objects_duplicate_keys_are_an_error() {
    // go-cty keeps the last; DESIGN §4.1 makes it an error.
    let ty = r#"["object",{"a":"number","b":"number"}]"#;
    let dup = (
        ErrorKind::DuplicateKey,
        r#"duplicate attribute "a""#.to_string(),
    );
    assert_eq!(fails(ty, r#"{"a":1,"a":2}"#), dup);
    assert_eq!(fails(ty, r#"{"b":1,"a":1,"a":2}"#), dup);
    assert_eq!(fails(ty, r#"{"a":1,"b":1,"a":2}"#), dup);
    assert_eq!(fails(ty, r#"{"a":1,"\u0061":2}"#), dup);
}

#[test]
fn objects_with_many_attributes_in_every_order() {
    let names: Vec<String> = (0..70).map(|i| format!("attr_{i:02}")).collect();
    let ty = format!(
        r#"["object",{{{}}}]"#,
        names
            .iter()
            .map(|n| format!(r#""{n}":"number""#))
            .collect::<Vec<_>>()
            .join(",")
    );
    for order in 0..3 {
        let mut idx: Vec<usize> = (0..70).collect();
        match order {
            0 => {}
            1 => idx.reverse(),
            _ => idx.sort_by_key(|i| (i * 37) % 70),
        }
        let input = format!(
            "{{{}}}",
            idx.iter()
                .map(|&i| format!(r#""{}":{i}"#, names[i]))
                .collect::<Vec<_>>()
                .join(",")
        );
        with_value(&ty, &input, |p, v| {
            let t = p.typed(v);
            for (i, n) in names.iter().enumerate() {
                assert_eq!(t.attr(n).unwrap().value.as_i64(), Some(i as i64));
            }
        });
        // The same with one key repeated at the end.
        let dup = format!("{},\"{}\":0}}", &input[..input.len() - 1], names[idx[0]]);
        assert_eq!(fails(&ty, &dup).0, ErrorKind::DuplicateKey);
    }
}

// ---- tuple: a JSON array of exactly the type's length -------------------------------------

#[test]
fn tuples() {
    let ty = r#"["tuple",["string","number",["list","bool"]]]"#;
    assert_eq!(dump_of(ty, r#"["a",1,[true]]"#), r#"["a",1,[true]]"#);
    assert_eq!(dump_of(ty, r#"[null,null,null]"#), "[null,null,null]");
    assert_eq!(dump_of(r#"["tuple",[]]"#, "[]"), "[]");
    assert_eq!(
        dump_of(
            r#"["tuple",[["tuple",["string","number"]],"bool"]]"#,
            r#"[["a",1],true]"#
        ),
        r#"[["a",1],true]"#
    );
    let too_many = (
        ErrorKind::WrongLength,
        "too many tuple elements (need 3)".to_string(),
    );
    let not_enough = (
        ErrorKind::WrongLength,
        "not enough tuple elements (need 3)".to_string(),
    );
    assert_eq!(fails(ty, r#"["a",1,[],2]"#), too_many);
    assert_eq!(fails(ty, r#"["a",1]"#), not_enough);
    // `[]` for a non-empty tuple is an error (go-cty JSON agrees).
    assert_eq!(fails(ty, "[]"), not_enough);
    assert_eq!(
        fails(r#"["tuple",[]]"#, "[1]").1,
        "too many tuple elements (need 0)"
    );
}

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

// ---- Schema.NestedBlock mapping rules for JSON --------------------------------------------

fn rule() -> Block {
    Block::new()
        .attribute("port", Attribute::new(Type::Number))
        .attribute("proto", Attribute::new(Type::String))
}

fn resource(mode: NestingMode) -> Program {
    let block = Block::new()
        .attribute("name", Attribute::new(Type::String))
        .block("rule", NestedBlock::new(mode, rule()));
    Program::from_block(&block).unwrap()
}

fn block_dump(p: &Program, input: &str) -> String {
    let bump = Bump::new();
    let v = p
        .decode_json(input.as_bytes(), &bump)
        .unwrap_or_else(|e| panic!("{input}: {e}"));
    dump::to_string(p, v).unwrap()
}

#[test]
fn nested_blocks() {
    let r1 = r#"{"port":80,"proto":"tcp"}"#;
    let r2 = r#"{"proto":"udp","port":53}"#;
    let n1 = r#"{"port":80,"proto":"tcp"}"#;
    let n2 = r#"{"port":53,"proto":"udp"}"#;
    // SINGLE and GROUP: the block value or null.
    for mode in [NestingMode::Single, NestingMode::Group] {
        let p = resource(mode);
        assert_eq!(
            block_dump(&p, &format!(r#"{{"name":"a","rule":{r1}}}"#)),
            format!(r#"{{"name":"a","rule":{n1}}}"#)
        );
        assert_eq!(
            block_dump(&p, r#"{"name":"a","rule":null}"#),
            r#"{"name":"a","rule":null}"#
        );
    }
    // LIST and SET: arrays of block values.
    for mode in [NestingMode::List, NestingMode::Set] {
        let p = resource(mode);
        let input = format!(r#"{{"rule":[{r1},{r2}],"name":"a"}}"#);
        assert_eq!(
            block_dump(&p, &input),
            format!(r#"{{"name":"a","rule":[{n1},{n2}]}}"#)
        );
        assert_eq!(
            block_dump(&p, r#"{"name":"a","rule":[]}"#),
            r#"{"name":"a","rule":[]}"#
        );
    }
    // MAP: an object of label → block value.
    let p = resource(NestingMode::Map);
    let input = format!(r#"{{"name":"a","rule":{{"web":{r1},"dns":{r2}}}}}"#);
    assert_eq!(
        block_dump(&p, &input),
        format!(r#"{{"name":"a","rule":{{"dns":{n2},"web":{n1}}}}}"#)
    );
    // A missing block attribute reads as null in JSON.
    assert_eq!(
        block_dump(&p, r#"{"name":"a"}"#),
        r#"{"name":"a","rule":null}"#
    );
}

#[test]
fn list_blocks_with_dynamic_content_are_dynamic_on_the_wire() {
    let inner = Block::new().attribute("v", Attribute::new(Type::Dynamic));
    let block = Block::new().block("items", NestedBlock::new(NestingMode::List, inner));
    let p = Program::from_block(&block).unwrap();
    let input = r#"{"items":{"value":[{"v":{"value":1,"type":"number"}}],"type":["tuple",[["object",{"v":"dynamic"}]]]}}"#;
    // go-cty writes a value's concrete type; given `dynamic` inside, it reads through to the
    // inner wrappers (ctyoracle decode).
    assert_eq!(
        block_dump(&p, input),
        r#"{"items":{"type":["tuple",[["object",{"v":"number"}]]],"value":[{"v":1}]}}"#
    );
}

#[test]
fn block_item_counts_when_checked() {
    let block = Block::new().block(
        "rule",
        NestedBlock::new(NestingMode::List, rule()).items(1, 2),
    );
    let p = Program::from_block(&block).unwrap();
    let bump = Bump::new();
    let checked = DecodeOptions::default().with_check_item_counts(true);
    let r = r#"{"port":1,"proto":"tcp"}"#;
    // Unchecked by default (go-cty does not check).
    assert!(p.decode_json(br#"{"rule":[]}"#, &bump).is_ok());
    assert!(p
        .decode_json_with(format!(r#"{{"rule":[{r}]}}"#).as_bytes(), &bump, &checked)
        .is_ok());
    let e = p
        .decode_json_with(br#"{"rule":[]}"#, &bump, &checked)
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset().unwrap()),
        (ErrorKind::ItemCount, ".rule", 8)
    );
    assert_eq!(e.message(), "at least 1 blocks are required (0 given)");
    let three = format!(r#"{{"rule":[{r},{r},{r}]}}"#);
    let e = p
        .decode_json_with(three.as_bytes(), &bump, &checked)
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset().unwrap()),
        (ErrorKind::ItemCount, ".rule", 8)
    );
    assert_eq!(e.message(), "at most 2 blocks are allowed (3 given)");
    // A null block list is not counted.
    assert!(p
        .decode_json_with(br#"{"rule":null}"#, &bump, &checked)
        .is_ok());
}

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
