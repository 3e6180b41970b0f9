//! What a session wrote (SPEC 2.3, issue 29): the files written by calls sentinel let run or
//! left to the agent (edit tools' targets, the write effects of shell commands), kept per
//! session in `SENTINEL_HOME/written/SESSION.txt`, so a later call that runs one of them knows
//! it is the agent's code: it is read before it runs, and never allowed unread.
//!
//! One absolute path a line, appended with one `write` per call (O_APPEND: parallel hooks never
//! interleave a line); read back whole. Paths, not hashes: a call that runs the project's
//! tooling (`make`, `pytest`) reads the session's files the tooling would run, so it needs their
//! names. Opened as every file sentinel keeps is ([`crate::config::kept`]): never through a link.
//!
//! Bounded, and never at the cost of a file counting as the person's:
//! - per call, at most [`MAX_PATHS_PER_CALL`] paths of at most [`MAX_PATH_BYTES`] bytes each
//!   are recorded (a glob that expands to a million names cannot append megabytes); a call with
//!   more, or a name with a line break, records the *full* mark instead of the rest;
//! - in total, past [`MAX_BYTES`] only the full mark is appended, and the ledger reads back as
//!   *full*, which makes every file run in the session count as the agent's;
//! - a write that fails leaves `SESSION.lost` beside the ledger, which reads back as full too;
//!   when even that cannot be written, [`note`] says so and the caller does not let the call
//!   run unseen.
//!
//! It ends with the session (SessionEnd) or, untouched, after `taint_max_age_hours`.

use crate::config::kept::{self, Access};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The most a session's ledger holds (about a thousand paths).
pub const MAX_BYTES: u64 = 64 * 1024;
/// The most paths one call records; past it, the full mark.
pub const MAX_PATHS_PER_CALL: usize = 256;
/// The longest path recorded (Linux's `PATH_MAX`); a longer one is the full mark.
pub const MAX_PATH_BYTES: usize = 4096;
/// The line that marks a ledger full.
const FULL: &str = "\u{0}full";

/// A session's written files, as read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Each path once, in the order first written.
    pub paths: Vec<PathBuf>,
    /// The ledger reached its bound (or could not be read or written): any file may be the
    /// agent's.
    pub full: bool,
}

fn path(home: &Path, session: &str) -> PathBuf {
    crate::ledger::state::session_file(home, "written", session).with_extension("txt")
}

fn lost_path(home: &Path, session: &str) -> PathBuf {
    crate::ledger::state::session_file(home, "written", session).with_extension("lost")
}

/// What [`note`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Noted {
    /// Every path is in the ledger.
    Recorded,
    /// Over a bound: the ledger now reads as full.
    Full,
    /// The append failed (why); the ledger reads as full by its `.lost` mark.
    Lost(String),
}

/// Adds `paths` to the session's ledger. Nothing is done for no paths or no session. An error
/// means the paths are not recorded and the ledger could not be marked full either: the caller
/// must not let the call run unseen.
pub fn note(home: &Path, session: &str, paths: &[PathBuf]) -> std::io::Result<Noted> {
    if paths.is_empty() || session.is_empty() {
        return Ok(Noted::Recorded);
    }
    match append(home, session, paths) {
        Ok(noted) => Ok(noted),
        Err(e) => match kept::open(&lost_path(home, session), Access::Append) {
            Ok(_) => Ok(Noted::Lost(e.to_string())),
            Err(_) => Err(e),
        },
    }
}

fn append(home: &Path, session: &str, paths: &[PathBuf]) -> std::io::Result<Noted> {
    let (mut f, len) = kept::open_with_len(&path(home, session), Access::Append)?;
    if len >= MAX_BYTES {
        // It reads as full already; nothing more is appended.
        return Ok(Noted::Full);
    }
    let mut line = Vec::new();
    let mut full = paths.len() > MAX_PATHS_PER_CALL;
    for path in paths.iter().take(MAX_PATHS_PER_CALL) {
        let text = path.to_string_lossy();
        // A name with a line break in it cannot be one line, nor one past the bound.
        if text.contains(['\n', '\r']) || text.len() > MAX_PATH_BYTES {
            full = true;
            continue;
        }
        line.extend_from_slice(text.as_bytes());
        line.push(b'\n');
    }
    if len.saturating_add(line.len() as u64) > MAX_BYTES {
        full = true;
        line.clear();
    }
    if full {
        line.extend_from_slice(FULL.as_bytes());
        line.push(b'\n');
    }
    f.write_all(&line)?;
    Ok(if full { Noted::Full } else { Noted::Recorded })
}

/// The session's written files; an absent ledger is an empty one, an unreadable one, or one a
/// failed write marked lost, is full.
pub fn read(home: &Path, session: &str) -> Written {
    if session.is_empty() {
        return Written::default();
    }
    let full = || Written {
        paths: Vec::new(),
        full: true,
    };
    match kept::open(&lost_path(home, session), Access::Read) {
        Err(e) if crate::config::is_absent(&e) => {}
        _ => return full(),
    }
    let file = match kept::open(&path(home, session), Access::Read) {
        Ok(f) => f,
        Err(e) if crate::config::is_absent(&e) => return Written::default(),
        Err(_) => return full(),
    };
    let mut text = String::new();
    let ok = file
        .take(MAX_BYTES + 4096)
        .read_to_string(&mut text)
        .is_ok();
    let mut out = Written {
        paths: Vec::new(),
        full: !ok || text.len() as u64 >= MAX_BYTES,
    };
    for line in text.lines() {
        if line.starts_with('\u{0}') {
            out.full = true;
            continue;
        }
        let p = PathBuf::from(line);
        if p.is_absolute() && !out.paths.contains(&p) {
            out.paths.push(p);
        }
    }
    out
}

/// Ends a session's ledger, and removes every other one untouched for `max_age_ms`.
pub fn clear(home: &Path, session: &str, max_age_ms: u64, now_ms: u64) {
    let _ = kept::remove(&path(home, session));
    let _ = kept::remove(&lost_path(home, session));
    crate::ledger::state::end_session(home, "written", session, max_age_ms, now_ms);
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_session_remembers_what_it_wrote_until_it_ends() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let h = dir.path();
        assert_eq!(read(h, "s"), Written::default());
        let noted = note(
            h,
            "s",
            &[PathBuf::from("/p/a.sh"), PathBuf::from("/p/b.py")],
        )
        .unwrap();
        assert_eq!(noted, Noted::Recorded);
        note(h, "s", &[PathBuf::from("/p/a.sh")]).unwrap();
        note(h, "t", &[PathBuf::from("/p/c.sh")]).unwrap();
        let w = read(h, "s");
        assert_eq!(
            w.paths,
            [PathBuf::from("/p/a.sh"), PathBuf::from("/p/b.py")]
        );
        assert!(!w.full);
        clear(h, "s", u64::MAX / 2, 0);
        assert_eq!(read(h, "s"), Written::default());
        assert_eq!(
            read(h, "t").paths.len(),
            1,
            "another session's ledger stays"
        );
        clear(h, "x", 0, u64::MAX / 2);
        assert_eq!(read(h, "t"), Written::default(), "a stale ledger is pruned");
    }

    #[test]
    fn a_full_ledger_says_so() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let h = dir.path();
        let long = PathBuf::from(format!("/p/{}", "x".repeat(1000)));
        for _ in 0..70 {
            note(h, "s", std::slice::from_ref(&long)).unwrap();
        }
        let w = read(h, "s");
        assert!(w.full);
        assert!(std::fs::metadata(path(h, "s")).unwrap().len() < MAX_BYTES + 2048);
        note(h, "n", &[PathBuf::from("/p/a\nb")]).unwrap();
        assert!(
            read(h, "n").full,
            "a name with a line break is not lost quietly"
        );
    }

    #[test]
    fn one_call_records_a_bounded_amount() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let h = dir.path();
        let many: Vec<PathBuf> = (0..100_000)
            .map(|i| PathBuf::from(format!("/p/{i:0>200}")))
            .collect();
        assert_eq!(note(h, "s", &many).unwrap(), Noted::Full);
        assert!(std::fs::metadata(path(h, "s")).unwrap().len() <= MAX_BYTES + 16);
        assert!(read(h, "s").full);
        // Once full, nothing more is appended.
        let before = std::fs::metadata(path(h, "s")).unwrap().len();
        for _ in 0..100 {
            note(h, "s", &many[..10]).unwrap();
        }
        let after = std::fs::metadata(path(h, "s")).unwrap().len();
        assert!(after <= MAX_BYTES + 16, "{before} -> {after}");
        let huge = PathBuf::from(format!("/p/{}", "y".repeat(MAX_PATH_BYTES)));
        assert_eq!(note(h, "t", &[huge]).unwrap(), Noted::Full);
        assert!(std::fs::metadata(path(h, "t")).unwrap().len() < 16);
    }

    #[test]
    fn a_ledger_that_cannot_be_written_is_never_empty() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let h = dir.path();
        crate::config::kept::claim_home(h);
        // A folder in the ledger's place: the append fails, the lost mark says so.
        std::fs::create_dir_all(path(h, "s")).unwrap();
        assert!(matches!(
            note(h, "s", &[PathBuf::from("/p/a.sh")]).unwrap(),
            Noted::Lost(_)
        ));
        assert!(read(h, "s").full);
        clear(h, "s", u64::MAX / 2, 0);
        // The folder is a link: neither can be written, and the caller is told.
        let elsewhere = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        std::fs::remove_dir_all(h.join("written")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), h.join("written")).unwrap();
        let e = note(h, "s", &[PathBuf::from("/p/a.sh")]).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(read(h, "s").full);
        assert!(
            std::fs::read_dir(elsewhere.path())
                .unwrap()
                .next()
                .is_none()
        );
    }
}
