//! `tfwire bench`: tfwire against its peers on the same inputs, interleaved in rounds, medians.
//!
//! Every input is first decoded by tfwire and checked against its expected DUMP (when one is
//! known) — a broken decode is never timed. Then each round runs every contender for a fixed
//! slice of time, in turn, so that machine noise hits them alike; the table shows the median
//! MB/s of the rounds and tfwire's ratio to each peer.
//!
//! On the `aws_instance` workload the typed peers join in (`typed_peers.rs`: serde_json,
//! sonic-rs and rmp-serde into `#[derive(Deserialize)]` structs of aws_instance), each checked
//! against the input's untyped tree before it is timed; other rows show `—` for them. There
//! too, the projection contenders (`bench_project.rs`) and typed columns' (`bench_arrow.rs`:
//! tfwire's Arrow batches against arrow-json's decoder). `bench_render.rs` writes the report.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bumpalo::Bump;
use clap::Args;
use tfwire::schema::{SchemaSelector, SchemaSource};
use tfwire::{DecodeOptions, Program};

use super::Failure;
use bench_render::{render_json, render_text};

#[path = "../../tests/support/dumpcmp.rs"]
mod dumpcmp;

#[path = "typed_peers.rs"]
mod typed_peers;

#[path = "bench_arrow.rs"]
mod bench_arrow;
#[path = "bench_encode.rs"]
mod bench_encode;
#[path = "bench_project.rs"]
mod bench_project;
#[path = "bench_render.rs"]
mod bench_render;
#[path = "bench_skip.rs"]
mod bench_skip;

/// Options of `tfwire bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Benchmark your own input instead of the workloads: a schema file (as for `decode`).
    #[arg(short, long, value_name = "FILE", requires = "input")]
    schema: Option<PathBuf>,
    /// Benchmark your own input: a type constraint as JSON, or `@FILE`.
    #[arg(
        short,
        long = "type",
        value_name = "JSON",
        conflicts_with = "schema",
        requires = "input"
    )]
    type_json: Option<String>,
    /// With `--schema` and a providers-schema document: the resource type.
    #[arg(long, value_name = "NAME", requires = "schema")]
    resource: Option<String>,
    /// With `--schema` and a providers-schema document: the data source.
    #[arg(long, value_name = "NAME", requires = "schema")]
    data_source: Option<String>,
    /// With `--schema` and a providers-schema document: the provider.
    #[arg(long, value_name = "NAME", requires = "schema")]
    provider: Option<String>,
    /// Encoding of your own input (default msgpack); with the workloads, only this encoding.
    #[arg(short, long, value_enum)]
    format: Option<Encoding>,
    /// Only these workloads (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,
    /// Only these contenders (comma-separated: tfwire, skip_walk, rmpv_ref, rmpv, rmp_serde,
    /// serde_json, simd_json, sonic_rs; the skips tfwire_skip, serde_json_skip,
    /// sonic_rs_skip; on the aws_instance workload also rmp_serde_typed, serde_json_typed,
    /// sonic_rs_typed, the projections tfwire_project, serde_json_3field, sonic_rs_3field,
    /// sonic_rs_lazy, and the Arrow batches tfwire_arrow, arrow_json).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    contenders: Vec<String>,
    /// Rounds per input (the table shows medians).
    #[arg(long, default_value_t = 7)]
    rounds: u32,
    /// Milliseconds each contender runs per round.
    #[arg(long, default_value_t = 40)]
    round_ms: u64,
    /// Measure encoding instead of decoding: each value (decoded once) written back, tfwire's
    /// encoders against rmpv's `write_value` (msgpack) and serde_json's and sonic-rs's
    /// `to_vec` (JSON).
    #[arg(long)]
    encode: bool,
    /// Print the table as JSON on stdout instead of text.
    #[arg(long)]
    json: bool,
    /// Your own input file (with `--schema` or `--type`).
    #[arg(value_name = "INPUT")]
    input: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Encoding {
    Msgpack,
    Json,
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Msgpack => "msgpack",
            Encoding::Json => "json",
        }
    }
}

/// One input to measure.
struct Case {
    workload: String,
    encoding: Encoding,
    program: Program,
    type_json: String,
    input: Vec<u8>,
    expected_dump: Option<String>,
    /// The typed peers decode this input (the `aws_instance` workload).
    typed: bool,
}

/// One measured row.
struct Row {
    workload: String,
    encoding: Encoding,
    bytes: usize,
    /// Arena bytes tfwire's decode used.
    arena: usize,
    /// (contender, median MB/s); tfwire first.
    results: Vec<(&'static str, Option<f64>)>,
}

/// Runs `tfwire bench`.
pub fn run(args: BenchArgs) -> Result<(), Failure> {
    let cases = if let Some(input) = &args.input {
        vec![own_case(&args, input)?]
    } else {
        workload_cases(&args)?
    };
    if cases.is_empty() {
        return Err(Failure::BadInput(
            "no workloads found (see perf/workloads)".into(),
        ));
    }
    let mut rows = Vec::new();
    for case in &cases {
        if args.encode {
            let bump = Bump::new();
            let value = bench_encode::check(case, &bump, case.expected_dump.is_some())?;
            if !args.json {
                eprintln!(
                    "tfwire: bench: encode {} {} ({} bytes)",
                    case.workload,
                    case.encoding.name(),
                    case.input.len()
                );
            }
            let list = bench_encode::contenders(case, value);
            let arena = bump.allocated_bytes();
            rows.push(measure(
                case,
                arena,
                list,
                &args.contenders,
                args.rounds,
                Duration::from_millis(args.round_ms),
            ));
            continue;
        }
        let arena = check(case)?;
        let projected = match case.typed {
            true => Some(bench_project::projected(case).map_err(Failure::BadInput)?),
            false => None,
        };
        let arrow = match case.typed {
            true => Some(bench_arrow::prepare(case).map_err(Failure::BadInput)?),
            false => None,
        };
        let mut list = contenders(case);
        list.extend(bench_skip::contenders(case));
        if let Some(program) = &projected {
            list.extend(bench_project::contenders(case, program));
        }
        if let Some(prepared) = &arrow {
            list.extend(bench_arrow::contenders(case, prepared));
        }
        if !args.json {
            eprintln!(
                "tfwire: bench: {} {} ({} bytes)",
                case.workload,
                case.encoding.name(),
                case.input.len()
            );
        }
        rows.push(measure(
            case,
            arena,
            list,
            &args.contenders,
            args.rounds,
            Duration::from_millis(args.round_ms),
        ));
    }
    let what = if args.encode { "encode" } else { "decode" };
    let report = if args.json {
        render_json(&rows, what)
    } else {
        render_text(&rows, what)
    };
    super::write_stdout(report.as_bytes())
}

fn own_case(args: &BenchArgs, input: &Path) -> Result<Case, Failure> {
    let program = if let Some(ty) = &args.type_json {
        super::type_program(ty)?
    } else {
        let path = args
            .schema
            .as_deref()
            .ok_or_else(|| Failure::Usage("--schema or --type is required".into()))?;
        let source =
            SchemaSource::parse(&super::read_file(path)?).map_err(|e| Failure::file(path, e))?;
        let sel = SchemaSelector::default()
            .with_resource(args.resource.clone())
            .with_data_source(args.data_source.clone())
            .with_provider(args.provider.clone());
        Program::from_source(&source, &sel).map_err(|e| Failure::file(path, e))?
    };
    let bytes = std::fs::read(input).map_err(|e| Failure::file(input, e))?;
    Ok(Case {
        workload: input
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        encoding: args.format.unwrap_or(Encoding::Msgpack),
        type_json: program.root_type().to_string(),
        program,
        input: bytes,
        expected_dump: None,
        typed: false,
    })
}

/// The workloads of `../shared/workloads` (`$TFWIRE_SHARED`) when present, and those of the
/// repository's `perf/workloads` that it does not have (all of them without it).
fn workload_cases(args: &BenchArgs) -> Result<Vec<Case>, Failure> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("perf/workloads");
    let shared = std::env::var_os("TFWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"))
        .join("workloads");
    let mut dirs: Vec<(String, PathBuf)> = Vec::new();
    for dir in [shared, repo] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(|e| e.ok()) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().join("schema.json").is_file()
                && (args.only.is_empty() || args.only.contains(&name))
                && !dirs.iter().any(|(n, _)| *n == name)
            {
                dirs.push((name, entry.path()));
            }
        }
    }
    dirs.sort();
    let mut cases = Vec::new();
    for (name, wdir) in dirs {
        let schema = super::read_file(&wdir.join("schema.json"))?;
        for encoding in [Encoding::Msgpack, Encoding::Json] {
            if args.format.is_some_and(|f| f != encoding) {
                continue;
            }
            let file = wdir.join(format!("value.{}", encoding.name()));
            let Ok(input) = std::fs::read(&file) else {
                continue;
            };
            let program =
                Program::from_schema_json(&schema).map_err(|e| Failure::file(&wdir, e))?;
            let dump_file = wdir.join(format!("value.{}.dump.json.gz", encoding.name()));
            let dump_file = if dump_file.is_file() {
                dump_file
            } else {
                wdir.join("value.msgpack.dump.json.gz")
            };
            cases.push(Case {
                workload: name.clone(),
                encoding,
                type_json: program.root_type().to_string(),
                program,
                input,
                expected_dump: Some(gunzip(&dump_file)?),
                typed: name == typed_peers::WORKLOAD,
            });
        }
    }
    Ok(cases)
}

fn gunzip(path: &Path) -> Result<String, Failure> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Failure::file(path, e))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|e| Failure::file(path, e))?;
    Ok(text)
}

fn decode<'a>(case: &'a Case, bump: &'a Bump) -> Result<tfwire::Value<'a>, tfwire::DecodeError> {
    let options = DecodeOptions::default();
    match case.encoding {
        Encoding::Msgpack => case
            .program
            .decode_msgpack_with(&case.input, bump, &options),
        Encoding::Json => case.program.decode_json_with(&case.input, bump, &options),
    }
}

/// Decodes once and compares with the expected DUMP: a wrong result is never timed.
/// Returns the arena bytes the decode used.
fn check(case: &Case) -> Result<usize, Failure> {
    let mut bump = Bump::new();
    let value = decode(case, &bump).map_err(|e| {
        Failure::BadInput(format!(
            "{} {}: error {e}",
            case.workload,
            case.encoding.name(),
        ))
    })?;
    if let Some(expected) = &case.expected_dump {
        let got = tfwire::dump::to_string(&case.program, value)
            .map_err(|e| Failure::BadInput(e.to_string()))?;
        let opts = dumpcmp::Options {
            f64: true,
            ignore_refinements: false,
        };
        dumpcmp::compare(&case.type_json, expected, &got, opts).map_err(|e| {
            Failure::BadInput(format!(
                "{} {}: wrong result, not timed: {e}",
                case.workload,
                case.encoding.name()
            ))
        })?;
    }
    if case.typed {
        check_typed(case).map_err(|e| {
            Failure::BadInput(format!(
                "{} {}: {e}; not timed",
                case.workload,
                case.encoding.name()
            ))
        })?;
    }
    Ok(bump.iter_allocated_chunks().map(|c| c.len()).sum())
}

/// Decodes once with each typed peer of the case's encoding and compares the result with the
/// input's untyped tree.
fn check_typed(case: &Case) -> Result<(), String> {
    let input = &case.input[..];
    let msgpack = case.encoding == Encoding::Msgpack;
    let untyped = typed_peers::untyped(input, msgpack)?;
    if msgpack {
        typed_peers::check(&typed_peers::rmp_serde(input)?, &untyped)
    } else {
        typed_peers::check(&typed_peers::serde_json(input)?, &untyped)?;
        typed_peers::check(&typed_peers::sonic_rs(input)?, &untyped)
    }
}

type Contender<'c> = (&'static str, Box<dyn FnMut() -> bool + 'c>);

fn contenders(case: &Case) -> Vec<Contender<'_>> {
    let input = &case.input[..];
    let mut bump = Bump::new();
    let mut list: Vec<Contender<'_>> = vec![(
        "tfwire",
        Box::new(move || {
            bump.reset();
            decode(case, &bump).map(std::hint::black_box).is_ok()
        }),
    )];
    match case.encoding {
        Encoding::Msgpack => {
            list.push((
                "skip_walk",
                Box::new(move || super::skip_walk::skip_walk(input) == Some(input.len())),
            ));
            list.push((
                "rmpv_ref",
                Box::new(move || {
                    let mut rd = input;
                    rmpv::decode::read_value_ref(&mut rd)
                        .map(std::hint::black_box)
                        .is_ok()
                }),
            ));
            list.push((
                "rmpv",
                Box::new(move || {
                    let mut rd = input;
                    rmpv::decode::read_value(&mut rd)
                        .map(std::hint::black_box)
                        .is_ok()
                }),
            ));
            list.push((
                "rmp_serde",
                Box::new(move || {
                    rmp_serde::from_slice::<rmpv::Value>(input)
                        .map(std::hint::black_box)
                        .is_ok()
                }),
            ));
            if case.typed {
                list.push((
                    "rmp_serde_typed",
                    Box::new(move || {
                        typed_peers::rmp_serde(input)
                            .map(std::hint::black_box)
                            .is_ok()
                    }),
                ));
            }
        }
        Encoding::Json => {
            list.push((
                "serde_json",
                Box::new(move || {
                    serde_json::from_slice::<serde_json::Value>(input)
                        .map(std::hint::black_box)
                        .is_ok()
                }),
            ));
            let mut buf = Vec::with_capacity(input.len());
            let mut buffers = simd_json::Buffers::new(input.len());
            list.push((
                "simd_json",
                Box::new(move || {
                    // simd-json needs a mutable copy: the copy is part of its cost here.
                    buf.clear();
                    buf.extend_from_slice(input);
                    simd_json::to_borrowed_value_with_buffers(&mut buf, &mut buffers)
                        .map(|v| {
                            std::hint::black_box(&v);
                        })
                        .is_ok()
                }),
            ));
            list.push((
                "sonic_rs",
                Box::new(move || {
                    sonic_rs::from_slice::<sonic_rs::Value>(input)
                        .map(std::hint::black_box)
                        .is_ok()
                }),
            ));
            if case.typed {
                list.push((
                    "serde_json_typed",
                    Box::new(move || {
                        typed_peers::serde_json(input)
                            .map(std::hint::black_box)
                            .is_ok()
                    }),
                ));
                list.push((
                    "sonic_rs_typed",
                    Box::new(move || {
                        typed_peers::sonic_rs(input)
                            .map(std::hint::black_box)
                            .is_ok()
                    }),
                ));
            }
        }
    }
    list
}

fn measure<'c>(
    case: &'c Case,
    arena: usize,
    mut list: Vec<Contender<'c>>,
    only: &[String],
    rounds: u32,
    slice: Duration,
) -> Row {
    list.retain(|(name, _)| only.is_empty() || only.iter().any(|o| o == name));
    // Warm up, and find out which peers can decode the input at all.
    let ok: Vec<bool> = list.iter_mut().map(|(_, f)| f()).collect();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); list.len()];
    let bytes = case.input.len() as f64;
    for _ in 0..rounds.max(1) {
        for (i, (_, f)) in list.iter_mut().enumerate() {
            if !ok[i] {
                continue;
            }
            let start = Instant::now();
            let mut iters = 0u64;
            while iters == 0 || start.elapsed() < slice {
                f();
                iters += 1;
            }
            let secs = start.elapsed().as_secs_f64();
            samples[i].push(bytes * iters as f64 / secs / 1e6);
        }
    }
    let results = list
        .iter()
        .zip(samples)
        .map(|((name, _), mut s)| (*name, median(&mut s)))
        .collect();
    Row {
        workload: case.workload.clone(),
        encoding: case.encoding,
        bytes: case.input.len(),
        arena,
        results,
    }
}

fn median(s: &mut [f64]) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    Some(s[s.len() / 2])
}
