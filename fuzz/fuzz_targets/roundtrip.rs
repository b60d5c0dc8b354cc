//! A type and a value generated from the input, encoded as MessagePack and (without
//! unknowns) as JSON in encodings the input chooses: the VM and the reference decode both
//! to the generated value.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::check::roundtrip(data));
