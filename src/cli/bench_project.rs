//! Contenders for projection on the `aws_instance` workload (issue 22): tfwire's projected
//! program of `aws_instance[*].id`, `aws_instance[*].instance_type` and `aws_instance[*].tags`
//! (both encodings), and, for JSON, what a Rust author would write for those three fields:
//! serde_json and sonic-rs into a `#[derive(Deserialize)]` struct of just them, borrowed,
//! unknown fields skipped; and sonic-rs's lazy reading (`get` of the list, `to_array_iter`
//! over it, `get_many` of the three fields of each instance, nothing deserialized).

use std::borrow::Cow;
use std::collections::BTreeMap;

use bumpalo::Bump;
use serde::Deserialize;
use sonic_rs::{JsonValueTrait, PointerTree};
use tfwire::schema::Selection;
use tfwire::Program;

use super::typed_peers::Str;
use super::{Case, Contender, Encoding};

/// The paths projected.
pub(super) const PATHS: [&str; 3] = [
    "aws_instance[*].id",
    "aws_instance[*].instance_type",
    "aws_instance[*].tags",
];

/// The three fields, as a Rust author would declare them.
#[derive(Debug, Deserialize)]
pub(super) struct Three<'a> {
    #[serde(borrow)]
    pub aws_instance: Vec<Instance<'a>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Instance<'a> {
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
    #[serde(borrow)]
    pub instance_type: Option<Str<'a>>,
    #[serde(borrow)]
    pub tags: Option<BTreeMap<Cow<'a, str>, Str<'a>>>,
}

/// The projected program of `case`'s program (checked to decode the input, and to hold as
/// many instances as the 3-field peers find).
pub(super) fn projected(case: &Case) -> Result<Program, String> {
    let selection = Selection::parse(PATHS).map_err(|e| e.to_string())?;
    let program = case.program.select(&selection).map_err(|e| e.to_string())?;
    let bump = Bump::new();
    let value = match case.encoding {
        Encoding::Msgpack => program.decode_msgpack(&case.input, &bump),
        Encoding::Json => program.decode_json(&case.input, &bump),
    }
    .map_err(|e| format!("projection: {e}"))?;
    let instances = program.typed(value).attr("aws_instance");
    let count = instances.and_then(|t| t.value.len()).unwrap_or(0);
    if case.encoding == Encoding::Json {
        // The 3-field peers read the same values.
        let three = serde_json_three(&case.input)?;
        if three.aws_instance.len() != count {
            return Err(format!(
                "projection: {count} instances, serde_json {}",
                three.aws_instance.len()
            ));
        }
        let lazy = sonic_rs_lazy(&case.input, &lazy_tree())?;
        let found: usize = three
            .aws_instance
            .iter()
            .map(|i| {
                usize::from(i.id.is_some())
                    + usize::from(i.instance_type.is_some())
                    + usize::from(i.tags.is_some())
            })
            .sum();
        if lazy != (three.aws_instance.len(), found) {
            return Err(format!(
                "sonic-rs lazy: {lazy:?} instances and fields, serde_json {:?}",
                (three.aws_instance.len(), found)
            ));
        }
        for (i, peer) in three.aws_instance.iter().enumerate() {
            let mine = instances.and_then(|t| t.index(i));
            let text = |name: &str| {
                mine.and_then(|m| m.attr(name))
                    .and_then(|t| t.value.as_str())
            };
            let tags = mine
                .and_then(|m| m.attr("tags"))
                .and_then(|t| t.value.len());
            let want = |s: &Option<Str<'_>>| s.as_ref().map(|s| s.0.to_string());
            if text("id").map(str::to_string) != want(&peer.id)
                || text("instance_type").map(str::to_string) != want(&peer.instance_type)
                || tags != peer.tags.as_ref().map(BTreeMap::len)
            {
                return Err(format!(
                    "projection: instance {i} differs from serde_json's"
                ));
            }
        }
    }
    Ok(program)
}

pub(super) fn serde_json_three(input: &[u8]) -> Result<Three<'_>, String> {
    serde_json::from_slice(input).map_err(|e| format!("serde_json: {e}"))
}

pub(super) fn sonic_rs_three(input: &[u8]) -> Result<Three<'_>, String> {
    sonic_rs::from_slice(input).map_err(|e| format!("sonic_rs: {e}"))
}

/// The three fields of an instance, for `get_many`.
fn lazy_tree() -> PointerTree {
    let mut tree = PointerTree::new();
    for field in ["id", "instance_type", "tags"] {
        tree.add_path(&[field]);
    }
    tree
}

/// sonic-rs's lazy reading of the three fields: the instances, and the fields present (not
/// JSON `null`) among them.
pub(super) fn sonic_rs_lazy(input: &[u8], tree: &PointerTree) -> Result<(usize, usize), String> {
    let err = |e: sonic_rs::Error| format!("sonic_rs lazy: {e}");
    let list = sonic_rs::get(input, ["aws_instance"]).map_err(err)?;
    let (mut instances, mut found) = (0, 0);
    for item in sonic_rs::to_array_iter(list.as_raw_str()) {
        let item = item.map_err(err)?;
        let fields = sonic_rs::get_many(item.as_raw_str(), tree).map_err(err)?;
        instances += 1;
        found += fields
            .iter()
            .filter(|f| f.as_ref().is_some_and(|v| !v.is_null()))
            .count();
    }
    Ok((instances, found))
}

/// The projection contenders of `case` (a workload the typed peers decode).
pub(super) fn contenders<'c>(case: &'c Case, program: &'c Program) -> Vec<Contender<'c>> {
    let input = &case.input[..];
    let mut bump = Bump::new();
    let msgpack = case.encoding == Encoding::Msgpack;
    let mut list: Vec<Contender<'c>> = vec![(
        "tfwire_project",
        Box::new(move || {
            bump.reset();
            let value = match msgpack {
                true => program.decode_msgpack(input, &bump),
                false => program.decode_json(input, &bump),
            };
            value.map(std::hint::black_box).is_ok()
        }),
    )];
    if !msgpack {
        list.push((
            "serde_json_3field",
            Box::new(move || serde_json_three(input).map(std::hint::black_box).is_ok()),
        ));
        list.push((
            "sonic_rs_3field",
            Box::new(move || sonic_rs_three(input).map(std::hint::black_box).is_ok()),
        ));
        let tree = lazy_tree();
        list.push((
            "sonic_rs_lazy",
            Box::new(move || {
                sonic_rs_lazy(input, &tree)
                    .map(std::hint::black_box)
                    .is_ok()
            }),
        ));
    }
    list
}
