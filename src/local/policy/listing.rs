//! Operands that come at run time from a listing of project files (`git ls-files '*.py' | xargs
//! wc -l`): the listing prints paths relative to the directory it ran in, so a path starts with
//! `-` only when an entry of that directory does. With none there, every word the program gets
//! is an operand, judged as a path under the listing's root, never as an option. Only where the
//! program reads what it gets: a write or delete of every listed file could reach a protected
//! place the listing includes (a tracked `.husky/` hook, `.claude/settings.json`), which a path
//! under the root does not show.

use crate::local::context::Context;
use crate::local::shell::SimpleCommand;
use crate::local::spec::Specs;
use crate::local::spec::options;
use std::path::Path;

/// Whether the run-time words of `cmd` are paths of a listing of `cwd` (relative names, the
/// root `.`), and no entry of `cwd` starts with `-`.
pub fn relative_names_are_dashless(
    cmd: &SimpleCommand,
    cwd: Option<&Path>,
    specs: &Specs,
    ctx: &Context,
) -> bool {
    let Some(cwd) = cwd else { return false };
    if !cmd.extra_args
        || !cmd.extra_args_piped
        || cmd.extra_args_from_find
        || !matches!(cmd.extra_args_under.as_slice(), [root] if root.text == "." && root.is_literal())
    {
        return false;
    }
    let reads = options::read(&cmd.argv, specs)
        .and_then(|r| r.appended)
        .is_some_and(|k| k.is_input_path());
    if !reads {
        return false;
    }
    // One level is enough: only the first component of a relative path can lead with `-`. The
    // scan is breadth first, so an entry below the first level means that level was read whole.
    let (entries, complete) = ctx.fs.entries_under(cwd, 4096);
    let first_level_read = complete || entries.iter().any(|(p, _)| p.parent() != Some(cwd));
    first_level_read
        && !entries.iter().any(|(p, _)| {
            p.parent() == Some(cwd)
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('-'))
        })
}
