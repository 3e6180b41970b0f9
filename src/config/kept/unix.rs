//! The Unix walk of [`super`]: each folder opened with `O_NOFOLLOW | O_DIRECTORY` relative to
//! the one above it, the file with `O_NOFOLLOW`, and modes tightened to 0600 / 0700.

use super::{Access, DIR_MODE, Entry, FILE_MODE, HOMES, invalid, not_regular};

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// `home` without a trailing `/`, so that a path below it reads as the home, `/`, its names.
pub(super) fn without_trailing_separator(home: PathBuf) -> PathBuf {
    match home.as_os_str().as_bytes() {
        [rest @ .., b'/'] if !rest.is_empty() => PathBuf::from(OsStr::from_bytes(rest)),
        _ => home,
    }
}

/// Where a walk to `path` starts (the folder trusted as it is: the home, or for a path below no
/// home its parent folder) and the names below it; none when `path` is a home itself. Read as
/// bytes: every path sentinel keeps is its home's (absolute) joined with plain names.
/// The open flags of `access`.
fn flags(access: Access) -> libc::c_int {
    match access {
        Access::Read => libc::O_RDONLY,
        Access::Update => libc::O_RDWR | libc::O_CREAT,
        Access::Append => libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT,
        Access::ReadAppend => libc::O_RDWR | libc::O_APPEND,
        Access::Write => libc::O_WRONLY | libc::O_CREAT,
        Access::Fresh => libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
    }
}

fn split(path: &Path) -> std::io::Result<(PathBuf, Vec<OsString>)> {
    let bytes = path.as_os_str().as_bytes();
    if !bytes.starts_with(b"/") {
        return split(&std::path::absolute(path)?);
    }
    let homes = HOMES.lock().unwrap_or_else(|e| e.into_inner());
    let home = homes
        .iter()
        .map(|h| h.as_os_str().as_bytes())
        .filter(|h| {
            bytes.starts_with(h)
                && (bytes.len() == h.len() || bytes[h.len()] == b'/' || h.ends_with(b"/"))
        })
        .max_by_key(|h| h.len())
        .map(<[u8]>::to_vec);
    drop(homes);
    let (root, rest): (PathBuf, &[u8]) = match home {
        Some(h) => {
            let rest = &bytes[h.len()..];
            (PathBuf::from(OsStr::from_bytes(&h)), rest)
        }
        None => {
            let trimmed = bytes.strip_suffix(b"/").unwrap_or(bytes);
            let at = trimmed.iter().rposition(|&b| b == b'/').unwrap_or(0);
            let parent = if at == 0 { &b"/"[..] } else { &trimmed[..at] };
            (PathBuf::from(OsStr::from_bytes(parent)), &trimmed[at..])
        }
    };
    let mut names = Vec::new();
    for name in rest.split(|&b| b == b'/') {
        match name {
            b"" | b"." => {}
            b".." => return Err(invalid(path, "not a plain path below SENTINEL_HOME")),
            n => names.push(OsStr::from_bytes(n).to_os_string()),
        }
    }
    Ok((root, names))
}

/// The folder `dir`, opened from its home down without following a link below the home,
/// created when `create`. The home itself is opened as it is and its mode left alone (it may
/// be the person's own choice of folder); each folder below it is made 0700.
fn open_folder(dir: &Path, create: bool) -> std::io::Result<OwnedFd> {
    let (root, names) = split(dir)?;
    let mut fd = open_root(&root, create).map_err(|e| refusal(&root, e, "folder"))?;
    let mut shown = root;
    for name in &names {
        shown.push(name);
        fd = open_dir_at(fd.as_raw_fd(), name, &shown, create)?;
    }
    Ok(fd)
}

fn c_name(name: &OsStr) -> std::io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| std::io::ErrorKind::InvalidInput.into())
}

fn last_error() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Opens the folder `path` as it is (links followed: the person's choice), creating it (0700,
/// with its parents) when asked.
fn open_root(path: &Path, create: bool) -> std::io::Result<OwnedFd> {
    let c = c_name(path.as_os_str())?;
    let open = || {
        // SAFETY: a NUL-terminated path; the fd is owned below.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        // SAFETY: a fresh fd, owned from here on.
        (fd >= 0)
            .then(|| unsafe { OwnedFd::from_raw_fd(fd) })
            .ok_or_else(last_error)
    };
    match open() {
        Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
            let mut builder = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(builder.recursive(true), DIR_MODE);
            builder.create(path)?;
            open()
        }
        other => other,
    }
}

/// Opens the folder `name` in `dir` without following a link, creating it (0700) when asked;
/// a looser folder of the person's is made 0700.
fn open_dir_at(dir: RawFd, name: &OsStr, shown: &Path, create: bool) -> std::io::Result<OwnedFd> {
    let c = c_name(name)?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let open = || {
        // SAFETY: a NUL-terminated name relative to an open folder.
        let fd = unsafe { libc::openat(dir, c.as_ptr(), flags) };
        // SAFETY: a fresh fd, owned from here on.
        (fd >= 0)
            .then(|| unsafe { OwnedFd::from_raw_fd(fd) })
            .ok_or_else(last_error)
    };
    let fd = match open() {
        Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
            // SAFETY: as above.
            if unsafe { libc::mkdirat(dir, c.as_ptr(), DIR_MODE as libc::mode_t) } != 0 {
                let e = last_error();
                if e.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(e);
                }
            }
            open()
        }
        other => other,
    }
    .map_err(|e| {
        // O_NOFOLLOW | O_DIRECTORY on a link says ENOTDIR on Linux: told apart here.
        let is_link = matches!(e.raw_os_error(), Some(libc::ENOTDIR) | Some(libc::ELOOP))
            && is_link_at(dir, &c);
        match is_link {
            true => refusal(
                shown,
                std::io::Error::from_raw_os_error(libc::ELOOP),
                "folder",
            ),
            false => refusal(shown, e, "folder"),
        }
    })?;
    tighten(fd.as_raw_fd(), DIR_MODE);
    Ok(fd)
}

/// Whether `name` in the open folder `dir` is a symbolic link.
fn is_link_at(dir: RawFd, name: &CString) -> bool {
    // SAFETY: fstatat into a zeroed struct, of a name in an open folder, no link followed.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let found = unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    found == 0 && is_type(&st, libc::S_IFLNK)
}

/// Whether `st` is of the file type `kind` (`S_IFREG`, `S_IFLNK`).
// mode_t is u32 on Linux, u16 on macOS: the casts are for the other one.
#[allow(clippy::unnecessary_cast)]
fn is_type(st: &libc::stat, kind: libc::mode_t) -> bool {
    (st.st_mode as u32) & (libc::S_IFMT as u32) == kind as u32
}

/// Makes the file or folder `fd` `mode` when it is looser and the person's.
fn tighten(fd: RawFd, mode: u32) {
    // SAFETY: fstat into a zeroed struct on an open fd.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return;
    }
    // SAFETY: geteuid has no failure.
    let mine = st.st_uid == unsafe { libc::geteuid() };
    if mine && (st.st_mode as u32) & 0o077 != 0 {
        // SAFETY: fchmod on an open fd.
        unsafe { libc::fchmod(fd, mode as libc::mode_t) };
    }
}

/// What an open below the home that failed on a link or a non-file means. An absent file is
/// passed on as it is (the common case, and callers only ask whether it is absent).
fn refusal(shown: &Path, e: std::io::Error, what: &str) -> std::io::Error {
    match e.raw_os_error() {
        Some(libc::ENOENT) => e,
        Some(libc::ELOOP) => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link, and sentinel never keeps its state through a link: refused",
                shown.display()
            ),
        ),
        Some(libc::ENOTDIR) => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a {what}: refused", shown.display()),
        ),
        Some(libc::ENXIO) | Some(libc::EOPNOTSUPP) => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is a FIFO or a socket, not a regular file: refused",
                shown.display()
            ),
        ),
        _ => std::io::Error::new(e.kind(), format!("{}: {e}", shown.display())),
    }
}

/// The folder that holds `path`, opened from its home down without following a link (created
/// when `create`), and the file's name in it. A path below no home is held to the rule from its
/// own folder on.
fn parent(path: &Path, create: bool) -> std::io::Result<(OwnedFd, CString)> {
    let (root, mut names) = split(path)?;
    let name = names
        .pop()
        .ok_or_else(|| invalid(path, "not a file's path"))?;
    let mut dir = open_root(&root, create).map_err(|e| refusal(&root, e, "folder"))?;
    let mut shown = root;
    for folder in &names {
        shown.push(folder);
        dir = open_dir_at(dir.as_raw_fd(), folder, &shown, create)?;
    }
    Ok((dir, c_name(&name)?))
}

/// Opens one of sentinel's files (see the module doc), and its length.
pub fn open_with_len(path: &Path, access: Access) -> std::io::Result<(File, u64)> {
    let (dir, name) = parent(path, access.creates())?;
    let flags = flags(access) | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
    // SAFETY: a NUL-terminated name relative to an open folder; the mode is an int.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            name.as_ptr(),
            flags,
            FILE_MODE as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(refusal(path, last_error(), "file"));
    }
    // SAFETY: a fresh fd, owned from here on.
    let file = unsafe { File::from_raw_fd(fd) };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    tighten(file.as_raw_fd(), FILE_MODE);
    Ok((file, meta.len()))
}

/// Makes the folder `dir` (and the folders above it up to its home), each 0700, none through a
/// link.
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    open_folder(dir, true).map(drop)
}

/// Removes one of sentinel's files (a link there is removed itself, never what it points to).
pub fn remove(path: &Path) -> std::io::Result<()> {
    let (dir, name) = parent(path, false)?;
    // SAFETY: a NUL-terminated name relative to an open folder.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } != 0 {
        return Err(last_error());
    }
    Ok(())
}

/// Removes the folder `dir` of sentinel's and everything in it: reached without following a
/// link below the home, and emptied without following one either (std's `remove_dir_all`,
/// started from the open folder above it).
pub fn remove_tree(dir: &Path) -> std::io::Result<()> {
    let (parent, name) = parent(dir, false)?;
    let name = OsStr::from_bytes(name.as_bytes());
    let through = [
        PathBuf::from(format!("/proc/self/fd/{}", parent.as_raw_fd())),
        PathBuf::from(format!("/dev/fd/{}", parent.as_raw_fd())),
    ]
    .into_iter()
    .find(|p| p.is_dir())
    .ok_or_else(|| invalid(dir, "not reachable through its open folder"))?;
    std::fs::remove_dir_all(through.join(name))
}

/// Renames `from` to `to` (both sentinel's; `to`'s folder is created when missing).
pub fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    let (a, a_name) = parent(from, false)?;
    let (b, b_name) = parent(to, true)?;
    // SAFETY: NUL-terminated names relative to open folders.
    let done = unsafe {
        libc::renameat(
            a.as_raw_fd(),
            a_name.as_ptr(),
            b.as_raw_fd(),
            b_name.as_ptr(),
        )
    };
    if done != 0 {
        return Err(refusal(from, last_error(), "file"));
    }
    Ok(())
}

/// The entries of the folder `dir`, opened without following a link; an absent folder has none.
pub fn entries(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let fd = match open_folder(dir, false) {
        Ok(fd) => fd,
        Err(e) if crate::config::is_absent(&e) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let shown = dir;
    // Listed through the open folder (/proc/self/fd on Linux, /dev/fd elsewhere), and each
    // entry looked at in it: a link swapped in after the walk is not followed either.
    let listed = [
        format!("/proc/self/fd/{}", fd.as_raw_fd()),
        format!("/dev/fd/{}", fd.as_raw_fd()),
    ]
    .into_iter()
    .find_map(|p| std::fs::read_dir(p).ok())
    .map_or_else(|| std::fs::read_dir(shown), Ok)?;
    let mut out = Vec::new();
    for entry in listed.flatten() {
        let name = entry.file_name();
        let Ok(c) = c_name(&name) else { continue };
        // SAFETY: fstatat into a zeroed struct, of a name in an open folder, no link followed.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let flags = libc::AT_SYMLINK_NOFOLLOW;
        if unsafe { libc::fstatat(fd.as_raw_fd(), c.as_ptr(), &mut st, flags) } != 0 {
            continue;
        }
        let since_epoch = std::time::Duration::new(
            u64::try_from(st.st_mtime).unwrap_or(0),
            u32::try_from(st.st_mtime_nsec).unwrap_or(0),
        );
        out.push(Entry {
            name,
            is_file: is_type(&st, libc::S_IFREG),
            len: u64::try_from(st.st_size).unwrap_or(0),
            modified: std::time::UNIX_EPOCH + since_epoch,
        });
    }
    Ok(out)
}

pub(super) fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if meta.is_dir() {
        "a directory"
    } else {
        "not a plain file"
    }
}
