//! One error story: every public error type has `path() -> &str`, `offset() -> Option<usize>`
//! and `message() -> &str` (or, for a stream, its kind), implements `std::error::Error`, and
//! displays as `at PATH (byte N): MESSAGE` with what it knows (a document's errors leave out
//! an empty path; a value's say `(root)`).

use std::error::Error;

use bumpalo::Bump;
use tfwire::state::{SchemaSet, StateFile, StateReader};
use tfwire::stream::{Framing, StreamErrorKind, StreamOptions, ValueStream};
use tfwire::{DecodeOptions, Program, Value};

/// What every error is asked for, with the same types for all.
fn located<E: Error>(e: &E, path: &str, offset: Option<usize>) -> (String, Option<usize>, String) {
    (path.to_string(), offset, e.to_string())
}

#[test]
fn decode_errors() {
    let program = Program::from_type_json(r#"["object",{"ports":["list","number"]}]"#).unwrap();
    let bump = Bump::new();
    let e = program
        .decode_json(br#"{"ports": [80, "x"]}"#, &bump)
        .unwrap_err();
    assert_eq!(
        located(&e, e.path(), e.offset()),
        (
            ".ports[1]".into(),
            Some(15),
            r#"at .ports[1] (byte 15): "x" is not a valid number"#.into()
        )
    );
    // At the root: `(root)`.
    let e = program.decode_json(b"[]", &bump).unwrap_err();
    assert_eq!((e.path(), e.offset()), ("", Some(0)));
    assert!(e.to_string().starts_with("at (root) (byte 0): "), "{e}");
}

#[test]
fn encode_serde_and_build_errors_have_no_offset() {
    let program = Program::from_type_json(r#"["map","number"]"#).unwrap();
    let bump = Bump::new();
    let value = program
        .decode_msgpack(&[0x81, 0xa1, b'k', 0xd4, 0, 0], &bump)
        .unwrap();
    let e = program.encode_json(value, &mut Vec::new()).unwrap_err();
    assert_eq!(
        located(&e, e.path(), e.offset()),
        (
            r#"["k"]"#.into(),
            None,
            r#"at ["k"]: value is not known"#.into()
        )
    );
    assert_eq!(e.message(), "value is not known");

    let typed = program.typed(value);
    let e = tfwire::from_typed::<std::collections::BTreeMap<String, f64>>(typed).unwrap_err();
    assert_eq!((e.path(), e.offset()), (r#"["k"]"#, None));
    assert_eq!(e.to_string(), format!(r#"at ["k"]: {}"#, e.message()));

    let e = program.builder(&bump).build("text").unwrap_err();
    assert_eq!((e.path(), e.offset()), ("", None));
    assert_eq!(e.to_string(), format!("at (root): {}", e.message()));
}

#[test]
fn schema_errors() {
    // A syntax error: its byte in the text, no path.
    let e = Program::from_schema_json("{\n  \"attributes\": {,}\n}").unwrap_err();
    assert_eq!(
        located(&e, e.path(), e.offset()),
        (
            String::new(),
            Some(19),
            "at byte 19: schema is not valid JSON: key must be a string".into()
        )
    );
    // A well-formed document that is wrong: the place, no byte.
    let e = Program::from_schema_json(
        r#"{"block_types":{"b":{"nesting_mode":"single","block":{"attributes":{"x":{}}}}}}"#,
    )
    .unwrap_err();
    assert_eq!(
        located(&e, e.path(), e.offset()),
        (
            r#"block type "b", attribute "x""#.into(),
            None,
            r#"at block type "b", attribute "x": neither type nor nested_type is set"#.into()
        )
    );
    assert_eq!(e.message(), "neither type nor nested_type is set");
    // About the document as a whole: the message alone.
    let e = Program::from_schema_json("[]").unwrap_err();
    assert_eq!(
        located(&e, e.path(), e.offset()),
        (
            String::new(),
            None,
            "schema JSON must be an object, found an array".into()
        )
    );
}

#[test]
fn state_errors() {
    let text = r#"{"version":4,"resources":[{"mode":"managed","type":"t","name":"n","provider":"provider[\"registry.terraform.io/hashicorp/t\"]","instances":[{"index_key":true}]}]}"#;
    // The streaming reader knows the byte; `StateFile::parse` the place.
    let e = StateReader::new(text.as_bytes())
        .visit(&SchemaSet::new(), &DecodeOptions::default(), |_, _| {})
        .unwrap_err();
    let at = text.find("true").unwrap();
    assert_eq!(
        located(&e, e.path(), e.offset()),
        (
            ".resources[0].instances[0]".into(),
            Some(at),
            format!(
                "at .resources[0].instances[0] (byte {at}): index_key: expected a string or an \
                 integer, found true"
            )
        )
    );
    let e = StateFile::parse(text).unwrap_err();
    assert_eq!(
        located(&e, e.path(), e.offset()),
        (
            ".resources[0].instances[0]".into(),
            None,
            "at .resources[0].instances[0]: index_key: expected a string or an integer, found \
             true"
                .into()
        )
    );
    // Not JSON at all: the byte, no place.
    let e = StateFile::parse("{\"version\": 4,]").unwrap_err();
    assert_eq!((e.path(), e.offset()), ("", Some(14)));
    assert_eq!(
        e.to_string(),
        "at byte 14: not a state file: invalid JSON: key must be a string"
    );
}

#[test]
fn stream_errors() {
    let program = Program::from_type_json(r#"["object",{"n":"number"}]"#).unwrap();
    let input: &[u8] = b"{\"n\":1}\n{\"n\":\"x\"}\n{\"n\":2}\n{\"n\":";
    let mut stream = ValueStream::new(&program, input, StreamOptions::new(Framing::Ndjson));
    let mut seen = Vec::new();
    while let Some(item) = stream.next_value() {
        match item {
            Ok(item) => seen.push(format!(
                "{} ok {}",
                item.index,
                matches!(item.value, Value::Object(_))
            )),
            Err(e) => {
                let source = e.source().map(|s| s.to_string());
                seen.push(format!(
                    "{} {:?} {:?} {} {}",
                    e.index(),
                    e.path(),
                    e.offset(),
                    matches!(e.kind(), StreamErrorKind::Decode(_)),
                    source.unwrap_or_default()
                ));
            }
        }
    }
    assert_eq!(
        seen,
        [
            "0 ok true".to_string(),
            r#"1 ".n" Some(5) true at .n (byte 5): "x" is not a valid number"#.into(),
            "2 ok true".into(),
            r#"3 ".n" Some(5) true at .n (byte 5): unexpected end of input"#.into(),
        ]
    );
}
