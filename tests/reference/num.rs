//! Numbers for the reference: Go's `ParseFloat` grammar as tfwire documents it (with its
//! binary-exponent bound), exact values of every number form, and exact comparison.

use std::cmp::Ordering;

use super::RNum;

/// `MAX_BINARY_EXPONENT` of tfwire's `number.rs`: `p` exponents beyond it are rejected.
pub const MAX_BINARY_EXPONENT: u32 = 1100;

/// `[+-]? (digits ["." [digits]] | "." digits) [(e|E|p|P) [+-]? digits]` or `[+-]? (Inf|inf)`,
/// a `p` exponent at most 1100 in magnitude.
pub fn valid_decimal(text: &[u8]) -> bool {
    let body = match text.first() {
        Some(b'+' | b'-') => &text[1..],
        _ => text,
    };
    if body == b"Inf" || body == b"inf" {
        return true;
    }
    let digits = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(body);
    let mut i = int;
    let mut frac = 0;
    if body.get(i) == Some(&b'.') {
        frac = digits(&body[i + 1..]);
        i += 1 + frac;
    }
    if int + frac == 0 {
        return false;
    }
    if let Some(&e) = body.get(i) {
        if !matches!(e, b'e' | b'E' | b'p' | b'P') {
            return false;
        }
        i += 1;
        if matches!(body.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(&body[i..]);
        if n == 0 {
            return false;
        }
        if matches!(e, b'p' | b'P') {
            let d = std::str::from_utf8(&body[i..i + n])
                .unwrap_or("")
                .trim_start_matches('0');
            if d.len() > 5 || d.parse::<u32>().unwrap_or(0) > MAX_BINARY_EXPONENT {
                return false;
            }
        }
        i += n;
    }
    i == body.len()
}

/// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
pub fn json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: usize| {
        b[i.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// An exact value: −∞, a finite `±0.DIGITS × 10^point` (no leading or trailing zeros in
/// DIGITS; zero has none and is unsigned), or +∞.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exact {
    NegInf,
    Finite {
        neg: bool,
        digits: Vec<u8>,
        point: i128,
    },
    PosInf,
}

impl Exact {
    fn sign(&self) -> i8 {
        match self {
            Exact::NegInf => -2,
            Exact::PosInf => 2,
            Exact::Finite { digits, .. } if digits.is_empty() => 0,
            Exact::Finite { neg: true, .. } => -1,
            Exact::Finite { neg: false, .. } => 1,
        }
    }
}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Exact) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Exact {
    fn cmp(&self, other: &Exact) -> Ordering {
        let (s, t) = (self.sign(), other.sign());
        if s != t || s.abs() != 1 {
            return s.cmp(&t);
        }
        let (
            Exact::Finite {
                digits: a,
                point: p,
                ..
            },
            Exact::Finite {
                digits: b,
                point: q,
                ..
            },
        ) = (self, other)
        else {
            return Ordering::Equal;
        };
        let magnitude = p.cmp(q).then_with(|| a.cmp(b));
        if s < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

/// The exact value of a number.
pub fn exact(n: &RNum) -> Exact {
    match n {
        RNum::Int(i) => exact_text(&i.to_string()),
        RNum::UInt(u) => exact_text(&u.to_string()),
        RNum::Float(f) if f.is_infinite() => match *f > 0.0 {
            true => Exact::PosInf,
            false => Exact::NegInf,
        },
        // Rust prints the exact binary value when asked for enough digits (≤ 767 significant).
        RNum::Float(f) => exact_text(&format!("{f:.800e}")),
        RNum::Dec(s) => exact_text(s),
    }
}

/// Exact value of text the grammar accepts (anything else reads as zero).
pub fn exact_text(text: &str) -> Exact {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if body == "Inf" || body == "inf" {
        return if neg { Exact::NegInf } else { Exact::PosInf };
    }
    let (mant, kind, exp) = match body.find(['e', 'E', 'p', 'P']) {
        Some(i) => (
            &body[..i],
            body.as_bytes()[i].to_ascii_lowercase(),
            &body[i + 1..],
        ),
        None => (body, b'e', "0"),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|c| c - b'0').collect();
    let mut point = int.len() as i128;
    let (eneg, edigits) = match exp.as_bytes().first() {
        Some(b'-') => (true, &exp[1..]),
        Some(b'+') => (false, &exp[1..]),
        _ => (false, exp),
    };
    let edigits = edigits.trim_start_matches('0');
    let e: i128 = if edigits.len() > 30 {
        10i128.pow(30)
    } else {
        edigits.parse().unwrap_or(0)
    };
    if kind == b'p' {
        // mantissa × 2^e, exactly: multiply by 2 (or by 5, moving the point) e times.
        let factor = if eneg { 5 } else { 2 };
        for _ in 0..e {
            let mut carry = 0;
            for d in digits.iter_mut().rev() {
                let v = *d * factor + carry;
                *d = v % 10;
                carry = v / 10;
            }
            if carry > 0 {
                digits.insert(0, carry);
                point += 1;
            }
            if eneg {
                point -= 1;
            }
        }
    } else {
        point += if eneg { -e } else { e };
    }
    let lead = digits.iter().take_while(|&&d| d == 0).count();
    digits.drain(..lead);
    point -= lead as i128;
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        return Exact::Finite {
            neg: false,
            digits,
            point: 0,
        };
    }
    Exact::Finite { neg, digits, point }
}

/// Equal exact values.
pub fn same(a: &RNum, b: &RNum) -> bool {
    exact(a) == exact(b)
}

/// `a` compared with `b`, exactly.
pub fn cmp(a: &RNum, b: &RNum) -> Ordering {
    exact(a).cmp(&exact(b))
}

/// Exact decimal text of a finite `f64` in JSON's grammar (`1.5e-3`, `0e0`, `-5e2`).
pub fn f64_exact_text(f: f64) -> String {
    let s = format!("{f:.800e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mant = match mant.contains('.') {
        true => mant.trim_end_matches('0').trim_end_matches('.'),
        false => mant,
    };
    format!("{mant}e{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_values() {
        assert!(same(&RNum::Dec("1p4".into()), &RNum::Int(16)));
        assert!(same(&RNum::Dec("3p-2".into()), &RNum::Float(0.75)));
        assert!(same(&RNum::Dec(".5".into()), &RNum::Float(0.5)));
        assert!(same(&RNum::Dec("-0".into()), &RNum::UInt(0)));
        assert!(!same(&RNum::Dec("0.1".into()), &RNum::Float(0.1)));
        assert!(same(&RNum::Dec(f64_exact_text(0.1)), &RNum::Float(0.1)));
        assert_eq!(
            cmp(&RNum::Dec("-inf".into()), &RNum::Int(i64::MIN)),
            Ordering::Less
        );
        assert!(valid_decimal(b"1p1100") && !valid_decimal(b"1p1101") && !valid_decimal(b"."));
        assert!(valid_decimal(b"1p0") && valid_decimal(b"1P-00"));
    }
}
