//! JSON decoding throughput on the workloads' `value.json`: one criterion group per workload,
//! `Throughput::Bytes`, tfwire (typing against the schema as it goes) and the JSON peers in the
//! same group: serde_json `Value`, simd-json borrowed value (the copy of the input it needs is
//! part of its time) and sonic-rs `Value`.
//!
//! Run: `cargo bench --bench json` (`TFWIRE_SHARED` names the shared directory).

use bumpalo::Bump;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tfwire::Program;

#[path = "workloads.rs"]
mod workloads;

fn bench(c: &mut Criterion) {
    for w in workloads::load("json") {
        let program = Program::from_schema_json(&w.schema).expect("schema compiles");
        let input = &w.input[..];
        let mut group = c.benchmark_group(format!("json/{}", w.name));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.sample_size(20);
        let mut bump = Bump::new();
        group.bench_function("tfwire", |b| {
            b.iter(|| {
                bump.reset();
                std::hint::black_box(program.decode_json(input, &bump).expect("decodes"));
            })
        });
        group.bench_function("serde_json_value", |b| {
            b.iter(|| {
                let v: serde_json::Value = serde_json::from_slice(input).expect("decodes");
                std::hint::black_box(v);
            })
        });
        let mut buf = Vec::with_capacity(input.len());
        let mut buffers = simd_json::Buffers::new(input.len());
        if simd_json::to_borrowed_value(&mut input.to_vec()).is_ok() {
            group.bench_function("simd_json_borrowed", |b| {
                b.iter(|| {
                    buf.clear();
                    buf.extend_from_slice(input);
                    let v = simd_json::to_borrowed_value_with_buffers(&mut buf, &mut buffers)
                        .expect("decodes");
                    std::hint::black_box(&v);
                })
            });
        } else {
            // simd-json rejects integers beyond 64 bits (number_heavy): nothing to time.
            eprintln!("json/{}: simd-json cannot parse this input", w.name);
        }
        group.bench_function("sonic_rs_value", |b| {
            b.iter(|| {
                let v: sonic_rs::Value = sonic_rs::from_slice(input).expect("decodes");
                std::hint::black_box(v);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
