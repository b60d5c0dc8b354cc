//! What both executors share: [`Pending`] (an error with the value path recorded as it
//! unwinds), [`Counters`] (the depth cap and `max_depth`, the value and arena budgets, the
//! state of dynamic wrappers), the checks of a complete container, and the attribute table of
//! an object op.

use bumpalo::Bump;

use super::read_through;
use crate::error::{DecodeError, ErrorKind};
use crate::limits::{Limits, MAX_DEPTH};
use crate::path::UnwoundPath;
use crate::program::key::AttrEntry;
use crate::program::{ItemLimits, Program, Span};
use crate::schema::Type;
use crate::value::{Dynamic, Value};

/// An error found in the hot loop, turned into a [`DecodeError`] (with its path) once the
/// frames are no longer borrowed. One word: kind, byte offset, message, and the value path
/// as the recursive executor unwinds (innermost step first; the JSON executor renders its
/// path from its stack instead and leaves it empty).
pub(super) struct Pending(pub(super) Box<(ErrorKind, usize, String, UnwoundPath)>);

impl Pending {
    #[cold]
    #[inline(never)]
    pub(super) fn new(kind: ErrorKind, at: usize, message: String) -> Pending {
        Pending(Box::new((kind, at, message, UnwoundPath::default())))
    }

    /// The error happened inside attribute `name` of an object.
    #[cold]
    #[inline(never)]
    pub(super) fn in_attr(mut self, name: &str) -> Pending {
        self.0 .3.attr(name);
        self
    }

    /// The error happened inside the map element under `key`.
    #[cold]
    #[inline(never)]
    pub(super) fn in_key(mut self, key: &str) -> Pending {
        self.0 .3.key(key);
        self
    }

    /// The error happened inside element `i` of a list, set or tuple.
    #[cold]
    #[inline(never)]
    pub(super) fn in_index(mut self, i: usize) -> Pending {
        self.0 .3.index(i);
        self
    }

    /// The public error, its path rendered from the steps recorded while unwinding.
    #[cold]
    #[inline(never)]
    pub(super) fn into_error(self) -> DecodeError {
        let (kind, at, message, steps) = *self.0;
        DecodeError::new(kind, at, steps.render().to_string(), message)
    }
}

/// The counters of one decode: nesting depth against `max_depth` and [`MAX_DEPTH`], values and
/// container arena bytes against their budgets, and the open dynamic wrappers.
pub(super) struct Counters {
    limits: Limits,
    /// Containers (and dynamic wrappers) that may still open inside the current one:
    /// `min(max_depth, MAX_DEPTH)` at the start, as each one is a call.
    depth_left: u32,
    /// Levels `max_depth` allows beyond [`MAX_DEPTH`]: only a chain of `"dynamic"` wrappers,
    /// followed in a loop without calls, may use them.
    depth_beyond_cap: u32,
    /// Values and container arena bytes allocated so far (`Limits::max_values`,
    /// `Limits::max_arena_bytes`).
    values: u64,
    arena_bytes: u64,
    /// Open dynamic wrappers whose type holds `dynamic`: only the outermost reads through
    /// (`read_through.rs`), once.
    open_read_through: u32,
    /// True once a program of this decode has an attribute name longer than
    /// `max_string_len`: only then does a key that names an attribute need its length checked
    /// (and the in-order fast paths, which do not read the key's length, are not taken).
    pub(super) check_key_lengths: bool,
}

impl Counters {
    pub(super) fn new(program: &Program, limits: &Limits) -> Counters {
        Counters {
            limits: *limits,
            depth_left: limits.max_depth.min(MAX_DEPTH),
            depth_beyond_cap: limits.max_depth.saturating_sub(MAX_DEPTH),
            values: 0,
            arena_bytes: 0,
            open_read_through: 0,
            check_key_lengths: program.code.longest_attr_name > limits.max_string_len,
        }
    }

    /// One level deeper, by a call (a container or wrapper whose header is at `at` opens).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn enter(&mut self, at: usize) -> Result<(), Pending> {
        if self.depth_left == 0 {
            return Err(self.too_deep(at));
        }
        self.depth_left = self.depth_left.wrapping_sub(1);
        Ok(())
    }

    /// One level back up.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn leave(&mut self) {
        self.depth_left = self.depth_left.wrapping_add(1);
    }

    /// One level deeper without a call (a wrapper of type `"dynamic"` in a chain): taken from
    /// the levels `max_depth` allows beyond [`MAX_DEPTH`] first, so that it costs the calls
    /// below it nothing while there are such levels. Returns whether it took one of those.
    pub(super) fn enter_chained(&mut self, at: usize) -> Result<bool, Pending> {
        if self.depth_beyond_cap > 0 {
            self.depth_beyond_cap = self.depth_beyond_cap.wrapping_sub(1);
            return Ok(true);
        }
        self.enter(at)?;
        Ok(false)
    }

    /// Chained levels back up: `beyond` of them taken beyond the cap, `within` within it.
    pub(super) fn leave_chained(&mut self, beyond: u32, within: u32) {
        self.depth_beyond_cap = self.depth_beyond_cap.wrapping_add(beyond);
        self.depth_left = self.depth_left.wrapping_add(within);
    }

    /// Levels a skipped value may still nest, with `extra` more open than entered.
    pub(super) fn skip_depth(&self, extra: usize) -> usize {
        (self.depth_left as usize)
            .saturating_add(self.depth_beyond_cap as usize)
            .saturating_sub(extra)
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self, at: usize) -> Pending {
        let max = self.limits.max_depth;
        let msg = if max <= MAX_DEPTH {
            format!("nesting deeper than max_depth ({max})")
        } else {
            format!("nesting deeper than MAX_DEPTH ({MAX_DEPTH}), the executors' recursion cap")
        };
        Pending::new(ErrorKind::Limit, at, msg)
    }

    /// Charges a container of `n` values of `size` bytes each against `max_values` and
    /// `max_arena_bytes`, before it is allocated.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn charge(&mut self, n: u32, size: usize, at: usize) -> Result<(), Pending> {
        // No overflow: `n × size` is below 2³² × 2⁶, and every charge but the last was
        // allocated, so the sums stay below the address space plus one charge.
        self.values = self.values.wrapping_add(n as u64);
        let bytes = (n as u64).wrapping_mul(size as u64);
        self.arena_bytes = self.arena_bytes.wrapping_add(bytes);
        if self.values > self.limits.max_values || self.arena_bytes > self.limits.max_arena_bytes {
            return Err(self.over_budget(at));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn over_budget(&self, at: usize) -> Pending {
        let limits = &self.limits;
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

    /// A dynamic wrapper of program `sub` opens: returns whether it reads through (its type
    /// holds `dynamic` and is not `"dynamic"` itself).
    pub(super) fn wrapper_opened(&mut self, sub: &Program) -> bool {
        self.check_key_lengths |= sub.code.longest_attr_name > self.limits.max_string_len;
        let reads_through = !sub.code.concrete && sub.code.root_type != Type::Dynamic;
        if reads_through {
            self.open_read_through = self.open_read_through.saturating_add(1);
        }
        reads_through
    }

    /// The value of a wrapper of program `sub` (header at `at`) once decoded: read through
    /// (by the outermost wrapper whose type holds `dynamic`) and tagged with its program.
    #[inline(never)]
    pub(super) fn wrapper_value<'a>(
        &mut self,
        root: &'a Program,
        bump: &'a Bump,
        sub: &'a Program,
        mut value: Value<'a>,
        reads_through: bool,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let mut program = sub;
        if reads_through {
            self.open_read_through = self.open_read_through.saturating_sub(1);
            if self.open_read_through == 0 {
                let max_types = self.limits.max_dynamic_types;
                (program, value) = read_through::read_through(root, bump, sub, value, max_types)
                    .map_err(|(kind, msg)| Pending::new(kind, at, msg))?;
            }
        }
        // A typed null or unknown keeps its type too (go-cty writes it back as
        // `[type, nil]`); the DUMP shows it bare.
        Ok(Value::Dynamic(bump.alloc(Dynamic { program, value })))
    }
}

/// The checks of a complete list or set (header at `at`): the block's item count (when asked
/// for, and the list held no unknown), and one concrete type for dynamic elements. (Called
/// only when one of them applies.)
#[inline(never)]
pub(super) fn seq_complete(
    out: &[Value<'_>],
    items: ItemLimits,
    check_items: bool,
    dynamic: bool,
    at: usize,
) -> Result<(), Pending> {
    if check_items && !items.is_none() {
        let n = out.len() as u64;
        if n < items.min || (items.max > 0 && n > items.max) {
            let msg = item_count_message(n, items);
            return Err(Pending::new(ErrorKind::ItemCount, at, msg));
        }
    }
    if dynamic {
        check_consistent(out.iter(), at)?;
    }
    Ok(())
}

/// The check of a complete map of dynamic elements (header at `at`): one concrete type.
#[inline(never)]
pub(super) fn map_complete(out: &[(&str, Value<'_>)], at: usize) -> Result<(), Pending> {
    check_consistent(out.iter().map(|(_, v)| v), at)
}

/// An object op's dispatch entries and names, looked up once per object.
pub(super) struct AttrTable<'a> {
    pub(super) entries: &'a [AttrEntry],
    pub(super) names: &'a [Box<str>],
    /// The object is a projection's ([`Program::select`]): a key it does not name is
    /// stepped over whatever the options say.
    pub(super) projected: bool,
}

impl<'a> AttrTable<'a> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn of(prog: &'a Program, attrs: Span) -> AttrTable<'a> {
        // (A span the compiler built; an impossible one reads as no attributes.)
        AttrTable {
            entries: prog.code.attrs.get(attrs.range()).unwrap_or_default(),
            names: prog.code.attr_names.get(attrs.range()).unwrap_or_default(),
            projected: prog.code.projected,
        }
    }

    /// The name of attribute `j` (for messages and paths).
    #[cold]
    pub(super) fn name(&self, j: usize) -> &'a str {
        self.names.get(j).map_or("", |n| n)
    }
}

/// The index of the attribute named `key` among `names` (sorted bytewise). A few names (a
/// projection's objects) are compared one by one, length first, which most keys fail without
/// a `memcmp`; more are binary-searched.
#[inline]
pub(super) fn find_name(names: &[Box<str>], key: &[u8]) -> Option<usize> {
    if names.len() <= 8 {
        return names
            .iter()
            .position(|n| n.len() == key.len() && n.as_bytes() == key);
    }
    names.binary_search_by(|n| n.as_bytes().cmp(key)).ok()
}

/// A bitmap of the attributes of an object seen so far (once keys arrive out of order), in
/// the arena.
pub(super) struct Seen<'a>(&'a mut [u64]);

impl<'a> Seen<'a> {
    /// `n` attributes, the first `first` of them seen.
    pub(super) fn new(bump: &'a Bump, n: usize, first: usize) -> Seen<'a> {
        let words = bump.alloc_slice_fill_copy(n.div_ceil(64), 0u64);
        for j in 0..first {
            if let Some(word) = words.get_mut(j / 64) {
                *word |= bit_of(j as u32);
            }
        }
        Seen(words)
    }

    /// Marks attribute `j` seen; false if it already was (or is out of range).
    pub(super) fn insert(&mut self, j: usize) -> bool {
        match self.0.get_mut(j / 64) {
            Some(word) if *word & bit_of(j as u32) == 0 => {
                *word |= bit_of(j as u32);
                true
            }
            _ => false,
        }
    }

    /// The first attribute of `n` not seen.
    pub(super) fn first_missing(&self, n: usize) -> Option<usize> {
        (0..n).find(|&j| self.0.get(j / 64).is_none_or(|w| w & bit_of(j as u32) == 0))
    }
}

/// A duplicate attribute key (at `at`): the error has the attribute's path.
#[cold]
#[inline(never)]
pub(super) fn duplicate_attribute(name: &str, at: usize) -> Pending {
    let msg = format!("duplicate attribute {name:?}");
    Pending::new(ErrorKind::DuplicateKey, at, msg).in_attr(name)
}

/// A missing attribute of the object whose header is at `at`.
#[cold]
#[inline(never)]
pub(super) fn missing_attribute(name: &str, at: usize) -> Pending {
    let msg = format!("attribute {name:?} is required");
    Pending::new(ErrorKind::MissingAttribute, at, msg)
}

/// Bit `i % 64` of a word of the seen-attributes bitmap.
#[inline(always)]
fn bit_of(i: u32) -> u64 {
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
fn check_consistent<'v, 'a: 'v>(
    values: impl Iterator<Item = &'v Value<'a>>,
    at: usize,
) -> Result<(), Pending> {
    let mut first: Option<&Program> = None;
    for v in values {
        if let Value::Dynamic(d) = v {
            match first {
                None => first = Some(d.program),
                Some(p)
                    if std::ptr::eq(p, d.program)
                        || p.code.root_type == d.program.code.root_type => {}
                Some(p) => {
                    let msg = format!(
                        "elements have different types: {} and {}",
                        p.code.root_type, d.program.code.root_type
                    );
                    return Err(Pending::new(ErrorKind::InconsistentTypes, at, msg));
                }
            }
        }
    }
    Ok(())
}

fn item_count_message(n: u64, items: ItemLimits) -> String {
    if n < items.min {
        format!("at least {} blocks are required ({n} given)", items.min)
    } else {
        format!("at most {} blocks are allowed ({n} given)", items.max)
    }
}
