//! [`Totals`]: what `tfwire state`'s instances gave — the counts of the summary line it
//! prints on stderr, over a file, a run of instances or the whole command — and how the
//! command ends.

use std::time::Duration;

use tfwire::state::{InstanceRef, Outcome};

use super::Failure;

/// What the instances gave (the summary line), over a file, a run or the whole command.
#[derive(Default)]
pub(super) struct Totals {
    instances: u64,
    ok: u64,
    errors: u64,
    no_schema: u64,
    /// Instances of types `--type` leaves out.
    pub(super) skipped: u64,
    bytes: u64,
    pub(super) time: Duration,
}

impl Totals {
    pub(super) fn add(&mut self, t: &Totals) {
        self.instances += t.instances;
        self.ok += t.ok;
        self.errors += t.errors;
        self.no_schema += t.no_schema;
        self.skipped += t.skipped;
        self.bytes += t.bytes;
        self.time += t.time;
    }

    pub(super) fn count(&mut self, item: &InstanceRef<'_, '_>, outcome: &Outcome<'_>) {
        self.instances += 1;
        match outcome {
            Outcome::Ok(..) | Outcome::Dumped(..) => self.ok += 1,
            Outcome::Error(..) => self.errors += 1,
            Outcome::NoSchema | Outcome::Legacy => self.no_schema += 1,
        }
        if matches!(
            outcome,
            Outcome::Ok(..) | Outcome::Dumped(..) | Outcome::Error(..)
        ) {
            self.bytes += item.instance.attributes.json().map_or(0, str::len) as u64;
        }
    }

    /// Prints the summary line (`skipped=N` with `--type`) and says how the command ends:
    /// with `bad_files` unread files or a failed instance, bad input.
    pub(super) fn report(&self, types: bool, bad_files: usize) -> Result<(), Failure> {
        let skipped = match types {
            false => String::new(),
            true => format!(" skipped={}", self.skipped),
        };
        eprintln!(
            "tfwire: instances={} ok={} errors={} no_schema={}{skipped} bytes={} seconds={:.3}",
            self.instances,
            self.ok,
            self.errors,
            self.no_schema,
            self.bytes,
            self.time.as_secs_f64()
        );
        let failed_instances = (self.errors > 0).then(|| {
            format!(
                "{} of {} instances failed to decode",
                self.errors, self.instances
            )
        });
        if bad_files > 0 {
            if let Some(msg) = failed_instances {
                eprintln!("tfwire: {msg}");
            }
            let s = if bad_files == 1 { "" } else { "s" };
            return Err(Failure::BadInput(format!(
                "{bad_files} state file{s} could not be read"
            )));
        }
        match failed_instances {
            Some(msg) => Err(Failure::BadInput(msg)),
            None => Ok(()),
        }
    }
}
