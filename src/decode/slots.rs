//! [`Slots`]: a container's value slots in the arena, written in order as its children are
//! decoded, without first filling them with a placeholder.
//!
//! The slice is allocated uninitialised. `push` writes the next slot; `fill_rest` writes a
//! value to every slot not yet written, after which `set` may overwrite any slot; `finish`
//! hands out the slice, filling what is left first. Every write checks its index, so the
//! type is sound whatever the caller does; the checks are compares LLVM folds away in the
//! executors' counted loops.

use std::alloc::Layout;
use std::marker::PhantomData;
use std::ptr::NonNull;

use bumpalo::Bump;

/// `len` slots of `T` in the arena, the first `init` of them written.
pub(super) struct Slots<'a, T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    init: usize,
    _arena: PhantomData<&'a mut [T]>,
}

impl<'a, T: Copy> Slots<'a, T> {
    /// Allocates `len` uninitialised slots. `len` is at most `u32::MAX` and `T` a few words, so
    /// the layout cannot overflow; the caller has charged the bytes against the decode's budget.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn new(bump: &'a Bump, len: u32) -> Slots<'a, T> {
        if len == 0 {
            return Slots::empty();
        }
        let len = len as usize;
        let ptr = match Layout::array::<T>(len) {
            Ok(layout) => bump.alloc_layout(layout).cast::<T>(),
            // Unreachable for `len <= u32::MAX` and a small `T`; an empty slice is safe.
            Err(_) => return Slots::empty(),
        };
        Slots {
            ptr,
            len,
            init: 0,
            _arena: PhantomData,
        }
    }

    /// No slots (nothing allocated).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn empty() -> Slots<'a, T> {
        Slots {
            ptr: NonNull::dangling(),
            len: 0,
            init: 0,
            _arena: PhantomData,
        }
    }

    /// Slots written so far (while writing in order).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn written(&self) -> usize {
        self.init
    }

    /// Slots not yet written (while writing in order).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn unwritten(&self) -> usize {
        self.len.wrapping_sub(self.init)
    }

    /// Writes the next slot in order (ignored when every slot is written).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn push(&mut self, value: T) {
        if self.init < self.len {
            // SAFETY: `init < len`, so the slot is inside the allocation of `len` slots; it is
            // written, not read, so its being uninitialised does not matter.
            unsafe { self.ptr.as_ptr().add(self.init).write(value) };
            // `init < len <= u32::MAX`: cannot wrap.
            self.init = self.init.wrapping_add(1);
        }
    }

    /// Writes the next slot in order, without checking that one is left.
    ///
    /// # Safety
    /// Fewer than `len` slots have been written (`written() < len`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) unsafe fn push_unchecked(&mut self, value: T) {
        debug_assert!(self.init < self.len);
        // SAFETY: the caller guarantees `init < len`: the slot is inside the allocation.
        unsafe { self.ptr.as_ptr().add(self.init).write(value) };
        self.init = self.init.wrapping_add(1);
    }

    /// Writes `value` to every slot not yet written.
    pub(super) fn fill_rest(&mut self, value: T) {
        while self.init < self.len {
            self.push(value);
        }
    }

    /// Overwrites slot `i` once every slot is written (ignored before, or out of range).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn set(&mut self, i: usize, value: T) {
        if i < self.init {
            // SAFETY: `i < init <= len`: an initialised slot inside the allocation.
            unsafe { self.ptr.as_ptr().add(i).write(value) };
        }
    }

    /// The slots written so far, as a finished slice (the rest of the allocation unused).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn finish_written(self) -> &'a mut [T] {
        // SAFETY: the first `init` slots are initialised, the allocation lives as long as the
        // arena (`'a`), and `self` is consumed, so this is the only reference to it.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.init) }
    }

    /// The finished slice; slots not written get `rest`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn finish(mut self, rest: T) -> &'a mut [T] {
        if self.init < self.len {
            self.fill_rest(rest);
        }
        // SAFETY: every one of the `len` slots is initialised (`init == len` here), the
        // allocation lives as long as the arena (`'a`), and `self` is consumed, so this is the
        // only reference to it.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.init) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_then_fill() {
        let bump = Bump::new();
        let mut s: Slots<'_, u64> = Slots::new(&bump, 4);
        s.push(1);
        s.push(2);
        assert_eq!(s.written(), 2);
        s.set(3, 9); // ignored: not written yet
        s.fill_rest(0);
        s.set(3, 7);
        s.push(5); // ignored: full
        assert_eq!(s.finish(0), &[1, 2, 0, 7]);
    }

    #[test]
    fn finish_fills_and_empty_is_empty() {
        let bump = Bump::new();
        let mut s: Slots<'_, u8> = Slots::new(&bump, 3);
        s.push(4);
        assert_eq!(s.finish(1), &[4, 1, 1]);
        let e: Slots<'_, u8> = Slots::empty();
        assert!(e.finish(0).is_empty());
        let z: Slots<'_, u8> = Slots::new(&bump, 0);
        assert!(z.finish(0).is_empty());
    }

    #[test]
    fn finish_written_keeps_only_what_was_written() {
        let bump = Bump::new();
        let mut s: Slots<'_, u16> = Slots::new(&bump, 5);
        s.push(3);
        s.push(4);
        assert_eq!(s.finish_written(), &[3, 4]);
        let e: Slots<'_, u16> = Slots::new(&bump, 2);
        assert!(e.finish_written().is_empty());
    }
}
