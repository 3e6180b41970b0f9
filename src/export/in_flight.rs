//! The send out now, written down (`export/claim`: its id and the last seq it carries), so
//! that a hook folding the oldest records into a gap while it is out knows which of them it
//! carries ([`super::claim`] says why). Below both the spool and the sender.

use crate::config::kept;
use std::path::{Path, PathBuf};

/// The send out now: its id and the last seq it carries.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    pub id: String,
    pub last_seq: u64,
}

/// The file, in the spool's folder.
fn file(dir: &Path) -> PathBuf {
    dir.join("claim")
}

/// The claim written down, if one is (a damaged file: none).
pub fn current(dir: &Path) -> Option<Claim> {
    let bytes = kept::read(&file(dir), 256).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let (id, seq) = text.trim_end().split_once(' ')?;
    Some(Claim {
        id: id.to_string(),
        last_seq: seq.parse().ok()?,
    })
}

/// Writes `claim` down (replacing the last one).
pub fn write(dir: &Path, claim: &Claim) -> std::io::Result<()> {
    kept::write_whole(
        &file(dir),
        format!("{} {}\n", claim.id, claim.last_seq).as_bytes(),
    )
}

/// The send is over: nothing is out.
pub fn clear(dir: &Path) {
    let _ = std::fs::remove_file(file(dir));
}
