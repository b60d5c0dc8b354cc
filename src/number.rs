//! Lossless numbers ([`Number`]) and the decimal-text grammar numbers may arrive in.
//!
//! A number string follows Go's `big.ParseFloat` in base 10, which go-cty uses:
//! `[+-]? (digits ["." [digits]] | "." digits) [(e|E|p|P) [+-]? digits]`, or `[+-]? (Inf|inf)`.
//! A `p` exponent is binary (`1p4` is 16). Text is kept as received and only interpreted on
//! request, so nothing is ever rounded.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

/// Largest binary exponent (`p`) accepted in number text: beyond it the exact decimal
/// expansion would be unreasonably long.
pub const MAX_BINARY_EXPONENT: u32 = 1100;

/// 2⁶³ as an `f64` (exact).
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// A cty number exactly as it arrived.
///
/// ```
/// use tfwire::Number;
/// assert_eq!(Number::Int(-5).as_i64(), Some(-5));
/// assert_eq!(Number::Decimal(&"1e3").as_i64(), Some(1000));
/// assert_eq!(Number::Decimal(&".5").to_decimal_string(), "0.5");
/// assert_eq!(Number::Decimal(&"1p4").to_decimal_string(), "16");
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
    /// (Held behind a second reference so that a `Number` stays two words.)
    Decimal(&'a &'a str),
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
    let lead = digits.len() - digits.trim_start_matches('0').len();
    let point = (p.int.len() as i64 - lead as i64).saturating_add(exp);
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
    let mut i = 0;
    if matches!(text.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let rest = &text[i..];
    if rest == b"Inf" || rest == b"inf" {
        return true;
    }
    let start = i;
    while i < text.len() && text[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - start;
    let mut frac_digits = 0;
    if i < text.len() && text[i] == b'.' {
        i += 1;
        let fs = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - fs;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i < text.len() && matches!(text[i], b'e' | b'E' | b'p' | b'P') {
        i += 1;
        if i < text.len() && matches!(text[i], b'+' | b'-') {
            i += 1;
        }
        let es = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        if i == es {
            return false;
        }
        if matches!(text[es - 1..es], [b'p' | b'P'] | [b'+' | b'-']) && is_binary(text) {
            // A binary exponent beyond the limit: reject rather than expand.
            let digits = std::str::from_utf8(&text[es..i]).unwrap_or("");
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
    }
    i == text.len()
}

fn is_binary(text: &[u8]) -> bool {
    text.iter().any(|b| matches!(b, b'p' | b'P'))
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
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mant, exp_kind, exp) = match body.find(['e', 'E', 'p', 'P']) {
        Some(p) => (
            &body[..p],
            body.as_bytes()[p].to_ascii_lowercase(),
            &body[p + 1..],
        ),
        None => (body, 0, ""),
    };
    let (int, frac) = match mant.find('.') {
        Some(d) => (&mant[..d], &mant[d + 1..]),
        None => (mant, ""),
    };
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
    let mut out = String::with_capacity(text.len() + 1);
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

/// `mantissa × 2^exp` written exactly in decimal.
fn binary_exponent(p: &Parts<'_>) -> String {
    let (exp_neg, exp_digits) = match p.exp.as_bytes().first() {
        Some(b'-') => (true, &p.exp[1..]),
        Some(b'+') => (false, &p.exp[1..]),
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
    // Digits of the mantissa as a big integer, most significant first, and the count of
    // fractional decimal places.
    let mut digits: Vec<u8> = p
        .int
        .bytes()
        .chain(p.frac.bytes())
        .map(|b| b - b'0')
        .collect();
    let mut scale = p.frac.len();
    let factor = if exp_neg { 5 } else { 2 };
    for _ in 0..exp {
        let mut carry = 0u8;
        for d in digits.iter_mut().rev() {
            let v = *d * factor + carry;
            *d = v % 10;
            carry = v / 10;
        }
        if carry > 0 {
            digits.insert(0, carry);
        }
        if exp_neg {
            scale += 1;
        }
    }
    while digits.len() <= scale {
        digits.insert(0, 0);
    }
    let split_at = digits.len() - scale;
    let int: String = digits[..split_at]
        .iter()
        .map(|d| (d + b'0') as char)
        .collect();
    let frac: String = digits[split_at..]
        .iter()
        .map(|d| (d + b'0') as char)
        .collect();
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let mut out = String::new();
    if p.negative && !(int.is_empty() && frac.is_empty()) {
        out.push('-');
    }
    out.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
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
    let point = p.int.len() as i64 + exp;
    let (int_part, frac_part) = if point <= 0 {
        (String::new(), digits)
    } else if point as usize >= digits.len() {
        let mut d = digits;
        d.extend(std::iter::repeat_n('0', point as usize - d.len()));
        (d, String::new())
    } else {
        let f = digits.split_off(point as usize);
        (digits, f)
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
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        for ok in [
            "0", "+5", "-5", ".5", "5.", "1e10", "1E-3", "1p4", "-1.5P-2", "Inf", "-inf", "007",
            "1p0", "3p00", "1p-0",
        ] {
            assert!(is_valid_decimal(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "", ".", "+", "1e", "0x10", "1_000", " 1", "1 ", "NaN", "infinity", "1e+", "--1",
        ] {
            assert!(!is_valid_decimal(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn normalization() {
        let cases = [
            ("+5", "5"),
            (".5", "0.5"),
            ("5.", "5"),
            ("-0.50", "-0.50"),
            ("007", "7"),
            ("1e10", "1e10"),
            ("1p4", "16"),
            ("3p-2", "0.75"),
            ("-1.5p1", "-3"),
            ("1p0", "1"),
            ("3p-00", "3"),
            ("inf", "+Inf"),
            ("-Inf", "-Inf"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_decimal(input), want, "{input}");
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(Number::Decimal(&"1.5e1").as_i64(), Some(15));
        assert_eq!(Number::Decimal(&"1.55e1").as_i64(), None);
        assert_eq!(
            Number::Decimal(&"18446744073709551615").as_u64(),
            Some(u64::MAX)
        );
        assert_eq!(Number::Decimal(&"18446744073709551616").as_u64(), None);
        assert_eq!(Number::Decimal(&"-0").as_i64(), Some(0));
        assert_eq!(Number::Decimal(&"0.8").as_f64(), 0.8);
        assert_eq!(Number::Decimal(&"-inf").as_f64(), f64::NEG_INFINITY);
        assert_eq!(Number::UInt(u64::MAX).as_i64(), None);
        assert_eq!(Number::Float(3.0).as_i64(), Some(3));
        assert_eq!(Number::Float(f64::INFINITY).to_decimal_string(), "+Inf");
        assert_eq!(Number::Float(0.1).to_decimal_string(), "0.1");
    }
}
