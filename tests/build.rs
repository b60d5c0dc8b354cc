//! The value builder (`src/build/`): exact values, exact errors with their paths, sets in
//! go-cty's order without duplicates, built values encoding to go-cty's bytes and decoding
//! back to themselves, and every shared workload rebuilt through the builder (sets inserted
//! in reverse) re-encoding to go-cty's own bytes. With the go-cty oracle (`$CTYORACLE`), sets
//! in scrambled orders are checked against the order go-cty gives them.

#[path = "support/cases.rs"]
mod cases;
mod common;
#[path = "support/rng.rs"]
mod rng;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bumpalo::Bump;
use tfwire::build::{At, BuildError, Part};
use tfwire::{Object, Program, Refinements, Type, Value};

use rng::Rng;

/// Counts heap allocations made by the thread that set `COUNTING` (as `tests/memory.rs`).
struct Counting;

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations made by `f` on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (ALLOCATIONS.load(Ordering::SeqCst) - before, r)
}

fn program(type_json: &str) -> Program {
    Program::from_type_json(type_json).unwrap()
}

fn encode(program: &Program, v: Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    program.encode_msgpack(v, &mut out).unwrap();
    out
}

/// Builds `part` at the root of a `type_json` program and returns the error.
fn error<'a>(program: &'a Program, bump: &'a Bump, part: impl Part<'a>) -> BuildError {
    program.builder(bump).build(part).unwrap_err()
}

#[test]
fn exact_values() {
    let p = program(
        r#"["object",{"name":"string","port":"number","on":"bool","ratio":"number",
            "tags":["map","string"],"ids":["list","number"],"pair":["tuple",["string","bool"]],
            "id":"string","note":"string"}]"#,
    );
    let bump = Bump::new();
    let b = p.builder(&bump);
    let v = b
        .build(b.object(|o| {
            o.set("name", "web")?;
            o.set("port", 443)?;
            o.set("on", true)?;
            o.set("ratio", b.decimal("0.25"))?;
            o.set(
                "tags",
                b.map(|m| {
                    m.insert("z", "1")?;
                    m.insert("a", String::from("2"))
                }),
            )?;
            o.set(
                "ids",
                b.list_from([b.int(-5), b.uint(7), b.float(1.5), b.decimal("1e2")]),
            )?;
            o.set(
                "pair",
                b.tuple(|t| t.extend([b.string("x"), b.bool(false)])),
            )?;
            o.unknown("id")?;
            o.set("note", None::<&str>)
        }))
        .unwrap();
    // Attributes in name order; numbers as decoding go-cty's MessagePack gives them (443 is a
    // uint16 there, 0.25 a float64, 1e2 the integer 100); map keys sorted.
    let attrs = [
        Value::Unknown(None),
        Value::List(&[
            Value::Int(-5),
            Value::Int(7),
            Value::Float(1.5),
            Value::Int(100),
        ]),
        Value::String("web"),
        Value::Null,
        Value::Bool(true),
        Value::Tuple(&[Value::String("x"), Value::Bool(false)]),
        Value::UInt(443),
        Value::Float(0.25),
        Value::Map(&[("a", Value::String("2")), ("z", Value::String("1"))]),
    ];
    assert_eq!(v, Value::Object(Object::new(p.root(), &attrs)));
    let names: Vec<_> = p.typed(v).attrs().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["id", "ids", "name", "note", "on", "pair", "port", "ratio", "tags"]
    );
    // It encodes, and decodes back to the same value.
    let bytes = encode(&p, v);
    assert_eq!(p.decode_msgpack(&bytes, &bump).unwrap(), v);
}

#[test]
fn encodes_to_go_cty_bytes_and_decodes_back() {
    let p = program(
        r#"["object",{"name":"string","port":"number","tags":["map","string"],"on":"bool",
            "ids":["set","number"],"arn":"string","extra":"dynamic","sg":"string"}]"#,
    );
    let bump = Bump::new();
    let b = p.builder(&bump);
    let list_of_string = b.dynamic_type(&Type::List(Box::new(Type::String))).unwrap();
    let v = b
        .build(b.object(|o| {
            o.set("name", "web")?;
            o.set("port", 443u32)?;
            o.set("tags", b.map_from([("b", "2"), ("a", "1")]))?;
            o.set("on", true)?;
            o.set("ids", b.set_from([3, -1, 3, 200]))?;
            let prefix = Refinements {
                string_prefix: Some("ab"),
                ..Refinements::default()
            };
            o.set("arn", b.unknown_refined(&prefix))?;
            o.set("extra", b.dynamic(list_of_string, b.list_from(["a"])))?;
            o.unknown("sg")
        }))
        .unwrap();
    let mut want = vec![0x88];
    // "arn": unknown, refined with the prefix "ab" (extension 12, {2: "ab"}).
    want.extend(b"\xa3arn\xc7\x05\x0c\x81\x02\xa2ab");
    // "extra": [bin(type JSON), value].
    want.extend(b"\xa5extra\x92\xc4\x11[\"list\",\"string\"]\x91\xa1a");
    // "ids": the set in order, 3 once.
    want.extend(b"\xa3ids\x93\xff\x03\xcc\xc8");
    want.extend(b"\xa4name\xa3web");
    want.extend(b"\xa2on\xc3");
    want.extend(b"\xa4port\xcd\x01\xbb");
    want.extend(b"\xa2sg\xd4\x00\x00");
    want.extend(b"\xa4tags\x82\xa1a\xa11\xa1b\xa12");
    assert_eq!(encode(&p, v), want);
    assert_eq!(p.decode_msgpack(&want, &bump).unwrap(), v);
}

#[test]
fn blocks_of_every_nesting_mode() {
    use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
    let leaf = Block::new().attribute("n", Attribute::new(Type::Number));
    let mut schema = Block::new();
    for (name, mode) in [
        ("single", NestingMode::Single),
        ("group", NestingMode::Group),
        ("list", NestingMode::List),
        ("set", NestingMode::Set),
        ("map", NestingMode::Map),
    ] {
        schema = schema.block(name, NestedBlock::new(mode, leaf.clone()));
    }
    let p = Program::from_block(&schema).unwrap();
    let bump = Bump::new();
    let b = p.builder(&bump);
    let n = |v: i64| b.object(move |o| o.set("n", v));
    let v = b
        .build(b.object(|o| {
            o.set("single", n(1))?;
            o.set("group", n(2))?;
            o.set("list", b.list(|l| l.extend([n(3), n(4)])))?;
            o.set("set", b.set(|s| s.extend([n(6), n(5), n(6)])))?;
            o.set("map", b.map(|m| m.insert("k", n(7))))
        }))
        .unwrap();
    let root = p.typed(v);
    let ns = |name: &str| -> Vec<i64> {
        let t = root.attr(name).unwrap();
        match t.value {
            Value::Object(_) => vec![t.attr("n").unwrap().value.as_i64().unwrap()],
            Value::Map(_) => vec![t
                .get("k")
                .unwrap()
                .attr("n")
                .unwrap()
                .value
                .as_i64()
                .unwrap()],
            _ => t
                .elements()
                .map(|e| e.attr("n").unwrap().value.as_i64().unwrap())
                .collect(),
        }
    };
    assert_eq!(ns("single"), [1]);
    assert_eq!(ns("group"), [2]);
    assert_eq!(ns("list"), [3, 4]);
    assert_eq!(ns("set"), [5, 6]);
    assert_eq!(ns("map"), [7]);
    let bytes = encode(&p, v);
    assert_eq!(p.decode_msgpack(&bytes, &bump).unwrap(), v);
}

#[test]
fn errors_name_the_path_and_the_problem() {
    let bump = Bump::new();
    let p = program(
        r#"["object",{"ingress":["list",["object",{"cidr_blocks":["list","string"]}]],
            "tags":["map","string"],"name":"string","n":"number","1st":"string"}]"#,
    );
    let b = p.builder(&bump);
    let rule = |cidr: Value<'static>| b.object(move |o| o.set("cidr_blocks", b.list_from([cidr])));

    // A wrong type deep inside.
    let e = error(
        &p,
        &bump,
        b.object(|o| {
            o.set(
                "ingress",
                b.list(|l| {
                    l.push(rule(Value::String("a")))?;
                    l.push(rule(Value::String("b")))?;
                    l.push(rule(Value::Int(5)))
                }),
            )?;
            o.null_unset();
            Ok(())
        }),
    );
    assert_eq!(e.path(), ".ingress[2].cidr_blocks[0]");
    assert_eq!(e.message(), "expected a string, found a number");
    assert_eq!(
        e.to_string(),
        "at .ingress[2].cidr_blocks[0]: expected a string, found a number"
    );

    // A map element.
    let e = error(
        &p,
        &bump,
        b.object(|o| o.set("tags", b.map(|m| m.insert("Name", true)))),
    );
    assert_eq!(
        (e.path(), e.message()),
        (r#".tags["Name"]"#, "expected a string, found a bool")
    );

    // An attribute whose name is not an identifier.
    let e = error(&p, &bump, b.object(|o| o.set("1st", 1)));
    assert_eq!(e.path(), r#"["1st"]"#);

    // Attributes never set, at the object.
    let e = error(&p, &bump, b.object(|o| o.set("name", "x")));
    assert_eq!(e.path(), "");
    assert_eq!(
        e.message(),
        r#"attributes "1st", "ingress", "n", "tags" are not set"#
    );
    assert_eq!(
        e.to_string(),
        r#"at (root): attributes "1st", "ingress", "n", "tags" are not set"#
    );
    let e = error(
        &p,
        &bump,
        b.object(|o| {
            o.set("ingress", b.list_from([b.object(|_| Ok(()))]))?;
            o.null_unset();
            Ok(())
        }),
    );
    assert_eq!(
        (e.path(), e.message()),
        (".ingress[0]", r#"attribute "cidr_blocks" is not set"#)
    );

    // An attribute the type does not have: at the object, as the decoders say it.
    let e = error(&p, &bump, b.object(|o| o.set("nmae", "x")));
    assert_eq!(
        (e.path(), e.message()),
        ("", r#"unsupported attribute "nmae""#)
    );
    let e = error(
        &p,
        &bump,
        b.object(|o| o.set("ingress", b.list_from([b.object(|r| r.null("cidr"))]))),
    );
    assert_eq!(
        (e.path(), e.message()),
        (".ingress[0]", r#"unsupported attribute "cidr""#)
    );

    // An attribute set twice.
    let e = error(
        &p,
        &bump,
        b.object(|o| {
            o.set("name", "a")?;
            o.set("name", "b")
        }),
    );
    assert_eq!(
        (e.path(), e.message()),
        (".name", r#"attribute "name" set twice"#)
    );

    // Bad number text, NaN.
    let e = error(&p, &bump, b.object(|o| o.set("n", b.decimal("1.2.3"))));
    assert_eq!(
        (e.path(), e.message()),
        (".n", r#""1.2.3" is not a valid number"#)
    );
    let e = error(&p, &bump, b.object(|o| o.set("n", b.decimal("0x10"))));
    assert_eq!(e.message(), r#""0x10" is not a valid number"#);
    let e = error(&p, &bump, b.object(|o| o.set("n", f64::NAN)));
    assert_eq!((e.path(), e.message()), (".n", "NaN is not a number"));

    // A container of the wrong kind, a map key twice.
    let e = error(&p, &bump, b.object(|o| o.set("tags", b.list(|_| Ok(())))));
    assert_eq!(
        (e.path(), e.message()),
        (".tags", "expected a map, found a list")
    );
    let e = error(
        &p,
        &bump,
        b.object(|o| o.set("tags", b.map_from([("k", "1"), ("j", "2"), ("k", "3")]))),
    );
    assert_eq!(
        (e.path(), e.message()),
        (r#".tags["k"]"#, r#"duplicate map key "k""#)
    );
}

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

/// A decoded value rebuilt through the builder's own API: objects attribute by attribute,
/// lists, maps and tuples element by element, sets in reverse, dynamic values with their type.
struct Mirror<'a>(&'a Program, Value<'a>);

impl<'a> Part<'a> for Mirror<'a> {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        let Mirror(p, v) = self;
        let b = at.builder();
        match v {
            Value::Object(x) => b
                .object(|o| {
                    for ((name, _), raw) in p.typed(v).attrs().zip(x.attrs()) {
                        o.set(name, Mirror(p, *raw))?;
                    }
                    Ok(())
                })
                .fill(at),
            Value::List(e) => b
                .list(|l| l.extend(e.iter().map(|x| Mirror(p, *x))))
                .fill(at),
            Value::Set(e) => b
                .set(|s| s.extend(e.iter().rev().map(|x| Mirror(p, *x))))
                .fill(at),
            Value::Tuple(e) => b
                .tuple(|t| t.extend(e.iter().map(|x| Mirror(p, *x))))
                .fill(at),
            Value::Map(e) => b
                .map(|m| e.iter().try_for_each(|(k, x)| m.insert(k, Mirror(p, *x))))
                .fill(at),
            Value::Dynamic(d) => b.dynamic(d.program, Mirror(d.program, d.value)).fill(at),
            scalar => scalar.fill(at),
        }
    }
}

#[test]
fn workloads_rebuilt_through_the_builder_reencode_to_go_cty_bytes() {
    let Some(shared) = common::shared_dir("the shared workloads are not rebuilt") else {
        return;
    };
    let mut run = 0;
    for entry in std::fs::read_dir(shared.join("workloads")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(bytes) = std::fs::read(dir.join("value.msgpack")) else {
            continue;
        };
        let p = program(&std::fs::read_to_string(dir.join("type.json")).unwrap());
        let bump = Bump::new();
        let decoded = p.decode_msgpack(&bytes, &bump).unwrap();
        let b = p.builder(&bump);
        // Checked whole: go-cty's value is canonical already, so nothing is copied.
        let checked = b.build(decoded).unwrap();
        assert!(
            matches!((checked, decoded), (Value::Object(x), Value::Object(y)) if std::ptr::eq(x.attrs(), y.attrs()))
                || checked == decoded,
            "{}",
            dir.display()
        );
        let rebuilt = b.build(Mirror(&p, decoded)).unwrap();
        assert!(
            rebuilt == decoded,
            "{}: the rebuilt value differs",
            dir.display()
        );
        assert!(
            encode(&p, rebuilt) == bytes,
            "{}: other bytes",
            dir.display()
        );
        run += 1;
    }
    assert!(run >= 8, "{run} workloads");
}

#[test]
fn conformance_cases_rebuilt_through_the_builder_encode_as_decoded() {
    use tfwire::schema::{SchemaSelector, SchemaSource};
    let shared = common::shared_dir("the shared conformance cases are not rebuilt");
    let run = cases::for_each_case(
        &cases::case_dirs(shared.as_deref()),
        ".msgpack",
        |dir, id| {
            let schema = cases::read_text(&dir.join(format!("{id}.schema.json")))?;
            let bytes = cases::read_bytes(&dir.join(format!("{id}.msgpack")))?;
            let source = SchemaSource::parse(&schema).map_err(|e| e.to_string())?;
            let p = Program::from_source(&source, &SchemaSelector::default())
                .map_err(|e| e.to_string())?;
            let bump = Bump::new();
            let decoded = p.decode_msgpack(&bytes, &bump).map_err(|e| e.to_string())?;
            let rebuilt = p
                .builder(&bump)
                .build(Mirror(&p, decoded))
                .map_err(|e| e.to_string())?;
            let checked = p.builder(&bump).build(decoded).map_err(|e| e.to_string())?;
            let want = encode(&p, decoded);
            if encode(&p, rebuilt) != want || encode(&p, checked) != want {
                return Err("the rebuilt or checked value encodes otherwise".into());
            }
            Ok(())
        },
    );
    println!("{run} cases rebuilt");
    assert!(run > 0);
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    assert!(s.len() < 256);
    if s.len() < 32 {
        out.push(0xa0 | s.len() as u8);
    } else {
        out.extend([0xd9, s.len() as u8]);
    }
    out.extend(s.as_bytes());
}

/// Random MessagePack of type `ty`, in a form go-cty reads (numbers as ints, float64s or
/// text; unknowns `d4 00 00`), drawn from small pools so that sets meet duplicates and
/// near-duplicates.
fn random_msgpack(ty: &Type, rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
    match rng.below(16) {
        0 => return out.push(0xc0),
        1 => return out.extend([0xd4, 0, 0]),
        _ => {}
    }
    match ty {
        Type::Bool => out.push(if rng.below(2) == 0 { 0xc2 } else { 0xc3 }),
        Type::String => {
            const POOL: &[&str] = &[
                "",
                "a",
                "aa",
                "ab",
                "B",
                "Z",
                "é",
                "é",
                "日本",
                "\u{a0}",
                "\u{200b}x",
                "a\"b",
                "a\\b",
                "\n",
                "\t",
                "\u{7f}",
                "😀",
                "\u{e0001}",
                "~",
                "?",
                "0.0.0.0/0",
                "10.0.0.0/8",
            ];
            put_str(POOL[rng.below(POOL.len() as u64) as usize], out);
        }
        Type::Number => match rng.below(9) {
            0 => out.push(rng.below(128) as u8),
            1 => out.push(0xe0 | rng.below(32) as u8),
            2 => {
                out.push(0xcd);
                out.extend((rng.below(1 << 16) as u16).to_be_bytes());
            }
            3 => {
                out.push(0xcf);
                out.extend((rng.next() | 1 << 63).to_be_bytes());
            }
            4 => {
                out.push(0xd3);
                out.extend((-(rng.below(1 << 40) as i64) * 1_000_003).to_be_bytes());
            }
            5 | 6 => {
                const FLOATS: &[f64] = &[
                    0.1,
                    2.5,
                    -0.5,
                    1e23,
                    -1e300,
                    5e-324,
                    0.30000000000000004,
                    1234567.5,
                    12345678901.25,
                    1.0000000005,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                ];
                out.push(0xcb);
                out.extend(
                    FLOATS[rng.below(FLOATS.len() as u64) as usize]
                        .to_bits()
                        .to_be_bytes(),
                );
            }
            _ => {
                const TEXT: &[&str] = &[
                    "0.1",
                    "0.10000000000000001",
                    "1e400",
                    "-1e-400",
                    "123456789012345678901234567890",
                    "3.14159265358979323846264338327950288",
                    "12345678955",
                    "0.00001",
                    "-7.25",
                    "99999999999999999999999.5",
                ];
                put_str(TEXT[rng.below(TEXT.len() as u64) as usize], out);
            }
        },
        Type::List(e) | Type::Set(e) => {
            let n = if depth > 2 { 0 } else { rng.below(4) };
            out.push(0x90 | n as u8);
            for _ in 0..n {
                random_msgpack(e, rng, depth + 1, out);
            }
        }
        Type::Map(e) => {
            let n = if depth > 2 { 0 } else { rng.below(3) };
            let mut keys: Vec<&str> = ["k", "a", "", "zz", "é"][..].to_vec();
            out.push(0x80 | n as u8);
            for _ in 0..n {
                let k = keys.remove(rng.below(keys.len() as u64) as usize);
                put_str(k, out);
                random_msgpack(e, rng, depth + 1, out);
            }
        }
        Type::Tuple(elems) => {
            out.push(0x90 | elems.len() as u8);
            for e in elems {
                random_msgpack(e, rng, depth + 1, out);
            }
        }
        Type::Object(o) => {
            out.push(0x80 | o.attrs().len() as u8);
            for (name, t) in o.attrs() {
                put_str(name, out);
                random_msgpack(t, rng, depth + 1, out);
            }
        }
        Type::Dynamic => unreachable!("no dynamic in these types"),
    }
}

/// Sets in scrambled orders, with duplicates, nulls and unknowns: go-cty (the oracle's
/// `transcode`, msgpack to msgpack) puts each in its own order; the builder, checking the same
/// value decoded by tfwire in wire order, must give the same bytes.
#[test]
fn set_order_matches_go_cty() {
    let Some(oracle) = common::oracle("the set order is not checked against go-cty") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tfwire-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let elems = [
        r#""string""#,
        r#""number""#,
        r#""bool""#,
        r#"["object",{"name":"string","port":"number","on":"bool"}]"#,
        r#"["object",{"cidrs":["set","string"],"n":"number","tags":["map","string"]}]"#,
        r#"["list","number"]"#,
        r#"["set","string"]"#,
        r#"["map","number"]"#,
        r#"["tuple",["string","number"]]"#,
        r#"["list",["object",{"a":"string","b":["list","number"]}]]"#,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut checked, mut reordered, mut deduplicated) = (0, 0, 0);
    for elem in elems {
        let type_json = format!(r#"["set",{elem}]"#);
        let ty = Type::from_json(&type_json).unwrap();
        let Type::Set(elem_ty) = &ty else {
            unreachable!()
        };
        let p = program(&type_json);
        for round in 0..30 {
            // Up to 15 elements (a fixarray), drawn from the pools.
            let n = 2 + rng.below(14);
            let mut input = vec![0x90 | n as u8];
            for _ in 0..n {
                random_msgpack(elem_ty, &mut rng, 1, &mut input);
            }
            let (from, to) = (dir.join("in.msgpack"), dir.join("out.msgpack"));
            std::fs::write(&from, &input).unwrap();
            let status = std::process::Command::new(&oracle)
                .args([
                    "transcode",
                    "--type",
                    &type_json,
                    "--from",
                    "msgpack",
                    "--to",
                    "msgpack",
                ])
                .arg(&from)
                .arg(&to)
                .output()
                .unwrap();
            assert!(
                status.status.success(),
                "{type_json} round {round}: {}",
                String::from_utf8_lossy(&status.stderr)
            );
            let want = std::fs::read(&to).unwrap();
            let bump = Bump::new();
            let decoded = p.decode_msgpack(&input, &bump).unwrap();
            let built = p.builder(&bump).build(decoded).unwrap();
            let got = encode(&p, built);
            assert!(
                got == want,
                "{type_json} round {round}: input {input:02x?}\n got {got:02x?}\nwant {want:02x?}"
            );
            checked += 1;
            reordered += usize::from(want != input);
            deduplicated += usize::from(want.len() < input.len());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("{checked} sets, {reordered} reordered by go-cty, {deduplicated} shortened");
    assert_eq!(checked, 300);
    assert!(
        reordered > 200 && deduplicated > 100,
        "{reordered} {deduplicated}"
    );
}

/// Building makes no heap allocation once the arena is warm (and the dynamic-type cache has
/// the primitive types): everything goes into the arena.
#[test]
fn building_allocates_only_in_the_arena() {
    let p = program(
        r#"["object",{"name":"string","port":"number","ratio":"number","tags":["map","string"],
            "cidrs":["set","string"],"ports":["set","number"],"extra":"dynamic",
            "rules":["set",["object",{"from":"number","cidr":["list","string"],"desc":"string"}]]}]"#,
    );
    fn build<'a>(p: &'a Program, bump: &'a Bump) -> Value<'a> {
        let b = p.builder(bump);
        let rule = |from: i64, desc: &'static str| {
            b.object(move |o| {
                o.set("from", from)?;
                o.set("cidr", b.list_from(["10.0.0.0/8", "0.0.0.0/0"]))?;
                o.set("desc", desc)
            })
        };
        let v = b
            .build(b.object(|o| {
                o.set("name", "web")?;
                o.set("port", 443)?;
                o.set("ratio", b.decimal("0.1"))?;
                o.set("tags", b.map_from([("z", "1"), ("a", "2")]))?;
                o.set("cidrs", b.set_from(["b", "a", "b"]))?;
                o.set(
                    "ports",
                    b.set_from([
                        b.int(80),
                        b.float(0.5),
                        b.decimal("12345678901.5"),
                        b.int(80),
                    ]),
                )?;
                o.set("extra", "x")?;
                o.set(
                    "rules",
                    b.set(|s| {
                        s.insert(rule(443, "https"))?;
                        s.insert(rule(80, "http"))?;
                        s.insert(rule(12345678901, "big"))
                    }),
                )
            }))
            .unwrap();
        b.build(v).unwrap()
    }
    let mut bump = Bump::new();
    // (Counting works: a cold arena allocates its chunks.)
    assert!(allocations(|| build(&p, &bump)).0 > 0);
    bump.reset();
    build(&p, &bump); // warm: the arena has its chunks
    bump.reset();
    let (n, v) = allocations(|| build(&p, &bump));
    assert_eq!(n, 0, "{n} heap allocations");
    assert_eq!(p.decode_msgpack(&encode(&p, v), &bump).unwrap(), v);
}
