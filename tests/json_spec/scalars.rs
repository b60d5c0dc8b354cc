//! Nulls, strings and numbers.

use super::*;

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
