//! Rows decoded straight into the columns: [`BatchBuilder::decode_msgpack`] and
//! [`BatchBuilder::decode_json`] read a row's input into the columns' buffers without
//! building its value in an arena (`rows_msgpack.rs`, `rows_json.rs`), when the input is what
//! go-cty writes: every attribute, in the type's order, of the plain kinds. At anything else
//! the reader gives up, the columns are truncated back to the rows before, and the row goes
//! the general way (the program's decode, then [`BatchBuilder::append`]), which reads it or
//! names its fault with path and offset; so the rows are always those of the general way.

use arrow_schema::ArrowError;
use bumpalo::Bump;

use super::columns::{BatchBuilder, Column};
use super::leaves::truncate_nulls;
use crate::error::DecodeError;
use crate::limits::Limits;
use crate::program::Program;

/// Why a row could not be added.
#[derive(Debug)]
pub enum AppendError {
    /// The input is not a value of the type: the general decode's error (its kind, path
    /// and offset).
    Decode(DecodeError),
    /// The columns cannot take the row (a column past Arrow's 2³¹ bytes, or a value not of
    /// the builder's type).
    Arrow(ArrowError),
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppendError::Decode(e) => e.fmt(f),
            AppendError::Arrow(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AppendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AppendError::Decode(e) => Some(e),
            AppendError::Arrow(e) => Some(e),
        }
    }
}

impl From<DecodeError> for AppendError {
    fn from(e: DecodeError) -> AppendError {
        AppendError::Decode(e)
    }
}

impl From<ArrowError> for AppendError {
    fn from(e: ArrowError) -> AppendError {
        AppendError::Arrow(e)
    }
}

/// The longest input read straight: on the rows the straight readers take, the general
/// decode spends fewer than 40 arena bytes per input byte on containers (24 for a list item
/// of one byte, 40 for a map entry of at least two, 24 for each attribute of an object, which
/// comes with its key), so below this it cannot reach its default
/// [`Limits::max_arena_bytes`] and fail where the straight reader would not.
const STRAIGHT_MAX: u64 = Limits::DEFAULT.max_arena_bytes / 40;

/// Which encoding a row is in.
#[derive(Clone, Copy)]
enum Encoding {
    MessagePack,
    Json,
}

impl BatchBuilder {
    /// Decodes `input`, one MessagePack value of the builder's type, as a row: what
    /// [`Program::decode_msgpack`] and then [`BatchBuilder::append`] do, the same rows and
    /// the same errors, but without building the value when the input is as go-cty writes
    /// it (then about 1.3× as fast). `program` is the builder's program or one of its type
    /// (a projection of the type is read the general way, its picks applied); `bump` holds
    /// the value when one is built, and may be reset after the call.
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::arrow::{ArrowOptions, BatchBuilder};
    /// use tfwire::Program;
    ///
    /// let program = Program::from_type_json(r#"["object",{"id":"string","size":"number"}]"#)?;
    /// let mut batch = BatchBuilder::new(&program, &ArrowOptions::default())?;
    /// let bump = Bump::new();
    /// // {"id": "a", "size": 8}
    /// batch.decode_msgpack(&program, b"\x82\xa2id\xa1a\xa4size\x08", &bump)?;
    /// let err = batch.decode_msgpack(&program, b"\x82\xa2id\xa1a\xa4size", &bump).unwrap_err();
    /// assert!(err.to_string().contains("end of input"), "{err}");
    /// assert_eq!(batch.finish()?.num_rows(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_msgpack(
        &mut self,
        program: &Program,
        input: &[u8],
        bump: &Bump,
    ) -> Result<(), AppendError> {
        if self.straight_row(program, input, Encoding::MessagePack)? {
            return Ok(());
        }
        let value = program.decode_msgpack(input, bump)?;
        Ok(self.append(program, value)?)
    }

    /// Decodes `input`, one JSON value of the builder's type, as a row: what
    /// [`Program::decode_json`] and then [`BatchBuilder::append`] do, the same rows and the
    /// same errors, without building the value when the input is as go-cty writes it (every
    /// attribute in the type's order, strings without escapes, integers).
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::arrow::{ArrowOptions, BatchBuilder};
    /// use tfwire::Program;
    ///
    /// let program = Program::from_type_json(r#"["object",{"id":"string","size":"number"}]"#)?;
    /// let mut batch = BatchBuilder::new(&program, &ArrowOptions::default())?;
    /// let bump = Bump::new();
    /// batch.decode_json(&program, br#"{"id":"a","size":8}"#, &bump)?;
    /// // Out of order and escaped: the general decode's row, the same as in order.
    /// batch.decode_json(&program, br#"{"size":0.5,"id":"\u0062"}"#, &bump)?;
    /// let err = batch.decode_json(&program, br#"{"id":"c","size":true}"#, &bump).unwrap_err();
    /// assert!(err.to_string().contains("size"), "{err}");
    /// let batch = batch.finish()?;
    /// assert_eq!(batch.num_rows(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_json(
        &mut self,
        program: &Program,
        input: &[u8],
        bump: &Bump,
    ) -> Result<(), AppendError> {
        if self.straight_row(program, input, Encoding::Json)? {
            return Ok(());
        }
        let value = program.decode_json(input, bump)?;
        Ok(self.append(program, value)?)
    }

    /// Reads the row straight into the columns if it can: true when it did. When it gives
    /// up half-way, the columns are as before.
    fn straight_row(
        &mut self,
        program: &Program,
        input: &[u8],
        encoding: Encoding,
    ) -> Result<bool, ArrowError> {
        if u64::try_from(input.len()).map_or(true, |n| n > STRAIGHT_MAX) {
            return Ok(false);
        }
        let Some(straight) = &mut self.straight else {
            return Ok(false);
        };
        if !straight.knows(program) {
            return Ok(false);
        }
        let keys = &straight.keys;
        let read = match encoding {
            Encoding::MessagePack => super::rows_msgpack::row(&mut self.columns, &keys.0, input),
            Encoding::Json => super::rows_json::row(&mut self.columns, &keys.0, input),
        };
        if read.is_none() {
            let rows = self.rows;
            for c in &mut self.columns {
                c.truncate(rows);
            }
            return Ok(false);
        }
        self.side.end_row()?;
        self.rows = self.rows.saturating_add(1);
        Ok(true)
    }
}

impl Column {
    /// Keeps the first `n` rows (items, entries) of a column the straight readers fill
    /// (`keys.rs`, `Straight::new`).
    fn truncate(&mut self, n: usize) {
        match self {
            Column::Utf8(b) => b.truncate(n),
            Column::Bool(b) => b.truncate(n),
            Column::Float64(b) => b.truncate(n),
            Column::List {
                offsets,
                nulls,
                child,
                ..
            } => {
                offsets.truncate(n.saturating_add(1));
                truncate_nulls(nulls, n);
                child.truncate(end(offsets));
            }
            Column::Map {
                offsets,
                nulls,
                keys,
                values,
                ..
            } => {
                offsets.truncate(n.saturating_add(1));
                truncate_nulls(nulls, n);
                let items = end(offsets);
                keys.truncate(items);
                values.truncate(items);
            }
            Column::Struct {
                nulls, children, ..
            } => {
                truncate_nulls(nulls, n);
                for c in children {
                    c.truncate(n);
                }
            }
            // (Never read straight: see `Straight::new`.)
            Column::Json(_) | Column::Present(_) | Column::Decimal(_) => {}
        }
    }
}

/// The last offset of a list or map column: its items' count.
fn end(offsets: &[i32]) -> usize {
    offsets
        .last()
        .and_then(|&e| usize::try_from(e).ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrow::ArrowOptions;

    /// Rows as go-cty writes them go straight; the others do not, and leave the columns as
    /// they were (the batch is the rows that went straight, then the general way's).
    #[test]
    fn go_cty_rows_go_straight_and_the_others_do_not() {
        let program = Program::from_type_json(
            r#"["object",{"id":"string","n":"number","l":["list",["object",{"a":"bool"}]],"m":["map","string"]}]"#,
        )
        .unwrap();
        let json = br#"{"id":"x","l":[{"a":true},{"a":null}],"m":{"k":"v"},"n":7}"#;
        let bump = Bump::new();
        let mut msgpack = Vec::new();
        let value = program.decode_json(json, &bump).unwrap();
        program.encode_msgpack(value, &mut msgpack).unwrap();
        let mut batch = BatchBuilder::new(&program, &ArrowOptions::default()).unwrap();
        let straight = |b: &mut BatchBuilder, input: &[u8], e| b.straight_row(&program, input, e);
        assert!(straight(&mut batch, json, Encoding::Json).unwrap());
        assert!(straight(&mut batch, &msgpack, Encoding::MessagePack).unwrap());
        // Given up after the list's items were appended: a fraction, a key out of order.
        let late = br#"{"id":"y","l":[{"a":false}],"m":{"k":"v"},"n":7.5}"#;
        assert!(!straight(&mut batch, late, Encoding::Json).unwrap());
        let unordered = br#"{"id":"y","l":[{"a":false}],"m":{"k":"v","a":"w"},"n":7}"#;
        assert!(!straight(&mut batch, unordered, Encoding::Json).unwrap());
        assert!(!straight(
            &mut batch,
            &msgpack[..msgpack.len() - 1],
            Encoding::MessagePack
        )
        .unwrap());
        assert_eq!(batch.len(), 2);
        batch.decode_json(&program, late, &bump).unwrap();
        let batch = batch.finish().unwrap();
        let mut general = BatchBuilder::new(&program, &ArrowOptions::default()).unwrap();
        for input in [&json[..], json, late] {
            general
                .append(&program, program.decode_json(input, &bump).unwrap())
                .unwrap();
        }
        assert_eq!(batch, general.finish().unwrap());
    }
}
