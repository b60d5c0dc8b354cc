//! The reference JSON decoder: recursive over the [`Type`].
//!
//! Policy (go-cty's `cty/json` with DESIGN.md §4, as tfwire documents it): strict JSON
//! (RFC 8259 numbers, literals, escapes, no control bytes in strings, UTF-8, no lone
//! surrogates), whitespace around the value; `null` at every type; a number from a number or
//! a string in Go's `ParseFloat` grammar (a plain integer literal in `i64` range is an `Int`,
//! other literals keep their text); a bool from `true`/`false` or the strings
//! `"true"`/`"false"`/`"1"`/`"0"`; a string from a string, a number literal (its text) or a
//! bool; objects read missing attributes as null and reject unknown and repeated keys; a
//! tuple needs exactly its elements; a dynamic value is `{"type": T, "value": V}` in either
//! order (a value that comes first is checked as JSON before the type is read); the elements
//! of a collection of dynamic share one type; values skipped as JSON nest at most to the
//! depth left; more than `max_depth` containers is a limit.

use std::collections::HashSet;

use tfwire::{ErrorKind, Type};

use super::{num, Opts, RNum, RV};

mod scan;

use scan::unescape;

type R<T> = Result<T, ErrorKind>;

struct D<'a> {
    buf: &'a [u8],
    pos: usize,
    opts: Opts,
    types: HashSet<Vec<u8>>,
}

/// Decodes `input` (exactly one JSON value, whitespace around it) under `ty`.
pub fn decode(ty: &Type, input: &[u8], opts: &Opts) -> R<RV> {
    let mut d = D {
        buf: input,
        pos: 0,
        opts: *opts,
        types: HashSet::new(),
    };
    let v = d.value(ty, 0)?;
    d.ws();
    if d.pos < input.len() {
        return Err(ErrorKind::TrailingBytes);
    }
    Ok(v)
}

impl D<'_> {
    fn ws(&mut self) -> Option<u8> {
        while matches!(self.buf.get(self.pos), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
        self.buf.get(self.pos).copied()
    }

    fn enter(&self, level: u32) -> R<()> {
        if level > self.opts.limits.max_depth {
            return Err(ErrorKind::Limit);
        }
        Ok(())
    }

    /// `c` expected next (after whitespace).
    fn expect(&mut self, c: u8) -> R<()> {
        match self.ws() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(ErrorKind::Syntax),
            None => Err(ErrorKind::Eof),
        }
    }

    /// After an element: `true` for `,`, `false` for `close`.
    fn more(&mut self, close: u8) -> R<bool> {
        match self.ws() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Err(ErrorKind::Syntax),
            None => Err(ErrorKind::Eof),
        }
    }

    fn value(&mut self, ty: &Type, level: u32) -> R<RV> {
        let c = self.ws().ok_or(ErrorKind::Eof)?;
        if c == b'n' {
            self.literal("null")?;
            return Ok(RV::Null);
        }
        match (ty, c) {
            (Type::String, b'"') => self.string().map(RV::Str),
            (Type::String, b'-' | b'0'..=b'9') => self.number().map(RV::Str),
            (Type::String, b't') => self.literal("true").map(|_| RV::Str("true".into())),
            (Type::String, b'f') => self.literal("false").map(|_| RV::Str("false".into())),
            (Type::Number, b'-' | b'0'..=b'9') => {
                let text = self.number()?;
                let plain = !text.contains(['.', 'e', 'E']);
                Ok(RV::Num(match text.parse::<i64>() {
                    // `-0` keeps its sign as text (go-cty writes it back as `-0`).
                    Ok(0) if text.starts_with('-') => RNum::Dec(text),
                    Ok(i) if plain => RNum::Int(i),
                    _ => RNum::Dec(text),
                }))
            }
            (Type::Number, b'"') => {
                let s = self.string()?;
                if !num::valid_decimal(s.as_bytes()) {
                    return Err(ErrorKind::InvalidNumber);
                }
                Ok(RV::Num(RNum::Dec(s)))
            }
            (Type::Bool, b't') => self.literal("true").map(|_| RV::Bool(true)),
            (Type::Bool, b'f') => self.literal("false").map(|_| RV::Bool(false)),
            (Type::Bool, b'"') => match self.string()?.as_str() {
                "true" | "1" => Ok(RV::Bool(true)),
                "false" | "0" => Ok(RV::Bool(false)),
                _ => Err(ErrorKind::TypeMismatch),
            },
            (Type::List(t) | Type::Set(t), b'[') => {
                self.pos += 1;
                self.enter(level + 1)?;
                let mut out = Vec::new();
                if self.ws() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        if out.len() >= self.opts.limits.max_container_len as usize {
                            return Err(ErrorKind::Limit);
                        }
                        out.push(self.value(t, level + 1)?);
                        if !self.more(b']')? {
                            break;
                        }
                    }
                }
                consistent(t, out.iter())?;
                Ok(if matches!(ty, Type::Set(_)) {
                    RV::Set(out)
                } else {
                    RV::List(out)
                })
            }
            (Type::Tuple(ts), b'[') => {
                self.pos += 1;
                self.enter(level + 1)?;
                let mut out = Vec::new();
                if self.ws() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        let Some(t) = ts.get(out.len()) else {
                            return Err(ErrorKind::WrongLength);
                        };
                        out.push(self.value(t, level + 1)?);
                        if !self.more(b']')? {
                            break;
                        }
                    }
                }
                if out.len() < ts.len() {
                    return Err(ErrorKind::WrongLength);
                }
                Ok(RV::Tuple(out))
            }
            (Type::Map(t), b'{') => {
                self.pos += 1;
                self.enter(level + 1)?;
                let mut out = Vec::new();
                if self.ws() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        if out.len() >= self.opts.limits.max_container_len as usize {
                            return Err(ErrorKind::Limit);
                        }
                        let k = self.key()?;
                        self.expect(b':')?;
                        out.push((k, self.value(t, level + 1)?));
                        if !self.more(b'}')? {
                            break;
                        }
                    }
                }
                consistent(t, out.iter().map(|(_, v)| v))?;
                Ok(RV::Map(out))
            }
            (Type::Object(o), b'{') => {
                self.pos += 1;
                self.enter(level + 1)?;
                let mut slots: Vec<Option<RV>> = vec![None; o.attrs().len()];
                if self.ws() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.attribute(o, &mut slots, level + 1)?;
                        if !self.more(b'}')? {
                            break;
                        }
                    }
                }
                let names = o.attrs().iter().map(|(n, _)| n.clone());
                Ok(RV::Object(
                    names
                        .zip(slots)
                        .map(|(n, v)| (n, v.unwrap_or(RV::Null)))
                        .collect(),
                ))
            }
            (Type::Dynamic, b'{') => self.dynamic(level),
            _ => self.mismatch(ty, c),
        }
    }

    /// A key (a string) at the next token.
    fn key(&mut self) -> R<String> {
        match self.ws() {
            Some(b'"') => self.string(),
            Some(_) => Err(ErrorKind::Syntax),
            None => Err(ErrorKind::Eof),
        }
    }

    /// One `"key": value` of an object whose values are at `level`.
    fn attribute(
        &mut self,
        o: &tfwire::schema::ObjectType,
        slots: &mut [Option<RV>],
        level: u32,
    ) -> R<()> {
        match self.ws() {
            Some(b'"') => {}
            Some(_) => return Err(ErrorKind::Syntax),
            None => return Err(ErrorKind::Eof),
        }
        let (s, e) = self.raw_string()?;
        let raw = &self.buf[s..e];
        // A key with escapes is decoded (and checked) before the colon; a plain one is
        // matched as it is. Every key counts against `max_string_len`, after the check
        // that it names an attribute.
        let escaped = raw.contains(&b'\\');
        let key: Vec<u8> = if escaped {
            unescape(raw)?.into_bytes()
        } else {
            raw.to_vec()
        };
        self.expect(b':')?;
        let Some(j) = o
            .attrs()
            .iter()
            .position(|(n, _)| n.as_bytes() == key.as_slice())
        else {
            let key = unescape(raw)?;
            if !self.opts.skip_unknown {
                return Err(ErrorKind::UnknownAttribute);
            }
            if key.len() > self.opts.limits.max_string_len as usize {
                return Err(ErrorKind::Limit);
            }
            let depth = self.opts.limits.max_depth.saturating_sub(level);
            return self.skip(depth);
        };
        if key.len() > self.opts.limits.max_string_len as usize {
            return Err(ErrorKind::Limit);
        }
        if slots[j].is_some() {
            return Err(ErrorKind::DuplicateKey);
        }
        slots[j] = Some(self.value(&o.attrs()[j].1, level)?);
        Ok(())
    }

    /// A dynamic wrapper whose `{` is at `pos`; the wrapper is at `level + 1`.
    fn dynamic(&mut self, level: u32) -> R<RV> {
        self.pos += 1;
        let depth = self.opts.limits.max_depth.saturating_sub(level + 1);
        let (t, value_at) = match self.wrapper_key()? {
            Some(true) => {
                let t = self.wrapper_type(depth)?;
                if !self.wrapper_next(Some(true))? {
                    return Err(ErrorKind::InvalidDynamic);
                }
                (t, None)
            }
            Some(false) => {
                self.ws();
                let value_at = self.pos;
                self.extent(depth)?;
                let value_end = self.pos;
                if !self.wrapper_next(Some(false))? {
                    return Err(ErrorKind::InvalidDynamic);
                }
                let t = self.wrapper_type(depth)?;
                let more = self.wrapper_next(None)?;
                assert!(!more, "a third key is an error in wrapper_next");
                (t, Some((value_at, value_end, self.pos)))
            }
            None => return Err(ErrorKind::InvalidDynamic),
        };
        self.enter(level + 1)?;
        if let Some((at, _, _)) = value_at {
            self.pos = at;
        }
        let v = self.value(&t, level + 1)?;
        match value_at {
            // The decoded value must end where its extent did.
            Some((_, end, _)) if self.pos != end => return Err(ErrorKind::Syntax),
            Some((_, _, resume)) => self.pos = resume,
            None => {
                let more = self.wrapper_next(None)?;
                assert!(!more, "a third key is an error in wrapper_next");
            }
        }
        super::wrapper(t, v)
    }

    /// The first key of a wrapper and its colon: `Some(true)` "type", `Some(false)` "value";
    /// `None` for an empty wrapper `{}`.
    fn wrapper_key(&mut self) -> R<Option<bool>> {
        match self.ws() {
            Some(b'"') => {}
            Some(b'}') => return Ok(None),
            Some(_) => return Err(ErrorKind::Syntax),
            None => return Err(ErrorKind::Eof),
        }
        let is_type = self.wrapper_name()?;
        self.expect(b':')?;
        Ok(Some(is_type))
    }

    /// "type" (true) or "value" (false); any other key is an error.
    fn wrapper_name(&mut self) -> R<bool> {
        match self.string()?.as_str() {
            "type" => Ok(true),
            "value" => Ok(false),
            _ => Err(ErrorKind::InvalidDynamic),
        }
    }

    /// After an entry of a wrapper: `}` (false), or `,` and the other key with its colon
    /// (true). `seen`: the one key read so far, `None` when both were.
    fn wrapper_next(&mut self, seen: Option<bool>) -> R<bool> {
        if !self.more(b'}')? {
            return Ok(false);
        }
        match self.ws() {
            Some(b'"') => {}
            Some(_) => return Err(ErrorKind::Syntax),
            None => return Err(ErrorKind::Eof),
        }
        let is_type = self.wrapper_name()?;
        if seen.is_none() || seen == Some(is_type) {
            return Err(ErrorKind::DuplicateKey);
        }
        self.expect(b':')?;
        Ok(true)
    }

    /// The wrapper's type: its JSON checked with at most `depth` nested containers, within
    /// `max_type_json_len`, parsed, through a cache as bounded as the VM's.
    fn wrapper_type(&mut self, depth: u32) -> R<Type> {
        self.ws();
        let at = self.pos;
        self.extent(depth)?;
        let json = self.buf[at..self.pos].to_vec();
        if json.len() > self.opts.limits.max_type_json_len as usize {
            return Err(ErrorKind::Limit);
        }
        let known = self.types.contains(&json);
        if !known && self.types.len() >= self.opts.limits.max_dynamic_types as usize {
            return Err(ErrorKind::Limit);
        }
        let t = Type::from_json_bytes(&json).map_err(|_| ErrorKind::InvalidType)?;
        self.types.insert(json);
        Ok(t)
    }

    /// A value of the wrong kind for `ty`: a malformed number or literal is a syntax error
    /// first; a byte that starts no JSON value is one too.
    fn mismatch(&mut self, ty: &Type, c: u8) -> R<RV> {
        match c {
            b'-' | b'0'..=b'9' => {
                self.number()?;
            }
            b't' => self.literal("true")?,
            b'f' => self.literal("false")?,
            b'"' | b'[' | b'{' => {}
            _ => return Err(ErrorKind::Syntax),
        }
        Err(match ty {
            Type::Dynamic => ErrorKind::InvalidDynamic,
            _ => ErrorKind::TypeMismatch,
        })
    }
}

fn consistent<'v>(elem: &Type, values: impl Iterator<Item = &'v RV>) -> R<()> {
    if *elem != Type::Dynamic {
        return Ok(());
    }
    let mut first: Option<&Type> = None;
    for v in values {
        if let RV::Dynamic(t, _) = v {
            match first {
                Some(f) if f != t => return Err(ErrorKind::InconsistentTypes),
                _ => first = Some(t),
            }
        }
    }
    Ok(())
}
