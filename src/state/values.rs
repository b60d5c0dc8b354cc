//! The state reader's value reads and errors: one JSON value of the envelope at a position
//! (a key and its colon, an optional string or number, an `index_key`, a literal, a
//! validated skip, an attributes object delimited or skipped) for the units of
//! `envelope.rs`, and where in the state an error is ([`Ctx`]), with the messages of
//! [`Stop::Fail`].

use super::envelope::{Stop, Unit, Walk};
use super::keys;
use super::{IndexKey, StateError};
use crate::decode::json::plain::plain_string;
use crate::decode::json::tokens;
use crate::error::{DecodeError, ErrorKind};

impl<'u> Unit<'u> {
    /// `index_key`: a string, an integer or null.
    pub(super) fn index_key(&self, v: usize, ctx: Ctx) -> Result<(Option<IndexKey>, usize), Stop> {
        match self.buf.get(v) {
            Some(b'"') => {
                let (s, end) = self.opt_string(v, ctx, "index_key")?;
                Ok((s.map(|s| IndexKey::String(s.to_string())), end))
            }
            Some(b'n') => Ok((None, self.literal(v, b"null")?)),
            _ => {
                let end = self.skip(v)?;
                let text = self.buf.get(v..end).unwrap_or_default();
                let text = String::from_utf8_lossy(text);
                match text.parse::<i64>() {
                    Ok(n) => Ok((Some(IndexKey::Int(n)), end)),
                    Err(_) => Err(self.fail(
                        ctx,
                        v,
                        format_args!("index_key: expected a string or an integer, found {text}"),
                    )),
                }
            }
        }
    }

    /// A key at `i` and its colon: the key and the position of its value. (Inlined, as
    /// [`Unit::separator`].)
    #[inline(always)]
    pub(super) fn key(&self, i: usize) -> Result<(&'u str, usize), Stop> {
        let (k, v) = match keys::known_key(self.buf, i) {
            Some(known) => known,
            None => tokens::key(self.buf, i, self.scratch).map_err(|e| self.settle(&e, i))?,
        };
        let v = tokens::ws(self.buf, v);
        match self.buf.get(v) {
            None => Err(self.eof(v)),
            Some(_) => Ok((k, v)),
        }
    }

    /// A string or null at `v`. (Inlined, as [`Unit::separator`].)
    #[inline(always)]
    pub(super) fn opt_string(
        &self,
        v: usize,
        ctx: Ctx,
        key: &str,
    ) -> Result<(Option<&'u str>, usize), Stop> {
        match self.buf.get(v) {
            Some(b'n') => Ok((None, self.literal(v, b"null")?)),
            Some(b'"') => {
                let (s, end) = match tokens::plain_string(self.buf, v) {
                    Some(plain) => plain,
                    None => {
                        tokens::string(self.buf, v, self.scratch).map_err(|e| self.settle(&e, v))?
                    }
                };
                Ok((Some(s), end))
            }
            _ => {
                self.skip(v)?;
                Err(self.fail(ctx, v, format_args!("{key}: expected a string")))
            }
        }
    }

    /// A number or null at `v`: its text.
    pub(super) fn opt_number(
        &self,
        v: usize,
        ctx: Ctx,
        key: &str,
    ) -> Result<(Option<&'u str>, usize), Stop> {
        match self.buf.get(v) {
            Some(b'n') => Ok((None, self.literal(v, b"null")?)),
            // (One digit, then the instance's next key or its end: `"schema_version":0,`.)
            Some(&d @ b'0'..=b'9')
                if matches!(self.buf.get(v.wrapping_add(1)), Some(b',' | b'}')) =>
            {
                let digit = DIGITS.get(usize::from(d.wrapping_sub(b'0'))).copied();
                Ok((digit, v.wrapping_add(1)))
            }
            Some(b'-' | b'0'..=b'9') => {
                let (text, end) = tokens::number(self.buf, v).map_err(|e| self.settle(&e, v))?;
                if end == self.buf.len() && self.more {
                    return Err(Stop::More);
                }
                Ok((Some(text), end))
            }
            _ => {
                self.skip(v)?;
                Err(self.fail(ctx, v, format_args!("{key}: expected a number")))
            }
        }
    }

    pub(super) fn literal(&self, v: usize, word: &'static [u8]) -> Result<usize, Stop> {
        let end = tokens::literal(self.buf, v, word).map_err(|e| self.settle(&e, v))?;
        self.not_at_end(end)
    }

    /// Skips the value at `v` (validating it). (Inlined, as [`Unit::separator`].)
    #[inline(always)]
    pub(super) fn skip(&self, v: usize) -> Result<usize, Stop> {
        if let Some(end) = plain_value_end(self.buf, v) {
            return Ok(end);
        }
        let end = tokens::skip(self.buf, v, self.scratch).map_err(|e| self.settle(&e, v))?;
        self.not_at_end(end)
    }

    /// A value ending where the buffer ends may go on (a number's digits, a word's letters)
    /// when more input follows.
    pub(super) fn not_at_end(&self, end: usize) -> Result<usize, Stop> {
        if end >= self.buf.len() && self.more {
            return Err(Stop::More);
        }
        Ok(end)
    }

    /// A JSON error in the value at `v`: more input needed when the buffer cut it short.
    pub(super) fn settle(&self, e: &DecodeError, v: usize) -> Stop {
        if self.more
            && (e.kind() == ErrorKind::Eof || !tokens::is_complete(self.buf, v, self.scratch))
        {
            return Stop::More;
        }
        self.json_error(0, e)
    }

    /// A JSON error at offset `e.byte()` from `at` in the buffer.
    pub(super) fn json_error(&self, at: usize, e: &DecodeError) -> Stop {
        if self.more && e.kind() == ErrorKind::Eof {
            return Stop::More;
        }
        Stop::Fail(self.syntax(at.saturating_add(e.byte()), e.message()))
    }

    /// Invalid JSON at `i` in the buffer: where in the state (the top level is "not a state
    /// file") and the file offset.
    #[cold]
    pub(super) fn syntax(&self, i: usize, what: &str) -> StateError {
        let offset = Some(self.base.saturating_add(i as u64));
        match self.at.get() {
            Ctx::State => StateError::at(
                "",
                offset,
                format_args!("not a state file: invalid JSON: {what}"),
            ),
            ctx => StateError::at(ctx, offset, format_args!("invalid JSON: {what}")),
        }
    }

    /// A well-formed value at `i` in the buffer that is wrong where it is.
    #[cold]
    pub(super) fn fail(&self, ctx: Ctx, i: usize, msg: impl std::fmt::Display) -> Stop {
        Stop::Fail(StateError::at(
            ctx,
            Some(self.base.saturating_add(i as u64)),
            msg,
        ))
    }

    /// The buffer ended at `i`.
    pub(super) fn eof(&self, i: usize) -> Stop {
        if self.more {
            return Stop::More;
        }
        Stop::Fail(self.syntax(i, "unexpected end of input"))
    }
}

/// Where in the envelope an error is (formatted only when one happens).
#[derive(Clone, Copy)]
pub(super) enum Ctx {
    /// The top-level object.
    State,
    /// The `resources` array, between resources.
    Resources,
    Resource(u64),
    /// A resource's `instances` array, between instances.
    Instances(u64),
    Instance(u64, u64),
    /// An instance's `attributes` value.
    Attributes(u64, u64),
}

impl std::fmt::Display for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ctx::State => Ok(()),
            Ctx::Resources => f.write_str(".resources"),
            Ctx::Resource(r) => write!(f, ".resources[{r}]"),
            Ctx::Instances(r) => write!(f, ".resources[{r}].instances"),
            Ctx::Instance(r, i) => write!(f, ".resources[{r}].instances[{i}]"),
            Ctx::Attributes(r, i) => write!(f, ".resources[{r}].instances[{i}].attributes"),
        }
    }
}

/// The error of an attributes object the walk only delimited (`bytes`, at `offset` in the
/// file, of instance `instance` of resource `resource`), as the checking skip finds it over
/// the same bytes (its stack in `scratch`) — where the one-thread walk's decode of them
/// fails; `None` when they are one JSON value.
pub(super) fn attributes_fault(
    bytes: &[u8],
    offset: u64,
    resource: u64,
    instance: u64,
    scratch: &bumpalo::Bump,
) -> Option<StateError> {
    let (byte, message) = match tokens::skip(bytes, 0, scratch) {
        Err(e) => (e.byte(), e.message().to_string()),
        Ok(end) if end == bytes.len() => return None,
        Ok(end) => (end, "not one JSON value".to_string()),
    };
    Some(StateError::at(
        Ctx::Attributes(resource, instance),
        Some(offset.saturating_add(byte as u64)),
        format_args!("invalid JSON: {message}"),
    ))
}

pub(super) fn err(ctx: Ctx, msg: impl std::fmt::Display) -> StateError {
    StateError::at(ctx, None, msg)
}

/// The attributes' JSON text, which the decode or the validating skip has just read whole.
///
/// # Safety
/// `text` is valid UTF-8: one JSON value that a decode, a validating skip or the straight
/// DUMP read through to its end (its structure and whitespace are ASCII, and every string in
/// it, keys too, was checked as UTF-8: by `string_body` / `check_string_body`, or by the
/// straight DUMP's `dump_string` / `plain_string`, its runs' plain ASCII strings and its keys
/// compared with the schema's names).
pub(super) unsafe fn attributes_text(text: &[u8]) -> &str {
    debug_assert!(std::str::from_utf8(text).is_ok());
    // SAFETY: the caller's contract.
    unsafe { std::str::from_utf8_unchecked(text) }
}

impl Unit<'_> {
    /// The end of the attributes object at `v` found without checking it (brackets counted
    /// outside strings); when it is not delimited so (cut short), the checking skip says why.
    pub(super) fn delimit_attributes(
        &self,
        v: usize,
        walk: &Walk,
        ctx: Ctx,
    ) -> Result<usize, Stop> {
        match tokens::object_end_counted(self.buf, v) {
            Some(end) => Ok(end),
            None => self.skip_attributes(v, walk, ctx),
        }
    }

    /// The checking skip of the attributes value at `v`, its errors placed in the attributes
    /// of the instance (`ctx` is the instance's).
    pub(super) fn skip_attributes(&self, v: usize, walk: &Walk, ctx: Ctx) -> Result<usize, Stop> {
        self.at
            .set(Ctx::Attributes(walk.resource_index, walk.instance_index));
        let end = self.skip(v)?;
        self.at.set(ctx);
        Ok(end)
    }
}

/// The text of each one-digit number.
const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

/// The end of the value at `at` when it is one of the small values an instance's other keys
/// hold, read here without the validating skip's set-up (its counted scan and its stack cost
/// hundreds of instructions a call: F38): a string without escapes (`private`, any length,
/// its UTF-8 checked), or an array of such strings (`dependencies`, the empty
/// `sensitive_attributes`), compact or indented; `None` for anything else, which the skip
/// reads (and names, if faulty). Both end with a closing byte, so no more input could extend
/// them.
#[inline(always)]
fn plain_value_end(buf: &[u8], at: usize) -> Option<usize> {
    match buf.get(at)? {
        b'"' => plain_string(buf, at).map(|(_, end)| end),
        b'[' => {
            // (Whitespace between the tokens too: Terraform's indented states write
            // `dependencies` one string a line.)
            let mut i = tokens::ws(buf, at.wrapping_add(1));
            if buf.get(i) == Some(&b']') {
                return Some(i.wrapping_add(1));
            }
            loop {
                let (_, end) = plain_string(buf, i)?;
                let end = tokens::ws(buf, end);
                match buf.get(end)? {
                    b',' => i = tokens::ws(buf, end.wrapping_add(1)),
                    b']' => return Some(end.wrapping_add(1)),
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The small values read without the skip end where the validating skip ends them, with
    /// whitespace or without; any other value, or one faulty or cut, is left to the skip.
    #[test]
    fn plain_values_end_where_the_skip_ends_them() {
        let scratch = bumpalo::Bump::new();
        let long = format!("\"{}\"", "eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ==".repeat(3));
        let taken = [
            r#""""#,
            r#""x""#,
            long.as_str(),
            "\"caf\u{e9}\"",
            "[]",
            r#"["aws_vpc.main"]"#,
            r#"["aws_vpc.main","aws_subnet.a","data.aws_ami.x"]"#,
            "[ ]",
            r#"["a", "b"]"#,
            "[\n  \"aws_vpc.main\",\n  \"aws_subnet.a\"\n]",
            "[\r\n\t\"a\" ,\n\n \"b\" ]",
        ];
        for value in taken {
            let buf = format!("{value},\"next\":1}}");
            let end = plain_value_end(buf.as_bytes(), 0);
            assert_eq!(end, Some(value.len()), "{value}");
            assert_eq!(
                tokens::skip(buf.as_bytes(), 0, &scratch).ok(),
                end,
                "{value}"
            );
        }
        let left = [
            r#""a\"b""#,
            r#""a\u0041""#,
            "\"tab\t\"",
            r#"["a",1]"#,
            r#"["a" 1]"#,
            "[\n  \"a\",\n]",
            "[\n",
            "[\"a\"\n",
            "[ ",
            "[\"a\", ",
            "[\n  \"a\",\n  ",
            r#"["a",]"#,
            r#"[["a"]]"#,
            r#"["a""#,
            r#""open"#,
            "[",
            "null",
            "{}",
            "7",
        ];
        for value in left {
            assert_eq!(plain_value_end(value.as_bytes(), 0), None, "{value}");
        }
        // Not UTF-8: left to the skip, which names it.
        assert_eq!(plain_value_end(b"\"\xff\"", 0), None);
        assert_eq!(plain_value_end(b"[\"\xc3\"]", 0), None);
    }
}
