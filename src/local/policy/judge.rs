//! One simple command judged: its spec's reading and effects through the policy, the rule files,
//! the safe area and the excluded paths, and the commands only the person may run.

use crate::decision::effect::Effect;
use crate::decision::{RuleRef, Verdict};
use crate::local::context::Context;
use crate::local::paths::scan::Mask;
use crate::local::policy::{self, Part, excluded};
use crate::local::policy::{listing, signs};
use crate::local::spec::effects::{self, Effects};
use crate::local::spec::env_vars::{self, Known};
use crate::rules::{CommandRule, RuleList, RuleMatch, Rules};
use crate::shell::{self, Role, SimpleCommand, Word, WordKind};
use std::path::Path;

pub(in crate::local) use super::outside::{
    Outside, effective_cwd, excluded_write, outside_safe_area, path_args,
};

/// What judging a command saw besides its verdict: a credential it reads, data it sends.
#[derive(Default)]
pub(in crate::local) struct Seen {
    pub(in crate::local) credential: Option<String>,
    pub(in crate::local) egress: Option<String>,
}

/// [`judge`], with the effects it found (empty when a rule decided before they were needed)
/// and what they read and send.
pub(in crate::local) fn judge_seen(
    cmd: &SimpleCommand,
    text: &str,
    rules: &Rules,
    ctx: &Context,
) -> (Part, Seen) {
    let mut effects = Vec::new();
    let mut seen = Seen::default();
    let mut part = judge_inner(cmd, text, rules, ctx, &mut effects, &mut seen);
    part.effects = effects;
    (part, seen)
}

pub(in crate::local) fn judge_inner(
    cmd: &SimpleCommand,
    text: &str,
    rules: &Rules,
    ctx: &Context,
    found: &mut Vec<Effect>,
    seen: &mut Seen,
) -> Part {
    // The text's byte pairs, taken once for the three rule lists.
    let pairs = Mask::of(text.as_bytes());
    let blocked = match cmd.role {
        Role::Command => hard_block_in(text, pairs, rules),
        Role::Wrapper => {
            hard_block_in(text, pairs, rules).or_else(|| hard_block_in_suffixes(cmd, rules, ctx))
        }
    };
    if let Some(part) = blocked {
        return part;
    }
    if let Some(part) = self_loosening(cmd) {
        return part;
    }

    let cwd = effective_cwd(cmd, ctx);
    if let Some((rule, m)) = first_match(rules.conditional(), text, pairs) {
        if let RuleMatch::Broken(e) = m {
            return Part::new(
                Verdict::Ask,
                format!("{} cannot be compiled: {e}", rule.rule),
                Some(rule.rule.clone()),
            );
        }
        match outside_safe_area(cmd, cwd.as_deref(), rules, ctx) {
            Some(Outside::Blocked(why)) => {
                return Part::new(Verdict::Deny, why, Some(rule.rule.clone()));
            }
            Some(Outside::Scratch(path)) => {
                // Scratch space is uncertain, unless the delete reaches a protected path there.
                if let Some(part) = excluded_write(cmd, cwd.as_deref(), rules, ctx) {
                    return part;
                }
                return Part::new(
                    Verdict::Uncertain,
                    format!("`{path}` is in a temp dir, not the project ({})", rule.rule),
                    None,
                );
            }
            None => {}
        }
    }

    // What the command does, as its program reads its arguments (SPEC 2.2).
    let dashless;
    let cmd = if listing::relative_names_are_dashless(cmd, cwd.as_deref(), &rules.specs, ctx) {
        dashless = SimpleCommand {
            extra_args_from_find: true,
            ..cmd.clone()
        };
        &dashless
    } else {
        cmd
    };
    let mut effects = effects::of(cmd, &rules.specs, &rules.known);
    if cmd.role == Role::Wrapper {
        // The command it runs is judged on its own (`python -m pytest` as `pytest`); what the
        // wrapper's own options do to paths, users and the network still counts.
        effects.known = true;
        effects.list.retain(|e| {
            matches!(
                e,
                Effect::Read { .. }
                    | Effect::Walk { .. }
                    | Effect::Write { .. }
                    | Effect::WriteInto { .. }
                    | Effect::Mode { .. }
                    | Effect::Delete { .. }
                    | Effect::DeleteBelow { .. }
                    | Effect::AsUser { .. }
                    | Effect::Send { .. }
                    | Effect::Receive { .. }
                    | Effect::Destroy { .. }
            )
        });
    }
    if let Some(dir) = &cmd.name_dir {
        // `./gradlew build`, `scripts/test.sh`: a file run as a program. When a spec knows it
        // (`gradlew` is `gradle`), its arguments mean what the spec says; otherwise they are
        // the script's own business, and whether it is the project's is the question.
        if !effects.known {
            effects.spec = None;
        }
        effects.list.push(Effect::RunFile {
            path: Word::literal(format!("{dir}/{}", cmd.name())),
        });
        effects.known = true;
    } else if cmd.argv.first().is_some_and(Word::is_literal)
        && ctx
            .programs
            .in_project(cmd.name(), cwd.as_deref(), ctx.project())
            .is_some()
    {
        // `pip list` with the project's virtualenv on PATH, `eslint` from its
        // `node_modules/.bin`: the program, and all it imports or requires, is the project's
        // code (which a fenced run may have changed), whatever its spec says it does.
        effects.list.push(Effect::RunProject);
    }
    // An environment variable is allowed only when known to be inert; one the list does not
    // know is the project's own configuration when the command runs the project's code.
    // `python -m MODULE` runs a module, judged on its own as the project's or not.
    let runs_module = cmd.role == Role::Wrapper
        && (cmd.name().starts_with("python") || cmd.name() == "py")
        && cmd.argv.get(1).is_some_and(|w| w.text == "-m");
    let runs_project = || {
        runs_module
            || effects
                .list
                .iter()
                .any(|e| matches!(e, Effect::RunProject | Effect::RunFile { .. }))
    };
    let mut from_env = Vec::new();
    for (name, value) in &cmd.assignments {
        // A bare assignment (`PATH=…`) lasts for what follows, and reaches the programs it
        // runs when the variable is already exported (PATH always is).
        let bare = cmd.argv.is_empty();
        let why = match env_vars::known(name) {
            Known::Inert => continue,
            Known::Unknown if bare || runs_project() => continue,
            Known::Programs => {
                from_env.extend(env_vars::entries(name, value).into_iter().map(|folder| {
                    Effect::RunsFrom {
                        variable: name.clone(),
                        folder,
                    }
                }));
                continue;
            }
            // `PYTHONPATH=src python x.py`: code is loaded from each entry, which must be the
            // project's own.
            Known::Code => {
                from_env.extend(
                    env_vars::entries(name, value)
                        .into_iter()
                        .map(|path| Effect::RunFile { path }),
                );
                continue;
            }
            Known::Options(program) if options_are_plain(program, value, rules) => continue,
            Known::Options(_) => "whose options may load or run code",
            Known::Loads => "which loads config or code, or picks a program",
            Known::Command => "a command line it runs",
            Known::Unknown => "a variable sentinel does not know to be inert",
        };
        let to = if bare {
            String::new()
        } else {
            format!(" for `{}`", cmd.name())
        };
        from_env.push(Effect::Unknown {
            why: format!("sets {name}{to}, {why}"),
        });
    }
    effects.list.extend(from_env);
    // Every process's environment (`ps auxeww`), a secret key (`gpg --export-secret-keys`): as
    // a read of a credential file, what it prints reaches the agent's transcript. (The shell's
    // own dumps are the specs' `bare`; the tools' token printers their reviews.)
    if matches!(cmd.name(), "ps" | "gpg" | "gpg2")
        && crate::local::policy::signs::prints_secrets(cmd, &rules.known)
    {
        effects.list.push(Effect::Unknown {
            why: format!(
                "`{}` prints secrets (every process's environment, or a secret key)",
                cmd.name()
            ),
        });
    }
    if let Some(name) = secret_value_passed(cmd) {
        // Printed, written or sent, the value is out of the environment: the agent's
        // transcript, a file, a request. Whether it belongs there is for Tier 2 or the person.
        effects.list.push(Effect::Unknown {
            why: format!(
                "`${name}` looks like a secret by its name, and `{}` gets its value",
                cmd.name()
            ),
        });
    }
    // The effects found are the command's record; what follows only adds to them for its
    // own checks (a safe rule's generic reads), so they are cut back and moved, not copied.
    let recorded = effects.list.len();
    let part = judge_effects(
        cmd,
        (text, pairs),
        rules,
        ctx,
        &mut effects,
        cwd.as_deref(),
        seen,
    );
    effects.list.truncate(recorded);
    *found = effects.list;
    part
}

/// The first variable that looks like a secret by its name (`$GITHUB_TOKEN`) whose value an
/// argument passes to the program: not its length (`${#X}`), nor a word only when it is set
/// (`${X:+set}`), and not to the shell's tests, which print nothing.
fn secret_value_passed(cmd: &SimpleCommand) -> Option<&str> {
    if matches!(cmd.name(), "test" | "[" | "[[") {
        return None;
    }
    cmd.argv
        .iter()
        .skip(1)
        .filter(|w| !w.is_literal())
        .find_map(|w| {
            signs::expanded_variables(&w.text).find_map(|(name, braced, after)| {
                let only_if_set = braced && (after.starts_with(":+") || after.starts_with('+'));
                (!only_if_set && signs::is_secret_variable_name(name)).then_some(name)
            })
        })
}

/// The rest of [`judge_inner`], over the command's effects.
fn judge_effects(
    cmd: &SimpleCommand,
    (text, pairs): (&str, Mask),
    rules: &Rules,
    ctx: &Context,
    effects: &mut Effects,
    cwd: Option<&Path>,
    seen: &mut Seen,
) -> Part {
    seen.credential = policy::credential_read(effects, cwd, rules, ctx);
    seen.egress = policy::egress(effects);
    // Writes into excluded paths are denied whatever else is known: by the spec's effects, or,
    // for a program without a spec, by what its arguments look like.
    for e in &effects.list {
        let found = match e {
            Effect::Delete { path, .. } => policy::resolve_all_unfollowed(path, cwd, ctx),
            Effect::Write { path } | Effect::Mode { path } | Effect::DeleteBelow { path, .. } => {
                policy::resolve_all(path, cwd, ctx)
            }
            Effect::WriteInto { dir, from } => {
                let found: Vec<_> = policy::landed(dir, from, cwd, ctx)
                    .iter()
                    .filter_map(|w| policy::resolve_all(w, cwd, ctx))
                    .flatten()
                    .collect();
                for p in found {
                    if let Some(part) = excluded(&p, &dir.text, rules, ctx) {
                        return part;
                    }
                }
                None
            }
            _ => None,
        };
        if let Effect::Write { path }
        | Effect::Mode { path }
        | Effect::Delete { path, .. }
        | Effect::DeleteBelow { path, .. } = e
            && policy::socket_path(&path.text).is_none()
            && let Some(found) = found
        {
            for p in found {
                if let Some(part) = excluded(&p, &path.text, rules, ctx) {
                    return part;
                }
            }
        }
    }
    if !effects.known
        && let Some(part) = excluded_write(cmd, cwd, rules, ctx)
    {
        // A program without a spec: its arguments are taken as written if it is a known writer.
        return part;
    }

    if cmd.role == Role::Wrapper && matches!(cmd.name(), "sudo" | "doas") {
        return Part::new(
            Verdict::Uncertain,
            format!("`{}` runs a command as another user", cmd.name()),
            None,
        );
    }
    if cmd.via.iter().any(|v| v == "sudo" || v == "doas") {
        return Part::new(
            Verdict::Uncertain,
            format!("`{}` runs as another user", shell::excerpt(text)),
            None,
        );
    }

    let safe_rule = if cmd.argv.is_empty() || cmd.name_dir.is_some() {
        None
    } else {
        safe_match(rules.safe(), text, pairs)
    };
    if !effects.known {
        let Some(rule) = safe_rule.clone() else {
            return Part::new(
                Verdict::Uncertain,
                format!(
                    "sentinel has no spec for `{}` and no safe rule matches `{}`",
                    cmd.name(),
                    shell::excerpt(text)
                ),
                None,
            );
        };
        // The person's safe rule stands for a spec: its arguments are taken as paths it reads.
        effects.list.extend(generic_reads(cmd));
        effects.spec = Some(rule);
    }
    let mut part = policy::judge(effects, cwd, rules, ctx);
    if part.verdict == Verdict::Allow && part.rule.is_none() && cmd.name_dir.is_some() {
        part.reason = format!(
            "runs {}/{}, a file of the project",
            cmd.name_dir.as_deref().unwrap_or("."),
            cmd.name()
        );
    }
    if part.verdict == Verdict::Uncertain
        && effects.known
        && let Some(rule) = safe_rule
    {
        // A person's safe rule answers what Tier 1 leaves uncertain (an option it does not
        // know, a network fetch, a program run), but not reads of credentials, writes to
        // protected places or outside the project, nor anything denied: those effects are
        // still checked on top of it.
        let known = Effects {
            list: effects
                .list
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        Effect::Read { .. }
                            | Effect::Walk { .. }
                            | Effect::Write { .. }
                            | Effect::WriteInto { .. }
                            | Effect::Mode { .. }
                            | Effect::Delete { .. }
                            | Effect::DeleteBelow { .. }
                            | Effect::Destroy { .. }
                            | Effect::AsUser { .. }
                    )
                })
                .cloned()
                .collect(),
            spec: Some(rule),
            ..effects.clone()
        };
        let again = policy::judge(&known, cwd, rules, ctx);
        if again.verdict == Verdict::Allow {
            return again;
        }
    }
    if cmd.role == Role::Wrapper && part.verdict == Verdict::Allow {
        return Part::new(
            Verdict::Allow,
            "wrapper; the command it runs is judged on its own",
            None,
        );
    }
    part
}

/// For a command matched only by a person's safe rule: each literal argument that is not an
/// option, and each `--opt=value`, taken as a file it may read (so a credential is still seen).
pub(in crate::local) fn generic_reads(cmd: &SimpleCommand) -> Vec<Effect> {
    path_args(cmd)
        .into_iter()
        .filter(|w| w.kind != WordKind::Computed || shell::is_home_ref(&w.text))
        .map(|w| Effect::Read {
            path: w,
            tree: false,
        })
        .collect()
}

/// `sentinel` subcommands that loosen the guard: the person runs them, never the agent.
pub(in crate::local) const PERSON_ONLY: &[&str] = &["trust", "allow-once", "install", "uninstall"];

/// A deny part when the command runs sentinel to loosen itself.
pub(in crate::local) fn self_loosening(cmd: &SimpleCommand) -> Option<Part> {
    if cmd.name() != "sentinel" {
        return None;
    }
    let args: Vec<&str> = cmd.args().iter().map(|w| w.text.as_str()).collect();
    let sub = args.iter().find(|a| !a.starts_with('-'))?;
    let applies = *sub == "suggest"
        && args
            .iter()
            .any(|a| *a == "--apply" || a.starts_with("--apply="));
    if !PERSON_ONLY.contains(sub) && !applies {
        return None;
    }
    let what = if applies { "suggest --apply" } else { sub };
    Some(Part::person_only(format!(
        "`sentinel {what}` changes what sentinel lets through; an agent cannot loosen its own guard. Only the person runs it, in their own terminal: tell them what you need and why"
    )))
}

/// The first hard-block rule that matches any of the texts, as a deny part.
pub(in crate::local) fn hard_block(texts: &[&str], rules: &Rules) -> Option<Part> {
    texts
        .iter()
        .find_map(|text| hard_block_in(text, Mask::of(text.as_bytes()), rules))
}

/// [`hard_block`] of one text whose byte pairs are taken.
/// A wrapper is also tested from each word on, so a wrapper option sentinel misreads cannot
/// hide the command behind it from the block list. The suffixes are slices of the words joined
/// once (a copy of each took memory growing with the square of the words), and their byte
/// pairs are gathered from the last word back, each pair once.
fn hard_block_in_suffixes(cmd: &SimpleCommand, rules: &Rules, ctx: &Context) -> Option<Part> {
    let words = cmd.argv.get(1..).unwrap_or_default();
    let mut joined = String::with_capacity(words.iter().map(|w| w.text.len() + 1).sum());
    let mut starts = Vec::with_capacity(words.len());
    for w in words {
        if !joined.is_empty() {
            joined.push(' ');
        }
        starts.push(joined.len());
        joined.push_str(&w.text);
    }
    // The pairs of the suffix at `starts[i]`: its first word and the space and byte after it,
    // and the pairs of the suffix after it.
    let mut masks = vec![Mask::EMPTY; starts.len()];
    let mut after = Mask::EMPTY;
    for (i, &start) in starts.iter().enumerate().rev() {
        let end = starts.get(i + 1).map_or(joined.len(), |&next| next + 1);
        let mut m = Mask::of(&joined.as_bytes()[start..end.min(joined.len())]);
        for (word, rest) in m.0.iter_mut().zip(after.0) {
            *word |= rest;
        }
        masks[i] = m;
        after = m;
    }
    let list = rules.hard_block();
    for (&start, &pairs) in starts.iter().zip(&masks) {
        let suffix = &joined[start..];
        if list.candidates_in(suffix, pairs).next().is_none() {
            continue;
        }
        if !ctx.take_suffix_search(suffix.len()) {
            return Some(Part::new(
                Verdict::Uncertain,
                format!(
                    "`{}` has more words than sentinel tests one by one against the block rules (its bound: {} KiB of suffixes a call)",
                    cmd.name(),
                    crate::local::context::MAX_SUFFIX_BYTES >> 10
                ),
                None,
            ));
        }
        if let Some(part) = hard_block_in(suffix, pairs, rules) {
            return Some(part);
        }
    }
    None
}

fn hard_block_in(text: &str, pairs: Mask, rules: &Rules) -> Option<Part> {
    match first_match(rules.hard_block(), text, pairs) {
        Some((rule, RuleMatch::Yes)) => Some(Part::new(
            Verdict::Deny,
            match &rule.rule.why {
                Some(why) => why.to_string(),
                None => format!("matches {}", rule.rule),
            },
            Some(rule.rule.clone()),
        )),
        Some((rule, RuleMatch::Broken(e))) => Some(Part::new(
            Verdict::Ask,
            format!("{} cannot be compiled: {e}", rule.rule),
            Some(rule.rule.clone()),
        )),
        _ => None,
    }
}

pub(in crate::local) fn first_match<'r>(
    list: &'r RuleList,
    text: &str,
    pairs: Mask,
) -> Option<(&'r CommandRule, RuleMatch)> {
    list.candidates_in(text, pairs)
        .find_map(|r| match r.test_unfiltered(text) {
            RuleMatch::No => None,
            m => Some((r, m)),
        })
}

/// A positive safe rule matches the whole command and no `!` exception does.
pub(in crate::local) fn safe_match(list: &RuleList, text: &str, pairs: Mask) -> Option<RuleRef> {
    let mut positive = None;
    for r in list.candidates_in(text, pairs) {
        match (r.negated, r.test_unfiltered(text)) {
            (true, RuleMatch::Yes | RuleMatch::Broken(_)) => return None,
            (false, RuleMatch::Yes) if positive.is_none() => positive = Some(r.rule.clone()),
            _ => {}
        }
    }
    positive
}

/// Whether `value`, read as options of `program` (`NODE_OPTIONS` as node's), holds only plain
/// flags and values by that program's spec: nothing it loads, runs, reads or writes.
fn options_are_plain(program: &str, value: &Word, rules: &Rules) -> bool {
    let Some(text) = value.known_value() else {
        return false;
    };
    let mut argv = vec![Word::literal(program)];
    argv.extend(text.split_whitespace().map(Word::literal));
    if argv.len() == 1 {
        return true;
    }
    crate::local::spec::options::read(&argv, &rules.specs).is_some_and(|r| {
        r.problems.is_empty()
            && r.marked.is_empty()
            && r.values
                .iter()
                .all(|v| v.from != "operand" && v.kind.is_inert())
    })
}
