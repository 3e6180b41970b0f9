//! Where a bare command name runs from: the first folder of PATH — as the hook sees it, which
//! the agent's shell inherits — that holds an executable file of that name. A program found
//! inside the project is the project's code: an activated virtualenv's `pip`, `pytest`,
//! `black` (and every module they import from `.venv/lib/…/site-packages`), or
//! `node_modules/.bin/eslint` when that folder is on PATH. A fenced run may have changed any of
//! it, so a later call of that name runs project code, whatever its spec says the program does.
//!
//! The cost is paid only where it can matter: PATH's folders are sorted once per call, and a
//! name is looked up only when some folder is inside the project (or relative, which is the
//! command's folder). With none — the common case — a name costs nothing; with an activated
//! virtualenv, usually one `stat` (its `bin` comes first).

use crate::local::paths::is_within;
use crate::local::shell::SYSTEM_BIN_DIRS;
use std::cell::OnceCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What finds a command name's program, for Tier 1.
pub trait Programs {
    /// Where `name` runs from when that is inside `project` (the project's real path); None
    /// when it runs from elsewhere or is not found. `cwd` is the folder the command runs in
    /// (None: not known), against which PATH's relative folders are taken.
    fn in_project(&self, name: &str, cwd: Option<&Path>, project: &Path) -> Option<Found>;
}

/// A program of the project found through PATH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// This file.
    File(PathBuf),
    /// Through a relative folder of PATH, while the command's folder is not known: it may be.
    Relative(PathBuf),
}

/// Finds nothing: tests, benchmarks, and callers without an environment of their own.
pub struct NoPrograms;

impl Programs for NoPrograms {
    fn in_project(&self, _: &str, _: Option<&Path>, _: &Path) -> Option<Found> {
        None
    }
}

/// One folder of PATH.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Folder {
    /// Absolute, outside the project: a name found here first is not the project's.
    Outside(PathBuf),
    /// Absolute, inside the project (symlinks followed).
    Inside(PathBuf),
    /// Relative (an empty entry is `.`): taken against the command's folder.
    Relative(PathBuf),
}

/// PATH as the hook process has it (the agent's shell inherits the agent's environment).
pub struct SearchPath {
    path: Option<OsString>,
    /// PATH's folders up to the last one that may be inside the project (empty: none may be),
    /// sorted on the first look-up against the project then given.
    folders: OnceCell<Vec<Folder>>,
}

impl SearchPath {
    /// The search path `path` (a PATH value).
    pub fn new(path: Option<OsString>) -> SearchPath {
        SearchPath {
            path,
            folders: OnceCell::new(),
        }
    }

    /// The hook's own PATH.
    pub fn from_env() -> SearchPath {
        SearchPath::new(std::env::var_os("PATH"))
    }

    fn folders(&self, project: &Path) -> &[Folder] {
        self.folders.get_or_init(|| {
            let Some(path) = &self.path else {
                return Vec::new();
            };
            // A folder reaches into the project through a link only when the project itself is
            // reached through one: where the agent was started from (`PWD`, the logical path)
            // is inside the project by name, names are compared and nothing is resolved.
            let by_name =
                std::env::var_os("PWD").is_some_and(|p| is_within(Path::new(&p), project));
            let mut out: Vec<Folder> = std::env::split_paths(path)
                .map(|dir| {
                    if dir.as_os_str().is_empty() {
                        Folder::Relative(PathBuf::from("."))
                    } else if dir.is_relative() {
                        Folder::Relative(dir)
                    } else if is_within(&dir, project) {
                        Folder::Inside(dir)
                    } else if by_name || SYSTEM_BIN_DIRS.iter().any(|s| dir.as_os_str() == *s) {
                        // The system's own folders are no link into a project: not resolved
                        // (most of a PATH, and the cost of this look).
                        Folder::Outside(dir)
                    } else {
                        // A folder that does not exist holds nothing now; its real path is
                        // taken only when it can be (a folder inside the project through a
                        // link outside it is still inside by its name: counted).
                        let real = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
                        if is_within(&real, project) || is_within(&dir, project) {
                            Folder::Inside(real)
                        } else {
                            Folder::Outside(real)
                        }
                    }
                })
                .collect();
            let last = out
                .iter()
                .rposition(|f| !matches!(f, Folder::Outside(_)))
                .map_or(0, |i| i + 1);
            out.truncate(last);
            out
        })
    }
}

impl Programs for SearchPath {
    fn in_project(&self, name: &str, cwd: Option<&Path>, project: &Path) -> Option<Found> {
        let folders = self.folders(project);
        if folders.is_empty()
            || name.is_empty()
            || name.contains('/')
            || name == "."
            || name == ".."
        {
            return None;
        }
        for folder in folders {
            let (dir, inside) = match folder {
                Folder::Outside(d) => (d.clone(), false),
                Folder::Inside(d) => (d.clone(), true),
                Folder::Relative(r) => match cwd {
                    Some(c) => (c.join(r), false),
                    None => return Some(Found::Relative(r.join(name))),
                },
            };
            let file = dir.join(name);
            if !is_executable_file(&file) {
                continue;
            }
            let inside = inside || {
                let real = std::fs::canonicalize(&dir).unwrap_or(dir);
                is_within(&real, project)
            };
            return inside.then_some(Found::File(file));
        }
        None
    }
}

/// True for a file (symlinks followed) with an execute bit: what a shell's PATH search takes.
fn is_executable_file(p: &Path) -> bool {
    crate::platform::executable::is_executable(p)
}

// The tests make links and modes: Unix only (the Windows build is type-checked).
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn tool(dir: &Path, name: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn search(dirs: &[&Path]) -> SearchPath {
        SearchPath::new(Some(std::env::join_paths(dirs).unwrap()))
    }

    #[test]
    fn a_name_found_first_in_the_project_is_the_projects() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let project = root.join("proj");
        let venv = project.join(".venv/bin");
        let system = root.join("usr/bin");
        let pip = tool(&venv, "pip");
        tool(&system, "pip");
        tool(&system, "ls");
        let s = search(&[&venv, &system]);
        assert_eq!(
            s.in_project("pip", Some(&project), &project),
            Some(Found::File(pip))
        );
        assert_eq!(s.in_project("ls", Some(&project), &project), None);
        assert_eq!(s.in_project("nowhere", Some(&project), &project), None);
        // Found first outside the project: that one runs.
        let s = search(&[&system, &venv]);
        assert_eq!(s.in_project("pip", Some(&project), &project), None);
    }

    #[test]
    fn a_path_without_the_project_looks_nothing_up() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let project = root.join("proj");
        tool(&root.join("usr/bin"), "pip");
        let s = search(&[&root.join("usr/bin"), Path::new("/usr/bin")]);
        assert!(s.folders(&project).is_empty());
        assert_eq!(s.in_project("pip", Some(&project), &project), None);
        assert_eq!(
            SearchPath::new(None).in_project("pip", None, &project),
            None
        );
    }

    #[test]
    fn relative_folders_are_the_commands_folder() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let project = root.join("proj");
        let eslint = tool(&project.join("node_modules/.bin"), "eslint");
        let s = SearchPath::new(Some(OsString::from("/nonexistent-bin:node_modules/.bin")));
        assert_eq!(
            s.in_project("eslint", Some(&project), &project),
            Some(Found::File(project.join("node_modules/.bin/eslint")))
        );
        assert!(eslint.exists());
        // Run elsewhere, the same folder is not the project's.
        std::fs::create_dir_all(root.join("other")).unwrap();
        assert_eq!(
            s.in_project("eslint", Some(&root.join("other")), &project),
            None
        );
        // Not known where it runs: it may be.
        assert_eq!(
            s.in_project("eslint", None, &project),
            Some(Found::Relative(PathBuf::from("node_modules/.bin/eslint")))
        );
        // A trailing `:` is the command's folder too.
        tool(&project, "x");
        let s = SearchPath::new(Some(OsString::from("/nonexistent-bin:")));
        assert!(s.in_project("x", Some(&project), &project).is_some());
    }

    #[test]
    fn a_file_that_is_not_executable_is_not_run() {
        let t = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(t.path()).unwrap();
        let bin = project.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("pip"), "").unwrap();
        std::fs::create_dir_all(bin.join("dir")).unwrap();
        let s = search(&[&bin]);
        assert_eq!(s.in_project("pip", Some(&project), &project), None);
        assert_eq!(s.in_project("dir", Some(&project), &project), None);
    }
}
