//! SQL over state files (the `sql` feature): a [`Fleet`] of state files and provider schema
//! documents as DataFusion tables — a table per resource type the documents define (`TYPE`,
//! and `"data.TYPE"` for a data source; the columns of [`StateTables`]: the envelope,
//! underscored, then a typed column per attribute), and `instances`, a row per instance. The
//! tables' schemas come from the documents (the first document's schema of each type), never
//! from the data.
//!
//! A scan decodes only what the query needs: a type's table reads the states with every
//! other type's instances stepped over undecoded ([`SchemaSet::only_types`]), and so does a
//! scan of `instances` filtered on `type`; `instances` writes the `attributes` DUMP only when
//! the column is asked for. (A type's own instances are decoded whole: a program projected
//! on the columns asked for would accept some that the full decode rejects, and a table's
//! rows are the instances that decode.) The files are spread over the session's target partitions (`table.rs`). Instances that fail to decode
//! are not rows of their type's table; [`Fleet::failed`] counts them.
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

pub use table::FleetTable;

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
    options: DecodeOptions,
    arrow: ArrowOptions,
    failed: AtomicU64,
}

impl Fleet {
    /// The fleet of `files` (state files) typed by `docs` (provider schema documents' text).
    pub fn new(files: Vec<PathBuf>, docs: Vec<String>) -> Result<Fleet, SchemaError> {
        Fleet::with_options(
            files,
            docs,
            DecodeOptions::default(),
            ArrowOptions::default(),
        )
    }

    /// [`Fleet::new`] with the decode and column options.
    pub fn with_options(
        files: Vec<PathBuf>,
        docs: Vec<String>,
        options: DecodeOptions,
        arrow: ArrowOptions,
    ) -> Result<Fleet, SchemaError> {
        let set = load(docs)?;
        Ok(Fleet {
            inner: Arc::new(Inner {
                files,
                set,
                options,
                arrow,
                failed: AtomicU64::new(0),
            }),
        })
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
            let schema = StateTables::new(&self.inner.arrow).instances_schema();
            return Ok(Some(FleetTable::new(self.clone(), None, schema)));
        }
        let (mode, type_name) = type_of_table(name);
        let Some(program) = self.inner.set.first_program(mode, type_name) else {
            return Ok(None);
        };
        let program = program.map_err(Clone::clone)?;
        let schema = StateTables::type_schema(program, &self.inner.arrow)?;
        let table = FleetTable::new(self.clone(), Some((mode, type_name.to_string())), schema);
        Ok(Some(table))
    }

    /// Registers the tables as the default schema of `ctx` (the tables are made when a
    /// query names them).
    pub fn register(&self, ctx: &SessionContext) -> Result<(), DataFusionError> {
        let state = ctx.state();
        let options = &state.config().options().catalog;
        let catalog = ctx.catalog(&options.default_catalog).ok_or_else(|| {
            DataFusionError::Plan(format!("no catalog {}", options.default_catalog))
        })?;
        catalog.register_schema(&options.default_schema, Arc::new(self.clone()))?;
        Ok(())
    }

    /// Instances that failed to decode in the scans so far (a scan of several tables counts
    /// an instance once per table that met it).
    pub fn failed(&self) -> u64 {
        self.inner.failed.load(Ordering::Relaxed)
    }
}

/// The mode and type of a type's table name (`TYPE`, `data.TYPE`).
fn type_of_table(name: &str) -> (Mode, &str) {
    match name.strip_prefix("data.") {
        Some(t) => (Mode::Data, t),
        None => (Mode::Managed, name),
    }
}

/// The documents loaded (deferred: a schema is read when a state needs it), outlined on
/// every core and added in their order.
fn load(docs: Vec<String>) -> Result<SchemaSet, SchemaError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = docs.len().div_ceil(cores).max(1);
    let mut chunks: Vec<Vec<String>> = Vec::new();
    let mut docs = docs.into_iter().peekable();
    while docs.peek().is_some() {
        chunks.push(docs.by_ref().take(per).collect());
    }
    let sets: Vec<Result<SchemaSet, SchemaError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (chunks.into_iter())
            .map(|chunk| {
                scope.spawn(move || {
                    let mut one = SchemaSet::new();
                    for doc in chunk {
                        one.add_json_deferred(doc)?;
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

#[async_trait]
impl SchemaProvider for Fleet {
    fn table_names(&self) -> Vec<String> {
        Fleet::table_names(self)
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>, DataFusionError> {
        let table = Fleet::table(self, name).map_err(|e| DataFusionError::External(Box::new(e)))?;
        Ok(table.map(|t| Arc::new(t) as Arc<dyn TableProvider>))
    }

    fn table_exist(&self, name: &str) -> bool {
        let (mode, type_name) = type_of_table(name);
        name == INSTANCES_TABLE || self.inner.set.first_program(mode, type_name).is_some()
    }
}
