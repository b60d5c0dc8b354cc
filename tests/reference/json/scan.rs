//! Byte-level JSON for the reference decoder: strings (scanned raw, then UTF-8 checked and
//! unescaped), number literals, literals, the checked skip of a value, and the unchecked
//! extent of a value (as the VM takes it for a value-first wrapper's value and type JSON).

use tfwire::ErrorKind;

use super::{D, R};

/// Bytes that would continue a number or a literal.
fn word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-' | b'_')
}

/// Decodes a raw string body: UTF-8 first, then every escape.
pub(super) fn unescape(raw: &[u8]) -> R<String> {
    let s = std::str::from_utf8(raw).map_err(|_| ErrorKind::InvalidUtf8)?;
    let mut out = String::new();
    let mut chars = s.char_indices();
    let hex4 = |i: usize| -> Option<u32> {
        let h = s.get(i..i + 4)?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(h, 16).ok()
    };
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let (_, e) = chars.next().ok_or(ErrorKind::InvalidUtf8)?;
        let decoded = match e {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let hi = hex4(i + 2).ok_or(ErrorKind::InvalidUtf8)?;
                let mut used = 4;
                let c = match hi {
                    0xd800..=0xdbff => {
                        let lo = match s.get(i + 6..i + 8) {
                            Some("\\u") => hex4(i + 8),
                            _ => None,
                        };
                        match lo {
                            Some(lo @ 0xdc00..=0xdfff) => {
                                used = 10;
                                char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                            }
                            _ => None,
                        }
                    }
                    0xdc00..=0xdfff => None,
                    c => char::from_u32(c),
                };
                for _ in 0..used {
                    chars.next();
                }
                c.ok_or(ErrorKind::InvalidUtf8)?
            }
            _ => return Err(ErrorKind::InvalidUtf8),
        };
        out.push(decoded);
    }
    Ok(out)
}

impl D<'_> {
    /// The body of the string whose `"` is at `pos`, raw (escapes not decoded): its end is the
    /// first unescaped quote; a control byte is a syntax error.
    pub(super) fn raw_string(&mut self) -> R<(usize, usize)> {
        let start = self.pos + 1;
        let mut i = start;
        loop {
            match self.buf.get(i) {
                None => return Err(ErrorKind::Eof),
                Some(b'"') => break,
                Some(b'\\') => i += 2,
                Some(&c) if c < 0x20 => return Err(ErrorKind::Syntax),
                Some(_) => i += 1,
            }
            if i > self.buf.len() {
                return Err(ErrorKind::Eof);
            }
        }
        self.pos = i + 1;
        Ok((start, i))
    }

    /// A whole string: scanned, UTF-8 checked, escapes decoded, length limited.
    pub(super) fn string(&mut self) -> R<String> {
        let (s, e) = self.raw_string()?;
        let text = unescape(&self.buf[s..e])?;
        if text.len() > self.opts.limits.max_string_len as usize {
            return Err(ErrorKind::Limit);
        }
        Ok(text)
    }

    /// A number literal at `pos`: its text.
    pub(super) fn number(&mut self) -> R<String> {
        let b = self.buf;
        let at = self.pos;
        let mut i = at + usize::from(b.get(at) == Some(&b'-'));
        let bad = |i: usize| {
            if i >= b.len() {
                ErrorKind::Eof
            } else {
                ErrorKind::Syntax
            }
        };
        let digits = |i: usize| {
            b[i.min(b.len())..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count()
        };
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i += digits(i),
            _ => return Err(bad(i)),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            match digits(i) {
                0 => return Err(bad(i)),
                n => i += n,
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            match digits(i) {
                0 => return Err(bad(i)),
                n => i += n,
            }
        }
        if b.get(i).is_some_and(|&c| word(c)) {
            return Err(ErrorKind::Syntax);
        }
        self.pos = i;
        Ok(String::from_utf8(b[at..i].to_vec()).expect("ASCII"))
    }

    /// The literal `w` at `pos`.
    pub(super) fn literal(&mut self, w: &str) -> R<()> {
        let rest = &self.buf[self.pos..];
        let end = self.pos + w.len();
        if rest.starts_with(w.as_bytes()) && !self.buf.get(end).is_some_and(|&c| word(c)) {
            self.pos = end;
            return Ok(());
        }
        if rest.len() < w.len() && w.as_bytes().starts_with(rest) {
            return Err(ErrorKind::Eof);
        }
        Err(if rest.is_empty() {
            ErrorKind::Eof
        } else {
            ErrorKind::Syntax
        })
    }

    /// Moves past the JSON value at `pos` WITHOUT checking it (a value-first wrapper's value,
    /// which is decoded afterwards, and type JSON, which is parsed afterwards): a string ends
    /// at its closing quote (control bytes are errors on the way), a container at the bracket
    /// that brings the count of open brackets (of either kind, outside strings) back to zero,
    /// more than `depth` open being a limit, and anything else at the next `,` `]` `}` `:` or
    /// whitespace (at least one byte).
    pub(super) fn extent(&mut self, depth: u32) -> R<()> {
        let c = self.ws().ok_or(ErrorKind::Eof)?;
        match c {
            b'"' => self.raw_string().map(|_| ()),
            b'[' | b'{' => {
                if depth == 0 {
                    return Err(ErrorKind::Limit);
                }
                let (mut open, mut inside, mut escaped) = (0u32, false, false);
                while let Some(&b) = self.buf.get(self.pos) {
                    self.pos += 1;
                    if inside {
                        match (escaped, b) {
                            (true, _) => escaped = false,
                            (false, b'\\') => escaped = true,
                            (false, b'"') => inside = false,
                            _ => {}
                        }
                        continue;
                    }
                    match b {
                        b'"' => inside = true,
                        b'[' | b'{' => {
                            open += 1;
                            if open > depth {
                                return Err(ErrorKind::Limit);
                            }
                        }
                        b']' | b'}' => {
                            open -= 1;
                            if open == 0 {
                                return Ok(());
                            }
                        }
                        _ => {}
                    }
                }
                Err(ErrorKind::Eof)
            }
            _ => {
                let stop =
                    |b: u8| matches!(b, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t' | b':');
                if stop(c) {
                    self.pos += 1;
                    return Ok(());
                }
                while self.buf.get(self.pos).is_some_and(|&b| !stop(b)) {
                    self.pos += 1;
                }
                Ok(())
            }
        }
    }

    /// Skips (and checks) one JSON value with at most `depth` nested containers.
    pub(super) fn skip(&mut self, depth: u32) -> R<()> {
        let c = self.ws().ok_or(ErrorKind::Eof)?;
        match c {
            b'"' => self.string_unlimited().map(|_| ()),
            b'-' | b'0'..=b'9' => self.number().map(|_| ()),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            b'[' | b'{' => {
                if depth == 0 {
                    return Err(ErrorKind::Limit);
                }
                self.pos += 1;
                let close = if c == b'[' { b']' } else { b'}' };
                if self.ws() == Some(close) {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    if c == b'{' {
                        match self.ws() {
                            Some(b'"') => self.string_unlimited().map(|_| ())?,
                            Some(_) => return Err(ErrorKind::Syntax),
                            None => return Err(ErrorKind::Eof),
                        }
                        self.expect(b':')?;
                    }
                    self.skip(depth - 1)?;
                    if !self.more(close)? {
                        return Ok(());
                    }
                }
            }
            _ => Err(ErrorKind::Syntax),
        }
    }

    pub(super) fn string_unlimited(&mut self) -> R<String> {
        let (s, e) = self.raw_string()?;
        unescape(&self.buf[s..e])
    }
}
