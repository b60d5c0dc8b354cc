//! Schema compile time: parse a whole providers-schema document and compile every resource
//! type and data source in it (aws 4.13: 980 resource types, 372 data sources).
//!
//! Run: `cargo bench --bench compile`. Documents are read from `$TFWIRE_SHARED/corpus/schemas`
//! (default `../shared`); the benchmark is skipped when they are absent.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tfwire::schema::ProviderSchemas;
use tfwire::Program;

const DOCUMENTS: &[&str] = &[
    "tfjson-120_basic-aws-null.schemas.json",
    "google-5.0.0-upjet-gcp.schemas.json",
    "azurerm-4.80.0-upjet-azure.schemas.json",
];

fn schemas_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("corpus/schemas");
    dir.is_dir().then_some(dir)
}

/// Parses the document and compiles every resource and data source; returns how many.
fn compile_all(text: &str) -> usize {
    let doc = ProviderSchemas::parse(text).expect("document parses");
    let mut programs = 0;
    for provider in doc.providers.values() {
        for schema in provider
            .resources
            .values()
            .chain(provider.data_sources.values())
        {
            std::hint::black_box(Program::from_block(&schema.block).unwrap());
            programs += 1;
        }
    }
    programs
}

fn bench(c: &mut Criterion) {
    let Some(dir) = schemas_dir() else {
        eprintln!("skipped: no corpus schemas (set TFWIRE_SHARED)");
        return;
    };
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    for name in DOCUMENTS {
        let text = std::fs::read_to_string(dir.join(name)).expect("document");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| std::hint::black_box(compile_all(&text)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
