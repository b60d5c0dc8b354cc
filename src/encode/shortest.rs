//! A float64 as go-cty's JSON encoder prints it: `big.Float.Text('f', -1)` at 53 bits of
//! precision. For a normal float64 that is the shortest round-trip decimal, which Rust's
//! `Display` prints too (digits, no exponent). A subnormal float64 is held by `big.Float`
//! with a full 53-bit mantissa and no exponent floor, so its shortest decimal is longer than
//! Rust's (`5e-324` is `4.940656458412465e-324` there): this module ports math/big's
//! `roundShortest` for them, on exact decimal expansions.
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects)]

use std::io::Write;

/// Appends `f` (finite) as `Text('f', -1)` of `big.NewFloat(f)` prints it.
pub(super) fn write_f64(f: f64, out: &mut Vec<u8>) {
    if !f.is_subnormal() {
        let start = out.len();
        // (Writing into a `Vec` cannot fail.)
        let _ = write!(out, "{f}");
        if let Some(even) = out.get(start..).and_then(|rust| tie(f, rust)) {
            out.truncate(start);
            out.extend_from_slice(even.as_bytes());
        }
        return;
    }
    if f.is_sign_negative() {
        out.push(b'-');
    }
    let m = f.to_bits() & ((1 << 52) - 1);
    // x = mant53 × 2^exp with a 53-bit mantissa; then one more bit for half an ulp.
    let shift = 53 - (64 - m.leading_zeros());
    let mant = (m << shift) << 1;
    let k = 1074 + shift + 1; // x = mant × 2^-k
    let inclusive = mant & 2 == 0;
    let (mut d, mut exp) = decimal(mant, k);
    let (lower, _) = decimal(mant - 1, k);
    let (upper, _) = decimal(mant + 1, k);
    let at = |v: &[u8], i: usize| v.get(i).copied().unwrap_or(b'0');
    for i in 0..d.len() {
        let (l, m, u) = (at(&lower, i), at(&d, i), at(&upper, i));
        let okdown = l != m || (inclusive && i + 1 == lower.len());
        let okup = m != u && (inclusive || m + 1 < u || i + 1 < upper.len());
        let up = match (okdown, okup) {
            (true, true) => should_round_up(&d, i + 1),
            (true, false) => false,
            (false, true) => true,
            (false, false) => continue,
        };
        d.truncate(i + 1);
        if up {
            round_up(&mut d, &mut exp);
        }
        break;
    }
    while d.last() == Some(&b'0') {
        d.pop();
    }
    // Plain form: the value is 0.d × 10^exp, exp <= 0 here.
    out.extend_from_slice(b"0.");
    out.extend(std::iter::repeat_n(b'0', exp.unsigned_abs() as usize));
    out.extend_from_slice(&d);
}

/// For a normal `f` whose exact value lies halfway between two shortest candidates, the one
/// Go picks (half to even), in plain form; `None` otherwise (Rust's `shortest` is Go's).
fn tie(f: f64, shortest: &[u8]) -> Option<String> {
    let bits = f.to_bits();
    let exp_bits = ((bits >> 52) & 0x7ff) as i32;
    let mut m = (bits & ((1 << 52) - 1)) | (1 << 52);
    let mut k = 1075 - exp_bits; // |f| = m × 2^-k
    let zeros = m.trailing_zeros().min(k.max(0) as u32);
    m >>= zeros;
    k -= zeros as i32;
    // An integer (k <= 0) is even or short: never halfway. Past k = 24 the expansion has
    // more than 18 digits, more than a tie allows.
    if !(1..=24).contains(&k) {
        return None;
    }
    let exact = (u128::from(m) * 5u128.pow(k as u32)).to_string();
    // Significant digits of the shortest form (its padding zeros are not).
    let digits: Vec<u8> = shortest
        .iter()
        .copied()
        .filter(u8::is_ascii_digit)
        .collect();
    let first = digits.iter().position(|&c| c != b'0')?;
    let last = digits.iter().rposition(|&c| c != b'0')?;
    let n = last + 1 - first;
    if exact.len() != n + 1 || !exact.ends_with('5') {
        return None;
    }
    let mut digits = exact.as_bytes().get(..n)?.to_vec();
    let mut scale = exact.len() as i64 - n as i64 - i64::from(k);
    if digits.last().is_some_and(|c| (c - b'0') & 1 == 1) {
        round_up(&mut digits, &mut scale);
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let digits = std::str::from_utf8(&digits).ok()?;
    Some(
        super::number::plain_decimal(&format!("{sign}{digits}e{scale}"))
            .text()?
            .into_owned(),
    )
}

/// math/big's `shouldRoundUp` for keeping the first `n` digits.
fn should_round_up(d: &[u8], n: usize) -> bool {
    match d.get(n) {
        Some(b'5') if n + 1 == d.len() => {
            n > 0 && d.get(n - 1).is_some_and(|c| (c - b'0') & 1 != 0)
        }
        Some(&c) => c >= b'5',
        None => false,
    }
}

/// Adds one in the last digit, carrying (all nines become `1` one place up).
fn round_up(d: &mut Vec<u8>, exp: &mut i64) {
    while let Some(&c) = d.last() {
        if c < b'9' {
            if let Some(last) = d.last_mut() {
                *last += 1;
            }
            return;
        }
        d.pop();
    }
    d.push(b'1');
    *exp += 1;
}

/// The decimal digits (no leading or trailing zeros) and point position of `m × 2^-k`:
/// the value is `0.digits × 10^exp`. `m × 5^k` in base 10^9 limbs, least significant first.
fn decimal(m: u64, k: u32) -> (Vec<u8>, i64) {
    const BASE: u64 = 1_000_000_000;
    let mut limbs = vec![m % BASE, (m / BASE) % BASE, m / BASE / BASE];
    for _ in 0..k {
        let mut carry = 0;
        for limb in &mut limbs {
            let v = *limb * 5 + carry;
            *limb = v % BASE;
            carry = v / BASE;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut text = String::new();
    for (i, limb) in limbs.iter().rev().enumerate() {
        if i == 0 {
            text.push_str(&limb.to_string());
        } else {
            text.push_str(&format!("{limb:09}"));
        }
    }
    // value = N × 10^-k, N with `len` digits.
    let exp = text.len() as i64 - i64::from(k);
    let digits = text.trim_end_matches('0').as_bytes().to_vec();
    (digits, exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: f64) -> String {
        let mut out = Vec::new();
        write_f64(f, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn normal_floats_print_as_rust_display() {
        assert_eq!(text(-7930198932187799552.0), "-7930198932187800000");
        assert_eq!(text(0.1), "0.1");
        assert_eq!(text(1e21), "1000000000000000000000");
        assert_eq!(text(-0.0), "-0");
    }

    #[test]
    // The literals are exact (the ulp there is 0.25); clippy compares them with their
    // shortest form, which is the point of the test.
    #[allow(clippy::excessive_precision)]
    fn halfway_values_round_to_even_as_go_does() {
        // Exactly …086.25: Go (the oracle) prints …086.2; Rust's `Display` …086.3.
        assert_eq!(text(1173741544204086.25), "1173741544204086.2");
        assert_eq!(text(-1173741544204086.25), "-1173741544204086.2");
        // …086.75: half to even goes up, as Rust does.
        assert_eq!(text(1173741544204086.75), "1173741544204086.8");
        assert_eq!(text(0.5), "0.5");
        assert_eq!(text(2.5), "2.5");
    }

    #[test]
    fn subnormals_print_at_53_bits() {
        // As the oracle prints them (go-cty 1.12, `ctyjson.Marshal(cty.NumberFloatVal(f))`).
        let want = format!("0.{}4940656458412465", "0".repeat(323));
        assert_eq!(text(5e-324), want);
        assert_eq!(text(-5e-324), format!("-{want}"));
        // The largest subnormal at 53 bits (the oracle prints the same).
        let largest = f64::from_bits((1 << 52) - 1);
        assert_eq!(
            text(largest),
            format!("0.{}2225073858507201", "0".repeat(307))
        );
    }
}
