//! Many values of one program from one byte stream, in constant memory: [`ValueStream`].
//!
//! Three framings ([`Framing`]): concatenated MessagePack values (each value's end found by a
//! resumable skip-walk, `extent.rs`), MessagePack frames behind a `u32` big-endian length,
//! and NDJSON (one JSON value per line). Bytes are read from any `io::Read` into one buffer
//! that holds at most the value being decoded and one read's worth more (bounded by
//! [`StreamOptions::max_value_bytes`]: a larger value is an error, never a larger buffer), and
//! values are built in one arena reset before each value. A value is decoded once its bytes
//! are complete, so input that arrives in chunks gives exactly the values a one-shot read
//! gives. With length-prefixed frames and NDJSON a bad value is an error with its index and
//! the stream goes on; with concatenated MessagePack it ends there (there is no way to find
//! the next value).
//!
//! ```
//! use tfwire::stream::{Framing, StreamOptions, ValueStream};
//! use tfwire::Program;
//!
//! let program = Program::from_type_json(r#"["object",{"n":"number"}]"#).unwrap();
//! let input = b"{\"n\":1}\n{\"n\":true}\n{\"n\":3}\n";
//! let mut stream = ValueStream::new(&program, &input[..], StreamOptions::new(Framing::Ndjson));
//! let mut seen = Vec::new();
//! while let Some(item) = stream.next_value() {
//!     match item {
//!         Ok(item) => seen.push(format!("{} ok", item.index)),
//!         Err(e) => seen.push(format!("{} {}", e.index(), e)),
//!     }
//! }
//! assert_eq!(seen, ["0 ok", "1 value 1: at .n (byte 5): expected number, found JSON bool", "2 ok"]);
//! ```

mod extent;

use std::fmt;
use std::io::{self, Read};

use bumpalo::Bump;

use crate::error::DecodeError;
use crate::program::{DecodeOptions, Program};
use crate::value::Value;
use extent::{Extent, ExtentScan};

/// How the values of a stream are delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// MessagePack values one after the other.
    Concat,
    /// Each MessagePack value behind its length, a `u32` big-endian.
    LengthPrefixed,
    /// One JSON value per line (`\n`, an optional `\r` before it; blank lines are skipped).
    Ndjson,
}

/// Options of a [`ValueStream`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StreamOptions {
    /// The framing.
    pub framing: Framing,
    /// Options of each value's decode (its `limits` too).
    pub decode: DecodeOptions,
    /// The largest value (frame, line) in bytes; a larger one is an error.
    pub max_value_bytes: usize,
    /// Bytes asked of the reader at a time.
    pub read_size: usize,
}

with_setters!(StreamOptions {
    #[const] with_decode => decode: DecodeOptions,
    #[const] with_max_value_bytes => max_value_bytes: usize,
    #[const] with_read_size => read_size: usize,
});

impl StreamOptions {
    /// The defaults for `framing`: default decode options, values up to 64 MiB, 64 KiB reads.
    pub fn new(framing: Framing) -> StreamOptions {
        StreamOptions {
            framing,
            decode: DecodeOptions::default(),
            max_value_bytes: 64 << 20,
            read_size: 64 << 10,
        }
    }
}

/// A decoded value of the stream and its index (0-based, counting every value, bad ones too).
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    /// The value's index in the stream.
    pub index: u64,
    /// The value; it borrows the stream's buffer and arena until the next call.
    pub value: Value<'a>,
}

/// A value of the stream that could not be read, or the stream's own failure.
#[derive(Debug)]
pub struct StreamError {
    index: u64,
    kind: StreamErrorKind,
}

/// What went wrong (see [`StreamError::kind`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamErrorKind {
    /// The value's bytes are complete but do not decode.
    Decode(DecodeError),
    /// The value is longer than [`StreamOptions::max_value_bytes`] (its claimed or read length).
    TooLarge(u64),
    /// The input ends inside the value (or inside a length prefix).
    Truncated,
    /// Concatenated MessagePack: the reserved byte 0xc1 at this offset of the value.
    Invalid(usize),
    /// The reader failed.
    Io(io::Error),
}

impl StreamError {
    /// The index of the value (the stream's count of values before it).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// What went wrong.
    pub fn kind(&self) -> &StreamErrorKind {
        &self.kind
    }

    /// The value path of a decode error (as [`DecodeError::path`]); empty otherwise.
    pub fn path(&self) -> &str {
        match &self.kind {
            StreamErrorKind::Decode(e) => e.path(),
            _ => "",
        }
    }

    /// The byte offset in the value ([`index`](Self::index) names it) of a decode error or
    /// of a reserved byte; `None` for the other kinds.
    pub fn offset(&self) -> Option<usize> {
        match &self.kind {
            StreamErrorKind::Decode(e) => e.offset(),
            StreamErrorKind::Invalid(at) => Some(*at),
            _ => None,
        }
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "value {}: ", self.index)?;
        match &self.kind {
            StreamErrorKind::Decode(e) => write!(f, "{e}"),
            StreamErrorKind::TooLarge(n) => {
                write!(f, "{n} bytes, more than the largest value allowed")
            }
            StreamErrorKind::Truncated => write!(f, "the input ends inside the value"),
            StreamErrorKind::Invalid(at) => {
                write!(
                    f,
                    "byte {at}: 0xc1 is no MessagePack value; the stream ends here"
                )
            }
            StreamErrorKind::Io(e) => write!(f, "read error: {e}"),
        }
    }
}

impl std::error::Error for StreamError {
    /// The decode error or the reader's error behind this one.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            StreamErrorKind::Decode(e) => Some(e),
            StreamErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Values of one program read from `R`, one at a time ([`ValueStream::next_value`], a
/// lending iterator: each value borrows the stream until the next call).
pub struct ValueStream<'p, R> {
    program: &'p Program,
    reader: R,
    options: StreamOptions,
    /// Bytes read and not yet consumed: `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    bump: Bump,
    index: u64,
    eof: bool,
    done: bool,
}

impl<'p, R: Read> ValueStream<'p, R> {
    /// A stream of `program`'s values over `reader`.
    pub fn new(program: &'p Program, reader: R, options: StreamOptions) -> ValueStream<'p, R> {
        ValueStream {
            program,
            reader,
            options,
            buf: Vec::new(),
            start: 0,
            bump: Bump::new(),
            index: 0,
            eof: false,
            done: false,
        }
    }

    /// The next value, an error naming the value it is about, or `None` at the end.
    #[allow(clippy::should_implement_trait)]
    pub fn next_value(&mut self) -> Option<Result<Item<'_>, StreamError>> {
        if self.done {
            return None;
        }
        // The previous value's bytes and arena are free now.
        self.bump.reset();
        let frame = match self.options.framing {
            Framing::Concat => self.concat_frame(),
            Framing::LengthPrefixed => self.prefixed_frame(),
            Framing::Ndjson => self.line_frame(),
        };
        let index = self.index;
        let (from, to) = match frame {
            Ok(Some(range)) => range,
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err(kind) => {
                self.index = self.index.saturating_add(1);
                // Only a bad line or frame can be stepped over (its end is known: the
                // frame functions consumed it); anything else ends the stream.
                let fatal = !matches!(kind, StreamErrorKind::TooLarge(_))
                    || self.options.framing == Framing::Concat;
                self.done |= fatal;
                return Some(Err(StreamError { index, kind }));
            }
        };
        self.index = self.index.saturating_add(1);
        let bytes = self.buf.get(from..to).unwrap_or_default();
        let decoded = match self.options.framing {
            Framing::Ndjson => {
                self.program
                    .decode_json_with(bytes, &self.bump, &self.options.decode)
            }
            _ => self
                .program
                .decode_msgpack_with(bytes, &self.bump, &self.options.decode),
        };
        match decoded {
            Ok(value) => Some(Ok(Item { index, value })),
            Err(e) => {
                self.done |= self.options.framing == Framing::Concat;
                Some(Err(StreamError {
                    index,
                    kind: StreamErrorKind::Decode(e),
                }))
            }
        }
    }

    /// Reads once more into the buffer, first moving the unconsumed bytes to its front.
    /// `Ok(false)` at the end of the input.
    fn fill(&mut self) -> Result<bool, StreamErrorKind> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let have = self.buf.len();
        self.buf
            .resize(have.saturating_add(self.options.read_size.max(1)), 0);
        loop {
            let got = match self.buf.get_mut(have..) {
                Some(room) => self.reader.read(room),
                None => Ok(0),
            };
            match got {
                Ok(n) => {
                    self.buf.truncate(have.saturating_add(n));
                    self.eof = n == 0;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.buf.truncate(have);
                    return Err(StreamErrorKind::Io(e));
                }
            }
        }
    }

    /// Unconsumed bytes.
    fn pending(&self) -> &[u8] {
        self.buf.get(self.start..).unwrap_or_default()
    }

    fn too_large(&self, n: usize) -> bool {
        n > self.options.max_value_bytes
    }

    /// The next concatenated value's range in the buffer (consumed).
    fn concat_frame(&mut self) -> Result<Option<(usize, usize)>, StreamErrorKind> {
        let mut scan = ExtentScan::new();
        loop {
            match scan.resume(self.pending()) {
                Extent::Complete(n) => {
                    let from = self.start;
                    self.start = self.start.saturating_add(n);
                    return Ok(Some((from, self.start)));
                }
                Extent::Invalid(at) => return Err(StreamErrorKind::Invalid(at)),
                Extent::Incomplete => {
                    let have = self.pending().len();
                    if self.too_large(have) {
                        return Err(StreamErrorKind::TooLarge(have as u64));
                    }
                    if !self.fill()? {
                        return if have == 0 {
                            Ok(None)
                        } else {
                            Err(StreamErrorKind::Truncated)
                        };
                    }
                }
            }
        }
    }

    /// The next length-prefixed frame's range (consumed; a frame too large is skipped by
    /// reading its bytes away, at most one read at a time).
    fn prefixed_frame(&mut self) -> Result<Option<(usize, usize)>, StreamErrorKind> {
        while self.pending().len() < 4 {
            let have = self.pending().len();
            if !self.fill()? {
                return if have == 0 {
                    Ok(None)
                } else {
                    Err(StreamErrorKind::Truncated)
                };
            }
        }
        let head = self
            .pending()
            .first_chunk::<4>()
            .copied()
            .unwrap_or_default();
        let n = u32::from_be_bytes(head) as usize;
        if self.too_large(n) {
            // Step over the frame without holding it: a bad frame, not the end.
            self.start = self.start.saturating_add(4);
            let mut left = n;
            while left > 0 {
                let here = self.pending().len().min(left);
                self.start = self.start.saturating_add(here);
                left = left.saturating_sub(here);
                if left > 0 && !self.fill()? {
                    self.done = true;
                    break;
                }
            }
            return Err(StreamErrorKind::TooLarge(n as u64));
        }
        while self.pending().len() < n.saturating_add(4) {
            if !self.fill()? {
                self.done = true;
                return Err(StreamErrorKind::Truncated);
            }
        }
        let from = self.start.saturating_add(4);
        self.start = from.saturating_add(n);
        Ok(Some((from, self.start)))
    }

    /// The next non-blank line's range, without its `\r\n` (consumed; a line too long is
    /// skipped up to its newline).
    fn line_frame(&mut self) -> Result<Option<(usize, usize)>, StreamErrorKind> {
        let mut searched = 0;
        loop {
            let rest = self.pending();
            if let Some(i) = memchr::memchr(b'\n', rest.get(searched..).unwrap_or_default()) {
                // (Positions inside the buffer: these sums and differences stay in it.)
                let len = searched.saturating_add(i);
                let from = self.start;
                let past_line = from.saturating_add(len);
                self.start = past_line.saturating_add(1);
                let line = self.buf.get(from..past_line).unwrap_or_default();
                let end = past_line.saturating_sub(usize::from(line.last() == Some(&b'\r')));
                if self
                    .buf
                    .get(from..end)
                    .unwrap_or_default()
                    .iter()
                    .all(u8::is_ascii_whitespace)
                {
                    searched = 0;
                    continue;
                }
                let len = end.saturating_sub(from);
                if self.too_large(len) {
                    return Err(StreamErrorKind::TooLarge(len as u64));
                }
                return Ok(Some((from, end)));
            }
            searched = rest.len();
            if self.too_large(searched) {
                // Drop what there is of the line and the rest of it up to its newline.
                let long = self.skip_line()?;
                return Err(StreamErrorKind::TooLarge(long));
            }
            if !self.fill()? {
                let rest = self.pending();
                if rest.iter().all(u8::is_ascii_whitespace) {
                    return Ok(None);
                }
                // The last line has no newline: it is a value all the same.
                let from = self.start;
                let end = self.buf.len();
                self.start = end;
                return Ok(Some((from, end)));
            }
        }
    }

    /// Consumes the current line up to and including its newline; returns its length.
    fn skip_line(&mut self) -> Result<u64, StreamErrorKind> {
        let mut skipped = 0u64;
        loop {
            let rest = self.pending();
            if let Some(i) = memchr::memchr(b'\n', rest) {
                self.start = self.start.saturating_add(i).saturating_add(1);
                return Ok(skipped.saturating_add(i as u64));
            }
            skipped = skipped.saturating_add(rest.len() as u64);
            self.start = self.buf.len();
            if !self.fill()? {
                return Ok(skipped);
            }
        }
    }
}
