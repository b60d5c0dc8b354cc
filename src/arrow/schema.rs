//! A [`Type`] as Arrow data types and schemas (the table in the module above).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};

use crate::error::SchemaError;
use crate::schema::Type;

/// The name of Arrow's canonical JSON extension type, which the columns of `dynamic` values
/// carry in their field metadata (`ARROW:extension:name`).
pub const JSON_EXTENSION: &str = "arrow.json";

/// The name of the column that lists, for each row, the paths of its unknown values
/// ([`ArrowOptions::unknown_paths`]).
pub const UNKNOWNS_COLUMN: &str = "_unknowns";

/// The name of the column that lists, for each row, the numbers that have no exact
/// `Decimal128` value ([`ArrowOptions::exact_numbers`]): their paths and their text.
pub const INEXACT_COLUMN: &str = "_inexact_numbers";

/// How values become columns.
///
/// ```
/// use tfwire::arrow::ArrowOptions;
/// let options = ArrowOptions::default().with_unknown_paths(true).with_exact_numbers(true);
/// assert!(options.unknown_paths && options.exact_numbers);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArrowOptions {
    /// Add the column [`UNKNOWNS_COLUMN`] (`List(Utf8)`): the paths of each row's unknown
    /// values (which are null in their columns).
    pub unknown_paths: bool,
    /// Numbers as `Decimal128(38, 9)` (exact to nine fraction digits, below 10^29 in
    /// magnitude) instead of `Float64`; a number without such a value is null there, and
    /// listed with its path and its decimal text in the column [`INEXACT_COLUMN`]
    /// (`List(Struct(path Utf8, text Utf8))`).
    pub exact_numbers: bool,
}

with_setters!(ArrowOptions {
    #[const] with_unknown_paths => unknown_paths: bool,
    #[const] with_exact_numbers => exact_numbers: bool,
});

/// The Arrow data type of values of `ty`.
///
/// ```
/// use arrow_schema::DataType;
/// use tfwire::arrow::{data_type, ArrowOptions};
/// use tfwire::Type;
///
/// let ty = Type::from_json(r#"["list","number"]"#)?;
/// let options = ArrowOptions::default();
/// assert!(matches!(data_type(&ty, &options), DataType::List(f) if f.data_type() == &DataType::Float64));
/// let exact = options.with_exact_numbers(true);
/// assert!(matches!(data_type(&ty, &exact), DataType::List(f) if f.data_type() == &DataType::Decimal128(38, 9)));
/// # Ok::<(), tfwire::SchemaError>(())
/// ```
pub fn data_type(ty: &Type, options: &ArrowOptions) -> DataType {
    let field = |name: &str, t: &Type| field(name, t, options);
    match ty {
        Type::String => DataType::Utf8,
        Type::Bool => DataType::Boolean,
        Type::Number if options.exact_numbers => {
            DataType::Decimal128(super::decimal::PRECISION, super::decimal::SCALE)
        }
        Type::Number => DataType::Float64,
        // (Its field carries the extension type: see `field`.)
        Type::Dynamic => DataType::Utf8,
        Type::List(t) | Type::Set(t) => DataType::List(Arc::new(field("item", t))),
        Type::Map(t) => {
            let entries = Fields::from(vec![
                Field::new("keys", DataType::Utf8, false),
                field("values", t),
            ]);
            let entries = Field::new("entries", DataType::Struct(entries), false);
            DataType::Map(Arc::new(entries), false)
        }
        // Parquet (and DuckDB) have no struct without fields: an empty object or tuple is
        // whether it is there.
        Type::Object(o) if o.attrs().is_empty() => DataType::Boolean,
        Type::Tuple(ts) if ts.is_empty() => DataType::Boolean,
        Type::Object(o) => DataType::Struct(
            o.attrs()
                .iter()
                .map(|(name, t)| field(name, t))
                .collect::<Fields>(),
        ),
        Type::Tuple(ts) => DataType::Struct(
            ts.iter()
                .enumerate()
                .map(|(i, t)| field(&i.to_string(), t))
                .collect::<Fields>(),
        ),
    }
}

/// The nullable field `name` of values of `ty` (a `dynamic` one marked as JSON).
pub(super) fn field(name: &str, ty: &Type, options: &ArrowOptions) -> Field {
    let f = Field::new(name, data_type(ty, options), true);
    match ty {
        Type::Dynamic => f.with_metadata(HashMap::from([(
            "ARROW:extension:name".to_string(),
            JSON_EXTENSION.to_string(),
        )])),
        _ => f,
    }
}

/// The type of [`INEXACT_COLUMN`]: a list of (path, decimal text).
pub(super) fn inexact_type() -> DataType {
    let entry = Fields::from(vec![
        Field::new("path", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
    ]);
    DataType::List(Arc::new(Field::new("item", DataType::Struct(entry), false)))
}

/// The schema of a record batch of values of the object type `ty`: a column per attribute,
/// by name, in the type's order (then [`UNKNOWNS_COLUMN`] and [`INEXACT_COLUMN`] with
/// those options). A type that is
/// not an object is an error.
///
/// ```
/// use tfwire::arrow::{schema, ArrowOptions};
/// use tfwire::Type;
///
/// let ty = Type::from_json(r#"["object",{"id":"string","n":"number"}]"#)?;
/// let s = schema(&ty, &ArrowOptions::default())?;
/// assert_eq!(s.fields().iter().map(|f| f.name().as_str()).collect::<Vec<_>>(), ["id", "n"]);
/// # Ok::<(), tfwire::SchemaError>(())
/// ```
pub fn schema(ty: &Type, options: &ArrowOptions) -> Result<Schema, SchemaError> {
    let Type::Object(o) = ty else {
        return Err(SchemaError::new(format!(
            "a record batch has a column per attribute of an object type, not {ty}"
        )));
    };
    let mut fields: Vec<Field> = (o.attrs().iter())
        .map(|(n, t)| field(n, t, options))
        .collect();
    if options.unknown_paths {
        let item = Arc::new(Field::new("item", DataType::Utf8, false));
        fields.push(Field::new(UNKNOWNS_COLUMN, DataType::List(item), false));
    }
    if options.exact_numbers {
        fields.push(Field::new(INEXACT_COLUMN, inexact_type(), false));
    }
    Ok(Schema::new(fields))
}
