//! Helpers shared by the integration tests (each test file that uses them says `mod common;`).
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared checkout (`$TFWIRE_SHARED`, default `../shared` beside the repository) with the
/// corpus and the oracle, or `None` when it is absent. Tests that need it print `skip_msg`
/// and pass then.
pub fn shared_dir(skip_msg: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("shared")
        });
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("SKIP: {} is absent: {skip_msg}", dir.display());
        None
    }
}

/// `tests/data` of this crate.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
}
