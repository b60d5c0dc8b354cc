//! Record batches as JSON rows, as arrow-json's writer gives them (every column, nulls too).

use serde_json::Value as Json;

/// The rows of `batches`, each an object of every column.
pub fn rows_json(batches: &[arrow_array::RecordBatch]) -> Vec<Json> {
    let mut out = Vec::new();
    let mut w = arrow_json::WriterBuilder::new()
        .with_explicit_nulls(true)
        .build::<_, arrow_json::writer::LineDelimited>(&mut out);
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    drop(w);
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
