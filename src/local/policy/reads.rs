//! Reads: a file, or a tree walked below a directory, judged by the credentials it reaches.

use super::reach::Walked;
use super::*;
use crate::decision::reach::Reach;

/// How a recursive read walks the tree below a directory.
#[derive(Clone, Copy)]
pub(super) struct Walking<'r> {
    /// Only names are read (`find`): no file below is opened.
    pub(super) names_only: bool,
    /// Every symlink below is followed (`grep -R`, `find -L`).
    pub(super) links: bool,
    /// Which files below it opens (`rg` skips hidden ones: a `.env` there is not read).
    pub(super) reach: &'r Reach,
}

static EVERYTHING: Reach = Reach {
    tests: Vec::new(),
    through_links: false,
    whole_dirs: false,
    split_names: false,
};

/// Every file, through the links it is handed.
static EVERYTHING_THROUGH_LINKS: Reach = Reach {
    tests: Vec::new(),
    through_links: true,
    whole_dirs: true,
    split_names: false,
};

impl Walking<'static> {
    pub(super) const CONTENT: Walking<'static> = Walking {
        names_only: false,
        links: false,
        reach: &EVERYTHING,
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
        if let Some(part) = tree_below(&p, &path.text, walk, rules, ctx) {
            return Some(part);
        }
    }
    None
}

/// What a recursive read of `dir` (written `written`) meets below it: a credential file it opens
/// (`config/.env` under `grep -r = config`; not one its filters or file types rule out), or a
/// symlink it follows to a credential or to a place that holds them (`keys -> ~/.ssh` under
/// `grep -R`; under `xargs cat` of a listing, a link it is handed).
pub(super) fn tree_below(
    dir: &Path,
    written: &str,
    walk: Walking,
    rules: &Rules,
    ctx: &Context,
) -> Option<Part> {
    if walk.names_only && !walk.links {
        return None;
    }
    let (entries, complete) = ctx.fs.entries_under(dir, TREE_ENTRIES);
    // Names split at blanks and quotes (`xargs` without `-0`) hand on pieces that may name
    // any path: the listing's tests hold only when no name there has one.
    let reach = if walk.reach.split_names
        && (!complete
            || splits(written)
            || entries.iter().any(|(e, _)| {
                e.strip_prefix(dir)
                    .is_ok_and(|rel| splits(&rel.to_string_lossy()))
            })) {
        &EVERYTHING_THROUGH_LINKS
    } else {
        walk.reach
    };
    let walked = Walked::new(dir, written, ctx);
    for (entry, is_link) in &entries {
        if !walk.names_only
            && !walked.ruled_out_by_name(reach, entry)
            && let Some(rule) = credentials::credential(entry, rules)
            && walked.opens(reach, entry)
        {
            return Some(Part::uncertain(format!(
                "reads {} recursively, which holds the credential file {}",
                dir.display(),
                credentials::describe(entry, rule)
            )));
        }
        let handed = reach.through_links && walked.opens(reach, entry);
        if (walk.links || handed) && *is_link {
            let target = ctx.fs.real_path(entry);
            // A folder a link leads to is read only by a walk that goes on through it, or a
            // program that reads a folder it is handed whole.
            let whole = walk.links || reach.whole_dirs;
            let opened = whole || ctx.fs.is_dir(&target) != Some(true);
            if (opened && credentials::credential(&target, rules).is_some())
                || (whole && credentials::tree_holds_credentials(&target, ctx.home, rules))
            {
                let how = if walk.links {
                    "recursively following links"
                } else {
                    "as it is handed the files below it"
                };
                return Some(Part::uncertain(format!(
                    "reads {} {how}, and {} leads to {}, which holds credentials",
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

/// Whether xargs would split a name: a blank, a quote or a backslash in it.
fn splits(name: &str) -> bool {
    name.contains(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '\\'))
}

/// The files below a directory whose reading by a search asks: those ripgrep's defaults open
/// (no hidden file or folder, nothing git ignores: Claude Code's Grep tool is rg with those
/// defaults and cannot change them) that git does not track. A tracked file is in the
/// repository, which the agent reads anyway (`git show`, `git log -p`): asking for it would
/// prompt on every search of a project that commits a test key, and keep nothing secret.
static SEARCHED_UNTRACKED: std::sync::LazyLock<Reach> =
    std::sync::LazyLock::new(|| new_to_git(vec![crate::decision::reach::Test::Visible]));

/// The files below a directory that git neither ignores nor tracks, also passing `first`:
/// what a search of the folder (hidden files skipped) or staging it (`git add .`) reaches
/// that is not in the repository already.
pub(super) fn new_to_git(first: Vec<crate::decision::reach::Test>) -> Reach {
    use crate::decision::reach::Test;
    let mut tests = first;
    tests.push(Test::NotIgnored);
    tests.push(Test::Not {
        test: Box::new(Test::GitListed {
            cached: true,
            others: false,
            exclude_standard: false,
            pathspecs: Vec::new(),
        }),
    });
    Reach {
        tests,
        ..Reach::default()
    }
}

/// Why a search tool that reads contents as ripgrep does (Claude Code's Grep) reaches a
/// credential below `dir` that is not in the repository (a new `config/master.key` git
/// neither ignores nor tracks), when it does.
pub fn search_reaches_credential(dir: &Path, rules: &Rules, ctx: &Context) -> Option<String> {
    let walk = Walking {
        names_only: false,
        links: false,
        reach: &SEARCHED_UNTRACKED,
    };
    tree_below(dir, &dir.to_string_lossy(), walk, rules, ctx).map(|p| p.reason)
}
