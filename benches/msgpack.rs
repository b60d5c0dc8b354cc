//! MessagePack decoding throughput on `../shared/workloads/` (or, without it, the copies in
//! `perf/workloads/`): one criterion group per workload, `Throughput::Bytes`, tfwire and every
//! msgpack peer in the same group: `rmpv::decode::read_value_ref` (zero-copy untyped tree),
//! `rmpv::decode::read_value` (owned tree), rmp-serde into `rmpv::Value`.
//!
//! Run: `cargo bench --bench msgpack` (`TFWIRE_SHARED` names the shared directory).

use bumpalo::Bump;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tfwire::Program;

#[path = "workloads.rs"]
mod workloads;

fn bench(c: &mut Criterion) {
    for w in workloads::load("msgpack") {
        let program = Program::from_schema_json(&w.schema).expect("schema compiles");
        let input = &w.input[..];
        let mut group = c.benchmark_group(format!("msgpack/{}", w.name));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.sample_size(20);
        let mut bump = Bump::new();
        group.bench_function("tfwire", |b| {
            b.iter(|| {
                bump.reset();
                std::hint::black_box(program.decode_msgpack(input, &bump).expect("decodes"));
            })
        });
        group.bench_function("rmpv_read_value_ref", |b| {
            b.iter(|| {
                let mut rd = input;
                std::hint::black_box(rmpv::decode::read_value_ref(&mut rd).expect("decodes"));
            })
        });
        group.bench_function("rmpv_read_value", |b| {
            b.iter(|| {
                let mut rd = input;
                std::hint::black_box(rmpv::decode::read_value(&mut rd).expect("decodes"));
            })
        });
        group.bench_function("rmp_serde_value", |b| {
            b.iter(|| {
                let v: rmpv::Value = rmp_serde::from_slice(input).expect("decodes");
                std::hint::black_box(v);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
