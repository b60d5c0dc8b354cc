//! A Ballista cluster on 127.0.0.1 for the tests: `tfwire cluster scheduler` and two
//! `tfwire cluster executor`s, separate processes on ephemeral ports with their own work
//! directories. The tests running at one time share one ([`cluster`]); when the last of them
//! lets go of it (ending or failing: the handle is dropped as the test unwinds), every
//! process is killed and waited for, and the work directories are removed.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, Weak};
use std::time::Duration;

/// How long a process may take to say where it listens.
const START: Duration = Duration::from_secs(60);

/// A running cluster: its scheduler's URL (`df://127.0.0.1:PORT`).
pub struct Cluster {
    pub url: String,
    children: Vec<Child>,
    /// The executors' directories, removed as the cluster drops (after its processes stop).
    dirs: Vec<super::common::Scratch>,
}

/// The cluster the tests running now share, started when none runs.
pub fn cluster() -> Arc<Cluster> {
    static SHARED: Mutex<Weak<Cluster>> = Mutex::new(Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = shared.upgrade() {
        return c;
    }
    let c = Arc::new(Cluster::start());
    *shared = Arc::downgrade(&c);
    c
}

impl Cluster {
    fn start() -> Cluster {
        let mut cluster = Cluster {
            url: String::new(),
            children: Vec::new(),
            dirs: Vec::new(),
        };
        // (Should a start fail, the processes started so far are stopped as `cluster` drops.)
        let addr = cluster.spawn(
            &["cluster", "scheduler", "--bind", "127.0.0.1:0"],
            "tfwire: scheduler listening on ",
        );
        cluster.url = format!("df://{addr}");
        for n in 1..=2 {
            // (Each a fresh directory: one starting as another is being stopped keeps its own.)
            let scratch = super::common::scratch_dir(&format!("cluster-executor-{n}"));
            let dir = scratch.display().to_string();
            cluster.dirs.push(scratch);
            let args = [
                "cluster",
                "executor",
                "--scheduler",
                &addr,
                "--bind",
                "127.0.0.1:0",
                "--work-dir",
                &dir,
                "--slots",
                "2",
            ];
            cluster.spawn(&args, "tfwire: executor listening on ");
        }
        cluster
    }

    /// Starts `tfwire ARGS`, and returns the address after `prefix` in the line of its
    /// standard error that starts with it. The rest of its standard error is passed on to
    /// the test's.
    fn spawn(&mut self, args: &[&str], prefix: &str) -> String {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tfwire"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        self.children.push(child);
        let (tx, rx) = mpsc::channel();
        let prefix = prefix.to_string();
        let name = args[1].to_string();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                match line.strip_prefix(&prefix) {
                    Some(rest) if tx.is_some() => {
                        let addr = rest.split_whitespace().next().unwrap_or("").to_string();
                        tx.take().map(|tx| tx.send(addr));
                    }
                    _ => eprintln!("[{name}] {line}"),
                }
            }
        });
        rx.recv_timeout(START)
            .unwrap_or_else(|e| panic!("tfwire {args:?} did not say where it listens: {e}"))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
