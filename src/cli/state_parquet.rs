//! `tfwire state --format parquet --out DIR`: the state files' tables
//! ([`tfwire::arrow::StateTables`]) written as `DIR/TYPE.parquet`, one file per resource type,
//! and `DIR/instances.parquet`, zstd-compressed, in row groups of at most [`ROW_GROUP`] rows.
//! Each file is read with its instances decoded on every worker (the runs of a batch of
//! instances fold into tables of their own and become columns there), and the columns are
//! encoded in file order, so the rows come in the order `--format ndjson` prints them. At
//! the end the files are closed (each table's last row group written) on every job.
//! Memory: the runs in flight, and each table's rows gathered for its next row group, at
//! most [`MEMORY_BUDGET`] for all tables together (past it, those holding the most bytes for
//! each column chunk are written out), a text column that holds one value in all of a
//! batch's rows kept as that value.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError};

use parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use tfwire::arrow::{ArrowOptions, StateTables};
use tfwire::state::{Outcome, Pool, ReaderOptions, SchemaSet, StateReader};
use tfwire::DecodeOptions;

use super::parquet_gathered::Gathered;
use super::state_totals::Totals;
use super::Failure;

/// The most rows in one row group (and in one batch of a table).
pub const ROW_GROUP: usize = 16_384;

/// The reader's read size, and so the size of the batches whose runs the workers decode
/// and turn into columns: runs of a few MiB give each table's batch of a run enough rows
/// (the cost of a batch is its columns', hundreds for some types, whatever its rows).
const READ_SIZE: usize = 8 << 20;

/// The bytes the tables' gathered rows may hold together; past it, some are written out (as
/// row groups of fewer rows: see `Out::bound_memory`).
const MEMORY_BUDGET: usize = 64 << 20;

/// A table's gathered rows are written as a row group once they hold [`ROW_GROUP`] rows or
/// this many bytes.
const GROUP_BYTES: usize = 16 << 20;

/// One run's rows: its tables and what its instances gave.
struct Run {
    tables: StateTables,
    counts: Totals,
    fault: Option<String>,
}

/// A run turned into columns (on the worker that decoded it): its batches, what its
/// instances gave, and its tables, emptied, to be filled again.
struct Columns {
    batches: Result<Vec<(String, arrow_array::RecordBatch)>, String>,
    counts: Totals,
    fault: Option<String>,
    tables: StateTables,
}

impl Run {
    fn finish(mut self) -> Columns {
        Columns {
            batches: self.tables.finish().map_err(|e| e.to_string()),
            counts: self.counts,
            fault: self.fault,
            tables: self.tables,
        }
    }
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
    (options, arrow): (&DecodeOptions, &ArrowOptions),
    (jobs, shared): (usize, &Arc<dyn Pool>),
    dir: &Path,
) -> Result<(Counts, Vec<String>), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| Failure::file(dir, e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        // Values nearly all distinct (each instance's DUMP, its address): no dictionary,
        // whose interning costs more than it saves, and no minimum and maximum, which no
        // query of long JSON text prunes by and whose comparisons cost.
        .set_column_dictionary_enabled(ColumnPath::from("attributes"), false)
        .set_column_dictionary_enabled(ColumnPath::from("address"), false)
        .set_column_dictionary_enabled(ColumnPath::from("_address"), false)
        .set_column_statistics_enabled(ColumnPath::from("attributes"), EnabledStatistics::None)
        .set_column_statistics_enabled(ColumnPath::from("error"), EnabledStatistics::None)
        .set_max_row_group_row_count(Some(ROW_GROUP))
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
        // Tables written out come back here to be filled again: their builders (and the
        // schemas of their types, hundreds of columns for some) are made once, not per run.
        let pool: std::sync::Mutex<Vec<StateTables>> = std::sync::Mutex::new(Vec::new());
        let init = || Run {
            tables: pool
                .lock()
                .ok()
                .and_then(|mut p| p.pop())
                .unwrap_or_else(|| StateTables::new(arrow)),
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
        let reader =
            // (Its runs on the command's pool: `OnRayon`.)
            StateReader::with_options(
                file,
                ReaderOptions::default()
                    .with_read_size(READ_SIZE)
                    .with_pool(Arc::clone(shared)),
            );
        let mut out = Out {
            writers: &mut writers,
            counts: &mut counts,
            dir,
            props: &props,
            file: &name,
            failure: None,
            pool: &pool,
        };
        let (summary, failure) = match jobs {
            // One thread: runs of `ROW_GROUP` instances.
            0 | 1 => {
                let mut run = init();
                let summary = reader.visit(set, options, |item, outcome| {
                    fold(&mut run, item, outcome);
                    if run.tables.len() >= ROW_GROUP {
                        out.absorb(std::mem::replace(&mut run, init()).finish());
                    }
                });
                out.absorb(run.finish());
                (summary, out.failure)
            }
            // Workers decode runs and turn them into columns; the calling thread walks the
            // file, helps them, and encodes the columns in file order. (A writer thread of
            // its own measured no faster: three busy threads on two cores, 2.64 s against
            // 2.60 s, and more memory.)
            _ => {
                let summary =
                    reader.visit_parallel_map(set, options, jobs, init, fold, Run::finish, |c| {
                        out.absorb(c)
                    });
                (summary, out.failure)
            }
        };
        if let Some(f) = failure {
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
    close_all(writers, (jobs, shared.as_ref()), dir)?;
    Ok((counts, bad))
}

/// Closes the tables' files (the rows each still gathers written as a row group, then its
/// footer) on `jobs` threads, the tables holding the most bytes first: the files are
/// independent, and what the tables gather at the end (up to [`MEMORY_BUDGET`]) was a
/// quarter of a `--jobs 2` run's time on one thread. The first failure in table order.
fn close_all(
    writers: BTreeMap<String, Table>,
    (jobs, pool): (usize, &dyn Pool),
    dir: &Path,
) -> Result<(), Failure> {
    // Sorted to pop the largest first; the index is the table's place in name order.
    let mut tables: Vec<(usize, String, Table)> = (writers.into_iter().enumerate())
        .map(|(i, (name, t))| (i, name, t))
        .collect();
    tables.sort_by_key(|(_, _, t)| t.bytes);
    let threads = jobs.min(tables.len());
    let tables = std::sync::Mutex::new(tables);
    let failures = std::sync::Mutex::new(Vec::new());
    // (No lock is held across a close, so neither is ever poisoned; if one were, its data
    // is still whole.)
    let close = || loop {
        let next = tables.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let Some((i, name, t)) = next else {
            return;
        };
        if let Err(e) = t.close() {
            let why = format!("{}: {e}", dir.join(format!("{name}.parquet")).display());
            failures
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((i, why));
        }
    };
    // (On the command's pool: this thread and `threads - 1` of the pool's.)
    pool.run(threads.saturating_sub(1), &close, &mut || close());
    let failures = failures
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    match failures.into_iter().min_by_key(|(i, _)| *i) {
        Some((_, why)) => Err(Failure::BadInput(why)),
        None => Ok(()),
    }
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
    fn absorb(&mut self, run: Columns) {
        self.counts.totals.add(&run.counts);
        if let Ok(mut pool) = self.pool.lock() {
            pool.push(run.tables);
        }
        if self.failure.is_some() {
            return;
        }
        if let Some(f) = run.fault {
            self.failure = Some(Failure::BadInput(format!("{}: {f}", self.file)));
            return;
        }
        match run.batches {
            Ok(batches) => {
                for (table, batch) in batches {
                    self.write(&table, batch);
                }
            }
            Err(e) => self.failure = Some(Failure::BadInput(format!("{}: {e}", self.file))),
        }
        self.bound_memory(MEMORY_BUDGET);
    }

    /// Writes out gathered rows, while what all tables hold is over `budget`, until it is
    /// three quarters of that: first the tables holding the most bytes for each column chunk
    /// a row group of theirs costs (every chunk makes a compressor and a decompressor, and
    /// the CPU-feature checks that makes cost a trap to the hypervisor on a virtual machine:
    /// the chunks are what a write costs, not the bytes).
    fn bound_memory(&mut self, budget: usize) {
        let mut held: usize = self.writers.values().map(|t| t.bytes).sum();
        if held <= budget || self.failure.is_some() {
            return;
        }
        let mut by_yield: Vec<(usize, usize, String)> = (self.writers.iter())
            .filter(|(_, t)| t.bytes > 0)
            .map(|(n, t)| (t.bytes / t.leaves.max(1), t.bytes, n.clone()))
            .collect();
        by_yield.sort_unstable_by(|a, b| b.cmp(a));
        let keep = budget / 4 * 3;
        for (_, memory, name) in by_yield {
            if held <= keep {
                break;
            }
            let Some(t) = self.writers.get_mut(&name) else {
                continue;
            };
            if let Err(e) = t.flush() {
                self.failure = Some(Failure::file(&self.dir.join(format!("{name}.parquet")), e));
                return;
            }
            held = held.saturating_sub(memory);
        }
    }

    /// Writes `batch` to table `table`'s file (created on its first batch).
    fn write(&mut self, table: &str, batch: arrow_array::RecordBatch) {
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
                    let leaves = ArrowSchemaConverter::new()
                        .convert(&batch.schema())?
                        .num_columns();
                    let mut t = Table {
                        leaves,
                        schema: batch.schema(),
                        writer,
                        pending: Vec::new(),
                        rows: 0,
                        bytes: 0,
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

/// One table's Parquet file: its schema (the first batch's), its writer, and the batches
/// gathered for its next row group (their rows and bytes). A run's batch of a type may be a
/// few rows, and a row group costs every one of the table's columns (hundreds for some),
/// so rows are gathered as arrays, compact, and a row group is written whole at once: no
/// table holds a row group in the making, with a page and encoder per column, between
/// writes.
struct Table {
    schema: arrow_schema::SchemaRef,
    /// Its Parquet leaf columns: the column chunks of each of its row groups.
    leaves: usize,
    writer: ArrowWriter<std::fs::File>,
    pending: Vec<Gathered>,
    rows: usize,
    bytes: usize,
}

impl Table {
    /// Gathers `batch`; writes what is gathered once it holds [`ROW_GROUP`] rows or
    /// [`GROUP_BYTES`].
    fn push(
        &mut self,
        batch: arrow_array::RecordBatch,
    ) -> Result<(), parquet::errors::ParquetError> {
        let gathered = Gathered::new(batch);
        self.rows = self.rows.saturating_add(gathered.rows);
        self.bytes = self.bytes.saturating_add(gathered.bytes);
        self.pending.push(gathered);
        if self.rows >= ROW_GROUP || self.bytes >= GROUP_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes what is gathered as a row group (one batch as it is, several concatenated).
    fn flush(&mut self) -> Result<(), parquet::errors::ParquetError> {
        let batches = std::mem::take(&mut self.pending)
            .into_iter()
            .map(|g| g.batch(&self.schema))
            .collect::<Result<Vec<_>, _>>()?;
        let batch = match batches.len() {
            0 => return Ok(()),
            1 => batches.into_iter().next(),
            _ => Some(arrow_select::concat::concat_batches(
                &self.schema,
                &batches,
            )?),
        };
        (self.rows, self.bytes) = (0, 0);
        match batch {
            Some(batch) => {
                self.writer.write(&batch)?;
                self.writer.flush()
            }
            None => Ok(()),
        }
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
    options: (&DecodeOptions, &ArrowOptions),
    jobs: (usize, &Arc<dyn Pool>),
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Int64Array, RecordBatch};
    use tfwire::state::Threads;

    use super::*;

    /// A batch of `columns` integer columns of `rows` rows.
    fn batch(rows: i64, columns: usize) -> RecordBatch {
        let column = Arc::new(Int64Array::from_iter_values(0..rows)) as arrow_array::ArrayRef;
        RecordBatch::try_from_iter((0..columns).map(|k| (format!("n{k}"), column.clone())))
            .expect("columns")
    }

    /// Past the budget, tables' rows are written as row groups, those holding the most bytes
    /// for each of their columns first, until three quarters of the budget is held; the
    /// others stay gathered.
    #[test]
    fn over_the_budget_the_most_bytes_per_column_are_written_out() {
        let dir = std::env::temp_dir().join(format!("tfwire-bound-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let (mut writers, mut counts) = (BTreeMap::new(), Counts::default());
        let pool = std::sync::Mutex::new(Vec::new());
        let props = WriterProperties::builder().build();
        let mut out = Out {
            writers: &mut writers,
            counts: &mut counts,
            dir: &dir,
            props: &props,
            file: "test",
            failure: None,
            pool: &pool,
        };
        // `wide` holds the most bytes, `b` the most for each column.
        for (table, rows, columns) in [
            ("a", 100, 1),
            ("b", 12_000, 1),
            ("c", 2000, 1),
            ("wide", 3000, 8),
        ] {
            out.write(table, batch(rows, columns));
        }
        let held = |out: &Out<'_>| -> Vec<(String, usize)> {
            (out.writers.iter())
                .map(|(n, t)| (n.clone(), t.rows))
                .collect()
        };
        let memory = |out: &Out<'_>, t: &str| out.writers[t].bytes;
        let all: usize = ["a", "b", "c", "wide"]
            .iter()
            .map(|t| memory(&out, t))
            .sum();
        assert!(memory(&out, "wide") > memory(&out, "b"));
        assert_eq!(out.writers["wide"].leaves, 8);
        // Within the budget: nothing written.
        out.bound_memory(all);
        assert_eq!(held(&out).iter().map(|(_, r)| *r).sum::<usize>(), 17_100);
        // Over it: `b` written, which leaves under three quarters of the budget held.
        assert!((all - memory(&out, "b")) <= (all - 1) / 4 * 3);
        out.bound_memory(all - 1);
        assert_eq!(
            held(&out),
            [("a", 100), ("b", 0), ("c", 2000), ("wide", 3000)].map(|(t, r)| (t.to_string(), r))
        );
        assert_eq!(out.writers["b"].writer.flushed_row_groups().len(), 1);
        assert_eq!(out.writers["wide"].writer.flushed_row_groups().len(), 0);
        // Far over it: `wide` next, then `c`, until three quarters is held.
        out.bound_memory(memory(&out, "c"));
        assert_eq!(
            held(&out),
            [("a", 100), ("b", 0), ("c", 0), ("wide", 0)].map(|(t, r)| (t.to_string(), r))
        );
        assert!(out.failure.is_none());
        drop(out);
        for (_, t) in writers {
            t.close().expect("closed");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A table whose file is `path`, holding `rows` rows of one integer column not yet written.
    fn table(path: &Path, rows: i64) -> Table {
        let b = batch(rows, 1);
        let writer = ArrowWriter::try_new(
            std::fs::File::create(path).expect("created"),
            b.schema(),
            None,
        )
        .expect("writer");
        let mut t = Table {
            leaves: 1,
            schema: b.schema(),
            writer,
            pending: Vec::new(),
            rows: 0,
            bytes: 0,
        };
        t.push(b).expect("gathered");
        t
    }

    /// The files are closed on every job, each with the rows it still gathers; when some
    /// fail, the failure reported is the first table's in name order, whichever thread met
    /// it first (`/dev/full` fails every write).
    #[test]
    fn files_closed_on_every_job_and_the_first_failure_in_table_order() {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let dir = std::env::temp_dir().join(format!("tfwire-close-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        for jobs in [1, 2, 3] {
            let writers: BTreeMap<String, Table> = (0..5)
                .map(|k| {
                    (
                        format!("t{k}"),
                        table(&dir.join(format!("t{k}.parquet")), 100 * k + 1),
                    )
                })
                .collect();
            assert!(
                close_all(writers, (jobs, &Threads), &dir).is_ok(),
                "jobs {jobs}"
            );
            for k in 0..5 {
                let file = std::fs::File::open(dir.join(format!("t{k}.parquet"))).expect("file");
                let rows = SerializedFileReader::new(file)
                    .expect("parquet")
                    .metadata()
                    .file_metadata()
                    .num_rows();
                assert_eq!(rows, 100 * k + 1, "jobs {jobs}");
            }
            let full = Path::new("/dev/full");
            let mut writers = BTreeMap::new();
            writers.insert("a".to_string(), table(&dir.join("a.parquet"), 10));
            writers.insert("c".to_string(), table(full, 5_000));
            writers.insert("b".to_string(), table(full, 10));
            writers.insert("d".to_string(), table(&dir.join("d.parquet"), 10));
            let Err(Failure::BadInput(why)) = close_all(writers, (jobs, &Threads), &dir) else {
                panic!("jobs {jobs}: no failure");
            };
            let b = dir.join("b.parquet").display().to_string();
            assert!(why.starts_with(&format!("{b}: ")), "jobs {jobs}: {why}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
