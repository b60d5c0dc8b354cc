//! SQL over the toy state (`tests/data/states/toy.tfstate`): filters on the envelope step
//! over what they rule out undecoded; the statistics a scan gives once a table's rows are
//! known; and the command line: the aligned table, CSV, NDJSON, `--list-tables`, `--strict`,
//! `EXPLAIN`, usage errors, the README's example, a directory of states.

#[path = "support/batches.rs"]
mod batches;
mod common;
#[path = "support/readme.rs"]
mod readme;
#[path = "support/run.rs"]
mod run;

use std::path::{Path, PathBuf};
use std::process::Output;

use datafusion::common::stats::Precision;
use datafusion::physical_plan::statistics::{StatisticsArgs, StatisticsContext};
use datafusion::prelude::SessionContext;
use serde_json::json;
use tfwire::sql::Fleet;

fn tfwire(args: &[&str]) -> Output {
    run::tfwire(args, b"")
}

fn toy_fleet() -> Fleet {
    Fleet::new(
        vec![PathBuf::from(common::toy_state_file("toy.tfstate"))],
        vec![std::fs::read_to_string(common::toy_state_file("toy.schemas.json")).unwrap()],
    )
    .unwrap()
}

/// `query`'s rows over `fleet`, in a new session, as JSON objects.
fn rows_of(
    fleet: &Fleet,
    runtime: &tokio::runtime::Runtime,
    query: &str,
) -> Vec<serde_json::Value> {
    runtime.block_on(async {
        let ctx = SessionContext::new();
        fleet.register(&ctx).unwrap();
        batches::rows_json(&ctx.sql(query).await.unwrap().collect().await.unwrap())
    })
}

/// A scan's row count is unknown until a scan without filters has read the table's files
/// whole; then it is the rows they held (inexact: planning only).
#[test]
fn a_scan_counts_rows_once_known() {
    let fleet = toy_fleet();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ctx = SessionContext::new();
    fleet.register(&ctx).unwrap();
    let rows_of = |query: &str| {
        runtime.block_on(async {
            let plan = ctx
                .sql(query)
                .await
                .unwrap()
                .create_physical_plan()
                .await
                .unwrap();
            let stats = StatisticsContext::new().compute(plan.as_ref(), &StatisticsArgs::new());
            stats.unwrap().num_rows
        })
    };
    let run = |query: &str| {
        runtime.block_on(async { ctx.sql(query).await.unwrap().collect().await.unwrap() })
    };
    let scan = "SELECT _address FROM toy_server";
    assert_eq!(rows_of(scan), Precision::Absent);
    // A filtered scan: no count.
    run("SELECT _address FROM toy_server WHERE _name = 'nothing'");
    assert_eq!(rows_of(scan), Precision::Absent);
    run(scan);
    assert_eq!(rows_of(scan), Precision::Inexact(2));
    assert_eq!(rows_of("SELECT type FROM instances"), Precision::Absent);
    run("SELECT type FROM instances");
    assert_eq!(
        rows_of("SELECT address FROM instances"),
        Precision::Inexact(7)
    );
}

/// A filter on a type's envelope columns steps over the resources it rules out without
/// decoding them: their instances that would fail are not counted as failed.
#[test]
fn envelope_filters_step_over_undecoded() {
    let fleet = toy_fleet();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let run = |query: &str| rows_of(&fleet, &runtime, query);
    let address = |a: &str| json!({"_address": a});
    // Both failing instances (web[1], and primary in module.app.module.db["eu"]) decoded.
    let all = run("SELECT _address FROM toy_server ORDER BY _address");
    assert_eq!(all.len(), 2);
    assert_eq!(fleet.failed(), 2);
    let explain =
        run("EXPLAIN SELECT _address FROM toy_server WHERE _module IS NULL AND _name = 'web'");
    let plan = explain
        .iter()
        .map(|row| row.to_string())
        .collect::<String>();
    assert!(
        plan.contains("resources=[module IN (NULL), name IN ('web')]"),
        "{plan}"
    );
    // The root module's `web` only: primary stepped over, web[1] still fails.
    let web = run(
        "SELECT _address FROM toy_server WHERE _module IS NULL AND _name = 'web' ORDER BY _address",
    );
    assert_eq!(
        web,
        [
            address("toy_server.web[0]"),
            address("toy_server.web[0] (deposed 3f2a9c1b)")
        ]
    );
    assert_eq!(fleet.failed(), 3);
    // A module no resource is in: nothing decoded.
    let none = run("SELECT _address FROM toy_server WHERE _module = 'module.nowhere'");
    assert!(none.is_empty());
    assert_eq!(fleet.failed(), 3);
    // An instance address keeps its resource (web[0] and web[1] decoded, the row is web[0]).
    let one = run("SELECT _address FROM toy_server WHERE _address = 'toy_server.web[0]'");
    assert_eq!(one, [address("toy_server.web[0]")]);
    assert_eq!(fleet.failed(), 4);
}

/// A data source of a resource type's name is another table: a scan of one decodes none of
/// the other's instances (their failures are not counted).
#[test]
fn a_data_source_of_a_resource_types_name_is_another_table() {
    let dir = common::scratch_dir("sql-same-name");
    let state = dir.join("same.tfstate");
    let resource = |mode: &str, name: &str, attributes: &str| {
        format!(
            r#"{{"mode":"{mode}","type":"toy_thing","name":"{name}","provider":"provider.toy",
              "instances":[{{"schema_version":0,"attributes":{attributes}}}]}}"#
        )
    };
    let resources = [
        resource("managed", "a", r#"{"id":"m"}"#),
        resource("data", "b", r#"{"id":"d","n":true}"#),
        resource("data", "c", r#"{"id":"d2","n":1}"#),
    ];
    let text = format!(r#"{{"version":4,"resources":[{}]}}"#, resources.join(","));
    std::fs::write(&state, text).unwrap();
    let block =
        |attributes: &str| format!(r#"{{"version":0,"block":{{"attributes":{attributes}}}}}"#);
    let doc = format!(
        r#"{{"format_version":"1.0","provider_schemas":{{"registry.terraform.io/hashicorp/toy":{{
            "resource_schemas":{{"toy_thing":{}}},"data_source_schemas":{{"toy_thing":{}}}}}}}}}"#,
        block(r#"{"id":{"type":"string"}}"#),
        block(r#"{"id":{"type":"string"},"n":{"type":"number"}}"#),
    );
    let fleet = Fleet::new(vec![state], vec![doc]).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let run = |query: &str| rows_of(&fleet, &runtime, query);
    assert_eq!(
        run("SELECT _mode, id FROM toy_thing"),
        [json!({"_mode": "managed", "id": "m"})]
    );
    assert_eq!(fleet.failed(), 0);
    assert_eq!(
        run("SELECT _mode, id, n FROM data.toy_thing"),
        [json!({"_mode": "data", "id": "d2", "n": 1.0})]
    );
    assert_eq!(fleet.failed(), 1);
    // A filter on the mode that rules the table's out: nothing decoded.
    assert!(run("SELECT id FROM toy_thing WHERE _mode = 'data'").is_empty());
    assert_eq!(fleet.failed(), 1);
}

#[test]
fn command_line_on_the_toy_state() {
    let (schemas, state) = (
        common::toy_state_file("toy.schemas.json"),
        common::toy_state_file("toy.tfstate"),
    );
    let sql = |extra: &[&str]| {
        let mut args = vec!["sql", "--schemas", &schemas, "--states", &state];
        args.extend(extra);
        tfwire(&args)
    };
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    let out = sql(&["SELECT _address, port FROM toy_server ORDER BY _address"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "+--------------------------------------+-------+\n\
         | _address                             | port  |\n\
         +--------------------------------------+-------+\n\
         | toy_server.web[0]                    | 443.0 |\n\
         | toy_server.web[0] (deposed 3f2a9c1b) |       |\n\
         +--------------------------------------+-------+\n"
    );
    assert_eq!(
        text(&out.stderr),
        "tfwire: 2 instances failed to decode (not in their type's table)\n"
    );
    let out = sql(&[
        "-f",
        "csv",
        "SELECT status, count(*) AS n FROM instances GROUP BY status ORDER BY status",
    ]);
    assert_eq!(text(&out.stdout), "status,n\nerror,2\nno_schema,2\nok,3\n");
    let out = sql(&["-f", "ndjson", "SELECT name FROM data.toy_image"]);
    assert_eq!(text(&out.stdout), "{\"name\":\"debian\"}\n");
    let out = sql(&["--strict", "SELECT count(*) FROM toy_server"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("tfwire: query: ") && stderr.contains(&format!("{state}: toy_server.")),
        "{stderr}"
    );
    let out = sql(&["EXPLAIN SELECT _address FROM toy_server"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("file_type=tfstate, table=toy_server"),
        "{}",
        text(&out.stdout)
    );
    let out = tfwire(&["sql", "--schemas", &schemas, "--list-tables"]);
    assert_eq!(text(&out.stdout), "instances\ntoy_server\ndata.toy_image\n");
    // A query that does not parse, a table that does not exist: the command line's fault.
    for query in ["SELEC 1", "SELECT * FROM nothing_here"] {
        let out = sql(&[query]);
        assert_eq!(out.status.code(), Some(2), "{query}: {}", text(&out.stderr));
        assert!(text(&out.stderr).starts_with("tfwire: query: "));
    }
    let out = tfwire(&[
        "sql",
        "--schemas",
        &schemas,
        "--states",
        "/nonexistent",
        "SELECT 1",
    ]);
    assert_eq!(out.status.code(), Some(1));
}

/// `--skip-unknown-attrs`: an instance holding an attribute its schema lacks (schema drift)
/// is a row, with its known attributes; without it the instance fails. With it, a scan of
/// some of a type's attributes decodes only those (EXPLAIN: `decodes=[…]`), so an instance
/// whose other attributes hold a value of the wrong type is a row too.
#[test]
fn skip_unknown_attrs_keeps_drifted_instances() {
    let (schemas, state) = (
        common::toy_state_file("toy.schemas.json"),
        common::toy_state_file("toy.tfstate"),
    );
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    let sql = |drift: bool, query: &str| {
        let mut args = vec![
            "sql",
            "-f",
            "csv",
            "--schemas",
            &schemas,
            "--states",
            &state,
        ];
        if drift {
            args.push("--skip-unknown-attrs");
        }
        args.push(query);
        let out = tfwire(&args);
        assert_eq!(out.status.code(), Some(0), "{query}: {}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let failed = |n: &str| format!("tfwire: {n} failed to decode (not in their type's table)\n");
    let query = "SELECT _name, _deposed, name FROM toy_server ORDER BY _address";
    assert_eq!(
        sql(false, query),
        (
            "_name,_deposed,name\nweb,,web-0\nweb,3f2a9c1b,web-0\n".into(),
            failed("2 instances")
        )
    );
    // Decoding `name` only: web[1]'s disk size, not a number, is stepped over.
    assert_eq!(
        sql(true, query),
        (
            "_name,_deposed,name\nprimary,,db\nweb,,web-0\nweb,3f2a9c1b,web-0\nweb,,web-1\n".into(),
            String::new()
        )
    );
    // Decoding `disk` too: web[1] fails.
    let query = "SELECT _name, name, disk[1]['size'] AS size FROM toy_server ORDER BY _address";
    assert_eq!(
        sql(true, query),
        (
            "_name,name,size\nprimary,db,\nweb,web-0,10.0\nweb,web-0,\n".into(),
            failed("1 instance")
        )
    );
    let explain = |drift: bool| sql(drift, "EXPLAIN SELECT name, port FROM toy_server").0;
    assert!(
        explain(true).contains("decodes=[name, port]"),
        "{}",
        explain(true)
    );
    assert!(!explain(false).contains("decodes="), "{}", explain(false));
    // All of the type's attributes: the whole program.
    let all = sql(true, "EXPLAIN SELECT * FROM toy_server").0;
    assert!(!all.contains("decodes="), "{all}");
}

/// The README's SQL example, run as written: in a folder holding the toy state and its
/// schemas, each `$ ` line through `sh` (with the `tfwire` built for the tests on `PATH`), its
/// standard output against the lines the README shows after it.
#[test]
fn readme_sql_example_runs_as_written() {
    let dir = common::scratch_dir("readme-sql");
    let bin = Path::new(env!("CARGO_BIN_EXE_tfwire")).parent().unwrap();
    let files = [
        PathBuf::from(common::toy_state_file("toy.schemas.json")),
        PathBuf::from(common::toy_state_file("toy.tfstate")),
    ];
    assert_eq!(readme::run_example("sql", &files, bin, &dir), 2);
}

/// A directory of states is walked for its `*.tfstate` files; a symbolic link to a directory
/// below it is not followed (a link to an ancestor would loop).
#[test]
fn a_directory_with_a_link_to_itself() {
    let dir = common::scratch_dir("sql-dir-loop");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::copy(
        common::toy_state_file("toy.tfstate"),
        dir.join("sub").join("a.tfstate"),
    )
    .unwrap();
    std::fs::copy(
        common::toy_state_file("toy.schemas.json"),
        dir.join("toy.schemas.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("sub").join("loop")).unwrap();
    let schemas = dir.join("toy.schemas.json").display().to_string();
    let states = dir.display().to_string();
    let out = tfwire(&[
        "sql",
        "--schemas",
        &schemas,
        "--states",
        &states,
        "-f",
        "csv",
        "SELECT count(*) AS n FROM instances",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "n\n7\n");
}
