//! The benchmark inputs: the workloads of `$TFWIRE_SHARED/workloads` (default
//! `../shared/workloads`) when present, and those of the repository's `perf/workloads` that it
//! does not have (all of them without it: `google_states`, `azurerm_states`, `aws_instance`).

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput};

/// One workload's schema and input in one encoding.
pub struct Workload {
    pub name: String,
    pub schema: String,
    pub input: Vec<u8>,
}

/// Every workload that has `value.{ext}`, sorted by name.
pub fn load(ext: &str) -> Vec<Workload> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared"))
        .join("workloads");
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in [shared, root.join("perf/workloads")] {
        let entries =
            std::fs::read_dir(&dir).map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())));
        for d in entries.into_iter().flatten() {
            if !dirs.iter().any(|seen| seen.file_name() == d.file_name()) {
                dirs.push(d);
            }
        }
    }
    dirs.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    dirs.into_iter()
        .filter_map(|d| {
            let input = std::fs::read(d.join(format!("value.{ext}"))).ok()?;
            let schema = std::fs::read_to_string(d.join("schema.json")).ok()?;
            let name = d.file_name()?.to_string_lossy().into_owned();
            Some(Workload {
                name,
                schema,
                input,
            })
        })
        .collect()
}

/// A contender: its name in the group and one decode of the workload's input.
pub type Contender<'w> = (&'static str, Box<dyn FnMut() + 'w>);

/// One criterion group `FORMAT/WORKLOAD`, `Throughput::Bytes` of the input, every contender
/// timed in it.
pub fn group(c: &mut Criterion, format: &str, w: &Workload, contenders: Vec<Contender<'_>>) {
    let mut group = c.benchmark_group(format!("{format}/{}", w.name));
    group.throughput(Throughput::Bytes(w.input.len() as u64));
    group.sample_size(20);
    for (name, mut decode) in contenders {
        group.bench_function(name, |b| b.iter(&mut decode));
    }
    group.finish();
}
