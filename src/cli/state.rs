//! `tfwire state`: decode every instance of state files against providers-schema documents.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use bumpalo::Bump;
use clap::Args;
use tfwire::state::{IndexKey, InstanceRef, Mode, Outcome, SchemaSet, StateFile};
use tfwire::DecodeOptions;

use super::Failure;

/// The description `tfwire state --help` prints after the options.
const HELP: &str = "\
Output (stdout): one line per instance, in file order:
  ADDRESS<TAB>ok
  ADDRESS<TAB>error at PATH (byte N): MESSAGE   (N: offset in the instance's attributes JSON)
  ADDRESS<TAB>no schema
  ADDRESS<TAB>no schema (legacy flatmap attributes are not supported)
With --dump, the DUMP (canonical JSON) of each decoded value follows its ok line. With several
state files, a line `# FILE` comes before each file's instances. Last, one summary line:
  instances=N ok=N errors=N no_schema=N bytes=N seconds=S
bytes: the attribute JSON decoded; seconds: time spent parsing the state files and decoding,
including each schema's compilation on first use (not reading files, loading schemas or
printing). Legacy instances (only attributes_flat) count as no_schema.

Schemas: an instance's candidates are the schemas of its type in every document's provider
with the instance's provider address (a short name NAME means
registry.terraform.io/hashicorp/NAME), then in every other provider with the same type name
(last address segment), in --schemas order. The first that decodes wins; when none does, the
error found furthest into the attributes is printed.

Exit status: 0 when no instance failed, 1 when one did, 2 on a usage or schema error or an
unreadable or invalid state file (reported on stderr; the other files are still decoded).";

/// `tfwire state` arguments (the description is in [`HELP`]).
#[derive(Args, Debug)]
#[command(after_help = HELP)]
pub struct StateArgs {
    /// A providers-schema document (`terraform providers schema -json`); repeat for several.
    #[arg(long = "schemas", value_name = "DOC.json", required = true)]
    schemas: Vec<PathBuf>,
    /// Skip object attributes the schema does not have (schema drift) instead of failing.
    #[arg(long)]
    skip_unknown_attrs: bool,
    /// Read missing attributes as null (always the case in JSON; accepted for symmetry).
    #[arg(long)]
    missing_attrs_null: bool,
    /// Check LIST/SET blocks' min_items/max_items.
    #[arg(long)]
    check_item_counts: bool,
    /// Print the DUMP (canonical JSON) of each decoded value on the line after its `ok`.
    #[arg(long)]
    dump: bool,
    /// Output: `text` (the lines above) or `ndjson` (one JSON object per instance; the
    /// summary then goes to stderr).
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
    /// Worker threads decoding files, and the instances of each file, in parallel (default:
    /// every core). The output is the same, in the same order, whatever the count.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// State files (format version 4).
    #[arg(value_name = "STATE", required = true)]
    states: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OutputFormat {
    /// One line per instance, `ADDRESS<TAB>STATUS`.
    Text,
    /// One JSON object per instance: file, address, mode, type, name, module, index_key,
    /// deposed, provider, status ("ok", "error", "no_schema"), then value or error.
    Ndjson,
}

#[derive(Default)]
struct Totals {
    instances: u64,
    ok: u64,
    errors: u64,
    no_schema: u64,
    bytes: u64,
    time: Duration,
}

/// Runs `tfwire state`.
pub fn run(args: StateArgs) -> Result<(), Failure> {
    let mut set = SchemaSet::new();
    for path in &args.schemas {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
        set.add_json(&text)
            .map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    }
    let options = DecodeOptions {
        skip_unknown_attributes: args.skip_unknown_attrs,
        missing_attributes_null: args.missing_attrs_null,
        check_item_counts: args.check_item_counts,
        ..DecodeOptions::default()
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| Failure::Usage(format!("--jobs: {e}")))?;
    let mut out = Output::new();
    let mut totals = Totals::default();
    let mut bad_files = 0;
    let several = args.states.len() > 1;
    // Files in windows of a few per worker, decoded in parallel, printed in order.
    let window = jobs.max(1) * 2;
    for paths in args.states.chunks(window) {
        let results: Vec<FileResult> = pool.install(|| {
            use rayon::prelude::*;
            paths
                .par_iter()
                .map(|path| decode_file(path, &set, &options, &args))
                .collect()
        });
        for (path, result) in paths.iter().zip(results) {
            if several && args.format == OutputFormat::Text {
                out.line(&format!("# {}", path.display()))?;
            }
            match result {
                Err(msg) => {
                    bad_files += 1;
                    out.flush()?;
                    eprintln!("tfwire: {}: {msg}", path.display());
                }
                Ok((lines, t)) => {
                    for line in &lines {
                        out.line(line)?;
                    }
                    totals.add(&t);
                }
            }
        }
    }
    let t = &totals;
    let summary = format!(
        "instances={} ok={} errors={} no_schema={} bytes={} seconds={:.3}",
        t.instances,
        t.ok,
        t.errors,
        t.no_schema,
        t.bytes,
        t.time.as_secs_f64()
    );
    if args.format == OutputFormat::Ndjson {
        out.flush()?;
        eprintln!("{summary}");
    } else {
        out.line(&summary)?;
    }
    out.flush()?;
    if bad_files > 0 {
        let s = if bad_files == 1 { "" } else { "s" };
        return Err(Failure::Usage(format!(
            "{bad_files} state file{s} could not be read"
        )));
    }
    if totals.errors > 0 {
        return Err(Failure::BadInput(format!(
            "tfwire: {} of {} instances failed to decode",
            totals.errors, totals.instances
        )));
    }
    Ok(())
}

/// A file's output lines and totals, or why it could not be read.
type FileResult = Result<(Vec<String>, Totals), String>;

impl Totals {
    fn add(&mut self, t: &Totals) {
        self.instances += t.instances;
        self.ok += t.ok;
        self.errors += t.errors;
        self.no_schema += t.no_schema;
        self.bytes += t.bytes;
        self.time += t.time;
    }
}

/// Reads, parses and decodes one state file: its output lines (instances in file order,
/// decoded in parallel on the current pool, one arena per worker) and totals.
fn decode_file(
    path: &std::path::Path,
    set: &SchemaSet,
    options: &DecodeOptions,
    args: &StateArgs,
) -> FileResult {
    use rayon::prelude::*;
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let state = StateFile::parse(&text).map_err(|e| e.to_string())?;
    let parse_time = start.elapsed();
    let items: Vec<_> = state.instances().collect();
    let file = path.display().to_string();
    let per: Vec<(Vec<String>, Totals)> = items
        .par_iter()
        .map_init(Bump::new, |bump, item| {
            let mut t = Totals::default();
            let start = Instant::now();
            let outcome = set.decode(*item, bump, options);
            t.time += start.elapsed();
            t.instances = 1;
            match &outcome {
                Outcome::Ok(..) => t.ok = 1,
                Outcome::Error(..) => t.errors = 1,
                Outcome::NoSchema | Outcome::Legacy => t.no_schema = 1,
            }
            if matches!(outcome, Outcome::Ok(..) | Outcome::Error(..)) {
                t.bytes = item.instance.attributes.json().map_or(0, str::len) as u64;
            }
            let lines = match args.format {
                OutputFormat::Text => text_lines(item, &outcome, args.dump),
                OutputFormat::Ndjson => vec![ndjson_line(&file, item, &outcome)],
            };
            drop(outcome);
            bump.reset();
            (lines, t)
        })
        .collect();
    let mut totals = Totals {
        time: parse_time,
        ..Totals::default()
    };
    let mut lines = Vec::with_capacity(per.len());
    for (l, t) in per {
        lines.extend(l);
        totals.add(&t);
    }
    Ok((lines, totals))
}

/// The text line of an instance (and its DUMP after it, with `--dump`).
fn text_lines(item: &InstanceRef<'_, '_>, outcome: &Outcome<'_>, dump: bool) -> Vec<String> {
    let mut line = item.address();
    line.push('\t');
    let mut dumped = None;
    match outcome {
        Outcome::Ok(value, m) => {
            line.push_str("ok");
            if dump {
                dumped = Some(tfwire::dump::to_string(m.program, *value));
            }
        }
        Outcome::Error(e, _) => {
            let (path, offset, msg) = (e.display_path(), e.offset(), e.message());
            line.push_str(&format!("error at {path} (byte {offset}): {msg}"));
        }
        Outcome::NoSchema => line.push_str("no schema"),
        Outcome::Legacy => line.push_str("no schema (legacy flatmap attributes are not supported)"),
    }
    let mut lines = vec![line];
    lines.extend(dumped);
    lines
}

/// The NDJSON object of an instance.
fn ndjson_line(file: &str, item: &InstanceRef<'_, '_>, outcome: &Outcome<'_>) -> String {
    use serde_json::{json, Value as J};
    let r = item.resource;
    let index_key = match &item.instance.index_key {
        Some(IndexKey::Int(i)) => json!(i),
        Some(IndexKey::String(s)) => json!(s),
        None => J::Null,
    };
    let status = match outcome {
        Outcome::Ok(..) => "ok",
        Outcome::Error(..) => "error",
        Outcome::NoSchema | Outcome::Legacy => "no_schema",
    };
    let mode = match r.mode {
        Mode::Managed => "managed",
        Mode::Data => "data",
    };
    let head = json!({
        "file": file,
        "address": item.address(),
        "mode": mode,
        "type": r.type_name,
        "name": r.name,
        "module": r.module,
        "index_key": index_key,
        "deposed": item.instance.deposed,
        "provider": r.provider_address,
        "status": status,
    });
    // serde_json keeps insertion order only with `preserve_order`: write the keys in the
    // documented order by hand.
    let mut line = String::from("{");
    for key in [
        "file",
        "address",
        "mode",
        "type",
        "name",
        "module",
        "index_key",
        "deposed",
        "provider",
        "status",
    ] {
        if line.len() > 1 {
            line.push(',');
        }
        line.push_str(&format!(
            "{}:{}",
            J::from(key),
            head.get(key).unwrap_or(&J::Null)
        ));
    }
    match outcome {
        Outcome::Ok(value, m) => {
            line.push_str(",\"value\":");
            line.push_str(&tfwire::dump::to_string(m.program, *value));
        }
        Outcome::Error(e, _) => {
            let err =
                json!({"path": e.display_path(), "offset": e.offset(), "message": e.message()});
            line.push_str(&format!(
                ",\"error\":{{\"path\":{},\"offset\":{},\"message\":{}}}",
                err["path"], err["offset"], err["message"]
            ));
        }
        Outcome::NoSchema | Outcome::Legacy => {}
    }
    line.push('}');
    line
}

/// Buffered stdout; a closed pipe (`| head`) silences the rest instead of failing.
struct Output {
    out: std::io::BufWriter<std::io::Stdout>,
    closed: bool,
}

impl Output {
    fn new() -> Output {
        Output {
            out: std::io::BufWriter::new(std::io::stdout()),
            closed: false,
        }
    }

    fn line(&mut self, s: &str) -> Result<(), Failure> {
        let r = self
            .out
            .write_all(s.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"));
        self.check(r)
    }

    fn flush(&mut self) -> Result<(), Failure> {
        let r = self.out.flush();
        self.check(r)
    }

    fn check(&mut self, r: std::io::Result<()>) -> Result<(), Failure> {
        match r {
            _ if self.closed => Ok(()),
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(Failure::Usage(format!("standard output: {e}"))),
        }
    }
}
