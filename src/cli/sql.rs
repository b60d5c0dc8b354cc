//! `tfwire sql`: a query over state files with DataFusion ([`tfwire::sql::Fleet`]: a table
//! per resource type, `data.TYPE` per data source, and `instances`), printed as an aligned
//! table or written as CSV, NDJSON or Parquet.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::prelude::{SessionConfig, SessionContext};
use tfwire::sql::{Fleet, FleetOptions};
use tfwire::DecodeOptions;

use super::Failure;

const ABOUT: &str = "\
Tables: `instances` (a row per instance: file, address, module, mode, type, name, index_key,
deposed, provider, schema_version, status, error, attributes as the DUMP's JSON), and a table
per resource type the documents define (`aws_instance`; `data.aws_ami` for a data source: the
schema `data`): a row per instance that decoded, the envelope as _file, _address,
_module, _mode, _name, _index_key, _deposed, _provider, _schema_version, then a typed column per
attribute and block (see README, Typed columns). A scan of a type's table steps over the other
types' instances undecoded (its own are decoded whole; with --skip-unknown-attrs only the
attributes asked for). EXPLAIN works.";

#[derive(Args, Debug)]
#[command(after_help = ABOUT)]
pub struct SqlArgs {
    /// A providers-schema document (`terraform providers schema -json`); repeatable.
    #[arg(short, long = "schemas", value_name = "DOC.json", required = true)]
    schemas: Vec<PathBuf>,
    /// A state file, or a directory of them (its `*.tfstate` files, recursively);
    /// repeatable.
    #[arg(long = "states", value_name = "PATH")]
    states: Vec<PathBuf>,
    /// Output: an aligned table, or CSV, NDJSON or Parquet (into --out FILE, or standard
    /// output when it is not a terminal).
    #[arg(short, long, value_enum, default_value = "table")]
    format: SqlFormat,
    /// With --format parquet: the file to write.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Worker threads and partitions, and threads that load the documents (default: every
    /// core; at least 1).
    #[arg(short, long, value_name = "N", value_parser = super::state::jobs_count)]
    jobs: Option<usize>,
    /// Fail (exit 1, nothing printed) at the first instance of a table read that fails to
    /// decode, naming its file and address; without it they are left out of their table
    /// and counted on standard error (with --cluster, on each executor's).
    #[arg(long)]
    strict: bool,
    /// Step over object attributes the schema does not have (schema drift: a state written
    /// by another version of the provider) instead of failing the instance, as `tfwire
    /// state --skip-unknown-attrs` does. A scan then decodes only the attributes the query
    /// asks for: an instance whose other attributes hold a value of the wrong type is a row.
    #[arg(long)]
    skip_unknown_attrs: bool,
    /// Run the query on a Ballista cluster (`tfwire cluster`) whose scheduler is at URL
    /// (`df://HOST:PORT`); every executor must read the states and documents at the paths
    /// given.
    #[cfg(feature = "cluster")]
    #[arg(long, value_name = "URL", value_parser = cluster_url)]
    cluster: Option<String>,
    /// Print the tables' names, one per line, and exit.
    #[arg(long)]
    list_tables: bool,
    /// The query (DataFusion's SQL).
    #[arg(value_name = "QUERY", required_unless_present = "list_tables")]
    query: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SqlFormat {
    Table,
    Csv,
    Ndjson,
    Parquet,
}

impl SqlArgs {
    /// With `--cluster`.
    #[cfg(feature = "cluster")]
    pub fn uses_network(&self) -> bool {
        self.cluster.is_some()
    }

    /// With `--cluster` (not built).
    #[cfg(not(feature = "cluster"))]
    pub fn uses_network(&self) -> bool {
        false
    }
}

/// Runs `tfwire sql`.
pub fn run(args: SqlArgs) -> Result<(), Failure> {
    let mut files = Vec::new();
    for path in &args.states {
        collect_states(path, &mut files)?;
    }
    #[cfg_attr(not(feature = "cluster"), allow(unused_mut))]
    let mut schemas = args.schemas.clone();
    #[cfg(feature = "cluster")]
    if args.cluster.is_some() {
        // (The executors read the files: paths from the directory they were named in.)
        for path in files.iter_mut().chain(schemas.iter_mut()) {
            *path = std::path::absolute(&*path).map_err(|e| Failure::file(path, e))?;
        }
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let options = FleetOptions::default()
        .with_decode(DecodeOptions::default().with_skip_unknown_attributes(args.skip_unknown_attrs))
        .with_strict(args.strict)
        .with_load_threads(jobs);
    let fleet =
        (Fleet::open(files, schemas, options)).map_err(|e| Failure::BadInput(e.to_string()))?;
    if args.list_tables {
        let mut text = fleet.table_names().join("\n");
        text.push('\n');
        return super::write_stdout(text.as_bytes());
    }
    let Some(query) = &args.query else {
        return Err(Failure::Usage("a QUERY is needed".into()));
    };
    if args.out.is_some() && args.format != SqlFormat::Parquet {
        return Err(Failure::Usage("--out goes with --format parquet".into()));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(jobs)
        .enable_all()
        .build()
        .map_err(|e| Failure::BadInput(format!("--jobs {jobs}: {e}")))?;
    let result = runtime.block_on(async {
        let config = SessionConfig::new().with_target_partitions(jobs);
        #[cfg(feature = "cluster")]
        let ctx = match &args.cluster {
            Some(url) => {
                wait_for_scheduler(url)?;
                tfwire::sql::cluster::connect(url, config).await?
            }
            None => SessionContext::new_with_config(config),
        };
        #[cfg(not(feature = "cluster"))]
        let ctx = SessionContext::new_with_config(config);
        fleet.register(&ctx)?;
        let frame = ctx.sql(query).await?;
        let schema = frame.schema().inner().clone();
        Ok::<_, DataFusionError>((schema, frame.collect().await?))
    });
    let (schema, batches) = result.map_err(query_failure)?;
    let failed = fleet.failed();
    if failed > 0 {
        let noun = if failed == 1 { "instance" } else { "instances" };
        eprintln!("tfwire: {failed} {noun} failed to decode (not in their type's table)");
    }
    let written = write(&args, schema, &batches);
    // The process ends here: its memory goes back whole, not piece by piece (the documents'
    // tables, the batches; the runtime's threads are not waited for). 4–10 ms of 0.2 s on
    // the fleet workload.
    std::mem::forget((fleet, batches, runtime));
    written
}

/// Waits until the scheduler at `url` (`df://HOST:PORT`) takes connections (it may have
/// just been started), for at most [`SCHEDULER_WAIT`].
#[cfg(feature = "cluster")]
fn wait_for_scheduler(url: &str) -> Result<(), DataFusionError> {
    use std::net::{TcpStream, ToSocketAddrs};
    let address = scheduler_address(url).ok_or_else(|| {
        DataFusionError::Configuration(format!("--cluster {url}: not df://HOST:PORT"))
    })?;
    let addrs: Vec<_> = (address.to_socket_addrs())
        .map_err(|e| DataFusionError::Configuration(format!("--cluster {url}: {e}")))?
        .collect();
    let start = std::time::Instant::now();
    loop {
        let up = (addrs.iter())
            .any(|a| TcpStream::connect_timeout(a, std::time::Duration::from_secs(1)).is_ok());
        if up {
            return Ok(());
        }
        if start.elapsed() > SCHEDULER_WAIT {
            return Err(DataFusionError::Execution(format!(
                "--cluster {url}: no scheduler there (waited {} s)",
                SCHEDULER_WAIT.as_secs()
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `--cluster`'s value: `df://HOST:PORT`.
#[cfg(feature = "cluster")]
fn cluster_url(arg: &str) -> Result<String, String> {
    match scheduler_address(arg) {
        Some(_) => Ok(arg.into()),
        None => Err("not df://HOST:PORT".into()),
    }
}

/// The `HOST:PORT` of a `df://HOST:PORT` URL.
#[cfg(feature = "cluster")]
fn scheduler_address(url: &str) -> Option<&str> {
    let address = url.strip_prefix("df://")?.trim_end_matches('/');
    match address.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Some(address),
        _ => None,
    }
}

/// How long `--cluster` waits for the scheduler to take connections.
#[cfg(feature = "cluster")]
const SCHEDULER_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A query that does not parse or plan is the command line's fault (exit 2); one that fails
/// as it reads the states is bad input.
fn query_failure(e: DataFusionError) -> Failure {
    match e.find_root() {
        DataFusionError::SQL(..) | DataFusionError::Plan(..) | DataFusionError::SchemaError(..) => {
            Failure::Usage(format!("query: {e}"))
        }
        _ => Failure::BadInput(format!("query: {e}")),
    }
}

/// `path` when a file, else the `*.tfstate` files under it (sorted). Below the directory
/// named, a symbolic link to a directory is not followed (a link to an ancestor would loop).
fn collect_states(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let meta = std::fs::metadata(path).map_err(|e| Failure::file(path, e))?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    walk_states(path, out)
}

fn walk_states(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let mut entries: Vec<(PathBuf, std::fs::FileType)> = std::fs::read_dir(dir)
        .map_err(|e| Failure::file(dir, e))?
        .filter_map(|e| e.ok().and_then(|e| Some((e.path(), e.file_type().ok()?))))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (entry, kind) in entries {
        if kind.is_dir() {
            walk_states(&entry, out)?;
        } else if entry.extension().is_some_and(|x| x == "tfstate") {
            out.push(entry);
        }
    }
    Ok(())
}

fn write(
    args: &SqlArgs,
    schema: datafusion::arrow::datatypes::SchemaRef,
    batches: &[RecordBatch],
) -> Result<(), Failure> {
    let failed = |e: &dyn std::fmt::Display| Failure::BadInput(format!("output: {e}"));
    match args.format {
        SqlFormat::Table => {
            let table =
                datafusion::arrow::util::pretty::pretty_format_batches_with_schema(schema, batches)
                    .map_err(|e| failed(&e))?;
            super::write_stdout(format!("{table}\n").as_bytes())
        }
        SqlFormat::Csv => {
            let mut out = Vec::new();
            {
                let mut w = datafusion::arrow::csv::Writer::new(&mut out);
                for b in batches {
                    w.write(b).map_err(|e| failed(&e))?;
                }
            }
            super::write_stdout(&out)
        }
        SqlFormat::Ndjson => {
            let mut out = Vec::new();
            {
                let mut w = datafusion::arrow::json::LineDelimitedWriter::new(&mut out);
                for b in batches {
                    w.write(b).map_err(|e| failed(&e))?;
                }
                w.finish().map_err(|e| failed(&e))?;
            }
            super::write_stdout(&out)
        }
        SqlFormat::Parquet => {
            let sink: Box<dyn Write + Send> = match &args.out {
                Some(p) => Box::new(std::fs::File::create(p).map_err(|e| Failure::file(p, e))?),
                None if std::io::stdout().is_terminal() => {
                    return Err(Failure::Usage(
                        "--format parquet writes a binary file: give --out FILE or redirect \
                         standard output"
                            .into(),
                    ))
                }
                None => Box::new(std::io::stdout()),
            };
            let props = parquet::file::properties::WriterProperties::builder()
                .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
                .build();
            let mut w = parquet::arrow::ArrowWriter::try_new(sink, schema, Some(props))
                .map_err(|e| failed(&e))?;
            for b in batches {
                w.write(b).map_err(|e| failed(&e))?;
            }
            w.close().map(drop).map_err(|e| failed(&e))
        }
    }
}
