//! The window of a read in parts (`ranges.rs`): which part a reader takes next, and how far
//! ahead of the parts handed on the readers may go (twice the jobs), so that the parts in
//! flight and their results stay bounded. The workers wait at the window when it is full;
//! the calling thread takes a part only when one is free at once, and otherwise waits for
//! the workers' results.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Which parts may be taken: those before `sunk + size`.
pub(super) struct Window {
    gate: Mutex<Gate>,
    woken: Condvar,
    /// Parts in all.
    parts: usize,
    /// Parts that may be taken before the first not handed on.
    size: usize,
}

struct Gate {
    /// The next part to take.
    next: usize,
    /// Parts handed on.
    sunk: usize,
    stop: bool,
}

impl Window {
    /// A window of `size` parts over `parts`.
    pub(super) fn new(parts: usize, size: usize) -> Window {
        Window {
            gate: Mutex::new(Gate {
                next: 0,
                sunk: 0,
                stop: false,
            }),
            woken: Condvar::new(),
            parts,
            size,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A worker's next part, once the window has room for it; `None` when every part is
    /// taken or the read stopped.
    pub(super) fn take_waiting(&self) -> Option<usize> {
        let mut g = self.lock();
        while !g.stop && g.next < self.parts && g.next >= g.sunk.saturating_add(self.size) {
            g = self.woken.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        self.take(&mut g)
    }

    /// The next part when the window has room for it now (the calling thread's, which must
    /// not wait here: the parts it hands on move the window).
    pub(super) fn take_now(&self) -> Option<usize> {
        let mut g = self.lock();
        match g.next < g.sunk.saturating_add(self.size) {
            true => self.take(&mut g),
            false => None,
        }
    }

    fn take(&self, g: &mut Gate) -> Option<usize> {
        if g.stop || g.next >= self.parts {
            return None;
        }
        g.next = g.next.saturating_add(1);
        Some(g.next.saturating_sub(1))
    }

    /// Parts `..=k` are handed on: the window moves past them.
    pub(super) fn sunk(&self, k: usize) {
        self.lock().sunk = k.saturating_add(1);
        self.woken.notify_all();
    }

    /// Stops the workers: none takes a part after this.
    pub(super) fn stop(&self) {
        self.lock().stop = true;
        self.woken.notify_all();
    }
}

/// Stops the window's workers when dropped: as the read ends, whether it returns or unwinds,
/// none is left waiting for parts never handed on.
pub(super) struct Stopper<'w>(pub(super) &'w Window);

impl Drop for Stopper<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::Window;

    /// Parts are taken in order within the window; the caller's `take_now` never waits, and
    /// handing parts on moves the window; once stopped, nothing is taken.
    #[test]
    fn parts_are_taken_in_order_within_the_window() {
        let w = Window::new(5, 2);
        assert_eq!((w.take_waiting(), w.take_now()), (Some(0), Some(1)));
        assert_eq!(w.take_now(), None);
        w.sunk(0);
        assert_eq!(w.take_now(), Some(2));
        w.sunk(2);
        assert_eq!((w.take_waiting(), w.take_waiting()), (Some(3), Some(4)));
        assert_eq!((w.take_waiting(), w.take_now()), (None, None));
        let w = Window::new(5, 2);
        drop(super::Stopper(&w));
        assert_eq!((w.take_waiting(), w.take_now()), (None, None));
    }
}
