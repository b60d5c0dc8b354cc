//! JSON numbers: the grammar `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, digit
//! runs eight bytes at a time, and the value of a plain integer that fits `i64` (not `-0`: go-cty
//! keeps the sign of a zero it parsed and writes it back, so `-0` stays text).

use super::scan::is_word;
use crate::bytes::{digit_dot_masks, BLOCK};
use crate::decode::common::Pending;
use crate::error::ErrorKind;

/// Reads a number at `at` (its first byte is `-` or a digit) following JSON's grammar
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Returns the end and, for a plain
/// integer that fits `i64`, its value.
#[inline(always)]
pub(super) fn number(buf: &[u8], at: usize) -> Result<(usize, Option<i64>), Pending> {
    // (Every `wrapping_add` steps over bytes just read: see `scan.rs` on positions.)
    let mut i = at;
    let neg = buf.get(i) == Some(&b'-');
    i = i.wrapping_add(neg as usize);
    let int_start = i;
    match buf.get(i) {
        Some(b'0') => i = i.wrapping_add(1),
        Some(b'1'..=b'9') => i = skip_digits(buf, i.wrapping_add(1)),
        _ => return Err(bad_number(buf, at, i)),
    }
    // One table lookup tells the common end of an integer (a separator, a bracket, the end
    // of the input) from a fraction, an exponent or a glued word, which take the slow path.
    if let Some(&c) = buf.get(i) {
        if is_word(c) {
            return fraction_and_exponent(buf, at, i).map(|end| (end, None));
        }
    }
    // Up to 19 digits fit a u64 (10^19 - 1 < 2^64).
    let int_digits = buf.get(int_start..i).unwrap_or_default();
    if int_digits.len() > 19 {
        return Ok((i, None));
    }
    let v = digits_value(int_digits);
    let int = if neg {
        0i64.checked_sub_unsigned(v).filter(|&n| n != 0)
    } else {
        i64::try_from(v).ok()
    };
    Ok((i, int))
}

/// The rest of a number whose integer part ends at `i`, before a word byte: `. digits`, then
/// `[eE] [+-]? digits`, then anything but a word byte. Returns the end.
#[inline(always)]
fn fraction_and_exponent(buf: &[u8], at: usize, mut i: usize) -> Result<usize, Pending> {
    if buf.get(i) == Some(&b'.') {
        i = digits(buf, at, i.wrapping_add(1))?;
    }
    if matches!(buf.get(i), Some(b'e' | b'E')) {
        i = i.wrapping_add(1);
        if matches!(buf.get(i), Some(b'+' | b'-')) {
            i = i.wrapping_add(1);
        }
        i = digits(buf, at, i)?;
    }
    if let Some(&c) = buf.get(i) {
        if is_word(c) {
            return Err(bad_number(buf, at, i));
        }
    }
    Ok(i)
}

/// A number at `at` in its common forms, `-?int` and `-?int.digits`, read from the one
/// 32-byte block at `at` with one digit mask: `Some` with exactly what [`number`] returns when
/// the number and the byte after it lie inside the block and it has no exponent; `None` for
/// anything else (the caller then calls [`number`], which also reports every error).
#[inline(always)]
pub(super) fn short_number(buf: &[u8], at: usize) -> Option<(usize, Option<i64>)> {
    let block = buf.get(at..)?.first_chunk::<BLOCK>()?;
    let neg = block.first() == Some(&b'-');
    let start = neg as usize;
    let (digits, _) = digit_dot_masks(block);
    // (As a u64 the shifts below stay in range and a run always ends by bit 32.)
    let digits = u64::from(digits);
    let int_len = (!(digits >> start)).trailing_zeros() as usize;
    if int_len == 0 || (int_len > 1 && block.get(start) == Some(&b'0')) {
        return None;
    }
    let int_end = start.wrapping_add(int_len);
    let next = *block.get(int_end)?;
    if !is_word(next) {
        let end = at.wrapping_add(int_end);
        if int_len > 19 {
            return Some((end, None));
        }
        let v = block_digits_value(block, start, int_len);
        let int = if neg {
            0i64.checked_sub_unsigned(v).filter(|&n| n != 0)
        } else {
            i64::try_from(v).ok()
        };
        return Some((end, int));
    }
    if next != b'.' {
        return None;
    }
    let frac_start = int_end.wrapping_add(1);
    let frac_len = (!(digits >> frac_start)).trailing_zeros() as usize;
    let end = frac_start.wrapping_add(frac_len);
    if frac_len == 0 || is_word(*block.get(end)?) {
        return None;
    }
    Some((at.wrapping_add(end), None))
}

/// The value of the `len` (1 to 19) digits at `block[start..]` (`start` 0 or 1), eight at a
/// time, the last group masked in place: no loop over single digits.
#[inline(always)]
fn block_digits_value(block: &[u8; BLOCK], start: usize, len: usize) -> u64 {
    /// 10^k for k = 0..=8.
    const POW10: [u64; 9] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
    ];
    let word = |i: usize| {
        // `start + 24 <= 25`: every group read lies inside the block.
        let bytes = block.get(i..).and_then(|b| b.first_chunk::<8>()).copied();
        u64::from_le_bytes(bytes.unwrap_or([b'0'; 8]))
    };
    // The last group, `k` (1 to 8) digits: moved to the top of the word, so the bytes after
    // it fall out and zeros (leading zeros) come in below. The subtraction first: bytes past
    // the digits may borrow, but only upward, into bytes that are shifted out.
    let last = |i: usize, k: usize| {
        let shift = (8usize.wrapping_sub(k) as u32).wrapping_mul(8);
        lanes_value(word(i).wrapping_sub(0x3030_3030_3030_3030) << shift)
    };
    if len <= 8 {
        return last(start, len);
    }
    let first = eight_digits(&word(start).to_le_bytes());
    let rest = len.wrapping_sub(8);
    if rest <= 8 {
        let scale = POW10.get(rest).copied().unwrap_or(1);
        return first
            .wrapping_mul(scale)
            .wrapping_add(last(start.wrapping_add(8), rest));
    }
    let second = eight_digits(&word(start.wrapping_add(8)).to_le_bytes());
    let rest = rest.wrapping_sub(8);
    let scale = POW10.get(rest).copied().unwrap_or(1);
    let head = first.wrapping_mul(100_000_000).wrapping_add(second);
    head.wrapping_mul(scale)
        .wrapping_add(last(start.wrapping_add(16), rest))
}

/// The value of at most 19 ASCII digits: eight at a time (SWAR), then one at a time.
#[inline(always)]
fn digits_value(mut digits: &[u8]) -> u64 {
    let mut v: u64 = 0;
    while let Some((eight, rest)) = digits.split_first_chunk::<8>() {
        v = v
            .wrapping_mul(100_000_000)
            .wrapping_add(eight_digits(eight));
        digits = rest;
    }
    for &d in digits {
        v = v.wrapping_mul(10).wrapping_add(d.wrapping_sub(b'0') as u64);
    }
    v
}

/// The value of eight ASCII digits, the first the most significant, in three multiplies.
#[inline(always)]
fn eight_digits(eight: &[u8; 8]) -> u64 {
    lanes_value(u64::from_le_bytes(*eight).wrapping_sub(0x3030_3030_3030_3030))
}

/// The value of eight digit values 0-9 in the bytes of `v`, the lowest byte the most
/// significant digit.
#[inline(always)]
fn lanes_value(v: u64) -> u64 {
    // Each step joins neighbouring lanes, `high lane + low lane * 10^k` (bytes, then 16-bit,
    // then 32-bit lanes), and masks off the lanes that now hold partial sums. Lanes never
    // overflow: 99, 9999, 99999999.
    let v = v.wrapping_mul(10).wrapping_add(v >> 8) & 0x00ff_00ff_00ff_00ff;
    let v = v.wrapping_mul(100).wrapping_add(v >> 16) & 0x0000_ffff_0000_ffff;
    v.wrapping_mul(10_000).wrapping_add(v >> 32) & 0xffff_ffff
}

/// The end of the run of digits from `i`, eight bytes at a time.
#[inline(always)]
fn skip_digits(buf: &[u8], mut i: usize) -> usize {
    // Runs shorter than 32 digits (nearly all): one 32-byte digit mask.
    if let Some(block) = buf.get(i..).and_then(|s| s.first_chunk::<BLOCK>()) {
        let (digits, _) = digit_dot_masks(block);
        let run = (!digits).trailing_zeros();
        if run < BLOCK as u32 {
            return i.wrapping_add(run as usize);
        }
        i = i.wrapping_add(BLOCK);
    }
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = buf.get(i..).and_then(|s| s.first_chunk::<8>()) {
        let x = u64::from_le_bytes(*chunk);
        // A byte's high bit ends up set if it is above '9' (+0x46 carries into bit 7), below
        // '0' (the subtraction wraps) or non-ASCII. Carries and borrows move only upward, so
        // the lowest flagged byte is exact.
        let other =
            (x.wrapping_add(0x4646_4646_4646_4646) | x.wrapping_sub(0x3030_3030_3030_3030) | x)
                & HIGH;
        if other != 0 {
            return i.wrapping_add((other.trailing_zeros() / 8) as usize);
        }
        i = i.wrapping_add(8);
    }
    while buf.get(i).is_some_and(u8::is_ascii_digit) {
        i = i.wrapping_add(1);
    }
    i
}

/// One or more digits from `i`.
#[inline(always)]
fn digits(buf: &[u8], at: usize, i: usize) -> Result<usize, Pending> {
    let end = skip_digits(buf, i);
    if end == i {
        return Err(bad_number(buf, at, i));
    }
    Ok(end)
}

#[cold]
#[inline(never)]
fn bad_number(buf: &[u8], at: usize, i: usize) -> Pending {
    if i >= buf.len() {
        return Pending::new(
            ErrorKind::Eof,
            at,
            "unexpected end of input in a number".into(),
        );
    }
    // The number and the word characters glued to it, at most 40 bytes from `at`.
    let rest = buf.get(at..).unwrap_or_default();
    let head = i.saturating_sub(at);
    let glued = rest.get(head..).unwrap_or_default();
    let n = glued.iter().take(40).take_while(|&&c| is_word(c)).count();
    let end = head.saturating_add(n).min(40).max(head);
    let text = String::from_utf8_lossy(rest.get(..end).unwrap_or_default());
    Pending::new(ErrorKind::Syntax, at, format!("invalid number {text:?}"))
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;

    #[test]
    fn digit_runs() {
        for len in 0..30 {
            for stop in [b' ', b'/', b':', b'a', 0x80, 0xff, b'.', 0] {
                let mut text = vec![b'7'; len];
                text.push(stop);
                text.extend_from_slice(b"123456789");
                assert_eq!(skip_digits(&text, 0), len, "{len} {stop}");
                assert_eq!(skip_digits(&text[..len], 0), len);
            }
        }
    }

    #[test]
    fn digit_values_equal_the_naive_oracle() {
        let naive = |d: &[u8]| d.iter().fold(0u64, |v, &c| v * 10 + (c - b'0') as u64);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..=19usize {
            for _ in 0..50 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        crate::test_rng::next(&mut x);
                        b'0' + (x % 10) as u8
                    })
                    .collect();
                assert_eq!(digits_value(&text), naive(&text), "{text:?}");
            }
            let nines = vec![b'9'; len];
            assert_eq!(digits_value(&nines), naive(&nines));
        }
        assert_eq!(eight_digits(b"12345678"), 12_345_678);
        assert_eq!(eight_digits(b"00000001"), 1);
        assert_eq!(eight_digits(b"99999999"), 99_999_999);
    }

    #[test]
    fn short_numbers_equal_the_general_scan() {
        let alphabet = b"0123456789-.eE+,] x0";
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut text = Vec::new();
        let mut checked = 0;
        for round in 0..200_000 {
            text.clear();
            let len = round % 40;
            // Mostly digits, with a sign, a point and stops now and then.
            for k in 0..len {
                crate::test_rng::next(&mut x);
                let pick = (x % 64) as usize;
                let c = if k == 0 && pick < 8 {
                    b'-'
                } else if pick < 44 {
                    b'0' + (pick % 10) as u8
                } else {
                    alphabet[pick % alphabet.len()]
                };
                text.push(c);
            }
            text.extend_from_slice(b",]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
            if let Some(short) = short_number(&text, 0) {
                checked += 1;
                let general = number(&text, 0).map_err(|p| p.0 .2);
                assert_eq!(Ok(short), general, "{:?}", String::from_utf8_lossy(&text));
            }
        }
        assert!(checked > 50_000, "{checked}");
        for (text, want) in [
            (&b"0,"[..], Some((1, Some(0)))),
            (b"-0]", Some((2, None))),
            (b"12345678901234567,", Some((17, Some(12345678901234567)))),
            (b"9223372036854775807,", Some((19, Some(i64::MAX)))),
            (b"-9223372036854775808,", Some((20, Some(i64::MIN)))),
            (b"9999999999999999999,", Some((19, None))),
            (b"1.25]", Some((4, None))),
            (b"1e5,", None),
            (b"01,", None),
            (b"1.,", None),
        ] {
            let mut padded = text.to_vec();
            padded.resize(40, b' ');
            assert_eq!(
                short_number(&padded, 0),
                want,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn numbers() {
        let ok = |s: &str| number(s.as_bytes(), 0).map_err(|p| p.0 .0);
        assert_eq!(ok("0"), Ok((1, Some(0))));
        assert_eq!(ok("-0"), Ok((2, None)));
        assert_eq!(ok("9223372036854775807"), Ok((19, Some(i64::MAX))));
        assert_eq!(ok("9223372036854775808"), Ok((19, None)));
        assert_eq!(ok("-9223372036854775808"), Ok((20, Some(i64::MIN))));
        assert_eq!(ok("-9223372036854775809"), Ok((20, None)));
        assert_eq!(ok("99999999999999999999999"), Ok((23, None)));
        assert_eq!(ok("1.5e-3,"), Ok((6, None)));
        assert_eq!(ok("1E+2]"), Ok((4, None)));
        for bad in ["01", "-01", "1.e3", "1x", "1.5.", "-a", "00", "1e5.0"] {
            assert_eq!(ok(bad), Err(ErrorKind::Syntax), "{bad}");
        }
        for cut in ["1.", "1e", "1e+", "-", "1.5e-"] {
            assert_eq!(ok(cut), Err(ErrorKind::Eof), "{cut}");
        }
    }
}
