//! Tier 1: the local decision, a pure function of the call, the rules and the context.
//!
//! A shell command is split into its simple commands ([`crate::shell`]); each gets a verdict of
//! its own and the command's verdict is the maximum (allow < uncertain < ask < deny). File tools
//! are decided on their resolved target path.

use crate::call::ToolCall;
use crate::decision::effect::Effect;
use crate::decision::{CommandReport, Decision, RuleRef, Verdict};
use crate::local::context::Context;
use crate::local::effects::{self, Effects};
use crate::local::policy::{
    self, Part, TEMP_DIRS, excluded, in_safe_area, is_temp_ref, resolve_word,
};
use crate::local::signs;
use crate::local::{bins, credentials};
use crate::paths;
use crate::rules::{CommandRule, RuleList, RuleMatch, Rules};
use crate::shell::{self, Cwd, Role, SimpleCommand, Word, WordKind};
use std::path::{Path, PathBuf};

/// Commands that write to (or delete) the paths they are given: their path arguments are
/// checked against the excluded list.
const WRITERS: &[&str] = &[
    "cp", "mv", "install", "ln", "tee", "touch", "mkdir", "rm", "rmdir", "unlink", "truncate",
    "chmod", "chown", "chgrp", "rsync", "dd", "shred", "scp",
];

/// Options whose value is a file or directory the command writes: (command, options).
const WRITE_OPTIONS: &[(&str, &[&str])] = &[
    (
        "curl",
        &[
            "-o",
            "--output",
            "--output-dir",
            "-c",
            "--cookie-jar",
            "-D",
            "--dump-header",
        ],
    ),
    (
        "wget",
        &[
            "-O",
            "--output-document",
            "-P",
            "--directory-prefix",
            "-o",
            "--output-file",
            "-a",
            "--append-output",
        ],
    ),
    ("sort", &["-o", "--output"]),
    ("tar", &["-C", "--directory", "-f", "--file"]),
    ("unzip", &["-d"]),
    ("git", &["-o", "--output"]),
    ("time", &["-o", "--output"]),
    ("tree", &["-o"]),
    ("sed", &["-i", "--in-place"]),
];

/// Tier 1. Returns None for a tool sentinel has no opinion on (the agent's own flow decides).
pub fn decide(call: &ToolCall, rules: &Rules, ctx: &Context) -> Option<Decision> {
    let mut decision = match call {
        ToolCall::Shell { command } => shell_decision(command, rules, ctx),
        ToolCall::PowerShell { command } => {
            let mut d = powershell_decision(command, rules, ctx);
            d.signs = signs::text_signs(command);
            d
        }
        ToolCall::Write {
            tool,
            path,
            content,
        } => {
            let mut d = write_decision(tool, path, rules, ctx);
            d.signs = signs::text_signs(content);
            d
        }
        ToolCall::Read { tool, paths } => read_decision(tool, paths, rules, ctx),
        ToolCall::Agent { tool, prompt } => {
            // A subagent launch is the agent's business, unless untrusted content is in the
            // session and the prompt shows signs of acting on it.
            let signs = signs::text_signs(prompt);
            let taint = ctx.taint?;
            if signs.is_empty() {
                return None;
            }
            let mut d = agent_decision(tool);
            d.signs = signs;
            d.taint = Some(taint.clone());
            d
        }
        ToolCall::Other { .. } => return None,
    };
    decision.cwd = ctx.cwd.display().to_string();
    if signs::exfiltration(&decision.signs) && decision.verdict < Verdict::Deny {
        // Credential access and network egress in one call: blocked in every session.
        decision.verdict = Verdict::Deny;
        decision.rule = None;
        decision.reason = format!(
            "sentinel[local]: blocked: a credential and the network in one call ({}); keep secrets out of network commands, or ask the person to run it",
            signs::describe(&decision.signs)
        );
    }
    if let Some(taint) = ctx.taint {
        decision.taint = Some(taint.clone());
        if call.is_high_risk() && decision.verdict == Verdict::Allow && !decision.signs.is_empty() {
            decision.verdict = Verdict::Uncertain;
            decision.rule = None;
            decision.reason = format!(
                "sentinel[local]: uncertain: this session took in untrusted content ({}) and the call shows {}",
                taint.describe(),
                signs::describe(&decision.signs)
            );
        }
    }
    if decision.verdict == Verdict::Allow && !rules.errors.is_empty() {
        // A broken rule file never widens what is allowed: every local allow becomes ask.
        let first = &rules.errors[0];
        decision.verdict = Verdict::Ask;
        decision.reason = format!(
            "sentinel[local]: would allow, but the rule files have {} error(s), first {first}; run `sentinel rules lint`",
            rules.errors.len()
        );
    }
    Some(decision)
}

/// A subagent launch whose prompt shows signs in a tainted session: uncertain.
fn agent_decision(tool: &str) -> Decision {
    Decision::local(
        tool,
        Verdict::Uncertain,
        "sentinel[local]: uncertain: a subagent launched in a session that took in untrusted content, with a prompt that shows signs of acting on it",
        None,
    )
}

fn shell_decision(command: &str, rules: &Rules, ctx: &Context) -> Decision {
    let analysis = shell::analyse(command);
    let mut reports: Vec<CommandReport> = Vec::new();
    let mut report_in = |text: String, via: Vec<String>, part: Part, cwd: Option<String>| {
        reports.push(CommandReport {
            text,
            via,
            verdict: part.verdict,
            reason: part.reason,
            rule: part.rule,
            person_only: part.person_only,
            cwd,
            effects: part.effects,
        })
    };

    if let Some(error) = &analysis.parse_error {
        // Not understood: at best uncertain, and the hard-block rules still look at each piece.
        for segment in shell::rough_segments(command) {
            if let Some(part) = hard_block(&[segment.as_str()], rules) {
                report_in(segment, Vec::new(), part, None);
            }
        }
        let why = format!("cannot parse the command: {error}");
        let mut part = Part::new(Verdict::Uncertain, why.clone(), None);
        part.effects = vec![Effect::Unknown { why }];
        report_in(command.to_string(), Vec::new(), part, None);
    }
    let mut credential = None;
    let mut egress = None;
    for cmd in &analysis.commands {
        let text = cmd.text();
        let mut inner_report = None;
        let (part, seen) = match bins::run_of(
            cmd,
            &rules.specs,
            ctx.fs,
            effective_cwd(cmd, ctx).as_deref(),
            ctx.home,
        ) {
            None => judge_seen(cmd, &text, rules, ctx),
            Some(run) => {
                // The package manager's own options still count (as a wrapper's do); what the
                // name runs is judged apart.
                let mut outer = cmd.clone();
                outer.role = Role::Wrapper;
                let (mut part, seen) = judge_seen(&outer, &text, rules, ctx);
                let what = match run {
                    bins::Run::Program(inner) => {
                        let inner_text = inner.text();
                        let (p, s) = judge_seen(&inner, &inner_text, rules, ctx);
                        credential = credential.or(s.credential);
                        egress = egress.or(s.egress);
                        inner_report = Some((inner_text, inner.via.clone(), p));
                        None
                    }
                    bins::Run::Script(effects) => Some(policy::judge(
                        &effects,
                        effective_cwd(cmd, ctx).as_deref(),
                        rules,
                        ctx,
                    )),
                    bins::Run::Unknown(why) => Some(Part::new(Verdict::Uncertain, why, None)),
                };
                if let Some(p) = what
                    && p.verdict >= part.verdict
                {
                    part = Part {
                        effects: part.effects,
                        ..p
                    };
                }
                (part, seen)
            }
        };
        credential = credential.or(seen.credential);
        egress = egress.or(seen.egress);
        let runs_in = (cmd.cwd != Cwd::Start).then(|| match effective_cwd(cmd, ctx) {
            Some(dir) => dir.display().to_string(),
            None => "unknown".to_string(),
        });
        report_in(text, cmd.via.clone(), part, runs_in.clone());
        if let Some((text, via, part)) = inner_report {
            report_in(text, via, part, runs_in);
        }
    }
    if let (Some(c), Some(e)) = (&credential, &egress) {
        // A credential read and data leaving the machine in one call: blocked, whichever
        // programs do it.
        report_in(
            command.to_string(),
            Vec::new(),
            Part::new(
                Verdict::Deny,
                format!(
                    "a credential and the network in one call: it reads {c} and sends data out ({e}); keep secrets out of network commands"
                ),
                None,
            ),
            None,
        );
    }
    for segment in &analysis.unparsed {
        if let Some(part) = hard_block(&[segment.as_str()], rules) {
            report_in(segment.clone(), Vec::new(), part, None);
        }
    }
    for pipeline in &analysis.pipelines {
        if let Some(part) = hard_block(&[pipeline.as_str()], rules) {
            report_in(pipeline.clone(), Vec::new(), part, None);
        }
    }
    for name in &analysis.self_calling_functions {
        report_in(
            format!("{name}() {{ … {name} … }}"),
            Vec::new(),
            Part::new(
                Verdict::Deny,
                format!("function `{name}` calls itself: a fork bomb"),
                None,
            ),
            None,
        );
    }
    for unknown in &analysis.unknowns {
        // Something the parser could not see through: code sentinel did not check.
        let mut part = Part::new(Verdict::Uncertain, unknown.clone(), None);
        part.effects = vec![Effect::Unknown {
            why: unknown.clone(),
        }];
        report_in(unknown.clone(), Vec::new(), part, None);
    }
    if analysis.commands.is_empty()
        && analysis.unknowns.is_empty()
        && analysis.parse_error.is_none()
    {
        report_in(
            String::new(),
            Vec::new(),
            Part::new(Verdict::Uncertain, "empty command", None),
            None,
        );
    }
    let mut decision = combine("Bash", reports);
    // Signs only ever hold back an allow or turn a call into a deny: a denied call needs none.
    if decision.verdict < Verdict::Deny {
        decision.signs = signs::shell_signs(command, &analysis, ctx.cwd, ctx.home, rules);
    }
    decision
}

/// The command's verdict is the maximum of its parts; the first part at that level explains it.
fn combine(tool: &str, reports: Vec<CommandReport>) -> Decision {
    let worst = reports
        .iter()
        .map(|r| r.verdict)
        .max()
        .unwrap_or(Verdict::Uncertain);
    let decider = reports.iter().find(|r| r.verdict == worst);
    let (reason, rule) = match (worst, decider) {
        (Verdict::Allow, _) => {
            let rules: Vec<String> = reports
                .iter()
                .filter_map(|r| {
                    r.rule
                        .as_ref()
                        .map(|rule| format!("{rule} ({})", shell::excerpt(&r.text)))
                })
                .collect();
            let files: Vec<String> = reports
                .iter()
                .filter(|r| r.rule.is_none() && r.reason.starts_with("runs "))
                .map(|r| r.reason.clone())
                .collect();
            let reason = match (rules.is_empty(), files.is_empty()) {
                (true, true) => {
                    "sentinel[local]: allowed: nothing in it runs a command".to_string()
                }
                (false, true) => format!("sentinel[local]: allowed by {}", rules.join(", ")),
                (true, false) => format!("sentinel[local]: allowed: {}", files.join("; ")),
                (false, false) => format!(
                    "sentinel[local]: allowed by {}; {}",
                    rules.join(", "),
                    files.join("; ")
                ),
            };
            (reason, decider.and_then(|d| d.rule.clone()))
        }
        (Verdict::Deny, Some(d)) => (
            deny_reason(
                d.rule.as_ref(),
                &d.reason,
                &shell::excerpt(&d.text),
                d.person_only,
            ),
            d.rule.clone(),
        ),
        (v, Some(d)) => (
            format!("sentinel[local]: {v}: {}", d.reason),
            d.rule.clone(),
        ),
        (v, None) => (format!("sentinel[local]: {v}"), None),
    };
    Decision {
        person_only: worst == Verdict::Deny && decider.is_some_and(|d| d.person_only),
        commands: reports,
        ..Decision::local(tool, worst, reason, rule)
    }
}

/// A deny reason written for the agent: what was refused, why, and what to do instead. `detail`
/// is what Tier 1 found (the rule's comment, or e.g. which path is outside the project).
fn deny_reason(rule: Option<&RuleRef>, detail: &str, shown: &str, person_only: bool) -> String {
    let Some(rule) = rule else {
        let instead = if person_only {
            String::new()
        } else {
            " Instead: ask the person to run it themselves.".to_string()
        };
        return format!("sentinel[local]: blocked `{shown}`: {detail}.{instead}");
    };
    let (why, instead) = advice(rule);
    let mut reasons: Vec<&str> = Vec::new();
    if !detail.is_empty() && Some(detail) != rule.why.as_deref() && Some(detail) != why {
        reasons.push(detail);
    }
    reasons.extend(why);
    let why = if reasons.is_empty() {
        String::new()
    } else {
        format!(": {}", reasons.join("; "))
    };
    format!("sentinel[local]: blocked by {rule} ({shown}){why}. Instead: {instead}.")
}

/// A rule's comment split into why it blocks and what to do instead (`…; instead: …`), with a
/// default alternative for each rule file when the comment names none.
fn advice(rule: &RuleRef) -> (Option<&str>, String) {
    let comment = rule.why.as_deref().unwrap_or("");
    let (why, instead) = match comment.split_once("; instead:") {
        Some((w, i)) => (w.trim(), Some(i.trim().trim_end_matches('.').to_string())),
        None => (comment.trim(), None),
    };
    let default = || {
        match rule.file.rsplit('/').next().unwrap_or("") {
        "conditional_block_commands.txt" => {
            "keep it inside the project, naming each path, or ask the person to run it".to_string()
        }
        "excluded_paths.txt" => {
            "write inside the project, or ask the person to make this change".to_string()
        }
        _ => "do not look for another way to do the same; if it is needed, ask the person to run it themselves".to_string(),
    }
    };
    (
        (!why.is_empty()).then_some(why),
        instead.unwrap_or_else(default),
    )
}

/// The first hard-block rule that matches any of the texts, as a deny part.
fn hard_block(texts: &[&str], rules: &Rules) -> Option<Part> {
    for text in texts {
        match first_match(rules.hard_block(), text) {
            Some((rule, RuleMatch::Yes)) => {
                return Some(Part::new(
                    Verdict::Deny,
                    match &rule.rule.why {
                        Some(why) => why.to_string(),
                        None => format!("matches {}", rule.rule),
                    },
                    Some(rule.rule.clone()),
                ));
            }
            Some((rule, RuleMatch::Broken(e))) => {
                return Some(Part::new(
                    Verdict::Ask,
                    format!("{} cannot be compiled: {e}", rule.rule),
                    Some(rule.rule.clone()),
                ));
            }
            _ => {}
        }
    }
    None
}

fn first_match<'r>(list: &'r RuleList, text: &str) -> Option<(&'r CommandRule, RuleMatch)> {
    list.candidates(text).find_map(|r| match r.test(text) {
        RuleMatch::No => None,
        m => Some((r, m)),
    })
}

/// Judges one simple command on its own; `text` is `cmd.text()`, rendered once by the caller.
fn judge(cmd: &SimpleCommand, text: &str, rules: &Rules, ctx: &Context) -> Part {
    judge_seen(cmd, text, rules, ctx).0
}

/// What judging a command saw besides its verdict: a credential it reads, data it sends.
#[derive(Default)]
struct Seen {
    credential: Option<String>,
    egress: Option<String>,
}

/// [`judge`], with the effects it found (empty when a rule decided before they were needed)
/// and what they read and send.
fn judge_seen(cmd: &SimpleCommand, text: &str, rules: &Rules, ctx: &Context) -> (Part, Seen) {
    let mut effects = Vec::new();
    let mut seen = Seen::default();
    let mut part = judge_inner(cmd, text, rules, ctx, &mut effects, &mut seen);
    part.effects = effects;
    (part, seen)
}

fn judge_inner(
    cmd: &SimpleCommand,
    text: &str,
    rules: &Rules,
    ctx: &Context,
    found: &mut Vec<Effect>,
    seen: &mut Seen,
) -> Part {
    // A wrapper is also tested from each word on, so a wrapper option sentinel misreads
    // cannot hide the command behind it from the block list.
    let suffixes: Vec<String> = match cmd.role {
        Role::Wrapper => (1..cmd.argv.len())
            .map(|i| {
                cmd.argv[i..]
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect(),
        Role::Command => Vec::new(),
    };
    let texts: Vec<&str> = std::iter::once(text)
        .chain(suffixes.iter().map(String::as_str))
        .collect();
    if let Some(part) = hard_block(&texts, rules) {
        return part;
    }
    if let Some(part) = self_loosening(cmd) {
        return part;
    }

    let cwd = effective_cwd(cmd, ctx);
    if let Some((rule, m)) = first_match(rules.conditional(), text) {
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
    let mut effects = effects::of(cmd, &rules.specs);
    if cmd.role == Role::Wrapper {
        // The command it runs is judged on its own (`python -m pytest` as `pytest`); what the
        // wrapper's own options do to paths, users and the network still counts.
        effects.known = true;
        effects.list.retain(|e| {
            matches!(
                e,
                Effect::Read { .. }
                    | Effect::Write { .. }
                    | Effect::Delete { .. }
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
    }
    for (name, value) in &cmd.assignments {
        if shell::LOAD_PATH_VARIABLES.contains(&name.as_str()) {
            // `PYTHONPATH=src python x.py`: code is loaded from each entry, which must be the
            // project's own.
            for entry in value.text.split([':', ';']).filter(|e| !e.is_empty()) {
                effects.list.push(Effect::RunFile {
                    path: Word {
                        text: entry.to_string(),
                        kind: value.kind,
                        value: None,
                    },
                });
            }
        }
    }
    found.clone_from(&effects.list);
    seen.credential = policy::credential_read(&effects, cwd.as_deref(), rules, ctx);
    seen.egress = policy::egress(&effects);
    // Writes into excluded paths are denied whatever else is known: by the spec's effects, or,
    // for a program without a spec, by what its arguments look like.
    for e in &effects.list {
        if let Effect::Write { path } | Effect::Delete { path, .. } = e
            && policy::socket_path(&path.text).is_none()
        {
            let base = cwd.as_deref();
            if let Some(found) = policy::resolve_all(path, base, ctx) {
                for p in found {
                    if let Some(part) = excluded(&p, &path.text, rules, ctx) {
                        return part;
                    }
                }
            }
        }
    }
    if !effects.known
        && let Some(part) = excluded_write(cmd, cwd.as_deref(), rules, ctx)
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
        safe_match(rules.safe(), text)
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
    let mut part = policy::judge(&effects, cwd.as_deref(), rules, ctx);
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
                            | Effect::Write { .. }
                            | Effect::Delete { .. }
                            | Effect::Destroy { .. }
                            | Effect::AsUser { .. }
                    )
                })
                .cloned()
                .collect(),
            spec: Some(rule),
            ..effects.clone()
        };
        let again = policy::judge(&known, cwd.as_deref(), rules, ctx);
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
fn generic_reads(cmd: &SimpleCommand) -> Vec<Effect> {
    path_args(cmd)
        .into_iter()
        .filter(|w| w.kind != WordKind::Computed || shell::is_home_ref(&w.text))
        .map(|w| Effect::Read {
            path: w,
            tree: false,
        })
        .collect()
}

/// A positive safe rule matches the whole command and no `!` exception does.
fn safe_match(list: &RuleList, text: &str) -> Option<RuleRef> {
    let mut positive = None;
    for r in list.candidates(text) {
        match (r.negated, r.test(text)) {
            (true, RuleMatch::Yes | RuleMatch::Broken(_)) => return None,
            (false, RuleMatch::Yes) if positive.is_none() => positive = Some(r.rule.clone()),
            _ => {}
        }
    }
    positive
}

/// The directory a command runs in, or None when a `cd` made it unknown.
fn effective_cwd(cmd: &SimpleCommand, ctx: &Context) -> Option<PathBuf> {
    match &cmd.cwd {
        Cwd::Start => Some(ctx.cwd.to_path_buf()),
        Cwd::Changed(p) => paths::resolve(p, ctx.cwd, ctx.home),
        Cwd::Unknown => None,
    }
}

/// The words of a command that name paths: its arguments that are not options.
fn path_args(cmd: &SimpleCommand) -> Vec<Word> {
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
fn outside_safe_area(
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
    let mut scratch = None;
    for w in words {
        if is_temp_ref(&w.text) {
            scratch.get_or_insert_with(|| w.text.clone());
            continue;
        }
        match resolve_word(&w, Some(cwd), ctx) {
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
enum Outside {
    /// Beyond the project and every safe path: block.
    Blocked(String),
    /// Into a temp dir only: uncertain.
    Scratch(String),
}

/// A write (redirection or a writer's path argument) into an excluded path, as a deny part.
fn excluded_write(
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
    if WRITERS.contains(&cmd.name()) {
        targets.extend(path_args(cmd));
    }
    if let Some((_, options)) = WRITE_OPTIONS.iter().find(|(name, _)| *name == cmd.name()) {
        let args = cmd.args();
        for (i, w) in args.iter().enumerate() {
            if options.contains(&w.text.as_str()) {
                if cmd.name() == "sed" {
                    // sed -i edits every file it is given.
                    targets.extend(path_args(cmd));
                } else if let Some(v) = args.get(i + 1) {
                    targets.push(v.clone());
                }
            } else if let Some((opt, v)) = w.text.split_once('=')
                && options.contains(&opt)
            {
                targets.push(Word {
                    text: v.to_string(),
                    kind: w.kind,
                    value: None,
                });
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

/// `sentinel` subcommands that loosen the guard: the person runs them, never the agent.
const PERSON_ONLY: &[&str] = &["trust", "allow-once", "install", "uninstall"];

/// A deny part when the command runs sentinel to loosen itself.
fn self_loosening(cmd: &SimpleCommand) -> Option<Part> {
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

fn powershell_decision(command: &str, rules: &Rules, ctx: &Context) -> Decision {
    let mut reports = Vec::new();
    for segment in shell::rough_segments(command) {
        if let Some(part) = hard_block(&[segment.as_str()], rules) {
            reports.push(CommandReport {
                text: segment,
                via: Vec::new(),
                verdict: part.verdict,
                reason: part.reason,
                rule: part.rule,
                person_only: part.person_only,
                cwd: None,
                effects: part.effects,
            });
        }
    }
    let plain = !command.trim().is_empty()
        && !command.contains([
            ';', '|', '&', '`', '$', '(', ')', '{', '}', '<', '>', '\'', '"', '@', '\n', '\r',
        ]);
    let part = if plain {
        let argv: Vec<Word> = command.split_whitespace().map(Word::literal).collect();
        let cmd = SimpleCommand {
            argv,
            redirects: Vec::new(),
            assignments: Vec::new(),
            via: Vec::new(),
            role: Role::Command,
            cwd: Cwd::Start,
            extra_args: false,
            extra_args_under: Vec::new(),
            extra_args_piped: false,
            extra_args_from_find: false,
            depth: 0,
            name_dir: None,
        };
        judge(&cmd, &cmd.text(), rules, ctx)
    } else {
        Part::new(
            Verdict::Uncertain,
            "PowerShell beyond one plain command is not parsed",
            None,
        )
    };
    reports.push(CommandReport {
        text: command.to_string(),
        via: Vec::new(),
        verdict: part.verdict,
        reason: part.reason,
        rule: part.rule,
        person_only: part.person_only,
        cwd: None,
        effects: part.effects,
    });
    combine("PowerShell", reports)
}

fn write_decision(tool: &str, raw: &str, rules: &Rules, ctx: &Context) -> Decision {
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
                "{} is a protected place in the project, where a write makes code run later without the person seeing it",
                path.display()
            ),
            Some(rule.clone()),
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
    if let Some(rule) = paths::list_matches(rules.safe_paths(), &path) {
        return make(
            Verdict::Allow,
            format!("allowed by {rule} ({})", path.display()),
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

fn read_decision(tool: &str, raw_paths: &[String], rules: &Rules, ctx: &Context) -> Decision {
    let mut decision = Decision::local(
        tool,
        Verdict::Allow,
        format!("sentinel[local]: allowed: {tool} is read-only"),
        None,
    );
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
                decision.verdict = Verdict::Ask;
                decision.reason = format!(
                    "sentinel[local]: ask: {tool} of the credential file {}",
                    credentials::describe(&at, rule)
                );
                decision.path = Some(at.display().to_string());
                return decision;
            }
        }
        decision.path = Some(ctx.fs.real_path(&path).display().to_string());
    }
    decision
}
