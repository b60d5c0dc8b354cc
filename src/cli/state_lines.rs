//! The lines `tfwire state` prints for an instance: `--format text` (the address and the
//! outcome, with `--dump` the DUMP after it) and `--format ndjson` (one JSON object).

use std::fmt::Write as _;

use tfwire::state::{IndexKey, InstanceRef, Mode, Outcome};

/// The DUMP of a value that `program` decoded. That cannot fail (such a value is of the
/// program's type and within `MAX_VALUE_DEPTH`); were it to, the value shows as `null`.
#[inline]
fn dump_decoded(out: &mut String, program: &tfwire::Program, value: tfwire::Value<'_>) {
    let mark = out.len();
    if tfwire::dump::write(out, program, value).is_err() {
        out.truncate(mark);
        out.push_str("null");
    }
}

/// The text line of an instance (and its DUMP after it, with `--dump`), each after `prefix`
/// and newline-terminated.
pub(super) fn text_lines(
    out: &mut String,
    prefix: &str,
    item: &InstanceRef<'_, '_>,
    outcome: &Outcome<'_>,
    dump: bool,
) {
    out.push_str(prefix);
    item.write_address(out);
    out.push('\t');
    match outcome {
        Outcome::Ok(value, m) => {
            out.push_str("ok\n");
            if dump {
                out.push_str(prefix);
                dump_decoded(out, m.program, *value);
                out.push('\n');
            }
        }
        Outcome::Dumped(text, _) => {
            out.push_str("ok\n");
            if dump {
                out.push_str(prefix);
                out.push_str(text);
                out.push('\n');
            }
        }
        Outcome::Error(e, _) => {
            let _ = writeln!(out, "error {e}");
        }
        Outcome::NoSchema => out.push_str("no schema\n"),
        Outcome::Legacy => {
            out.push_str("no schema (legacy flatmap attributes are not supported)\n")
        }
    }
}

/// What [`ndjson_line`] keeps from line to line: a scratch address, and the JSON of the last
/// resource type and provider address written (Terraform writes a type's resources one after
/// another, all of one provider: each is escaped once a run of them, F40).
#[derive(Default)]
pub(super) struct LineScratch {
    address: String,
    type_name: (String, String),
    provider: (String, String),
}

/// Writes `s` as a JSON string, from `last` (the string and its JSON) when `s` is its string,
/// else escaped and kept in `last`.
fn push_kept_json_string(out: &mut String, last: &mut (String, String), s: &str) {
    // (A JSON string is never empty: an empty `last.1` is none kept yet, even for `s` "".)
    if last.1.is_empty() || last.0 != s {
        last.0.clear();
        last.0.push_str(s);
        last.1.clear();
        push_json_string(&mut last.1, s);
    }
    out.push_str(&last.1);
}

/// The NDJSON object of an instance, newline-terminated: the keys in the documented order
/// (`file` is given as JSON).
pub(super) fn ndjson_line(
    out: &mut String,
    scratch: &mut LineScratch,
    file: &str,
    item: &InstanceRef<'_, '_>,
    outcome: &Outcome<'_>,
) {
    let r = item.resource;
    out.push_str("{\"file\":");
    out.push_str(file);
    out.push_str(",\"address\":");
    scratch.address.clear();
    item.write_address(&mut scratch.address);
    push_json_string(out, &scratch.address);
    out.push_str(match r.mode {
        Mode::Managed => ",\"mode\":\"managed\",\"type\":",
        Mode::Data => ",\"mode\":\"data\",\"type\":",
    });
    push_kept_json_string(out, &mut scratch.type_name, &r.type_name);
    out.push_str(",\"name\":");
    push_json_string(out, &r.name);
    out.push_str(",\"module\":");
    push_opt_json_string(out, r.module.as_deref());
    out.push_str(",\"index_key\":");
    match &item.instance.index_key {
        Some(IndexKey::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        Some(IndexKey::String(s)) => push_json_string(out, s),
        None => out.push_str("null"),
    }
    out.push_str(",\"deposed\":");
    push_opt_json_string(out, item.instance.deposed.as_deref());
    out.push_str(",\"provider\":");
    push_kept_json_string(out, &mut scratch.provider, &r.provider_address);
    match outcome {
        Outcome::Ok(value, m) => {
            out.push_str(",\"status\":\"ok\",\"value\":");
            dump_decoded(out, m.program, *value);
        }
        Outcome::Dumped(text, _) => {
            out.push_str(",\"status\":\"ok\",\"value\":");
            out.push_str(text);
        }
        Outcome::Error(e, _) => {
            out.push_str(",\"status\":\"error\",\"error\":{\"path\":");
            push_json_string(out, e.display_path());
            let offset = e.offset().unwrap_or_default();
            let _ = write!(out, ",\"offset\":{offset},\"message\":");
            push_json_string(out, e.message());
            out.push('}');
        }
        Outcome::NoSchema | Outcome::Legacy => out.push_str(",\"status\":\"no_schema\""),
    }
    out.push_str("}\n");
}

/// `s` as a JSON string (serde_json's escaping).
pub(super) fn json_string(s: &str) -> String {
    let mut out = String::new();
    push_json_string(&mut out, s);
    out
}

fn push_json_string(out: &mut String, s: &str) {
    tfwire::dump::write_string(out, s);
}

fn push_opt_json_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_json_string(out, s),
        None => out.push_str("null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON kept from the line before is written only for the same string; the empty
    /// string too, first and after another.
    #[test]
    fn kept_json_strings_are_the_strings_json() {
        let mut last = (String::new(), String::new());
        let mut out = String::new();
        for s in [
            "",
            "",
            "aws_instance",
            "aws_instance",
            "a\"b",
            "",
            "aws_instance",
        ] {
            out.clear();
            push_kept_json_string(&mut out, &mut last, s);
            assert_eq!(out, json_string(s), "{s:?}");
        }
    }
}
