//! The side columns of a batch, which say what the typed columns cannot: each row's unknown
//! values' paths ([`UNKNOWNS_COLUMN`](super::UNKNOWNS_COLUMN)) and its numbers without an
//! exact `Decimal128` value ([`INEXACT_COLUMN`](super::INEXACT_COLUMN)); and [`Notes`], the
//! path of the value being appended, through which the columns add to them.

use std::sync::Arc;

use arrow_array::builder::{ArrayBuilder, StringBuilder};
use arrow_array::{ArrayRef, ListArray, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{ArrowError, DataType, FieldRef};

use super::schema::{inexact_type, ArrowOptions};
use crate::path::Step;

/// The side columns being filled (each present with its option).
pub(super) struct SideColumns {
    /// Each row's end in `paths`, and the paths of unknown values.
    unknowns: Option<(Vec<i32>, StringBuilder)>,
    /// Each row's end in the entries, and the entries' paths and texts.
    inexact: Option<(Vec<i32>, StringBuilder, StringBuilder)>,
}

impl SideColumns {
    pub(super) fn new(options: &ArrowOptions) -> SideColumns {
        let strings = || StringBuilder::with_capacity(0, 0);
        SideColumns {
            unknowns: options.unknown_paths.then(|| (vec![0], strings())),
            inexact: options
                .exact_numbers
                .then(|| (vec![0], strings(), strings())),
        }
    }

    /// The notes of the row being appended.
    pub(super) fn row(&mut self) -> Notes<'_> {
        Notes {
            path: String::new(),
            unknowns: self.unknowns.as_mut().map(|(_, paths)| paths),
            inexact: self.inexact.as_mut().map(|(_, p, t)| (p, t)),
        }
    }

    /// Ends the row being appended.
    pub(super) fn end_row(&mut self) -> Result<(), ArrowError> {
        if let Some((offsets, paths)) = &mut self.unknowns {
            offsets.push(i32::try_from(paths.len()).map_err(|_| too_large())?);
        }
        if let Some((offsets, paths, _)) = &mut self.inexact {
            offsets.push(i32::try_from(paths.len()).map_err(|_| too_large())?);
        }
        Ok(())
    }

    /// The side columns' arrays, in the schema's order; they start again empty.
    pub(super) fn finish(&mut self) -> Result<Vec<ArrayRef>, ArrowError> {
        let mut arrays: Vec<ArrayRef> = Vec::new();
        if let Some((offsets, paths)) = &mut self.unknowns {
            let item: FieldRef = Arc::new(arrow_schema::Field::new("item", DataType::Utf8, false));
            let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
            let list = ListArray::try_new(item, offsets, Arc::new(paths.finish()), None)?;
            arrays.push(Arc::new(list));
        }
        if let Some((offsets, paths, texts)) = &mut self.inexact {
            let DataType::List(item) = inexact_type() else {
                return Err(ArrowError::SchemaError(
                    "the inexact column is a list".into(),
                ));
            };
            let DataType::Struct(fields) = item.data_type() else {
                return Err(ArrowError::SchemaError("of structs".into()));
            };
            let parts: Vec<ArrayRef> = vec![Arc::new(paths.finish()), Arc::new(texts.finish())];
            let entries = StructArray::try_new(fields.clone(), parts, None)?;
            let offsets = OffsetBuffer::new(std::mem::replace(offsets, vec![0]).into());
            arrays.push(Arc::new(ListArray::try_new(
                item,
                offsets,
                Arc::new(entries),
                None,
            )?));
        }
        Ok(arrays)
    }
}

/// Where the value being appended is (its path, kept only when a side column needs it), and
/// the row's side columns.
pub(super) struct Notes<'u> {
    path: String,
    unknowns: Option<&'u mut StringBuilder>,
    inexact: Option<(&'u mut StringBuilder, &'u mut StringBuilder)>,
}

impl Notes<'_> {
    fn keeps_paths(&self) -> bool {
        self.unknowns.is_some() || self.inexact.is_some()
    }

    /// Runs `f` one step further along the path: attribute `name`.
    pub(super) fn enter_attr<T>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        self.enter(Step::Attr(name), f)
    }

    /// Runs `f` one step further along the path: an attribute, element or entry.
    pub(super) fn enter<T>(&mut self, step: Step<'_>, f: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.path.len();
        if self.keeps_paths() {
            step.write(&mut self.path);
        }
        let out = f(self);
        self.path.truncate(len);
        out
    }

    /// The value here is unknown.
    pub(super) fn unknown(&mut self) {
        if let Some(out) = &mut self.unknowns {
            out.append_value(&self.path);
        }
    }

    /// The number here, `text`, has no exact value in its column.
    pub(super) fn inexact(&mut self, text: &str) {
        if let Some((paths, texts)) = &mut self.inexact {
            paths.append_value(&self.path);
            texts.append_value(text);
        }
    }
}

#[cold]
pub(super) fn too_large() -> ArrowError {
    ArrowError::InvalidArgumentError("more than 2^31 elements in one column".into())
}
