//! SQL over state files (`tfwire::sql`, `tfwire sql`): ten representative queries over the
//! corpus states — a filter on a tag, group by type and by provider, a join of two resource
//! types, an aggregate over a nested block, counts with a type filter, `ORDER BY … LIMIT`, a
//! data source's table, the instances that failed, a nested block's field — each returning
//! exactly the rows computed from `tfwire state --format ndjson` on the same files (one test
//! per query), and filters on the envelope. (The toy state's tests: `sql_toy.rs`.)

#[path = "support/batches.rs"]
mod batches;
#[cfg(feature = "cluster")]
#[path = "support/cluster.rs"]
mod cluster;
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use datafusion::prelude::{SessionConfig, SessionContext};
use serde_json::{json, Value as Json};
use tfwire::sql::{Fleet, FleetOptions};

/// The corpus: its documents (as `tests/state.rs` loads them) and its state files.
struct Corpus {
    docs: Vec<PathBuf>,
    states: Vec<PathBuf>,
    /// `tfwire state --format ndjson` of the states.
    lines: Vec<Json>,
}

fn corpus() -> Option<&'static Corpus> {
    static CORPUS: OnceLock<Option<Corpus>> = OnceLock::new();
    CORPUS
        .get_or_init(|| {
            let shared = common::shared_dir("the SQL corpus tests")?;
            let dir = shared.join("corpus");
            let files = |dir: PathBuf| -> Vec<PathBuf> {
                let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|x| x == "json"))
                    .collect();
                out.sort();
                out
            };
            let docs: Vec<PathBuf> = files(dir.join("schemas"))
                .into_iter()
                .chain(files(dir.join("schemas").join("derived")))
                .filter(|d| {
                    let name = d.file_name().unwrap().to_str().unwrap();
                    name != "cdktf-fixture-aws-provider.schemas.json"
                        && name != "cdktf-fixture-elasticstack-provider.schemas.json"
                })
                .collect();
            let mut states = Vec::new();
            walk(&dir.join("states"), &mut states);
            states.sort();
            let mut args: Vec<String> = vec!["state".into(), "--format".into(), "ndjson".into()];
            for d in &docs {
                args.extend(["--schemas".into(), d.display().to_string()]);
            }
            args.extend(states.iter().map(|s| s.display().to_string()));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = tfwire(&args);
            let lines = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            Some(Corpus {
                docs,
                states,
                lines,
            })
        })
        .as_ref()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn tfwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args(args)
        .output()
        .unwrap()
}

/// `query`'s rows over the corpus (in-process, two partitions), as JSON objects with every
/// column (nulls too); with the `cluster` feature, the same query on a loopback cluster
/// (`support/cluster.rs`) returns the same rows, in the same order.
fn rows(corpus: &Corpus, query: &str) -> Vec<Json> {
    rows_with(corpus, query, FleetOptions::default())
}

/// [`rows`], the fleet decoding with `options`.
fn rows_with(corpus: &Corpus, query: &str, options: FleetOptions) -> Vec<Json> {
    let fleet = Fleet::open(corpus.states.clone(), corpus.docs.clone(), options).unwrap();
    let config = || SessionConfig::new().with_target_partitions(2);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let batches = runtime.block_on(async {
        let ctx = SessionContext::new_with_config(config());
        fleet.register(&ctx).unwrap();
        ctx.sql(query).await.unwrap().collect().await.unwrap()
    });
    let local = batches::rows_json(&batches);
    #[cfg(feature = "cluster")]
    {
        let cluster = cluster::cluster();
        let remote = runtime.block_on(async {
            let run = async {
                let ctx = tfwire::sql::cluster::connect(&cluster.url, config()).await?;
                fleet.register(&ctx)?;
                ctx.sql(query).await?.collect().await
            };
            tokio::time::timeout(std::time::Duration::from_secs(300), run).await
        });
        let remote = remote
            .unwrap_or_else(|_| panic!("{query}: no answer from the cluster in 300 s"))
            .unwrap_or_else(|e| panic!("{query}: on the cluster: {e}"));
        assert_eq!(
            batches::rows_json(&remote),
            local,
            "{query}: on the cluster"
        );
    }
    local
}

/// The NDJSON lines of decoded instances of `type_name` (managed).
fn ok_of<'c>(corpus: &'c Corpus, type_name: &str, mode: &str) -> Vec<&'c Json> {
    corpus
        .lines
        .iter()
        .filter(|l| l["type"] == type_name && l["mode"] == mode && l["status"] == "ok")
        .collect()
}

fn sorted(mut rows: Vec<Json>) -> Vec<Json> {
    rows.sort_by_key(|r| r.to_string());
    rows
}

#[test]
fn q01_filter_on_a_tag() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT _address, _file, tags['foo'] AS foo FROM aws_iam_user \
         WHERE tags['foo'] IS NOT NULL ORDER BY _file, _address",
    );
    let mut want: Vec<(String, String, Json)> = ok_of(c, "aws_iam_user", "managed")
        .into_iter()
        .filter(|l| !l["value"]["tags"]["foo"].is_null())
        .map(|l| {
            let file = l["file"].as_str().unwrap().to_string();
            let address = l["address"].as_str().unwrap().to_string();
            (file, address, l["value"]["tags"]["foo"].clone())
        })
        .collect();
    want.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let want: Vec<Json> = want
        .into_iter()
        .map(|(file, address, foo)| json!({"_address": address, "_file": file, "foo": foo}))
        .collect();
    assert_eq!(want.len(), 3);
    assert_eq!(got, want);
}

#[test]
fn q02_group_by_type() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT type, count(*) AS n FROM instances GROUP BY type ORDER BY type",
    );
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for l in &c.lines {
        *counts.entry(l["type"].as_str().unwrap()).or_default() += 1;
    }
    let want: Vec<Json> = counts
        .into_iter()
        .map(|(t, n)| json!({"type": t, "n": n}))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn q03_group_by_provider_and_status() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT provider, status, count(*) AS n FROM instances \
         GROUP BY provider, status ORDER BY provider, status",
    );
    let mut counts: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for l in &c.lines {
        let key = (
            l["provider"].as_str().unwrap(),
            l["status"].as_str().unwrap(),
        );
        *counts.entry(key).or_default() += 1;
    }
    let want: Vec<Json> = counts
        .into_iter()
        .map(|((p, s), n)| json!({"provider": p, "status": s, "n": n}))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn q04_join_of_two_types_on_an_id() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT k._address AS key, u._address AS user, k._file AS file \
         FROM aws_iam_access_key k JOIN aws_iam_user u ON k.user = u.name AND k._file = u._file",
    );
    let mut want = Vec::new();
    for k in ok_of(c, "aws_iam_access_key", "managed") {
        for u in ok_of(c, "aws_iam_user", "managed") {
            if k["value"]["user"] == u["value"]["name"] && k["file"] == u["file"] {
                want.push(json!({"key": k["address"], "user": u["address"], "file": k["file"]}));
            }
        }
    }
    assert!(!want.is_empty());
    assert_eq!(sorted(got), sorted(want));
}

#[test]
fn q05_aggregate_over_a_nested_block() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT count(*) AS buckets, sum(cardinality(versioning)) AS blocks, \
         sum(CASE WHEN versioning[1]['enabled'] THEN 1 ELSE 0 END) AS enabled \
         FROM aws_s3_bucket",
    );
    let buckets = ok_of(c, "aws_s3_bucket", "managed");
    let blocks: usize = buckets
        .iter()
        .map(|b| b["value"]["versioning"].as_array().map_or(0, Vec::len))
        .sum();
    let enabled = buckets
        .iter()
        .filter(|b| b["value"]["versioning"][0]["enabled"] == json!(true))
        .count();
    let want = vec![json!({"buckets": buckets.len(), "blocks": blocks, "enabled": enabled})];
    assert_eq!(got, want);
}

#[test]
fn q06_count_with_a_type_filter() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT (SELECT count(*) FROM instances WHERE type = 'null_resource') AS all_instances, \
         (SELECT count(*) FROM null_resource) AS decoded",
    );
    let all = c
        .lines
        .iter()
        .filter(|l| l["type"] == "null_resource")
        .count();
    let decoded = ok_of(c, "null_resource", "managed").len();
    assert_eq!(got, vec![json!({"all_instances": all, "decoded": decoded})]);
}

#[test]
fn q07_order_by_limit() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT name, _address, _file FROM aws_route53_record \
         ORDER BY name DESC, _address, _file LIMIT 5",
    );
    let mut all: Vec<(String, String, String)> = ok_of(c, "aws_route53_record", "managed")
        .into_iter()
        .map(|l| {
            let s = |v: &Json| v.as_str().unwrap().to_string();
            (s(&l["value"]["name"]), s(&l["address"]), s(&l["file"]))
        })
        .collect();
    all.sort_by(|a, b| b.0.cmp(&a.0).then((&a.1, &a.2).cmp(&(&b.1, &b.2))));
    let want: Vec<Json> = all
        .into_iter()
        .take(5)
        .map(|(n, a, f)| json!({"name": n, "_address": a, "_file": f}))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn q08_a_data_source_table() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT _address, _mode, name FROM data.aws_lb_target_group ORDER BY _address",
    );
    let mut want: Vec<Json> = ok_of(c, "aws_lb_target_group", "data")
        .into_iter()
        .map(|l| json!({"_address": l["address"], "_mode": "data", "name": l["value"]["name"]}))
        .collect();
    want.sort_by_key(|r| r["_address"].as_str().unwrap().to_string());
    assert_eq!(want.len(), 3);
    assert_eq!(got, want);
}

#[test]
fn q09_the_instances_that_failed() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT file, address, error FROM instances WHERE status = 'error' ORDER BY file, address",
    );
    let mut want: Vec<(String, String, String)> = c
        .lines
        .iter()
        .filter(|l| l["status"] == "error")
        .map(|l| {
            let e = &l["error"];
            let error = format!(
                "at {} (byte {}): {}",
                e["path"].as_str().unwrap(),
                e["offset"],
                e["message"].as_str().unwrap()
            );
            let s = |v: &Json| v.as_str().unwrap().to_string();
            (s(&l["file"]), s(&l["address"]), error)
        })
        .collect();
    want.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let want: Vec<Json> = want
        .into_iter()
        .map(|(f, a, e)| json!({"file": f, "address": a, "error": e}))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

#[test]
fn q10_a_nested_block_field() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT _address, _file, health_check[1]['path'] AS path, health_check[1]['port'] AS port \
         FROM aws_lb_target_group ORDER BY _file, _address",
    );
    let mut want: Vec<(String, String, Json, Json)> = ok_of(c, "aws_lb_target_group", "managed")
        .into_iter()
        .map(|l| {
            let h = &l["value"]["health_check"][0];
            let s = |v: &Json| v.as_str().unwrap().to_string();
            (
                s(&l["file"]),
                s(&l["address"]),
                h["path"].clone(),
                h["port"].clone(),
            )
        })
        .collect();
    want.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let want: Vec<Json> = want
        .into_iter()
        .map(|(f, a, path, port)| json!({"_address": a, "_file": f, "path": path, "port": port}))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

/// A filter on `instances`' type (pushed into the scan: the other types are stepped over
/// undecoded) keeps exactly the rows of those types.
#[test]
fn q11_a_type_filter_on_instances() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT file, address, status FROM instances \
         WHERE type IN ('aws_iam_user', 'null_resource') AND mode = 'managed' \
         ORDER BY file, address",
    );
    let mut want: Vec<(String, String, String)> = c
        .lines
        .iter()
        .filter(|l| {
            (l["type"] == "aws_iam_user" || l["type"] == "null_resource") && l["mode"] == "managed"
        })
        .map(|l| {
            let s = |v: &Json| v.as_str().unwrap().to_string();
            (s(&l["file"]), s(&l["address"]), s(&l["status"]))
        })
        .collect();
    want.sort();
    let want: Vec<Json> = want
        .into_iter()
        .map(|(f, a, st)| json!({"file": f, "address": a, "status": st}))
        .collect();
    assert!(want.len() > 20);
    assert_eq!(got, want);
}

/// Filters on the envelope columns (pushed into the scan: the instances of the resources
/// they rule out are stepped over undecoded) keep exactly the rows they name, in
/// `instances` and in a type's table.
#[test]
fn q12_filters_on_the_envelope() {
    let Some(c) = corpus() else { return };
    let got = rows(
        c,
        "SELECT file, address, status FROM instances \
         WHERE module IS NULL AND mode = 'managed' \
         AND provider IN ('registry.terraform.io/hashicorp/null', 'registry.terraform.io/hashicorp/random') \
         ORDER BY file, address",
    );
    let mut want: Vec<(String, String, String)> = (c.lines.iter())
        .filter(|l| {
            l["module"].is_null()
                && l["mode"] == "managed"
                && (l["provider"] == "registry.terraform.io/hashicorp/null"
                    || l["provider"] == "registry.terraform.io/hashicorp/random")
        })
        .map(|l| {
            let s = |v: &Json| v.as_str().unwrap().to_string();
            (s(&l["file"]), s(&l["address"]), s(&l["status"]))
        })
        .collect();
    want.sort();
    let want: Vec<Json> = (want.into_iter())
        .map(|(f, a, st)| json!({"file": f, "address": a, "status": st}))
        .collect();
    assert!(want.len() > 10, "{}", want.len());
    assert_eq!(got, want);
    // A type's table: by name and by address (an instance's, or its resource's).
    let ok = ok_of(c, "aws_iam_user", "managed");
    let name = ok[0]["name"].as_str().unwrap();
    let address = ok[0]["address"].as_str().unwrap();
    let query = format!(
        "SELECT _file, _address FROM aws_iam_user WHERE _name = '{name}' \
         AND _address IN ('{address}', 'nothing.here') ORDER BY _file, _address"
    );
    let mut want: Vec<(&str, &str)> = (ok.iter())
        .filter(|l| l["name"] == name && l["address"] == address)
        .map(|l| (l["file"].as_str().unwrap(), l["address"].as_str().unwrap()))
        .collect();
    want.sort();
    let want: Vec<Json> = (want.into_iter())
        .map(|(f, a)| json!({"_file": f, "_address": a}))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(rows(c, &query), want);
}

/// With the drift option the instances holding attributes their schema lacks are rows (their
/// other attributes as `tfwire state --skip-unknown-attrs` decodes them), and a scan of a few
/// of a type's columns decodes only those (a projected program).
#[test]
fn q13_drifted_instances_with_the_drift_option() {
    let Some(c) = corpus() else { return };
    let mut args = vec!["state", "--skip-unknown-attrs", "--format", "ndjson"];
    args.extend(["--type", "aws_instance"]);
    let docs: Vec<String> = c.docs.iter().map(|d| d.display().to_string()).collect();
    for d in &docs {
        args.extend(["--schemas", d]);
    }
    let states: Vec<String> = c.states.iter().map(|s| s.display().to_string()).collect();
    args.extend(states.iter().map(String::as_str));
    let out = tfwire(&args);
    let lines: Vec<Json> = (String::from_utf8(out.stdout).unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|l: &Json| l["mode"] == "managed" && l["status"] == "ok")
        .collect();
    let options = FleetOptions::default()
        .with_decode(tfwire::DecodeOptions::default().with_skip_unknown_attributes(true));
    let got = rows_with(
        c,
        "SELECT _file, _address, instance_type, tags['Name'] AS name FROM aws_instance \
         ORDER BY _file, _address",
        options,
    );
    let mut want: Vec<(String, String, Json, Json)> = (lines.iter())
        .map(|l| {
            let s = |v: &Json| v.as_str().unwrap().to_string();
            let v = &l["value"];
            (
                s(&l["file"]),
                s(&l["address"]),
                v["instance_type"].clone(),
                v["tags"]["Name"].clone(),
            )
        })
        .collect();
    want.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let want: Vec<Json> = (want.into_iter())
        .map(|(f, a, t, n)| json!({"_file": f, "_address": a, "instance_type": t, "name": n}))
        .collect();
    // (More rows than without the option: the corpus has drifted `aws_instance` states.)
    let strict = ok_of(c, "aws_instance", "managed").len();
    assert!(
        want.len() > strict,
        "{} rows, {strict} without the option",
        want.len()
    );
    assert_eq!(got, want);
}
