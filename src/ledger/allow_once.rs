//! Allow-once: the person's way past one false positive without switching the guard off.
//!
//! A local deny carries a short code. The person reads what was refused and runs
//! `sentinel allow-once CODE` in their own terminal; the next identical call (same tool, command
//! or path, and cwd: the SHA-256 of the three) within [`TTL_MS`] of the grant is allowed, once.
//! A code not granted within [`TTL_MS`] of its issue expires. The codes live in one state file
//! in SENTINEL_HOME, changed only under its lock, so concurrent hooks cannot both use one grant.
//!
//! The store stays usable whatever the agent sends. A code keeps the call's SHA-256 (what a
//! later call is compared by) and only an excerpt of what the person reads: at most
//! [`MAX_SHOWN`] characters of the command or path, of the reason and of the cwd, with the
//! command's whole length. At most [`MAX_CODES`] codes are kept, the oldest dropped first, so the
//! file stays within about two megabytes however long the refused commands. A file that does
//! not read (damaged, or an older sentinel's that grew past the state bound) is kept as
//! `allow_once.json.damaged` and replaced by an empty store: the codes in it are lost (they live
//! ten minutes), new ones work.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The state file in SENTINEL_HOME.
pub const FILE: &str = "allow_once.json";
/// How long a code waits for its grant, and a grant for its call: 10 minutes.
pub const TTL_MS: u64 = 10 * 60 * 1000;
/// Letters that cannot be mistaken for each other when read aloud or typed (no 0/O, 1/I/L).
const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// Characters in a code: 31^6 ≈ 8.9e8 codes.
const CODE_LEN: usize = 6;
/// Most codes kept; the oldest go first.
pub const MAX_CODES: usize = 256;
/// Most characters of a command, path, reason or cwd a code keeps to show the person.
pub const MAX_SHOWN: usize = 2000;

/// One code: the call it stands for, and where it is in its life.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Code {
    /// What the person types.
    pub code: String,
    /// SHA-256 of tool, command or path, and cwd.
    pub key: String,
    /// The tool of the refused call.
    pub tool: String,
    /// Its command or path: the first [`MAX_SHOWN`] characters (the call is compared by `key`).
    pub subject: String,
    /// The command's or path's whole length in bytes, when `subject` is only its beginning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject_bytes: Option<usize>,
    /// Its working directory.
    pub cwd: String,
    /// Why it was refused.
    pub reason: String,
    /// When the deny issued the code, ms since the epoch.
    pub issued_ms: u64,
    /// When the person granted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted_ms: Option<u64>,
    /// When the call it let through ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_ms: Option<u64>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    codes: Vec<Code>,
}

impl Store {
    /// Drops codes that can no longer do anything (and the oldest beyond the cap). A used or
    /// expired code stays a little longer, so `allow-once` can say what happened to it.
    fn prune(&mut self, now: u64) {
        self.codes
            .retain(|c| c.granted_ms.unwrap_or(c.issued_ms) + 2 * TTL_MS > now);
        if self.codes.len() > MAX_CODES {
            let cut = self.codes.len() - MAX_CODES;
            self.codes.drain(..cut);
        }
    }
}

fn path(home: &Path) -> PathBuf {
    home.join(FILE)
}

/// Changes the store under its lock; a damaged store is kept aside and replaced.
fn update<R>(home: &Path, change: impl FnOnce(&mut Store) -> R) -> std::io::Result<R> {
    use crate::ledger::state::{Damaged, update_with};
    update_with(&path(home), Damaged::KeepCopyAndReset, change)
}

/// The key of one call: SHA-256 of tool, command or path, and cwd.
pub fn key(tool: &str, subject: &str, cwd: &str) -> String {
    let mut bytes = Vec::with_capacity(tool.len() + subject.len() + cwd.len() + 2);
    for (i, part) in [tool, subject, cwd].iter().enumerate() {
        if i > 0 {
            bytes.push(0);
        }
        bytes.extend_from_slice(part.as_bytes());
    }
    crate::digest::sha256_hex(&bytes)
}

/// A code for a refused call: the open one already issued for the same call, or a new one.
pub fn issue(
    home: &Path,
    tool: &str,
    subject: &str,
    cwd: &str,
    reason: &str,
    now: u64,
) -> std::io::Result<String> {
    let key = key(tool, subject, cwd);
    let fresh = new_code()?;
    update(home, |store: &mut Store| {
        store.prune(now);
        if let Some(open) = store
            .codes
            .iter()
            .find(|c| c.key == key && c.granted_ms.is_none() && c.issued_ms + TTL_MS > now)
        {
            return open.code.clone();
        }
        let shown = crate::text::prefix(subject, MAX_SHOWN);
        store.codes.push(Code {
            code: fresh.clone(),
            key,
            tool: crate::text::prefix(tool, 128).to_string(),
            subject_bytes: (shown.len() < subject.len()).then_some(subject.len()),
            subject: shown.to_string(),
            cwd: crate::text::prefix(cwd, MAX_SHOWN).to_string(),
            reason: crate::text::prefix(reason, MAX_SHOWN).to_string(),
            issued_ms: now,
            granted_ms: None,
            used_ms: None,
        });
        fresh
    })
}

fn new_code() -> std::io::Result<String> {
    let mut bytes = [0u8; CODE_LEN];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    // 256 % 31 = 8: the first eight letters are a little likelier; a code is not a secret key.
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect())
}

/// Why a grant was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    /// No such code.
    #[error("no code {0} (codes are shown in sentinel's deny reasons; check the spelling)")]
    Unknown(String),
    /// Issued too long ago.
    #[error(
        "code {0} expired: it was issued over 10 minutes ago; let the agent try again for a new one"
    )]
    Expired(String),
    /// Already granted.
    #[error("code {0} is already granted; the call can run once until {1} UTC")]
    AlreadyGranted(String, String),
    /// Its call already ran.
    #[error("code {0} was already used at {1} UTC")]
    Used(String, String),
    /// The state file could not be read or written.
    #[error("{0}")]
    Io(String),
}

/// The person grants `code`: its call may run once within [`TTL_MS`] from now.
pub fn grant(home: &Path, code: &str, now: u64) -> Result<Code, GrantError> {
    let wanted = code.trim().to_ascii_uppercase();
    update(home, |store: &mut Store| {
        let Some(c) = store.codes.iter_mut().find(|c| c.code == wanted) else {
            return Err(GrantError::Unknown(wanted.clone()));
        };
        if let Some(used) = c.used_ms {
            return Err(GrantError::Used(wanted.clone(), crate::clock::utc(used)));
        }
        if let Some(granted) = c.granted_ms {
            return Err(GrantError::AlreadyGranted(
                wanted.clone(),
                crate::clock::utc(granted + TTL_MS),
            ));
        }
        if c.issued_ms + TTL_MS <= now {
            return Err(GrantError::Expired(wanted.clone()));
        }
        c.granted_ms = Some(now);
        Ok(c.clone())
    })
    .map_err(|e| GrantError::Io(e.to_string()))?
}

/// Uses the grant for this call, if there is one that is unused and unexpired. At most one
/// caller ever gets a given grant.
pub fn consume(
    home: &Path,
    tool: &str,
    subject: &str,
    cwd: &str,
    now: u64,
) -> std::io::Result<Option<Code>> {
    let file = path(home);
    // Most denies have no grant waiting: only take the lock when the file is there.
    if !file.exists() {
        return Ok(None);
    }
    let key = key(tool, subject, cwd);
    update(home, |store: &mut Store| {
        let c = store.codes.iter_mut().find(|c| {
            c.key == key
                && c.used_ms.is_none()
                && c.granted_ms.is_some_and(|g| g + TTL_MS > now && g <= now)
        })?;
        c.used_ms = Some(now);
        Some(c.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_lets_its_call_through_once_within_ten_minutes() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let code = issue(h, "Bash", "git push --force", "/p", "why", 1_000).unwrap();
        assert_eq!(code.len(), CODE_LEN);
        // The same refused call gets the same open code, not a new one each time.
        assert_eq!(
            issue(h, "Bash", "git push --force", "/p", "why", 2_000).unwrap(),
            code
        );
        assert_eq!(
            consume(h, "Bash", "git push --force", "/p", 3_000).unwrap(),
            None
        );
        let granted = grant(h, &code.to_lowercase(), 4_000).unwrap();
        assert_eq!(granted.subject, "git push --force");
        assert!(matches!(
            grant(h, &code, 4_500),
            Err(GrantError::AlreadyGranted(..))
        ));
        // Another call, or the same command elsewhere, does not get through.
        assert_eq!(
            consume(h, "Bash", "git push --force x", "/p", 5_000).unwrap(),
            None
        );
        assert_eq!(
            consume(h, "Bash", "git push --force", "/q", 5_000).unwrap(),
            None
        );
        assert!(
            consume(h, "Bash", "git push --force", "/p", 5_000)
                .unwrap()
                .is_some()
        );
        assert_eq!(
            consume(h, "Bash", "git push --force", "/p", 6_000).unwrap(),
            None
        );
        assert!(matches!(grant(h, &code, 7_000), Err(GrantError::Used(..))));
    }

    #[test]
    fn codes_and_grants_expire() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let late = issue(h, "Bash", "a", "/p", "", 0).unwrap();
        assert!(matches!(
            grant(h, &late, TTL_MS),
            Err(GrantError::Expired(_))
        ));
        let code = issue(h, "Bash", "b", "/p", "", 0).unwrap();
        grant(h, &code, 1).unwrap();
        assert_eq!(consume(h, "Bash", "b", "/p", 1 + TTL_MS).unwrap(), None);
        assert!(matches!(grant(h, "NOPE22", 2), Err(GrantError::Unknown(_))));
    }

    #[test]
    fn the_store_stays_small_and_usable_whatever_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let huge = format!("echo {}", "x".repeat(50_000));
        let first = issue(h, "Bash", &huge, "/p", &huge, 1).unwrap();
        for i in 0..MAX_CODES + 10 {
            issue(h, "Bash", &format!("{huge} {i}"), "/p", &huge, 2).unwrap();
        }
        let size = std::fs::metadata(h.join(FILE)).unwrap().len();
        assert!(size < 4 * 1024 * 1024, "{size} bytes");
        // The oldest went; a recent one is granted and its exact call (only) gets through.
        assert!(matches!(grant(h, &first, 3), Err(GrantError::Unknown(_))));
        let code = issue(h, "Bash", &huge, "/p", "r", 4).unwrap();
        let granted = grant(h, &code, 5).unwrap();
        assert_eq!(granted.subject.chars().count(), MAX_SHOWN);
        assert_eq!(granted.subject_bytes, Some(huge.len()));
        assert_eq!(
            consume(h, "Bash", &format!("{huge}y"), "/p", 6).unwrap(),
            None
        );
        assert!(consume(h, "Bash", &huge, "/p", 6).unwrap().is_some());
    }

    #[test]
    fn a_damaged_store_is_kept_aside_and_replaced() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        std::fs::write(h.join(FILE), "{\"codes\": [tr").unwrap();
        let code = issue(h, "Bash", "git push --force", "/p", "why", 1).unwrap();
        grant(h, &code, 2).unwrap();
        assert_eq!(
            std::fs::read_to_string(crate::ledger::state::copy_path(&h.join(FILE))).unwrap(),
            "{\"codes\": [tr"
        );
        assert!(
            consume(h, "Bash", "git push --force", "/p", 3)
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn concurrent_hooks_use_one_grant_once() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path().to_path_buf();
        let code = issue(&h, "Bash", "rm -rf /x", "/p", "", 10).unwrap();
        grant(&h, &code, 20).unwrap();
        let used: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| s.spawn(|| consume(&h, "Bash", "rm -rf /x", "/p", 30).unwrap()))
                .collect();
            handles
                .into_iter()
                .map(|t| usize::from(t.join().unwrap().is_some()))
                .sum()
        });
        assert_eq!(used, 1);
    }
}
