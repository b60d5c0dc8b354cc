//! The DUMP straight from JSON input, without building the value: [`StraightDump`], made
//! once from an object type, checks that a JSON value is of that type *as go-cty writes it*
//! and writes its DUMP, which is then the input without its whitespace but for a few
//! pieces written as the DUMP writes them.
//!
//! As go-cty writes it: objects of the type's attributes in the type's order (the DUMP's
//! order too) under keys without escapes, where an attribute left out is written
//! `"name":null` (as the decode reads it and the DUMP writes it); strings, copied when their
//! escapes are those the DUMP writes back the same (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
//! `\t`), else unescaped and written as the DUMP writes them; numbers whose text the DUMP
//! keeps (`normalize_decimal`: integers, and fractions and exponents as go-cty writes
//! them); `true`, `false`, `null`; lists and sets (items in order: the decoders keep a set's
//! items as they come); maps with their keys, without escapes, in increasing byte order and
//! none repeated (the DUMP sorts keys, and of repeated ones keeps the last); `null` for a
//! `dynamic` or tuple value. Anything else — a key out of order or not the type's, a number
//! the DUMP writes otherwise, a map key escaped, a fault — gives up, and the caller decodes
//! the value and writes its DUMP the general way, which reads it (or names its fault with
//! path and offset). The decode's default limits are checked as the decode checks them
//! (the arena bytes its containers would take above all: an object costs every attribute of
//! its type, whatever the input holds), so what this writes is the general way's DUMP, and
//! only where the general way succeeds.

use std::cell::Cell;

use bumpalo::Bump;

use crate::decode::json::pairs::Inlined;
use crate::decode::json::plain::{
    boolean, dump_string, null, plain_integer, plain_string, skip_ws, skip_ws_indented,
};
use crate::decode::json::tokens;
use crate::limits::Limits;
use crate::number::normalize_decimal;
use crate::program::key::AttrEntry;
use crate::program::{DecodeOptions, Program};
use crate::schema::Type;
use crate::spare::Spare;
use crate::value::Value;

use super::straight_run::{compact_run, Node, Run};

/// The arena bytes the decode charges for a value slot of a list, set or object (every
/// attribute of the type) and for a map entry ([`Limits::max_arena_bytes`]).
const VALUE: u64 = std::mem::size_of::<Value<'static>>() as u64;
const ENTRY: u64 = std::mem::size_of::<(&str, Value<'static>)>() as u64;

/// The deepest type written straight (containers, the root object one of them): deeper
/// than any provider schema nests, and shallow enough for the recursion to fit a 1 MiB
/// thread stack in a debug build (`the_deepest_values_fit_a_small_stack`); values of a
/// deeper type are decoded.
const MAX_STRAIGHT_DEPTH: usize = 128;

/// The runs of input copied as a fixed-size copy ([`Minify::flush`]).
const SHORT_RUN: usize = 32;

/// The straight DUMP of one program's object type (see the module docs).
pub(crate) struct StraightDump {
    root: Node,
    /// The containers nested in the type's values, the root object counting one.
    depth: usize,
}

impl std::fmt::Debug for StraightDump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StraightDump")
    }
}

impl StraightDump {
    /// For `program` when its type is an object type nested no deeper than
    /// [`MAX_STRAIGHT_DEPTH`] and it is not a projection (whose picks keep only some
    /// elements).
    pub(crate) fn new(program: &Program) -> Option<StraightDump> {
        let ty = program.root_type();
        if program.code.projected || !matches!(ty, Type::Object(_)) {
            return None;
        }
        let (root, depth) = node(ty, MAX_STRAIGHT_DEPTH)?;
        Some(StraightDump { root, depth })
    }

    /// Whether a decode with `options` reads what this takes as this reads it: block item
    /// counts unchecked, and no value of the type nested deeper than `max_depth` (attributes
    /// the type lacks may be stepped over or not: this takes none). The other limits are
    /// checked as the values are read ([`StraightDump::take`]).
    pub(crate) fn applies(&self, options: &DecodeOptions) -> bool {
        !options.check_item_counts && self.depth <= options.limits.max_depth as usize
    }

    /// The DUMP of the JSON value at the start of `buf` (which may hold more after it),
    /// written into `bump` (or, when it is the input as it is, given as its range of `buf`:
    /// [`Taken::Input`]), when the value is as go-cty writes it and within the limits of
    /// `options` (as the decode checks them; the dump must [apply](StraightDump::applies) to
    /// `options`), and the position after the value; else whether that decode refuses the
    /// value too ([`Taken`]).
    pub(crate) fn take<'a>(
        &self,
        buf: &[u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Taken<'a> {
        match self.write(buf, bump, &options.limits) {
            Ok(Dump::Written(text, end)) => Taken::Written(text, end),
            Ok(Dump::Input(start, end)) => Taken::Input(start, end),
            Err(Unknown(true)) if !options.skip_unknown_attributes => Taken::Refused,
            Err(_) => Taken::GaveUp,
        }
    }

    /// [`StraightDump::take`]'s DUMP and end under `limits`, `None` when it gives up.
    #[cfg(test)]
    pub(crate) fn write_prefix<'a>(
        &self,
        buf: &'a [u8],
        bump: &'a Bump,
        limits: &Limits,
    ) -> Option<(&'a str, usize)> {
        match self.write(buf, bump, limits).ok()? {
            Dump::Written(text, end) => Some((text, end)),
            Dump::Input(start, end) => Some((std::str::from_utf8(buf.get(start..end)?).ok()?, end)),
        }
    }

    fn write<'a>(&self, buf: &[u8], bump: &'a Bump, limits: &Limits) -> Result<Dump<'a>, Unknown> {
        let start = skip_ws(buf, 0);
        let mut w = Minify {
            buf,
            out: OUT.take(),
            copied: start,
            scratch: String::new(),
            rewritten: String::new(),
            limits,
            arena: 0,
            values: 0,
            unknown: false,
            compact: true,
            classifier: Inlined::current(),
        };
        w.out.clear();
        let written = match w.value(&self.root, start) {
            // Nothing written and nothing left out: the DUMP is the input as it is (compact,
            // as go-cty writes it), which the caller takes from its own text, uncopied.
            Some(end) if w.out.is_empty() && w.copied == start => Ok(Dump::Input(start, end)),
            Some(end) => match w.flush(end) {
                // (Checked once, whole: runs cut at token boundaries of checked JSON are
                // whole characters, so this never fails.)
                Some(()) => simdutf8::basic::from_utf8(&w.out)
                    .map(|text| Dump::Written(&*bump.alloc_str(text), end))
                    .map_err(|_| Unknown(false)),
                None => Err(Unknown(w.unknown)),
            },
            None => Err(Unknown(w.unknown)),
        };
        let out = std::mem::take(&mut w.out);
        if out.capacity() <= KEPT_OUT {
            OUT.set(out);
        }
        written
    }
}

/// What [`StraightDump::write`] wrote.
enum Dump<'a> {
    /// The DUMP, and the position after the value.
    Written(&'a str, usize),
    /// The DUMP is the input's bytes `start..end` (`end` after the value).
    Input(usize, usize),
}

/// The most bytes of a thread's [`OUT`] kept for its next DUMP.
const KEPT_OUT: usize = 1 << 20;

thread_local! {
    /// Each thread's DUMP as it is written, kept for the next one (up to [`KEPT_OUT`]
    /// bytes), then copied into the caller's arena: a `Vec` whose short copies the compiler
    /// writes inline ([`Minify::flush`]).
    static OUT: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// What [`StraightDump::take`] made of a value.
#[derive(Debug)]
pub(crate) enum Taken<'a> {
    /// The DUMP, and the position after the value.
    Written(&'a str, usize),
    /// The DUMP is the input's bytes `start..end` as they are (`end` after the value): the
    /// input is compact and as go-cty writes it, no attribute left out. The caller takes the
    /// DUMP from its own text of the input, uncopied.
    Input(usize, usize),
    /// Given up where the decode fails too: at a key of an object that names none of its
    /// type's attributes, spelled without escapes (so its bytes are the name the decode
    /// looks up), which a decode that does not step over unknown attributes refuses.
    Refused,
    /// Given up: the decode reads the value its own way (or names its fault).
    GaveUp,
}

/// Why the straight DUMP gave up: `true` at a key no attribute of its object has
/// ([`Taken::Refused`]).
struct Unknown(bool);

/// The node of `ty` and the containers nested in its values, when it can be read straight
/// and they are at most `room` (the walk stops there: a deeper type is not walked whole).
fn node(ty: &Type, room: usize) -> Option<(Node, usize)> {
    let inner = room.checked_sub(1);
    let (n, below) = match ty {
        Type::String => return Some((Node::String, 0)),
        Type::Number => return Some((Node::Number, 0)),
        Type::Bool => return Some((Node::Bool, 0)),
        Type::Dynamic | Type::Tuple(_) => return Some((Node::NullOnly, 0)),
        Type::List(t) | Type::Set(t) => {
            let (n, d) = node(t, inner?)?;
            (Node::Items(Box::new(n)), d)
        }
        Type::Map(t) => {
            let (n, d) = node(t, inner?)?;
            (Node::Map(Box::new(n)), d)
        }
        Type::Object(o) => {
            let inner = inner?;
            let mut deepest = 0;
            let mut attrs = Vec::with_capacity(o.attrs().len());
            for (name, t) in o.attrs() {
                let (n, d) = node(t, inner)?;
                deepest = deepest.max(d);
                attrs.push((AttrEntry::key_only(name), n));
            }
            (Node::Object(attrs.into_boxed_slice()), deepest)
        }
    };
    Some((n, below.saturating_add(1)))
}

/// The attribute whose key is at `i`, one of `attrs` from `next` on: its index, the position
/// after the key's colon, and whether whitespace came before the colon (go-cty's compact
/// `"name":` is matched in one compare).
#[inline(always)]
fn attribute_key(
    buf: &[u8],
    attrs: &[(AttrEntry, Node)],
    next: usize,
    i: usize,
) -> Option<(usize, usize, bool)> {
    let rest = attrs.get(next..)?;
    rest.iter().enumerate().find_map(|(k, (key, _))| {
        let (after, spaced) = match key.match_json_compact(buf, i) {
            Some(after) => (after, false),
            None => (key.match_json(buf, i)?, true),
        };
        Some((next.wrapping_add(k), after, spaced))
    })
}

/// True when the key at `i` is a whole JSON string without escapes naming none of `attrs`
/// (whose keys without escapes are their names' bytes): the decode refuses it as an
/// unknown attribute (unless it steps over those). A key escaped, cut by the buffer's end
/// or not a string is not said to.
#[cold]
fn names_none(buf: &[u8], attrs: &[(AttrEntry, Node)], i: usize) -> bool {
    let Some(body) = buf
        .get(i.wrapping_add(1)..)
        .filter(|_| buf.get(i) == Some(&b'"'))
    else {
        return false;
    };
    let Some(end) = body.iter().position(|&c| c == b'"' || c == b'\\') else {
        return false;
    };
    let (Some(b'"'), Some(name)) = (body.get(end), body.get(..end)) else {
        return false;
    };
    // (An attribute whose name needs escapes has no JSON key here, and no key without
    // escapes spells it.)
    !attrs
        .iter()
        .filter_map(|(key, _)| key.json_key_with_colon())
        .any(|q| q.as_bytes().get(1..q.len().saturating_sub(2)) == Some(name))
}

/// The number at `i`, when the DUMP writes it as it is here: the position after it.
fn number(buf: &[u8], i: usize) -> Option<usize> {
    match plain_integer(buf, i) {
        Some((_, end)) => Some(end),
        // Any other number (a fraction, an exponent, `-0`, past `i64`) when the DUMP writes
        // its text as it is.
        None => {
            let (text, end) = tokens::number(buf, i).ok()?;
            (normalize_decimal(text) == text).then_some(end)
        }
    }
}

/// The input, the DUMP being written, and how far the input has been copied to it: the DUMP
/// is the input without its whitespace, so only whitespace stops the copy.
struct Minify<'b, 'l> {
    buf: &'b [u8],
    out: Vec<u8>,
    copied: usize,
    /// A string's value, when the DUMP writes it otherwise than the input has it.
    scratch: String,
    /// That value as the DUMP writes it (kept, so that each string rewritten does not
    /// allocate anew).
    rewritten: String,
    /// The decode's limits, and the arena bytes and values it would have charged for the
    /// containers so far.
    limits: &'l Limits,
    arena: u64,
    values: u64,
    /// It gave up at a key that names no attribute of its object ([`Taken::Refused`]).
    unknown: bool,
    /// No whitespace between tokens so far: objects' pairs are read in runs
    /// ([`compact_run`]), which take none in an indented input.
    compact: bool,
    classifier: Inlined,
}

impl Minify<'_, '_> {
    /// The first byte at or after `i` that is not whitespace; whitespace stepped over ends
    /// a run of the copy.
    #[inline(always)]
    fn ws(&mut self, i: usize) -> Option<usize> {
        let next = skip_ws_indented(self.buf, i);
        if next != i {
            self.flush(i)?;
            self.copied = next;
            self.compact = false;
        }
        Some(next)
    }

    /// Copies the input from where the copy stopped to `end`.
    #[inline(always)]
    fn flush(&mut self, end: usize) -> Option<()> {
        let run = self.buf.get(self.copied..end)?;
        // A short run (an indented input's pieces between its whitespace: `"name":`, a value
        // and its comma) as a copy of a fixed `SHORT_RUN` bytes, which the compiler writes
        // inline, and the bytes past the run cut again (a `memcpy` call a piece cost 11% of
        // an indented state's samples: F37b).
        if run.len() <= SHORT_RUN {
            if let Some(wide) = self
                .buf
                .get(self.copied..)
                .and_then(|s| s.first_chunk::<SHORT_RUN>())
            {
                let mut spare = Spare::new(&mut self.out);
                spare.reserve(SHORT_RUN);
                // SAFETY: `SHORT_RUN` bytes of spare capacity were reserved just above, and
                // the run is at most that long.
                unsafe { spare.block(wide, run.len()) };
                return Some(());
            }
        }
        self.out.extend_from_slice(run);
        Some(())
    }

    /// Charges `n` values of `size` arena bytes as the decode charges a container: `None`
    /// past [`Limits::max_values`] or [`Limits::max_arena_bytes`], where the decode fails.
    /// (The charges only grow, so going past a limit anywhere is the decode failing
    /// somewhere.)
    #[inline(always)]
    fn charge(&mut self, n: usize, size: u64) -> Option<()> {
        let n = n as u64;
        self.values = self.values.saturating_add(n);
        self.arena = self.arena.saturating_add(n.saturating_mul(size));
        (self.values <= self.limits.max_values && self.arena <= self.limits.max_arena_bytes)
            .then_some(())
    }

    /// The byte at `i` is `byte`: the position after it.
    #[inline(always)]
    fn expect(&self, i: usize, byte: u8) -> Option<usize> {
        (self.buf.get(i) == Some(&byte)).then(|| i.wrapping_add(1))
    }

    /// The value at `i` (not whitespace), of `node`: the position after it.
    fn value(&mut self, node: &Node, i: usize) -> Option<usize> {
        let buf = self.buf;
        if buf.get(i) == Some(&b'n') {
            return null(buf, i);
        }
        // (Each kind in a function of its own: the recursion's frames stay small, in debug
        // builds too.)
        match node {
            Node::String => self.string(i),
            Node::Number => number(buf, i),
            Node::Bool => boolean(buf, i).map(|(_, end)| end),
            Node::NullOnly => None,
            Node::Items(item) => self.items(i, b'[', b']', VALUE, |w, i| w.value(item, i)),
            Node::Map(v) => self.map(v, i),
            Node::Object(attrs) => self.object(attrs, i),
        }
    }

    /// A string at `i`: the position after it.
    fn string(&mut self, i: usize) -> Option<usize> {
        let (end, rewritten) = dump_string(self.buf, i, &mut self.scratch)?;
        // (`max_string_len`, of the decoded string: its text here, escapes included, is at
        // least as long.)
        let body = end.wrapping_sub(i).saturating_sub(2);
        if body > self.limits.max_string_len as usize {
            return None;
        }
        if rewritten {
            // Written as the DUMP writes its value, in place of the input's.
            self.flush(i)?;
            self.rewritten.clear();
            crate::dump::write_string(&mut self.rewritten, &self.scratch);
            self.out.extend_from_slice(self.rewritten.as_bytes());
            self.copied = end;
        }
        Some(end)
    }

    /// A map at `i` of values `v`: the position after it.
    fn map(&mut self, v: &Node, i: usize) -> Option<usize> {
        let buf = self.buf;
        let mut last: Option<&[u8]> = None;
        self.items(i, b'{', b'}', ENTRY, |w, i| {
            let (key, end) = plain_string(buf, i)?;
            if key.len() > w.limits.max_string_len as usize {
                return None;
            }
            if last.is_some_and(|l| l >= key) {
                return None;
            }
            last = Some(key);
            let colon = w.ws(end)?;
            let at = w.expect(colon, b':')?;
            let at = w.ws(at)?;
            w.value(v, at)
        })
    }

    /// An object at `at` of attributes `attrs`: the position after it. Attributes missing
    /// from the input are written `null`, where the DUMP has them.
    fn object(&mut self, attrs: &[(AttrEntry, Node)], at: usize) -> Option<usize> {
        let open = self.expect(at, b'{')?;
        self.charge(attrs.len(), VALUE)?;
        let mut i = self.ws(open)?;
        // The next attribute the input may hold, and whether it held one already.
        let mut next = 0usize;
        let mut pairs = false;
        if self.buf.get(i) != Some(&b'}') {
            loop {
                let (k, after) = match self.run(attrs, next, i) {
                    Run::Key { at, next: n } => {
                        next = n;
                        i = at;
                        self.key(attrs, next, i)?
                    }
                    Run::Value { at, k } => (k, at),
                    Run::Closed { brace, next: n } => {
                        pairs = true;
                        next = n;
                        i = brace;
                        break;
                    }
                };
                let (_, node) = attrs.get(k)?;
                next = k.wrapping_add(1);
                pairs = true;
                let at = self.ws(after)?;
                let end = self.value(node, at)?;
                i = self.ws(end)?;
                match self.buf.get(i) {
                    Some(b',') => i = self.ws(i.wrapping_add(1))?,
                    Some(b'}') => break,
                    _ => return None,
                }
            }
        }
        if let Some(rest @ [_, ..]) = attrs.get(next..) {
            self.flush(i)?;
            self.nulls(rest, pairs, false)?;
            self.copied = i;
        }
        self.expect(i, b'}')
    }

    /// A run of the object's pairs from `i` (a key's place) when the input is compact so far,
    /// else where it is: the key at `i`.
    #[inline(always)]
    fn run(&self, attrs: &[(AttrEntry, Node)], next: usize, i: usize) -> Run {
        if !self.compact {
            return Run::Key { at: i, next };
        }
        let max_string_len = self.limits.max_string_len as usize;
        compact_run(self.buf, i, attrs, next, max_string_len, self.classifier)
    }

    /// The key at `i`, one of `attrs` from `next` on (those before it left out, written
    /// `null`): its attribute's index and the position after its colon.
    #[inline(always)]
    fn key(
        &mut self,
        attrs: &[(AttrEntry, Node)],
        next: usize,
        i: usize,
    ) -> Option<(usize, usize)> {
        let Some((k, after, spaced)) = attribute_key(self.buf, attrs, next, i) else {
            self.unknown = names_none(self.buf, attrs, i);
            return None;
        };
        if k > next {
            self.flush(i)?;
            self.nulls(attrs.get(next..k)?, false, true)?;
            self.copied = i;
        }
        let (key, _) = attrs.get(k)?;
        // (A key's name counts against `max_string_len` too.)
        if key.json_quoted_len().saturating_sub(2) > self.limits.max_string_len as usize {
            return None;
        }
        if spaced {
            // `"name"`, whitespace, then `:`: the whitespace is left out.
            self.flush(i.wrapping_add(key.json_quoted_len()))?;
            self.copied = after.wrapping_sub(1);
        }
        Some((k, after))
    }

    /// Writes `"name":null` for each of `attrs`, separated by commas, with one before the
    /// first when `lead` and one after the last when `trail`.
    fn nulls(&mut self, attrs: &[(AttrEntry, Node)], lead: bool, trail: bool) -> Option<()> {
        for (n, (key, _)) in attrs.iter().enumerate() {
            if lead || n > 0 {
                self.out.push(b',');
            }
            self.out
                .extend_from_slice(key.json_key_with_colon()?.as_bytes());
            self.out.extend_from_slice(b"null");
        }
        if trail {
            self.out.push(b',');
        }
        Some(())
    }

    /// The items of a list (`open` `[`) or the entries of a map (`{`) at `at`, each read by
    /// `item` at its first byte (whitespace and commas stepped over here) and charged `size`
    /// arena bytes: the position after the closing bracket.
    #[inline(always)]
    fn items(
        &mut self,
        at: usize,
        open: u8,
        close: u8,
        size: u64,
        mut item: impl FnMut(&mut Self, usize) -> Option<usize>,
    ) -> Option<usize> {
        let first = self.expect(at, open)?;
        let mut i = self.ws(first)?;
        let mut n = 0usize;
        if self.buf.get(i) != Some(&close) {
            loop {
                let end = item(self, i)?;
                n = n.wrapping_add(1);
                i = self.ws(end)?;
                match self.buf.get(i) {
                    Some(b',') => i = self.ws(i.wrapping_add(1))?,
                    Some(&c) if c == close => break,
                    _ => return None,
                }
            }
        }
        // (The decode charges a container once it is read.)
        if n > self.limits.max_container_len as usize {
            return None;
        }
        self.charge(n, size)?;
        Some(i.wrapping_add(1))
    }
}

#[cfg(test)]
#[path = "straight_tests.rs"]
mod tests;
