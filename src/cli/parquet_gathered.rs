//! What `tfwire state --format parquet` (`state_parquet.rs`) holds of a table between its
//! row groups: [`Gathered`] batches, whose text columns that hold one value in all their rows
//! are kept as that value, and the count of a table's Parquet [`leaves`] (the column chunks
//! each of its row groups costs), by which the memory budget chooses what to write out.

use std::sync::Arc;

/// The Parquet leaf columns of `fields`: one per primitive value, however nested.
pub fn leaves(fields: &arrow_schema::Fields) -> usize {
    use arrow_schema::DataType;
    fn of(t: &DataType) -> usize {
        match t {
            DataType::Struct(f) => leaves(f),
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                of(f.data_type())
            }
            DataType::Map(f, _) => of(f.data_type()),
            _ => 1,
        }
    }
    fields.iter().map(|f| of(f.data_type())).sum()
}

/// A batch gathered for a row group, its text columns that hold one value in every row (or
/// none) kept as that value: a run's rows share the state file's name, and most a type's
/// rows their provider, mode and module, which would otherwise fill the memory budget many
/// times over (the budget's size decides how many row groups, and so column chunks, are
/// written).
pub struct Gathered {
    /// The columns, `None` where one value fills the column.
    pub columns: Vec<Option<arrow_array::ArrayRef>>,
    /// The column index and value of each column one value fills.
    pub constants: Vec<(usize, Option<String>)>,
    pub rows: usize,
    /// The memory it holds.
    pub bytes: usize,
}

impl Gathered {
    pub fn new(batch: arrow_array::RecordBatch) -> Gathered {
        use arrow_array::Array;
        let rows = batch.num_rows();
        let (mut columns, mut constants, mut bytes) = (Vec::new(), Vec::new(), 0usize);
        for (k, column) in batch.columns().iter().enumerate() {
            let one = match column.as_any().downcast_ref::<arrow_array::StringArray>() {
                Some(text) if rows > 1 && text.null_count() == rows => Some(None),
                Some(text) if rows > 1 && text.null_count() == 0 => {
                    let first = text.value(0);
                    text.iter()
                        .all(|v| v == Some(first))
                        .then(|| Some(first.to_string()))
                }
                _ => None,
            };
            match one {
                Some(value) => {
                    bytes = bytes.saturating_add(value.as_ref().map_or(0, String::len));
                    constants.push((k, value));
                    columns.push(None);
                }
                None => {
                    bytes = bytes.saturating_add(column.get_array_memory_size());
                    columns.push(Some(column.clone()));
                }
            }
        }
        Gathered {
            columns,
            constants,
            rows,
            bytes,
        }
    }

    /// The batch again, of `schema` (the table's, which the batch had).
    pub fn batch(
        self,
        schema: &arrow_schema::SchemaRef,
    ) -> Result<arrow_array::RecordBatch, arrow_schema::ArrowError> {
        let rows = self.rows;
        let mut constants = self.constants.into_iter().peekable();
        let columns = (self.columns.into_iter().enumerate())
            .map(|(k, column)| match column {
                Some(c) => c,
                None => match constants.next_if(|(at, _)| *at == k) {
                    Some((_, Some(v))) => Arc::new(arrow_array::StringArray::from_iter_values(
                        std::iter::repeat_n(v.as_str(), rows),
                    )),
                    _ => arrow_array::new_null_array(&arrow_schema::DataType::Utf8, rows),
                },
            })
            .collect();
        arrow_array::RecordBatch::try_new(schema.clone(), columns)
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::{Int64Array, RecordBatch};

    use super::*;

    /// A gathered batch keeps a text column that holds one value (or none) in every row as
    /// that value, and gives the same batch back.
    #[test]
    fn gathered_batches_keep_one_value_columns_as_the_value() {
        use arrow_array::{Array, StringArray};
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
        assert_eq!(
            gathered.constants,
            [(0, Some("/states/a.tfstate".to_string())), (1, None)]
        );
        let kept: Vec<bool> = gathered.columns.iter().map(Option::is_some).collect();
        assert_eq!(kept, [false, false, true, true, true]);
        assert!(gathered.bytes < original.get_array_memory_size());
        assert_eq!(gathered.rows, rows);
        let back = gathered.batch(&schema).expect("the batch again");
        assert_eq!(back, original);
        assert_eq!(back.column(1).null_count(), rows);
        // One row: nothing to gain, kept as it is.
        let one = original.slice(0, 1);
        let gathered = Gathered::new(one.clone());
        assert!(gathered.constants.is_empty());
        assert_eq!(gathered.batch(&schema).expect("the batch again"), one);
    }
}
