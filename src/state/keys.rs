//! The envelope's keys as Terraform and OpenTofu write them: a key at a known position is
//! matched against the handful of names a state holds, quoted and with its colon, before
//! the general key reader (`tokens::key`: a string scan, UTF-8 check and unescaping) runs.
//! A key this does not match (an escape, space before the colon, another name) goes the
//! general way and reads the same.

/// The known key whose quoted form and colon (`"attributes":`) start at `i`: the key and the
/// position after the colon, or `None`.
#[inline]
pub(super) fn known_key(buf: &[u8], i: usize) -> Option<(&'static str, usize)> {
    let rest = buf.get(i..)?;
    // Each arm compares a literal of constant length (a few wide loads, no `memcmp` call).
    macro_rules! known {
        ($($name:literal),+) => {{
            $(
                if rest.starts_with(concat!("\"", $name, "\":").as_bytes()) {
                    // `i + len + 3`: the bytes just compared, inside the buffer.
                    return Some(($name, i.wrapping_add($name.len()).wrapping_add(3)));
                }
            )+
            None
        }};
    }
    match rest.get(1)? {
        b'a' => known!("attributes"),
        b'c' => known!("create_before_destroy"),
        b'd' => known!("dependencies", "deposed"),
        b'e' => known!("each"),
        b'i' => known!(
            "index_key",
            "instances",
            "identity",
            "identity_schema_version"
        ),
        b'm' => known!("mode", "module"),
        b'n' => known!("name"),
        b'p' => known!("private", "provider"),
        b's' => known!("schema_version", "sensitive_attributes", "status"),
        b't' => known!("type"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::known_key;

    #[test]
    fn known_keys_read_as_the_general_reader_reads_them() {
        let bump = bumpalo::Bump::new();
        // Each text, and whether the fast match takes it.
        let texts: [(&[u8], bool); 13] = [
            (br#""attributes": {}"#, true),
            (br#""attributes":{}"#, true),
            (br#""attributes_flat": {}"#, false),
            (br#""attributes" : {}"#, false),
            (br#""\u0061ttributes": 1"#, false),
            (br#""mode": "managed""#, true),
            (br#""module": "module.a""#, true),
            (br#""modules": 1"#, false),
            (br#""private""#, false),
            (br#""schema_version": 0"#, true),
            (br#""sensitive_attributes": []"#, true),
            (br#""identity_schema_version": 0"#, true),
            (br#""x": 1"#, false),
        ];
        for (text, fast) in texts {
            let general = crate::decode::json::tokens::key(text, 0, &bump).ok();
            let known = known_key(text, 0);
            assert_eq!(known.is_some(), fast, "{text:?}");
            if known.is_some() {
                assert_eq!(known, general, "{text:?}");
            }
        }
        assert_eq!(
            known_key(br#""attributes": {}"#, 0),
            Some(("attributes", 13))
        );
        // A key later in the buffer.
        assert_eq!(known_key(br#"{ "type": 1"#, 2), Some(("type", 9)));
    }
}
