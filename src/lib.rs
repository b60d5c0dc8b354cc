//! tfwire: a zero-copy, schema-compiled decoder for Terraform and OpenTofu `DynamicValue`s.
#![deny(missing_docs)]

mod compile;
pub mod dump;
mod error;
mod limits;
mod number;
mod program;
pub mod schema;
mod value;
mod vm;

pub use error::{Category, DecodeError, ErrorKind, SchemaError};
pub use limits::Limits;
pub use number::Number;
pub use program::{DecodeOptions, OpId, Program};
pub use schema::Type;
pub use value::{Dynamic, Refinements, Typed, Value};
