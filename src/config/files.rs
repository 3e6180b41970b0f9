//! Opening the files sentinel reads and keeps, so that no file can hang, flood or redirect it.
//!
//! - Only regular files: a FIFO, a socket, a device or a directory where a file should be is an
//!   error naming it. Every open is `O_NONBLOCK`, so a FIFO cannot block a hook until the agent's
//!   timeout (which lets the call run); the flag changes nothing for a regular file.
//! - sentinel's own state (logs, heads, locks, counters, grants, caches) is opened through
//!   [`super::kept`]: no link is followed below SENTINEL_HOME. Configuration that sentinel only
//!   reads (`sentinel.toml`, rule files, command specs) may be a link to a regular file, as
//!   dotfile managers make them; what it points to is checked the same way.
//! - Every read is bounded: a file over its bound is refused before it is read.
//! - SENTINEL_HOME and its folders are made 0700, its files 0600: they hold command texts.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

pub use super::kept::{DIR_MODE, FILE_MODE, is_refused};
use super::kept::{not_regular, too_big};
/// Largest state file read (a grant store, a trust store, a cache image).
pub const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;

/// Whether a link at the path's last component is followed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Configuration the person may keep elsewhere: followed, the target checked.
    Follow,
    /// sentinel's own state: refused.
    Refuse,
}

/// Opens `path` with `options` (plus non-blocking, no link for state, mode 0600 when created),
/// and refuses it unless it is a regular file. sentinel's own files go through [`super::kept`].
pub fn open(path: &Path, options: &mut OpenOptions, links: Links) -> std::io::Result<File> {
    open_with_len(path, options, links).map(|(file, _)| file)
}

/// [`open`], and the file's length (from the same `fstat`).
pub fn open_with_len(
    path: &Path,
    options: &mut OpenOptions,
    links: Links,
) -> std::io::Result<(File, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
        if links == Links::Refuse {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags).mode(FILE_MODE);
    }
    let file = options.open(path).map_err(|e| explain(path, e, links))?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    Ok((file, meta.len()))
}

/// Reads a whole file of at most `max` bytes (see [`open`]); a longer one is an error naming
/// the bound, and is not read. With [`Links::Refuse`], as [`super::kept::read`].
pub fn read(path: &Path, max: u64, links: Links) -> std::io::Result<Vec<u8>> {
    if links == Links::Refuse {
        return super::kept::read(path, max);
    }
    let (file, len) = open_with_len(path, OpenOptions::new().read(true), links)?;
    if len > max {
        return Err(too_big(path, len, max));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The file may grow after the stat: read one byte past the bound at most.
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(path, bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// Makes `dir` and its missing parents, each 0700, no link followed below SENTINEL_HOME
/// ([`super::kept::create_dir`]).
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    super::kept::create_dir(dir)
}

fn explain(path: &Path, e: std::io::Error, links: Links) -> std::io::Error {
    #[cfg(not(unix))]
    let _ = path;
    #[cfg(unix)]
    {
        let refused = |what: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is {what}: refused", path.display()),
            )
        };
        match e.raw_os_error() {
            // O_NOFOLLOW on a link.
            Some(libc::ELOOP) if links == Links::Refuse => {
                return refused(
                    "a symbolic link, and sentinel never writes its state through a link",
                );
            }
            // A FIFO opened for writing with no reader, or a socket.
            Some(libc::ENXIO) | Some(libc::EOPNOTSUPP) => {
                return refused("a FIFO or a socket, not a regular file");
            }
            _ => {}
        }
    }
    let _ = links;
    e
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for links in [Links::Follow, Links::Refuse] {
            let e = read(&fifo, 10, links).unwrap_err();
            assert!(is_refused(&e), "{e}");
            assert!(e.to_string().contains("FIFO"), "{e}");
            let e = open(&fifo, OpenOptions::new().append(true).create(true), links).unwrap_err();
            assert!(is_refused(&e), "{e}");
        }
        let e = read(Path::new("/dev/zero"), 10, Links::Follow).unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");

        let target = dir.path().join("target");
        std::fs::write(&target, "precious").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(read(&link, 100, Links::Follow).unwrap(), b"precious");
        let e = open(&link, OpenOptions::new().write(true), Links::Refuse).unwrap_err();
        assert!(is_refused(&e), "{e}");
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");

        let e = read(&target, 3, Links::Follow).unwrap_err();
        assert!(e.to_string().contains("over the 3-byte bound"), "{e}");
    }

    #[test]
    fn what_sentinel_creates_is_its_own() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("a/b");
        create_dir(&home).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&home), 0o700);
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        let f = home.join("f");
        open(
            &f,
            OpenOptions::new().write(true).create(true),
            Links::Refuse,
        )
        .unwrap();
        assert_eq!(mode(&f), 0o600);
    }
}
