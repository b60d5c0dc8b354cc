//! Lists, sets, maps, objects and tuples.

use super::*;

// ---- list, set: JSON arrays ---------------------------------------------------------------

#[test]
fn lists_and_sets() {
    with_value(r#"["list","number"]"#, "[]", |_, v| {
        assert_eq!(v, Value::List(&[]))
    });
    with_value(r#"["set","number"]"#, "[ ]", |_, v| {
        assert_eq!(v, Value::Set(&[]))
    });
    with_value(r#"["list","number"]"#, "[1, 2 ,3]", |_, v| {
        let want = [1, 2, 3].map(|i| Value::from(Number::Int(i)));
        assert_eq!(v, Value::List(&want));
    });
    // Sets keep wire order and duplicates (DESIGN §4.4).
    with_value(r#"["set","string"]"#, r#"["b","a","b"]"#, |_, v| {
        assert_eq!(
            v,
            Value::Set(&[Value::String("b"), Value::String("a"), Value::String("b")])
        );
    });
    assert_eq!(
        dump_of(r#"["list",["list","number"]]"#, "[[1],[],[2,3]]"),
        "[[1],[],[2,3]]"
    );
    assert_eq!(
        dump_of(
            r#"["list",["set",["list","string"]]]"#,
            r#"[[["a"],[]],[],[["b","c"]]]"#
        ),
        r#"[[["a"],[]],[],[["b","c"]]]"#
    );
    // Many elements: the scratch vectors grow and the arena slice holds them all.
    let n = 10_000;
    let input = format!(
        "[{}]",
        (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    );
    with_value(r#"["list","number"]"#, &input, |_, v| {
        let e = v.elements().unwrap();
        assert_eq!(e.len(), n);
        assert!(e
            .iter()
            .enumerate()
            .all(|(i, x)| x.as_i64() == Some(i as i64)));
    });
}

// ---- map: a JSON object, any keys ---------------------------------------------------------

#[test]
fn maps() {
    with_value(r#"["map","string"]"#, "{}", |_, v| {
        assert_eq!(v, Value::Map(&[]))
    });
    with_value(
        r#"["map","string"]"#,
        r#"{"b":"x","a":"y","":"z"}"#,
        |_, v| {
            assert_eq!(
                v,
                Value::Map(&[
                    ("b", Value::String("x")),
                    ("a", Value::String("y")),
                    ("", Value::String("z"))
                ])
            );
        },
    );
    // Keys with escapes are unescaped; keys of any form, non-identifiers included.
    with_value(
        r#"["map","number"]"#,
        r#"{"caf\u00e9":1,"with space":2,"a\"b":3}"#,
        |_, v| {
            assert_eq!(v.map_get("café").and_then(|x| x.as_i64()), Some(1));
            assert_eq!(v.map_get("with space").and_then(|x| x.as_i64()), Some(2));
            assert_eq!(v.map_get("a\"b").and_then(|x| x.as_i64()), Some(3));
        },
    );
    // Duplicate keys are kept; lookups and the DUMP see the last (DESIGN §4.4, go-cty).
    with_value(r#"["map","number"]"#, r#"{"a":1,"b":2,"a":3}"#, |_, v| {
        assert_eq!(v.entries().unwrap().len(), 3);
        assert_eq!(v.map_get("a").and_then(|x| x.as_i64()), Some(3));
    });
    assert_eq!(
        dump_of(r#"["map","number"]"#, r#"{"a":1,"b":2,"a":3}"#),
        r#"{"a":3,"b":2}"#
    );
    // Maps of containers and maps in maps.
    assert_eq!(
        dump_of(
            r#"["map",["map",["list","number"]]]"#,
            r#"{"x":{"p":[1],"q":[]},"y":{}}"#
        ),
        r#"{"x":{"p":[1],"q":[]},"y":{}}"#
    );
}

// ---- object: a JSON object, one property per attribute ------------------------------------

#[test]
fn objects_any_key_order() {
    let ty = r#"["object",{"a":"string","b":"number","c":["list","bool"]}]"#;
    let want = r#"{"a":"x","b":1,"c":[true]}"#;
    for input in [
        r#"{"a":"x","b":1,"c":[true]}"#,
        r#"{"c":[true],"b":1,"a":"x"}"#,
        r#"{"b":1,"c":[true],"a":"x"}"#,
        r#" { "c" : [ true ] , "a" : "x" , "b" : 1 } "#,
    ] {
        assert_eq!(dump_of(ty, input), want, "{input}");
    }
    // Attribute names that need escapes on the wire, and an escaped spelling of a plain one.
    let ty = r#"["object",{"a\"b":"number","café":"number","plain":"number"}]"#;
    assert_eq!(
        dump_of(ty, r#"{"a\"b":1,"caf\u00e9":2,"pl\u0061in":3}"#),
        r#"{"a\"b":1,"café":2,"plain":3}"#
    );
    assert_eq!(
        dump_of(ty, r#"{"café":2}"#),
        r#"{"a\"b":null,"café":2,"plain":null}"#
    );
}

#[test]
fn objects_missing_attributes_are_null_always() {
    let ty = r#"["object",{"a":"string","b":["list","number"],"c":"dynamic"}]"#;
    assert_eq!(dump_of(ty, "{}"), r#"{"a":null,"b":null,"c":null}"#);
    assert_eq!(dump_of(ty, r#"{"b":[]}"#), r#"{"a":null,"b":[],"c":null}"#);
    // `missing_attributes_null: false` is a MessagePack option: JSON still reads null.
    let p = prog(ty);
    let bump = Bump::new();
    let strict = DecodeOptions::default().with_missing_attributes_null(false);
    let v = p.decode_json_with(b"{}", &bump, &strict).unwrap();
    assert_eq!(
        dump::to_string(&p, v).unwrap(),
        r#"{"a":null,"b":null,"c":null}"#
    );
}

#[test]
fn objects_unknown_attributes_fail_or_are_skipped() {
    let ty = r#"["object",{"id":"string"}]"#;
    let input = r#"{"extra":{"deep":[1,{"x":"\u00e9"}],"s":"}"},"id":"i-1","more":[[],{}]}"#;
    assert_eq!(
        fails(ty, input),
        (
            ErrorKind::UnknownAttribute,
            r#"unsupported attribute "extra""#.into()
        )
    );
    let skip = DecodeOptions::default().with_skip_unknown_attributes(true);
    let p = prog(ty);
    let bump = Bump::new();
    let v = p.decode_json_with(input.as_bytes(), &bump, &skip).unwrap();
    assert_eq!(dump::to_string(&p, v).unwrap(), r#"{"id":"i-1"}"#);
    // A skipped value must still be JSON.
    assert_eq!(
        fails_with(ty, r#"{"x":[1,],"id":"a"}"#, &skip).0,
        ErrorKind::Syntax
    );
    assert_eq!(
        fails_with(ty, r#"{"x":"\q","id":"a"}"#, &skip).0,
        ErrorKind::InvalidUtf8
    );
}

#[test]
fn objects_duplicate_keys_are_an_error() {
    // go-cty keeps the last; DESIGN §4.1 makes it an error.
    let ty = r#"["object",{"a":"number","b":"number"}]"#;
    let dup = (
        ErrorKind::DuplicateKey,
        r#"duplicate attribute "a""#.to_string(),
    );
    assert_eq!(fails(ty, r#"{"a":1,"a":2}"#), dup);
    assert_eq!(fails(ty, r#"{"b":1,"a":1,"a":2}"#), dup);
    assert_eq!(fails(ty, r#"{"a":1,"b":1,"a":2}"#), dup);
    assert_eq!(fails(ty, r#"{"a":1,"\u0061":2}"#), dup);
}

#[test]
fn objects_with_many_attributes_in_every_order() {
    let names: Vec<String> = (0..70).map(|i| format!("attr_{i:02}")).collect();
    let ty = format!(
        r#"["object",{{{}}}]"#,
        names
            .iter()
            .map(|n| format!(r#""{n}":"number""#))
            .collect::<Vec<_>>()
            .join(",")
    );
    for order in 0..3 {
        let mut idx: Vec<usize> = (0..70).collect();
        match order {
            0 => {}
            1 => idx.reverse(),
            _ => idx.sort_by_key(|i| (i * 37) % 70),
        }
        let input = format!(
            "{{{}}}",
            idx.iter()
                .map(|&i| format!(r#""{}":{i}"#, names[i]))
                .collect::<Vec<_>>()
                .join(",")
        );
        with_value(&ty, &input, |p, v| {
            let t = p.typed(v);
            for (i, n) in names.iter().enumerate() {
                assert_eq!(t.attr(n).unwrap().value.as_i64(), Some(i as i64));
            }
        });
        // The same with one key repeated at the end.
        let dup = format!("{},\"{}\":0}}", &input[..input.len() - 1], names[idx[0]]);
        assert_eq!(fails(&ty, &dup).0, ErrorKind::DuplicateKey);
    }
}

// ---- tuple: a JSON array of exactly the type's length -------------------------------------

#[test]
fn tuples() {
    let ty = r#"["tuple",["string","number",["list","bool"]]]"#;
    assert_eq!(dump_of(ty, r#"["a",1,[true]]"#), r#"["a",1,[true]]"#);
    assert_eq!(dump_of(ty, r#"[null,null,null]"#), "[null,null,null]");
    assert_eq!(dump_of(r#"["tuple",[]]"#, "[]"), "[]");
    assert_eq!(
        dump_of(
            r#"["tuple",[["tuple",["string","number"]],"bool"]]"#,
            r#"[["a",1],true]"#
        ),
        r#"[["a",1],true]"#
    );
    let too_many = (
        ErrorKind::WrongLength,
        "too many tuple elements (need 3)".to_string(),
    );
    let not_enough = (
        ErrorKind::WrongLength,
        "not enough tuple elements (need 3)".to_string(),
    );
    assert_eq!(fails(ty, r#"["a",1,[],2]"#), too_many);
    assert_eq!(fails(ty, r#"["a",1]"#), not_enough);
    // `[]` for a non-empty tuple is an error (go-cty JSON agrees).
    assert_eq!(fails(ty, "[]"), not_enough);
    assert_eq!(
        fails(r#"["tuple",[]]"#, "[1]").1,
        "too many tuple elements (need 0)"
    );
}
