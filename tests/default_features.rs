//! `tfwire = "0.1"` (default features) pulls only the library's own dependencies: none of the
//! command line's (clap, rayon, indicatif, libc), `tfwire bench`'s (flate2 and the peers) or
//! the typed columns' (arrow's crates, `--features arrow`).
//! Checked on the normal dependency tree `cargo tree` gives for each feature set.

use std::collections::BTreeSet;
use std::process::Command;

/// The CLI's dependencies (`--features cli`).
const CLI: [&str; 4] = ["clap", "rayon", "indicatif", "libc"];
/// `tfwire bench`'s dependencies beyond the CLI's (`--features bench`).
const BENCH: [&str; 6] = [
    "flate2",
    "rmpv",
    "rmp-serde",
    "simd-json",
    "sonic-rs",
    "serde_derive",
];

/// The typed columns' dependencies (`--features arrow`).
const ARROW: [&str; 3] = ["arrow-array", "arrow-buffer", "arrow-schema"];

/// The names of the packages in tfwire's normal dependency tree with `features`.
fn tree(features: &[&str]) -> BTreeSet<String> {
    let run = |offline: bool| {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["tree", "-e", "normal", "-p", "tfwire", "--prefix", "none"])
            .args(features)
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        if offline {
            cmd.arg("--offline");
        }
        cmd.output().expect("cargo runs")
    };
    // Offline when the dependencies are already here (they are after a build), else online.
    let out = match run(true) {
        out if out.status.success() => out,
        _ => run(false),
    };
    assert!(
        out.status.success(),
        "cargo tree {features:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn default_features_pull_no_cli_or_bench_dependency() {
    let default = tree(&[]);
    assert!(default.contains("bumpalo"), "{default:?}");
    for name in CLI.iter().chain(&BENCH).chain(&ARROW) {
        assert!(!default.contains(*name), "{name} with default features");
    }
    let arrow = tree(&["--features", "arrow"]);
    for name in ARROW {
        assert!(arrow.contains(name), "{name} missing with --features arrow");
    }
    // (arrow's own dependencies take libc.)
    for name in CLI.iter().chain(&BENCH).filter(|n| **n != "libc") {
        assert!(!arrow.contains(*name), "{name} with --features arrow");
    }
    // `--features cli`: the binary's dependencies, not bench's.
    let cli = tree(&["--features", "cli"]);
    for name in CLI {
        assert!(cli.contains(name), "{name} missing with --features cli");
    }
    for name in BENCH {
        assert!(!cli.contains(name), "{name} with --features cli");
    }
    // `--features bench`: all of them (so that this test can fail).
    let bench = tree(&["--features", "bench"]);
    for name in CLI.iter().chain(&BENCH) {
        assert!(
            bench.contains(*name),
            "{name} missing with --features bench"
        );
    }
}
