//! Unchecked writes into a `Vec<u8>`'s reserved spare capacity, for the attribute loops of the
//! MessagePack encoder and the DUMP, and for MessagePack strings: one capacity check per
//! attribute (or string) instead of one per write, and the buffer's pointer, length and
//! capacity kept in registers (a byte store through the `Vec` itself may alias its own length
//! field, so the compiler reloads it after each write).
//!
//! [`Spare`] owns the `Vec` borrow while it is open; the length it has written is committed
//! when it is dropped (an error returned with `?` included) or before the `Vec` is lent out
//! for a write the fast path does not take ([`Spare::with_vec`]).
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects)]

/// A write cursor over a `Vec<u8>`'s spare capacity.
pub(crate) struct Spare<'v> {
    out: &'v mut Vec<u8>,
    base: *mut u8,
    len: usize,
    cap: usize,
}

impl<'v> Spare<'v> {
    /// A cursor at the end of `out`.
    #[inline(always)]
    pub(crate) fn new(out: &'v mut Vec<u8>) -> Spare<'v> {
        let (base, len, cap) = (out.as_mut_ptr(), out.len(), out.capacity());
        Spare {
            out,
            base,
            len,
            cap,
        }
    }

    /// Makes sure at least `n` bytes of spare capacity follow the cursor.
    #[inline(always)]
    pub(crate) fn reserve(&mut self, n: usize) {
        if self.cap - self.len < n {
            // (A free function of the fields, not a method: the cursor's address never
            // escapes, so its fields stay in registers.)
            (self.base, self.cap) = grow(self.out, self.len, n);
        }
    }

    /// Sets the `Vec`'s length to what has been written.
    #[inline(always)]
    fn commit(&mut self) {
        // SAFETY: `len` only grows by the bytes the unsafe writes below initialised, each
        // within the capacity a `reserve` made sure of (their callers' contract), and starts
        // at the `Vec`'s own length.
        unsafe { self.out.set_len(self.len) }
    }

    #[inline(always)]
    fn reload(&mut self) {
        self.base = self.out.as_mut_ptr();
        self.len = self.out.len();
        self.cap = self.out.capacity();
    }

    /// Lends the `Vec`, with everything written so far committed, to a writer of its own
    /// (the general path), and continues after what it wrote.
    #[inline(always)]
    pub(crate) fn with_vec<R>(&mut self, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        self.commit();
        let r = f(self.out);
        self.reload();
        r
    }

    /// Writes one byte.
    ///
    /// # Safety
    /// At least 1 byte of spare capacity follows the cursor.
    #[inline(always)]
    pub(crate) unsafe fn byte(&mut self, b: u8) {
        debug_assert!(self.cap - self.len >= 1);
        // SAFETY: the caller's contract: the byte is within the capacity.
        unsafe { self.base.add(self.len).write(b) };
        self.len += 1;
    }

    /// Writes the `N` bytes of `block` and keeps the first `used` of them (the rest is slack
    /// the next write overwrites): a fixed-size copy instead of a `memcpy` call.
    ///
    /// # Safety
    /// At least `N` bytes of spare capacity follow the cursor, and `used <= N`.
    #[inline(always)]
    pub(crate) unsafe fn block<const N: usize>(&mut self, block: &[u8; N], used: usize) {
        debug_assert!(self.cap - self.len >= N && used <= N);
        // SAFETY: the caller's contract: `N` bytes fit in the capacity; `block` is a
        // distinct allocation (a shared borrow), so the ranges do not overlap.
        unsafe {
            self.base
                .add(self.len)
                .cast::<[u8; N]>()
                .write_unaligned(*block)
        };
        self.len += used;
    }

    /// Writes the bytes of `src`, `W..=2W` of them, as its first `W` and its last `W` bytes
    /// (overlapping when `src` is shorter than `2W`).
    ///
    /// # Safety
    /// At least `src.len()` bytes of spare capacity follow the cursor.
    #[inline(always)]
    pub(crate) unsafe fn overlapping<const W: usize>(&mut self, src: &[u8]) {
        let n = src.len();
        debug_assert!((W..=2 * W).contains(&n) && self.cap - self.len >= n);
        if let (Some(head), Some(tail)) = (src.first_chunk::<W>(), src.last_chunk::<W>()) {
            // SAFETY: both copies end within `len + n`, inside the capacity (the caller's
            // contract); `src` is a shared borrow, not the `Vec`'s buffer.
            unsafe {
                let at = self.base.add(self.len);
                at.cast::<[u8; W]>().write_unaligned(*head);
                at.add(n - W).cast::<[u8; W]>().write_unaligned(*tail);
            }
        }
        self.len += n;
    }

    /// Writes the bytes of `src` with one copy (a `memcpy` call: for long strings).
    ///
    /// # Safety
    /// At least `src.len()` bytes of spare capacity follow the cursor.
    #[inline(always)]
    pub(crate) unsafe fn slice(&mut self, src: &[u8]) {
        debug_assert!(self.cap - self.len >= src.len());
        // SAFETY: the caller's contract; `src` is a shared borrow, not the `Vec`'s buffer.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.base.add(self.len), src.len()) };
        self.len += src.len();
    }

    /// Writes the bytes of `src` (fewer than 64) with fixed-size copies: two overlapping
    /// copies of 32, 16, 8 or 4 bytes, or one byte at a time under 4 (no call to `memcpy`).
    ///
    /// # Safety
    /// `src` is shorter than 64 bytes and at least `src.len()` bytes of spare capacity
    /// follow the cursor.
    #[inline(always)]
    pub(crate) unsafe fn short(&mut self, src: &[u8]) {
        let n = src.len();
        debug_assert!(n < 64);
        // SAFETY (each branch): `n` bytes written, the caller's contract.
        unsafe {
            if n >= 32 {
                self.overlapping::<32>(src);
            } else if n >= 16 {
                self.overlapping::<16>(src);
            } else if n >= 8 {
                self.overlapping::<8>(src);
            } else if n >= 4 {
                self.overlapping::<4>(src);
            } else {
                self.few(src);
            }
        }
    }

    /// Writes the bytes of `src` (fewer than 4) one at a time.
    ///
    /// # Safety
    /// At least `src.len()` bytes of spare capacity follow the cursor.
    #[inline(always)]
    pub(crate) unsafe fn few(&mut self, src: &[u8]) {
        for &b in src {
            // SAFETY: the caller's contract covers all of `src`.
            unsafe { self.byte(b) };
        }
    }
}

/// Commits `len` bytes and reserves `n` more; the buffer's new address and capacity.
#[cold]
#[inline(never)]
fn grow(out: &mut Vec<u8>, len: usize, n: usize) -> (*mut u8, usize) {
    // SAFETY: as in `Spare::commit`: `len` counts the bytes written, within the capacity.
    unsafe { out.set_len(len) };
    out.reserve(n);
    (out.as_mut_ptr(), out.capacity())
}

impl Drop for Spare<'_> {
    fn drop(&mut self) {
        self.commit();
    }
}
