//! The decode of one instance's attributes against its candidate schemas
//! ([`SchemaSet::decode`], and the reader's [`SchemaSet::decode_prefix`]): the first
//! candidate that decodes them gives [`Outcome::Ok`], or, when the set writes DUMPs
//! ([`SchemaSet::write_dumps`]) and the attributes are as go-cty writes them,
//! [`Outcome::Dumped`], written straight from the JSON (`dump/straight.rs`).

use bumpalo::Bump;

use super::schemas::{Loaded, Match, Outcome, SchemaSet};
use super::{InstanceRef, Resource};
use crate::decode::json::tokens;
use crate::dump::straight::StraightDump;
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
        let Some(json) = item.instance.attributes.json() else {
            return Outcome::Legacy;
        };
        let json = json.as_bytes();
        let r = item.resource;
        let mut furthest: Option<(DecodeError, Match<'a>)> = None;
        for (m, loaded) in self.loaded_candidates(&r.provider_address, r.mode, &r.type_name) {
            let decoded = match loaded {
                Err(e) => Err(schema_failure(e)),
                Ok(loaded) => {
                    if let Some((text, end)) = self.straight(loaded, json, bump, options) {
                        if tokens::ws(json, end) == json.len() {
                            return Outcome::Dumped(text, m);
                        }
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
        match furthest {
            Some((e, m)) => Outcome::Error(e, m),
            None => Outcome::NoSchema,
        }
    }

    /// The reader's decode: the attributes JSON at the start of `buf` (which may hold more
    /// after it, or, when `more`, only its beginning) against the resource's candidates.
    pub(crate) fn decode_prefix<'a>(
        &'a self,
        resource: &Resource<'_>,
        buf: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
        more: bool,
        scratch: &Bump,
    ) -> Prefix<'a> {
        let r = resource;
        let mut furthest: Option<(DecodeError, Match<'a>)> = None;
        let mut complete = !more;
        for (m, loaded) in self.loaded_candidates(&r.provider_address, r.mode, &r.type_name) {
            let decoded = match loaded {
                Err(e) => Err(schema_failure(e)),
                Ok(loaded) => {
                    if let Some((text, end)) = self.straight(loaded, buf, bump, options) {
                        return Prefix::Done(Outcome::Dumped(text, m), end);
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

    /// The DUMP of the attributes at the start of `buf`, written straight, when the set
    /// writes DUMPs, `options` let it, and they are as go-cty writes them; and their end.
    #[inline]
    fn straight<'a>(
        &self,
        loaded: &Loaded,
        buf: &[u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Option<(&'a str, usize)> {
        if !self.dumps {
            return None;
        }
        let straight = loaded
            .straight
            .get_or_init(|| StraightDump::new(&loaded.program))
            .as_ref()?;
        if !straight.applies(options) {
            return None;
        }
        straight.write_prefix(buf, bump, &options.limits)
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
    /// The buffer ends inside the attributes: read more and try again.
    Incomplete,
    /// The attributes are not JSON (offset in the buffer).
    Invalid(DecodeError),
}
