//! The ignore rules git applies to a path below a work tree's top, read from the files without
//! running git: every `.gitignore` from the top down to the path's folder, then the repository's
//! `info/exclude`. Shared by the first look (what git would list as untracked) and Tier 1
//! (whether git ignores a path a call names).

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::Path;

/// The rules that apply to `path` (below `top`); None when `path` is not below `top` or a
/// `.gitignore` on the way cannot be parsed, so that the caller takes its careful side.
pub fn rules_for(top: &Path, path: &Path, exclude: &Path) -> Option<Gitignore> {
    let rel = path.strip_prefix(top).ok()?;
    let mut builder = GitignoreBuilder::new(top);
    let mut dir = top.to_path_buf();
    let mut dirs = vec![dir.clone()];
    for c in rel.parent().into_iter().flat_map(Path::components) {
        dir.push(c);
        dirs.push(dir.clone());
    }
    for d in dirs {
        let f = d.join(".gitignore");
        // A file that cannot be read is as git takes it: absent. One that does not parse is
        // not known.
        if f.is_file()
            && let Some(e) = builder.add(&f)
            && !matches!(e, ignore::Error::Io(_))
        {
            return None;
        }
    }
    if exclude.is_file() {
        let _ = builder.add(exclude);
    }
    builder.build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gitignore_from_the_top_down_and_the_exclude_file_apply() {
        let root = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
        let top = root.path();
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        std::fs::create_dir_all(top.join("info")).unwrap();
        std::fs::write(top.join(".gitignore"), "*.log\n").unwrap();
        std::fs::write(top.join("a/.gitignore"), "build/\n").unwrap();
        std::fs::write(top.join("info/exclude"), "secret.txt\n").unwrap();
        let exclude = top.join("info/exclude");
        let ignored = |p: &str, dir: bool| {
            let path = top.join(p);
            rules_for(top, &path, &exclude)
                .unwrap()
                .matched_path_or_any_parents(&path, dir)
                .is_ignore()
        };
        assert!(ignored("a/b/x.log", false));
        assert!(ignored("a/build", true));
        assert!(ignored("a/b/secret.txt", false));
        assert!(!ignored("a/b/main.rs", false));
        assert!(rules_for(top, Path::new("/elsewhere"), &exclude).is_none());
    }
}
