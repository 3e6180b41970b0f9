//! How Tier 1 reads the file system: symlinks, globs, a package manifest's scripts. [`RealFs`]
//! asks the system; [`LexicalFs`] touches nothing (tests, fuzzing, benchmarks).

use std::path::{Component, Path, PathBuf};

/// How the file system is consulted when a path is resolved.
pub trait Fs {
    /// The real path of `p`: every symlink on the way followed, dangling ones too (a write
    /// through a dangling link creates its target). Components that do not exist are kept.
    fn real_path(&self, p: &Path) -> PathBuf;

    /// The paths an absolute glob matches now, as the shell would expand it; None when that
    /// cannot be known (too many entries, or no file system to ask).
    fn glob(&self, pattern: &Path) -> Option<Vec<PathBuf>>;

    /// Whether `p` is a directory now (a symlink is not); None when that cannot be known.
    fn is_dir(&self, p: &Path) -> Option<bool>;

    /// Whether git ignores `p` in the work tree rooted at `root` (its `.gitignore` files along
    /// the way and `.git/info/exclude`); None when that cannot be known.
    fn git_ignored(&self, root: &Path, p: &Path) -> Option<bool>;

    /// The script names of the `package.json` in `dir`: None when there is none or it cannot
    /// be read as one (so a name cannot be told to be a script).
    fn package_scripts(&self, dir: &Path) -> Option<Vec<String>>;

    /// The text of the file `p`, read up to `max` bytes (issue 29: what runs is read first).
    /// A file system that is not asked says [`FileText::Unknown`].
    fn read_text(&self, _p: &Path, _max: u64) -> FileText {
        FileText::Unknown
    }

    /// The bytes of the file `p`, when it is at most `max` long (git's index); None when it is
    /// not there, larger, or the file system was not asked.
    fn read_bytes(&self, _p: &Path, _max: u64) -> Option<Vec<u8>> {
        None
    }

    /// What lies below the directory `dir`, breadth first (shallow names first), each path with
    /// whether it is a symlink (never entered), `.git` not entered; at most `max` entries, and
    /// whether that was all of them. Nothing for a file or a path that does not exist.
    fn entries_under(&self, dir: &Path, max: usize) -> (Vec<(PathBuf, bool)>, bool);
}

/// A file's content as Tier 1 reads it before the file runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileText {
    /// The whole file, UTF-8 text.
    Text(String),
    /// There is no such file (yet).
    Missing,
    /// Longer than the bound.
    TooBig,
    /// Not text (a NUL byte, or not UTF-8): a compiled program.
    Binary,
    /// It exists but cannot be read, or the file system was not asked.
    Unknown,
}

/// The largest `package.json` sentinel reads for its script names.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Follows symlinks on the real file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

/// Symlinks followed in one resolution before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;
/// Directory entries a glob may look at before sentinel stops expanding it.
const MAX_GLOB_ENTRIES: usize = 20_000;

/// What one path is, as resolving a path through links needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Node {
    /// There, and not a symlink.
    Plain,
    /// Not there, or not to be looked at (`symlink_metadata` failed).
    Missing,
    /// A symlink, and its target when it could be read.
    Link(Option<PathBuf>),
}

/// What `p` is now, asked of the system.
pub(super) fn node(p: &Path) -> Node {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_symlink() => Node::Link(std::fs::read_link(p).ok()),
        Ok(_) => Node::Plain,
        Err(_) => Node::Missing,
    }
}

/// The real path of `p` (see [`Fs::real_path`]), each prefix looked at through `node`.
pub(super) fn resolve(p: &Path, mut node: impl FnMut(&Path) -> Node) -> PathBuf {
    let mut out = PathBuf::from("/");
    let mut todo: Vec<std::ffi::OsString> = p
        .components()
        .rev()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    let mut links = 0;
    let mut exists = true;
    while let Some(part) = todo.pop() {
        if part == ".." {
            out.pop();
            continue;
        }
        out.push(&part);
        if !exists {
            continue;
        }
        match node(&out) {
            Node::Link(target) => {
                links += 1;
                let Some(target) = target else {
                    continue;
                };
                if links > MAX_LINKS {
                    return out;
                }
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                for c in target.components().rev() {
                    match c {
                        Component::Normal(n) => todo.push(n.to_os_string()),
                        Component::ParentDir => todo.push("..".into()),
                        _ => {}
                    }
                }
            }
            Node::Plain => {}
            Node::Missing => exists = false,
        }
    }
    out
}

impl Fs for RealFs {
    fn real_path(&self, p: &Path) -> PathBuf {
        resolve(p, node)
    }

    fn glob(&self, pattern: &Path) -> Option<Vec<PathBuf>> {
        let mut found = vec![PathBuf::from("/")];
        let mut budget = MAX_GLOB_ENTRIES;
        for c in pattern.components() {
            let Component::Normal(part) = c else {
                continue;
            };
            let part = part.to_str()?;
            if !part.contains(['*', '?', '[']) {
                for f in &mut found {
                    f.push(part);
                }
                found.retain(|f| std::fs::symlink_metadata(f).is_ok());
                continue;
            }
            let matcher = globset::GlobBuilder::new(part)
                .literal_separator(true)
                .build()
                .ok()?
                .compile_matcher();
            let mut next = Vec::new();
            for dir in &found {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                for e in entries.flatten() {
                    budget = budget.checked_sub(1)?;
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    // Like bash: a leading dot is matched only by a pattern that starts with one.
                    if name.starts_with('.') && !part.starts_with('.') {
                        continue;
                    }
                    if matcher.is_match(name.as_ref()) {
                        next.push(dir.join(name.as_ref()));
                    }
                }
            }
            found = next;
        }
        Some(found)
    }

    fn is_dir(&self, p: &Path) -> Option<bool> {
        match std::fs::symlink_metadata(p) {
            Ok(m) => Some(m.is_dir()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(false),
            Err(_) => None,
        }
    }

    fn git_ignored(&self, root: &Path, p: &Path) -> Option<bool> {
        let exclude = root.join(".git/info/exclude");
        let gi = crate::ledger::git_ignore::rules_for(root, p, &exclude)?;
        Some(
            gi.matched_path_or_any_parents(p, self.is_dir(p) == Some(true))
                .is_ignore(),
        )
    }

    fn package_scripts(&self, dir: &Path) -> Option<Vec<String>> {
        // Never blocking on a FIFO, never a device: only a regular file is read.
        let bytes = crate::config::files::read(
            &dir.join("package.json"),
            MAX_MANIFEST_BYTES,
            crate::config::files::Links::Follow,
        )
        .ok()?;
        script_names(std::str::from_utf8(&bytes).ok()?)
    }

    fn read_text(&self, p: &Path, max: u64) -> FileText {
        use std::io::Read;
        // Opened without blocking (a FIFO the call runs would hold the answer back) and only
        // when it is a regular file: a FIFO, a device or a folder is unreadable.
        let opened = crate::config::files::open_with_len(
            p,
            std::fs::OpenOptions::new().read(true),
            crate::config::files::Links::Follow,
        );
        let file = match opened {
            Ok((_, len)) if len > max => return FileText::TooBig,
            Ok((f, _)) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return FileText::Missing,
            Err(_) => return FileText::Unknown,
        };
        let mut bytes = Vec::new();
        if file.take(max + 1).read_to_end(&mut bytes).is_err() {
            return FileText::Unknown;
        }
        if bytes.len() as u64 > max {
            return FileText::TooBig;
        }
        if bytes.contains(&0) {
            return FileText::Binary;
        }
        match String::from_utf8(bytes) {
            Ok(t) => FileText::Text(t),
            Err(_) => FileText::Binary,
        }
    }

    fn read_bytes(&self, p: &Path, max: u64) -> Option<Vec<u8>> {
        use std::io::Read;
        let file = std::fs::File::open(p).ok()?;
        if file.metadata().ok()?.len() > max {
            return None;
        }
        let mut bytes = Vec::new();
        file.take(max + 1).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= max).then_some(bytes)
    }

    fn entries_under(&self, dir: &Path, max: usize) -> (Vec<(PathBuf, bool)>, bool) {
        let mut found = Vec::new();
        let mut todo = std::collections::VecDeque::from([dir.to_path_buf()]);
        while let Some(d) = todo.pop_front() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                if found.len() >= max {
                    return (found, false);
                }
                let Ok(t) = e.file_type() else { continue };
                let path = e.path();
                if t.is_dir() && e.file_name() != ".git" {
                    todo.push_back(path.clone());
                }
                found.push((path, t.is_symlink()));
            }
        }
        (found, true)
    }
}

/// The keys of `scripts` in a `package.json` text.
pub fn script_names(manifest: &str) -> Option<Vec<String>> {
    let v: serde_json::Value = serde_json::from_str(manifest).ok()?;
    let scripts = v.as_object()?.get("scripts");
    match scripts {
        None => Some(Vec::new()),
        Some(s) => Some(s.as_object()?.keys().cloned().collect()),
    }
}

/// Never touches the file system: paths are resolved lexically only, and globs not expanded.
#[derive(Clone, Copy, Debug, Default)]
pub struct LexicalFs;

impl Fs for LexicalFs {
    fn real_path(&self, p: &Path) -> PathBuf {
        p.to_path_buf()
    }

    fn glob(&self, _pattern: &Path) -> Option<Vec<PathBuf>> {
        None
    }

    fn is_dir(&self, _p: &Path) -> Option<bool> {
        None
    }

    fn git_ignored(&self, _root: &Path, _p: &Path) -> Option<bool> {
        None
    }

    fn package_scripts(&self, _dir: &Path) -> Option<Vec<String>> {
        None
    }

    /// A file system with no files: nothing lies below any directory.
    fn entries_under(&self, _dir: &Path, _max: usize) -> (Vec<(PathBuf, bool)>, bool) {
        (Vec::new(), true)
    }
}
