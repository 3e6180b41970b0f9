//! Session taint: a session that has taken in outside text (WebFetch, WebSearch, MCP tools) is
//! marked, in `SENTINEL_HOME/taint/SESSION.json`, under a file lock so parallel hooks agree.
//! The mark records which tool brought text in and when; it ends with the session or after
//! `taint_max_age_hours`.

use crate::config::files;
use crate::config::kept::{self, Access};
use crate::decision::taint::{Mark, Taint};
use fs2::FileExt;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Whether `tool` brings outside text in: exact names, or `prefix*` patterns (`mcp__*`).
pub fn is_untrusted(tool: &str, patterns: &[String]) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix),
        None => tool == p,
    })
}

/// The most marks a session's file keeps.
const MAX_MARKS: usize = 64;

fn path(home: &Path, session: &str) -> PathBuf {
    crate::ledger::state::session_file(home, "taint", session)
}

/// Marks `session` as carrying text from `tool`.
pub fn mark(home: &Path, session: &str, tool: &str, now_ms: u64) -> std::io::Result<()> {
    let p = path(home, session);
    let mut f = kept::open(&p, Access::Update)?;
    f.lock_exclusive()?;
    let result = (|| {
        let mut text = String::new();
        (&f).take(files::MAX_STATE_BYTES)
            .read_to_string(&mut text)?;
        let mut taint: Taint = serde_json::from_str(&text).unwrap_or_default();
        taint.marks.push(Mark {
            tool: crate::text::excerpt_to(tool, 200),
            ts_ms: now_ms,
        });
        // Bounded: the first mark (since when) and the latest ones (until when) are what count.
        if taint.marks.len() > MAX_MARKS {
            taint.marks.drain(1..taint.marks.len() - (MAX_MARKS - 1));
        }
        let bytes = serde_json::to_vec(&taint).map_err(std::io::Error::other)?;
        f.set_len(0)?;
        f.rewind()?;
        f.write_all(&bytes)
    })();
    let _ = FileExt::unlock(&f);
    result
}

/// The session's taint, unless it is absent or older than `max_age_ms` (then it is removed).
/// An unreadable or damaged file counts as tainted: the safe side.
pub fn read(home: &Path, session: &str, max_age_ms: u64, now_ms: u64) -> Option<Taint> {
    let p = path(home, session);
    let f = match kept::open(&p, Access::Read) {
        Ok(f) => f,
        Err(e) if crate::config::is_absent(&e) => return None,
        Err(_) => {
            return Some(Taint {
                marks: vec![Mark {
                    tool: "unreadable taint file".into(),
                    ts_ms: now_ms,
                }],
            });
        }
    };
    let _ = f.lock_shared();
    let mut text = String::new();
    let ok = (&f)
        .take(files::MAX_STATE_BYTES)
        .read_to_string(&mut text)
        .is_ok();
    let _ = FileExt::unlock(&f);
    let taint = match serde_json::from_str::<Taint>(&text) {
        Ok(t) if ok => t,
        _ => {
            return Some(Taint {
                marks: vec![Mark {
                    tool: "damaged taint file".into(),
                    ts_ms: now_ms,
                }],
            });
        }
    };
    let newest = taint.marks.iter().map(|m| m.ts_ms).max()?;
    if newest + max_age_ms < now_ms {
        let _ = kept::remove(&p);
        return None;
    }
    Some(taint)
}

/// Ends a session's taint, and removes every other mark older than `max_age_ms`.
pub fn clear(home: &Path, session: &str, max_age_ms: u64, now_ms: u64) {
    crate::ledger::state::end_session(home, "taint", session, max_age_ms, now_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_per_session_and_expire() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path();
        mark(h, "a", "WebFetch", 1_000).unwrap();
        mark(h, "a", "mcp__x__y", 2_000).unwrap();
        assert_eq!(read(h, "a", 10_000, 3_000).unwrap().marks.len(), 2);
        assert_eq!(read(h, "b", 10_000, 3_000), None);
        assert_eq!(read(h, "a", 10_000, 50_000), None, "expired and removed");
        assert!(!path(h, "a").exists());
        mark(h, "../../etc/x", "WebFetch", 1).unwrap();
        assert!(path(h, "../../etc/x").starts_with(h.join("taint")));
    }

    #[test]
    fn untrusted_tool_patterns() {
        let p = vec!["WebFetch".to_string(), "mcp__*".to_string()];
        assert!(is_untrusted("WebFetch", &p));
        assert!(is_untrusted("mcp__github__get_issue", &p));
        assert!(!is_untrusted("Read", &p));
    }
}
