//! Exact numbers ([`ArrowOptions::exact_numbers`](super::ArrowOptions)): a number's decimal
//! text as a `Decimal128(38, 9)` value, when it is one exactly.

use crate::number::Number;

/// The precision of exact number columns: every `Decimal128` digit.
pub const PRECISION: u8 = 38;
/// The scale of exact number columns: nine fraction digits (nanounits).
pub const SCALE: i8 = 9;
/// One, scaled.
pub const ONE: i128 = 1_000_000_000;

/// `n` × 10^[`SCALE`] as an `i128` of at most [`PRECISION`] digits, when that is exact: no
/// nonzero digit past the ninth after the point, and less than 10^29 in magnitude. Infinities
/// are not numbers here.
pub fn scaled(n: &Number<'_>) -> Option<i128> {
    match *n {
        // (|i64| × 10^9 < 10^28.)
        Number::Int(i) => i128::from(i).checked_mul(ONE),
        Number::UInt(u) => i128::from(u).checked_mul(ONE),
        // (Decimal text is normalized without a copy when it already is: JSON's literals.)
        Number::Decimal(text) => scaled_text(&crate::number::normalize_decimal(text)),
        Number::Float(_) => scaled_text(&n.to_decimal_string()),
    }
}

/// The JSON number literal `text` (`-?D+(.D+)?([eE][+-]?D+)?`) × 10^[`SCALE`], when exact
/// and of at most [`PRECISION`] digits.
fn scaled_text(text: &str) -> Option<i128> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (
            rest.get(..at)?,
            rest.get(at.checked_add(1)?..)?.parse::<i64>().ok()?,
        ),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() || !(whole.bytes().chain(fraction.bytes())).all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The digits, and the power of ten they are to be multiplied by to be the scaled value;
    // trailing zeros may be dropped (for a negative power) without a remainder.
    let digits = || whole.bytes().chain(fraction.bytes());
    let fraction_len = i64::try_from(fraction.len()).ok()?;
    let mut power = exponent
        .checked_sub(fraction_len)?
        .checked_add(i64::from(SCALE))?;
    let zeros = digits().rev().take_while(|&b| b == b'0').count();
    let dropped = usize::try_from(power.checked_neg()?.max(0))
        .ok()?
        .min(zeros);
    power = power.checked_add(i64::try_from(dropped).ok()?)?;
    if power < 0 {
        return None;
    }
    let kept = digits().count().checked_sub(dropped)?;
    let limit = 10i128.pow(u32::from(PRECISION));
    let mut value: i128 = 0;
    for d in digits().take(kept) {
        value = value
            .checked_mul(10)?
            .checked_add(i128::from(d.wrapping_sub(b'0')))?;
        if value >= limit {
            return None;
        }
    }
    for _ in 0..power {
        if value == 0 {
            break;
        }
        value = value.checked_mul(10)?;
        if value >= limit {
            return None;
        }
    }
    Some(if negative {
        value.checked_neg()?
    } else {
        value
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values_are_scaled() {
        let cases: [(&str, Option<i128>); 16] = [
            ("0", Some(0)),
            ("-0", Some(0)),
            ("1", Some(1_000_000_000)),
            ("-2.5", Some(-2_500_000_000)),
            ("0.000000001", Some(1)),
            ("0.0000000010000", Some(1)),
            ("1e3", Some(1_000_000_000_000)),
            ("1.5E-9", None),
            ("15e-10", None),
            ("1000e-12", Some(1)),
            ("0.0000000001", None),
            (
                "99999999999999999999999999999",
                Some(99_999_999_999_999_999_999_999_999_999 * 1_000_000_000),
            ),
            ("100000000000000000000000000000", None),
            ("1e29", None),
            ("+Inf", None),
            ("1e999999999999999999999", None),
        ];
        for (text, want) in cases {
            assert_eq!(scaled_text(text), want, "{text}");
        }
    }

    #[test]
    fn numbers_of_every_kind() {
        assert_eq!(
            scaled(&Number::Int(i64::MIN)),
            Some(i128::from(i64::MIN) * 1_000_000_000)
        );
        assert_eq!(
            scaled(&Number::UInt(u64::MAX)),
            Some(i128::from(u64::MAX) * 1_000_000_000)
        );
        assert_eq!(scaled(&Number::Float(0.25)), Some(250_000_000));
        // (0.1 is written in its shortest round-trip form, as go-cty writes it.)
        assert_eq!(scaled(&Number::Float(0.1)), Some(100_000_000));
        assert_eq!(scaled(&Number::Float(f64::INFINITY)), None);
        assert_eq!(scaled(&Number::Decimal("12.000")), Some(12_000_000_000));
        assert_eq!(scaled(&Number::Decimal("1.0000000005")), None);
    }
}
