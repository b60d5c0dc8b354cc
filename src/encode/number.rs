//! How go-cty writes a number: which of an integer, a float64 or decimal text
//! (`../shared/research/reference-semantics.md` §1.6, §2.2).
//!
//! go-cty holds a number as a `big.Float` (512 bits for parsed text) and writes it as an
//! integer when it is one that fits `int64`, else as a float64 when a float64 holds it exactly
//! (integers beyond `int64` included: the conformance cases show `cb` for them, where
//! `reference-semantics.md` §1.6 says text), and otherwise as its exact decimal text without
//! exponent (`Text('f', -1)`). ±Inf is a float64.

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
}

/// How go-cty writes `n`.
pub(crate) fn written<'a>(n: &Number<'a>) -> Written<'a> {
    match *n {
        Number::Int(i) => Written::Int(i),
        Number::UInt(u) => match i64::try_from(u) {
            Ok(i) => Written::Int(i),
            Err(_) => Written::Text(Cow::Owned(u.to_string())),
        },
        Number::Float(f) => float(f),
        Number::Decimal(text) => decimal(text),
    }
}

/// A float64 value (never NaN: the decoders reject it).
fn float<'a>(f: f64) -> Written<'a> {
    // An integer in `int64` range is an int; anything else a float64 holds (itself).
    if f.fract() == 0.0 && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
    {
        return Written::Int(f as i64);
    }
    Written::Float(f)
}

/// Decimal text as received (valid in Go's `ParseFloat` grammar).
fn decimal(text: &str) -> Written<'_> {
    let norm = normalize_decimal(text);
    match &*norm {
        "+Inf" => return Written::Float(f64::INFINITY),
        "-Inf" => return Written::Float(f64::NEG_INFINITY),
        _ => {}
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
        assert_eq!(written(&Number::Float(2.0)), Written::Int(2));
        assert_eq!(written(&Number::Float(0.1)), Written::Float(0.1));
        assert_eq!(written(&Number::Float(1e20)), Written::Float(1e20));
        assert_eq!(written(&Number::Float(-0.0)), Written::Int(0));
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
