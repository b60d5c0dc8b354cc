//! Command-line definitions (clap) and the subcommands.

#[cfg(feature = "bench")]
mod bench;
#[cfg(feature = "cluster")]
mod cluster;
mod decode;
#[cfg(feature = "parquet")]
mod decode_parquet;
mod in_order;
mod mapped;
#[cfg(feature = "parquet")]
mod parquet_gathered;
mod progress;
#[cfg(feature = "bench")]
mod skip_walk;
#[cfg(feature = "sql")]
mod sql;
mod state;
mod state_lines;
#[cfg(feature = "parquet")]
mod state_parquet;
mod state_totals;
mod strings;

use std::io::{Read, Write};
use std::path::PathBuf;

use bumpalo::Bump;
use clap::{Args, Parser, Subcommand, ValueEnum};
use tfwire::schema::{SchemaSelector, SchemaSource, Selection};
use tfwire::{DecodeOptions, Program};

/// The description `tfwire --help` prints after the subcommands.
const HELP: &str = "\
Data goes to standard output, diagnostics to standard error, each line of them starting
with `tfwire: `.

Exit status: 0 on success; 1 on bad input (a value, a state file, a schema or type file
that does not decode or cannot be read, an instance that fails to decode) or a failed write;
2 when the command line itself is wrong (an unknown flag, a missing argument, an invalid
flag value, an inline --type that is not type JSON). When standard output is closed
(`tfwire … | head`), tfwire stops at once, quietly, killed by SIGPIPE as `cat` is.";

/// Decode Terraform/OpenTofu DynamicValue bytes (MessagePack or JSON) against a provider schema.
#[derive(Parser, Debug)]
#[command(name = "tfwire", version, about, after_help = HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Decode one value and print its DUMP (canonical JSON) on stdout.
    Decode(DecodeArgs),
    /// Decode one value and write it back in either format, byte for byte as go-cty would.
    Transcode(TranscodeArgs),
    /// Print the implied type JSON of a schema (or the given type).
    Type(TypeArgs),
    /// Print the compiled program of a schema or type.
    Disasm(TypeArgs),
    /// Decode every resource instance of state files against providers-schema documents.
    State(state::StateArgs),
    /// Query state files with SQL (DataFusion): a table per resource type, and `instances`.
    #[cfg(feature = "sql")]
    Sql(sql::SqlArgs),
    /// Start a Ballista scheduler or executor that can run `tfwire sql --cluster` queries.
    #[cfg(feature = "cluster")]
    Cluster(cluster::ClusterArgs),
    /// Measure tfwire against its peers (rmpv, rmp-serde, serde_json, simd-json, sonic-rs).
    #[cfg(feature = "bench")]
    Bench(bench::BenchArgs),
}

/// Where the type comes from.
#[derive(Args, Debug)]
#[group(skip)]
struct SourceArgs {
    /// A schema file: a providers-schema document, a bare block, `{"version":n,"block":…}` or
    /// `{"type": T}`.
    #[arg(
        short,
        long,
        value_name = "FILE",
        required_unless_present = "type_json"
    )]
    schema: Option<PathBuf>,
    /// A type constraint as JSON, or `@FILE` to read it from a file.
    #[arg(short, long = "type", value_name = "JSON", conflicts_with = "schema")]
    type_json: Option<String>,
    /// With a providers-schema document: the resource type.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["data_source", "type_json"])]
    resource: Option<String>,
    /// With a providers-schema document: the data source.
    #[arg(long, value_name = "NAME", conflicts_with = "type_json")]
    data_source: Option<String>,
    /// With a providers-schema document: the provider (full address or last segment); alone,
    /// selects its provider configuration schema.
    #[arg(long, value_name = "NAME", conflicts_with = "type_json")]
    provider: Option<String>,
    /// Decode only this part of the value (repeatable): a path in Terraform's notation such
    /// as `tags`, `tags["Name"]`, `ebs_block_device[*].volume_id` or
    /// `root_block_device[0].volume_size`; the rest is stepped over (checked as
    /// JSON or MessagePack, not against the type).
    #[arg(long, value_name = "PATH")]
    select: Vec<String>,
}

#[derive(Args, Debug)]
struct TypeArgs {
    #[command(flatten)]
    source: SourceArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    /// MessagePack (the `msgpack` field of a DynamicValue).
    Msgpack,
    /// JSON (the `json` field of a DynamicValue, or a state file's `attributes`).
    Json,
    /// JSON when the first byte is ASCII (`{`, `[`, `"`, a digit, whitespace, …), else
    /// MessagePack. A MessagePack value that is a bare integer 0..127 reads as JSON: name the
    /// format for those.
    Auto,
}

#[derive(Args, Debug)]
struct DecodeArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Input encoding [default: msgpack]. With --stream, the framing's: json for ndjson,
    /// msgpack for concat and length-prefixed (another is a usage error).
    #[arg(short, long, value_enum)]
    format: Option<Format>,
    /// Skip object attributes the schema does not have (schema drift) instead of failing.
    #[arg(long)]
    skip_unknown_attrs: bool,
    /// Read attributes missing from a MessagePack object as null instead of failing (JSON
    /// always reads them as null, as go-cty does).
    #[arg(long)]
    missing_attrs_null: bool,
    /// Check LIST/SET blocks' min_items/max_items.
    #[arg(long)]
    check_item_counts: bool,
    /// Decode a stream of values (see --framing), printing one DUMP per line as each value
    /// completes; a bad value's error goes to stderr with its index (`tfwire: value N: …`),
    /// and the exit status is 1 at the end if any failed.
    #[arg(long)]
    stream: bool,
    /// With --stream: how values are delimited (default: ndjson for --format json, concat
    /// for msgpack).
    #[arg(long, value_enum, requires = "stream")]
    framing: Option<FramingArg>,
    /// What to write: each value's DUMP on a line, or the values as the rows of a Parquet
    /// file (of an object type: a column per attribute; zstd), into --out FILE or standard
    /// output (not a terminal).
    #[arg(long, value_enum, default_value = "dump")]
    to: DecodeTarget,
    /// With --to parquet: the file to write (replaced).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// With --to parquet: numbers as Decimal128(38, 9), exact; a number without an exact
    /// value there is null, and listed with its path and text in `_inexact_numbers`.
    #[arg(long)]
    exact_numbers: bool,
    /// The input file; `-` or nothing reads standard input.
    #[arg(value_name = "INPUT")]
    input: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DecodeTarget {
    /// The DUMP (canonical JSON), a line per value.
    Dump,
    /// A Parquet file, a row per value.
    #[cfg(feature = "parquet")]
    Parquet,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FramingArg {
    /// MessagePack values one after the other (a bad value ends the stream).
    Concat,
    /// MessagePack values each behind a u32 big-endian length.
    LengthPrefixed,
    /// One JSON value per line.
    Ndjson,
}

#[derive(Args, Debug)]
struct TranscodeArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Input encoding.
    #[arg(long, value_enum, default_value = "auto")]
    from: Format,
    /// Output encoding.
    #[arg(long, value_enum)]
    to: Target,
    /// The input file; `-` or nothing reads standard input.
    #[arg(value_name = "INPUT")]
    input: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Target {
    /// MessagePack, as go-cty's `msgpack.Marshal` writes it.
    Msgpack,
    /// JSON, as go-cty's `ctyjson.Marshal` writes it (no unknowns, no infinities).
    Json,
}

/// How a command failed (the message without the `tfwire: ` that `main` puts before it).
pub enum Failure {
    /// Bad input — a value, a state, schema or type file that does not decode or cannot be
    /// read — or a failed write: exit 1.
    BadInput(String),
    /// The command line itself is wrong: exit 2.
    Usage(String),
    /// Standard output is closed (where no SIGPIPE ended the process first): exit 1, quietly.
    Closed,
}

impl Failure {
    /// A failed write to standard output: [`Failure::Closed`] for a closed pipe.
    fn stdout(e: &std::io::Error) -> Failure {
        match e.kind() {
            std::io::ErrorKind::BrokenPipe => Failure::Closed,
            _ => Failure::BadInput(format!("standard output: {e}")),
        }
    }

    /// A file that cannot be read or does not load: bad input.
    fn file(path: &std::path::Path, e: impl std::fmt::Display) -> Failure {
        Failure::BadInput(format!("{}: {e}", path.display()))
    }
}

impl Cli {
    /// Whether the command talks over the network (a cluster's processes, `sql --cluster`).
    pub fn uses_network(&self) -> bool {
        match &self.command {
            #[cfg(feature = "cluster")]
            Command::Cluster(_) => true,
            #[cfg(feature = "sql")]
            Command::Sql(args) => args.uses_network(),
            _ => false,
        }
    }
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Decode(args) => decode::run(args),
        Command::Transcode(args) => transcode(args),
        Command::Type(args) => {
            let program = compile(&args.source)?;
            write_stdout(format!("{}\n", program.root_type()).as_bytes())
        }
        Command::Disasm(args) => {
            let program = compile(&args.source)?;
            write_stdout(program.to_string().as_bytes())
        }
        Command::State(args) => state::run(args),
        #[cfg(feature = "sql")]
        Command::Sql(args) => sql::run(args),
        #[cfg(feature = "cluster")]
        Command::Cluster(args) => cluster::run(args),
        #[cfg(feature = "bench")]
        Command::Bench(args) => bench::run(args),
    }
}

fn compile(src: &SourceArgs) -> Result<Program, Failure> {
    let program = compile_whole(src)?;
    if src.select.is_empty() {
        return Ok(program);
    }
    let selection = Selection::parse(&src.select)
        .and_then(|selection| program.select(&selection))
        .map_err(|e| Failure::Usage(format!("--select: {e}")))?;
    Ok(selection)
}

/// The program of the whole type or schema.
fn compile_whole(src: &SourceArgs) -> Result<Program, Failure> {
    if let Some(text) = &src.type_json {
        return type_program(text);
    }
    let Some(path) = &src.schema else {
        return Err(Failure::Usage(
            "one of --schema or --type is required".into(),
        ));
    };
    let source = SchemaSource::parse(&read_file(path)?).map_err(|e| Failure::file(path, e))?;
    let sel = SchemaSelector::default()
        .with_resource(src.resource.clone())
        .with_data_source(src.data_source.clone())
        .with_provider(src.provider.clone());
    Program::from_source(&source, &sel).map_err(|e| Failure::file(path, e))
}

/// The program of `--type`'s argument: type JSON (not JSON: the command line is wrong), or
/// `@FILE` (a file that does not load: bad input).
fn type_program(arg: &str) -> Result<Program, Failure> {
    match arg.strip_prefix('@') {
        Some(path) => {
            let path = std::path::Path::new(path);
            Program::from_type_json(&read_file(path)?).map_err(|e| Failure::file(path, e))
        }
        None => Program::from_type_json(arg).map_err(|e| Failure::Usage(format!("--type: {e}"))),
    }
}

/// Decodes `input` in `format`; a decode error is bad input (exit 1).
fn decode_input<'a>(
    program: &'a Program,
    input: &'a [u8],
    format: Format,
    options: &DecodeOptions,
    bump: &'a Bump,
) -> Result<tfwire::Value<'a>, Failure> {
    match format {
        Format::Msgpack => program.decode_msgpack_with(input, bump, options),
        Format::Json => program.decode_json_with(input, bump, options),
        Format::Auto if input.first().is_some_and(|b| b.is_ascii()) => {
            program.decode_json_with(input, bump, options)
        }
        Format::Auto => program.decode_msgpack_with(input, bump, options),
    }
    .map_err(|e| Failure::BadInput(format!("error {e}")))
}

fn transcode(args: TranscodeArgs) -> Result<(), Failure> {
    let program = compile(&args.source)?;
    let input = read_input(args.input.as_deref())?;
    let bump = Bump::new();
    let value = decode_input(
        &program,
        &input,
        args.from,
        &DecodeOptions::default(),
        &bump,
    )?;
    let mut out = Vec::with_capacity(input.len());
    match args.to {
        Target::Msgpack => program.encode_msgpack(value, &mut out),
        Target::Json => program.encode_json(value, &mut out),
    }
    .map_err(|e| Failure::BadInput(e.to_string()))?;
    write_stdout(&out)
}

fn read_file(path: &std::path::Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| Failure::file(path, e))
}

fn read_input(path: Option<&std::path::Path>) -> Result<Vec<u8>, Failure> {
    match path {
        Some(p) if p.as_os_str() != "-" => std::fs::read(p).map_err(|e| Failure::file(p, e)),
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| Failure::BadInput(format!("standard input: {e}")))?;
            Ok(buf)
        }
    }
}

fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::stdout(&e))
}
