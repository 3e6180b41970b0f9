//! The session summaries kept at SessionEnd: `SENTINEL_HOME/sessions/KEY.txt`, one line each
//! (KEY: [`crate::ledger::state::session_key`], so two sessions with one id in two projects
//! keep two files). A closing terminal may not show the summary, so it is kept here too.
//!
//! Bounded: each file is one summary line, written whole; past [`MAX_KEPT`] files the oldest
//! go. Nothing is lost by that: the summary is counted from the stats log, which keeps every
//! decision (`sentinel stats --session ID`).

use crate::config::kept;
use std::path::{Path, PathBuf};

/// The folder in SENTINEL_HOME.
pub const DIR: &str = "sessions";
/// The most summaries kept.
pub const MAX_KEPT: usize = 1000;

/// The file of `session`'s summary.
pub fn path(home: &Path, session: &str) -> PathBuf {
    crate::ledger::state::session_file(home, DIR, session).with_extension("txt")
}

/// Keeps `line` as `session`'s summary, and drops the oldest summaries past [`MAX_KEPT`].
pub fn keep(home: &Path, session: &str, line: &str) -> std::io::Result<PathBuf> {
    let file = path(home, session);
    kept::write_whole(&file, format!("{line}\n").as_bytes())?;
    let mut summaries: Vec<kept::Entry> = kept::entries(&home.join(DIR))?
        .into_iter()
        .filter(|e| e.is_file && e.name.to_string_lossy().ends_with(".txt"))
        .collect();
    if summaries.len() > MAX_KEPT {
        summaries.sort_by_key(|e| e.modified);
        let extra = summaries.len() - MAX_KEPT;
        for old in &summaries[..extra] {
            let _ = kept::remove(&home.join(DIR).join(&old.name));
        }
    }
    Ok(file)
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_bounded_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path();
        for i in 0..MAX_KEPT + 5 {
            keep(h, &format!("s{i}"), "sentinel: 1 check").unwrap();
        }
        assert_eq!(std::fs::read_dir(h.join(DIR)).unwrap().count(), MAX_KEPT);
        let victim = h.join("bashrc");
        std::fs::write(&victim, "keep\n").unwrap();
        let p = path(h, "x");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        // The link is replaced by the summary (a rename over it), never written through.
        keep(h, "x", "sentinel: 2 checks").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "sentinel: 2 checks\n");
    }
}
