//! Syntax errors in the structure, trailing bytes, and paths through maps still open.

use super::*;

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
