//! The progress bar of a long `tfwire state` run: on stderr, only when stderr is a terminal
//! and the input is large (nothing of it in pipes or logs). It counts the bytes of the state
//! files as the readers take them ([`Progress::reader`]).

use std::io::{IsTerminal, Read};

use indicatif::{ProgressBar, ProgressStyle};

/// A run is long enough for a bar from this many bytes of state files…
const LONG_BYTES: u64 = 64 << 20;
/// …or this many files.
const LONG_FILES: usize = 1000;

/// The bar, when there is one.
#[derive(Clone)]
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar for `files` of `bytes` in all, when stderr is a terminal and the run is long.
    pub fn new(files: usize, bytes: u64) -> Progress {
        if !std::io::stderr().is_terminal() || (bytes < LONG_BYTES && files < LONG_FILES) {
            return Progress(None);
        }
        let bar = ProgressBar::new(bytes);
        let template = "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}";
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    /// `input`, counted into the bar as it is read.
    pub fn reader<R: Read>(&self, input: R) -> Counted<R> {
        Counted {
            input,
            bar: self.0.clone(),
        }
    }

    /// Counts `bytes` more into the bar (input read other than through [`Progress::reader`]).
    pub fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(bytes);
        }
    }

    /// Runs `f` (which writes to stderr) with the bar out of the way.
    pub fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.0 {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// A reader whose bytes advance the bar.
pub struct Counted<R> {
    input: R,
    bar: Option<ProgressBar>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.input.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}
