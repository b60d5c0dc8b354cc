//! Our implied types against the oracle's (`ctyoracle implied-type`), for every provider
//! config, resource and data source of every providers-schema document of the shared corpus
//! (`corpus/schemas/*.json`, `corpus/schemas/derived/*.json`).
//!
//! The oracle's answers are stored in `tests/data/implied/<doc>.types.jsonl`, made by
//! `tests/data/implied/generate.sh`. Without the shared checkout the tests print a skip
//! message and pass (they fail instead in CI: `common::strict`); with it, a missing
//! expectation file is a failure.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use tfwire::schema::{SchemaSelector, SchemaSource};

const SKIP: &str = "implied-type oracle comparison skipped";

/// The corpus documents with the expectation file name of each.
fn corpus_docs(shared: &Path) -> Vec<(PathBuf, String)> {
    let base = shared.join("corpus").join("schemas");
    let mut docs = Vec::new();
    for (dir, prefix) in [(base.clone(), ""), (base.join("derived"), "derived-")] {
        let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for p in paths {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            docs.push((p, format!("{prefix}{stem}.types.jsonl")));
        }
    }
    docs
}

#[derive(Default)]
struct Counts {
    docs: usize,
    providers: usize,
    resources: usize,
    data_sources: usize,
    rejected: usize,
}

/// Compares one document with its expectation file; returns the mismatches.
fn compare_doc(text: &str, expect_path: &Path, counts: &mut Counts) -> Vec<String> {
    let expect = fs::read_to_string(expect_path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run tests/data/implied/generate.sh to create it)",
            expect_path.display()
        )
    });
    let name = expect_path.file_name().unwrap().to_string_lossy();
    let mut bad = Vec::new();
    let source = SchemaSource::parse(text);
    let mut seen = 0usize;
    for line in expect.lines() {
        let line: Json = serde_json::from_str(line).expect("expectation line");
        let kind = line["kind"].as_str().unwrap();
        let entry = line["name"].as_str().unwrap().to_string();
        let provider = line["provider"].as_str().unwrap().to_string();
        let sel = SchemaSelector::default()
            .with_resource((kind == "resource").then(|| entry.clone()))
            .with_data_source((kind == "data_source").then(|| entry.clone()))
            .with_provider(Some(provider.clone()));
        let ours = source
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|s| s.select(&sel));
        let what = format!("{name}: {provider} {kind} {entry:?}");
        match (&ours, line.get("type")) {
            (Ok(ty), Some(want)) => {
                let want = serde_json::to_string(want).unwrap();
                if ty.to_string() != want {
                    bad.push(format!("{what}: ours {ty}, oracle {want}"));
                }
            }
            (Err(e), Some(_)) => bad.push(format!("{what}: ours failed ({e}), oracle succeeded")),
            (Ok(ty), None) => bad.push(format!(
                "{what}: ours {ty}, oracle failed ({})",
                line["error"]
            )),
            (Err(_), None) => counts.rejected += 1,
        }
        seen += 1;
        match kind {
            "provider" => counts.providers += 1,
            "resource" => counts.resources += 1,
            "data_source" => counts.data_sources += 1,
            other => panic!("{name}: unknown kind {other:?}"),
        }
    }
    // Every entry we parsed must have an expectation.
    if let Ok(SchemaSource::Document(doc)) = &source {
        let ours: usize = doc
            .providers
            .values()
            .map(|p| usize::from(p.provider.is_some()) + p.resources.len() + p.data_sources.len())
            .sum();
        if ours != seen {
            bad.push(format!(
                "{name}: we have {ours} entries, the expectations {seen}"
            ));
        }
    }
    counts.docs += 1;
    bad
}

#[test]
fn implied_types_match_oracle() {
    let Some(shared) = common::shared_dir(SKIP) else {
        return;
    };
    let dir = common::data_dir().join("implied");
    let mut counts = Counts::default();
    let mut bad = Vec::new();
    for (path, expect_name) in corpus_docs(&shared) {
        let text = fs::read_to_string(&path).unwrap();
        let is_doc = serde_json::from_str::<Json>(&text)
            .ok()
            .is_some_and(|j| j.get("provider_schemas").is_some());
        if !is_doc {
            eprintln!("skip {}: not a providers-schema document", path.display());
            continue;
        }
        bad.extend(compare_doc(&text, &dir.join(expect_name), &mut counts));
    }
    eprintln!(
        "compared {} documents: {} provider configs, {} resources, {} data sources \
         ({} rejected by both); {} mismatches",
        counts.docs,
        counts.providers,
        counts.resources,
        counts.data_sources,
        counts.rejected,
        bad.len()
    );
    assert!(counts.docs > 0, "no providers-schema documents found");
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}

#[test]
fn aws_document_has_980_resources() {
    let Some(shared) = common::shared_dir(SKIP) else {
        return;
    };
    let path = shared.join("corpus/schemas/tfjson-120_basic-aws-null.schemas.json");
    let text = fs::read_to_string(&path).unwrap();
    let SchemaSource::Document(doc) = SchemaSource::parse(&text).unwrap() else {
        panic!("{}: not parsed as a document", path.display());
    };
    let aws = doc.provider("registry.terraform.io/hashicorp/aws").unwrap();
    assert_eq!(aws.resources.len(), 980);
    assert_eq!(aws.data_sources.len(), 372);
    assert!(aws.provider.is_some());
    let (addr, _) = doc.find_provider("null").unwrap();
    assert_eq!(addr, "registry.terraform.io/hashicorp/null");
    let instance = doc
        .resource("registry.terraform.io/hashicorp/aws", "aws_instance")
        .unwrap();
    assert!(instance.block.attributes.iter().any(|(n, _)| n == "ami"));
}

/// Random block schemas from `ctyoracle gen` (nested types, every nesting mode, dynamic
/// parts): our implied type must equal the `i.type.json` the oracle writes. Needs the oracle
/// binary (`$CTYORACLE`, default `/tmp/oracle/ctyoracle`); skipped without it, except in
/// strict mode (`common::strict`), where its absence fails.
#[test]
fn implied_types_match_oracle_gen_cases() {
    let Some(oracle) = common::oracle("gen-case comparison skipped") else {
        return;
    };
    let out = std::env::temp_dir().join(format!("tfwire-implied-gen-{}", std::process::id()));
    let status = std::process::Command::new(&oracle)
        .args([
            "gen",
            "--seed",
            "1",
            "--count",
            "300",
            "--max-depth",
            "6",
            "--out",
        ])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "ctyoracle gen failed");
    let (mut compared, mut blocks, mut bad) = (0, 0, Vec::new());
    for i in 0..300 {
        let text = fs::read_to_string(out.join(format!("{i}.schema.json"))).unwrap();
        let want = fs::read_to_string(out.join(format!("{i}.type.json"))).unwrap();
        let ours = SchemaSource::parse(&text).and_then(|s| s.select(&SchemaSelector::default()));
        compared += 1;
        blocks += usize::from(!text.starts_with("{\"type\""));
        match ours {
            Ok(t) if t.to_string() == want.trim() => {}
            other => bad.push(format!("case {i}: ours {other:?}, oracle {}", want.trim())),
        }
    }
    let _ = fs::remove_dir_all(&out);
    eprintln!(
        "compared {compared} gen cases ({blocks} block schemas); {} mismatches",
        bad.len()
    );
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}
