//! Texts judged: shell text by Tier 1 in the directory it runs in, interpreter code by the calls
//! [`super::code`] finds in it, each finding naming its file and line.

use super::code;
use super::sources::Source;
use super::{Lang, Tier1, uncertain};
use crate::decision::Verdict;
use crate::local::context::Context;
use crate::local::paths::credentials;
use crate::local::policy::{self, Part};
use crate::paths;
use crate::rules::Rules;
use std::path::Path;

pub(super) fn max_part(a: Option<Part>, b: Option<Part>) -> Option<Part> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.verdict > a.verdict { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Shell text judged by Tier 1 in `cwd`. `full`: an uncertain inside makes the call uncertain
/// (otherwise only a deny counts).
pub(super) fn judge_shell(
    text: &str,
    first_line: usize,
    shown: &str,
    cwd: &Path,
    full: bool,
    ctx: &Context,
    tier1: Tier1,
) -> Option<Part> {
    let d = tier1_in(text, cwd, ctx, tier1);
    if d.verdict == Verdict::Allow || (!full && d.verdict != Verdict::Deny) {
        return None;
    }
    let worst = d
        .commands
        .iter()
        .filter(|c| c.verdict == d.verdict)
        .find(|c| !c.text.is_empty());
    let (inner, reason) = match worst {
        Some(c) => (c.text.as_str(), c.reason.as_str()),
        None => (text, d.reason.as_str()),
    };
    let line = locate(text, inner).map(|l| l + first_line - 1);
    let at = match line {
        Some(l) if !shown.contains(':') => format!("{shown}:{l}"),
        _ => shown.to_string(),
    };
    // With a rule, the rule's own why and alternative follow in the reason (outcome.rs).
    let rule = worst
        .and_then(|c| c.rule.clone())
        .or_else(|| d.rule.clone());
    let mut why = format!("it runs {at}, which runs `{}`", crate::text::excerpt(inner));
    if rule.is_none() || d.verdict != Verdict::Deny {
        why = format!("{why}: {}", reason.trim_start_matches("sentinel[local]: "));
    }
    let mut part = Part::new(d.verdict.max(Verdict::Uncertain), why, rule);
    part.person_only = d.person_only;
    Some(part)
}

/// Tier 1's decision of `text` as a command run in `cwd`.
pub(super) fn tier1_in(
    text: &str,
    cwd: &Path,
    ctx: &Context,
    tier1: Tier1,
) -> crate::decision::Decision {
    let inner = Context::new(cwd, ctx.home, ctx.sentinel_home, ctx.fs, ctx.taint)
        .with_project(ctx.project())
        .with_writes(ctx.writes)
        .with_programs(ctx.programs)
        .with_fenced(ctx.fenced);
    tier1(text, &inner)
}

/// The line of `text` where the command `inner` (as Tier 1 rendered it) is written.
pub(super) fn locate(text: &str, inner: &str) -> Option<usize> {
    let words: Vec<&str> = inner.split_whitespace().take(2).collect();
    let name = words.first()?.rsplit('/').next()?;
    text.lines()
        .position(|l| l.contains(name) && words.get(1).is_none_or(|w| l.contains(w)))
        .or_else(|| text.lines().position(|l| l.contains(name)))
        .map(|i| i + 1)
}

/// Interpreter code judged by the calls it makes. `full`: uncertain findings count.
pub(super) fn judge_code(
    text: &str,
    lang: Lang,
    s: &Source,
    full: bool,
    rules: &Rules,
    ctx: &Context,
    tier1: Tier1,
) -> Option<Part> {
    let findings = code::scan(text, lang, code::bundled());
    if findings.is_empty() {
        return None;
    }
    let built = code::home_paths(text, lang, code::bundled());
    let credential = code::literals(text)
        .chain(built.iter().map(String::as_str))
        .find_map(|lit| {
            let p = paths::resolve(lit, &s.cwd, ctx.home)?;
            credentials::credential(&p, rules).map(|_| lit.to_string())
        });
    let mut worst: Option<Part> = None;
    for f in &findings {
        let at = format!("{}:{}", s.shown, f.line);
        let why = f.pattern.why.split("; instead").next().unwrap_or("");
        let shown = crate::text::excerpt(&f.text);
        let as_command = match (f.pattern.class, &f.literal) {
            (code::Class::Delete, Some(lit)) => Some(format!("rm -rf -- {}", shell_word(lit))),
            (code::Class::Run, _) => run_literal(&f.text).or_else(|| f.literal.clone()),
            (code::Class::Write, Some(lit)) => Some(format!(": > {}", shell_word(lit))),
            _ => None,
        };
        let denied = as_command.as_ref().and_then(|c| {
            let d = tier1_in(c, &s.cwd, ctx, tier1);
            (d.verdict == Verdict::Deny).then(|| (c.clone(), d))
        });
        let part = if let Some((c, d)) = denied {
            let rule = d
                .commands
                .iter()
                .find_map(|c| c.rule.clone())
                .or(d.rule.clone());
            let mut reason = format!(
                "it runs {at}, `{shown}`, which {why}: as a command, `{}`",
                crate::text::excerpt(&c)
            );
            if rule.is_none() {
                reason = format!(
                    "{reason}: {}",
                    d.reason.trim_start_matches("sentinel[local]: ")
                );
            }
            let mut p = Part::new(Verdict::Deny, reason, rule);
            p.person_only = d.person_only;
            Some(p)
        } else if f.pattern.class == code::Class::Send && credential.is_some() {
            Some(Part::new(
                Verdict::Deny,
                format!(
                    "it runs {at}, `{shown}`, which sends data out, in code that names the credential `{}`; keep secrets out of code that talks to the network",
                    credential.as_deref().unwrap_or("")
                ),
                None,
            ))
        } else if !full {
            None
        } else if f.pattern.class == code::Class::Write {
            let outside = f
                .literal
                .as_deref()
                .and_then(|l| paths::resolve(l, &s.cwd, ctx.home))
                .is_some_and(|p| !policy::in_safe_area(&ctx.fs.real_path(&p), rules, ctx));
            outside.then(|| {
                uncertain(format!(
                    "it runs {at}, `{shown}`, which writes outside the project"
                ))
            })
        } else {
            Some(uncertain(format!(
                "it runs {at}, `{shown}`, which {why} [{}]",
                f.pattern.at
            )))
        };
        worst = max_part(worst, part);
        if worst.as_ref().is_some_and(|w| w.verdict == Verdict::Deny) {
            break;
        }
    }
    if worst.is_none()
        && full
        && let Some(c) = credential
    {
        worst = Some(uncertain(format!(
            "it runs {}, which names the credential `{c}`",
            s.shown
        )));
    }
    worst
}

/// A literal as one shell word: `~`, `/x`, `$HOME/x` stay as written (they mean what they mean
/// in the code: `expanduser('~')`), anything else is quoted.
pub(super) fn shell_word(lit: &str) -> String {
    if !lit.is_empty()
        && lit
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "~/._-$+@%:".contains(c))
    {
        lit.to_string()
    } else {
        format!("'{}'", lit.replace('\'', "'\\''"))
    }
}

/// `subprocess.run(['rm', '-rf', '/'])`: the list's literals as one command.
pub(super) fn run_literal(line: &str) -> Option<String> {
    let open = line.find('[')?;
    let first_quote = line.find(['\'', '"'])?;
    if open > first_quote {
        return None;
    }
    let close = line[open..].find(']')? + open;
    let words: Vec<String> = code::literals(&line[open..close]).map(shell_word).collect();
    (!words.is_empty()).then(|| words.join(" "))
}
