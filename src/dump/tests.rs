//! Unit tests of the DUMP: strings and objects against serde_json's rendering, the fast checks
//! against byte loops, maps sorted or not.

use super::*;

/// Strings with escapes of every kind at every spacing, against serde_json's rendering.
#[test]
fn escaped_strings_equal_serde_json() {
    let pieces = [
        "a",
        "plain run ",
        "\"",
        "\\",
        "\n",
        "\u{1}",
        "\u{1f}",
        "\u{8}",
        "\u{c}",
        "é",
        "\t",
        "\r",
        "<&>",
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    // (Under Miri every third length: with the 16-byte blocks, every residue is met.)
    for len in (0..crate::test_rng::rounds(120, 70)).step_by(crate::test_rng::rounds(1, 3)) {
        for _ in 0..crate::test_rng::rounds(20, 1) {
            let mut s = String::new();
            while s.len() < len {
                crate::test_rng::next(&mut x);
                s.push_str(pieces[(x % pieces.len() as u64) as usize]);
            }
            let mut out = String::from("before ");
            write_string(&mut out, &s);
            assert_eq!(
                out,
                format!("before {}", serde_json::to_string(&s).unwrap())
            );
        }
    }
}

/// The object fast path (key blocks, short values written unchecked) against serde_json's
/// rendering of the same object: strings of every length to 70 with and without a byte to
/// escape, integers at both ends, bools, nulls, a name that needs escaping and names whose
/// quoted form passes the 32-byte block, appended after existing text.
#[test]
fn objects_equal_serde_json() {
    let names = [
        "a",
        "b\"q",
        "c_31_bytes_long_name_abcdefghij",
        "d_32_bytes_long_name_abcdefghijk",
        "e_a_name_well_past_the_32_byte_block",
        "f",
        "g",
        "h",
    ];
    let fields: Vec<String> = names
        .iter()
        .map(|n| {
            let ty = match *n {
                "f" => "\"number\"",
                "g" => "\"bool\"",
                "h" => "[\"list\",\"string\"]",
                _ => "\"string\"",
            };
            format!("{}:{ty}", serde_json::to_string(n).unwrap())
        })
        .collect();
    let program =
        Program::from_type_json(&format!("[\"object\",{{{}}}]", fields.join(","))).unwrap();
    let mut sorted = names.to_vec();
    sorted.sort();
    let ints = [0i64, 7, -1, 1 << 40, i64::MIN, i64::MAX];
    let empty = Program::from_type_json("[\"object\",{}]").unwrap();
    let mut got = String::from("…");
    write(
        &mut got,
        &empty,
        Value::Object(Object::new(empty.root(), &[])),
    )
    .unwrap();
    assert_eq!(got, "…{}");
    // An object of another program is an error, not `{}` nor a part of its attributes.
    let other = Program::from_type_json(r#"["list",["object",{"a":"string"}]]"#).unwrap();
    let attrs = [Value::String("x")];
    let foreign = Value::Object(Object::new(other.root(), &attrs));
    let e = to_string(&empty, foreign).unwrap_err();
    assert_eq!(
        e.to_string(),
        "at (root): an object of another program (not one this program decoded or built)"
    );
    let e = to_string(&program, Value::List(&[foreign])).unwrap_err();
    assert_eq!(e.path(), "[0]");
    for len in (0..70usize).step_by(crate::test_rng::rounds(1, 13)) {
        for special in [None, Some(0), Some(len / 2)] {
            let mut text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            if let (Some(at), true) = (special, len > 0) {
                text[at] = b"\"\\\n"[len % 3];
            }
            let text = String::from_utf8(text).unwrap();
            let list = [Value::String(&text), Value::Null];
            let values: Vec<Value<'_>> = sorted
                .iter()
                .map(|n| match *n {
                    "f" => Value::Int(ints[len % ints.len()]),
                    "g" => Value::Bool(len % 2 == 0),
                    "h" => Value::List(&list),
                    _ if len % 7 == 3 => Value::Null,
                    _ => Value::String(&text),
                })
                .collect();
            let mut want = serde_json::Map::new();
            for (n, v) in sorted.iter().zip(&values) {
                let json = match v {
                    Value::String(s) => serde_json::json!(s),
                    Value::Int(i) => serde_json::json!(i),
                    Value::Bool(b) => serde_json::json!(b),
                    Value::List(_) => serde_json::json!([text, null]),
                    _ => serde_json::Value::Null,
                };
                want.insert(n.to_string(), json);
            }
            let mut got = String::from("…");
            write(
                &mut got,
                &program,
                Value::Object(Object::new(program.root(), &values)),
            )
            .unwrap();
            let want = format!("…{}", serde_json::Value::Object(want));
            assert_eq!(got, want, "len {len}, {special:?}");
        }
    }
}

/// Every length to 70 with a special byte (or none) at every position, against a byte
/// loop; and escaping against serde_json's.
#[test]
fn first_special_equals_the_byte_loop() {
    let specials = [b'"', b'\\', 0x00, 0x1f, b'\n'];
    let plain = [
        b'a', b' ', 0x20, b'~', 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']',
    ];
    for len in (0..70usize).step_by(crate::test_rng::rounds(1, 9)) {
        let base: Vec<u8> = (0..len).map(|i| plain[i % plain.len()]).collect();
        assert_eq!(first_special(&base), len, "len {len}");
        for at in (0..len).step_by(crate::test_rng::rounds(1, 11)) {
            for &sp in &specials {
                let mut b = base.clone();
                b[at] = sp;
                let naive = b.iter().position(|&c| is_special(c)).unwrap_or(len);
                assert_eq!(first_special(&b), naive, "len {len}, {sp:#x} at {at}");
                assert_eq!(naive, at);
                let s = String::from_utf8_lossy(&b).into_owned();
                let mut out = String::new();
                write_string(&mut out, &s);
                assert_eq!(out, serde_json::to_string(&s).unwrap(), "{s:?}");
            }
        }
    }
}

#[test]
fn word_check_matches_bytes() {
    for b in 0..=255u8 {
        for pos in 0..8 {
            let mut w = [b'x'; 8];
            w[pos] = b;
            assert_eq!(
                word_has_special(u64::from_le_bytes(w)),
                is_special(b),
                "{b:#x}"
            );
        }
    }
}

#[test]
fn maps_sorted_or_not() {
    let program = Program::from_type_json(r#"["map","number"]"#).unwrap();
    let bump = bumpalo::Bump::new();
    for (json, want) in [
        (r#"{"a":1,"b":2}"#, r#"{"a":1,"b":2}"#),
        (r#"{"b":2,"a":1}"#, r#"{"a":1,"b":2}"#),
    ] {
        let v = program.decode_json(json.as_bytes(), &bump).unwrap();
        assert_eq!(to_string(&program, v).unwrap(), want);
    }
}
