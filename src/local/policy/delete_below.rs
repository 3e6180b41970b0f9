//! What a filtered delete picks below a directory (`find DIR -name '*.pyc' -delete`): the
//! entries its name patterns match, listed before it runs, `.git` included; the directory itself
//! only when its own name matches. `policy` judges a delete of each entry listed here.

use crate::local::context::Context;
use std::path::{Path, PathBuf};

/// Entries below the directory looked at before giving up: enough for a source tree, bounded so
/// a hook stays in milliseconds.
const ENTRIES: usize = 4096;

/// The shapes of names in `.git/objects`: a loose object, a pack and its companions.
const OBJECT_NAMES: &[&str] = &[
    "0123456789abcdef0123456789abcdef012345",
    "pack-0123456789abcdef0123456789abcdef01234567.pack",
    "pack-0123456789abcdef0123456789abcdef01234567.idx",
    "pack-0123456789abcdef0123456789abcdef01234567.rev",
    "pack-0123456789abcdef0123456789abcdef01234567.keep",
    "commit-graph",
    "multi-pack-index",
    "packs",
    "alternates",
];

/// What the name patterns pick below a directory.
#[derive(Debug, Default)]
pub struct Picked {
    /// Each entry a pattern matches.
    pub entries: Vec<PathBuf>,
    /// Each symlink below, with where it leads (followed with `find -L`).
    pub links: Vec<(PathBuf, PathBuf)>,
}

/// The entries below `dir` that any of `names` matches (tests are joined by "and", so what any
/// one pattern picks holds all that is deleted), or why they cannot be listed.
pub fn picked(
    dir: &Path,
    names: &[String],
    ignore_case: bool,
    ctx: &Context,
) -> Result<Picked, &'static str> {
    let matchers = names
        .iter()
        .map(|n| {
            globset::GlobBuilder::new(n)
                .case_insensitive(ignore_case)
                .literal_separator(true)
                .build()
                .map(|g| g.compile_matcher())
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| "a pattern sentinel cannot read")?;
    let matches = |name: &str| matchers.iter().any(|m| m.is_match(name));
    let (mut found, mut complete) = ctx.fs.entries_under(dir, ENTRIES);
    // The listing does not go into `.git`, but find does: what a name picks there is listed
    // too, but for the object store, whose names are hashes and packs.
    let repos: Vec<PathBuf> = found
        .iter()
        .filter(|(p, link)| !link && p.file_name().is_some_and(|n| n == ".git"))
        .map(|(p, _)| p.clone())
        .collect();
    for repo in repos {
        if OBJECT_NAMES.iter().any(|n| matches(n)) {
            return Err("which matches files of git's object store");
        }
        let (inside, all) = ctx.fs.entries_under(&repo, ENTRIES);
        complete &= all;
        let objects = repo.join("objects");
        found.extend(inside.into_iter().filter(|(p, _)| !p.starts_with(&objects)));
    }
    if !complete {
        return Err("a tree too large to check");
    }
    let mut out = Picked::default();
    // The starting point is tested too: one its own name matches goes last, once it is empty
    // (`find ../webapp -name '*' -delete`).
    if dir
        .file_name()
        .is_some_and(|n| matches(&n.to_string_lossy()))
    {
        out.entries.push(dir.to_path_buf());
    }
    for (entry, is_link) in found {
        if is_link {
            out.links.push((entry.clone(), ctx.fs.real_path(&entry)));
        }
        if entry
            .file_name()
            .is_some_and(|n| matches(&n.to_string_lossy()))
        {
            out.entries.push(entry);
        }
    }
    Ok(out)
}
