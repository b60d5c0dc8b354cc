//! What `tfwire state --format parquet` (`state_parquet.rs`) holds of a table between its
//! row groups: [`Gathered`] batches, whose text columns that hold one value in all their rows
//! are kept as that value.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, SchemaRef};

/// A batch gathered for a row group, its text columns that hold one value in every row (or
/// none) kept as that value: a run's rows share the state file's name, and most a type's
/// rows their provider, mode and module, which would otherwise fill the memory budget many
/// times over (the budget's size decides how many row groups, and so column chunks, are
/// written).
pub struct Gathered {
    /// The columns, in the batch's order.
    pub columns: Vec<Held>,
    pub rows: usize,
    /// The memory it holds.
    pub bytes: usize,
}

/// A column of a [`Gathered`] batch.
#[derive(Debug)]
pub enum Held {
    /// As the batch had it.
    Array(ArrayRef),
    /// A text column with this value in every row (`None`: null in every row).
    One(Option<String>),
}

impl Gathered {
    pub fn new(batch: RecordBatch) -> Gathered {
        let rows = batch.num_rows();
        let mut bytes = 0usize;
        let columns = (batch.columns().iter())
            .map(|column| {
                let held = match column.as_any().downcast_ref::<StringArray>() {
                    Some(text) if rows > 1 && text.null_count() == rows => Held::One(None),
                    Some(text) if rows > 1 && text.null_count() == 0 => {
                        let first = text.value(0);
                        if (1..rows).all(|k| text.value(k) == first) {
                            Held::One(Some(first.to_string()))
                        } else {
                            Held::Array(column.clone())
                        }
                    }
                    _ => Held::Array(column.clone()),
                };
                let size = match &held {
                    Held::Array(a) => a.get_array_memory_size(),
                    Held::One(value) => value.as_ref().map_or(0, String::len),
                };
                bytes = bytes.saturating_add(size);
                held
            })
            .collect();
        Gathered {
            columns,
            rows,
            bytes,
        }
    }

    /// The batch again, of `schema` (the table's, which the batch had).
    pub fn batch(self, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
        let rows = self.rows;
        let columns = (self.columns.into_iter())
            .map(|held| match held {
                Held::Array(a) => a,
                Held::One(Some(v)) => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(
                    v.as_str(),
                    rows,
                ))),
                Held::One(None) => arrow_array::new_null_array(&DataType::Utf8, rows),
            })
            .collect();
        RecordBatch::try_new(schema.clone(), columns)
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::Int64Array;

    use super::*;

    /// A gathered batch keeps a text column that holds one value (or none) in every row as
    /// that value, and gives the same batch back.
    #[test]
    fn gathered_batches_keep_one_value_columns_as_the_value() {
        let rows = 500;
        let same = StringArray::from_iter_values(std::iter::repeat_n("/states/a.tfstate", rows));
        let none = StringArray::from(vec![None::<&str>; rows]);
        let varied = StringArray::from_iter_values((0..rows).map(|k| format!("i-{k}")));
        let mut almost: Vec<Option<&str>> = vec![Some("x"); rows];
        almost[rows - 1] = None;
        let almost = StringArray::from(almost);
        let numbers = Int64Array::from_iter_values(std::iter::repeat_n(7, rows));
        let original = RecordBatch::try_from_iter([
            ("_file", Arc::new(same) as arrow_array::ArrayRef),
            ("_module", Arc::new(none)),
            ("id", Arc::new(varied)),
            ("almost", Arc::new(almost)),
            ("count", Arc::new(numbers)),
        ])
        .expect("columns");
        let schema = original.schema();
        let gathered = Gathered::new(original.clone());
        let ones: Vec<(usize, Option<&str>)> = (gathered.columns.iter().enumerate())
            .filter_map(|(k, held)| match held {
                Held::One(v) => Some((k, v.as_deref())),
                Held::Array(_) => None,
            })
            .collect();
        assert_eq!(ones, [(0, Some("/states/a.tfstate")), (1, None)]);
        let kept: Vec<bool> = (gathered.columns.iter())
            .map(|held| matches!(held, Held::Array(_)))
            .collect();
        assert_eq!(kept, [false, false, true, true, true]);
        assert!(gathered.bytes < original.get_array_memory_size());
        assert_eq!(gathered.rows, rows);
        let back = gathered.batch(&schema).expect("the batch again");
        assert_eq!(back, original);
        assert_eq!(back.column(1).null_count(), rows);
        // One row: nothing to gain, kept as it is.
        let one = original.slice(0, 1);
        let gathered = Gathered::new(one.clone());
        assert!(gathered.columns.iter().all(|h| matches!(h, Held::Array(_))));
        assert_eq!(gathered.batch(&schema).expect("the batch again"), one);
    }
}
