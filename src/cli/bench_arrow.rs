//! Contenders for typed columns on the `aws_instance` workload (issue 23): `tfwire_arrow`
//! reads each instance (in the case's encoding: its bytes in the JSON workload, or go-cty's
//! MessagePack of it) into a [`BatchBuilder`] (`decode_json` / `decode_msgpack`: straight into
//! the columns) in batches of [`BATCH`] rows; `arrow_json` is arrow-json's
//! `ReaderBuilder::new(schema).build_decoder()` with the same Arrow schema and batch size over
//! the same instances as NDJSON (each instance's bytes as the JSON workload holds them — for
//! the MessagePack workload, as go-cty's JSON encoding of it writes them —, one per line;
//! made before the timing). The rows are checked equal (arrow-json's writer on
//! both) before anything is timed. The table's MB/s are of the workload's bytes: the two
//! contenders' ratio is their ratio in rows per second.

use std::sync::Arc;

use arrow_array::RecordBatch;
use bumpalo::Bump;
use serde_json::value::RawValue;
use tfwire::arrow::{schema, ArrowOptions, BatchBuilder};
use tfwire::{Program, Type};

use super::{Case, Contender, Encoding};

/// Rows per batch, as arrow-json's default.
pub(super) const BATCH: usize = 1024;

/// The instances' program, schema and NDJSON, and each instance in the case's encoding, for
/// the contenders.
pub(super) struct Prepared {
    element: Program,
    schema: arrow_schema::SchemaRef,
    ndjson: Vec<u8>,
    rows: Vec<Vec<u8>>,
}

/// The element program of `{aws_instance: list(object)}`, the Arrow schema, and the
/// instances as NDJSON; both contenders' rows checked equal.
pub(super) fn prepare(case: &Case) -> Result<Prepared, String> {
    let json = match case.encoding {
        Encoding::Json => case.input.clone(),
        Encoding::Msgpack => {
            let bump = Bump::new();
            let value =
                (case.program.decode_msgpack(&case.input, &bump)).map_err(|e| e.to_string())?;
            let mut json = Vec::new();
            case.program
                .encode_json(value, &mut json)
                .map_err(|e| e.to_string())?;
            json
        }
    };
    let Type::Object(o) = case.program.root_type() else {
        return Err("arrow: not an object type".into());
    };
    let Some(Type::List(element)) = o.get("aws_instance") else {
        return Err("arrow: no aws_instance list".into());
    };
    let element = Program::new(element).map_err(|e| e.to_string())?;
    let schema =
        Arc::new(schema(element.root_type(), &ArrowOptions::default()).map_err(|e| e.to_string())?);
    #[derive(serde::Deserialize)]
    struct Top<'a> {
        #[serde(borrow)]
        aws_instance: Vec<&'a RawValue>,
    }
    let top: Top<'_> = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
    let mut ndjson = Vec::new();
    let mut rows = Vec::new();
    let bump = Bump::new();
    for i in &top.aws_instance {
        let json = i.get().as_bytes();
        ndjson.extend_from_slice(json);
        ndjson.push(b'\n');
        rows.push(match case.encoding {
            Encoding::Json => json.to_vec(),
            Encoding::Msgpack => {
                let value = element
                    .decode_json(json, &bump)
                    .map_err(|e| e.to_string())?;
                let mut out = Vec::new();
                element
                    .encode_msgpack(value, &mut out)
                    .map_err(|e| e.to_string())?;
                out
            }
        });
    }
    let prepared = Prepared {
        element,
        schema,
        ndjson,
        rows,
    };
    let mut bump = Bump::new();
    let mine = written(&tfwire_arrow(case, &prepared, &mut bump)?)?;
    let theirs = written(&arrow_json(&prepared)?)?;
    if mine != theirs {
        return Err("arrow: tfwire's rows differ from arrow-json's".into());
    }
    Ok(prepared)
}

/// The batches written back as NDJSON by arrow-json.
fn written(batches: &[RecordBatch]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut w = arrow_json::LineDelimitedWriter::new(&mut out);
    for b in batches {
        w.write(b).map_err(|e| e.to_string())?;
    }
    w.finish().map_err(|e| e.to_string())?;
    drop(w);
    Ok(out)
}

/// tfwire: each instance read into the builder.
fn tfwire_arrow(case: &Case, p: &Prepared, bump: &mut Bump) -> Result<Vec<RecordBatch>, String> {
    let mut builder =
        BatchBuilder::new(&p.element, &ArrowOptions::default()).map_err(|e| e.to_string())?;
    let mut batches = Vec::new();
    for row in &p.rows {
        bump.reset();
        match case.encoding {
            Encoding::Msgpack => builder.decode_msgpack(&p.element, row, bump),
            Encoding::Json => builder.decode_json(&p.element, row, bump),
        }
        .map_err(|e| e.to_string())?;
        if builder.len() == BATCH {
            batches.push(builder.finish().map_err(|e| e.to_string())?);
        }
    }
    batches.push(builder.finish().map_err(|e| e.to_string())?);
    Ok(batches)
}

/// arrow-json's decoder over the NDJSON.
fn arrow_json(p: &Prepared) -> Result<Vec<RecordBatch>, String> {
    let err = |e: arrow_schema::ArrowError| e.to_string();
    let mut decoder = arrow_json::ReaderBuilder::new(p.schema.clone())
        .with_batch_size(BATCH)
        .build_decoder()
        .map_err(err)?;
    let mut batches = Vec::new();
    let mut input = &p.ndjson[..];
    while !input.is_empty() {
        let n = decoder.decode(input).map_err(err)?;
        input = input.get(n..).unwrap_or_default();
        if let Some(b) = decoder.flush().map_err(err)? {
            batches.push(b);
        }
    }
    if let Some(b) = decoder.flush().map_err(err)? {
        batches.push(b);
    }
    Ok(batches)
}

/// The two contenders.
pub(super) fn contenders<'c>(case: &'c Case, prepared: &'c Prepared) -> Vec<Contender<'c>> {
    let mut bump = Bump::new();
    vec![
        (
            "tfwire_arrow",
            Box::new(move || {
                tfwire_arrow(case, prepared, &mut bump)
                    .map(std::hint::black_box)
                    .is_ok()
            }),
        ),
        (
            "arrow_json",
            Box::new(move || arrow_json(prepared).map(std::hint::black_box).is_ok()),
        ),
    ]
}
