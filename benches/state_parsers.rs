//! Where 0.6× of the one-value decode lies for a state file (issue 11): each peer parser's
//! throughput on a fleet's large state against its own on `aws_states` (one compact value),
//! both from memory, with no schema and no output. A parser that only skips or tokenizes the
//! state shows how much of the one-value rate a state of many small resources allows before
//! any decode, DUMP or I/O (`large.pretty.json` for Terraform's indented form). It also gives
//! issue 22's figure for the large state: tfwire's validating skip against serde_json's
//! `IgnoredAny` on the same bytes.
//!
//! Run: `python3 perf/fleet_scan.py --build-only` (writes `/tmp/tfwire-fleet-scan/large.json`,
//! the default input; `TFWIRE_FLEET_STATE=FILE` names another), then `cargo bench --bench
//! state_parsers`. `TFWIRE_STATE_PARSERS=tfwire_skip,serde_json_skip` keeps only those
//! parsers (names: `tfwire_skip`, `serde_json_skip`, `sonic_rs_skip`, `sonic_rs`, `simd_json`;
//! any other is refused) and `TFWIRE_STATE_ROUNDS=N` sets the rounds (at least 1, default 5).
//! Each round times every parser once on each input, in turn, so that a machine's slow spell
//! falls on all of them. Prints one line per parser, its name first: MB/s on the state, on
//! `aws_states`, and their ratio (medians of the rounds); then, when both skips ran, the
//! skip's ratio to `IgnoredAny` on each input (the median of the rounds' ratios;
//! `perf/codec_figures.py` reads that line and the skips' MB/s). Skipped, saying so, when
//! either input is absent.

use std::path::{Path, PathBuf};
use std::time::Instant;

type Parse = fn(&[u8]);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// MB/s of one timed run of `parse` over `data`, `reps` parses in a row.
fn rate(data: &[u8], reps: u32, parse: Parse) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        parse(data);
    }
    data.len() as f64 * f64::from(reps) / 1e6 / t.elapsed().as_secs_f64()
}

fn tfwire_skip(d: &[u8]) {
    let end = tfwire::skip_json(d).expect("valid JSON");
    std::hint::black_box(end);
}

fn serde_skip(d: &[u8]) {
    let _: serde::de::IgnoredAny = serde_json::from_slice(d).expect("valid JSON");
}

fn sonic_value(d: &[u8]) {
    let v: sonic_rs::Value = sonic_rs::from_slice(d).expect("valid JSON");
    std::hint::black_box(v);
}

fn sonic_skip(d: &[u8]) {
    // Looking up a key no document has skips every value of the top-level object.
    std::hint::black_box(sonic_rs::get(d, ["no such key"]).is_ok());
}

fn simd_tape(d: &[u8]) {
    let mut copy = d.to_vec();
    let tape = simd_json::to_tape(&mut copy).expect("valid JSON");
    std::hint::black_box(tape.0.len());
}

fn main() {
    let state = std::env::var_os("TFWIRE_FLEET_STATE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/tfwire-fleet-scan/large.json"));
    let shared = std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let value = shared.join("workloads/aws_states/value.json");
    let (Ok(state_bytes), Ok(value_bytes)) = (std::fs::read(&state), std::fs::read(&value)) else {
        eprintln!(
            "state_parsers: skipped ({} or {} is absent; run perf/fleet_scan.py --build-only)",
            state.display(),
            value.display()
        );
        return;
    };
    let all: [(&str, &str, Parse); 5] = [
        (
            "tfwire_skip",
            "tfwire, validating skip (skip_json)",
            tfwire_skip,
        ),
        (
            "serde_json_skip",
            "serde_json, validating skip (IgnoredAny)",
            serde_skip,
        ),
        (
            "sonic_rs_skip",
            "sonic-rs, skip (get of a missing key)",
            sonic_skip,
        ),
        ("sonic_rs", "sonic-rs, Value", sonic_value),
        ("simd_json", "simd-json, tape", simd_tape),
    ];
    let wanted: Option<Vec<String>> = std::env::var("TFWIRE_STATE_PARSERS")
        .ok()
        .map(|w| w.split(',').map(|x| x.trim().to_owned()).collect());
    if let Some(unknown) = wanted
        .iter()
        .flatten()
        .find(|x| !all.iter().any(|(id, _, _)| id == x))
    {
        eprintln!(
            "state_parsers: no parser {unknown:?} (TFWIRE_STATE_PARSERS names: {})",
            all.map(|(id, _, _)| id).join(", ")
        );
        std::process::exit(2);
    }
    let parsers: Vec<_> = all
        .into_iter()
        .filter(|(id, _, _)| wanted.as_ref().is_none_or(|w| w.iter().any(|x| x == id)))
        .collect();
    let rounds: usize = std::env::var("TFWIRE_STATE_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&r| r > 0)
        .unwrap_or(5);
    println!(
        "{} ({:.0} MB) against aws_states ({:.2} MB), from memory, {rounds} interleaved rounds:",
        state.display(),
        state_bytes.len() as f64 / 1e6,
        value_bytes.len() as f64 / 1e6
    );
    // Rates by parser: (on the state, on aws_states), one entry a round.
    let mut rates = vec![(Vec::new(), Vec::new()); parsers.len()];
    for _ in 0..rounds {
        for ((_, _, parse), (on_state, on_value)) in parsers.iter().zip(&mut rates) {
            on_state.push(rate(&state_bytes, 1, *parse));
            on_value.push(rate(&value_bytes, 50, *parse));
        }
    }
    for ((id, name, _), (on_state, on_value)) in parsers.iter().zip(&rates) {
        let (s, v) = (median(on_state.clone()), median(on_value.clone()));
        println!(
            "{id}: state {s:.0} MB/s, aws_states {v:.0} MB/s, ratio {:.2} ({name})",
            s / v
        );
    }
    let by_id = |id: &str| {
        parsers
            .iter()
            .position(|(p, _, _)| *p == id)
            .and_then(|i| rates.get(i))
    };
    if let (Some(ours), Some(theirs)) = (by_id("tfwire_skip"), by_id("serde_json_skip")) {
        let per_round =
            |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
        println!(
            "skip_json / IgnoredAny: state {:.2}x, aws_states {:.2}x",
            per_round(&ours.0, &theirs.0),
            per_round(&ours.1, &theirs.1)
        );
    }
}
