//! Small JSON state files in SENTINEL_HOME (trusted projects, allow-once codes), read and
//! rewritten under one exclusive lock so concurrent hooks and the person's own commands never
//! lose each other's changes.

use crate::config::files::{self, Links};
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
    if let Some(dir) = path.parent() {
        files::create_dir(dir)?;
    }
    let mut file = files::open_state(path)?;
    file.lock_exclusive()?;
    let result = (|| {
        let mut text = String::new();
        (&file)
            .take(files::MAX_STATE_BYTES)
            .read_to_string(&mut text)?;
        let mut state: T = if text.trim().is_empty() {
            T::default()
        } else {
            serde_json::from_str(&text).map_err(|e| damaged(path, &e))?
        };
        let out = change(&mut state);
        let mut bytes = serde_json::to_vec_pretty(&state).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        if bytes == text.as_bytes() {
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

/// Reads the state at `path` under a shared lock; None when the file is absent.
pub fn read<T: DeserializeOwned>(path: &Path) -> std::io::Result<Option<T>> {
    let file = match files::open(path, std::fs::OpenOptions::new().read(true), Links::Refuse) {
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

/// The file of one session's state in `home/DIR/`: the id reduced to letters, digits, `-` and
/// `_`, so an id can never name a path outside that folder.
pub fn session_file(home: &Path, dir: &str, session: &str) -> PathBuf {
    let safe: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(128)
        .collect();
    let name = if safe.is_empty() {
        "unknown-session"
    } else {
        &safe
    };
    home.join(dir).join(format!("{name}.json"))
}

/// Ends one session's state in `home/DIR/`, and removes every other session's file there that
/// has not changed for `max_age_ms` (sessions that never sent a SessionEnd).
pub fn end_session(home: &Path, dir: &str, session: &str, max_age_ms: u64, now_ms: u64) {
    let _ = std::fs::remove_file(session_file(home, dir, session));
    for entry in std::fs::read_dir(home.join(dir))
        .into_iter()
        .flatten()
        .flatten()
    {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .is_some_and(|t| (t.as_millis() as u64).saturating_add(max_age_ms) < now_ms);
        if stale {
            let _ = std::fs::remove_file(entry.path());
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
