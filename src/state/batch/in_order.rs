//! The runs of a batch sent to the workers ([`Job`]), and their results ([`Done`]) handed to
//! the sink in file order ([`InOrder`]) whatever order the workers finish in.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::thread;

use super::{Batch, RunResult};
use crate::state::split::Counts;
use crate::state::StateError;

/// A run of a batch for a worker: its sequence number (file order), the batch, the run.
pub(super) type Job = (u64, Arc<Batch>, Range<usize>);

/// A run's sequence number and its result (or the panic that ended it).
pub(super) type Done<A> = (u64, thread::Result<RunResult<A>>);

/// The results of the runs sent to the workers, handed to the sink in sequence order.
pub(super) struct InOrder<A> {
    /// Runs sent, and the next one the sink is owed.
    sent: u64,
    next: u64,
    early: BTreeMap<u64, RunResult<A>>,
    /// The first run that met malformed attributes ends the output: its error.
    pub(super) fault: Option<StateError>,
    /// The instances of the resources the workers read, of the runs handed out.
    pub(super) counts: Counts,
}

/// `batch` cut into at most `jobs` runs: resources by their bytes (one large resource is as
/// much work as many small ones), instances by their count.
fn runs(batch: &Batch, jobs: usize) -> Vec<Range<usize>> {
    let n = batch.len();
    if batch.units.is_empty() {
        let per = n.div_ceil(jobs).max(1);
        return (0..n)
            .step_by(per)
            .map(|start| start..start.saturating_add(per).min(n))
            .collect();
    }
    let bytes: usize = batch.units.iter().map(|(range, _, _)| range.len()).sum();
    let per = bytes.div_ceil(jobs).max(1);
    let mut runs = Vec::with_capacity(jobs);
    let (mut start, mut bytes) = (0, 0usize);
    for (k, (range, _, _)) in batch.units.iter().enumerate() {
        bytes = bytes.saturating_add(range.len());
        if bytes >= per {
            runs.push(start..k.saturating_add(1));
            (start, bytes) = (k.saturating_add(1), 0);
        }
    }
    if start < n {
        runs.push(start..n);
    }
    runs
}

impl<A> InOrder<A> {
    /// Nothing sent yet.
    pub(super) fn new() -> InOrder<A> {
        InOrder {
            sent: 0,
            next: 0,
            early: BTreeMap::new(),
            fault: None,
            counts: Counts::default(),
        }
    }

    /// Splits `batch` into one run per worker and sends them.
    pub(super) fn send(&mut self, batch: Batch, jobs: usize, work: &Sender<Job>) {
        let n = batch.len();
        if n == 0 {
            return;
        }
        let runs = runs(&batch, jobs.max(1));
        let batch = Arc::new(batch);
        for run in runs {
            let job = (self.sent, Arc::clone(&batch), run);
            self.sent = self.sent.saturating_add(1);
            // (The workers outlive the walk: a send fails only if they all panicked, and
            // then `receive` passes the panic on.)
            let _ = work.send(job);
        }
    }

    /// Receives results until at most `in_flight` runs are outstanding (all of them with
    /// 0), handing those in order to `sink`.
    /// While it waits, the calling thread runs queued runs itself (`help`, when a run is
    /// there to take).
    pub(super) fn receive<S: FnMut(A)>(
        &mut self,
        done: &Receiver<Done<A>>,
        in_flight: u64,
        sink: &mut S,
        help: &mut dyn FnMut() -> Option<Done<A>>,
    ) {
        while self.sent.saturating_sub(self.next) > in_flight {
            let next = match done.try_recv() {
                Ok(next) => Some(next),
                Err(_) => help(),
            };
            let Some((seq, result)) = next.or_else(|| done.recv().ok()) else {
                return;
            };
            match result {
                Ok(acc) => {
                    self.early.insert(seq, acc);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
            while let Some((acc, fault, counts)) = self.early.remove(&self.next) {
                self.next = self.next.saturating_add(1);
                // After a fault, nothing more is handed out.
                if self.fault.is_none() {
                    sink(acc);
                    self.fault = fault;
                    self.counts.instances = self.counts.instances.saturating_add(counts.instances);
                    self.counts.skipped = self.counts.skipped.saturating_add(counts.skipped);
                }
            }
        }
    }
}
