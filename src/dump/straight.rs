//! The DUMP straight from JSON input, without building the value: [`StraightDump`], made
//! once from an object type, checks that a JSON value is of that type *as go-cty writes it*
//! and writes its DUMP, which is then the input without its whitespace.
//!
//! As go-cty writes it: an object holding every attribute of its type, in the type's order
//! (the DUMP's order too), under keys without escapes; strings without escapes (checked
//! UTF-8, so the DUMP writes them as they are: it escapes only `"`, `\` and control
//! characters, none of which an unescaped JSON string holds); numbers that are integers and
//! fit `i64` (not `-0`: the DUMP writes integers as their digits); `true`, `false`, `null`;
//! lists and sets (items in order: the decoders keep a set's items as they come); maps with
//! their keys in increasing byte order and none repeated (the DUMP sorts keys, and of
//! repeated ones keeps the last); `null` for a `dynamic` or tuple value. Anything else — an
//! escape, a fraction, an attribute missing or out of order, a fault — gives up, and the
//! caller decodes the value and writes its DUMP the general way, which reads it (or names
//! its fault with path and offset). So what this writes is always the general way's DUMP.

use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;

use crate::decode::json::plain::{
    boolean, dump_string, null, plain_integer, plain_string, skip_ws,
};
use crate::decode::json::tokens;
use crate::limits::Limits;
use crate::number::normalize_decimal;
use crate::program::key::AttrEntry;
use crate::program::{DecodeOptions, Program};
use crate::schema::Type;

/// The longest input written straight: below it the general decode cannot reach its default
/// [`Limits::max_arena_bytes`] (it spends fewer than 40 arena bytes per input byte on the
/// values this takes), so it never fails where this succeeds.
const STRAIGHT_MAX: usize = (Limits::DEFAULT.max_arena_bytes / 40) as usize;

/// What a [`StraightDump`] checks at one place of the type.
enum Node {
    String,
    Number,
    Bool,
    /// `dynamic` and tuples: only `null` is taken.
    NullOnly,
    /// A list or a set.
    Items(Box<Node>),
    Map(Box<Node>),
    /// The attributes' keys (the executors' pre-encoded keys) and parts, in the type's order.
    Object(Box<[(AttrEntry, Node)]>),
}

/// The straight DUMP of one program's object type (see the module docs).
pub(crate) struct StraightDump {
    root: Node,
}

impl std::fmt::Debug for StraightDump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StraightDump")
    }
}

impl StraightDump {
    /// For `program` when its type is an object type nested no deeper than the default
    /// `max_depth` and it is not a projection (whose picks keep only some elements).
    pub(crate) fn new(program: &Program) -> Option<StraightDump> {
        let ty = program.root_type();
        if program.code.projected || !matches!(ty, Type::Object(_)) {
            return None;
        }
        let (root, depth) = node(ty)?;
        (depth <= Limits::DEFAULT.max_depth as usize).then_some(StraightDump { root })
    }

    /// Whether a decode with `options` reads what this takes as this reads it: the default
    /// limits, block item counts unchecked (attributes the type lacks may be stepped over or
    /// not: this takes none).
    pub(crate) fn applies(options: &DecodeOptions) -> bool {
        !options.check_item_counts && options.limits == Limits::DEFAULT
    }

    /// The DUMP of the JSON value at the start of `buf` (which may hold more after it),
    /// written into `bump`, when the value is as go-cty writes it, and the position after
    /// the value; `None` when it gives up.
    pub(crate) fn write_prefix<'a>(&self, buf: &[u8], bump: &'a Bump) -> Option<(&'a str, usize)> {
        if buf.len() > STRAIGHT_MAX {
            return None;
        }
        let start = skip_ws(buf, 0);
        let mut w = Minify {
            buf,
            // (Room for a DUMP of a few KiB: most instances' whole, without regrowth.)
            out: BumpVec::with_capacity_in(buf.len().min(1 << 12), bump),
            copied: start,
            scratch: String::new(),
        };
        let end = w.value(&self.root, start)?;
        w.flush(end)?;
        // (Checked once, whole: runs cut at token boundaries of checked JSON are whole
        // characters, so this never fails.)
        let text = simdutf8::basic::from_utf8(w.out.into_bump_slice()).ok()?;
        Some((text, end))
    }
}

/// The node of `ty` and the containers nested in its values, when it can be read straight.
fn node(ty: &Type) -> Option<(Node, usize)> {
    let (n, below) = match ty {
        Type::String => return Some((Node::String, 0)),
        Type::Number => return Some((Node::Number, 0)),
        Type::Bool => return Some((Node::Bool, 0)),
        Type::Dynamic | Type::Tuple(_) => return Some((Node::NullOnly, 0)),
        Type::List(t) | Type::Set(t) => {
            let (n, d) = node(t)?;
            (Node::Items(Box::new(n)), d)
        }
        Type::Map(t) => {
            let (n, d) = node(t)?;
            (Node::Map(Box::new(n)), d)
        }
        Type::Object(o) => {
            let mut deepest = 0;
            let mut attrs = Vec::with_capacity(o.attrs().len());
            for (name, t) in o.attrs() {
                let (n, d) = node(t)?;
                deepest = deepest.max(d);
                attrs.push((AttrEntry::key_only(name), n));
            }
            (Node::Object(attrs.into_boxed_slice()), deepest)
        }
    };
    Some((n, below.saturating_add(1)))
}

/// The key at `i`, of one of `attrs` from `next` on: its index and the position after its
/// colon (go-cty's compact `"name":` in one compare; else whitespace before the colon).
#[inline(always)]
fn key(buf: &[u8], attrs: &[(AttrEntry, Node)], next: usize, i: usize) -> Option<(usize, usize)> {
    let rest = attrs.get(next..)?;
    rest.iter().enumerate().find_map(|(k, (key, _))| {
        let after = key
            .match_json_compact(buf, i)
            .or_else(|| key.match_json(buf, i))?;
        Some((next.wrapping_add(k), after))
    })
}

/// The input, the DUMP being written, and how far the input has been copied to it: the DUMP
/// is the input without its whitespace, so only whitespace stops the copy.
struct Minify<'b, 'a> {
    buf: &'b [u8],
    out: BumpVec<'a, u8>,
    copied: usize,
    /// A string's value, when the DUMP writes it otherwise than the input has it.
    scratch: String,
}

impl Minify<'_, '_> {
    /// The first byte at or after `i` that is not whitespace; whitespace stepped over ends
    /// a run of the copy.
    #[inline(always)]
    fn ws(&mut self, i: usize) -> Option<usize> {
        let next = skip_ws(self.buf, i);
        if next != i {
            self.flush(i)?;
            self.copied = next;
        }
        Some(next)
    }

    /// Copies the input from where the copy stopped to `end`.
    #[inline(always)]
    fn flush(&mut self, end: usize) -> Option<()> {
        let run = self.buf.get(self.copied..end)?;
        self.out.extend_from_slice_copy(run);
        Some(())
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
        match node {
            Node::String => {
                let (end, unescaped) = dump_string(buf, i, &mut self.scratch)?;
                if unescaped {
                    // Written as the DUMP writes its value, in place of the input's.
                    self.flush(i)?;
                    let mut escaped = String::with_capacity(self.scratch.len().saturating_add(2));
                    crate::dump::write_string(&mut escaped, &self.scratch);
                    self.out.extend_from_slice_copy(escaped.as_bytes());
                    self.copied = end;
                }
                Some(end)
            }
            Node::Number => match plain_integer(buf, i) {
                Some((_, end)) => Some(end),
                // Any other number (a fraction, an exponent, `-0`, past `i64`) when the DUMP
                // writes it as it is.
                None => {
                    let (text, end) = tokens::number(buf, i).ok()?;
                    (normalize_decimal(text) == text).then_some(end)
                }
            },
            Node::Bool => boolean(buf, i).map(|(_, end)| end),
            Node::NullOnly => None,
            Node::Items(item) => self.items(i, b'[', b']', |w, i| w.value(item, i)),
            Node::Map(v) => {
                let mut last: Option<&[u8]> = None;
                self.items(i, b'{', b'}', |w, i| {
                    let (key, end) = plain_string(buf, i)?;
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
            Node::Object(attrs) => self.object(attrs, i),
        }
    }

    /// An object at `at` of attributes `attrs`: the position after it. Attributes missing
    /// from the input are written `null`, where the DUMP has them.
    fn object(&mut self, attrs: &[(AttrEntry, Node)], at: usize) -> Option<usize> {
        let open = self.expect(at, b'{')?;
        let mut i = self.ws(open)?;
        // The next attribute the input may hold, and whether it held one already.
        let mut next = 0usize;
        let mut pairs = false;
        if self.buf.get(i) != Some(&b'}') {
            loop {
                let (k, after) = key(self.buf, attrs, next, i)?;
                if k > next {
                    self.flush(i)?;
                    self.nulls(attrs.get(next..k)?, false, true)?;
                    self.copied = i;
                }
                let (key, node) = attrs.get(k)?;
                if self.buf.get(after.wrapping_sub(2)) != Some(&b'"') {
                    // `"name"`, whitespace, then `:`: the whitespace is left out.
                    self.flush(i.wrapping_add(key.json_quoted_len()))?;
                    self.copied = after.wrapping_sub(1);
                }
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

    /// Writes `"name":null` for each of `attrs`, separated by commas, with one before the
    /// first when `lead` and one after the last when `trail`.
    fn nulls(&mut self, attrs: &[(AttrEntry, Node)], lead: bool, trail: bool) -> Option<()> {
        for (n, (key, _)) in attrs.iter().enumerate() {
            if lead || n > 0 {
                self.out.push(b',');
            }
            self.out.extend_from_slice_copy(key.json_key()?.as_bytes());
            self.out.extend_from_slice_copy(b"null");
        }
        if trail {
            self.out.push(b',');
        }
        Some(())
    }

    /// The items of a list (`open` `[`) or the entries of a map (`{`) at `at`, each read by
    /// `item` at its first byte (whitespace and commas stepped over here): the position
    /// after the closing bracket.
    #[inline(always)]
    fn items(
        &mut self,
        at: usize,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self, usize) -> Option<usize>,
    ) -> Option<usize> {
        let first = self.expect(at, open)?;
        let mut i = self.ws(first)?;
        if self.buf.get(i) != Some(&close) {
            loop {
                let end = item(self, i)?;
                i = self.ws(end)?;
                match self.buf.get(i) {
                    Some(b',') => i = self.ws(i.wrapping_add(1))?,
                    Some(&c) if c == close => break,
                    _ => return None,
                }
            }
        }
        Some(i.wrapping_add(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general way: the DUMP of the decoded value, or `None` when the decode fails.
    fn general(program: &Program, input: &[u8]) -> Option<String> {
        let bump = Bump::new();
        let value = program.decode_json(input, &bump).ok()?;
        Some(crate::dump::to_string(program, value).unwrap())
    }

    /// The straight DUMP of the whole of `input` (trailing whitespace allowed), checked
    /// against the general way: equal when written, and written only where the decode
    /// succeeds.
    fn straight(program: &Program, input: &[u8]) -> Option<String> {
        let dump = StraightDump::new(program).unwrap();
        let bump = Bump::new();
        let written = dump
            .write_prefix(input, &bump)
            .filter(|&(_, end)| skip_ws(input, end) == input.len())
            .map(|(text, _)| text.to_string());
        if let Some(text) = &written {
            let want = general(program, input);
            assert_eq!(
                Some(text),
                want.as_ref(),
                "{}",
                String::from_utf8_lossy(input)
            );
        }
        written
    }

    const TYPE: &str = r#"["object",{"a":"string","b":"number","c":["list",["object",{"x":"bool"}]],"d":["map","string"],"e":["set","number"],"f":"dynamic","g":["tuple",["string"]],"h":["object",{}]}]"#;

    #[test]
    fn what_go_cty_writes_goes_straight() {
        let program = Program::from_type_json(TYPE).unwrap();
        let ok = |input: &str, want: &str| {
            assert_eq!(
                straight(&program, input.as_bytes()).as_deref(),
                Some(want),
                "{input}"
            );
        };
        let all = r#"{"a":"x","b":1,"c":[{"x":true},{"x":null}],"d":{"k":"v","l":"w"},"e":[2,1],"f":null,"g":null,"h":{}}"#;
        ok(all, all);
        // Whitespace anywhere, before a colon too, is left out.
        let spaced = "{\n  \"a\" : \"x\",\n  \"b\": 1,\n  \"c\": [ { \"x\": true }, {\"x\":null} ],\n  \"d\": { \"k\" : \"v\" , \"l\":\"w\" },\n  \"e\": [ 2, 1 ],\n  \"f\": null, \"g\": null, \"h\": { }\n}\n";
        ok(spaced, all);
        // Attributes left out are written null: first, in the middle, last, all.
        ok(
            r#"{"b":1,"e":[],"h":{}}"#,
            r#"{"a":null,"b":1,"c":null,"d":null,"e":[],"f":null,"g":null,"h":{}}"#,
        );
        ok(
            r#"{"a":"x"}"#,
            r#"{"a":"x","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        ok(
            "{ }",
            r#"{"a":null,"b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        ok(
            r#"{"c":[{}]}"#,
            r#"{"a":null,"b":null,"c":[{"x":null}],"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        ok("null", "null");
        // Escapes the DUMP writes back as they are; others written as the DUMP writes them.
        ok(
            r#"{"a":"q\"b\\s\n\t\r\b\f"}"#,
            r#"{"a":"q\"b\\s\n\t\r\b\f","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        ok(
            r#"{"a":"\u003c\/é\u00e9\u0001"}"#,
            r#"{"a":"</éé\u0001","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        ok(
            r#"{"a":"x\/y"}"#,
            r#"{"a":"x/y","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        // Numbers the DUMP writes as they are, whatever their form.
        ok(
            r#"{"b":-0}"#,
            r#"{"a":null,"b":-0,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        ok(
            r#"{"b":-12.50e3}"#,
            r#"{"a":null,"b":-12.50e3,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
        ok(
            r#"{"b":123456789012345678901234567890}"#,
            r#"{"a":null,"b":123456789012345678901234567890,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
        );
    }

    #[test]
    fn anything_else_gives_up_and_the_general_way_reads_it() {
        let program = Program::from_type_json(TYPE).unwrap();
        for input in [
            // The DUMP writes these otherwise: a number's form, map keys out of order or
            // repeated or escaped, attributes out of order, a string for a number and back.
            r#"{"b":1E3}"#,
            r#"{"d":{"l":"w","k":"v"}}"#,
            r#"{"d":{"k":"v","k":"w"}}"#,
            r#"{"d":{"\u006b":"v"}}"#,
            r#"{"b":1,"a":"x"}"#,
            r#"{"a":1}"#,
            r#"{"b":"1"}"#,
            // A dynamic value, a tuple: the DUMP wraps or reads them otherwise.
            r#"{"f":{"value":"s","type":"string"}}"#,
            r#"{"g":["s"]}"#,
        ] {
            assert_eq!(straight(&program, input.as_bytes()), None, "{input}");
            assert!(general(&program, input.as_bytes()).is_some(), "{input}");
        }
        for input in [
            r#"{"z":1}"#,
            r#"{"a":"x","a":"y"}"#,
            r#"{"a":"x",}"#,
            r#"{"a":"x""#,
            r#"{"a":"\x"}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"c":[{"x":1}]}"#,
            r#"[]"#,
        ] {
            assert_eq!(straight(&program, input.as_bytes()), None, "{input}");
            assert_eq!(general(&program, input.as_bytes()), None, "{input}");
        }
        // Bytes that are not UTF-8, in a string.
        let bad = b"{\"a\":\"\xff\"}";
        assert_eq!(
            (straight(&program, bad), general(&program, bad)),
            (None, None)
        );
    }

    /// The cases of `test_values.rs` (each held in an object), every proper prefix of them,
    /// and each with one byte changed: written straight only as the general way's DUMP, and
    /// only where the decode succeeds (`straight` checks both).
    #[test]
    fn cut_and_changed_inputs_are_written_only_as_the_general_way_would() {
        let mut written = 0;
        let mut seed = 0x5eed_u64;
        for &(ty, json, want) in crate::test_values::CASES {
            let program = Program::from_type_json(&format!(r#"["object",{{"v":{ty}}}]"#)).unwrap();
            let input = format!(r#"{{"v":{json}}}"#);
            if let Some(text) = straight(&program, input.as_bytes()) {
                assert_eq!(text, format!(r#"{{"v":{want}}}"#));
                written += 1;
            }
            let bytes = input.as_bytes();
            for cut in 0..bytes.len() {
                straight(&program, &bytes[..cut]);
            }
            for at in 0..bytes.len() {
                let mut changed = bytes.to_vec();
                changed[at] =
                    b"\"\\{}[],: 0a-.e\x00\xc3"[crate::test_rng::next(&mut seed) as usize % 16];
                if straight(&program, &changed).is_some() {
                    written += 1;
                }
            }
        }
        assert!(written > 100, "{written}");
    }
}
