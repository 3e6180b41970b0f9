//! Whether a recursive read opens one entry below the directory it walks, by the tests of its
//! [`Reach`]: each answers yes, no, or cannot tell, and only a sure "no" rules the entry out.
//! Asked only of the credential files a walk meets, so what it costs (a `.gitignore` read, git's
//! index) is paid only in a project that holds one.

use crate::decision::reach::{Reach, Test};
use crate::local::context::Context;
use crate::local::paths::fnmatch::{fnmatch, has_wildcard};
use crate::local::paths::git;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};

/// The walk being judged: the directory (real path) and how the command wrote it.
pub(super) struct Walked<'a> {
    pub(super) dir: &'a Path,
    pub(super) written: &'a str,
    ctx: &'a Context<'a>,
    repo: OnceCell<Option<git::Repo>>,
}

impl<'a> Walked<'a> {
    pub(super) fn new(dir: &'a Path, written: &'a str, ctx: &'a Context<'a>) -> Walked<'a> {
        Walked {
            dir,
            written,
            ctx,
            repo: OnceCell::new(),
        }
    }

    /// Whether the walk opens `entry` (a file or link below `dir`): true unless a test surely
    /// rules it out.
    pub(super) fn opens(&self, reach: &Reach, entry: &Path) -> bool {
        reach
            .tests
            .iter()
            .all(|t| self.test(t, entry) != Some(false))
    }

    /// Whether a test that needs no file system rules `entry` out (rg's `.env` is hidden): asked
    /// before the entry is matched against the credential list, which costs more.
    pub(super) fn ruled_out_by_name(&self, reach: &Reach, entry: &Path) -> bool {
        reach
            .tests
            .iter()
            .any(|t| by_name(t) && self.test(t, entry) == Some(false))
    }

    fn repo(&self) -> Option<&git::Repo> {
        self.repo
            .get_or_init(|| git::repository(self.dir, self.ctx.fs))
            .as_ref()
    }

    fn test(&self, t: &Test, entry: &Path) -> Option<bool> {
        match t {
            Test::Name {
                any_of,
                ignore_case,
            } => any(any_of, &self.name(entry), *ignore_case),
            Test::Path { glob, ignore_case } => fnmatch(glob, &self.shown(entry), *ignore_case),
            Test::Not { test: inner } => self.test(inner, entry).map(|b| !b),
            Test::Filters { rules } => filters(rules, &self.name(entry), &self.shown(entry)),
            Test::OutsideDirs { any_of } => {
                let mut unsure = false;
                for d in self.dirs_between(entry) {
                    match any(any_of, &self.name(&d), false) {
                        Some(true) => return Some(false),
                        None => unsure = true,
                        Some(false) => {}
                    }
                }
                (!unsure).then_some(true)
            }
            Test::Visible => Some(!is_hidden_below(entry, self.dir)),
            Test::NotIgnored => self.not_ignored(entry),
            Test::GitListed {
                cached,
                others,
                exclude_standard,
                pathspecs,
            } => self.git_listed(entry, (*cached, *others, *exclude_standard), pathspecs),
            Test::Handed { tests, whole_dirs } => {
                let handed = |node: &Path| {
                    tests
                        .iter()
                        .map(|t| self.test(t, node))
                        .try_fold(true, |all, r| r.map(|b| all && b))
                };
                let mut unsure = false;
                let mut nodes = vec![entry.to_path_buf()];
                if *whole_dirs {
                    nodes.push(self.dir.to_path_buf());
                    nodes.extend(self.dirs_between(entry));
                }
                for n in nodes {
                    match handed(&n) {
                        Some(true) => return Some(true),
                        None => unsure = true,
                        Some(false) => {}
                    }
                }
                (!unsure).then_some(false)
            }
        }
    }

    /// The base name of `node` as the walk sees it: the directory itself by how it was written
    /// (`.` for `find .`).
    fn name(&self, node: &Path) -> String {
        if node == self.dir {
            let w = self.written.trim_end_matches('/');
            return match w.rsplit_once('/') {
                Some((_, base)) if !base.is_empty() => base.to_string(),
                _ if w.is_empty() => "/".to_string(),
                _ => w.to_string(),
            };
        }
        node.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The path of `node` as the walk prints it: the directory as written, then the path below.
    fn shown(&self, node: &Path) -> String {
        let rel = node.strip_prefix(self.dir).unwrap_or(node);
        if rel.as_os_str().is_empty() {
            return self.written.to_string();
        }
        let sep = if self.written.ends_with('/') { "" } else { "/" };
        format!("{}{sep}{}", self.written, rel.display())
    }

    /// The directories strictly between the walked one and `entry`.
    fn dirs_between(&self, entry: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut at = entry.parent();
        while let Some(d) = at {
            if d == self.dir || !d.starts_with(self.dir) {
                break;
            }
            out.push(d.to_path_buf());
            at = d.parent();
        }
        out
    }

    fn not_ignored(&self, entry: &Path) -> Option<bool> {
        let Some(repo) = self.repo() else {
            // Outside a work tree nothing is ignored.
            return Some(true);
        };
        self.ctx
            .fs
            .git_ignored(&repo.work_tree, entry)
            .map(|ignored| !ignored)
    }

    /// `git ls-files` in the walked directory lists `entry`.
    fn git_listed(
        &self,
        entry: &Path,
        (cached, others, exclude_standard): (bool, bool, bool),
        pathspecs: &[String],
    ) -> Option<bool> {
        let rel = entry.strip_prefix(self.dir).ok()?.to_str()?;
        if !pathspecs.is_empty() {
            let mut unsure = false;
            let mut hit = false;
            for p in pathspecs {
                match pathspec_matches(p, rel) {
                    Some(true) => hit = true,
                    None => unsure = true,
                    Some(false) => {}
                }
            }
            if !hit {
                return if unsure { None } else { Some(false) };
            }
        }
        let repo = self.repo()?;
        // In a repository of its own below this one (a submodule), what git lists is not read
        // here.
        let mut at = entry.parent();
        while let Some(d) = at {
            if d == repo.work_tree || !d.starts_with(&repo.work_tree) {
                break;
            }
            if self.ctx.fs.is_dir(&d.join(".git")) != Some(false) {
                return None;
            }
            at = d.parent();
        }
        let in_repo = entry.strip_prefix(&repo.work_tree).ok()?;
        let tracked = git::tracked(repo, in_repo, self.ctx.fs)?;
        if tracked {
            return Some(cached);
        }
        if !others {
            return Some(false);
        }
        if !exclude_standard {
            return Some(true);
        }
        self.not_ignored(entry)
    }
}

/// A name below `dir` that starts with a dot, or lies in a directory that does.
fn is_hidden_below(entry: &Path, dir: &Path) -> bool {
    // The listing joins names to `dir` as they are: a plain byte test of what follows it.
    let (e, d) = (
        entry.as_os_str().as_encoded_bytes(),
        dir.as_os_str().as_encoded_bytes(),
    );
    match e.strip_prefix(d) {
        Some(rel) if d.ends_with(b"/") => {
            rel.first() == Some(&b'.') || crate::local::contains_bytes(rel, b"/.")
        }
        Some(rel) if rel.first() == Some(&b'/') => crate::local::contains_bytes(rel, b"/."),
        _ => entry.strip_prefix(dir).is_ok_and(|rel| {
            rel.components()
                .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b"."))
        }),
    }
}

/// A test answered from the path alone, without reading git's files.
fn by_name(t: &Test) -> bool {
    match t {
        Test::NotIgnored | Test::GitListed { .. } => false,
        Test::Not { test } => by_name(test),
        Test::Handed { tests, .. } => tests.iter().all(by_name),
        _ => true,
    }
}

/// Whether one of `globs` matches `name`; None when one cannot be read and none matched.
fn any(globs: &[String], name: &str, fold: bool) -> Option<bool> {
    let mut unsure = false;
    for g in globs {
        match fnmatch(g, name, fold) {
            Some(true) => return Some(true),
            None => unsure = true,
            Some(false) => {}
        }
    }
    (!unsure).then_some(false)
}

/// grep's `--include`/`--exclude` on a file: opened by GNU grep (the last rule matching the
/// base name decides; none matching, opened unless the first rule is an include) or by BSD grep
/// (a rule matches the base name or the whole path; none matching, opened when there is no
/// include at all). Either opening it is enough.
fn filters(rules: &[(bool, String)], name: &str, path: &str) -> Option<bool> {
    let mut gnu = None;
    let mut bsd = None;
    for (include, glob) in rules {
        let base = fnmatch(glob, name, false)?;
        if base {
            gnu = Some(*include);
        }
        if base || fnmatch(glob, path, false)? {
            bsd = Some(*include);
        }
    }
    let first_include = rules.first().is_some_and(|(i, _)| *i);
    let any_include = rules.iter().any(|(i, _)| *i);
    Some(gnu.unwrap_or(!first_include) || bsd.unwrap_or(!any_include))
}

/// Whether a git pathspec (relative to where `git ls-files` runs) takes `rel`: the path itself,
/// a directory above it, or a wildcard over the whole path (`*` crossing `/`, as git matches
/// without `:(glob)`). Case is ignored: a case-insensitive work tree matches so.
fn pathspec_matches(spec: &str, rel: &str) -> Option<bool> {
    let spec = spec.trim_start_matches("./");
    let plain = spec.trim_end_matches('/');
    if plain.is_empty() || plain == "." {
        return Some(true);
    }
    let lower = |s: &str| s.to_ascii_lowercase();
    if lower(rel) == lower(plain) || lower(rel).starts_with(&format!("{}/", lower(plain))) {
        return Some(true);
    }
    if !has_wildcard(spec) {
        return Some(false);
    }
    fnmatch(spec, rel, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grep_filters_open_what_either_grep_would() {
        let r = |rules: &[(bool, &str)], name: &str| {
            let rules: Vec<(bool, String)> =
                rules.iter().map(|(i, g)| (*i, g.to_string())).collect();
            filters(&rules, name, &format!("./{name}")).unwrap()
        };
        assert!(!r(&[(true, "*.go")], ".env"));
        assert!(r(&[(true, "*.go")], "main.go"));
        assert!(r(&[(true, "*.env")], ".env"));
        assert!(r(&[(true, ".env*")], ".env"));
        assert!(r(&[(true, "*")], ".env"));
        assert!(!r(&[(false, ".env")], ".env"));
        assert!(r(&[(false, "*.log")], ".env"));
        // GNU opens it (first rule an exclude); BSD does not (an include is given).
        assert!(r(&[(false, "*.log"), (true, "*.go")], ".env"));
        assert!(!r(&[(true, "*.go"), (false, "*.log")], ".env"));
        // The last matching rule decides.
        assert!(!r(&[(true, "*"), (false, ".env")], ".env"));
        assert!(r(&[(false, ".env"), (true, "*")], ".env"));
    }

    #[test]
    fn pathspecs_take_paths_directories_and_wildcards() {
        assert_eq!(pathspec_matches("*.ts", "src/a.ts"), Some(true));
        assert_eq!(pathspec_matches("*.ts", ".env"), Some(false));
        assert_eq!(pathspec_matches("src", "src/.env"), Some(true));
        assert_eq!(pathspec_matches("src/", "src/x/y"), Some(true));
        assert_eq!(pathspec_matches("sr", "src/a"), Some(false));
        assert_eq!(pathspec_matches("*.env", ".env"), Some(true));
        assert_eq!(pathspec_matches(".", ".env"), Some(true));
        assert_eq!(pathspec_matches("*.TS", "a.ts"), Some(true));
    }
}
