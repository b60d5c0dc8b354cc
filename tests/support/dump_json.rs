//! The small JSON reader of `dumpcmp.rs`: serde_json (without `arbitrary_precision`) rounds
//! numbers, and a DUMP must be compared by the exact text of its number literals.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// A JSON value; numbers keep their literal text, objects are sorted by key (code point).
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(BTreeMap<String, J>),
}

const MAX_DEPTH: usize = 512;

/// Parses one JSON document (strict RFC 8259; duplicate keys are an error, as in the script).
pub fn parse_json(text: &str) -> Result<J, String> {
    let mut p = Reader {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    match p.i == p.s.len() {
        true => Ok(v),
        false => p.err("extra data"),
    }
}

struct Reader<'s> {
    s: &'s [u8],
    i: usize,
}

impl Reader<'_> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// Skips white space, then `c` if it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let hit = self.peek() == Some(c);
        self.i += hit as usize;
        hit
    }

    /// Skips `[0-9]*` and says how many.
    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    fn value(&mut self, depth: usize) -> Result<J, String> {
        if depth > MAX_DEPTH {
            return self.err("nested too deeply");
        }
        self.ws();
        for (word, v) in [
            ("null", J::Null),
            ("true", J::Bool(true)),
            ("false", J::Bool(false)),
        ] {
            if self.s[self.i..].starts_with(word.as_bytes()) {
                self.i += word.len();
                return Ok(v);
            }
        }
        let close = match self.peek() {
            Some(b'"') => return self.string().map(J::Str),
            Some(b'-' | b'0'..=b'9') => return self.number(),
            Some(b'[') => b']',
            Some(b'{') => b'}',
            _ => return self.err("expected a value"),
        };
        self.i += 1;
        let (mut arr, mut obj) = (Vec::new(), BTreeMap::new());
        if !self.eat(close) {
            loop {
                if close == b']' {
                    arr.push(self.value(depth + 1)?);
                } else {
                    if !self.eat(b'"') {
                        return self.err("expected a key");
                    }
                    self.i -= 1;
                    let k = self.string()?;
                    if !self.eat(b':') {
                        return self.err("expected ':'");
                    }
                    let v = self.value(depth + 1)?;
                    if obj.contains_key(&k) {
                        return Err(format!("duplicate key {}", json_str(&k)));
                    }
                    obj.insert(k, v);
                }
                if self.eat(close) {
                    break;
                }
                if !self.eat(b',') {
                    return self.err("expected ',' or a closing bracket");
                }
            }
        }
        Ok(if close == b']' {
            J::Arr(arr)
        } else {
            J::Obj(obj)
        })
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as text.
    fn number(&mut self) -> Result<J, String> {
        let start = self.i;
        self.eat(b'-');
        let lead = self.peek();
        let n = self.digits();
        let mut ok = n > 0 && (lead != Some(b'0') || n == 1);
        if self.peek() == Some(b'.') {
            self.i += 1;
            ok &= self.digits() > 0;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            ok &= self.digits() > 0;
        }
        if !ok {
            return self.err("invalid number");
        }
        Ok(J::Num(
            String::from_utf8(self.s[start..self.i].to_vec()).unwrap(),
        ))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok());
        let v = h.and_then(|h| u32::from_str_radix(h, 16).ok());
        self.i += 4;
        v.map_or_else(|| self.err("invalid \\u escape"), Ok)
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while self
                .peek()
                .is_some_and(|c| c != b'"' && c != b'\\' && c >= 0x20)
            {
                self.i += 1;
            }
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?);
            let c = self.peek();
            self.i += 1;
            let esc = match c {
                Some(b'"') => return Ok(out),
                Some(b'\\') => self.peek(),
                _ => return self.err("unterminated string or control character"),
            };
            self.i += 1;
            let ch = match esc {
                Some(c @ (b'"' | b'\\' | b'/')) => c as char,
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'u') => {
                    let mut u = self.hex4()?;
                    if (0xD800..0xDC00).contains(&u) && self.s[self.i..].starts_with(b"\\u") {
                        self.i += 2;
                        let lo = self.hex4()?;
                        if (0xDC00..0xE000).contains(&lo) {
                            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                        }
                    }
                    char::from_u32(u).ok_or("lone surrogate")?
                }
                _ => return self.err("invalid escape"),
            };
            out.push(ch);
        }
    }
}

/// `json.dumps(s, ensure_ascii=False)` (serde_json escapes exactly the same characters).
pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

pub fn to_text(v: &J, out: &mut String) {
    let (open, close) = match v {
        J::Null => return out.push_str("null"),
        J::Bool(b) => return out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => return out.push_str(n),
        J::Str(s) => return out.push_str(&json_str(s)),
        J::Arr(_) => ('[', ']'),
        J::Obj(_) => ('{', '}'),
    };
    out.push(open);
    let items: Vec<(Option<&String>, &J)> = match v {
        J::Arr(a) => a.iter().map(|x| (None, x)).collect(),
        J::Obj(m) => m.iter().map(|(k, x)| (Some(k), x)).collect(),
        _ => unreachable!(),
    };
    for (i, (k, x)) in items.into_iter().enumerate() {
        out.push_str(if i > 0 { ", " } else { "" });
        if let Some(k) = k {
            out.push_str(&json_str(k));
            out.push_str(": ");
        }
        to_text(x, out);
    }
    out.push(close);
}

/// The script's `short`: the JSON text, cut at 300 characters.
pub fn short(x: Option<&J>) -> String {
    let Some(x) = x else { return "<absent>".into() };
    let mut s = String::new();
    to_text(x, &mut s);
    let n = s.chars().count();
    if n > 300 {
        s = s.chars().take(300).collect::<String>() + &format!("...({n} chars)");
    }
    s
}
