//! Msgpack decode under a type (or schema document) read from the input's first bytes, with
//! any options: never panics; agrees with the reference decoder (unless item counts are
//! checked); a decoded value conforms to the type. Layout: `reference/check.rs`.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;
use reference::check::{self, Format};

fuzz_target!(|data: &[u8]| check::schema_text(Format::Msgpack, data));
