//! A resource's keys, read by the state reader's resource unit (`envelope.rs`): first in
//! the order Terraform and OpenTofu write them (`keys_in_order`: literal keys compared in
//! place, plain strings, whitespace allowed between tokens), else one key at a time; the
//! resource built from them ([`Unit::resource`]), its provider reference known by its bytes
//! when the walk has seen it (`providers.rs`), the instances of a resource the set does not
//! want stepped over a unit's worth at a time (`unwanted_instances`), the resources of that
//! type right after it stepped over in the same unit (`Unit::unwanted_run`), and the
//! instances of a resource whose keys came after them.

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
    let (name, end) =
        tokens::plain_string(buf, key_value(buf, next_key(buf, end)?, b"\"name\":")?)?;
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
    Some((keys, list))
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
    /// with a mode that is one and a provider the walk has seen, their instances stepped
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
            let Some((keys, list)) = keys_in_order(buf, i, &walk.providers) else {
                break;
            };
            if keys.type_name != Some(walk.resource.type_name.as_str())
                || !matches!(keys.mode, Some("managed" | "data"))
            {
                break;
            }
            let Some((next, n, true)) = unwanted_instances(buf, list) else {
                break;
            };
            walk.resource_index = walk.summary.resources;
            walk.instance_index = 0;
            walk.stepped_over(n);
            walk.summary.resources = walk.summary.resources.saturating_add(1);
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
        resource.mode = match need(keys.mode, "mode")? {
            "managed" => Mode::Managed,
            "data" => Mode::Data,
            other => {
                return Err(Stop::Fail(err(
                    ctx,
                    format_args!("invalid resource mode {other:?}"),
                )))
            }
        };
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
mod tests {
    use super::*;
    use crate::state::providers::empty_resource;
    use crate::state::{InstanceRef, Outcome, ReaderOptions, SchemaSet, StateReader};
    use crate::DecodeOptions;

    /// Terraform's order is read in one go; anything else is left to the general loop.
    #[test]
    fn keys_in_order_take_terraforms_order_only() {
        let mut providers = ProviderCache::default();
        providers
            .set(&mut empty_resource(), "provider.aws", br#""provider.aws""#)
            .unwrap();
        // (`plain_string` reads a block of 32 bytes after a quote: the padding.)
        let pad = |s: &str| format!("{s}{}", " ".repeat(40));
        let ok = pad(
            r#"{"module":"module.a","mode":"managed","type":"aws_x","name":"n","each":"list","provider":"provider.aws","instances":[]}"#,
        );
        let (keys, list) = keys_in_order(ok.as_bytes(), 0, &providers).unwrap();
        assert_eq!(
            (keys.module, keys.mode, keys.type_name, keys.name),
            (Some("module.a"), Some("managed"), Some("aws_x"), Some("n"))
        );
        assert!(matches!(keys.provider, ProviderKey::Kept(0)));
        assert_eq!(ok.as_bytes()[list..].first_chunk(), Some(b"[]"));
        let plain = pad(
            r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","instances":[]}"#,
        );
        let (keys, _) = keys_in_order(plain.as_bytes(), 0, &providers).unwrap();
        assert_eq!((keys.module, keys.mode), (None, Some("data")));
        // Indented as Terraform writes state files.
        let indented = pad(
            "{\n  \"mode\": \"data\",\n  \"type\": \"t\",\n  \"name\": \"n\",\n  \"each\": \"map\",\n  \"provider\": \"provider.aws\",\n  \"instances\": [",
        );
        let (keys, at) = keys_in_order(indented.as_bytes(), 0, &providers).unwrap();
        assert_eq!((keys.type_name, keys.name), (Some("t"), Some("n")));
        assert_eq!(indented.as_bytes()[at], b'[');
        for other in [
            r#"{"mode" : "data","type":"t","name":"n","provider":"provider.aws","instances":[]}"#,
            r#"{"mode":null,"type":"t","name":"n","provider":"provider.aws","instances":[]}"#,
            r#"{"mode":"data","type":"t","name":"\u006e","provider":"provider.aws","instances":[]}"#,
            r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","each":"list","instances":[]}"#,
            r#"{"mode":"data","type":"t","name":"n","each":null,"provider":"provider.aws","instances":[]}"#,
            r#"{"mode":"data","type":"t","name":"n","provider":"provider.gcp","instances":[]}"#,
            r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","instances":null}"#,
            r#"{"mode":"data","type":"t","name":"n","provider":"provider.aws","x":1,"instances":[]}"#,
            r#"{"type":"t","mode":"data","name":"n","provider":"provider.aws","instances":[]}"#,
        ] {
            assert!(
                keys_in_order(pad(other).as_bytes(), 0, &providers).is_none(),
                "{other}"
            );
        }
        // Cut short anywhere before the `[` (a streamed read's buffer): left to the general
        // loop, which asks for more.
        for end in 1..=list {
            let cut = &ok.as_bytes()[..end];
            assert!(keys_in_order(cut, 0, &providers).is_none(), "{end}");
        }
    }

    /// The instances of an unwanted resource are stepped over a unit\'s worth at a time;
    /// anything else is left to the walk.
    #[test]
    fn unwanted_instances_take_terraforms_form_only() {
        let at = |s: &str| unwanted_instances(s.as_bytes(), 0);
        assert_eq!(at(r#"[{"a":"}"},{"b":[{}]}]},"#), Some((23, 2, true)));
        assert_eq!(at(r#"[]}"#), Some((3, 0, true)));
        assert_eq!(at("[\n {\"a\":1}\n ]\n}"), Some((15, 1, true)));
        assert_eq!(at("[ ] }"), Some((5, 0, true)));
        // A unit\'s worth: the walk goes on at the comma after the last one.
        let many = format!("[{}]}}", vec![r#"{"a":1}"#; 70].join(", "));
        let end = 1 + RESOURCE_ITEMS * 9 - 2;
        assert_eq!(at(&many), Some((end, RESOURCE_ITEMS as u64, false)));
        assert_eq!(&many[end..end + 2], ", ");
        for other in [
            r#"[{"a":1}],"x":1}"#,
            r#"[{"a":1}]"#,
            r#"[{"a":1}"#,
            r#"[{"a":1"#,
            r#"[1]}"#,
            r#"[{"a":1},]}"#,
            r#"[{"a":1}]]"#,
        ] {
            assert_eq!(at(other), None, "{other}");
        }
    }

    /// A state in Terraform\'s order, compact, spaced and indented (its resources read by
    /// `keys_in_order` once the provider is known, the instances of a type not wanted stepped
    /// over by `unwanted_instances`, a unit\'s worth at a time, and the resources after one
    /// of a type not wanted by `unwanted_run`), reads as its twin with a space before every
    /// colon (every resource read by the general loop), whole and in small reads, with a
    /// resource that strays from the form between them; with every type wanted and with one.
    /// A bad mode in a run of resources not wanted fails as the general loop fails.
    #[test]
    fn terraforms_form_reads_as_the_general_loop_reads() {
        let mut set = SchemaSet::new();
        set.add_json(include_str!("../../tests/data/states/toy.schemas.json"))
            .unwrap();
        let mut servers = set.clone();
        servers.only_types(["toy_server"]);
        // `sep` after each comma and colon, `before` before each colon.
        let state = |sep: &str, before: &str| {
            let c = format!("{before}:{sep}");
            let resource = |ty: &str, module: &str, each: &str, name: &str, n: usize| {
                let instance = format!(
                    r#"{{"schema_version":1,"attributes":{{"disk":[],"id":"{name}","name":"x","port":1,"tags":null}}}}"#
                );
                let instances = vec![instance; n].join(&format!(",{sep}"));
                format!(
                    r#"{{{sep}{module}"mode"{c}"managed",{sep}"type"{c}"{ty}",{sep}"name"{c}"{name}",{sep}{each}"provider"{c}"provider[\"registry.terraform.io/hashicorp/toy\"]",{sep}"instances"{c}[{sep}{instances}{sep}]{sep}}}"#
                )
            };
            let module = format!(r#""module"{c}"module.m",{sep}"#);
            let each = format!(r#""each"{c}"list",{sep}"#);
            // (Runs of a type not wanted: `f`, `h`, `i` then `g`, which has more instances
            // than a unit reads; `j`, `k`, then `z`, of the type wanted.)
            let resources = [
                resource("toy_server", "", "", "a", 1),
                resource("toy_server", &module, &each, "b", 1),
                resource("toy_other", "", &each, "e", 2),
                resource("toy_server", "", &each, "c\\u0021", 1),
                resource("toy_other", &module, "", "f", 0),
                resource("toy_other", "", "", "h", 3),
                resource("toy_other", &module, &each, "i", 1),
                resource("toy_other", "", "", "g", 70),
                resource("toy_server", &module, "", "d", 1),
                resource("toy_other", "", "", "j", 2),
                resource("toy_other", "", "", "k", 1),
                resource("toy_server", "", "", "z", 1),
            ];
            format!(r#"{{"version":4,"resources":[{}]}}"#, resources.join(","))
        };
        let read = |set: &SchemaSet, text: &str, read_size: usize| {
            let mut lines = Vec::new();
            let f = |item: InstanceRef<'_, '_>, outcome: &Outcome<'_>| {
                let ok = matches!(outcome, Outcome::Ok(..));
                lines.push(format!(
                    "{} {} {ok}",
                    item.address(),
                    item.resource.provider
                ));
            };
            let options = ReaderOptions {
                read_size,
                ..ReaderOptions::default()
            };
            let reader = StateReader::with_options(text.as_bytes(), options);
            let summary = reader.visit(set, &DecodeOptions::default(), f).unwrap();
            assert_eq!(summary.resources, 12);
            (summary.instances, summary.skipped, lines)
        };
        for set in [&set, &servers] {
            let general = read(set, &state(" ", " "), 1 << 16);
            for sep in ["", " ", "\n      "] {
                assert_eq!(read(set, &state(sep, ""), 1 << 16), general, "{sep:?}");
                assert_eq!(read(set, &state(sep, ""), 7), general, "{sep:?}");
            }
        }
        let provider = r#"provider["registry.terraform.io/hashicorp/toy"]"#;
        let want = [
            format!("toy_server.a {provider} true"),
            format!("module.m.toy_server.b {provider} true"),
            format!("toy_server.c! {provider} true"),
            format!("module.m.toy_server.d {provider} true"),
            format!("toy_server.z {provider} true"),
        ];
        assert_eq!(
            read(&servers, &state("", ""), 1 << 16),
            (5, 79, want.to_vec())
        );
        let all = read(&set, &state("", ""), 1 << 16);
        assert_eq!((all.0, all.1, all.2.len()), (84, 0, 84));
        assert_eq!(all.2[2], format!("toy_other.e {provider} false"));
        let fails = |text: &str| {
            // The seventh resource's mode (`i`, in a run after `f` and `h`).
            let (at, _) = text.match_indices(r#""managed""#).nth(6).unwrap();
            let bad = format!("{}\"other\"{}", &text[..at], &text[at + 9..]);
            let reader = StateReader::with_options(bad.as_bytes(), ReaderOptions::default());
            let e = reader.visit(&servers, &DecodeOptions::default(), |_, _| {});
            e.unwrap_err().to_string()
        };
        let general = fails(&state(" ", " "));
        assert!(
            general.contains("resources[6]: invalid resource mode \"other\""),
            "{general}"
        );
        for sep in ["", "\n      "] {
            assert_eq!(fails(&state(sep, "")), general, "{sep:?}");
        }
    }
}
