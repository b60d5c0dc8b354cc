//! JSON decoding throughput on the workloads' `value.json`: one criterion group per workload,
//! `Throughput::Bytes`, tfwire (typing against the schema as it goes) and the JSON peers in the
//! same group: serde_json `Value`, simd-json borrowed value (the copy of the input it needs is
//! part of its time) and sonic-rs `Value`. On the `aws_instance` workload also the typed peers
//! (`src/cli/typed_peers.rs`): serde_json and sonic-rs into `#[derive(Deserialize)]` structs of
//! aws_instance, each checked once against the input's untyped tree first.
//!
//! Run: `cargo bench --bench json` (`TFWIRE_SHARED` names the shared directory).

use std::hint::black_box;

use bumpalo::Bump;
use criterion::{criterion_group, criterion_main, Criterion};
use tfwire::Program;

#[path = "support/workloads.rs"]
mod workloads;

// This bench uses the typed peers of its own format only.
#[allow(dead_code)]
#[path = "../src/cli/typed_peers.rs"]
mod typed_peers;

fn bench(c: &mut Criterion) {
    for w in workloads::load("json") {
        let program = Program::from_schema_json(&w.schema).expect("schema compiles");
        let input = &w.input[..];
        let mut bump = Bump::new();
        let mut contenders: Vec<workloads::Contender<'_>> = vec![
            (
                "tfwire",
                Box::new(move || {
                    bump.reset();
                    black_box(program.decode_json(input, &bump).expect("decodes"));
                }),
            ),
            (
                "serde_json_value",
                Box::new(|| {
                    let v: serde_json::Value = serde_json::from_slice(input).expect("decodes");
                    black_box(v);
                }),
            ),
        ];
        if simd_json::to_borrowed_value(&mut input.to_vec()).is_ok() {
            let mut buf = Vec::with_capacity(input.len());
            let mut buffers = simd_json::Buffers::new(input.len());
            contenders.push((
                "simd_json_borrowed",
                Box::new(move || {
                    buf.clear();
                    buf.extend_from_slice(input);
                    let v = simd_json::to_borrowed_value_with_buffers(&mut buf, &mut buffers)
                        .expect("decodes");
                    black_box(&v);
                }),
            ));
        } else {
            // simd-json rejects integers beyond 64 bits (number_heavy): nothing to time.
            eprintln!("json/{}: simd-json cannot parse this input", w.name);
        }
        contenders.push((
            "sonic_rs_value",
            Box::new(|| {
                let v: sonic_rs::Value = sonic_rs::from_slice(input).expect("decodes");
                black_box(v);
            }),
        ));
        if w.name == typed_peers::WORKLOAD {
            let untyped = typed_peers::untyped(input, false).expect("decodes");
            for decode in [typed_peers::serde_json, typed_peers::sonic_rs] {
                typed_peers::check(&decode(input).expect("decodes"), &untyped)
                    .expect("typed decode equals the input");
            }
            contenders.push((
                "serde_json_typed",
                Box::new(|| {
                    black_box(typed_peers::serde_json(input).expect("decodes"));
                }),
            ));
            contenders.push((
                "sonic_rs_typed",
                Box::new(|| {
                    black_box(typed_peers::sonic_rs(input).expect("decodes"));
                }),
            ));
        }
        workloads::group(c, "json", &w, contenders);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
