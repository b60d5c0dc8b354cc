//! `tfwire state`: decode every instance of state files against providers-schema documents.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use bumpalo::Bump;
use clap::Args;
use tfwire::state::{Outcome, SchemaSet, StateFile};
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
    /// State files (format version 4).
    #[arg(value_name = "STATE", required = true)]
    states: Vec<PathBuf>,
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
    let mut out = Output::new();
    let mut totals = Totals::default();
    let mut bad_files = 0;
    let mut bump = Bump::new();
    for path in &args.states {
        if args.states.len() > 1 {
            out.line(&format!("# {}", path.display()))?;
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                bad_files += 1;
                out.flush()?;
                eprintln!("tfwire: {}: {e}", path.display());
                continue;
            }
        };
        let start = Instant::now();
        let state = match StateFile::parse(&text) {
            Ok(s) => s,
            Err(e) => {
                bad_files += 1;
                out.flush()?;
                eprintln!("tfwire: {}: {e}", path.display());
                continue;
            }
        };
        totals.time += start.elapsed();
        for item in state.instances() {
            let mut line = item.address();
            line.push('\t');
            let start = Instant::now();
            let outcome = set.decode(item, &bump, &options);
            totals.time += start.elapsed();
            totals.instances += 1;
            let mut dump = None;
            match &outcome {
                Outcome::Ok(value, m) => {
                    totals.ok += 1;
                    line.push_str("ok");
                    if args.dump {
                        dump = Some(tfwire::dump::to_string(m.program, *value));
                    }
                }
                Outcome::Error(e, _) => {
                    totals.errors += 1;
                    let (path, offset, msg) = (e.display_path(), e.offset(), e.message());
                    line.push_str(&format!("error at {path} (byte {offset}): {msg}"));
                }
                Outcome::NoSchema => {
                    totals.no_schema += 1;
                    line.push_str("no schema");
                }
                Outcome::Legacy => {
                    totals.no_schema += 1;
                    line.push_str("no schema (legacy flatmap attributes are not supported)");
                }
            }
            if matches!(outcome, Outcome::Ok(..) | Outcome::Error(..)) {
                totals.bytes += item.instance.attributes.json().map_or(0, str::len) as u64;
            }
            drop(outcome);
            bump.reset();
            out.line(&line)?;
            if let Some(d) = dump {
                out.line(&d)?;
            }
        }
    }
    let t = &totals;
    out.line(&format!(
        "instances={} ok={} errors={} no_schema={} bytes={} seconds={:.3}",
        t.instances,
        t.ok,
        t.errors,
        t.no_schema,
        t.bytes,
        t.time.as_secs_f64()
    ))?;
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
