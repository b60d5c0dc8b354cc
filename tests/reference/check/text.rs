//! The checks of `type_json` and `schema_doc`: parsing never panics, and what parses prints and
//! reparses to itself.

use super::*;

/// `type_json`: parsing never panics; a parsed type prints to JSON that parses back to it
/// (types nested beyond what the parser admits excepted), and compiles.
pub fn type_json(data: &[u8]) {
    let Ok(t) = Type::from_json_bytes(data) else {
        return;
    };
    print_reparse(&t);
}

fn print_reparse(t: &Type) {
    let text = t.to_string();
    match Type::from_json(&text) {
        Ok(back) => assert_eq!(&back, t, "printed as {text}"),
        Err(e) => assert!(too_deep(t), "{text} does not parse back: {e}"),
    }
    let p = Program::new(t).unwrap();
    let _ = p.to_string();
}

/// Nested beyond what type JSON can express (serde_json stops at 128 levels of JSON, the
/// parser at 100 levels of type).
fn too_deep(t: &Type) -> bool {
    fn json_depth(t: &Type) -> usize {
        match t {
            Type::List(e) | Type::Set(e) | Type::Map(e) => 1 + json_depth(e),
            Type::Object(o) => {
                2 + o
                    .attrs()
                    .iter()
                    .map(|(_, a)| json_depth(a))
                    .max()
                    .unwrap_or(0)
            }
            Type::Tuple(ts) => 2 + ts.iter().map(json_depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    fn depth(t: &Type) -> usize {
        match t {
            Type::List(e) | Type::Set(e) | Type::Map(e) => 1 + depth(e),
            Type::Object(o) => 1 + o.attrs().iter().map(|(_, a)| depth(a)).max().unwrap_or(0),
            Type::Tuple(ts) => 1 + ts.iter().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    json_depth(t) >= 127 || depth(t) > tfwire::schema::MAX_TYPE_DEPTH
}

/// `schema_doc`: parsing never panics; the deferred load of a document agrees with the eager
/// one ([`super::super::schemas`]); every schema of a parsed source has an implied type that prints
/// and parses back, and compiles.
pub fn schema_doc(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    super::super::schemas::deferred_matches_eager(text);
    let Ok(src) = SchemaSource::parse(text) else {
        return;
    };
    let mut sels = vec![SchemaSelector::default()];
    if let SchemaSource::Document(doc) = &src {
        for (addr, prov) in &doc.providers {
            let sel = |r: Option<&String>, d: Option<&String>| {
                SchemaSelector::default()
                    .with_resource(r.cloned())
                    .with_data_source(d.cloned())
                    .with_provider(Some(addr.clone()))
            };
            sels.push(sel(None, None));
            sels.extend(prov.resources.keys().take(20).map(|r| sel(Some(r), None)));
            sels.extend(
                prov.data_sources
                    .keys()
                    .take(20)
                    .map(|d| sel(None, Some(d))),
            );
        }
    }
    for sel in sels.iter().take(100) {
        if let Ok(t) = src.select(sel) {
            print_reparse(&t);
            assert!(
                Program::from_source(&src, sel).is_ok(),
                "select succeeded, compile failed"
            );
        }
    }
}
