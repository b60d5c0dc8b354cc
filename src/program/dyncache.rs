//! The dynamic-type cache: type JSON bytes → compiled [`Program`], shared by every decode
//! that runs over one root program (thread-safe, append-only). It lives beside the program's
//! data; the decoders hand it the compiler (`compile::compile_type_json`) on a miss.

use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use elsa::sync::FrozenMap;
use rustc_hash::FxHasher;

use crate::program::Program;

/// Append-only map from the exact type-JSON bytes to the program compiled from them.
/// Entries live as long as the root program, so decoded values may borrow them.
#[derive(Default)]
pub(crate) struct DynCache {
    map: FrozenMap<Box<TypeJson>, Box<Program>>,
    /// Held while a miss is checked against the limit, compiled and inserted, so that threads
    /// meeting new types together cannot pass `max_dynamic_types` (lookups do not take it).
    insert: Mutex<()>,
}

pub(crate) enum Lookup<'p> {
    Found(&'p Program),
    Full,
    Invalid(String),
}

impl DynCache {
    /// The program of `type_json`, made by `make` (and kept) on first sight, unless the
    /// cache already holds `max_entries` programs.
    pub fn get_or_insert_with(
        &self,
        type_json: &[u8],
        max_entries: u32,
        make: impl FnOnce(&[u8]) -> Result<Program, String>,
    ) -> Lookup<'_> {
        if let Some(p) = self.map.get(TypeJson::new(type_json)) {
            return Lookup::Found(p);
        }
        // A poisoned lock only means another thread panicked while holding it; the map is
        // append-only and never left half-written, so go on.
        let _guard = self.insert.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = self.map.get(TypeJson::new(type_json)) {
            return Lookup::Found(p);
        }
        if self.map.len() >= max_entries as usize {
            return Lookup::Full;
        }
        match make(type_json) {
            Ok(program) => Lookup::Found(
                self.map
                    .insert(TypeJson::boxed(type_json), Box::new(program)),
            ),
            Err(msg) => Lookup::Invalid(msg),
        }
    }
}

/// Type JSON bytes as a cache key, hashed with FxHash. The sync `FrozenMap` has no hasher
/// parameter, so its SipHash still runs, but over the one word written here instead of the
/// whole type JSON (kilobytes, on every dynamic value).
#[derive(PartialEq, Eq)]
#[repr(transparent)]
struct TypeJson([u8]);

impl TypeJson {
    fn new(bytes: &[u8]) -> &TypeJson {
        // SAFETY: `TypeJson` is a `repr(transparent)` wrapper of `[u8]`, so both have the same
        // layout and pointer metadata; the reference keeps the lifetime of `bytes`.
        unsafe { &*(bytes as *const [u8] as *const TypeJson) }
    }

    fn boxed(bytes: &[u8]) -> Box<TypeJson> {
        let raw = Box::into_raw(Box::<[u8]>::from(bytes));
        // SAFETY: as in `new`; the allocation was made for a `[u8]` of this length, which has
        // the layout of this `TypeJson`.
        unsafe { Box::from_raw(raw as *mut TypeJson) }
    }
}

impl Hash for TypeJson {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let mut fx = FxHasher::default();
        fx.write(&self.0);
        state.write_u64(fx.finish());
    }
}
