//! Every error the JSON executor produces, each with its exact kind, byte offset, value path
//! (Terraform notation: `.a["k"][0]`, `["with space"]`) and message.
//!
//! Offsets: a malformed token is reported at its first byte (a number, a literal, a string's
//! opening quote when the input ends inside it); a bad byte inside a string (control byte,
//! escape, invalid UTF-8) at that byte; a missing separator, colon or value at the byte found
//! instead, or at the input's length when the input ended there.

#[path = "support/decode.rs"]
mod decode;

use bumpalo::Bump;
use decode::{assert_err, json_err, json_err_with, prog};
use tfwire::{DecodeOptions, ErrorKind, Limits};

/// `(type, input, kind, offset, path, message)` rows.
type Row<'a> = (&'a str, &'a str, ErrorKind, usize, &'a str, &'a str);

#[track_caller]
fn table(rows: &[Row<'_>]) {
    for &(ty, input, kind, offset, path, message) in rows {
        let e = json_err(ty, input);
        assert_eq!(
            (e.kind(), e.offset().unwrap(), e.path(), e.message()),
            (kind, offset, path, message),
            "{ty} {input:?}: {e}"
        );
    }
}

const EOF: &str = "unexpected end of input";
const LIST: &str = r#"["list","number"]"#;
const MAP: &str = r#"["map","number"]"#;
const OBJ: &str =
    r#"["object",{"a":"number","b":["list","string"],"with space":["map","string"]}]"#;

// ---- Eof ------------------------------------------------------------------------------------

#[test]
fn eof() {
    use ErrorKind::Eof;
    let in_string = "unexpected end of input in a string";
    let in_number = "unexpected end of input in a number";
    let in_literal = "unexpected end of input in a literal";
    table(&[
        ("\"string\"", "", Eof, 0, "", EOF),
        ("\"string\"", "  \n", Eof, 3, "", EOF),
        // Inside a token: at the token's start.
        ("\"string\"", "\"abc", Eof, 0, "", in_string),
        ("\"string\"", "\"ab\\", Eof, 0, "", in_string),
        ("\"string\"", "\"ab\\\"", Eof, 0, "", in_string),
        ("\"number\"", "-", Eof, 0, "", in_number),
        ("\"number\"", "1.", Eof, 0, "", in_number),
        ("\"number\"", "1e", Eof, 0, "", in_number),
        ("\"number\"", "1e-", Eof, 0, "", in_number),
        ("\"bool\"", "tr", Eof, 0, "", in_literal),
        ("\"bool\"", "fals", Eof, 0, "", in_literal),
        ("\"string\"", "nu", Eof, 0, "", in_literal),
        // Between tokens: at the end of the input, with the path of what was expected.
        (LIST, "[", Eof, 1, "[0]", EOF),
        (LIST, "[1", Eof, 2, "", EOF),
        (LIST, "[1,", Eof, 3, "[1]", EOF),
        (LIST, "[1, 2.", Eof, 4, "[1]", in_number),
        (MAP, "{", Eof, 1, "", EOF),
        (MAP, "{\"k\"", Eof, 4, "", EOF),
        (MAP, "{\"k\":", Eof, 5, "[\"k\"]", EOF),
        (MAP, "{\"k\":1", Eof, 6, "", EOF),
        (MAP, "{\"k", Eof, 1, "", in_string),
        (OBJ, "{\"a\":", Eof, 5, ".a", EOF),
        (OBJ, "{\"b\":[\"x", Eof, 6, ".b[0]", in_string),
        (
            OBJ,
            "{\"with space\":{\"k\":",
            Eof,
            19,
            "[\"with space\"][\"k\"]",
            EOF,
        ),
        (
            r#"["tuple",["string","number"]]"#,
            "[\"a\",",
            Eof,
            5,
            "[1]",
            EOF,
        ),
        // Dynamic wrappers: while reading the wrapper, then inside the value.
        ("\"dynamic\"", "{", Eof, 1, "", EOF),
        ("\"dynamic\"", "{\"type\":", Eof, 8, "", EOF),
        ("\"dynamic\"", "{\"type\":\"bool\"", Eof, 14, "", EOF),
        (
            "\"dynamic\"",
            "{\"type\":\"bool\",\"value\":",
            Eof,
            23,
            "",
            EOF,
        ),
        (
            "\"dynamic\"",
            "{\"type\":\"bool\",\"value\":true",
            Eof,
            27,
            "",
            EOF,
        ),
        ("\"dynamic\"", "{\"value\":[1,", Eof, 12, "", EOF),
        (
            "\"dynamic\"",
            "{\"value\":1,\"type\":\"number\"",
            Eof,
            26,
            "",
            EOF,
        ),
        (
            r#"["list","dynamic"]"#,
            "[{\"type\":[\"list\",\"number\"],\"value\":[1,",
            Eof,
            38,
            "[0][1]",
            EOF,
        ),
    ]);
}

#[path = "json_errors/data.rs"]
mod data;
#[path = "json_errors/limits.rs"]
mod limits;
#[path = "json_errors/structure.rs"]
mod structure;
#[path = "json_errors/syntax.rs"]
mod syntax;
