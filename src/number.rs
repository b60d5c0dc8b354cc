//! Lossless numbers ([`Number`]) and the decimal-text grammar numbers may arrive in.
//!
//! A number string follows Go's `big.ParseFloat` in base 10, which go-cty uses:
//! `[+-]? (digits ["." [digits]] | "." digits) [(e|E|p|P) [+-]? digits]`, or `[+-]? (Inf|inf)`.
//! A `p` exponent is binary (`1p4` is 16). Text is kept as received and only interpreted on
//! request, so nothing is ever rounded.
//!
//! Number text comes from the input, so nothing here may panic on it: the lints below hold
//! this module to that, as they hold the executors (`decode`).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

/// Largest binary exponent (`p`) accepted in number text: beyond it the exact decimal
/// expansion would be unreasonably long.
pub const MAX_BINARY_EXPONENT: u32 = 1100;

/// Most significant digits of the mantissa of `p`-exponent text that
/// [`Number::to_decimal_string`] (and everything built on it) expands exactly. The expansion
/// costs about (digits × exponent / 25) steps; beyond this bound the mantissa is first
/// truncated (toward zero) to its leading digits, so the result is approximate (relative
/// error below 10⁻⁴⁰⁹⁵) and hostile text (a megabyte of digits, `p1100`) stays cheap. go-cty
/// itself reads number text at 512 bits of precision (about 154 digits).
pub const MAX_BINARY_MANTISSA_DIGITS: usize = 4096;

/// 2⁶³ as an `f64` (exact).
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// A cty number exactly as it arrived.
///
/// ```
/// use tfwire::Number;
/// assert_eq!(Number::Int(-5).as_i64(), Some(-5));
/// assert_eq!(Number::Decimal("1e3").as_i64(), Some(1000));
/// assert_eq!(Number::Decimal(".5").to_decimal_string(), "0.5");
/// assert_eq!(Number::Decimal("1p4").to_decimal_string(), "16");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number<'a> {
    /// A MessagePack signed integer.
    Int(i64),
    /// A MessagePack unsigned integer.
    UInt(u64),
    /// A MessagePack float32 (widened exactly) or float64; never NaN.
    Float(f64),
    /// Decimal text (a MessagePack string, a JSON number literal), validated, as received.
    Decimal(&'a str),
}

impl<'a> Number<'a> {
    /// The value as an `i64` if it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Number::Int(i) => Some(i),
            Number::UInt(u) => i64::try_from(u).ok(),
            Number::Float(f) => {
                if f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f) {
                    Some(f as i64)
                } else {
                    None
                }
            }
            Number::Decimal(s) => decimal_as_integer(s).and_then(|d| d.parse::<i64>().ok()),
        }
    }

    /// The value as a `u64` if it is a non-negative integer in range.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Number::Int(i) => u64::try_from(i).ok(),
            Number::UInt(u) => Some(u),
            Number::Float(f) => {
                if f.fract() == 0.0 && (0.0..2.0 * TWO_POW_63).contains(&f) {
                    Some(f as u64)
                } else {
                    None
                }
            }
            Number::Decimal(s) => decimal_as_integer(s).and_then(|d| d.parse::<u64>().ok()),
        }
    }

    /// The nearest `f64` (infinities included).
    pub fn as_f64(&self) -> f64 {
        match *self {
            Number::Int(i) => i as f64,
            Number::UInt(u) => u as f64,
            Number::Float(f) => f,
            Number::Decimal(s) => decimal_to_f64(s),
        }
    }

    /// The decimal text as received, for a [`Number::Decimal`].
    pub fn decimal_text(&self) -> Option<&'a str> {
        match *self {
            Number::Decimal(s) => Some(s),
            _ => None,
        }
    }

    /// True for ±infinity.
    pub fn is_infinite(&self) -> bool {
        match *self {
            Number::Float(f) => f.is_infinite(),
            Number::Decimal(s) => s.trim_start_matches(['+', '-']).eq_ignore_ascii_case("inf"),
            _ => false,
        }
    }

    /// The exact value as a JSON number literal (`+5` → `5`, `.5` → `0.5`, `1p4` → `16`);
    /// infinities as `+Inf` / `-Inf`. A float is written in its shortest round-trip form.
    pub fn to_decimal_string(&self) -> String {
        match *self {
            Number::Int(i) => i.to_string(),
            Number::UInt(u) => u.to_string(),
            Number::Float(f) if f.is_infinite() => {
                if f > 0.0 { "+Inf" } else { "-Inf" }.to_string()
            }
            Number::Float(f) => format_f64(f),
            Number::Decimal(s) => normalize_decimal(s).into_owned(),
        }
    }
}

impl Number<'_> {
    /// Compares the exact values (never rounded): refinement bounds must not be judged
    /// through `f64`, where distinct decimals can round to one value.
    pub(crate) fn cmp_exact(&self, other: &Number<'_>) -> Ordering {
        let sign = |n: &Number<'_>| match n.as_f64() > 0.0 {
            true => Ordering::Greater,
            false => Ordering::Less,
        };
        match (self.is_infinite(), other.is_infinite()) {
            (true, true) => return sign(self).cmp(&sign(other)),
            (true, false) => return sign(self),
            (false, true) => return sign(other).reverse(),
            (false, false) => {}
        }
        // Rounding to f64 is monotonic, so different f64s order the exact values.
        let (a, b) = (self.as_f64(), other.as_f64());
        if a != b {
            return a.partial_cmp(&b).unwrap_or(Ordering::Equal);
        }
        let exact = |n: &Number<'_>| match *n {
            // Every finite f64 has at most 1074 decimal places; Rust prints them exactly.
            Number::Float(f) => format!("{f:.1074}"),
            _ => n.to_decimal_string(),
        };
        cmp_decimal(&exact(self), &exact(other))
    }
}

/// Sign, significant digits and exponent of finite decimal text: `±0.DIGITS × 10^exp`
/// (no digits for zero).
fn decompose(text: &str) -> (bool, String, i64) {
    let p = split(text);
    let overflow = match p.exp.starts_with('-') {
        true => i64::MIN / 4,
        false => i64::MAX / 4,
    };
    let exp = match p.exp_kind {
        b'e' => p.exp.parse::<i64>().unwrap_or(overflow),
        _ => 0,
    };
    let digits: String = p.int.chars().chain(p.frac.chars()).collect();
    let lead = digits.bytes().take_while(|&b| b == b'0').count();
    let point = (p.int.len() as i64)
        .saturating_sub(lead as i64)
        .saturating_add(exp);
    let sig = digits.trim_matches('0').to_string();
    (p.negative && !sig.is_empty(), sig, point)
}

fn cmp_decimal(x: &str, y: &str) -> Ordering {
    let (xn, xd, xe) = decompose(x);
    let (yn, yd, ye) = decompose(y);
    let sign = |neg: bool, d: &str| match (d.is_empty(), neg) {
        (true, _) => 0,
        (false, true) => -1,
        (false, false) => 1,
    };
    let (sx, sy) = (sign(xn, &xd), sign(yn, &yd));
    if sx != sy || sx == 0 {
        return sx.cmp(&sy);
    }
    let magnitude = xe.cmp(&ye).then_with(|| xd.as_bytes().cmp(yd.as_bytes()));
    if sx < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

impl fmt::Display for Number<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_decimal_string())
    }
}

/// Rust's shortest round-trip text, which is a valid JSON number for every finite f64.
fn format_f64(f: f64) -> String {
    let mut s = format!("{f}");
    if s == "-0" {
        s = "-0".to_string();
    }
    s
}

/// Checks `text` against Go's base-10 `ParseFloat` grammar (see the module docs).
pub fn is_valid_decimal(text: &[u8]) -> bool {
    let rest = match text.split_first() {
        Some((b'+' | b'-', rest)) => rest,
        _ => text,
    };
    if rest == b"Inf" || rest == b"inf" {
        return true;
    }
    let (int_digits, rest) = split_digits(rest);
    let (frac_digits, rest) = match rest.split_first() {
        Some((b'.', after)) => split_digits(after),
        _ => (&[][..], rest),
    };
    if int_digits.is_empty() && frac_digits.is_empty() {
        return false;
    }
    let Some((&marker, rest)) = rest.split_first() else {
        return true;
    };
    if !matches!(marker, b'e' | b'E' | b'p' | b'P') {
        return false;
    }
    let rest = match rest.split_first() {
        Some((b'+' | b'-', after)) => after,
        _ => rest,
    };
    let (exp_digits, rest) = split_digits(rest);
    if exp_digits.is_empty() {
        return false;
    }
    if matches!(marker, b'p' | b'P') {
        // A binary exponent beyond the limit: reject rather than expand.
        let digits = std::str::from_utf8(exp_digits).unwrap_or("");
        let digits = digits.trim_start_matches('0');
        // All zeros (`1p0`, `1p00`) trims to "": exponent 0.
        let exponent = if digits.is_empty() {
            Some(0)
        } else {
            digits.parse::<u32>().ok()
        };
        if digits.len() > 5 || exponent.is_none_or(|e| e > MAX_BINARY_EXPONENT) {
            return false;
        }
    }
    rest.is_empty()
}

/// The leading ASCII digits of `s`, and the rest.
fn split_digits(s: &[u8]) -> (&[u8], &[u8]) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    s.split_at_checked(n).unwrap_or((s, &[]))
}

struct Parts<'s> {
    negative: bool,
    int: &'s str,
    frac: &'s str,
    exp_kind: u8,
    exp: &'s str,
}

/// Splits validated decimal text. Callers pass only text that `is_valid_decimal` accepted.
fn split(text: &str) -> Parts<'_> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(body) => (true, body),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mant, exp_kind, exp) = match body.split_once(['e', 'E', 'p', 'P']) {
        // The marker is the byte right after the mantissa.
        Some((mant, exp)) => {
            let kind = body.as_bytes().get(mant.len()).copied().unwrap_or(b'e');
            (mant, kind.to_ascii_lowercase(), exp)
        }
        None => (body, 0, ""),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    Parts {
        negative,
        int,
        frac,
        exp_kind,
        exp,
    }
}

/// The exact value of validated decimal text as a JSON number literal (or `±Inf`).
pub fn normalize_decimal(text: &str) -> Cow<'_, str> {
    let body = text.trim_start_matches(['+', '-']);
    if body == "Inf" || body == "inf" {
        return Cow::Borrowed(if text.starts_with('-') {
            "-Inf"
        } else {
            "+Inf"
        });
    }
    let p = split(text);
    if p.exp_kind == b'p' {
        return Cow::Owned(binary_exponent(&p));
    }
    let int = p.int.trim_start_matches('0');
    let mut out = String::with_capacity(text.len().saturating_add(1));
    if p.negative {
        out.push('-');
    }
    out.push_str(if int.is_empty() { "0" } else { int });
    if !p.frac.is_empty() {
        out.push('.');
        out.push_str(p.frac);
    }
    if p.exp_kind == b'e' {
        out.push('e');
        out.push_str(p.exp);
    }
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// `mantissa × 2^exp` written exactly in decimal (no exponent), for a mantissa of up to
/// [`MAX_BINARY_MANTISSA_DIGITS`] significant digits. A longer mantissa is truncated (toward
/// zero) to that many leading significant digits first, so the result is then approximate;
/// either way the work is at most about `MAX_BINARY_MANTISSA_DIGITS × MAX_BINARY_EXPONENT /
/// 25` digit steps, plus time linear in the text's length.
fn binary_exponent(p: &Parts<'_>) -> String {
    let (exp_neg, exp_digits) = match p.exp.as_bytes().first() {
        Some(b'-') => (true, p.exp.get(1..).unwrap_or("")),
        Some(b'+') => (false, p.exp.get(1..).unwrap_or("")),
        _ => (false, p.exp),
    };
    let exp: u32 = exp_digits
        .trim_start_matches('0')
        .parse()
        .unwrap_or(if exp_digits.trim_start_matches('0').is_empty() {
            0
        } else {
            u32::MAX
        })
        .min(MAX_BINARY_EXPONENT);
    // The value is DIGITS × 10^-(fraction digits) × 2^±exp.
    let digits: Vec<u8> = p
        .int
        .bytes()
        .chain(p.frac.bytes())
        .map(|b| b.wrapping_sub(b'0'))
        .collect();
    let (Some(first), Some(last)) = (
        digits.iter().position(|&d| d != 0),
        digits.iter().rposition(|&d| d != 0),
    ) else {
        return "0".to_string();
    };
    // SIG × 10^e10 × 2^±exp, SIG without leading or trailing zeros. (Every count below is at
    // most the text's length, so the i64 arithmetic cannot overflow; it saturates anyway.)
    let sig = digits.get(first..=last).unwrap_or_default();
    let trailing = digits.len().saturating_sub(last).saturating_sub(1);
    let mut e10 = (trailing as i64).saturating_sub(p.frac.len() as i64);
    let sig = match sig.get(..MAX_BINARY_MANTISSA_DIGITS) {
        Some(kept) if kept.len() < sig.len() => {
            let dropped = sig.len().saturating_sub(kept.len());
            e10 = e10.saturating_add(dropped as i64);
            kept
        }
        _ => sig,
    };
    // 2^-exp = 5^exp × 10^-exp. Multiplies by `base^chunk` at a time, least significant
    // digit first: with `factor <= 2^59` (or 5^25), `digit × factor + carry < 10 × factor`
    // fits a u64, and the carry stays below `factor`.
    let (base, chunk) = if exp_neg { (5u64, 25) } else { (2u64, 59) };
    if exp_neg {
        e10 = e10.saturating_sub(i64::from(exp));
    }
    let mut le: Vec<u8> = sig.iter().rev().copied().collect();
    let mut left = exp;
    while left > 0 {
        let k = left.min(chunk);
        left = left.saturating_sub(k);
        // `base^k <= 2^59` or `5^25`: no overflow.
        let factor = base.wrapping_pow(k);
        let mut carry = 0u64;
        for d in le.iter_mut() {
            let v = u64::from(*d).wrapping_mul(factor).wrapping_add(carry);
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while carry > 0 {
            le.push((carry % 10) as u8);
            carry /= 10;
        }
    }
    // The integer R (digits `le`, no leading zeros) times 10^e10, in plain decimal.
    let r: String = le.iter().rev().map(|&d| char::from(b'0' | d)).collect();
    let mut out = String::new();
    if p.negative {
        out.push('-');
    }
    match usize::try_from(e10) {
        Ok(zeros) => {
            out.push_str(&r);
            out.extend(std::iter::repeat_n('0', zeros));
        }
        Err(_) => {
            let places = usize::try_from(e10.unsigned_abs()).unwrap_or(usize::MAX);
            let (int, frac) = match r.len().checked_sub(places) {
                Some(split) => r.split_at_checked(split).unwrap_or((&r, "")),
                None => ("", r.as_str()),
            };
            out.push_str(if int.is_empty() { "0" } else { int });
            let frac_zeros = places.saturating_sub(r.len());
            let frac = frac.trim_end_matches('0');
            if !frac.is_empty() {
                out.push('.');
                out.extend(std::iter::repeat_n('0', frac_zeros));
                out.push_str(frac);
            }
        }
    }
    out
}

/// If the validated decimal text is an integer, its plain digits with sign.
fn decimal_as_integer(text: &str) -> Option<String> {
    let norm = normalize_decimal(text);
    if norm.ends_with("Inf") {
        return None;
    }
    let p = split(&norm);
    let exp: i64 = if p.exp_kind == b'e' {
        p.exp.parse().ok()?
    } else {
        0
    };
    if exp.unsigned_abs() > 400 {
        return None;
    }
    let mut digits = String::from(p.int);
    digits.push_str(p.frac);
    // Digits before the point (none when the point is at or before the first digit).
    let point = usize::try_from((p.int.len() as i64).saturating_add(exp)).unwrap_or(0);
    let (int_part, frac_part) = match digits.split_at_checked(point) {
        Some((int, frac)) => (int.to_string(), frac.to_string()),
        None => {
            let zeros = point.saturating_sub(digits.len());
            let mut d = digits;
            d.extend(std::iter::repeat_n('0', zeros));
            (d, String::new())
        }
    };
    if frac_part.bytes().any(|b| b != b'0') {
        return None;
    }
    let int_part = int_part.trim_start_matches('0');
    let mut out = String::new();
    if p.negative && !int_part.is_empty() {
        out.push('-');
    }
    out.push_str(if int_part.is_empty() { "0" } else { int_part });
    Some(out)
}

fn decimal_to_f64(text: &str) -> f64 {
    let norm = normalize_decimal(text);
    match &*norm {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        s => s.parse().unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests;
