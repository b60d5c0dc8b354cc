//! DUMPs written straight from the JSON (`SchemaSet::write_dumps`) against the decode's: a
//! generated type and value as an instance's attribute, in the encodings the input picks,
//! with a byte changed and spaced out, read by a set that writes DUMPs and by one that does
//! not give the same outcomes.
#![no_main]

#[path = "../../tests/reference/mod.rs"]
mod reference;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    reference::dumps::dumps(data);
});
