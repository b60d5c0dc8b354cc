//! `tfwire bench --encode`: the encoders against their peers. Each input is decoded once by
//! tfwire and by each peer into its own tree (an rmpv `Value`; a serde_json and a sonic-rs
//! `Value`), outside the timing; then each round writes the value out again: tfwire's
//! MessagePack encoder against `rmpv::encode::write_value`, tfwire's JSON encoder against
//! `serde_json::to_vec` and `sonic_rs::to_vec`. Before anything is timed, tfwire's output is
//! checked: a workload (go-cty's own encoding) must come back byte for byte.

use bumpalo::Bump;
use tfwire::{JsonEncoder, MsgpackEncoder, Value};

use super::{decode, Case, Contender, Encoding};
use crate::cli::Failure;

/// Decodes the case once and checks that tfwire writes it back as go-cty did (`exact`: the
/// input is go-cty's encoding) or at all.
pub(super) fn check<'a>(case: &'a Case, bump: &'a Bump, exact: bool) -> Result<Value<'a>, Failure> {
    let what = format!("{} {}", case.workload, case.encoding.name());
    let value = decode(case, bump).map_err(|e| Failure::BadInput(format!("{what}: {e}")))?;
    let mut out = Vec::new();
    encode(case, value, &mut out).map_err(|e| Failure::BadInput(format!("{what}: {e}")))?;
    if exact && out != case.input {
        return Err(Failure::BadInput(format!(
            "{what}: tfwire's encoding differs from go-cty's; not timed"
        )));
    }
    Ok(value)
}

fn encode(case: &Case, value: Value<'_>, out: &mut Vec<u8>) -> Result<(), tfwire::EncodeError> {
    match case.encoding {
        Encoding::Msgpack => case.program.encode_msgpack(value, out),
        Encoding::Json => case.program.encode_json(value, out),
    }
}

/// tfwire's encoder and the peers of the case's encoding, each writing its own tree of the
/// same data. (A peer that cannot read the input is left out.)
pub(super) fn contenders<'c>(case: &'c Case, value: Value<'c>) -> Vec<Contender<'c>> {
    let input = &case.input[..];
    let program = &case.program;
    let mut list: Vec<Contender<'c>> = Vec::new();
    match case.encoding {
        Encoding::Msgpack => {
            let mut encoder = MsgpackEncoder::new();
            let mut out = Vec::with_capacity(input.len());
            list.push((
                "tfwire",
                Box::new(move || {
                    out.clear();
                    let ok = encoder.encode(program, value, &mut out).is_ok();
                    std::hint::black_box(&out);
                    ok
                }),
            ));
            let mut rd = input;
            if let Ok(tree) = rmpv::decode::read_value(&mut rd) {
                let mut out = Vec::with_capacity(input.len());
                list.push((
                    "rmpv",
                    Box::new(move || {
                        out.clear();
                        let ok = rmpv::encode::write_value(&mut out, &tree).is_ok();
                        std::hint::black_box(&out);
                        ok
                    }),
                ));
            }
        }
        Encoding::Json => {
            let mut encoder = JsonEncoder::new();
            let mut out = Vec::with_capacity(input.len());
            list.push((
                "tfwire",
                Box::new(move || {
                    out.clear();
                    let ok = encoder.encode(program, value, &mut out).is_ok();
                    std::hint::black_box(&out);
                    ok
                }),
            ));
            if let Ok(tree) = serde_json::from_slice::<serde_json::Value>(input) {
                list.push((
                    "serde_json",
                    Box::new(move || serde_json::to_vec(&tree).map(std::hint::black_box).is_ok()),
                ));
            }
            if let Ok(tree) = sonic_rs::from_slice::<sonic_rs::Value>(input) {
                list.push((
                    "sonic_rs",
                    Box::new(move || sonic_rs::to_vec(&tree).map(std::hint::black_box).is_ok()),
                ));
            }
        }
    }
    list
}
