//! The spec's unknown values: every MessagePack extension marker and code is an unknown of
//! the position's type; code 12 carries refinements (keys 1..6), unknown refinement keys are
//! skipped, payloads of 0 or 1 bytes are plain unknowns. Refinements are kept as decoded
//! (no collapse into known values, nullness `true` included). Errors in refinements are
//! asserted exactly in `msgpack_errors.rs`.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use bumpalo::Bump;
use decode::{dump, prog, ALL_TYPES};
use mp::{hex, mp, Mp};
use tfwire::{Number, Refinements, Value};

/// The refinements `input` decodes to (`None`: an unknown without refinements).
fn refinements(ty: &str, input: &[u8], check: impl FnOnce(Option<&Refinements<'_>>)) {
    let p = prog(ty);
    let bump = Bump::new();
    match p.decode_msgpack(input, &bump) {
        Ok(Value::Unknown(r)) => check(r),
        Ok(v) => panic!("{ty} {input:02x?}: not unknown: {v:?}"),
        Err(e) => panic!("{ty} {input:02x?}: {e}"),
    }
}

/// Every extension header form, with `code` and a payload of the form's length.
fn every_ext_form(code: u8) -> Vec<(&'static str, Vec<u8>)> {
    let with = |head: &[u8], n: usize| {
        let mut v = head.to_vec();
        v.push(code);
        v.extend((0..n).map(|i| (i as u8).wrapping_mul(37)));
        v
    };
    vec![
        ("fixext1", with(&[0xd4], 1)),
        ("fixext2", with(&[0xd5], 2)),
        ("fixext4", with(&[0xd6], 4)),
        ("fixext8", with(&[0xd7], 8)),
        ("fixext16", with(&[0xd8], 16)),
        ("ext8 len 0", with(&[0xc7, 0], 0)),
        ("ext8 len 3", with(&[0xc7, 3], 3)),
        ("ext16 len 5", with(&[0xc8, 0, 5], 5)),
        ("ext32 len 6", with(&[0xc9, 0, 0, 0, 6], 6)),
        ("ext32 len 300", with(&[0xc9, 0, 0, 1, 44], 300)),
    ]
}

#[test]
fn every_ext_marker_and_code_is_an_unknown_of_every_type() {
    // Code 12 is left out: with 2+ bytes its payload must be a refinement map.
    for code in [0u8, 1, 5, 11, 13, 0x7f, 0x80, 0xff] {
        for (form, input) in every_ext_form(code) {
            for ty in ALL_TYPES {
                refinements(ty, &input, |r| {
                    assert_eq!(r, None, "{ty} {form} code {code}");
                });
                assert_eq!(dump(ty, &input), r#"{"$unknown":{}}"#);
            }
        }
    }
}

#[test]
fn unknown_inside_containers() {
    let input = mp().arr(2).unknown().raw(&hex("d5ff0102")).done();
    assert_eq!(
        dump(r#"["list","string"]"#, &input),
        r#"[{"$unknown":{}},{"$unknown":{}}]"#
    );
    let obj = mp().map(1).s("a").ext(12, &[]).done();
    assert_eq!(
        dump(r#"["object",{"a":"number"}]"#, &obj),
        r#"{"a":{"$unknown":{}}}"#
    );
}

#[test]
fn code_12_with_payload_of_length_0_or_1_is_a_plain_unknown() {
    // Any single byte is skipped, even one that could not start a map.
    for input in [
        hex("c7000c"),
        hex("d40c80"),
        hex("d40cc1"),
        hex("d40c01"),
        hex("d40cff"),
    ] {
        for ty in ALL_TYPES {
            refinements(ty, &input, |r| assert_eq!(r, None, "{ty} {input:02x?}"));
        }
    }
}

fn refined(map: Mp) -> Vec<u8> {
    mp().refined(map).done()
}

#[test]
fn refinement_key_1_nullness_alone() {
    let not_null = refined(mp().map(1).int(1).bool(false));
    assert_eq!(not_null, hex("c7030c8101c2"));
    let is_null = refined(mp().map(1).int(1).bool(true));
    for ty in ALL_TYPES.iter().filter(|t| **t != "\"dynamic\"") {
        refinements(ty, &not_null, |r| {
            let want = Refinements {
                nullness: Some(false),
                ..Default::default()
            };
            assert_eq!(r, Some(&want), "{ty}");
        });
        assert_eq!(dump(ty, &not_null), r#"{"$unknown":{"null":false}}"#);
        // Nullness true stays an unknown (no collapse into a known null).
        refinements(ty, &is_null, |r| {
            assert_eq!(r.and_then(|r| r.nullness), Some(true))
        });
        assert_eq!(dump(ty, &is_null), r#"{"$unknown":{"null":true}}"#);
    }
}

#[test]
fn refinement_key_2_string_prefix_alone() {
    let input = refined(mp().map(1).int(2).s("prefix://"));
    refinements("\"string\"", &input, |r| {
        let want = Refinements {
            string_prefix: Some("prefix://"),
            ..Default::default()
        };
        assert_eq!(r, Some(&want));
    });
    assert_eq!(
        dump("\"string\"", &input),
        r#"{"$unknown":{"prefix":"prefix://"}}"#
    );
    // The prefix may be bin, may be empty, and is not NFC-normalized.
    let bin = refined(mp().map(1).int(2).bin("e\u{301}".as_bytes()));
    refinements("\"string\"", &bin, |r| {
        assert_eq!(r.and_then(|r| r.string_prefix), Some("e\u{301}"))
    });
    let empty = refined(mp().map(1).int(2).s(""));
    assert_eq!(dump("\"string\"", &empty), r#"{"$unknown":{"prefix":""}}"#);
}

#[test]
fn refinement_keys_3_and_4_number_bounds_alone() {
    let lower = refined(mp().map(1).int(3).arr(2).int(1).bool(true));
    refinements("\"number\"", &lower, |r| {
        let want = Refinements {
            number_lower: Some((Number::Int(1), true)),
            ..Default::default()
        };
        assert_eq!(r, Some(&want));
    });
    assert_eq!(
        dump("\"number\"", &lower),
        r#"{"$unknown":{"lower":[1,true]}}"#
    );
    let upper = refined(mp().map(1).int(4).arr(2).int(5).bool(false));
    refinements("\"number\"", &upper, |r| {
        let want = Refinements {
            number_upper: Some((Number::Int(5), false)),
            ..Default::default()
        };
        assert_eq!(r, Some(&want));
    });
    assert_eq!(
        dump("\"number\"", &upper),
        r#"{"$unknown":{"upper":[5,false]}}"#
    );
}

#[test]
fn number_bounds_in_every_number_encoding() {
    let cases: Vec<(Mp, Number<'static>, &str)> = vec![
        (mp().int(-3), Number::Int(-3), "-3"),
        (mp().uint(300), Number::UInt(300), "300"),
        (mp().raw(&hex("d1fc18")), Number::Int(-1000), "-1000"),
        (mp().f32(0.5), Number::Float(0.5), "0.5"),
        (mp().f64(1.23), Number::Float(1.23), "1.23"),
        (
            mp().f64(f64::NEG_INFINITY),
            Number::Float(f64::NEG_INFINITY),
            "\"-Inf\"",
        ),
        (mp().s("1.5"), Number::Decimal("1.5"), "1.5"),
        (mp().bin(b"+7"), Number::Decimal("+7"), "7"),
        (mp().s("1e3"), Number::Decimal("1e3"), "1e3"),
    ];
    for (n, want, want_dump) in cases {
        let input = refined(mp().map(1).int(3).arr(2).then(n).bool(true));
        refinements("\"number\"", &input, |r| {
            assert_eq!(
                r.and_then(|r| r.number_lower),
                Some((want, true)),
                "{want_dump}"
            );
        });
        assert_eq!(
            dump("\"number\"", &input),
            format!(r#"{{"$unknown":{{"lower":[{want_dump},true]}}}}"#)
        );
    }
    // The bound's array may be array16 / array32.
    let arr16 = refined(mp().map(1).int(4).arr16(2).int(9).bool(true));
    assert_eq!(
        dump("\"number\"", &arr16),
        r#"{"$unknown":{"upper":[9,true]}}"#
    );
    let arr32 = refined(mp().map(1).int(4).arr32(2).int(9).bool(false));
    assert_eq!(
        dump("\"number\"", &arr32),
        r#"{"$unknown":{"upper":[9,false]}}"#
    );
}

#[test]
fn number_bounds_are_compared_exactly() {
    // Bounds that round to one f64 but are consistent are kept, not rejected.
    let max = format!("{}", f64::MAX);
    let cases: Vec<(Mp, bool, Mp, bool, &str, &str)> = vec![
        (
            mp().s("1"),
            false,
            mp().s("1.0000000000000000000001"),
            false,
            "1",
            "1.0000000000000000000001",
        ),
        (
            mp().f64(0.1),
            true,
            mp().s("0.1000000000000000055511151231257827021181583404541015625"),
            true,
            "0.1",
            "0.1000000000000000055511151231257827021181583404541015625",
        ),
        (mp().int(-5), true, mp().f64(-5.0), true, "-5", "-5"),
        (mp().s("1e3"), true, mp().uint(1000), true, "1e3", "1000"),
        (
            mp().uint(1 << 53),
            false,
            mp().s("9007199254740993"),
            true,
            "9007199254740992",
            "9007199254740993",
        ),
        (
            mp().s("-Inf"),
            false,
            mp().s("Inf"),
            false,
            r#""-Inf""#,
            r#""+Inf""#,
        ),
        (
            mp().f64(f64::MAX),
            true,
            mp().s("1e400"),
            true,
            &max,
            "1e400",
        ),
    ];
    for (lo, lo_inc, hi, hi_inc, lo_dump, hi_dump) in cases {
        let map = mp()
            .map(2)
            .int(3)
            .arr(2)
            .then(lo)
            .bool(lo_inc)
            .int(4)
            .arr(2)
            .then(hi)
            .bool(hi_inc);
        let want = format!(
            r#"{{"$unknown":{{"lower":[{lo_dump},{lo_inc}],"upper":[{hi_dump},{hi_inc}]}}}}"#
        );
        assert_eq!(dump("\"number\"", &refined(map)), want);
    }
}

#[test]
fn refinement_keys_5_and_6_length_bounds_alone() {
    let lo = refined(mp().map(1).int(5).int(2));
    let hi = refined(mp().map(1).int(6).uint(1000));
    for ty in [
        r#"["list","string"]"#,
        r#"["set","number"]"#,
        r#"["map","bool"]"#,
    ] {
        refinements(ty, &lo, |r| {
            let want = Refinements {
                length_lower: Some(2),
                ..Default::default()
            };
            assert_eq!(r, Some(&want), "{ty}");
        });
        assert_eq!(dump(ty, &lo), r#"{"$unknown":{"len_min":2}}"#);
        refinements(ty, &hi, |r| {
            assert_eq!(r.and_then(|r| r.length_upper), Some(1000))
        });
        assert_eq!(dump(ty, &hi), r#"{"$unknown":{"len_max":1000}}"#);
    }
    // Any integer format is accepted for a length.
    let u64_len = refined(mp().map(1).int(6).raw(&hex("cf0000000000000003")));
    assert_eq!(
        dump(r#"["list","string"]"#, &u64_len),
        r#"{"$unknown":{"len_max":3}}"#
    );
}

#[test]
fn refinements_together() {
    let s = refined(mp().map(2).int(1).bool(false).int(2).s("ab"));
    assert_eq!(
        dump("\"string\"", &s),
        r#"{"$unknown":{"null":false,"prefix":"ab"}}"#
    );
    let n = refined(
        mp().map(3)
            .int(1)
            .bool(false)
            .int(3)
            .arr(2)
            .int(1)
            .bool(true)
            .int(4)
            .arr(2)
            .int(5)
            .bool(true),
    );
    assert_eq!(n, hex("c70b0c8301c2039201c3049205c3"));
    refinements("\"number\"", &n, |r| {
        let want = Refinements {
            nullness: Some(false),
            number_lower: Some((Number::Int(1), true)),
            number_upper: Some((Number::Int(5), true)),
            ..Default::default()
        };
        assert_eq!(r, Some(&want));
    });
    assert_eq!(
        dump("\"number\"", &n),
        r#"{"$unknown":{"null":false,"lower":[1,true],"upper":[5,true]}}"#
    );
    // Keys in any order.
    let c = refined(mp().map(3).int(6).int(5).int(5).int(1).int(1).bool(false));
    refinements(r#"["set","string"]"#, &c, |r| {
        let want = Refinements {
            nullness: Some(false),
            length_lower: Some(1),
            length_upper: Some(5),
            ..Default::default()
        };
        assert_eq!(r, Some(&want));
    });
    assert_eq!(
        dump(r#"["set","string"]"#, &c),
        r#"{"$unknown":{"null":false,"len_min":1,"len_max":5}}"#
    );
}

#[test]
fn refinements_in_map16_map32_and_nil_payload_maps() {
    let m16 = mp().refined(mp().map16(1).int(1).bool(false)).done();
    assert_eq!(dump("\"bool\"", &m16), r#"{"$unknown":{"null":false}}"#);
    let m32 = mp().refined(mp().map32(1).int(1).bool(false)).done();
    assert_eq!(dump("\"bool\"", &m32), r#"{"$unknown":{"null":false}}"#);
    // An empty map (or nil) with the 2+ byte form: an unknown without refinements. The bytes
    // after the map in the payload are ignored, as go-cty does.
    for payload in [hex("8000"), hex("c000"), hex("80c1c1")] {
        let input = mp().ext(12, &payload).done();
        refinements("\"string\"", &input, |r| {
            assert_eq!(r, None, "{payload:02x?}")
        });
    }
}

#[test]
fn unknown_refinement_keys_are_skipped_with_their_values() {
    // Key 100 with a bool (research vector 46).
    refinements("\"bool\"", &hex("c7030c8164c2"), |r| assert_eq!(r, None));
    // Key 100 before a prefix (vector 47): go-cty misreads, the spec says skip.
    let v47 = hex("c70e0c8264c202a97072656669783a2f2f");
    assert_eq!(
        dump("\"string\"", &v47),
        r#"{"$unknown":{"prefix":"prefix://"}}"#
    );
    // Unknown keys of every integer format, with values of every shape, nested.
    let input = refined(
        mp().map(6)
            .int(0)
            .nil()
            .int(-1)
            .map(2)
            .s("x")
            .arr(3)
            .int(1)
            .f64(2.0)
            .map(0)
            .s("y")
            .ext(5, b"zz")
            .uint(7)
            .bin(&[0xff; 40])
            .raw(&hex("cf ffffffffffffffff"))
            .s("big key")
            .int(1)
            .bool(false)
            .int(99)
            .f32(1.0),
    );
    assert_eq!(dump("\"number\"", &input), r#"{"$unknown":{"null":false}}"#);
}

#[test]
fn refinements_are_not_collapsed_into_known_values() {
    // Vector 44: list(string) NotNull, length 2..2 (go-cty: a known list of 2 unknowns).
    let v44 = hex("c7070c8301c205020602");
    assert_eq!(
        dump(r#"["list","string"]"#, &v44),
        r#"{"$unknown":{"null":false,"len_min":2,"len_max":2}}"#
    );
    // Vector 45: NotNull 2 <= x <= 2 (go-cty: a known 2).
    let v45 = hex("c70b0c8301c2039202c3049202c3");
    assert_eq!(
        dump("\"number\"", &v45),
        r#"{"$unknown":{"null":false,"lower":[2,true],"upper":[2,true]}}"#
    );
    // Length 0..0 (go-cty: a known empty map).
    let zero = refined(mp().map(3).int(1).bool(false).int(5).int(0).int(6).int(0));
    assert_eq!(
        dump(r#"["map","string"]"#, &zero),
        r#"{"$unknown":{"null":false,"len_min":0,"len_max":0}}"#
    );
}

#[test]
fn dynamic_unknowns_drop_their_refinements() {
    // Vector 53; any refinement key is accepted for dynamic, then dropped.
    refinements("\"dynamic\"", &hex("c7030c8101c2"), |r| assert_eq!(r, None));
    let all = refined(
        mp().map(3)
            .int(2)
            .s("p")
            .int(3)
            .arr(2)
            .int(1)
            .bool(true)
            .int(5)
            .int(1),
    );
    refinements("\"dynamic\"", &all, |r| assert_eq!(r, None));
    // Inside a dynamic wrapper the concrete type decides.
    let typed = mp()
        .dynamic("\"string\"")
        .refined(mp().map(1).int(2).s("ab"))
        .done();
    assert_eq!(
        dump("\"dynamic\"", &typed),
        r#"{"$unknown":{"prefix":"ab"}}"#
    );
}

#[test]
fn refinements_on_object_tuple_and_bool_admit_only_nullness() {
    let input = refined(mp().map(1).int(1).bool(false));
    for ty in [
        r#"["object",{"a":"string"}]"#,
        r#"["tuple",["string"]]"#,
        r#""bool""#,
    ] {
        assert_eq!(dump(ty, &input), r#"{"$unknown":{"null":false}}"#);
    }
}

#[test]
fn refinement_payload_at_the_1024_byte_limit_is_accepted() {
    // map(1) key 2 str16(n): 1 + 1 + 3 + n bytes = 1024.
    let prefix = "p".repeat(1019);
    let input = refined(mp().map(1).int(2).s(&prefix));
    assert_eq!(input[0], 0xc8, "ext16");
    assert_eq!(u16::from_be_bytes([input[1], input[2]]), 1024);
    refinements("\"string\"", &input, |r| {
        assert_eq!(r.and_then(|r| r.string_prefix), Some(&*prefix))
    });
}

#[test]
fn non_12_payloads_of_any_size_are_ignored() {
    let big = vec![0xc1u8; 100_000];
    for code in [0u8, 11, 13] {
        let input = mp().ext(code as i8, &big).done();
        assert_eq!(input[0], 0xc9, "ext32");
        refinements("\"string\"", &input, |r| assert_eq!(r, None));
    }
}
