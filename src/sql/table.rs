//! [`FleetTable`]: one table of a [`Fleet`] as a DataFusion `TableProvider`. A scan is a
//! `StreamingTableExec` of one partition per file group (the files dealt out by size over
//! the session's target partitions); each partition reads its files on a thread of its own
//! with a [`StateReader`] and a [`StateTables`] filling only this table, and hands on batches
//! of the projected columns through a channel of two. With fewer files than partitions, each
//! file is read on several threads (`StateReader::visit_parallel_map`), so one large state
//! uses every core.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::{
    BinaryExpr, Expr, Operator, TableProviderFilterPushDown, TableType,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};

use super::Fleet;
use crate::arrow::{Parts, StateTables, INSTANCES_TABLE};
use crate::state::{InstanceRef, Mode, Outcome, ReaderOptions, SchemaSet, StateReader};

/// Rows a partition gathers before it hands on a batch.
const BATCH_ROWS: usize = 8192;

/// A table of a [`Fleet`]: `instances`, or a resource type's (`None` / its mode and name).
#[derive(Debug, Clone)]
pub struct FleetTable {
    fleet: Fleet,
    of_type: Option<(Mode, String)>,
    schema: SchemaRef,
}

impl FleetTable {
    pub(super) fn new(fleet: Fleet, of_type: Option<(Mode, String)>, schema: SchemaRef) -> Self {
        FleetTable {
            fleet,
            of_type,
            schema,
        }
    }

    /// The table's name in [`StateTables`]' batches.
    fn name(&self) -> String {
        match &self.of_type {
            None => INSTANCES_TABLE.to_string(),
            Some((Mode::Managed, t)) => t.clone(),
            Some((Mode::Data, t)) => format!("data.{t}"),
        }
    }
}

#[async_trait]
impl TableProvider for FleetTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    /// `instances`' filters on `type` (`type = '…'`, `type IN (…)`) are taken as a hint:
    /// the instances of other types are stepped over undecoded. (Inexact: DataFusion still
    /// applies every filter to the rows.)
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>, DataFusionError> {
        Ok((filters.iter())
            .map(|f| match (&self.of_type, type_filter(f)) {
                (None, Some(_)) => TableProviderFilterPushDown::Inexact,
                _ => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>, DataFusionError> {
        let projected = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        let names: Vec<&str> = (projected.fields().iter())
            .map(|f| f.name().as_str())
            .collect();
        let inner = &self.fleet.inner;
        let mut set = inner.set.clone();
        let parts = match &self.of_type {
            None => {
                // (Filters are ANDed: the rows are among the types of any one of them.)
                if let Some(types) = filters.iter().find_map(type_filter) {
                    set.only_types(types);
                }
                Parts::default()
                    .with_types(false)
                    .with_attributes(names.contains(&"attributes"))
            }
            Some((_, type_name)) => {
                // Only this type's instances decoded. (Whole: a program projected on the
                // columns asked for would accept instances the full decode rejects — an
                // attribute the schema lacks, outside the selection — and a table's rows are
                // the instances that decode.)
                set.only_types([type_name.clone()]);
                Parts::default().with_instances(false)
            }
        };
        let set = Arc::new(set);
        let target = state.config().target_partitions().max(1);
        let groups = file_groups(&inner.files, target);
        // Fewer files than partitions: each file read on several threads.
        let threads = target.checked_div(groups.len()).unwrap_or(1).max(1);
        let partitions: Vec<Arc<dyn PartitionStream>> = groups
            .into_iter()
            .map(|files| {
                Arc::new(Partition(Arc::new(Job {
                    threads,
                    fleet: self.fleet.clone(),
                    table: self.name(),
                    set: set.clone(),
                    parts,
                    files,
                    schema: projected.clone(),
                }))) as Arc<dyn PartitionStream>
            })
            .collect();
        let exec = StreamingTableExec::try_new(projected, partitions, None, [], false, limit)?;
        Ok(Arc::new(exec))
    }
}

/// The types `filter` keeps, when it is `type = 'T'` or `type IN ('T', …)` (not negated).
fn type_filter(filter: &Expr) -> Option<Vec<String>> {
    let is_type = |e: &Expr| matches!(e, Expr::Column(c) if c.name == "type");
    let text = |e: &Expr| match e {
        Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)), _) => {
            Some(s.clone())
        }
        _ => None,
    };
    match filter {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Eq,
            right,
        }) => match (is_type(left), is_type(right)) {
            (true, _) => text(right).map(|t| vec![t]),
            (_, true) => text(left).map(|t| vec![t]),
            _ => None,
        },
        Expr::InList(InList {
            expr,
            list,
            negated: false,
        }) if is_type(expr) => list.iter().map(text).collect(),
        _ => None,
    }
}

/// `files` dealt out over at most `n` groups, largest first to the lightest group.
fn file_groups(files: &[PathBuf], n: usize) -> Vec<Vec<PathBuf>> {
    let mut sized: Vec<(u64, &PathBuf)> = (files.iter())
        .map(|f| (std::fs::metadata(f).map(|m| m.len()).unwrap_or(0), f))
        .collect();
    sized.sort_by_key(|s| std::cmp::Reverse(s.0));
    let n = n.clamp(1, files.len().max(1));
    let mut groups: Vec<(u64, Vec<PathBuf>)> = vec![(0, Vec::new()); n];
    for (size, f) in sized {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 = g.0.saturating_add(size);
            g.1.push(f.clone());
        }
    }
    groups
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| !g.is_empty())
        .collect()
}

/// One partition of a scan: its files, read (on a thread of its own each time it is
/// executed) into this table's projected batches.
#[derive(Debug)]
struct Partition(Arc<Job>);

impl PartitionStream for Partition {
    fn schema(&self) -> &SchemaRef {
        &self.0.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (mut tx, rx) = mpsc::channel::<Result<RecordBatch, DataFusionError>>(2);
        let job = self.0.clone();
        std::thread::spawn(move || {
            let mut send = |b| futures::executor::block_on(tx.send(b)).is_ok();
            if let Err(e) = job.run(&mut send) {
                send(Err(e));
            }
        });
        Box::pin(RecordBatchStreamAdapter::new(
            self.0.schema.clone(),
            rx.boxed(),
        ))
    }
}

/// What a partition's thread reads.
#[derive(Debug)]
struct Job {
    /// Threads to read each file with (more than one when there are fewer files than
    /// partitions: one large state uses every core).
    threads: usize,
    fleet: Fleet,
    table: String,
    set: Arc<SchemaSet>,
    parts: Parts,
    files: Vec<PathBuf>,
    schema: SchemaRef,
}

impl Job {
    /// Reads the files, handing on batches to `send` (false: the query has ended).
    fn run(
        &self,
        send: &mut dyn FnMut(Result<RecordBatch, DataFusionError>) -> bool,
    ) -> Result<(), DataFusionError> {
        let inner = &self.fleet.inner;
        let mut tables = StateTables::new(&inner.arrow).with_parts(self.parts);
        for path in &self.files {
            let name = path.display().to_string();
            let file = std::fs::File::open(path)
                .map_err(|e| DataFusionError::Execution(format!("{name}: {e}")))?;
            if self.threads > 1 {
                if !self.read_parallel(file, &name, send)? {
                    return Ok(());
                }
                continue;
            }
            let mut fault = None;
            let mut open = true;
            let summary =
                StateReader::new(file).visit(&self.set, &inner.options, |item, outcome| {
                    if !open || fault.is_some() {
                        return;
                    }
                    if let Err(e) = self.add(&mut tables, &name, item, outcome) {
                        fault = Some(e);
                    } else if tables.len() >= BATCH_ROWS {
                        open = self.hand_on(&mut tables, send);
                    }
                });
            summary.map_err(|e| DataFusionError::Execution(format!("{name}: {e}")))?;
            if let Some(e) = fault {
                return Err(DataFusionError::ArrowError(Box::new(e), Some(name)));
            }
            if !open {
                return Ok(());
            }
        }
        self.hand_on(&mut tables, send);
        Ok(())
    }

    /// Adds an instance of file `name` to `tables`, counting it when it failed to decode.
    fn add(
        &self,
        tables: &mut StateTables,
        name: &str,
        item: InstanceRef<'_, '_>,
        outcome: &Outcome<'_>,
    ) -> Result<(), arrow_schema::ArrowError> {
        if matches!(outcome, Outcome::Error(..)) {
            self.fleet.inner.failed.fetch_add(1, Ordering::Relaxed);
        }
        tables.add(name, item, outcome)
    }

    /// Reads one file on [`Job::threads`] threads (`visit_parallel_map`: each run's rows
    /// become this table's batches on the thread that read them). False when the query has
    /// ended.
    fn read_parallel(
        &self,
        file: std::fs::File,
        name: &str,
        send: &mut dyn FnMut(Result<RecordBatch, DataFusionError>) -> bool,
    ) -> Result<bool, DataFusionError> {
        let inner = &self.fleet.inner;
        // (Runs of a few MiB: a run's batch of a table costs its columns, whatever its rows.)
        let reader =
            StateReader::with_options(file, ReaderOptions::default().with_read_size(8 << 20));
        type Run = (StateTables, Option<arrow_schema::ArrowError>);
        let init = || -> Run { (StateTables::new(&inner.arrow).with_parts(self.parts), None) };
        let fold = |(tables, fault): &mut Run, item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
            if fault.is_none() {
                if let Err(e) = self.add(tables, name, item, outcome) {
                    *fault = Some(e);
                }
            }
        };
        let map = |(mut tables, fault): Run| -> Result<Vec<RecordBatch>, DataFusionError> {
            if let Some(e) = fault {
                return Err(DataFusionError::ArrowError(
                    Box::new(e),
                    Some(name.to_string()),
                ));
            }
            let batches = tables.finish()?;
            Ok((batches.into_iter())
                .filter(|(table, _)| *table == self.table)
                .filter_map(|(_, batch)| self.projected(&batch))
                .collect())
        };
        let (mut open, mut fault) = (true, None);
        let summary = reader.visit_parallel_map(
            &self.set,
            &inner.options,
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
            None => Ok(open),
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
            Err(e) => return send(Err(e.into())),
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
