//! Projects a fenced run left unverified: after a run, `sentinel contain` looks through the
//! project for places that would run code later (a new `.git`, `.envrc`, `.pth` in any folder).
//! That look is bounded ([`crate::contain::plan::MAX_WALK_DIRS`] folders); a run that makes more
//! folders than that could hide a nested repository past the bound. Rather than trust what it
//! did not see, sentinel records the project here, one small file a project
//! (`SENTINEL_HOME/unverified/<sha256 of the path>`, 0600, written whole by a rename):
//!
//! - Tier 1 allows no `git` or `direnv` call in that project (they run a nested repository's
//!   `core.fsmonitor` or a `.envrc`): the person decides;
//! - `sentinel doctor` lists it;
//! - the next fenced run in the project looks for what changed since the unverified run started
//!   (not only since its own start), and when that look is complete the record goes. The person
//!   clears it that way (`sentinel contain --project DIR -- true`), or, knowing what is there,
//!   by deleting the file.

use std::path::{Path, PathBuf};

/// The folder of the records in SENTINEL_HOME.
pub const DIR: &str = "unverified";

/// The record of `project` (a canonical path).
pub fn record_path(sentinel_home: &Path, project: &Path) -> PathBuf {
    let digest =
        crate::digest::sha256_hex(&crate::platform::path_bytes::bytes(project.as_os_str()));
    sentinel_home.join(DIR).join(&digest[..32])
}

/// Records `project` as unverified since `since` (seconds, nanoseconds): the start of the run
/// whose look was not complete. An older record keeps its earlier time.
pub fn record(sentinel_home: &Path, project: &Path, since: (i64, i64)) -> std::io::Result<()> {
    let since = self::since(sentinel_home, project).map_or(since, |old| old.min(since));
    let text = format!(
        "project={}\nsince={}.{:09}\n",
        project.display(),
        since.0,
        since.1
    );
    // Written whole (a rename), 0600 in a 0700 folder, never through a link.
    crate::config::kept::write_whole(&record_path(sentinel_home, project), text.as_bytes())
}

/// When `project`'s unverified run started, if it is recorded.
pub fn since(sentinel_home: &Path, project: &Path) -> Option<(i64, i64)> {
    // No record at all (the common case) is one `stat`, not a digest of the path.
    std::fs::symlink_metadata(sentinel_home.join(DIR)).ok()?;
    let text = match crate::config::kept::read(&record_path(sentinel_home, project), 64 * 1024) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if crate::config::is_absent(&e) => return None,
        // A record that cannot be read (a link, a folder) counts, from the beginning of time.
        Err(_) => return Some((0, 0)),
    };
    // A record that cannot be read back still counts, from the beginning of time.
    Some(parse(&text).map_or((0, 0), |(_, s)| s))
}

/// Removes `project`'s record (a later look was complete).
pub fn clear(sentinel_home: &Path, project: &Path) {
    let _ = crate::config::kept::remove(&record_path(sentinel_home, project));
}

/// Every recorded project, with the record's path.
pub fn list(sentinel_home: &Path) -> Vec<(PathBuf, PathBuf)> {
    let dir = sentinel_home.join(DIR);
    let entries = match crate::config::kept::entries(&dir) {
        Ok(entries) => entries,
        // A link or a file in the folder's place: not listed through, and said.
        Err(e) if !crate::config::is_absent(&e) => {
            return vec![(PathBuf::from(format!("(unreadable: {e})")), dir)];
        }
        Err(_) => return Vec::new(),
    };
    let mut out: Vec<(PathBuf, PathBuf)> = entries
        .into_iter()
        .filter(|e| !e.name.to_string_lossy().starts_with('.'))
        .map(|e| {
            let path = dir.join(&e.name);
            let project = crate::config::kept::read(&path, 64 * 1024)
                .ok()
                .and_then(|t| parse(&String::from_utf8_lossy(&t)))
                .map_or_else(|| PathBuf::from("(unreadable record)"), |(p, _)| p);
            (project, path)
        })
        .collect();
    out.sort();
    out
}

fn parse(text: &str) -> Option<(PathBuf, (i64, i64))> {
    let mut project = None;
    let mut since = None;
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("project=") {
            project = Some(PathBuf::from(p));
        } else if let Some(s) = line.strip_prefix("since=") {
            let (secs, nanos) = s.split_once('.')?;
            since = Some((secs.parse().ok()?, nanos.parse().ok()?));
        }
    }
    Some((project?, since?))
}

/// True for a command Tier 1 must not allow in an unverified project: git (a nested
/// repository's config runs programs: `core.fsmonitor`, `core.pager`, hooks) and direnv (runs
/// `.envrc`). `text` is a simple command as the rules saw it.
pub fn runs_hidden_config(text: &str) -> bool {
    let program = text.split_whitespace().next().unwrap_or("");
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "git" | "direnv")
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_written_read_back_listed_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let project = Path::new("/work/some project");
        assert_eq!(since(home, project), None);
        record(home, project, (100, 5)).unwrap();
        record(home, project, (200, 0)).unwrap();
        assert_eq!(
            since(home, project),
            Some((100, 5)),
            "the earlier time stays"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(record_path(home, project))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            list(home),
            vec![(project.to_path_buf(), record_path(home, project))]
        );
        clear(home, project);
        assert_eq!(since(home, project), None);
        assert!(list(home).is_empty());
    }

    #[test]
    fn git_and_direnv_are_the_commands_held() {
        assert!(runs_hidden_config("git -C sub status"));
        assert!(runs_hidden_config("/usr/bin/git status"));
        assert!(runs_hidden_config("direnv allow"));
        assert!(!runs_hidden_config("ls -la"));
        assert!(!runs_hidden_config("gitk"));
    }
}
