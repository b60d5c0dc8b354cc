//! The go-cty conformance cases, shared by `conformance.rs` (MessagePack) and
//! `json_conformance.rs`: the case folders (the shared checkout's `conformance/generated/*/`
//! when present, then the in-repo copies `tests/data/conformance/*/`), a check run on every
//! case with all failures collected, and the DUMP comparison of `dumpcmp.py --f64` (the port
//! in `dumpcmp.rs`, re-exported here). Included with
//! `#[path = "support/cases.rs"] mod cases;`.
#![allow(dead_code)]

#[path = "dumpcmp.rs"]
pub mod dumpcmp;

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use dumpcmp::{compare, Options};

/// `dumpcmp.py --f64`: numbers are also equal when both round to the same `f64`.
pub const F64: Options = Options {
    f64: true,
    ignore_refinements: false,
};

/// The sub-folders of `dir`, sorted.
pub fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Every case folder: `shared`'s `conformance/generated/*/` (when the shared checkout is
/// present), then the in-repo copies.
pub fn case_dirs(shared: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(shared) = shared {
        dirs.extend(folders(&shared.join("conformance").join("generated")));
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    dirs.extend(folders(
        &here.join("tests").join("data").join("conformance"),
    ));
    dirs
}

/// The numbers `i` of the files `i{suffix}` of a folder, in numeric order.
pub fn case_ids(dir: &Path, suffix: &str) -> Vec<u64> {
    let mut ids: Vec<u64> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().ok()?;
            name.strip_suffix(suffix)?.parse().ok()
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// The program of case `id`'s schema (`i.schema.json`).
pub fn case_program(dir: &Path, id: u64) -> Result<tfwire::Program, String> {
    use tfwire::schema::{SchemaSelector, SchemaSource};
    let schema = read_text(&dir.join(format!("{id}.schema.json")))?;
    let source = SchemaSource::parse(&schema).map_err(|e| format!("schema: {e}"))?;
    tfwire::Program::from_source(&source, &SchemaSelector::default())
        .map_err(|e| format!("schema: {e}"))
}

pub fn read_text(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs `check` on every case `i` of every folder of `dirs` that has an `i{suffix}`, catching
/// panics; prints a line per folder, then fails listing every failing case. Returns the
/// number of cases run.
pub fn for_each_case(
    dirs: &[PathBuf],
    suffix: &str,
    check: impl Fn(&Path, u64) -> Result<(), String>,
) -> usize {
    let mut failures = Vec::new();
    let mut run = 0;
    for dir in dirs {
        let ids = case_ids(dir, suffix);
        assert!(!ids.is_empty(), "{}: no {suffix} cases", dir.display());
        let mut passed = 0;
        for &id in &ids {
            run += 1;
            let result = catch_unwind(AssertUnwindSafe(|| check(dir, id))).unwrap_or_else(|p| {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(format!("panicked: {msg}"))
            });
            match result {
                Ok(()) => passed += 1,
                Err(why) => failures.push(format!("{}/{id}{suffix}: {why}", dir.display())),
            }
        }
        let n = ids.len();
        println!("{}: {n} {suffix} cases, {passed} passed", dir.display());
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    let n = failures.len();
    assert!(n == 0, "{n} case(s) failed:\n{}", failures.join("\n"));
    run
}

/// Compares the DUMP `got` with the expected `want` under `type_json` as `dumpcmp.py --f64`
/// does; a difference names the sides `got` and `want`.
pub fn compare_dumps(type_json: &str, got: &str, want: &str) -> Result<(), String> {
    compare(type_json, got, want, F64).map_err(|e| {
        e.replacen("\n  A:", "\n  got:", 1)
            .replacen("\n  B:", "\n  want:", 1)
    })
}
