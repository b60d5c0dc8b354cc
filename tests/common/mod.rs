//! Helpers shared by the integration tests (each test file that uses them says `mod common;`).
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared checkout (`$TFWIRE_SHARED`, default `/work/shared`) with the corpus and the
/// oracle, or `None` when it is absent. Tests that need it print `skip_msg` and pass then.
pub fn shared_dir(skip_msg: &str) -> Option<PathBuf> {
    let dir =
        PathBuf::from(std::env::var_os("TFWIRE_SHARED").unwrap_or_else(|| "/work/shared".into()));
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
