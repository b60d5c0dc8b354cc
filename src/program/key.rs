//! Pre-encoded object keys: [`AttrEntry`], the dispatch entry of one object attribute, and the
//! wide compare that tells whether the input holds that key at the cursor.
//!
//! go-cty writes object keys sorted, so an executor almost always finds the key it expects
//! next; checking it is one 32-byte compare against the key's MessagePack encoding (header and
//! name) instead of reading the key's header, slicing it and comparing names.

use crate::bytes::{eq_mask, first, BLOCK as WIDE};
use crate::program::{Op, OpId};
use crate::spare::Spare;

/// The dispatch entry of one object attribute (upb-style): its op and instruction, and its
/// key pre-encoded as MessagePack, the first 32 bytes zero-padded with a bit mask of the bytes
/// that count. Everything the hot loop needs for one attribute sits in one entry.
#[repr(C, align(32))]
pub(crate) struct AttrEntry {
    wide: [u8; WIDE],
    /// Bit `i` set for each byte `i < min(len, 32)` of the encoded key.
    mask: u32,
    /// The first four bytes of the encoded key as a little-endian word (zero past its end),
    /// and the mask of those that count: [`Self::head_matches`].
    head: u32,
    head_mask: u32,
    /// The attribute's op.
    pub(crate) op: OpId,
    /// `program.ops[op]`, copied here to save a dependent load.
    pub(crate) code: Op,
    /// The whole encoded key (read only for keys longer than 32 bytes).
    bytes: Box<[u8]>,
    /// The encoded key's bytes at or above 0x80: its marker, a long key's length at 128 or
    /// more, a name's bytes that are not ASCII.
    high: u32,
    /// The key as go-cty writes it in JSON, quoted and with its colon (`"name":`), the first
    /// 32 bytes zero-padded with their mask; an empty mask when the name needs escaping in
    /// JSON (the executor then reads the key in full).
    json_wide: [u8; WIDE],
    json_mask: u32,
    /// The mask of the quoted name alone (without the colon), when it has a fast form.
    json_key_mask: u32,
    json: Box<str>,
    /// `json` is also what Go's JSON encoder writes for the name (no HTML characters, no
    /// U+2028/2029): the encoder copies it.
    json_is_go: bool,
    /// An entry of a projection's key order for an attribute it does not select: its value
    /// is stepped over (`op` and `code` are then those of `dynamic` and not used).
    pub(crate) stepped_over: bool,
}

impl AttrEntry {
    pub(crate) fn new(name: &str, op: OpId, code: Op) -> AttrEntry {
        let bytes = msgpack_key(name);
        let (wide, mask) = padded(&bytes);
        let plain = !name.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\');
        let json: Box<str> = if plain {
            format!("\"{name}\":").into()
        } else {
            Box::default()
        };
        let (json_wide, json_mask) = padded(json.as_bytes());
        let json_key_mask = if json.is_empty() {
            0
        } else {
            first(json.len().saturating_sub(1).min(WIDE))
        };
        let json_is_go = !json.is_empty() && crate::json_escape::is_plain(name);
        let high =
            u32::try_from(bytes.iter().filter(|b| !b.is_ascii()).count()).unwrap_or(u32::MAX);
        let [w0, w1, w2, w3, ..] = wide;
        let head = u32::from_le_bytes([w0, w1, w2, w3]);
        let head_mask = (0..4).fold(0u32, |m, i| match mask >> i & 1 {
            1 => m | 0xff << (i << 3),
            _ => m,
        });
        AttrEntry {
            wide,
            mask,
            head,
            head_mask,
            op,
            code,
            bytes,
            high,
            json_wide,
            json_mask,
            json_key_mask,
            json,
            json_is_go,
            stepped_over: false,
        }
    }

    /// The entry of attribute `name` in a projection's key order when the projection does not
    /// select it (`dynamic`, op `dynamic`, stands in for its op: no decoder reads it).
    pub(crate) fn stepped_over(name: &str, dynamic: OpId) -> AttrEntry {
        AttrEntry {
            stepped_over: true,
            ..AttrEntry::new(name, dynamic, Op::Dynamic)
        }
    }

    /// The entry of attribute `name` for a reader that only matches keys and dispatches on
    /// its own (the Arrow row readers, the straight DUMP): `op` and `code` are those of
    /// `dynamic`, never read.
    pub(crate) fn key_only(name: &str) -> AttrEntry {
        AttrEntry::new(name, OpId(0), Op::Dynamic)
    }

    /// The key as Go's JSON encoder writes it, quoted and with its colon, when it is the one
    /// the decoder matches (else the caller escapes the name).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn go_json(&self) -> Option<&[u8]> {
        self.json_is_go.then_some(self.json.as_bytes())
    }

    /// The MessagePack key as its 32-byte zero-padded block and the number of bytes that
    /// count, when it fits in the block; else the whole key.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn msgpack_block(&self) -> Result<(&[u8; WIDE], usize), &[u8]> {
        let n = self.bytes.len();
        if n <= WIDE {
            Ok((&self.wide, n))
        } else {
            Err(&self.bytes)
        }
    }

    /// The key quoted with its colon (`"name":`) as its 32-byte zero-padded block and the
    /// number of bytes that count, when it fits in the block and the name needs no escape
    /// in JSON (serde_json's set, the DUMP's).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn json_block(&self) -> Option<(&[u8; WIDE], usize)> {
        let n = self.json.len();
        (n != 0 && n <= WIDE).then_some((&self.json_wide, n))
    }

    /// The key quoted with its colon (`"name":`), when the name needs no escape in JSON
    /// (serde_json's set, the DUMP's); the form [`Self::match_json_compact`] matches.
    pub(crate) fn json_key_with_colon(&self) -> Option<&str> {
        (!self.json.is_empty()).then_some(&*self.json)
    }

    /// The length of the quoted name in JSON (`"name"`), when [`Self::match_json`] can match
    /// it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn json_quoted_len(&self) -> usize {
        self.json.len().saturating_sub(1)
    }

    /// The encoded key's bytes at or above 0x80 (a matched key's share of the projection's
    /// count of them: `decode/msgpack/deferred.rs`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn high_bytes(&self) -> usize {
        self.high as usize
    }

    /// The encoded key's first byte: its MessagePack marker.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn marker(&self) -> u8 {
        self.wide[0]
    }

    /// Length of the encoded key in bytes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True if `buf[at..]` starts with this key.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn matches(&self, buf: &[u8], at: usize) -> bool {
        match buf.get(at..).and_then(|s| s.first_chunk::<WIDE>()) {
            Some(chunk) => self.matches_block(chunk, buf, at),
            None => buf.get(at..).is_some_and(|s| s.starts_with(&self.bytes)),
        }
    }

    /// A first test before [`Self::matches_block`], where most keys that differ fail: the
    /// first four bytes at the cursor, as a little-endian `word`, agree with the key's.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn head_matches(&self, word: u32) -> bool {
        word & self.head_mask == self.head
    }

    /// Bit `n` set when the key is a fixstr of `n` bytes (no bit for a longer key): the OR
    /// over an object's attributes tells which fixstr lengths can name one of them.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn fixstr_len_bit(&self) -> u32 {
        match self.wide[0] {
            m @ 0xa0..=0xbf => 1 << (m & 0x1f),
            _ => 0,
        }
    }

    /// The fixstr lengths of `entries`' keys, a bit per length ([`Self::fixstr_len_bit`]).
    pub(crate) fn fixstr_lens<'e>(entries: impl IntoIterator<Item = &'e AttrEntry>) -> u32 {
        entries
            .into_iter()
            .fold(0u32, |lens, e| lens | e.fixstr_len_bit())
    }

    /// [`Self::matches`] once the caller has loaded `block`, the 32 bytes of `buf` at `at`
    /// (so that one load serves the compares with several keys).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn matches_block(&self, block: &[u8; WIDE], buf: &[u8], at: usize) -> bool {
        eq_mask(block, &self.wide) & self.mask == self.mask
            && (self.mask != u32::MAX || self.long_tail_matches(buf, at))
    }

    /// True if `block` (32 bytes of the input) starts with this key and the key is shorter
    /// than the block (a longer one is never matched here).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn matches_short_block(&self, block: &[u8; WIDE]) -> bool {
        eq_mask(block, &self.wide) & self.mask == self.mask && self.mask != u32::MAX
    }

    /// For a key of 32 bytes or more, whose first 32 bytes matched: the rest.
    #[cold]
    fn long_tail_matches(&self, buf: &[u8], at: usize) -> bool {
        buf.get(at..).is_some_and(|s| s.starts_with(&self.bytes))
    }

    /// When `buf[at..]` starts with this key in JSON, quoted and directly followed by its
    /// colon (go-cty's and Terraform's form): the position after the colon. Never for a name
    /// that needs escaping.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn match_json_compact(&self, buf: &[u8], at: usize) -> Option<usize> {
        // `json` was read at `at`: the sum is within `buf`.
        self.json_matches(buf, at, self.json_mask, true)
            .then(|| at.wrapping_add(self.json.len()))
    }

    /// True if `buf[at..]` starts with `json` (the quoted name and its colon, or without the
    /// colon), of which `mask` marks the bytes in the first 32 (0: no fast form, nothing
    /// matches); a longer key's rest is compared out of line.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn json_matches(&self, buf: &[u8], at: usize, mask: u32, colon: bool) -> bool {
        match buf.get(at..).and_then(|s| s.first_chunk::<WIDE>()) {
            Some(chunk) => {
                mask != 0
                    && eq_mask(chunk, &self.json_wide) & mask == mask
                    && (mask != u32::MAX || self.long_json_matches(buf, at, colon))
            }
            None => mask != 0 && self.long_json_matches(buf, at, colon),
        }
    }

    /// `json` (without its colon unless `colon`) at `at`, compared whole.
    #[cold]
    fn long_json_matches(&self, buf: &[u8], at: usize, colon: bool) -> bool {
        let len = self.json.len().saturating_sub(usize::from(!colon));
        let json = self.json.as_bytes().get(..len);
        buf.get(at..)
            .zip(json)
            .is_some_and(|(s, q)| s.starts_with(q))
    }

    /// When `buf[at..]` starts with this key in JSON, quoted, then its colon (directly, as
    /// go-cty writes it, or after whitespace, as Terraform's indented state files have it):
    /// the position after the colon. Never for a name that needs escaping.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn match_json(&self, buf: &[u8], at: usize) -> Option<usize> {
        // The quoted name's length (`json` ends in the colon; empty when there is no fast
        // form, and then `json_key_mask` is 0 and nothing matches).
        let quoted = self.json.len().wrapping_sub(1);
        let key_matches = self.json_matches(buf, at, self.json_key_mask, false);
        if !key_matches {
            return None;
        }
        // `at + quoted` is within `buf` or just past it (the key's bytes were read).
        let mut i = at.wrapping_add(quoted);
        loop {
            match buf.get(i) {
                Some(b':') => return Some(i.wrapping_add(1)),
                Some(b' ' | b'\n' | b'\r' | b'\t') => i = i.wrapping_add(1),
                _ => return None,
            }
        }
    }
}

/// The first 32 bytes of `key`, zero-padded, and the mask of those that count.
fn padded(key: &[u8]) -> ([u8; WIDE], u32) {
    let n = key.len().min(WIDE);
    let mut wide = [0u8; WIDE];
    for (w, &k) in wide.iter_mut().zip(key) {
        *w = k;
    }
    (wide, first(n))
}

/// The shortest MessagePack str encoding of `name` (header and bytes), as go-cty writes keys.
fn msgpack_key(name: &str) -> Box<[u8]> {
    let mut out = Vec::with_capacity(name.len().saturating_add(5));
    write_msgpack_str(name, &mut out);
    out.into_boxed_slice()
}

/// Appends `s` as the shortest MessagePack str (fixstr, str8, str16 or str32), as go-cty
/// writes every string (the encoder writes strings of 64 bytes and more with it).
pub(crate) fn write_msgpack_str(s: &str, out: &mut Vec<u8>) {
    let n = s.len();
    let mut spare = Spare::new(out);
    spare.reserve(n.saturating_add(5));
    // SAFETY: a header of at most 5 bytes and the string's bytes, reserved above.
    unsafe {
        if n < 32 {
            spare.byte(0xa0 | n as u8);
        } else if n <= 0xff {
            spare.block(&[0xd9, n as u8], 2);
        } else if n <= 0xffff {
            spare.byte(0xda);
            spare.block(&(n as u16).to_be_bytes(), 2);
        } else {
            spare.byte(0xdb);
            spare.block(&(n as u32).to_be_bytes(), 4);
        }
        spare.slice(s.as_bytes());
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;

    /// Naive oracle: the encoded key is a prefix of `buf[at..]`.
    fn naive(e: &AttrEntry, buf: &[u8], at: usize) -> bool {
        buf.get(at..).is_some_and(|s| s.starts_with(&e.bytes))
    }

    /// Naive oracle of `match_json`: `"name"`, whitespace, `:`.
    fn naive_json(name: &str, buf: &[u8]) -> Option<usize> {
        let quoted = format!("\"{name}\"");
        let rest = buf.strip_prefix(quoted.as_bytes())?;
        let ws = rest.iter().take_while(|c| b" \n\r\t".contains(c)).count();
        (rest.get(ws) == Some(&b':')).then_some(quoted.len() + ws + 1)
    }

    #[test]
    fn json_compare_equals_naive_prefix_check() {
        let long = "z".repeat(45);
        let names = [
            "",
            "a",
            "tags_all",
            &"x".repeat(29),
            &"y".repeat(30),
            &"w".repeat(31),
            &long,
            "q\"x",
            "b\\s",
        ];
        for name in names {
            let e = AttrEntry::new(name, OpId(0), Op::Bool);
            let escapes = name.contains('"') || name.contains('\\');
            for colon in [":", " :", ": ", "\n\t :"] {
                let enc = format!("\"{name}\"{colon}").into_bytes();
                // (Under Miri every fifth cut, and always the last two: the whole key.)
                let step = crate::test_rng::rounds(1, 5);
                let cuts = (0..=enc.len()).filter(|c| c % step == 0 || c + 1 >= enc.len());
                for cut in cuts {
                    for pad in [0usize, 1, 40] {
                        let mut buf = enc[..cut].to_vec();
                        buf.extend(std::iter::repeat_n(b' ', pad));
                        let want = if escapes {
                            None
                        } else {
                            naive_json(name, &buf)
                        };
                        assert_eq!(
                            e.match_json(&buf, 0),
                            want,
                            "{name:?} {colon:?} {cut} {pad}"
                        );
                        if cut > 0 {
                            let mut flipped = buf.clone();
                            flipped[cut - 1] ^= 1;
                            let want = if escapes {
                                None
                            } else {
                                naive_json(name, &flipped)
                            };
                            assert_eq!(e.match_json(&flipped, 0), want);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn wide_compare_equals_naive_prefix_check() {
        let names = [
            "",
            "a",
            "id",
            "tags_all",
            &"x".repeat(30),
            &"y".repeat(31),
            &"z".repeat(40),
        ];
        for name in names {
            let e = AttrEntry::new(name, OpId(0), Op::Bool);
            let enc = msgpack_key(name).to_vec();
            let mut inputs = vec![enc.clone()];
            for cut in (0..enc.len()).step_by(crate::test_rng::rounds(1, 3)) {
                inputs.push(enc[..cut].to_vec());
                let mut flipped = enc.clone();
                flipped[cut] ^= 1;
                inputs.push(flipped);
            }
            for mut input in inputs {
                for pad in [0usize, 1, 31, 40] {
                    let at = pad % 3;
                    let mut buf = vec![0xc0; at];
                    buf.append(&mut input.clone());
                    buf.extend(std::iter::repeat_n(0x5a, pad));
                    assert_eq!(e.matches(&buf, at), naive(&e, &buf, at), "{name:?} {buf:?}");
                }
                input.clear();
            }
        }
    }
}
