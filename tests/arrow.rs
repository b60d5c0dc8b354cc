//! Typed columns (`tfwire::arrow`): each choice of the type mapping, and on every conformance
//! case the record batch of its value, written back to JSON by arrow-json's writer, equals
//! the decoded value (what the DUMP prints) under the mapping: numbers as the nearest `f64`,
//! tuples as objects of `"0"`, `"1"`, …, a map's repeated key by its last value, a dynamic
//! value as its DUMP in a string, an unknown as null.

#[path = "support/batches.rs"]
mod batches;
#[path = "support/cases.rs"]
mod cases;
mod common;

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields};
use bumpalo::Bump;
use serde_json::Value as Json;
use tfwire::arrow::{data_type, schema, ArrowOptions, BatchBuilder, JSON_EXTENSION};
use tfwire::{dump, Program, Type, Typed, Value};

use cases::{case_dirs, case_program, for_each_case, read_bytes};

fn ty(json: &str) -> Type {
    Type::from_json(json).unwrap()
}

/// The data type of `json`'s type with the default options.
fn dt(json: &str) -> DataType {
    data_type(&ty(json), &ArrowOptions::default())
}

fn nullable(name: &str, t: DataType) -> Field {
    Field::new(name, t, true)
}

#[test]
fn every_type_maps_as_the_table_says() {
    assert_eq!(dt(r#""string""#), DataType::Utf8);
    assert_eq!(dt(r#""bool""#), DataType::Boolean);
    assert_eq!(dt(r#""number""#), DataType::Float64);
    assert_eq!(dt(r#""dynamic""#), DataType::Utf8);
    let list = DataType::List(Arc::new(nullable("item", DataType::Utf8)));
    assert_eq!(dt(r#"["list","string"]"#), list);
    assert_eq!(dt(r#"["set","string"]"#), list);
    let entries = Fields::from(vec![
        Field::new("keys", DataType::Utf8, false),
        nullable("values", DataType::Float64),
    ]);
    assert_eq!(
        dt(r#"["map","number"]"#),
        DataType::Map(
            Arc::new(Field::new("entries", DataType::Struct(entries), false)),
            false
        )
    );
    assert_eq!(
        dt(r#"["object",{"b":"bool","a":"string"}]"#),
        DataType::Struct(Fields::from(vec![
            nullable("a", DataType::Utf8),
            nullable("b", DataType::Boolean)
        ]))
    );
    assert_eq!(
        dt(r#"["tuple",["string","number"]]"#),
        DataType::Struct(Fields::from(vec![
            nullable("0", DataType::Utf8),
            nullable("1", DataType::Float64)
        ]))
    );
    // An object or a tuple without parts: whether it is there (no struct without fields).
    assert_eq!(dt(r#"["object",{}]"#), DataType::Boolean);
    assert_eq!(dt(r#"["tuple",[]]"#), DataType::Boolean);
    // A dynamic attribute's field is marked as JSON; the unknowns' column is asked for.
    let s = schema(
        &ty(r#"["object",{"d":"dynamic","n":"number"}]"#),
        &ArrowOptions::default().with_unknown_paths(true),
    )
    .unwrap();
    let names: Vec<&str> = s.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["d", "n", "_unknowns"]);
    assert_eq!(
        s.field(0)
            .metadata()
            .get("ARROW:extension:name")
            .map(String::as_str),
        Some(JSON_EXTENSION)
    );
    assert!(s.field(1).metadata().is_empty());
    // Only an object type makes a record batch.
    let e = schema(&ty(r#"["list","string"]"#), &ArrowOptions::default()).unwrap_err();
    assert!(e.to_string().contains("object type"), "{e}");
}

/// The unknowns' paths, and a null row.
#[test]
fn unknowns_are_null_with_their_paths_listed() {
    let program =
        Program::from_type_json(r#"["object",{"id":"string","tags":["map","string"]}]"#).unwrap();
    let options = ArrowOptions::default().with_unknown_paths(true);
    let mut builder = BatchBuilder::new(&program, &options).unwrap();
    let bump = Bump::new();
    // {"id": unknown, "tags": {"a": unknown}}, then nil.
    let input = [
        0x82, 0xa2, b'i', b'd', 0xd4, 0, 0, 0xa4, b't', b'a', b'g', b's', 0x81, 0xa1, b'a', 0xd4,
        0, 0,
    ];
    builder
        .append(&program, program.decode_msgpack(&input, &bump).unwrap())
        .unwrap();
    builder.append(&program, tfwire::Value::Null).unwrap();
    let batch = builder.finish().unwrap();
    assert_eq!(
        to_json(&batch),
        vec![
            serde_json::json!({"_unknowns": [".id", ".tags[\"a\"]"], "id": null, "tags": {"a": null}}),
            serde_json::json!({"_unknowns": [], "id": null, "tags": null}),
        ]
    );
}

/// With `exact_numbers`, numbers are `Decimal128(38, 9)`; one without an exact value there
/// is null, listed with its path and text.
#[test]
fn exact_numbers_are_decimals_or_listed_as_text() {
    let exact = ArrowOptions::default().with_exact_numbers(true);
    assert_eq!(
        data_type(&ty(r#""number""#), &exact),
        DataType::Decimal128(38, 9)
    );
    let program = Program::from_type_json(
        r#"["object",{"n":"number","m":["map","number"],"l":["list","number"]}]"#,
    )
    .unwrap();
    let mut builder = BatchBuilder::new(&program, &exact).unwrap();
    let names: Vec<String> = (builder.schema().fields().iter())
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["l", "m", "n", "_inexact_numbers"]);
    let bump = Bump::new();
    let rows = [
        r#"{"n":-1.5,"m":{"a":0.0000000001,"b":12},"l":[1e29,2,0.25]}"#,
        r#"{"n":7,"m":null,"l":[]}"#,
    ];
    for row in rows {
        let value = program.decode_json(row.as_bytes(), &bump).unwrap();
        builder.append(&program, value).unwrap();
    }
    // MessagePack: a float64 0.1 is the decimal 0.1 (its shortest round-trip text, as go-cty
    // writes it); an unsigned integer.
    let mut input = vec![0x83, 0xa1, b'n', 0xcb];
    input.extend(0.1f64.to_be_bytes());
    input.extend([0xa1, b'm', 0xc0, 0xa1, b'l', 0x91, 0xcf]);
    input.extend(u64::MAX.to_be_bytes());
    let value = program.decode_msgpack(&input, &bump).unwrap();
    builder.append(&program, value).unwrap();
    let batch = builder.finish().unwrap();
    let n = batch
        .column(2)
        .as_any()
        .downcast_ref::<arrow_array::Decimal128Array>()
        .unwrap();
    assert_eq!(
        n.iter().collect::<Vec<_>>(),
        [Some(-1_500_000_000), Some(7_000_000_000), Some(100_000_000)]
    );
    let l = batch
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::ListArray>()
        .unwrap();
    let items = l
        .values()
        .as_any()
        .downcast_ref::<arrow_array::Decimal128Array>()
        .unwrap();
    let u64_max = i128::from(u64::MAX) * 1_000_000_000;
    assert_eq!(
        items.iter().collect::<Vec<_>>(),
        [None, Some(2_000_000_000), Some(250_000_000), Some(u64_max)]
    );
    assert_eq!(
        to_json(&batch),
        vec![
            serde_json::json!({
                "n": -1.5,
                "m": {"a": null, "b": 12.0},
                "l": [null, 2.0, 0.25],
                "_inexact_numbers": [
                    {"path": ".l[0]", "text": "1e29"},
                    {"path": ".m[\"a\"]", "text": "0.0000000001"},
                ],
            }),
            serde_json::json!({"n": 7.0, "m": null, "l": [], "_inexact_numbers": []}),
            serde_json::json!({"n": 0.1, "m": null, "l": [1.8446744073709552e19], "_inexact_numbers": []}),
        ]
    );
}

fn to_json(batch: &arrow_array::RecordBatch) -> Vec<Json> {
    batches::rows_json(std::slice::from_ref(batch))
}

/// `got` (arrow-json's writing of a column value of type `t`) against `want` (the decoded
/// value, which the DUMP prints), under the mapping.
fn same(t: &Type, want: Typed<'_>, got: &Json, at: &str) -> Result<(), String> {
    let differ = || {
        Err(format!(
            "at {at} ({t}): value {:?} ≠ arrow {got}",
            want.value
        ))
    };
    match (t, want.value) {
        // A row of nulls for a null or unknown value at the root.
        (Type::Object(o), Value::Null | Value::Unknown(_)) if at.is_empty() => {
            match o
                .attrs()
                .iter()
                .all(|(n, _)| got.get(n).is_some_and(Json::is_null))
            {
                true => Ok(()),
                false => differ(),
            }
        }
        (_, Value::Null | Value::Unknown(_)) => match got.is_null() {
            true => Ok(()),
            false => differ(),
        },
        (Type::Number, v) => {
            // Rust's parse of the exact text (correctly rounded); arrow-json writes the
            // shortest form, which serde_json (without `float_roundtrip`) may read a few units
            // in the last place off.
            let text = v
                .as_number()
                .map(|n| n.to_decimal_string())
                .unwrap_or_default();
            let w: f64 = match text.as_str() {
                "+Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                t => t.parse().map_err(|e| format!("{t}: {e}"))?,
            };
            match got.as_f64() {
                Some(g) if g == w || (g - w).abs() <= w.abs() * 4.0 * f64::EPSILON => Ok(()),
                None if w.is_infinite() && got.is_null() => Ok(()),
                _ => differ(),
            }
        }
        // (`Typed` has crossed into the dynamic value: its concrete value, its program.)
        (Type::Dynamic, v) => {
            let dumped = format!(
                r#"{{"type":{},"value":{}}}"#,
                want.program.root_type(),
                dump::to_string(want.program, v).unwrap()
            );
            match got.as_str() {
                Some(g) if g == dumped => Ok(()),
                _ => differ(),
            }
        }
        (Type::List(e) | Type::Set(e), _) => match got {
            Json::Array(g) if Some(g.len()) == want.value.len() => {
                for (i, (x, y)) in want.elements().zip(g).enumerate() {
                    same(e, x, y, &format!("{at}[{i}]"))?;
                }
                Ok(())
            }
            _ => differ(),
        },
        (Type::Map(e), Value::Map(entries)) => {
            // go-cty's map: a repeated key's last value.
            let mut last = std::collections::BTreeMap::new();
            for (k, v) in entries {
                last.insert(*k, *v);
            }
            match got {
                Json::Object(g) if g.len() == last.len() => {
                    for (k, x) in last {
                        let Some(y) = g.get(k) else { return differ() };
                        same(e, Typed::new(want.program, x), y, &format!("{at}[{k:?}]"))?;
                    }
                    Ok(())
                }
                _ => differ(),
            }
        }
        // (A row of no columns at the root.)
        (Type::Object(o), _) if o.attrs().is_empty() && at.is_empty() => match got {
            Json::Object(g) if g.is_empty() => Ok(()),
            _ => differ(),
        },
        (Type::Object(o), _) if o.attrs().is_empty() => match got {
            Json::Bool(true) => Ok(()),
            _ => differ(),
        },
        (Type::Tuple(ts), _) if ts.is_empty() => match got {
            Json::Bool(true) => Ok(()),
            _ => differ(),
        },
        (Type::Object(o), _) => match got {
            Json::Object(g) => {
                for (name, a) in o.attrs() {
                    let x = want
                        .attr(name)
                        .ok_or_else(|| format!("at {at}: no {name}"))?;
                    let y = g.get(name).unwrap_or(&Json::Null);
                    same(a, x, y, &format!("{at}.{name}"))?;
                }
                Ok(())
            }
            _ => differ(),
        },
        (Type::Tuple(ts), _) => match got {
            Json::Object(g) => {
                for (i, (t, x)) in ts.iter().zip(want.elements()).enumerate() {
                    let y = g.get(&i.to_string()).unwrap_or(&Json::Null);
                    same(t, x, y, &format!("{at}[{i}]"))?;
                }
                Ok(())
            }
            _ => differ(),
        },
        (Type::String, Value::String(s)) => match got.as_str() {
            Some(g) if g == s => Ok(()),
            _ => differ(),
        },
        (Type::Bool, Value::Bool(b)) => match got.as_bool() {
            Some(g) if g == b => Ok(()),
            _ => differ(),
        },
        _ => differ(),
    }
}

/// Every conformance case's value as a one-row batch, written back by arrow-json, against
/// its DUMP.
#[test]
fn every_case_written_back_equals_its_dump() {
    let dirs = case_dirs(common::shared_dir("the shared conformance cases are not run").as_deref());
    let run = for_each_case(&dirs, ".msgpack", |dir, id| {
        let program = case_program(dir, id)?;
        if !matches!(program.root_type(), Type::Object(_)) {
            return Ok(());
        }
        let input = read_bytes(&dir.join(format!("{id}.msgpack")))?;
        let bump = Bump::new();
        let Ok(value) = program.decode_msgpack(&input, &bump) else {
            return Ok(());
        };
        let mut builder =
            BatchBuilder::new(&program, &ArrowOptions::default()).map_err(|e| e.to_string())?;
        builder.append(&program, value).map_err(|e| e.to_string())?;
        builder.append(&program, value).map_err(|e| e.to_string())?;
        let batch = builder.finish().map_err(|e| e.to_string())?;
        let rows = to_json(&batch);
        if rows.len() != 2 {
            return Err(format!("{} rows", rows.len()));
        }
        for row in &rows {
            same(program.root_type(), program.typed(value), row, "")?;
        }
        Ok(())
    });
    assert!(run > 0);
}

/// A builder of some of the attributes' columns: their arrays are the full builder's, the
/// rows the same; a value of another type is still an error; the side columns keep every
/// column.
#[test]
fn a_builder_of_some_columns_equals_the_full_one_projected() {
    let program = Program::from_type_json(
        r#"["object",{"a":"string","b":["list","number"],"c":["map","bool"],"d":"dynamic"}]"#,
    )
    .unwrap();
    let options = ArrowOptions::default();
    let keep = |n: &str| n == "b" || n == "d";
    let mut full = BatchBuilder::new(&program, &options).unwrap();
    let mut some = BatchBuilder::with_attributes(&program, &options, keep).unwrap();
    let bump = Bump::new();
    for input in [
        &br#"{"a":"x","b":[1,2.5],"c":{"k":true},"d":{"value":"v","type":"string"}}"#[..],
        br#"{"b":null,"c":{}}"#,
        br#"null"#,
    ] {
        let value = program.decode_json(input, &bump).unwrap();
        full.append(&program, value).unwrap();
        some.append(&program, value).unwrap();
    }
    let (full, some) = (full.finish().unwrap(), some.finish().unwrap());
    assert_eq!(some.num_rows(), 3);
    assert_eq!(
        some.schema(),
        Arc::new(full.schema().project(&[1, 3]).unwrap())
    );
    assert_eq!(some, full.project(&[1, 3]).unwrap());
    // No column at all: the rows are still counted.
    let mut none = BatchBuilder::with_attributes(&program, &options, |_| false).unwrap();
    none.append(&program, tfwire::Value::Null).unwrap();
    let none = none.finish().unwrap();
    assert_eq!((none.num_rows(), none.num_columns()), (1, 0));
    // A value of another object type is refused, as by the full builder.
    let other = Program::from_type_json(r#"["object",{"a":"string"}]"#).unwrap();
    let mut some = BatchBuilder::with_attributes(&program, &options, keep).unwrap();
    let value = other.decode_json(br#"{"a":"x"}"#, &bump).unwrap();
    let e = some.append(&other, value).unwrap_err();
    assert!(
        e.to_string().contains("an object of the builder's type"),
        "{e}"
    );
    // With the side columns asked for, every column is built.
    let side = ArrowOptions::default().with_unknown_paths(true);
    let all = BatchBuilder::with_attributes(&program, &side, keep).unwrap();
    assert_eq!(all.schema().fields().len(), 5);
}
