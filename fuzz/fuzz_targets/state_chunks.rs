//! Any bytes read as a state file by the incremental reader, in one piece and in pieces the
//! input picks: the same instances, outcomes and values (or the same error), and what
//! `StateFile::parse` gives wherever it reads the file.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::state::state_chunks(data));
