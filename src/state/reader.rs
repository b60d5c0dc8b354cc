//! [`StateReader`]: a state file read from any `io::Read` a piece at a time, its envelope
//! scanned with tfwire's own JSON scanner and each instance's attributes decoded where they
//! lie in the read buffer, once. Memory holds one instance (its bytes and its values), not
//! the file.
//!
//! The buffer holds the bytes from the start of the current *unit* on: an instance object,
//! a resource's keys up to its `instances`, one top-level key and its value. A unit is read
//! whole or not at all: when the buffer ends inside one, the bytes before it are dropped,
//! more are read (the buffer doubles when the unit fills it, up to
//! [`ReaderOptions::max_unit_bytes`]) and the unit is read again from its start. An instance
//! is handed out only once its object is complete, so chunked input gives exactly the
//! instances a one-shot read gives.
//!
//! Key order. Terraform and OpenTofu write `version` before `resources`, and a resource's
//! `mode`, `type`, `name` and `provider` (and `module`) before its `instances`. When a
//! resource lists `instances` before those keys (`jq -S` sorts them so), the whole resource
//! becomes the unit: memory is then bounded by the largest resource. A `version` that comes
//! after `resources` is checked when it comes (the instances before it have been handed out).
//! A resource key other than `instances` repeated after them, a `module` naming a module
//! that comes only after them, and a second `resources`, are errors (the instances have been
//! decoded and handed out); other repeated keys: the last wins, as in
//! [`StateFile::parse`](super::StateFile::parse).

use std::cell::Cell;
use std::io::{self, Read};
use std::ops::Range;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::Arc;

use bumpalo::Bump;

use super::envelope::{Phase, Raw, Stop, Unit, Visit, Walk};
use super::pool::{Pool, PoolRef};
use super::prefetch::Ahead;
use super::split::{split_max, Delimited};
use super::values::Ctx;
use super::{InstanceRef, Outcome, SchemaSet, StateError};
use crate::decode::json::tokens;
use crate::program::DecodeOptions;

/// Where a part of a state starts (`ranges.rs`).
#[derive(Clone, Copy, Debug)]
pub(super) enum PartStart {
    /// At the start of the file.
    File,
    /// At the `{` of a resource, `offset` in the file, `index` in `resources` as far as is
    /// known (a part found by its bytes counts from 0).
    Resource { offset: u64, index: u64 },
}

/// How a part of a state ended (`ranges.rs`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PartEnd {
    /// The offset of the resource at or after its stop, when it stopped there (else the
    /// walk read on to the end of the state).
    pub(super) next: Option<u64>,
    /// Its walk read the state's `version`.
    pub(super) version_seen: bool,
}

/// A walk's buffer and arenas, kept for the next walk on the same thread.
#[derive(Default)]
struct Spare {
    buf: Vec<u8>,
    bump: Bump,
    scratch: Bump,
}

thread_local! {
    static SPARE: Cell<Option<Spare>> = const { Cell::new(None) };
}

/// A spare buffer or arena larger than this is freed rather than kept.
const SPARE_MAX: usize = 16 << 20;

/// The buffer's first size (it doubles up to [`ReaderOptions::read_size`]).
const FIRST_BUFFER: usize = 64 << 10;

/// Options of a [`StateReader`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReaderOptions {
    /// Bytes asked of the input at a time at most (default 1 MiB; the buffer starts at
    /// 64 KiB and doubles up to this).
    pub read_size: usize,
    /// The most bytes one unit may span (default 256 MiB): an instance object; a whole
    /// resource when it lists `instances` before its other keys; a top-level value other
    /// than `resources`. A larger one is a [`StateError`], never a larger buffer.
    pub max_unit_bytes: usize,
    /// The most bytes of a part when one file (or one state in memory) is read in parts on
    /// several threads ([`StateReader::visit_file_parallel`],
    /// [`StateReader::visit_memory_parallel`]; default 8 MiB): a state of less than two parts
    /// is read as one.
    pub part_bytes: usize,
    /// Where the parallel reads run their workers ([`Self::with_pool`]).
    pub(crate) pool: PoolRef,
}

with_setters!(ReaderOptions {
    #[const] with_read_size => read_size: usize,
    #[const] with_max_unit_bytes => max_unit_bytes: usize,
    #[const] with_part_bytes => part_bytes: usize,
});

impl Default for ReaderOptions {
    fn default() -> ReaderOptions {
        ReaderOptions {
            read_size: 1 << 20,
            max_unit_bytes: 256 << 20,
            part_bytes: 8 << 20,
            pool: PoolRef::default(),
        }
    }
}

impl ReaderOptions {
    /// The options with the parallel reads' workers run on `pool` instead of threads
    /// started for each read ([`Threads`]): a large file's parts, a stream's runs and many
    /// files' reads then share the caller's threads. See [`Pool`] for an example.
    ///
    /// [`Threads`]: super::Threads
    /// [`Pool`]: super::Pool
    pub fn with_pool(mut self, pool: Arc<dyn Pool>) -> ReaderOptions {
        self.pool = PoolRef::new(pool);
        self
    }
}

/// What a [`StateReader::visit`] read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// `terraform_version`, when present.
    pub terraform_version: Option<String>,
    /// Resources read.
    pub resources: u64,
    /// Instance objects read and handed out.
    pub instances: u64,
    /// Instance objects read and stepped over: of a type [`SchemaSet::only_types`] leaves out.
    pub skipped: u64,
    /// Bytes of the state file read.
    pub bytes: u64,
}

/// A state file read incrementally from an `io::Read` (see the [module docs](crate::state)).
///
/// ```
/// use tfwire::state::{Outcome, SchemaSet, StateReader};
/// use tfwire::DecodeOptions;
///
/// let mut set = SchemaSet::new();
/// set.add_json(r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/null":
///   {"resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{"id":{"type":"string"}}}}}}}}"#).unwrap();
/// let state = br#"{"version":4,"resources":[{"mode":"managed","type":"null_resource","name":"x",
///   "provider":"provider[\"registry.terraform.io/hashicorp/null\"]","each":"list",
///   "instances":[{"index_key":0,"attributes":{"id":"a"}},{"index_key":1,"attributes":{"id":"b","oops":1}}]}]}"#;
/// let mut lines = Vec::new();
/// let summary = StateReader::new(&state[..]).visit(&set, &DecodeOptions::default(), |item, outcome| {
///     let status = match outcome {
///         Outcome::Ok(..) => "ok".to_string(),
///         Outcome::Error(e, _) => e.to_string(),
///         _ => "no schema".to_string(),
///     };
///     lines.push(format!("{} {status}", item.address()));
/// }).unwrap();
/// assert_eq!(lines, ["null_resource.x[0] ok", r#"null_resource.x[1] at (root) (byte 10): unsupported attribute "oops""#]);
/// assert_eq!(summary.instances, 2);
/// ```
pub struct StateReader<R> {
    input: R,
    pub(super) options: ReaderOptions,
    /// The bytes read and not yet dropped: `buf[start..end]` is unread, `buf[..start]` read.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The file offset of `buf[0]`.
    base: u64,
    /// The input has ended.
    eof: bool,
    /// A state already in memory, read in place ([`StateReader::in_memory`]): then `buf` is
    /// only where the parallel walk copies resources for its workers.
    whole: Option<Box<dyn AsRef<[u8]> + Send + Sync + UnwindSafe + RefUnwindSafe>>,
    /// What is told of the bytes of `whole` the reader is done with
    /// ([`StateReader::with_release`]), and where they end.
    release: Option<Box<dyn FnMut(Range<usize>) + Send + Sync + UnwindSafe + RefUnwindSafe>>,
    released: usize,
    /// The lines of the buffer asked of memory ahead of the walk.
    pub(super) ahead: Ahead,
}

impl<R: Read> StateReader<R> {
    /// A reader with the default [`ReaderOptions`].
    pub fn new(input: R) -> StateReader<R> {
        StateReader::with_options(input, ReaderOptions::default())
    }

    /// A reader with `options`.
    pub fn with_options(input: R, options: ReaderOptions) -> StateReader<R> {
        StateReader {
            input,
            options,
            buf: Vec::new(),
            start: 0,
            end: 0,
            base: 0,
            eof: false,
            whole: None,
            release: None,
            released: 0,
            ahead: Ahead::default(),
        }
    }

    /// Reads the whole state, decoding each instance's attributes (with `set`, as
    /// [`SchemaSet::decode`] does) and handing it to `f` with its outcome, in file order.
    /// One arena serves every instance (reset after each).
    pub fn visit<F>(
        self,
        set: &SchemaSet,
        options: &DecodeOptions,
        f: F,
    ) -> Result<Summary, StateError>
    where
        F: FnMut(InstanceRef<'_, '_>, &Outcome<'_>),
    {
        let mut f = f;
        self.walk(
            set,
            options,
            true,
            |item, outcome, _| f(item, outcome),
            None,
        )
    }

    /// Reads the whole state; with `decode` false each instance's attributes are only
    /// checked, and `f` gets [`Outcome::NoSchema`] for them (`batch.rs` decodes them). With
    /// `split`, the resources the structural scan delimits go to `split` unread, with the
    /// buffer that holds them (`split.rs`): their instances are not handed to `f`, nor
    /// counted.
    pub(super) fn walk<F: Visit>(
        mut self,
        set: &SchemaSet,
        options: &DecodeOptions,
        decode: bool,
        mut f: F,
        mut split: Option<&mut dyn FnMut(Delimited<'_>)>,
    ) -> Result<Summary, StateError> {
        let mut walk = Walk::new(decode, Phase::Start);
        self.run(&mut walk, set, options, &mut f, &mut split)?;
        if !walk.version_seen {
            let end = self.base.saturating_add(self.end as u64);
            return Err(StateError::at(
                "",
                Some(end),
                "not a state file: no \"version\"",
            ));
        }
        walk.summary.bytes = self.base.saturating_add(self.end as u64);
        Ok(walk.summary)
    }

    /// Reads a part of a state (`ranges.rs`): from `from` (a reader's input is at that file
    /// offset; a state in memory holds the whole file), until the first resource that starts
    /// at `stop_at` or after, decoding each instance as [`StateReader::visit`] does. The
    /// walk's `version` is not required (it is the whole file's).
    pub(super) fn walk_part<F>(
        mut self,
        set: &SchemaSet,
        options: &DecodeOptions,
        from: PartStart,
        stop_at: Option<u64>,
        mut f: F,
    ) -> Result<(Summary, PartEnd), StateError>
    where
        F: FnMut(InstanceRef<'_, '_>, &Outcome<'_>),
    {
        let mut walk = match from {
            PartStart::File => Walk::new(true, Phase::Start),
            PartStart::Resource { offset, index } => {
                match self.whole {
                    // A state in memory is read in place from the offset, and released from
                    // there (what is before it is another part's).
                    Some(_) => {
                        let at = usize::try_from(offset).unwrap_or(usize::MAX);
                        self.start = at.min(self.end);
                        self.released = self.start;
                    }
                    // A reader's input starts at the offset.
                    None => self.base = offset,
                }
                let mut walk = Walk::new(true, Phase::Resources { first: true });
                walk.resources_seen = true;
                walk.summary.resources = index;
                walk
            }
        };
        walk.stop_at = stop_at;
        let mut f =
            |item: InstanceRef<'_, '_>, outcome: &Outcome<'_>, _: Option<Raw<'_>>| f(item, outcome);
        self.run(&mut walk, set, options, &mut f, &mut None)?;
        walk.summary.bytes = self.base.saturating_add(self.start as u64);
        let end = PartEnd {
            next: walk.stopped,
            version_seen: walk.version_seen,
        };
        Ok((walk.summary, end))
    }

    /// Runs `walk` with the buffer and arenas of the last walk on this thread (a worker
    /// that reads thousands of files pays for its pages once, not per file).
    fn run<F: Visit>(
        &mut self,
        walk: &mut Walk,
        set: &SchemaSet,
        options: &DecodeOptions,
        f: &mut F,
        split: &mut Option<&mut dyn FnMut(Delimited<'_>)>,
    ) -> Result<(), StateError> {
        let mut spare = SPARE.with(Cell::take).unwrap_or_default();
        if self.buf.is_empty() && self.whole.is_none() {
            self.buf = std::mem::take(&mut spare.buf);
            self.ahead.moved();
        }
        let result = self.steps(walk, set, options, &mut spare, f, split);
        if self.whole.is_none() {
            // (A state in memory leaves the thread's buffer as it was.)
            spare.buf = std::mem::take(&mut self.buf);
        }
        spare.bump.reset();
        spare.scratch.reset();
        if spare.buf.capacity() <= SPARE_MAX && spare.bump.allocated_bytes() <= SPARE_MAX {
            SPARE.with(|s| s.set(Some(spare)));
        }
        result
    }

    /// Before a resource (`first`: the first of `resources`) of a part that ends at `stop`:
    /// true when the next resource object (a `{`) starts at `stop` or after (its offset then
    /// in `walk.stopped`); `None` when more input is needed to tell.
    fn stops_before(&self, walk: &mut Walk, stop: u64, first: bool) -> Option<bool> {
        let buf = self.bytes();
        let i = tokens::ws(buf, self.start);
        let at = match buf.get(i) {
            Some(b'{') if first => i,
            Some(b',') if !first => tokens::ws(buf, i.saturating_add(1)),
            Some(_) => return Some(false),
            None => return (self.eof).then_some(false),
        };
        match buf.get(at) {
            None => return (self.eof).then_some(false),
            // (Not a resource: the walk's own step names the fault there, as one walk does.)
            Some(&c) if c != b'{' => return Some(false),
            Some(_) => {}
        }
        let offset = self.base.saturating_add(at as u64);
        walk.stopped = (offset >= stop).then_some(offset);
        Some(walk.stopped.is_some())
    }

    /// The units of the walk, until the state ends or fails.
    fn steps<F: Visit>(
        &mut self,
        walk: &mut Walk,
        set: &SchemaSet,
        options: &DecodeOptions,
        spare: &mut Spare,
        f: &mut F,
        split: &mut Option<&mut dyn FnMut(Delimited<'_>)>,
    ) -> Result<(), StateError> {
        let (bump, scratch) = (&mut spare.bump, &mut spare.scratch);
        // The resources delimited in the buffer, not yet handed on: their ranges and indexes.
        let mut delimited: Vec<(Range<usize>, u64)> = Vec::new();
        let split_max = split_max(&self.options);
        while walk.phase != Phase::Done {
            // (What the walk needs: the current unit on, and resources not yet handed on.)
            if self.release.is_some() {
                self.release_before(delimited.first().map_or(self.start, |(r, _)| r.start));
            }
            if let (Some(stop), Phase::Resources { first }) = (walk.stop_at, walk.phase) {
                match self.stops_before(walk, stop, first) {
                    Some(true) => return Ok(()),
                    Some(false) => {}
                    None => {
                        self.refill()?;
                        continue;
                    }
                }
            }
            if let (Some(split), Phase::Resources { .. }) = (split.as_mut(), walk.phase) {
                self.ask_ahead();
                let next = self
                    .unit(set, options, scratch)
                    .delimit_resource(self.start, walk, split_max);
                scratch.reset();
                match next {
                    Ok(Some(range)) => {
                        self.start = range.end;
                        delimited.push((range, walk.summary.resources));
                        walk.resource_read();
                        walk.phase = Phase::Resources { first: false };
                        // (A read's worth is handed on as a batch; a state in memory, whose
                        // reads never end, is handed on in batches of that size.)
                        let from = delimited.first().map_or(self.start, |(r, _)| r.start);
                        if self.whole.is_some()
                            && self.start.saturating_sub(from) >= self.options.read_size
                        {
                            self.hand_on(split, &mut delimited);
                        }
                        continue;
                    }
                    // The walk's own step reads what is there (after the resources before).
                    Ok(None) => self.hand_on(split, &mut delimited),
                    Err(Stop::More) => {
                        self.hand_on(split, &mut delimited);
                        self.refill()?;
                        continue;
                    }
                    Err(Stop::Fail(e)) => {
                        self.hand_on(split, &mut delimited);
                        return Err(e);
                    }
                }
            }
            let phase = walk.phase;
            self.ask_ahead();
            let result = self
                .unit(set, options, scratch)
                .step(self.start, walk, bump, f);
            if result.is_err() {
                // The unit is read again from its start.
                walk.phase = phase;
            }
            scratch.reset();
            match result {
                Ok(next) => self.start = next,
                Err(Stop::More) => self.refill()?,
                Err(Stop::Fail(e)) => return Err(e),
            }
        }
        Ok(())
    }

    /// Tells [`StateReader::with_release`]'s callback of the bytes before `done`, once they
    /// are [`RELEASE_STEP`] or more.
    fn release_before(&mut self, done: usize) {
        if let Some(release) = &mut self.release {
            if done.saturating_sub(self.released) >= RELEASE_STEP {
                release(self.released..done);
                self.released = done;
            }
        }
    }

    /// The bytes read so far (from the buffer's start), or the state in memory.
    fn bytes(&self) -> &[u8] {
        match &self.whole {
            Some(whole) => (**whole).as_ref(),
            None => self.buf.get(..self.end).unwrap_or_default(),
        }
    }

    /// Asks memory for the buffer's lines ahead of the unit about to be read ([`Ahead`]).
    #[inline]
    fn ask_ahead(&mut self) {
        let buf = match &self.whole {
            Some(whole) => (**whole).as_ref(),
            None => self.buf.get(..self.end).unwrap_or_default(),
        };
        self.ahead.before(buf, self.start);
    }

    /// A unit over the bytes read so far.
    fn unit<'u>(
        &'u self,
        set: &'u SchemaSet,
        options: &'u DecodeOptions,
        scratch: &'u Bump,
    ) -> Unit<'u> {
        Unit {
            buf: self.bytes(),
            base: self.base,
            more: !self.eof,
            set,
            options,
            scratch,
            at: Cell::new(Ctx::State),
        }
    }

    /// Hands the resources `delimited` in the buffer on to `split` with the buffer; the
    /// buffer then starts at the current unit.
    fn hand_on(
        &mut self,
        split: &mut dyn FnMut(Delimited<'_>),
        delimited: &mut Vec<(Range<usize>, u64)>,
    ) {
        if delimited.is_empty() {
            return;
        }
        if let Some(whole) = &self.whole {
            // The resources copied out for the workers (into the buffer the last batch
            // left, kept for the next), their ranges moved with them.
            let whole = (**whole).as_ref();
            let from = delimited.first().map_or(0, |(r, _)| r.start);
            let to = delimited.last().map_or(from, |(r, _)| r.end);
            let mut copy = std::mem::take(&mut self.buf);
            copy.clear();
            copy.extend_from_slice(whole.get(from..to).unwrap_or_default());
            for (range, _) in delimited.iter_mut() {
                *range = range.start.saturating_sub(from)..range.end.saturating_sub(from);
            }
            let (len, base) = (copy.len(), self.base.saturating_add(from as u64));
            split(Delimited::new(&mut copy, len..len, base, delimited));
            self.buf = copy;
            delimited.clear();
            return;
        }
        let keep = self.start..self.end;
        split(Delimited::new(&mut self.buf, keep, self.base, delimited));
        delimited.clear();
        self.ahead.moved();
        self.base = self.base.saturating_add(self.start as u64);
        self.end = self.end.saturating_sub(self.start);
        self.start = 0;
    }

    /// Drops the bytes before the current unit and reads more (growing the buffer when the
    /// unit fills it).
    fn refill(&mut self) -> Result<(), StateError> {
        if self.whole.is_some() {
            // (A unit over the whole state, `more` false, never asks for more: this is not
            // reached, and must not loop if it were.)
            return Err(StateError::at(
                "",
                Some(self.end as u64),
                "more bytes asked of a state in memory",
            ));
        }
        // (`start <= end <= buf.len()`.)
        let unit = self.end.saturating_sub(self.start);
        self.buf.copy_within(self.start..self.end, 0);
        self.ahead.moved();
        self.base = self.base.saturating_add(self.start as u64);
        (self.start, self.end) = (0, unit);
        let max = self.options.max_unit_bytes;
        if unit >= max {
            return Err(StateError::at(
                "",
                Some(self.base),
                format_args!("a part of the state larger than max_unit_bytes ({max})"),
            ));
        }
        let read_size = self.options.read_size.max(1);
        if self.buf.len() < read_size {
            // From 64 KiB, doubling at each read up to `read_size`: a small file does not
            // pay for a large buffer (zero-filled, page by page).
            let len =
                (self.buf.len().saturating_mul(2)).clamp(FIRST_BUFFER.min(read_size), read_size);
            self.buf.resize(len.max(unit.saturating_add(1)), 0);
        } else if unit == self.buf.len() {
            let len = unit.saturating_mul(2).min(max.saturating_add(read_size));
            self.buf.resize(len, 0);
        }
        // Fill the buffer (or reach the end of the input).
        while self.end < self.buf.len() {
            let room = self.buf.get_mut(self.end..).unwrap_or_default();
            match self.input.read(room) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end = self.end.saturating_add(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let at = Some(self.base.saturating_add(self.end as u64));
                    return Err(StateError::at(
                        "",
                        at,
                        format_args!("reading the state: {e}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[path = "in_memory.rs"]
mod in_memory;
pub use in_memory::RELEASE_STEP;

#[cfg(test)]
#[path = "reader_tests.rs"]
mod tests;
