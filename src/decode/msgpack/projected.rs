//! The object loop of a projected program ([`Program::select`]): most of the keys it meets
//! name no selected attribute. First the keys are compared with the projected type's whole
//! key order (`Code::key_orders`), as the full decode compares them with its attributes: a
//! selected attribute's value is decoded into the next slot, any other value stepped over.
//! The pairs between two selected names are stepped over by one run ([`marker_run`], compiled
//! for AVX2 too): a key no selected key has the length of is known by its marker alone
//! (`Code::key_markers`), any other is compared with the name; a fixstr or one-byte value is
//! stepped over in the run's own loop, any other by [`marked_value_end`]. The UTF-8 checks
//! are deferred: the run counts the bytes at or above 0x80 that are headers (markers,
//! lengths, numbers) and then those of all the bytes it stepped over ([`count_non_ascii`]);
//! when the counts differ a string held one, and the run is done again by
//! [`stepped_over_run`], which checks each pair as it goes ([`value_end`]). From the first key that is not the next name on, each key's first 32
//! bytes are loaded once and compared with the few selected attributes' pre-encoded keys; a
//! short ASCII key that matches none is stepped over with its value right there. Any other
//! key takes the general path (`object_key`: other encodings of a name, errors).
//!
//! [`Program::select`]: crate::Program::select

use super::deferred::{count_non_ascii, marked_value_end};
use super::reader::{is_one_byte, value_end};
use super::Decoder;
#[cfg(target_arch = "x86_64")]
use crate::bytes::Avx2Mask;
use crate::bytes::{first, is_ascii, non_ascii_mask, AsciiMask, BaselineMask, BLOCK};
use crate::decode::common::{missing_attribute, AttrTable, Pending, Seen};
use crate::decode::json::{Isa, Level};
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
        let markers = prog.key_markers(op);
        let len = self.key_order_walk(prog, (order, markers), names, out, len)?;
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
        (order, markers): Keys<'a>,
        names: &'a [Box<str>],
        out: &mut Slots<'a, Value<'a>>,
        len: u32,
    ) -> Result<u32, Pending> {
        let buf = self.r.buf;
        let (mut k, mut left) = (0usize, len);
        loop {
            let at = RunAt {
                pos: self.r.pos,
                k,
                pairs: left,
            };
            // A key or string not all ASCII: the same pairs again, each checked in turn.
            let pos;
            (pos, k, left) = match marker_run(buf, (order, markers), at) {
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

/// Steps over pairs from `at.pos` while the key there is name `at.k` of the key order
/// `keys` (then `k + 1`, …) and a name stepped over — known by its marker alone where the
/// order's markers have one ([`Code::key_markers`]: no selected key has its length), else
/// compared in its block — and its value is one [`marked_value_end`] walks; at most
/// `at.pairs` of them. The UTF-8 checks are deferred (`deferred.rs`): the result's second
/// item is true when the bytes stepped over hold no byte at or above 0x80 but headers, so
/// every string is ASCII; when false the caller steps over the same pairs again by
/// [`stepped_over_run`], which checks each in turn. Builds no error. Where the run ends: the
/// position, name and pairs left after the last pair stepped over.
///
/// [`Code::key_markers`]: crate::program::Code::key_markers
#[inline(always)]
fn marker_run(buf: &[u8], keys: Keys<'_>, at: RunAt) -> (RunAt, bool) {
    match Level::current().isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 => {
            // SAFETY: a `Level` of AVX2 or above exists only on a CPU with AVX2, BMI1, BMI2,
            // LZCNT and POPCNT (`Level::all_available`).
            unsafe { marker_run_avx2(buf, keys, at) }
        }
        _ => marker_run_baseline(buf, keys, at),
    }
}

/// A key order's entries and markers ([`Program::key_order`], [`Program::key_markers`]).
type Keys<'k> = (&'k [AttrEntry], &'k [u8]);

/// Where a run is: the cursor, the next name of the key order and the pairs left.
#[derive(Clone, Copy)]
struct RunAt {
    pos: usize,
    k: usize,
    pairs: u32,
}

/// [`marker_run`] for the baseline instruction set.
#[inline(never)]
fn marker_run_baseline(buf: &[u8], keys: Keys<'_>, at: RunAt) -> (RunAt, bool) {
    marker_run_body(buf, keys, at, BaselineMask)
}

/// [`marker_run`] compiled for AVX2 (a block's non-ASCII bytes in one `movemask`, counted by
/// `popcnt`; BMI2's shifts for the masks of its bytes).
///
/// # Safety
/// The CPU supports AVX2, BMI1, BMI2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn marker_run_avx2(buf: &[u8], keys: Keys<'_>, at: RunAt) -> (RunAt, bool) {
    // SAFETY: the CPU has AVX2 (this function's contract).
    let masks = unsafe { Avx2Mask::new() };
    marker_run_body(buf, keys, at, masks)
}

/// The body of [`marker_run`], compiled once per instruction set (`masks`').
#[inline(always)]
fn marker_run_body<M: AsciiMask>(
    buf: &[u8],
    (order, markers): Keys<'_>,
    RunAt {
        mut pos,
        mut k,
        pairs,
    }: RunAt,
    masks: M,
) -> (RunAt, bool) {
    let (start, first_k) = (pos, k);
    // The names the run can reach (`Code::validate`: a marker per name).
    let last = markers.len().min(k.saturating_add(pairs as usize));
    // The bytes at or above 0x80 stepped over that are not a string's: the keys' markers
    // and the values' headers (`deferred.rs`).
    let mut marks = 0usize;
    while k < last {
        // The pairs whose key has a marker and whose value is a fixstr or one byte: a fixstr
        // key and a fixstr value lie in 64 bytes. (Each kind of value its own branch: the
        // next pair's position then waits on the value's marker only for a fixstr.)
        let mut fast = 0usize;
        for &marker in markers.get(k..last).unwrap_or_default() {
            let Some(chunk) = buf.get(pos..).and_then(|s| s.first_chunk::<64>()) else {
                break;
            };
            if marker == 0 || marker != chunk[0] {
                break;
            }
            let key_end = usize::from(marker & 0x1f).wrapping_add(1);
            let vm = chunk.get(key_end).copied().unwrap_or(0xc1);
            if ONE_BYTE.get(usize::from(vm)).copied().unwrap_or(false) {
                // (Its marker when not ASCII; the keys' markers are counted below.)
                marks = marks.wrapping_add(usize::from(vm >> 7));
                pos = pos.wrapping_add(key_end).wrapping_add(1);
            } else if (0xa0..=0xbf).contains(&vm) {
                marks = marks.wrapping_add(1);
                pos = pos
                    .wrapping_add(key_end)
                    .wrapping_add(1)
                    .wrapping_add(usize::from(vm & 0x1f));
            } else {
                break;
            }
            fast = fast.wrapping_add(1);
        }
        k = k.wrapping_add(fast);
        marks = marks.wrapping_add(fast);
        // One pair of any other kind: a key compared with the name, a longer value.
        let Some(block) = buf.get(pos..).and_then(|s| s.first_chunk::<BLOCK>()) else {
            break;
        };
        // (`high`: the key's bytes at or above 0x80.)
        let (key_end, high) = match markers.get(k).copied().unwrap_or(0) {
            _ if k >= last => break,
            0 => match order.get(k) {
                // (A key of 32 bytes or more is compared past its block too.)
                Some(entry) if entry.stepped_over && entry.matches_block(block, buf, pos) => {
                    (entry.len(), entry.high_bytes())
                }
                _ => break,
            },
            marker if marker == block[0] => (usize::from(marker & 0x1f).wrapping_add(1), 1),
            _ => break,
        };
        // (The marks of a value the walk does not take are not kept.)
        let value_at = pos.wrapping_add(key_end);
        let Some((end, with_value)) = marked_value_end(buf, value_at, marks.wrapping_add(high))
        else {
            break;
        };
        (pos, marks) = (end, with_value);
        k = k.wrapping_add(1);
    }
    let clean = count_non_ascii(buf, start, pos, masks) == Some(marks);
    // (`k - first_k <= pairs`.)
    let pairs = pairs.wrapping_sub(k.wrapping_sub(first_k) as u32);
    (RunAt { pos, k, pairs }, clean)
}

/// Steps over pairs from `pos` while the key there is that of name `k` of `order` (then
/// `k + 1`, …), a name stepped over and shorter than 32 bytes, and its value is short enough
/// to be checked in the key's block ([`short_value_end`]) or well-formed for [`value_end`];
/// at most `pairs` of them. Builds no error. The position, name and pairs left after the last
/// pair stepped over.
#[inline(always)]
fn stepped_over_run(
    buf: &[u8],
    mut pos: usize,
    order: &[AttrEntry],
    mut k: usize,
    mut pairs: u32,
) -> (usize, usize, u32) {
    while pairs > 0 {
        let (Some(entry), Some(block)) = (
            order.get(k),
            buf.get(pos..).and_then(|s| s.first_chunk::<BLOCK>()),
        ) else {
            break;
        };
        if !entry.stepped_over || !entry.matches_short_block(block) {
            break;
        }
        let key_end = entry.len();
        let end = match short_value_end(block, key_end, 0, pos) {
            Some(end) => end,
            None => match value_end(buf, pos.wrapping_add(key_end)) {
                Some(end) => end,
                None => break,
            },
        };
        pos = end;
        k = k.wrapping_add(1);
        pairs = pairs.wrapping_sub(1);
    }
    (pos, k, pairs)
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

/// The value at `key_end` of `block` (the 32 bytes at `at`) when it lies in the block: a
/// one-byte value (a scalar, an empty list or map), or a fixstr of ASCII bytes; its end in
/// the input, else `None`. `key_text`: the bits of the key's bytes that must be ASCII
/// too (none for a key already matched).
#[inline(always)]
fn short_value_end(block: &[u8; BLOCK], key_end: usize, key_text: u32, at: usize) -> Option<usize> {
    let (end, text) = short_value_span(block, key_end)?;
    (non_ascii_mask(block) & (text | key_text) == 0).then(|| at.wrapping_add(end))
}

/// The value at `key_end` of `block` when it lies in the block: a fixstr or a one-byte value
/// (a scalar, an empty list or map). Its end in the block and the bits of its string bytes
/// (which must be ASCII), else `None`.
#[inline(always)]
fn short_value_span(block: &[u8; BLOCK], key_end: usize) -> Option<(usize, u32)> {
    let vm = *block.get(key_end)?;
    // (Fixstrs first: most values of a state. `end <= 32`: the shifts are small.)
    if (0xa0..=0xbf).contains(&vm) {
        let end = key_end.wrapping_add(1).wrapping_add(usize::from(vm & 0x1f));
        return (end <= BLOCK).then(|| (end, first(end) & !first(key_end.wrapping_add(1))));
    }
    // (A str8 is 32 bytes or more when its encoder is go-cty's, or any other that writes the
    // shortest form: never in the block. The walk takes the others.)
    is_one_byte(vm).then(|| (key_end.wrapping_add(1), 0))
}

/// [`is_one_byte`] of every marker.
#[allow(clippy::indexing_slicing)] // (`m < 256`: built at compile time)
static ONE_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut m = 0;
    while m < 256 {
        table[m] = is_one_byte(m as u8);
        m += 1;
    }
    table
};

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
