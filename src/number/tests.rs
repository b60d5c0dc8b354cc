//! Unit tests of the number grammar, the conversions and the decimal text.

use super::*;

#[test]
fn grammar() {
    for ok in [
        "0", "+5", "-5", ".5", "5.", "1e10", "1E-3", "1p4", "-1.5P-2", "Inf", "-inf", "007", "1p0",
        "3p00", "1p-0",
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

/// The old exact expansion, digit by digit (O(digits × exponent)), as a reference.
fn slow_binary_exponent(text: &str) -> String {
    let p = split(text);
    let (neg, e) = match p.exp.strip_prefix('-') {
        Some(e) => (true, e),
        None => (false, p.exp.trim_start_matches('+')),
    };
    let e: u32 = e.parse().unwrap();
    let mut digits: Vec<u8> = p
        .int
        .bytes()
        .chain(p.frac.bytes())
        .map(|b| b - b'0')
        .collect();
    let mut scale = p.frac.len();
    for _ in 0..e {
        let mut carry = 0;
        for d in digits.iter_mut().rev() {
            let v = *d * if neg { 5 } else { 2 } + carry;
            *d = v % 10;
            carry = v / 10;
        }
        if carry > 0 {
            digits.insert(0, carry);
        }
        scale += neg as usize;
    }
    while digits.len() <= scale {
        digits.insert(0, 0);
    }
    let text: String = digits.iter().map(|d| (d + b'0') as char).collect();
    let (int, frac) = text.split_at(digits.len() - scale);
    let (int, frac) = (int.trim_start_matches('0'), frac.trim_end_matches('0'));
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

#[test]
fn binary_exponents_match_the_digit_by_digit_expansion() {
    let mantissas = [
        "0",
        "1",
        "7",
        "-3",
        "+12.5",
        "0.001",
        "000120.0300",
        "-0.0",
        ".5",
        "5.",
        "99999",
        "123456789012345678901234567890",
        "0.000000000000000000000000000000000000077",
    ];
    let exponents = [
        "0", "1", "-1", "7", "-7", "25", "-25", "26", "59", "60", "-60", "300", "-300", "1100",
        "-1100", "+64", "0064",
    ];
    for m in mantissas {
        for e in exponents {
            let text = format!("{m}p{e}");
            assert!(is_valid_decimal(text.as_bytes()), "{text}");
            assert_eq!(
                normalize_decimal(&text),
                slow_binary_exponent(&text),
                "{text}"
            );
        }
    }
}

#[test]
fn huge_binary_mantissas_stay_cheap() {
    // A megabyte of significant digits with the largest exponent: expanded exactly, that
    // is O(digits × exponent) steps (seconds). Past MAX_BINARY_MANTISSA_DIGITS the
    // mantissa is truncated first: the leading digits are those of the truncated
    // mantissa's exact expansion, and the dropped digits' places are zeros.
    let n = 1 << 20;
    let huge = format!("{}p1100", "7".repeat(n));
    assert!(is_valid_decimal(huge.as_bytes()));
    let kept = format!("{}p1100", "7".repeat(MAX_BINARY_MANTISSA_DIGITS));
    let want = format!(
        "{}{}",
        slow_binary_exponent(&kept),
        "0".repeat(n - MAX_BINARY_MANTISSA_DIGITS)
    );
    let number = Number::Decimal(huge.as_str());
    assert_eq!(number.to_decimal_string(), want);
    assert_eq!(number.as_i64(), None);
    assert_eq!(number.as_u64(), None);
    assert_eq!(number.as_f64(), f64::INFINITY);
    let negative = format!("-{}p-1100", "7".repeat(n));
    let kept = format!("-{}p-1100", "7".repeat(MAX_BINARY_MANTISSA_DIGITS));
    let kept = slow_binary_exponent(&kept);
    let (int, frac) = kept.split_once('.').unwrap_or((&kept, ""));
    let zeros = "0".repeat(n - MAX_BINARY_MANTISSA_DIGITS - frac.len());
    assert_eq!(
        Number::Decimal(negative.as_str()).to_decimal_string(),
        format!("{int}{frac}{zeros}")
    );
    // Zeros around the significant digits cost nothing and keep the result exact.
    let zeros = "0".repeat(n);
    let small = format!("{zeros}1.5{zeros}p4");
    assert_eq!(Number::Decimal(small.as_str()).as_i64(), Some(24));
    let tiny = format!("0.{zeros}1p-1");
    assert_eq!(normalize_decimal(&tiny), format!("0.{zeros}05"));
}

#[test]
fn conversions() {
    assert_eq!(Number::Decimal("1.5e1").as_i64(), Some(15));
    assert_eq!(Number::Decimal("1.55e1").as_i64(), None);
    assert_eq!(
        Number::Decimal("18446744073709551615").as_u64(),
        Some(u64::MAX)
    );
    assert_eq!(Number::Decimal("18446744073709551616").as_u64(), None);
    assert_eq!(Number::Decimal("-0").as_i64(), Some(0));
    assert_eq!(Number::Decimal("0.8").as_f64(), 0.8);
    assert_eq!(Number::Decimal("-inf").as_f64(), f64::NEG_INFINITY);
    assert_eq!(Number::UInt(u64::MAX).as_i64(), None);
    assert_eq!(Number::Float(3.0).as_i64(), Some(3));
    assert_eq!(Number::Float(f64::INFINITY).to_decimal_string(), "+Inf");
    assert_eq!(Number::Float(0.1).to_decimal_string(), "0.1");
}
