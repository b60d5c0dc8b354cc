//! [`FleetTable`]: one table of a [`Fleet`] as a DataFusion `TableProvider`: its columns
//! (from the documents), the filters it takes (`filters.rs`), and its scans
//! (`scan.rs`: a file scan of the states, dealt out by size over the session's target
//! partitions).

use std::path::PathBuf;
use std::sync::Arc;

use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;

use super::filters::{combined, pushed};
use super::scan::{scan_plan, ScanSpec};
use super::Fleet;
use crate::arrow::INSTANCES_TABLE;
use crate::state::Mode;

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

    /// The fleet the table is of.
    pub(super) fn fleet(&self) -> &Fleet {
        &self.fleet
    }

    /// The mode and resource type of a type's table (`None`: `instances`).
    pub(super) fn of_type(&self) -> Option<(Mode, &str)> {
        self.of_type.as_ref().map(|(m, t)| (*m, t.as_str()))
    }

    /// The table's columns.
    pub(super) fn schema_ref(&self) -> &SchemaRef {
        &self.schema
    }

    /// The table's name in [`StateTables`](crate::arrow::StateTables)' batches (`instances`, `TYPE`, `data.TYPE`).
    pub(super) fn name(&self) -> String {
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

    /// Filters on the envelope columns (`filters.rs`: `type = '…'`, `_module IN (…)`, …)
    /// are taken as hints: the instances they rule out are stepped over undecoded.
    /// (Inexact: DataFusion still applies every filter to the rows.)
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>, DataFusionError> {
        Ok((filters.iter())
            .map(|f| match pushed(f, self.of_type.is_none()) {
                Some(_) => TableProviderFilterPushDown::Inexact,
                None => TableProviderFilterPushDown::Unsupported,
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
        let (types, resources) = combined(filters, self.of_type.is_none());
        let target = state.config().target_partitions().max(1);
        let mut groups = file_groups(&self.fleet.inner.files, target);
        if groups.is_empty() {
            // (No files: one partition of no rows.)
            groups.push(Vec::new());
        }
        // Fewer files than partitions: each file read on several threads.
        let threads = target.checked_div(groups.len()).unwrap_or(1).max(1);
        let spec = ScanSpec {
            table: self.name(),
            types,
            resources,
            threads,
        };
        scan_plan(self, spec, groups, projection.cloned(), limit)
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
