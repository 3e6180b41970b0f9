//! The paths a simple command writes or deletes, in the directory it works in, and whether
//! they leave the safe area or reach an excluded path.

use super::Part;
use crate::local::context::Context;
use crate::local::known::Kind;
use crate::local::policy::{
    TEMP_DIRS, excluded, in_safe_area, is_temp_ref, resolve_word, resolve_word_unfollowed,
};
use crate::paths;
use crate::rules::Rules;
use crate::shell::{Cwd, SimpleCommand, Word, WordKind};
use std::borrow::Cow;
use std::path::Path;

/// The directory a command runs in, or None when a `cd` made it unknown; borrowed from the
/// context when no `cd` changed it.
pub(in crate::local) fn effective_cwd<'a>(
    cmd: &SimpleCommand,
    ctx: &Context<'a>,
) -> Option<Cow<'a, Path>> {
    match &cmd.cwd {
        Cwd::Start => Some(Cow::Borrowed(ctx.cwd)),
        Cwd::Changed(p) => paths::resolve(p, ctx.cwd, ctx.home).map(Cow::Owned),
        // `cd ~/.config/g?`: known when the pattern matches exactly one directory now.
        Cwd::Matched(p) => {
            // `g?/..` would be read lexically, as if the pattern had matched.
            if p.split('/').any(|c| c == "..") {
                return None;
            }
            let pattern = paths::resolve(p, ctx.cwd, ctx.home)?;
            match ctx.fs.glob(&pattern)?.as_slice() {
                [one] if ctx.fs.is_dir(&ctx.fs.real_path(one)) == Some(true) => {
                    Some(Cow::Owned(one.clone()))
                }
                _ => None,
            }
        }
        Cwd::Unknown => None,
    }
}

/// The words of a command that name paths: its arguments that are not options.
pub(in crate::local) fn path_args(cmd: &SimpleCommand) -> Vec<Word> {
    let mut out = Vec::new();
    let mut options_done = false;
    for w in cmd.args() {
        if !options_done && w.text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && w.text.starts_with('-') && w.text.len() > 1 {
            // `--target-directory=DIR`, `--output=FILE`
            if let Some((_, v)) = w.text.split_once('=') {
                out.push(Word {
                    text: v.to_string(),
                    kind: w.kind,
                    value: None,
                });
            }
            continue;
        }
        if let Some(v) = w
            .text
            .strip_prefix("of=")
            .or_else(|| w.text.strip_prefix("if="))
        {
            out.push(Word {
                text: v.to_string(),
                kind: w.kind,
                value: None,
            });
            continue;
        }
        out.push(w.clone());
    }
    out
}

/// Why a conditional-block command is outside the project or a safe path, if it is.
pub(in crate::local) fn outside_safe_area(
    cmd: &SimpleCommand,
    cwd: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<Outside> {
    let Some(cwd) = cwd else {
        return Some(Outside::Blocked(
            "runs after a `cd` whose target sentinel cannot see".to_string(),
        ));
    };
    let real_cwd = ctx.fs.real_path(cwd);
    if !in_safe_area(&real_cwd, rules, ctx)
        && !TEMP_DIRS
            .iter()
            .any(|t| paths::is_within(&real_cwd, Path::new(t)))
    {
        return Some(Outside::Blocked(format!(
            "runs in {} outside the project",
            real_cwd.display()
        )));
    }
    let mut words = path_args(cmd);
    if cmd.extra_args {
        if cmd.extra_args_under.is_empty() || cmd.extra_args_piped {
            return Some(Outside::Blocked(
                "its paths are supplied at run time (xargs)".to_string(),
            ));
        }
        // `find ROOT -exec rm -r {} ;`: every path lies under one of find's roots.
        words.extend(cmd.extra_args_under.iter().cloned());
    }
    // What `rm`, `unlink`, `rmdir` remove and what `mv` moves away is the link itself when
    // it is one, not where it leads.
    let to_dir = cmd
        .args()
        .iter()
        .any(|w| w.text == "-t" || w.text.starts_with("--target-directory"));
    let count = words.len();
    let removed = |i: usize| match cmd.name() {
        "rm" | "unlink" | "rmdir" => i < count,
        "mv" => i + 1 < count && !to_dir,
        _ => false,
    };
    let given = path_args(cmd).len();
    let mut scratch = None;
    for (i, w) in words.into_iter().enumerate() {
        if is_temp_ref(&w.text) && w.value.is_none() {
            scratch.get_or_insert_with(|| w.text.clone());
            continue;
        }
        let resolved = if i < given && removed(i) {
            resolve_word_unfollowed(&w, Some(cwd), ctx)
        } else {
            resolve_word(&w, Some(cwd), ctx)
        };
        match resolved {
            None => {
                return Some(Outside::Blocked(format!(
                    "the path `{}` is not known before it runs",
                    w.text
                )));
            }
            Some(_) if w.kind == WordKind::Glob && w.text.contains(".*") => {
                return Some(Outside::Blocked(format!(
                    "the glob `{}` can match `..`",
                    w.text
                )));
            }
            Some(p) if in_safe_area(&p, rules, ctx) => {}
            Some(p) if TEMP_DIRS.iter().any(|t| paths::is_within(&p, Path::new(t))) => {
                scratch.get_or_insert_with(|| w.text.clone());
            }
            Some(p) => {
                return Some(Outside::Blocked(format!(
                    "`{}` is outside the project ({})",
                    w.text,
                    p.display()
                )));
            }
        }
    }
    scratch.map(Outside::Scratch)
}

/// Where a conditional-block command reaches beyond the project.
pub(in crate::local) enum Outside {
    /// Beyond the project and every safe path: block.
    Blocked(String),
    /// Into a temp dir only: uncertain.
    Scratch(String),
}

/// A write (redirection or a writer's path argument) into an excluded path, as a deny part.
pub(in crate::local) fn excluded_write(
    cmd: &SimpleCommand,
    cwd: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<Part> {
    let mut targets: Vec<Word> = cmd
        .redirects
        .iter()
        .filter(|r| r.kind.writes())
        .map(|r| r.target.clone())
        .collect();
    // A program that writes the paths it is given (`writer` in `rules/program_roles.txt`).
    if rules.known.holds(Kind::Writer, cmd.name()) {
        targets.extend(path_args(cmd));
    }
    // Options whose value it writes, or that make it rewrite every path it is given
    // (`write-option`, `edit-option` in `rules/program_roles.txt`).
    let of = |kind: Kind| -> Vec<&str> {
        rules
            .known
            .entries(kind)
            .filter_map(|e| e.strip_prefix(cmd.name())?.strip_prefix(' '))
            .collect()
    };
    let (writes, edits) = (of(Kind::WriteOption), of(Kind::EditOption));
    if !writes.is_empty() || !edits.is_empty() {
        let args = cmd.args();
        for (i, w) in args.iter().enumerate() {
            let (opt, glued) = match w.text.split_once('=') {
                Some((o, v)) => (o, Some(v)),
                None => (w.text.as_str(), None),
            };
            if edits.contains(&opt) {
                targets.extend(path_args(cmd));
            } else if writes.contains(&opt) {
                match glued {
                    Some(v) => targets.push(Word {
                        text: v.to_string(),
                        kind: w.kind,
                        value: None,
                    }),
                    None => targets.extend(args.get(i + 1).cloned()),
                }
            }
        }
    }
    for w in &targets {
        let Some(p) = resolve_word(w, cwd, ctx) else {
            continue;
        };
        if let Some(part) = excluded(&p, &w.text, rules, ctx) {
            return Some(part);
        }
    }
    None
}
