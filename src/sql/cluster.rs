//! A [`Fleet`]'s tables on a Ballista cluster (the `cluster` feature): the extension codecs
//! that carry a [`FleetTable`] in a logical plan (client to scheduler) and its scan (a file scan
//! read by [`FleetSource`]) in a physical plan (scheduler to executors), each falling back on
//! Ballista's own codec for every other node; and [`connect`], a session on a cluster with
//! them. A scheduler and its executors need the same codecs compiled in: `tfwire cluster
//! scheduler` and `tfwire cluster executor` are Ballista's with these.
//!
//! What crosses the wire is a description, not data: the documents' and states' paths (so
//! only a fleet made by [`Fleet::open`] can go), the options, the table, the columns and each
//! partition's files. Every executor must read the same paths (a shared directory). A
//! process decoding a fleet loads its documents once and keeps them (the last few fleets'
//! documents, keyed by their paths, sizes and modification times).
//!
//! ```no_run
//! use datafusion::prelude::SessionConfig;
//! use tfwire::sql::{cluster, Fleet, FleetOptions};
//!
//! # async fn run() -> datafusion::error::Result<()> {
//! let fleet = Fleet::open(
//!     vec!["/shared/states/prod.tfstate".into()],
//!     vec!["/shared/schemas/aws.json".into()],
//!     FleetOptions::default(),
//! )?;
//! let ctx = cluster::connect("df://scheduler:50050", SessionConfig::new()).await?;
//! fleet.register(&ctx)?;
//! ctx.sql("SELECT instance_type, count(*) FROM aws_instance GROUP BY 1")
//!     .await?
//!     .show()
//!     .await?;
//! # Ok(())
//! # }
//! ```

use std::any::Any;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_schema::SchemaRef;
use ballista::extension::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::DataFusionError;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Extension, LogicalPlan};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use serde_json::{json, Value as Json};

use super::filters::{filter_json, filter_of};
use super::scan::{scan_plan, state_path, FleetSource, ScanSpec};
use super::{load_paths, Fleet, FleetOptions, FleetTable};
use crate::arrow::ArrowOptions;
use crate::program::DecodeOptions;
use crate::state::SchemaSet;
use crate::Limits;

/// What begins tfwire's nodes in a plan (the JSON description follows).
const MAGIC: &[u8] = b"tfwire-fleet/1\n";

/// Fleets' documents kept loaded by a process (the scheduler and executors decode a fleet
/// per plan and per task).
const CACHED_FLEETS: usize = 8;

/// A session on the Ballista cluster whose scheduler is at `url` (`df://HOST:PORT`), with
/// `config` and tfwire's codecs.
pub async fn connect(url: &str, config: SessionConfig) -> Result<SessionContext, DataFusionError> {
    let config = config
        .upgrade_for_ballista()
        .with_ballista_logical_extension_codec(Arc::new(LogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(PhysicalCodec::default()));
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    SessionContext::remote_with_state(url, state).await
}

/// The logical extension codec: a [`FleetTable`] as its description; every other node by
/// Ballista's codec.
#[derive(Debug, Default)]
pub struct LogicalCodec {
    ballista: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for LogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension, DataFusionError> {
        self.ballista.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<(), DataFusionError> {
        self.ballista.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>, DataFusionError> {
        let Some(text) = buf.strip_prefix(MAGIC) else {
            return (self.ballista).try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let spec = parse(text)?;
        let fleet = fleet_of(field(&spec, "fleet")?, paths(field(&spec, "files")?)?)?;
        let table = text_of(field(&spec, "table")?)?;
        let table = table_of(&fleet, table)?;
        if table.schema_ref().fields() != schema.fields() {
            return Err(DataFusionError::Plan(format!(
                "{table_ref}: the documents give this table other columns than the client's"
            )));
        }
        Ok(Arc::new(table))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<(), DataFusionError> {
        let Some(table) = (node.as_ref() as &dyn Any).downcast_ref::<FleetTable>() else {
            return self
                .ballista
                .try_encode_table_provider(table_ref, node, buf);
        };
        let spec = json!({
            "fleet": fleet_json(table.fleet())?,
            "files": paths_json(table.fleet().files())?,
            "table": table.name(),
        });
        write(&spec, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>, DataFusionError> {
        self.ballista.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<(), DataFusionError> {
        self.ballista.try_encode_file_format(buf, node)
    }
}

/// The physical extension codec: a scan read by [`FleetSource`] as its description; every other node
/// (Ballista's shuffles among them) by Ballista's codec.
#[derive(Debug, Default)]
pub struct PhysicalCodec {
    ballista: BallistaPhysicalExtensionCodec,
}

impl PhysicalExtensionCodec for PhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>, DataFusionError> {
        let Some(text) = buf.strip_prefix(MAGIC) else {
            return self.ballista.try_decode(buf, inputs, ctx, converter);
        };
        let spec = parse(text)?;
        let fleet = fleet_of(field(&spec, "fleet")?, Vec::new())?;
        let scan = ScanSpec {
            table: text_of(field(&spec, "table")?)?.to_string(),
            types: match field(&spec, "types")? {
                Json::Null => None,
                t => Some(texts(t)?),
            },
            resources: filter_of(field(&spec, "resources")?)
                .ok_or_else(|| malformed("resources: not a resource filter"))?,
            threads: count(field(&spec, "threads")?)?,
        };
        let projection = match field(&spec, "projection")? {
            Json::Null => None,
            p => Some(counts(p)?),
        };
        let groups = (array(field(&spec, "groups")?)?.iter())
            .map(paths)
            .collect::<Result<_, _>>()?;
        let limit = match field(&spec, "limit")? {
            Json::Null => None,
            l => Some(count(l)?),
        };
        let table = table_of(&fleet, &scan.table)?;
        scan_plan(&table, scan, groups, projection, limit)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<(), DataFusionError> {
        let Some((config, source)) = fleet_scan(&node) else {
            return self.ballista.try_encode(node, buf, converter);
        };
        let s = source.spec();
        let groups = (config.file_groups.iter())
            .map(|g| paths_json(&g.iter().map(state_path).collect::<Vec<_>>()))
            .collect::<Result<Vec<_>, _>>()?;
        let spec = json!({
            "fleet": fleet_json(source.fleet())?,
            "table": s.table,
            "types": s.types,
            "resources": filter_json(&s.resources),
            "threads": s.threads,
            "projection": source.column_indices(),
            "groups": groups,
            "limit": config.limit,
        });
        write(&spec, buf)
    }
}

/// `plan`'s file scan configuration and source, when it is a scan of a fleet's table.
fn fleet_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<(&FileScanConfig, &FleetSource)> {
    let exec = plan.downcast_ref::<DataSourceExec>()?;
    let config = (exec.data_source().as_ref() as &dyn Any).downcast_ref::<FileScanConfig>()?;
    let source = (config.file_source.as_ref() as &dyn Any).downcast_ref::<FleetSource>()?;
    Some((config, source))
}

/// The table `name` of `fleet`.
fn table_of(fleet: &Fleet, name: &str) -> Result<FleetTable, DataFusionError> {
    (fleet.table(name))
        .map_err(|e| DataFusionError::External(Box::new(e)))?
        .ok_or_else(|| DataFusionError::Plan(format!("the documents define no table {name}")))
}

/// A fleet's description: its documents' paths and its options.
fn fleet_json(fleet: &Fleet) -> Result<Json, DataFusionError> {
    let Some(docs) = &fleet.inner.doc_paths else {
        return Err(DataFusionError::Plan(
            "a fleet made from documents' text cannot go to a cluster: make it with \
             Fleet::open (documents' paths every executor reads)"
                .into(),
        ));
    };
    // (Not `load_threads`: an executor loads the documents on every core.)
    let FleetOptions {
        decode,
        arrow,
        strict,
        ..
    } = fleet.inner.options;
    let l = decode.limits;
    Ok(json!({
        "docs": paths_json(docs)?,
        "decode": {
            "skip_unknown_attributes": decode.skip_unknown_attributes,
            "missing_attributes_null": decode.missing_attributes_null,
            "check_item_counts": decode.check_item_counts,
            "limits": [l.max_depth, l.max_container_len, l.max_string_len,
                l.max_refinement_len, l.max_type_json_len, l.max_values, l.max_arena_bytes,
                l.max_dynamic_types],
        },
        "arrow": {"unknown_paths": arrow.unknown_paths, "exact_numbers": arrow.exact_numbers},
        "strict": strict,
    }))
}

/// The fleet of `files` that `spec` describes, its documents loaded or taken from the
/// process's cache.
fn fleet_of(spec: &Json, files: Vec<PathBuf>) -> Result<Fleet, DataFusionError> {
    static LOADED: Mutex<Vec<(String, SchemaSet)>> = Mutex::new(Vec::new());
    let docs = paths(field(spec, "docs")?)?;
    let decode = field(spec, "decode")?;
    let arrow = field(spec, "arrow")?;
    let l = array(field(decode, "limits")?)?;
    let limit = |i: usize| -> Result<u64, DataFusionError> {
        (l.get(i).and_then(Json::as_u64)).ok_or_else(|| malformed("decode.limits"))
    };
    let small = |i: usize| -> Result<u32, DataFusionError> {
        u32::try_from(limit(i)?).map_err(|_| malformed("decode.limits"))
    };
    let limits = Limits::DEFAULT
        .with_max_depth(small(0)?)
        .with_max_container_len(small(1)?)
        .with_max_string_len(small(2)?)
        .with_max_refinement_len(small(3)?)
        .with_max_type_json_len(small(4)?)
        .with_max_values(limit(5)?)
        .with_max_arena_bytes(limit(6)?)
        .with_max_dynamic_types(small(7)?);
    let options = FleetOptions::default()
        .with_decode(
            DecodeOptions::default()
                .with_skip_unknown_attributes(flag(decode, "skip_unknown_attributes")?)
                .with_missing_attributes_null(flag(decode, "missing_attributes_null")?)
                .with_check_item_counts(flag(decode, "check_item_counts")?)
                .with_limits(limits),
        )
        .with_arrow(
            ArrowOptions::default()
                .with_unknown_paths(flag(arrow, "unknown_paths")?)
                .with_exact_numbers(flag(arrow, "exact_numbers")?),
        )
        .with_strict(flag(spec, "strict")?);
    // The key: the documents as they are on disk now (a document changed is loaded again).
    let mut key = field(spec, "docs")?.to_string();
    for doc in &docs {
        let meta = std::fs::metadata(doc)
            .map_err(|e| DataFusionError::Execution(format!("{}: {e}", doc.display())))?;
        key.push_str(&format!(" {}:{:?}", meta.len(), meta.modified().ok()));
    }
    let cached = (LOADED.lock().ok()).and_then(|l| {
        l.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, set)| set.clone())
    });
    let set = match cached {
        Some(set) => set,
        None => {
            let set = load_paths(&docs, 0)?;
            if let Ok(mut loaded) = LOADED.lock() {
                if loaded.len() >= CACHED_FLEETS {
                    loaded.remove(0);
                }
                loaded.push((key, set.clone()));
            }
            set
        }
    };
    Ok(Fleet::from_parts(files, set, Some(docs), options, true))
}

fn write(spec: &Json, buf: &mut Vec<u8>) -> Result<(), DataFusionError> {
    buf.extend_from_slice(MAGIC);
    serde_json::to_writer(buf, spec).map_err(|e| DataFusionError::Internal(e.to_string()))
}

fn parse(text: &[u8]) -> Result<Json, DataFusionError> {
    serde_json::from_slice(text).map_err(|e| malformed(&e.to_string()))
}

fn malformed(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!("tfwire's plan node is malformed: {what}"))
}

fn field<'j>(spec: &'j Json, name: &str) -> Result<&'j Json, DataFusionError> {
    spec.get(name).ok_or_else(|| malformed(name))
}

fn flag(spec: &Json, name: &str) -> Result<bool, DataFusionError> {
    field(spec, name)?.as_bool().ok_or_else(|| malformed(name))
}

fn array(v: &Json) -> Result<&Vec<Json>, DataFusionError> {
    v.as_array().ok_or_else(|| malformed("an array"))
}

fn text_of(v: &Json) -> Result<&str, DataFusionError> {
    v.as_str().ok_or_else(|| malformed("a string"))
}

fn count(v: &Json) -> Result<usize, DataFusionError> {
    (v.as_u64().and_then(|n| usize::try_from(n).ok())).ok_or_else(|| malformed("a count"))
}

fn counts(v: &Json) -> Result<Vec<usize>, DataFusionError> {
    array(v)?.iter().map(count).collect()
}

fn texts(v: &Json) -> Result<Vec<String>, DataFusionError> {
    (array(v)?.iter())
        .map(|t| text_of(t).map(str::to_string))
        .collect()
}

fn paths(v: &Json) -> Result<Vec<PathBuf>, DataFusionError> {
    Ok(texts(v)?.into_iter().map(PathBuf::from).collect())
}

fn paths_json(paths: &[PathBuf]) -> Result<Json, DataFusionError> {
    (paths.iter())
        .map(|p| {
            (p.to_str().map(|s| Json::String(s.to_string()))).ok_or_else(|| {
                DataFusionError::Plan(format!(
                    "{}: a path that is not UTF-8 cannot go to a cluster",
                    p.display()
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Json::Array)
}

#[cfg(test)]
mod tests {
    use datafusion::catalog::Session;
    use datafusion::physical_plan::displayable;
    use datafusion_proto::physical_plan::DefaultPhysicalProtoConverter;

    use super::*;

    fn toy(name: &str) -> PathBuf {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/states");
        dir.join(name)
    }

    fn toy_fleet() -> Fleet {
        let options = FleetOptions::default()
            .with_strict(true)
            .with_arrow(ArrowOptions::default().with_exact_numbers(true));
        Fleet::open(
            vec![toy("toy.tfstate")],
            vec![toy("toy.schemas.json")],
            options,
        )
        .unwrap()
    }

    fn bare(name: &str) -> TableReference {
        TableReference::bare(name.to_string())
    }

    #[test]
    fn a_table_crosses_the_wire_and_back() {
        let fleet = toy_fleet();
        let codec = LogicalCodec::default();
        for name in ["toy_server", "data.toy_image", "instances"] {
            let table = fleet.table(name).unwrap().unwrap();
            let mut buf = Vec::new();
            let node = Arc::new(table.clone());
            codec
                .try_encode_table_provider(&bare(name), node, &mut buf)
                .unwrap();
            assert!(buf.starts_with(MAGIC));
            let ctx = TaskContext::default();
            let back = codec
                .try_decode_table_provider(&buf, &bare(name), table.schema(), &ctx)
                .unwrap();
            let back = (back.as_ref() as &dyn Any)
                .downcast_ref::<FleetTable>()
                .unwrap();
            assert_eq!(back.name(), name);
            assert_eq!(back.schema(), table.schema());
            assert_eq!(back.fleet().files(), fleet.files());
            assert_eq!(back.fleet().doc_paths(), fleet.doc_paths());
            assert_eq!(back.fleet().options(), fleet.options());
        }
    }

    /// The plan of a scan of `fleet`'s table `name`.
    fn scan_of(
        fleet: &Fleet,
        name: &str,
        projection: Option<Vec<usize>>,
        limit: Option<usize>,
    ) -> Arc<dyn ExecutionPlan> {
        let state = SessionContext::new().state();
        let session: &dyn Session = &state;
        let table = fleet.table(name).unwrap().unwrap();
        futures::executor::block_on(table.scan(session, projection.as_ref(), &[], limit)).unwrap()
    }

    #[test]
    fn a_scan_crosses_the_wire_and_back() {
        let fleet = toy_fleet();
        let codec = PhysicalCodec::default();
        let converter = DefaultPhysicalProtoConverter {};
        for (name, projection, limit) in [
            ("toy_server", Some(vec![1, 0]), Some(5)),
            ("instances", None, None),
        ] {
            let plan = scan_of(&fleet, name, projection, limit);
            let mut buf = Vec::new();
            codec
                .try_encode(plan.clone(), &mut buf, &converter)
                .unwrap();
            let back = (codec.try_decode(&buf, &[], &TaskContext::default(), &converter)).unwrap();
            let text =
                |p: &Arc<dyn ExecutionPlan>| displayable(p.as_ref()).indent(true).to_string();
            assert_eq!(text(&back), text(&plan));
            assert!(text(&back).contains("file_type=tfstate"), "{}", text(&back));
            assert_eq!(back.schema(), plan.schema());
        }
    }

    /// A task's slice of a scan may hold none of its partitions (Ballista's restriction of
    /// a union's other side): it crosses as none, not as one empty partition.
    #[test]
    fn a_scan_of_no_partitions_stays_so() {
        use datafusion::datasource::physical_plan::FileScanConfigBuilder;
        use datafusion::physical_plan::ExecutionPlanProperties;

        let plan = scan_of(&toy_fleet(), "toy_server", None, None);
        let (config, _) = fleet_scan(&plan).unwrap();
        assert_eq!(plan.output_partitioning().partition_count(), 1);
        let none = FileScanConfigBuilder::from(config.clone())
            .with_file_groups(Vec::new())
            .build();
        let none: Arc<dyn ExecutionPlan> = DataSourceExec::from_data_source(none);
        let (codec, converter) = (PhysicalCodec::default(), DefaultPhysicalProtoConverter {});
        let mut buf = Vec::new();
        codec.try_encode(none, &mut buf, &converter).unwrap();
        let back = (codec.try_decode(&buf, &[], &TaskContext::default(), &converter)).unwrap();
        assert_eq!(back.output_partitioning().partition_count(), 0);
    }

    #[test]
    fn a_fleet_of_texts_does_not_go() {
        let doc = std::fs::read_to_string(toy("toy.schemas.json")).unwrap();
        let fleet = Fleet::new(vec![toy("toy.tfstate")], vec![doc]).unwrap();
        let table = fleet.table("toy_server").unwrap().unwrap();
        let mut buf = Vec::new();
        let e = (LogicalCodec::default())
            .try_encode_table_provider(&bare("toy_server"), Arc::new(table), &mut buf)
            .unwrap_err();
        assert!(
            matches!(e, DataFusionError::Plan(ref m) if m.contains("Fleet::open")),
            "{e}"
        );
    }

    #[test]
    fn a_malformed_node_is_an_error() {
        let codec = LogicalCodec::default();
        let schema = Arc::new(arrow_schema::Schema::empty());
        for text in [
            "",
            "{",
            "[]",
            r#"{"files":[],"table":"toy_server"}"#,
            r#"{"fleet":{"docs":[]},"files":[],"table":"toy_server"}"#,
            r#"{"fleet":{"docs":[7]},"files":[],"table":"toy_server"}"#,
        ] {
            let mut buf = MAGIC.to_vec();
            buf.extend_from_slice(text.as_bytes());
            let e = codec
                .try_decode_table_provider(
                    &buf,
                    &bare("t"),
                    schema.clone(),
                    &TaskContext::default(),
                )
                .unwrap_err();
            assert!(
                e.to_string().contains("tfwire's plan node is malformed"),
                "{text}: {e}"
            );
        }
    }
}
