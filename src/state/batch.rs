//! [`StateReader::visit_parallel`]: one state's instances decoded on several threads. The
//! reader walks the state on the calling thread, checking each instance's attributes
//! without decoding them, and copies instances into batches of a few MiB; each batch is
//! split into one run per worker, `jobs` scoped threads fold the runs (one arena per run)
//! while the walk fills the next batch, and the accumulators are handed to the caller's
//! sink in file order. Memory: the batch being filled, one with the workers and their
//! results, not the file.

use std::collections::BTreeMap;
use std::io::Read;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

use bumpalo::Bump;

use super::envelope::Raw;
use super::values::Ctx;
use super::{Attributes, Instance, InstanceRef, Outcome, Resource, SchemaSet, StateError};
use super::{StateReader, Summary};
use crate::decode::json::tokens;
use crate::program::DecodeOptions;

/// A batch is handed to the workers once its attribute bytes reach this size…
const BATCH_BYTES: usize = 1 << 20;
/// …or it holds this many instances.
const BATCH_INSTANCES: usize = 16_384;

/// Instances copied out of the reader's buffer.
#[derive(Default)]
struct Batch {
    resources: Vec<Resource<'static>>,
    /// Each instance: its resource (an index in `resources`), the instance (attributes
    /// `Absent` when they are JSON, which is then `bytes[range]`), and for attributes the
    /// walk only delimited, where they are in the file (for the error when a worker finds
    /// them malformed).
    items: Vec<Item>,
    bytes: Vec<u8>,
}

/// An instance of a batch: its resource's index, the instance, the range of its attributes
/// in `bytes`, and whether the walk only delimited them.
type Item = (
    usize,
    Instance<'static>,
    Option<Range<usize>>,
    Option<Unchecked>,
);

/// A run's accumulator and the error that ended it early, if one did.
type RunResult<A> = (A, Option<StateError>);

/// Attributes the walk delimited without checking them: their offset in the file and the
/// indexes of their resource and instance.
#[derive(Clone, Copy)]
struct Unchecked {
    offset: u64,
    resource: u64,
    instance: u64,
}

impl Batch {
    fn push(&mut self, item: InstanceRef<'_, '_>, raw: Option<Raw<'_>>) {
        let r = item.resource;
        let same = self.resources.last().is_some_and(|last| {
            last.name == r.name
                && last.type_name == r.type_name
                && last.mode == r.mode
                && last.module == r.module
                && last.provider == r.provider
        });
        if !same {
            self.resources.push(Resource {
                instances: Vec::new(),
                module: r.module.clone(),
                mode: r.mode,
                type_name: r.type_name.clone(),
                name: r.name.clone(),
                provider: r.provider.clone(),
                provider_address: r.provider_address.clone(),
            });
        }
        let i = item.instance;
        let start = self.bytes.len();
        let (attributes, range, unchecked) = match (i.attributes, raw) {
            (_, Some(raw)) => {
                self.bytes.extend_from_slice(raw.bytes);
                let unchecked = Unchecked {
                    offset: raw.offset,
                    resource: raw.resource,
                    instance: raw.instance,
                };
                (
                    Attributes::Absent,
                    Some(start..self.bytes.len()),
                    Some(unchecked),
                )
            }
            (Attributes::Json(text), None) => {
                self.bytes.extend_from_slice(text.as_bytes());
                (Attributes::Absent, Some(start..self.bytes.len()), None)
            }
            (Attributes::Flat, None) => (Attributes::Flat, None, None),
            (Attributes::Absent, None) => (Attributes::Absent, None, None),
        };
        let instance = Instance {
            index_key: i.index_key.clone(),
            deposed: i.deposed.clone(),
            schema_version: i.schema_version,
            attributes,
        };
        let resource = self.resources.len().saturating_sub(1);
        self.items.push((resource, instance, range, unchecked));
    }

    /// Emptied for the next batch, its buffers kept.
    fn clear(&mut self) {
        self.resources.clear();
        self.items.clear();
        self.bytes.clear();
    }

    fn full(&self) -> bool {
        self.bytes.len() >= BATCH_BYTES || self.items.len() >= BATCH_INSTANCES
    }

    /// Folds `items` (a run of this batch) into one accumulator, with the worker's arena
    /// (reset after each instance). Attributes the walk only delimited are checked here: the
    /// first that is not JSON ends the run, with the error the walk would have given.
    fn fold<A, I, F>(
        &self,
        ctx: &Context<'_, I, F>,
        items: Range<usize>,
        bump: &mut Bump,
    ) -> RunResult<A>
    where
        I: Fn() -> A,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>),
    {
        let mut acc = (ctx.init)();
        for (resource, instance, range, unchecked) in self.items.get(items).unwrap_or_default() {
            let Some(resource) = self.resources.get(*resource) else {
                continue;
            };
            let mut instance = instance.clone();
            let bytes = range
                .as_ref()
                .and_then(|r| self.bytes.get(r.clone()))
                .unwrap_or_default();
            let text = match simdutf8::basic::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => match unchecked {
                    Some(u) => return (acc, Some(malformed(bytes, u))),
                    None => "",
                },
            };
            if range.is_some() {
                instance.attributes = Attributes::Json(text);
            }
            let item = InstanceRef {
                resource,
                instance: &instance,
            };
            let outcome = ctx.set.decode(item, bump, ctx.options);
            // A decode that succeeded read the whole object as JSON; any other outcome may
            // have stopped before a fault.
            if let (Some(u), false) = (unchecked, matches!(outcome, Outcome::Ok(..))) {
                if !is_json(bytes, bump) {
                    drop(outcome);
                    return (acc, Some(malformed(bytes, u)));
                }
            }
            (ctx.fold)(&mut acc, item, &outcome);
            drop(outcome);
            bump.reset();
        }
        (acc, None)
    }
}

/// Whether `bytes` are exactly one JSON value (the checking skip, as the walk runs it).
fn is_json(bytes: &[u8], scratch: &Bump) -> bool {
    tokens::skip(bytes, 0, scratch).is_ok_and(|end| end == bytes.len())
}

/// The error of delimited attributes that are not JSON: the walk's (`Unit::json_error`), at
/// the same place, as the checking skip finds it over the same bytes.
#[cold]
fn malformed(bytes: &[u8], at: &Unchecked) -> StateError {
    let scratch = Bump::new();
    let (byte, message) = match tokens::skip(bytes, 0, &scratch) {
        Err(e) => (e.byte(), e.message().to_string()),
        // (Not reached: a value `is_json` refused, or whose UTF-8 failed, fails the skip.)
        Ok(end) => (end, "not one JSON value".to_string()),
    };
    StateError::at(
        Ctx::Attributes(at.resource, at.instance),
        Some(at.offset.saturating_add(byte as u64)),
        format_args!("invalid JSON: {message}"),
    )
}

/// A run of a batch for a worker: its sequence number (file order), the batch, the run.
type Job = (u64, Arc<Batch>, Range<usize>);

/// The results of the runs sent to the workers, handed to the sink in sequence order.
struct InOrder<A> {
    /// Runs sent, and the next one the sink is owed.
    sent: u64,
    next: u64,
    early: BTreeMap<u64, RunResult<A>>,
    /// The first run that met malformed attributes ends the output: its error.
    fault: Option<StateError>,
}

impl<A> InOrder<A> {
    /// Splits `batch` into one run per worker and sends them.
    fn send(&mut self, batch: Batch, jobs: usize, work: &Sender<Job>) {
        let n = batch.items.len();
        if n == 0 {
            return;
        }
        let per = n.div_ceil(jobs.max(1)).max(1);
        let batch = Arc::new(batch);
        for start in (0..n).step_by(per) {
            let job = (
                self.sent,
                Arc::clone(&batch),
                start..start.saturating_add(per).min(n),
            );
            self.sent = self.sent.saturating_add(1);
            // (The workers outlive the walk: a send fails only if they all panicked, and
            // then `receive` passes the panic on.)
            let _ = work.send(job);
        }
    }

    /// Receives results until at most `in_flight` runs are outstanding (all of them with
    /// 0), handing those in order to `sink`.
    fn receive<S: FnMut(A)>(
        &mut self,
        done: &Receiver<(u64, thread::Result<RunResult<A>>)>,
        in_flight: u64,
        sink: &mut S,
    ) {
        while self.sent.saturating_sub(self.next) > in_flight {
            let Ok((seq, result)) = done.recv() else {
                return;
            };
            match result {
                Ok(acc) => {
                    self.early.insert(seq, acc);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
            while let Some((acc, fault)) = self.early.remove(&self.next) {
                self.next = self.next.saturating_add(1);
                // After a fault, nothing more is handed out.
                if self.fault.is_none() {
                    sink(acc);
                    self.fault = fault;
                }
            }
        }
    }
}

/// What every batch's workers share.
struct Context<'c, I, F> {
    set: &'c SchemaSet,
    options: &'c DecodeOptions,
    init: I,
    fold: F,
}

impl<R: Read> StateReader<R> {
    /// Reads the whole state, decoding its instances on `jobs` threads. The instances come
    /// in batches of a few MiB; each worker folds its contiguous run of a batch into an
    /// accumulator made by `init` (`fold` gets each instance and its outcome, as
    /// [`StateReader::visit`]'s callback would), and `sink` gets the accumulators in file
    /// order on the calling thread. The instances before a [`StateError`] are handed out
    /// before it is returned, as [`StateReader::visit`] hands them out. With `jobs` 1
    /// everything runs on the calling thread, in one accumulator per instance.
    ///
    /// ```
    /// use tfwire::state::{Outcome, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let mut set = SchemaSet::new();
    /// set.add_json(r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/null":
    ///   {"resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{"id":{"type":"string"}}}}}}}}"#).unwrap();
    /// let instances: Vec<String> = (0..100).map(|i| format!(r#"{{"index_key":{i},"attributes":{{"id":"{i}"}}}}"#)).collect();
    /// let state = format!(r#"{{"version":4,"resources":[{{"mode":"managed","type":"null_resource","name":"x",
    ///   "provider":"provider[\"registry.terraform.io/hashicorp/null\"]","instances":[{}]}}]}}"#, instances.join(","));
    /// let mut ids = Vec::new();
    /// let summary = StateReader::new(state.as_bytes())
    ///     .visit_parallel(&set, &DecodeOptions::default(), 2, Vec::new, |ids: &mut Vec<String>, _, outcome| {
    ///         if let Outcome::Ok(v, m) = outcome {
    ///             ids.push(m.program.typed(*v).attr("id").unwrap().value.as_str().unwrap().to_string());
    ///         }
    ///     }, |some| ids.extend(some))
    ///     .unwrap();
    /// assert_eq!(summary.instances, 100);
    /// assert_eq!(ids, (0..100).map(|i| i.to_string()).collect::<Vec<_>>());
    /// ```
    pub fn visit_parallel<A, I, F, S>(
        self,
        set: &SchemaSet,
        options: &DecodeOptions,
        jobs: usize,
        init: I,
        fold: F,
        mut sink: S,
    ) -> Result<Summary, StateError>
    where
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        S: FnMut(A),
    {
        if jobs <= 1 {
            return self.visit(set, options, |item, outcome| {
                let mut acc = init();
                fold(&mut acc, item, outcome);
                sink(acc);
            });
        }
        let ctx = Context {
            set,
            options,
            init,
            fold,
        };
        // The walk (this thread) fills batches while `jobs` workers fold the runs of the
        // batches before; one batch is with the workers while the walk fills the next.
        let (work, runs) = mpsc::channel::<Job>();
        let runs = Mutex::new(runs);
        let (done_tx, done) = mpsc::channel();
        // Batches the workers are done with come back to be filled again (their buffers
        // kept: no fresh pages per batch).
        let (recycle_tx, recycled) = mpsc::channel::<Batch>();
        thread::scope(|scope| {
            let mut workers = Vec::with_capacity(jobs);
            for _ in 0..jobs {
                let (runs, done_tx, ctx) = (&runs, done_tx.clone(), &ctx);
                let recycle_tx = recycle_tx.clone();
                workers.push(scope.spawn(move || {
                    // One arena per worker, reset after each instance.
                    let mut bump = Bump::new();
                    loop {
                        let job = match runs.lock() {
                            Ok(runs) => runs.recv(),
                            Err(_) => return,
                        };
                        let Ok((seq, batch, items)) = job else {
                            return;
                        };
                        let acc = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            batch.fold(ctx, items, &mut bump)
                        }));
                        // The last run of a batch hands it back.
                        if let Ok(batch) = Arc::try_unwrap(batch) {
                            let _ = recycle_tx.send(batch);
                        }
                        if done_tx.send((seq, acc)).is_err() {
                            return;
                        }
                    }
                }));
            }
            drop(recycle_tx);
            drop(done_tx);
            let mut order = InOrder {
                sent: 0,
                next: 0,
                early: BTreeMap::new(),
                fault: None,
            };
            let in_flight = jobs as u64;
            let mut batch = Batch::default();
            let result = self.walk(set, options, false, |item, _, raw| {
                if order.fault.is_some() {
                    return; // (the output has ended; the walk reads on to the end)
                }
                batch.push(item, raw);
                if batch.full() {
                    let mut next = recycled.try_recv().unwrap_or_default();
                    next.clear();
                    order.send(std::mem::replace(&mut batch, next), jobs, &work);
                    order.receive(&done, in_flight, &mut sink);
                }
            });
            if order.fault.is_none() {
                order.send(batch, jobs, &work);
            }
            drop(work);
            order.receive(&done, 0, &mut sink);
            // Joined here, not only at the scope's end: a join waits for the threads to
            // exit, their thread-locals (the channels' wait contexts) freed.
            for worker in workers {
                // (A worker's panic came through its run's result.)
                let _ = worker.join();
            }
            // A worker's fault comes before anything the walk met after it.
            match order.fault {
                Some(fault) => Err(fault),
                None => result,
            }
        })
    }
}
