//! SQL over state files (the `sql` feature): a [`Fleet`] of state files and provider schema
//! documents as DataFusion tables — a table per resource type the documents define (`TYPE`,
//! and `data.TYPE` for a data source, in the schema `data`; the columns of [`StateTables`]: the envelope,
//! underscored, then a typed column per attribute), and `instances`, a row per instance. The
//! tables' schemas come from the documents (the first document's schema of each type), never
//! from the data.
//!
//! A scan decodes only what the query needs: a type's table reads the states with every
//! other type's instances stepped over undecoded ([`SchemaSet::only_types`]), and so does a
//! scan of `instances` filtered on `type`; filters on the other envelope columns (`module`,
//! `mode`, `name`, `provider`, `address`) step over the resources they rule out
//! ([`SchemaSet::only_resources`], `filters.rs`); `instances` writes the `attributes` DUMP
//! only when the column is asked for. Of a type's own instances only the columns asked for
//! are built ([`StateTables::with_columns`](crate::arrow::StateTables::with_columns)), and
//! the instances are decoded whole — except with the drift option
//! ([`DecodeOptions::skip_unknown_attributes`]), under which the full decode steps over
//! attributes the schema lacks as a projection does: then a scan of some of a type's
//! attributes decodes only those (a program projected on them, [`SchemaSet::select`];
//! EXPLAIN shows `decodes=[…]`), and an instance whose other attributes hold a value of the
//! wrong type is a row too. (Without the option, a projected program would make rows of the
//! instances holding attributes their schema lacks, which the full decode rejects, and a
//! table's rows are the instances that decode: `perf/optimizations.md`, Q3 and Q13.)
//!
//! A scan is DataFusion's file scan of the states (`scan.rs`), the files dealt out by size
//! over the session's target partitions (`table.rs`), one large file read in parts of its
//! bytes on the partition's threads
//! ([`StateReader::visit_file_parallel`](crate::state::StateReader::visit_file_parallel)); its
//! statistics are the files' sizes and, once known, the table's rows (`stats.rs`). Instances
//! that fail to decode are not rows of their type's table; [`Fleet::failed`] counts them
//! (or, with [`FleetOptions::strict`], the first fails the query). On a Ballista cluster:
//! the module `cluster` (the `cluster` feature).
//!
//! ```
//! use datafusion::prelude::SessionContext;
//! use tfwire::sql::Fleet;
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/states");
//! let fleet = Fleet::new(
//!     vec![dir.join("toy.tfstate")],
//!     vec![std::fs::read_to_string(dir.join("toy.schemas.json"))?],
//! )?;
//! let ctx = SessionContext::new();
//! fleet.register(&ctx)?;
//! let batches = ctx
//!     .sql("SELECT _address, port FROM toy_server ORDER BY _address")
//!     .await?
//!     .collect()
//!     .await?;
//! let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(rows, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "cluster")]
pub mod cluster;
mod filters;
mod scan;
mod stats;
mod table;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::{SchemaProvider, TableProvider};
use datafusion::error::DataFusionError;
use datafusion::prelude::SessionContext;

use crate::arrow::{ArrowOptions, StateTables, INSTANCES_TABLE};
use crate::error::SchemaError;
use crate::program::DecodeOptions;
use crate::state::{Mode, SchemaSet};

pub use scan::FleetSource;
pub use table::FleetTable;

/// How a [`Fleet`] decodes its instances into rows.
///
/// ```
/// use tfwire::sql::FleetOptions;
/// let options = FleetOptions::default().with_strict(true);
/// assert!(options.strict && !options.arrow.exact_numbers);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FleetOptions {
    /// How instances are decoded.
    pub decode: DecodeOptions,
    /// How values become columns.
    pub arrow: ArrowOptions,
    /// A scan fails at the first instance of its table that fails to decode (naming the file
    /// and the instance), instead of leaving it out and counting it ([`Fleet::failed`]).
    pub strict: bool,
    /// Threads that read and outline the documents (0, the default: one per core).
    pub load_threads: usize,
}

with_setters!(FleetOptions {
    #[const] with_decode => decode: DecodeOptions,
    #[const] with_arrow => arrow: ArrowOptions,
    #[const] with_strict => strict: bool,
    #[const] with_load_threads => load_threads: usize,
});

/// State files and the provider schema documents that type them, as tables.
#[derive(Debug, Clone)]
pub struct Fleet {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    files: Vec<PathBuf>,
    /// Every document loaded (deferred: a schema is read when first needed); each scan
    /// restricts a copy of its own.
    set: SchemaSet,
    /// The documents' files, when the fleet was made from them ([`Fleet::open`]): what a
    /// cluster's codec sends instead of their text.
    doc_paths: Option<Vec<PathBuf>>,
    options: FleetOptions,
    /// Made by a cluster's codec: the scans' failures are said on standard error (the
    /// client cannot count them).
    remote: bool,
    failed: AtomicU64,
    /// Each table's rows in each file, once a scan has read it whole (`stats.rs`).
    rows: stats::RowCounts,
}

impl Fleet {
    /// The fleet of `files` (state files) typed by `docs` (provider schema documents' text).
    pub fn new(files: Vec<PathBuf>, docs: Vec<String>) -> Result<Fleet, SchemaError> {
        Fleet::with_options(files, docs, FleetOptions::default())
    }

    /// [`Fleet::new`] with options.
    pub fn with_options(
        files: Vec<PathBuf>,
        docs: Vec<String>,
        options: FleetOptions,
    ) -> Result<Fleet, SchemaError> {
        let set = load_each(docs, options.load_threads, Ok, |e| e)?;
        Ok(Fleet::from_parts(files, set, None, options, false))
    }

    /// The fleet of `files` typed by the documents in the files `doc_paths`. Unlike
    /// [`Fleet::new`], such a fleet can be sent to a cluster (the `cluster` feature): its
    /// scans name the documents' files, which every executor reads.
    ///
    /// ```
    /// use tfwire::sql::{Fleet, FleetOptions};
    ///
    /// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/states");
    /// let fleet = Fleet::open(
    ///     vec![dir.join("toy.tfstate")],
    ///     vec![dir.join("toy.schemas.json")],
    ///     FleetOptions::default(),
    /// )?;
    /// assert_eq!(fleet.table_names(), ["instances", "toy_server", "data.toy_image"]);
    /// # Ok::<(), datafusion::error::DataFusionError>(())
    /// ```
    pub fn open(
        files: Vec<PathBuf>,
        doc_paths: Vec<PathBuf>,
        options: FleetOptions,
    ) -> Result<Fleet, DataFusionError> {
        let set = load_paths(&doc_paths, options.load_threads)?;
        Ok(Fleet::from_parts(
            files,
            set,
            Some(doc_paths),
            options,
            false,
        ))
    }

    fn from_parts(
        files: Vec<PathBuf>,
        set: SchemaSet,
        doc_paths: Option<Vec<PathBuf>>,
        options: FleetOptions,
        remote: bool,
    ) -> Fleet {
        Fleet {
            inner: Arc::new(Inner {
                files,
                set,
                doc_paths,
                options,
                remote,
                failed: AtomicU64::new(0),
                rows: Default::default(),
            }),
        }
    }

    /// The state files.
    pub fn files(&self) -> &[PathBuf] {
        &self.inner.files
    }

    /// The documents' files, when the fleet was made from them ([`Fleet::open`]).
    pub fn doc_paths(&self) -> Option<&[PathBuf]> {
        self.inner.doc_paths.as_deref()
    }

    /// The options.
    pub fn options(&self) -> &FleetOptions {
        &self.inner.options
    }

    /// The tables' names: `instances`, the resource types, `data.TYPE` for data sources.
    pub fn table_names(&self) -> Vec<String> {
        let mut names = vec![INSTANCES_TABLE.to_string()];
        names.extend(
            self.inner
                .set
                .type_names(Mode::Managed)
                .into_iter()
                .map(str::to_string),
        );
        names.extend(
            (self.inner.set.type_names(Mode::Data).into_iter()).map(|t| format!("data.{t}")),
        );
        names
    }

    /// The table `name`, `None` when there is none (or its schema does not load: the error).
    pub fn table(&self, name: &str) -> Result<Option<FleetTable>, SchemaError> {
        if name == INSTANCES_TABLE {
            let schema = StateTables::new(&self.inner.options.arrow).instances_schema();
            return Ok(Some(FleetTable::new(self.clone(), None, schema)));
        }
        let (mode, type_name) = type_of_table(name);
        let Some(program) = self.inner.set.first_program(mode, type_name) else {
            return Ok(None);
        };
        let program = program.map_err(Clone::clone)?;
        let schema = StateTables::type_schema(program, &self.inner.options.arrow)?;
        let table = FleetTable::new(self.clone(), Some((mode, type_name.to_string())), schema);
        Ok(Some(table))
    }

    /// Registers the tables in the default catalog of `ctx`: `instances` and the resource
    /// types as its default schema, the data sources as its schema `data` (`data.aws_ami`).
    /// The tables are made when a query names them.
    pub fn register(&self, ctx: &SessionContext) -> Result<(), DataFusionError> {
        let state = ctx.state();
        let options = &state.config().options().catalog;
        let catalog = ctx.catalog(&options.default_catalog).ok_or_else(|| {
            DataFusionError::Plan(format!("no catalog {}", options.default_catalog))
        })?;
        let schema = |mode| {
            Arc::new(FleetSchema {
                fleet: self.clone(),
                mode,
            })
        };
        catalog.register_schema(&options.default_schema, schema(Mode::Managed))?;
        catalog.register_schema(DATA_SCHEMA, schema(Mode::Data))?;
        Ok(())
    }

    /// Instances that failed to decode in the scans so far (a scan of several tables counts
    /// an instance once per table that met it).
    pub fn failed(&self) -> u64 {
        self.inner.failed.load(Ordering::Relaxed)
    }
}

/// The schema of the data sources' tables.
const DATA_SCHEMA: &str = "data";

/// The mode and type of a type's table name (`TYPE`, `data.TYPE`).
fn type_of_table(name: &str) -> (Mode, &str) {
    match name.strip_prefix("data.") {
        Some(t) => (Mode::Data, t),
        None => (Mode::Managed, name),
    }
}

/// The documents in the files `paths`, loaded ([`load`]); a file that cannot be read or
/// loaded is named.
fn load_paths(paths: &[PathBuf], threads: usize) -> Result<SchemaSet, DataFusionError> {
    let read = |p: &PathBuf| {
        std::fs::read_to_string(p)
            .map_err(|e| DataFusionError::Execution(format!("{}: {e}", p.display())))
    };
    let external = |e: SchemaError| DataFusionError::External(Box::new(e));
    load_each(paths.iter().collect(), threads, read, external)
}

/// The documents `read` makes of `items`, read and outlined on `threads` threads (0: one
/// per core), each a run of them, then added in their order (deferred: a schema is read
/// when a state needs it).
fn load_each<T: Send, E: Send>(
    items: Vec<T>,
    threads: usize,
    read: impl Fn(T) -> Result<String, E> + Sync,
    schema_error: impl Fn(SchemaError) -> E + Sync,
) -> Result<SchemaSet, E> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let per = items.len().div_ceil(threads).max(1);
    let mut chunks: Vec<Vec<T>> = Vec::new();
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        chunks.push(items.by_ref().take(per).collect());
    }
    let (read, schema_error) = (&read, &schema_error);
    let sets: Vec<Result<SchemaSet, E>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (chunks.into_iter())
            .map(|chunk| {
                scope.spawn(move || {
                    let mut one = SchemaSet::new();
                    for item in chunk {
                        one.add_json_deferred(read(item)?).map_err(schema_error)?;
                    }
                    Ok(one)
                })
            })
            .collect();
        (handles.into_iter())
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut set = SchemaSet::new();
    for one in sets {
        set.append(one?);
    }
    Ok(set)
}

/// The fleet's tables in a schema of a catalog: `instances` and the resource types (the
/// default schema), or the data sources (the schema `data`, so `data.aws_ami` names one).
#[derive(Debug)]
struct FleetSchema {
    fleet: Fleet,
    mode: Mode,
}

impl FleetSchema {
    /// The fleet's table `name` in this schema.
    fn full_name(&self, name: &str) -> Option<String> {
        match self.mode {
            Mode::Managed if name.starts_with("data.") => None,
            Mode::Managed => Some(name.to_string()),
            Mode::Data => Some(format!("data.{name}")),
        }
    }
}

#[async_trait]
impl SchemaProvider for FleetSchema {
    fn table_names(&self) -> Vec<String> {
        let names = self.fleet.table_names().into_iter();
        match self.mode {
            Mode::Managed => names.filter(|n| !n.starts_with("data.")).collect(),
            Mode::Data => names
                .filter_map(|n| n.strip_prefix("data.").map(str::to_string))
                .collect(),
        }
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>, DataFusionError> {
        let Some(name) = self.full_name(name) else {
            return Ok(None);
        };
        let table =
            (self.fleet.table(&name)).map_err(|e| DataFusionError::External(Box::new(e)))?;
        Ok(table.map(|t| Arc::new(t) as Arc<dyn TableProvider>))
    }

    fn table_exist(&self, name: &str) -> bool {
        let Some(name) = self.full_name(name) else {
            return false;
        };
        let (mode, type_name) = type_of_table(&name);
        name == INSTANCES_TABLE
            || self
                .fleet
                .inner
                .set
                .first_program(mode, type_name)
                .is_some()
    }
}
