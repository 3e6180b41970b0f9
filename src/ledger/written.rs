//! What a session wrote (SPEC 2.3, issue 29): the files written by calls sentinel let run or
//! left to the agent (edit tools' targets, the write effects of shell commands), kept per
//! session in `SENTINEL_HOME/written/SESSION.txt`, so a later call that runs one of them knows
//! it is the agent's code: it is read before it runs, and never allowed unread.
//!
//! One absolute path a line, appended with one `write` per call (O_APPEND: parallel hooks never
//! interleave a line); read back whole. Paths, not hashes: a call that runs the project's
//! tooling (`make`, `pytest`) reads the session's files the tooling would run, so it needs their
//! names. Bounded: past [`MAX_BYTES`] nothing more is appended and the ledger reads back as
//! *full*, which makes every file run in the session count as the agent's. It ends with the
//! session (SessionEnd) or, untouched, after `taint_max_age_hours`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The most a session's ledger holds (about a thousand paths).
pub const MAX_BYTES: u64 = 64 * 1024;

/// A session's written files, as read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Each path once, in the order first written.
    pub paths: Vec<PathBuf>,
    /// The ledger reached its bound (or could not be read): any file may be the agent's.
    pub full: bool,
}

fn path(home: &Path, session: &str) -> PathBuf {
    crate::ledger::state::session_file(home, "written", session).with_extension("txt")
}

/// Adds `paths` to the session's ledger. Nothing is done for no paths or no session.
pub fn note(home: &Path, session: &str, paths: &[PathBuf]) -> std::io::Result<()> {
    if paths.is_empty() || session.is_empty() {
        return Ok(());
    }
    let p = path(home, session);
    std::fs::create_dir_all(p.parent().unwrap_or(home))?;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&p)?;
    if f.metadata()?.len() >= MAX_BYTES {
        return Ok(());
    }
    let mut line = Vec::new();
    for path in paths {
        let text = path.to_string_lossy();
        // A name with a line break in it cannot be one line: the ledger says full instead.
        let text = if text.contains(['\n', '\r']) {
            "\u{0}full"
        } else {
            &text
        };
        line.extend_from_slice(text.as_bytes());
        line.push(b'\n');
    }
    f.write_all(&line)
}

/// The session's written files; an absent ledger is an empty one, an unreadable one is full.
pub fn read(home: &Path, session: &str) -> Written {
    if session.is_empty() {
        return Written::default();
    }
    let file = match std::fs::File::open(path(home, session)) {
        Ok(f) => f,
        Err(e) if crate::config::is_absent(&e) => return Written::default(),
        Err(_) => {
            return Written {
                paths: Vec::new(),
                full: true,
            };
        }
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
    let _ = std::fs::remove_file(path(home, session));
    crate::ledger::state::end_session(home, "written", session, max_age_ms, now_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_remembers_what_it_wrote_until_it_ends() {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let h = dir.path();
        assert_eq!(read(h, "s"), Written::default());
        note(
            h,
            "s",
            &[PathBuf::from("/p/a.sh"), PathBuf::from("/p/b.py")],
        )
        .unwrap();
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
}
