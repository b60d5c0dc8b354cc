//! The scan of a [`FleetTable`]: a DataFusion `DataSourceExec` over a `FileScanConfig` whose
//! file groups are the state files dealt out by size over the session's target partitions,
//! read by [`FleetSource`] (a `FileSource` of file type `tfstate`). A partition's files, as
//! they are opened (`scan/opener.rs`), are read one after another on the partition's reader
//! thread, each with a `StateReader` into a `StateTables` filling only this table, its
//! batches of the columns asked for handed on through a channel of two; with fewer files
//! than partitions, each file is read on several threads, in parts of its bytes
//! (`StateReader::visit_file_parallel`), so one large state uses every core. (A plain file
//! scan, so DataFusion and Ballista treat it as theirs: Ballista restricts a task's plan to
//! its partitions by slicing the file groups, which it cannot do to a leaf of its own kind.)

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileGroup, FileOpener, FileScanConfig, FileScanConfigBuilder, FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::DataFusionError;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::object_store::ObjectStore;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::{DisplayFormatType, ExecutionPlan};

use super::filters::describe;
use super::table::FleetTable;
use super::Fleet;
use crate::arrow::Parts;
use crate::schema::Selection;
use crate::state::{ResourceFilter, SchemaSet};

mod opener;

use opener::FleetOpener;

/// Most threads one file is read with.
const MAX_THREADS_PER_FILE: usize = 256;

/// What a scan reads, besides its files and columns (the `FileScanConfig`'s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ScanSpec {
    /// The table's name (`instances`, `TYPE`, `data.TYPE`).
    pub table: String,
    /// `instances` only: the types the query's filters keep (the others stepped over).
    pub types: Option<Vec<String>>,
    /// The resources the query's filters on envelope columns keep (the others stepped over).
    pub resources: ResourceFilter,
    /// Threads to read each file with.
    pub threads: usize,
}

/// A state file's path as the fleet names it (a `PartitionedFile`'s extension: its object
/// store location is the absolute path).
#[derive(Debug)]
pub(super) struct StatePath(pub PathBuf);

/// The scan of `table` that `spec` describes: `groups` (each a partition's files), the
/// table's columns `projection`, at most `limit` rows.
pub(super) fn scan_plan(
    table: &FleetTable,
    spec: ScanSpec,
    groups: Vec<Vec<PathBuf>>,
    projection: Option<Vec<usize>>,
    limit: Option<usize>,
) -> Result<Arc<dyn ExecutionPlan>, DataFusionError> {
    // (Every file of the table: each partition's, and on a cluster's executor a slice.)
    let files: Vec<PathBuf> = groups.iter().flatten().cloned().collect();
    let rows = table.fleet().inner.rows.known(&table.name(), &files);
    let statistics = super::stats::statistics(table.schema_ref(), rows);
    let source = FleetSource::new(table, spec);
    // (As many partitions as groups, none too: a cluster's task may hold none of a scan's.)
    let groups: Vec<FileGroup> = (groups.into_iter())
        .map(|files| FileGroup::new(files.into_iter().map(partitioned_file).collect()))
        .collect();
    let config = FileScanConfigBuilder::new(ObjectStoreUrl::local_filesystem(), Arc::new(source))
        .with_file_groups(groups)
        .with_limit(limit)
        .with_statistics(statistics)
        .with_projection_indices(projection)?
        .build();
    Ok(DataSourceExec::from_data_source(config))
}

/// The file `path` of a scan.
fn partitioned_file(path: PathBuf) -> PartitionedFile {
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    let location = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
    let mut file = PartitionedFile::new(location.to_string_lossy(), size);
    file.extensions.insert(StatePath(path));
    file
}

/// The fleet's name of `file`.
pub(super) fn state_path(file: &PartitionedFile) -> PathBuf {
    match file.extensions.get::<StatePath>() {
        Some(p) => p.0.clone(),
        None => PathBuf::from(format!("/{}", file.object_meta.location)),
    }
}

/// The `FileSource` of a [`FleetTable`]'s scans.
#[derive(Debug, Clone)]
pub struct FleetSource {
    fleet: Fleet,
    spec: ScanSpec,
    /// The documents, restricted to the types the scan decodes.
    set: Arc<SchemaSet>,
    parts: Parts,
    table_schema: TableSchema,
    projection: SplitProjection,
    metrics: ExecutionPlanMetricsSet,
}

impl FleetSource {
    fn new(table: &FleetTable, mut spec: ScanSpec) -> FleetSource {
        let mut set = table.fleet().inner.set.clone();
        let mut resources = spec.resources.clone();
        let parts = match table.of_type() {
            None => {
                if let Some(types) = &spec.types {
                    set.only_types(types.iter().cloned());
                }
                // (`attributes` is made only when asked for: [`FleetSource::parts_for`].)
                Parts::default().with_types(false)
            }
            Some((mode, type_name)) => {
                // Only this type's instances decoded, and only those of the table's mode (a
                // data source of the same name is another table); whole, or with the drift
                // option only the columns read (`FleetSource::decoded_attributes`).
                set.only_types([type_name.to_string()]);
                let keeps_mode = (resources.modes.as_ref()).is_none_or(|m| m.contains(&mode));
                resources.modes = Some(if keeps_mode { vec![mode] } else { Vec::new() });
                Parts::default().with_instances(false)
            }
        };
        set.only_resources(resources);
        // (A plan from a cluster's scheduler names the count: bounded here.)
        spec.threads = spec.threads.clamp(1, MAX_THREADS_PER_FILE);
        let table_schema = TableSchema::from(table.schema_ref().clone());
        FleetSource {
            fleet: table.fleet().clone(),
            spec,
            set: Arc::new(set),
            parts,
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// What the scan reads.
    #[cfg(feature = "cluster")]
    pub(super) fn spec(&self) -> &ScanSpec {
        &self.spec
    }

    /// The fleet it reads.
    #[cfg(feature = "cluster")]
    pub(super) fn fleet(&self) -> &Fleet {
        &self.fleet
    }

    /// The table's columns the scan hands on (`None`: all).
    #[cfg(feature = "cluster")]
    pub(super) fn column_indices(&self) -> Option<Vec<usize>> {
        let all = self.table_schema.table_schema().fields().len();
        let indices = column_indices(&self.projection.source)?;
        (indices != (0..all).collect::<Vec<_>>()).then_some(indices)
    }
}

/// The columns of `projection`, when it is only columns.
fn column_indices(projection: &ProjectionExprs) -> Option<Vec<usize>> {
    (projection.iter())
        .map(|p| {
            let column = (p.expr.as_ref() as &dyn Any).downcast_ref::<Column>()?;
            (p.alias == column.name()).then_some(column.index())
        })
        .collect()
}

impl FileSource for FleetSource {
    fn create_file_opener(
        &self,
        _object_store: Arc<dyn ObjectStore>,
        _base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>, DataFusionError> {
        let file_schema = self.table_schema.file_schema();
        let schema = Arc::new(file_schema.project(&self.projection.file_indices)?);
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let parts = match self.table_is_instances() {
            true => self.parts.with_attributes(names.contains(&"attributes")),
            false => self.parts,
        };
        let opener = Arc::new(FleetOpener::new(
            self.clone(),
            parts,
            self.projected_set(),
            schema,
        ));
        ProjectionOpener::try_new(self.projection.clone(), opener, file_schema)
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, _batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(self.clone())
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>, DataFusionError> {
        let merged = self.projection.source.try_merge(projection)?;
        // (Columns only: what crosses to a cluster is their indices.)
        if column_indices(&merged).is_none() {
            return Ok(None);
        }
        let mut source = self.clone();
        source.projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(source)))
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "tfstate"
    }

    fn fmt_extra(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, ", table={}", self.spec.table)?;
        if let Some(types) = &self.spec.types {
            write!(f, ", types=[{}]", types.join(", "))?;
        }
        if !self.spec.resources.is_empty() {
            write!(f, ", resources=[{}]", describe(&self.spec.resources))?;
        }
        if let Some(attributes) = self.decoded_attributes() {
            write!(f, ", decodes=[{}]", attributes.join(", "))?;
        }
        write!(f, ", threads_per_file={}", self.spec.threads)
    }

    /// (DataFusion's byte ranges are not taken: a part of a state counts only once the part
    /// before has stopped where it starts, so one partition reads a file's parts, on its
    /// threads: `visit_file_parallel`.)
    fn supports_repartitioning(&self) -> bool {
        false
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion, DataFusionError>,
    ) -> Result<TreeNodeRecursion, DataFusionError> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}

impl FleetSource {
    fn table_is_instances(&self) -> bool {
        self.spec.table == crate::arrow::INSTANCES_TABLE
    }

    /// The attributes a scan decodes, when not all: with the drift option
    /// (`skip_unknown_attributes`), a type's table scan of some of its attribute columns
    /// decodes only those ([`SchemaSet::select`]: the others stepped over, checked as JSON
    /// only), since the full decode then steps over attributes the schema lacks as a
    /// projection does; an instance whose left-out attributes hold a value of the wrong type
    /// is then a row. Without it, all (a projection would make rows of instances that hold an
    /// attribute the schema lacks, which the full decode rejects).
    fn decoded_attributes(&self) -> Option<Vec<&str>> {
        if !self.fleet.inner.options.decode.skip_unknown_attributes || self.table_is_instances() {
            return None;
        }
        let fields = self.table_schema.file_schema().fields();
        let attributes: Vec<&str> = (self.projection.file_indices.iter())
            .filter_map(|&i| fields.get(i).map(|f| f.name().as_str()))
            .filter(|n| !crate::arrow::ENVELOPE_COLUMNS.contains(n))
            .collect();
        let all = fields
            .len()
            .saturating_sub(crate::arrow::ENVELOPE_COLUMNS.len());
        (!attributes.is_empty() && attributes.len() < all).then_some(attributes)
    }

    /// The documents projected on [`FleetSource::decoded_attributes`], when the scan decodes
    /// only some attributes.
    fn projected_set(&self) -> Option<Arc<SchemaSet>> {
        let attributes = self.decoded_attributes()?;
        let mut set = SchemaSet::clone(&self.set);
        set.select(Selection::attributes(attributes));
        Some(Arc::new(set))
    }
}
