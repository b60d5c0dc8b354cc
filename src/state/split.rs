//! A state split at its resources, for [`StateReader::visit_parallel`](super::StateReader::visit_parallel)
//! (`batch.rs`): the walk only delimits each resource object of `resources` (its brackets
//! counted outside strings, 64 bytes at a time, by `decode/json/counted.rs`; nothing checked)
//! and hands on the read buffer that holds the resources ([`Delimited`]); a worker then reads
//! each resource with the envelope's own units (`envelope.rs`, [`ResourceReader`]), checking
//! and decoding everything as a walk with `--jobs 1` does, at the same file offsets and
//! resource indexes, so its instances and its errors are that walk's.
//!
//! A resource that does not fit in [`split_max`] bytes of the buffer is read by the walk
//! itself, its instances handed to the workers one by one with their attributes only
//! delimited (a worker checks them; the walk checks them itself when the instance fails after
//! them or names `attributes` again): memory stays bounded by a few batches and
//! `max_unit_bytes`.

use std::cell::Cell;
use std::ops::Range;

use bumpalo::Bump;

use super::envelope::{Phase, Stop, Unit, Visit, Walk};
use super::values::Ctx;
use super::{ReaderOptions, SchemaSet, StateError};
use crate::decode::json::tokens;
use crate::program::DecodeOptions;

/// The most bytes of one resource the walk delimits and hands on whole: 8 reads (8 MiB by
/// default), and less than `max_unit_bytes` (the walk reads a larger resource instance by
/// instance, as with one job).
pub(super) fn split_max(options: &ReaderOptions) -> usize {
    let reads = options.read_size.max(1).saturating_mul(8);
    reads.min(options.max_unit_bytes.saturating_sub(1))
}

/// A resource object as the walk delimited it: its bytes, their offset in the file, and its
/// index in `resources`.
pub(super) struct RawResource<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) offset: u64,
    pub(super) index: u64,
}

/// The resources the walk delimited in its buffer, handed on with the buffer itself (not
/// copied). The receiver calls [`Delimited::take`] or [`Delimited::leave`]: either way the
/// reader's buffer then starts with the bytes it still needs.
pub(super) struct Delimited<'a> {
    buf: &'a mut Vec<u8>,
    keep: Range<usize>,
    /// The file offset of `buf[0]`.
    pub(super) base: u64,
    /// Each resource: its bytes' range in the buffer and its index in `resources`.
    pub(super) resources: &'a [(Range<usize>, u64)],
}

impl<'a> Delimited<'a> {
    /// The reader's buffer `buf`, of which it still needs `keep`, with the resources
    /// delimited in it (`base`: the file offset of `buf[0]`).
    pub(super) fn new(
        buf: &'a mut Vec<u8>,
        keep: Range<usize>,
        base: u64,
        resources: &'a [(Range<usize>, u64)],
    ) -> Delimited<'a> {
        Delimited {
            buf,
            keep,
            base,
            resources,
        }
    }

    /// Takes the buffer, giving the reader `spare` instead (grown to the buffer's length,
    /// its start the bytes the reader still needs).
    pub(super) fn take(self, mut spare: Vec<u8>) -> Vec<u8> {
        // (A recycled buffer's bytes past what is kept are left as they are: the reader
        // reads over them.)
        let len = self.buf.len();
        if spare.len() < len {
            spare.resize(len, 0);
        }
        let kept = self.buf.get(self.keep).unwrap_or_default();
        if let Some(head) = spare.get_mut(..kept.len()) {
            head.copy_from_slice(kept);
        }
        std::mem::replace(self.buf, spare)
    }

    /// Leaves the buffer to the reader (the bytes it still needs moved to its start).
    pub(super) fn leave(self) {
        let end = self.keep.end.min(self.buf.len());
        self.buf.copy_within(self.keep.start.min(end)..end, 0);
    }
}

impl Unit<'_> {
    /// Before an element of `resources` (the walk's phase), the extent of the resource object
    /// there when the structural scan delimits it in the buffer; `None` when the walk's own
    /// step is to read what is there (the array's end, something not an object, a resource
    /// of `max` bytes or more, or cut short by the end of the input).
    pub(super) fn delimit_resource(
        &self,
        pos: usize,
        walk: &Walk,
        max: usize,
    ) -> Result<Option<Range<usize>>, Stop> {
        let Phase::Resources { first } = walk.phase else {
            return Ok(None);
        };
        self.at.set(Ctx::Resources);
        let i = tokens::ws(self.buf, pos);
        let Some(&c) = self.buf.get(i) else {
            return match self.more {
                true => Err(Stop::More),
                false => Ok(None),
            };
        };
        let Some(at) = self.separator(i, c, first, b']')? else {
            return Ok(None);
        };
        if self.buf.get(at) != Some(&b'{') {
            return Ok(None);
        }
        // Scanned no further than `max` bytes: a larger resource is read by the walk, its
        // instances handed on one by one, whether the buffer holds it whole or not (a state in
        // memory holds every resource whole).
        let within = self.buf.get(..at.saturating_add(max)).unwrap_or(self.buf);
        match tokens::object_end_counted(within, at) {
            Some(end) => Ok(Some(at..end)),
            None if self.more && self.buf.len().saturating_sub(at) < max => Err(Stop::More),
            None => Ok(None),
        }
    }
}

/// A worker's reader of delimited resources: the walk state (its provider cache and the
/// resource's strings kept from one resource to the next) and a scratch arena.
pub(super) struct ResourceReader {
    walk: Walk,
    scratch: Bump,
}

/// Instances handed out and instances stepped over (of types the set does not want).
#[derive(Clone, Copy, Default)]
pub(super) struct Counts {
    pub(super) instances: u64,
    pub(super) skipped: u64,
}

impl ResourceReader {
    pub(super) fn new() -> ResourceReader {
        ResourceReader {
            walk: Walk {
                version_seen: true,
                resources_seen: true,
                ..Walk::new(true, Phase::Resources { first: true })
            },
            scratch: Bump::new(),
        }
    }

    /// The instances handed out and stepped over so far.
    pub(super) fn counts(&self) -> Counts {
        Counts {
            instances: self.walk.summary.instances,
            skipped: self.walk.summary.skipped,
        }
    }

    /// Reads `raw` as the walk reads a resource, decoding its instances with `bump` and
    /// handing each to `f`; the error of a malformed one (after the instances before it).
    pub(super) fn read<F: Visit>(
        &mut self,
        raw: &RawResource<'_>,
        set: &SchemaSet,
        options: &DecodeOptions,
        bump: &mut Bump,
        f: &mut F,
    ) -> Result<(), StateError> {
        let walk = &mut self.walk;
        walk.phase = Phase::Resources { first: true };
        walk.summary.resources = raw.index;
        let mut pos = 0;
        loop {
            let result = Unit {
                buf: raw.bytes,
                base: raw.offset,
                more: false,
                set,
                options,
                scratch: &self.scratch,
                at: Cell::new(Ctx::Resources),
            }
            .step(pos, walk, bump, f);
            self.scratch.reset();
            match result {
                Ok(next) => pos = next,
                Err(Stop::Fail(e)) => return Err(e),
                // (Not reached: a unit with no more input fails where it ends.)
                Err(Stop::More) => {
                    let at = raw.offset.saturating_add(raw.bytes.len() as u64);
                    return Err(StateError::at(
                        Ctx::Resource(raw.index),
                        Some(at),
                        "invalid JSON: unexpected end of input",
                    ));
                }
            }
            if walk.phase == (Phase::Resources { first: false }) {
                return Ok(());
            }
        }
    }
}
