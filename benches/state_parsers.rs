//! Where 0.6× of the one-value decode lies for a state file (issue 11): each peer parser's
//! throughput on the fleet's large state against its own on `aws_states` (one compact value),
//! both from memory, with no schema and no output. A parser that only skips or tokenizes the
//! state shows how much of the one-value rate a pretty-printed state of many small resources
//! allows before any decode, DUMP or I/O.
//!
//! Run: `python3 perf/fleet.py` (writes the state), then
//! `TFWIRE_FLEET_STATE=/tmp/tfwire-fleet/large.tfstate cargo bench --bench state_parsers`.
//! Prints one line per parser: MB/s on the state, on `aws_states`, and their ratio (medians
//! of five runs). Skipped, saying so, when either input is absent.

use std::path::{Path, PathBuf};
use std::time::Instant;

type Parse = fn(&[u8]);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// MB/s of `parse` over `data`, `reps` parses per timed run, median of five runs.
fn rate(data: &[u8], reps: u32, parse: Parse) -> f64 {
    let times = (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                parse(data);
            }
            t.elapsed().as_secs_f64() / f64::from(reps)
        })
        .collect();
    data.len() as f64 / 1e6 / median(times)
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
        .unwrap_or_else(|| PathBuf::from("/tmp/tfwire-fleet/large.tfstate"));
    let shared = std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let value = shared.join("workloads/aws_states/value.json");
    let (Ok(state_bytes), Ok(value_bytes)) = (std::fs::read(&state), std::fs::read(&value)) else {
        eprintln!(
            "state_parsers: skipped ({} or {} is absent; run perf/fleet.py)",
            state.display(),
            value.display()
        );
        return;
    };
    let parsers: [(&str, Parse); 5] = [
        ("tfwire, validating skip (skip_json)", tfwire_skip),
        ("serde_json, validating skip (IgnoredAny)", serde_skip),
        ("sonic-rs, skip (get of a missing key)", sonic_skip),
        ("sonic-rs, Value", sonic_value),
        ("simd-json, tape", simd_tape),
    ];
    println!(
        "{} ({:.0} MB) against aws_states ({:.2} MB), from memory:",
        state.display(),
        state_bytes.len() as f64 / 1e6,
        value_bytes.len() as f64 / 1e6
    );
    for (name, parse) in parsers {
        let on_state = rate(&state_bytes, 1, parse);
        let on_value = rate(&value_bytes, 50, parse);
        println!(
            "{name}: state {on_state:.0} MB/s, aws_states {on_value:.0} MB/s, ratio {:.2}",
            on_state / on_value
        );
    }
}
