//! Json: the VM against the reference decoder (`tests/reference/`) under a type generated
//! from the input's first bytes: equal value trees or equal error kinds.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;
use reference::check::{self, Format};

fuzz_target!(|data: &[u8]| check::typed_differential(Format::Json, data));
