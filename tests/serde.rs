//! serde interop (`src/serde/`): `Serialize for Typed` (exact JSON through serde_json),
//! `from_typed` (exact values, borrowed strings, exact error paths and messages),
//! `MaybeUnknown`, the acceptance test over the corpus's `aws_security_group` and
//! `aws_instance` instances, and serde_json's text of every corpus instance and workload
//! against tfwire's JSON encoder and go-cty's JSON.
//!
//! The corpus tests need the shared checkout (`$TFWIRE_SHARED`, default `../shared`) and fail
//! without it: they are the acceptance test.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use bumpalo::Bump;
use serde::de::IgnoredAny;
use serde::Deserialize;
use tfwire::state::{Mode, Outcome, SchemaSet, StateFile};
use tfwire::{
    from_typed, DeError, DecodeOptions, InfinityAs, MaybeUnknown, Object, Program,
    SerializeOptions, Typed, UnknownAs, Value,
};

fn program(ty: &str) -> Program {
    Program::from_type_json(ty).unwrap()
}

/// MessagePack bytes of an rmpv value (`unknown()` for an unknown).
fn mp(v: rmpv::Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, &v).unwrap();
    out
}

fn unknown() -> rmpv::Value {
    rmpv::Value::Ext(0, vec![0])
}

fn obj(entries: Vec<(&str, rmpv::Value)>) -> rmpv::Value {
    rmpv::Value::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

fn to_json(t: Typed<'_>) -> String {
    serde_json::to_string(&t).unwrap()
}

fn ser_error(t: Typed<'_>) -> String {
    serde_json::to_string(&t).unwrap_err().to_string()
}

fn de_error<'de, T: Deserialize<'de> + std::fmt::Debug>(t: Typed<'de>) -> String {
    let e: DeError = from_typed::<T>(t).unwrap_err();
    // Display is exactly `at PATH: MESSAGE`.
    let path = if e.path().is_empty() {
        "(root)"
    } else {
        e.path()
    };
    assert_eq!(e.to_string(), format!("at {path}: {}", e.message()));
    e.to_string()
}

/// Runs `f` on a thread with a large stack (for the nesting caps, at a thousand levels).
fn big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// The corpus (needs the shared checkout; fails without it).

/// The shared checkout's corpus; a failure when it is absent.
fn corpus() -> PathBuf {
    let shared = common::shared_path();
    let corpus = shared.join("corpus");
    assert!(
        corpus.is_dir(),
        "the shared checkout's corpus {} is absent: this test needs it (set TFWIRE_SHARED)",
        corpus.display()
    );
    corpus
}

fn files(dir: &Path, ext: &str, recursive: bool, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if recursive {
                files(&path, ext, true, out);
            }
        } else if path.to_str().unwrap().ends_with(ext) {
            out.push(path);
        }
    }
    out.sort();
}

fn state_files() -> Vec<PathBuf> {
    let mut states = Vec::new();
    files(&corpus().join("states"), ".tfstate", true, &mut states);
    assert_eq!(states.len(), 213);
    states
}

#[path = "serde/acceptance.rs"]
mod acceptance;
#[path = "serde/agreement.rs"]
mod agreement;
#[path = "serde/deserialize.rs"]
mod deserialize;
#[path = "serde/serialize.rs"]
mod serialize;
