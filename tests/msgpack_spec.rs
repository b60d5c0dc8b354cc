//! The MessagePack rows of the wire-format spec (`terraform-object-wire-format.txt`), one
//! test per row: every primitive in every msgpack encoding, the collection and structural
//! types, and null at every kind. Values are asserted exactly, through `Value` accessors or
//! the canonical DUMP. Dynamic values are in `msgpack_dynamic.rs`, unknowns and refinements
//! in `msgpack_unknown.rs`, nested blocks in `msgpack_blocks.rs`, the research vectors in
//! `msgpack_vectors.rs`.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use decode::{dump, with_value, ALL_TYPES};
use mp::{hex, mp};
use tfwire::{dump, Number, Value};

/// The number `input` decodes to, checked against `want`, and its DUMP.
fn number(input: &[u8], want: Number<'_>, want_dump: &str) {
    with_value("\"number\"", input, |p, v| {
        assert_eq!(v, Value::from(want), "{input:02x?}");
        assert_eq!(dump::to_string(p, v).unwrap(), want_dump, "{input:02x?}");
    });
}

// ---- "string" -------------------------------------------------------------------------------

#[test]
fn string_in_every_str_and_bin_format() {
    let text = "hello";
    let cases = [
        ("fixstr", mp().s(text).done()),
        ("str8", mp().str8(text.as_bytes()).done()),
        ("str16", mp().str16(text.as_bytes()).done()),
        ("str32", mp().str32(text.as_bytes()).done()),
        ("bin8", mp().bin8(text.as_bytes()).done()),
        ("bin16", mp().bin16(text.as_bytes()).done()),
        ("bin32", mp().bin32(text.as_bytes()).done()),
    ];
    for (name, input) in cases {
        with_value("\"string\"", &input, |_, v| {
            assert_eq!(v, Value::String("hello"), "{name}");
        });
    }
    assert_eq!(hex("a568656c6c6f"), mp().s(text).done());
}

#[test]
fn string_format_boundaries_and_empty() {
    for n in [0usize, 1, 31, 32, 255, 256, 65535, 65536] {
        let text = "x".repeat(n);
        let input = mp().s(&text).done();
        let header = match n {
            0..=31 => 0xa0 | n as u8,
            32..=255 => 0xd9,
            256..=65535 => 0xda,
            _ => 0xdb,
        };
        assert_eq!(input[0], header, "n={n}");
        with_value("\"string\"", &input, |_, v| {
            assert_eq!(v.as_str(), Some(&*text))
        });
    }
}

#[test]
fn string_utf8_is_kept_byte_for_byte() {
    for text in ["héllo", "日本語", "emoji 🦀", "tab\tnl\n\"q\"", "\u{0}"] {
        with_value("\"string\"", &mp().s(text).done(), |_, v| {
            assert_eq!(v, Value::String(text));
        });
    }
    // The DUMP escapes as JSON.
    assert_eq!(
        dump("\"string\"", &mp().s("a\"b\\c\n").done()),
        r#""a\"b\\c\n""#
    );
}

#[test]
fn string_borrows_from_the_input() {
    let input = mp().str16(b"borrowed").done();
    with_value("\"string\"", &input, |_, v| {
        let s = v.as_str().unwrap();
        let range = input.as_ptr_range();
        assert!(
            range.contains(&s.as_ptr()),
            "the string is not a slice of the input"
        );
    });
}

// ---- "number" -------------------------------------------------------------------------------

#[test]
fn number_fixints() {
    number(&[0x00], Number::Int(0), "0");
    number(&[0x01], Number::Int(1), "1");
    number(&[0x7f], Number::Int(127), "127");
    number(&[0xff], Number::Int(-1), "-1");
    number(&[0xe0], Number::Int(-32), "-32");
}

#[test]
fn number_unsigned_formats() {
    number(&hex("cc 00"), Number::UInt(0), "0");
    number(&hex("cc ff"), Number::UInt(255), "255");
    number(&hex("cd 01bb"), Number::UInt(443), "443");
    number(&hex("cd ffff"), Number::UInt(65535), "65535");
    number(&hex("ce ffffffff"), Number::UInt(4294967295), "4294967295");
    number(
        &hex("cf 7fffffffffffffff"),
        Number::UInt(i64::MAX as u64),
        "9223372036854775807",
    );
    number(
        &hex("cf ffffffffffffffff"),
        Number::UInt(u64::MAX),
        "18446744073709551615",
    );
}

#[test]
fn number_signed_formats() {
    number(&hex("d0 7f"), Number::Int(127), "127");
    number(&hex("d0 df"), Number::Int(-33), "-33");
    number(&hex("d0 80"), Number::Int(-128), "-128");
    number(&hex("d1 8000"), Number::Int(-32768), "-32768");
    number(&hex("d1 0001"), Number::Int(1), "1");
    number(
        &hex("d2 80000000"),
        Number::Int(i32::MIN as i64),
        "-2147483648",
    );
    number(
        &hex("d3 8000000000000000"),
        Number::Int(i64::MIN),
        "-9223372036854775808",
    );
    number(&hex("d3 ffffffffffffffff"), Number::Int(-1), "-1");
}

#[test]
fn number_float32_is_widened_exactly() {
    // 0.1f32 is exactly 0.100000001490116119384765625; the f64 holds that value exactly.
    let input = hex("ca 3dcccccd");
    with_value("\"number\"", &input, |p, v| {
        let n = v.as_number().unwrap();
        assert_eq!(n, Number::Float(0.1f32 as f64));
        assert_eq!(
            format!("{:.30}", n.as_f64()),
            "0.100000001490116119384765625000"
        );
        assert_ne!(n.as_f64(), 0.1);
        assert_eq!(dump::to_string(p, v).unwrap(), "0.10000000149011612");
    });
    number(&mp().f32(1.5).done(), Number::Float(1.5), "1.5");
    number(&mp().f32(-0.0).done(), Number::Float(-0.0), "-0");
    number(
        &mp().f32(f32::INFINITY).done(),
        Number::Float(f64::INFINITY),
        "\"+Inf\"",
    );
}

#[test]
fn number_float64() {
    number(&hex("cb 3ff8000000000000"), Number::Float(1.5), "1.5");
    number(&mp().f64(0.1).done(), Number::Float(0.1), "0.1");
    number(&mp().f64(-2.5e-3).done(), Number::Float(-0.0025), "-0.0025");
    number(&mp().f64(3.0).done(), Number::Float(3.0), "3");
    number(
        &hex("cb 7ff0000000000000"),
        Number::Float(f64::INFINITY),
        "\"+Inf\"",
    );
    number(
        &hex("cb fff0000000000000"),
        Number::Float(f64::NEG_INFINITY),
        "\"-Inf\"",
    );
    let tiny = format!("0.{}5", "0".repeat(323));
    number(&hex("cb 0000000000000001"), Number::Float(5e-324), &tiny);
    with_value("\"number\"", &mp().f64(3.0).done(), |_, v| {
        assert_eq!(v.as_i64(), Some(3))
    });
}

#[test]
fn number_decimal_text_in_str() {
    let cases: &[(&str, &str)] = &[
        ("0.8", "0.8"),
        ("42", "42"),
        ("-7", "-7"),
        ("1e3", "1e3"),
        ("1E3", "1e3"),
        ("Inf", "\"+Inf\""),
        ("inf", "\"+Inf\""),
        ("+Inf", "\"+Inf\""),
        ("-Inf", "\"-Inf\""),
        (".5", "0.5"),
        ("-.5", "-0.5"),
        ("+5", "5"),
        ("5.", "5"),
        ("007", "7"),
        ("1p4", "16"),
        ("3p-2", "0.75"),
        ("1.50", "1.50"),
        ("18446744073709551615", "18446744073709551615"),
        ("9223372036854775808", "9223372036854775808"),
    ];
    for (text, want) in cases {
        let input = mp().s(text).done();
        with_value("\"number\"", &input, |p, v| {
            assert_eq!(v, Value::from(Number::Decimal(text)), "{text}");
            assert_eq!(v.as_number().unwrap().decimal_text(), Some(*text));
            assert_eq!(dump::to_string(p, v).unwrap(), *want, "{text}");
        });
    }
    with_value("\"number\"", &mp().s("1e3").done(), |_, v| {
        assert_eq!(v.as_i64(), Some(1000))
    });
    with_value("\"number\"", &mp().s("1p4").done(), |_, v| {
        assert_eq!(v.as_i64(), Some(16))
    });
    with_value("\"number\"", &mp().s("-Inf").done(), |_, v| {
        assert_eq!(v.as_f64(), Some(f64::NEG_INFINITY))
    });
}

#[test]
fn number_decimal_text_in_every_str_and_bin_format() {
    let t = b"123.25";
    for input in [
        mp().str8(t).done(),
        mp().str16(t).done(),
        mp().str32(t).done(),
        mp().bin8(t).done(),
        mp().bin16(t).done(),
        mp().bin32(t).done(),
    ] {
        number(&input, Number::Decimal("123.25"), "123.25");
    }
}

#[test]
fn number_decimal_text_is_never_rounded() {
    let nines = "9".repeat(100);
    number(&mp().s(&nines).done(), Number::Decimal(&nines), &nines);
    let long = format!("0.{}", "1".repeat(400));
    number(&mp().s(&long).done(), Number::Decimal(&long), &long);
}

// ---- "bool" ---------------------------------------------------------------------------------

#[test]
fn bool_true_false_null_unknown() {
    with_value("\"bool\"", &[0xc3], |_, v| assert_eq!(v, Value::Bool(true)));
    with_value("\"bool\"", &[0xc2], |_, v| {
        assert_eq!(v, Value::Bool(false))
    });
    assert_eq!(dump("\"bool\"", &[0xc3]), "true");
    assert_eq!(dump("\"bool\"", &[0xc2]), "false");
    assert_eq!(dump("\"bool\"", &[0xc0]), "null");
    assert_eq!(dump("\"bool\"", &hex("d40000")), r#"{"$unknown":{}}"#);
}

// ---- collections ----------------------------------------------------------------------------

#[test]
fn list_in_every_array_format() {
    let three = |head: mp::Mp| head.int(1).int(2).int(3).done();
    for input in [
        three(mp().arr(3)),
        three(mp().arr16(3)),
        three(mp().arr32(3)),
    ] {
        with_value(r#"["list","number"]"#, &input, |p, v| {
            assert!(matches!(v, Value::List(e) if e.len() == 3));
            assert_eq!(v.index(2).and_then(|e| e.as_i64()), Some(3));
            assert_eq!(dump::to_string(p, v).unwrap(), "[1,2,3]");
        });
    }
    assert_eq!(dump(r#"["list","number"]"#, &[0x90]), "[]");
    assert_eq!(dump(r#"["list","number"]"#, &hex("dc0000")), "[]");
    assert_eq!(dump(r#"["list","number"]"#, &hex("dd00000000")), "[]");
}

#[test]
fn list_of_sixteen_uses_array16() {
    let mut b = mp().arr(16);
    assert_eq!(b.0, hex("dc0010"));
    for i in 0..16 {
        b = b.s(&i.to_string());
    }
    with_value(r#"["list","string"]"#, &b.done(), |_, v| {
        assert_eq!(v.len(), Some(16));
        assert_eq!(v.index(15).and_then(|e| e.as_str()), Some("15"));
    });
}

#[test]
fn list_elements_may_be_null_or_unknown() {
    let input = mp().arr(3).s("a").nil().unknown().done();
    with_value(r#"["list","string"]"#, &input, |p, v| {
        let e = v.elements().unwrap();
        assert_eq!(e, &[Value::String("a"), Value::Null, Value::Unknown(None)]);
        assert_eq!(
            dump::to_string(p, v).unwrap(),
            r#"["a",null,{"$unknown":{}}]"#
        );
    });
}

#[test]
fn set_is_an_array_in_wire_order() {
    let input = mp().arr(3).s("b").s("a").s("c").done();
    with_value(r#"["set","string"]"#, &input, |p, v| {
        assert!(matches!(v, Value::Set(_)));
        assert_eq!(dump::to_string(p, v).unwrap(), r#"["b","a","c"]"#);
    });
    assert_eq!(dump(r#"["set","number"]"#, &hex("dc0000")), "[]");
}

#[test]
fn map_in_every_map_format_with_str_or_bin_keys() {
    let body = |head: mp::Mp| head.s("b").int(2).bin(b"a").int(1).done();
    for input in [body(mp().map(2)), body(mp().map16(2)), body(mp().map32(2))] {
        with_value(r#"["map","number"]"#, &input, |p, v| {
            // Entries keep wire order; the DUMP sorts keys.
            let entries = v.entries().unwrap();
            assert_eq!(entries[0].0, "b");
            assert_eq!(entries[1], ("a", Value::from(Number::Int(1))));
            assert_eq!(v.map_get("b").and_then(|e| e.as_i64()), Some(2));
            assert_eq!(dump::to_string(p, v).unwrap(), r#"{"a":1,"b":2}"#);
        });
    }
    assert_eq!(dump(r#"["map","string"]"#, &[0x80]), "{}");
    assert_eq!(
        dump(r#"["map","string"]"#, &hex("81a86772656574696e67c0")),
        r#"{"greeting":null}"#
    );
}

#[test]
fn map_keys_may_be_any_string_including_empty_and_non_identifiers() {
    let input = mp()
        .map(3)
        .s("")
        .int(0)
        .s("with space")
        .int(1)
        .s("ключ")
        .int(2)
        .done();
    assert_eq!(
        dump(r#"["map","number"]"#, &input),
        r#"{"":0,"with space":1,"ключ":2}"#
    );
}

#[test]
fn object_with_sorted_or_unsorted_keys() {
    let ty = r#"["object",{"id":"string","port":"number","tags":["map","string"]}]"#;
    let sorted = mp()
        .map(3)
        .s("id")
        .s("i-1")
        .s("port")
        .int(443)
        .s("tags")
        .map(0)
        .done();
    let shuffled = mp()
        .map(3)
        .s("tags")
        .map(0)
        .s("port")
        .int(443)
        .s("id")
        .s("i-1")
        .done();
    for input in [sorted, shuffled] {
        with_value(ty, &input, |p, v| {
            assert_eq!(v.attr(p, "port").and_then(|x| x.as_i64()), Some(443));
            assert_eq!(v.attr(p, "id").and_then(|x| x.as_str()), Some("i-1"));
            assert_eq!(v.attr(p, "nope"), None);
            assert_eq!(
                dump::to_string(p, v).unwrap(),
                r#"{"id":"i-1","port":443,"tags":{}}"#
            );
        });
    }
    let map16 = mp().map16(1).s("a").bool(true).done();
    assert_eq!(dump(r#"["object",{"a":"bool"}]"#, &map16), r#"{"a":true}"#);
    let map32 = mp().map32(1).str8(b"a").bool(false).done();
    assert_eq!(dump(r#"["object",{"a":"bool"}]"#, &map32), r#"{"a":false}"#);
}

#[test]
fn empty_object_and_empty_tuple_types() {
    assert_eq!(dump(r#"["object",{}]"#, &[0x80]), "{}");
    assert_eq!(dump(r#"["tuple",[]]"#, &[0x90]), "[]");
}

#[test]
fn object_attributes_named_like_anything() {
    let ty = r#"["object",{"with space":"number","":"bool","é":"string"}]"#;
    let input = mp()
        .map(3)
        .s("é")
        .s("x")
        .s("")
        .bool(true)
        .s("with space")
        .int(1)
        .done();
    assert_eq!(dump(ty, &input), r#"{"":true,"with space":1,"é":"x"}"#);
}

#[test]
fn tuple_of_mixed_types() {
    let ty = r#"["tuple",["string","number","bool",["list","string"]]]"#;
    let input = mp().arr(4).s("a").int(-5).bool(true).arr(1).s("x").done();
    with_value(ty, &input, |p, v| {
        assert!(matches!(v, Value::Tuple(e) if e.len() == 4));
        assert_eq!(v.index(1).and_then(|e| e.as_i64()), Some(-5));
        assert_eq!(dump::to_string(p, v).unwrap(), r#"["a",-5,true,["x"]]"#);
    });
    let in_array16 = mp().arr16(2).s("a").nil().done();
    assert_eq!(
        dump(r#"["tuple",["string","number"]]"#, &in_array16),
        r#"["a",null]"#
    );
}

#[test]
fn deeply_composed_types() {
    let ty =
        r#"["map",["list",["object",{"n":"number","t":["tuple",["string",["set","bool"]]]}]]]"#;
    let input = mp()
        .map(1)
        .s("k")
        .arr(2)
        .map(2)
        .s("n")
        .int(1)
        .s("t")
        .arr(2)
        .s("x")
        .arr(2)
        .bool(true)
        .bool(true)
        .map(2)
        .s("t")
        .nil()
        .s("n")
        .unknown()
        .done();
    assert_eq!(
        dump(ty, &input),
        r#"{"k":[{"n":1,"t":["x",[true,true]]},{"n":{"$unknown":{}},"t":null}]}"#
    );
}

// ---- null at every kind ---------------------------------------------------------------------

#[test]
fn null_at_every_kind() {
    for ty in ALL_TYPES {
        with_value(ty, &[0xc0], |p, v| {
            assert_eq!(v, Value::Null, "{ty}");
            assert!(v.is_null());
            assert_eq!(dump::to_string(p, v).unwrap(), "null");
        });
        // Nested: as an element, a map value, an attribute and a tuple element.
        let list = format!(r#"["list",{ty}]"#);
        assert_eq!(dump(&list, &hex("91c0")), "[null]", "{ty}");
        let map = format!(r#"["map",{ty}]"#);
        assert_eq!(dump(&map, &hex("81a16bc0")), r#"{"k":null}"#, "{ty}");
        let obj = format!(r#"["object",{{"a":{ty}}}]"#);
        assert_eq!(dump(&obj, &hex("81a161c0")), r#"{"a":null}"#, "{ty}");
        let tuple = format!(r#"["tuple",[{ty},"bool"]]"#);
        assert_eq!(dump(&tuple, &hex("92c0c0")), "[null,null]", "{ty}");
    }
}
