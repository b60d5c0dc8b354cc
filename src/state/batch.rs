//! [`StateReader::visit_parallel`]: one state's instances decoded on several threads. The
//! reader walks the state on the calling thread and only delimits each resource (`split.rs`:
//! brackets counted, nothing checked), handing on the read buffer that holds them as a batch
//! (the read size, 1 MiB by default); a resource too large for that is read by the walk,
//! which delimits its instances' attributes and copies the instances into batches instead.
//! Each batch is split into one run per worker (by bytes for resources, by count for
//! instances: `batch/in_order.rs`, which also hands the results on in file order); `jobs - 1`
//! workers on the reader's pool (`pool.rs`: threads started for the read by default) read and
//! decode the runs (one arena per worker) while the walk fills the
//! next batch, and the calling thread, once it has read two batches ahead, takes queued runs
//! too (as many busy threads as jobs: `--jobs 2` over `--jobs 1` measured 1.87× against 1.58×
//! with a third thread); the accumulators are handed to the caller's sink in file order.
//! Memory: the batch being filled, those with the workers and their results, not the file.

use std::cell::RefCell;
use std::io::Read;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use bumpalo::Bump;

use super::envelope::Raw;
use super::pool::{run_once, Handouts};
use super::split::{Counts, Delimited, RawResource, ResourceReader};
use super::values::attributes_fault;
use super::{Attributes, Instance, InstanceRef, Outcome, Resource, SchemaSet, StateError};
use super::{StateReader, Summary};
use crate::program::DecodeOptions;

mod in_order;

use in_order::{Done, InOrder, Job};

/// A batch of instances is handed to the workers once its attribute bytes reach the reader's
/// read size ([`ReaderOptions::read_size`](super::ReaderOptions::read_size), as a batch of
/// resources is a read buffer), or it holds this many instances.
const BATCH_INSTANCES: usize = 16_384;

/// Resources, or instances, copied out of the reader's buffer (one kind per batch).
#[derive(Default)]
struct Batch {
    /// Resources the walk delimited: their bytes (`buffer[range]`), their offset in the
    /// file and their index in `resources`.
    units: Vec<(Range<usize>, u64, u64)>,
    /// The reader's buffer that held `units` (kept whole when the batch is recycled: it
    /// becomes the reader's buffer again without being zero-filled).
    buffer: Vec<u8>,
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

/// A run's accumulator, the error that ended it early if one did, and the instances of the
/// resources it read (the walk counts those it hands out itself).
type RunResult<A> = (A, Option<StateError>, Counts);

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

    /// Takes the reader's buffer with the resources `delimited` in it (this batch empty),
    /// giving the reader this batch's buffer instead.
    fn take_resources(&mut self, delimited: Delimited<'_>) {
        let base = delimited.base;
        self.units
            .extend((delimited.resources.iter()).map(|(range, index)| {
                (
                    range.clone(),
                    base.saturating_add(range.start as u64),
                    *index,
                )
            }));
        let spare = std::mem::take(&mut self.buffer);
        self.buffer = delimited.take(spare);
    }

    /// The number of runs' elements: resources, or instances.
    fn len(&self) -> usize {
        self.units.len().max(self.items.len())
    }

    /// Emptied for the next batch, its buffers kept.
    fn clear(&mut self) {
        self.units.clear();
        self.resources.clear();
        self.items.clear();
        self.bytes.clear();
    }

    fn full(&self, bytes: usize) -> bool {
        self.bytes.len() >= bytes || self.items.len() >= BATCH_INSTANCES
    }

    /// Folds `items` (a run of this batch) into one accumulator, with the worker's arena
    /// (reset after each instance). Attributes the walk only delimited are checked here: the
    /// first that is not JSON ends the run, with the error the walk would have given.
    fn fold<A, I, F>(
        &self,
        ctx: &Context<'_, I, F>,
        items: Range<usize>,
        worker: &mut Worker,
    ) -> RunResult<A>
    where
        I: Fn() -> A,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>),
    {
        if !self.units.is_empty() {
            return self.fold_resources(ctx, items, worker);
        }
        let bump = &mut worker.bump;
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
                // (Bytes that are not UTF-8 fail the checking skip.)
                Err(_) => match unchecked.and_then(|u| u.fault(bytes, bump)) {
                    Some(fault) => return (acc, Some(fault), Counts::default()),
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
            // A decode that succeeded (or a straight DUMP) read the whole object as JSON; any
            // other outcome may have stopped before a fault.
            let read_whole = matches!(outcome, Outcome::Ok(..) | Outcome::Dumped(..));
            if let (Some(u), false) = (unchecked, read_whole) {
                if let Some(fault) = u.fault(bytes, bump) {
                    drop(outcome);
                    return (acc, Some(fault), Counts::default());
                }
            }
            (ctx.fold)(&mut acc, item, &outcome);
            drop(outcome);
            bump.reset();
        }
        (acc, None, Counts::default())
    }

    /// Reads and folds the resources `units` of this batch (`split.rs`); the first that is
    /// malformed ends the run, after its instances before the fault.
    fn fold_resources<A, I, F>(
        &self,
        ctx: &Context<'_, I, F>,
        units: Range<usize>,
        worker: &mut Worker,
    ) -> RunResult<A>
    where
        I: Fn() -> A,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>),
    {
        let mut acc = (ctx.init)();
        let before = worker.reader.counts();
        let mut fault = None;
        for (range, offset, index) in self.units.get(units).unwrap_or_default() {
            let raw = RawResource {
                bytes: self.buffer.get(range.clone()).unwrap_or_default(),
                offset: *offset,
                index: *index,
            };
            let mut f = |item: InstanceRef<'_, '_>, outcome: &Outcome<'_>, _: Option<Raw<'_>>| {
                (ctx.fold)(&mut acc, item, outcome)
            };
            let read = worker
                .reader
                .read(&raw, ctx.set, ctx.options, &mut worker.bump, &mut f);
            if let Err(e) = read {
                fault = Some(e);
                break;
            }
        }
        let after = worker.reader.counts();
        let counts = Counts {
            instances: after.instances.wrapping_sub(before.instances),
            skipped: after.skipped.wrapping_sub(before.skipped),
        };
        (acc, fault, counts)
    }
}

/// What a worker keeps from one run to the next: its arena (reset after each instance) and
/// its reader of resources.
struct Worker {
    bump: Bump,
    reader: ResourceReader,
}

impl Unchecked {
    /// The error of these attributes (`bytes`) when they are not one JSON value: the walk's
    /// (`Unit::json_error`), at the same place, as the checking skip finds it.
    fn fault(&self, bytes: &[u8], scratch: &Bump) -> Option<StateError> {
        attributes_fault(bytes, self.offset, self.resource, self.instance, scratch)
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
    /// in batches of about the read size ([`ReaderOptions::read_size`](super::ReaderOptions));
    /// each worker folds its contiguous run of a batch into an accumulator made by `init`
    /// (`fold` gets each instance and its outcome, as [`StateReader::visit`]'s callback
    /// would), and `sink` gets the accumulators in file order on the calling thread. The
    /// instances before a [`StateError`] are handed out before it is returned, as
    /// [`StateReader::visit`] hands them out. With `jobs` 1 everything runs on the calling
    /// thread, in one accumulator per instance.
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
        sink: S,
    ) -> Result<Summary, StateError>
    where
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        S: FnMut(A),
    {
        self.visit_parallel_map(set, options, jobs, init, fold, |acc| acc, sink)
    }

    /// [`StateReader::visit_parallel`] with one more step on the workers: each run's
    /// accumulator goes through `map` on the thread that folded it, and `sink` gets what
    /// `map` made (for work that should not wait for the calling thread, such as turning
    /// rows into columns). With `jobs` 1, `map` runs after each instance's fold.
    ///
    /// ```
    /// use tfwire::state::{SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let state = br#"{"version":4,"resources":[{"mode":"managed","type":"t","name":"x",
    ///   "provider":"provider[\"registry.terraform.io/hashicorp/t\"]",
    ///   "instances":[{"attributes":{}},{"attributes":{}}]}]}"#;
    /// let mut lines = Vec::new();
    /// StateReader::new(&state[..]).visit_parallel_map(
    ///     &SchemaSet::new(), &DecodeOptions::default(), 2,
    ///     Vec::new,
    ///     |names: &mut Vec<String>, item, _| names.push(item.address()),
    ///     |names| names.join("\n"),
    ///     |text| lines.push(text),
    /// )?;
    /// assert_eq!(lines.concat(), "t.x\nt.x");
    /// # Ok::<(), tfwire::state::StateError>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn visit_parallel_map<A, B, I, F, M, S>(
        self,
        set: &SchemaSet,
        options: &DecodeOptions,
        jobs: usize,
        init: I,
        fold: F,
        map: M,
        mut sink: S,
    ) -> Result<Summary, StateError>
    where
        B: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        M: Fn(A) -> B + Sync,
        S: FnMut(B),
    {
        if jobs <= 1 {
            return self.visit(set, options, |item, outcome| {
                let mut acc = init();
                fold(&mut acc, item, outcome);
                sink(map(acc));
            });
        }
        let batch_bytes = self.options.read_size;
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
        // `jobs - 1` workers: the calling thread, when it has read ahead enough, runs
        // queued runs too (no more threads than jobs on the cores).
        let spawned = jobs.saturating_sub(1).max(1);
        let senders = Handouts::new((done_tx, recycle_tx.clone()), spawned);
        let (runs, ctx, map) = (&runs, &ctx, &map);
        let worker = || {
            let Some((done_tx, recycle_tx)) = senders.take() else {
                return;
            };
            let mut worker = Worker {
                bump: Bump::new(),
                reader: ResourceReader::new(),
            };
            loop {
                let job = match runs.lock() {
                    Ok(runs) => runs.recv(),
                    Err(_) => return,
                };
                let Ok((seq, batch, items)) = job else {
                    return;
                };
                let acc = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    let (acc, fault, counts) = batch.fold(ctx, items, &mut worker);
                    (map(acc), fault, counts)
                }));
                // The last run of a batch hands it back.
                if let Ok(batch) = Arc::try_unwrap(batch) {
                    let _ = recycle_tx.send(batch);
                }
                if done_tx.send((seq, acc)).is_err() {
                    return;
                }
            }
        };
        let pool = self.options.pool.clone();
        // (`self` and the queue's sender are the caller's: should `sink` panic, the queue
        // closes as it unwinds and the workers end.)
        let caller = || {
            let mut own = Worker {
                bump: Bump::new(),
                reader: ResourceReader::new(),
            };
            let mut help = || -> Option<Done<B>> {
                // (A worker waiting for work holds the lock: then there is none to take.)
                let (seq, batch, items) = runs.try_lock().ok()?.try_recv().ok()?;
                let (acc, fault, counts) = batch.fold(ctx, items, &mut own);
                let acc = (map(acc), fault, counts);
                if let Ok(batch) = Arc::try_unwrap(batch) {
                    let _ = recycle_tx.send(batch);
                }
                Some((seq, Ok(acc)))
            };
            let order = InOrder::new();
            // Two batches' runs per worker queued, so that no worker waits for the walk.
            let in_flight = (jobs as u64).saturating_mul(2);
            // The walk hands out instances (`f`) and resources (`split`), both into the
            // batch being filled.
            let feed = RefCell::new((Batch::default(), order, &mut sink, &mut help));
            // The batch is handed to the workers when it is full, or before it would mix
            // resources and instances.
            type Help<'h, B> = dyn FnMut() -> Option<Done<B>> + 'h;
            let hand_on = |batch: &mut Batch,
                           order: &mut InOrder<B>,
                           (sink, help): (&mut S, &mut Help<'_, B>),
                           full: bool| {
                if !full {
                    return;
                }
                let mut next = recycled.try_recv().unwrap_or_default();
                next.clear();
                order.send(std::mem::replace(batch, next), jobs, &work);
                order.receive(&done, in_flight, sink, help);
            };
            // A buffer of resources is a batch of its own.
            let mut split = |delimited: Delimited<'_>| {
                let (batch, order, sink, help) = &mut *feed.borrow_mut();
                if order.fault.is_some() {
                    // (The output has ended; the walk reads on to the end.)
                    return delimited.leave();
                }
                let empty = batch.len() == 0;
                hand_on(batch, order, (sink, *help), !empty);
                batch.take_resources(delimited);
                hand_on(batch, order, (sink, *help), true);
            };
            let result = self.walk(
                set,
                options,
                false,
                |item, _, raw| {
                    let (batch, order, sink, help) = &mut *feed.borrow_mut();
                    if order.fault.is_some() {
                        return;
                    }
                    let resources = !batch.units.is_empty();
                    hand_on(batch, order, (sink, *help), resources);
                    batch.push(item, raw);
                    let full = batch.full(batch_bytes);
                    hand_on(batch, order, (sink, *help), full);
                },
                Some(&mut split),
            );
            let (batch, mut order, sink, help) = feed.into_inner();
            if order.fault.is_none() {
                order.send(batch, jobs, &work);
            }
            drop(work);
            order.receive(&done, 0, sink, help);
            // A worker's fault comes before anything the walk met after it.
            match order.fault {
                Some(fault) => Err(fault),
                None => result.map(|mut summary| {
                    summary.instances = summary.instances.saturating_add(order.counts.instances);
                    summary.skipped = summary.skipped.saturating_add(order.counts.skipped);
                    summary
                }),
            }
        };
        run_once(pool.get(), spawned, &worker, caller)
    }
}
