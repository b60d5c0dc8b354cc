//! Decode helpers shared by the test files: compile a type JSON, decode an input to its DUMP,
//! to a value or to the error it must fail with, and check all four parts of an error. The
//! helpers without a `json_` prefix decode MessagePack. Anything but the expected outcome
//! panics naming the type or the input. Included with
//! `#[path = "support/decode.rs"] mod decode;`.
#![allow(dead_code)]

use bumpalo::Bump;
use tfwire::{dump, DecodeError, DecodeOptions, ErrorKind, Program, Value};

/// A type JSON of every kind.
pub const ALL_TYPES: &[&str] = &[
    r#""string""#,
    r#""number""#,
    r#""bool""#,
    r#""dynamic""#,
    r#"["list","string"]"#,
    r#"["set","number"]"#,
    r#"["map","bool"]"#,
    r#"["object",{"a":"string"}]"#,
    r#"["tuple",["string","number"]]"#,
];

/// Compiles type JSON; panics on a bad type.
pub fn prog(ty: &str) -> Program {
    Program::from_type_json(ty).unwrap_or_else(|e| panic!("type {ty}: {e}"))
}

/// Default options, except that `min_items`/`max_items` are checked.
pub fn checking_item_counts() -> DecodeOptions {
    DecodeOptions::default().with_check_item_counts(true)
}

// ---- successful decodes ---------------------------------------------------------------------

/// The DUMP of `input` decoded by `p` with `options`, or the error.
pub fn dump_with(
    p: &Program,
    input: &[u8],
    options: &DecodeOptions,
) -> Result<String, DecodeError> {
    let bump = Bump::new();
    p.decode_msgpack_with(input, &bump, options)
        .map(|v| dump::to_string(p, v).unwrap())
}

/// The DUMP of `input` decoded by `p`; panics on a decode error.
pub fn decode_dump(p: &Program, input: &[u8]) -> String {
    dump_with(p, input, &DecodeOptions::default()).unwrap_or_else(|e| panic!("{input:02x?}: {e}"))
}

/// The DUMP of `input` decoded as `ty`; panics on a decode error.
pub fn dump(ty: &str, input: &[u8]) -> String {
    dump_with(&prog(ty), input, &DecodeOptions::default())
        .unwrap_or_else(|e| panic!("{ty} {input:02x?}: {e}"))
}

/// Runs `f` on the value `input` decodes to as `ty`; panics on a decode error.
pub fn with_value(ty: &str, input: &[u8], f: impl for<'a> FnOnce(&'a Program, Value<'a>)) {
    let p = prog(ty);
    let bump = Bump::new();
    match p.decode_msgpack(input, &bump) {
        Ok(v) => f(&p, v),
        Err(e) => panic!("{ty} {input:02x?}: {e}"),
    }
}

// ---- errors ---------------------------------------------------------------------------------

/// The error decoding `input` with `options`; panics if it decodes.
pub fn err_with(p: &Program, input: &[u8], options: &DecodeOptions) -> DecodeError {
    let bump = Bump::new();
    match p.decode_msgpack_with(input, &bump, options) {
        Ok(v) => panic!(
            "{input:02x?}: expected an error, got {}",
            dump::to_string(p, v).unwrap()
        ),
        Err(e) => e,
    }
}

/// The error decoding `input` as `ty` with default options.
pub fn err(ty: &str, input: &[u8]) -> DecodeError {
    err_with(&prog(ty), input, &DecodeOptions::default())
}

/// The error decoding the JSON `input` as `ty` with `options`; panics if it decodes.
pub fn json_err_with(ty: &str, input: &[u8], options: &DecodeOptions) -> DecodeError {
    let p = prog(ty);
    let bump = Bump::new();
    match p.decode_json_with(input, &bump, options) {
        Ok(v) => panic!(
            "{ty} {}: expected an error, got {}",
            String::from_utf8_lossy(input),
            dump::to_string(&p, v).unwrap()
        ),
        Err(e) => e,
    }
}

/// The error decoding the JSON `input` as `ty` with default options.
pub fn json_err(ty: &str, input: &str) -> DecodeError {
    json_err_with(ty, input.as_bytes(), &DecodeOptions::default())
}

/// Asserts all four parts of an error, and that `Display` combines them.
#[track_caller]
pub fn assert_err(e: &DecodeError, kind: ErrorKind, offset: usize, path: &str, message: &str) {
    assert_eq!(
        (e.kind(), e.offset().unwrap(), e.path(), e.message()),
        (kind, offset, path, message),
        "{e}"
    );
    let shown = if path.is_empty() { "(root)" } else { path };
    assert_eq!(
        e.to_string(),
        format!("at {shown} (byte {offset}): {message}")
    );
}
