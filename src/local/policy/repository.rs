//! What git reads beyond the files a command names: the repository it finds from where it
//! works (whose config names programs git runs), and the new files a directory it stages holds.
//! Read by git's spec (`repository = "git"`) and by the MCP git servers' specs.

use super::*;
use crate::decision::reach::Reach;

/// A git run from `dir` whose git directory is one the agent could have written: not a
/// protected `.git` (a bare layout, `git init --separate-git-dir` or a `gitdir:` file pointing
/// into the project or a safe path). Its config names programs git runs (`core.fsmonitor` on
/// `git status`, `diff.external` on `git diff`, `core.pager`, hooks), so the run is not the
/// person's git. One the file system cannot show is left to the other effects.
pub fn unprotected_repository(dir: &Path, rules: &Rules, ctx: &Context) -> Option<Part> {
    let found = paths::git::git_dir(&ctx.fs.real_path(dir), ctx.fs)??;
    let git_dir = ctx.fs.real_path(&found);
    if protected(&git_dir.join("config"), rules, ctx).is_some() {
        return None;
    }
    // Elsewhere (the person's bare repositories, a temp dir) a write asks first.
    in_safe_area(&git_dir, rules, ctx).then(|| {
        Part::uncertain(format!(
            "git takes {} as its repository, a git directory outside a protected `.git`: \
             its config and hooks are files the agent may have written (core.fsmonitor, \
             diff.external, aliases and hooks run programs)",
            git_dir.display()
        ))
    })
}

/// The files below a directory that staging it takes into the repository, as credentials
/// count them: what git neither ignores nor tracks (a tracked file is in the repository
/// already). Hidden files count: `git add .` takes a new `.env`.
static STAGED_NEW: std::sync::LazyLock<Reach> =
    std::sync::LazyLock::new(|| reads::new_to_git(Vec::new()));

/// Why staging `dir` (a real path) reaches a credential file git would take in, when it does
/// (an MCP server's `git_add` of a folder).
pub fn staging_reaches_credential(dir: &Path, rules: &Rules, ctx: &Context) -> Option<String> {
    let walk = reads::Walking {
        names_only: false,
        links: false,
        reach: &STAGED_NEW,
    };
    reads::tree_below(dir, &dir.to_string_lossy(), walk, rules, ctx).map(|p| p.reason)
}

/// An MCP git server's call: `repo` (None: the cwd) is the repository it runs git in, checked
/// when `checked`; `staged` holds (field, path) pairs it stages there. The uncertain reason:
/// a repository the agent could have written, a pattern git matches itself, or a folder whose
/// new files hold a credential.
pub fn git_reach(
    repo: Option<&str>,
    checked: bool,
    staged: &[(&str, &str)],
    rules: &Rules,
    ctx: &Context,
) -> Option<String> {
    let repo = repo
        .and_then(|r| paths::resolve(r, ctx.cwd, ctx.home))
        .map(|p| ctx.fs.real_path(&p))
        .unwrap_or_else(|| ctx.cwd.to_path_buf());
    if checked && let Some(p) = unprotected_repository(&repo, rules, ctx) {
        return Some(p.reason);
    }
    for (field, v) in staged {
        if v.starts_with(':') || v.contains(['*', '?', '[']) {
            return Some(format!(
                "`{field}` stages `{}`, a pathspec git matches itself: which new files it takes in is not known",
                crate::text::excerpt(v)
            ));
        }
        let Some(p) = paths::resolve(v, &repo, ctx.home) else {
            continue;
        };
        let p = ctx.fs.real_path(&p);
        if ctx.fs.is_dir(&p) == Some(true)
            && let Some(why) = staging_reaches_credential(&p, rules, ctx)
        {
            return Some(format!("`{field}` stages a folder: {why}"));
        }
    }
    None
}
