//! tfwire decodes the values Terraform and OpenTofu exchange with providers — the
//! `DynamicValue` wire format — typed by a provider schema, without copying.
//!
//! # Contents
//! - [Should I use this crate?](#should-i-use-this-crate)
//! - [Example](#example)
//! - [serde](#serde)
//! - [Building values](#building-values)
//! - [How it works](#how-it-works)
//! - [Semantics](#semantics)
//! - [Limits and safety](#limits-and-safety)
//! - [Crate features](#crate-features)
//!
//! # Should I use this crate?
//! Use it when you read `DynamicValue` bytes (provider RPCs, captured plans) or the same values
//! in their JSON form and want go-cty's answer fast: a schema compiles once into a [`Program`],
//! and each decode is one forward pass that builds [`Value`]s in a [`bumpalo::Bump`] arena,
//! borrowing every string from the input.
//!
//! # Example
//! ```
//! use bumpalo::Bump;
//! use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
//! use tfwire::{Program, Type};
//!
//! // A schema with a `set` of `ingress` blocks, built in Rust (providers-schema JSON works too).
//! let rule = Block::new().attribute("from_port", Attribute::new(Type::Number));
//! let schema = Block::new()
//!     .attribute("name", Attribute::new(Type::String))
//!     .block("ingress", NestedBlock::new(NestingMode::Set, rule));
//! let program = Program::from_block(&schema).unwrap();
//!
//! // {"ingress": [{"from_port": 443}], "name": "web"} as MessagePack.
//! let input = [
//!     0x82, 0xa7, b'i', b'n', b'g', b'r', b'e', b's', b's', 0x91, 0x81, 0xa9, b'f', b'r', b'o',
//!     b'm', b'_', b'p', b'o', b'r', b't', 0xcd, 0x01, 0xbb, 0xa4, b'n', b'a', b'm', b'e', 0xa3,
//!     b'w', b'e', b'b',
//! ];
//! let bump = Bump::new();
//! let value = program.decode_msgpack(&input, &bump).unwrap();
//! let root = program.typed(value);
//! assert_eq!(root.attr("name").unwrap().value.as_str(), Some("web"));
//! let port = root.attr("ingress").unwrap().index(0).unwrap().attr("from_port").unwrap();
//! assert_eq!(port.value.as_i64(), Some(443));
//!
//! // Errors carry the value path and the byte offset.
//! let err = program.decode_msgpack(&input[..23], &bump).unwrap_err();
//! assert_eq!(err.path(), ".ingress[0].from_port");
//! assert_eq!(err.offset(), Some(21));
//! ```
//!
//! # serde
//! A [`Typed`] value implements `serde::Serialize` (objects and maps as maps, collections as
//! sequences, dynamic values as their concrete value; an unknown or ±Inf is an error naming
//! its path unless [`SerializeOptions`] say otherwise), and [`from_typed`] fills any
//! `Deserialize` type from one, borrowing strings from the input, with errors ([`DeError`])
//! that name the value path; a [`MaybeUnknown`] field receives unknown values.
//!
//! # Building values
//! [`Builder`] ([`Program::builder`]) makes values of a program's type by hand — a planned
//! state, a converted one — in an arena, each part checked against its position's type (errors
//! name the value path), with sets in go-cty's order; [`build`] has the details.
//!
//! ```
//! use bumpalo::Bump;
//! use tfwire::Program;
//!
//! let program = Program::from_type_json(r#"["object",{"id":"string","ports":["set","number"]}]"#)?;
//! let bump = Bump::new();
//! let b = program.builder(&bump);
//! let plan = b.build(b.object(|o| {
//!     o.set("ports", b.set_from([443, 80, 443]))?;
//!     o.unknown("id")
//! }))?;
//! let mut out = Vec::new();
//! program.encode_msgpack(plan, &mut out)?;
//! assert_eq!(out, b"\x82\xa2id\xd4\x00\x00\xa5ports\x92\x50\xcd\x01\xbb");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # How it works
//! [`schema`] holds the schema model and the implied-type rule; the compiler turns a [`Type`]
//! into a [`Program`] of flat ops addressed by [`OpId`]s; an executor per format walks the input
//! in one pass, recursing once per container under a hard cap ([`MAX_DEPTH`]: hostile nesting
//! cannot overflow the thread stack), and builds an error's path only when an error unwinds.
//!
//! # Semantics
//! What go-cty accepts decodes to what go-cty decodes, except where go-cty panics or returns a
//! value of the wrong type: there tfwire returns an error ([`ErrorKind`]). Unknown values
//! keep their refinements ([`Refinements`]); numbers are lossless ([`Number`]); sets keep wire
//! order and duplicates; strings are not NFC-normalized. The repository's README lists every
//! rule.
//!
//! # Limits and safety
//! Every length read from the input is checked against the bytes that remain before anything
//! is reserved; [`Limits`] bounds depth, container and string lengths, refinement payloads,
//! dynamic type JSON and the number of cached dynamic types. Bad input returns a
//! [`DecodeError`]; it never panics.
//!
//! # Crate features
//! None is on by default: `tfwire = "0.1"` is the library alone, without the command line's
//! dependencies.
//! - `cli`: the `tfwire` binary (`cargo install tfwire --features cli`) and its dependencies
//!   (clap, rayon, indicatif, libc).
//! - `bench`: `cli` and the `tfwire bench` subcommand with the peers it measures against
//!   (rmpv, rmp-serde, simd-json, sonic-rs, serde's `derive`) — a developer tool run from a
//!   checkout (`cargo run --release --features bench -- bench`).
#![deny(missing_docs)]
// Decoding never panics: the panic lints hold for the whole library, and every module that
// reads input (the decoders, the schema and type parsers, the state reader, the stream) is
// clean of them. The modules that write (the encoders, the DUMP, `json_escape.rs`,
// `spare.rs`) or build from Rust values and types (`build/`, `compile.rs`) and are not yet
// clean say so at their top with an `allow` of just the lints they still break.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

#[macro_use]
mod setters;
#[macro_use]
mod located;

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod build;
mod bytes;
mod compile;
mod decode;
pub mod dump;
mod encode;
mod error;
mod json_escape;
mod limits;
mod number;
mod path;
mod program;
pub mod schema;
mod serde;
mod spare;
#[cfg(feature = "sql")]
pub mod sql;
pub mod state;
pub mod stream;
#[cfg(test)]
mod test_rng;
#[cfg(test)]
mod test_values;
mod value;

pub use crate::serde::{
    from_typed, DeError, InfinityAs, MaybeUnknown, Serializable, SerializeOptions,
    TypedDeserializer, UnknownAs,
};
pub use build::{BuildError, Builder, Part};
pub use decode::visit::{Container, Encoding, Visitor};
pub use decode::{skip_json, skip_msgpack};
pub use encode::{EncodeError, JsonEncoder, MsgpackEncoder};
pub use error::{Category, DecodeError, ErrorKind, SchemaError};
pub use limits::{
    Limits, MAX_DEPTH, MAX_READ_THROUGH_DEPTH, MAX_SCHEMA_DEPTH, MAX_TYPE_DEPTH, MAX_TYPE_NESTING,
    MAX_VALUE_DEPTH,
};
pub use number::Number;
pub use program::{DecodeOptions, OpId, Program};
pub use schema::Type;
pub use value::{Dynamic, Object, Refinements, Typed, Value};

/// The README's examples, run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
