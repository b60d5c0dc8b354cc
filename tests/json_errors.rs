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

#[test]
fn syntax_structure() {
    use ErrorKind::Syntax;
    table(&[
        // Separators: the container's path, at the byte found.
        (
            LIST,
            "[1 2]",
            Syntax,
            3,
            "",
            "expected ',' or ']' after a value, found '2'",
        ),
        (
            LIST,
            "[1}",
            Syntax,
            2,
            "",
            "expected ',' or ']' after a value, found '}'",
        ),
        (
            LIST,
            "[1;2]",
            Syntax,
            2,
            "",
            "expected ',' or ']' after a value, found ';'",
        ),
        (
            r#"["list",["list","number"]]"#,
            "[[1],[2 3]]",
            Syntax,
            8,
            "[1]",
            "expected ',' or ']' after a value, found '3'",
        ),
        (
            MAP,
            r#"{"a":1 "b":2}"#,
            Syntax,
            7,
            "",
            "expected ',' or '}' after a value, found '\"'",
        ),
        (
            MAP,
            r#"{"a":1]"#,
            Syntax,
            6,
            "",
            "expected ',' or '}' after a value, found ']'",
        ),
        (
            OBJ,
            r#"{"a":1 "b":[]}"#,
            Syntax,
            7,
            "",
            "expected ',' or '}' after a value, found '\"'",
        ),
        (
            r#"["tuple",["number","number"]]"#,
            "[1 2]",
            Syntax,
            3,
            "",
            "expected ',' or ']' after a value, found '2'",
        ),
        // Colons.
        (
            MAP,
            r#"{"a" 1}"#,
            Syntax,
            5,
            "",
            "expected ':' after an object key, found '1'",
        ),
        (
            MAP,
            r#"{"a",1}"#,
            Syntax,
            4,
            "",
            "expected ':' after an object key, found ','",
        ),
        (
            OBJ,
            r#"{"a"=1}"#,
            Syntax,
            4,
            "",
            "expected ':' after an object key, found '='",
        ),
        // Keys.
        (
            MAP,
            "{a:1}",
            Syntax,
            1,
            "",
            "expected a string key, found 'a'",
        ),
        (
            MAP,
            "{1:1}",
            Syntax,
            1,
            "",
            "expected a string key, found '1'",
        ),
        (
            MAP,
            r#"{"a":1,}"#,
            Syntax,
            7,
            "",
            "expected a string key, found '}'",
        ),
        (
            OBJ,
            r#"{,"a":1}"#,
            Syntax,
            1,
            "",
            "expected a string key, found ','",
        ),
        (
            OBJ,
            r#"{"a":1,}"#,
            Syntax,
            7,
            "",
            "expected a string key, found '}'",
        ),
        (
            OBJ,
            "{'a':1}",
            Syntax,
            1,
            "",
            "expected a string key, found '''",
        ),
        // Wrappers.
        (
            "\"dynamic\"",
            r#"{"type" "bool"}"#,
            Syntax,
            8,
            "",
            "expected ':' after an object key, found '\"'",
        ),
        (
            "\"dynamic\"",
            r#"{"type":"bool" "value":1}"#,
            Syntax,
            15,
            "",
            "expected ',' or '}' after a value, found '\"'",
        ),
        (
            "\"dynamic\"",
            r#"{"type":"bool","value":true]"#,
            Syntax,
            27,
            "",
            "expected ',' or '}' after a value, found ']'",
        ),
        (
            "\"dynamic\"",
            r#"{type:"bool"}"#,
            Syntax,
            1,
            "",
            "expected a string key, found 't'",
        ),
        (
            "\"dynamic\"",
            r#"{"value":[1 2],"type":["list","number"]}"#,
            Syntax,
            12,
            "",
            "expected ',' or ']' after a value, found '2'",
        ),
    ]);
}

// ---- TrailingBytes ----------------------------------------------------------------------------

#[test]
fn trailing_bytes() {
    use ErrorKind::TrailingBytes;
    table(&[
        (
            "\"number\"",
            "1 2",
            TrailingBytes,
            2,
            "",
            "1 bytes after the value",
        ),
        (
            "\"string\"",
            "\"a\"\"b\"",
            TrailingBytes,
            3,
            "",
            "3 bytes after the value",
        ),
        (
            LIST,
            "[1] ,",
            TrailingBytes,
            4,
            "",
            "1 bytes after the value",
        ),
        (
            LIST,
            "[1]]",
            TrailingBytes,
            3,
            "",
            "1 bytes after the value",
        ),
        (
            OBJ,
            "{} {}",
            TrailingBytes,
            3,
            "",
            "2 bytes after the value",
        ),
        (
            "\"bool\"",
            "true\n\u{0}",
            TrailingBytes,
            5,
            "",
            "1 bytes after the value",
        ),
    ]);
}

/// Paths through maps nested in maps and lists: the keys of open maps are named even though
/// their entries are still in the decoder's scratch vectors.
#[test]
fn paths_through_open_maps() {
    let ty = r#"["map",["list",["map",["map","number"]]]]"#;
    let input = r#"{"a":[],"b":[{"x":{"p":1}},{"y":{},"z":{"q":2,"r":"s"}}]}"#;
    let e = json_err(ty, input);
    assert_err(
        &e,
        ErrorKind::InvalidNumber,
        50,
        r#"["b"][1]["z"]["r"]"#,
        "\"s\" is not a valid number",
    );
    let input = r#"{"a":[],"b":[{"x":{"p":1}},{"y":{},"z":{"q":2,"r":3 4}}]}"#;
    let e = json_err(ty, input);
    assert_err(
        &e,
        ErrorKind::Syntax,
        52,
        r#"["b"][1]["z"]"#,
        "expected ',' or '}' after a value, found '4'",
    );
    let ty = r#"["list",["map",["list","string"]]]"#;
    let e = json_err(ty, r#"[{"k":["a"]},{"k":["b"],"l":["c",1,{}]}]"#);
    assert_err(
        &e,
        ErrorKind::TypeMismatch,
        35,
        r#"[1]["l"][2]"#,
        "expected string, found JSON object",
    );
}

// ---- Data errors --------------------------------------------------------------------------------

#[test]
fn type_mismatch() {
    use ErrorKind::TypeMismatch;
    table(&[
        (
            "\"number\"",
            "true",
            TypeMismatch,
            0,
            "",
            "expected number, found JSON bool",
        ),
        (
            "\"bool\"",
            " 1",
            TypeMismatch,
            1,
            "",
            "expected bool, found JSON number",
        ),
        (
            "\"bool\"",
            "\"yes\"",
            TypeMismatch,
            0,
            "",
            "expected bool, found JSON string \"yes\"",
        ),
        (
            LIST,
            "[1,[2]]",
            TypeMismatch,
            3,
            "[1]",
            "expected number, found JSON array",
        ),
        (
            OBJ,
            r#"{"b":["x",{}]}"#,
            TypeMismatch,
            10,
            ".b[1]",
            "expected string, found JSON object",
        ),
        (
            OBJ,
            r#"{"with space":{"k":[]}}"#,
            TypeMismatch,
            19,
            "[\"with space\"][\"k\"]",
            "expected string, found JSON array",
        ),
        (
            OBJ,
            r#"{"b":{}}"#,
            TypeMismatch,
            5,
            ".b",
            "expected list (a JSON array), found JSON object",
        ),
        (
            r#"["map",["object",{"x":"bool"}]]"#,
            r#"{"k":{"x":0}}"#,
            TypeMismatch,
            10,
            "[\"k\"].x",
            "expected bool, found JSON number",
        ),
        (
            r#"["list","dynamic"]"#,
            r#"[{"value":"x","type":"bool"}]"#,
            TypeMismatch,
            10,
            "[0]",
            "expected bool, found JSON string \"x\"",
        ),
    ]);
}

#[test]
fn invalid_number() {
    use ErrorKind::InvalidNumber;
    table(&[
        (
            "\"number\"",
            "\"abc\"",
            InvalidNumber,
            0,
            "",
            "\"abc\" is not a valid number",
        ),
        (
            "\"number\"",
            "\"NaN\"",
            InvalidNumber,
            0,
            "",
            "\"NaN\" is not a valid number",
        ),
        (
            MAP,
            r#"{"a":1,"b":"x"}"#,
            InvalidNumber,
            11,
            "[\"b\"]",
            "\"x\" is not a valid number",
        ),
        (
            OBJ,
            r#"{"a":""}"#,
            InvalidNumber,
            5,
            ".a",
            "\"\" is not a valid number",
        ),
    ]);
}

#[test]
fn object_keys() {
    table(&[
        (
            OBJ,
            r#"{"a":1,"c":2}"#,
            ErrorKind::UnknownAttribute,
            7,
            "",
            "unsupported attribute \"c\"",
        ),
        (
            OBJ,
            r#"{"b":[],"with\u0020spac":{}}"#,
            ErrorKind::UnknownAttribute,
            8,
            "",
            "unsupported attribute \"with spac\"",
        ),
        (
            OBJ,
            r#"{"a":1,"a":2}"#,
            ErrorKind::DuplicateKey,
            7,
            ".a",
            "duplicate attribute \"a\"",
        ),
        (
            OBJ,
            r#"{"b":[],"a":1,"b":[]}"#,
            ErrorKind::DuplicateKey,
            14,
            ".b",
            "duplicate attribute \"b\"",
        ),
        // Keys left out in order (a gap), then a repeated key, in order or not, and
        // indented keys.
        (
            OBJ,
            r#"{"b":[],"b":[]}"#,
            ErrorKind::DuplicateKey,
            8,
            ".b",
            "duplicate attribute \"b\"",
        ),
        (
            OBJ,
            r#"{ "b" : [] , "a" : 1 , "b": [] }"#,
            ErrorKind::DuplicateKey,
            23,
            ".b",
            "duplicate attribute \"b\"",
        ),
        (
            OBJ,
            r#"{"with space":{},"with\u0020space":{}}"#,
            ErrorKind::DuplicateKey,
            17,
            "[\"with space\"]",
            "duplicate attribute \"with space\"",
        ),
    ]);
    // An error inside a skipped value names the unknown key.
    let skip = DecodeOptions::default().with_skip_unknown_attributes(true);
    let e = json_err_with(OBJ, br#"{"a":1,"zz":[1,{"q" 1}]}"#, &skip);
    assert_err(
        &e,
        ErrorKind::Syntax,
        20,
        ".zz",
        "expected ':' after an object key, found '1'",
    );
}

#[test]
fn tuple_lengths() {
    use ErrorKind::WrongLength;
    let t = r#"["tuple",["string","number"]]"#;
    table(&[
        (
            t,
            "[]",
            WrongLength,
            1,
            "",
            "not enough tuple elements (need 2)",
        ),
        (
            t,
            "[\"a\"]",
            WrongLength,
            4,
            "",
            "not enough tuple elements (need 2)",
        ),
        (
            t,
            "[\"a\",1,2]",
            WrongLength,
            7,
            "",
            "too many tuple elements (need 2)",
        ),
        (
            t,
            "[\"a\",1, []]",
            WrongLength,
            8,
            "",
            "too many tuple elements (need 2)",
        ),
        (
            r#"["list",["tuple",["bool"]]]"#,
            "[[true],[]]",
            WrongLength,
            9,
            "[1]",
            "not enough tuple elements (need 1)",
        ),
    ]);
}

#[test]
fn dynamic_wrappers() {
    let d = "\"dynamic\"";
    table(&[
        (
            d,
            "{}",
            ErrorKind::InvalidDynamic,
            0,
            "",
            "missing type in dynamically-typed value",
        ),
        (
            d,
            r#" {"value":1}"#,
            ErrorKind::InvalidDynamic,
            1,
            "",
            "missing type in dynamically-typed value",
        ),
        (
            d,
            r#"{"type":"bool"}"#,
            ErrorKind::InvalidDynamic,
            0,
            "",
            "missing value in dynamically-typed value",
        ),
        (
            d,
            r#"{"type":"bool","x":1}"#,
            ErrorKind::InvalidDynamic,
            15,
            "",
            "invalid key \"x\" in dynamically-typed value",
        ),
        (
            d,
            r#"{"type":"bool","value":true,"type":"bool"}"#,
            ErrorKind::DuplicateKey,
            28,
            "",
            "duplicate key \"type\" in dynamically-typed value",
        ),
        (
            d,
            r#"[]"#,
            ErrorKind::InvalidDynamic,
            0,
            "",
            "expected a dynamic value {\"type\": T, \"value\": V}, found JSON array",
        ),
        (
            d,
            r#"{"type":"list","value":[]}"#,
            ErrorKind::InvalidType,
            8,
            "",
            "invalid dynamic type: invalid primitive type name \"list\"",
        ),
        (
            d,
            r#"{"value":[],"type":["lst","string"]}"#,
            ErrorKind::InvalidType,
            19,
            "",
            "invalid dynamic type: invalid complex type kind name \"lst\"",
        ),
        (
            r#"["map","dynamic"]"#,
            r#"{"k":{"value":[],"type":["list"]}}"#,
            ErrorKind::InvalidType,
            24,
            "[\"k\"]",
            "invalid dynamic type: type description \"list\" lacks its argument",
        ),
    ]);
}

#[test]
fn inconsistent_dynamic_types() {
    let e = json_err(
        r#"["list","dynamic"]"#,
        r#"[{"value":1,"type":"number"},{"value":"1","type":"string"}]"#,
    );
    assert_err(
        &e,
        ErrorKind::InconsistentTypes,
        0,
        "",
        r#"elements have different types: "number" and "string""#,
    );
    let e = json_err(
        r#"["object",{"m":["map","dynamic"]}]"#,
        r#"{"m":{"a":{"value":1,"type":"number"},"b":{"value":true,"type":"bool"}}}"#,
    );
    assert_err(
        &e,
        ErrorKind::InconsistentTypes,
        5,
        ".m",
        r#"elements have different types: "number" and "bool""#,
    );
}

// ---- Limits ---------------------------------------------------------------------------------------

fn limits(l: Limits) -> DecodeOptions {
    DecodeOptions::default().with_limits(l)
}

#[test]
fn limit_errors() {
    let depth = limits(Limits::DEFAULT.with_max_depth(3));
    let nested = r#"["list",["list",["list",["list","number"]]]]"#;
    assert!(prog(nested)
        .decode_json_with(b"[[[]]]", &Bump::new(), &depth)
        .is_ok());
    let e = json_err_with(nested, b"[[[[]]]]", &depth);
    assert_err(
        &e,
        ErrorKind::Limit,
        3,
        "[0][0][0]",
        "nesting deeper than max_depth (3)",
    );
    // Inside a skipped value and a value-first dynamic wrapper, the same limit applies.
    let skip = depth.with_skip_unknown_attributes(true);
    let e = json_err_with(r#"["object",{}]"#, br#"{"x":[[[1]]]}"#, &skip);
    assert_err(
        &e,
        ErrorKind::Limit,
        7,
        ".x",
        "nesting deeper than max_depth (3)",
    );
    let e = json_err_with(
        "\"dynamic\"",
        br#"{"value":[[[1]]],"type":["list",["list",["list","number"]]]}"#,
        &depth,
    );
    assert_err(
        &e,
        ErrorKind::Limit,
        11,
        "",
        "nesting deeper than max_depth (3)",
    );

    let strings = limits(Limits::DEFAULT.with_max_string_len(3));
    assert!(prog("\"string\"")
        .decode_json_with(b"\"abc\"", &Bump::new(), &strings)
        .is_ok());
    let e = json_err_with(r#"["list","string"]"#, b"[\"abc\",\"abcd\"]", &strings);
    assert_err(
        &e,
        ErrorKind::Limit,
        7,
        "[1]",
        "string of 4 bytes exceeds max_string_len (3)",
    );
    // The decoded length counts: six escapes decode to three bytes.
    assert!(prog("\"string\"")
        .decode_json_with(br#""\u0041\u0042\u0043""#, &Bump::new(), &strings)
        .is_ok());
    let e = json_err_with(MAP, b"{\"long\":1}", &strings);
    assert_err(
        &e,
        ErrorKind::Limit,
        1,
        "",
        "string of 4 bytes exceeds max_string_len (3)",
    );

    let len = limits(Limits::DEFAULT.with_max_container_len(2));
    assert!(prog(LIST)
        .decode_json_with(b"[1,2]", &Bump::new(), &len)
        .is_ok());
    let e = json_err_with(LIST, b"[1,2,3]", &len);
    assert_err(
        &e,
        ErrorKind::Limit,
        5,
        "",
        "more than max_container_len (2) elements",
    );
    let e = json_err_with(MAP, b"{\"a\":1,\"b\":2,\"c\":3}", &len);
    assert_err(
        &e,
        ErrorKind::Limit,
        13,
        "",
        "more than max_container_len (2) elements",
    );

    let tj = limits(Limits::DEFAULT.with_max_type_json_len(8));
    assert!(prog("\"dynamic\"")
        .decode_json_with(br#"{"type":"string","value":"x"}"#, &Bump::new(), &tj)
        .is_ok());
    let e = json_err_with(
        "\"dynamic\"",
        br#"{"type":["list","bool"],"value":[]}"#,
        &tj,
    );
    assert_err(
        &e,
        ErrorKind::Limit,
        8,
        "",
        "type JSON of 15 bytes exceeds max_type_json_len (8)",
    );

    let types = limits(Limits::DEFAULT.with_max_dynamic_types(1));
    let p = prog(r#"["tuple",["dynamic","dynamic"]]"#);
    let bump = Bump::new();
    let input = br#"[{"type":"string","value":"x"},{"type":"bool","value":true}]"#;
    let e = p.decode_json_with(input, &bump, &types).unwrap_err();
    assert_err(
        &e,
        ErrorKind::Limit,
        39,
        "[1]",
        "more than max_dynamic_types (1) distinct dynamic types",
    );
}

/// Not errors: keys the input leaves out in order (a schema newer than the value), keys out
/// of order after such a gap, and indented keys (`"key" : value`) decode to the same value.
#[test]
fn gaps_out_of_order_and_indented_keys_decode() {
    let program = tfwire::Program::from_type_json(OBJ).unwrap();
    let bump = Bump::new();
    let dump = |input: &str| {
        let v = program.decode_json(input.as_bytes(), &bump).unwrap();
        tfwire::dump::to_string(&program, v).unwrap()
    };
    let want = r#"{"a":1,"b":["x"],"with space":null}"#;
    for input in [
        r#"{"a":1,"b":["x"]}"#,
        r#"{"b":["x"],"a":1}"#,
        "{\n  \"a\" : 1,\n  \"b\":\t[\"x\"]\n}",
        r#"{"b":["x"],"with space":null,"a":1}"#,
    ] {
        assert_eq!(dump(input), want, "{input}");
    }
    assert_eq!(
        dump(r#"{"with space":{"k":"v"}}"#),
        r#"{"a":null,"b":null,"with space":{"k":"v"}}"#
    );
}
