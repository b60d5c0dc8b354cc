//! Executors over a [`Program`](crate::Program): one forward pass, values built in a bumpalo
//! arena. Both executors recurse once per container under the depth cap
//! ([`MAX_DEPTH`](crate::limits::MAX_DEPTH)) and build an error's value path as the error
//! unwinds (`common.rs`, with everything else they share).
//!
//! Every decode module is held to the panic-freedom lints below (CI runs clippy with
//! `-D warnings`): an index or an arithmetic operation on input-derived values must not be
//! able to panic. The few indexes kept in hot paths are allowed one by one, each with an
//! `// In bounds:` comment that says why it cannot fail.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod common;
pub(crate) mod dyncache;
pub(crate) mod json;
mod json_dynamic;
mod json_extent;
mod json_items;
mod json_number;
mod json_scan;
mod json_simd;
mod json_skip;
mod json_string;
mod mp_items;
mod mp_reader;
pub(crate) mod msgpack;
mod path;
mod read_through;
mod refine;
mod slots;
