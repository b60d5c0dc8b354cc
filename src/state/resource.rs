//! A resource's keys, read by the state reader's resource unit (`envelope.rs`): first in
//! the order Terraform and OpenTofu write them (`keys_in_order`: literal keys compared in
//! place, plain strings, whitespace allowed between tokens), else one key at a time; the
//! resource built from them ([`Unit::resource`]), its provider reference known by its bytes
//! when the walk has seen it (`providers.rs`), the instances of a resource the set does not
//! want stepped over a unit's worth at a time (`unwanted_instances`), the resources of that
//! type right after it stepped over in the same unit (`Unit::unwanted_run`; a resource whose
//! bytes are those of the one before it but for its name taken by two compares,
//! `same_header`), and the instances of a resource whose keys came after them. Tests:
//! `resource_tests.rs`.

use bumpalo::Bump;

use super::envelope::{Phase, Stop, Unit, Visit, Walk};
use super::providers::ProviderCache;
use super::values::{err, Ctx};
use super::Mode;
use crate::decode::json::tokens;

/// At most this many instances (and tail keys) of a streamed resource are read in the unit
/// that read its keys ([`Unit::rest_of_resource`]): the unit's scratch, reset between units,
/// holds what their keys and skips leave behind.
const RESOURCE_ITEMS: usize = 64;

/// A unit that steps over resources after one of a type not wanted ([`Unit::unwanted_run`])
/// starts none more than this many bytes after the first: a read's worth, so that a unit
/// stays about the size of the others. (The hardware's prefetcher keeps up with the scan
/// past the lines the reader asks for ahead of a unit: runs of 64 KiB and 1 MiB measured
/// the same, runs of 4 KiB slower — `perf/optimizations.md`, F48.)
const UNWANTED_RUN: usize = 1 << 20;

/// A resource's keys other than `instances`, as read.
#[derive(Default)]
struct ResourceKeys<'u> {
    mode: Option<&'u str>,
    type_name: Option<&'u str>,
    name: Option<&'u str>,
    provider: ProviderKey<'u>,
    module: Option<&'u str>,
}

/// A resource's `provider` as read.
#[derive(Default)]
enum ProviderKey<'u> {
    /// Absent, or `null`.
    #[default]
    Missing,
    /// The same JSON string as the reference the walk's [`ProviderCache`] keeps at this
    /// index.
    Kept(usize),
    /// The reference, and its JSON string token.
    Read(&'u str, &'u [u8]),
}

impl ResourceKeys<'_> {
    fn complete(&self) -> bool {
        self.mode.is_some()
            && self.type_name.is_some()
            && self.name.is_some()
            && !matches!(self.provider, ProviderKey::Missing)
    }
}

/// A resource's keys before `instances` in the order Terraform and OpenTofu write them
/// (`writeStateV4`'s field order), compact or indented, from its `{` at `i`: `"module"` (optional), `"mode"`,
/// `"type"`, `"name"`, `"each"` (optional, not kept) and `"provider"`, each key quoted and
/// directly followed by its colon, each value a plain string (`tokens::plain_string`; the
/// provider's one the walk has kept), then `"instances":[`; whitespace between the tokens, as
/// in Terraform's indented files and none in compact ones. The keys and the position of that
/// `[`; `None` for anything else, which the general loop of [`Unit::resource`] reads (and
/// reads the same way).
#[inline(always)]
fn keys_in_order<'u>(
    buf: &'u [u8],
    i: usize,
    providers: &ProviderCache,
) -> Option<(ResourceKeys<'u>, usize)> {
    keys_and_header(buf, i, providers).map(|(keys, header)| (keys, header.list))
}

/// [`keys_in_order`], with where its bytes lie ([`Header`]).
#[inline(always)]
fn keys_and_header<'u>(
    buf: &'u [u8],
    i: usize,
    providers: &ProviderCache,
) -> Option<(ResourceKeys<'u>, Header)> {
    let mut keys = ResourceKeys::default();
    let mut p = tokens::ws(buf, i.wrapping_add(1));
    if let Some(v) = key_value(buf, p, b"\"module\":") {
        let (module, end) = tokens::plain_string(buf, v)?;
        keys.module = Some(module);
        p = next_key(buf, end)?;
    }
    let (mode, end) = tokens::plain_string(buf, key_value(buf, p, b"\"mode\":")?)?;
    let (type_name, end) =
        tokens::plain_string(buf, key_value(buf, next_key(buf, end)?, b"\"type\":")?)?;
    let name_at = key_value(buf, next_key(buf, end)?, b"\"name\":")?;
    let (name, end) = tokens::plain_string(buf, name_at)?;
    let after_name = end;
    let mut p = next_key(buf, end)?;
    if let Some(v) = key_value(buf, p, b"\"each\":") {
        p = next_key(buf, tokens::plain_string(buf, v)?.1)?;
    }
    let (kept, end) = providers.token_at(buf, key_value(buf, p, b"\"provider\":")?)?;
    let list = key_value(buf, next_key(buf, end)?, b"\"instances\":")?;
    (buf.get(list) == Some(&b'[')).then_some(())?;
    keys.mode = Some(mode);
    keys.type_name = Some(type_name);
    keys.name = Some(name);
    keys.provider = ProviderKey::Kept(kept);
    let header = Header {
        open: i,
        name: name_at,
        after_name,
        list,
    };
    Some((keys, header))
}

/// Where the keys of a resource read by [`keys_in_order`] lie: its `{`, its name's opening
/// quote, the position after the name's closing quote, and its instances' `[`.
#[derive(Clone, Copy)]
struct Header {
    open: usize,
    name: usize,
    after_name: usize,
    list: usize,
}

/// The `[` of the instances of the resource at `i` (its `{`) when its bytes are those of
/// `header`'s resource but for a plain name: the same bytes from the `{` to the name's
/// opening quote, a plain string (`tokens::plain_string`), then the same bytes to the `[`.
/// [`keys_in_order`] reads such a resource as it read `header`'s — the same keys and
/// values, the name aside — since what it decides on are those bytes, read the same way
/// wherever they are, and the 32-byte blocks `plain_string` needs after each quote: those
/// of the module, mode and type lie within the name's (which is read here), and the `each`
/// value's within the bytes to the `[` (a kept provider token, at least `"provider.x"`,
/// and `"instances":[` follow it); `None` for anything else. (Two compares of the bytes of
/// a resource of a run instead of a token at a time: a run's resources differ, mostly, by
/// name.)
#[inline(always)]
fn same_header(buf: &[u8], i: usize, header: Header) -> Option<usize> {
    let before_name = buf.get(header.open..=header.name)?;
    let quote = i.wrapping_add(before_name.len()).wrapping_sub(1);
    (buf.get(i..=quote)? == before_name).then_some(())?;
    let (_, after_name) = tokens::plain_string(buf, quote)?;
    let rest = buf.get(header.after_name..=header.list)?;
    let list = after_name.wrapping_add(rest.len()).wrapping_sub(1);
    (buf.get(after_name..=list)? == rest).then_some(list)
}

/// The instances of a resource the set does not want, from their `[` at `list`: each stepped
/// over as [`Unit::instance`] steps over one (delimited by its brackets counted outside
/// strings, not checked), at most [`RESOURCE_ITEMS`] of them, as the walk reads a unit. The
/// position after them and their number, and whether the resource ended there: after its `}`
/// when only whitespace stands between the last instance, the `]` and the `}`, else at the
/// `,` before the next instance (the walk goes on from there one instance at a time). `None`
/// for anything else (tail keys, the buffer's end, a fault), which the walk reads one item at
/// a time from the `[`.
#[inline(always)]
fn unwanted_instances(buf: &[u8], list: usize) -> Option<(usize, u64, bool)> {
    // (Positions step over bytes just read, or a counted end within `buf`.)
    let mut p = tokens::ws(buf, list.wrapping_add(1));
    let mut n = 0u64;
    if buf.get(p) != Some(&b']') {
        loop {
            p = tokens::object_end_counted(buf, p)?;
            n = n.saturating_add(1);
            let at = tokens::ws(buf, p);
            match buf.get(at) {
                Some(b',') if n < RESOURCE_ITEMS as u64 => p = tokens::ws(buf, at.wrapping_add(1)),
                Some(b',') => return Some((p, n, false)),
                Some(b']') => {
                    p = at;
                    break;
                }
                _ => return None,
            }
        }
    }
    let close = tokens::ws(buf, p.wrapping_add(1));
    (buf.get(close) == Some(&b'}')).then(|| (close.wrapping_add(1), n, true))
}

/// The position of the value of the key `key` (quoted, with its colon) at `p`, whitespace
/// stepped over; `None` when another key is there.
#[inline(always)]
fn key_value(buf: &[u8], p: usize, key: &'static [u8]) -> Option<usize> {
    after_literal(buf, p, key).map(|v| tokens::ws(buf, v))
}

/// The position of the next key after the value that ends at `end`: a comma, whitespace
/// around it stepped over; `None` when no comma is there.
#[inline(always)]
fn next_key(buf: &[u8], end: usize) -> Option<usize> {
    after_literal(buf, tokens::ws(buf, end), b",").map(|p| tokens::ws(buf, p))
}

/// The position after `literal` when `buf` holds it at `p`. (Inlined, so that the compare
/// is of a constant length: a few wide loads, no `memcmp` call.)
#[inline(always)]
fn after_literal(buf: &[u8], p: usize, literal: &'static [u8]) -> Option<usize> {
    let rest = buf.get(p..)?;
    rest.starts_with(literal)
        .then(|| p.wrapping_add(literal.len()))
}

impl<'u> Unit<'u> {
    /// A resource at `i` (its `{`): its keys up to `instances`, when they name the schema,
    /// and the instances of a resource the set does not want as far as a unit reads them;
    /// or else the whole resource with its instances.
    pub(super) fn resource<F: Visit>(
        &self,
        i: usize,
        walk: &mut Walk,
        bump: &mut Bump,
        f: &mut F,
    ) -> Result<usize, Stop> {
        let ctx = Ctx::Resource(walk.resource_index);
        self.object_at(i, ctx)?;
        if let Some((keys, list)) = keys_in_order(self.buf, i, &walk.providers) {
            self.build_resource(keys, ctx, walk)?;
            return Ok(self.streamed_instances(list, walk, bump, f));
        }
        let mut keys = ResourceKeys::default();
        // Where the instances array of a resource read whole starts.
        let mut instances_at = None;
        let mut j = i.wrapping_add(1);
        let mut first = true;
        loop {
            let at = tokens::ws(self.buf, j);
            let Some(&c) = self.buf.get(at) else {
                return Err(self.eof(at));
            };
            let Some(at) = self.separator(at, c, first, b'}')? else {
                self.build_resource(keys, ctx, walk)?;
                if let Some(list) = instances_at {
                    self.instances_in_place(list, walk, bump, f)?;
                }
                walk.phase = Phase::Resources { first: false };
                return Ok(at.wrapping_add(1));
            };
            first = false;
            let (k, v) = self.key(at)?;
            let slot = match k {
                "mode" => &mut keys.mode,
                "type" => &mut keys.type_name,
                "name" => &mut keys.name,
                "provider" => {
                    (keys.provider, j) = match walk.providers.token_at(self.buf, v) {
                        Some((kept, end)) => (ProviderKey::Kept(kept), end),
                        None => match self.opt_string(v, ctx, k)? {
                            (Some(s), end) => {
                                let token = self.buf.get(v..end).unwrap_or_default();
                                (ProviderKey::Read(s, token), end)
                            }
                            (None, end) => (ProviderKey::Missing, end),
                        },
                    };
                    continue;
                }
                "module" => &mut keys.module,
                "instances" => {
                    if self.buf.get(v) == Some(&b'n') {
                        instances_at = None;
                        j = self.literal(v, b"null")?;
                        continue;
                    }
                    if self.buf.get(v) != Some(&b'[') {
                        let msg = "instances: expected an array";
                        return Err(self.fail(ctx, v, msg));
                    }
                    if keys.complete() && instances_at.is_none() {
                        self.build_resource(keys, ctx, walk)?;
                        return Ok(self.streamed_instances(v, walk, bump, f));
                    }
                    instances_at = Some(v);
                    j = self.skip(v)?;
                    continue;
                }
                _ => {
                    j = self.skip(v)?;
                    continue;
                }
            };
            let (s, end) = self.opt_string(v, ctx, k)?;
            *slot = s;
            j = end;
        }
    }

    /// The instances of a resource whose keys came first (read, and the resource built),
    /// from their `[` at `list`: those of a type the set does not want stepped over a unit's
    /// worth at a time ([`unwanted_instances`]), else read as far as this unit goes
    /// ([`Unit::rest_of_resource`]). The position after what was read; the walk's phase is
    /// the one after it.
    fn streamed_instances<F: Visit>(
        &self,
        list: usize,
        walk: &mut Walk,
        bump: &mut Bump,
        f: &mut F,
    ) -> usize {
        if !walk.wanted {
            if let Some((end, n, whole)) = unwanted_instances(self.buf, list) {
                walk.stepped_over(n);
                walk.phase = match whole {
                    true => Phase::Resources { first: false },
                    false => Phase::Instances { first: false },
                };
                return end;
            }
        }
        walk.phase = Phase::Instances { first: true };
        self.rest_of_resource(list.wrapping_add(1), walk, bump, f)
    }

    /// After a resource of a type the set does not want (its `}` at `end - 1`), the
    /// resources that follow it in Terraform's form ([`keys_in_order`]), of the same type,
    /// with a mode that is one and a provider the walk has seen (or the bytes of the
    /// resource before them but for a plain name, [`same_header`]), their instances stepped
    /// over ([`unwanted_instances`]) — as the walk would step over each, one unit a
    /// resource, but without a unit's costs: the reader's loop, the phase dispatch, the
    /// resource kept in the walk (whose name and provider no one asks of a resource not
    /// wanted: afterwards the walk's resource is an earlier one of the same type). None
    /// that starts more than [`UNWANTED_RUN`] bytes after `end`, and none at or past the
    /// offset a part's walk stops before (where `stops_before` stops the walk). The
    /// position after the last resource stepped over; anything else is left to the next
    /// unit.
    pub(super) fn unwanted_run(&self, mut end: usize, walk: &mut Walk) -> usize {
        let buf = self.buf;
        let limit = end.saturating_add(UNWANTED_RUN);
        // The last resource of the run whose keys were read one by one.
        let mut last: Option<Header> = None;
        while end < limit {
            let comma = tokens::ws(buf, end);
            let i = tokens::ws(buf, comma.wrapping_add(1));
            if buf.get(comma) != Some(&b',') || buf.get(i) != Some(&b'{') {
                break;
            }
            if let Some(stop) = walk.stop_at {
                if self.base.saturating_add(i as u64) >= stop {
                    break;
                }
            }
            let list = match last.and_then(|header| same_header(buf, i, header)) {
                Some(list) => list,
                None => {
                    let Some((keys, header)) = keys_and_header(buf, i, &walk.providers) else {
                        break;
                    };
                    if keys.type_name != Some(walk.resource.type_name.as_str())
                        || keys.mode.and_then(Mode::from_key).is_none()
                    {
                        break;
                    }
                    last = Some(header);
                    header.list
                }
            };
            let Some((next, n, true)) = unwanted_instances(buf, list) else {
                break;
            };
            walk.begin_resource();
            walk.stepped_over(n);
            walk.resource_read();
            end = next;
        }
        end
    }

    /// A streamed resource's instances and tail keys from `pos`, read in this unit as far as
    /// they go: to the resource's `}` (the walk is then before the next resource), or
    /// [`RESOURCE_ITEMS`] of them, or the first that is not whole in the buffer. The position
    /// after the last one read; the walk's phase is the one after it, so the next unit goes
    /// on from there and nothing is handed out twice. (One unit a resource instead of one an
    /// item: each unit costs the reader's loop, the phase dispatch and the scratch reset.)
    fn rest_of_resource<F: Visit>(
        &self,
        mut pos: usize,
        walk: &mut Walk,
        bump: &mut Bump,
        f: &mut F,
    ) -> usize {
        for _ in 0..RESOURCE_ITEMS {
            let phase = walk.phase;
            match self.step(pos, walk, bump, f) {
                Ok(next) => {
                    pos = next;
                    if matches!(walk.phase, Phase::Resources { .. }) {
                        break;
                    }
                }
                // Read again by the next unit, which also names the fault of a bad item.
                Err(_) => {
                    walk.phase = phase;
                    break;
                }
            }
        }
        pos
    }

    /// The instances of a resource read whole (`list`: its `[`), all in the buffer.
    fn instances_in_place<F: Visit>(
        &self,
        list: usize,
        walk: &mut Walk,
        bump: &mut Bump,
        f: &mut F,
    ) -> Result<(), Stop> {
        let mut j = list.wrapping_add(1);
        let mut first = true;
        loop {
            self.at.set(Ctx::Instances(walk.resource_index));
            let at = tokens::ws(self.buf, j);
            let Some(&c) = self.buf.get(at) else {
                return Err(self.eof(at));
            };
            let Some(at) = self.separator(at, c, first, b']')? else {
                return Ok(());
            };
            first = false;
            j = self.instance(at, walk, bump, f)?;
        }
    }

    /// Sets the walk's resource (reusing its strings) to that of `keys`, checked as
    /// [`StateFile::parse`](super::StateFile::parse) checks it, and whether the set wants
    /// its instances ([`SchemaSet::wants_resource`](super::SchemaSet::wants_resource); the
    /// type asked only when it changes).
    fn build_resource(
        &self,
        keys: ResourceKeys<'u>,
        ctx: Ctx,
        walk: &mut Walk,
    ) -> Result<(), Stop> {
        let (resource, providers) = (&mut walk.resource, &mut walk.providers);
        let need = |v: Option<&'u str>, key: &'static str| {
            v.ok_or_else(|| Stop::Fail(err(ctx, format_args!("missing {key}"))))
        };
        let mode = need(keys.mode, "mode")?;
        resource.mode = Mode::from_key(mode)
            .ok_or_else(|| Stop::Fail(err(ctx, format_args!("invalid resource mode {mode:?}"))))?;
        let set = |field: &mut String, value: &str| {
            field.clear();
            field.push_str(value);
        };
        let type_name = need(keys.type_name, "type")?;
        if walk.type_wanted.is_none() || resource.type_name != type_name {
            set(&mut resource.type_name, type_name);
            walk.type_wanted = Some(self.set.wants(type_name));
            walk.type_id = self.set.type_id(type_name);
        }
        set(&mut resource.name, need(keys.name, "name")?);
        match keys.provider {
            ProviderKey::Missing => return Err(Stop::Fail(err(ctx, "missing provider"))),
            ProviderKey::Kept(k) => providers.set_kept(resource, k),
            ProviderKey::Read(reference, token) => providers
                .set(resource, reference, token)
                .map_err(|e| Stop::Fail(err(ctx, e.message())))?,
        }
        resource.module = keys.module.filter(|m| !m.is_empty()).map(str::to_string);
        walk.wanted = walk.type_wanted == Some(true) && self.set.keeps(&walk.resource);
        Ok(())
    }
}

#[cfg(test)]
#[path = "resource_tests.rs"]
mod tests;
