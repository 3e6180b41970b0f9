//! The calls other than a shell command (Bash and PowerShell are in `local::decide`): a file
//! write and a file read, each judged on its resolved target path.

use crate::decision::{Decision, Verdict};
use crate::local::context::Context;
use crate::local::paths::credentials;
use crate::local::policy::outcome::deny_reason;
use crate::local::policy::{self, excluded};
use crate::paths;
use crate::rules::Rules;
use std::path::Path;

pub(in crate::local) fn write_decision(
    tool: &str,
    raw: &str,
    rules: &Rules,
    ctx: &Context,
) -> Decision {
    let make = |verdict, reason: String, rule, path: Option<&Path>| Decision {
        path: path.map(|p| p.display().to_string()),
        ..Decision::local(tool, verdict, format!("sentinel[local]: {reason}"), rule)
    };
    let Some(path) = paths::resolve(raw, ctx.cwd, ctx.home).map(|p| ctx.fs.real_path(&p)) else {
        return make(
            Verdict::Uncertain,
            format!("cannot resolve the path `{raw}`"),
            None,
            None,
        );
    };
    if let Some(part) = excluded(&path, raw, rules, ctx) {
        let shown = format!("{tool} {}", path.display());
        let reason = deny_reason(part.rule.as_ref(), &part.reason, &shown, part.person_only);
        let mut d = make(Verdict::Deny, String::new(), part.rule, Some(&path));
        d.reason = reason;
        d.person_only = part.person_only;
        return d;
    }
    if let Some(rule) = policy::protected(&path, rules, ctx) {
        return make(
            Verdict::Uncertain,
            format!(
                "{} is a protected place in the project, where a write makes code run later without the person seeing it{}",
                path.display(),
                policy::protected_why(rule)
            ),
            Some(rule.clone()),
            Some(&path),
        );
    }
    // A secret is the person's to set: a write over `.env` loses it, and a write there is how
    // keys and tokens get planted or swapped (as `cp .env.example .env` is judged).
    if let Some(rule) = credentials::credential(&path, rules) {
        return make(
            Verdict::Uncertain,
            format!(
                "writes the credential file {}",
                credentials::describe(&path, rule)
            ),
            None,
            Some(&path),
        );
    }
    let project = ctx.project();
    if paths::is_within(&path, project) {
        return make(
            Verdict::Allow,
            format!(
                "allowed: {} is inside the project {}",
                path.display(),
                project.display()
            ),
            None,
            Some(&path),
        );
    }
    if let Some(rule) = rules.safe_paths().matches(&path) {
        return make(
            Verdict::Allow,
            format!(
                "allowed by {}{rule} ({})",
                if rule.origin == "bundled" {
                    String::new()
                } else {
                    format!("{} ", rule.owner())
                },
                path.display()
            ),
            Some(rule.clone()),
            Some(&path),
        );
    }
    make(
        Verdict::Uncertain,
        format!(
            "{} is outside the project and every safe path",
            path.display()
        ),
        None,
        Some(&path),
    )
}

pub(super) fn read_decision(
    tool: &str,
    raw_paths: &[String],
    rules: &Rules,
    ctx: &Context,
) -> Decision {
    let mut decision = Decision::local(
        tool,
        Verdict::Allow,
        format!("sentinel[local]: allowed: {tool} is read-only"),
        None,
    );
    // Whether a path was given (else a search reads the working directory).
    let mut searched = false;
    for raw in raw_paths {
        let trimmed = raw.trim_start_matches("**/");
        let Some(path) = paths::resolve(trimmed, ctx.cwd, ctx.home) else {
            continue;
        };
        // The path itself, where its symlinks lead, and what a glob in it matches now.
        let mut candidates = vec![path.clone(), ctx.fs.real_path(&path)];
        if trimmed.contains(['*', '?', '[']) {
            candidates.extend(ctx.fs.glob(&path).unwrap_or_default());
        }
        for p in &candidates {
            let real = ctx.fs.real_path(p);
            let found = credentials::credential(&real, rules)
                .map(|r| (real.clone(), r))
                .or_else(|| credentials::credential(p, rules).map(|r| (p.clone(), r)));
            if let Some((at, rule)) = found {
                let why = format!(
                    "of the credential file {}",
                    credentials::describe(&at, rule)
                );
                return asked(decision, tool, &why, &at);
            }
        }
        // A search or listing tool walks the directory it is given: one that a credential can
        // lie under (the home, `..` of a project in it, `/`, `~/.config`, `~/.claude`) asks.
        let real = ctx.fs.real_path(&path);
        if walks_trees(tool)
            && !trimmed.contains(['*', '?', '['])
            && credentials::tree_holds_credentials(&real, ctx.home, rules)
        {
            let why = format!("searches {}, which holds credentials", real.display());
            return asked(decision, tool, &why, &real);
        }
        // A search that reads what it finds (Grep) opens the files below a folder it is given:
        // one of them a credential it would read (not hidden, not ignored) asks.
        if reads_contents(tool)
            && ctx.fs.is_dir(&real) == Some(true)
            && let Some(why) = policy::search_reaches_credential(&real, rules, ctx)
        {
            return asked(decision, tool, &why, &real);
        }
        decision.path = Some(real.display().to_string());
        // A literal path names where it searches; a wildcard is Grep's file filter (`*.ts`).
        searched |= !trimmed.contains(['*', '?', '[']);
    }
    // Without a path it searches the working directory.
    if !searched
        && reads_contents(tool)
        && let Some(why) = policy::search_reaches_credential(ctx.cwd, rules, ctx)
    {
        return asked(decision, tool, &why, ctx.cwd);
    }
    decision
}

/// The read's decision turned into an ask: `{tool} {why}`, about `path` (the credential file,
/// or the folder whose search reaches one). One builder, so the three asks of a read say the
/// same thing the same way.
fn asked(mut decision: Decision, tool: &str, why: &str, path: &Path) -> Decision {
    decision.verdict = Verdict::Ask;
    decision.reason = format!("sentinel[local]: ask: {tool} {why}");
    decision.path = Some(path.display().to_string());
    decision
}

/// The search tools that read the files they find (Grep, and its name in other agents), as
/// ripgrep with its defaults does.
fn reads_contents(tool: &str) -> bool {
    ["grep", "search_file_content", "grep_search"]
        .iter()
        .any(|t| tool.eq_ignore_ascii_case(t))
}

/// The tools that walk a directory tree (Claude Code's Grep, Glob and LS, and their names in
/// other agents).
fn walks_trees(tool: &str) -> bool {
    [
        "grep",
        "glob",
        "ls",
        "search_file_content",
        "list_directory",
    ]
    .iter()
    .any(|t| tool.eq_ignore_ascii_case(t))
}
