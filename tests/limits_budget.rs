//! `Limits::max_values` and `Limits::max_arena_bytes`: the budget of one decode, charged as
//! each container is allocated, in both formats.

use bumpalo::Bump;
use tfwire::{DecodeOptions, ErrorKind, Limits, Program};

fn with(limits: Limits) -> DecodeOptions {
    DecodeOptions::default().with_limits(limits)
}

/// `["list",["object",{"a0":"string",…}]]` with `n` attributes.
fn wide_objects(n: usize) -> Program {
    let attrs: Vec<String> = (0..n).map(|i| format!(r#""a{i}":"string""#)).collect();
    Program::from_type_json(&format!(r#"["list",["object",{{{}}}]]"#, attrs.join(","))).unwrap()
}

#[test]
fn empty_json_objects_of_a_wide_type_stop_at_max_arena_bytes() {
    // 3 input bytes per object, 24,000 arena bytes per object: the amplification the limit
    // is for. 100,000 objects would be 2.4 GB of slots.
    let p = wide_objects(1000);
    let input = format!("[{}{{}}]", "{},".repeat(99_999));
    let limit = 8 << 20;
    let opts = with(Limits::DEFAULT.with_max_arena_bytes(limit));
    let bump = Bump::new();
    let e = p
        .decode_json_with(input.as_bytes(), &bump, &opts)
        .unwrap_err();
    // 8 MiB / 24,000 bytes = 349.5: the object at index 349 is the first over.
    assert_eq!(e.kind(), ErrorKind::Limit);
    assert_eq!(e.offset().unwrap(), 1 + 3 * 349);
    assert_eq!(e.path(), "[349]");
    assert_eq!(
        e.message(),
        "more than max_arena_bytes (8388608) bytes of containers"
    );
    // The arena holds what was charged, not what the input claims.
    assert!(
        bump.allocated_bytes() < 4 * limit as usize,
        "{}",
        bump.allocated_bytes()
    );
    // Within the budget it decodes: 349 objects.
    let input = format!("[{}{{}}]", "{},".repeat(348));
    assert!(p.decode_json_with(input.as_bytes(), &bump, &opts).is_ok());
}

#[test]
fn msgpack_objects_are_charged_for_every_attribute_of_the_type() {
    let p = wide_objects(1000);
    let drift = DecodeOptions::default()
        .with_missing_attributes_null(true)
        .with_limits(Limits::DEFAULT.with_max_arena_bytes(1 << 20));
    // array16 of 1,000 empty maps.
    let mut input = vec![0xdc, 0x03, 0xe8];
    input.extend(std::iter::repeat_n(0x80u8, 1000));
    let bump = Bump::new();
    let e = p.decode_msgpack_with(&input, &bump, &drift).unwrap_err();
    // The list charges 1,000 × 24 bytes first; then 1 MiB − 24,000 leaves room for 42 objects.
    assert_eq!(
        (e.kind(), e.offset().unwrap(), e.path()),
        (ErrorKind::Limit, 3 + 42, "[42]")
    );
}

#[test]
fn max_values_counts_elements_and_attributes_in_both_formats() {
    let p = Program::from_type_json(r#"["list",["list","number"]]"#).unwrap();
    let opts = with(Limits::DEFAULT.with_max_values(10));
    let bump = Bump::new();
    // 3 lists of 3: 3 + 9 = 12 values; the third inner list passes 10.
    let mp = b"\x93\x93\x01\x02\x03\x93\x01\x02\x03\x93\x01\x02\x03";
    let e = p.decode_msgpack_with(mp, &bump, &opts).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset().unwrap(), e.path()),
        (ErrorKind::Limit, 9, "[2]")
    );
    assert_eq!(e.message(), "more than max_values (10) values");
    // JSON counts a list when it closes (its length is known then): the inner lists make 9,
    // the outer one passes 10.
    let json = b"[[1,2,3],[1,2,3],[1,2,3]]";
    let e = p.decode_json_with(json, &bump, &opts).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset().unwrap(), e.path()),
        (ErrorKind::Limit, 0, "")
    );
    // 3 + 6 = 9 values decode.
    assert!(p
        .decode_msgpack_with(b"\x93\x93\x01\x02\x03\x93\x01\x02\x03\x90", &bump, &opts)
        .is_ok());
    assert!(p
        .decode_json_with(b"[[1,2,3],[1,2,3],[]]", &bump, &opts)
        .is_ok());
    // An object counts every attribute of its type.
    let q = Program::from_type_json(r#"["object",{"a":"bool","b":"bool"}]"#).unwrap();
    let one = with(Limits::DEFAULT.with_max_values(1));
    let e = q
        .decode_json_with(br#"{"a":true}"#, &bump, &one)
        .unwrap_err();
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Limit, 0));
}
