//! [`StateReader::visit_file_parallel`]: one state file read in parts of its bytes, each on
//! a thread of its own, with no thread walking the whole file first.
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
//! Memory: the parts in flight (twice the jobs) and their results.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::thread;

use super::reader::{PartEnd, PartStart};
use super::{InstanceRef, Outcome, ReaderOptions, SchemaSet, StateError, StateReader, Summary};
use crate::program::DecodeOptions;

/// The fewest parts per job: enough that one slow part holds the others up little.
const PARTS_PER_JOB: u64 = 8;

/// The most bytes a part's reader reads at a time: its buffer stays in the core's cache
/// between the read's copy and the walk (128 KiB measured 0.139 s on the fleet workload's
/// large state with two jobs, against 0.156 s with the 8 MiB reads of one stream).
const PART_READ_BYTES: usize = 128 << 10;

/// Instances per accumulator when the calling thread reads the rest of a state itself.
const FALLBACK_RUN: usize = 4096;

/// The bytes searched at a time for a part's first resource.
const SEARCH_BYTES: usize = 64 << 10;

/// `size` bytes cut into parts of about equal size for `jobs` threads, each of at most
/// `most` bytes, and at least [`PARTS_PER_JOB`] per job; one part when `size` is less than
/// twice `most`.
fn parts(size: u64, jobs: usize, most: usize) -> Vec<Range<u64>> {
    let most = (most as u64).max(1);
    let count = if size < most.saturating_mul(2) {
        1
    } else {
        let wanted = (jobs as u64).saturating_mul(PARTS_PER_JOB);
        size.div_ceil(most).max(wanted).min(size)
    };
    let per = size.div_ceil(count).max(1);
    (0..count)
        .map(|k| {
            let start = k.saturating_mul(per).min(size);
            start..start.saturating_add(per).min(size)
        })
        .collect()
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// True when `bytes` (from a `{`) start as a resource object: `{`, then `"mode"` and the
/// string `"managed"` or `"data"`, or `"module"` and a string (whitespace between tokens).
fn looks_like_resource(bytes: &[u8]) -> bool {
    let mut rest = bytes.get(1..).unwrap_or_default();
    let mut token = |t: &[u8]| {
        let from = rest.iter().take_while(|b| is_ws(**b)).count();
        match rest.get(from..).and_then(|r| r.strip_prefix(t)) {
            Some(after) => {
                rest = after;
                true
            }
            None => false,
        }
    };
    if token(b"\"mode\"") {
        token(b":") && (token(b"\"managed\"") || token(b"\"data\""))
    } else {
        token(b"\"module\"") && token(b":") && token(b"\"")
    }
}

/// Where the first resource object seems to start in `range` of `file` (see the module
/// docs); `None` when nothing there looks like one.
fn first_resource(file: &mut File, range: Range<u64>) -> std::io::Result<Option<u64>> {
    use std::io::Read;
    // (A place near the end of a read is looked at again with the next read's bytes.)
    const LOOK: usize = 256;
    let len = usize::try_from(range.end.saturating_sub(range.start)).unwrap_or(usize::MAX);
    let chunk = SEARCH_BYTES.min(len.max(1));
    let mut buf = vec![0; chunk.saturating_add(LOOK)];
    let mut at = range.start;
    file.seek(SeekFrom::Start(at))?;
    while at < range.end {
        let mut len = 0;
        while len < buf.len() {
            let room = buf.get_mut(len..).unwrap_or_default();
            match file.read(room) {
                Ok(0) => break,
                Ok(n) => len = len.saturating_add(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let bytes = buf.get(..len).unwrap_or_default();
        let whole = len < buf.len();
        // Places looked at in this read: all when it reached the end of the file.
        let span = if whole { len } else { chunk };
        let searched = bytes.get(..span).unwrap_or_default();
        for i in memchr::memchr_iter(b'{', searched) {
            let offset = at.saturating_add(i as u64);
            if offset >= range.end {
                return Ok(None);
            }
            if looks_like_resource(bytes.get(i..).unwrap_or_default()) {
                return Ok(Some(offset));
            }
        }
        if whole {
            return Ok(None);
        }
        at = at.saturating_add(chunk as u64);
        file.seek(SeekFrom::Start(at))?;
    }
    Ok(None)
}

/// A part read: where it started (`None`: nothing there looked like a resource), what its
/// instances made, and how its walk ended.
struct PartDone<B> {
    start: Option<u64>,
    made: Option<B>,
    walked: Result<(Summary, PartEnd), StateError>,
}

/// Which parts the workers may take: those before `sunk + window`.
struct Gate {
    next: usize,
    sunk: usize,
    stop: bool,
}

/// What every part's reader shares.
struct Shared<'s, I, F, M> {
    path: &'s Path,
    reader_options: &'s ReaderOptions,
    set: &'s SchemaSet,
    options: &'s DecodeOptions,
    init: I,
    fold: F,
    map: M,
}

impl<I, F, M> Shared<'_, I, F, M> {
    /// The options of a part's reader: reads of at most [`PART_READ_BYTES`].
    fn part_options(&self) -> ReaderOptions {
        let read_size = self.reader_options.read_size.min(PART_READ_BYTES);
        self.reader_options.clone().with_read_size(read_size)
    }

    /// The state file, at `offset`.
    fn open_at(&self, offset: u64) -> Result<File, StateError> {
        let fail = |e: std::io::Error| {
            StateError::at("", Some(offset), format_args!("reading the state: {e}"))
        };
        let mut file = File::open(self.path).map_err(fail)?;
        file.seek(SeekFrom::Start(offset)).map_err(fail)?;
        Ok(file)
    }

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
            _ => (self.open_at(range.start)).and_then(|mut file| {
                first_resource(&mut file, range.clone()).map_err(|e| {
                    StateError::at(
                        "",
                        Some(range.start),
                        format_args!("reading the state: {e}"),
                    )
                })
            }),
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
        let walked = self.open_at(start).and_then(|file| {
            StateReader::with_options(file, self.part_options()).walk_part(
                self.set,
                self.options,
                from,
                stop_at,
                |item, outcome| (self.fold)(&mut acc, item, outcome),
            )
        });
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
        let file = self.open_at(offset)?;
        let (mut acc, mut n) = ((self.init)(), 0usize);
        let walked = StateReader::with_options(file, self.part_options()).walk_part(
            self.set,
            self.options,
            from,
            stop_at,
            |item, outcome| {
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
    /// [`StateReader::visit_parallel_map`].
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
        mut sink: S,
    ) -> Result<Summary, StateError>
    where
        B: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        M: Fn(A) -> B + Sync,
        S: FnMut(B),
    {
        let shared = Shared {
            path,
            reader_options: &reader_options,
            set,
            options,
            init,
            fold,
            map,
        };
        let file = shared.open_at(0)?;
        let size = file.metadata().map_or(0, |m| m.len());
        let parts = parts(size, jobs, reader_options.part_bytes);
        if jobs <= 1 || parts.len() < 2 {
            let reader = StateReader::with_options(file, reader_options.clone());
            let Shared {
                init, fold, map, ..
            } = shared;
            return reader.visit_parallel_map(set, options, jobs, init, fold, map, sink);
        }
        drop(file);
        let gate = (
            Mutex::new(Gate {
                next: 0,
                sunk: 0,
                stop: false,
            }),
            Condvar::new(),
        );
        let window = jobs.saturating_mul(2);
        let (done_tx, done) = mpsc::channel::<(usize, thread::Result<PartDone<B>>)>();
        thread::scope(|scope| {
            let mut workers = Vec::with_capacity(jobs);
            for _ in 0..jobs {
                let (gate, parts, shared, done_tx) = (&gate, &parts, &shared, done_tx.clone());
                workers.push(scope.spawn(move || loop {
                    let k = {
                        let Ok(mut g) = gate.0.lock() else { return };
                        while !g.stop
                            && g.next < parts.len()
                            && g.next >= g.sunk.saturating_add(window)
                        {
                            g = match gate.1.wait(g) {
                                Ok(g) => g,
                                Err(_) => return,
                            };
                        }
                        if g.stop || g.next >= parts.len() {
                            return;
                        }
                        g.next = g.next.saturating_add(1);
                        g.next.saturating_sub(1)
                    };
                    let part =
                        std::panic::catch_unwind(AssertUnwindSafe(|| shared.read_part(k, parts)));
                    if done_tx.send((k, part)).is_err() {
                        return;
                    }
                }));
            }
            drop(done_tx);
            let stop = || {
                if let Ok(mut g) = gate.0.lock() {
                    g.stop = true;
                }
                gate.1.notify_all();
            };
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
                        match done.recv() {
                            Ok((j, Ok(part))) => {
                                early.insert(j, part);
                            }
                            Ok((_, Err(panic))) => {
                                stop();
                                std::panic::resume_unwind(panic);
                            }
                            // (Every worker has ended: they all took their parts.)
                            Err(_) => {
                                break PartDone {
                                    start: None,
                                    made: None,
                                    walked: Ok(Default::default()),
                                }
                            }
                        }
                    };
                    if let Ok(mut g) = gate.0.lock() {
                        g.sunk = k.saturating_add(1);
                    }
                    gate.1.notify_all();
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
                stop();
                // A resource after the last part's end (the file grew while it was read): the
                // rest is read here.
                if let Some(at) = expected {
                    let index = total.summary.resources;
                    let (summary, end) = shared.read_here(at, index, None, &mut sink)?;
                    total.add(summary, &end);
                }
                total.finish()
            };
            let result = read();
            stop();
            // Joined here, not only at the scope's end: a join waits for the threads to exit,
            // their thread-locals (a walk's spare buffer, the channel's wait context) freed.
            for worker in workers {
                // (A worker's panic came through its part's result.)
                let _ = worker.join();
            }
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_file_in_order() {
        let most = 1000;
        let size = 100 * most as u64 + 7;
        let p = parts(size, 2, most);
        assert_eq!(p.len(), 101);
        assert!(p.iter().all(|p| p.end - p.start <= most as u64));
        assert_eq!(p.first().unwrap().start, 0);
        assert_eq!(p.last().unwrap().end, size);
        assert!(p.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(parts(2 * most as u64 - 1, 4, most).len(), 1);
        // At least eight parts per job.
        assert_eq!(parts(3 * most as u64, 4, most).len(), 32);
        let empty = parts(0, 4, most);
        assert_eq!((empty.len(), empty.first()), (1, Some(&(0..0))));
        assert_eq!(parts(10, 4, 0).len(), 10);
        assert_eq!(parts(10, 4, 1).len(), 10);
    }

    #[test]
    fn a_resource_start_is_told_by_its_first_key() {
        assert!(looks_like_resource(br#"{"mode":"managed"}"#));
        assert!(looks_like_resource(b"{\n  \"mode\": \"data\","));
        assert!(looks_like_resource(b"{\n      \"module\" : \"module.a\""));
        assert!(!looks_like_resource(br#"{"mode":"other"}"#));
        assert!(!looks_like_resource(br#"{"module":null}"#));
        assert!(!looks_like_resource(br#"{"modes":1}"#));
        assert!(!looks_like_resource(br#"{"type":"t","mode":"managed"}"#));
        assert!(!looks_like_resource(br#"{"mode""#));
        assert!(!looks_like_resource(b"{"));
    }
}
