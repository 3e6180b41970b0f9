//! Where a fenced run's new protected places go (`SENTINEL_HOME/quarantine/<ms>/…`, one folder
//! a run): moved there, so that nothing they hold runs later outside the fence.
//!
//! Moved into the home as every file sentinel keeps is written ([`crate::config::kept`]): no
//! link below the home is followed, so a `quarantine` planted as a link to the project or the
//! home cannot make the move put a `.git` or an `.envrc` where it runs. Bounded: past
//! [`MAX_RUNS`] runs' folders the oldest are removed, and each removal is noted in
//! `quarantine/removed.log` (its last [`MAX_LOG_LINES`] lines).

use crate::config::kept;
use std::path::Path;

/// The most runs' folders kept.
pub const MAX_RUNS: usize = 64;
/// The most lines `removed.log` keeps.
pub const MAX_LOG_LINES: usize = 256;
/// The log of removed folders, in the quarantine folder.
pub const LOG: &str = "removed.log";

/// Moves `place` to `to` (in a run's quarantine folder, which is made when missing).
pub fn move_into(place: &Path, to: &Path) -> std::io::Result<()> {
    kept::rename(place, to)
}

/// Removes the oldest runs' folders of `dir` past [`MAX_RUNS`], noting each in [`LOG`].
pub fn bound(dir: &Path, now_ms: u64) -> std::io::Result<()> {
    let mut runs: Vec<(u64, std::ffi::OsString)> = kept::entries(dir)?
        .into_iter()
        .filter(|e| !e.is_file)
        .filter_map(|e| Some((e.name.to_str()?.parse().ok()?, e.name)))
        .collect();
    if runs.len() <= MAX_RUNS {
        return Ok(());
    }
    runs.sort();
    let extra = runs.len() - MAX_RUNS;
    let mut noted = Vec::new();
    for (_, name) in &runs[..extra] {
        let removed = kept::remove_tree(&dir.join(name));
        noted.push(format!(
            "{} {}: {}",
            crate::clock::utc(now_ms),
            name.to_string_lossy(),
            match removed {
                Ok(()) => "removed (over the bound of runs kept)".to_string(),
                Err(e) => format!("could not be removed ({e})"),
            }
        ));
    }
    let log = dir.join(LOG);
    let old = kept::read(&log, 1 << 20).unwrap_or_default();
    let old = String::from_utf8_lossy(&old);
    let mut lines: Vec<&str> = old.lines().collect();
    lines.extend(noted.iter().map(String::as_str));
    let start = lines.len().saturating_sub(MAX_LOG_LINES);
    kept::write_whole(&log, (lines[start..].join("\n") + "\n").as_bytes())
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_runs_go_and_are_noted() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("quarantine");
        for i in 0..MAX_RUNS + 3 {
            std::fs::create_dir_all(q.join(format!("{}/sub/.git", 1000 + i))).unwrap();
        }
        bound(&q, 5).unwrap();
        let left = std::fs::read_dir(&q).unwrap().count();
        assert_eq!(left, MAX_RUNS + 1, "the runs kept and the log");
        assert!(!q.join("1000").exists() && q.join(format!("{}", 1003)).exists());
        let log = std::fs::read_to_string(q.join(LOG)).unwrap();
        assert_eq!(log.lines().count(), 3, "{log}");
        // A quarantine folder that is a link is not pruned through.
        let elsewhere = dir.path().join("elsewhere");
        for i in 0..MAX_RUNS + 1 {
            std::fs::create_dir_all(elsewhere.join(format!("{i}"))).unwrap();
        }
        let linked = dir.path().join("linked");
        std::fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(&elsewhere, linked.join("quarantine")).unwrap();
        assert!(bound(&linked.join("quarantine"), 5).is_err());
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), MAX_RUNS + 1);
    }
}
