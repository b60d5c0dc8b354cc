//! Syntax errors in values and strings (invalid UTF-8 at its first bad byte).

use super::*;

// ---- Syntax ---------------------------------------------------------------------------------

#[test]
fn syntax_values() {
    use ErrorKind::Syntax;
    table(&[
        // Not a value.
        (
            "\"string\"",
            "'a'",
            Syntax,
            0,
            "",
            "expected a JSON value, found '''",
        ),
        (
            "\"number\"",
            "+1",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"+1\"",
        ),
        (
            "\"number\"",
            ".5",
            Syntax,
            0,
            "",
            "expected a JSON value, found \".5\"",
        ),
        (
            "\"number\"",
            "NaN",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"NaN\"",
        ),
        (
            "\"number\"",
            "Infinity",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"Infinity\"",
        ),
        (
            "\"bool\"",
            "True",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"True\"",
        ),
        (
            "\"string\"",
            "\u{feff}\"a\"",
            Syntax,
            0,
            "",
            "expected a JSON value, found byte 0xef",
        ),
        (
            LIST,
            "[,1]",
            Syntax,
            1,
            "[0]",
            "expected a JSON value, found ','",
        ),
        (
            LIST,
            "[1,]",
            Syntax,
            3,
            "[1]",
            "expected a JSON value, found ']'",
        ),
        (LIST, "]", Syntax, 0, "", "expected a JSON value, found ']'"),
        // Malformed numbers: at the number's start.
        ("\"number\"", "01", Syntax, 0, "", "invalid number \"01\""),
        ("\"number\"", "-01", Syntax, 0, "", "invalid number \"-01\""),
        (
            "\"number\"",
            "1.e5",
            Syntax,
            0,
            "",
            "invalid number \"1.e5\"",
        ),
        (
            "\"number\"",
            "1.5.2",
            Syntax,
            0,
            "",
            "invalid number \"1.5.2\"",
        ),
        (
            "\"number\"",
            "-Infinity",
            Syntax,
            0,
            "",
            "invalid number \"-Infinity\"",
        ),
        ("\"number\"", "- 1", Syntax, 0, "", "invalid number \"-\""),
        (
            "\"number\"",
            "123abc",
            Syntax,
            0,
            "",
            "invalid number \"123abc\"",
        ),
        (
            "\"number\"",
            "0x10",
            Syntax,
            0,
            "",
            "invalid number \"0x10\"",
        ),
        (
            "\"number\"",
            "1e+x",
            Syntax,
            0,
            "",
            "invalid number \"1e+x\"",
        ),
        (LIST, "[1,02]", Syntax, 3, "[1]", "invalid number \"02\""),
        ("\"string\"", "01", Syntax, 0, "", "invalid number \"01\""),
        // Malformed literals.
        (
            "\"bool\"",
            "trux",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"trux\"",
        ),
        (
            "\"bool\"",
            "truex",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"truex\"",
        ),
        (
            "\"string\"",
            "nul1",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"nul1\"",
        ),
        (
            "\"string\"",
            "nullx",
            Syntax,
            0,
            "",
            "expected a JSON value, found \"nullx\"",
        ),
        // A mismatch on a malformed token is a syntax error first.
        ("\"bool\"", "01", Syntax, 0, "", "invalid number \"01\""),
        (
            "\"number\"",
            "tru",
            ErrorKind::Eof,
            0,
            "",
            "unexpected end of input in a literal",
        ),
    ]);
}

#[test]
fn syntax_strings() {
    use ErrorKind::{InvalidUtf8, Syntax};
    table(&[
        // Control bytes must be escaped: at the byte.
        (
            "\"string\"",
            "\"a\u{1}b\"",
            Syntax,
            2,
            "",
            "control character 0x01 in string (it must be escaped)",
        ),
        (
            "\"string\"",
            "\"a\nb\"",
            Syntax,
            2,
            "",
            "control character 0x0a in string (it must be escaped)",
        ),
        (
            "\"string\"",
            "\"\tb\"",
            Syntax,
            1,
            "",
            "control character 0x09 in string (it must be escaped)",
        ),
        (
            LIST,
            "[1,\"\u{0}\"]",
            Syntax,
            4,
            "[1]",
            "control character 0x00 in string (it must be escaped)",
        ),
        // Invalid escapes and lone surrogates: at the backslash.
        (
            "\"string\"",
            r#""a\qb""#,
            InvalidUtf8,
            2,
            "",
            r#"invalid escape "\\q" in string"#,
        ),
        (
            "\"string\"",
            r#""\x41""#,
            InvalidUtf8,
            1,
            "",
            r#"invalid escape "\\x" in string"#,
        ),
        (
            "\"string\"",
            r#""\U0041""#,
            InvalidUtf8,
            1,
            "",
            r#"invalid escape "\\U" in string"#,
        ),
        (
            "\"string\"",
            r#""\u12G4""#,
            InvalidUtf8,
            1,
            "",
            r#"invalid escape "\\u12G4" in string"#,
        ),
        (
            "\"string\"",
            r#""\u12""#,
            InvalidUtf8,
            1,
            "",
            r#"invalid escape "\\u12" in string"#,
        ),
        (
            "\"string\"",
            r#""ab\ud800""#,
            InvalidUtf8,
            3,
            "",
            r"lone surrogate \ud800 in string",
        ),
        (
            "\"string\"",
            r#""\udbff\u0041""#,
            InvalidUtf8,
            1,
            "",
            r"lone surrogate \udbff in string",
        ),
        (
            "\"string\"",
            r#""\ud800\ud800""#,
            InvalidUtf8,
            1,
            "",
            r"lone surrogate \ud800 in string",
        ),
        (
            "\"string\"",
            r#""\ud800x""#,
            InvalidUtf8,
            1,
            "",
            r"lone surrogate \ud800 in string",
        ),
        (
            "\"string\"",
            r#""x\udc00""#,
            InvalidUtf8,
            2,
            "",
            r"lone surrogate \udc00 in string",
        ),
        (
            "\"string\"",
            r#""\uDFFF""#,
            InvalidUtf8,
            1,
            "",
            r"lone surrogate \udfff in string",
        ),
        (
            MAP,
            r#"{"k\z":1}"#,
            InvalidUtf8,
            3,
            "",
            r#"invalid escape "\\z" in string"#,
        ),
        (
            OBJ,
            r#"{"b":["ok","\ud800"]}"#,
            InvalidUtf8,
            12,
            ".b[1]",
            r"lone surrogate \ud800 in string",
        ),
    ]);
}

#[test]
fn invalid_utf8_at_the_first_bad_byte() {
    let bad: &[(&[u8], usize)] = &[
        (b"\"\xff\"", 1),
        (b"\"ab\xc3\"", 3),           // truncated 2-byte sequence
        (b"\"ab\xc3(\"", 3),          // bad continuation
        (b"\"\xe2\x82\"", 1),         // truncated 3-byte sequence
        (b"\"\xed\xa0\x80\"", 1),     // an encoded surrogate
        (b"\"\xc0\xaf\"", 1),         // overlong
        (b"\"\xf4\x90\x80\x80\"", 1), // beyond U+10FFFF
        (b"\"0123456789abcdef\xff0123456789abcdef\"", 17),
    ];
    for &(input, at) in bad {
        let e = json_err_with("\"string\"", input, &DecodeOptions::default());
        assert_err(
            &e,
            ErrorKind::InvalidUtf8,
            at,
            "",
            "string is not valid UTF-8",
        );
    }
    // In a map key, an object key, a skipped value, and next to an escape.
    let e = json_err_with(MAP, b"{\"\xff\":1}", &DecodeOptions::default());
    assert_err(
        &e,
        ErrorKind::InvalidUtf8,
        2,
        "",
        "string is not valid UTF-8",
    );
    let e = json_err_with(OBJ, b"{\"\xff\":1}", &DecodeOptions::default());
    assert_err(
        &e,
        ErrorKind::InvalidUtf8,
        2,
        "",
        "string is not valid UTF-8",
    );
    let skip = DecodeOptions::default().with_skip_unknown_attributes(true);
    let e = json_err_with(OBJ, b"{\"x\":[\"\xff\"]}", &skip);
    assert_err(
        &e,
        ErrorKind::InvalidUtf8,
        7,
        ".x",
        "string is not valid UTF-8",
    );
    let e = json_err_with("\"string\"", b"\"\\n\xff\"", &DecodeOptions::default());
    assert_err(
        &e,
        ErrorKind::InvalidUtf8,
        3,
        "",
        "string is not valid UTF-8",
    );
}
