//! The Parquet writer's floor: see README.md.
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesBuilder};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Failure = Box<dyn std::error::Error>;

/// One file as written: its schema, each row group's batches, its metadata.
struct Table {
    schema: SchemaRef,
    groups: Vec<Vec<RecordBatch>>,
    meta: Arc<ParquetMetaData>,
}

fn read(path: &PathBuf) -> Result<Table, Failure> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path)?)?;
    let (schema, meta) = (builder.schema().clone(), builder.metadata().clone());
    let mut groups = Vec::new();
    for g in 0..meta.num_row_groups() {
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path)?)?
            .with_row_groups(vec![g])
            .with_batch_size(usize::MAX >> 8)
            .build()?;
        groups.push(reader.collect::<Result<Vec<_>, _>>()?);
    }
    Ok(Table {
        schema,
        groups,
        meta,
    })
}

/// The settings `table` was written with: each column's compression, whether it has a
/// dictionary page and statistics (the first row group's chunk says), the largest row group.
fn as_written(table: &Table) -> WriterPropertiesBuilder {
    let rows = (table.meta.row_groups().iter())
        .map(|g| g.num_rows() as usize)
        .max()
        .unwrap_or(1);
    let mut b = WriterProperties::builder().set_max_row_group_row_count(Some(rows.max(1)));
    for column in first_chunks(table) {
        let path = column.column_path().clone();
        let stats = match column.statistics() {
            Some(_) => EnabledStatistics::Page,
            None => EnabledStatistics::None,
        };
        b = b
            .set_column_compression(path.clone(), column.compression())
            .set_column_dictionary_enabled(path.clone(), column.dictionary_page_offset().is_some())
            .set_column_statistics_enabled(path, stats);
    }
    b
}

/// The column chunks of `table`'s first row group (none for a file without rows).
fn first_chunks(table: &Table) -> &[ColumnChunkMetaData] {
    table.meta.row_groups().first().map_or(&[], |g| g.columns())
}

/// A setting: its name and what it changes of the written one.
type Change = fn(WriterPropertiesBuilder, &Table) -> WriterPropertiesBuilder;

fn each_column(
    b: WriterPropertiesBuilder,
    t: &Table,
    f: fn(WriterPropertiesBuilder, parquet::schema::types::ColumnPath) -> WriterPropertiesBuilder,
) -> WriterPropertiesBuilder {
    (first_chunks(t).iter()).fold(b, |b, c| f(b, c.column_path().clone()))
}

const SETTINGS: [(&str, Change); 5] = [
    ("as written", |b, _| b),
    ("no dictionary", |b, t| {
        each_column(b, t, |b, p| b.set_column_dictionary_enabled(p, false))
    }),
    ("no statistics", |b, t| {
        each_column(b, t, |b, p| {
            b.set_column_statistics_enabled(p, EnabledStatistics::None)
        })
    }),
    ("lz4_raw", |b, t| {
        each_column(b, t, |b, p| {
            b.set_column_compression(p, Compression::LZ4_RAW)
        })
    }),
    ("uncompressed", |b, t| {
        each_column(b, t, |b, p| {
            b.set_column_compression(p, Compression::UNCOMPRESSED)
        })
    }),
];

/// Writes every table into memory with `change`: the bytes written.
fn write_all(tables: &[Table], change: Change) -> Result<usize, Failure> {
    let mut bytes = 0;
    for t in tables {
        let props = change(as_written(t), t).build();
        let mut w = ArrowWriter::try_new(Vec::new(), t.schema.clone(), Some(props))?;
        for group in &t.groups {
            for batch in group {
                w.write(batch)?;
            }
            w.flush()?;
        }
        bytes += w.into_inner()?.len();
    }
    Ok(bytes)
}

fn median(mut xs: Vec<f64>) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[0])
}

fn main() -> Result<(), Failure> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: tfwire-parquet-floor DIR ROUNDS [-- COMMAND...]";
    let dir = args.next().ok_or(usage)?;
    let rounds: usize = args.next().ok_or(usage)?.parse()?;
    if rounds == 0 {
        return Err(usage.into());
    }
    let command: Vec<String> = args.skip_while(|a| a == "--").collect();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    let tables = paths.iter().map(read).collect::<Result<Vec<_>, _>>()?;
    let chunks: usize = (tables.iter())
        .map(|t| {
            t.meta
                .row_groups()
                .iter()
                .map(|g| g.num_columns())
                .sum::<usize>()
        })
        .sum();
    println!("{} files, {chunks} column chunks", tables.len());
    let mut times = vec![Vec::new(); SETTINGS.len()];
    let mut sizes = vec![0; SETTINGS.len()];
    let mut command_times = Vec::new();
    for _ in 0..rounds {
        if let Some((program, rest)) = command.split_first() {
            let t = Instant::now();
            let status = Command::new(program)
                .args(rest)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()?;
            command_times.push(t.elapsed().as_secs_f64());
            if !status.success() && status.code() != Some(1) {
                return Err(format!("{program}: {status}").into());
            }
        }
        for (k, (_, change)) in SETTINGS.iter().enumerate() {
            let t = Instant::now();
            sizes[k] = write_all(&tables, *change)?;
            times[k].push(t.elapsed().as_secs_f64());
        }
    }
    for (k, (name, _)) in SETTINGS.iter().enumerate() {
        let (med, min) = median(times[k].clone());
        println!(
            "{name:14} median {med:.3} s  fastest {min:.3} s  {} bytes",
            sizes[k]
        );
    }
    if !command_times.is_empty() {
        let (med, min) = median(command_times);
        println!("command        median {med:.3} s  fastest {min:.3} s");
    }
    Ok(())
}
