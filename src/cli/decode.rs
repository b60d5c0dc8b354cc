//! `tfwire decode`: one value, or a stream of values (`--stream`), each printed as its DUMP
//! or written as a row of a Parquet file (`--to parquet`: `decode_parquet.rs`). Both go
//! through [`each_value`], which reads the input and says what went wrong with each value.

use std::io::{Read, Write};

use bumpalo::Bump;
use tfwire::{DecodeOptions, Program, Value};

use super::{compile, decode_input, read_input};
use super::{DecodeArgs, DecodeTarget, Failure, Format, FramingArg};

/// What went wrong with one value: the value's own fault (printed, counted, and the next
/// value read), or one that ends the command (a closed or failed output).
pub(super) enum Fault {
    Value(String),
    Fatal(Failure),
}

pub(super) fn run(args: DecodeArgs) -> Result<(), Failure> {
    let program = compile(&args.source)?;
    let options = DecodeOptions::default()
        .with_skip_unknown_attributes(args.skip_unknown_attrs)
        .with_missing_attributes_null(args.missing_attrs_null)
        .with_check_item_counts(args.check_item_counts);
    if args.to != DecodeTarget::Dump || args.out.is_some() || args.exact_numbers {
        #[cfg(feature = "parquet")]
        if args.to != DecodeTarget::Dump {
            return super::decode_parquet::run(&program, &args, options);
        }
        return Err(Failure::Usage(
            "--out and --exact-numbers go with --to parquet".into(),
        ));
    }
    let mut out = std::io::stdout().lock();
    let mut line = String::new();
    each_value(&program, &args, options, &mut |value| {
        line.clear();
        tfwire::dump::write(&mut line, &program, value).map_err(|e| Fault::Value(e.to_string()))?;
        line.push('\n');
        // (A stream's lines are flushed as each value completes.)
        out.write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| Fault::Fatal(Failure::stdout(&e)))
    })
}

/// Decodes the input of `args` — one value, or with `--stream` values one after another —
/// handing each to `f`. A value that does not decode, or that `f` fails with
/// [`Fault::Value`], is reported on standard error (a stream's with its index) and the
/// stream goes on; the result is then bad input, `N of M values failed`.
pub(super) fn each_value(
    program: &Program,
    args: &DecodeArgs,
    options: DecodeOptions,
    f: &mut dyn FnMut(Value<'_>) -> Result<(), Fault>,
) -> Result<(), Failure> {
    if !args.stream {
        let input = read_input(args.input.as_deref())?;
        let bump = Bump::new();
        let format = args.format.unwrap_or(Format::Msgpack);
        let value = decode_input(program, &input, format, &options, &bump)?;
        return match f(value) {
            Ok(()) => Ok(()),
            Err(Fault::Value(e)) => Err(Failure::BadInput(e)),
            Err(Fault::Fatal(failure)) => Err(failure),
        };
    }
    use tfwire::stream::{Framing, StreamOptions, ValueStream};
    // The framing decides the encoding: --format may only agree with it.
    let framing = match (args.framing, args.format) {
        (Some(FramingArg::Concat), None | Some(Format::Msgpack)) => Framing::Concat,
        (Some(FramingArg::LengthPrefixed), None | Some(Format::Msgpack)) => Framing::LengthPrefixed,
        (Some(FramingArg::Ndjson), None | Some(Format::Json)) | (None, Some(Format::Json)) => {
            Framing::Ndjson
        }
        (None, None | Some(Format::Msgpack)) => Framing::Concat,
        (None, Some(Format::Auto)) => {
            return Err(Failure::Usage(
                "--stream reads --format msgpack or json, not auto".into(),
            ))
        }
        (Some(framing), Some(format)) => {
            let name = |v: Option<clap::builder::PossibleValue>| {
                v.map(|v| v.get_name().to_string()).unwrap_or_default()
            };
            use clap::ValueEnum;
            return Err(Failure::Usage(format!(
                "--framing {} cannot carry --format {}",
                name(framing.to_possible_value()),
                name(format.to_possible_value())
            )));
        }
    };
    let reader: Box<dyn Read> = match args.input.as_deref() {
        Some(p) if p.as_os_str() != "-" => {
            Box::new(std::fs::File::open(p).map_err(|e| Failure::file(p, e))?)
        }
        _ => Box::new(std::io::stdin().lock()),
    };
    let mut stream_options = StreamOptions::new(framing);
    stream_options.decode = options;
    let mut stream = ValueStream::new(program, reader, stream_options);
    let (mut failed, mut total) = (0u64, 0u64);
    while let Some(item) = stream.next_value() {
        total += 1;
        let fault = match item {
            Ok(item) => match f(item.value) {
                Ok(()) => continue,
                Err(Fault::Value(e)) => e,
                Err(Fault::Fatal(failure)) => return Err(failure),
            },
            Err(e) => e.to_string(),
        };
        failed += 1;
        eprintln!("tfwire: {fault}");
    }
    if failed > 0 {
        return Err(Failure::BadInput(format!(
            "{failed} of {total} values failed"
        )));
    }
    Ok(())
}
