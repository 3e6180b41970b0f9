//! The folders the observation of a project does not look into: `.git` (git's own, pinned
//! when fenced) and the dependency trees of `rules/contain/dependency_dirs.txt`.

use std::ffi::OsStr;
use std::sync::OnceLock;

const DEPENDENCY_DIRS: &str = include_str!("../../rules/contain/dependency_dirs.txt");

/// Whether a folder of this name is a dependency tree, not observed.
/// `.git`, or a dependency folder of `rules/contain/dependency_dirs.txt`.
pub fn skipped(name: &OsStr) -> bool {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    name == ".git"
        || NAMES
            .get_or_init(|| crate::lists::entries(DEPENDENCY_DIRS).collect())
            .iter()
            .any(|n| name == *n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dependency_list_names_folders() {
        assert!(skipped(OsStr::new("node_modules")));
        assert!(skipped(OsStr::new(".git")));
        assert!(skipped(OsStr::new("__pycache__")));
        assert!(!skipped(OsStr::new("src")));
        assert!(!skipped(OsStr::new("Node_Modules")));
    }
}
