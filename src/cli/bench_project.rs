//! Contenders for projection on the `aws_instance` workload (issue 22): tfwire's projected
//! program of `aws_instance[*].id`, `aws_instance[*].instance_type` and `aws_instance[*].tags`
//! (both encodings), and, for JSON, what a Rust author would write for those three fields:
//! serde_json and sonic-rs into a `#[derive(Deserialize)]` struct of just them, borrowed,
//! unknown fields skipped.

use std::borrow::Cow;
use std::collections::BTreeMap;

use bumpalo::Bump;
use serde::Deserialize;
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
    }
    list
}
