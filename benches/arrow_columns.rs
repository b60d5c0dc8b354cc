//! Decoding into Arrow record batches (issue 23's peer): the `aws_instance` workload's 711
//! instances, one JSON object each as NDJSON (the workload's bytes of each, unchanged), into
//! batches of 1,024 rows of tfwire's Arrow schema for the instance type:
//!
//! - `tfwire_json`: each instance read into a `BatchBuilder` (`BatchBuilder::decode_json`:
//!   straight into the columns, as go-cty writes the instances);
//! - `tfwire_msgpack`: the same from each instance's MessagePack (go-cty's encoding of it);
//! - `arrow_json`: arrow-json's `ReaderBuilder::new(schema).build_decoder()` over the NDJSON.
//!
//! `Throughput::Elements` (rows): the ratios asked are rows per second.
//! Run: `cargo bench --features arrow --bench arrow_columns`; one contender alone, for
//! callgrind or an A/B of two builds: `ARROW_COLUMNS_CALLGRIND=tfwire_json:11` (below).

use std::hint::black_box;
use std::sync::Arc;

use bumpalo::Bump;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::value::RawValue;
use tfwire::arrow::{schema, ArrowOptions, BatchBuilder};
use tfwire::{Program, Type};

const BATCH: usize = 1024;

fn bench(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("perf/workloads/aws_instance");
    let ty = Type::from_json(&std::fs::read_to_string(dir.join("type.json")).unwrap()).unwrap();
    let Type::Object(o) = &ty else {
        panic!("an object")
    };
    let Some(Type::List(elem)) = o.get("aws_instance") else {
        panic!("a list")
    };
    let program = Program::new(elem).unwrap();
    let text = std::fs::read_to_string(dir.join("value.json")).unwrap();
    #[derive(serde::Deserialize)]
    struct Top<'a> {
        #[serde(borrow)]
        aws_instance: Vec<&'a RawValue>,
    }
    let top: Top<'_> = serde_json::from_str(&text).unwrap();
    let instances: Vec<&[u8]> = top
        .aws_instance
        .iter()
        .map(|r| r.get().as_bytes())
        .collect();
    let mut ndjson = Vec::new();
    for i in &instances {
        ndjson.extend_from_slice(i);
        ndjson.push(b'\n');
    }
    let bump = Bump::new();
    let msgpack: Vec<Vec<u8>> = instances
        .iter()
        .map(|i| {
            let mut out = Vec::new();
            program
                .encode_msgpack(program.decode_json(i, &bump).unwrap(), &mut out)
                .unwrap();
            out
        })
        .collect();
    let options = ArrowOptions::default();
    let arrow_schema = Arc::new(schema(program.root_type(), &options).unwrap());
    let rows = instances.len();

    // The three give the same rows (checked once: row counts, and the same JSON written back).
    let tfwire_json = |bump: &mut Bump| {
        let mut builder = BatchBuilder::new(&program, &options).unwrap();
        let mut batches = Vec::new();
        for i in &instances {
            bump.reset();
            builder.decode_json(&program, i, bump).unwrap();
            if builder.len() == BATCH {
                batches.push(builder.finish().unwrap());
            }
        }
        batches.push(builder.finish().unwrap());
        batches
    };
    let tfwire_msgpack = |bump: &mut Bump| {
        let mut builder = BatchBuilder::new(&program, &options).unwrap();
        let mut batches = Vec::new();
        for i in &msgpack {
            bump.reset();
            builder.decode_msgpack(&program, i, bump).unwrap();
            if builder.len() == BATCH {
                batches.push(builder.finish().unwrap());
            }
        }
        batches.push(builder.finish().unwrap());
        batches
    };
    let arrow_json = || {
        let mut decoder = arrow_json::ReaderBuilder::new(arrow_schema.clone())
            .with_batch_size(BATCH)
            .build_decoder()
            .unwrap();
        let mut batches = Vec::new();
        let mut input = &ndjson[..];
        while !input.is_empty() {
            let n = decoder.decode(input).unwrap();
            input = &input[n..];
            if let Some(b) = decoder.flush().unwrap() {
                batches.push(b);
            }
        }
        if let Some(b) = decoder.flush().unwrap() {
            batches.push(b);
        }
        batches
    };
    let mut bump = Bump::new();
    let written = |batches: Vec<arrow_array::RecordBatch>| {
        let mut out = Vec::new();
        let mut w = arrow_json::LineDelimitedWriter::new(&mut out);
        for b in &batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
        drop(w);
        out
    };
    let a = written(tfwire_json(&mut bump));
    assert_eq!(a, written(tfwire_msgpack(&mut bump)));
    assert_eq!(a, written(arrow_json()));

    // `ARROW_COLUMNS_CALLGRIND=CONTENDER:N`: that contender N times and nothing else, for
    // instruction counts (`valgrind --tool=callgrind`: the count of N=11 less that of N=1,
    // over 10) or a time a round (on stderr) to compare two builds.
    if let Ok(spec) = std::env::var("ARROW_COLUMNS_CALLGRIND") {
        let (name, n) = spec.split_once(':').expect("CONTENDER:N");
        let n: u32 = n.parse().expect("a count");
        let start = std::time::Instant::now();
        for _ in 0..n {
            match name {
                "tfwire_json" => drop(black_box(tfwire_json(&mut bump))),
                "tfwire_msgpack" => drop(black_box(tfwire_msgpack(&mut bump))),
                "arrow_json" => drop(black_box(arrow_json())),
                _ => panic!("no contender {name}"),
            }
        }
        let per = start.elapsed().as_secs_f64() / f64::from(n.max(1));
        eprintln!("{name}: {n} rounds, {:.1} µs a round", per * 1e6);
        return;
    }

    // Interleaved rounds (each contender ~40 ms a round, in turn), medians: the figures of
    // record, as `tfwire bench` takes them.
    let mut runs: [Vec<f64>; 3] = Default::default();
    for _ in 0..15 {
        for (k, runs) in runs.iter_mut().enumerate() {
            let start = std::time::Instant::now();
            let mut n = 0u32;
            while start.elapsed().as_millis() < 40 {
                match k {
                    0 => drop(black_box(tfwire_json(&mut bump))),
                    1 => drop(black_box(tfwire_msgpack(&mut bump))),
                    _ => drop(black_box(arrow_json())),
                }
                n += 1;
            }
            runs.push(rows as f64 * f64::from(n) / start.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let [j, m, a] = runs.each_mut().map(median);
    println!(
        "interleaved medians (rows/s): tfwire_json {j:.0} ({:.2}× arrow_json), tfwire_msgpack {m:.0} ({:.2}×), arrow_json {a:.0}",
        j / a,
        m / a
    );

    let mut group = c.benchmark_group("arrow/aws_instance");
    group.throughput(Throughput::Elements(rows as u64));
    group.sample_size(20);
    group.bench_function("tfwire_json", |b| {
        b.iter(|| black_box(tfwire_json(&mut bump)))
    });
    group.bench_function("tfwire_msgpack", |b| {
        b.iter(|| black_box(tfwire_msgpack(&mut bump)))
    });
    group.bench_function("arrow_json", |b| b.iter(|| black_box(arrow_json())));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
