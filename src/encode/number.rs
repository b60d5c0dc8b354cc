//! How go-cty writes a number: which of an integer, a float64 or decimal text
//! (`../shared/research/reference-semantics.md` §1.6, §2.2).
//!
//! go-cty holds a number as a `big.Float` (512 bits for parsed text) and writes it as an
//! integer when it is one that fits `int64`, else as a float64 when a float64 holds it exactly
//! (integers beyond `int64` included: the conformance cases show `cb` for them, where
//! `reference-semantics.md` §1.6 says text), and otherwise as its exact decimal text without
//! exponent (`Text('f', -1)`). ±Inf is a float64.
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects)]

use std::borrow::Cow;

use crate::number::{normalize_decimal, Number};

/// A number as go-cty writes it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Written<'a> {
    /// An integer that fits `int64`.
    Int(i64),
    /// A non-integer that a float64 holds exactly, or ±Inf.
    Float(f64),
    /// Anything else, as plain decimal text (no exponent, no trailing fraction zeros).
    Text(Cow<'a, str>),
    /// Decimal text whose plain form would run past [`MAX_PLAIN_DIGITS`] digits (`1e999999`):
    /// not written, rather than allocated in proportion to an exponent the input claims.
    TooLong,
}

impl<'a> Written<'a> {
    /// The text, for [`Written::Text`].
    pub(crate) fn text(self) -> Option<Cow<'a, str>> {
        match self {
            Written::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// Most digits of a decimal exponent (either sign) that the plain form is written out for.
pub(crate) const MAX_PLAIN_DIGITS: u64 = 4096;

/// How go-cty writes `n`.
pub(crate) fn written<'a>(n: &Number<'a>) -> Written<'a> {
    match *n {
        Number::Int(i) => Written::Int(i),
        Number::UInt(u) => match i64::try_from(u) {
            Ok(i) => Written::Int(i),
            // Beyond `int64`: a float64 when its 53-bit significand holds it exactly.
            Err(_) if (u >> u.trailing_zeros()) < (1 << 53) => Written::Float(u as f64),
            Err(_) => Written::Text(Cow::Owned(u.to_string())),
        },
        Number::Float(f) => float(f),
        Number::Decimal(text) => decimal(text),
    }
}

/// A float64 value (never NaN: the decoders reject it).
fn float<'a>(f: f64) -> Written<'a> {
    // An integer in `int64` range is an int; anything else a float64 holds (itself).
    if is_integral(f) && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        return Written::Int(f as i64);
    }
    Written::Float(f)
}

/// True if the finite `f` is an integer: read off its bits (`f.fract() == 0.0` is a call to
/// libm's `trunc` on the x86-64 baseline, which has no rounding instruction).
fn is_integral(f: f64) -> bool {
    let bits = f.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1023;
    match exp {
        // |f| < 1: an integer only when zero.
        ..=-1 => bits << 1 == 0,
        // Every bit of the 52-bit fraction field above the binary point.
        52.. => true,
        _ => bits & ((1u64 << (52 - exp)) - 1) == 0,
    }
}

/// Decimal text as received (valid in Go's `ParseFloat` grammar).
fn decimal(text: &str) -> Written<'_> {
    if let Some(w) = canonical(text) {
        return w;
    }
    let norm = normalize_decimal(text);
    match &*norm {
        "+Inf" => return Written::Float(f64::INFINITY),
        "-Inf" => return Written::Float(f64::NEG_INFINITY),
        _ => {}
    }
    // The exponent decides how many zeros the plain form spells out: bounded first.
    if let Some((_, exp)) = norm.split_once(['e', 'E']) {
        let small = exp
            .trim_start_matches(['+', '-'])
            .parse::<u64>()
            .is_ok_and(|e| e <= MAX_PLAIN_DIGITS);
        if !small {
            return Written::TooLong;
        }
    }
    let exact = plain(&norm);
    if !exact.contains('.') {
        if let Ok(i) = exact.parse::<i64>() {
            return Written::Int(i);
        }
    }
    // Otherwise a float64 if one holds it exactly (an integer beyond `int64` too).
    if let Ok(f) = exact.parse::<f64>() {
        if f.is_finite() && plain(&exact_f64(f)) == exact {
            return Written::Float(f);
        }
    }
    if exact == text {
        Written::Text(Cow::Borrowed(text))
    } else {
        Written::Text(Cow::Owned(exact))
    }
}

/// How go-cty's JSON encoder writes decimal text it parsed: `Text('f', -1)` of the 512-bit
/// value, the exact value in plain form (no exponent; a negative zero keeps its sign, `-0`);
/// ±Inf as [`Written::Float`] (the caller refuses it), and [`Written::TooLong`] past
/// [`MAX_PLAIN_DIGITS`]. Never [`Written::Int`].
pub(crate) fn plain_decimal(text: &str) -> Written<'_> {
    if in_plain_form(text.as_bytes()) {
        return Written::Text(Cow::Borrowed(text));
    }
    let norm = normalize_decimal(text);
    match &*norm {
        "+Inf" => return Written::Float(f64::INFINITY),
        "-Inf" => return Written::Float(f64::NEG_INFINITY),
        _ => {}
    }
    if let Some((_, exp)) = norm.split_once(['e', 'E']) {
        let small = exp
            .trim_start_matches(['+', '-'])
            .parse::<u64>()
            .is_ok_and(|e| e <= MAX_PLAIN_DIGITS);
        if !small {
            return Written::TooLong;
        }
    }
    let exact = plain(&norm);
    if exact == "0" && norm.starts_with('-') {
        return Written::Text(Cow::Borrowed("-0"));
    }
    Written::Text(Cow::Owned(exact))
}

/// True for text in go-cty's plain form: `-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?`.
fn in_plain_form(text: &[u8]) -> bool {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let (int, frac) = match digits.iter().position(|&c| c == b'.') {
        Some(p) => (digits.get(..p).unwrap_or_default(), digits.get(p + 1..)),
        None => (digits, None),
    };
    let int_ok = int == b"0"
        || (matches!(int.first(), Some(b'1'..=b'9')) && int.iter().all(u8::is_ascii_digit));
    int_ok
        && frac.is_none_or(|f| {
            f.iter().all(u8::is_ascii_digit) && matches!(f.last(), Some(b'1'..=b'9'))
        })
}

/// The answer for text already in go-cty's plain form (`-?(0|[1-9][0-9]*)(.[0-9]*[1-9])?`,
/// what it writes for numbers that are neither `int64` nor float64), without allocating,
/// from its digits as a `u128` (up to 38 digits). Beyond 38 digits only the cheap
/// disproofs: an integer that a float64 holds is a multiple of 2^74 there (so its last 38
/// digits are a multiple of 2^38), and a non-integer's expansion ends in 5. `None` sends
/// anything else to the general path.
fn canonical(text: &str) -> Option<Written<'_>> {
    let b = text.as_bytes();
    let negative = b.first() == Some(&b'-');
    let digits = if negative { b.get(1..)? } else { b };
    let (int, frac) = match digits.iter().position(|&c| c == b'.') {
        Some(p) => (digits.get(..p)?, digits.get(p + 1..)),
        None => (digits, None),
    };
    let plain_int = !int.is_empty()
        && int.iter().all(u8::is_ascii_digit)
        && (int.len() == 1 || int.first() != Some(&b'0'));
    if !plain_int {
        return None;
    }
    let as_text = || Some(Written::Text(Cow::Borrowed(text)));
    let value = |ds: &[&[u8]]| -> Option<u128> {
        let mut v: u128 = 0;
        for d in ds.iter().flat_map(|d| d.iter()) {
            v = v.checked_mul(10)?.checked_add(u128::from(d - b'0'))?;
        }
        Some(v)
    };
    // `m` (odd part of) fits a float64's 53-bit significand.
    let fits = |m: u128| m == 0 || (m >> m.trailing_zeros()) < (1u128 << 53);
    match frac {
        None => {
            if let Ok(i) = text.parse::<i64>() {
                return Some(Written::Int(i));
            }
            if int.len() > 38 {
                let last = value(&[int.get(int.len() - 38..)?])?;
                return if last % (1u128 << 38) != 0 {
                    as_text()
                } else {
                    None
                };
            }
            let n = value(&[int])?;
            if fits(n) {
                let f = n as f64;
                Some(Written::Float(if negative { -f } else { f }))
            } else {
                as_text()
            }
        }
        Some(f) => {
            let last = *f.last()?;
            if !f.iter().all(u8::is_ascii_digit) || last == b'0' {
                return None;
            }
            if last != b'5' {
                return as_text();
            }
            let k = f.len();
            if int.len() + k > 38 || k > 55 {
                return None;
            }
            // value = n / 10^k = (n / 5^k) / 2^k: exact in a float64 when 5^k divides n
            // and the quotient fits the significand (k <= 55 keeps 2^-k far from subnormal).
            let n = value(&[int, f])?;
            let five_k = 5u128.checked_pow(k as u32)?;
            if n % five_k != 0 || !fits(n / five_k) {
                return as_text();
            }
            text.parse::<f64>().ok().map(Written::Float)
        }
    }
}

/// The exact decimal value of a finite float64, as normalized text (possibly with a fraction).
fn exact_f64(f: f64) -> String {
    let bits = f.to_bits();
    let negative = bits >> 63 == 1;
    let exp_bits = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (mantissa, exp) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    let sign = if negative { "-" } else { "" };
    // `m p e` is exact decimal text for `m × 2^e` (the number module expands it exactly).
    let text = format!("{sign}{mantissa}p{exp}");
    normalize_decimal(&text).into_owned()
}

/// Normalized decimal text (`-?digits(.digits)?(e[+-]?digits)?`) written without exponent,
/// without leading zeros and without trailing zeros in the fraction: Go's `Text('f', -1)`
/// for a value it holds exactly. `-0` is `0`.
fn plain(norm: &str) -> String {
    let (negative, body) = match norm.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, norm),
    };
    let (mantissa, exp) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.trim_start_matches('+').parse::<i64>().unwrap_or(0)),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = [int, frac].concat();
    // Position of the decimal point within `digits`.
    let point = int.len() as i64 + exp;
    let (int_part, frac_part) = if point <= 0 {
        let zeros = "0".repeat(point.unsigned_abs() as usize);
        (String::new(), format!("{zeros}{digits}"))
    } else if point as usize >= digits.len() {
        let zeros = "0".repeat(point as usize - digits.len());
        (format!("{digits}{zeros}"), String::new())
    } else {
        let (i, f) = digits.split_at(point as usize);
        (i.to_string(), f.to_string())
    };
    let int_part = int_part.trim_start_matches('0');
    let frac_part = frac_part.trim_end_matches('0');
    let mut out = String::new();
    if negative && !(int_part.is_empty() && frac_part.is_empty()) {
        out.push('-');
    }
    out.push_str(if int_part.is_empty() { "0" } else { int_part });
    if !frac_part.is_empty() {
        out.push('.');
        out.push_str(frac_part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Written<'static> {
        Written::Text(Cow::Owned(s.to_string()))
    }

    #[test]
    fn go_cty_choices() {
        let d = |s: &'static str| written(&Number::Decimal(s));
        assert_eq!(d("100"), Written::Int(100));
        assert_eq!(d("1e3"), Written::Int(1000));
        assert_eq!(d("-0"), Written::Int(0));
        assert_eq!(d("1.50"), Written::Float(1.5));
        assert_eq!(d("0.1"), text("0.1"));
        assert_eq!(
            d("9223372036854775808"),
            Written::Float(9223372036854775808.0)
        );
        assert_eq!(d("9223372036854775809"), text("9223372036854775809"));
        assert_eq!(d("-9223372036854775808"), Written::Int(i64::MIN));
        assert_eq!(d("1.5e-7"), text("0.00000015"));
        assert_eq!(d("12345678901234567890.5"), text("12345678901234567890.5"));
        assert_eq!(d("+Inf"), Written::Float(f64::INFINITY));
        assert_eq!(d("1p-1"), Written::Float(0.5));
        assert_eq!(
            written(&Number::UInt(u64::MAX)),
            text("18446744073709551615")
        );
        assert_eq!(written(&Number::UInt(7)), Written::Int(7));
        assert_eq!(
            written(&Number::UInt(1 << 63)),
            Written::Float(9223372036854775808.0)
        );
        assert_eq!(
            written(&Number::UInt(16369146436479901696)),
            Written::Float(16369146436479901696.0)
        );
        assert_eq!(written(&Number::Float(2.0)), Written::Int(2));
        assert_eq!(written(&Number::Float(0.1)), Written::Float(0.1));
        assert_eq!(written(&Number::Float(1e20)), Written::Float(1e20));
        assert_eq!(written(&Number::Float(-0.0)), Written::Int(0));
    }

    #[test]
    fn the_plain_form_fast_path_agrees_with_the_general_path() {
        for t in [
            "0",
            "-0",
            "7",
            "-12",
            "9223372036854775807",
            "9223372036854775808",
            "0.1",
            "-0.3",
            "1.25",
            "12.5",
            "0.10",
            "01.5",
            "1.",
            ".5",
            "1e5",
            "123456789012345678901.7",
            "0.000000000000000000000000000001",
            "-5.5",
            "2.675",
        ] {
            if let Some(fast) = canonical(t) {
                let norm = normalize_decimal(t);
                let exact = plain(&norm);
                let general = match exact.parse::<i64>() {
                    Ok(i) if !exact.contains('.') => Written::Int(i),
                    _ => match exact.parse::<f64>() {
                        Ok(f) if plain(&exact_f64(f)) == exact => Written::Float(f),
                        _ => Written::Text(Cow::Owned(exact)),
                    },
                };
                assert_eq!(fast, general, "{t}");
            }
        }
        assert_eq!(canonical("0.1"), Some(Written::Text(Cow::Borrowed("0.1"))));
        assert_eq!(canonical("1.5"), Some(Written::Float(1.5)));
        assert_eq!(
            canonical("-2.675"),
            Some(Written::Text(Cow::Borrowed("-2.675")))
        );
        assert_eq!(canonical("0.10"), None);
        assert_eq!(
            canonical("9223372036854775808"),
            Some(Written::Float(9223372036854775808.0))
        );
        assert_eq!(
            canonical("9223372036854775809"),
            Some(Written::Text(Cow::Borrowed("9223372036854775809")))
        );
    }

    #[test]
    fn huge_exponents_are_refused_not_spelled_out() {
        assert_eq!(written(&Number::Decimal("1e999999999")), Written::TooLong);
        assert_eq!(
            written(&Number::Decimal("-1e-99999999999999999999999")),
            Written::TooLong
        );
        assert_eq!(
            written(&Number::Decimal("1e4096")),
            text(&format!("1{}", "0".repeat(4096)))
        );
    }

    #[test]
    fn integral_floats_by_their_bits() {
        for f in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.5,
            0.5,
            1e-300,
            4503599627370495.5,
            4503599627370496.0,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            123.0,
            -7.25,
        ] {
            assert_eq!(is_integral(f), f.fract() == 0.0, "{f}");
        }
    }

    #[test]
    fn plain_text() {
        assert_eq!(plain("1.25e2"), "125");
        assert_eq!(plain("1.25e-2"), "0.0125");
        assert_eq!(plain("0.500"), "0.5");
        assert_eq!(plain("-0.0"), "0");
        assert_eq!(plain("00012"), "12");
        assert_eq!(plain("5e0"), "5");
    }
}
