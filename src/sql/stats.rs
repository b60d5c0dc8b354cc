//! The statistics a [`Fleet`](super::Fleet)'s scans give DataFusion where they are cheap:
//! each file's size (its `PartitionedFile`'s, as DataFusion's own file scans have it), and a
//! table's row count once every one of its files has been read whole by an earlier scan
//! ([`RowCounts`], kept per table and file, and forgotten when the file's size or
//! modification time changes). Counts are `Inexact`: DataFusion plans with them (a join's
//! build side, say) but never answers a query from them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use arrow_schema::Schema;
use datafusion::common::stats::Precision;
use datafusion::common::Statistics;

/// A file as it was when it was counted: its size and modification time.
type Stamp = (u64, Option<SystemTime>);

fn stamp(file: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(file).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// The rows each table had in each file, as scans that read the file whole counted them.
#[derive(Debug, Default)]
pub(super) struct RowCounts {
    counts: Mutex<HashMap<(String, PathBuf), (Stamp, u64)>>,
}

impl RowCounts {
    /// `table` had `rows` rows in `file` (read whole).
    pub(super) fn record(&self, table: &str, file: &Path, rows: u64) {
        let Some(stamp) = stamp(file) else { return };
        if let Ok(mut counts) = self.counts.lock() {
            counts.insert((table.to_string(), file.to_path_buf()), (stamp, rows));
        }
    }

    /// The rows `table` has in `files`, when each file's count is known and the file is as
    /// it was then.
    pub(super) fn known(&self, table: &str, files: &[PathBuf]) -> Option<u64> {
        let counts = self.counts.lock().ok()?;
        let mut total: u64 = 0;
        for file in files {
            let (then, rows) = counts.get(&(table.to_string(), file.clone()))?;
            if stamp(file).as_ref() != Some(then) {
                return None;
            }
            total = total.saturating_add(*rows);
        }
        Some(total)
    }
}

/// The statistics of a scan of `schema` with `rows` rows when known.
pub(super) fn statistics(schema: &Schema, rows: Option<u64>) -> Statistics {
    let mut stats = Statistics::new_unknown(schema);
    if let Some(rows) = rows.and_then(|r| usize::try_from(r).ok()) {
        stats.num_rows = Precision::Inexact(rows);
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_holds_while_its_file_is_unchanged() {
        let dir = std::env::temp_dir().join(format!("tfwire-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.tfstate"), dir.join("b.tfstate"));
        std::fs::write(&a, "{}").unwrap();
        std::fs::write(&b, "{}").unwrap();
        let counts = RowCounts::default();
        let both = [a.clone(), b.clone()];
        assert_eq!(counts.known("t", &both), None);
        counts.record("t", &a, 3);
        assert_eq!(counts.known("t", &both), None);
        counts.record("t", &b, 4);
        assert_eq!(counts.known("t", &both), Some(7));
        assert_eq!(counts.known("u", &both), None);
        assert_eq!(counts.known("t", &[]), Some(0));
        // Another size: the count is stale.
        std::fs::write(&b, "{ }").unwrap();
        assert_eq!(counts.known("t", &both), None);
        assert_eq!(counts.known("t", &[a]), Some(3));
        std::fs::remove_dir_all(&dir).unwrap();
        let schema = Schema::empty();
        assert_eq!(statistics(&schema, Some(5)).num_rows, Precision::Inexact(5));
        assert_eq!(statistics(&schema, None).num_rows, Precision::Absent);
    }
}
