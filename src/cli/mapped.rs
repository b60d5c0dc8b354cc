//! State files (`tfwire state` with one job, or a large one read in parts) and schema
//! documents read in place through a memory map: the kernel's copy of a large state into the reader's buffer was a third of
//! the time of a run that steps over most of the file (`--type … --select …`), and reading
//! 23 MB of documents a fifth of the start-up (F29 in `perf/optimizations.md`). A file is
//! mapped only when it is a regular file of
//! [`MAP_MIN`] bytes or more, `--no-mmap` was not given, and no other process holds a write
//! lock on it (a schema document: of [`DOCUMENT_MAP_MIN`] bytes or more); else it is read as
//! a stream. The pages of a mapped state are given back as
//! the reader leaves them behind ([`Shared::release`]): resident memory holds the part being
//! read, not the file.
//!
//! The hazard of a map: a file truncated while mapped ends the process with `SIGBUS` when
//! the reader touches a page past the new end, and a file rewritten in place changes under
//! the reader. Terraform's and OpenTofu's local backend rewrite the state file in place, but
//! they hold an `fcntl` write lock on it while they run (`statemgr.Filesystem.Lock`), which
//! is checked here before mapping (a query, `F_GETLK`: no lock is taken, no writer is kept
//! waiting) — once: a run that starts while the state is mapped (for the second or so of
//! its read) and rewrites it then is not seen. Schema documents stay mapped for the whole
//! run (their schemas are parsed on first use), and nothing locks them. `--no-mmap` reads
//! every file as a stream, for files something may rewrite in place meanwhile.

use std::fs::File;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::Arc;

/// The smallest file mapped: below it, a map's setup and teardown cost about what the copy
/// saves.
pub const MAP_MIN: u64 = 1 << 20;

/// `file` (of `length` bytes when it is a regular file) mapped read-only, or `None` when it
/// is to be read as a stream.
pub fn map(file: &File, length: Option<u64>, no_mmap: bool) -> Option<memmap2::Mmap> {
    map_from(file, length, no_mmap, MAP_MIN)
}

/// The smallest schema document mapped: a document stays mapped for the whole run, so its
/// map's teardown is the process's exit, and reading the thirty documents under 1 MiB the
/// fleet scans load (1.9 MB) was a fifth of the start-up's page faults (F50 in
/// `perf/optimizations.md`).
pub const DOCUMENT_MAP_MIN: u64 = 64 << 10;

/// [`map`] for files of `least` bytes or more.
fn map_from(file: &File, length: Option<u64>, no_mmap: bool, least: u64) -> Option<memmap2::Mmap> {
    if no_mmap || length.is_none_or(|n| n < least) || write_locked(file) {
        return None;
    }
    // SAFETY: the map is read-only and private (`MAP_PRIVATE`: no write of ours, and none
    // through it). What a map leaves to its caller is that no one changes or truncates the
    // file while it is mapped (a state until its read ends, a schema document for the run):
    // a state is not mapped while another process holds a write lock on it (Terraform and
    // OpenTofu, while they run), and `--no-mmap` is there for files that may be rewritten
    // meanwhile (the module doc).
    unsafe { memmap2::MmapOptions::new().map_copy_read_only(file) }.ok()
}

/// A mapped state: its bytes for the reader (or the readers of its parts), and what gives
/// back the pages they have read.
#[derive(Clone)]
pub struct Shared(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Shared {
    /// The state `map`, shared with [`Shared::release`].
    pub fn new(map: memmap2::Mmap) -> Shared {
        Shared(Arc::new(map))
    }

    /// For [`StateReader::with_release`](tfwire::state::StateReader::with_release): the
    /// pages of each range the reader is done with taken out of the process
    /// (`MADV_DONTNEED`), so that resident memory holds the part being read, not the whole
    /// state (the file's pages stay in the page cache). Also for a state read in parts
    /// ([`StateReader::visit_memory_parallel`](tfwire::state::StateReader::visit_memory_parallel)),
    /// which tells the bytes no part will read again.
    pub fn release(&self) -> impl Fn(Range<usize>) + Send + Sync + UnwindSafe + RefUnwindSafe {
        let map = Arc::clone(&self.0);
        move |range| {
            // Whole pages only (the map starts at a page): the page a sequential reader is
            // in stays.
            let end = range.end & !(PAGE - 1);
            let start = range.start & !(PAGE - 1);
            // SAFETY: `MADV_DONTNEED` drops the range's page-table entries; the map is
            // read-only and private and never written, so a page touched again is read back
            // from the file with the same bytes (the hazard of a file changed meanwhile is
            // the map's own: `map`). The range lies in the map (the readers' ranges do,
            // rounded down), and no reader reads before its end again.
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start,
                    end.saturating_sub(start),
                )
            };
        }
    }
}

/// What the releases round to: a multiple of the page size of every common kernel (4, 16
/// and 64 KiB pages), so that a release never reaches the page the reader is in.
const PAGE: usize = 64 << 10;

/// A file's bytes: mapped, or read.
pub enum Bytes {
    /// Mapped ([`map`]).
    Mapped(memmap2::Mmap),
    /// Read whole.
    Read(Vec<u8>),
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Read(bytes) => bytes,
        }
    }
}

/// The schema document at `path` mapped as [`map`] maps a state (write locks checked) when
/// it has [`DOCUMENT_MAP_MIN`] bytes or more, else read whole.
pub fn map_or_read(path: &std::path::Path, no_mmap: bool) -> std::io::Result<Bytes> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let length = meta.is_file().then_some(meta.len());
    match map_from(&file, length, no_mmap, DOCUMENT_MAP_MIN) {
        Some(map) => Ok(Bytes::Mapped(map)),
        None => {
            // (The length is the file's own; room for it asked, not assumed.)
            let mut bytes = Vec::new();
            let room = length.and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
            bytes
                .try_reserve_exact(room)
                .map_err(std::io::Error::other)?;
            std::io::Read::read_to_end(&mut &file, &mut bytes)?;
            Ok(Bytes::Read(bytes))
        }
    }
}

/// Whether another process holds an `fcntl` write lock on any part of `file`.
fn write_locked(file: &File) -> bool {
    // The whole file, asked for a read lock: `F_GETLK` reports a write lock that would
    // block it, and takes none itself.
    // SAFETY: `flock` is plain data, all zeros a valid value.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_RDLCK as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: a valid open descriptor and a valid `flock` for `F_GETLK` to fill in.
    let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut lock) };
    // (When the query fails the file is read as a stream: the safe side.)
    r != 0 || lock.l_type != libc::F_UNLCK as libc::c_short
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large regular file is mapped, with its bytes (the same after its pages are
    /// released); a small one, one under `--no-mmap`,
    /// and one another process holds a write lock on (`flock(1)` takes `flock` locks, not
    /// `fcntl` ones: a Python child takes the `fcntl` lock) are read as streams. A schema
    /// document is mapped from [`DOCUMENT_MAP_MIN`] bytes.
    #[test]
    fn mapped_unless_small_asked_not_to_or_write_locked() {
        let dir = std::env::temp_dir().join(format!("tfwire-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("large.tfstate");
        let bytes: Vec<u8> = (0..MAP_MIN + 7).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        let length = Some(bytes.len() as u64);
        assert_eq!(map(&file, length, false).as_deref(), Some(&bytes[..]));
        // Released pages read back the same bytes.
        let shared = Shared::new(map(&file, length, false).unwrap());
        let release = shared.release();
        release(0..bytes.len());
        release(PAGE + 1..bytes.len() - 1);
        assert_eq!(shared.as_ref(), &bytes[..]);
        assert!(map(&file, length, true).is_none());
        assert!(map(&file, Some(MAP_MIN - 1), false).is_none());
        assert!(map(&file, None, false).is_none());
        // A schema document is mapped from 64 KiB, read below.
        let doc = dir.join("doc.json");
        for (len, mapped) in [(DOCUMENT_MAP_MIN, true), (DOCUMENT_MAP_MIN - 1, false)] {
            std::fs::write(&doc, &bytes[..len as usize]).unwrap();
            let read = map_or_read(&doc, false).unwrap();
            assert_eq!(matches!(read, Bytes::Mapped(_)), mapped, "{len}");
            assert_eq!(read.as_ref(), &bytes[..len as usize]);
            assert!(matches!(map_or_read(&doc, true).unwrap(), Bytes::Read(_)));
        }
        // Another process's write lock, held until its standard input closes.
        let script = "import fcntl,sys\nf=open(sys.argv[1],'r+b')\nfcntl.lockf(f,fcntl.LOCK_EX)\nprint('locked',flush=True)\nsys.stdin.read()\n";
        let mut child = std::process::Command::new("python3")
            .args(["-c", script, path.to_str().unwrap()])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut said = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
            &mut said,
        )
        .unwrap();
        assert_eq!(said, "locked\n");
        assert!(write_locked(&file));
        assert!(map(&file, length, false).is_none());
        drop(child.stdin.take());
        child.wait().unwrap();
        assert!(!write_locked(&file));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
