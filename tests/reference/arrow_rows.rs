//! The straight rows check (`BatchBuilder::decode_msgpack`, `decode_json`), shared by
//! `tests/arrow_rows.rs` and the `arrow_rows` fuzz target: rows read both ways — straight,
//! and by the program's decode then `BatchBuilder::append` (the oracle) — give the same
//! outcome for each row (the same error text) and equal batches. [`rows`]: a generated type
//! and value as attribute `a` of a row (beside a string `b`), in MessagePack and (without
//! unknowns) JSON in the encodings the input picks, sometimes with a byte changed, between
//! copies of the row as generated.

use arrow_array::{Array, ListArray, MapArray, StructArray};
use bumpalo::Bump;
use tfwire::arrow::{ArrowOptions, BatchBuilder};
use tfwire::{Program, Type};

use super::encode;
use super::gen::{self, Bytes, Source};

/// A row's encoding.
#[derive(Clone, Copy, Debug)]
pub enum Encoding {
    MessagePack,
    Json,
}

/// Each input as a row both ways: the same outcomes and equal batches; the count of rows
/// that decoded.
pub fn both_ways(
    program: &Program,
    options: &ArrowOptions,
    encoding: Encoding,
    inputs: &[Vec<u8>],
) -> Result<usize, String> {
    let mut straight = BatchBuilder::new(program, options).map_err(|e| e.to_string())?;
    let mut general = BatchBuilder::new(program, options).map_err(|e| e.to_string())?;
    let mut ok = 0;
    for (k, input) in inputs.iter().enumerate() {
        let (bump1, bump2) = (Bump::new(), Bump::new());
        let s = match encoding {
            Encoding::MessagePack => straight.decode_msgpack(program, input, &bump1),
            Encoding::Json => straight.decode_json(program, input, &bump1),
        }
        .map_err(|e| e.to_string());
        let decoded = match encoding {
            Encoding::MessagePack => program.decode_msgpack(input, &bump2),
            Encoding::Json => program.decode_json(input, &bump2),
        };
        let g = match decoded {
            Ok(v) => general.append(program, v).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if s != g {
            return Err(format!(
                "input {k} ({encoding:?}, {input:02x?}): straight {s:?}, general {g:?}"
            ));
        }
        ok += usize::from(s.is_ok());
    }
    let (s, g) = (straight.finish(), general.finish());
    let (s, g) = (s.map_err(|e| e.to_string())?, g.map_err(|e| e.to_string())?);
    if s != g {
        return Err(format!("{encoding:?}: the batches differ:\n{s:?}\n{g:?}"));
    }
    // Equal batches may still differ in which arrays carry a validity bitmap (all valid or
    // not there): the same buffers, for writers that write what is there.
    let bitmaps = |b: &arrow_array::RecordBatch| {
        let mut out = Vec::new();
        for c in b.columns() {
            bitmaps_of(c.as_ref(), &mut out);
        }
        out
    };
    if bitmaps(&s) != bitmaps(&g) {
        return Err(format!(
            "{encoding:?}: the validity bitmaps differ:\n{s:?}\n{g:?}"
        ));
    }
    Ok(ok)
}

/// Whether each array of `array`'s tree has a validity bitmap, depth first.
fn bitmaps_of(array: &dyn Array, out: &mut Vec<bool>) {
    out.push(array.nulls().is_some());
    let any = array.as_any();
    if let Some(list) = any.downcast_ref::<ListArray>() {
        bitmaps_of(list.values().as_ref(), out);
    } else if let Some(map) = any.downcast_ref::<MapArray>() {
        bitmaps_of(map.keys().as_ref(), out);
        bitmaps_of(map.values().as_ref(), out);
    } else if let Some(fields) = any.downcast_ref::<StructArray>() {
        for c in fields.columns() {
            bitmaps_of(c.as_ref(), out);
        }
    }
}

/// The check of the `arrow_rows` fuzz target on its bytes.
pub fn rows(data: &[u8]) {
    let mut s = Bytes::new(data);
    let (t, plan) = gen::small_case(&mut s);
    let row_json = format!(r#"["object",{{"a":{},"b":"string"}}]"#, t.to_json());
    let Ok(row_type) = Type::from_json(&row_json) else {
        return; // (A type at the nesting limit has no room for the row around it.)
    };
    let Ok(program) = Program::new(&row_type) else {
        return;
    };
    let mut inputs = vec![(Encoding::MessagePack, encode::msgpack(&mut s, &t, &plan))];
    if !super::has_unknown(&plan) {
        inputs.push((Encoding::Json, encode::json(&mut s, &t, &plan)));
    }
    let options = match s.chance(64) {
        true => ArrowOptions::default().with_unknown_paths(true),
        false => ArrowOptions::default(),
    };
    for (encoding, a) in inputs {
        // The row: `{"a": …, "b": "x"}` around the generated value, as go-cty orders keys.
        let row = match encoding {
            Encoding::MessagePack => {
                [&[0x82, 0xa1, b'a'][..], &a, &[0xa1, b'b', 0xa1, b'x']].concat()
            }
            Encoding::Json => [&br#"{"a":"#[..], &a, br#","b":"x"}"#].concat(),
        };
        let mut changed = row.clone();
        if s.chance(96) {
            let i = s.below(changed.len());
            changed[i] = s.byte();
        }
        let rows = [row.clone(), changed, row];
        if let Err(e) = both_ways(&program, &options, encoding, &rows) {
            panic!("{row_type}: {e}");
        }
    }
}
