//! The units of the state reader (`reader.rs`): the top-level keys, a resource's keys, an
//! instance object, each read from the reader's buffer with the JSON executor's scanner
//! (`decode::json::tokens`). A unit either completes, hands out its instances and moves
//! the walk on, or stops: [`Stop::More`] when the buffer ends inside it (the reader reads
//! more and runs it again from its start), [`Stop::Fail`] when the state is malformed. The
//! units' reads of single values, and their errors, are in `values.rs`; a resource's keys
//! and the resource built from them in `resource.rs`.
//!
//! Positions are indexes into the unit's buffer, at most its length: a `wrapping_add` past a
//! byte just read cannot wrap.

use std::cell::Cell;

use bumpalo::Bump;

use super::candidates::Prefix;
use super::providers::{empty_resource, ProviderCache};
use super::schemas::TypeId;
use super::values::{attributes_fault, attributes_text, Ctx};
use super::{Attributes, Instance, InstanceRef, Outcome, Resource, SchemaSet, StateError, Summary};
use crate::decode::json::tokens;
use crate::program::DecodeOptions;

/// Why a unit stopped.
pub(super) enum Stop {
    /// The buffer ends inside it: read more and try again.
    More,
    /// The state is malformed.
    Fail(StateError),
}

/// Where the reader is between units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Before the top-level `{`.
    Start,
    /// In the top-level object, before a key (`first`: right after the `{`).
    TopKey { first: bool },
    /// In `resources`, before a resource.
    Resources { first: bool },
    /// In a streamed resource's `instances`, before an instance.
    Instances { first: bool },
    /// In a streamed resource after its `instances`: more keys or its `}`.
    ResourceTail,
    /// After the top-level `}`.
    End,
    /// Done.
    Done,
}

/// What the walk knows beyond its phase.
pub(super) struct Walk {
    pub(super) phase: Phase,
    /// The resource being streamed (its `instances` stay empty). After a run of resources
    /// of a type not wanted (`Unit::unwanted_run`) it is the one before the run: of the resource
    /// at `resource_index` only its type (`type_name`, `type_wanted`, `type_id`, `wanted`)
    /// is known, which is all that a resource not wanted is asked.
    pub(super) resource: Resource<'static>,
    /// Its index in `resources`, and the next instance's index.
    pub(super) resource_index: u64,
    pub(super) instance_index: u64,
    pub(super) version_seen: bool,
    /// `resources` has been read (a second one is an error).
    pub(super) resources_seen: bool,
    pub(super) summary: Summary,
    /// Decode each instance's attributes (else only check them: the outcome handed out is
    /// a placeholder, for a caller that decodes elsewhere).
    pub(super) decode: bool,
    /// The addresses of the provider references seen so far.
    pub(super) providers: ProviderCache,
    /// A part's walk stops before a resource that starts at this offset or after
    /// (`ranges.rs`), and says where that resource starts.
    pub(super) stop_at: Option<u64>,
    pub(super) stopped: Option<u64>,
    /// The set wants the instances of the resource being read ([`SchemaSet::wants_resource`], asked
    /// once a resource).
    pub(super) wanted: bool,
    /// [`SchemaSet::wants`] of `resource`'s type, asked when the type changes (Terraform
    /// writes a type's resources one after another); `None` before the first.
    pub(super) type_wanted: Option<bool>,
    /// The place of `resource`'s type in the set, looked up with `type_wanted`.
    pub(super) type_id: Option<TypeId>,
}

impl Walk {
    /// A walk from `phase`, no resource read yet.
    pub(super) fn new(decode: bool, phase: Phase) -> Walk {
        Walk {
            decode,
            phase,
            resource: empty_resource(),
            resource_index: 0,
            instance_index: 0,
            version_seen: false,
            resources_seen: false,
            summary: Summary::default(),
            providers: Default::default(),
            wanted: true,
            type_wanted: None,
            type_id: None,
            stop_at: None,
            stopped: None,
        }
    }

    /// The next resource begins: its index is the number of resources read before it, its
    /// first instance's 0.
    pub(super) fn begin_resource(&mut self) {
        self.resource_index = self.summary.resources;
        self.instance_index = 0;
    }

    /// The resource begun is read (or delimited, or stepped over): one more counted.
    pub(super) fn resource_read(&mut self) {
        self.summary.resources = self.summary.resources.saturating_add(1);
    }

    /// `n` instances of the resource being read stepped over, undecoded (its type not
    /// wanted).
    pub(super) fn stepped_over(&mut self, n: u64) {
        self.instance_index = self.instance_index.saturating_add(n);
        self.summary.skipped = self.summary.skipped.saturating_add(n);
    }
}

/// One attempt at one unit, over the bytes read so far.
pub(super) struct Unit<'u> {
    pub(super) buf: &'u [u8],
    pub(super) base: u64,
    /// More input may follow `buf`.
    pub(super) more: bool,
    pub(super) set: &'u SchemaSet,
    pub(super) options: &'u DecodeOptions,
    pub(super) scratch: &'u Bump,
    /// Where in the state the unit is reading (named by its JSON errors).
    pub(super) at: Cell<Ctx>,
}

/// What the walk hands each instance to: the instance, its outcome, and in a parallel walk its
/// attributes as delimited ([`Raw`]). Any closure of that shape is one.
pub(super) trait Visit: FnMut(InstanceRef<'_, '_>, &Outcome<'_>, Option<Raw<'_>>) {}

impl<F: FnMut(InstanceRef<'_, '_>, &Outcome<'_>, Option<Raw<'_>>)> Visit for F {}

/// In a parallel walk, an instance's attributes object as delimited, not yet checked: its
/// bytes, their offset in the file, and the indexes of its resource and instance (for the
/// error of a worker that finds it malformed).
pub(super) struct Raw<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) offset: u64,
    pub(super) resource: u64,
    pub(super) instance: u64,
}

impl Raw<'_> {
    /// The error of these attributes when they are not one JSON value (see
    /// [`attributes_fault`]).
    #[cold]
    fn fault(&self, scratch: &Bump) -> Option<StateError> {
        attributes_fault(
            self.bytes,
            self.offset,
            self.resource,
            self.instance,
            scratch,
        )
    }
}

impl<'u> Unit<'u> {
    /// Reads the unit at `pos`; the position after it.
    pub(super) fn step<F: Visit>(
        &self,
        pos: usize,
        walk: &mut Walk,
        bump: &mut Bump,
        f: &mut F,
    ) -> Result<usize, Stop> {
        let buf = self.buf;
        self.at.set(match walk.phase {
            Phase::Resources { .. } => Ctx::Resources,
            Phase::Instances { .. } => Ctx::Instances(walk.resource_index),
            Phase::ResourceTail => Ctx::Resource(walk.resource_index),
            Phase::Start | Phase::TopKey { .. } | Phase::End | Phase::Done => Ctx::State,
        });
        let i = tokens::ws(buf, pos);
        if walk.phase == Phase::End {
            return match buf.get(i) {
                None if self.more => Err(Stop::More),
                None => {
                    walk.phase = Phase::Done;
                    Ok(i)
                }
                Some(_) => Err(Stop::Fail(self.syntax(i, "bytes after the state's object"))),
            };
        }
        let Some(&c) = buf.get(i) else {
            return Err(self.eof(i));
        };
        match walk.phase {
            Phase::Start => {
                if c != b'{' {
                    return Err(self.fail(
                        Ctx::State,
                        i,
                        "not a state file: expected a JSON object",
                    ));
                }
                walk.phase = Phase::TopKey { first: true };
                Ok(i.wrapping_add(1))
            }
            Phase::TopKey { first } => {
                let Some(i) = self.separator(i, c, first, b'}')? else {
                    walk.phase = Phase::End;
                    return Ok(i.wrapping_add(1));
                };
                self.top_key(i, walk)
            }
            Phase::Resources { first } => {
                let Some(i) = self.separator(i, c, first, b']')? else {
                    walk.phase = Phase::TopKey { first: false };
                    return Ok(i.wrapping_add(1));
                };
                walk.begin_resource();
                let end = self.resource(i, walk, bump, f)?;
                walk.resource_read();
                if walk.type_wanted == Some(false)
                    && walk.phase == (Phase::Resources { first: false })
                {
                    return Ok(self.unwanted_run(end, walk));
                }
                Ok(end)
            }
            Phase::Instances { first } => {
                let Some(i) = self.separator(i, c, first, b']')? else {
                    walk.phase = Phase::ResourceTail;
                    return Ok(i.wrapping_add(1));
                };
                let end = self.instance(i, walk, bump, f)?;
                walk.phase = Phase::Instances { first: false };
                Ok(end)
            }
            Phase::ResourceTail => {
                let Some(i) = self.separator(i, c, false, b'}')? else {
                    walk.phase = Phase::Resources { first: false };
                    return Ok(i.wrapping_add(1));
                };
                let ctx = Ctx::Resource(walk.resource_index);
                let (k, v) = self.key(i)?;
                if k == "module" && walk.resource.module.is_none() {
                    // The instances went out in the root module: a root `module` (null or
                    // empty) agrees with them, any other does not.
                    let (module, end) = self.opt_string(v, ctx, k)?;
                    if module.is_none_or(str::is_empty) {
                        return Ok(end);
                    }
                    let msg =
                        "\"module\" after \"instances\" (the instances were handed out without it)";
                    return Err(self.fail(ctx, v, msg));
                }
                if matches!(
                    k,
                    "mode" | "type" | "name" | "provider" | "module" | "instances"
                ) {
                    let msg = format!("{k:?} repeated after \"instances\"");
                    return Err(self.fail(ctx, i, msg));
                }
                self.skip(v)
            }
            Phase::End | Phase::Done => Ok(i),
        }
    }

    /// The unit now reads at `ctx`, whose object must open at `i`.
    #[inline(always)]
    pub(super) fn object_at(&self, i: usize, ctx: Ctx) -> Result<(), Stop> {
        self.at.set(ctx);
        if self.buf.get(i) != Some(&b'{') {
            return Err(self.fail(ctx, i, "expected an object"));
        }
        Ok(())
    }

    /// Before an element of a container: `None` when `close` ends it (at `i`), else the
    /// position of the element (after the `,` unless `first`). (Inlined: it runs once per
    /// key and element, and its result is large.)
    #[inline(always)]
    pub(super) fn separator(
        &self,
        i: usize,
        c: u8,
        first: bool,
        close: u8,
    ) -> Result<Option<usize>, Stop> {
        if c == close {
            return Ok(None);
        }
        if first {
            return Ok(Some(i));
        }
        if c != b',' {
            let msg = format!("expected ',' or '{}'", close as char);
            return Err(Stop::Fail(self.syntax(i, &msg)));
        }
        let j = tokens::ws(self.buf, i.wrapping_add(1));
        match self.buf.get(j) {
            None => Err(self.eof(j)),
            Some(_) => Ok(Some(j)),
        }
    }

    /// One key of the top-level object and its value.
    fn top_key(&self, i: usize, walk: &mut Walk) -> Result<usize, Stop> {
        let (k, v) = self.key(i)?;
        walk.phase = Phase::TopKey { first: false };
        match k {
            "version" => {
                let (version, end) = self.opt_number(v, Ctx::State, "version")?;
                let Some(version) = version else {
                    return Ok(end);
                };
                if version != "4" {
                    let msg = format!(
                        "unsupported state format version {version} (only version 4 is supported)"
                    );
                    return Err(self.fail(Ctx::State, v, msg));
                }
                walk.version_seen = true;
                Ok(end)
            }
            "terraform_version" => {
                let (s, end) = self.opt_string(v, Ctx::State, k)?;
                walk.summary.terraform_version = s.map(str::to_string);
                Ok(end)
            }
            "resources" if walk.resources_seen => Err(self.fail(
                Ctx::State,
                i,
                "\"resources\" repeated (its instances have been handed out)",
            )),
            "resources" => match self.buf.get(v) {
                Some(b'[') => {
                    walk.resources_seen = true;
                    walk.phase = Phase::Resources { first: true };
                    Ok(v.wrapping_add(1))
                }
                Some(b'n') => self.literal(v, b"null"),
                Some(_) => Err(self.fail(Ctx::Resources, v, "expected an array")),
                None => Err(self.eof(v)),
            },
            _ => self.skip(v),
        }
    }

    /// An instance object at `i` (its `{`): decoded and handed to `f`; the position after it.
    pub(super) fn instance<F: Visit>(
        &self,
        i: usize,
        walk: &mut Walk,
        bump: &mut Bump,
        f: &mut F,
    ) -> Result<usize, Stop> {
        let ctx = Ctx::Instance(walk.resource_index, walk.instance_index);
        self.object_at(i, ctx)?;
        bump.reset();
        let resource = &walk.resource;
        let wanted = walk.wanted;
        if !wanted {
            // An instance of a type the set does not want is stepped over: delimited (its
            // brackets counted outside strings), not checked.
            return match tokens::object_end_counted(self.buf, i) {
                Some(end) => {
                    walk.stepped_over(1);
                    Ok(end)
                }
                None => Err(self.eof(self.buf.len())),
            };
        }
        let decode = walk.decode && wanted;
        // In a parallel walk, a wanted instance's attributes object is only delimited here;
        // the worker that decodes it checks it (`batch.rs`).
        let delimit = !walk.decode && wanted;
        let mut raw: Option<Raw<'_>> = None;
        let mut instance = Instance {
            index_key: None,
            deposed: None,
            schema_version: 0,
            attributes: Attributes::Absent,
        };
        let mut outcome = None;
        let mut flat = false;
        let mut j = i.wrapping_add(1);
        let mut first = true;
        // The instance's keys and values; the position after its `}`.
        let mut keys = || -> Result<usize, Stop> {
            loop {
                let at = tokens::ws(self.buf, j);
                let Some(&c) = self.buf.get(at) else {
                    return Err(self.eof(at));
                };
                let Some(at) = self.separator(at, c, first, b'}')? else {
                    return Ok(at.wrapping_add(1));
                };
                first = false;
                let (k, v) = self.key(at)?;
                if k == "attributes" {
                    if let Some(r) = raw.take() {
                        // A repeated `attributes`: the one-thread walk read the first where it
                        // lies, so a first that is not JSON is the fault (else the last wins).
                        let fault = r.fault(self.scratch);
                        if let Some(fault) = fault {
                            return Err(Stop::Fail(fault));
                        }
                    }
                }
                j = match k {
                    "index_key" => {
                        let (key, end) = self.index_key(v, ctx)?;
                        instance.index_key = key;
                        end
                    }
                    "deposed" => {
                        let (d, end) = self.opt_string(v, ctx, k)?;
                        instance.deposed = d.filter(|d| !d.is_empty()).map(str::to_string);
                        end
                    }
                    "schema_version" => {
                        let (n, end) = self.opt_number(v, ctx, k)?;
                        let n = n.map(|n| n.parse::<u64>());
                        instance.schema_version = match n {
                            None => 0,
                            Some(Ok(n)) => n,
                            Some(Err(_)) => {
                                let msg = "schema_version: expected an unsigned integer";
                                return Err(self.fail(ctx, v, msg));
                            }
                        };
                        end
                    }
                    "attributes" if delimit && self.buf.get(v) == Some(&b'{') => {
                        let end = self.delimit_attributes(v, walk, ctx)?;
                        raw = Some(Raw {
                            bytes: self.buf.get(v..end).unwrap_or_default(),
                            offset: self.base.saturating_add(v as u64),
                            resource: walk.resource_index,
                            instance: walk.instance_index,
                        });
                        outcome = Some(Outcome::NoSchema);
                        end
                    }
                    "attributes" if !decode => {
                        let end = self.skip_attributes(v, walk, ctx)?;
                        let text = self.buf.get(v..end).unwrap_or_default();
                        // SAFETY: `skip` validated `v..end` as one JSON value, UTF-8 included (or
                        // the range is empty).
                        instance.attributes = Attributes::Json(unsafe { attributes_text(text) });
                        outcome = Some(Outcome::NoSchema);
                        end
                    }
                    "attributes" => {
                        self.at
                            .set(Ctx::Attributes(walk.resource_index, walk.instance_index));
                        let attrs = self.buf.get(v..).unwrap_or_default();
                        let got = self.set.decode_prefix(
                            (resource, walk.type_id),
                            attrs,
                            bump,
                            self.options,
                            self.more,
                            self.scratch,
                        );
                        match got {
                            Prefix::Done(o, len) => {
                                self.at.set(ctx);
                                let text = attrs.get(..len).unwrap_or_default();
                                // SAFETY: the decode read these `len` bytes as one JSON value,
                                // every string checked as UTF-8 (or the range is empty).
                                instance.attributes =
                                    Attributes::Json(unsafe { attributes_text(text) });
                                outcome = Some(o);
                                v.wrapping_add(len)
                            }
                            Prefix::Input(m, start, len) => {
                                self.at.set(ctx);
                                let text = attrs.get(..len).unwrap_or_default();
                                // SAFETY: the straight DUMP read these `len` bytes as one JSON
                                // value, every string checked as UTF-8 (or the range is empty).
                                let text = unsafe { attributes_text(text) };
                                instance.attributes = Attributes::Json(text);
                                // (`start` is after whitespace, an ASCII byte.)
                                let dump = text.get(start..).unwrap_or_default();
                                outcome = Some(Outcome::Dumped(dump, m));
                                v.wrapping_add(len)
                            }
                            Prefix::Incomplete => return Err(Stop::More),
                            Prefix::Invalid(e) => return Err(self.json_error(v, &e)),
                        }
                    }
                    "attributes_flat" => {
                        flat = true;
                        self.skip(v)?
                    }
                    _ => self.skip(v)?,
                };
            }
        };
        let end = match keys() {
            Ok(end) => end,
            // Attributes only delimited, before the fault: when they are not JSON, theirs is
            // the fault the one-thread walk meets first (it reads them where they are).
            Err(Stop::Fail(e)) => {
                let first = raw.as_ref().and_then(|r| r.fault(self.scratch));
                return Err(Stop::Fail(first.unwrap_or(e)));
            }
            Err(stop) => return Err(stop),
        };
        let outcome = match (outcome, flat) {
            (Some(o), _) => o,
            (None, true) => {
                instance.attributes = Attributes::Flat;
                Outcome::Legacy
            }
            (None, false) if !decode => Outcome::NoSchema,
            (None, false) => {
                let item = InstanceRef {
                    resource,
                    instance: &instance,
                };
                self.set.decode(item, bump, self.options)
            }
        };
        walk.instance_index = walk.instance_index.saturating_add(1);
        f(
            InstanceRef {
                resource,
                instance: &instance,
            },
            &outcome,
            raw,
        );
        walk.summary.instances = walk.summary.instances.saturating_add(1);
        Ok(end)
    }
}
