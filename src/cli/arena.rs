//! The process's allocator: a bump arena in front of the system allocator.
//!
//! A hook is one short process: a decision makes about 1,100 allocations of 230 KB in all and
//! then exits, and glibc's malloc and free cost it ~170K instructions, a fifth of the decision
//! (callgrind, docs/performance.md). Here an allocation takes the next aligned bytes of a fixed
//! block in `.bss` (untouched pages cost no memory), and freeing gives bytes back only when they
//! are the newest (a `Vec` that grows and is dropped in turn). The block is never reused
//! otherwise, so a long command (`suggest` over a large transcript, `check` over many commands)
//! fills it and goes on with the system allocator: what the arena holds is bounded by its size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering::Relaxed};

/// Where a failed system allocation is told (a pipe to the hook's watchdog; -1: nowhere),
/// before Rust aborts the process: so the watchdog can say the judging ran out of memory.
static OUT_OF_MEMORY_FD: AtomicI32 = AtomicI32::new(-1);

/// Tell `fd` of a failed allocation from now on (`cli::watchdog`).
#[cfg_attr(not(unix), allow(dead_code))]
pub fn report_out_of_memory_to(fd: i32) {
    OUT_OF_MEMORY_FD.store(fd, Relaxed);
}

/// A system allocation failed: one fixed message, with write(2) alone (no allocation).
#[cold]
fn out_of_memory() {
    let fd = OUT_OF_MEMORY_FD.load(Relaxed);
    if fd >= 0 {
        let message = super::watchdog::OUT_OF_MEMORY_MESSAGE;
        // SAFETY: writes a constant from the stack; a failure changes nothing.
        unsafe { libc::write(fd, message.as_ptr().cast(), message.len() as _) };
    }
}

/// `ptr` from the system allocator, with a null one told first.
fn told(ptr: *mut u8) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory();
    }
    ptr
}

/// `N` bytes handed out in order, then the system allocator.
pub struct Arena<const N: usize> {
    bytes: UnsafeCell<[u8; N]>,
    /// Bytes of `bytes` handed out (the start of the free part).
    used: AtomicUsize,
}

// SAFETY: the bytes are only reached through `used`, whose atomic updates give every
// allocation a range no other allocation overlaps, whichever thread asks.
unsafe impl<const N: usize> Sync for Arena<N> {}

impl<const N: usize> Arena<N> {
    pub const fn new() -> Self {
        Arena {
            bytes: UnsafeCell::new([0; N]),
            used: AtomicUsize::new(0),
        }
    }

    fn base(&self) -> usize {
        self.bytes.get() as usize
    }

    /// Where `ptr` starts in the block, if it is the block's.
    fn offset(&self, ptr: *mut u8) -> Option<usize> {
        let at = (ptr as usize).checked_sub(self.base())?;
        (at < N).then_some(at)
    }

    /// The block's bytes `start..start+size` for `layout`, past `used`, if they fit.
    fn take(&self, layout: Layout) -> Option<*mut u8> {
        let base = self.base();
        let mut used = self.used.load(Relaxed);
        loop {
            let start = (base + used).checked_next_multiple_of(layout.align())? - base;
            let end = start.checked_add(layout.size()).filter(|&e| e <= N)?;
            match self.used.compare_exchange_weak(used, end, Relaxed, Relaxed) {
                Ok(_) => return Some((base + start) as *mut u8),
                Err(now) => used = now,
            }
        }
    }
}

impl<const N: usize> Default for Arena<N> {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every pointer handed out is aligned for its layout and its bytes are used by no
// other allocation until they are given back; pointers the block does not own go to `System`,
// which made them.
unsafe impl<const N: usize> GlobalAlloc for Arena<N> {
    // Out of line: inlined at every allocation it would add ~0.7 MB of code.
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.take(layout) {
            Some(p) => p,
            // SAFETY: the caller's layout, as given.
            None => told(unsafe { System.alloc(layout) }),
        }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match self.offset(ptr) {
            // The newest allocation's bytes go back; any other's stay taken until the exit.
            Some(start) => {
                let end = start + layout.size();
                let _ = self.used.compare_exchange(end, start, Relaxed, Relaxed);
            }
            // SAFETY: `System` made it, with this layout.
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Some(start) = self.offset(ptr) else {
            // SAFETY: `System` made it, with this layout.
            return told(unsafe { System.realloc(ptr, layout, new_size) });
        };
        // The newest allocation grows or shrinks where it is; any other shrinks in place.
        let end = start + layout.size();
        let grown = start.checked_add(new_size).filter(|&e| e <= N);
        if let Some(new_end) = grown
            && self
                .used
                .compare_exchange(end, new_end, Relaxed, Relaxed)
                .is_ok()
        {
            return ptr;
        }
        if new_size <= layout.size() {
            return ptr;
        }
        // SAFETY: `new_size` with the old alignment is a valid layout (the caller's promise).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: a non-zero size, as the caller's was.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both are valid for the old size, and distinct allocations.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size());
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn allocations_are_aligned_and_apart_and_the_rest_goes_to_the_system() {
        let arena: Box<Arena<4096>> = Box::default();
        let mut got = Vec::new();
        for (size, align) in [(1, 1), (24, 8), (3, 1), (64, 64), (100, 16), (7, 4)] {
            let p = unsafe { arena.alloc(layout(size, align)) };
            assert_eq!(p as usize % align, 0, "aligned to {align}");
            assert!(arena.offset(p).is_some(), "from the block");
            unsafe { std::ptr::write_bytes(p, size as u8, size) };
            got.push((p, size));
        }
        for (p, size) in &got {
            let bytes = unsafe { std::slice::from_raw_parts(*p, *size) };
            assert!(bytes.iter().all(|&b| b == *size as u8), "not overwritten");
        }
        // Past the block: the system's, freed by the system.
        let big = layout(8192, 8);
        let p = unsafe { arena.alloc(big) };
        assert!(!p.is_null() && arena.offset(p).is_none());
        unsafe { arena.dealloc(p, big) };
    }

    #[test]
    fn the_newest_allocation_grows_in_place_and_gives_its_bytes_back() {
        let arena: Box<Arena<4096>> = Box::default();
        let a = unsafe { arena.alloc(layout(16, 8)) };
        let b = unsafe { arena.alloc(layout(16, 8)) };
        unsafe { b.write(7) };
        let b2 = unsafe { arena.realloc(b, layout(16, 8), 256) };
        assert_eq!(b2, b, "the newest grows where it is");
        assert_eq!(unsafe { b2.read() }, 7);
        // An older one moves, with its bytes.
        unsafe { a.write(9) };
        let a2 = unsafe { arena.realloc(a, layout(16, 8), 64) };
        assert_ne!(a2, a);
        assert_eq!(unsafe { a2.read() }, 9);
        // Freed newest first, the bytes come back.
        let used = arena.used.load(Relaxed);
        let c = unsafe { arena.alloc(layout(32, 8)) };
        unsafe { arena.dealloc(c, layout(32, 8)) };
        assert_eq!(arena.used.load(Relaxed), used);
        // Growing past the block moves to the system, bytes and all.
        let d = unsafe { arena.realloc(a2, layout(64, 8), 10_000) };
        assert!(arena.offset(d).is_none());
        assert_eq!(unsafe { d.read() }, 9);
        unsafe { arena.dealloc(d, layout(10_000, 8)) };
    }

    #[test]
    fn threads_never_share_bytes() {
        let arena: &'static Arena<{ 1 << 16 }> = Box::leak(Box::default());
        let threads: Vec<_> = (0..4u8)
            .map(|t| {
                std::thread::spawn(move || {
                    (0..200)
                        .map(|_| {
                            let p = unsafe { arena.alloc(layout(40, 8)) };
                            unsafe { std::ptr::write_bytes(p, t, 40) };
                            p as usize
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<usize> = threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        all.sort();
        assert!(all.windows(2).all(|w| w[1] - w[0] >= 40), "overlapping");
    }
}
