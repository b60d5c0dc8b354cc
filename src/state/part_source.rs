//! Where the parts of a state read by `ranges.rs` come from: a file read by path
//! ([`FileSource`]: each part through a handle of its own, 128 KiB reads) or a state in
//! memory, a file mapped say ([`MemorySource`]: each part read in place, no copy; the bytes
//! no part will read again told to the caller's release by the calling thread, in file
//! order, 8 MiB or more at a time); the parts' ranges ([`parts`]) and the place in a part
//! where its first resource seems to start (`looks_like_resource`, by the rule of
//! `ranges.rs`'s docs).

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::ops::Range;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::reader::{PartEnd, PartStart};
use super::{
    InstanceRef, Outcome, ReaderOptions, SchemaSet, StateError, StateReader, Summary, RELEASE_STEP,
};
use crate::program::DecodeOptions;

/// The fewest parts per job: enough that one slow part holds the others up little.
pub(super) const PARTS_PER_JOB: u64 = 8;

/// The most bytes a part's reader reads at a time: its buffer stays in the core's cache
/// between the read's copy and the walk (128 KiB measured 0.139 s on the fleet workload's
/// large state with two jobs, against 0.156 s with the 8 MiB reads of one stream).
const PART_READ_BYTES: usize = 128 << 10;

/// The bytes searched at a time for a part's first resource.
const SEARCH_BYTES: usize = 64 << 10;

/// `size` bytes cut into parts of about equal size for `jobs` threads, each of at most
/// `most` bytes, and at least [`PARTS_PER_JOB`] per job; one part when `size` is less than
/// twice `most`.
pub(super) fn parts(size: u64, jobs: usize, most: usize) -> Vec<Range<u64>> {
    let most = (most as u64).max(1);
    let count = if size < most.saturating_mul(2) {
        1
    } else {
        let wanted = (jobs as u64).saturating_mul(PARTS_PER_JOB);
        size.div_ceil(most).max(wanted).min(size)
    };
    let per = size.div_ceil(count).max(1);
    (0..count)
        .map(|k| {
            let start = k.saturating_mul(per).min(size);
            start..start.saturating_add(per).min(size)
        })
        .collect()
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// True when `bytes` (from a `{`) start as a resource object: `{`, then `"mode"` and the
/// string `"managed"` or `"data"`, or `"module"` and a string (whitespace between tokens).
fn looks_like_resource(bytes: &[u8]) -> bool {
    let mut rest = bytes.get(1..).unwrap_or_default();
    let mut token = |t: &[u8]| {
        let from = rest.iter().take_while(|b| is_ws(**b)).count();
        match rest.get(from..).and_then(|r| r.strip_prefix(t)) {
            Some(after) => {
                rest = after;
                true
            }
            None => false,
        }
    };
    if token(b"\"mode\"") {
        token(b":") && (token(b"\"managed\"") || token(b"\"data\""))
    } else {
        token(b"\"module\"") && token(b":") && token(b"\"")
    }
}

/// Where the first resource object seems to start in `range` of `file` (see the docs of
/// `ranges.rs`); `None` when nothing there looks like one.
fn first_resource(file: &mut File, range: Range<u64>) -> std::io::Result<Option<u64>> {
    use std::io::Read;
    // (A place near the end of a read is looked at again with the next read's bytes.)
    const LOOK: usize = 256;
    let len = usize::try_from(range.end.saturating_sub(range.start)).unwrap_or(usize::MAX);
    let chunk = SEARCH_BYTES.min(len.max(1));
    let mut buf = vec![0; chunk.saturating_add(LOOK)];
    let mut at = range.start;
    file.seek(SeekFrom::Start(at))?;
    while at < range.end {
        let mut len = 0;
        while len < buf.len() {
            let room = buf.get_mut(len..).unwrap_or_default();
            match file.read(room) {
                Ok(0) => break,
                Ok(n) => len = len.saturating_add(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let bytes = buf.get(..len).unwrap_or_default();
        let whole = len < buf.len();
        // Places looked at in this read: all when it reached the end of the file.
        let span = if whole { len } else { chunk };
        let searched = bytes.get(..span).unwrap_or_default();
        for i in memchr::memchr_iter(b'{', searched) {
            let offset = at.saturating_add(i as u64);
            if offset >= range.end {
                return Ok(None);
            }
            if looks_like_resource(bytes.get(i..).unwrap_or_default()) {
                return Ok(Some(offset));
            }
        }
        if whole {
            return Ok(None);
        }
        at = at.saturating_add(chunk as u64);
        file.seek(SeekFrom::Start(at))?;
    }
    Ok(None)
}

/// Where the first resource object seems to start in `range` of a state in memory, as
/// `first_resource` finds it in a file — but for a `{` followed by more than about 230
/// bytes of whitespace among its first tokens, which the file's search, looking 256 bytes
/// past a `{`, may not tell (harmless either way: a part's start counts only where the part
/// before stopped).
pub(super) fn first_resource_in(bytes: &[u8], range: Range<u64>) -> Option<u64> {
    let start = usize::try_from(range.start).ok()?;
    let end = usize::try_from(range.end)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    let searched = bytes.get(start..end)?;
    memchr::memchr_iter(b'{', searched)
        .map(|i| start.saturating_add(i))
        .find(|&i| looks_like_resource(bytes.get(i..).unwrap_or_default()))
        .map(|i| i as u64)
}

/// The instances a part's walk hands on, one at a time.
pub(super) type PartVisit<'f> = dyn FnMut(InstanceRef<'_, '_>, &Outcome<'_>) + 'f;

/// A state whose parts are read, each by a walk of its own, on any thread.
pub(super) trait PartSource: Sync {
    /// Where the first resource seems to start in `range`; `None` when nothing there looks
    /// like one.
    fn first_resource(&self, range: Range<u64>) -> Result<Option<u64>, StateError>;

    /// Walks the state from `from` (the file's start, or a resource at an offset) to the
    /// first resource that starts at `stop_at` or after, as `StateReader::walk_part` does,
    /// with reads of at most `read_size` where it reads.
    fn walk(
        &self,
        from: PartStart,
        stop_at: Option<u64>,
        options: &ReaderOptions,
        set: &SchemaSet,
        decode: &DecodeOptions,
        f: &mut PartVisit<'_>,
    ) -> Result<(Summary, PartEnd), StateError>;

    /// No reader will read the bytes before `offset` again (the calling thread's word, in
    /// file order): a state in memory may give them back.
    fn done_before(&self, offset: u64);
}

/// A state file read by path.
pub(super) struct FileSource<'p>(pub(super) &'p Path);

impl FileSource<'_> {
    /// The state file, at `offset`.
    pub(super) fn open_at(&self, offset: u64) -> Result<File, StateError> {
        let fail = |e: std::io::Error| {
            StateError::at("", Some(offset), format_args!("reading the state: {e}"))
        };
        let mut file = File::open(self.0).map_err(fail)?;
        file.seek(SeekFrom::Start(offset)).map_err(fail)?;
        Ok(file)
    }
}

impl PartSource for FileSource<'_> {
    fn first_resource(&self, range: Range<u64>) -> Result<Option<u64>, StateError> {
        let start = range.start;
        let fail = |e: std::io::Error| {
            StateError::at("", Some(start), format_args!("reading the state: {e}"))
        };
        first_resource(&mut self.open_at(start)?, range).map_err(fail)
    }

    fn walk(
        &self,
        from: PartStart,
        stop_at: Option<u64>,
        options: &ReaderOptions,
        set: &SchemaSet,
        decode: &DecodeOptions,
        f: &mut PartVisit<'_>,
    ) -> Result<(Summary, PartEnd), StateError> {
        let offset = match from {
            PartStart::File => 0,
            PartStart::Resource { offset, .. } => offset,
        };
        let read_size = options.read_size.min(PART_READ_BYTES);
        let options = options.clone().with_read_size(read_size);
        let file = self.open_at(offset)?;
        StateReader::with_options(file, options).walk_part(set, decode, from, stop_at, f)
    }

    fn done_before(&self, _: u64) {}
}

/// A state in memory (shared by the parts' readers, never copied), what is told the ranges
/// no part will read again ([`PartSource::done_before`]), and how far they have been told.
pub(super) struct MemorySource<T, R> {
    bytes: Arc<T>,
    release: Option<R>,
    released: AtomicUsize,
}

impl<T, R> MemorySource<T, R> {
    pub(super) fn new(bytes: T, release: Option<R>) -> Self {
        MemorySource {
            bytes: Arc::new(bytes),
            release,
            released: AtomicUsize::new(0),
        }
    }
}

/// A part reader's view of a [`MemorySource`]'s bytes: the same bytes, not a copy.
struct InPlace<T>(Arc<T>);

impl<T: AsRef<[u8]>> AsRef<[u8]> for InPlace<T> {
    fn as_ref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

impl<T, R> PartSource for MemorySource<T, R>
where
    T: AsRef<[u8]> + Send + Sync + UnwindSafe + RefUnwindSafe + 'static,
    R: Fn(Range<usize>) + Send + Sync,
{
    fn first_resource(&self, range: Range<u64>) -> Result<Option<u64>, StateError> {
        Ok(first_resource_in((*self.bytes).as_ref(), range))
    }

    fn walk(
        &self,
        from: PartStart,
        stop_at: Option<u64>,
        options: &ReaderOptions,
        set: &SchemaSet,
        decode: &DecodeOptions,
        f: &mut PartVisit<'_>,
    ) -> Result<(Summary, PartEnd), StateError> {
        // (No release of its own: a part's walk does not know when the bytes around its
        // ends are done with — the parts next to it read them too — so the calling thread
        // tells them, `done_before`.)
        let bytes = InPlace(Arc::clone(&self.bytes));
        let reader = StateReader::in_memory_with_options(bytes, options.clone());
        reader.walk_part(set, decode, from, stop_at, f)
    }

    fn done_before(&self, offset: u64) {
        let Some(release) = &self.release else { return };
        let done = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min((*self.bytes).as_ref().len());
        // (A few large releases rather than one a part: each is a flush of the other
        // cores' TLBs — F52b in `perf/optimizations.md`.)
        let released = self.released.load(Ordering::Relaxed);
        if done.saturating_sub(released) >= RELEASE_STEP
            || (done > released && done == (*self.bytes).as_ref().len())
        {
            release(released..done);
            self.released.store(done, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_file_in_order() {
        let most = 1000;
        let size = 100 * most as u64 + 7;
        let p = parts(size, 2, most);
        assert_eq!(p.len(), 101);
        assert!(p.iter().all(|p| p.end - p.start <= most as u64));
        assert_eq!(p.first().unwrap().start, 0);
        assert_eq!(p.last().unwrap().end, size);
        assert!(p.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(parts(2 * most as u64 - 1, 4, most).len(), 1);
        // At least eight parts per job.
        assert_eq!(parts(3 * most as u64, 4, most).len(), 32);
        let empty = parts(0, 4, most);
        assert_eq!((empty.len(), empty.first()), (1, Some(&(0..0))));
        assert_eq!(parts(10, 4, 0).len(), 10);
        assert_eq!(parts(10, 4, 1).len(), 10);
    }

    #[test]
    fn a_resource_start_is_told_by_its_first_key() {
        assert!(looks_like_resource(br#"{"mode":"managed"}"#));
        assert!(looks_like_resource(b"{\n  \"mode\": \"data\","));
        assert!(looks_like_resource(b"{\n      \"module\" : \"module.a\""));
        assert!(!looks_like_resource(br#"{"mode":"other"}"#));
        assert!(!looks_like_resource(br#"{"module":null}"#));
        assert!(!looks_like_resource(br#"{"modes":1}"#));
        assert!(!looks_like_resource(br#"{"type":"t","mode":"managed"}"#));
        assert!(!looks_like_resource(br#"{"mode""#));
        assert!(!looks_like_resource(b"{"));
    }

    /// A state in memory tells the bytes done in order from the start, `RELEASE_STEP` or
    /// more at a time, then the rest at the end, each byte once.
    #[test]
    fn memory_tells_what_is_done_in_steps() {
        let len = 3 * RELEASE_STEP;
        let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = std::sync::Arc::clone(&told);
        let release = move |range: Range<usize>| record.lock().unwrap().push(range);
        let bytes: std::sync::Arc<[u8]> = vec![b' '; len].into();
        let source = MemorySource::new(bytes, Some(release));
        let step = RELEASE_STEP as u64;
        for done in [
            1,
            step - 1,
            step,
            step + 5,
            2 * step + 5,
            u64::MAX,
            u64::MAX,
        ] {
            source.done_before(done);
        }
        let want = [
            0..RELEASE_STEP,
            RELEASE_STEP..2 * RELEASE_STEP + 5,
            2 * RELEASE_STEP + 5..len,
        ];
        assert_eq!(*told.lock().unwrap(), want);
    }

    /// A part's first resource is found in memory where it is found in a file, whatever
    /// the range: in texts with resources, look-alikes and neither, every range of them.
    #[test]
    fn first_resources_in_memory_are_those_in_a_file() {
        let resource = r#"{"mode":"managed","type":"t"}"#;
        let texts = [
            format!(r#"{{"version":4,"resources":[{resource},{resource}]}}"#),
            format!(r#"{{"a":{{"mode":"x"}},"b":[{{"module" : "m"}}],"c":{resource}}}"#),
            r#"{"x":{"y":{}}}"#.to_string(),
        ];
        let path = std::env::temp_dir().join(format!("tfwire-first-{}", std::process::id()));
        for text in &texts {
            std::fs::write(&path, text).unwrap();
            let source = FileSource(&path);
            let len = text.len() as u64;
            for start in 0..len {
                for end in start..=len + 2 {
                    let in_file = source.first_resource(start..end).unwrap();
                    let in_memory = first_resource_in(text.as_bytes(), start..end);
                    assert_eq!(in_memory, in_file, "{text} {start}..{end}");
                }
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
