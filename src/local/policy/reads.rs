//! Reads: a file, or a tree walked below a directory, judged by the credentials it reaches.

use super::*;

/// How a recursive read walks the tree below a directory.
#[derive(Clone, Copy)]
pub(super) struct Walking {
    /// Only names are read (`find`): no file below is opened.
    pub(super) names_only: bool,
    /// Every symlink below is followed (`grep -R`, `find -L`).
    pub(super) links: bool,
    /// Hidden names below are skipped (`rg`): a `.env` there is not read.
    pub(super) skips_hidden: bool,
}

impl Walking {
    pub(super) const CONTENT: Walking = Walking {
        names_only: false,
        links: false,
        skips_hidden: false,
    };
}

/// Entries of a tree a recursive read looks at for credentials before it stops: enough for a
/// source folder, bounded so a hook stays in milliseconds (shallow names are seen first).
pub(super) const TREE_ENTRIES: usize = 4096;

pub(super) fn read(
    path: &Word,
    walk: Option<Walking>,
    base: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<Part> {
    if path.text == "-" || path.text.starts_with("/dev/fd/") || path.text == "/dev/stdin" {
        return None;
    }
    let Some(found) = resolve_all(path, base, ctx) else {
        return Some(Part::uncertain(format!(
            "reads `{}`, a path not known before it runs",
            shell::excerpt(&path.text)
        )));
    };
    for p in found {
        // A credential read asks, as the Read tool on the same file does (tool_calls.rs): the
        // person sees why, in every mode, and no evaluator can wave it through.
        if let Some(rule) = credentials::credential(&p, rules) {
            return Some(Part::new(
                Verdict::Ask,
                format!(
                    "reads the credential file {}",
                    credentials::describe(&p, rule)
                ),
                None,
            ));
        }
        let Some(walk) = walk else { continue };
        if credentials::tree_holds_credentials(&p, ctx.home, rules) {
            return Some(Part::new(
                Verdict::Ask,
                format!("reads {} recursively, which holds credentials", p.display()),
                None,
            ));
        }
        if let Some(part) = tree_below(&p, walk, rules, ctx) {
            return Some(part);
        }
    }
    None
}

/// A name below `dir` that starts with a dot, or lies in a directory that does.
pub(super) fn is_hidden_below(entry: &Path, dir: &Path) -> bool {
    entry.strip_prefix(dir).is_ok_and(|rel| {
        rel.components()
            .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b"."))
    })
}

/// What a recursive read of `dir` meets below it: a credential file it opens (`config/.env`
/// under `grep -r = config`), or a symlink it follows to a credential or to a place that holds
/// them (`keys -> ~/.ssh` under `grep -R`).
pub(super) fn tree_below(dir: &Path, walk: Walking, rules: &Rules, ctx: &Context) -> Option<Part> {
    if walk.names_only && !walk.links {
        return None;
    }
    let (entries, complete) = ctx.fs.entries_under(dir, TREE_ENTRIES);
    for (entry, is_link) in &entries {
        if walk.skips_hidden && is_hidden_below(entry, dir) {
            continue;
        }
        if !walk.names_only
            && let Some(rule) = credentials::credential(entry, rules)
        {
            return Some(Part::uncertain(format!(
                "reads {} recursively, which holds the credential file {}",
                dir.display(),
                credentials::describe(entry, rule)
            )));
        }
        if walk.links && *is_link {
            let target = ctx.fs.real_path(entry);
            if credentials::credential(&target, rules).is_some()
                || credentials::tree_holds_credentials(&target, ctx.home, rules)
            {
                return Some(Part::uncertain(format!(
                    "reads {} recursively following links, and {} leads to {}, which holds credentials",
                    dir.display(),
                    entry.display(),
                    target.display()
                )));
            }
        }
    }
    (walk.links && !complete).then(|| {
        Part::uncertain(format!(
            "reads {} recursively following links, a tree too large to check where they lead",
            dir.display()
        ))
    })
}
