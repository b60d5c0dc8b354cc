//! Format-independent parts of the executors: the frames of containers under construction,
//! the [`Builder`] that owns the stack and turns complete frames into values, the checks a
//! complete container must pass, and the error path rendered from the stack.

use bumpalo::Bump;

use super::path::{render, Step};
use super::read_through;
use crate::error::{DecodeError, ErrorKind};
use crate::program::{DecodeOptions, ItemLimits, Op, OpId, Program, Span};
use crate::schema::Type;
use crate::value::{Dynamic, Value};

/// An error found in the hot loop, turned into a [`DecodeError`] (with its path) once the
/// frames are no longer borrowed. One word: kind, byte offset, message, and the value path
/// as the recursive executor unwinds (innermost step first; the JSON executor renders its
/// path from its stack instead and leaves it empty).
pub(super) struct Pending(pub(super) Box<(ErrorKind, usize, String, Vec<OwnedStep>)>);

/// A path step recorded while an error unwinds through the containers that hold it.
pub(super) enum OwnedStep {
    Attr(Box<str>),
    Key(Box<str>),
    Index(usize),
}

impl Pending {
    #[cold]
    #[inline(never)]
    pub(super) fn new(kind: ErrorKind, at: usize, message: String) -> Pending {
        Pending(Box::new((kind, at, message, Vec::new())))
    }

    /// The error happened inside attribute `name` of an object.
    #[cold]
    #[inline(never)]
    pub(super) fn in_attr(mut self, name: &str) -> Pending {
        self.0 .3.push(OwnedStep::Attr(name.into()));
        self
    }

    /// The error happened inside the map element under `key`.
    #[cold]
    #[inline(never)]
    pub(super) fn in_key(mut self, key: &str) -> Pending {
        self.0 .3.push(OwnedStep::Key(key.into()));
        self
    }

    /// The error happened inside element `i` of a list, set or tuple.
    #[cold]
    #[inline(never)]
    pub(super) fn in_index(mut self, i: usize) -> Pending {
        self.0 .3.push(OwnedStep::Index(i));
        self
    }

    /// The public error, its path rendered from the steps recorded while unwinding.
    #[cold]
    #[inline(never)]
    pub(super) fn into_error(self) -> DecodeError {
        let (kind, at, message, steps) = *self.0;
        let steps: Vec<Step<'_>> = steps
            .iter()
            .rev()
            .map(|s| match s {
                OwnedStep::Attr(n) => Step::Attr(n),
                OwnedStep::Key(k) => Step::Key(k),
                OwnedStep::Index(i) => Step::Index(*i),
            })
            .collect();
        DecodeError::new(kind, at, render(&steps), message)
    }
}

/// A container under construction.
pub(super) enum Kind<'a> {
    /// The bottom frame: its one child is the whole value.
    Root { value: Value<'a> },
    /// List or set: `elem` for every element.
    Seq {
        out: &'a mut [Value<'a>],
        elem: OpId,
        set: bool,
        items: ItemLimits,
    },
    Tuple {
        out: &'a mut [Value<'a>],
        elems: Span,
    },
    Map {
        out: &'a mut [(&'a str, Value<'a>)],
        elem: OpId,
    },
    Object {
        out: &'a mut [Value<'a>],
        op: OpId,
        attrs: Span,
        /// Index of the attribute expected next (keys arrive sorted).
        next: u32,
        /// Attribute being decoded (for paths), `u32::MAX` while the value of an unknown key
        /// ([`Builder::skipped_key`]) is skipped.
        current: u32,
        /// Offset in `seen_bits` once keys arrived out of order, else `u32::MAX`.
        bits: u32,
    },
    /// A dynamic wrapper: the value inside runs in `sub`; `outer` is restored after it.
    Dynamic {
        outer: &'a Program,
        sub: &'a Program,
        value: Value<'a>,
    },
}

pub(super) struct Frame<'a> {
    pub(super) kind: Kind<'a>,
    /// Entries read so far.
    pub(super) index: u32,
    /// Entries on the wire.
    pub(super) len: u32,
    /// Offset of the container's header.
    pub(super) start: usize,
    /// An unknown value was seen inside (for the item-count check).
    /// [`Builder::unknowns`] when the frame was pushed: a LIST/SET block holds an unknown
    /// (and skips the item-count check) when the count has moved by its completion.
    pub(super) unknowns_at_start: u64,
    /// A map's or object's key has been read and its value is being decoded (for paths).
    pub(super) in_value: bool,
}

impl<'a> Frame<'a> {
    pub(super) fn new(kind: Kind<'a>, len: u32, start: usize) -> Frame<'a> {
        Frame {
            kind,
            index: 0,
            len,
            start,
            unknowns_at_start: 0,
            in_value: false,
        }
    }
}

/// A child value: finished, or a container frame to fill.
pub(super) enum Item<'a> {
    Done(Value<'a>),
    Push(Frame<'a>),
}

/// The stack of frames and everything a decode builds with, shared by every wire format.
pub(super) struct Builder<'a> {
    pub(super) bump: &'a Bump,
    /// The program of the whole decode (its dynamic-type cache serves every wrapper).
    pub(super) root: &'a Program,
    /// The program of the innermost frame (differs from `root` inside dynamic values).
    pub(super) prog: &'a Program,
    /// The ancestors of the frame being filled. In the arena, like `seen_bits`: once the arena
    /// is warm (`Bump::reset` keeps its memory), a decode makes no heap allocation.
    pub(super) stack: bumpalo::collections::Vec<'a, Frame<'a>>,
    pub(super) seen_bits: bumpalo::collections::Vec<'a, u64>,
    pub(super) options: DecodeOptions,
    /// Unknown values decoded so far (see [`Frame::unknowns_at_start`]).
    pub(super) unknowns: u64,
    /// The unknown object key whose value is being skipped, for error paths. One for the
    /// whole stack: a skip pushes no frames, so only the innermost frame can be skipping.
    pub(super) skipped_key: &'a str,
    /// Open dynamic wrappers whose type holds `dynamic`: only the outermost reads through
    /// (`read_through.rs`), once.
    pub(super) open_read_through: u32,
    /// True once a program of this decode has an attribute name longer than
    /// `max_string_len`: only then does a key that names an attribute need its length
    /// checked (the one key rule of `max_string_len`).
    pub(super) check_key_lengths: bool,
    /// Values and container arena bytes allocated so far (`Limits::max_values`,
    /// `Limits::max_arena_bytes`).
    pub(super) values: u64,
    pub(super) arena_bytes: u64,
}

impl<'a> Builder<'a> {
    pub(super) fn new(program: &'a Program, bump: &'a Bump, options: &DecodeOptions) -> Self {
        Builder {
            bump,
            root: program,
            prog: program,
            stack: bumpalo::collections::Vec::new_in(bump),
            seen_bits: bumpalo::collections::Vec::new_in(bump),
            options: *options,
            unknowns: 0,
            skipped_key: "",
            open_read_through: 0,
            check_key_lengths: program.longest_attr_name > options.limits.max_string_len,
            values: 0,
            arena_bytes: 0,
        }
    }

    /// Makes `child` the frame being filled, `cur`'s parent.
    #[inline]
    pub(super) fn push(&mut self, cur: &mut Frame<'a>, child: Frame<'a>) -> Result<(), Pending> {
        if self.stack.len() >= self.options.limits.max_depth as usize {
            let msg = format!(
                "nesting deeper than max_depth ({})",
                self.options.limits.max_depth
            );
            return Err(Pending::new(ErrorKind::Limit, child.start, msg));
        }
        let mut child = child;
        child.unknowns_at_start = self.unknowns;
        self.stack.push(std::mem::replace(cur, child));
        Ok(())
    }

    /// Checks the complete frame `cur`, but hands the finished value back instead of
    /// storing it in the parent (for executors that collect a container's elements in scratch
    /// vectors and move them into `out` just before completing it, as the JSON VM does).
    /// Returns the value and whether `cur` was the root.
    #[inline]
    pub(super) fn complete_take(
        &mut self,
        cur: &mut Frame<'a>,
    ) -> Result<(Value<'a>, bool), Pending> {
        self.check_complete(cur)?;
        let Some(parent) = self.stack.pop() else {
            let value = match cur.kind {
                Kind::Root { value } => value,
                _ => Value::Null,
            };
            return Ok((value, true));
        };
        let done = std::mem::replace(cur, parent);
        let value = self.build_inline(done);
        Ok((value, false))
    }

    /// Charges a container of `n` values of `size` bytes each against `max_values` and
    /// `max_arena_bytes`, before it is allocated.
    #[inline(always)]
    pub(super) fn charge(&mut self, n: u32, size: usize, at: usize) -> Result<(), Pending> {
        // No overflow: `n × size` is below 2³² × 2⁶ (a value slot is a few words), and every
        // charge but the last was allocated, so the sums stay below the address space plus
        // one charge (and `values <= arena_bytes`, every slot being at least one byte).
        self.values = self.values.wrapping_add(n as u64);
        let bytes = (n as u64).wrapping_mul(size as u64);
        self.arena_bytes = self.arena_bytes.wrapping_add(bytes);
        let limits = &self.options.limits;
        if self.values > limits.max_values || self.arena_bytes > limits.max_arena_bytes {
            return Err(self.over_budget(at));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn over_budget(&self, at: usize) -> Pending {
        let limits = &self.options.limits;
        let msg = if self.values > limits.max_values {
            format!("more than max_values ({}) values", limits.max_values)
        } else {
            format!(
                "more than max_arena_bytes ({}) bytes of containers",
                limits.max_arena_bytes
            )
        };
        Pending::new(ErrorKind::Limit, at, msg)
    }

    /// A new object frame for `len` entries on the wire.
    #[inline]
    pub(super) fn object_frame(
        &mut self,
        op: OpId,
        attrs: Span,
        len: u32,
        at: usize,
    ) -> Result<Frame<'a>, Pending> {
        self.charge(attrs.len, std::mem::size_of::<Value>(), at)?;
        let out = self
            .bump
            .alloc_slice_fill_copy(attrs.len as usize, Value::Null);
        let kind = Kind::Object {
            out,
            op,
            attrs,
            next: 0,
            current: u32::MAX,
            bits: u32::MAX,
        };
        Ok(Frame::new(kind, len, at))
    }

    /// Records that attribute `j` of the object `cur` arrived (its key at `at`) and returns
    /// its op. Duplicates are impossible while keys arrive in order; after the first
    /// out-of-order key a bitmap of the attributes seen takes over.
    #[inline(always)]
    pub(super) fn accept_attr(
        &mut self,
        cur: &mut Frame<'a>,
        j: u32,
        at: usize,
    ) -> Result<(OpId, Op), Pending> {
        let prog = self.prog;
        let Kind::Object {
            attrs,
            next,
            current,
            bits,
            ..
        } = &mut cur.kind
        else {
            return Err(internal(at));
        };
        if *bits == u32::MAX && j != *next {
            let words = (attrs.len as usize).div_ceil(64);
            let base = self.seen_bits.len();
            *bits = base as u32;
            self.seen_bits.resize(base.saturating_add(words), 0);
            let seen = self.seen_bits.get_mut(base..).unwrap_or_default();
            for i in 0..*next {
                if let Some(word) = seen.get_mut(i as usize / 64) {
                    *word |= bit_of(i);
                }
            }
        }
        *current = j;
        cur.in_value = true;
        // `j < attrs.len`, an attribute of the span the compiler built: these indexes are in
        // `prog`'s tables (a bad one is an error below, not a panic) and `j + 1` cannot wrap.
        let k = (attrs.start as usize).wrapping_add(j as usize);
        if *bits != u32::MAX {
            let w = (*bits as usize).wrapping_add(j as usize / 64);
            let Some(word) = self.seen_bits.get_mut(w) else {
                return Err(internal(at));
            };
            let bit = bit_of(j);
            if *word & bit != 0 {
                let name = prog.attr_names.get(k).map_or("", |n| &**n);
                let msg = format!("duplicate attribute {name:?}");
                return Err(Pending::new(ErrorKind::DuplicateKey, at, msg));
            }
            *word |= bit;
        }
        *next = j.wrapping_add(1);
        let Some(entry) = prog.attrs.get(k) else {
            return Err(internal(at));
        };
        Ok((entry.op, entry.code))
    }

    /// The object `cur` skips the value of its unknown key `key` (with the drift option): an
    /// error inside that value has the path of `key`.
    #[inline]
    pub(super) fn skipping_unknown_key(&mut self, cur: &mut Frame<'a>, key: &'a str) {
        self.skipped_key = key;
        if let Kind::Object { current, .. } = &mut cur.kind {
            *current = u32::MAX;
        }
        cur.in_value = true;
    }

    /// Checks that may fail once a container is complete; the frame is still `cur`, so an
    /// error gets the container's path.
    fn check_complete(&mut self, cur: &mut Frame<'a>) -> Result<(), Pending> {
        match &mut cur.kind {
            Kind::Seq {
                out, elem, items, ..
            } => {
                if self.options.check_item_counts
                    && !items.is_none()
                    && self.unknowns == cur.unknowns_at_start
                {
                    let n = out.len() as u64;
                    if n < items.min || (items.max > 0 && n > items.max) {
                        let msg = item_count_message(n, *items);
                        return Err(Pending::new(ErrorKind::ItemCount, cur.start, msg));
                    }
                }
                if matches!(self.prog.op(*elem), Op::Dynamic) {
                    check_consistent(out.iter(), cur.start)?;
                }
            }
            Kind::Map { out, elem } => {
                if matches!(self.prog.op(*elem), Op::Dynamic) {
                    check_consistent(out.iter().map(|(_, v)| v), cur.start)?;
                }
            }
            Kind::Object { .. } => self.object_complete(cur)?,
            // `["dynamic", V]` is V itself (V's wrapper already read through).
            Kind::Dynamic { sub, value, .. } if sub.root_type == Type::Dynamic => {
                if let Value::Dynamic(d) = *value {
                    (*sub, *value) = (d.program, d.value);
                }
            }
            Kind::Dynamic { sub, value, .. } if !sub.concrete => {
                self.open_read_through = self.open_read_through.saturating_sub(1);
                if self.open_read_through == 0 {
                    let max_types = self.options.limits.max_dynamic_types;
                    let (p, v) =
                        read_through::read_through(self.root, self.bump, sub, *value, max_types)
                            .map_err(|(kind, msg)| Pending::new(kind, cur.start, msg))?;
                    (*sub, *value) = (p, v);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Called when a dynamic wrapper of program `sub` opens.
    #[inline]
    pub(super) fn dynamic_opened(&mut self, sub: &Program) {
        self.check_key_lengths |= sub.longest_attr_name > self.options.limits.max_string_len;
        if !sub.concrete && sub.root_type != Type::Dynamic {
            self.open_read_through = self.open_read_through.saturating_add(1);
        }
    }

    /// Turns a complete frame into its value, inlined into the caller: the value's parts then go straight
    /// to where the caller stores them, instead of through a returned temporary whose tag
    /// byte is re-read as a word (a store-forwarding stall on every container).
    #[inline(always)]
    fn build_inline(&mut self, frame: Frame<'a>) -> Value<'a> {
        match frame.kind {
            Kind::Seq {
                out, set: false, ..
            } => Value::List(out),
            Kind::Seq { out, set: true, .. } => Value::Set(out),
            Kind::Tuple { out, .. } => Value::Tuple(out),
            Kind::Map { out, .. } => Value::Map(out),
            Kind::Object { out, op, bits, .. } => {
                if bits != u32::MAX {
                    self.seen_bits.truncate(bits as usize);
                }
                Value::Object { op, attrs: out }
            }
            Kind::Dynamic { outer, sub, value } => {
                self.prog = outer;
                match value {
                    // A typed null or unknown loses its type, as in the DUMP.
                    Value::Null | Value::Unknown(_) => value,
                    v => Value::Dynamic(self.bump.alloc(Dynamic {
                        program: sub,
                        value: v,
                    })),
                }
            }
            Kind::Root { value } => value,
        }
    }

    /// At the end of an object: every attribute arrived, or missing ones may read as null.
    fn object_complete(&self, cur: &Frame<'a>) -> Result<(), Pending> {
        let Kind::Object {
            attrs, next, bits, ..
        } = &cur.kind
        else {
            return Ok(());
        };
        let missing = if *bits == u32::MAX {
            (*next < attrs.len).then_some(*next)
        } else {
            let seen = self.seen_bits.get(*bits as usize..).unwrap_or_default();
            (0..attrs.len).find(|&i| {
                seen.get(i as usize / 64)
                    .is_none_or(|&word| word & bit_of(i) == 0)
            })
        };
        match missing {
            Some(i) if !self.options.missing_attributes_null => {
                let k = (attrs.start as usize).saturating_add(i as usize);
                let name = self.prog.attr_names.get(k).map_or("", |n| &**n);
                let msg = format!("attribute {name:?} is required");
                Err(Pending::new(ErrorKind::MissingAttribute, cur.start, msg))
            }
            _ => Ok(()),
        }
    }

    /// Builds the public error, rendering the path from the stack and the innermost frame.
    #[cold]
    #[inline(never)]
    pub(super) fn fail(&self, cur: &Frame<'a>, p: Pending) -> DecodeError {
        let (kind, at, message, _) = *p.0;
        let mut steps = Vec::new();
        let mut prog = self.root;
        for frame in self.stack.iter().chain(std::iter::once(cur)) {
            let i = frame.index as usize;
            match &frame.kind {
                Kind::Seq { .. } | Kind::Tuple { .. } if frame.index < frame.len => {
                    steps.push(Step::Index(i))
                }
                Kind::Map { out, .. } if frame.in_value => {
                    if let Some((k, _)) = out.get(i) {
                        steps.push(Step::Key(k));
                    }
                }
                Kind::Object { attrs, current, .. } if frame.in_value => {
                    let k = (attrs.start as usize).saturating_add(*current as usize);
                    match prog.attr_names.get(k).filter(|_| *current != u32::MAX) {
                        Some(name) => steps.push(Step::Attr(name)),
                        None => steps.push(Step::Attr(self.skipped_key)),
                    }
                }
                Kind::Dynamic { sub, .. } if frame.index < frame.len => prog = sub,
                _ => {}
            }
        }
        DecodeError::new(kind, at, render(&steps), message)
    }
}

/// Stores a finished child container's value in the frame that was waiting for it.
pub(super) fn store<'a>(top: &mut Frame<'a>, value: Value<'a>) {
    let i = top.index as usize;
    match &mut top.kind {
        Kind::Seq { out, .. } | Kind::Tuple { out, .. } => {
            if let Some(slot) = out.get_mut(i) {
                *slot = value;
            }
        }
        Kind::Map { out, .. } => {
            if let Some(slot) = out.get_mut(i) {
                slot.1 = value;
            }
        }
        Kind::Object { out, current, .. } => {
            if let Some(slot) = out.get_mut(*current as usize) {
                *slot = value;
            }
        }
        Kind::Dynamic { value: v, .. } | Kind::Root { value: v } => *v = value,
    }
    // `index < len <= u32::MAX` in a frame that receives a child (for a JSON object,
    // `index < u32::MAX`, which `fill_object` checks before every key): cannot wrap.
    top.index = top.index.wrapping_add(1);
    top.in_value = false;
}

/// Bit `i % 64` of a word of the seen-attributes bitmap.
#[inline(always)]
pub(super) fn bit_of(i: u32) -> u64 {
    1u64 << (i % 64)
}

/// A program table did not hold what the compiler put there: impossible, but an error rather
/// than a panic.
#[cold]
#[inline(never)]
pub(super) fn internal(at: usize) -> Pending {
    Pending::new(
        ErrorKind::Syntax,
        at,
        "internal: inconsistent program".into(),
    )
}

/// Elements of a collection of dynamic values must share one concrete type.
pub(super) fn check_consistent<'v, 'a: 'v>(
    values: impl Iterator<Item = &'v Value<'a>>,
    at: usize,
) -> Result<(), Pending> {
    let mut first: Option<&Program> = None;
    for v in values {
        if let Value::Dynamic(d) = v {
            match first {
                None => first = Some(d.program),
                Some(p) if std::ptr::eq(p, d.program) || p.root_type == d.program.root_type => {}
                Some(p) => {
                    let msg = format!(
                        "elements have different types: {} and {}",
                        p.root_type, d.program.root_type
                    );
                    return Err(Pending::new(ErrorKind::InconsistentTypes, at, msg));
                }
            }
        }
    }
    Ok(())
}

pub(super) fn item_count_message(n: u64, items: ItemLimits) -> String {
    if n < items.min {
        format!("at least {} blocks are required ({n} given)", items.min)
    } else {
        format!("at most {} blocks are allowed ({n} given)", items.max)
    }
}

impl<'a> Builder<'a> {
    /// Every key counts against `max_string_len`, attribute names included, in both formats:
    /// the one rule of [`crate::Limits::max_string_len`]. Called for a key that matched
    /// attribute `j` of `attrs` (only when `check_key_lengths`).
    #[cold]
    #[inline(never)]
    pub(super) fn check_key_len(&self, attrs: Span, j: u32, at: usize) -> Result<(), Pending> {
        let k = (attrs.start as usize).saturating_add(j as usize);
        let name = self.prog.attr_names.get(k).map_or("", |n| &**n);
        let max = self.options.limits.max_string_len;
        if name.len() > max as usize {
            let msg = format!(
                "string of {} bytes exceeds max_string_len ({max})",
                name.len()
            );
            return Err(Pending::new(ErrorKind::Limit, at, msg));
        }
        Ok(())
    }
}
