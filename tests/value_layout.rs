//! `Value`'s layout: 24 bytes, a tag word and every payload at offset 8 (`#[repr(C, u64)]`),
//! numbers as variants of their own (no nested tag), decimal text held without an arena copy.

use bumpalo::Bump;
use tfwire::{Number, Object, Program, Refinements, Value};

/// Offset of the payload that `field` picks out of `v`, from the start of `v`.
fn offset<T>(v: &Value<'_>, field: &T) -> usize {
    field as *const T as usize - v as *const Value<'_> as usize
}

#[test]
fn size_and_payload_offsets() {
    assert_eq!(std::mem::size_of::<Value>(), 24);
    assert_eq!(std::mem::align_of::<Value>(), 8);
    assert_eq!(std::mem::size_of::<Object>(), 16);
    let program = Program::from_type_json(r#"["object",{"a":"bool"}]"#).unwrap();
    let attrs = [Value::Null];
    let refinements = Refinements::default();
    let values = [
        Value::Unknown(Some(&refinements)),
        Value::Bool(true),
        Value::Int(-1),
        Value::UInt(1),
        Value::Float(0.5),
        Value::Decimal("1.5"),
        Value::String("s"),
        Value::List(&attrs),
        Value::Set(&attrs),
        Value::Tuple(&attrs),
        Value::Map(&[]),
        Value::Object(Object::new(program.root(), &attrs)),
    ];
    for v in &values {
        let at = match v {
            Value::Unknown(r) => offset(v, r),
            Value::Bool(b) => offset(v, b),
            Value::Int(i) => offset(v, i),
            Value::UInt(u) => offset(v, u),
            Value::Float(f) => offset(v, f),
            Value::Decimal(s) | Value::String(s) => offset(v, s),
            Value::List(e) | Value::Set(e) | Value::Tuple(e) => offset(v, e),
            Value::Map(e) => offset(v, e),
            Value::Object(o) => offset(v, o),
            _ => unreachable!(),
        };
        assert_eq!(at, 8, "{v:?}");
    }
}

#[test]
fn values_are_send_and_sync() {
    fn shared<T: Send + Sync>() {}
    shared::<Value<'_>>();
    shared::<Object<'_>>();
}

#[test]
fn decimal_text_borrows_the_input() {
    // A JSON number literal that no i64 holds, and a MessagePack number string.
    let program = Program::from_type_json(r#"["list","number"]"#).unwrap();
    let bump = Bump::new();
    let json = br#"[12345678901234567890.5, 7]"#;
    let v = program.decode_json(json, &bump).unwrap();
    let Some(Value::Decimal(text)) = v.index(0) else {
        panic!("{v:?}");
    };
    assert_eq!(text, "12345678901234567890.5");
    assert_eq!(
        text.as_ptr(),
        json[1..].as_ptr(),
        "the text is the input's own bytes"
    );
    assert_eq!(v.index(1), Some(Value::Int(7)));
    assert_eq!(v.index(0).unwrap().as_number(), Some(Number::Decimal(text)));

    let mp = [0x91, 0xa3, b'1', b'.', b'5'];
    let v = program.decode_msgpack(&mp, &bump).unwrap();
    let Some(Value::Decimal(text)) = v.index(0) else {
        panic!("{v:?}");
    };
    assert_eq!((text, text.as_ptr()), ("1.5", mp[2..].as_ptr()));
}

#[test]
fn numbers_convert_both_ways() {
    for n in [
        Number::Int(-3),
        Number::UInt(u64::MAX),
        Number::Float(2.5),
        Number::Decimal("1e400"),
    ] {
        assert_eq!(Value::from(n).as_number(), Some(n));
    }
    assert_eq!(Value::String("1").as_number(), None);
}
