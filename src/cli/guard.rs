//! The hook's last resort. Claude Code runs a call whose hook dies of a signal, times out or
//! exits 1, so a hook that crashes (a stack overflow, an abort, a bug) or runs long must still
//! answer. Before the event is read, [`arm`] prepares the answer to an unchecked call (`ask`, in
//! the agent's shape) and installs handlers that print it and exit 0 on a fatal signal, on its
//! own stack (an overflowed one is unusable), and when [`DEADLINE_SECS`] pass. SIGXFSZ is
//! ignored, so a file-size limit fails a write instead of killing the process.
//!
//! Whichever comes first, the hook's own answer ([`give`]) or a handler's, is the only one
//! printed: both claim [`GIVEN`] first. A handler that finds the answer given just exits 0.

use sentinel::agents::event::Agent;
use sentinel::agents::hook;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

/// Seconds a hook may take before it answers `ask` on its own: under Claude Code's 30-second
/// hook timeout (sentinel registers 30), with Tier 2's default 8 s well inside it.
pub const DEADLINE_SECS: u32 = 20;

/// Set once an answer (or the decision to give none) is on its way out.
static GIVEN: AtomicBool = AtomicBool::new(false);
/// The prepared answers, leaked: a handler reads them without allocating.
static CRASHED: (AtomicPtr<u8>, AtomicUsize) =
    (AtomicPtr::new(std::ptr::null_mut()), AtomicUsize::new(0));
static LATE: (AtomicPtr<u8>, AtomicUsize) =
    (AtomicPtr::new(std::ptr::null_mut()), AtomicUsize::new(0));

const FATAL: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

/// Prepares the answers and installs the handlers and the deadline. In shadow mode the answer
/// is silence: the agent must behave as if sentinel were absent.
pub fn arm(agent: Agent, shadow: bool) {
    prepare(
        &CRASHED,
        shadow,
        hook::unjudged(agent, "sentinel crashed while judging it"),
    );
    prepare(
        &LATE,
        shadow,
        hook::unjudged(
            agent,
            &format!("sentinel took over {DEADLINE_SECS} s to judge it"),
        ),
    );
    // SAFETY: plain libc calls on this process's own signal dispositions and stack, before any
    // thread starts; the stack is leaked, so it lives as long as the process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        const ALT: usize = 64 * 1024;
        let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT].into_boxed_slice());
        let alt = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: ALT,
        };
        libc::sigaltstack(&alt, std::ptr::null_mut());
        for (signals, handler) in [
            (&FATAL[..], on_fatal as extern "C" fn(libc::c_int)),
            (&[libc::SIGALRM][..], on_late as extern "C" fn(libc::c_int)),
        ] {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as usize;
            action.sa_flags = libc::SA_ONSTACK | libc::SA_NODEFER | libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            for &s in signals {
                libc::sigaction(s, &action, std::ptr::null_mut());
            }
        }
        libc::alarm(DEADLINE_SECS);
    }
}

/// Shadow mode was switched on by the configuration, after [`arm`]: nothing is printed.
pub fn silence() {
    for (ptr, len) in [&CRASHED, &LATE] {
        len.store(0, Ordering::SeqCst);
        ptr.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// The hook's own answer: written and flushed unless a handler got there first.
pub fn give(text: &str) {
    use std::io::Write as _;
    if GIVEN.swap(true, Ordering::SeqCst) {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The hook is done deciding: a signal from here on (a crash in the bookkeeping, the deadline)
/// must not print a second answer.
pub fn done() {
    GIVEN.store(true, Ordering::SeqCst);
}

fn prepare(slot: &(AtomicPtr<u8>, AtomicUsize), shadow: bool, text: String) {
    if shadow {
        return;
    }
    let bytes: &'static mut [u8] = Box::leak(text.into_bytes().into_boxed_slice());
    slot.1.store(bytes.len(), Ordering::SeqCst);
    slot.0.store(bytes.as_mut_ptr(), Ordering::SeqCst);
}

/// Async-signal-safe: an atomic swap, write(2) and _exit(2) only.
fn answer_and_exit(slot: &(AtomicPtr<u8>, AtomicUsize)) -> ! {
    if !GIVEN.swap(true, Ordering::SeqCst) {
        let (ptr, len) = (slot.0.load(Ordering::SeqCst), slot.1.load(Ordering::SeqCst));
        if !ptr.is_null() {
            let mut done = 0;
            while done < len {
                // SAFETY: `ptr` and `len` describe a leaked, never-freed buffer.
                let n = unsafe { libc::write(1, ptr.add(done).cast(), len - done) };
                if n <= 0 {
                    break;
                }
                done += n as usize;
            }
        }
    }
    // SAFETY: ends the process without running anything else.
    unsafe { libc::_exit(0) }
}

extern "C" fn on_fatal(_: libc::c_int) {
    answer_and_exit(&CRASHED)
}

extern "C" fn on_late(_: libc::c_int) {
    answer_and_exit(&LATE)
}
