//! The dynamic-type cache: type JSON bytes → compiled [`Program`], shared by every decode
//! that runs over one root program (thread-safe, append-only).

use elsa::sync::FrozenMap;

use crate::program::Program;
use crate::schema::Type;

/// Append-only map from the exact type-JSON bytes to the program compiled from them.
/// Entries live as long as the root program, so decoded values may borrow them.
#[derive(Default)]
pub(crate) struct DynCache {
    map: FrozenMap<Box<[u8]>, Box<Program>>,
}

pub(crate) enum Lookup<'p> {
    Found(&'p Program),
    Full,
    Invalid(String),
}

impl DynCache {
    pub fn get_or_compile(&self, type_json: &[u8], max_entries: u32) -> Lookup<'_> {
        if let Some(p) = self.map.get(type_json) {
            return Lookup::Found(p);
        }
        if self.map.len() >= max_entries as usize {
            return Lookup::Full;
        }
        let ty = match Type::from_json_bytes(type_json) {
            Ok(t) => t,
            Err(e) => return Lookup::Invalid(e.message().to_string()),
        };
        let program = Box::new(crate::compile::compile(&ty, None));
        Lookup::Found(self.map.insert(type_json.into(), program))
    }
}
