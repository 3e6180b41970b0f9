//! A git repository as Tier 1 reads it from its files, without running git (a process per hook
//! would cost more than the decision): where it is, the remotes its config names, and whether
//! its index tracks a path. Each answer is None when the files do not say for sure; the caller
//! then takes the careful side.

use crate::local::paths::fs::{FileText, Fs};
use std::path::{Path, PathBuf};

/// The largest index read; a larger one leaves whether a path is tracked unknown.
const MAX_INDEX_BYTES: u64 = 32 << 20;
/// The largest config (or `.git` file, `commondir`) read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A repository: its work tree, its git directory, and the directory its config and shared
/// state live in (another one for a linked work tree).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repo {
    pub work_tree: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
}

/// The repository whose work tree holds `dir`: the nearest folder at or above it with a
/// `.git`. None when there is none, or the file system cannot say.
pub fn repository(dir: &Path, fs: &dyn Fs) -> Option<Repo> {
    let mut at = Some(dir);
    while let Some(d) = at {
        let dot_git = d.join(".git");
        match fs.is_dir(&dot_git)? {
            true => return Some(repo_at(d, dot_git.clone(), fs)),
            false => match fs.read_text(&dot_git, MAX_CONFIG_BYTES) {
                FileText::Missing => {}
                // A linked work tree or a submodule: `gitdir: PATH`.
                FileText::Text(t) => {
                    let target = t.trim().strip_prefix("gitdir:")?.trim().to_string();
                    return Some(repo_at(d, d.join(target), fs));
                }
                // A link to a directory, or what cannot be read: taken as the git directory.
                _ => return Some(repo_at(d, dot_git.clone(), fs)),
            },
        }
        at = d.parent();
    }
    None
}

/// The git directory git itself would use from `dir`, found as git finds it: at each folder
/// from `dir` up, its `.git` (a directory, or a file `gitdir: PATH`), else the folder itself
/// when it is laid out as a git directory (`HEAD` with `objects/` or `commondir`: a bare
/// repository, or a cwd inside a git directory). `Some(None)`: no repository; None: the file
/// system cannot say.
pub fn git_dir(dir: &Path, fs: &dyn Fs) -> Option<Option<PathBuf>> {
    let mut at = Some(dir);
    while let Some(d) = at {
        let dot_git = d.join(".git");
        match fs.is_dir(&dot_git) {
            None => return None,
            Some(true) => return Some(Some(dot_git)),
            Some(false) => match fs.read_text(&dot_git, MAX_CONFIG_BYTES) {
                FileText::Missing => {}
                FileText::Text(t) => {
                    let target = t.trim().strip_prefix("gitdir:")?;
                    let named = Path::new(target.trim());
                    let at = if named.is_absolute() {
                        named.to_path_buf()
                    } else {
                        d.join(named)
                    };
                    return Some(Some(crate::local::paths::scan::clean(&at)));
                }
                _ => return None,
            },
        }
        let laid_out = fs.read_text(&d.join("HEAD"), 0) != FileText::Missing
            && (fs.is_dir(&d.join("objects")) != Some(false)
                || fs.read_text(&d.join("commondir"), 0) != FileText::Missing);
        if laid_out {
            return Some(Some(d.to_path_buf()));
        }
        at = d.parent();
    }
    Some(None)
}

fn repo_at(work_tree: &Path, git_dir: PathBuf, fs: &dyn Fs) -> Repo {
    let git_dir = crate::local::paths::scan::clean(&git_dir);
    let common_dir = match fs.read_text(&git_dir.join("commondir"), MAX_CONFIG_BYTES) {
        FileText::Text(t) => crate::local::paths::scan::clean(&git_dir.join(t.trim())),
        _ => git_dir.clone(),
    };
    Repo {
        work_tree: work_tree.to_path_buf(),
        git_dir,
        common_dir,
    }
}

/// The text of the repository's own config; None when it cannot be read.
pub fn config(repo: &Repo, fs: &dyn Fs) -> Option<String> {
    match fs.read_text(&repo.common_dir.join("config"), MAX_CONFIG_BYTES) {
        FileText::Text(t) => Some(t),
        FileText::Missing => Some(String::new()),
        _ => None,
    }
}

/// A remote the config names, with its fetch and push URLs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remote {
    pub name: String,
    pub urls: Vec<String>,
}

/// The remotes a config text names (`[remote "origin"]` with its `url` and `pushurl`). An
/// included file (`[include] path = …`) is not followed: its remotes are not known, which only
/// makes a name or URL count as new.
pub fn remotes(config: &str) -> Vec<Remote> {
    let mut out: Vec<Remote> = Vec::new();
    let mut current: Option<usize> = None;
    for line in config.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or("");
            current =
                remote_name(header).map(|name| match out.iter().position(|r| r.name == name) {
                    Some(i) => i,
                    None => {
                        out.push(Remote {
                            name,
                            urls: Vec::new(),
                        });
                        out.len() - 1
                    }
                });
            continue;
        }
        let Some(i) = current else { continue };
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if matches!(key.trim().to_ascii_lowercase().as_str(), "url" | "pushurl") {
            out[i].urls.push(config_value(value));
        }
    }
    out
}

/// `remote "origin"` (or the old `remote.origin`) → `origin`.
fn remote_name(header: &str) -> Option<String> {
    let header = header.trim();
    let (section, sub) = match header.split_once(char::is_whitespace) {
        Some((s, rest)) => (s, rest.trim().strip_prefix('"')?.strip_suffix('"')?),
        None => header.split_once('.')?,
    };
    section
        .eq_ignore_ascii_case("remote")
        .then(|| sub.replace("\\\"", "\"").replace("\\\\", "\\"))
}

/// A config value: quotes removed, a comment after it cut.
fn config_value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => out.extend(chars.next()),
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim().to_string()
}

/// Whether the repository's index tracks `rel` (relative to its work tree, `/`-separated): a
/// file staged or committed, or one under a directory a sparse index keeps whole. None when
/// the index cannot be read as one (split or unknown formats, too large, not there to ask).
pub fn tracked(repo: &Repo, rel: &Path, fs: &dyn Fs) -> Option<bool> {
    let rel = rel.to_str()?.as_bytes();
    let Some(bytes) = fs.read_bytes(&repo.git_dir.join("index"), MAX_INDEX_BYTES) else {
        // A repository with nothing staged yet has no index: nothing is tracked.
        return match fs.read_text(&repo.git_dir.join("index"), 0) {
            FileText::Missing => Some(false),
            _ => None,
        };
    };
    let sha256 = config(repo, fs)?
        .to_ascii_lowercase()
        .contains("objectformat = sha256");
    index_holds(&bytes, rel, if sha256 { 32 } else { 20 })
}

/// Whether an index file (`DIRC`, versions 2–4, read by [`crate::ledger::git_index`]) has an
/// entry for `rel`, or a sparse directory entry above it.
fn index_holds(bytes: &[u8], rel: &[u8], hash: usize) -> Option<bool> {
    let index = crate::ledger::git_index::parse(bytes, hash)?;
    Some(
        index.contains_key(rel)
            || index.iter().any(|(name, e)| {
                e.mode & 0o170000 == 0o040000 && name.ends_with(b"/") && rel.starts_with(name)
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `version` holding `names` in order, as git writes it (SHA-1).
    fn index(version: u32, names: &[&str]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend(version.to_be_bytes());
        out.extend((names.len() as u32).to_be_bytes());
        let mut prev: &[u8] = b"";
        for n in names {
            let start = out.len();
            out.extend([0u8; 24]);
            out.extend(0o100644u32.to_be_bytes());
            out.extend([0u8; 12]);
            out.extend([7u8; 20]);
            out.extend((n.len().min(0xfff) as u16).to_be_bytes());
            if version == 4 {
                let common = prev
                    .iter()
                    .zip(n.as_bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                out.push((prev.len() - common) as u8);
                out.extend(&n.as_bytes()[common..]);
                out.push(0);
            } else {
                out.extend(n.as_bytes());
                let len = out.len() - start;
                out.extend(std::iter::repeat_n(0u8, (len + 8) / 8 * 8 - len));
            }
            prev = n.as_bytes();
        }
        out.extend([9u8; 20]);
        out
    }

    #[test]
    fn the_index_says_which_paths_are_tracked() {
        let names = [".env.example", "src/a.ts", "src/b.ts", "src/bb/c.ts"];
        for version in [2, 3, 4] {
            let idx = index(version, &names);
            for n in names {
                assert_eq!(index_holds(&idx, n.as_bytes(), 20), Some(true), "{n}");
            }
            for n in [".env", "src", "src/a", "src/bb/c.tsx"] {
                assert_eq!(index_holds(&idx, n.as_bytes(), 20), Some(false), "{n}");
            }
        }
        assert_eq!(index_holds(b"DIRX", b"a", 20), None);
        let mut cut = index(2, &names);
        cut.truncate(40);
        assert_eq!(index_holds(&cut, b"zzz", 20), None);
    }

    #[test]
    fn remotes_are_read_from_the_config() {
        let config = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[remote \"up\"]\n\tURL = \"git@github.com:o/y.git\" # theirs\n\tpushurl = ssh://me/y\n[branch \"main\"]\n\tremote = origin\n";
        let r = remotes(config);
        assert_eq!(
            r,
            vec![
                Remote {
                    name: "origin".into(),
                    urls: vec!["https://github.com/x/y.git".into()]
                },
                Remote {
                    name: "up".into(),
                    urls: vec!["git@github.com:o/y.git".into(), "ssh://me/y".into()]
                },
            ]
        );
    }
}
