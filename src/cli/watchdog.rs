//! The hook's answer never waits on the machine. A read from a hung NFS or FUSE mount sleeps
//! uninterruptibly: no signal reaches the process, so a deadline alarm cannot end it, and
//! Claude Code runs the call when its hook times out. So the judging runs in a process of its
//! own: after the event is read, the hook forks; the child loads the configuration and rules,
//! judges, keeps the books and sends what it has to say to the parent over a pipe; the parent
//! relays it and waits with a deadline. When the deadline passes, or the child dies (a crash,
//! its memory bound, the kernel's OOM killer), the parent answers on its own (`ask`, in the
//! agent's shape; nothing for an event that is not a call about to run) and exits 0.
//!
//! - The child holds none of the agent's pipes (its stdin, stdout and stderr are /dev/null),
//!   so a child stuck for good keeps no one waiting: the agent sees its hook exit.
//! - The parent never touches a file after the fork: a call answered on its own is recorded by
//!   a detached process of its own ([`record`]), which may stall where the child did, unseen.
//!   The stalled child, if it ever comes back, finds the pipe closed and records nothing, so the
//!   call is counted once.
//! - The child's address space is bounded ([`MEMORY_BOUND`]): a run-away allocation ends the
//!   child, not the machine; the allocator tells the parent first, which answers `ask`.
//! - A thread would not do: a process with a thread in uninterruptible sleep cannot exit, and
//!   the agent waits for its exit. A fork early in a small process costs ~0.1 ms
//!   (docs/performance.md).

// Windows has no fork: the hook judges in its own process there (docs/windows.md), and
// only the event's reading and the deadline here are used.
#![cfg_attr(not(unix), allow(dead_code, unused_imports))]

use super::guard;
use sentinel::agents::event::{Agent, EventKind};
use sentinel::agents::hook;
use sentinel::agents::lenient::{self, Looks};
use std::io::Read;
use std::time::{Duration, Instant};

/// The longest a hook takes before it answers on its own: under Claude Code's 30-second hook
/// timeout (sentinel registers 30), with Tier 2's default 8 s well inside it.
pub const DEADLINE: Duration = Duration::from_secs(guard::DEADLINE_SECS as u64);
/// A SessionEnd's deadline: Claude Code gives SessionEnd hooks 1.5 s.
pub const SESSION_END_DEADLINE: Duration = Duration::from_millis(1200);
/// The environment variable that shortens [`DEADLINE`] (milliseconds; never lengthens it).
pub const DEADLINE_VAR: &str = "SENTINEL_HOOK_DEADLINE_MS";
/// The judging process's address space, binary and all (the hook needs ~22 MiB of it).
pub const MEMORY_BOUND: u64 = 64 << 20;
/// The environment variable that lowers [`MEMORY_BOUND`] (MiB; never raises it).
pub const MEMORY_VAR: &str = "SENTINEL_HOOK_MEMORY_MIB";
/// The largest event read from stdin, whatever `max_event_bytes` says (its own bound).
pub const MAX_EVENT_BYTES: u64 = sentinel::config::MAX_EVENT_BYTES_BOUND;
/// How long a detached recorder may wait (a lock held elsewhere) before it gives up.
const RECORDER_SECS: u32 = 10;

/// The messages on the pipe: a tag byte, a little-endian u32 length, the payload.
mod tag {
    /// The event's kind (one byte: [`super::kind_code`]).
    pub const KIND: u8 = b'K';
    /// Shadow mode: print nothing.
    pub const SILENCE: u8 = b'S';
    /// The answer, to print at once.
    pub const ANSWER: u8 = b'A';
    /// The end: exit status, stdout length, stdout, stderr.
    pub const END: u8 = b'E';
    /// A system allocation failed (written by the allocator, `cli::arena`).
    pub const MEMORY: u8 = b'M';
}

/// [`tag::MEMORY`] as a whole message, for the allocator to write as it is.
pub const OUT_OF_MEMORY_MESSAGE: [u8; 5] = [tag::MEMORY, 0, 0, 0, 0];

/// The deadline: [`DEADLINE`], or shorter when [`DEADLINE_VAR`] says so (at least 100 ms).
/// A project cannot make it longer than the agent's own timeout, which would let calls run.
pub fn deadline() -> Duration {
    std::env::var(DEADLINE_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|ms| Duration::from_millis(ms.max(100)).min(DEADLINE))
        .unwrap_or(DEADLINE)
}

/// Whether the process runs under valgrind (its preload is in LD_PRELOAD): valgrind keeps its
/// own memory in the process's address space, so the bound is left off there (the benchmark's
/// instruction counts run the hook under callgrind). Whoever sets LD_PRELOAD for the hook runs
/// code in it anyway.
fn under_valgrind() -> bool {
    std::env::var_os("LD_PRELOAD").is_some_and(|p| {
        p.as_encoded_bytes()
            .windows(b"vgpreload".len())
            .any(|w| w == b"vgpreload")
    })
}

/// [`MEMORY_BOUND`], or lower when [`MEMORY_VAR`] says so.
fn memory_bound() -> u64 {
    std::env::var(MEMORY_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|mib| (mib.max(1) << 20).min(MEMORY_BOUND))
        .unwrap_or(MEMORY_BOUND)
}

/// The event as the parent read it from stdin, replayed to the judging code as its stdin.
pub struct Event {
    bytes: Vec<u8>,
    at: usize,
    error: Option<std::io::Error>,
}

impl Event {
    /// Reads stdin to its end, at most [`MAX_EVENT_BYTES`] + 1 bytes; a read error is kept
    /// and replayed after the bytes read before it.
    pub fn read() -> Event {
        let mut bytes = Vec::new();
        let error = std::io::stdin()
            .lock()
            .take(MAX_EVENT_BYTES + 1)
            .read_to_end(&mut bytes)
            .err();
        Event {
            bytes,
            at: 0,
            error,
        }
    }
}

impl Read for Event {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.bytes[self.at..];
        if rest.is_empty() {
            return match self.error.take() {
                Some(e) => Err(e),
                None => Ok(0),
            };
        }
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// The two ends after [`fork`].
#[cfg(unix)]
pub enum Side {
    /// The judging child, with the pipe's writing end.
    Judge(Channel),
    /// The parent, with the child's id and the pipe's reading end.
    Watch(libc::pid_t, std::os::fd::OwnedFd),
}

/// Forks the judging child; Err when the system cannot (the caller judges in-process then).
#[cfg(unix)]
pub fn fork() -> std::io::Result<Side> {
    // Both ends close on exec (std makes them so on every system).
    let (read, write) = std::io::pipe()?;
    let (read, write) = (
        std::os::fd::OwnedFd::from(read),
        std::os::fd::OwnedFd::from(write),
    );
    // SAFETY: the process has one thread; the child only runs the judging code.
    match unsafe { libc::fork() } {
        -1 => Err(std::io::Error::last_os_error()),
        0 => {
            drop(read);
            Ok(Side::Judge(Channel(write)))
        }
        pid => {
            drop(write);
            Ok(Side::Watch(pid, read))
        }
    }
}

/// The child's end of the pipe.
#[cfg(unix)]
pub struct Channel(std::os::fd::OwnedFd);

#[cfg(unix)]
impl Channel {
    /// Makes this process the judging child: its stdio off the agent's pipes, its fatal
    /// signals deadly again (the parent reports them), its address space bounded, an alarm
    /// that ends it if it is still stuck a little after the parent answered, and the
    /// allocator's failures reported on the pipe.
    pub fn become_judge(&self, deadline: Duration) {
        use std::os::fd::AsRawFd;
        guard::disarm();
        // SAFETY: plain libc calls on this process's own descriptors and limits.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
            if null >= 0 {
                for fd in 0..3 {
                    libc::dup2(null, fd);
                }
                if null > 2 {
                    libc::close(null);
                }
            }
            let bound = memory_bound();
            let mut limit: libc::rlimit = std::mem::zeroed();
            if !under_valgrind()
                && libc::getrlimit(libc::RLIMIT_AS, &mut limit) == 0
                && limit.rlim_cur > bound
            {
                limit.rlim_cur = bound;
                libc::setrlimit(libc::RLIMIT_AS, &limit);
            }
            libc::alarm(deadline.as_secs() as u32 + 2);
        }
        super::arena::report_out_of_memory_to(self.0.as_raw_fd());
    }

    /// Sends one message; false when the parent is gone (it answered on its own).
    fn send(&self, tag: u8, parts: &[&[u8]]) -> bool {
        use std::os::fd::AsRawFd;
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let mut frame = Vec::with_capacity(5 + len);
        frame.push(tag);
        frame.extend_from_slice(&(len as u32).to_le_bytes());
        for p in parts {
            frame.extend_from_slice(p);
        }
        write_all(self.0.as_raw_fd(), &frame)
    }

    /// The answer. When the parent is gone it has answered and recorded the call already:
    /// this process ends here, without keeping the books a second time.
    pub fn answer(&self, text: &str) {
        if !self.send(tag::ANSWER, &[text.as_bytes()]) {
            // SAFETY: ends this process without running anything else.
            unsafe { libc::_exit(0) }
        }
    }

    pub fn silence(&self) {
        self.send(tag::SILENCE, &[]);
    }

    /// The event's kind, when it changes what the parent does: a SessionEnd gets a shorter
    /// deadline and no answer. Not sent for a call (a message wakes the parent: it costs).
    pub fn kind(&self, kind: &EventKind) {
        if *kind != EventKind::PreToolUse {
            self.send(tag::KIND, &[&[kind_code(kind)]]);
        }
    }

    /// The last message, then the end of this process.
    pub fn end(&self, exit: u8, stdout: &str, stderr: &str) -> ! {
        self.send(
            tag::END,
            &[
                &[exit],
                &(stdout.len() as u32).to_le_bytes(),
                stdout.as_bytes(),
                stderr.as_bytes(),
            ],
        );
        // SAFETY: ends this process without running anything else (stdio is /dev/null).
        unsafe { libc::_exit(0) }
    }
}

#[cfg(unix)]
fn kind_code(kind: &EventKind) -> u8 {
    match kind {
        EventKind::PreToolUse => 0,
        EventKind::PostToolUse => 1,
        EventKind::SessionEnd => 2,
        EventKind::Ignored(_) => 3,
    }
}

#[cfg(unix)]
fn write_all(fd: libc::c_int, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        bytes = &bytes[n as usize..];
    }
    true
}

/// What the parent heard from the child.
#[cfg(unix)]
#[derive(Default)]
struct Heard {
    buf: Vec<u8>,
    kind: Option<u8>,
    silenced: bool,
    answered: bool,
    out_of_memory: bool,
    /// The end: exit status, stdout, stderr.
    end: Option<(u8, String, String)>,
}

#[cfg(unix)]
impl Heard {
    /// Takes the complete messages from the buffer; an answer is printed at once.
    fn take_messages(&mut self) {
        let mut at = 0;
        while self.buf.len() - at >= 5 && self.end.is_none() {
            let len = u32::from_le_bytes(self.buf[at + 1..at + 5].try_into().unwrap()) as usize;
            if self.buf.len() - at - 5 < len {
                break;
            }
            let body = &self.buf[at + 5..at + 5 + len];
            match self.buf[at] {
                tag::KIND => self.kind = body.first().copied(),
                tag::SILENCE => {
                    self.silenced = true;
                    guard::silence();
                }
                tag::ANSWER if !self.answered => {
                    self.answered = true;
                    guard::give(&String::from_utf8_lossy(body));
                }
                tag::MEMORY => self.out_of_memory = true,
                tag::END if body.len() >= 5 => {
                    let out_len = u32::from_le_bytes(body[1..5].try_into().unwrap()) as usize;
                    let out_end = (5 + out_len).min(body.len());
                    self.end = Some((
                        body[0],
                        String::from_utf8_lossy(&body[5..out_end]).into_owned(),
                        String::from_utf8_lossy(&body[out_end..]).into_owned(),
                    ));
                }
                _ => {}
            }
            at += 5 + len;
        }
        self.buf.drain(..at);
    }
}

/// What the parent prints and exits with.
#[cfg(unix)]
pub struct Relayed {
    pub stdout: String,
    pub stderr: String,
    pub exit: u8,
}

/// The parent's side: relays what the child says until its end, or answers on its own when
/// `deadline` (from `started`) passes or the child dies first.
#[cfg(unix)]
pub fn watch(
    agent: Agent,
    shadow: bool,
    event: &Event,
    child: libc::pid_t,
    pipe: std::os::fd::OwnedFd,
    started: Instant,
    deadline: Duration,
) -> Relayed {
    use std::os::fd::AsRawFd;
    let fd = pipe.as_raw_fd();
    let mut heard = Heard {
        silenced: shadow,
        ..Heard::default()
    };
    let mut limit = deadline;
    let mut chunk = [0u8; 16 * 1024];
    let ended_early = loop {
        heard.take_messages();
        if let Some((exit, stdout, stderr)) = heard.end.take() {
            return Relayed {
                stdout,
                stderr,
                exit,
            };
        }
        if heard.kind == Some(kind_code(&EventKind::SessionEnd)) {
            limit = limit.min(SESSION_END_DEADLINE);
        }
        let left = limit.saturating_sub(started.elapsed());
        if left.is_zero() {
            break false;
        }
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: one pollfd, alive for the call.
        if unsafe { libc::poll(&mut poll, 1, ms) } <= 0 {
            continue;
        }
        // SAFETY: reads into a live buffer.
        let n = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
        match n {
            0 => break true,
            n if n > 0 => heard.buf.extend_from_slice(&chunk[..n as usize]),
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => break true,
        }
    };
    // Closed now: a child that comes back finds no reader and records nothing (`answer`).
    drop(pipe);
    let why = if ended_early {
        died(child, started + limit, heard.out_of_memory)
    } else {
        format!("sentinel took over {} to judge it", seconds(limit))
    };
    let mut out = Relayed {
        stdout: String::new(),
        stderr: format!("{why}\n"),
        exit: 0,
    };
    if heard.answered {
        // The answer stands; the books were the child's to keep.
        return out;
    }
    let looks = match heard.kind {
        Some(0) => Looks::PreToolUse,
        Some(_) => Looks::Other,
        None => lenient::sniff(&String::from_utf8_lossy(&event.bytes)).looks,
    };
    if looks == Looks::PreToolUse && !heard.silenced {
        out.stdout = hook::unjudged(agent, &why);
    }
    record(agent, shadow, &event.bytes, &why);
    out
}

/// Why the child ended without its last message, from its exit status (waited for until
/// `until`; a child that cannot be reaped by then is still stuck in its exit).
#[cfg(unix)]
fn died(child: libc::pid_t, until: Instant, out_of_memory: bool) -> String {
    let mut status = 0;
    let reaped = loop {
        // SAFETY: waits for our own child, without blocking.
        let r = unsafe { libc::waitpid(child, &mut status, libc::WNOHANG) };
        if r == child {
            break true;
        }
        if r < 0 || Instant::now() >= until {
            break false;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    if out_of_memory {
        return format!(
            "sentinel ran out of its memory bound ({} MiB) while judging it",
            memory_bound() >> 20
        );
    }
    if !reaped {
        return "sentinel stopped answering while judging it".into();
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        return match signal {
            // The kernel's OOM killer, or someone's kill: either way not an answer.
            libc::SIGKILL => "sentinel was killed (SIGKILL) while judging it".into(),
            libc::SIGALRM => "sentinel took too long to judge it".into(),
            _ => format!("sentinel crashed while judging it (signal {signal})"),
        };
    }
    format!(
        "sentinel stopped without an answer (exit {})",
        libc::WEXITSTATUS(status)
    )
}

fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// Records the call answered without the child, in a detached process: the files it writes
/// may be where the child stalled, and the answer must not wait on them. It ends itself after
/// [`RECORDER_SECS`] if a lock keeps it waiting.
#[cfg(unix)]
fn record(agent: Agent, shadow: bool, raw: &[u8], why: &str) {
    // SAFETY: the process has one thread; the child only records and exits.
    if unsafe { libc::fork() } != 0 {
        return;
    }
    guard::disarm();
    // SAFETY: plain libc calls on this process's own descriptors; _exit ends it.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
        }
        libc::alarm(RECORDER_SECS);
    }
    hook::record_unjudged(agent, shadow, raw, why);
    // SAFETY: ends the recorder without running anything else.
    unsafe { libc::_exit(0) }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn messages_are_taken_whole_and_in_order() {
        let mut heard = Heard::default();
        let frame = |tag: u8, body: &[u8]| {
            let mut f = vec![tag];
            f.extend_from_slice(&(body.len() as u32).to_le_bytes());
            f.extend_from_slice(body);
            f
        };
        let mut all = frame(tag::KIND, &[2]);
        all.extend(OUT_OF_MEMORY_MESSAGE);
        let mut end = vec![3u8];
        end.extend_from_slice(&2u32.to_le_bytes());
        end.extend_from_slice(b"okwarn");
        all.extend(frame(tag::END, &end));
        // Byte by byte: nothing is taken before it is whole.
        for b in &all[..all.len() - 1] {
            heard.buf.push(*b);
            heard.take_messages();
            assert!(heard.end.is_none());
        }
        heard.buf.push(all[all.len() - 1]);
        heard.take_messages();
        assert_eq!(heard.kind, Some(2));
        assert!(heard.out_of_memory);
        assert_eq!(heard.end, Some((3, "ok".into(), "warn".into())));
    }

    #[test]
    fn deadlines_are_told_in_seconds() {
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(DEADLINE), "20 s");
    }
}
