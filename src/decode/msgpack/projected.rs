//! The object loop of a projected program ([`Program::select`]): most of the keys it meets
//! name no selected attribute. First the keys are compared with the projected type's whole
//! key order (`Code::key_orders`), as the full decode compares them with its attributes: a
//! selected attribute's value is decoded into the next slot, any other value stepped over.
//! The pairs between two selected names are stepped over by one run ([`marker_run`], in
//! `run.rs`), with the UTF-8 checks deferred; a run that met a byte not ASCII is done again
//! by [`stepped_over_run`], which checks each pair as it goes. From the first key that is
//! not the next name on, each key's first 32
//! bytes are loaded once and compared with the few selected attributes' pre-encoded keys; a
//! short ASCII key that matches none is stepped over with its value right there. Any other
//! key takes the general path (`object_key`: other encodings of a name, errors).
//!
//! [`Program::select`]: crate::Program::select

use super::run::{marker_run, short_value_end, stepped_over_run, Keys, RunAt};
use super::skip::value_end;
use super::Decoder;
use crate::bytes::{first, is_ascii, non_ascii_mask, BLOCK};
use crate::decode::common::{missing_attribute, AttrTable, Pending, Seen};
use crate::decode::slots::Slots;
use crate::program::key::AttrEntry;
use crate::program::{OpId, Program};
use crate::value::Value;

impl<'a> Decoder<'a> {
    /// The `len` keys of a projected object (its header at `at_object` already read) into
    /// `out`, one slot per selected attribute: duplicates refused, missing ones refused or
    /// null as for any object, unknown keys stepped over.
    #[inline(never)]
    pub(super) fn object_projected(
        &mut self,
        prog: &'a Program,
        op: OpId,
        table: &AttrTable<'a>,
        out: &mut Slots<'a, Value<'a>>,
        len: u32,
        at_object: usize,
    ) -> Result<(), Pending> {
        let (order, names) = prog.key_order(op);
        let keys = Keys {
            order,
            markers: prog.key_markers(op),
        };
        let len = self.key_order_walk(prog, keys, names, out, len)?;
        let n = table.entries.len();
        if len == 0 {
            // (The walk fills the slots in order: the first not written is the first missing.)
            return match table.entries.get(out.written()) {
                Some(_) if !self.options.missing_attributes_null => {
                    Err(missing_attribute(table.name(out.written()), at_object))
                }
                _ => Ok(()),
            };
        }
        let mut seen = Seen::new(self.bump, n, out.written());
        out.fill_rest(Value::Null);
        let buf = self.r.buf;
        let max_key = self.options.limits.max_string_len as usize;
        // The fixstr lengths a selected attribute's key has: a fixstr key of any other length
        // is unknown without a compare.
        let selected_lens = AttrEntry::fixstr_lens(table.entries);
        let mut left = len;
        loop {
            // A run of unselected pairs stepped over with the cursor in a register; it stops
            // before the first pair it cannot take (a key of a selected attribute's length,
            // another encoding, a fault), which the general path below reads.
            let (pos, rest) = unselected_run(buf, self.r.pos, left, selected_lens, max_key);
            self.r.pos = pos;
            let Some(rest) = rest.checked_sub(1) else {
                break;
            };
            left = rest;
            let at = self.r.pos;
            let found = match buf.get(at..).and_then(|s| s.first_chunk::<BLOCK>()) {
                Some(block) => {
                    // (A fixstr of a length no selected key has needs no compare.)
                    let found = match unselected_fixstr(block[0], selected_lens, max_key) {
                        true => None,
                        false => {
                            let head = block.first_chunk::<4>().unwrap_or(&[0; 4]);
                            let word = u32::from_le_bytes(*head);
                            table.entries.iter().position(|e| {
                                e.head_matches(word) && e.matches_block(block, buf, at)
                            })
                        }
                    };
                    if found.is_none() {
                        // A fixstr or str8 key that is no selected attribute's (their keys in
                        // these encodings were all compared whole): when ASCII, stepped over
                        // with its value (the run above stopped at it for a fault in the
                        // value, which this names).
                        if let Some((start, end)) = unknown_ascii_key(block, buf, at, max_key) {
                            self.r.pos = end;
                            let key = buf.get(start..end).unwrap_or_default();
                            self.skip_unknown_value(|| {
                                std::str::from_utf8(key).unwrap_or_default()
                            })?;
                            continue;
                        }
                    }
                    found
                }
                None => table.entries.iter().position(|e| e.matches(buf, at)),
            };
            let j = match found.and_then(|j| Some((j, table.entries.get(j)?))) {
                Some((j, entry)) => {
                    // The key's bytes are at `at`: `at + len <= buf.len()`.
                    self.r.pos = at.wrapping_add(entry.len());
                    j
                }
                None => match self.object_key(table, at)? {
                    Some(j) => j,
                    None => continue, // an unknown key, skipped with its value
                },
            };
            self.attribute(prog, table, out, &mut seen, j, at)?;
        }
        self.all_present(table, &seen, at_object)
    }
}

impl<'a> Decoder<'a> {
    /// The first of `len` pairs read in the key order `keys` (names `names`): while each key
    /// is the next name's encoding, a selected attribute's value is pushed onto `out` and any
    /// other stepped over. The pairs left, the first at the cursor.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn key_order_walk(
        &mut self,
        prog: &'a Program,
        keys: Keys<'a>,
        names: &'a [Box<str>],
        out: &mut Slots<'a, Value<'a>>,
        len: u32,
    ) -> Result<u32, Pending> {
        let (buf, order) = (self.r.buf, keys.order);
        let (mut k, mut left) = (0usize, len);
        loop {
            let at = RunAt {
                pos: self.r.pos,
                k,
                pairs: left,
            };
            // A key or string not all ASCII: the same pairs again, each checked in turn.
            let pos;
            (pos, k, left) = match marker_run(buf, keys, at) {
                (end, true) => (end.pos, end.k, end.pairs),
                (_, false) => stepped_over_run(buf, self.r.pos, order, k, left),
            };
            self.r.pos = pos;
            // A selected name's key, a long key, or a value the run did not take (one near
            // the input's end, or a fault the careful stepper names); else the order ends.
            let Some(entry) = order.get(k).filter(|e| left > 0 && e.matches(buf, pos)) else {
                return Ok(left);
            };
            left = left.wrapping_sub(1);
            // The key's bytes are at `pos`: `pos + key.len() <= buf.len()`.
            self.r.pos = pos.wrapping_add(entry.len());
            let name = || names.get(k).map_or("", |n| n);
            if entry.stepped_over {
                self.skip_unknown_value(name)?;
            } else {
                let v = self
                    .value(prog, entry.code, entry.op)
                    .map_err(|e| e.in_attr(name()))?;
                out.push(v);
            }
            k = k.wrapping_add(1);
        }
    }
}

/// The bytes of the key at `at` (`block` holds its first 32 bytes) when it is a fixstr, or a
/// str8 of 32 bytes or more, of ASCII bytes no longer than `max_key`: `(start, end)` of its bytes in `buf`.
#[inline(always)]
fn unknown_ascii_key(
    block: &[u8; BLOCK],
    buf: &[u8],
    at: usize,
    max_key: usize,
) -> Option<(usize, usize)> {
    let m = block[0];
    let (header, n) = match m {
        0xa0..=0xbf => (1, usize::from(m & 0x1f)),
        // (A str8 of fewer than 32 bytes is another encoding of a name a fixstr can hold,
        // maybe a selected one: the general path reads it.)
        0xd9 if block[1] >= 32 => (2, usize::from(block[1])),
        _ => return None,
    };
    let start = at.wrapping_add(header);
    let end = start.wrapping_add(n);
    let ascii = if header.wrapping_add(n) <= BLOCK {
        non_ascii_mask(block) & first(header.wrapping_add(n)) & !first(header) == 0
    } else {
        is_ascii(buf.get(start..end)?)
    };
    (ascii && n <= max_key).then_some((start, end))
}

/// Steps over up to `pairs` key/value pairs from `pos` while each key is a fixstr that
/// [`unselected_fixstr`] calls unknown, of ASCII bytes, and its value well-formed and
/// UTF-8 ([`value_end`]): the position after the last pair stepped over and the pairs left.
/// Builds no error: whatever stops it is read again by the general path.
#[inline(always)]
fn unselected_run(
    buf: &[u8],
    mut pos: usize,
    mut pairs: u32,
    selected_lens: u32,
    max_key: usize,
) -> (usize, u32) {
    while pairs > 0 {
        let Some(block) = buf.get(pos..).and_then(|s| s.first_chunk::<BLOCK>()) else {
            break;
        };
        if !unselected_fixstr(block[0], selected_lens, max_key) {
            break;
        }
        let end = match short_pair_end(block, pos) {
            Some(end) => end,
            None => {
                let key_end = usize::from(block[0] & 0x1f).wrapping_add(1);
                if non_ascii_mask(block) & first(key_end) & !1 != 0 {
                    break;
                }
                match value_end(buf, pos.wrapping_add(key_end)) {
                    Some(end) => end,
                    None => break,
                }
            }
        };
        pos = end;
        pairs = pairs.wrapping_sub(1);
    }
    (pos, pairs)
}

/// True for a fixstr key marker `m` whose length no selected attribute's fixstr key has
/// (`selected_lens`, a bit per length) and within `max_key`: the key is unknown.
#[inline(always)]
fn unselected_fixstr(m: u8, selected_lens: u32, max_key: usize) -> bool {
    (0xa0..=0xbf).contains(&m)
        && selected_lens >> (m & 0x1f) & 1 == 0
        && usize::from(m & 0x1f) <= max_key
}

/// An unknown key and its value at `at` stepped over in one mask test, when both lie in
/// `block` (the 32 bytes at `at`): a fixstr key, then a one-byte value (a scalar, an empty
/// list or map) or a fixstr value, every string byte ASCII. The offset after the value, else
/// `None`.
#[inline(always)]
fn short_pair_end(block: &[u8; BLOCK], at: usize) -> Option<usize> {
    let key_end = usize::from(block[0] & 0x1f).wrapping_add(1);
    // (Bit 0 is the key's marker.)
    short_value_end(block, key_end, first(key_end) & !1, at)
}

#[cfg(test)]
mod tests {
    use crate::schema::Selection;
    use crate::{ErrorKind, Program};

    const LONG: &str = "a_selected_name_of_thirty_four_b_";

    fn programs() -> (Program, Program) {
        let ty = format!(r#"["object",{{"a":"number","b":"string","{LONG}":"string"}}]"#);
        let full = Program::from_type_json(&ty).unwrap();
        let projected = full
            .select(&Selection::parse(["a", LONG]).unwrap())
            .unwrap();
        (full, projected)
    }

    /// Every kind of key the loop meets: unknown fixstr keys with a scalar, a short string,
    /// a str8 and a container value (the one-mask pair path and the skip), a selected name
    /// as a non-canonical str8 (the general path), an unknown key of 40 bytes (str8) and a
    /// non-ASCII one, and a selected name longer than a fixstr holds.
    #[test]
    fn keys_of_every_shape() {
        let (_, projected) = programs();
        let mut input = vec![0x86, 0xa2, b'z', b'z', 0xa5];
        input.extend_from_slice(b"hello");
        input.extend_from_slice(&[0xd9, 1, b'a', 0x07]); // "a" as str8: 7
        input.extend_from_slice(&[0xd9, 40]);
        input.extend_from_slice(&[b'k'; 40]);
        input.extend_from_slice(&[0x92, 0x01, 0xa2, 0xc3, 0xa9]);
        input.extend_from_slice(&[0xa2, 0xc3, 0xa9, 0xc0]); // "é": nil
        input.extend_from_slice(&[0xd9, LONG.len() as u8]);
        input.extend_from_slice(LONG.as_bytes());
        input.extend_from_slice(&[0xa1, b'x']);
        input.extend_from_slice(&[0xa1, b'b', 0xd9, 3]);
        input.extend_from_slice(b"str");
        let bump = bumpalo::Bump::new();
        let v = projected.decode_msgpack(&input, &bump).unwrap();
        assert_eq!(
            crate::dump::to_string(&projected, v).unwrap(),
            format!(r#"{{"a":7,"{LONG}":"x"}}"#)
        );
    }

    /// Errors in what the loop steps over name the unknown attribute and the offset.
    #[test]
    fn errors_name_the_skipped_attribute() {
        let (_, projected) = programs();
        let bump = bumpalo::Bump::new();
        let error = |input: &[u8]| {
            let e = projected.decode_msgpack(input, &bump).unwrap_err();
            (e.kind(), e.path().to_string(), e.offset())
        };
        let named = |kind, path: &str, at| (kind, path.to_string(), Some(at));
        // {"zz": [0xc1]}: the reserved byte, at offset 5.
        let e = error(&[0x81, 0xa2, b'z', b'z', 0x91, 0xc1]);
        assert_eq!(e, named(ErrorKind::Syntax, ".zz", 5));
        // {"zz": "\xff"}: a skipped string that is not UTF-8, named at its header (4).
        let e = error(&[0x81, 0xa2, b'z', b'z', 0xa1, 0xff]);
        assert_eq!(e, named(ErrorKind::InvalidUtf8, ".zz", 4));
        // {"a": 1, "a": 2}: a selected attribute twice.
        let e = error(&[0x82, 0xa1, b'a', 0x01, 0xa1, b'a', 0x02]);
        assert_eq!(e, named(ErrorKind::DuplicateKey, ".a", 4));
        // {"zz": 1}: the selected ones missing.
        let e = error(&[0x81, 0xa2, b'z', b'z', 0x01]);
        assert_eq!(e.0, ErrorKind::MissingAttribute);
    }
}
