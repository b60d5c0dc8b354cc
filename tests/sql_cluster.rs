//! `tfwire sql --cluster` and `tfwire cluster` (the `cluster` feature): a scheduler and two
//! executors started as separate processes on 127.0.0.1 (`support/cluster.rs`), the command
//! line's output there equal to the in-process run's, and the README's cluster in three
//! commands run as written. (The corpus queries run on the cluster too: `tests/sql.rs`.)

#[path = "support/cluster.rs"]
mod cluster;
mod common;
#[path = "support/processes.rs"]
mod processes;
// (Its `steps` only: the cluster's commands run in one shell here.)
#[allow(dead_code)]
#[path = "support/readme.rs"]
mod readme;

use std::path::Path;
use std::process::Command;

/// `tfwire sql --cluster` on the toy state: the output of the in-process run, in each format;
/// `--strict` fails there too, naming the instance.
#[test]
fn command_line_on_a_cluster() {
    let cluster = cluster::cluster();
    let (schemas, state) = (
        common::toy_state_file("toy.schemas.json"),
        common::toy_state_file("toy.tfstate"),
    );
    let sql = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tfwire"));
        cmd.args(["sql", "--schemas", &schemas, "--states", &state]);
        cmd.args(extra);
        processes::output_within(&mut cmd, std::time::Duration::from_secs(300))
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    for (format, query) in [
        (
            "table",
            "SELECT _address, port FROM toy_server ORDER BY _address",
        ),
        (
            "csv",
            "SELECT status, count(*) AS n FROM instances GROUP BY status ORDER BY status",
        ),
        ("ndjson", "SELECT name FROM data.toy_image"),
    ] {
        let local = sql(&["-f", format, query]);
        let remote = sql(&["--cluster", &cluster.url, "-f", format, query]);
        assert_eq!(remote.status.code(), Some(0), "{}", text(&remote.stderr));
        assert_eq!(text(&remote.stdout), text(&local.stdout), "{query}");
        assert!(!remote.stdout.is_empty());
    }
    // A URL that is not df://HOST:PORT: the command line's fault.
    for url in ["http://127.0.0.1:1", "df://127.0.0.1", "df://:5"] {
        let out = sql(&["--cluster", url, "SELECT 1"]);
        assert_eq!(out.status.code(), Some(2), "{url}: {}", text(&out.stderr));
    }
    let out = sql(&[
        "--cluster",
        &cluster.url,
        "--strict",
        "SELECT count(*) FROM toy_server",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains(": toy_server."),
        "{}",
        text(&out.stderr)
    );
}

/// The README's cluster in three commands, run as written in one shell (its own process
/// group, killed whole at the end: the scheduler and the executor it started in the
/// background too), in a folder holding the toy state and its schemas.
#[test]
fn readme_cluster_runs_as_written() {
    let dir = common::scratch_dir("readme-cluster");
    for f in ["toy.schemas.json", "toy.tfstate"] {
        std::fs::copy(common::toy_state_file(f), dir.join(f)).unwrap();
    }
    let steps = readme::steps("cluster");
    assert_eq!(steps.len(), 3);
    let script: Vec<&str> = steps.iter().map(|(cmd, _)| cmd.as_str()).collect();
    let want: String = steps.iter().map(|(_, out)| out.as_str()).collect();
    let bin = Path::new(env!("CARGO_BIN_EXE_tfwire")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &script.join("\n")])
        .current_dir(&dir)
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let (group, child) = processes::ProcessGroup::spawn(&mut cmd);
    let out = processes::wait_within(child, std::time::Duration::from_secs(300));
    let log = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        want,
        "{}\nscheduler: {}\nexecutor: {}",
        String::from_utf8_lossy(&out.stderr),
        log("scheduler.log"),
        log("executor-1.log")
    );
    drop(group);
}
