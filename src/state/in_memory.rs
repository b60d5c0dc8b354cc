//! [`StateReader::in_memory`]: a state already in memory read in place, with no read
//! buffer; [`StateReader::with_release`]: the bytes the reader is done with told to what
//! holds them (`reader.rs` reads them; `StateReader::release_before` tells).

use std::io;
use std::ops::Range;
use std::panic::{RefUnwindSafe, UnwindSafe};

use super::{ReaderOptions, StateReader};

/// The fewest bytes of a state in memory released at a time ([`StateReader::with_release`]).
pub const RELEASE_STEP: usize = 8 << 20;

impl StateReader<io::Empty> {
    /// A reader over a state already in memory — a `Vec<u8>`, a `String`, a memory map —
    /// read in place: no read buffer, and nothing copied (but by
    /// [`StateReader::visit_parallel`], which copies each batch of resources it hands to its
    /// workers). It gives the instances, outcomes and errors the streaming reader gives for
    /// the same bytes; [`ReaderOptions::max_unit_bytes`] does not apply (nothing is
    /// buffered), [`ReaderOptions::read_size`] sizes the parallel batches.
    ///
    /// ```
    /// use tfwire::state::{SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let state = br#"{"version":4,"resources":[{"mode":"managed","type":"t","name":"x",
    ///   "provider":"provider.t","instances":[{"attributes":{}}]}]}"#.to_vec();
    /// let mut addresses = Vec::new();
    /// let summary = StateReader::in_memory(state)
    ///     .visit(&SchemaSet::new(), &DecodeOptions::default(), |item, _| addresses.push(item.address()))?;
    /// assert_eq!((addresses, summary.instances), (vec!["t.x".to_string()], 1));
    /// # Ok::<(), tfwire::state::StateError>(())
    /// ```
    pub fn in_memory<B>(bytes: B) -> StateReader<io::Empty>
    where
        B: AsRef<[u8]> + Send + Sync + UnwindSafe + RefUnwindSafe + 'static,
    {
        StateReader::in_memory_with_options(bytes, ReaderOptions::default())
    }

    /// [`StateReader::in_memory`] with `options`.
    pub fn in_memory_with_options<B>(bytes: B, options: ReaderOptions) -> StateReader<io::Empty>
    where
        B: AsRef<[u8]> + Send + Sync + UnwindSafe + RefUnwindSafe + 'static,
    {
        let end = bytes.as_ref().len();
        StateReader {
            input: io::empty(),
            options,
            buf: Vec::new(),
            start: 0,
            end,
            base: 0,
            eof: true,
            whole: Some(Box::new(bytes)),
            release: None,
            released: 0,
            ahead: Default::default(),
        }
    }

    /// For a state in memory: `f` is told each range of its bytes the reader is done with —
    /// in order from the start, [`RELEASE_STEP`] bytes or more at a time — so that what holds
    /// them can let them go (a memory map its pages, with `madvise(MADV_DONTNEED)`: a large
    /// state then costs about its largest unit of resident memory — an instance, a resource
    /// that lists `instances` before its other keys, a top-level value — and a few MiB, not
    /// its size). Bytes once released are not read again.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use tfwire::state::{SchemaSet, StateReader, RELEASE_STEP};
    /// use tfwire::DecodeOptions;
    ///
    /// let instance = format!(r#"{{"attributes":{{"id":"{}"}}}}"#, "x".repeat(1 << 20));
    /// let instances = vec![instance; 20].join(",");
    /// let state = format!(r#"{{"version":4,"resources":[{{"mode":"managed","type":"t","name":"x",
    ///   "provider":"provider.t","instances":[{instances}]}}]}}"#);
    /// let released = Arc::new(Mutex::new(Vec::new()));
    /// let told = Arc::clone(&released);
    /// let summary = StateReader::in_memory(state)
    ///     .with_release(move |range| told.lock().unwrap().push(range))
    ///     .visit(&SchemaSet::new(), &DecodeOptions::default(), |_, _| {})?;
    /// assert_eq!(summary.instances, 20);
    /// let released = released.lock().unwrap();
    /// assert_eq!(released[0].start, 0);
    /// assert!(released.windows(2).all(|w| w[0].end == w[1].start));
    /// assert!(released.iter().all(|r| r.len() >= RELEASE_STEP));
    /// assert!(released.last().unwrap().end >= 16 << 20);
    /// # Ok::<(), tfwire::state::StateError>(())
    /// ```
    pub fn with_release(
        mut self,
        f: impl FnMut(Range<usize>) + Send + Sync + UnwindSafe + RefUnwindSafe + 'static,
    ) -> StateReader<io::Empty> {
        self.release = Some(Box::new(f));
        self
    }
}
