//! A byte-driven generator of types and values. Every choice reads one byte from a
//! [`Source`]: fuzzer bytes ([`Bytes`], zeros once they run out, so generation always ends
//! with the smallest choices) or an xorshift PRNG ([`Rng`], for the property tests).

use tfwire::schema::ObjectType;
use tfwire::Type;

use super::{num, target, RNum, RRef, Target, RV};

/// Where choices come from.
pub trait Source {
    fn byte(&mut self) -> u8;

    /// A number below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n
    }

    /// True with probability about `k`/256.
    fn chance(&mut self, k: u8) -> bool {
        self.byte() < k
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |a, _| a << 8 | self.byte() as u64)
    }
}

/// One of `items`.
pub fn pick<'x, T>(s: &mut dyn Source, items: &'x [T]) -> &'x T {
    &items[s.below(items.len())]
}

/// Fuzzer bytes, then zeros.
pub struct Bytes<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }
}

impl Source for Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
}

/// xorshift64*: deterministic for a seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
}

impl Source for Rng {
    fn byte(&mut self) -> u8 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
    }
}

/// Attribute names: ordinary, empty, long (keys past 32 bytes), spaces, quotes, unicode.
pub const NAMES: [&str; 16] = [
    "a",
    "b",
    "id",
    "name",
    "tags",
    "",
    "with space",
    "ünïcödé",
    "日本",
    "q\"uote",
    "back\\slash",
    "an_attribute_name_longer_than_thirty_two_bytes",
    "type",
    "value",
    "\u{1F600}",
    "z",
];

/// Reads a type: `depth` bounds the nesting.
///
/// Grammar (one byte per choice): kind = byte % 10 (0 bool, 1 number, 2 string, 3 dynamic,
/// 4 list, 5 set, 6 map, 7 object, 8 tuple, 9 string; at depth 0 only the first four);
/// an object reads a count (byte < 248: byte % 8, else the next byte), then per attribute a
/// name (byte < 240: `NAMES[byte % 16]`, else a length byte and that many raw bytes, read as
/// lossy UTF-8), a flags byte (bit 0: optional) and the attribute's type; a tuple reads a
/// count (byte % 4) and its element types.
pub fn gen_type(s: &mut dyn Source, depth: u32) -> Type {
    let k = s.byte() % 10;
    let k = if depth == 0 { k % 4 } else { k };
    match k {
        0 => Type::Bool,
        1 => Type::Number,
        2 | 9 => Type::String,
        3 => Type::Dynamic,
        4 => Type::List(Box::new(gen_type(s, depth - 1))),
        5 => Type::Set(Box::new(gen_type(s, depth - 1))),
        6 => Type::Map(Box::new(gen_type(s, depth - 1))),
        7 => {
            let c = s.byte();
            let n = if c < 248 {
                c as usize % 8
            } else {
                s.byte() as usize
            };
            let mut attrs = Vec::new();
            let mut optional = Vec::new();
            for _ in 0..n {
                let name = gen_name(s);
                if s.byte() & 1 == 1 {
                    optional.push(name.clone());
                }
                attrs.push((name, gen_type(s, depth - 1)));
            }
            let optional: Vec<&str> = optional.iter().map(String::as_str).collect();
            Type::Object(ObjectType::new(attrs, &optional).expect("optional names are attributes"))
        }
        _ => {
            let n = s.below(4);
            Type::Tuple((0..n).map(|_| gen_type(s, depth - 1)).collect())
        }
    }
}

fn gen_name(s: &mut dyn Source) -> String {
    let b = s.byte();
    if b < 240 {
        return NAMES[b as usize % 16].to_string();
    }
    let n = s.byte() as usize;
    let raw: Vec<u8> = (0..n).map(|_| s.byte()).collect();
    String::from_utf8_lossy(&raw).into_owned()
}

/// The bytes [`gen_type`] reads back as `t` (for seeding the fuzzers with real types; names
/// of up to 255 bytes).
pub fn type_to_bytes(t: &Type, out: &mut Vec<u8>) {
    match t {
        Type::Bool => out.push(0),
        Type::Number => out.push(1),
        Type::String => out.push(2),
        Type::Dynamic => out.push(3),
        Type::List(e) | Type::Set(e) | Type::Map(e) => {
            out.push(match t {
                Type::List(_) => 4,
                Type::Set(_) => 5,
                _ => 6,
            });
            type_to_bytes(e, out);
        }
        Type::Object(o) => {
            out.push(7);
            let n = o.attrs().len();
            if n < 8 {
                out.push(n as u8);
            } else {
                out.extend([248, n.min(255) as u8]);
            }
            for (name, at) in o.attrs().iter().take(255) {
                match NAMES.iter().position(|x| x == name) {
                    Some(i) => out.push(i as u8),
                    None => {
                        let b = &name.as_bytes()[..name.len().min(255)];
                        out.extend([240, b.len() as u8]);
                        out.extend_from_slice(b);
                    }
                }
                out.push(u8::from(o.optional().contains(name)));
                type_to_bytes(at, out);
            }
        }
        Type::Tuple(ts) => {
            out.push(8);
            out.push(ts.len().min(3) as u8);
            for e in ts.iter().take(3) {
                type_to_bytes(e, out);
            }
        }
    }
}

/// Size bounds of generated values.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Most elements of a list, set or map.
    pub max_len: usize,
    /// Unknowns may appear (MessagePack only).
    pub unknowns: bool,
    /// Nesting left for dynamic values (each picks a new type).
    pub dyn_depth: u32,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            max_len: 4,
            unknowns: true,
            dyn_depth: 2,
        }
    }
}

/// A value of `t` as a wire plan: a dynamic position holds `Dynamic(T, v)` (any `v`,
/// null and unknowns included), a bare null, or (with `unknowns`) a bare unknown without
/// A type at most 4 deep and a value of it (collections of at most 4 elements, unknowns when
/// the source says so, dynamic values 2 deep): what `roundtrip` and `projection` draw.
pub fn small_case(s: &mut dyn Source) -> (Type, RV) {
    let t = gen_type(s, 4);
    let shape = Shape {
        max_len: 4,
        unknowns: s.byte() & 1 == 1,
        dyn_depth: 2,
    };
    let plan = gen_value(s, &t, &shape);
    (t, plan)
}

/// refinements. Collections of dynamic use one concrete type for all their elements.
pub fn gen_value(s: &mut dyn Source, t: &Type, shape: &Shape) -> RV {
    gen_in(s, t, shape, None)
}

fn gen_in(s: &mut dyn Source, t: &Type, shape: &Shape, dyn_type: Option<&Type>) -> RV {
    let c = s.byte();
    if c < 12 {
        return RV::Null;
    }
    if c < 24 && shape.unknowns {
        return match t {
            Type::Dynamic => RV::Unknown(None),
            _ => RV::Unknown(gen_refinements(s, target(t))),
        };
    }
    match t {
        Type::Bool => RV::Bool(s.byte() & 1 == 1),
        Type::Number => RV::Num(gen_number(s)),
        Type::String => RV::Str(gen_string(s)),
        Type::List(e) | Type::Set(e) => {
            let n = s.below(shape.max_len + 1);
            let fixed = elem_type(s, e, shape);
            let items = (0..n)
                .map(|_| gen_in(s, e, shape, fixed.as_ref()))
                .collect();
            if matches!(t, Type::Set(_)) {
                RV::Set(items)
            } else {
                RV::List(items)
            }
        }
        Type::Map(e) => {
            let n = s.below(shape.max_len + 1);
            let fixed = elem_type(s, e, shape);
            RV::Map(
                (0..n)
                    .map(|_| (gen_key(s), gen_in(s, e, shape, fixed.as_ref())))
                    .collect(),
            )
        }
        Type::Tuple(ts) => RV::Tuple(ts.iter().map(|e| gen_in(s, e, shape, None)).collect()),
        Type::Object(o) => RV::Object(
            o.attrs()
                .iter()
                .map(|(n, a)| (n.clone(), gen_in(s, a, shape, None)))
                .collect(),
        ),
        Type::Dynamic => {
            let inner_shape = Shape {
                dyn_depth: shape.dyn_depth.saturating_sub(1),
                ..*shape
            };
            let ty = match dyn_type {
                Some(ty) => ty.clone(),
                None => gen_type(s, if shape.dyn_depth == 0 { 0 } else { 2 }),
            };
            let ty = concrete(ty);
            let v = gen_in(s, &ty, &inner_shape, None);
            RV::Dynamic(ty, Box::new(v))
        }
    }
}

/// The one concrete type of a collection of dynamic values.
fn elem_type(s: &mut dyn Source, e: &Type, shape: &Shape) -> Option<Type> {
    if *e != Type::Dynamic {
        return None;
    }
    Some(concrete(gen_type(
        s,
        if shape.dyn_depth == 0 { 0 } else { 2 },
    )))
}

/// The type of a dynamic value is concrete: go-cty reads a wrapper whose type holds
/// `dynamic` differently from tfwire (see fuzz/README.md), so the generator avoids them.
fn concrete(t: Type) -> Type {
    if t.has_dynamic() {
        Type::String
    } else {
        t
    }
}

const STRINGS: [&str; 12] = [
    "",
    "x",
    "web",
    "e\u{301}",
    "\u{e9}",
    "\"\\/",
    "line\nbreak\ttab\u{1}",
    "日本語",
    "\u{1F600}",
    "1.5",
    "true",
    "0",
];

pub fn gen_string(s: &mut dyn Source) -> String {
    let c = s.byte();
    if c < 160 {
        return pick(s, &STRINGS).to_string();
    }
    let n = if c < 250 {
        s.below(40)
    } else {
        32 + s.below(300)
    };
    (0..n)
        .map(|_| match s.byte() {
            b @ 0..=0x7f => b as char,
            b @ 0x80..=0xef => char::from_u32(0xa0 + b as u32 * 37).unwrap_or('?'),
            b => char::from_u32(0x1f000 + b as u32).unwrap_or('?'),
        })
        .collect()
}

fn gen_key(s: &mut dyn Source) -> String {
    match s.byte() {
        0..=199 => pick(s, &NAMES).to_string(),
        _ => gen_string(s),
    }
}

const DECIMALS: [&str; 14] = [
    "0",
    "+5",
    "-5",
    ".5",
    "5.",
    "1e10",
    "1E-3",
    "1p4",
    "-1.5P-2",
    "Inf",
    "-inf",
    "007",
    "0.1000000000000000055511151231257827021181583404541015625",
    "123456789012345678901234567890",
];

pub fn gen_number(s: &mut dyn Source) -> RNum {
    match s.below(8) {
        0 => RNum::Int(s.below(256) as i64 - 128),
        1 => RNum::Int(s.u64() as i64),
        2 => RNum::UInt(s.u64()),
        3 => RNum::Float(*pick(
            s,
            &[
                0.5,
                -0.0,
                1.5e300,
                f64::INFINITY,
                f64::NEG_INFINITY,
                0.1,
                5e-324,
            ],
        )),
        4 => {
            let f = f64::from_bits(s.u64());
            RNum::Float(if f.is_nan() { 2.5 } else { f })
        }
        5 => RNum::Dec(pick(s, &DECIMALS).to_string()),
        6 => {
            // digits [. digits] [e|p [-] digits]
            let mut t = String::new();
            if s.chance(64) {
                t.push('-');
            }
            (0..1 + s.below(20)).for_each(|_| t.push((b'0' + s.below(10) as u8) as char));
            if s.chance(128) {
                t.push('.');
                (0..s.below(20)).for_each(|_| t.push((b'0' + s.below(10) as u8) as char));
            }
            if s.chance(100) {
                let e = *pick(s, &['e', 'E', 'p']);
                t.push(e);
                if s.chance(128) {
                    t.push('-');
                }
                t.push_str(&s.below(400).to_string());
            }
            debug_assert!(num::valid_decimal(t.as_bytes()), "{t}");
            RNum::Dec(t)
        }
        _ => RNum::Int(s.below(1 << 16) as i64),
    }
}

/// Consistent refinements for a target (`None` sometimes).
pub fn gen_refinements(s: &mut dyn Source, t: Target) -> Option<RRef> {
    if s.chance(80) {
        return None;
    }
    let mut r = RRef::default();
    if s.chance(40) && t != Target::Dynamic {
        r.nullness = Some(true);
        return Some(r);
    }
    if s.chance(100) {
        r.nullness = Some(false);
    }
    match t {
        Target::String if s.chance(160) => {
            r.prefix = Some(gen_string(s).chars().take(100).collect())
        }
        Target::Number => {
            let mut a = gen_number(s);
            let mut b = gen_number(s);
            if num::cmp(&a, &b).is_gt() {
                std::mem::swap(&mut a, &mut b);
            }
            let equal = num::cmp(&a, &b).is_eq();
            let (ia, ib) = (equal || s.chance(128), equal || s.chance(128));
            match s.below(3) {
                0 => r.lower = Some((a, ia)),
                1 => r.upper = Some((b, ib)),
                _ => {
                    r.lower = Some((a, ia));
                    r.upper = Some((b, ib));
                }
            }
        }
        Target::Collection => {
            let lo = s.below(10) as u64;
            if s.chance(160) {
                r.len_lo = Some(lo);
            }
            if s.chance(160) {
                r.len_hi = Some(lo + s.u64() % 1000);
            }
        }
        _ => {}
    }
    if r == RRef::default() || t == Target::Dynamic {
        return None;
    }
    Some(r)
}
