//! Decode-and-fail helpers for the msgpack error tests. Included with
//! `#[path = "support/errs.rs"] mod errs;`.
#![allow(dead_code)]

use bumpalo::Bump;
use tfwire::{DecodeError, DecodeOptions, ErrorKind, Program};

/// Compiles type JSON; panics on a bad type.
pub fn prog(ty: &str) -> Program {
    Program::from_type_json(ty).unwrap_or_else(|e| panic!("type {ty}: {e}"))
}

/// The error decoding `input` with `options`; panics if it decodes.
pub fn err_with(p: &Program, input: &[u8], options: &DecodeOptions) -> DecodeError {
    let bump = Bump::new();
    match p.decode_msgpack_with(input, &bump, options) {
        Ok(v) => panic!(
            "{input:02x?}: expected an error, got {}",
            tfwire::dump::to_string(p, v)
        ),
        Err(e) => e,
    }
}

/// The error decoding `input` as `ty` with default options.
pub fn err(ty: &str, input: &[u8]) -> DecodeError {
    err_with(&prog(ty), input, &DecodeOptions::default())
}

/// Asserts all four parts of an error, and that `Display` combines them.
#[track_caller]
pub fn assert_err(e: &DecodeError, kind: ErrorKind, offset: usize, path: &str, message: &str) {
    assert_eq!(
        (e.kind(), e.offset(), e.path(), e.message()),
        (kind, offset, path, message),
        "{e}"
    );
    let shown = if path.is_empty() { "(root)" } else { path };
    assert_eq!(
        e.to_string(),
        format!("at {shown} (byte {offset}): {message}")
    );
}
