//! The real file system, each path looked at once per decision. A decision resolves the same
//! folders again and again (a 200-line script names `src/` and `build/` on most lines, and every
//! path is resolved from `/` down): [`MemoFs`] answers as [`RealFs`] does and remembers what each
//! path it went through was (there, not there, a link and where to), so the second look costs no
//! system call. It lives for one decision, which judges one moment of the file system anyway
//! (nothing in a decision writes where a command's paths resolve).

use super::fs::{FileText, Fs, Node, RealFs, node, resolve};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};

/// Paths remembered at most; past it the memo starts again (a decision over a huge script
/// stays bounded in memory).
const MAX_NODES: usize = 4096;
/// Resolutions asked of the system before the memo starts: an ordinary call resolves a few
/// paths, and remembering them would cost it more than the look it saves.
const COLD_RESOLUTIONS: u32 = 16;

/// [`RealFs`] with the links it resolved through remembered.
#[derive(Debug, Default)]
pub struct MemoFs {
    resolved: Cell<u32>,
    nodes: RefCell<HashMap<Vec<u8>, Node, BuildHasherDefault<Fnv>>>,
}

/// FNV-1a: a path's bytes hashed in a few instructions a byte (the standard SipHash cost more
/// than the `statx` it saves). Keys are the decision's own paths, not an adversary's choice of
/// many colliding ones that would matter within [`MAX_NODES`].
#[derive(Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl MemoFs {
    pub fn new() -> MemoFs {
        MemoFs::default()
    }

    fn node(&self, p: &Path) -> Node {
        let key = crate::platform::path_bytes::bytes(p.as_os_str());
        let key = key.as_ref();
        if let Some(n) = self.nodes.borrow().get(key) {
            return n.clone();
        }
        let n = node(p);
        let mut nodes = self.nodes.borrow_mut();
        if nodes.len() >= MAX_NODES {
            nodes.clear();
        }
        nodes.insert(key.to_vec(), n.clone());
        n
    }
}

impl Fs for MemoFs {
    fn real_path(&self, p: &Path) -> PathBuf {
        let n = self.resolved.get();
        if n < COLD_RESOLUTIONS {
            self.resolved.set(n + 1);
            return resolve(p, node);
        }
        resolve(p, |q| self.node(q))
    }

    fn glob(&self, pattern: &Path) -> Option<Vec<PathBuf>> {
        RealFs.glob(pattern)
    }

    fn is_dir(&self, p: &Path) -> Option<bool> {
        RealFs.is_dir(p)
    }

    fn git_ignored(&self, root: &Path, p: &Path) -> Option<bool> {
        RealFs.git_ignored(root, p)
    }

    fn package_scripts(&self, dir: &Path) -> Option<Vec<String>> {
        RealFs.package_scripts(dir)
    }

    fn read_text(&self, p: &Path, max: u64) -> FileText {
        RealFs.read_text(p, max)
    }

    fn read_bytes(&self, p: &Path, max: u64) -> Option<Vec<u8>> {
        RealFs.read_bytes(p, max)
    }

    fn entries_under(&self, dir: &Path, max: usize) -> (Vec<(PathBuf, bool)>, bool) {
        RealFs.entries_under(dir, max)
    }
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The memo answers as the system does, through links (absolute, relative, dangling, a
    /// loop) and missing parts, asked twice.
    #[test]
    fn answers_as_the_real_file_system() {
        let root = std::env::current_dir().unwrap().join("target/memo-fs-test");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("abs")).unwrap();
        std::os::unix::fs::symlink("a/b", root.join("rel")).unwrap();
        std::os::unix::fs::symlink("nowhere/x", root.join("dangling")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        let memo = MemoFs::new();
        // Past the cold resolutions, twice over.
        for _ in 0..(2 + COLD_RESOLUTIONS as usize) {
            for p in [
                "a/b/c",
                "abs/b/../b/file",
                "rel/f",
                "dangling",
                "dangling/y",
                "loop/z",
                "missing/a/b",
                "a/../abs/b",
            ] {
                let p = root.join(p);
                assert_eq!(memo.real_path(&p), RealFs.real_path(&p), "{}", p.display());
            }
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
