//! [`StateReader::visit_file_parallel`]: one state file read in parts of its bytes on the
//! reader's pool (`pool.rs`), with no thread walking the whole file first;
//! [`StateReader::visit_memory_parallel`]: the same of a state in memory, each part read in
//! place (where the parts come from, and where a part's first resource is: `part_source.rs`).
//!
//! A part is a range of the file's bytes. The first part is walked from the file's start.
//! Any other part starts where its bytes first look like the start of a resource: a `{`,
//! then the key `"mode"` with the value `"managed"` or `"data"`, or the key `"module"` with a
//! string (Terraform and OpenTofu write one of them first). In a JSON text `{"` is never
//! inside a string (the quote would end it, and `mode"` cannot follow a string), so that
//! place is an object whose first key is `mode` or `module` — an element of `resources`, or
//! an object somewhere inside an attribute. Each
//! part's walk reads resources from its start, as the walk of the whole file reads them,
//! and stops before the first resource that starts in the next part, saying where.
//!
//! The parts' results are handed on in file order, each only once the part before has
//! confirmed it: a part counts when it starts exactly where the part before stopped (the
//! walk of the whole file would have read the same resources from there). Where one does not
//! — its start was inside an attribute, or it found none, or its walk failed (a resource's
//! index in an error counts from the part's start) — the calling thread reads that part
//! again itself, from where the part before stopped, with the resources' indexes known, as
//! [`StateReader::visit`] would read it; a fault there ends the read. So the instances,
//! their order and the error are those of one walk, whatever the file holds.
//! Memory: the parts in flight (twice the jobs) and their results. The calling thread, which
//! hands the results on, reads parts too while the next is not ready, beside `jobs - 1`
//! workers: `jobs` threads read (which part a reader takes: `ranges/window.rs`).
//!
//! A state at least half of whose parts (of eight spread over it) hold no resource start in
//! their first MiB — one resource, or
//! a few, larger than a part, as a `for_each` of many instances makes — is not read in parts:
//! the first part's walk would read nearly all of it alone. It is read as a stream by
//! [`StateReader::visit_parallel_map`] instead, whose walk hands a large resource's instances
//! to the workers (`batch.rs`).

use std::collections::BTreeMap;
use std::fs::File;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, RefUnwindSafe, UnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, TryRecvError};
use std::sync::Arc;
use std::{io, thread};

use super::part_source::{first_resource_in, parts, FileSource, MemorySource, PartSource};
use super::pool::{run_once, Handouts};
use super::reader::{PartEnd, PartStart};
use super::{InstanceRef, Outcome, ReaderOptions, SchemaSet, StateError, StateReader, Summary};
use crate::program::DecodeOptions;
use window::{Stopper, Window};

/// Instances per accumulator when the calling thread reads the rest of a state itself.
const FALLBACK_RUN: usize = 4096;

/// Bytes at the start of each part searched for a resource before a state is read in parts.
const PROBE_BYTES: u64 = 1 << 20;

/// Parts searched for a resource before a state is read in parts: spread over the state.
/// (Searching every part's start up front kept a page or more of each mapped, until the read
/// passed it: the large state's peak RSS with `--jobs 2` rose from 65 to 130 MiB.)
const PROBED_PARTS: usize = 8;

/// Whether at least half of [`PROBED_PARTS`] parts after the first, spread over the state,
/// have no resource start in their first [`PROBE_BYTES`] (`starts_in` tells of a range): a resource
/// larger than a part (a `for_each` of many instances) fills them, their walks would find
/// nothing to start at, and the first part's walk would read the state alone. Such a state
/// is read as a stream ([`StateReader::visit_parallel_map`]), whose walk hands a large
/// resource's instances to the workers. Stops searching once the answer is known. (A state
/// of resources of a few MiB each may be read as a stream too, their starts further apart
/// than the search looks; that reader too decodes on every thread.)
fn resources_span_parts(
    parts: &[Range<u64>],
    mut starts_in: impl FnMut(Range<u64>) -> bool,
) -> bool {
    let rest = parts.get(1..).unwrap_or_default();
    let probed = rest.len().min(PROBED_PARTS);
    let (mut with, mut without) = (0usize, 0usize);
    for k in 0..probed {
        // (k < probed <= rest.len(): the product fits, and the index is below rest.len().)
        let at = k
            .saturating_mul(rest.len())
            .checked_div(probed)
            .unwrap_or(0);
        let Some(part) = rest.get(at) else { break };
        let probe = part.start..part.end.min(part.start.saturating_add(PROBE_BYTES));
        match starts_in(probe) {
            true => with = with.saturating_add(1),
            false => without = without.saturating_add(1),
        }
        if with.saturating_mul(2) > probed {
            return false;
        }
        if without.saturating_mul(2) >= probed {
            return true;
        }
    }
    false
}

/// A part read: where it started (`None`: nothing there looked like a resource), what its
/// instances made, and how its walk ended.
struct PartDone<B> {
    start: Option<u64>,
    made: Option<B>,
    walked: Result<(Summary, PartEnd), StateError>,
}

/// What every part's reader shares.
struct Shared<'s, I, F, M> {
    source: &'s dyn PartSource,
    reader_options: &'s ReaderOptions,
    set: &'s SchemaSet,
    options: &'s DecodeOptions,
    init: I,
    fold: F,
    map: M,
}

impl<I, F, M> Shared<'_, I, F, M> {
    /// Reads part `k` of `parts`.
    fn read_part<A, B>(&self, k: usize, parts: &[Range<u64>]) -> PartDone<B>
    where
        I: Fn() -> A,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>),
        M: Fn(A) -> B,
    {
        let range = parts.get(k).cloned().unwrap_or_default();
        let stop_at = parts.get(k.saturating_add(1)).map(|next| next.start);
        let start = match k {
            0 => Ok(Some(0)),
            _ => self.source.first_resource(range.clone()),
        };
        let start = match start {
            Ok(Some(start)) => start,
            Ok(None) => {
                return PartDone {
                    start: None,
                    made: None,
                    walked: Ok(Default::default()),
                }
            }
            Err(e) => {
                return PartDone {
                    start: Some(range.start),
                    made: None,
                    walked: Err(e),
                }
            }
        };
        let from = match k {
            0 => PartStart::File,
            _ => PartStart::Resource {
                offset: start,
                index: 0,
            },
        };
        let mut acc = (self.init)();
        let walked = self.source.walk(
            from,
            stop_at,
            self.reader_options,
            self.set,
            self.options,
            &mut |item, outcome| (self.fold)(&mut acc, item, outcome),
        );
        PartDone {
            start: Some(start),
            made: Some((self.map)(acc)),
            walked,
        }
    }

    /// Reads the state from `offset` (the `{` of resource `index`, or the file's start)
    /// on the calling thread, up to the first resource at `stop_at` or after (or to the
    /// end), handing on what each run of instances made.
    fn read_here<A, B, S>(
        &self,
        offset: u64,
        index: u64,
        stop_at: Option<u64>,
        sink: &mut S,
    ) -> Result<(Summary, PartEnd), StateError>
    where
        I: Fn() -> A,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>),
        M: Fn(A) -> B,
        S: FnMut(B),
    {
        let from = match offset {
            0 => PartStart::File,
            _ => PartStart::Resource { offset, index },
        };
        let (mut acc, mut n) = ((self.init)(), 0usize);
        let walked = self.source.walk(
            from,
            stop_at,
            self.reader_options,
            self.set,
            self.options,
            &mut |item, outcome| {
                (self.fold)(&mut acc, item, outcome);
                n = n.saturating_add(1);
                if n >= FALLBACK_RUN {
                    sink((self.map)(std::mem::replace(&mut acc, (self.init)())));
                    n = 0;
                }
            },
        );
        // (The instances before a fault are handed out before it.)
        sink((self.map)(acc));
        walked.map(|(mut summary, end)| {
            summary.resources = summary.resources.saturating_sub(index);
            (summary, end)
        })
    }
}

/// The summary of a state read in parts, as they are added up.
#[derive(Default)]
struct Total {
    summary: Summary,
    version_seen: bool,
}

impl Total {
    fn add(&mut self, summary: Summary, end: &PartEnd) {
        let s = &mut self.summary;
        if s.terraform_version.is_none() {
            s.terraform_version = summary.terraform_version;
        }
        s.resources = s.resources.saturating_add(summary.resources);
        s.instances = s.instances.saturating_add(summary.instances);
        s.skipped = s.skipped.saturating_add(summary.skipped);
        s.bytes = s.bytes.max(summary.bytes);
        self.version_seen |= end.version_seen;
    }

    fn finish(self) -> Result<Summary, StateError> {
        if !self.version_seen {
            return Err(StateError::at(
                "",
                Some(self.summary.bytes),
                "not a state file: no \"version\"",
            ));
        }
        Ok(self.summary)
    }
}

impl StateReader<File> {
    /// Reads the state file at `path` as [`StateReader::visit_parallel_map`] reads a state,
    /// with the same instances in the same order and the same error, but in parts of the
    /// file's bytes on `jobs` threads with no thread walking the whole file first. A part's
    /// walk starts where its bytes first look like a resource (a `{` and the key `mode` with
    /// `"managed"` or `"data"`, or `module` with a string) and stops before the first
    /// resource of the next part; a part counts only when the part before stopped exactly
    /// where it started, else the calling thread reads it again from there. Each part's
    /// instances are folded into one accumulator made by `init`, turned by `map` on the
    /// thread that read them, and handed to `sink` in file order on the calling thread. A
    /// file of less than two parts ([`ReaderOptions::part_bytes`]), or `jobs` 1, is read by
    /// [`StateReader::visit_parallel_map`], and so is a file at least half of whose parts
    /// (of eight spread over it) hold no resource start near their beginning (a resource
    /// larger than a part, such as a `for_each` of many instances: that reader hands its
    /// instances to the workers).
    ///
    /// ```
    /// use tfwire::state::{ReaderOptions, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let path = std::env::temp_dir().join(format!("doc-parts-{}.tfstate", std::process::id()));
    /// std::fs::write(&path, r#"{"version":4,"resources":[{"mode":"managed","type":"t","name":"x",
    ///   "provider":"provider.t","instances":[{"attributes":{}},{"attributes":{}}]}]}"#)?;
    /// let mut lines = Vec::new();
    /// let summary = StateReader::visit_file_parallel(
    ///     &path, ReaderOptions::default(), &SchemaSet::new(), &DecodeOptions::default(), 2,
    ///     Vec::new,
    ///     |names: &mut Vec<String>, item, _| names.push(item.address()),
    ///     |names| names.join("\n"),
    ///     |text| lines.push(text),
    /// )?;
    /// assert_eq!(lines.concat(), "t.x\nt.x");
    /// assert_eq!(summary.instances, 2);
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn visit_file_parallel<A, B, I, F, M, S>(
        path: &Path,
        reader_options: ReaderOptions,
        set: &SchemaSet,
        options: &DecodeOptions,
        jobs: usize,
        init: I,
        fold: F,
        map: M,
        sink: S,
    ) -> Result<Summary, StateError>
    where
        B: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        M: Fn(A) -> B + Sync,
        S: FnMut(B),
    {
        let source = FileSource(path);
        let file = source.open_at(0)?;
        let size = file.metadata().map_or(0, |m| m.len());
        let parts = parts(size, jobs, reader_options.part_bytes);
        // (A part whose search fails counts as one with a resource: its walk says why.)
        let spanned = |parts: &[Range<u64>]| {
            resources_span_parts(parts, |r| !matches!(source.first_resource(r), Ok(None)))
        };
        if jobs <= 1 || parts.len() < 2 || spanned(&parts) {
            let reader = StateReader::with_options(file, reader_options);
            return reader.visit_parallel_map(set, options, jobs, init, fold, map, sink);
        }
        drop(file);
        let shared = Shared {
            source: &source,
            reader_options: &reader_options,
            set,
            options,
            init,
            fold,
            map,
        };
        visit_parts(&shared, &parts, jobs, sink)
    }
}

impl StateReader<io::Empty> {
    /// [`StateReader::visit_file_parallel`] for a state in memory (a file mapped, say):
    /// the same parts, instances and order, each part read in place, with no copy (a file's
    /// parts are read through reads of their own), and the same error but for a unit over
    /// [`ReaderOptions::max_unit_bytes`], which a state in memory reads as any other (as
    /// [`StateReader::in_memory`] does). `release`, when given, is told the ranges of bytes
    /// no part will read again, in order from the start, as [`StateReader::with_release`]
    /// is: by the calling thread as the parts are handed on,
    /// [`RELEASE_STEP`](super::RELEASE_STEP) bytes or more at a time, and the rest once the
    /// read has succeeded. A state of less than two parts, or `jobs` 1, or at least half of
    /// whose parts hold no resource start near their beginning (as for
    /// [`StateReader::visit_file_parallel`]), is read by
    /// [`StateReader::visit_parallel_map`] of [`StateReader::in_memory`] with
    /// [`StateReader::with_release`] (and the rest told once the read has succeeded).
    ///
    /// ```
    /// use std::ops::Range;
    /// use std::sync::{Arc, Mutex};
    /// use tfwire::state::{ReaderOptions, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let resource = |name: &str| format!(r#"{{"mode":"managed","type":"t","name":"{name}",
    ///   "provider":"provider.t","instances":[{{"attributes":{{}}}}]}}"#);
    /// let names: Vec<String> = (0..40).map(|k| format!("r{k}")).collect();
    /// let resources: Vec<String> = names.iter().map(|n| resource(n)).collect();
    /// let text = format!(r#"{{"version":4,"resources":[{}]}}"#, resources.join(","));
    /// let released = Arc::new(Mutex::new(Vec::<Range<usize>>::new()));
    /// let told = Arc::clone(&released);
    /// let release = move |range: Range<usize>| told.lock().unwrap().push(range);
    /// let mut lines = Vec::new();
    /// let summary = StateReader::visit_memory_parallel(
    ///     text.clone().into_bytes(), Some(release),
    ///     ReaderOptions::default().with_part_bytes(512), &SchemaSet::new(),
    ///     &DecodeOptions::default(), 2,
    ///     Vec::new,
    ///     |names: &mut Vec<String>, item, _| names.push(item.address()),
    ///     |names| names,
    ///     |names| lines.extend(names),
    /// )?;
    /// let want: Vec<String> = names.iter().map(|n| format!("t.{n}")).collect();
    /// assert_eq!((lines, summary.instances), (want, 40));
    /// // The bytes told once read, in order, 8 MiB or more at a time (`RELEASE_STEP`), and
    /// // the rest at the end: here all at the end.
    /// assert_eq!(*released.lock().unwrap(), [0..text.len()]);
    /// # Ok::<(), tfwire::state::StateError>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn visit_memory_parallel<T, R, A, B, I, F, M, S>(
        bytes: T,
        release: Option<R>,
        reader_options: ReaderOptions,
        set: &SchemaSet,
        options: &DecodeOptions,
        jobs: usize,
        init: I,
        fold: F,
        map: M,
        sink: S,
    ) -> Result<Summary, StateError>
    where
        T: AsRef<[u8]> + Send + Sync + UnwindSafe + RefUnwindSafe + 'static,
        R: Fn(Range<usize>) + Send + Sync + UnwindSafe + RefUnwindSafe + 'static,
        B: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        M: Fn(A) -> B + Sync,
        S: FnMut(B),
    {
        let size = bytes.as_ref().len() as u64;
        let parts = parts(size, jobs, reader_options.part_bytes);
        let spanned = |parts: &[Range<u64>]| {
            resources_span_parts(parts, |r| first_resource_in(bytes.as_ref(), r).is_some())
        };
        if jobs <= 1 || parts.len() < 2 || spanned(&parts) {
            let mut reader = StateReader::in_memory_with_options(bytes, reader_options);
            // The reader tells its steps; the rest is told here once the read has succeeded
            // (a read in parts tells it at its end too).
            let release = release.map(Arc::new);
            let told = Arc::new(AtomicUsize::new(0));
            if let Some(release) = &release {
                let (release, told) = (Arc::clone(release), Arc::clone(&told));
                reader = reader.with_release(move |range: Range<usize>| {
                    told.store(range.end, Ordering::Relaxed);
                    release(range);
                });
            }
            let read = reader.visit_parallel_map(set, options, jobs, init, fold, map, sink);
            let (from, size) = (told.load(Ordering::Relaxed), size as usize);
            if let (Ok(_), Some(release)) = (&read, &release) {
                if from < size {
                    release(from..size);
                }
            }
            return read;
        }
        let source = MemorySource::new(bytes, release);
        let shared = Shared {
            source: &source,
            reader_options: &reader_options,
            set,
            options,
            init,
            fold,
            map,
        };
        visit_parts(&shared, &parts, jobs, sink)
    }
}

/// The parts of a state read on `jobs` threads, each handed to `sink` once the part before
/// has confirmed it, else read again on the calling thread (the module docs).
fn visit_parts<A, B, I, F, M, S>(
    shared: &Shared<'_, I, F, M>,
    parts: &[Range<u64>],
    jobs: usize,
    mut sink: S,
) -> Result<Summary, StateError>
where
    B: Send,
    I: Fn() -> A + Sync,
    F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
    M: Fn(A) -> B + Sync,
    S: FnMut(B),
{
    {
        let pool = shared.reader_options.pool.get();
        let window = Window::new(parts.len(), jobs.saturating_mul(2));
        // The calling thread reads parts too while it waits for the next one to hand on:
        // `jobs - 1` workers beside it, so that `jobs` threads read (F58 in
        // `perf/optimizations.md`: a third thread, woken for each part, made 939 context
        // switches of `--jobs 2` on the large state; now 190).
        let workers = jobs.saturating_sub(1).max(1);
        let (done_tx, done) = mpsc::channel::<(usize, thread::Result<PartDone<B>>)>();
        let senders = Handouts::new(done_tx, workers);
        let worker = || {
            let Some(done_tx) = senders.take() else {
                return;
            };
            while let Some(k) = window.take_waiting() {
                let part =
                    std::panic::catch_unwind(AssertUnwindSafe(|| shared.read_part(k, parts)));
                if done_tx.send((k, part)).is_err() {
                    return;
                }
            }
        };
        let caller = || {
            // Stops the workers when the read ends, returning or unwinding (a panicking
            // `sink`): none is left waiting at the window for parts never handed on.
            let _stopper = Stopper(&window);
            let mut read = || -> Result<Summary, StateError> {
                let mut early = BTreeMap::new();
                let mut total = Total::default();
                // Where the next resource starts, as the parts that counted read it (`None`:
                // they read to the end of the state).
                let mut expected = Some(0);
                for (k, range) in parts.iter().enumerate() {
                    let part = loop {
                        if let Some(part) = early.remove(&k) {
                            break part;
                        }
                        // A part read meanwhile; else one read here, if the window has room;
                        // else the wait for the workers'.
                        let got = match done.try_recv() {
                            Err(TryRecvError::Empty) => match window.take_now() {
                                Some(j) => {
                                    early.insert(j, shared.read_part(j, parts));
                                    continue;
                                }
                                None => done.recv().ok(),
                            },
                            got => got.ok(),
                        };
                        match got {
                            Some((j, Ok(part))) => {
                                early.insert(j, part);
                            }
                            // (The stopper stops the workers as this unwinds.)
                            Some((_, Err(panic))) => std::panic::resume_unwind(panic),
                            // (Every worker has ended: they all took their parts.)
                            None => {
                                break PartDone {
                                    start: None,
                                    made: None,
                                    walked: Ok(Default::default()),
                                }
                            }
                        }
                    };
                    window.sunk(k);
                    // The parts before this one are read: no reader reads before its range
                    // again (its walk, or the read of it here, starts where the part before
                    // stopped, in it or after).
                    shared.source.done_before(range.start);
                    let Some(at) = expected else { continue };
                    if at >= range.end {
                        // (The part before read on past this one.)
                        continue;
                    }
                    match part {
                        PartDone {
                            start: Some(start),
                            made: Some(made),
                            walked: Ok((summary, end)),
                        } if start == at => {
                            sink(made);
                            total.add(summary, &end);
                            expected = end.next;
                        }
                        _ => {
                            // This part is read again here, from where the part before stopped.
                            let stop_at = parts.get(k.saturating_add(1)).map(|p| p.start);
                            let index = total.summary.resources;
                            // (An error ends the read: the workers are stopped below.)
                            let (summary, end) = shared.read_here(at, index, stop_at, &mut sink)?;
                            total.add(summary, &end);
                            expected = end.next;
                        }
                    }
                }
                window.stop();
                // A resource after the last part's end (the file grew while it was read): the
                // rest is read here.
                if let Some(at) = expected {
                    let index = total.summary.resources;
                    let (summary, end) = shared.read_here(at, index, None, &mut sink)?;
                    total.add(summary, &end);
                }
                shared.source.done_before(u64::MAX);
                total.finish()
            };
            read()
        };
        run_once(pool, workers, &worker, caller)
    }
}

mod window;

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests;
