//! State files as tables: a table per resource type (`data.TYPE` for a data source; a row
//! per instance that decoded: the envelope, underscored, then a column per attribute) and the `instances` table (a row per
//! instance, decoded or not). A type decoded by schemas of different types (two provider
//! versions) has a batch per type, in the order each was first met; a writer of one file per
//! table keeps the first and leaves the others to `instances`. Rows are held until
//! [`StateTables::finish`]: callers bound memory by finishing every so many rows.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use super::columns::BatchBuilder;
use super::rows::AppendError;
use super::schema::{field, ArrowOptions};
use crate::state::{IndexKey, InstanceRef, Mode, Outcome};

/// The name of the table of every instance.
pub const INSTANCES_TABLE: &str = "instances";

/// The envelope's columns in a resource type's table, before the attributes': underscored,
/// as providers use `name`, `type` and `address` for attributes.
pub(crate) const ENVELOPE_COLUMNS: [&str; 9] = [
    "_file",
    "_address",
    "_module",
    "_mode",
    "_name",
    "_index_key",
    "_deposed",
    "_provider",
    "_schema_version",
];

/// The `instances` table's columns.
const INSTANCES: [&str; 13] = [
    "file",
    "address",
    "module",
    "mode",
    "type",
    "name",
    "index_key",
    "deposed",
    "provider",
    "schema_version",
    "status",
    "error",
    "attributes",
];

/// Collects the instances of state files into tables.
///
/// ```
/// use tfwire::arrow::{ArrowOptions, StateTables};
/// use tfwire::state::{SchemaSet, StateReader};
/// use tfwire::DecodeOptions;
///
/// let mut set = SchemaSet::new();
/// set.add_json(r#"{"provider_schemas":{"registry.terraform.io/hashicorp/null":{
///   "resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{
///     "id":{"type":"string"}}}}}}}}"#)?;
/// let state = br#"{"version":4,"resources":[{"mode":"managed","type":"null_resource",
///   "name":"a","provider":"provider[\"registry.terraform.io/hashicorp/null\"]",
///   "instances":[{"index_key":0,"attributes":{"id":"x"}},{"index_key":1,"attributes":{"id":"y"}}]}]}"#;
/// let mut tables = StateTables::new(&ArrowOptions::default());
/// let mut fault = None;
/// StateReader::new(&state[..]).visit(&set, &DecodeOptions::default(), |item, outcome| {
///     if let Err(e) = tables.add("a.tfstate", item, outcome) {
///         fault.get_or_insert(e);
///     }
/// })?;
/// assert!(fault.is_none());
/// let batches = tables.finish()?;
/// assert!(tables.is_empty());
/// let names: Vec<&str> = batches.iter().map(|(t, _)| t.as_str()).collect();
/// assert_eq!(names, ["instances", "null_resource"]);
/// assert_eq!(batches[1].1.num_rows(), 2);
/// assert_eq!(batches[1].1.schema().field(1).name(), "_address");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StateTables {
    options: ArrowOptions,
    parts: Parts,
    /// The attribute columns the types' tables fill, when not all
    /// ([`StateTables::with_columns`]).
    columns: Option<Box<[String]>>,
    /// Instances added since the last finish.
    added: usize,
    /// Each type's tables, one per value type met, in the order met.
    types: BTreeMap<String, Vec<TypeTable>>,
    instances: InstancesTable,
    /// The arena of a row read from a DUMP ([`Outcome::Dumped`]) the general way.
    scratch: bumpalo::Bump,
}

/// Which tables a [`StateTables`] fills ([`StateTables::with_parts`]): a reader of one table
/// need not pay for the others (the `attributes` DUMP of `instances` above all).
///
/// ```
/// use tfwire::arrow::Parts;
/// let parts = Parts::default().with_types(false).with_attributes(false);
/// assert!(parts.instances && !parts.attributes && !parts.types);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Parts {
    /// The `instances` table (default true).
    pub instances: bool,
    /// Its `attributes` column, each decoded instance's DUMP (default true; null without).
    pub attributes: bool,
    /// The tables of the resource types (default true).
    pub types: bool,
}

impl Default for Parts {
    fn default() -> Parts {
        Parts {
            instances: true,
            attributes: true,
            types: true,
        }
    }
}

with_setters!(Parts {
    #[const] with_instances => instances: bool,
    #[const] with_attributes => attributes: bool,
    #[const] with_types => types: bool,
});

/// A resource type's table being filled.
struct TypeTable {
    /// The type of its rows' values (the first schema that decoded one).
    ty: crate::Type,
    /// The serial of the program that made it.
    program: u64,
    envelope: Envelope,
    values: BatchBuilder,
    schema: SchemaRef,
}

/// The envelope columns of the rows being filled.
struct Envelope {
    strings: Vec<StringBuilder>,
    schema_version: Int64Builder,
}

impl Envelope {
    fn new(n: usize) -> Envelope {
        Envelope {
            strings: (0..n).map(|_| StringBuilder::with_capacity(0, 0)).collect(),
            schema_version: Int64Builder::with_capacity(0),
        }
    }

    /// Appends one row's strings (in column order) and schema version.
    fn append(&mut self, strings: &[Option<&str>], schema_version: u64) {
        for (b, s) in self.strings.iter_mut().zip(strings) {
            b.append_option(*s);
        }
        self.schema_version
            .append_value(i64::try_from(schema_version).unwrap_or(i64::MAX));
    }

    /// The columns, the schema version after the first `before` strings.
    fn finish(&mut self, before: usize) -> Vec<ArrayRef> {
        let mut out: Vec<ArrayRef> = Vec::with_capacity(self.strings.len().saturating_add(1));
        for (i, b) in self.strings.iter_mut().enumerate() {
            if i == before {
                out.push(Arc::new(self.schema_version.finish()));
            }
            out.push(Arc::new(b.finish()));
        }
        if before >= self.strings.len() {
            out.push(Arc::new(self.schema_version.finish()));
        }
        out
    }
}

/// The `instances` table being filled.
struct InstancesTable {
    envelope: Envelope,
    schema: SchemaRef,
    rows: usize,
}

/// An instance's envelope as text: module, mode, name, index key (JSON), deposed, provider.
struct Described<'i> {
    address: String,
    module: Option<&'i str>,
    mode: &'static str,
    name: &'i str,
    index_key: Option<String>,
    deposed: Option<&'i str>,
    provider: &'i str,
}

fn describe<'i>(item: &InstanceRef<'i, '_>) -> Described<'i> {
    let (r, i) = (item.resource, item.instance);
    Described {
        address: item.address(),
        module: r.module.as_deref(),
        mode: match r.mode {
            Mode::Managed => "managed",
            Mode::Data => "data",
        },
        name: &r.name,
        index_key: i.index_key.as_ref().map(|k| match k {
            IndexKey::Int(n) => n.to_string(),
            IndexKey::String(s) => serde_json::to_string(s).unwrap_or_default(),
        }),
        deposed: i.deposed.as_deref(),
        provider: &r.provider_address,
    }
}

fn string_field(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

/// A nullable column of JSON text (Arrow's JSON extension type), as a `dynamic` one is.
fn json_field(name: &str) -> Field {
    field(name, &crate::Type::Dynamic, &ArrowOptions::default())
}

impl StateTables {
    /// Empty tables.
    pub fn new(options: &ArrowOptions) -> StateTables {
        let fields: Vec<Field> = INSTANCES
            .iter()
            .map(|&n| match n {
                "schema_version" => Field::new(n, DataType::Int64, false),
                "attributes" | "index_key" => json_field(n),
                "file" | "address" | "mode" | "type" | "name" | "provider" | "status" => {
                    string_field(n, false)
                }
                _ => string_field(n, true),
            })
            .collect();
        StateTables {
            options: *options,
            parts: Parts::default(),
            columns: None,
            added: 0,
            types: BTreeMap::new(),
            instances: InstancesTable {
                envelope: Envelope::new(INSTANCES.len().saturating_sub(1)),
                schema: Arc::new(Schema::new(fields)),
                rows: 0,
            },
            scratch: bumpalo::Bump::new(),
        }
    }

    /// These tables filling only `parts`.
    pub fn with_parts(mut self, parts: Parts) -> StateTables {
        self.parts = parts;
        self
    }

    /// These tables filling, of the types' attribute columns, only those named `columns`
    /// (the envelope's are always filled): a reader of a few columns need not build the
    /// others. The rows are the same (every instance that decoded, decoded whole); the
    /// batches have only the named attribute columns, in the type's order.
    ///
    /// ```
    /// use tfwire::arrow::{ArrowOptions, Parts, StateTables};
    /// use tfwire::state::{SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let mut set = SchemaSet::new();
    /// set.add_json(r#"{"provider_schemas":{"registry.terraform.io/hashicorp/null":{
    ///   "resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{
    ///     "id":{"type":"string"},"triggers":{"type":["map","string"]}}}}}}}}"#)?;
    /// let state = br#"{"version":4,"resources":[{"mode":"managed","type":"null_resource",
    ///   "name":"a","provider":"provider[\"registry.terraform.io/hashicorp/null\"]",
    ///   "instances":[{"attributes":{"id":"x","triggers":{"k":"v"}}}]}]}"#;
    /// let mut tables = StateTables::new(&ArrowOptions::default())
    ///     .with_parts(Parts::default().with_instances(false))
    ///     .with_columns(["id"]);
    /// StateReader::new(&state[..]).visit(&set, &DecodeOptions::default(), |item, outcome| {
    ///     tables.add("a.tfstate", item, outcome).unwrap();
    /// })?;
    /// let batches = tables.finish()?;
    /// let schema = batches[0].1.schema();
    /// let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    /// assert_eq!(names.last(), Some(&"id"));
    /// assert!(!names.contains(&"triggers"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_columns<I, S>(mut self, columns: I) -> StateTables
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.columns = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// The schema of a resource type's table whose values are of `program`'s type (the
    /// envelope, then a column per attribute), as [`finish`](StateTables::finish) makes its
    /// batches.
    pub fn type_schema(
        program: &crate::Program,
        options: &ArrowOptions,
    ) -> Result<SchemaRef, crate::SchemaError> {
        TypeTable::new(program, options, None).map(|t| t.schema)
    }

    /// The schema of the `instances` table.
    pub fn instances_schema(&self) -> SchemaRef {
        self.instances.schema.clone()
    }

    /// Instances added since the last [`finish`](StateTables::finish).
    pub fn len(&self) -> usize {
        self.added
    }

    /// No instance added since the last [`finish`](StateTables::finish).
    pub fn is_empty(&self) -> bool {
        self.added == 0
    }

    /// Adds an instance of state file `file` with its outcome: to `instances`, and when it
    /// decoded, to its type's table for the type of its value.
    pub fn add(
        &mut self,
        file: &str,
        item: InstanceRef<'_, '_>,
        outcome: &Outcome<'_>,
    ) -> Result<(), ArrowError> {
        let d = describe(&item);
        let type_name = item.resource.type_name.as_str();
        let schema_version = item.instance.schema_version;
        self.added = self.added.saturating_add(1);
        if self.parts.instances {
            self.add_instance_row(file, &d, type_name, schema_version, outcome)?;
        }
        let m = match (outcome, self.parts.types) {
            (Outcome::Ok(_, m) | Outcome::Dumped(_, m), true) => m,
            _ => return Ok(()),
        };
        // (A data source has its own schema: its table is `data.TYPE`.)
        let table_name = match item.resource.mode {
            Mode::Managed => std::borrow::Cow::Borrowed(type_name),
            Mode::Data => std::borrow::Cow::Owned(format!("data.{type_name}")),
        };
        if !self.types.contains_key(table_name.as_ref()) {
            self.types.insert(table_name.to_string(), Vec::new());
        }
        let Some(tables) = self.types.get_mut(table_name.as_ref()) else {
            return Ok(());
        };
        // (The program that made a table decodes its type: no need to compare the types,
        // which may have hundreds of attributes.)
        let same = |t: &TypeTable| t.program == m.program.serial || t.ty == *m.program.root_type();
        let i = match tables.iter().position(same) {
            Some(i) => i,
            None => {
                let table = TypeTable::new(m.program, &self.options, self.columns.as_deref())
                    .map_err(|e| ArrowError::SchemaError(e.to_string()))?;
                tables.push(table);
                tables.len().saturating_sub(1)
            }
        };
        let Some(table) = tables.get_mut(i) else {
            return Ok(());
        };
        match outcome {
            Outcome::Ok(value, _) => table.values.append(m.program, *value)?,
            // The DUMP, as go-cty writes JSON, is read straight into the columns.
            Outcome::Dumped(text, _) => {
                let read = table
                    .values
                    .decode_json(m.program, text.as_bytes(), &self.scratch);
                self.scratch.reset();
                read.map_err(|e| match e {
                    AppendError::Arrow(e) => e,
                    AppendError::Decode(e) => ArrowError::InvalidArgumentError(e.to_string()),
                })?
            }
            _ => {}
        }
        table.envelope.append(
            &[
                Some(file),
                Some(&d.address),
                d.module,
                Some(d.mode),
                Some(d.name),
                d.index_key.as_deref(),
                d.deposed,
                Some(d.provider),
            ],
            schema_version,
        );
        Ok(())
    }

    /// The `instances` row of an instance: its envelope, status, error and DUMP (that only
    /// with [`Parts::attributes`]).
    fn add_instance_row(
        &mut self,
        file: &str,
        d: &Described<'_>,
        type_name: &str,
        schema_version: u64,
        outcome: &Outcome<'_>,
    ) -> Result<(), ArrowError> {
        let (status, error, attributes) = match outcome {
            Outcome::Ok(v, m) if self.parts.attributes => {
                let json = crate::dump::to_string(m.program, *v)
                    .map_err(|e| ArrowError::InvalidArgumentError(e.to_string()))?;
                ("ok", None, Some(Cow::Owned(json)))
            }
            Outcome::Dumped(text, _) if self.parts.attributes => {
                ("ok", None, Some(Cow::Borrowed(*text)))
            }
            Outcome::Ok(_, _) | Outcome::Dumped(_, _) => ("ok", None, None),
            Outcome::Error(e, _) => ("error", Some(e.to_string()), None),
            // (A legacy flatmap has no schema to decode with, as the CLI counts it.)
            Outcome::NoSchema | Outcome::Legacy => ("no_schema", None, None),
        };
        self.instances.envelope.append(
            &[
                Some(file),
                Some(&d.address),
                d.module,
                Some(d.mode),
                Some(type_name),
                Some(d.name),
                d.index_key.as_deref(),
                d.deposed,
                Some(d.provider),
                Some(status),
                error.as_deref(),
                attributes.as_deref(),
            ],
            schema_version,
        );
        self.instances.rows = self.instances.rows.saturating_add(1);
        Ok(())
    }

    /// The rows added since the last call, a batch per table that has some, each with its
    /// table's name: `instances`, then the types by name (a type's batches in the order their
    /// value types were met); the tables start again empty.
    pub fn finish(&mut self) -> Result<Vec<(String, RecordBatch)>, ArrowError> {
        self.added = 0;
        let mut out = Vec::new();
        if self.instances.rows > 0 {
            out.push((INSTANCES_TABLE.to_string(), self.finish_instances()?));
        }
        for (name, tables) in &mut self.types {
            for table in tables.iter_mut().filter(|t| !t.values.is_empty()) {
                out.push((name.clone(), table.finish()?));
            }
        }
        Ok(out)
    }

    fn finish_instances(&mut self) -> Result<RecordBatch, ArrowError> {
        self.instances.rows = 0;
        // (The schema version is the 10th column, after 9 strings.)
        let columns = self.instances.envelope.finish(9);
        RecordBatch::try_new(self.instances.schema.clone(), columns)
    }
}

impl TypeTable {
    /// The table of `program`'s values, with only the attribute columns named `columns`
    /// (`None`: all).
    fn new(
        program: &crate::Program,
        options: &ArrowOptions,
        columns: Option<&[String]>,
    ) -> Result<TypeTable, crate::SchemaError> {
        let values = match columns {
            None => BatchBuilder::new(program, options)?,
            Some(names) => {
                BatchBuilder::with_attributes(program, options, |n| names.iter().any(|c| c == n))?
            }
        };
        let mut fields: Vec<Field> = ENVELOPE_COLUMNS
            .iter()
            .map(|&n| match n {
                "_schema_version" => Field::new(n, DataType::Int64, false),
                "_index_key" => json_field(n),
                "_module" | "_deposed" => string_field(n, true),
                _ => string_field(n, false),
            })
            .collect();
        fields.extend(values.schema().fields().iter().map(|f| f.as_ref().clone()));
        Ok(TypeTable {
            ty: program.root_type().clone(),
            program: program.serial,
            envelope: Envelope::new(ENVELOPE_COLUMNS.len().saturating_sub(1)),
            values,
            schema: Arc::new(Schema::new(fields)),
        })
    }

    fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let values = self.values.finish()?;
        // (The schema version is the last envelope column, after 8 strings.)
        let mut columns = self.envelope.finish(8);
        columns.extend(values.columns().iter().cloned());
        RecordBatch::try_new(self.schema.clone(), columns)
    }
}
