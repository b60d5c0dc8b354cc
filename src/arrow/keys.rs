//! What the straight row readers (`rows.rs`, `rows_msgpack.rs`, `rows_json.rs`) keep of a
//! builder's type: whether its rows can go straight, its attribute keys in the type's order
//! (the executors' pre-encoded keys), and the type itself, to know the programs that decode
//! it.

use super::schema::ArrowOptions;
use crate::limits::Limits;
use crate::program::key::AttrEntry;
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

/// The keys of an object type's attributes, in the type's order: the executors' own
/// pre-encoded keys ([`AttrEntry`]: the MessagePack form compared in one 32-byte block, the
/// JSON form quoted, never matched for a name JSON would escape).
pub(super) struct Keys(pub(super) Box<[AttrEntry]>);

impl Keys {
    /// The keys of attributes `names`, in order.
    pub(super) fn new<'n>(names: impl Iterator<Item = &'n str>) -> Keys {
        Keys(names.map(AttrEntry::key_only).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_only_their_encoding() {
        let long = "x".repeat(40);
        let keys = Keys::new(["id", long.as_str(), "a\"b"].into_iter());
        let [id, long_key, quoted] = &keys.0[..] else {
            panic!("three keys")
        };
        let mut input = vec![0xa2, b'i', b'd', 0xa2, b'i', b'e'];
        input.extend([0u8; 40]);
        assert!(id.matches(&input, 0) && id.len() == 3);
        assert!(!id.matches(&input, 3));
        // Near the end (no whole block left): compared as a slice.
        assert!(id.matches(&input[..3], 0));
        assert!(!id.matches(&input[..2], 0));
        let mut long_input = vec![0xd9, 40];
        long_input.extend(long.as_bytes());
        assert!(long_key.matches(&long_input, 0));
        long_input[41] = b'y';
        assert!(!long_key.matches(&long_input, 0));
        let json = br#""id" : 1, "ie":"#;
        assert_eq!(id.match_json(json, 0), Some(6));
        assert_eq!(id.match_json(json, 10), None);
        // A name JSON escapes is never matched as written (`{"a"b":1}` is no JSON).
        assert_eq!(quoted.match_json(br#""a"b":1"#, 0), None);
    }
}
