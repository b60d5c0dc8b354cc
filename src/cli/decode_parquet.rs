//! `tfwire decode --to parquet`: the values of one object type (one, or a stream) as the rows
//! of a Parquet file ([`tfwire::arrow::BatchBuilder`]: a column per attribute), zstd, in row
//! groups of at most [`ROW_GROUP`](super::state_parquet::ROW_GROUP) rows; memory is one row
//! group's columns.

use std::io::{IsTerminal, Write};

use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use tfwire::arrow::{ArrowOptions, BatchBuilder};
use tfwire::{DecodeOptions, Program};

use super::decode::{each_value, Fault};
use super::state_parquet::ROW_GROUP;
use super::{DecodeArgs, Failure};

pub(super) fn run(
    program: &Program,
    args: &DecodeArgs,
    options: DecodeOptions,
) -> Result<(), Failure> {
    let arrow = ArrowOptions::default().with_exact_numbers(args.exact_numbers);
    let mut rows = BatchBuilder::new(program, &arrow)
        .map_err(|e| Failure::Usage(format!("--to parquet: {e}")))?;
    let (out, name): (Box<dyn Write + Send>, String) =
        match &args.out {
            Some(path) => {
                let file = std::fs::File::create(path).map_err(|e| Failure::file(path, e))?;
                (Box::new(file), path.display().to_string())
            }
            None if std::io::stdout().is_terminal() => return Err(Failure::Usage(
                "--to parquet writes a binary file: give --out FILE or redirect standard output"
                    .into(),
            )),
            None => (Box::new(std::io::stdout()), "standard output".to_string()),
        };
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_max_row_group_row_count(Some(ROW_GROUP))
        .build();
    let failed = |e: &dyn std::fmt::Display| Failure::BadInput(format!("{name}: {e}"));
    let mut writer = ArrowWriter::try_new(
        std::io::BufWriter::with_capacity(1 << 20, out),
        rows.schema(),
        Some(props),
    )
    .map_err(|e| failed(&e))?;
    let result = each_value(program, args, options, &mut |value| {
        // (A value the program decoded has its type: a builder that refuses it is broken,
        // and the file with it.)
        rows.append(program, value)
            .map_err(|e| Fault::Fatal(failed(&e)))?;
        if rows.len() >= ROW_GROUP {
            let batch = rows.finish().map_err(|e| Fault::Fatal(failed(&e)))?;
            writer.write(&batch).map_err(|e| Fault::Fatal(failed(&e)))?;
        }
        Ok(())
    });
    // The values that decoded are written, whatever became of the others.
    let batch = rows.finish().map_err(|e| failed(&e))?;
    if batch.num_rows() > 0 {
        writer.write(&batch).map_err(|e| failed(&e))?;
    }
    writer
        .into_inner()
        .and_then(|mut out| out.flush().map_err(Into::into))
        .map_err(|e| failed(&e))?;
    result
}
