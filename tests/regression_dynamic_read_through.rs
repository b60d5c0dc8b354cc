//! Fuzz finding 2 (`fuzz/README.md`): a dynamic wrapper whose type holds `dynamic` reads
//! through to its inner wrappers, as go-cty does. tfwire used to keep the outer type and the
//! inner wrappers. Every expected DUMP below is `ctyoracle decode --type '"dynamic"'` (go-cty
//! 1.12.1) on the same msgpack bytes.

use bumpalo::Bump;
use tfwire::{dump, ErrorKind, Program};

/// `[type, value]` as msgpack, the type JSON as a str.
fn wrapper(type_json: &str, value: &[u8]) -> Vec<u8> {
    assert!(type_json.len() < 32);
    let mut out = vec![0x92, 0xa0 | type_json.len() as u8];
    out.extend_from_slice(type_json.as_bytes());
    out.extend_from_slice(value);
    out
}

fn array(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0x90 | items.len() as u8];
    for i in items {
        out.extend_from_slice(i);
    }
    out
}

fn decode(input: &[u8]) -> Result<String, tfwire::DecodeError> {
    let p = Program::from_type_json("\"dynamic\"").unwrap();
    let bump = Bump::new();
    let v = p.decode_msgpack(input, &bump)?;
    Ok(dump::to_string(&p, v).unwrap())
}

const TRUE: &[u8] = b"\xc3";

#[test]
fn a_wrapper_of_type_dynamic_is_its_inner_value() {
    let inner = wrapper("\"bool\"", TRUE);
    assert_eq!(
        decode(&wrapper("\"dynamic\"", &inner)).unwrap(),
        r#"{"type":"bool","value":true}"#
    );
    // Nested twice: still the innermost value.
    let twice = wrapper(
        "\"dynamic\"",
        &wrapper("\"dynamic\"", &wrapper("\"string\"", b"\xa1x")),
    );
    assert_eq!(decode(&twice).unwrap(), r#"{"type":"string","value":"x"}"#);
}

#[test]
fn a_list_of_dynamic_takes_its_elements_type() {
    let one = array(&[wrapper("\"bool\"", TRUE)]);
    assert_eq!(
        decode(&wrapper("[\"list\",\"dynamic\"]", &one)).unwrap(),
        r#"{"type":["list","bool"],"value":[true]}"#
    );
    // A null element has type dynamic and does not decide the element type.
    let with_null = array(&[b"\xc0".to_vec(), wrapper("\"bool\"", TRUE)]);
    assert_eq!(
        decode(&wrapper("[\"list\",\"dynamic\"]", &with_null)).unwrap(),
        r#"{"type":["list","bool"],"value":[null,true]}"#
    );
    // No typed element: the type stays as written.
    assert_eq!(
        decode(&wrapper("[\"list\",\"dynamic\"]", b"\x90")).unwrap(),
        r#"{"type":["list","dynamic"],"value":[]}"#
    );
    assert_eq!(
        decode(&wrapper("[\"list\",\"dynamic\"]", b"\x91\xc0")).unwrap(),
        r#"{"type":["list","dynamic"],"value":[null]}"#
    );
}

#[test]
fn objects_tuples_and_maps_read_through_at_every_depth() {
    // ["object",{"a":"dynamic","b":"string"}] (29 bytes of type JSON).
    let mut obj = vec![0x82, 0xa1, b'a'];
    obj.extend(wrapper("\"bool\"", TRUE));
    obj.extend([0xa1, b'b', 0xa1, b'x']);
    let t = r#"["object",{"a":"dynamic","b":"string"}]"#;
    let mut input = vec![0x92, 0xd9, t.len() as u8];
    input.extend_from_slice(t.as_bytes());
    input.extend(&obj);
    assert_eq!(
        decode(&input).unwrap(),
        r#"{"type":["object",{"a":"bool","b":"string"}],"value":{"a":true,"b":"x"}}"#
    );
    // A map of list(dynamic) wrappers: both levels read through.
    let list = wrapper(
        "[\"list\",\"dynamic\"]",
        &array(&[wrapper("\"number\"", b"\x01")]),
    );
    let mut map = vec![0x81, 0xa1, b'k'];
    map.extend(wrapper("\"dynamic\"", &list));
    assert_eq!(
        decode(&wrapper("[\"map\",\"dynamic\"]", &map)).unwrap(),
        r#"{"type":["map",["list","number"]],"value":{"k":[1]}}"#
    );
}

#[test]
fn the_rebuilt_object_navigates_under_its_new_type() {
    let t = r#"["object",{"a":"dynamic","b":"string"}]"#;
    let mut input = vec![0x92, 0xd9, t.len() as u8];
    input.extend_from_slice(t.as_bytes());
    input.extend([0x82, 0xa1, b'a']);
    input.extend(wrapper("\"bool\"", TRUE));
    input.extend([0xa1, b'b', 0xa1, b'x']);
    let p = Program::from_type_json("\"dynamic\"").unwrap();
    let bump = Bump::new();
    let v = p.decode_msgpack(&input, &bump).unwrap();
    let tfwire::Value::Dynamic(d) = v else {
        panic!("a dynamic value, got {v:?}")
    };
    assert_eq!(
        d.program.root_type().to_string(),
        r#"["object",{"a":"bool","b":"string"}]"#
    );
    let typed = tfwire::Typed::new(d.program, d.value);
    assert_eq!(typed.attr("a").unwrap().value, tfwire::Value::Bool(true));
    assert_eq!(typed.attr("b").unwrap().value, tfwire::Value::String("x"));
}

#[test]
fn elements_of_different_read_through_types_are_an_error() {
    // go-cty panics here ("inconsistent list element types"); tfwire reports it.
    let a = array(&[wrapper("\"bool\"", TRUE)]);
    let b = array(&[wrapper("\"string\"", b"\xa1s")]);
    let input = wrapper("[\"list\",[\"list\",\"dynamic\"]]", &array(&[a, b]));
    let e = decode(&input).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InconsistentTypes);
    assert_eq!(e.offset().unwrap(), 0);
    assert_eq!(
        e.to_string(),
        r#"at (root) (byte 0): elements have different types: ["list","bool"] and ["list","string"]"#
    );
    // A null element of type list(dynamic) is typed: the same panic in go-cty.
    let b = array(&[wrapper("\"bool\"", TRUE)]);
    let input = wrapper(
        "[\"list\",[\"list\",\"dynamic\"]]",
        &array(&[b"\xc0".to_vec(), b]),
    );
    assert_eq!(
        decode(&input).unwrap_err().kind(),
        ErrorKind::InconsistentTypes
    );
}

#[test]
fn optional_markers_are_not_part_of_a_values_type() {
    let t = r#"["object",{"b":"string"},["b"]]"#;
    let mut input = vec![0x92, 0xd9, t.len() as u8];
    input.extend_from_slice(t.as_bytes());
    input.extend([0x81, 0xa1, b'b', 0xa1, b'x']);
    assert_eq!(
        decode(&input).unwrap(),
        r#"{"type":["object",{"b":"string"}],"value":{"b":"x"}}"#
    );
}

#[test]
fn json_reads_through_the_same_way() {
    let p = Program::from_type_json("\"dynamic\"").unwrap();
    let bump = Bump::new();
    let cases = [
        (
            r#"{"type":["list","dynamic"],"value":[null,{"value":true,"type":"bool"}]}"#,
            r#"{"type":["list","bool"],"value":[null,true]}"#,
        ),
        (
            r#"{"value":{"type":"string","value":"x"},"type":"dynamic"}"#,
            r#"{"type":"string","value":"x"}"#,
        ),
    ];
    for (input, want) in cases {
        let v = p.decode_json(input.as_bytes(), &bump).unwrap();
        assert_eq!(dump::to_string(&p, v).unwrap(), want, "{input}");
    }
}
