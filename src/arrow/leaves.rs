//! The leaf columns' buffers (`Utf8`, `Float64`, `Boolean`), and list offsets: appended to inline and
//! truncated back to a row count, which the rows decoded straight into the columns
//! (`rows.rs`) need when one of them gives up half-way; arrow's own builders cannot be
//! truncated. The arrays are assembled with `try_new` from the buffers.

use arrow_array::{BooleanArray, Float64Array, StringArray};
use arrow_buffer::bit_chunk_iterator::UnalignedBitChunk;
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::ArrowError;

use super::notes::too_large;

/// A `Utf8` column: the strings' bytes, each one's end, and the nulls.
pub(super) struct Texts {
    bytes: Vec<u8>,
    /// Each string's end in `bytes`, after a leading 0.
    ends: Vec<i32>,
    nulls: NullBufferBuilder,
    /// The first value past `i32::MAX` bytes, if one is: [`Texts::finish`] fails.
    too_long: Option<usize>,
}

impl Texts {
    pub(super) fn new() -> Texts {
        Texts {
            bytes: Vec::new(),
            ends: vec![0],
            nulls: NullBufferBuilder::new(0),
            too_long: None,
        }
    }

    /// Appends `s` (past 2³¹ bytes in one column, Arrow's `i32` offsets, the column's
    /// [`Texts::finish`] is an error).
    #[inline]
    pub(super) fn append(&mut self, s: &str) {
        self.append_checked(s.as_bytes());
    }

    /// Appends bytes the caller has checked are UTF-8 (the array's `try_new` checks them
    /// again).
    #[inline]
    pub(super) fn append_checked(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
        let end = i32::try_from(self.bytes.len()).unwrap_or_else(|_| {
            self.too_long = self.too_long.or(Some(self.ends.len().saturating_sub(1)));
            i32::MAX
        });
        self.ends.push(end);
        self.nulls.append_non_null();
    }

    #[inline]
    pub(super) fn append_null(&mut self) {
        let end = self.ends.last().copied().unwrap_or(0);
        self.ends.push(end);
        self.nulls.append_null();
    }

    /// Values appended (the rows of a column, the entries of a map's keys).
    pub(super) fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Keeps the first `n` values.
    pub(super) fn truncate(&mut self, n: usize) {
        if n < self.len() {
            self.ends.truncate(n.saturating_add(1));
            let end = self.ends.last().copied().unwrap_or(0);
            self.bytes.truncate(usize::try_from(end).unwrap_or(0));
            truncate_nulls(&mut self.nulls, n);
            // (The values kept end where they did: a value past the limit among them still
            // fails the column; one after them no longer does.)
            self.too_long = self.too_long.filter(|&k| k < n);
        }
    }

    /// The array; the column starts again empty.
    pub(super) fn finish(&mut self) -> Result<StringArray, ArrowError> {
        if self.too_long.is_some() {
            *self = Texts::new();
            return Err(too_large());
        }
        let ends = std::mem::replace(&mut self.ends, vec![0]);
        let bytes = std::mem::take(&mut self.bytes);
        StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(ends)),
            Buffer::from_vec(bytes),
            self.nulls.finish(),
        )
    }
}

/// A `Float64` column.
pub(super) struct Floats {
    values: Vec<f64>,
    nulls: NullBufferBuilder,
}

impl Floats {
    pub(super) fn new() -> Floats {
        Floats {
            values: Vec::new(),
            nulls: NullBufferBuilder::new(0),
        }
    }

    #[inline]
    pub(super) fn append(&mut self, x: f64) {
        self.values.push(x);
        self.nulls.append_non_null();
    }

    #[inline]
    pub(super) fn append_null(&mut self) {
        self.values.push(0.0);
        self.nulls.append_null();
    }

    pub(super) fn truncate(&mut self, n: usize) {
        self.values.truncate(n);
        truncate_nulls(&mut self.nulls, n);
    }

    pub(super) fn finish(&mut self) -> Result<Float64Array, ArrowError> {
        let values = ScalarBuffer::from(std::mem::take(&mut self.values));
        Float64Array::try_new(values, self.nulls.finish())
    }
}

/// A `Boolean` column.
pub(super) struct Bools {
    values: BooleanBufferBuilder,
    nulls: NullBufferBuilder,
}

impl Bools {
    pub(super) fn new() -> Bools {
        Bools {
            values: BooleanBufferBuilder::new(0),
            nulls: NullBufferBuilder::new(0),
        }
    }

    #[inline]
    pub(super) fn append(&mut self, x: bool) {
        self.values.append(x);
        self.nulls.append_non_null();
    }

    #[inline]
    pub(super) fn append_null(&mut self) {
        self.values.append(false);
        self.nulls.append_null();
    }

    pub(super) fn truncate(&mut self, n: usize) {
        self.values.truncate(n);
        truncate_nulls(&mut self.nulls, n);
    }

    pub(super) fn finish(&mut self) -> BooleanArray {
        BooleanArray::new(self.values.finish(), self.nulls.finish())
    }
}

/// Keeps the first `n` entries of `nulls`, and no validity bitmap when none of them is null
/// (as a builder that never saw the nulls cut off: `NullBufferBuilder::truncate` keeps the
/// bitmap, and a batch would carry an all-valid one where the general way has none).
pub(super) fn truncate_nulls(nulls: &mut NullBufferBuilder, n: usize) {
    nulls.truncate(n);
    let all_valid = nulls
        .as_slice()
        .is_some_and(|bits| UnalignedBitChunk::new(bits, 0, n).count_ones() == n);
    if all_valid {
        *nulls = NullBufferBuilder::new(0);
        nulls.append_n_non_nulls(n);
    }
}

/// Ends a list or map column's row (item, entry) of `n` items: its end offset, `n` after
/// the last, and not null; `None` past Arrow's `i32` offsets.
#[inline(always)]
pub(super) fn end_items(
    offsets: &mut Vec<i32>,
    nulls: &mut NullBufferBuilder,
    n: usize,
) -> Option<()> {
    let last = offsets.last().copied().unwrap_or(0);
    offsets.push(last.checked_add(i32::try_from(n).ok()?)?);
    nulls.append_non_null();
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn truncated_columns_keep_their_first_values() {
        let mut t = Texts::new();
        t.append("ab");
        t.append_null();
        t.append("cde");
        t.truncate(2);
        t.append("f");
        let a = t.finish().unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!((a.value(0), a.is_null(1), a.value(2)), ("ab", true, "f"));
        assert_eq!(a.value_data(), b"abf");

        let mut f = Floats::new();
        f.append(1.5);
        f.append_null();
        f.truncate(1);
        f.append(2.0);
        let a = f.finish().unwrap();
        assert_eq!(
            (a.len(), a.value(0), a.value(1), a.null_count()),
            (2, 1.5, 2.0, 0)
        );

        let mut b = Bools::new();
        b.append(true);
        b.append(false);
        b.append_null();
        b.truncate(1);
        b.append_null();
        let a = b.finish();
        assert_eq!((a.len(), a.value(0), a.is_null(1)), (2, true, true));
    }
}
