//! Small JSON state files in SENTINEL_HOME (trusted projects, allow-once codes), read and
//! rewritten under one exclusive lock so concurrent hooks and the person's own commands never
//! lose each other's changes.

use crate::config::files;
use crate::config::kept::{self, Access};
use fs2::FileExt;
use serde::{Serialize, de::DeserializeOwned};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Reads the state at `path` (the default when absent or empty), lets `change` modify it, and
/// writes it back, all under an exclusive lock; a state that reads back as it was written is
/// left alone (a deny asks whether a grant waits and re-offers its open code: most such
/// updates change nothing). A damaged file is an error, not a fresh start: these files hold
/// the person's decisions.
pub fn update<T, R>(path: &Path, change: impl FnOnce(&mut T) -> R) -> std::io::Result<R>
where
    T: Serialize + DeserializeOwned + Default,
{
    update_with(path, Damaged::Refuse, change)
}

/// What [`update_with`] does with a file that does not read as the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damaged {
    /// An error: the file holds the person's lasting decisions (trusted projects).
    Refuse,
    /// Its bytes are kept in `PATH.damaged` (the last such copy) and the state starts afresh:
    /// for short-lived state (allow-once codes) a damaged file must not block every later
    /// update.
    KeepCopyAndReset,
}

/// [`update`], with a damaged file handled as `damaged` says.
pub fn update_with<T, R>(
    path: &Path,
    damaged_file: Damaged,
    change: impl FnOnce(&mut T) -> R,
) -> std::io::Result<R>
where
    T: Serialize + DeserializeOwned + Default,
{
    let mut file = kept::open(path, Access::Update)?;
    file.lock_exclusive()?;
    let result = (|| {
        let mut raw = Vec::new();
        (&file)
            .take(files::MAX_STATE_BYTES + 1)
            .read_to_end(&mut raw)?;
        let parsed = if raw.len() as u64 > files::MAX_STATE_BYTES {
            Err(too_big(path))
        } else if raw.trim_ascii().is_empty() {
            Ok(T::default())
        } else {
            serde_json::from_slice(&raw).map_err(|e| damaged(path, &e))
        };
        let mut state: T = match (parsed, damaged_file) {
            (Ok(state), _) => state,
            (Err(e), Damaged::Refuse) => return Err(e),
            (Err(_), Damaged::KeepCopyAndReset) => {
                let copy = copy_path(path);
                kept::write_whole(&copy, &raw)?;
                T::default()
            }
        };
        let out = change(&mut state);
        let mut bytes = serde_json::to_vec_pretty(&state).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        if bytes == raw {
            return Ok(out);
        }
        // Written over the old content, then cut to its length: ext4 treats a truncation to
        // zero followed by writes as a rewrite and flushes it on close (`auto_da_alloc`), which
        // cost a denied call, which issues an allow-once code, ~0.5 ms.
        file.rewind()?;
        file.write_all(&bytes)?;
        file.set_len(bytes.len() as u64)?;
        Ok(out)
    })();
    let _ = FileExt::unlock(&file);
    result
}

/// Where [`Damaged::KeepCopyAndReset`] keeps a damaged file's bytes.
pub fn copy_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".damaged");
    path.with_file_name(name)
}

fn too_big(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{} is damaged (over the {}-byte bound)",
            path.display(),
            files::MAX_STATE_BYTES
        ),
    )
}

/// Reads the state at `path` under a shared lock; None when the file is absent.
pub fn read<T: DeserializeOwned>(path: &Path) -> std::io::Result<Option<T>> {
    let file = match kept::open(path, Access::Read) {
        Ok(f) => f,
        Err(e) if crate::config::is_absent(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    file.lock_shared()?;
    let mut text = String::new();
    let read = (&file)
        .take(files::MAX_STATE_BYTES)
        .read_to_string(&mut text);
    let _ = FileExt::unlock(&file);
    read?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| damaged(path, &e))
}

/// The file of one session's state in `home/DIR/`: `SESSION-KEY.json` ([`session_key`]).
pub fn session_file(home: &Path, dir: &str, session: &str) -> PathBuf {
    let mut name = session_key(session);
    name.push_str(".json");
    let mut path = home.join(dir);
    path.push(name);
    path
}

/// The name a session's state goes by: the id reduced to letters, digits, `-` and `_` (at most
/// 64 of them, so an id can never name a path outside its folder), then 16 hex digits of the
/// SHA-256 of the whole id and of the project the agent names (`CLAUDE_PROJECT_DIR`,
/// `GEMINI_PROJECT_DIR`). Two sessions with one id in two projects, or two ids that reduce to the
/// same letters (`a/b`, `ab`), never share a file. An agent that names no project is keyed by
/// the id alone.
pub fn session_key(session: &str) -> String {
    let safe: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(64)
        .collect();
    let scope = session_scope(session);
    let mut key = String::with_capacity(safe.len() + 1 + scope.len() + 8);
    key.push_str(if safe.is_empty() { "session" } else { &safe });
    key.push('-');
    key.push_str(&scope);
    key
}

/// 16 hex digits of the SHA-256 of the session id and the project the agent names: what tells
/// two sessions with one id apart (also in their stats lines). Worked out once a process (a
/// hook asks it for each file of its session).
pub fn session_scope(session: &str) -> String {
    static LAST: std::sync::Mutex<Option<(String, String)>> = std::sync::Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((id, scope)) = last.as_ref()
        && id == session
    {
        return scope.clone();
    }
    let project = crate::config::named_by_agent().unwrap_or_default();
    let mut bytes = Vec::with_capacity(session.len() + project.len() + 1);
    bytes.extend_from_slice(session.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(project.as_bytes());
    let digest = <sha2::Sha256 as sha2::Digest>::digest(&bytes);
    let scope = crate::digest::hex(&digest[..8]);
    *last = Some((session.to_string(), scope.clone()));
    scope
}

/// Ends one session's state in `home/DIR/`, and removes every other session's file there that
/// has not changed for `max_age_ms` (sessions that never sent a SessionEnd). A `DIR` that is a
/// link is neither listed nor pruned through.
pub fn end_session(home: &Path, dir: &str, session: &str, max_age_ms: u64, now_ms: u64) {
    let _ = kept::remove(&session_file(home, dir, session));
    prune(&home.join(dir), max_age_ms, now_ms);
}

/// Removes the files of `dir` (one of sentinel's folders) untouched for `max_age_ms`.
pub fn prune(dir: &Path, max_age_ms: u64, now_ms: u64) {
    for entry in kept::entries(dir).unwrap_or_default() {
        let stale = entry
            .modified
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .is_some_and(|t| (t.as_millis() as u64).saturating_add(max_age_ms) < now_ms);
        if stale {
            let _ = kept::remove(&dir.join(&entry.name));
        }
    }
}

fn damaged(path: &Path, e: &serde_json::Error) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("{} is damaged ({e})", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shorter_state_leaves_nothing_of_the_longer_one_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        update(&path, |v: &mut Vec<String>| {
            v.extend(["a".repeat(100), "b".into()])
        })
        .unwrap();
        update(&path, |v: &mut Vec<String>| v.retain(|s| s == "b")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[\n  \"b\"\n]\n");
        assert_eq!(read::<Vec<String>>(&path).unwrap(), Some(vec!["b".into()]));
    }

    #[test]
    fn an_update_that_changes_nothing_does_not_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        update(&path, |v: &mut Vec<String>| v.push("a".into())).unwrap();
        let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        let mark = || {
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(long_ago).unwrap();
        };
        let modified = || std::fs::metadata(&path).unwrap().modified().unwrap();
        mark();
        // Read, looked at, left as it was: the file is not touched.
        let seen = update(&path, |v: &mut Vec<String>| v.len()).unwrap();
        assert_eq!(seen, 1);
        assert_eq!(modified(), long_ago);
        // A change is written.
        update(&path, |v: &mut Vec<String>| v.push("b".into())).unwrap();
        assert_ne!(modified(), long_ago);
        assert_eq!(read::<Vec<String>>(&path).unwrap().unwrap(), ["a", "b"]);
        // So is a file whose text differs from what the state writes, though it reads the same.
        std::fs::write(&path, "[\"a\",\"b\"]").unwrap();
        mark();
        update(&path, |_: &mut Vec<String>| ()).unwrap();
        assert_ne!(modified(), long_ago);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[\n  \"a\",\n  \"b\"\n]\n"
        );
    }
}
