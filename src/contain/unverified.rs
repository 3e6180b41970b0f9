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

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder of the records in SENTINEL_HOME.
pub const DIR: &str = "unverified";

/// The record of `project` (a canonical path).
pub fn record_path(sentinel_home: &Path, project: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let digest = crate::digest::sha256_hex(project.as_os_str().as_bytes());
    sentinel_home.join(DIR).join(&digest[..32])
}

/// Records `project` as unverified since `since` (seconds, nanoseconds): the start of the run
/// whose look was not complete. An older record keeps its earlier time.
pub fn record(sentinel_home: &Path, project: &Path, since: (i64, i64)) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let since = self::since(sentinel_home, project).map_or(since, |old| old.min(since));
    let dir = sentinel_home.join(DIR);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let to = record_path(sentinel_home, project);
    let tmp = dir.join(format!(
        ".{}.{}",
        to.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    let text = format!(
        "project={}\nsince={}.{:09}\n",
        project.display(),
        since.0,
        since.1
    );
    let written = f
        .write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .and_then(|_| std::fs::rename(&tmp, &to));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// When `project`'s unverified run started, if it is recorded.
pub fn since(sentinel_home: &Path, project: &Path) -> Option<(i64, i64)> {
    // No record at all (the common case) is one `stat`, not a digest of the path.
    std::fs::symlink_metadata(sentinel_home.join(DIR)).ok()?;
    let text = std::fs::read_to_string(record_path(sentinel_home, project)).ok()?;
    // A record that cannot be read back still counts, from the beginning of time.
    Some(parse(&text).map_or((0, 0), |(_, s)| s))
}

/// Removes `project`'s record (a later look was complete).
pub fn clear(sentinel_home: &Path, project: &Path) {
    let _ = std::fs::remove_file(record_path(sentinel_home, project));
}

/// Every recorded project, with the record's path.
pub fn list(sentinel_home: &Path) -> Vec<(PathBuf, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(sentinel_home.join(DIR)) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, PathBuf)> = entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            let project = std::fs::read_to_string(e.path())
                .ok()
                .and_then(|t| parse(&t))
                .map_or_else(|| PathBuf::from("(unreadable record)"), |(p, _)| p);
            (project, e.path())
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

#[cfg(test)]
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
