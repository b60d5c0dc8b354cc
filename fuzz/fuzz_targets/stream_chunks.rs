//! Streams of generated values in the three framings, read in chunks the input picks: the
//! stream API gives exactly the values (and errors, with their indices) of one-shot decodes.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::check::stream_chunks(data));
