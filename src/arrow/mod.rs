//! Typed columns (the `arrow` feature): a program's type as an Arrow schema (`schema.rs`),
//! decoded values as Arrow record batches (`columns.rs`, its leaf columns' buffers in
//! `leaves.rs`), rows read from their bytes straight into the columns when they are as go-cty
//! writes them (`rows.rs`, with the readers `rows_json.rs` and `rows_msgpack.rs` and the keys
//! they expect in `keys.rs`; any other row is decoded and appended, with the same result), the
//! side columns (`notes.rs`) and exact decimals (`decimal.rs`), and state files as tables, one
//! per resource type plus `instances` (`tables.rs`), for DataFusion, DuckDB, Polars, pandas and
//! every other reader of Arrow and Parquet.
//!
//! The mapping, type by type (each choice is tested in `tests/arrow.rs`):
//!
//! | go-cty type | Arrow type |
//! |---|---|
//! | `string` | `Utf8` |
//! | `bool` | `Boolean` |
//! | `number` | `Float64` (the number rounded to the nearest `f64`); with [`ArrowOptions::exact_numbers`], `Decimal128(38, 9)` where the value is exact there, else null with its path and text in the row's `_inexact_numbers` |
//! | `list(T)`, `set(T)` | `List(T)` (a set's elements in the order decoded) |
//! | `map(T)` | `Map(Utf8, T)`, keys sorted, a repeated key's last value (go-cty's map) |
//! | `object({…})`, nested blocks | `Struct` of the attributes, by name |
//! | `tuple([…])` | `Struct` of fields `"0"`, `"1"`, … |
//! | `object({})`, `tuple([])` | `Boolean`: true when present (Parquet has no struct without fields) |
//! | `dynamic` | `Utf8` holding the value's JSON with its type (`{"type":…,"value":…}`, as the DUMP writes it; a typed null is null), with Arrow's JSON extension type (`ARROW:extension:name` = `arrow.json`) |
//! | an unknown value (plans) | null; with [`ArrowOptions::unknown_paths`], the row's `_unknowns` column lists their paths |
//!
//! Every field is nullable: any value may be null.
//!
//! ```
//! use bumpalo::Bump;
//! use tfwire::arrow::{ArrowOptions, BatchBuilder};
//! use tfwire::Program;
//!
//! let program = Program::from_type_json(
//!     r#"["object",{"id":"string","size":"number","tags":["map","string"]}]"#,
//! )?;
//! let mut batch = BatchBuilder::new(&program, &ArrowOptions::default())?;
//! let bump = Bump::new();
//! for input in [&br#"{"id":"a","size":8,"tags":{"k":"v"}}"#[..], br#"{"id":"b"}"#] {
//!     batch.append(&program, program.decode_json(input, &bump)?)?;
//! }
//! let batch = batch.finish()?;
//! assert_eq!(batch.num_rows(), 2);
//! assert_eq!(batch.schema().field(1).name(), "size");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod columns;
mod decimal;
mod keys;
mod leaves;
mod notes;
mod rows;
mod rows_json;
mod rows_msgpack;
mod schema;
mod tables;

pub use columns::BatchBuilder;
pub use rows::AppendError;
pub use schema::{
    data_type, schema, ArrowOptions, INEXACT_COLUMN, JSON_EXTENSION, UNKNOWNS_COLUMN,
};
#[cfg(feature = "sql")]
pub(crate) use tables::ENVELOPE_COLUMNS;
pub use tables::{Parts, StateTables, INSTANCES_TABLE};
