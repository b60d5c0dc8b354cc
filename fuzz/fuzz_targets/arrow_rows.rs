//! A type and a value generated from the input, as attribute `a` of a row, encoded as
//! MessagePack and (without unknowns) JSON in encodings the input chooses, sometimes with a
//! byte changed: read straight into Arrow columns (`BatchBuilder::decode_msgpack`,
//! `decode_json`) and the general way (the decode, then `append`), the same outcome for each
//! row and equal batches (`tests/reference/arrow_rows.rs`).
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::arrow_rows::rows(data));
