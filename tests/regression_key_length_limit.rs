//! Fuzz finding 1 (`fuzz/README.md`): one `max_string_len` rule for keys in both formats.
//! Every key counts, object keys that name an attribute included; the MessagePack fast path
//! for the key expected next used to let such a key through unchecked.

use bumpalo::Bump;
use tfwire::{DecodeOptions, ErrorKind, Limits, Program};

fn options(max_string_len: u32) -> DecodeOptions {
    DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_string_len(max_string_len))
}

fn msgpack(ty: &str, input: &[u8], max: u32) -> Result<(), (ErrorKind, usize, String)> {
    let p = Program::from_type_json(ty).unwrap();
    let bump = Bump::new();
    p.decode_msgpack_with(input, &bump, &options(max))
        .map(|_| ())
        .map_err(|e| (e.kind(), e.offset().unwrap(), e.to_string()))
}

fn json(ty: &str, input: &str, max: u32) -> Result<(), (ErrorKind, usize, String)> {
    let p = Program::from_type_json(ty).unwrap();
    let bump = Bump::new();
    p.decode_json_with(input.as_bytes(), &bump, &options(max))
        .map(|_| ())
        .map_err(|e| (e.kind(), e.offset().unwrap(), e.to_string()))
}

const OBJECT: &str = r#"["object",{"abcde":"bool"}]"#;
const LIMIT: &str = "at (root) (byte 1): string of 5 bytes exceeds max_string_len (4)";

#[test]
fn an_attribute_name_over_the_limit_fails_in_order_in_msgpack() {
    // fixstr, the key expected next: the fast path.
    let e = msgpack(OBJECT, b"\x81\xa5abcde\xc3", 4).unwrap_err();
    assert_eq!((e.0, e.1, e.2.as_str()), (ErrorKind::Limit, 1, LIMIT));
    // str8: the slow path, the same error.
    let e = msgpack(OBJECT, b"\x81\xd9\x05abcde\xc3", 4).unwrap_err();
    assert_eq!((e.0, e.1, e.2.as_str()), (ErrorKind::Limit, 1, LIMIT));
    // At the limit, both decode.
    assert!(msgpack(OBJECT, b"\x81\xa5abcde\xc3", 5).is_ok());
    assert!(msgpack(OBJECT, b"\x81\xd9\x05abcde\xc3", 5).is_ok());
}

#[test]
fn an_attribute_name_over_the_limit_fails_in_json() {
    let e = json(OBJECT, r#"{"abcde":true}"#, 4).unwrap_err();
    assert_eq!((e.0, e.1, e.2.as_str()), (ErrorKind::Limit, 1, LIMIT));
    // Escaped, the decoded length counts.
    let e = json(OBJECT, r#"{"abcd\u0065":true}"#, 4).unwrap_err();
    assert_eq!((e.0, e.1, e.2.as_str()), (ErrorKind::Limit, 1, LIMIT));
    assert!(json(OBJECT, r#"{"abcd\u0065":true}"#, 5).is_ok());
}

#[test]
fn map_keys_and_skipped_unknown_keys_count_too() {
    let map = r#"["map","bool"]"#;
    assert_eq!(
        msgpack(map, b"\x81\xa5abcde\xc3", 4).unwrap_err().0,
        ErrorKind::Limit
    );
    assert_eq!(
        json(map, r#"{"abcde":true}"#, 4).unwrap_err().0,
        ErrorKind::Limit
    );
    let p = Program::from_type_json(r#"["object",{"a":"bool"}]"#).unwrap();
    let bump = Bump::new();
    let drift = options(4).with_skip_unknown_attributes(true);
    let e = p
        .decode_msgpack_with(b"\x82\xa1a\xc3\xa5zzzzz\xc3", &bump, &drift)
        .unwrap_err();
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Limit, 4));
    let e = p
        .decode_json_with(br#"{"a":true,"zzzzz":true}"#, &bump, &drift)
        .unwrap_err();
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Limit, 10));
}

/// Issue 21's suspicion, settled: a dynamic attribute whose type has an attribute name over
/// `max_string_len` turns on the key-length checks in the middle of an object that had already
/// left an attribute out (`a`). The attributes after it must still decode (they once went to
/// slots that were never filled and came out null).
#[test]
fn attributes_after_a_gap_and_a_long_named_dynamic_type_keep_their_values() {
    let ty = r#"["object",{"a":"string","b":"dynamic","c":"string","d":"string"}]"#;
    let p = Program::from_type_json(ty).unwrap();
    let bump = Bump::new();
    let input = r#"{"b":{"type":["object",{"longname":"string"}],"value":{}},"c":"x","d":"y"}"#;
    for max in [5, 8, 1 << 20] {
        let v = p
            .decode_json_with(input.as_bytes(), &bump, &options(max))
            .unwrap_or_else(|e| panic!("max_string_len {max}: {e}"));
        assert_eq!(
            tfwire::dump::to_string(&p, v).unwrap(),
            r#"{"a":null,"b":{"type":["object",{"longname":"string"}],"value":{"longname":null}},"c":"x","d":"y"}"#,
            "max_string_len {max}"
        );
    }
    // Out of order after the flip, too.
    let input = r#"{"b":{"type":["object",{"longname":"string"}],"value":{}},"d":"y","c":"x"}"#;
    let v = p
        .decode_json_with(input.as_bytes(), &bump, &options(5))
        .unwrap();
    assert_eq!(
        tfwire::dump::to_string(&p, v).unwrap(),
        r#"{"a":null,"b":{"type":["object",{"longname":"string"}],"value":{"longname":null}},"c":"x","d":"y"}"#
    );
}
