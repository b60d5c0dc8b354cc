//! Decoded values as Arrow arrays: a column builder per field, built once from the type
//! (arrow-json's reader design: a tree of builders, each filling its own buffers), the arrays
//! assembled with `try_new` from offsets and null buffers.

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Decimal128Builder, StringBuilder};
use arrow_array::{ArrayRef, ListArray, MapArray, RecordBatch, RecordBatchOptions, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef, Fields, SchemaRef};

use super::decimal::{scaled, ONE};
use super::keys::{Keys, Straight};
use super::leaves::{end_items, Bools, Floats, Texts};
use super::notes::{too_large, Notes, SideColumns};
use super::schema::{data_type, schema, ArrowOptions};
use crate::error::SchemaError;
use crate::program::Program;
use crate::schema::Type;
use crate::value::Value;

/// Builds record batches from values of an object type, a row per value, a column per
/// attribute (see the mapping in [`crate::arrow`]).
pub struct BatchBuilder {
    schema: SchemaRef,
    pub(super) columns: Vec<Column>,
    /// The attributes the columns hold, by index in the type, when not all of them
    /// ([`BatchBuilder::with_attributes`]).
    attrs: Option<Box<[usize]>>,
    /// The number of attributes of the type.
    width: usize,
    /// What the columns cannot say ([`ArrowOptions::unknown_paths`],
    /// [`ArrowOptions::exact_numbers`]).
    pub(super) side: SideColumns,
    pub(super) rows: usize,
    /// How rows are read straight into the columns (`rows.rs`), when they can be.
    pub(super) straight: Option<Straight>,
}

impl BatchBuilder {
    /// A builder for values of `program`'s type, which must be an object type.
    pub fn new(program: &Program, options: &ArrowOptions) -> Result<BatchBuilder, SchemaError> {
        let ty = program.root_type();
        let schema = Arc::new(schema(ty, options)?);
        let Type::Object(o) = ty else {
            return Err(SchemaError::new("not an object type"));
        };
        let columns: Vec<Column> = (o.attrs().iter())
            .map(|(_, t)| Column::new(t, options))
            .collect();
        Ok(BatchBuilder {
            schema,
            width: columns.len(),
            straight: Straight::new(program, options),
            columns,
            attrs: None,
            side: SideColumns::new(options),
            rows: 0,
        })
    }

    /// A builder of only the columns of the attributes `keep` says yes to (a reader that
    /// asks for a few columns need not pay for the others); the batches' schema is
    /// [`BatchBuilder::new`]'s without the others. The values are appended whole as always,
    /// and a value not of the type is an error as always. With
    /// [`ArrowOptions::unknown_paths`] or [`ArrowOptions::exact_numbers`] every column is
    /// kept: the side columns speak of the whole value.
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::arrow::{ArrowOptions, BatchBuilder};
    /// use tfwire::Program;
    ///
    /// let program = Program::from_type_json(r#"["object",{"id":"string","size":"number"}]"#)?;
    /// let mut batch =
    ///     BatchBuilder::with_attributes(&program, &ArrowOptions::default(), |n| n == "size")?;
    /// let bump = Bump::new();
    /// batch.append(&program, program.decode_json(br#"{"id":"a","size":8}"#, &bump)?)?;
    /// let batch = batch.finish()?;
    /// assert_eq!(batch.schema().fields().len(), 1);
    /// assert_eq!(batch.schema().field(0).name(), "size");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_attributes(
        program: &Program,
        options: &ArrowOptions,
        keep: impl Fn(&str) -> bool,
    ) -> Result<BatchBuilder, SchemaError> {
        let all = BatchBuilder::new(program, options)?;
        let Type::Object(o) = program.root_type() else {
            return Ok(all);
        };
        if options.unknown_paths || options.exact_numbers || o.attrs().iter().all(|(n, _)| keep(n))
        {
            return Ok(all);
        }
        let (mut kept, mut columns) = (Vec::new(), Vec::new());
        for (i, ((name, _), column)) in o.attrs().iter().zip(all.columns).enumerate() {
            if keep(name) {
                kept.push(i);
                columns.push(column);
            }
        }
        let schema = Arc::new(
            all.schema
                .project(&kept)
                .map_err(|e| SchemaError::new(e.to_string()))?,
        );
        Ok(BatchBuilder {
            schema,
            columns,
            attrs: Some(kept.into_boxed_slice()),
            width: all.width,
            side: all.side,
            rows: 0,
            straight: None,
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows appended since the last [`finish`](BatchBuilder::finish).
    pub fn len(&self) -> usize {
        self.rows
    }

    /// No row appended since the last [`finish`](BatchBuilder::finish).
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Appends `value` (decoded or built by `program`, the builder's program or one of the
    /// same type) as a row; a null value is a row of nulls. A value that is not of the type
    /// is an error, and leaves the builder to be dropped.
    pub fn append(&mut self, program: &Program, value: Value<'_>) -> Result<(), ArrowError> {
        let mut notes = self.side.row();
        match value {
            Value::Object(object) => {
                let names = program.attr_names(object.op());
                let values = object.attrs();
                if names.len() != self.width || values.len() != names.len() {
                    return Err(mismatch("an object of the builder's type", value));
                }
                match &self.attrs {
                    None => {
                        for ((column, name), v) in self.columns.iter_mut().zip(names).zip(values) {
                            if !column.append_scalar(*v) {
                                notes.enter_attr(name, |u| column.append(program, *v, u))?;
                            }
                        }
                    }
                    Some(attrs) => {
                        for (column, &i) in self.columns.iter_mut().zip(attrs.iter()) {
                            let (Some(name), Some(v)) = (names.get(i), values.get(i)) else {
                                return Err(mismatch("an object of the builder's type", value));
                            };
                            if !column.append_scalar(*v) {
                                notes.enter_attr(name, |u| column.append(program, *v, u))?;
                            }
                        }
                    }
                }
            }
            Value::Null | Value::Unknown(_) => {
                if matches!(value, Value::Unknown(_)) {
                    notes.unknown();
                }
                for column in &mut self.columns {
                    column.append_nulls();
                }
            }
            v => return Err(mismatch("an object", v)),
        }
        self.side.end_row()?;
        self.rows = self.rows.saturating_add(1);
        Ok(())
    }

    /// The rows appended so far as a record batch; the builder starts again empty.
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(Column::finish)
            .collect::<Result<_, _>>()?;
        arrays.extend(self.side.finish()?);
        // (An object type without attributes has no column to count the rows.)
        let options =
            RecordBatchOptions::new().with_row_count(Some(std::mem::take(&mut self.rows)));
        RecordBatch::try_new_with_options(self.schema.clone(), arrays, &options)
    }
}

/// The builder of one column (or of a nested field).
pub(super) enum Column {
    Utf8(Texts),
    /// A `dynamic` value's JSON with its type.
    Json(StringBuilder),
    Bool(Bools),
    /// An object or tuple without parts: true when it is there.
    Present(BooleanBuilder),
    Float64(Floats),
    /// Numbers exactly ([`ArrowOptions::exact_numbers`]).
    Decimal(Decimal128Builder),
    List {
        item: FieldRef,
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
        child: Box<Column>,
    },
    Map {
        entries: FieldRef,
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
        keys: Texts,
        values: Box<Column>,
    },
    Struct {
        fields: Fields,
        nulls: NullBufferBuilder,
        children: Vec<Column>,
        /// An object's attribute keys (none for a tuple).
        keys: Option<Box<Keys>>,
    },
}

impl Column {
    fn new(ty: &Type, options: &ArrowOptions) -> Column {
        let data_type = |ty: &Type| data_type(ty, options);
        let list = |child: Column| {
            let DataType::List(item) = data_type(ty) else {
                unreachable!("a list's data type is a list")
            };
            Column::List {
                item,
                offsets: vec![0],
                nulls: NullBufferBuilder::new(0),
                child: Box::new(child),
            }
        };
        match ty {
            Type::String => Column::Utf8(Texts::new()),
            Type::Dynamic => Column::Json(StringBuilder::with_capacity(0, 0)),
            Type::Bool => Column::Bool(Bools::new()),
            Type::Number if options.exact_numbers => {
                Column::Decimal(Decimal128Builder::with_capacity(0).with_data_type(data_type(ty)))
            }
            Type::Number => Column::Float64(Floats::new()),
            Type::List(t) | Type::Set(t) => list(Column::new(t, options)),
            Type::Map(t) => {
                let DataType::Map(entries, _) = data_type(ty) else {
                    unreachable!("a map's data type is a map")
                };
                Column::Map {
                    entries,
                    offsets: vec![0],
                    nulls: NullBufferBuilder::new(0),
                    keys: Texts::new(),
                    values: Box::new(Column::new(t, options)),
                }
            }
            Type::Object(_) | Type::Tuple(_) => {
                let DataType::Struct(fields) = data_type(ty) else {
                    // (An object or tuple without parts: whether it is there.)
                    return Column::Present(BooleanBuilder::with_capacity(0));
                };
                let children = match ty {
                    Type::Object(o) => (o.attrs().iter())
                        .map(|(_, t)| Column::new(t, options))
                        .collect(),
                    Type::Tuple(ts) => ts.iter().map(|t| Column::new(t, options)).collect(),
                    _ => Vec::new(),
                };
                let keys = match ty {
                    Type::Object(o) => Some(Box::new(Keys::new(
                        o.attrs().iter().map(|(n, _)| n.as_str()),
                    ))),
                    _ => None,
                };
                Column::Struct {
                    fields,
                    nulls: NullBufferBuilder::new(0),
                    children,
                    keys,
                }
            }
        }
    }

    /// Appends `v` when it is a string, bool, number or null of a column of that kind (most
    /// attributes), without the general path's call: false when it did not.
    #[inline(always)]
    fn append_scalar(&mut self, v: Value<'_>) -> bool {
        match (self, v) {
            (Column::Utf8(b), Value::String(s)) => b.append(s),
            (Column::Utf8(b), Value::Null) => b.append_null(),
            (Column::Json(b), Value::Null) => b.append_null(),
            (Column::Bool(b), Value::Bool(x)) => b.append(x),
            (Column::Bool(b), Value::Null) => b.append_null(),
            (Column::Float64(b), Value::Int(i)) => b.append(i as f64),
            (Column::Float64(b), Value::Null) => b.append_null(),
            (Column::Decimal(b), Value::Int(i)) => {
                b.append_value(i128::from(i).saturating_mul(ONE))
            }
            (Column::Decimal(b), Value::Null) => b.append_null(),
            _ => return false,
        }
        true
    }

    /// Appends `v` (of `program`), or a null for a null or unknown value (recorded).
    fn append(
        &mut self,
        program: &Program,
        v: Value<'_>,
        u: &mut Notes<'_>,
    ) -> Result<(), ArrowError> {
        if let Value::Null | Value::Unknown(_) = v {
            if let Value::Unknown(_) = v {
                u.unknown();
            }
            self.append_nulls();
            return Ok(());
        }
        match (self, v) {
            (Column::Utf8(b), Value::String(s)) => b.append(s),
            // A typed null or unknown: null (an unknown's path recorded).
            (Column::Json(b), Value::Dynamic(d))
                if matches!(d.value, Value::Null | Value::Unknown(_)) =>
            {
                if matches!(d.value, Value::Unknown(_)) {
                    u.unknown();
                }
                b.append_null();
            }
            (Column::Json(b), v) => {
                let json = crate::dump::to_string(program, v)
                    .map_err(|e| ArrowError::InvalidArgumentError(e.to_string()))?;
                b.append_value(json);
            }
            (Column::Bool(b), Value::Bool(x)) => b.append(x),
            (Column::Present(b), Value::Object(_) | Value::Tuple(_)) => b.append_value(true),
            (Column::Float64(b), v) => match v.as_f64() {
                Some(x) => b.append(x),
                None => return Err(mismatch("a number", v)),
            },
            (Column::Decimal(b), v) => match v.as_number() {
                Some(n) => match scaled(&n) {
                    Some(x) => b.append_value(x),
                    None => {
                        b.append_null();
                        u.inexact(&n.to_decimal_string());
                    }
                },
                None => return Err(mismatch("a number", v)),
            },
            (
                Column::List {
                    offsets,
                    nulls,
                    child,
                    ..
                },
                Value::List(items) | Value::Set(items),
            ) => {
                for (i, x) in items.iter().enumerate() {
                    if !child.append_scalar(*x) {
                        u.enter(crate::path::Step::Index(i), |u| {
                            child.append(program, *x, u)
                        })?;
                    }
                }
                end_items(offsets, nulls, items.len()).ok_or_else(too_large)?;
            }
            (Column::List { .. }, v) => return Err(mismatch("a list or set", v)),
            (
                Column::Map {
                    offsets,
                    nulls,
                    keys,
                    values,
                    ..
                },
                v,
            ) => {
                let mut n = 0usize;
                match v {
                    Value::Map(entries) => {
                        // go-cty's map: keys sorted, a repeated key's last value. (Sorted
                        // already, as go-cty and Terraform write maps: taken as they are.)
                        let in_order = entries.windows(2).all(|w| match w {
                            [a, b] => a.0 < b.0,
                            _ => true,
                        });
                        let mut put = |k: &str, x: Value<'_>| -> Result<(), ArrowError> {
                            keys.append(k);
                            n = n.saturating_add(1);
                            u.enter(crate::path::Step::Key(k), |u| values.append(program, x, u))
                        };
                        if in_order {
                            for (k, x) in entries.iter() {
                                put(k, *x)?;
                            }
                        } else {
                            let mut sorted: Vec<&(&str, Value<'_>)> = entries.iter().collect();
                            sorted.sort_by(|a, b| a.0.cmp(b.0));
                            let mut sorted = sorted.into_iter().peekable();
                            while let Some(&(k, x)) = sorted.next() {
                                // (The sort is stable: a later value of the key follows.)
                                if sorted.peek().is_none_or(|e| e.0 != k) {
                                    put(k, x)?;
                                }
                            }
                        }
                    }
                    v => return Err(mismatch("a map", v)),
                }
                end_items(offsets, nulls, n).ok_or_else(too_large)?;
            }
            (
                Column::Struct {
                    nulls, children, ..
                },
                v,
            ) => match v {
                Value::Object(object) => {
                    let names = program.attr_names(object.op());
                    if names.len() != children.len() || object.attrs().len() != names.len() {
                        return Err(mismatch("an object of the column's type", v));
                    }
                    for ((c, name), x) in children.iter_mut().zip(names).zip(object.attrs()) {
                        if !c.append_scalar(*x) {
                            u.enter_attr(name, |u| c.append(program, *x, u))?;
                        }
                    }
                    nulls.append_non_null();
                }
                Value::Tuple(items) if items.len() == children.len() => {
                    for (i, (c, x)) in children.iter_mut().zip(items).enumerate() {
                        u.enter(crate::path::Step::Index(i), |u| c.append(program, *x, u))?;
                    }
                    nulls.append_non_null();
                }
                v => return Err(mismatch("an object or tuple", v)),
            },
            (_, v) => return Err(mismatch("a value of the column's type", v)),
        }
        Ok(())
    }

    /// A null row (or item, or entry value): null here and in every field below.
    pub(super) fn append_nulls(&mut self) {
        match self {
            Column::Utf8(b) => b.append_null(),
            Column::Json(b) => b.append_null(),
            Column::Bool(b) => b.append_null(),
            Column::Present(b) => b.append_null(),
            Column::Float64(b) => b.append_null(),
            Column::Decimal(b) => b.append_null(),
            Column::List { offsets, nulls, .. } | Column::Map { offsets, nulls, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
                nulls.append_null();
            }
            Column::Struct {
                nulls, children, ..
            } => {
                nulls.append_null();
                for c in children {
                    c.append_nulls();
                }
            }
        }
    }

    /// The column's array; the builder starts again empty.
    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        Ok(match self {
            Column::Utf8(b) => Arc::new(b.finish()?),
            Column::Json(b) => Arc::new(b.finish()),
            Column::Bool(b) => Arc::new(b.finish()),
            Column::Present(b) => Arc::new(b.finish()),
            Column::Float64(b) => Arc::new(b.finish()?),
            Column::Decimal(b) => Arc::new(b.finish()),
            Column::List {
                item,
                offsets,
                nulls,
                child,
            } => {
                let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
                Arc::new(ListArray::try_new(
                    item.clone(),
                    offsets,
                    child.finish()?,
                    nulls.finish(),
                )?)
            }
            Column::Map {
                entries,
                offsets,
                nulls,
                keys,
                values,
            } => {
                let DataType::Struct(fields) = entries.data_type() else {
                    return Err(ArrowError::SchemaError(
                        "a map's entries are a struct".into(),
                    ));
                };
                let kv: Vec<ArrayRef> = vec![Arc::new(keys.finish()?), values.finish()?];
                let entries_array = StructArray::try_new(fields.clone(), kv, None)?;
                let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
                Arc::new(MapArray::try_new(
                    entries.clone(),
                    offsets,
                    entries_array,
                    nulls.finish(),
                    false,
                )?)
            }
            // (An object or tuple without parts is `Present`: a struct here has a field.)
            Column::Struct {
                fields,
                nulls,
                children,
                ..
            } => {
                let arrays = children
                    .iter_mut()
                    .map(Column::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                Arc::new(StructArray::try_new(
                    fields.clone(),
                    arrays,
                    nulls.finish(),
                )?)
            }
        })
    }
}

#[cold]
fn mismatch(want: &str, v: Value<'_>) -> ArrowError {
    ArrowError::InvalidArgumentError(format!("expected {want}, found {v:?}"))
}
