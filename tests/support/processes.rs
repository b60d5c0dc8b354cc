//! Processes a test starts, bounded: a command's output within a time limit, and a process
//! group killed whole when its handle drops (also when the test fails).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// `cmd`'s output, or a panic when it has not ended within `limit` (then it is killed).
pub fn output_within(cmd: &mut Command, limit: Duration) -> std::process::Output {
    let child = (cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()).unwrap();
    wait_within(child, limit)
}

/// The output of `child` (its standard output and error piped), or a panic when it has not
/// ended within `limit` (then it is killed).
pub fn wait_within(mut child: Child, limit: Duration) -> std::process::Output {
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a command did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// A process group started by [`ProcessGroup::spawn`], killed whole when dropped (the
/// processes a shell started in the background among them).
pub struct ProcessGroup(u32);

impl ProcessGroup {
    /// Starts `cmd` as the leader of a new process group.
    pub fn spawn(cmd: &mut Command) -> (ProcessGroup, Child) {
        use std::os::unix::process::CommandExt;
        let child = cmd.process_group(0).spawn().unwrap();
        (ProcessGroup(child.id()), child)
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0)])
            .stderr(Stdio::null())
            .status();
    }
}
