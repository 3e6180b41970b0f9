//! The hook's last resort. Claude Code runs a call whose hook dies of a signal, times out or
//! exits 1, so a hook that crashes (a stack overflow, an abort, a bug) or runs long must still
//! answer. Before the event is read, [`arm`] prepares the answer to an unchecked call (`ask`, in
//! the agent's shape) and installs handlers that print it and exit 0 on a fatal signal, on its
//! own stack (an overflowed one is unusable), and when [`DEADLINE_SECS`] pass. SIGXFSZ is
//! ignored, so a file-size limit fails a write instead of killing the process.
//!
//! Whichever comes first, the hook's own answer ([`give`]) or a handler's, is the only one
//! printed: both claim [`GIVEN`] first. A handler that finds the answer given just exits 0.
//!
//! The judging itself runs in a child the watchdog waits for (`cli::watchdog`): these handlers
//! guard the process the agent waits on while it reads the event and waits, and the whole hook
//! when no child can be made.

use sentinel::agents::event::Agent;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

/// Seconds a hook may take before it answers `ask` on its own: under Claude Code's 30-second
/// hook timeout (sentinel registers 30), with Tier 2's default 8 s well inside it.
pub const DEADLINE_SECS: u32 = 20;

/// Set once an answer (or the decision to give none) is on its way out.
static GIVEN: AtomicBool = AtomicBool::new(false);
/// The answers a handler prints, chosen in [`arm`] (null: print nothing). They are constants,
/// so that arming costs no rendering and a handler needs no allocation; a test holds each equal
/// to what `hook::unjudged` renders.
static CRASHED: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static CRASHED_LEN: AtomicUsize = AtomicUsize::new(0);
static LATE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static LATE_LEN: AtomicUsize = AtomicUsize::new(0);

/// What the handlers say went wrong, as literals (`concat!` builds the answers from them).
macro_rules! crash_why {
    () => {
        "sentinel crashed while judging it"
    };
}
macro_rules! late_why {
    () => {
        "sentinel took over 20 s to judge it"
    };
}

/// The handlers' own stack: in the zeroed data segment, so its pages cost nothing until a
/// handler runs on them.
#[cfg(unix)]
const ALT: usize = 64 * 1024;
#[cfg(unix)]
struct AltStack(std::cell::UnsafeCell<[u8; ALT]>);
// SAFETY: only the kernel writes it, when a handler runs.
#[cfg(unix)]
unsafe impl Sync for AltStack {}
#[cfg(unix)]
static ALT_STACK: AltStack = AltStack(std::cell::UnsafeCell::new([0; ALT]));

#[cfg(unix)]
const FATAL: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

/// The two answers in `agent`'s shape.
fn answers(agent: Agent) -> (&'static str, &'static str) {
    // The reason, as `hook::unjudged` words it.
    macro_rules! reason {
        ($why:expr) => {
            concat!(
                "sentinel[error]: this call was not checked (",
                $why,
                "); the person decides"
            )
        };
    }
    // One answer a line, in each agent's shape (as `hook::render` writes it).
    macro_rules! shaped {
        (Claude, $why:expr) => {
            concat!(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":""#,
                reason!($why),
                "\"}}\n"
            )
        };
        (Codex, $why:expr) => {
            concat!(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":""#,
                reason!($why),
                " — this needs the user's approval, which a Codex CLI hook cannot ask for: ask the user to run it or to allow it in sentinel's rules\"}}\n"
            )
        };
        (Gemini, $why:expr) => {
            concat!(
                r#"{"decision":"deny","reason":""#,
                reason!($why),
                " — this needs the user's approval, which a Gemini CLI hook cannot ask for: ask the user to run it or to allow it in sentinel's rules\"}\n"
            )
        };
        (Cursor, $why:expr) => {
            concat!(
                r#"{"permission":"ask","user_message":""#,
                reason!($why),
                r#"","agent_message":""#,
                reason!($why),
                r#"","userMessage":""#,
                reason!($why),
                r#"","agentMessage":""#,
                reason!($why),
                "\"}\n"
            )
        };
        (Copilot, $why:expr) => {
            concat!(
                r#"{"permissionDecision":"ask","permissionDecisionReason":""#,
                reason!($why),
                "\"}\n"
            )
        };
    }
    macro_rules! both {
        ($agent:ident) => {
            (shaped!($agent, crash_why!()), shaped!($agent, late_why!()))
        };
    }
    match agent {
        Agent::Claude => both!(Claude),
        Agent::Codex => both!(Codex),
        Agent::Gemini => both!(Gemini),
        Agent::Cursor => both!(Cursor),
        Agent::Copilot => both!(Copilot),
    }
}

/// Chooses the answers and installs the handlers and the deadline. In shadow mode the answer
/// is silence: the agent must behave as if sentinel were absent.
pub fn arm(agent: Agent, shadow: bool) {
    set_answers(agent, shadow);
    #[cfg(unix)]
    install_handlers();
    #[cfg(windows)]
    windows_guard::install();
}

fn set_answers(agent: Agent, shadow: bool) {
    if !shadow {
        let (crashed, late) = answers(agent);
        CRASHED_LEN.store(crashed.len(), Ordering::SeqCst);
        CRASHED.store(crashed.as_ptr().cast_mut(), Ordering::SeqCst);
        LATE_LEN.store(late.len(), Ordering::SeqCst);
        LATE.store(late.as_ptr().cast_mut(), Ordering::SeqCst);
    }
}

#[cfg(unix)]
fn install_handlers() {
    // SAFETY: plain libc calls on this process's own signal dispositions and stack, before any
    // thread starts; the stack is a static, so it lives as long as the process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let alt = libc::stack_t {
            ss_sp: ALT_STACK.0.get().cast(),
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

/// The deadline's alarm moved to `secs` from now: the watchdog keeps the deadline itself, and
/// this alarm stays behind it as a backstop (so that the two never race for the answer).
#[cfg(unix)]
pub fn postpone(secs: u32) {
    // SAFETY: re-arms this process's own alarm.
    unsafe {
        libc::alarm(secs);
    }
}

/// Back to the default for every signal [`arm`] handles, and no alarm: for the watchdog's
/// children (`cli::watchdog`), whose death by a signal the parent reports.
#[cfg(unix)]
pub fn disarm() {
    // SAFETY: plain libc calls on this process's own signal dispositions, one thread.
    unsafe {
        libc::alarm(0);
        for &s in FATAL.iter().chain(&[libc::SIGALRM]) {
            libc::signal(s, libc::SIG_DFL);
        }
    }
}

/// Shadow mode was switched on by the configuration, after [`arm`]: nothing is printed.
pub fn silence() {
    for ptr in [&CRASHED, &LATE] {
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

/// Async-signal-safe: an atomic swap, write(2) and _exit(2) only.
fn answer_and_exit(slot: &AtomicPtr<u8>, slot_len: &AtomicUsize) -> ! {
    if !GIVEN.swap(true, Ordering::SeqCst) {
        let (ptr, len) = (slot.load(Ordering::SeqCst), slot_len.load(Ordering::SeqCst));
        if !ptr.is_null() {
            let mut done = 0;
            while done < len {
                // SAFETY: `ptr` and `len` describe a static string.
                let n = unsafe { libc::write(1, ptr.add(done).cast(), (len - done) as _) };
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

#[cfg_attr(windows, allow(dead_code))]
extern "C" fn on_fatal(_: libc::c_int) {
    answer_and_exit(&CRASHED, &CRASHED_LEN)
}

extern "C" fn on_late(_: libc::c_int) {
    answer_and_exit(&LATE, &LATE_LEN)
}

/// Windows has no signals: the deadline is a thread that answers when it passes, and a panic
/// answers as a crash does (a fault that kills the process outright answers nothing: see
/// docs/windows.md).
#[cfg(windows)]
mod windows_guard {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    /// When the deadline passes, in ms since the epoch.
    static DEADLINE_MS: AtomicU64 = AtomicU64::new(u64::MAX);

    fn now_ms() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }

    fn postpone(secs: u32) {
        DEADLINE_MS.store(now_ms() + u64::from(secs) * 1000, Ordering::SeqCst);
    }

    pub fn install() {
        postpone(super::DEADLINE_SECS);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            super::on_fatal(0);
        }));
        // A thread that fails to start leaves no deadline: the hook still answers, only later.
        let _ = std::thread::Builder::new()
            .name("deadline".into())
            .spawn(|| {
                loop {
                    let (at, now) = (DEADLINE_MS.load(Ordering::SeqCst), now_ms());
                    if now >= at {
                        super::on_late(0);
                    }
                    std::thread::sleep(Duration::from_millis((at - now).min(1000)));
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sentinel::agents::hook;

    #[test]
    fn the_handlers_answers_are_what_the_hook_renders() {
        assert_eq!(
            late_why!(),
            format!("sentinel took over {DEADLINE_SECS} s to judge it")
        );
        for agent in Agent::ALL {
            let (crashed, late) = answers(agent);
            assert_eq!(crashed, hook::unjudged(agent, crash_why!()), "{agent:?}");
            assert_eq!(late, hook::unjudged(agent, late_why!()), "{agent:?}");
        }
    }
}
