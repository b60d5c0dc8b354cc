//! A tiny MessagePack byte builder for the msgpack tests: every encoding is spelled out, so a
//! test can pick exactly the wire format it means (fixstr vs str8 vs bin16, fixext vs ext32…).
//! Included by the test files with `#[path = "support/mp.rs"] mod mp;`.
#![allow(dead_code)]

/// Bytes from hex text; spaces and underscores are ignored.
pub fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'_')
        .collect();
    assert!(digits.len().is_multiple_of(2), "odd hex length: {text}");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// Starts an empty buffer.
pub fn mp() -> Mp {
    Mp(Vec::new())
}

/// A MessagePack buffer under construction (builder style: every method returns `self`).
#[derive(Clone, Debug, Default)]
pub struct Mp(pub Vec<u8>);

impl Mp {
    /// The bytes.
    pub fn done(self) -> Vec<u8> {
        self.0
    }

    /// Current length (the offset of whatever is written next).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn raw(mut self, bytes: &[u8]) -> Mp {
        self.0.extend_from_slice(bytes);
        self
    }

    pub fn hex(self, text: &str) -> Mp {
        self.raw(&hex(text))
    }

    pub fn nil(self) -> Mp {
        self.raw(&[0xc0])
    }

    pub fn bool(self, b: bool) -> Mp {
        self.raw(&[if b { 0xc3 } else { 0xc2 }])
    }

    /// An integer in the smallest format, as go-cty's encoder writes it: 0..=127 fixint,
    /// other positives uint8..64, -32..-1 negative fixint, other negatives int8..64.
    pub fn int(self, v: i64) -> Mp {
        if (0..=127).contains(&v) {
            self.raw(&[v as u8])
        } else if v > 0 {
            self.uint(v as u64)
        } else if v >= -32 {
            self.raw(&[v as i8 as u8])
        } else if v >= i8::MIN as i64 {
            self.raw(&[0xd0, v as i8 as u8])
        } else if v >= i16::MIN as i64 {
            self.raw(&[0xd1]).raw(&(v as i16).to_be_bytes())
        } else if v >= i32::MIN as i64 {
            self.raw(&[0xd2]).raw(&(v as i32).to_be_bytes())
        } else {
            self.raw(&[0xd3]).raw(&v.to_be_bytes())
        }
    }

    /// An unsigned integer in the smallest of uint8..64 (fixint below 128).
    pub fn uint(self, v: u64) -> Mp {
        if v <= 127 {
            self.raw(&[v as u8])
        } else if v <= 0xff {
            self.raw(&[0xcc, v as u8])
        } else if v <= 0xffff {
            self.raw(&[0xcd]).raw(&(v as u16).to_be_bytes())
        } else if v <= 0xffff_ffff {
            self.raw(&[0xce]).raw(&(v as u32).to_be_bytes())
        } else {
            self.raw(&[0xcf]).raw(&v.to_be_bytes())
        }
    }

    pub fn f32(self, v: f32) -> Mp {
        self.raw(&[0xca]).raw(&v.to_bits().to_be_bytes())
    }

    pub fn f64(self, v: f64) -> Mp {
        self.raw(&[0xcb]).raw(&v.to_bits().to_be_bytes())
    }

    /// A str in the smallest format (fixstr, str8, str16, str32).
    pub fn s(self, text: &str) -> Mp {
        self.str_bytes(text.as_bytes())
    }

    /// A str of arbitrary bytes (possibly invalid UTF-8) in the smallest format.
    pub fn str_bytes(self, b: &[u8]) -> Mp {
        let n = b.len();
        if n < 32 {
            self.raw(&[0xa0 | n as u8]).raw(b)
        } else if n <= 0xff {
            self.str8(b)
        } else if n <= 0xffff {
            self.str16(b)
        } else {
            self.str32(b)
        }
    }

    pub fn str8(self, b: &[u8]) -> Mp {
        self.raw(&[0xd9, b.len() as u8]).raw(b)
    }

    pub fn str16(self, b: &[u8]) -> Mp {
        self.raw(&[0xda])
            .raw(&(b.len() as u16).to_be_bytes())
            .raw(b)
    }

    pub fn str32(self, b: &[u8]) -> Mp {
        self.raw(&[0xdb])
            .raw(&(b.len() as u32).to_be_bytes())
            .raw(b)
    }

    /// A bin in the smallest format (bin8, bin16, bin32).
    pub fn bin(self, b: &[u8]) -> Mp {
        if b.len() <= 0xff {
            self.bin8(b)
        } else if b.len() <= 0xffff {
            self.bin16(b)
        } else {
            self.bin32(b)
        }
    }

    pub fn bin8(self, b: &[u8]) -> Mp {
        self.raw(&[0xc4, b.len() as u8]).raw(b)
    }

    pub fn bin16(self, b: &[u8]) -> Mp {
        self.raw(&[0xc5])
            .raw(&(b.len() as u16).to_be_bytes())
            .raw(b)
    }

    pub fn bin32(self, b: &[u8]) -> Mp {
        self.raw(&[0xc6])
            .raw(&(b.len() as u32).to_be_bytes())
            .raw(b)
    }

    /// An array header in the smallest format.
    pub fn arr(self, n: usize) -> Mp {
        if n < 16 {
            self.raw(&[0x90 | n as u8])
        } else if n <= 0xffff {
            self.arr16(n)
        } else {
            self.arr32(n)
        }
    }

    pub fn arr16(self, n: usize) -> Mp {
        self.raw(&[0xdc]).raw(&(n as u16).to_be_bytes())
    }

    pub fn arr32(self, n: usize) -> Mp {
        self.raw(&[0xdd]).raw(&(n as u32).to_be_bytes())
    }

    /// A map header in the smallest format.
    pub fn map(self, n: usize) -> Mp {
        if n < 16 {
            self.raw(&[0x80 | n as u8])
        } else if n <= 0xffff {
            self.map16(n)
        } else {
            self.map32(n)
        }
    }

    pub fn map16(self, n: usize) -> Mp {
        self.raw(&[0xde]).raw(&(n as u16).to_be_bytes())
    }

    pub fn map32(self, n: usize) -> Mp {
        self.raw(&[0xdf]).raw(&(n as u32).to_be_bytes())
    }

    /// The head of a dynamic wrapper `[bin(type_json), …]`; the value follows.
    pub fn dynamic(self, type_json: &str) -> Mp {
        self.arr(2).bin(type_json.as_bytes())
    }

    /// An extension value in the smallest header (fixext for 1/2/4/8/16 bytes, else ext8/16/32).
    pub fn ext(self, code: i8, payload: &[u8]) -> Mp {
        let n = payload.len();
        let head: Vec<u8> = match n {
            1 => vec![0xd4],
            2 => vec![0xd5],
            4 => vec![0xd6],
            8 => vec![0xd7],
            16 => vec![0xd8],
            n if n <= 0xff => vec![0xc7, n as u8],
            n if n <= 0xffff => {
                let mut v = vec![0xc8];
                v.extend_from_slice(&(n as u16).to_be_bytes());
                v
            }
            n => {
                let mut v = vec![0xc9];
                v.extend_from_slice(&(n as u32).to_be_bytes());
                v
            }
        };
        self.raw(&head).raw(&[code as u8]).raw(payload)
    }

    /// The classic unrefined unknown `d4 00 00`.
    pub fn unknown(self) -> Mp {
        self.raw(&[0xd4, 0x00, 0x00])
    }

    /// A refined unknown: extension 12 around `refinements` (a msgpack map).
    pub fn refined(self, refinements: Mp) -> Mp {
        self.ext(12, &refinements.0)
    }

    /// Appends another buffer.
    pub fn then(self, other: Mp) -> Mp {
        self.raw(&other.0)
    }
}
