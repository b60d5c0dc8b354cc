//! Tuples, dynamic positions, unknowns and refinements.

use super::*;

#[test]
fn tuples_need_exactly_their_elements() {
    let p = program(r#"["tuple",["string","number"]]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let e = error(&p, &bump, b.tuple(|t| t.push("a")));
    assert_eq!(
        (e.path(), e.message()),
        ("", "a tuple of length 2 is required (1 given)")
    );
    let e = error(
        &p,
        &bump,
        b.tuple(|t| t.extend([b.string("a"), b.int(1), b.int(2)])),
    );
    assert_eq!(
        (e.path(), e.message()),
        ("[2]", "the tuple type has 2 elements")
    );
    let e = error(&p, &bump, b.tuple(|t| t.extend([b.int(1), b.int(2)])));
    assert_eq!(
        (e.path(), e.message()),
        ("[0]", "expected a string, found a number")
    );
    let e = error(&p, &bump, Value::Tuple(&[Value::String("a")]));
    assert_eq!(e.message(), "a tuple of length 2 is required (1 given)");
    let v = b
        .build(b.tuple(|t| t.extend([b.string("a"), b.int(1)])))
        .unwrap();
    assert_eq!(v, Value::Tuple(&[Value::String("a"), Value::Int(1)]));
}

#[test]
fn dynamic_positions() {
    let p = program(r#"["object",{"d":"dynamic","l":["list","dynamic"]}]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    // Primitives take their type; a null stays bare.
    let v = b
        .build(b.object(|o| {
            o.set("d", "x")?;
            o.set("l", b.list_from([b.int(1), b.null(), b.int(2)]))
        }))
        .unwrap();
    let t = p.typed(v);
    let d = t.attr("d").unwrap();
    assert_eq!(
        (d.program.root_type(), d.value),
        (&Type::String, Value::String("x"))
    );
    let l = t.attr("l").unwrap().value.elements().unwrap();
    assert!(matches!(l[0], Value::Dynamic(x) if x.value == Value::Int(1)));
    assert_eq!(l[1], Value::Null);
    assert_eq!(encode(&p, v)[..4], [0x82, 0xa1, b'd', 0x92]);
    assert_eq!(p.decode_msgpack(&encode(&p, v), &bump).unwrap(), v);

    // A container needs its type.
    let e = error(&p, &bump, b.object(|o| o.set("d", b.list_from(["a"]))));
    assert_eq!(e.path(), ".d");
    assert_eq!(
        e.message(),
        "expected a dynamic value, found a list (a dynamic position takes a string, number or \
         bool, or a value with its type: Builder::dynamic)"
    );
    // Elements of one collection share a type.
    let e = error(
        &p,
        &bump,
        b.object(|o| {
            o.null("d")?;
            o.set(
                "l",
                b.list(|l| {
                    l.push("a")?;
                    l.push(1)
                }),
            )
        }),
    );
    assert_eq!(
        (e.path(), e.message()),
        (
            ".l[1]",
            r#"elements have different types: "string" and "number""#
        )
    );
    // A tuple's dynamic elements each have their own type.
    let t = program(r#"["tuple",["dynamic","dynamic"]]"#);
    let tb = t.builder(&bump);
    let v = tb
        .build(tb.tuple(|x| x.extend([tb.string("a"), tb.int(1)])))
        .unwrap();
    assert_eq!(tb.build(v).unwrap(), v);
    // Inside a dynamic value's type, dynamic positions hold nulls and unknowns.
    let with_dynamic = program(r#"["list","dynamic"]"#);
    let e = error(
        &p,
        &bump,
        b.object(|o| o.set("d", b.dynamic(&with_dynamic, b.list_from(["a"])))),
    );
    assert_eq!(e.path(), ".d[0]");
    assert!(e.message().starts_with(
        "a dynamic position inside a dynamic value's type holds only null or unknown"
    ));
    let v = b
        .build(b.object(|o| {
            o.null("l")?;
            o.set(
                "d",
                b.dynamic(&with_dynamic, b.list_from([b.null(), b.unknown()])),
            )
        }))
        .unwrap();
    assert_eq!(p.decode_msgpack(&encode(&p, v), &bump).unwrap(), v);
    let s = program(r#""string""#);
    let e = error(&s, &bump, s.builder(&bump).dynamic(&s, "x"));
    assert_eq!(
        e.message(),
        "expected a string, found a value with its type (for a dynamic position)"
    );
    // The value under the type is checked against it.
    let num = b.dynamic_type(&Type::Number).unwrap();
    let e = error(&p, &bump, b.object(|o| o.set("d", b.dynamic(num, "x"))));
    assert_eq!(
        (e.path(), e.message()),
        (".d", "expected a number, found a string")
    );
}

#[test]
fn unknowns_and_refinements() {
    let p = program(r#"["object",{"s":"string","n":"number","l":["list","string"],"b":"bool"}]"#);
    let bump = Bump::new();
    let b = p.builder(&bump);
    let r = |r: Refinements<'static>| b.unknown_refined(&r);
    let prefix = Refinements {
        string_prefix: Some("ab"),
        ..Refinements::default()
    };
    let e = error(&p, &bump, b.object(|o| o.set("n", r(prefix))));
    assert_eq!(
        (e.path(), e.message()),
        (".n", "string prefix refinement for non-string type")
    );
    let lengths = Refinements {
        length_lower: Some(3),
        length_upper: Some(2),
        ..Refinements::default()
    };
    let e = error(&p, &bump, b.object(|o| o.set("l", r(lengths))));
    assert_eq!(
        e.message(),
        "collection length upper bound 2 is less than lower bound 3"
    );
    // What says nothing is dropped; "definitely null" is a null, as go-cty makes it.
    let v = b
        .build(b.object(|o| {
            o.set(
                "s",
                r(Refinements {
                    string_prefix: Some(""),
                    ..Refinements::default()
                }),
            )?;
            o.set(
                "n",
                r(Refinements {
                    number_lower: Some((tfwire::Number::Float(f64::NEG_INFINITY), true)),
                    number_upper: Some((tfwire::Number::Decimal("10.50"), false)),
                    ..Refinements::default()
                }),
            )?;
            o.set(
                "l",
                r(Refinements {
                    length_lower: Some(0),
                    ..Refinements::default()
                }),
            )?;
            o.set(
                "b",
                r(Refinements {
                    nullness: Some(true),
                    ..Refinements::default()
                }),
            )
        }))
        .unwrap();
    let t = p.typed(v);
    assert_eq!(t.attr("s").unwrap().value, Value::Unknown(None));
    assert_eq!(t.attr("l").unwrap().value, Value::Unknown(None));
    assert_eq!(t.attr("b").unwrap().value, Value::Null);
    let n = t.attr("n").unwrap().value.refinements().unwrap();
    assert_eq!(n.number_lower, None);
    assert_eq!(n.number_upper, Some((tfwire::Number::Float(10.5), false)));
    assert_eq!(p.decode_msgpack(&encode(&p, v), &bump).unwrap(), v);
}
