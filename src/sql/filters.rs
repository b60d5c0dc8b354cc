//! The filters a [`FleetTable`](super::FleetTable) takes as hints: equalities and `IN` lists
//! of text on the envelope columns (`instances`: `type`, `module`, `mode`, `name`,
//! `provider`, `address`; a type's table: `_module`, `_mode`, `_name`, `_provider`,
//! `_address`), and `module IS NULL` (the root module). A scan steps over the instances of
//! the resources they rule out undecoded ([`SchemaSet::only_types`](crate::state::SchemaSet::only_types),
//! [`ResourceFilter`]); DataFusion still applies every filter to the rows (they are
//! `Inexact`). Also the JSON form of a [`ResourceFilter`] that the cluster's codec carries.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
#[cfg(any(feature = "cluster", test))]
use serde_json::{json, Value as Json};

use crate::state::{Mode, ResourceFilter};

/// What one filter keeps: some types (`instances`' `type`), or some resources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Pushed {
    /// The types `type = 'T'` or `type IN ('T', …)` keeps.
    Types(Vec<String>),
    /// The resources a filter on another envelope column keeps.
    Resources(ResourceFilter),
}

/// Which envelope column a name is in a table (`prefix`: `_` in a type's table).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Envelope {
    Type,
    Module,
    Mode,
    Name,
    Provider,
    Address,
}

fn envelope(column: &str, instances: bool) -> Option<Envelope> {
    let name = if instances {
        column
    } else {
        column.strip_prefix('_')?
    };
    Some(match name {
        "type" if instances => Envelope::Type,
        "module" => Envelope::Module,
        "mode" => Envelope::Mode,
        "name" => Envelope::Name,
        "provider" => Envelope::Provider,
        "address" => Envelope::Address,
        _ => return None,
    })
}

/// What `filter` keeps, when it is one the tables take (`instances`: whether the table is
/// `instances`, whose columns have no underscore).
pub(super) fn pushed(filter: &Expr, instances: bool) -> Option<Pushed> {
    let column = |e: &Expr| match e {
        Expr::Column(c) => envelope(&c.name, instances),
        _ => None,
    };
    let (on, values): (Envelope, Vec<Option<String>>) = match filter {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Eq,
            right,
        }) => match (column(left), column(right)) {
            (Some(on), None) => (on, vec![Some(text(right)?)]),
            (None, Some(on)) => (on, vec![Some(text(left)?)]),
            _ => return None,
        },
        Expr::InList(InList {
            expr,
            list,
            negated: false,
        }) => (
            column(expr)?,
            list.iter()
                .map(|v| text(v).map(Some))
                .collect::<Option<_>>()?,
        ),
        Expr::IsNull(e) if column(e) == Some(Envelope::Module) => (Envelope::Module, vec![None]),
        _ => return None,
    };
    let texts = || values.iter().flatten().cloned().collect::<Vec<_>>();
    let mut f = ResourceFilter::default();
    match on {
        Envelope::Type => return Some(Pushed::Types(texts())),
        Envelope::Module => f.modules = Some(values.clone()),
        Envelope::Mode => f.modes = Some(texts().iter().filter_map(|m| mode(m)).collect()),
        Envelope::Name => f.names = Some(texts()),
        Envelope::Provider => f.providers = Some(texts()),
        Envelope::Address => f.addresses = Some(texts()),
    }
    Some(Pushed::Resources(f))
}

/// A text literal's value.
fn text(e: &Expr) -> Option<String> {
    match e {
        Expr::Literal(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::Utf8View(Some(s))
            | ScalarValue::LargeUtf8(Some(s)),
            _,
        ) => Some(s.clone()),
        _ => None,
    }
}

fn mode(text: &str) -> Option<Mode> {
    match text {
        "managed" => Some(Mode::Managed),
        "data" => Some(Mode::Data),
        _ => None,
    }
}

/// The types and resources every one of `filters` keeps (they are ANDed).
pub(super) fn combined<'e>(
    filters: impl IntoIterator<Item = &'e Expr>,
    instances: bool,
) -> (Option<Vec<String>>, ResourceFilter) {
    let mut types: Option<Vec<String>> = None;
    let mut resources = ResourceFilter::default();
    for f in filters {
        match pushed(f, instances) {
            Some(Pushed::Types(t)) => {
                types = Some(match types {
                    Some(before) => before.into_iter().filter(|b| t.contains(b)).collect(),
                    None => t,
                });
            }
            Some(Pushed::Resources(r)) => resources = resources.and(r),
            None => {}
        }
    }
    (types, resources)
}

/// `filter` as EXPLAIN shows it: `module IN (NULL, 'module.a'), name IN ('web')`.
pub(super) fn describe(filter: &ResourceFilter) -> String {
    let list = |column: &str, values: Vec<String>| format!("{column} IN ({})", values.join(", "));
    let quoted = |v: &Vec<String>| v.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>();
    let mut parts = Vec::new();
    if let Some(m) = &filter.modules {
        let values = (m.iter())
            .map(|m| m.as_ref().map_or("NULL".to_string(), |m| format!("'{m}'")))
            .collect();
        parts.push(list("module", values));
    }
    if let Some(m) = &filter.modes {
        let modes = (m.iter())
            .map(|m| match m {
                Mode::Managed => "'managed'".to_string(),
                Mode::Data => "'data'".to_string(),
            })
            .collect();
        parts.push(list("mode", modes));
    }
    for (column, values) in [
        ("name", &filter.names),
        ("provider", &filter.providers),
        ("address", &filter.addresses),
    ] {
        if let Some(v) = values {
            parts.push(list(column, quoted(v)));
        }
    }
    parts.join(", ")
}

/// `filter` as the cluster's codec writes it.
#[cfg(any(feature = "cluster", test))]
pub(super) fn filter_json(filter: &ResourceFilter) -> Json {
    let modes = filter.modes.as_ref().map(|m| {
        m.iter()
            .map(|m| match m {
                Mode::Managed => "managed",
                Mode::Data => "data",
            })
            .collect::<Vec<_>>()
    });
    json!({
        "modules": filter.modules,
        "modes": modes,
        "names": filter.names,
        "providers": filter.providers,
        "addresses": filter.addresses,
    })
}

/// The filter [`filter_json`] wrote (`None` when `v` is not one).
#[cfg(any(feature = "cluster", test))]
pub(super) fn filter_of(v: &Json) -> Option<ResourceFilter> {
    let list = |name: &str| -> Option<Option<Vec<Option<String>>>> {
        match v.get(name)? {
            Json::Null => Some(None),
            Json::Array(items) => (items.iter())
                .map(|i| match i {
                    Json::Null => Some(None),
                    Json::String(s) => Some(Some(s.clone())),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(Some),
            _ => None,
        }
    };
    let texts = |name: &str| -> Option<Option<Vec<String>>> {
        match list(name)? {
            None => Some(None),
            Some(items) => items.into_iter().collect::<Option<Vec<_>>>().map(Some),
        }
    };
    let modes = match texts("modes")? {
        None => None,
        Some(m) => Some(m.iter().map(|m| mode(m)).collect::<Option<Vec<_>>>()?),
    };
    Some(ResourceFilter {
        modules: list("modules")?,
        modes,
        names: texts("names")?,
        providers: texts("providers")?,
        addresses: texts("addresses")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::{col, lit};

    #[test]
    fn envelope_filters_are_pushed_by_table_kind() {
        let eq = col("_module").eq(lit("module.a"));
        let expected = ResourceFilter {
            modules: Some(vec![Some("module.a".into())]),
            ..Default::default()
        };
        assert_eq!(pushed(&eq, false), Some(Pushed::Resources(expected)));
        // `instances` has no underscored columns, a type's table no `type`.
        assert_eq!(pushed(&eq, true), None);
        assert_eq!(pushed(&col("type").eq(lit("t")), false), None);
        assert_eq!(
            pushed(&lit("t").eq(col("type")), true),
            Some(Pushed::Types(vec!["t".into()]))
        );
        let root = col("module").is_null();
        let expected = ResourceFilter {
            modules: Some(vec![None]),
            ..Default::default()
        };
        assert_eq!(pushed(&root, true), Some(Pushed::Resources(expected)));
        // Not pushed: a negated list, a column compared with a column, a number, `<`.
        assert_eq!(pushed(&col("_name").not_eq(lit("a")), false), None);
        let not_in = col("_name").in_list(vec![lit("a")], true);
        assert_eq!(pushed(&not_in, false), None);
        assert_eq!(pushed(&col("_name").eq(col("_module")), false), None);
        assert_eq!(pushed(&col("_name").eq(lit(1)), false), None);
        assert_eq!(pushed(&col("_name").lt(lit("a")), false), None);
    }

    #[test]
    fn filters_are_anded_column_by_column() {
        let filters = [
            col("mode").in_list(vec![lit("managed"), lit("data"), lit("other")], false),
            col("mode").eq(lit("data")),
            col("type").in_list(vec![lit("a"), lit("b")], false),
            col("type").eq(lit("b")),
            col("provider").eq(lit("p")),
        ];
        let (types, resources) = combined(&filters, true);
        assert_eq!(types, Some(vec!["b".to_string()]));
        let expected = ResourceFilter {
            modes: Some(vec![Mode::Data]),
            providers: Some(vec!["p".into()]),
            ..Default::default()
        };
        assert_eq!(resources, expected);
    }

    #[test]
    fn a_filter_crosses_the_wire_unchanged() {
        let filter = ResourceFilter {
            modules: Some(vec![None, Some("module.a".into())]),
            modes: Some(vec![Mode::Managed, Mode::Data]),
            names: None,
            providers: Some(vec![]),
            addresses: Some(vec!["a.b[0]".into()]),
        };
        assert_eq!(filter_of(&filter_json(&filter)), Some(filter.clone()));
        assert_eq!(
            filter_of(&filter_json(&ResourceFilter::default())),
            Some(ResourceFilter::default())
        );
        assert_eq!(
            describe(&filter),
            "module IN (NULL, 'module.a'), mode IN ('managed', 'data'), provider IN (), \
             address IN ('a.b[0]')"
        );
        let bad = json!({"modules": [1], "modes": null, "names": null, "providers": null, "addresses": null});
        assert_eq!(filter_of(&bad), None);
        let bad_mode = json!({"modules": null, "modes": ["both"], "names": null, "providers": null, "addresses": null});
        assert_eq!(filter_of(&bad_mode), None);
        assert_eq!(filter_of(&json!({})), None);
    }
}
