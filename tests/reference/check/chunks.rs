//! The check of `stream_chunks`: values read from a stream in chunks of every size equal the
//! values decoded one at a time.

use super::*;

/// `stream_chunks`: a generated type and three generated values, framed three ways (the
/// MessagePack ones concatenated and length-prefixed, the JSON ones, when they have no
/// unknowns, as NDJSON) with a bad frame between them where the framing steps over one, read
/// from chunks whose sizes the input picks: the stream gives exactly what one-shot decodes of
/// each value give, with the same indices.
pub fn stream_chunks(data: &[u8]) {
    let mut s = Bytes::new(data);
    stream_chunks_with(&mut s);
}

/// [`stream_chunks`] over any source of choices.
pub fn stream_chunks_with(s: &mut dyn Source) {
    use tfwire::stream::{Framing, StreamOptions, ValueStream};
    let t = gen::gen_type(s, 3);
    let shape = gen::Shape {
        max_len: 3,
        unknowns: s.byte() & 1 == 1,
        dyn_depth: 1,
    };
    let plans: Vec<RV> = (0..3).map(|_| gen::gen_value(s, &t, &shape)).collect();
    let p = Program::new(&t).unwrap();
    let msgpack: Vec<Vec<u8>> = plans.iter().map(|v| encode::msgpack(s, &t, v)).collect();
    let json: Option<Vec<Vec<u8>>> = (!plans.iter().any(has_unknown))
        .then(|| plans.iter().map(|v| encode::json(s, &t, v)).collect());
    let sizes: Vec<usize> = (0..16).map(|_| 1 + s.byte() as usize % 40).collect();
    let bump = Bump::new();
    // What one-shot decodes say, item by item.
    let one_shot = |bytes: &[u8], f: Format| match decode_in(&p, f, bytes, &bump) {
        Ok(v) => format!("ok {}", dump::to_string(&p, v).unwrap()),
        Err(e) => format!("error {}", e.message()),
    };
    let mut runs: Vec<(Framing, Vec<u8>, Vec<String>)> = Vec::new();
    let bad: &[u8] = &[0xc1];
    let concat: Vec<u8> = msgpack.concat();
    runs.push((
        Framing::Concat,
        concat,
        msgpack
            .iter()
            .map(|m| one_shot(m, Format::Msgpack))
            .collect(),
    ));
    let mut prefixed = Vec::new();
    let mut want = Vec::new();
    for (i, m) in msgpack.iter().enumerate() {
        for frame in [&m[..], bad].into_iter().take(if i < 2 { 2 } else { 1 }) {
            prefixed.extend_from_slice(&(frame.len() as u32).to_be_bytes());
            prefixed.extend_from_slice(frame);
            want.push(one_shot(frame, Format::Msgpack));
        }
    }
    runs.push((Framing::LengthPrefixed, prefixed, want));
    if let Some(json) = json.filter(|j| j.iter().all(|t| !t.contains(&b'\n'))) {
        let mut lines = Vec::new();
        let mut want = Vec::new();
        for (i, j) in json.iter().enumerate() {
            for line in [&j[..], b"[".as_slice()]
                .into_iter()
                .take(if i < 2 { 2 } else { 1 })
            {
                lines.extend_from_slice(line);
                lines.push(b'\n');
                want.push(one_shot(line, Format::Json));
            }
        }
        runs.push((Framing::Ndjson, lines, want));
    }
    for (framing, input, want) in runs {
        let mut stream = ValueStream::new(
            &p,
            Pieces {
                data: &input,
                sizes: &sizes,
                at: 0,
            },
            StreamOptions::new(framing),
        );
        let mut got = Vec::new();
        while let Some(item) = stream.next_value() {
            got.push(match item {
                Ok(item) => {
                    assert_eq!(item.index as usize, got.len());
                    format!("ok {}", dump::to_string(&p, item.value).unwrap())
                }
                Err(e) => {
                    assert_eq!(e.index() as usize, got.len());
                    match e.kind() {
                        tfwire::stream::StreamErrorKind::Decode(d) => {
                            format!("error {}", d.message())
                        }
                        other => panic!("{framing:?}: {other:?}"),
                    }
                }
            });
        }
        // Concatenated MessagePack ends at its first bad value.
        let want: Vec<String> = match want.iter().position(|w| w.starts_with("error")) {
            Some(i) if framing == Framing::Concat => want[..=i].to_vec(),
            _ => want,
        };
        assert_eq!(
            got, want,
            "{framing:?} stream of type {t} in chunks {sizes:?}"
        );
    }
}

/// A reader handing out its bytes in the given chunk sizes, round and round.
struct Pieces<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    at: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self
            .sizes
            .get(self.at % self.sizes.len().max(1))
            .copied()
            .unwrap_or(1);
        self.at += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
