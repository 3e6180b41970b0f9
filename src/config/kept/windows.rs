//! The Windows walk of [`super`]: below the home, each folder is looked at with
//! `symlink_metadata` and refused when it is a reparse point (a symbolic link, a junction, a
//! mount point: anything that leads elsewhere), and the file is opened with
//! `FILE_FLAG_OPEN_REPARSE_POINT`, so a link there is opened as itself and refused rather than
//! followed. What this does not give that Unix's `openat` walk does (a folder swapped for a
//! junction between the look and the open; modes) is in docs/windows.md.

use super::{Access, Entry, HOMES, invalid, not_regular};
use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

/// Opens the reparse point itself, not what it leads to.
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
const FILE_ATTRIBUTE_REPARSE_POINT: u32 = 0x0000_0400;

/// `home` without a trailing separator (and with `.` dropped), as [`split`] compares it.
pub(super) fn without_trailing_separator(home: PathBuf) -> PathBuf {
    home.components().collect()
}

fn is_link(meta: &Metadata) -> bool {
    meta.is_symlink() || meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0
}

fn link_refused(shown: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link or junction, and sentinel never keeps its state through a link: refused",
            shown.display()
        ),
    )
}

/// Where a walk to `path` starts (the home, or for a path below no home its parent folder) and
/// the plain names below it.
fn split(path: &Path) -> std::io::Result<(PathBuf, Vec<OsString>)> {
    let path = std::path::absolute(path)?;
    let homes = HOMES.lock().unwrap_or_else(|e| e.into_inner());
    let home = homes
        .iter()
        .filter(|h| path.starts_with(h))
        .max_by_key(|h| h.components().count())
        .cloned();
    drop(homes);
    let (root, rest) = match home {
        Some(h) => {
            let rest = path.strip_prefix(&h).unwrap_or(Path::new("")).to_path_buf();
            (h, rest)
        }
        None => {
            let parent = path.parent().unwrap_or(&path).to_path_buf();
            let name = path.file_name().map(PathBuf::from).unwrap_or_default();
            (parent, name)
        }
    };
    let mut names = Vec::new();
    for c in rest.components() {
        match c {
            Component::CurDir => {}
            Component::Normal(n) => names.push(n.to_os_string()),
            _ => return Err(invalid(&path, "not a plain path below SENTINEL_HOME")),
        }
    }
    Ok((root, names))
}

/// The folder `dir` reached from its root down, each folder below the root checked not to be a
/// link, created when `create`.
fn walk(root: &Path, names: &[OsString], create: bool) -> std::io::Result<PathBuf> {
    match std::fs::metadata(root) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(invalid(root, "not a folder")),
        Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(root)?
        }
        Err(e) => return Err(e),
    }
    let mut at = root.to_path_buf();
    for name in names {
        at.push(name);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if is_link(&m) => return Err(link_refused(&at)),
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(invalid(&at, "not a folder")),
            Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::create_dir(&at) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                    _ => {}
                }
                // Made here, or by another process just now: looked at again either way.
                if is_link(&std::fs::symlink_metadata(&at)?) {
                    return Err(link_refused(&at));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

/// The folder holding `path`, walked to (created when `create`), and `path` in it.
fn parent(path: &Path, create: bool) -> std::io::Result<PathBuf> {
    let (root, mut names) = split(path)?;
    let name = names
        .pop()
        .ok_or_else(|| invalid(path, "not a file's path"))?;
    Ok(walk(&root, &names, create)?.join(name))
}

/// Opens one of sentinel's files (see [`super`]), and its length.
pub fn open_with_len(path: &Path, access: Access) -> std::io::Result<(File, u64)> {
    let at = parent(path, access.creates())?;
    let mut options = OpenOptions::new();
    match access {
        Access::Read => options.read(true),
        Access::Update => options.read(true).write(true).create(true),
        Access::Append => options.append(true).create(true),
        Access::ReadAppend => options.read(true).append(true),
        Access::Write => options.write(true).create(true),
        Access::Fresh => options.write(true).create_new(true),
    };
    let file = options
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(&at)?;
    let meta = file.metadata()?;
    if is_link(&meta) {
        return Err(link_refused(path));
    }
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    Ok((file, meta.len()))
}

/// Makes the folder `dir` (and the folders above it up to its home), none through a link.
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    let (root, names) = split(dir)?;
    walk(&root, &names, true).map(drop)
}

/// Removes one of sentinel's files (a link there is removed itself: `remove_file` does not
/// follow one).
pub fn remove(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(parent(path, false)?)
}

/// Removes the folder `dir` and everything in it; std's `remove_dir_all` does not follow a link
/// or junction inside it, and the folder itself must not be one.
pub fn remove_tree(dir: &Path) -> std::io::Result<()> {
    let at = parent(dir, false)?;
    if is_link(&std::fs::symlink_metadata(&at)?) {
        return Err(link_refused(&at));
    }
    std::fs::remove_dir_all(at)
}

/// Renames `from` to `to` (both sentinel's; `to`'s folder is created when missing).
pub fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    let a = parent(from, false)?;
    let b = parent(to, true)?;
    std::fs::rename(a, b)
}

/// The entries of the folder `dir`, reached without following a link; an absent folder has none.
pub fn entries(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let (root, names) = split(dir)?;
    let at = match walk(&root, &names, false) {
        Ok(at) => at,
        Err(e) if crate::config::is_absent(&e) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(at)?.flatten() {
        // A folder entry's metadata on Windows is the link's own, never its target's.
        let Ok(meta) = entry.metadata() else { continue };
        out.push(Entry {
            name: entry.file_name(),
            is_file: meta.is_file() && !is_link(&meta),
            len: meta.len(),
            modified: meta.modified().unwrap_or(std::time::UNIX_EPOCH),
        });
    }
    Ok(out)
}

pub(super) fn kind_of(meta: &Metadata) -> &'static str {
    if meta.is_dir() {
        "a directory"
    } else {
        "not a plain file"
    }
}
