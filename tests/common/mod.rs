//! Helpers shared by the integration tests (each test file that uses them says `mod common;`).
//!
//! Some tests need things outside the repository: the shared checkout (`$TFWIRE_SHARED`,
//! default `../shared` beside the repository), the go-cty oracle binary (`$CTYORACLE`, which
//! `.ci/run` builds from the shared checkout) or `python3`. They ask for them here and, when
//! one is absent:
//!
//! - in **strict** mode, fail, naming what is missing;
//! - otherwise print `SKIP: …` and pass (a developer without the shared checkout).
//!
//! Strict mode: `TFWIRE_REQUIRE_SHARED` decides when it is set (`0`, `false` or empty: off;
//! anything else: on); when it is unset, `CI` decides the same way (CI runners set `CI=true`).
//! `.ci/run` exports `TFWIRE_REQUIRE_SHARED=1`. So CI never skips silently.
#![allow(dead_code)]

pub mod state;

use std::path::{Path, PathBuf};

/// Whether a missing shared checkout, oracle or `python3` fails the test instead of skipping
/// it (see the module comment).
pub fn strict() -> bool {
    let var = |name| std::env::var(name).ok();
    strict_from(
        var("TFWIRE_REQUIRE_SHARED").as_deref(),
        var("CI").as_deref(),
    )
}

/// The strict-mode rule on the values of `TFWIRE_REQUIRE_SHARED` and `CI`.
pub fn strict_from(require_shared: Option<&str>, ci: Option<&str>) -> bool {
    let on = |v: &str| !matches!(v.to_ascii_lowercase().as_str(), "" | "0" | "false");
    match require_shared {
        Some(v) => on(v),
        None => ci.is_some_and(on),
    }
}

/// `found`, or, when it is `None`, a failure naming `what` (strict) or a skip message and
/// `None` (otherwise).
#[track_caller]
pub fn present<T>(found: Option<T>, strict: bool, what: &str, skip_msg: &str) -> Option<T> {
    if found.is_none() {
        if strict {
            panic!(
                "{what}: required because TFWIRE_REQUIRE_SHARED or CI is set (a test that \
                 needs it fails rather than skips: {skip_msg}); provide it, or set \
                 TFWIRE_REQUIRE_SHARED=0 to skip"
            );
        }
        eprintln!("SKIP: {what}: {skip_msg}");
    }
    found
}

/// Where the shared checkout is expected: `$TFWIRE_SHARED`, else `../shared` beside the
/// repository.
pub fn shared_path() -> PathBuf {
    std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("shared")
        })
}

/// The shared checkout with the corpus, the workloads and the oracle; when it is absent, a
/// failure in strict mode, else `None` after printing `skip_msg`.
#[track_caller]
pub fn shared_dir(skip_msg: &str) -> Option<PathBuf> {
    let dir = shared_path();
    let found = dir.is_dir().then(|| dir.clone());
    let what = format!(
        "the shared checkout {} is absent (set TFWIRE_SHARED to its path)",
        dir.display()
    );
    present(found, strict(), &what, skip_msg)
}

/// The go-cty oracle binary (`$CTYORACLE`, default `/tmp/oracle/ctyoracle`); when it is
/// absent, a failure in strict mode, else `None` after printing `skip_msg`.
#[track_caller]
pub fn oracle(skip_msg: &str) -> Option<PathBuf> {
    let path = PathBuf::from(
        std::env::var_os("CTYORACLE").unwrap_or_else(|| "/tmp/oracle/ctyoracle".into()),
    );
    let found = path.is_file().then(|| path.clone());
    let what = format!(
        "no go-cty oracle at {} (set CTYORACLE; `.ci/run` builds it with the shared \
         checkout's oracle/build.sh)",
        path.display()
    );
    present(found, strict(), &what, skip_msg)
}

/// `python3`, when it runs; else a failure in strict mode, or `None` after printing
/// `skip_msg`.
#[track_caller]
pub fn python3(skip_msg: &str) -> Option<&'static Path> {
    let runs = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let found = runs.then_some(Path::new("python3"));
    present(found, strict(), "python3 is not available", skip_msg)
}

/// `python3` when it runs and imports `modules` (pyarrow, duckdb, … from PyPI: `.ci/run`
/// installs them); else a failure in strict mode, or `None` after printing `skip_msg`.
#[track_caller]
pub fn python3_with(modules: &[&str], skip_msg: &str) -> Option<&'static Path> {
    let import = format!("import {}", modules.join(", "));
    let runs = std::process::Command::new("python3")
        .args(["-c", &import])
        .output()
        .is_ok_and(|o| o.status.success());
    let found = runs.then_some(Path::new("python3"));
    let what = format!("python3 with {} is not available", modules.join(", "));
    present(found, strict(), &what, skip_msg)
}

/// `tests/data` of this crate.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
}

/// The path of `tests/data/states/NAME` (the toy state and its schemas), as text.
pub fn toy_state_file(name: &str) -> String {
    data_dir().join("states").join(name).display().to_string()
}

/// A fresh directory for one test's files, `tfwire-TAG-…` under the system's temporary
/// directory, removed with what it holds when the [`Scratch`] drops (a failing test's too).
pub fn scratch_dir(tag: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("tfwire-{tag}-"))
        .tempdir()
        .unwrap();
    Scratch(dir)
}

/// A directory of [`scratch_dir`]: a [`Path`](std::path::Path), removed when dropped.
#[derive(Debug)]
pub struct Scratch(tempfile::TempDir);

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

/// A `tfwire state` run's stderr with the summary's timing as `seconds=S` (checked to be a
/// number), so that runs can be compared.
pub fn stderr_timeless(out: &std::process::Output) -> String {
    let text = String::from_utf8(out.stderr.clone()).unwrap();
    let (before, after) = text.split_once(" seconds=").unwrap();
    let (seconds, rest) = after.split_once('\n').unwrap();
    assert!(seconds.parse::<f64>().is_ok(), "{seconds}");
    format!("{before} seconds=S\n{rest}")
}
