//! Contenders for the validating skip (issue 22), on every workload: tfwire's
//! [`tfwire::skip_json`] and [`tfwire::skip_msgpack`] (each checked to step over the whole
//! input), and for JSON the peers' validating skips: serde_json and sonic-rs deserializing
//! `serde::de::IgnoredAny`.

use serde::de::IgnoredAny;

use super::{Case, Contender, Encoding};

/// The skip contenders of `case`'s encoding.
pub(super) fn contenders(case: &Case) -> Vec<Contender<'_>> {
    let input = &case.input[..];
    match case.encoding {
        Encoding::Msgpack => vec![(
            "tfwire_skip",
            Box::new(move || tfwire::skip_msgpack(input).is_ok_and(|n| n == input.len())),
        )],
        Encoding::Json => vec![
            (
                "tfwire_skip",
                Box::new(move || tfwire::skip_json(input).is_ok_and(|n| n == input.len())),
            ),
            (
                "serde_json_skip",
                Box::new(move || serde_json::from_slice::<IgnoredAny>(input).is_ok()),
            ),
            (
                "sonic_rs_skip",
                Box::new(move || sonic_rs::from_slice::<IgnoredAny>(input).is_ok()),
            ),
        ],
    }
}
