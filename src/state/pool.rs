//! Where a parallel read runs its workers: the [`Pool`] trait, [`Threads`] (threads started
//! for each read, the default) and the handle [`ReaderOptions::with_pool`] keeps. The
//! parallel reads (`ranges.rs` in parts, `batch.rs` as a stream, `files.rs` many files) start
//! their workers through it, so that a caller's own pool can serve a fleet's small files and
//! a large file's parts alike: `tfwire state` passes its rayon pool.
//!
//! [`ReaderOptions::with_pool`]: super::ReaderOptions::with_pool

use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use super::StateError;

/// Threads a parallel read runs its workers on ([`ReaderOptions::with_pool`]).
///
/// A read calls [`Pool::run`] once per file it reads in parallel (once per run of small
/// files in [`StateReader::visit_files_parallel`]), from the thread that called the read.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use tfwire::state::{Pool, ReaderOptions, SchemaSet, StateReader, Threads};
/// use tfwire::DecodeOptions;
///
/// /// Threads started per read, as `Threads`, counting the workers asked for.
/// #[derive(Default)]
/// struct Counted(AtomicUsize);
///
/// impl Pool for Counted {
///     fn run(&self, workers: usize, work: &(dyn Fn() + Sync), caller: &mut dyn FnMut()) {
///         self.0.fetch_add(workers, Ordering::Relaxed);
///         Threads.run(workers, work, caller)
///     }
/// }
///
/// let pool = Arc::new(Counted::default());
/// let state = br#"{"version":4,"resources":[{"mode":"managed","type":"t","name":"a",
///     "provider":"provider.t","instances":[{"attributes":{}},{"attributes":{}}]}]}"#;
/// let options = ReaderOptions::default().with_read_size(64).with_pool(pool.clone());
/// let mut count = 0;
/// StateReader::with_options(&state[..], options).visit_parallel_map(
///     &SchemaSet::new(), &DecodeOptions::default(), 2,
///     || 0, |n: &mut usize, _, _| *n += 1, |n| n, |n| count += n,
/// )?;
/// assert_eq!((count, pool.0.load(Ordering::Relaxed)), (2, 1));
/// # Ok::<(), tfwire::state::StateError>(())
/// ```
///
/// [`ReaderOptions::with_pool`]: super::ReaderOptions::with_pool
/// [`StateReader::visit_files_parallel`]: super::StateReader::visit_files_parallel
pub trait Pool: Send + Sync {
    /// Runs `work` `workers` times, each run on one of the pool's threads, while `caller`
    /// runs on the calling thread; returns once `caller` and every run of `work` have
    /// returned. Every run must start, but not necessarily at once: a read's workers take
    /// their work from a queue and wait only for `caller`, so a busy pool delays a read and
    /// never stops it — provided a thread of the pool is left for them: `caller` waits for
    /// the workers' results, so `run` must not be called from a thread the runs need (from
    /// one of a one-thread pool's, or from every thread of a pool at once). A panic in
    /// `caller` or in a run is raised again by `run` once the others have returned (a read
    /// stops its workers when `caller` unwinds).
    ///
    /// A read's walk keeps its buffers per thread for the next walk (`reader.rs`): on a
    /// pool's long-lived threads they stay after the read, ready for the next file, where
    /// [`Threads`] frees them as its threads end.
    fn run(&self, workers: usize, work: &(dyn Fn() + Sync), caller: &mut dyn FnMut());
}

/// The default [`Pool`]: `workers` threads started for each read and joined at its end
/// (scoped threads: [`std::thread::scope`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Threads;

impl Pool for Threads {
    fn run(&self, workers: usize, work: &(dyn Fn() + Sync), caller: &mut dyn FnMut()) {
        thread::scope(|scope| {
            let threads: Vec<_> = (0..workers).map(|_| scope.spawn(work)).collect();
            caller();
            // Joined here, not only at the scope's end: a join waits for the threads to
            // exit, their thread-locals (a walk's spare buffer, a channel's wait context)
            // freed before the read returns.
            for thread in threads {
                if let Err(panic) = thread.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        });
    }
}

/// The pool [`ReaderOptions`] hold, [`Threads`] when none was given.
///
/// [`ReaderOptions`]: super::ReaderOptions
#[derive(Clone, Default)]
pub(crate) struct PoolRef(Option<Arc<dyn Pool>>);

impl PoolRef {
    pub(crate) fn new(pool: Arc<dyn Pool>) -> PoolRef {
        PoolRef(Some(pool))
    }

    /// The pool to run on.
    pub(crate) fn get(&self) -> &dyn Pool {
        match &self.0 {
            Some(pool) => pool.as_ref(),
            None => &Threads,
        }
    }
}

// A reader keeps the pool only to start its workers on it: after a panic it reads nothing
// the pool holds, so the options (and the readers holding them) stay as unwind-safe as they
// were without a pool.
impl UnwindSafe for PoolRef {}
impl RefUnwindSafe for PoolRef {}

impl fmt::Debug for PoolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Pool" } else { "Threads" })
    }
}

/// [`Pool::run`] with `caller` run once, by value, so that what it owns (a queue's sender,
/// a stopper) is dropped as it returns or unwinds, which ends the workers; what it returned,
/// or an error when the pool returned without running it.
pub(crate) fn run_once<T>(
    pool: &dyn Pool,
    workers: usize,
    work: &(dyn Fn() + Sync),
    caller: impl FnOnce() -> Result<T, StateError>,
) -> Result<T, StateError> {
    let (mut caller, mut result) = (Some(caller), None);
    pool.run(workers, work, &mut || {
        if let Some(caller) = caller.take() {
            result = Some(caller());
        }
    });
    result.unwrap_or_else(|| Err(StateError::new("the pool did not run the read")))
}

/// One clone of a value (a channel's sender) for each of a read's workers, taken as the
/// worker starts; the original is dropped by the read as it hands these out, so the channel
/// closes once every worker has ended (as with a clone moved into each spawned thread).
pub(crate) struct Handouts<T>(Mutex<Vec<T>>);

impl<T: Clone> Handouts<T> {
    /// `count` clones of `value` (which is dropped).
    pub(crate) fn new(value: T, count: usize) -> Handouts<T> {
        Handouts(Mutex::new(vec![value; count]))
    }

    /// A worker's clone; `None` when every clone was taken.
    pub(crate) fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }
}
