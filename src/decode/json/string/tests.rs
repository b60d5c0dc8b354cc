//! Unit tests of the string scanner and the escape decoder, at every alignment.

use super::*;

fn scan(s: &str) -> Result<(usize, u8), ErrorKind> {
    scan_string(s.as_bytes(), 1, 0).map_err(|p| p.0 .0)
}

#[test]
fn string_scan_at_every_alignment() {
    for pad in (0..40).step_by(crate::test_rng::rounds(1, 3)) {
        let body = "x".repeat(pad);
        assert_eq!(scan(&format!("\"{body}\" tail")), Ok((pad + 1, 0)));
        // Two-byte escapes are seen to be valid by the scan; others are left to be checked.
        let two_byte = ESCAPED | SIMPLE_ESCAPES;
        assert_eq!(scan(&format!("\"{body}\\\"\"")), Ok((pad + 3, two_byte)));
        assert_eq!(scan(&format!("\"{body}\\\\\\n\"")), Ok((pad + 5, two_byte)));
        assert_eq!(scan(&format!("\"{body}\\u0041\"")), Ok((pad + 7, ESCAPED)));
        assert_eq!(scan(&format!("\"{body}\\x\\n\"")), Ok((pad + 5, ESCAPED)));
        assert_eq!(scan(&format!("\"{body}é\"")), Ok((pad + 3, NON_ASCII)));
        // Non-ASCII after the closing quote does not count.
        assert_eq!(scan(&format!("\"{body}\"é")), Ok((pad + 1, 0)));
        assert_eq!(scan(&format!("\"{body}\n\"")), Err(ErrorKind::Syntax));
        assert_eq!(scan(&format!("\"{body}")), Err(ErrorKind::Eof));
        assert_eq!(scan(&format!("\"{body}\\")), Err(ErrorKind::Eof));
    }
}

#[test]
fn escapes() {
    let bump = Bump::new();
    let un = |s: &'static str| {
        string_body(s.as_bytes(), 0, s.len(), ESCAPED, &bump)
            .map(|s| s.to_string())
            .map_err(|p| (p.0 .0, p.0 .1))
    };
    assert_eq!(
        un(r#"a\"b\\c\/d\b\f\n\r\t"#),
        Ok("a\"b\\c/d\u{8}\u{c}\n\r\t".to_string())
    );
    assert_eq!(un(r"\u00e9\ud83d\ude00x"), Ok("é😀x".to_string()));
    assert_eq!(un(r"ab\x"), Err((ErrorKind::InvalidUtf8, 2)));
    assert_eq!(un(r"\u12g4"), Err((ErrorKind::InvalidUtf8, 0)));
    assert_eq!(un(r"a\ud83d"), Err((ErrorKind::InvalidUtf8, 1)));
    assert_eq!(un(r"a\ud83dx\ude00"), Err((ErrorKind::InvalidUtf8, 1)));
    assert_eq!(un(r"a\ude00"), Err((ErrorKind::InvalidUtf8, 1)));
    assert_eq!(un(r"\ud83d\u0041"), Err((ErrorKind::InvalidUtf8, 0)));
}

#[test]
fn unescape_at_every_alignment() {
    let bump = Bump::new();
    let pieces = [
        "a",
        "\\n",
        "\\u00e9",
        "é",
        "\\ud83d\\ude00",
        "\\\"",
        "xyz",
        "\\\\",
    ];
    for len in (0..60).step_by(crate::test_rng::rounds(1, 2)) {
        // A pseudo-random mix of plain bytes and escapes of every length.
        let mut json = String::new();
        let mut k = len * 7 + 3;
        for _ in 0..len {
            k = (k * 31 + 11) % 97;
            json.push_str(pieces[k % pieces.len()]);
        }
        let want: String = serde_json::from_str(&format!("\"{json}\"")).unwrap();
        let got = string_body(json.as_bytes(), 0, json.len(), ESCAPED | NON_ASCII, &bump);
        let got = got.unwrap_or_else(|p| panic!("{json}: {}", p.0 .2));
        assert_eq!(got, want, "{json}");
    }
}
