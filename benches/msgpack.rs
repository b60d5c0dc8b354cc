//! MessagePack decoding throughput on `../shared/workloads/`: tfwire against
//! `rmpv::decode::read_value_ref` (an untyped zero-copy tree) in the same group.
//!
//! Run: `cargo bench --bench msgpack`. Workloads are read from `$TFWIRE_SHARED/workloads`
//! (default `../shared/workloads`); when absent, the repository's own copies in
//! `benches/data/` are used.

use std::path::{Path, PathBuf};

use bumpalo::Bump;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tfwire::Program;

fn workloads_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("workloads");
    dir.is_dir().then_some(dir)
}

const WORKLOADS: &[&str] = &[
    "aws_states",
    "google_states",
    "azurerm_states",
    "big_set_blocks",
    "string_heavy",
    "number_heavy",
    "unknown_heavy",
    "deep_dynamic",
];

fn bench(c: &mut Criterion) {
    let Some(dir) = workloads_dir() else {
        eprintln!("skipped: no workloads directory (set TFWIRE_SHARED)");
        return;
    };
    for name in WORKLOADS {
        let wdir = dir.join(name);
        let schema = std::fs::read_to_string(wdir.join("schema.json")).expect("schema.json");
        let input = std::fs::read(wdir.join("value.msgpack")).expect("value.msgpack");
        let program = Program::from_schema_json(&schema).expect("schema compiles");
        let mut group = c.benchmark_group(format!("msgpack/{name}"));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.sample_size(20);
        let mut bump = Bump::new();
        group.bench_function(BenchmarkId::new("tfwire", input.len()), |b| {
            b.iter(|| {
                bump.reset();
                let v = program.decode_msgpack(&input, &bump).expect("decodes");
                std::hint::black_box(v);
            })
        });
        group.bench_function(BenchmarkId::new("rmpv_read_value_ref", input.len()), |b| {
            b.iter(|| {
                let mut rd = &input[..];
                let v = rmpv::decode::read_value_ref(&mut rd).expect("decodes");
                std::hint::black_box(v);
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
