//! A type and a value generated from the input, encoded as MessagePack and (without unknowns)
//! JSON in encodings the input chooses, sometimes with a byte changed; a projection on paths
//! the input picks among the type's selection paths (attributes, `[*]`, `[N]`, map keys,
//! steps inside dynamic values) decodes to the full decode restricted to the paths wherever
//! the full decode accepts (`tests/reference/project.rs`).
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| reference::project::projection(data));
