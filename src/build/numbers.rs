//! Numbers as go-cty's sets see them: the three views of a number that `cty/set_internals.go`
//! and `cty/primitive_type.go` (go-cty 1.12.1) use, computed without heap allocation.
//!
//! - **Order** (`setRules.Less`): `big.Float.Cmp` of the values, `-0` equal to `0`
//!   ([`cmp_value`]).
//! - **Equality** (`rawNumberEqual`, what de-duplicates a set): the texts
//!   `Text('f', -1)` — the shortest decimal that identifies the value at its `big.Float`'s
//!   precision — are equal, `-0` being `0` ([`same_text`]). go-cty holds an integer at 64 bits
//!   (exact), a float64 at 53 (its shortest round-trip text: the float64 `0.1` equals the decimal
//!   text `0.1`), and decimal text at 512 bits (its own digits, up to about 153 of them).
//! - **Hash text** (`big.Float.String()`, `Text('g', 10)`: ten significant digits, rounded half
//!   to even; [`write_g10`]): what a number contributes to the hash text of a complex set
//!   element, and the bucket it falls in.
//!
//! A number is looked at as decimal digits ([`Dec`]) written into a stack buffer: an integer's
//! digits, a float64's shortest (`{:e}`) or exact (`{:.770e}`) expansion, or decimal text
//! itself. Text with a binary exponent (`1p4`) goes through `normalize_decimal` (a heap string;
//! rare). The approximation (documented in `build/mod.rs`): decimal text is taken at its exact
//! value where go-cty rounds it to 512 bits (which matters only for text of more than about 153
//! significant digits, or text exactly halfway between two ten-digit hash texts).
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use std::cmp::Ordering;
use std::fmt::{self, Write};

use crate::number::{normalize_decimal, Number};

/// A fixed stack buffer that `fmt::Write` fills; writing past its end is an error (the sizes
/// used hold every text written into them).
pub(super) struct TextBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> TextBuf<N> {
    pub(super) fn new() -> Self {
        TextBuf {
            bytes: [0; N],
            len: 0,
        }
    }

    pub(super) fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

impl<const N: usize> Write for TextBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let dest = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        dest.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// A number as decimal digits: ±0.D × 10^`exp`, where D is `a` followed by `b` (no leading or
/// trailing zeros; both empty for zero, which keeps its sign), or an infinity.
#[derive(Clone, Copy, Debug)]
pub(super) enum Dec<'t> {
    Finite {
        neg: bool,
        a: &'t [u8],
        b: &'t [u8],
        exp: i64,
    },
    Inf {
        neg: bool,
    },
}

impl Dec<'_> {
    fn digits(&self) -> usize {
        match self {
            Dec::Finite { a, b, .. } => a.len() + b.len(),
            Dec::Inf { .. } => 0,
        }
    }

    /// Significant digit `i` (`b'0'` beyond the last).
    fn digit(&self, i: usize) -> u8 {
        match self {
            Dec::Finite { a, b, .. } => match a.get(i) {
                Some(&d) => d,
                None => b.get(i - a.len()).copied().unwrap_or(b'0'),
            },
            Dec::Inf { .. } => b'0',
        }
    }
}

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]` or `[+-](Inf|inf)`; `None` for a binary
/// exponent. Lenient: the callers pass validated text.
fn parse(text: &[u8]) -> Option<Dec<'_>> {
    let (neg, body) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if body.eq_ignore_ascii_case(b"inf") {
        return Some(Dec::Inf { neg });
    }
    let (mant, exp) = match body
        .iter()
        .position(|c| matches!(c, b'e' | b'E' | b'p' | b'P'))
    {
        Some(p) => {
            if matches!(body.get(p), Some(b'p' | b'P')) {
                return None;
            }
            (body.get(..p)?, parse_exp(body.get(p + 1..)?))
        }
        None => (body, 0),
    };
    let (int, frac) = match mant.iter().position(|&c| c == b'.') {
        Some(p) => (mant.get(..p)?, mant.get(p + 1..)?),
        None => (mant, &[][..]),
    };
    let lead = |s: &[u8]| s.iter().take_while(|&&c| c == b'0').count();
    let mut a = int.get(lead(int)..)?;
    let mut b = frac;
    let mut exp = exp.saturating_add(a.len() as i64);
    if a.is_empty() {
        let z = lead(b);
        b = b.get(z..)?;
        exp = exp.saturating_sub(z as i64);
    }
    let trail = |s: &[u8]| s.len() - s.iter().rev().take_while(|&&c| c == b'0').count();
    b = b.get(..trail(b))?;
    if b.is_empty() {
        a = a.get(..trail(a))?;
    }
    if a.is_empty() && b.is_empty() {
        exp = 0;
    }
    Some(Dec::Finite { neg, a, b, exp })
}

/// A decimal exponent, saturated far beyond any that matters.
fn parse_exp(s: &[u8]) -> i64 {
    let (neg, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for &d in digits {
        v = v
            .saturating_mul(10)
            .saturating_add(i64::from(d.wrapping_sub(b'0')));
    }
    let v = v.min(i64::MAX / 4);
    if neg {
        -v
    } else {
        v
    }
}

/// How a float64 is looked at: its exact value, or its shortest round-trip text.
#[derive(Clone, Copy, PartialEq)]
enum View {
    Exact,
    Shortest,
}

/// Calls `f` with `n` as decimal digits (in `view`), from a buffer on the stack.
fn with_dec<R>(n: Number<'_>, view: View, f: impl FnOnce(Dec<'_>) -> R) -> R {
    match n {
        Number::Int(i) => {
            let mut buf = TextBuf::<24>::new();
            let _ = write!(buf, "{i}");
            f(parse(buf.as_bytes()).unwrap_or(ZERO))
        }
        Number::UInt(u) => {
            let mut buf = TextBuf::<24>::new();
            let _ = write!(buf, "{u}");
            f(parse(buf.as_bytes()).unwrap_or(ZERO))
        }
        Number::Float(x) if x.is_infinite() => f(Dec::Inf { neg: x < 0.0 }),
        Number::Float(x) if view == View::Shortest => {
            let mut buf = TextBuf::<40>::new();
            let _ = write!(buf, "{x:e}");
            f(parse(buf.as_bytes()).unwrap_or(ZERO))
        }
        Number::Float(x) => {
            // Every float64's exact expansion has at most 767 significant digits.
            let mut buf = TextBuf::<800>::new();
            let _ = write!(buf, "{x:.770e}");
            f(parse(buf.as_bytes()).unwrap_or(ZERO))
        }
        Number::Decimal(t) => match parse(t.as_bytes()) {
            Some(d) => f(d),
            None => {
                let norm = normalize_decimal(t);
                f(parse(norm.as_bytes()).unwrap_or(ZERO))
            }
        },
    }
}

const ZERO: Dec<'static> = Dec::Finite {
    neg: false,
    a: &[],
    b: &[],
    exp: 0,
};

/// Compares two numbers' digits by value (`-0` equal to `0`).
fn cmp_dec(x: &Dec<'_>, y: &Dec<'_>) -> Ordering {
    // -1, 0 or 1 for the sign; infinities by sign alone.
    let sign = |d: &Dec<'_>| match *d {
        Dec::Inf { neg } => (if neg { -2i8 } else { 2 }, false),
        Dec::Finite { neg, .. } if d.digits() == 0 => (0, neg),
        Dec::Finite { neg, .. } => (if neg { -1 } else { 1 }, neg),
    };
    let ((sx, neg), (sy, _)) = (sign(x), sign(y));
    if sx != sy || sx == 0 || sx.abs() == 2 {
        return sx.cmp(&sy);
    }
    let (Dec::Finite { exp: ex, .. }, Dec::Finite { exp: ey, .. }) = (x, y) else {
        return Ordering::Equal;
    };
    let magnitude = ex.cmp(ey).then_with(|| {
        let n = x.digits().max(y.digits());
        (0..n)
            .map(|i| x.digit(i).cmp(&y.digit(i)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    if neg {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// An integer variant as an `i128`.
fn integer(n: Number<'_>) -> Option<i128> {
    match n {
        Number::Int(i) => Some(i128::from(i)),
        Number::UInt(u) => Some(i128::from(u)),
        _ => None,
    }
}

/// go-cty's order of two numbers: `big.Float.Cmp` (exact; `-0` equals `0`).
pub(super) fn cmp_value(x: Number<'_>, y: Number<'_>) -> Ordering {
    match (x, y) {
        (Number::Float(a), Number::Float(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (Number::Float(a), other) | (other, Number::Float(a)) if integer(other).is_some() => {
            let i = integer(other).unwrap_or(0);
            let o = float_vs_int(a, i);
            if matches!(x, Number::Float(_)) {
                o
            } else {
                o.reverse()
            }
        }
        _ => match (integer(x), integer(y)) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => with_dec(x, View::Exact, |dx| {
                with_dec(y, View::Exact, |dy| cmp_dec(&dx, &dy))
            }),
        },
    }
}

/// A float64 (not NaN) against an integer, exactly.
fn float_vs_int(f: f64, i: i128) -> Ordering {
    const LIMIT: f64 = 1.0e38; // beyond every u64 and i64, within i128
    if f >= LIMIT {
        return Ordering::Greater;
    }
    if f <= -LIMIT {
        return Ordering::Less;
    }
    let floor = f.floor();
    (floor as i128).cmp(&i).then(if f > floor {
        Ordering::Greater
    } else {
        Ordering::Equal
    })
}

/// go-cty's equality of two numbers (`rawNumberEqual`): the same `Text('f', -1)`, `-0` being
/// `0`.
pub(super) fn same_text(x: Number<'_>, y: Number<'_>) -> bool {
    cmp_text(x, y).is_eq()
}

/// A total order of numbers whose classes of equals are those of [`same_text`]: the values of
/// their `Text('f', -1)`.
pub(super) fn cmp_text(x: Number<'_>, y: Number<'_>) -> Ordering {
    match (x, y) {
        // A float64's shortest text is its own: equal texts are equal floats, and the texts
        // are in the floats' order.
        (Number::Float(a), Number::Float(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        _ => match (integer(x), integer(y)) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => with_dec(x, View::Shortest, |dx| {
                with_dec(y, View::Shortest, |dy| cmp_dec(&dx, &dy))
            }),
        },
    }
}

/// Writes go-cty's hash text of a number: `big.Float.String()`, which is `Text('g', 10)`.
pub(super) fn write_g10(n: Number<'_>, out: &mut impl Write) -> fmt::Result {
    match n {
        Number::Float(x) if x.is_finite() => {
            // Rust's exact formatting rounds half to even on the exact value, as Go does.
            let mut buf = TextBuf::<40>::new();
            write!(buf, "{x:.9e}")?;
            g10(&parse(buf.as_bytes()).unwrap_or(ZERO), out)
        }
        _ => with_dec(n, View::Exact, |d| g10(&d, out)),
    }
}

/// `Text('g', 10)` of a number's exact digits (`math/big/ftoa.go`: round to ten significant
/// digits half to even, then `%e` when the exponent is below -4 or at least the precision,
/// else `%f`; an exponent of at least two digits).
fn g10(d: &Dec<'_>, out: &mut impl Write) -> fmt::Result {
    let (neg, exp) = match *d {
        Dec::Inf { neg } => return out.write_str(if neg { "-Inf" } else { "+Inf" }),
        Dec::Finite { neg, exp, .. } => (neg, exp),
    };
    if neg {
        out.write_char('-')?;
    }
    // Round to ten digits.
    let mut mant = [b'0'; 10];
    let n = d.digits().min(10);
    for (i, m) in mant.iter_mut().enumerate().take(n) {
        *m = d.digit(i);
    }
    let mut n = n;
    let mut exp = exp;
    if d.digits() > 10 {
        let next = d.digit(10);
        let halfway = next == b'5' && d.digits() == 11;
        let up = if halfway {
            mant[9].wrapping_sub(b'0') & 1 == 1
        } else {
            next >= b'5'
        };
        if up {
            let mut i = 10;
            while i > 0 && mant[i - 1] == b'9' {
                i -= 1;
            }
            if i == 0 {
                mant[0] = b'1';
                n = 1;
                exp = exp.saturating_add(1);
            } else {
                mant[i - 1] += 1;
                n = i;
            }
        }
    }
    while n > 0 && mant[n - 1] == b'0' {
        n -= 1;
    }
    if n == 0 {
        exp = 0;
    }
    let digit = |i: i64| -> char {
        usize::try_from(i)
            .ok()
            .filter(|&i| i < n)
            .map_or('0', |i| mant[i] as char)
    };
    let prec: i64 = 10;
    let len = n as i64;
    let mut eprec = prec;
    if eprec > len && len >= exp {
        eprec = len;
    }
    let x = exp.saturating_sub(1);
    if x < -4 || x >= eprec {
        // %e with min(prec, len) - 1 fraction digits.
        let frac = prec.min(len) - 1;
        out.write_char(digit(0))?;
        if frac > 0 {
            out.write_char('.')?;
            for i in 1..=frac {
                out.write_char(digit(i))?;
            }
        }
        let e = if n > 0 { x } else { 0 };
        out.write_char('e')?;
        out.write_char(if e < 0 { '-' } else { '+' })?;
        if e.unsigned_abs() < 10 {
            out.write_char('0')?;
        }
        write!(out, "{}", e.unsigned_abs())
    } else {
        // %f (here -4 <= x < 10, so every count below is small).
        let p = if prec > exp { len } else { prec };
        let frac = (p - exp).max(0);
        if exp > 0 {
            for i in 0..exp {
                out.write_char(digit(i))?;
            }
        } else {
            out.write_char('0')?;
        }
        if frac > 0 {
            out.write_char('.')?;
            for i in 0..frac {
                out.write_char(digit(exp + i))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(n: Number<'_>) -> String {
        let mut s = String::new();
        write_g10(n, &mut s).unwrap();
        s
    }

    /// Expected texts printed by go 1.19's `big.Float.String()` for `new(big.Float).SetInt64`,
    /// `SetUint64`, `SetFloat64` and `big.ParseFloat(s, 10, 512, big.ToNearestEven)`.
    #[test]
    fn hash_text_matches_big_float_string() {
        for (n, want) in [
            (Number::Int(0), "0"),
            (Number::Int(100), "100"),
            (Number::Int(-7), "-7"),
            (Number::Int(1234567890), "1234567890"),
            (Number::Int(12345678901), "1.23456789e+10"),
            (Number::Int(10000000000), "1e+10"),
            (Number::Int(12345678951), "1.234567895e+10"),
            (Number::Int(12345678950), "1.234567895e+10"),
            (Number::Int(12345678965), "1.234567896e+10"),
            (Number::Int(99999999999), "1e+11"),
            (Number::UInt(u64::MAX), "1.844674407e+19"),
            (Number::Float(0.1), "0.1"),
            (Number::Float(-0.0), "-0"),
            (Number::Float(0.0001), "0.0001"),
            (Number::Float(0.00001), "1e-05"),
            (Number::Float(123.456), "123.456"),
            (Number::Float(1234567.5), "1234567.5"),
            (Number::Float(1e23), "1e+23"),
            (Number::Float(f64::INFINITY), "+Inf"),
            (Number::Float(f64::NEG_INFINITY), "-Inf"),
            (Number::Float(2.5e-300), "2.5e-300"),
            (Number::Decimal("0.10"), "0.1"),
            (Number::Decimal("-0"), "-0"),
            (Number::Decimal("1e3"), "1000"),
            (Number::Decimal("1p4"), "16"),
            (Number::Decimal("+.5"), "0.5"),
            (Number::Decimal("-Inf"), "-Inf"),
            (Number::Decimal("123456789.123456789"), "123456789.1"),
        ] {
            assert_eq!(g(n), want, "{n:?}");
        }
    }

    #[test]
    fn order_and_equality() {
        use Ordering::*;
        assert_eq!(cmp_value(Number::Int(1), Number::Float(1.5)), Less);
        assert_eq!(cmp_value(Number::Float(-0.0), Number::Int(0)), Equal);
        assert_eq!(cmp_value(Number::Decimal("0.1"), Number::Float(0.1)), Less);
        assert_eq!(cmp_value(Number::Decimal("1e2"), Number::UInt(100)), Equal);
        assert_eq!(
            cmp_value(Number::Decimal("-Inf"), Number::Int(i64::MIN)),
            Less
        );
        assert_eq!(
            cmp_value(Number::Decimal("-2"), Number::Decimal("-10")),
            Greater
        );
        assert!(same_text(Number::Decimal("0.1"), Number::Float(0.1)));
        assert!(same_text(Number::Decimal("1.0"), Number::Int(1)));
        assert!(same_text(Number::Float(-0.0), Number::Int(0)));
        assert!(!same_text(
            Number::Float((1u64 << 60) as f64),
            Number::UInt(1 << 60)
        ));
        assert!(!same_text(
            Number::Decimal("0.1000000000000000055511151231257827021181583404541015625"),
            Number::Float(0.1)
        ));
    }
}
