//! The files sentinel keeps: its stats, audit log, locks, grants, ledgers, caches, summaries,
//! reports and quarantine, all in SENTINEL_HOME. Every one is opened here, one way:
//!
//! - **No link is followed below SENTINEL_HOME.** The home itself is what the person set
//!   (`SENTINEL_HOME`, else `~/.agentos`), and may be a link, as dotfile managers make them. From
//!   there each folder is opened without following a link (on Unix `O_NOFOLLOW | O_DIRECTORY`
//!   relative to the one above it, `openat`; on Windows each folder is looked at with
//!   `symlink_metadata` and any reparse point refused, and the file opened with
//!   `FILE_FLAG_OPEN_REPARSE_POINT`), and the file itself likewise: a link planted at `written/`
//!   or at `written/SESSION.txt` is refused, never written through, and nothing outside the home
//!   is created, renamed, removed or read by way of one. A path outside every home sentinel
//!   loaded (a unit test's folder, a report the person sends elsewhere) is held to the same rule
//!   from its parent folder on.
//! - **0600 files in 0700 folders** (Unix): created so, and an existing file or folder below the
//!   home that is looser is made so when opened (when it is the person's: another user's is left
//!   as it is). Windows: the folder's inherited ACL (a profile's is the person's, SYSTEM's and
//!   Administrators'); docs/windows.md says what is not checked.
//! - **Only regular files, never a hang**: `O_NONBLOCK`, and anything but a regular file is
//!   refused (see [`super::files`]).
//!
//! Each refusal is an error naming the path; the callers record it (a warning, a field of the
//! stats) and never read a refusal as an empty or absent file where that would widen anything.
//! The walk is per platform ([`unix`], [`windows`]); what is read and written is the same.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as sys;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as sys;

pub use sys::{create_dir, entries, open_with_len, remove, remove_tree, rename};

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The mode of every file sentinel keeps.
pub const FILE_MODE: u32 = 0o600;
/// The mode of every folder sentinel keeps.
pub const DIR_MODE: u32 = 0o700;

/// How one of sentinel's files is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read; never created.
    Read,
    /// Read and written in place; created when missing, never cut on open.
    Update,
    /// Appended to; created when missing.
    Append,
    /// Read and appended to; never created.
    ReadAppend,
    /// Written from its start; created when missing, never cut on open (the writer cuts it to
    /// what it wrote, so a refused or failed open leaves the old content).
    Write,
    /// A new file that must not exist yet (a temporary file, renamed into place).
    Fresh,
}

impl Access {
    fn creates(self) -> bool {
        !matches!(self, Access::Read | Access::ReadAppend)
    }
}

/// The SENTINEL_HOMEs this process loaded: below each, no link is followed.
static HOMES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Registers `home` as a SENTINEL_HOME (the configuration's load does): its files are opened
/// from it down without following a link.
pub fn claim_home(home: &Path) {
    let home = std::path::absolute(home).unwrap_or_else(|_| home.to_path_buf());
    let home = sys::without_trailing_separator(home);
    let mut homes = HOMES.lock().unwrap_or_else(|e| e.into_inner());
    if !homes.contains(&home) {
        homes.push(home);
    }
}

fn invalid(path: &Path, what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{} is {what}: refused", path.display()),
    )
}

/// [`open_with_len`] without the length.
pub fn open(path: &Path, access: Access) -> std::io::Result<File> {
    open_with_len(path, access).map(|(f, _)| f)
}

/// Reads one of sentinel's files whole, at most `max` bytes (a longer one is an error naming the
/// bound, and is not read).
pub fn read(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let (file, len) = open_with_len(path, Access::Read)?;
    if len > max {
        return Err(too_big(path, len, max));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(path, bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// [`read`], with the file's metadata before the read and after it (the same open file): when
/// the two are equal, no write landed while it was read.
pub fn read_observed(
    path: &Path,
    max: u64,
) -> std::io::Result<(Vec<u8>, std::fs::Metadata, std::fs::Metadata)> {
    let (file, len) = open_with_len(path, Access::Read)?;
    if len > max {
        return Err(too_big(path, len, max));
    }
    let before = file.metadata()?;
    let mut bytes = Vec::with_capacity(len as usize);
    (&file)
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(path, bytes.len() as u64, max));
    }
    let after = file.metadata()?;
    Ok((bytes, before, after))
}

/// Writes `bytes` as the whole of `path`: into a fresh temporary file next to it, renamed over
/// it, so a reader sees the old file or the new one, never a part.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .ok_or_else(|| invalid(path, "not a file's path"))?;
    let mut tmp_name = OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let _ = remove(&tmp);
    let written = open(&tmp, Access::Fresh)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| rename(&tmp, path));
    if written.is_err() {
        let _ = remove(&tmp);
    }
    written
}

/// One entry of a folder of sentinel's, as `lstat` sees it.
#[derive(Debug)]
pub struct Entry {
    /// Its name in the folder.
    pub name: OsString,
    /// A regular file (not a link, a folder or anything else).
    pub is_file: bool,
    /// Its size in bytes.
    pub len: u64,
    /// Its last modification.
    pub modified: std::time::SystemTime,
}

/// Whether an error is a refusal (a link, a FIFO, not a file) rather than an absence or an I/O
/// failure.
pub fn refused(e: &std::io::Error) -> bool {
    is_refused(e)
}

/// Whether the error says the file is not a regular file or is a link sentinel refuses (what
/// [`open`] and [`super::files::open`] return for them).
pub fn is_refused(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::InvalidInput
}

pub(crate) fn too_big(path: &Path, len: u64, max: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{} is {len} bytes, over the {max}-byte bound: not read",
            path.display()
        ),
    )
}

pub(crate) fn not_regular(path: &Path, meta: &std::fs::Metadata) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{} is {}, not a regular file: refused",
            path.display(),
            kind_of(meta)
        ),
    )
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    sys::kind_of(meta)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn no_link_below_a_home_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        claim_home(&home);
        // A folder that is a link: nothing is created, written or listed through it.
        std::os::unix::fs::symlink(&elsewhere, home.join("written")).unwrap();
        let e = open(&home.join("written/s.txt"), Access::Append).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(refused(&e));
        assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
        assert!(create_dir(&home.join("written/x")).is_err());
        assert!(entries(&home.join("written")).is_err());
        // A file that is a link.
        let victim = dir.path().join("bashrc");
        std::fs::write(&victim, "keep\n").unwrap();
        std::os::unix::fs::symlink(&victim, home.join("stats.jsonl")).unwrap();
        assert!(open(&home.join("stats.jsonl"), Access::Append).is_err());
        assert!(read(&home.join("stats.jsonl"), 100).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
        // Removing a link removes the link.
        remove(&home.join("stats.jsonl")).unwrap();
        assert!(victim.exists());
        // `..` never leaves the home.
        assert!(open(&home.join("../escape"), Access::Append).is_err());
        // The home itself may be a link: the person's choice.
        let linked = dir.path().join("linked-home");
        std::os::unix::fs::symlink(&home, &linked).unwrap();
        claim_home(&linked);
        open(&linked.join("cache/a.bin"), Access::Append).unwrap();
        assert!(home.join("cache/a.bin").is_file());
    }

    #[test]
    fn what_is_kept_is_the_persons_alone() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("h");
        claim_home(&home);
        open(&home.join("sessions/s.txt"), Access::Append).unwrap();
        assert_eq!(mode(&home), 0o700);
        assert_eq!(mode(&home.join("sessions")), 0o700);
        assert_eq!(mode(&home.join("sessions/s.txt")), 0o600);
        // Looser ones are made tight when opened.
        std::fs::set_permissions(home.join("sessions"), PermissionsExt::from_mode(0o755)).unwrap();
        std::fs::set_permissions(
            home.join("sessions/s.txt"),
            PermissionsExt::from_mode(0o644),
        )
        .unwrap();
        open(&home.join("sessions/s.txt"), Access::Read).unwrap();
        assert_eq!(mode(&home.join("sessions")), 0o700);
        assert_eq!(mode(&home.join("sessions/s.txt")), 0o600);
        // Written whole, listed, renamed, removed.
        write_whole(&home.join("sessions/t.txt"), b"one\n").unwrap();
        write_whole(&home.join("sessions/t.txt"), b"two\n").unwrap();
        assert_eq!(read(&home.join("sessions/t.txt"), 10).unwrap(), b"two\n");
        let mut names: Vec<OsString> = entries(&home.join("sessions"))
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        names.sort();
        assert_eq!(names, ["s.txt", "t.txt"]);
        rename(&home.join("sessions/t.txt"), &home.join("old/t.txt")).unwrap();
        assert!(home.join("old/t.txt").is_file());
        remove(&home.join("old/t.txt")).unwrap();
        assert!(entries(&home.join("none")).unwrap().is_empty());
    }
}
