//! The paths git tracks, read from a repository's index file, with the stat data git keeps for
//! each: what [`super::uncommitted`] compares the work tree against. Read by hand (index versions
//! 2 to 4) rather than by running `git status`: that would run what the agent's repository names
//! in its config and attributes (an fsmonitor, clean filters) from inside the hook.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The largest index read (a repository of ~300,000 files); a larger one is not read.
const MAX_INDEX_BYTES: u64 = 32 * 1024 * 1024;

/// What the index says of one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub size: u32,
    pub mode: u32,
    /// Not 0 during a merge conflict.
    pub stage: u16,
    /// `git add -N`: named, its content never added.
    pub intent_to_add: bool,
    /// Git does not look at the work tree's copy (sparse checkout, `--skip-worktree`).
    pub skip_worktree: bool,
}

impl Entry {
    /// A submodule: its content is another repository's.
    pub fn is_gitlink(&self) -> bool {
        self.mode & 0o170000 == 0o160000
    }
}

/// The index's entries by path (bytes, `/`-separated, relative to the work tree's top).
pub type Index = HashMap<Vec<u8>, Entry>;

/// A repository: its work tree's top and its git folder.
#[derive(Clone, Debug)]
pub struct Repo {
    pub top: PathBuf,
    pub git_dir: PathBuf,
    /// Where the shared config and refs live (a linked worktree's main git folder).
    pub common_dir: PathBuf,
}

/// The repository whose work tree holds `dir`: the nearest folder at or above it with a `.git`
/// folder, or a `.git` file naming one (`gitdir: …`, a linked worktree or a submodule), that
/// holds a `HEAD`.
pub fn repo_of(dir: &Path) -> Option<Repo> {
    for top in dir.ancestors() {
        let dot_git = top.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else if meta.is_file() {
            let text = read_small(&dot_git, 4096)?;
            let named = String::from_utf8(text).ok()?;
            let named = named.strip_prefix("gitdir:")?.trim();
            top.join(named)
        } else {
            return None;
        };
        // What git itself requires of a repository; it looks further up otherwise.
        if std::fs::symlink_metadata(git_dir.join("HEAD")).is_err() {
            continue;
        }
        let common_dir = match read_small(&git_dir.join("commondir"), 4096) {
            Some(text) => git_dir.join(String::from_utf8(text).ok()?.trim()),
            None => git_dir.clone(),
        };
        return Some(Repo {
            top: top.to_path_buf(),
            git_dir,
            common_dir,
        });
    }
    None
}

/// The repository's index: empty when it has none yet (nothing added), None when it cannot be
/// read or is of a kind not read here (a split index, an unknown version, damaged).
pub fn read(repo: &Repo) -> Option<Index> {
    let path = repo.git_dir.join("index");
    match std::fs::symlink_metadata(&path) {
        Err(e) if crate::config::is_absent(&e) => return Some(Index::new()),
        Err(_) => return None,
        Ok(m) if !m.is_file() || m.len() > MAX_INDEX_BYTES => return None,
        Ok(_) => {}
    }
    let bytes = read_small(&path, MAX_INDEX_BYTES)?;
    parse(&bytes, hash_len(repo))
}

/// The object names' length: 32 bytes in a SHA-256 repository, else 20.
fn hash_len(repo: &Repo) -> usize {
    let config = read_small(&repo.common_dir.join("config"), 1024 * 1024).unwrap_or_default();
    let text = String::from_utf8_lossy(&config);
    let sha256 = text.lines().any(|l| {
        let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        l.eq_ignore_ascii_case("objectformat=sha256")
    });
    if sha256 { 32 } else { 20 }
}

/// Parses an index file's bytes (`hash` the object names' length).
pub fn parse(bytes: &[u8], hash: usize) -> Option<Index> {
    let mut at = Cursor { bytes, pos: 0 };
    if at.take(4)? != b"DIRC" {
        return None;
    }
    let version = at.u32()?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = at.u32()? as usize;
    // Each entry takes more than 40 bytes: a count the file cannot hold is damage.
    if count > bytes.len() / 40 {
        return None;
    }
    let mut index = Index::with_capacity(count);
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at.pos;
        let ctime = (at.u32()?, at.u32()?);
        let mtime = (at.u32()?, at.u32()?);
        let _dev = at.u32()?;
        let _ino = at.u32()?;
        let mode = at.u32()?;
        let _uid = at.u32()?;
        let _gid = at.u32()?;
        let size = at.u32()?;
        at.take(hash)?;
        let flags = at.u16()?;
        let extended = flags & 0x4000 != 0;
        if extended && version < 3 {
            return None;
        }
        let more = if extended { at.u16()? } else { 0 };
        let path = if version == 4 {
            let strip = at.varint()?;
            let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(at.until_nul()?);
            path
        } else {
            let path = at.until_nul()?.to_vec();
            // The entry, its name's NUL included, is padded with NULs to a multiple of 8.
            let used = at.pos - start;
            let padded = (used + 7) & !7;
            at.take(padded - used)?;
            path
        };
        previous.clone_from(&path);
        index.insert(
            path,
            Entry {
                ctime,
                mtime,
                size,
                mode,
                stage: (flags >> 12) & 0x3,
                intent_to_add: more & 0x2000 != 0,
                skip_worktree: more & 0x4000 != 0,
            },
        );
    }
    // Extensions follow, then the checksum. A split index keeps most entries in another file.
    while bytes.len().saturating_sub(at.pos) > hash {
        let signature = at.take(4)?;
        let size = at.u32()? as usize;
        if signature == b"link" {
            return None;
        }
        at.take(size)?;
    }
    Some(index)
}

/// A file's first `max` bytes, through no link; None when it cannot be read.
fn read_small(path: &Path, max: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = crate::config::files::open(
        path,
        std::fs::OpenOptions::new().read(true),
        crate::config::files::Links::Refuse,
    )
    .ok()?;
    let mut out = Vec::new();
    file.take(max).read_to_end(&mut out).ok()?;
    Some(out)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    fn until_nul(&mut self) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.pos..)?;
        let len = rest.iter().position(|&b| b == 0)?;
        self.pos += len + 1;
        Some(&rest[..len])
    }

    /// Git's offset varint (index version 4): 7 bits a byte, each continuation adds one.
    fn varint(&mut self) -> Option<u64> {
        let mut byte = self.take(1)?[0];
        let mut value = u64::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            value = value.checked_add(1)?;
            if value >> 57 != 0 {
                return None;
            }
            byte = self.take(1)?[0];
            value = (value << 7) | u64::from(byte & 0x7f);
        }
        Some(value)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    fn repo_with(version: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        for f in ["a.py", "src/b.py", "src/deep/c.py", "src/deep/cc.py"] {
            std::fs::write(root.join(f), f).unwrap();
        }
        git(root, &["add", "a.py", "src"]);
        git(root, &["update-index", "--index-version", version]);
        std::fs::write(root.join("n.py"), "n").unwrap();
        git(root, &["add", "-N", "n.py"]);
        dir
    }

    #[test]
    fn every_version_reads_the_same_paths() {
        for version in ["2", "3", "4"] {
            let dir = repo_with(version);
            let repo = repo_of(&dir.path().join("src/deep")).unwrap();
            assert_eq!(repo.top, dir.path());
            let index = read(&repo).unwrap();
            let mut paths: Vec<_> = index
                .keys()
                .map(|p| String::from_utf8(p.clone()).unwrap())
                .collect();
            paths.sort();
            assert_eq!(
                paths,
                [
                    "a.py",
                    "n.py",
                    "src/b.py",
                    "src/deep/c.py",
                    "src/deep/cc.py"
                ],
                "version {version}"
            );
            let a = &index[b"a.py".as_slice()];
            assert_eq!(a.size, 4);
            assert!(!a.intent_to_add);
            // `add -N` needs the extended flags, which version 2 cannot hold (git writes 3).
            assert!(index[b"n.py".as_slice()].intent_to_add, "version {version}");
        }
    }

    #[test]
    fn damage_is_never_read_as_an_index() {
        let dir = repo_with("2");
        let bytes = std::fs::read(dir.path().join(".git/index")).unwrap();
        assert!(parse(&bytes, 20).is_some());
        for cut in [3, 12, 40, 70, bytes.len() / 2] {
            assert!(parse(&bytes[..cut], 20).is_none(), "cut at {cut}");
        }
        let mut wrong = bytes.clone();
        wrong[0] = b'X';
        assert!(parse(&wrong, 20).is_none());
        // A count far past what the file holds.
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(parse(&huge, 20).is_none());
    }

    #[test]
    fn no_index_yet_is_empty_and_no_repository_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(repo_of(dir.path()).is_none() || repo_of(dir.path()).unwrap().top != dir.path());
        git(dir.path(), &["init", "-q"]);
        let repo = repo_of(dir.path()).unwrap();
        assert_eq!(read(&repo).unwrap().len(), 0);
    }

    #[test]
    fn a_linked_worktree_reads_its_own_index() {
        let dir = repo_with("2");
        git(dir.path(), &["commit", "-qm", "x"]);
        let linked = dir.path().join("wt");
        git(
            dir.path(),
            &["worktree", "add", "-q", linked.to_str().unwrap()],
        );
        let repo = repo_of(&linked).unwrap();
        assert_eq!(repo.top, linked);
        assert_ne!(repo.git_dir, repo.common_dir);
        let index = read(&repo).unwrap();
        assert!(index.contains_key(b"src/deep/c.py".as_slice()));
    }
}
