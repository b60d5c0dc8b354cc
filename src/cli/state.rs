//! `tfwire state`: decode every instance of state files against providers-schema documents.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use tfwire::state::{InstanceRef, Outcome, Pool, ReaderOptions, SchemaSet, StateReader};
use tfwire::DecodeOptions;

use super::in_order::{chunks, in_order, Budget, OnRayon};
use super::progress::Progress;
use super::state_lines::{json_string, ndjson_line, text_lines, LineScratch};
use super::state_totals::Totals;
use super::strings::Strings;
use super::Failure;

/// The description `tfwire state --help` prints after the options.
const HELP: &str = "\
Output (stdout): one line per instance, in file order:
  ADDRESS<TAB>ok
  ADDRESS<TAB>error at PATH (byte N): MESSAGE   (N: offset in the instance's attributes JSON)
  ADDRESS<TAB>no schema
  ADDRESS<TAB>no schema (legacy flatmap attributes are not supported)
With --dump, the DUMP (canonical JSON) of each decoded value follows its ok line. With several
state files, every line starts with its file's name and a tab (as grep names the file of each
match): FILE<TAB>ADDRESS<TAB>ok. With --format ndjson, one JSON object per instance instead.

Standard error: the diagnostics, then one summary line:
  tfwire: instances=N ok=N errors=N no_schema=N bytes=N seconds=S
(with --type, `skipped=N` after no_schema: the instances of other types)
bytes: the attribute JSON decoded; seconds: time spent reading the state files, decoding and
formatting their instances, including each schema's compilation on first use (not loading
schemas). Legacy instances (only attributes_flat) count as no_schema. Standard output holds
only the lines above: `tfwire state … > out` leaves only data in out.

State files are read incrementally (memory holds one instance, not the file) and each
instance is printed as soon as it is decoded. With --jobs N, files under 16 MiB are decoded
N at a time, and a larger file is read in parts of its bytes on N threads; the output is
the same, in the same order. A progress bar shows on stderr when stderr is a terminal and the
input is large (64 MiB, or 1,000 files); never in a pipe.

Schemas: an instance's candidates are the schemas of its type in every document's provider
with the instance's provider address (a short name NAME means
registry.terraform.io/hashicorp/NAME), then in every other provider with the same type name
(last address segment), in --schemas order. The first that decodes wins; when none does, the
error found furthest into the attributes is printed.

Exit status: 0 when every file was read and no instance failed; 1 when an instance failed, a
schema document does not load (before any output), or a state file cannot be read or is
malformed: `tfwire: FILE: WHERE: MESSAGE` on stderr, after the lines of the instances before
the fault, WHERE being the place in the state and the byte offset (a truncated file:
`resources[0].instances[1].attributes: invalid JSON at byte 700: unexpected end of input`);
the other files are still decoded. 2 when the command line is wrong.";

/// The smallest read (and first buffer) of a state file's reader.
const SMALLEST_READ: usize = 4 << 10;

/// A file at least this large has its instances decoded in parallel (smaller files are
/// decoded in parallel with each other).
const LARGE_FILE: u64 = 16 << 20;
/// Small files are decoded in parallel in chunks of consecutive files: a chunk ends once it
/// holds this many bytes…
const CHUNK_BYTES: u64 = 1 << 20;
/// …or this many files (or less of both, for a run of files too small to make this many
/// chunks a worker);
const CHUNK_FILES: usize = 256;
/// at most this many chunks a worker are ahead of the one printed…
const AHEAD_CHUNKS: usize = 4;
/// …and this many bytes of them.
const AHEAD_BYTES: u64 = 64 << 20;
/// The output buffer: lines reach standard output in writes of this size.
const OUTPUT_BUFFER: usize = 256 << 10;

/// `tfwire state` arguments (the description is in [`HELP`]).
#[derive(Args, Debug)]
#[command(after_help = HELP)]
pub struct StateArgs {
    /// A providers-schema document (`terraform providers schema -json`); repeat for several.
    /// Each resource schema is parsed when a state first uses its type: a malformed one
    /// fails the instances it is a candidate for (error kind `schema`).
    #[arg(short, long = "schemas", value_name = "DOC.json", required = true)]
    schemas: Vec<PathBuf>,
    /// Skip object attributes the schema does not have (schema drift) instead of failing.
    /// (Attributes missing from the JSON always read as null, as go-cty reads them.)
    #[arg(long)]
    skip_unknown_attrs: bool,
    /// Check LIST/SET blocks' min_items/max_items.
    #[arg(long)]
    check_item_counts: bool,
    /// Print the DUMP (canonical JSON) of each decoded value on the line after its `ok`
    /// (`--format text`; NDJSON objects always hold the value).
    #[arg(long)]
    dump: bool,
    /// Output: `text` (the lines below) or `ndjson` (one JSON object per instance).
    #[arg(short, long, value_enum, default_value = "text")]
    format: OutputFormat,
    /// Worker threads decoding files, and the instances of each file, in parallel (default:
    /// every core; at least 1). The output is the same, in the same order, whatever the count.
    #[arg(short, long, value_name = "N", value_parser = jobs_count)]
    jobs: Option<usize>,
    /// Decode only this part of each instance's attributes (repeatable): a path in
    /// Terraform's notation such as `tags`, `tags["Name"]`, `ebs_block_device[*].volume_id`
    /// or `root_block_device[0].volume_size`. The value
    /// (DUMP, NDJSON `value`) holds only the selected attributes; the rest is stepped over
    /// (checked as JSON, not against the schema). A type without the path fails its
    /// instances (error kind `schema`): combine with `--type`.
    #[arg(long, value_name = "PATH")]
    select: Vec<String>,
    /// Only instances of this resource or data source type (repeatable): the others are
    /// stepped over undecoded (their attributes only delimited: strings and brackets
    /// matched) and print nothing; the summary line counts them as `skipped=N`.
    #[arg(long = "type", value_name = "TYPE")]
    types: Vec<String>,
    /// With `--format parquet`: the directory the Parquet files go to (created if absent).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// With `--format parquet`: numbers as Decimal128(38, 9), exact; a number without an
    /// exact value there is null, and listed with its path and text in `_inexact_numbers`.
    #[arg(long)]
    exact_numbers: bool,
    /// Read every file as a stream, never through a memory map. By default a schema
    /// document, and a state file read with one job, is mapped when it is a regular file of
    /// 1 MiB or more (no copy into a buffer) and no other process holds a write lock on it,
    /// as Terraform and OpenTofu do while they run; a mapped file truncated meanwhile ends
    /// the process (SIGBUS). Give this flag when something may rewrite the files in place
    /// without a lock.
    #[arg(long)]
    no_mmap: bool,
    /// State files (format version 4).
    #[arg(value_name = "STATE", required = true)]
    states: Vec<PathBuf>,
}

/// `--jobs`: a count of at least 1.
pub(super) fn jobs_count(arg: &str) -> Result<usize, String> {
    match arg.parse::<usize>() {
        Ok(0) => Err("at least 1 worker is needed".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OutputFormat {
    /// One line per instance, `ADDRESS<TAB>STATUS`.
    Text,
    /// One JSON object per instance: file, address, mode, type, name, module, index_key,
    /// deposed, provider, status ("ok", "error", "no_schema"), then value or error.
    Ndjson,
    /// Parquet files in `--out DIR`: `TYPE.parquet` per resource type (a row per decoded
    /// instance: `_file`, `_address`, `_module`, `_mode`, `_name`, `_index_key`, `_deposed`,
    /// `_provider`, `_schema_version`, then the attributes as typed columns) and
    /// `instances.parquet` (a row per instance, its status, error and DUMP).
    #[cfg(feature = "parquet")]
    Parquet,
}

/// Runs `tfwire state`.
pub fn run(args: StateArgs) -> Result<(), Failure> {
    let mut set = SchemaSet::new();
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // One pool for everything read in parallel: the schema documents, the runs of small
    // files (`in_order.rs`), a large file's parts or a stream's runs (the library's parallel
    // reads run their workers on it: `OnRayon`), and Parquet's files and their closing.
    let on_rayon = Arc::new(OnRayon(
        rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| Failure::BadInput(format!("--jobs {jobs}: {e}")))?,
    ));
    let pool = &on_rayon.0;
    let shared: Arc<dyn Pool> = on_rayon.clone();
    // The documents (they can be tens of MB) are read and outlined in parallel, then added
    // in order; each schema is parsed when an instance of its type first needs it.
    let docs: Vec<_> = pool.install(|| {
        use rayon::prelude::*;
        args.schemas
            .par_iter()
            .map(|path| {
                // (Mapped when large, as the states are: `mapped.rs`.)
                let text = super::mapped::map_or_read(path, args.no_mmap)
                    .map_err(|e| Failure::file(path, e))?;
                let mut one = SchemaSet::new();
                one.add_json_deferred(text)
                    .map_err(|e| Failure::file(path, e))?;
                Ok(one)
            })
            .collect()
    });
    for doc in docs {
        set.append(doc?);
    }
    if !args.select.is_empty() {
        let selection = tfwire::schema::Selection::parse(&args.select)
            .map_err(|e| Failure::Usage(format!("--select: {e}")))?;
        set.select(selection);
    }
    set.only_types(args.types.iter().cloned());
    // The output holds DUMPs (NDJSON's `value`, text's `--dump`, Parquet's `attributes`):
    // those of instances as go-cty writes them are written straight from the JSON.
    set.write_dumps(args.format != OutputFormat::Text || args.dump);
    let options = DecodeOptions::default()
        .with_skip_unknown_attributes(args.skip_unknown_attrs)
        .with_check_item_counts(args.check_item_counts);
    if let Some(result) = parquet_files(&args, &set, &options, (jobs, &shared)) {
        return result;
    }
    let mut out = Output::new();
    let strings = Strings::default();
    let mut totals = Totals::default();
    let mut bad_files = 0;
    // With several files, each text line starts with its file's name (as grep's do).
    let prefixes: Vec<String> = args
        .states
        .iter()
        .map(|path| match args.format {
            OutputFormat::Text if args.states.len() > 1 => format!("{}\t", path.display()),
            _ => String::new(),
        })
        .collect();
    // Small files decoded in parallel, a few chunks a worker ahead of the one printed,
    // and printed in order; a large file (or every file, with one job) streamed, its
    // instances decoded on every worker and printed as they come.
    // Each file's length when it is a regular file (a pipe or a device has none), looked up
    // on the workers: thousands of files cost thousands of `stat` calls.
    let lengths: Vec<Option<u64>> = pool.install(|| {
        use rayon::prelude::*;
        args.states
            .par_iter()
            .map(|p| {
                std::fs::metadata(p)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
            })
            .collect()
    });
    let length = |i: usize| lengths.get(i).copied().flatten();
    // A pipe (no length) is streamed too: it may be large, or never end.
    let large = |i: usize| jobs <= 1 || length(i).is_none_or(|n| n >= LARGE_FILE);
    let progress = Progress::new(args.states.len(), lengths.iter().flatten().sum());
    let mut next = 0;
    while let Some(path) = args.states.get(next) {
        let file = File {
            path,
            length: length(next),
            prefix: prefixes.get(next).map_or("", String::as_str),
        };
        if large(next) {
            next += 1;
            let mut failed = None;
            let (t, result) = stream_file(
                &file,
                &set,
                &options,
                (&args, &strings),
                (jobs, Some(&shared)),
                &progress,
                &mut |text| {
                    if failed.is_none() {
                        failed = out.text(text).err();
                    }
                },
            );
            if let Some(e) = failed {
                return Err(e);
            }
            totals.add(&t);
            if let Err(msg) = result {
                bad_files += 1;
                out.flush()?;
                progress.suspend(|| eprintln!("tfwire: {}: {msg}", path.display()));
            }
            continue;
        }
        // A run of small files: decoded on the workers in chunks of a few (`chunks`), a few
        // chunks ahead of the one printed (`in_order.rs`), each printed once those before
        // it are.
        let start = next;
        while next < args.states.len() && !large(next) {
            next += 1;
        }
        let files: Vec<File> = (start..next)
            .filter_map(|i| {
                Some(File {
                    path: args.states.get(i)?,
                    length: length(i),
                    prefix: prefixes.get(i)?,
                })
            })
            .collect();
        // (A run too small for AHEAD_CHUNKS chunks a worker gets smaller chunks.)
        let bytes = |file: &File| file.length.unwrap_or(0);
        let per_chunk = jobs.saturating_mul(AHEAD_CHUNKS).max(1);
        let run_bytes: u64 = files.iter().map(bytes).sum();
        let size = Budget {
            items: CHUNK_FILES.min(files.len().div_ceil(per_chunk)).max(1),
            cost: CHUNK_BYTES.min(run_bytes.div_ceil(per_chunk as u64)).max(1),
        };
        let chunks = chunks(&files, size, bytes);
        let budget = Budget {
            items: jobs.saturating_mul(AHEAD_CHUNKS),
            cost: AHEAD_BYTES,
        };
        in_order(
            pool,
            &chunks,
            budget,
            |chunk| chunk.iter().map(bytes).sum(),
            |chunk| decode_files(chunk, &set, &options, &args, &progress, &strings),
            |chunk, (text, ends): ChunkResult| {
                let mut from = 0;
                for (file, (end, t, result)) in chunk.iter().zip(ends) {
                    out.text(text.get(from..end).unwrap_or_default())?;
                    from = end;
                    totals.add(&t);
                    if let Err(msg) = result {
                        bad_files += 1;
                        out.flush()?;
                        progress.suspend(|| eprintln!("tfwire: {}: {msg}", file.path.display()));
                    }
                }
                strings.give(text);
                Ok::<(), Failure>(())
            },
        )?;
    }
    out.flush()?;
    progress.finish();
    // The schemas (tens of MB of small allocations) are not freed one by one on the way out:
    // the process's exit releases them at once.
    std::mem::forget(set);
    totals.report(!args.types.is_empty(), bad_files)
}

/// A state file to read: its path, its length when it is a regular file, and what its text
/// lines start with.
struct File<'a> {
    path: &'a std::path::Path,
    length: Option<u64>,
    prefix: &'a str,
}

/// A chunk of files decoded: their lines, and for each file where its lines end, its totals
/// and why it could not be read whole.
type ChunkResult = (String, Vec<(usize, Totals, Result<(), String>)>);

/// Reads one state file with the incremental reader, its instances decoded on `jobs`
/// threads, writing each instance's output to `sink` in file order as it comes (`sink` gets
/// whole lines); its totals (of the instances read), and why the file could not be read
/// whole.
fn stream_file(
    &File {
        path,
        length,
        prefix,
    }: &File<'_>,
    set: &SchemaSet,
    options: &DecodeOptions,
    (args, strings): (&StateArgs, &Strings),
    (jobs, pool): (usize, Option<&Arc<dyn Pool>>),
    progress: &Progress,
    sink: &mut dyn FnMut(&str),
) -> (Totals, Result<(), String>) {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) => return (Totals::default(), Err(e.to_string())),
    };
    // A small regular file is read into a buffer of its own size (one byte more, to see its
    // end in one read) rather than the reader's first 64 KiB, zero-filled for every file. A
    // pipe or a device (no length) keeps the reader's default reads.
    let len = length.unwrap_or(u64::MAX);
    let read_size = usize::try_from(len.saturating_add(1))
        .unwrap_or(usize::MAX)
        .clamp(SMALLEST_READ, ReaderOptions::default().read_size);
    let reader_options = ReaderOptions::default().with_read_size(read_size);
    let reader_options = match pool {
        Some(pool) => reader_options.with_pool(Arc::clone(pool)),
        None => reader_options,
    };
    // A large regular file is read in place (`mapped.rs`): with one job whole, with more
    // in parts of its bytes.
    let in_parts = jobs > 1 && length.is_some_and(|n| n >= LARGE_FILE);
    let mapped = match jobs {
        0 | 1 => super::mapped::map(&file, length, args.no_mmap),
        _ if in_parts => super::mapped::map(&file, length, args.no_mmap),
        _ => None,
    };
    let file = progress.reader(file);
    let name = json_string(&path.display().to_string());
    let mut totals = Totals::default();
    let start = Instant::now();
    // Each worker's lines, its totals and its line scratch.
    type Acc = (String, Totals, LineScratch);
    let fold = |(text, t, scratch): &mut Acc, item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
        t.count(&item, outcome);
        match args.format {
            OutputFormat::Text => text_lines(text, prefix, &item, outcome, args.dump),
            // (Parquet is written by `parquet_files`, before any file is printed.)
            _ => ndjson_line(text, scratch, &name, &item, outcome),
        }
    };
    let result = if jobs <= 1 {
        // One thread: the lines are gathered and handed to `sink` a buffer's worth at a time
        // (which stdout's `BufWriter` writes through, a chunk that large not copied into its
        // own buffer; the last, shorter chunk is).
        let (mut text, mut scratch) = (String::new(), LineScratch::default());
        let mut f = |item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
            totals.count(&item, outcome);
            match args.format {
                OutputFormat::Text => text_lines(&mut text, prefix, &item, outcome, args.dump),
                _ => ndjson_line(&mut text, &mut scratch, &name, &item, outcome),
            }
            if text.len() >= OUTPUT_BUFFER {
                sink(&text);
                text.clear();
            }
        };
        let read = match mapped {
            // (The bar advances by the file's length once it is read.)
            Some(map) => {
                let map = super::mapped::Shared::new(map);
                let release = map.release();
                let read = StateReader::in_memory_with_options(map, reader_options)
                    .with_release(release)
                    .visit(set, options, &mut f);
                progress.advance(len);
                read
            }
            None => StateReader::with_options(file, reader_options).visit(set, options, &mut f),
        };
        if !text.is_empty() {
            sink(&text);
        }
        read
    } else if in_parts {
        // A large regular file: read in parts of its bytes on `jobs` threads, no thread
        // walking it whole; in place when it is mapped, else each part through reads of its
        // own (the parts' copies were most of what two jobs spent in the kernel beyond one:
        // F52 in `perf/optimizations.md`). The bar advances by each run's attributes as the
        // run is handed on (counted in the run, not in a counter the threads share: 1.3% of
        // the time went to that counter's cache line), then by the rest of the file.
        drop(file);
        // (Parts of 1 MiB: a part's lines wait for the part before; 0.334 s with two jobs on
        // the fleet workload's large state, against 0.353 s with parts of 8 MiB.)
        let reader_options = reader_options.with_part_bytes(1 << 20);
        let mut counted = 0u64;
        let fold =
            |(acc, read): &mut (Acc, u64), item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
                *read += item.instance.attributes.json().map_or(0, str::len) as u64;
                fold(acc, item, outcome)
            };
        let init = || {
            (
                (strings.take(), Totals::default(), LineScratch::default()),
                0,
            )
        };
        let handed = |((text, t, _), read): (Acc, u64)| {
            counted += read;
            progress.advance(read);
            totals.add(&t);
            sink(&text);
            strings.give(text);
        };
        let read = match mapped {
            // Each part read in place, its pages given back once read.
            Some(map) => {
                let map = super::mapped::Shared::new(map);
                let release = map.release();
                StateReader::visit_memory_parallel(
                    map,
                    Some(release),
                    reader_options,
                    set,
                    options,
                    jobs,
                    init,
                    fold,
                    |acc| acc,
                    handed,
                )
            }
            None => StateReader::visit_file_parallel(
                path,
                reader_options,
                set,
                options,
                jobs,
                init,
                fold,
                |acc| acc,
                handed,
            ),
        };
        progress.advance(len.saturating_sub(counted));
        read
    } else {
        let init = || (strings.take(), Totals::default(), LineScratch::default());
        StateReader::with_options(file, reader_options).visit_parallel(
            set,
            options,
            jobs,
            init,
            fold,
            |(text, t, _)| {
                totals.add(&t);
                sink(&text);
                strings.give(text);
            },
        )
    };
    totals.time = start.elapsed();
    if let Ok(summary) = &result {
        totals.skipped = summary.skipped;
    }
    (totals, result.map(drop).map_err(|e| e.to_string()))
}

/// Reads a chunk of state files one after the other, keeping their output (for chunks
/// decoded in parallel).
fn decode_files(
    files: &[File<'_>],
    set: &SchemaSet,
    options: &DecodeOptions,
    args: &StateArgs,
    progress: &Progress,
    strings: &Strings,
) -> ChunkResult {
    let mut out = strings.take();
    let ends = files
        .iter()
        .map(|file| {
            let (totals, result) = stream_file(
                file,
                set,
                options,
                (args, strings),
                (1, None),
                progress,
                &mut |text| out.push_str(text),
            );
            (out.len(), totals, result)
        })
        .collect();
    (out, ends)
}

/// Buffered stdout.
struct Output {
    out: std::io::BufWriter<std::io::Stdout>,
}

impl Output {
    fn new() -> Output {
        Output {
            // Large writes: standard output's own buffer flushes at every newline it holds,
            // so an 8 KiB buffer would cost a system call or two for each 8 KiB of lines.
            out: std::io::BufWriter::with_capacity(OUTPUT_BUFFER, std::io::stdout()),
        }
    }

    /// Whole lines, each ending in a newline.
    fn text(&mut self, s: &str) -> Result<(), Failure> {
        self.out
            .write_all(s.as_bytes())
            .map_err(|e| Failure::stdout(&e))
    }

    fn flush(&mut self) -> Result<(), Failure> {
        self.out.flush().map_err(|e| Failure::stdout(&e))
    }
}

/// `--format parquet --out DIR` (`None` for the other formats, which print); `--out` goes
/// with Parquet only.
fn parquet_files(
    args: &StateArgs,
    set: &SchemaSet,
    options: &DecodeOptions,
    (jobs, pool): (usize, &Arc<dyn Pool>),
) -> Option<Result<(), Failure>> {
    #[cfg(feature = "parquet")]
    if args.format == OutputFormat::Parquet {
        let Some(dir) = &args.out else {
            return Some(Err(Failure::Usage(
                "--format parquet needs --out DIR".into(),
            )));
        };
        let types = !args.types.is_empty();
        let arrow = tfwire::arrow::ArrowOptions::default().with_exact_numbers(args.exact_numbers);
        return Some(super::state_parquet::run(
            &args.states,
            set,
            (options, &arrow),
            (jobs, pool),
            dir,
            types,
        ));
    }
    let _ = (set, options, jobs, pool);
    (args.out.is_some() || args.exact_numbers).then(|| {
        Err(Failure::Usage(
            "--out and --exact-numbers go with --format parquet".into(),
        ))
    })
}
