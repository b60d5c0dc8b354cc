//! MessagePack decoding throughput on `../shared/workloads/` (or, without it, the copies in
//! `perf/workloads/`): one criterion group per workload, `Throughput::Bytes`, tfwire and every
//! msgpack peer in the same group: `rmpv::decode::read_value_ref` (zero-copy untyped tree),
//! `rmpv::decode::read_value` (owned tree), rmp-serde into `rmpv::Value`, and the bare
//! skip-walk (`src/cli/skip_walk.rs`: finds the value's end, builds and checks nothing),
//! beside tfwire's own validating skip (`tfwire::skip_msgpack`: headers, lengths and the UTF-8
//! of every string checked, nothing built). On the
//! `aws_instance` workload also the typed peer (`src/cli/typed_peers.rs`): rmp-serde into
//! `#[derive(Deserialize)]` structs of aws_instance, checked once against the input's untyped
//! tree first.
//!
//! Run: `cargo bench --bench msgpack` (`TFWIRE_SHARED` names the shared directory).

use std::hint::black_box;

use bumpalo::Bump;
use criterion::{criterion_group, criterion_main, Criterion};
use tfwire::Program;

#[path = "support/workloads.rs"]
mod workloads;

#[path = "../src/cli/skip_walk.rs"]
mod skip_walk;

// This bench uses the typed peers of its own format only.
#[allow(dead_code)]
#[path = "../src/cli/typed_peers.rs"]
mod typed_peers;

fn bench(c: &mut Criterion) {
    for w in workloads::load("msgpack") {
        let program = Program::from_schema_json(&w.schema).expect("schema compiles");
        let input = &w.input[..];
        let mut bump = Bump::new();
        let mut contenders: Vec<workloads::Contender<'_>> = vec![
            (
                "tfwire",
                Box::new(move || {
                    bump.reset();
                    black_box(program.decode_msgpack(input, &bump).expect("decodes"));
                }),
            ),
            (
                "skip_walk",
                Box::new(|| {
                    assert_eq!(skip_walk::skip_walk(black_box(input)), Some(input.len()));
                }),
            ),
            (
                "tfwire_skip",
                Box::new(|| {
                    let n = tfwire::skip_msgpack(black_box(input)).expect("skips");
                    assert_eq!(n, input.len());
                }),
            ),
            (
                "rmpv_read_value_ref",
                Box::new(|| {
                    let mut rd = input;
                    black_box(rmpv::decode::read_value_ref(&mut rd).expect("decodes"));
                }),
            ),
            (
                "rmpv_read_value",
                Box::new(|| {
                    let mut rd = input;
                    black_box(rmpv::decode::read_value(&mut rd).expect("decodes"));
                }),
            ),
            (
                "rmp_serde_value",
                Box::new(|| {
                    let v: rmpv::Value = rmp_serde::from_slice(input).expect("decodes");
                    black_box(v);
                }),
            ),
        ];
        if w.name == typed_peers::WORKLOAD {
            let untyped = typed_peers::untyped(input, true).expect("decodes");
            typed_peers::check(&typed_peers::rmp_serde(input).expect("decodes"), &untyped)
                .expect("typed decode equals the input");
            contenders.push((
                "rmp_serde_typed",
                Box::new(|| {
                    black_box(typed_peers::rmp_serde(input).expect("decodes"));
                }),
            ));
        }
        workloads::group(c, "msgpack", &w, contenders);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
