//! [`StateReader::visit_files_parallel`]: many state files on `jobs` threads, what each
//! file's instances fold into handed on in the files' order. The reader's pool
//! ([`ReaderOptions::with_pool`], `pool.rs`) reads each run of small files, a whole file a
//! thread, the next file taken as soon as a thread is free (no barrier between files; a
//! thread's read buffer and arena are kept from file to file: `reader.rs`); a file of at
//! least two parts ([`ReaderOptions::part_bytes`]) is read in parts by
//! [`StateReader::visit_file_parallel`], on the same pool, once the files before it are
//! handed on.
//! At most a few files per thread are read ahead of the one being handed on, so the results
//! held stay few whatever the files' order of completion.

use std::collections::BTreeMap;
use std::fs::File;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::sync::Mutex;
use std::thread;

use super::part_source::FileSource;
use super::pool::{run_once, Handouts, Pool};
use super::{InstanceRef, Outcome, ReaderOptions, SchemaSet, StateError, StateReader, Summary};
use crate::program::DecodeOptions;

/// Files read ahead per thread of the one being handed on.
const AHEAD_PER_JOB: usize = 4;

/// What [`StateReader::visit_files_parallel`] hands on for a file, in the files' order.
#[derive(Debug)]
pub enum FilePiece<B> {
    /// What some of the file's instances were folded into and mapped to, in file order: one
    /// piece for a file read whole, one or more for a file read in parts or as a stream
    /// (as [`StateReader::visit_file_parallel`] hands them on), none for a file that could
    /// not be opened.
    Piece(B),
    /// The file is done: its summary, or why it could not be read whole (the instances
    /// before the fault were handed on in the pieces before).
    End(Result<Summary, StateError>),
}

/// A small file's result: its pieces and its end.
type FileDone<B> = (Vec<B>, Result<Summary, StateError>);

/// A file read by one of the pool's threads: its index and result, or the panic that ended
/// its read.
type Done<B> = (usize, thread::Result<FileDone<B>>);

impl StateReader<File> {
    /// Reads every file of `paths` on `jobs` threads and hands each file's
    /// [`FilePiece`]s to `sink` on the calling thread, with the file's index in `paths`, in
    /// the order of `paths` and of each file's instances: the instances, summaries and errors
    /// `jobs` 1 gives (the pieces a large file is cut into may differ).
    /// A file's instances are folded into an accumulator made by `init`, which `map` turns
    /// into a piece on the thread that read them; a file that cannot be read, or that is
    /// not a state, ends with its error, and the next file is read. A file of at least two
    /// parts ([`ReaderOptions::part_bytes`]) is read in parts on every thread, as
    /// [`StateReader::visit_file_parallel`] reads one; the others are read whole, one per
    /// thread. Every read runs on the pool of `reader_options` ([`ReaderOptions::with_pool`]):
    /// threads started for each run of small files and each large file by default, or the
    /// caller's threads, shared by all of them.
    ///
    /// ```
    /// use tfwire::state::{FilePiece, ReaderOptions, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let dir = std::env::temp_dir().join(format!("doc-files-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let mut paths = Vec::new();
    /// for name in ["a", "b", "c"] {
    ///     let path = dir.join(format!("{name}.tfstate"));
    ///     std::fs::write(&path, format!(r#"{{"version":4,"resources":[{{"mode":"managed",
    ///       "type":"t","name":"{name}","provider":"provider.t",
    ///       "instances":[{{"attributes":{{}}}}]}}]}}"#))?;
    ///     paths.push(path);
    /// }
    /// paths.push(dir.join("missing.tfstate"));
    /// let mut seen = Vec::new();
    /// StateReader::visit_files_parallel(
    ///     &paths, ReaderOptions::default(), &SchemaSet::new(), &DecodeOptions::default(), 2,
    ///     Vec::new,
    ///     |names: &mut Vec<String>, item, _| names.push(item.address()),
    ///     |names| names.join(","),
    ///     |file, piece| seen.push(match piece {
    ///         FilePiece::Piece(names) => format!("{file}: {names}"),
    ///         FilePiece::End(Ok(summary)) => format!("{file}: {} instances", summary.instances),
    ///         FilePiece::End(Err(_)) => format!("{file}: unreadable"),
    ///     }),
    /// );
    /// assert_eq!(seen, [
    ///     "0: t.a", "0: 1 instances", "1: t.b", "1: 1 instances", "2: t.c", "2: 1 instances",
    ///     "3: unreadable",
    /// ]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn visit_files_parallel<P, A, B, I, F, M, S>(
        paths: &[P],
        reader_options: ReaderOptions,
        set: &SchemaSet,
        options: &DecodeOptions,
        jobs: usize,
        init: I,
        fold: F,
        map: M,
        mut sink: S,
    ) where
        P: AsRef<Path> + Sync,
        B: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        M: Fn(A) -> B + Sync,
        S: FnMut(usize, FilePiece<B>),
    {
        let jobs = jobs.max(1);
        let split_from = reader_options.part_bytes.saturating_mul(2) as u64;
        let large = |path: &Path| {
            jobs > 1 && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= split_from)
        };
        let read_whole = |path: &Path| -> FileDone<B> {
            // (The error a read in parts gives for a file it cannot open.)
            let file = match FileSource(path).open_at(0) {
                Ok(file) => file,
                Err(e) => return (Vec::new(), Err(e)),
            };
            let mut acc = init();
            let result = StateReader::with_options(file, reader_options.clone()).visit(
                set,
                options,
                |item, outcome| fold(&mut acc, item, outcome),
            );
            // (The instances before a fault are handed on before it.)
            (vec![map(acc)], result)
        };
        let pool = reader_options.pool.clone();
        let mut order = InOrder {
            waiting: BTreeMap::new(),
            next: 0,
            sent: 0,
        };
        let mut index = 0;
        // (Each file is looked at once, on this thread, as it is reached: `large` here, or
        // by the run of small files before it, which ends there.)
        let mut known_large = false;
        while let Some(path) = paths.get(index) {
            if known_large || large(path.as_ref()) {
                known_large = false;
                // Its parts on every thread of the pool (the files before it are handed on).
                let result = StateReader::visit_file_parallel(
                    path.as_ref(),
                    reader_options.clone(),
                    set,
                    options,
                    jobs,
                    &init,
                    &fold,
                    &map,
                    |piece| sink(index, FilePiece::Piece(piece)),
                );
                sink(index, FilePiece::End(result));
                order.skip(index);
                index = index.saturating_add(1);
                continue;
            }
            // A run of small files, each read whole by one of the pool's threads, up to the
            // next large file.
            let run = Run {
                paths,
                from: index,
                jobs,
            };
            index = run.read(pool.get(), &large, &read_whole, &mut order, &mut sink);
            known_large = index < paths.len();
        }
    }
}

/// Small files read whole on the pool's threads, `jobs` of them: `paths[from]` (a small
/// file) and those after it up to the next large one.
struct Run<'p, P> {
    paths: &'p [P],
    from: usize,
    jobs: usize,
}

impl<P: AsRef<Path> + Sync> Run<'_, P> {
    /// Reads the run's files by `read_whole` on `pool`, each handed to `sink` in order
    /// (`order`) once those before it are, at most a few files per thread ahead of it. The
    /// index of the first file after the run: a `large` one, or the end of `paths`.
    fn read<B: Send, S: FnMut(usize, FilePiece<B>)>(
        &self,
        pool: &dyn Pool,
        large: &dyn Fn(&Path) -> bool,
        read_whole: &(dyn Fn(&Path) -> FileDone<B> + Sync),
        order: &mut InOrder<B>,
        sink: &mut S,
    ) -> usize {
        let (work, queue) = mpsc::channel::<(usize, &Path)>();
        let queue = Mutex::new(queue);
        let (done_tx, done) = mpsc::channel::<Done<B>>();
        let senders = Handouts::new(done_tx, self.jobs);
        let worker = || {
            let Some(done_tx) = senders.take() else {
                return;
            };
            loop {
                let next = match queue.lock() {
                    Ok(queue) => queue.recv(),
                    Err(_) => return,
                };
                let Ok((index, path)) = next else {
                    return;
                };
                let result = panic::catch_unwind(AssertUnwindSafe(|| read_whole(path)));
                if done_tx.send((index, result)).is_err() {
                    return;
                }
            }
        };
        let ahead = self.jobs.saturating_mul(AHEAD_PER_JOB);
        let caller = || {
            // The queue's sender and the receiver are the caller's: should `sink` panic, or
            // a worker's panic be raised again by `receive`, they are dropped as this
            // unwinds, and each thread stops after its file.
            let done = done;
            let mut end = self.paths.len();
            for (index, path) in self.paths.iter().enumerate().skip(self.from) {
                if index > self.from && large(path.as_ref()) {
                    end = index;
                    break;
                }
                order.receive(&done, ahead.saturating_sub(1), sink);
                order.sent = index.saturating_add(1);
                // (The queue's receiver lives in this frame: the send cannot fail.)
                let _ = work.send((index, path.as_ref()));
            }
            order.receive(&done, 0, sink);
            // The threads stop when the queue closes.
            drop(work);
            Ok(end)
        };
        match run_once(pool, self.jobs, &worker, caller) {
            Ok(end) => end,
            // (A pool that never ran the run: its first file ends with the error, and the
            // next is tried.)
            Err(e) => {
                sink(self.from, FilePiece::End(Err(e)));
                order.skip(self.from);
                self.from.saturating_add(1)
            }
        }
    }
}

/// The files handed to the pool, their results handed on in the files' order.
struct InOrder<B> {
    /// Results that came before the ones before them were handed on.
    waiting: BTreeMap<usize, FileDone<B>>,
    /// The next file to hand on.
    next: usize,
    /// The files handed to the pool or read in parts: all those before this index.
    sent: usize,
}

impl<B> InOrder<B> {
    /// Receives results and hands them on in order until at most `ahead` files are
    /// outstanding (sent, not handed on).
    fn receive<S: FnMut(usize, FilePiece<B>)>(
        &mut self,
        done: &mpsc::Receiver<Done<B>>,
        ahead: usize,
        sink: &mut S,
    ) {
        while self.sent.saturating_sub(self.next) > ahead {
            if let Some((pieces, end)) = self.waiting.remove(&self.next) {
                for piece in pieces {
                    sink(self.next, FilePiece::Piece(piece));
                }
                sink(self.next, FilePiece::End(end));
                self.next = self.next.saturating_add(1);
                continue;
            }
            let Ok((index, result)) = done.recv() else {
                return;
            };
            match result {
                Ok(file) => {
                    self.waiting.insert(index, file);
                }
                Err(panic) => panic::resume_unwind(panic),
            }
        }
    }

    /// File `index`, read in parts and handed on by the caller, is done with.
    fn skip(&mut self, index: usize) {
        self.next = index.saturating_add(1);
        self.sent = self.next;
    }
}
