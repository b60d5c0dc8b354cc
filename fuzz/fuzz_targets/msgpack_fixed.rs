//! Msgpack decode against real schemas (`fixed.rs`): never panics; agrees with the reference
//! decoder; a decoded value conforms to the type and DUMPs as the reference's.
#![no_main]

mod fixed;
#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;
use reference::check::{self, Format};

fuzz_target!(|data: &[u8]| {
    fixed::with_program(data, |p| check::fixed(p, Format::Msgpack, data));
});
