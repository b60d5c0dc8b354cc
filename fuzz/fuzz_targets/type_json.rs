//! `Type::from_json_bytes` on arbitrary bytes: never panics; a parsed type prints to JSON
//! that parses back to the same type, and compiles.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::check::type_json(data));
