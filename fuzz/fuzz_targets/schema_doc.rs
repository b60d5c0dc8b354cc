//! `SchemaSource::parse` on arbitrary bytes: never panics; every schema of a parsed source
//! has an implied type that prints and parses back to itself, and compiles.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::check::schema_doc(data));
