//! A lean JSON tree for the schema loader: strings borrowed from the document when they have
//! no escapes, objects as sorted vectors instead of `serde_json::Map`'s B-trees. Parsing the
//! aws provider document into it costs about half of a `serde_json::Value` (measured with
//! callgrind, `perf/optimizations.md`), and dropping it far less.
//!
//! Objects keep `serde_json::Map`'s semantics: keys sorted, a repeated key keeps its last
//! value.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// A JSON value borrowing from the text it was parsed from.
#[derive(Debug, PartialEq)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Map<'a>),
}

/// A JSON object: entries sorted by key, keys unique.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Map<'a>(Vec<(Cow<'a, str>, Json<'a>)>);

impl<'a> Map<'a> {
    /// Sorts `entries` by key (stable); of repeated keys the last stays.
    fn from_entries(entries: Vec<(Cow<'a, str>, Json<'a>)>) -> Map<'a> {
        Map(super::sorted_last_wins(entries))
    }

    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        let i = self.0.binary_search_by(|(k, _)| (**k).cmp(key)).ok()?;
        self.0.get(i).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Json<'a>)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }
}

impl<'j, 'a> IntoIterator for &'j Map<'a> {
    type Item = (&'j str, &'j Json<'a>);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'j, (Cow<'a, str>, Json<'a>)>,
        fn(&'j (Cow<'a, str>, Json<'a>)) -> (&'j str, &'j Json<'a>),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (&**k, v))
    }
}

impl<'a> Json<'a> {
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value` (for the type parser, and for messages).
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.clone()),
            Json::String(s) => Value::String(s.to_string()),
            Json::Array(a) => Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_value().fmt(f)
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        Json::deserialize(d)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Json<'de>, E> {
        // serde_json never gives a non-finite number.
        Ok(Number::from_f64(n).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(Key(k)) = map.next_key()? {
            out.push((k, map.next_value()?));
        }
        Ok(Json::Object(Map::from_entries(out)))
    }
}

/// An object key, borrowed when it has no escapes (serde's own `Cow` always copies).
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    /// The same as `serde_json::Value` on every kind, repeated keys and escapes included.
    #[test]
    fn agrees_with_serde_json_value() {
        for text in [
            r#"{"b":1,"a":[true,null,-2,1.5,"x\u0041"],"b":{"z":"","y":18446744073709551615}}"#,
            r#"[{"k\"":"v"},{},[],"\ud83d\ude00"]"#,
            "null",
            "-0.0",
        ] {
            let lean: Json = serde_json::from_str(text).unwrap();
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(lean.to_value(), value, "{text}");
        }
        let lean: Json = serde_json::from_str(r#"{"b":1,"a":2,"b":3}"#).unwrap();
        let Json::Object(m) = lean else { panic!() };
        assert_eq!(m.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(m.get("b").and_then(Json::as_u64), Some(3));
    }
}
