//! `tfwire state --format parquet --out DIR`: the files read back with the parquet crate hold
//! exactly the NDJSON output's instances — `instances.parquet` a row per line, in order, with
//! the same address, status and DUMP; each `TYPE.parquet` a row per decoded instance of the
//! type, in order — for `--jobs 1` and `--jobs 2` alike, on the toy state and on every state of
//! the corpus; pyarrow (another implementation) reads the same row counts; `--exact-numbers`;
//! `tfwire decode --to parquet`; usage errors.

#[path = "support/batches.rs"]
mod batches;
mod common;
#[path = "support/readme.rs"]
mod readme;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value as Json;

fn tfwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args(args)
        .output()
        .unwrap()
}

/// Every table of `dir`: its name and its batches read back by the parquet crate.
fn read_tables(dir: &Path) -> BTreeMap<String, Vec<RecordBatch>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        out.insert(name, reader.map(Result::unwrap).collect());
    }
    out
}

/// Column `name` of `batches`, as optional strings.
fn strings(batches: &[RecordBatch], name: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for b in batches {
        let col = b
            .column_by_name(name)
            .unwrap_or_else(|| panic!("no column {name}"));
        let col = col.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..col.len() {
            out.push(col.is_valid(i).then(|| col.value(i).to_string()));
        }
    }
    out
}

/// Runs `tfwire state` on `states` with `docs` as NDJSON and as Parquet with one and two jobs,
/// and checks the tables against the lines. Returns the row counts by table.
fn check(docs: &[String], states: &[String], tag: &str) -> BTreeMap<String, usize> {
    let mut base: Vec<&str> = vec!["state"];
    for d in docs {
        base.extend(["--schemas", d]);
    }
    let mut ndjson = base.clone();
    ndjson.extend(["--format", "ndjson", "--jobs", "1"]);
    ndjson.extend(states.iter().map(String::as_str));
    let out = tfwire(&ndjson);
    let lines: Vec<Json> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut tables_by_jobs = Vec::new();
    for jobs in ["1", "2"] {
        let dir = common::scratch_dir(&format!("parquet-{tag}-{jobs}"));
        let mut a = base.clone();
        let d = dir.to_str().unwrap().to_string();
        a.extend(["--format", "parquet", "--out", &d, "--jobs", jobs]);
        a.extend(states.iter().map(String::as_str));
        let run = tfwire(&a);
        let stderr = String::from_utf8_lossy(&run.stderr).to_string();
        assert_eq!(run.status.code(), out.status.code(), "{stderr}");
        // Instances left out of their type's table (decoded by a schema of another type).
        let left_out: BTreeMap<String, usize> = stderr
            .lines()
            .filter_map(|l| {
                let (table, rest) = l.strip_prefix("tfwire: ")?.split_once(": ")?;
                let n = rest.strip_suffix(" instances decoded by a schema of another type than the table's first: in instances.parquet only")?;
                Some((table.to_string(), n.parse().ok()?))
            })
            .collect();
        let tables = read_tables(&dir);
        // `instances`: a row per line, in order.
        let inst = &tables["instances"];
        let field = |k: &str| -> Vec<Option<String>> {
            lines
                .iter()
                .map(|l| l.get(k).and_then(|v| v.as_str()).map(str::to_string))
                .collect()
        };
        assert_eq!(strings(inst, "address"), field("address"), "jobs {jobs}");
        assert_eq!(strings(inst, "status"), field("status"), "jobs {jobs}");
        assert_eq!(strings(inst, "type"), field("type"), "jobs {jobs}");
        let dumps: Vec<Option<Json>> = strings(inst, "attributes")
            .into_iter()
            .map(|s| s.map(|s| serde_json::from_str(&s).unwrap()))
            .collect();
        let values: Vec<Option<Json>> = lines.iter().map(|l| l.get("value").cloned()).collect();
        assert_eq!(dumps, values, "jobs {jobs}");
        let versions: Vec<i64> = inst
            .iter()
            .flat_map(|b| {
                let c = b.column_by_name("schema_version").unwrap();
                c.as_any()
                    .downcast_ref::<Int64Array>()
                    .unwrap()
                    .values()
                    .to_vec()
            })
            .collect();
        assert_eq!(versions.len(), lines.len());
        // Each type's table: its decoded instances, in order.
        let mut ok_by_type: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
        for l in &lines {
            if l["status"] == "ok" {
                let mut t = l["type"].as_str().unwrap().to_string();
                if l["mode"] == "data" {
                    t = format!("data.{t}");
                }
                ok_by_type
                    .entry(t)
                    .or_default()
                    .push(l["address"].as_str().map(str::to_string));
            }
        }
        let typed: Vec<&String> = tables.keys().filter(|k| *k != "instances").collect();
        assert_eq!(typed, ok_by_type.keys().collect::<Vec<_>>(), "jobs {jobs}");
        for (t, addresses) in &ok_by_type {
            // In order; all of them but those left out.
            let got = strings(&tables[t], "_address");
            let out = left_out.get(t).copied().unwrap_or(0);
            assert_eq!(got.len() + out, addresses.len(), "{t}, jobs {jobs}");
            let mut rest = addresses.iter();
            assert!(
                got.iter().all(|g| rest.any(|a| a == g)),
                "{t}, jobs {jobs}: {got:?}"
            );
        }
        tables_by_jobs.push(tables);
    }
    // The same batches' rows whatever the jobs (concatenated: the batches may be cut
    // elsewhere).
    let [one, two] = &tables_by_jobs[..] else {
        unreachable!()
    };
    for (name, batches) in one {
        let a = batches::rows_json(batches);
        let b = batches::rows_json(&two[name]);
        assert_eq!(a, b, "{name}");
    }
    one.iter()
        .map(|(k, v)| (k.clone(), v.iter().map(RecordBatch::num_rows).sum()))
        .collect()
}

fn data(name: &str) -> String {
    common::data_dir()
        .join("states")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn toy_state_tables_read_back() {
    let counts = check(&[data("toy.schemas.json")], &[data("toy.tfstate")], "toy");
    let want: BTreeMap<String, usize> =
        [("instances", 7), ("data.toy_image", 1), ("toy_server", 2)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
    assert_eq!(counts, want);
    // pyarrow reads the same row counts.
    let Some(python) = common::python3_with(&["pyarrow"], "the pyarrow read-back") else {
        return;
    };
    let dir = common::scratch_dir("parquet-pyarrow");
    let d = dir.to_str().unwrap();
    let args = [
        "state",
        "--schemas",
        &data("toy.schemas.json"),
        "--format",
        "parquet",
        "--out",
        d,
        &data("toy.tfstate"),
    ];
    tfwire(&args);
    let script = "import sys, pyarrow.parquet as pq, pathlib\n\
                  for p in sorted(pathlib.Path(sys.argv[1]).glob('*.parquet')):\n    \
                  t = pq.read_table(p)\n    print(p.stem, t.num_rows, t.schema.field(0).name)\n";
    let out = Command::new(python)
        .args(["-c", script, d])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "data.toy_image 1 _file\ninstances 7 file\ntoy_server 2 _file\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn corpus_states_tables_read_back() {
    let Some(shared) = common::shared_dir("the corpus Parquet test") else {
        return;
    };
    let corpus = shared.join("corpus");
    let list = |dir: PathBuf, recursive: bool| -> Vec<String> {
        fn walk(dir: &Path, recursive: bool, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    if recursive {
                        walk(&p, true, out);
                    }
                } else {
                    out.push(p.to_str().unwrap().to_string());
                }
            }
        }
        let mut out = Vec::new();
        walk(&dir, recursive, &mut out);
        out.sort();
        out
    };
    // The documents `tests/state.rs` loads (all but the two that are not documents).
    let docs: Vec<String> = list(corpus.join("schemas"), false)
        .into_iter()
        .chain(list(corpus.join("schemas").join("derived"), false))
        .filter(|d| d.ends_with(".json"))
        .filter(|d| {
            !d.ends_with("cdktf-fixture-aws-provider.schemas.json")
                && !d.ends_with("cdktf-fixture-elasticstack-provider.schemas.json")
        })
        .collect();
    let states = list(corpus.join("states"), true);
    assert_eq!(states.len(), 213);
    let counts = check(&docs, &states, "corpus");
    assert_eq!(counts["instances"], 430);
    // The 376 decoded instances but 12, decoded by schemas of other types than the first of
    // their type's (other provider versions): those are in `instances` only.
    assert_eq!(counts.values().sum::<usize>(), 430 + 376 - 12);
}

#[test]
fn parquet_needs_out_and_out_needs_parquet() {
    let (schemas, state) = (data("toy.schemas.json"), data("toy.tfstate"));
    let out = tfwire(&[
        "state",
        "--schemas",
        &schemas,
        "--format",
        "parquet",
        &state,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tfwire: --format parquet needs --out DIR\n"
    );
    let out = tfwire(&["state", "--schemas", &schemas, "--out", "x", &state]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tfwire: --out and --exact-numbers go with --format parquet\n"
    );
    let out = tfwire(&["state", "--schemas", &schemas, "--exact-numbers", &state]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--exact-numbers`: the number columns are `Decimal128(38, 9)`, the values exact.
#[test]
fn exact_numbers_make_decimal_columns() {
    let dir = common::scratch_dir("parquet-exact");
    let d = dir.to_str().unwrap();
    let (schemas, state) = (data("toy.schemas.json"), data("toy.tfstate"));
    let out = tfwire(&[
        "state",
        "--schemas",
        &schemas,
        "--format",
        "parquet",
        "--out",
        d,
        "--exact-numbers",
        &state,
    ]);
    // (Two of the toy state's instances fail to decode.)
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tables = read_tables(&dir);
    let server = &tables["toy_server"];
    let port = server[0].column_by_name("port").unwrap();
    let port = port
        .as_any()
        .downcast_ref::<arrow_array::Decimal128Array>()
        .unwrap();
    assert_eq!(port.data_type(), &arrow_schema::DataType::Decimal128(38, 9));
    assert_eq!(
        port.iter().collect::<Vec<_>>(),
        [Some(443_000_000_000), None]
    );
    let inexact = server[0].column_by_name("_inexact_numbers").unwrap();
    assert_eq!(inexact.len(), 2);
    assert_eq!(
        inexact
            .as_any()
            .downcast_ref::<arrow_array::ListArray>()
            .unwrap()
            .values()
            .len(),
        0
    );
}

/// `decode --to parquet`: a stream's values that decode as rows, in order, equal to their
/// DUMP lines; the bad one reported and counted (exit 1); usage errors.
#[test]
fn decode_to_parquet_writes_the_values_as_rows() {
    let dir = common::scratch_dir("decode-parquet");
    let input = dir.join("values.ndjson");
    std::fs::write(
        &input,
        "{\"id\":\"a\",\"size\":8.25,\"tags\":{\"k\":\"v\"}}\nnot json\n{\"id\":\"b\",\"size\":0.5}\n",
    )
    .unwrap();
    let ty = r#"["object",{"id":"string","size":"number","tags":["map","string"]}]"#;
    let file = dir.join("values.parquet");
    let (i, f) = (input.to_str().unwrap(), file.to_str().unwrap());
    let base = ["decode", "--type", ty, "--stream", "-f", "json"];
    let run = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        tfwire(&args)
    };
    let out = run(&["--to", "parquet", "--out", f, i]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tfwire: value 1: at (root) (byte 0): expected a JSON value, found \"not\"\n\
         tfwire: 1 of 3 values failed\n"
    );
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&file).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    let mut written = Vec::new();
    let mut w = arrow_json::LineDelimitedWriter::new(&mut written);
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    let rows: Vec<Json> = String::from_utf8(written)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The DUMP lines of the same values, without the nulls arrow-json leaves out.
    let dumps: Vec<Json> = String::from_utf8(run(&[i]).stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Json = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().retain(|_, x| !x.is_null());
            v
        })
        .collect();
    assert_eq!(rows, dumps);
    assert_eq!(rows.len(), 2);
    // Not an object type; --out without --to parquet.
    let out = tfwire(&[
        "decode",
        "--type",
        "\"string\"",
        "--to",
        "parquet",
        "--out",
        f,
        i,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = tfwire(&["decode", "--type", ty, "-f", "json", "--out", f, i]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tfwire: --out and --exact-numbers go with --to parquet\n"
    );
}

/// The README's Parquet example, run as written: in a folder holding the toy state and its
/// schemas, each `$ ` line through `sh` (with the `tfwire` built for the tests on `PATH`),
/// its standard output against the lines the README shows after it.
#[test]
fn readme_parquet_example_runs_as_written() {
    let Some(_) = common::python3_with(&["duckdb", "polars"], "the README's Parquet example")
    else {
        return;
    };
    let dir = common::scratch_dir("readme-parquet");
    let bin = Path::new(env!("CARGO_BIN_EXE_tfwire")).parent().unwrap();
    let files = [
        PathBuf::from(data("toy.schemas.json")),
        PathBuf::from(data("toy.tfstate")),
    ];
    assert_eq!(readme::run_example("parquet", &files, bin, &dir), 3);
}
