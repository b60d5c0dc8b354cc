//! The JSON rows of the wire-format spec (`Schema.Attribute` and `Schema.NestedBlock` mapping
//! rules for JSON), DESIGN.md §4's JSON points (missing attributes null, unknown ones an
//! error unless skipped, duplicate keys an error, go-cty's coercions, `{"type","value"}` in
//! either order), and the research doc's JSON vectors J1–J10, each with its exact value.

#[path = "support/decode.rs"]
mod decode;

use bumpalo::Bump;
use decode::{json_err_with, prog, ALL_TYPES};
use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
use tfwire::{dump, DecodeOptions, ErrorKind, Number, Program, Type, Value};

/// The DUMP of `input` decoded as `ty`.
#[track_caller]
fn dump_of(ty: &str, input: &str) -> String {
    let p = prog(ty);
    let bump = Bump::new();
    match p.decode_json(input.as_bytes(), &bump) {
        Ok(v) => dump::to_string(&p, v).unwrap(),
        Err(e) => panic!("{ty} {input}: {e}"),
    }
}

/// The error kind and message decoding `input` as `ty`.
#[track_caller]
fn fails(ty: &str, input: &str) -> (ErrorKind, String) {
    fails_with(ty, input, &DecodeOptions::default())
}

#[track_caller]
fn fails_with(ty: &str, input: &str, options: &DecodeOptions) -> (ErrorKind, String) {
    let e = json_err_with(ty, input.as_bytes(), options);
    (e.kind(), e.message().to_string())
}

/// Decodes and hands the value to `check`.
fn with_value(ty: &str, input: &str, check: impl FnOnce(&Program, Value<'_>)) {
    let p = prog(ty);
    let bump = Bump::new();
    let v = p
        .decode_json(input.as_bytes(), &bump)
        .unwrap_or_else(|e| panic!("{ty} {input}: {e}"));
    check(&p, v);
}

#[path = "json_spec/blocks.rs"]
mod blocks;
#[path = "json_spec/collections.rs"]
mod collections;
#[path = "json_spec/dynamic.rs"]
mod dynamic;
#[path = "json_spec/scalars.rs"]
mod scalars;
#[path = "json_spec/vectors.rs"]
mod vectors;
