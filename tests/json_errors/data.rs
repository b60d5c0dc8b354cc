//! Data errors: type mismatches, numbers, object keys, tuple lengths, dynamic wrappers.

use super::*;

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
