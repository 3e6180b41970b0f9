//! What a project held at sentinel's first look that was not the person's committed work: files
//! git does not track and does not ignore, tracked files whose stat data differs from what the
//! index recorded, files staged but not committed, `git add -N` names and merge conflicts. They
//! count as changed from then on ([`super::changed`]), as everything changed after that look
//! does: a file another program (or an unguarded session) placed before sentinel first looked is
//! not taken for the person's. Outside a git work tree nothing tells them apart, and the first
//! look takes every file as the person's.
//!
//! Committing such a file later does not clear it: the agent can commit too. Removing the
//! project's baseline file starts afresh (docs/containment.md).

use super::git_index::{self, Index, Repo};
use std::path::{Path, PathBuf};

/// The most files recorded; past it, any file of the project may be changed.
pub const MAX_RECORDED: usize = 10_000;

/// The uncommitted files at the first look.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uncommitted {
    /// Relative to the project, sorted.
    pub paths: Vec<PathBuf>,
    /// More than [`MAX_RECORDED`], more entries than the walk's bound, a name that is not
    /// UTF-8, or a folder that could not be read: any file may be.
    pub full: bool,
}

/// The uncommitted files under `project` (a real path) now; nothing outside a git work tree or
/// when the index cannot be read (a split index, damage). `own` (sentinel's home) and the
/// dependency folders are not looked into, as in [`super::changed`]'s walk.
pub fn now(project: &Path, own: Option<&Path>, max_entries: usize) -> Uncommitted {
    let Some(repo) = git_index::repo_of(project) else {
        return Uncommitted::default();
    };
    let Some(index) = git_index::read(&repo) else {
        return Uncommitted::default();
    };
    if ignored_folder(&repo, project) {
        return Uncommitted::default();
    }
    let mut found = Found::default();
    untracked_and_modified(project, own, &repo, &index, max_entries, &mut found);
    if let Some(staged) = staged(&repo, project) {
        for path in staged {
            found.add_repo_path(&repo, project, &path);
        }
    } else if !head_exists(&repo, project) {
        // No commit yet: whatever the index holds is staged, none of it committed.
        for path in index.keys() {
            found.add_repo_path(&repo, project, path);
        }
    }
    found.finish()
}

#[derive(Default)]
struct Found {
    paths: std::collections::BTreeSet<PathBuf>,
    full: bool,
}

impl Found {
    fn add(&mut self, rel: PathBuf) {
        if self.paths.len() >= MAX_RECORDED || rel.to_str().is_none() {
            self.full = true;
        } else {
            self.paths.insert(rel);
        }
    }

    /// A path as git names it (relative to the work tree's top), if it lies in the project.
    fn add_repo_path(&mut self, repo: &Repo, project: &Path, path: &[u8]) {
        let Ok(text) = std::str::from_utf8(path) else {
            self.full = true;
            return;
        };
        if let Ok(rel) = repo.top.join(text).strip_prefix(project) {
            self.add(rel.to_path_buf());
        }
    }

    fn finish(self) -> Uncommitted {
        Uncommitted {
            paths: self.paths.into_iter().collect(),
            full: self.full,
        }
    }
}

/// Walks the project as git would list it (its ignore files honoured, submodules not entered):
/// a file the index does not name is untracked; one it names whose ctime, mtime or size differ
/// from the index's record, or that is conflicted, intent-to-add or skip-worktree, is modified.
fn untracked_and_modified(
    project: &Path,
    own: Option<&Path>,
    repo: &Repo,
    index: &Index,
    max_entries: usize,
    found: &mut Found,
) {
    let top = repo.top.clone();
    let own = own.map(Path::to_path_buf);
    let gitlinks: std::collections::HashSet<Vec<u8>> = index
        .iter()
        .filter(|(_, e)| e.is_gitlink())
        .map(|(p, _)| p.clone())
        .collect();
    let walker = ignore::WalkBuilder::new(project)
        .hidden(false)
        .ignore(false)
        .parents(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if !is_dir {
                return true;
            }
            let path = e.path();
            !super::unobserved::skipped(e.file_name())
                && Some(path) != own.as_deref()
                && !repo_path(&top, path).is_some_and(|p| gitlinks.contains(&p))
        })
        .build();
    for (seen, entry) in walker.enumerate() {
        if seen > max_entries {
            found.full = true;
            return;
        }
        let Ok(entry) = entry else {
            found.full = true;
            continue;
        };
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if !(kind.is_file() || kind.is_symlink()) {
            continue;
        }
        let path = entry.path();
        let Some(key) = repo_path(&repo.top, path) else {
            found.full = true;
            continue;
        };
        let rel = path.strip_prefix(project).unwrap_or(path).to_path_buf();
        match index.get(&key) {
            None => found.add(rel),
            Some(e) if e.stage != 0 || e.intent_to_add || e.skip_worktree => found.add(rel),
            Some(e) => match std::fs::symlink_metadata(path) {
                Ok(meta) if !same_stat(e, &meta) => found.add(rel),
                Ok(_) => {}
                Err(err) if crate::config::is_absent(&err) => {}
                Err(_) => found.full = true,
            },
        }
    }
}

/// Whether git ignores `project`, a folder below the work tree's top (a scratch project under
/// another repository's ignored build folder): what is in it is not work git would commit.
fn ignored_folder(repo: &Repo, project: &Path) -> bool {
    let Ok(rel) = project.strip_prefix(&repo.top) else {
        return false;
    };
    if rel.as_os_str().is_empty() {
        return false;
    }
    // A .gitignore that does not parse: the folder is walked (the stricter side).
    super::git_ignore::rules_for(&repo.top, project, &repo.common_dir.join("info/exclude"))
        .is_some_and(|gi| gi.matched_path_or_any_parents(project, true).is_ignore())
}

/// The index's spelling of `path`: relative to the work tree's top, `/`-separated.
fn repo_path(top: &Path, path: &Path) -> Option<Vec<u8>> {
    let rel = path.strip_prefix(top).ok()?;
    let text = rel.to_str()?;
    Some(text.replace(std::path::MAIN_SEPARATOR, "/").into_bytes())
}

#[cfg(unix)]
fn same_stat(e: &git_index::Entry, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // The index keeps each number in 32 bits.
    let low = |n: i64| n as u32;
    e.size == meta.size() as u32
        && e.mtime == (low(meta.mtime()), low(meta.mtime_nsec()))
        && e.ctime == (low(meta.ctime()), low(meta.ctime_nsec()))
}

#[cfg(not(unix))]
fn same_stat(_: &git_index::Entry, _: &std::fs::Metadata) -> bool {
    false
}

/// The paths staged but not committed (`git diff-index --cached HEAD`, which compares the index
/// with the last commit and never reads the work tree, so runs no filter or fsmonitor); None
/// when git cannot say (not installed, no commit yet, a repository it refuses).
fn staged(repo: &Repo, project: &Path) -> Option<Vec<Vec<u8>>> {
    let out = git(
        repo,
        project,
        &[
            "diff-index",
            "--cached",
            "--name-only",
            "-z",
            "--no-renames",
            "HEAD",
            "--",
        ],
    )?;
    Some(
        out.split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

/// Whether the repository has a commit at HEAD (git's own answer; yes when git cannot say, so
/// that a missing git never makes every tracked file uncommitted).
fn head_exists(repo: &Repo, project: &Path) -> bool {
    let Some(git) = git_program(project) else {
        return true;
    };
    let status = base_command(&git, repo)
        .args(["rev-parse", "-q", "--verify", "HEAD^{commit}"])
        .stdout(std::process::Stdio::null())
        .status();
    // 1: no such commit; anything else (a refusal, a crash) is not that answer.
    !matches!(status.map(|s| s.code()), Ok(Some(1)))
}

/// Runs git in the repository; its output, bounded, when it succeeded.
fn git(repo: &Repo, project: &Path, args: &[&str]) -> Option<Vec<u8>> {
    use std::io::Read;
    let git = git_program(project)?;
    let mut child = base_command(&git, repo)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut out = Vec::new();
    let read = child
        .stdout
        .take()?
        .take(4 * 1024 * 1024)
        .read_to_end(&mut out);
    let status = child.wait().ok()?;
    (read.is_ok() && status.success()).then_some(out)
}

fn base_command(git: &Path, repo: &Repo) -> std::process::Command {
    let mut cmd = std::process::Command::new(git);
    // Only what git needs to find its own configuration; nothing from the agent's environment
    // (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS) steers it.
    cmd.env_clear()
        .envs(
            ["HOME", "PATH", "XDG_CONFIG_HOME"]
                .iter()
                .filter_map(|k| std::env::var_os(k).map(|v| (k.to_string(), v))),
        )
        .env("LC_ALL", "C")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args(["-c", "core.fsmonitor=false"])
        .current_dir(&repo.top)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    cmd
}

/// git as found through PATH, skipping folders that are relative or inside the project (a `git`
/// the agent wrote there would run here).
fn git_program(project: &Path) -> Option<PathBuf> {
    git_program_in(&std::env::var_os("PATH")?, project)
}

fn git_program_in(path: &std::ffi::OsStr, project: &Path) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|d| d.is_absolute())
        .filter(|d| {
            let real = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
            !real.starts_with(project)
        })
        .map(|d| d.join(if cfg!(windows) { "git.exe" } else { "git" }))
        .find(|g| crate::platform::executable::is_executable(g))
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
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    fn put(root: &Path, rel: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, rel).unwrap();
    }

    fn names(u: &Uncommitted) -> Vec<&str> {
        u.paths.iter().map(|p| p.to_str().unwrap()).collect()
    }

    #[test]
    fn what_git_would_show_as_not_committed() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        git(&root, &["init", "-q"]);
        for f in [
            "clean.py",
            "edited.py",
            "staged.py",
            ".gitignore",
            "src/kept.rs",
        ] {
            put(&root, f);
        }
        std::fs::write(root.join(".gitignore"), "build/\n*.log\n").unwrap();
        git(&root, &["add", "."]);
        git(&root, &["commit", "-qm", "first"]);
        // Refresh the index's stat data, as any git status would.
        git(&root, &["status", "--porcelain"]);
        assert_eq!(now(&root, None, 1000), Uncommitted::default());

        std::fs::write(root.join("edited.py"), "changed, same size?").unwrap();
        std::fs::write(root.join("staged.py"), "new content").unwrap();
        git(&root, &["add", "staged.py"]);
        put(&root, "new/x.py");
        put(&root, "build/out.py");
        put(&root, "run.log");
        put(&root, "node_modules/x/index.js");
        put(&root, "intent.py");
        git(&root, &["add", "-N", "intent.py"]);
        let seen = now(&root, None, 1000);
        assert!(!seen.full);
        assert_eq!(
            names(&seen),
            ["edited.py", "intent.py", "new/x.py", "staged.py"]
        );
        // From a folder of the project down, relative to it.
        let sub = now(&root.join("new"), None, 1000);
        assert_eq!(names(&sub), ["x.py"]);
    }

    #[test]
    fn before_the_first_commit_everything_added_is_uncommitted() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        git(&root, &["init", "-q"]);
        put(&root, "a.py");
        put(&root, "b.py");
        git(&root, &["add", "a.py"]);
        git(&root, &["status", "--porcelain"]);
        assert_eq!(names(&now(&root, None, 1000)), ["a.py", "b.py"]);
    }

    #[test]
    fn outside_git_and_past_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        put(&root, "a.py");
        if git_index::repo_of(&root).is_none() {
            assert_eq!(now(&root, None, 1000), Uncommitted::default());
        }
        git(&root, &["init", "-q"]);
        for i in 0..20 {
            put(&root, &format!("f{i}.py"));
        }
        let cut = now(&root, None, 5);
        assert!(cut.full);
    }

    #[test]
    fn a_git_in_the_project_is_never_run() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("bin")).unwrap();
        let fake = root.join("bin/git");
        std::fs::write(&fake, "#!/bin/sh\ntouch \"$0.ran\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path =
            std::env::join_paths([root.join("bin"), PathBuf::from("bin"), "/usr/bin".into()])
                .unwrap();
        let found = git_program_in(&path, &root);
        assert_ne!(found.as_deref(), Some(fake.as_path()));
        assert!(found.is_none_or(|g| g.starts_with("/usr/bin")));
    }
}
