//! What the straight row readers (`rows.rs`, `rows_msgpack.rs`, `rows_json.rs`) keep of a
//! builder's type: its attribute names as they expect them on the wire, in the type's order
//! — each key's encoded bytes (MessagePack: the `fixstr`/`str8` header and the name; JSON:
//! the name in quotes), padded to a 32-byte block so that a key is compared with one load
//! and one mask —, and the type itself, to know the programs that decode it.

use super::schema::ArrowOptions;
use crate::bytes::{eq_mask, first, BLOCK};
use crate::limits::Limits;
use crate::program::Program;
use crate::schema::Type;

/// A builder's part for the straight readers, when its rows can go straight.
pub(super) struct Straight {
    /// The type's attribute keys.
    pub(super) keys: Keys,
    /// The builder's type.
    ty: Type,
    /// The serial of the last program seen decoding this type.
    program: u64,
}

impl Straight {
    /// For a builder of all the attributes of `program`'s type, if its rows can go straight:
    /// an object type whose parts are strings, bools, numbers (as `Float64`: not with
    /// [`ArrowOptions::exact_numbers`]), and lists, sets, maps and objects (with attributes)
    /// of them, nested no deeper than the default `max_depth` (the row's object counts
    /// one), which the general decode then never reaches either. Not `dynamic`'s JSON, the
    /// presence column of an object without attributes, or tuples.
    pub(super) fn new(program: &Program, options: &ArrowOptions) -> Option<Straight> {
        let ty = program.root_type();
        let Type::Object(o) = ty else {
            return None;
        };
        let depth = nesting(ty, options)?;
        if depth > Limits::DEFAULT.max_depth as usize {
            return None;
        }
        Some(Straight {
            keys: Keys::new(o.attrs().iter().map(|(n, _)| n.as_str())),
            ty: ty.clone(),
            program: program.serial,
        })
    }

    /// Whether `program` decodes the builder's type as the straight readers read it: a
    /// program of the type, not a projection (whose picks keep only some elements, and
    /// which steps over attributes its type lacks). The program is remembered by its serial:
    /// types of hundreds of attributes are compared once, not per row.
    pub(super) fn knows(&mut self, program: &Program) -> bool {
        if program.code.projected {
            return false;
        }
        if program.serial == self.program {
            return true;
        }
        if self.ty == *program.root_type() {
            self.program = program.serial;
            return true;
        }
        false
    }
}

/// The containers nested in values of `ty` (a list, set, map or object counts one, with the
/// deepest of its parts), when the straight readers can read it (see [`Straight::new`]).
fn nesting(ty: &Type, options: &ArrowOptions) -> Option<usize> {
    let below = match ty {
        Type::String | Type::Bool => return Some(0),
        Type::Number if !options.exact_numbers => return Some(0),
        Type::List(t) | Type::Set(t) | Type::Map(t) => nesting(t, options)?,
        // (An object without attributes is a presence column.)
        Type::Object(o) if !o.attrs().is_empty() => {
            let mut deepest = 0;
            for (_, t) in o.attrs() {
                deepest = deepest.max(nesting(t, options)?);
            }
            deepest
        }
        _ => return None,
    };
    Some(below.saturating_add(1))
}

/// One encoded key.
pub(super) struct Key {
    /// The first [`BLOCK`] bytes of the encoded key, zero-padded.
    block: [u8; BLOCK],
    /// The whole encoded key.
    bytes: Box<[u8]>,
}

impl Key {
    fn new(bytes: Vec<u8>) -> Key {
        let mut block = [0u8; BLOCK];
        for (b, x) in block.iter_mut().zip(&bytes) {
            *b = *x;
        }
        Key {
            block,
            bytes: bytes.into_boxed_slice(),
        }
    }

    /// The position after this key if `buf` holds it at `at`.
    #[inline(always)]
    pub(super) fn at(&self, buf: &[u8], at: usize) -> Option<usize> {
        let n = self.bytes.len();
        let end = at.checked_add(n)?;
        if n <= BLOCK {
            if let Some(block) = buf.get(at..).and_then(|s| s.first_chunk::<BLOCK>()) {
                let want = first(n);
                return (eq_mask(block, &self.block) & want == want).then_some(end);
            }
        }
        (buf.get(at..end)? == &*self.bytes).then_some(end)
    }
}

/// The keys of an object type's attributes, in both encodings.
pub(super) struct Keys {
    pub(super) msgpack: Box<[Key]>,
    pub(super) json: Box<[Key]>,
}

impl Keys {
    /// The keys of attributes `names`, in order.
    pub(super) fn new<'n>(names: impl Iterator<Item = &'n str> + Clone) -> Keys {
        let msgpack = names.clone().map(|name| {
            let len = name.len();
            let mut bytes = Vec::with_capacity(len.saturating_add(5));
            // (The shortest header, as go-cty writes keys.)
            if len < 32 {
                bytes.push(0xa0 | len as u8);
            } else if let Ok(n) = u8::try_from(len) {
                bytes.extend_from_slice(&[0xd9, n]);
            } else if let Ok(n) = u16::try_from(len) {
                bytes.push(0xda);
                bytes.extend_from_slice(&n.to_be_bytes());
            } else {
                bytes.push(0xdb);
                bytes.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
            }
            bytes.extend_from_slice(name.as_bytes());
            Key::new(bytes)
        });
        let json = names.map(|name| {
            // A name that JSON would escape never matches as written: the row reader gives
            // up on such a key and the general decode reads it.
            let mut bytes = Vec::with_capacity(name.len().saturating_add(2));
            bytes.push(b'"');
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(b'"');
            Key::new(bytes)
        });
        Keys {
            msgpack: msgpack.collect(),
            json: json.collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_only_their_encoding() {
        let long = "x".repeat(40);
        let keys = Keys::new(["id", long.as_str()].into_iter());
        let mut input = vec![0xa2, b'i', b'd', 0xa2, b'i', b'e'];
        input.extend([0u8; 40]);
        assert_eq!(keys.msgpack[0].at(&input, 0), Some(3));
        assert_eq!(keys.msgpack[0].at(&input, 3), None);
        // Near the end (no whole block left): compared as a slice.
        assert_eq!(keys.msgpack[0].at(&input[..3], 0), Some(3));
        assert_eq!(keys.msgpack[0].at(&input[..2], 0), None);
        let mut long_key = vec![0xd9, 40];
        long_key.extend(long.as_bytes());
        assert_eq!(keys.msgpack[1].at(&long_key, 0), Some(42));
        long_key[41] = b'y';
        assert_eq!(keys.msgpack[1].at(&long_key, 0), None);
        let json = br#""id": 1, "ie""#;
        assert_eq!(keys.json[0].at(json, 0), Some(4));
        assert_eq!(keys.json[0].at(json, 9), None);
    }
}
