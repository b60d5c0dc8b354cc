//! `SchemaSet::add_json_deferred` against the eager `SchemaSet::add_json` on one document
//! (the `schema_doc` fuzz target's second check): when the eager load succeeds, the deferred
//! one does, with the same candidates for every type; when it fails, the deferred load fails
//! with the same message, or (a malformed schema, found on first use) succeeds and reports it
//! on the candidates of that type.

use tfwire::schema::ProviderSchemas;
use tfwire::state::{normalize_provider, Match, Mode, SchemaSet};

/// What a candidate is, for comparing two sets.
fn key(m: Match<'_>) -> (usize, String, i64, String) {
    let ty = m.program.root_type().to_string();
    (m.document, m.provider.to_string(), m.schema_version, ty)
}

pub fn deferred_matches_eager(text: &str) {
    let mut eager = SchemaSet::new();
    let mut deferred = SchemaSet::new();
    let eager_result = eager.add_json(text).map_err(|e| e.to_string());
    let deferred_result = deferred
        .add_json_deferred(text.to_string())
        .map_err(|e| e.to_string());
    match (&eager_result, &deferred_result) {
        (Ok(_), Ok(_)) => {}
        (Ok(_), Err(e)) => panic!("eager load ok, deferred failed: {e}"),
        (Err(e), Err(d)) => {
            assert_eq!(d, e, "different errors");
            return;
        }
        // A malformed schema (the deferred load parses each on first use).
        (Err(_), Ok(_)) => return,
    }
    // Loaded both ways: every type (up to 40 per provider and mode) has the same candidates.
    let Ok(doc) = ProviderSchemas::parse(text) else {
        panic!("add_json succeeded but ProviderSchemas::parse failed");
    };
    for (address, provider) in &doc.providers {
        let normalized = normalize_provider(address);
        for (mode, names) in [
            (Mode::Managed, &provider.resources),
            (Mode::Data, &provider.data_sources),
        ] {
            for name in names.keys().take(40) {
                let a: Vec<_> = eager.candidates(&normalized, mode, name).map(key).collect();
                let b: Vec<_> = deferred
                    .candidates(&normalized, mode, name)
                    .map(key)
                    .collect();
                assert_eq!(a, b, "{address} {name}");
            }
        }
    }
}
