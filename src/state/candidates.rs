//! The decode of one instance's attributes against its candidate schemas
//! ([`SchemaSet::decode`], and the reader's [`SchemaSet::decode_prefix`]): the first
//! candidate that decodes them gives [`Outcome::Ok`], or, when the set writes DUMPs
//! ([`SchemaSet::write_dumps`]) and the attributes are as go-cty writes them,
//! [`Outcome::Dumped`], written straight from the JSON (`dump/straight.rs`). A candidate
//! whose straight DUMP finds an attribute its type lacks is passed over without its decode,
//! sure to fail (states of other provider versions than a document's: the next candidate
//! takes them); when no candidate takes the attributes, all are decoded again for their
//! errors.

use bumpalo::Bump;

use super::entry::Loaded;
use super::schemas::{Match, Outcome, SchemaSet, TypeId};
use super::{InstanceRef, Resource};
use crate::decode::json::tokens;
use crate::dump::straight::{StraightDump, Taken};
use crate::error::{DecodeError, ErrorKind, SchemaError};
use crate::program::DecodeOptions;

impl SchemaSet {
    /// Decodes one instance's attributes into `bump` (with [`SchemaSet::write_dumps`], gives
    /// the DUMP of those as go-cty writes them instead: [`Outcome::Dumped`]).
    pub fn decode<'a, 's: 'a>(
        &'a self,
        item: InstanceRef<'_, 's>,
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Outcome<'a> {
        self.decode_with(item, bump, options, self.dumps)
    }

    /// [`SchemaSet::decode`], writing DUMPs straight when `straight`.
    fn decode_with<'a, 's: 'a>(
        &'a self,
        item: InstanceRef<'_, 's>,
        bump: &'a Bump,
        options: &DecodeOptions,
        straight: bool,
    ) -> Outcome<'a> {
        let Some(text) = item.instance.attributes.json() else {
            return Outcome::Legacy;
        };
        let json = text.as_bytes();
        let r = item.resource;
        let mut furthest: Option<(DecodeError, Match<'a>)> = None;
        let mut refused = false;
        for (m, loaded) in self.loaded_candidates(&r.provider_address, r.mode, &r.type_name) {
            let decoded = match loaded {
                Err(e) => Err(schema_failure(e)),
                Ok(loaded) => {
                    match self.straight(straight, loaded, json, bump, options) {
                        Taken::Written(dump, end) if tokens::ws(json, end) == json.len() => {
                            return Outcome::Dumped(dump, m);
                        }
                        Taken::Input(start, end) if tokens::ws(json, end) == json.len() => {
                            // (Both ends at ASCII bytes: after whitespace, and after the
                            // value's last byte, a `}` or `null`'s `l`.)
                            if let Some(dump) = text.get(start..end) {
                                return Outcome::Dumped(dump, m);
                            }
                        }
                        Taken::Refused => {
                            refused = true;
                            continue;
                        }
                        _ => {}
                    }
                    m.program.decode_json_with(json, bump, options)
                }
            };
            match decoded {
                Ok(value) => return Outcome::Ok(value, m),
                Err(e) => match &furthest {
                    Some((f, _)) if f.byte() >= e.byte() => {}
                    _ => furthest = Some((e, m)),
                },
            }
        }
        if refused {
            // No candidate takes it, and some were passed over undecoded (their decode sure to
            // fail): all again, each decoded for its error.
            return self.decode_with(item, bump, options, false);
        }
        match furthest {
            Some((e, m)) => Outcome::Error(e, m),
            None => Outcome::NoSchema,
        }
    }

    /// The reader's decode: the attributes JSON at the start of `buf` (which may hold more
    /// after it, or, when `more`, only its beginning) against the resource's candidates (its
    /// type's at `type_id`, which the reader looks up once for a run of resources of a type).
    pub(super) fn decode_prefix<'a>(
        &'a self,
        resource: (&Resource<'_>, Option<TypeId>),
        buf: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
        more: bool,
        scratch: &Bump,
    ) -> Prefix<'a> {
        let input = (buf, more);
        self.prefix_with(resource, input, bump, options, scratch, self.dumps)
    }

    /// [`SchemaSet::decode_prefix`] of `(buf, more)`, writing DUMPs straight when `straight`.
    fn prefix_with<'a>(
        &'a self,
        (r, type_id): (&Resource<'_>, Option<TypeId>),
        (buf, more): (&'a [u8], bool),
        bump: &'a Bump,
        options: &DecodeOptions,
        scratch: &Bump,
        straight: bool,
    ) -> Prefix<'a> {
        let mut furthest: Option<(DecodeError, Match<'a>)> = None;
        let mut complete = !more;
        let mut refused = false;
        for (m, loaded) in self.candidates_of(type_id, &r.provider_address, r.mode) {
            let decoded = match loaded {
                Err(e) => Err(schema_failure(e)),
                Ok(loaded) => {
                    match self.straight(straight, loaded, buf, bump, options) {
                        Taken::Written(text, end) => {
                            return Prefix::Done(Outcome::Dumped(text, m), end);
                        }
                        Taken::Input(start, end) => return Prefix::Input(m, start, end),
                        // (Refused at a whole key inside the buffer: the decode fails there
                        // however the value goes on.)
                        Taken::Refused => {
                            refused = true;
                            continue;
                        }
                        Taken::GaveUp => {}
                    }
                    m.program.decode_json_prefix(buf, bump, options)
                }
            };
            match decoded {
                Ok((value, end)) => return Prefix::Done(Outcome::Ok(value, m), end),
                Err(e) => {
                    // A failure in a value cut short by the buffer's end is no failure yet.
                    if !complete {
                        if !tokens::is_complete(buf, 0, scratch) {
                            return Prefix::Incomplete;
                        }
                        complete = true;
                    }
                    match &furthest {
                        Some((f, _)) if f.byte() >= e.byte() => {}
                        _ => furthest = Some((e, m)),
                    }
                }
            }
        }
        if refused {
            // As in `decode_with`: all again, each decoded for its error.
            return self.prefix_with((r, type_id), (buf, more), bump, options, scratch, false);
        }
        // No candidate decoded it: find its end with a validating skip.
        let end = match tokens::skip(buf, 0, scratch) {
            Ok(end) => end,
            Err(_) if more && !tokens::is_complete(buf, 0, scratch) => return Prefix::Incomplete,
            Err(e) => return Prefix::Invalid(e),
        };
        match furthest {
            Some((e, m)) => Prefix::Done(Outcome::Error(e, m), end),
            None => Prefix::Done(Outcome::NoSchema, end),
        }
    }

    /// The DUMP of the attributes at the start of `buf`, written straight, when `on` (the
    /// set writes DUMPs), `options` let it, and they are as go-cty writes them; and their end
    /// ([`Taken`]).
    #[inline]
    fn straight<'a>(
        &self,
        on: bool,
        loaded: &Loaded,
        buf: &[u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Taken<'a> {
        if !on {
            return Taken::GaveUp;
        }
        let straight = loaded
            .straight
            .get_or_init(|| StraightDump::new(&loaded.program));
        match straight {
            Some(straight) if straight.applies(options) => straight.take(buf, bump, options),
            _ => Taken::GaveUp,
        }
    }
}

/// The decode error of a candidate whose schema does not load (at the attributes' start).
#[cold]
fn schema_failure(e: &SchemaError) -> DecodeError {
    let message = format!("the schema does not load: {e}");
    DecodeError::new(ErrorKind::Schema, 0, String::new(), message)
}

/// What [`SchemaSet::decode_prefix`] gave.
pub(crate) enum Prefix<'a> {
    /// The outcome and the end of the attributes JSON in the buffer.
    Done(Outcome<'a>, usize),
    /// Dumped ([`Outcome::Dumped`]), the DUMP being the buffer's bytes `start..end` as they
    /// are (the caller, which holds them as text, takes it uncopied); `end` is the end of
    /// the attributes JSON.
    Input(Match<'a>, usize, usize),
    /// The buffer ends inside the attributes: read more and try again.
    Incomplete,
    /// The attributes are not JSON (offset in the buffer).
    Invalid(DecodeError),
}
