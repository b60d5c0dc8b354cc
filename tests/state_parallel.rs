//! `StateReader::visit_parallel`: the instances, outcomes, summaries and errors of the
//! one-thread walk, whether the walk hands out whole resources (delimited, read by the
//! workers) or a large resource's instances, in every read size and with 2 and 3 jobs;
//! `StateReader::visit_file_parallel` (a file read in parts of its bytes) the same, in parts
//! of every size, pretty-printed, and with objects inside attributes that look like
//! resources; `StateReader::visit_files_parallel` (many files) what each file read on one
//! thread gives; and `tfwire state --jobs`.

mod common;

use common::state::{
    by_memory, by_parse, by_reader, doc, line, one_resource, small, Chunked, PROVIDER,
};

use tfwire::state::{ReaderOptions, StateReader};
use tfwire::DecodeOptions;

/// A state of many resources in every shape the walk meets (Terraform's key order and
/// `jq -S`'s, modules, data sources, a type without a schema, deposed objects, escapes, and
/// one resource too large to be handed on whole at small read sizes), then `n` instances of
/// null_resource.big.
fn many_resources(big: usize) -> String {
    let mut text = String::from(r#"{"version":4,"terraform_version":"1.9.0","resources":["#);
    for r in 0..600 {
        if r > 0 {
            text.push(',');
        }
        let count = if r == 300 { big } else { 1 + r % 4 };
        let mut instances = String::new();
        for i in 0..count {
            if i > 0 {
                instances.push(',');
            }
            let key = match (r + i) % 3 {
                0 => format!("{i}"),
                1 => format!(r#""k\"{i}""#),
                _ => "null".to_string(),
            };
            let bad = if (r + i) % 17 == 0 {
                r#","bad":[1]"#
            } else {
                ""
            };
            let deposed = if i == 1 && r % 9 == 0 {
                r#","deposed":"d1""#
            } else {
                ""
            };
            instances.push_str(&format!(
                r#"{{"index_key":{key}{deposed},"schema_version":0,"attributes":{{"id":"i-{r}-{i} \u00e9\\","n":{i}.5{bad}}},"sensitive_attributes":[],"private":"eyJ\"x\"}}","dependencies":["a.b[\"{{\"]"]}}"#
            ));
        }
        let (mode, ty) = match (r % 13, r % 11) {
            (0, _) => ("data", "null_resource"),
            (_, 0) => ("managed", "other"),
            _ => ("managed", "null_resource"),
        };
        let module = if r % 7 == 0 {
            format!(r#""module":"module.m{r}","#)
        } else {
            String::new()
        };
        if r % 5 == 0 && r != 300 {
            text.push_str(&format!(
                r#"{{"instances":[{instances}],"mode":"{mode}",{module}"name":"r{r}","provider":"{PROVIDER}","type":"{ty}"}}"#
            ));
        } else {
            text.push_str(&format!(
                r#"{{{module}"mode":"{mode}","type":"{ty}","name":"r{r}","provider":"{PROVIDER}","instances":[{instances}]}}"#
            ));
        }
    }
    text.push_str(r#"],"check_results":null}"#);
    text
}

/// Lines, summary or error of a parallel walk, on a thread of its own (a walk keeps its
/// buffer for the thread's next walk: a fresh thread reads with `options`' sizes from the
/// first byte, so a resource larger than eight reads is read by the walk itself).
fn parallel(
    set: &tfwire::state::SchemaSet,
    text: &[u8],
    options: ReaderOptions,
    jobs: usize,
) -> (Vec<String>, Result<tfwire::state::Summary, String>) {
    parallel_reader(set, StateReader::with_options(text, options), jobs)
}

/// `reader.visit_parallel` on `jobs` threads, run on a thread of its own (a walk keeps its
/// buffer for the thread's next walk): the lines, and the summary or the error.
fn parallel_reader<R: std::io::Read + Send>(
    set: &tfwire::state::SchemaSet,
    reader: StateReader<R>,
    jobs: usize,
) -> (Vec<String>, Result<tfwire::state::Summary, String>) {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let mut lines = Vec::new();
                let summary = reader
                    .visit_parallel(
                        set,
                        &DecodeOptions::default(),
                        jobs,
                        Vec::new,
                        |acc: &mut Vec<String>, item, o| acc.push(line(item, o)),
                        |acc| lines.extend(acc),
                    )
                    .map_err(|e| e.to_string());
                (lines, summary)
            })
            .join()
            .unwrap()
    })
}

/// Lines, summary or error of the one-thread walk.
fn one_thread(
    set: &tfwire::state::SchemaSet,
    text: &[u8],
) -> (Vec<String>, Result<tfwire::state::Summary, String>) {
    let mut lines = Vec::new();
    let summary = StateReader::new(text)
        .visit(set, &DecodeOptions::default(), |item, o| {
            lines.push(line(item, o))
        })
        .map_err(|e| e.to_string());
    (lines, summary)
}

#[path = "state_parallel/files.rs"]
mod files;
#[path = "state_parallel/parts.rs"]
mod parts;
#[path = "state_parallel/visits.rs"]
mod visits;
