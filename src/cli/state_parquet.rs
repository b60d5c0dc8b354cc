//! `tfwire state --format parquet --out DIR`: the state files' tables
//! ([`tfwire::arrow::StateTables`]) written as `DIR/TYPE.parquet`, one file per resource type,
//! and `DIR/instances.parquet`, zstd-compressed, in row groups of at most [`ROW_GROUP`] rows.
//! Each file is read with its instances decoded on every worker (the runs of a batch of
//! instances fold into tables of their own, written in file order), so the rows come in the
//! order `--format ndjson` prints them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use tfwire::arrow::{ArrowOptions, StateTables};
use tfwire::state::{Outcome, SchemaSet, StateReader};
use tfwire::DecodeOptions;

use super::state::Totals;
use super::Failure;

/// The most rows in one row group (and in one batch of a table).
pub const ROW_GROUP: usize = 16_384;

/// One run's rows: its tables and what its instances gave.
struct Run {
    tables: StateTables,
    counts: Totals,
    fault: Option<String>,
}

/// What the files gave: the totals, and by table the decoded instances left out of it (their
/// values of another type than the table's, decoded with another schema version).
#[derive(Default)]
struct Counts {
    totals: Totals,
    other_schema: BTreeMap<String, u64>,
}

/// Writes the tables of `states` into `dir` (created if absent). Returns what the files held
/// and the files that could not be read (with why).
fn write(
    states: &[PathBuf],
    set: &SchemaSet,
    options: &DecodeOptions,
    jobs: usize,
    dir: &Path,
) -> Result<(Counts, Vec<String>), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| Failure::file(dir, e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        // Values nearly all distinct (each instance's DUMP, its address): no dictionary,
        // whose interning costs more than it saves.
        .set_column_dictionary_enabled(ColumnPath::from("attributes"), false)
        .set_column_dictionary_enabled(ColumnPath::from("address"), false)
        .set_column_dictionary_enabled(ColumnPath::from("_address"), false)
        .set_max_row_group_row_count(Some(ROW_GROUP))
        // (Each table's row group in the making is held in memory: bounded in bytes too.)
        .set_max_row_group_bytes(Some(4 << 20))
        .build();
    let mut writers: BTreeMap<String, Table> = BTreeMap::new();
    let mut counts = Counts::default();
    let mut bad = Vec::new();
    for path in states {
        let name = path.display().to_string();
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => {
                bad.push(format!("{name}: {e}"));
                continue;
            }
        };
        let arrow = ArrowOptions::default();
        // Tables written out come back here to be filled again: their builders (and the
        // schemas of their types, hundreds of columns for some) are made once, not per run.
        let pool: std::sync::Mutex<Vec<StateTables>> = std::sync::Mutex::new(Vec::new());
        let init = || Run {
            tables: pool
                .lock()
                .ok()
                .and_then(|mut p| p.pop())
                .unwrap_or_else(|| StateTables::new(&arrow)),
            counts: Totals::default(),
            fault: None,
        };
        let fold =
            |run: &mut Run, item: tfwire::state::InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
                run.counts.count(&item, outcome);
                if let Err(e) = run.tables.add(&name, item, outcome) {
                    run.fault.get_or_insert(e.to_string());
                }
            };
        let reader = StateReader::new(std::io::BufReader::new(file));
        let mut out = Out {
            writers: &mut writers,
            counts: &mut counts,
            dir,
            props: &props,
            file: &name,
            failure: None,
            pool: &pool,
        };
        let summary = match jobs {
            // One thread: runs of `ROW_GROUP` instances.
            0 | 1 => {
                let mut run = init();
                let summary = reader.visit(set, options, |item, outcome| {
                    fold(&mut run, item, outcome);
                    if run.tables.len() >= ROW_GROUP {
                        out.absorb(std::mem::replace(&mut run, init()));
                    }
                });
                out.absorb(run);
                summary
            }
            _ => reader.visit_parallel(set, options, jobs, init, fold, |run| out.absorb(run)),
        };
        if let Some(f) = out.failure {
            // The files begun are not Parquet files: none is left behind.
            for table in std::mem::take(&mut writers).into_keys() {
                let _ = std::fs::remove_file(dir.join(format!("{table}.parquet")));
            }
            return Err(f);
        }
        match summary {
            Ok(s) => counts.totals.skipped += s.skipped,
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    for (table, t) in writers {
        t.close().map_err(|e| {
            Failure::BadInput(format!(
                "{}: {e}",
                dir.join(format!("{table}.parquet")).display()
            ))
        })?;
    }
    Ok((counts, bad))
}

/// Where runs go: the tables' writers, the counts, the first failure (after which nothing
/// more is written).
struct Out<'o> {
    writers: &'o mut BTreeMap<String, Table>,
    counts: &'o mut Counts,
    dir: &'o Path,
    props: &'o WriterProperties,
    /// The state file being read.
    file: &'o str,
    failure: Option<Failure>,
    /// Where tables written out go back, empty.
    pool: &'o std::sync::Mutex<Vec<StateTables>>,
}

impl Out<'_> {
    /// A run's counts, and its rows written.
    fn absorb(&mut self, run: Run) {
        self.counts.totals.add(&run.counts);
        if self.failure.is_some() {
            return;
        }
        if let Some(f) = run.fault {
            self.failure = Some(Failure::BadInput(format!("{}: {f}", self.file)));
            return;
        }
        let mut tables = run.tables;
        match tables.finish() {
            Ok(batches) => {
                for (table, batch) in batches {
                    self.write(&table, &batch);
                }
            }
            Err(e) => self.failure = Some(Failure::BadInput(format!("{}: {e}", self.file))),
        }
        if let Ok(mut pool) = self.pool.lock() {
            pool.push(tables);
        }
    }

    /// Writes `batch` to table `table`'s file (created on its first batch).
    fn write(&mut self, table: &str, batch: &arrow_array::RecordBatch) {
        if self.failure.is_some() {
            return;
        }
        let out = self.dir.join(format!("{table}.parquet"));
        let result = match self.writers.get_mut(table) {
            // Rows of the type whose values have another type (another schema version) than
            // the table's first: left to `instances`.
            Some(t) if t.schema != batch.schema() => {
                let n = self
                    .counts
                    .other_schema
                    .entry(table.to_string())
                    .or_default();
                *n = n.saturating_add(batch.num_rows() as u64);
                Ok(())
            }
            Some(t) => t.push(batch),
            None => std::fs::File::create(&out)
                .map_err(parquet::errors::ParquetError::from)
                .and_then(|f| ArrowWriter::try_new(f, batch.schema(), Some(self.props.clone())))
                .and_then(|writer| {
                    let mut t = Table {
                        schema: batch.schema(),
                        writer,
                        pending: Vec::new(),
                        rows: 0,
                    };
                    t.push(batch)?;
                    self.writers.insert(table.to_string(), t);
                    Ok(())
                }),
        };
        if let Err(e) = result {
            self.failure = Some(Failure::file(&out, e));
        }
    }
}

/// The rows a table gathers from runs before they are written together: a run's batch of a
/// type may be a few rows, and each write costs every one of the table's columns.
const GATHER_ROWS: usize = 4096;

/// One table's Parquet file: its schema (the first batch's), its writer, and the batches
/// gathered for the next write.
struct Table {
    schema: arrow_schema::SchemaRef,
    writer: ArrowWriter<std::fs::File>,
    pending: Vec<arrow_array::RecordBatch>,
    rows: usize,
}

impl Table {
    /// Gathers `batch`; writes what is gathered once it holds [`GATHER_ROWS`] rows.
    fn push(
        &mut self,
        batch: &arrow_array::RecordBatch,
    ) -> Result<(), parquet::errors::ParquetError> {
        self.rows = self.rows.saturating_add(batch.num_rows());
        self.pending.push(batch.clone());
        if self.rows >= GATHER_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), parquet::errors::ParquetError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let batch = arrow_select::concat::concat_batches(&self.schema, &self.pending)?;
        self.pending.clear();
        self.rows = 0;
        self.writer.write(&batch)
    }

    /// Writes what is gathered, then the file's footer.
    fn close(mut self) -> Result<(), parquet::errors::ParquetError> {
        self.flush()?;
        self.writer.close().map(drop)
    }
}

/// `tfwire state --format parquet --out DIR`: the files' tables written, the summary line on
/// standard error (and a line per table that left instances out), exit 1 when an instance
/// failed to decode or a file could not be read.
pub fn run(
    states: &[PathBuf],
    set: &SchemaSet,
    options: &DecodeOptions,
    jobs: usize,
    dir: &Path,
    types: bool,
) -> Result<(), Failure> {
    let start = std::time::Instant::now();
    let (mut c, bad) = write(states, set, options, jobs, dir)?;
    c.totals.time = start.elapsed();
    for (table, n) in &c.other_schema {
        eprintln!(
            "tfwire: {table}: {n} instances decoded by a schema of another type than the \
             table's first: in instances.parquet only"
        );
    }
    for b in &bad {
        eprintln!("tfwire: {b}");
    }
    c.totals.report(types, bad.len())
}
