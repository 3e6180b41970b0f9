//! Whether a fetch goes to the repository's own remotes: each name it is given is a remote the
//! repository's config names, or the URL of one (none given: the remote it defaults to). Such
//! a fetch logs in with the person's `~/.netrc` where the person's repository already sends it.

use crate::local::context::Context;
use crate::local::paths::git;
use crate::shell::Word;
use std::path::Path;

/// True when the repository at `dir` (None: not known) names every one of `remotes`.
pub(super) fn all_configured(remotes: &[Word], dir: Option<&Path>, ctx: &Context) -> bool {
    let Some(dir) = dir else { return false };
    let Some(repo) = git::repository(&ctx.fs.real_path(dir), ctx.fs) else {
        return false;
    };
    let Some(config) = git::config(&repo, ctx.fs) else {
        return false;
    };
    let known = git::remotes(&config);
    let same_url = |a: &str, b: &str| a.trim_end_matches('/') == b.trim_end_matches('/');
    remotes.iter().all(|w| {
        w.known_value().is_some_and(|name| {
            known
                .iter()
                .any(|r| r.name == name || r.urls.iter().any(|u| same_url(u, name)))
        })
    })
}
