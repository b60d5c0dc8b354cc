//! A scan partition's [`FleetOpener`]: its files read one after another on the partition's
//! reader thread, or one file in parts on several ([`Job`]), into tables whose batches go
//! to DataFusion through a channel.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::error::DataFusionError;
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};

use super::super::Fleet;
use super::{state_path, FleetSource};
use crate::arrow::{Parts, StateTables};
use crate::state::{InstanceRef, Outcome, ReaderOptions, SchemaSet, StateReader};

/// Rows a file's reader gathers before it hands on a batch.
const BATCH_ROWS: usize = 8192;

/// Opens the files of a scan's partition: each is read on the partition's reader thread.
pub(super) struct FleetOpener {
    source: FleetSource,
    parts: Parts,
    /// The scan's documents projected on the columns read, when it decodes only those
    /// ([`FleetSource::projected_set`]; `None`: the source's).
    projected: Option<Arc<SchemaSet>>,
    /// The columns read.
    schema: SchemaRef,
    /// The partition's reader thread, started at its first file: the partition's files are
    /// read one after another on one thread, its allocator's pages and the tables' Arrow
    /// schemas reused (a thread per file measured 15–30% slower on 200 files).
    worker: Mutex<Option<std::sync::mpsc::Sender<(Job, BatchSender)>>>,
}

/// Where a file's batches go.
type BatchSender = mpsc::Sender<Result<RecordBatch, DataFusionError>>;

impl FleetOpener {
    /// The opener of a partition of `source`'s scan, its reader thread not started yet.
    pub(super) fn new(
        source: FleetSource,
        parts: Parts,
        projected: Option<Arc<SchemaSet>>,
        schema: SchemaRef,
    ) -> FleetOpener {
        FleetOpener {
            source,
            worker: Mutex::default(),
            parts,
            projected,
            schema,
        }
    }
}

impl FileOpener for FleetOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture, DataFusionError> {
        let source = &self.source;
        let job = Job {
            threads: source.spec.threads,
            fleet: source.fleet.clone(),
            table: source.spec.table.clone(),
            set: self.projected.as_ref().unwrap_or(&source.set).clone(),
            parts: self.parts,
            file: state_path(&file),
            schema: self.schema.clone(),
            failed: AtomicU64::new(0),
            // (A projected scan's rows may be more than the full decode's: not counted.)
            counts_rows: source.spec.types.is_none()
                && source.spec.resources.is_empty()
                && self.projected.is_none(),
        };
        let (tx, rx) = mpsc::channel::<Result<RecordBatch, DataFusionError>>(2);
        let mut worker = (self.worker.lock())
            .map_err(|_| DataFusionError::Internal("a scan's reader thread failed".into()))?;
        let arrow = source.fleet.inner.options.arrow;
        let (parts, schema) = (self.parts, self.schema.clone());
        let worker = worker.get_or_insert_with(|| start_worker(arrow, parts, schema));
        worker
            .send((job, tx))
            .map_err(|_| DataFusionError::Internal("a scan's reader thread ended".into()))?;
        Ok(Box::pin(futures::future::ready(Ok(rx.boxed()))))
    }
}

/// A reader thread: runs the jobs it is sent, one after another, until its sender drops.
fn start_worker(
    arrow: crate::arrow::ArrowOptions,
    parts: Parts,
    schema: SchemaRef,
) -> std::sync::mpsc::Sender<(Job, BatchSender)> {
    let (jobs, receiver) = std::sync::mpsc::channel::<(Job, BatchSender)>();
    std::thread::spawn(move || {
        let fresh = || tables_for(&arrow, parts, &schema);
        let mut tables = fresh();
        for (job, mut out) in receiver {
            // (Rows handed on, and whether every batch was taken.)
            let (mut rows, mut taken) = (0u64, true);
            let mut send = |b: Result<RecordBatch, DataFusionError>| {
                let n = b.as_ref().map_or(0, |b| b.num_rows() as u64);
                let ok = futures::executor::block_on(out.send(b)).is_ok();
                rows = rows.saturating_add(n);
                taken &= ok;
                ok
            };
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                job.run(&mut tables, &mut send)
            }));
            match run {
                Ok(Ok(())) => {
                    if job.counts_rows && taken {
                        (job.fleet.inner.rows).record(&job.table, &job.file, rows);
                    }
                }
                Ok(Err(e)) => {
                    send(Err(e));
                }
                Err(_) => {
                    // (The file's rows so far are not all of them: the query fails.)
                    send(Err(DataFusionError::Execution(format!(
                        "{}: the reader thread panicked",
                        job.file.display()
                    ))));
                    tables = fresh();
                }
            }
            job.report_failures();
            if !tables.is_empty() {
                // (A job that ended early left rows: not the next file's.)
                tables = fresh();
            }
        }
    });
    jobs
}

/// Tables that fill `parts`, and of a type's table only the columns of `schema` (the
/// scan's): the others are not built (the rows are the same).
fn tables_for(arrow: &crate::arrow::ArrowOptions, parts: Parts, schema: &SchemaRef) -> StateTables {
    let tables = StateTables::new(arrow).with_parts(parts);
    match parts.types {
        true => tables.with_columns(schema.fields().iter().map(|f| f.name().clone())),
        false => tables,
    }
}

/// What a partition's thread reads.
struct Job {
    /// Threads to read each file with (more than one when there are fewer files than
    /// partitions: one large state uses every core).
    threads: usize,
    fleet: Fleet,
    table: String,
    set: Arc<SchemaSet>,
    parts: Parts,
    file: PathBuf,
    schema: SchemaRef,
    /// Instances of the file that failed to decode.
    failed: AtomicU64,
    /// No filter leaves rows out: the table's rows in the file, once all are handed on,
    /// are its row count (`stats.rs`).
    counts_rows: bool,
}
impl Job {
    /// Reads the file, handing on batches to `send` (false: the query has ended).
    fn run(
        &self,
        tables: &mut StateTables,
        send: &mut dyn FnMut(Result<RecordBatch, DataFusionError>) -> bool,
    ) -> Result<(), DataFusionError> {
        let inner = &self.fleet.inner;
        let name = self.file.display().to_string();
        if self.threads > 1 {
            self.read_parallel(&name, send)?;
            return Ok(());
        }
        let file = std::fs::File::open(&self.file)
            .map_err(|e| DataFusionError::Execution(format!("{name}: {e}")))?;
        let mut fault = None;
        let mut open = true;
        let summary =
            StateReader::new(file).visit(&self.set, &inner.options.decode, |item, outcome| {
                if !open || fault.is_some() {
                    return;
                }
                if let Err(e) = self.add(tables, &name, item, outcome) {
                    fault = Some(e);
                } else if tables.len() >= BATCH_ROWS {
                    open = self.hand_on(tables, send);
                }
            });
        summary.map_err(|e| DataFusionError::Execution(format!("{name}: {e}")))?;
        if let Some(e) = fault {
            return Err(e);
        }
        if open {
            self.hand_on(tables, send);
        }
        Ok(())
    }

    /// Adds an instance of file `name` to `tables`, counting it when it failed to decode.
    fn add(
        &self,
        tables: &mut StateTables,
        name: &str,
        item: InstanceRef<'_, '_>,
        outcome: &Outcome<'_>,
    ) -> Result<(), DataFusionError> {
        if let Outcome::Error(error, _) = outcome {
            if self.fleet.inner.options.strict {
                return Err(DataFusionError::Execution(format!(
                    "{name}: {}: {error} (strict: an instance failed to decode)",
                    item.address()
                )));
            }
            self.fleet.inner.failed.fetch_add(1, Ordering::Relaxed);
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        (tables.add(name, item, outcome))
            .map_err(|e| DataFusionError::ArrowError(Box::new(e), Some(name.to_string())))
    }

    /// `error`, naming the file read.
    fn arrow_error(&self, error: arrow_schema::ArrowError) -> DataFusionError {
        DataFusionError::ArrowError(Box::new(error), Some(self.file.display().to_string()))
    }

    /// On a cluster's executor, where the client cannot count them: the instances of these
    /// files that failed to decode, said on standard error.
    fn report_failures(&self) {
        let failed = self.failed.load(Ordering::Relaxed);
        if failed > 0 && self.fleet.inner.remote {
            eprintln!(
                "tfwire: {failed} instances of {} failed to decode (table {})",
                self.file.display(),
                self.table
            );
        }
    }

    /// Reads one file on [`Job::threads`] threads (`visit_file_parallel`: in parts of its
    /// bytes, each part's rows made this table's batches on the thread that read them),
    /// until the query has ended.
    fn read_parallel(
        &self,
        name: &str,
        send: &mut dyn FnMut(Result<RecordBatch, DataFusionError>) -> bool,
    ) -> Result<(), DataFusionError> {
        let inner = &self.fleet.inner;
        // (Runs of a few MiB when the file is read as one stream: a run's batch of a table
        // costs its columns, whatever its rows.)
        let options = ReaderOptions::default().with_read_size(8 << 20);
        type Run = (StateTables, Option<DataFusionError>);
        let init = || -> Run {
            (
                tables_for(&inner.options.arrow, self.parts, &self.schema),
                None,
            )
        };
        let fold = |(tables, fault): &mut Run, item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
            if fault.is_none() {
                if let Err(e) = self.add(tables, name, item, outcome) {
                    *fault = Some(e);
                }
            }
        };
        let map = |(mut tables, fault): Run| -> Result<Vec<RecordBatch>, DataFusionError> {
            if let Some(e) = fault {
                return Err(e);
            }
            let batches = tables.finish().map_err(|e| self.arrow_error(e))?;
            Ok((batches.into_iter())
                .filter(|(table, _)| *table == self.table)
                .filter_map(|(_, batch)| self.projected(&batch))
                .collect())
        };
        let (mut open, mut fault) = (true, None);
        let summary = StateReader::visit_file_parallel(
            &self.file,
            options,
            &self.set,
            &inner.options.decode,
            self.threads,
            init,
            fold,
            map,
            |run| match run {
                _ if !open || fault.is_some() => {}
                Ok(batches) => open = batches.into_iter().all(|b| send(Ok(b))),
                Err(e) => fault = Some(e),
            },
        );
        summary.map_err(|e| DataFusionError::Execution(format!("{name}: {e}")))?;
        match fault {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// This table's rows so far, in the projected columns (the rows of values of another
    /// type than the table's — another schema version — left out).
    fn hand_on(
        &self,
        tables: &mut StateTables,
        send: &mut dyn FnMut(Result<RecordBatch, DataFusionError>) -> bool,
    ) -> bool {
        let batches = match tables.finish() {
            Ok(b) => b,
            Err(e) => {
                send(Err(self.arrow_error(e)));
                return false;
            }
        };
        for (name, batch) in batches {
            if name != self.table {
                continue;
            }
            if let Some(batch) = self.projected(&batch) {
                if !send(Ok(batch)) {
                    return false;
                }
            }
        }
        true
    }

    /// `batch`'s columns in the scan's schema, when it has them all of the same types.
    fn projected(&self, batch: &RecordBatch) -> Option<RecordBatch> {
        let columns = (self.schema.fields().iter())
            .map(|f| {
                let column = batch.column_by_name(f.name())?;
                (column.data_type() == f.data_type()).then(|| column.clone())
            })
            .collect::<Option<Vec<_>>>()?;
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        RecordBatch::try_new_with_options(self.schema.clone(), columns, &options).ok()
    }
}
