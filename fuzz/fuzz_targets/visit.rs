//! A type and a value generated from the input, in both encodings, sometimes with a byte
//! changed, visited (`Program::visit`) by the full program or a projection the input picks:
//! what the visit tells rebuilds the decoded value, and it fails where the decode fails, with
//! the same error (`tests/reference/visit.rs`).
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::visit::visit(data));
