//! The MessagePack encoder against go-cty's own bytes: every workload's `value.msgpack` and
//! every conformance case's `i.msgpack` (go-cty's `msgpack.Marshal` output) decodes and
//! re-encodes to exactly the same bytes (typed nulls and unknowns at dynamic positions
//! included: go-cty writes them as `[type, nil]`, and tfwire's values keep that type).
//!
//! The shared checkout is `$TFWIRE_SHARED`, else `<CARGO_MANIFEST_DIR>/../shared`; its absence
//! is a skip, except in CI where it fails (`common::strict`). The in-repo conformance copy
//! always runs.

#[path = "support/cases.rs"]
mod cases;
mod common;

use std::path::Path;

use bumpalo::Bump;
use tfwire::schema::{SchemaSelector, SchemaSource};
use tfwire::{MsgpackEncoder, Program};

use cases::{case_dirs, for_each_case, read_bytes, read_text};

/// Where two byte strings first differ, for the failure message.
fn first_difference(got: &[u8], want: &[u8]) -> String {
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let show = |b: &[u8]| format!("{:02x?}", &b[at.min(b.len())..(at + 12).min(b.len())]);
    format!(
        "{} vs {} bytes, first difference at {at}: got {} want {}",
        got.len(),
        want.len(),
        show(got),
        show(want)
    )
}

/// Decodes `bytes`, re-encodes the value, and compares: the same bytes, or where they differ.
fn reencode(program: &Program, bytes: &[u8], encoder: &mut MsgpackEncoder) -> Result<(), String> {
    let bump = Bump::new();
    let value = program
        .decode_msgpack(bytes, &bump)
        .map_err(|e| format!("decode error {e}"))?;
    let mut out = Vec::new();
    encoder
        .encode(program, value, &mut out)
        .map_err(|e| format!("encode error {e}"))?;
    if out == bytes {
        return Ok(());
    }
    Err(first_difference(&out, bytes))
}

fn check_case(dir: &Path, id: u64) -> Result<(), String> {
    let schema = read_text(&dir.join(format!("{id}.schema.json")))?;
    let bytes = read_bytes(&dir.join(format!("{id}.msgpack")))?;
    let source = SchemaSource::parse(&schema).map_err(|e| format!("schema: {e}"))?;
    let program = Program::from_source(&source, &SchemaSelector::default())
        .map_err(|e| format!("schema: {e}"))?;
    reencode(&program, &bytes, &mut MsgpackEncoder::new())
}

#[test]
fn conformance_cases_reencode_to_go_cty_bytes() {
    let shared = common::shared_dir("the shared conformance cases are not run");
    let run = for_each_case(&case_dirs(shared.as_deref()), ".msgpack", check_case);
    assert!(run > 0);
}

#[test]
fn workloads_reencode_to_go_cty_bytes() {
    let Some(shared) = common::shared_dir("the shared workloads are not run") else {
        return;
    };
    let mut encoder = MsgpackEncoder::new();
    let mut run = 0;
    for entry in std::fs::read_dir(shared.join("workloads")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(bytes) = std::fs::read(dir.join("value.msgpack")) else {
            continue;
        };
        let type_json = read_text(&dir.join("type.json")).unwrap();
        let program = Program::from_type_json(&type_json).unwrap();
        if let Err(e) = reencode(&program, &bytes, &mut encoder) {
            panic!("{}: {e}", dir.display());
        }
        run += 1;
    }
    assert!(run >= 8, "{run} workloads");
}

#[test]
fn integers_take_go_cty_formats() {
    let program = Program::from_type_json(r#""number""#).unwrap();
    for (n, want) in [
        (0i64, &[0x00][..]),
        (127, &[0x7f]),
        (128, &[0xcc, 0x80]),
        (256, &[0xcd, 0x01, 0x00]),
        (65536, &[0xce, 0x00, 0x01, 0x00, 0x00]),
        (1 << 32, &[0xcf, 0, 0, 0, 1, 0, 0, 0, 0]),
        (-1, &[0xff]),
        (-32, &[0xe0]),
        (-33, &[0xd0, 0xdf]),
        (-129, &[0xd1, 0xff, 0x7f]),
        (-32769, &[0xd2, 0xff, 0xff, 0x7f, 0xff]),
        (i64::MIN, &[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]),
    ] {
        let mut out = Vec::new();
        program
            .encode_msgpack(tfwire::Value::Int(n), &mut out)
            .unwrap();
        assert_eq!(out, want, "{n}");
    }
    let mut out = Vec::new();
    program
        .encode_msgpack(tfwire::Value::Decimal("0.1"), &mut out)
        .unwrap();
    assert_eq!(out, [0xa3, b'0', b'.', b'1']);
    out.clear();
    program
        .encode_msgpack(tfwire::Value::Decimal("2.50"), &mut out)
        .unwrap();
    assert_eq!(out, [0xcb, 0x40, 0x04, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn map_keys_sorted_and_the_last_repeat_kept() {
    let program = Program::from_type_json(r#"["map","number"]"#).unwrap();
    let bump = Bump::new();
    // {"b": 1, "a": 2, "b": 3}
    let input = [0x83, 0xa1, b'b', 1, 0xa1, b'a', 2, 0xa1, b'b', 3];
    let value = program.decode_msgpack(&input, &bump).unwrap();
    let mut out = Vec::new();
    program.encode_msgpack(value, &mut out).unwrap();
    assert_eq!(out, [0x82, 0xa1, b'a', 2, 0xa1, b'b', 3]);
}

#[test]
fn a_value_of_another_type_is_an_error_with_its_path() {
    let program =
        Program::from_type_json(r#"["object",{"tags":["map","string"],"n":"number"}]"#).unwrap();
    let other =
        Program::from_type_json(r#"["object",{"tags":["map","number"],"n":"number"}]"#).unwrap();
    let bump = Bump::new();
    // {"n": 1, "tags": {"k": 5}} under the other program: a number where a string belongs.
    let input = [
        0x82, 0xa1, b'n', 1, 0xa4, b't', b'a', b'g', b's', 0x81, 0xa1, b'k', 5,
    ];
    let value = other.decode_msgpack(&input, &bump).unwrap();
    let tags = other.typed(value).attr("tags").unwrap().value;
    let mut out = Vec::new();
    let err = Program::from_type_json(r#"["map","string"]"#)
        .unwrap()
        .encode_msgpack(tags, &mut out)
        .unwrap_err();
    assert_eq!(err.path(), "[\"k\"]");
    assert_eq!(err.message(), "a string expected, found number");
    assert_eq!(
        err.to_string(),
        "at [\"k\"]: a string expected, found number"
    );
    // An object of another program's op is refused rather than written with wrong names.
    let err = program.encode_msgpack(value, &mut out).unwrap_err();
    assert_eq!(
        (err.path(), err.message()),
        ("", "an object of this program expected, found object")
    );
}

#[test]
fn refined_unknowns_reencode_as_go_cty_writes_them() {
    let bump = Bump::new();
    for (ty, bytes) in [
        // Not null, prefix "abc": 8 payload bytes, a fixext8.
        (
            r#""string""#,
            &[0xd7, 0x0c, 0x82, 0x01, 0xc2, 0x02, 0xa3, b'a', b'b', b'c'][..],
        ),
        // Number in [1, 10): 9 payload bytes, an ext8.
        (
            r#""number""#,
            &[
                0xc7, 0x09, 0x0c, 0x82, 0x03, 0x92, 0x01, 0xc3, 0x04, 0x92, 0x0a, 0xc2,
            ],
        ),
        // A list of at least 2 elements: 3 payload bytes, an ext8.
        (
            r#"["list","string"]"#,
            &[0xc7, 0x03, 0x0c, 0x81, 0x05, 0x02],
        ),
        // No refinement: the bare unknown.
        (r#""bool""#, &[0xd4, 0x00, 0x00]),
    ] {
        let program = Program::from_type_json(ty).unwrap();
        let value = program.decode_msgpack(bytes, &bump).unwrap();
        let mut out = Vec::new();
        program.encode_msgpack(value, &mut out).unwrap();
        assert_eq!(out, bytes, "{ty}");
    }
}

#[test]
fn length_bounds_past_int64_are_go_ints() {
    // (Found by the roundtrip property.) go-cty's length bounds are Go ints: an upper bound
    // past int64 (a uint64 on the wire) is no bound, a lower bound past it the largest int64;
    // neither is written as a negative number.
    let program = Program::from_type_json(r#"["list","string"]"#).unwrap();
    let bump = Bump::new();
    let mut upper = vec![0xc7, 0x0b, 0x0c, 0x81, 0x06, 0xcf];
    upper.extend_from_slice(&0xc700_0000_0000_0001u64.to_be_bytes());
    let value = program.decode_msgpack(&upper, &bump).unwrap();
    let mut out = Vec::new();
    program.encode_msgpack(value, &mut out).unwrap();
    assert_eq!(out, [0xd4, 0x00, 0x00]);
    let mut lower = vec![0xc7, 0x0b, 0x0c, 0x81, 0x05, 0xcf];
    lower.extend_from_slice(&u64::MAX.to_be_bytes());
    let value = program.decode_msgpack(&lower, &bump).unwrap();
    out.clear();
    program.encode_msgpack(value, &mut out).unwrap();
    let mut want = vec![0xc7, 0x0b, 0x0c, 0x81, 0x05, 0xcf];
    want.extend_from_slice(&(i64::MAX as u64).to_be_bytes());
    assert_eq!(out, want);
    assert!(program.decode_msgpack(&out, &bump).is_ok());
}

#[test]
fn numbers_and_nesting_past_the_bounds_are_errors() {
    let program = Program::from_type_json(r#""number""#).unwrap();
    let mut out = Vec::new();
    let err = program
        .encode_msgpack(tfwire::Value::Decimal("1e999999999"), &mut out)
        .unwrap_err();
    assert_eq!(
        err.message(),
        "1e999999999 has more than 4096 digits written out"
    );
    // A list nested deeper than the encoder writes, built by hand (on a thread with room
    // for the compiler's and the type's own recursion over 600 levels).
    let deep = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let mut ty = tfwire::Type::Bool;
            for _ in 0..600 {
                ty = tfwire::Type::List(Box::new(ty));
            }
            let deep = Program::new(&ty).unwrap();
            let bump = Bump::new();
            let mut v = tfwire::Value::Bool(true);
            for _ in 0..600 {
                v = tfwire::Value::List(bump.alloc_slice_copy(&[v]));
            }
            let mut out = Vec::new();
            let err = deep.encode_msgpack(v, &mut out).unwrap_err();
            (err.message().to_string(), err.path().to_string())
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(deep.0, "nested more than 512 levels deep");
    assert_eq!(deep.1, "[0]".repeat(512));
}

/// Naive oracle for the encoder's fast paths: the shortest MessagePack str, written byte by
/// byte.
fn naive_str(s: &str, out: &mut Vec<u8>) {
    let n = s.len();
    if n < 32 {
        out.push(0xa0 | n as u8);
    } else if n <= 0xff {
        out.extend([0xd9, n as u8]);
    } else if n <= 0xffff {
        out.push(0xda);
        out.extend((n as u16).to_be_bytes());
    } else {
        out.push(0xdb);
        out.extend((n as u32).to_be_bytes());
    }
    out.extend(s.bytes());
}

/// Naive oracle: go-cty's integer formats (non-negative values in the uint formats).
fn naive_int(i: i64, out: &mut Vec<u8>) {
    match i {
        -32..=0x7f => out.push(i as u8),
        0x80..=0xff => out.extend([0xcc, i as u8]),
        0x100..=0xffff => out.extend([&[0xcd][..], &(i as u16).to_be_bytes()].concat()),
        0x1_0000..=0xffff_ffff => out.extend([&[0xce][..], &(i as u32).to_be_bytes()].concat()),
        0x1_0000_0000.. => out.extend([&[0xcf][..], &(i as u64).to_be_bytes()].concat()),
        -128..=-33 => out.extend([0xd0, i as u8]),
        -32768..=-129 => out.extend([&[0xd1][..], &(i as i16).to_be_bytes()].concat()),
        -2_147_483_648..=-32769 => out.extend([&[0xd2][..], &(i as i32).to_be_bytes()].concat()),
        _ => out.extend([&[0xd3][..], &i.to_be_bytes()].concat()),
    }
}

/// Every length class of the encoder's unchecked writes (fixstr 0–31 from 1-, 4-, 8- and
/// 16-byte copies, str8 32–63 from 32-byte copies, longer strings, keys of 32 bytes and more
/// encoded), at attribute positions and as list elements, appended after existing bytes to a
/// buffer that starts nearly full: byte for byte what the naive writer gives.
#[test]
fn unchecked_writes_match_a_naive_writer_at_every_length() {
    let lengths = [
        0usize, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 30, 31, 32, 33, 47, 63, 64, 65, 200, 255, 256,
        65535, 65536,
    ];
    let text = |n: usize, seed: usize| -> String {
        (0..n)
            .map(|i| char::from(b'a' + ((i * 7 + seed) % 26) as u8))
            .collect()
    };
    // Keys whose encodings take 2 to 42 bytes (a name of 32 bytes or more is a str8).
    let mut names: Vec<String> = [1usize, 2, 30, 31, 32, 40]
        .iter()
        .enumerate()
        .map(|(j, &n)| format!("{}{}", char::from(b'a' + j as u8), "k".repeat(n - 1)))
        .collect();
    names.extend(["n".to_string(), "l".to_string(), "t".to_string()]);
    names.sort();
    let fields: Vec<String> = names
        .iter()
        .map(|name| {
            let ty = match name.as_str() {
                "n" => r#""number""#,
                "l" => r#"["list","string"]"#,
                "t" => r#""bool""#,
                _ => r#""string""#,
            };
            format!("{name:?}:{ty}")
        })
        .collect();
    let program =
        Program::from_type_json(&format!(r#"["object",{{{}}}]"#, fields.join(","))).unwrap();
    let ints = [
        0i64,
        127,
        128,
        255,
        256,
        65535,
        65536,
        1 << 32,
        -1,
        -32,
        -33,
        -128,
        -129,
        -32768,
        -32769,
        i64::MIN,
    ];
    let elements: Vec<String> = lengths.iter().map(|&n| text(n, n)).collect();
    let element_values: Vec<tfwire::Value<'_>> =
        elements.iter().map(|s| tfwire::Value::String(s)).collect();
    for (round, &len) in lengths.iter().enumerate() {
        let strings: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(j, _)| text(len, j))
            .collect();
        let int = ints[round % ints.len()];
        let values: Vec<tfwire::Value<'_>> = names
            .iter()
            .zip(&strings)
            .map(|(name, s)| match name.as_str() {
                "n" => tfwire::Value::Int(int),
                "l" => tfwire::Value::List(&element_values),
                "t" => tfwire::Value::Bool(round % 2 == 0),
                _ if round % 5 == 4 => tfwire::Value::Null,
                _ => tfwire::Value::String(s),
            })
            .collect();
        let object = tfwire::Value::Object(tfwire::Object::new(program.root(), &values));

        let mut want = vec![0xab; 3];
        want.push(0x80 | names.len() as u8);
        for (name, value) in names.iter().zip(&values) {
            naive_str(name, &mut want);
            match value {
                tfwire::Value::String(s) => naive_str(s, &mut want),
                tfwire::Value::Int(i) => naive_int(*i, &mut want),
                tfwire::Value::Bool(b) => want.push(0xc2 | *b as u8),
                tfwire::Value::Null => want.push(0xc0),
                tfwire::Value::List(items) => {
                    want.extend([0xdc, 0, items.len() as u8]);
                    for item in elements.iter() {
                        naive_str(item, &mut want);
                    }
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        let mut out = Vec::with_capacity(4);
        out.extend([0xab; 3]);
        program.encode_msgpack(object, &mut out).unwrap();
        assert!(
            out == want,
            "length {len}: {}",
            first_difference(&out, &want)
        );
    }
}

/// Encoder errors name their path in Terraform's notation, as decode errors do: an attribute
/// that is not an identifier as `["name"]`, a map key JSON-quoted.
#[test]
fn error_paths_in_terraform_notation() {
    let p = Program::from_type_json(r#"["object",{"a b":["map","string"]}]"#).unwrap();
    let bump = Bump::new();
    let v = p
        .decode_json(br#"{"a b":{"k\u00e9\"":"x"}}"#, &bump)
        .unwrap();
    let tfwire::Value::Object(o) = v else {
        panic!("{v:?}")
    };
    let tfwire::Value::Map(entries) = o.attrs()[0] else {
        panic!()
    };
    // The map's value swapped for a number: a string expected there.
    let bad = bump.alloc_slice_copy(&[(entries[0].0, tfwire::Value::Int(1))]);
    let attrs = bump.alloc_slice_copy(&[tfwire::Value::Map(bad)]);
    let v = tfwire::Value::Object(tfwire::Object::new(o.op(), attrs));
    let e = p.encode_msgpack(v, &mut Vec::new()).unwrap_err();
    assert_eq!(e.path(), r#"["a b"]["ké\""]"#);
    assert_eq!(
        e.to_string(),
        r#"at ["a b"]["ké\""]: a string expected, found number"#
    );
}
