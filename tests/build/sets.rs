//! Sets in go-cty's order, each element once; decoded values checked deeply and canonicalised.

use super::*;

/// The elements of a set of type `ty` built from `parts`.
fn set_of<'a, P: Part<'a>>(p: &'a Program, bump: &'a Bump, parts: Vec<P>) -> Vec<Value<'a>> {
    let b = p.builder(bump);
    let v = b.build(b.set_from(parts)).unwrap();
    // Canonical already: checking it again changes nothing, and it round-trips.
    assert!(
        matches!((v, b.build(v).unwrap()), (Value::Set(x), Value::Set(y)) if std::ptr::eq(x, y))
    );
    let mut out = Vec::new();
    p.encode_msgpack(v, &mut out).unwrap();
    assert_eq!(p.decode_msgpack(&out, bump).unwrap(), v);
    v.elements().unwrap().to_vec()
}

#[test]
fn sets_of_strings_bytewise_each_once() {
    let p = program(r#"["set","string"]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let got = set_of(
        &p,
        &bump,
        ["b", "a", "B", "", "a", "é", "Z", "aa", "ab"]
            .map(|s| b.string(s))
            .to_vec(),
    );
    let want: Vec<_> = ["", "B", "Z", "a", "aa", "ab", "b", "é"]
        .map(Value::String)
        .to_vec();
    assert_eq!(got, want);
}

#[test]
fn sets_of_numbers_by_value_each_once() {
    let p = program(r#"["set","number"]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let parts = vec![
        b.int(10),
        b.int(-1),
        b.float(2.5),
        b.decimal("1e1"), // 10 again
        b.decimal("0.1"),
        b.float(0.1), // go-cty: the same text as the decimal 0.1, so the same number
        b.decimal("0.10000000000000001"),
        b.uint(3),
        b.decimal("-Inf"),
        b.float(f64::INFINITY),
        b.decimal("100000000000000000000000"),
        b.float(1e23), // its text is 1e+23 too
        b.decimal("99999999999999999999999.5"),
        b.int(-1),
        b.decimal("2.50"),
        b.float(-0.0),
        b.int(0),
    ];
    let want = [
        Value::Float(f64::NEG_INFINITY),
        Value::Int(-1),
        Value::Int(0),
        Value::Decimal("0.1"),
        Value::Decimal("0.10000000000000001"),
        Value::Float(2.5),
        Value::Int(3),
        Value::Int(10),
        Value::Decimal("99999999999999999999999.5"),
        Value::Decimal("100000000000000000000000"),
        Value::Float(f64::INFINITY),
    ];
    assert_eq!(set_of(&p, &bump, parts), want);
}

#[test]
fn sets_of_bools_false_first() {
    let p = program(r#"["set","bool"]"#);
    let bump = Bump::new();
    let got = set_of(
        &p,
        &bump,
        vec![Some(true), None, Some(false), Some(true), None],
    );
    assert_eq!(got, [Value::Bool(false), Value::Bool(true), Value::Null]);
}

#[test]
fn unknowns_after_known_values_in_their_order_then_one_null() {
    let p = program(r#"["set","number"]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let not_null = Refinements {
        nullness: Some(false),
        ..Refinements::default()
    };
    let got = set_of(
        &p,
        &bump,
        vec![
            b.unknown_refined(&not_null),
            b.int(5),
            b.null(),
            b.unknown(),
            b.null(),
            b.int(1),
        ],
    );
    assert_eq!(got.len(), 5);
    assert_eq!(got[..2], [Value::Int(1), Value::Int(5)]);
    assert_eq!(got[2].refinements().unwrap().nullness, Some(false));
    assert_eq!(got[3..], [Value::Unknown(None), Value::Null]);
}

#[test]
fn sets_of_objects_by_hash_text() {
    let p = program(r#"["set",["object",{"name":"string","port":"number"}]]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let rule = |name: Option<&'static str>, port: i64| {
        b.object(move |o| {
            o.set("name", name)?;
            o.set("port", port)
        })
    };
    let v = b
        .build(b.set(|s| {
            s.insert(rule(Some("b"), 1))?;
            s.insert(rule(Some("a"), 2))?;
            s.insert(b.unknown())?;
            s.insert(rule(Some("a"), 10))?;
            s.insert(rule(Some("a"), 2))?; // again
            s.insert(b.null())?;
            s.insert(rule(None, 1))
        }))
        .unwrap();
    // Hash texts <"a";10;> < <"a";2;> < <"b";1;> < <~;1;>: bytewise, not by value.
    let got: Vec<_> = v
        .elements()
        .unwrap()
        .iter()
        .map(|e| match p.typed(*e).attr("port") {
            Some(port) => format!(
                "{:?}/{}",
                p.typed(*e).attr("name").unwrap().value.as_str(),
                port.value.as_i64().unwrap()
            ),
            None => format!("{e:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [
            "Some(\"a\")/10",
            "Some(\"a\")/2",
            "Some(\"b\")/1",
            "None/1",
            "Unknown(None)",
            "Null"
        ]
    );
}

#[test]
fn complex_elements_with_unknowns_are_never_equal() {
    let p = program(r#"["set",["object",{"id":"string"}]]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let id = |known: bool| b.object(move |o| if known { o.null("id") } else { o.unknown("id") });
    let got = set_of(&p, &bump, vec![id(false), id(true), id(false), id(true)]);
    // Two objects with an unknown attribute stay two; objects with a null one are one.
    assert_eq!(got.len(), 3);
}

#[test]
fn nested_sets_are_ordered_first() {
    let p = program(r#"["set",["set","string"]]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let got = set_of(
        &p,
        &bump,
        vec![
            b.set_from(vec!["b", "a"]),
            b.set_from(vec!["a"]),
            b.set_from(vec!["a", "b"]),
        ],
    );
    // Hash texts ["a";"b";] before ["a";] ('"' is below ']'); {b, a} is {a, b} again.
    assert_eq!(
        got,
        [
            Value::Set(&[Value::String("a"), Value::String("b")]),
            Value::Set(&[Value::String("a")])
        ]
    );
}

#[test]
fn decoded_values_are_checked_deeply_and_canonicalised() {
    let p = program(r#"["object",{"s":["set","string"],"m":["map","number"],"n":"number"}]"#);
    let other = program(r#"["object",{"s":["set","string"],"m":["map","string"],"n":"number"}]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    // {"m": {"b": 1, "a": 2, "b": 3}, "n": 1, "s": ["y", "x", "y"]}: not as go-cty writes it.
    let input = b"\x83\xa1m\x83\xa1b\x01\xa1a\x02\xa1b\x03\xa1n\x01\xa1s\x93\xa1y\xa1x\xa1y";
    let decoded = p.decode_msgpack(input, &bump).unwrap();
    let v = b.build(decoded).unwrap();
    let t = p.typed(v);
    assert_eq!(
        t.attr("s").unwrap().value,
        Value::Set(&[Value::String("x"), Value::String("y")])
    );
    assert_eq!(
        t.attr("m").unwrap().value,
        Value::Map(&[("a", Value::Int(2)), ("b", Value::Int(3))])
    );
    // Copying prior state into a plan.
    let plan = b
        .build(b.object(|o| {
            o.unknown("n")?;
            o.copy_unset(decoded)
        }))
        .unwrap();
    assert_eq!(p.typed(plan).attr("n").unwrap().value, Value::Unknown(None));
    assert_eq!(
        p.typed(plan).attr("s").unwrap().value,
        t.attr("s").unwrap().value
    );
    // A value of another type is found out, deep down.
    let wrong = other
        .decode_msgpack(b"\x83\xa1m\x81\xa1k\xa1v\xa1n\x01\xa1s\x90", &bump)
        .unwrap();
    let e = b.build(wrong).unwrap_err();
    assert_eq!(
        (e.path(), e.message()),
        (r#".m["k"]"#, "expected a number, found a string")
    );
    // An object of another op.
    let small = program(r#"["object",{"s":["set","string"]}]"#);
    let foreign = small.decode_msgpack(b"\x81\xa1s\x90", &bump).unwrap();
    let e = b.build(foreign).unwrap_err();
    assert_eq!(
        e.message(),
        "expected an object of this position's type, found an object of another"
    );
    let e = b.build(b.object(|o| o.copy_unset(foreign))).unwrap_err();
    assert_eq!(
        e.message(),
        "prior value: expected an object of 3 attributes, found an object"
    );
}
