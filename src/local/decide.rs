//! Tier 1: the local decision, a pure function of the call, the rules and the context.
//!
//! A shell command is split into its simple commands ([`crate::shell`]); each gets a verdict of
//! its own ([`judge`](mod@crate::local::policy::judge)) and the command's verdict is the maximum
//! (allow < uncertain < ask < deny, [`crate::local::policy::outcome`]). The other tools are in
//! [`crate::local::tool_calls`].

use crate::call::ToolCall;
use crate::decision::effect::Effect;
use crate::decision::{CommandReport, Decision, Verdict};
use crate::local::context::Context;
use crate::local::policy::embedded;
use crate::local::policy::judge::{effective_cwd, hard_block, judge_seen};
use crate::local::policy::outcome::combine;
use crate::local::policy::signs;
use crate::local::policy::token_hosts;
use crate::local::policy::{self, Part};
use crate::local::scripts::bins;
use crate::local::scripts::{self, Pending};
use crate::local::tool_calls::{read_decision, write_decision};
use crate::rules::Rules;
use crate::shell::{self, Cwd, Role, SimpleCommand};

/// Tier 1. Returns None for a tool sentinel has no opinion on (the agent's own flow decides).
pub fn decide(call: &ToolCall, rules: &Rules, ctx: &Context) -> Option<Decision> {
    let mut decision = match call {
        ToolCall::Shell { command } => shell_decision(command, rules, ctx, 0),
        ToolCall::PowerShell { command } => {
            // Read by the same PowerShell reader as `powershell -Command` from Bash.
            let analysis = shell::analyse_powershell(command);
            let mut d = analysis_decision("PowerShell", command, &analysis, rules, ctx, 0);
            for s in signs::text_signs(command, &rules.known) {
                if !d.signs.iter().any(|o| o.kind == s.kind) {
                    d.signs.push(s);
                }
            }
            d
        }
        ToolCall::Write {
            tool,
            path,
            content,
        } => {
            let mut d = write_decision(tool, path, rules, ctx);
            d.signs = signs::text_signs(content, &rules.known);
            scripts::instruction_imports(&mut d, content, rules, ctx);
            scripts::instruction_write(&mut d, ctx);
            d
        }
        ToolCall::Patch { tool, files, .. } => {
            crate::local::patch::patch_decision(tool, files, rules, ctx)
        }
        ToolCall::Read { tool, paths } => read_decision(tool, paths, rules, ctx),
        ToolCall::Agent { tool, prompt } => {
            // A subagent launch is the agent's business, unless untrusted content is in the
            // session and the prompt shows signs of acting on it.
            let signs = signs::text_signs(prompt, &rules.known);
            let taint = ctx.taint?;
            if signs.is_empty() {
                return None;
            }
            let mut d = agent_decision(tool);
            d.signs = signs;
            d.taint = Some(taint.clone());
            d
        }
        ToolCall::McpShell {
            tool,
            command,
            raw,
            dir,
        } => crate::local::mcp::mcp_shell_decision(
            tool,
            command,
            raw.as_deref(),
            dir.as_deref(),
            ctx,
            &|call, inner| decide(call, rules, inner),
        ),
        ToolCall::Fetch { tool, text, seen } => {
            crate::local::mcp::fetch_decision(tool, text, seen, rules, ctx)
        }
        ToolCall::Mcp { tool, input, seen } => {
            let mut d = crate::local::mcp::mcp_decision(tool, input, seen, rules, ctx);
            d.signs = signs::text_signs(&crate::call::mcp::strings(input).join("\n"), &rules.known);
            d
        }
        ToolCall::Other { .. } => return None,
    };
    if !matches!(call, ToolCall::McpShell { .. }) {
        decision.cwd = ctx.cwd.to_string_lossy().into_owned();
    }
    let own_service = |c: &str| token_hosts::own_service_only(c, signs::is_secret_variable_name);
    if signs::exfiltration(&decision.signs)
        && decision.verdict < Verdict::Deny
        && matches!(call, ToolCall::Shell { command } if own_service(command))
    {
        // A service's token sent over https to that service's own API: its purpose, not a
        // leak; never allowed locally all the same.
        decision.verdict = decision.verdict.max(Verdict::Uncertain);
        decision.rule = None;
        decision.reason = format!(
            "sentinel[local]: uncertain: sends a token to the service it is issued for ({})",
            signs::describe(&decision.signs)
        );
    } else if signs::exfiltration(&decision.signs) && decision.verdict < Verdict::Deny {
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

/// A program run by a Windows drive path, or a `.exe` by any path, outside the project
/// (`C:/Android/platform-tools/adb.exe devices`, Git Bash's `/c/Users/me/AppData/…/python.exe
/// x.py`, `%LOCALAPPDATA%\…\emulator.exe`), or by its path in a folder a toolchain installs
/// into (`~/Library/Android/sdk/platform-tools/adb`, `rules/installed_programs.txt`): an
/// installed program, judged by its name without `.exe` as the same program run by name is. A
/// path inside the project (or the temp dir) stays a file there.
fn installed_program(cmd: &SimpleCommand, ctx: &Context) -> Option<SimpleCommand> {
    let dir = cmd.name_dir.as_deref()?;
    // A drive path, or a Windows program by any path (`%LOCALAPPDATA%\…\emulator.exe`).
    let exe = shell::without_exe(cmd.name());
    let windows = exe.is_some() || crate::local::paths::windows::parse(dir, true).is_some();
    let resolved = crate::paths::resolve(dir, ctx.cwd, ctx.home)?;
    if !windows && !crate::local::installed_programs::holds(&resolved.join(cmd.name()), ctx.home) {
        return None;
    }
    // The temp dir is anyone's scratch space, not where programs are installed.
    let in_temp = policy::TEMP_DIRS
        .iter()
        .any(|t| crate::paths::is_within(&resolved, std::path::Path::new(t)));
    if in_temp || crate::paths::is_within(&resolved, ctx.project()) {
        return None;
    }
    let mut by_name = cmd.clone();
    by_name.name_dir = None;
    if let Some(name) = exe {
        by_name.argv[0].text = name;
    }
    Some(by_name)
}

/// How deep commands embedded in an unknown program's words are followed (`chroot / runuser -u
/// u -- rm -rf ~` is two levels).
const MAX_EMBEDDED_DEPTH: u8 = 3;

/// `commands` with each abbreviated subcommand replaced by the commands it can stand for;
/// None when none is abbreviated (nothing copied).
fn abbreviations_expanded(
    commands: &[SimpleCommand],
    specs: &crate::local::spec::Specs,
) -> Option<Vec<SimpleCommand>> {
    let mut out: Option<Vec<SimpleCommand>> = None;
    for (i, cmd) in commands.iter().enumerate() {
        match crate::local::spec::abbreviations::expand(cmd, specs) {
            Some(full) => out
                .get_or_insert_with(|| commands[..i].to_vec())
                .extend(full),
            None => {
                if let Some(o) = &mut out {
                    o.push(cmd.clone());
                }
            }
        }
    }
    out
}

fn shell_decision(command: &str, rules: &Rules, ctx: &Context, depth: u8) -> Decision {
    let analysis = shell::analyse(command);
    // PowerShell typed into the Bash tool: read as Bash without its cmdlets and as PowerShell,
    // the worse stands (on a tie the PowerShell reading, which holds every command).
    let readings = (depth == 0)
        .then(|| {
            crate::local::cmdlets_in_bash::readings(command, &analysis, |name| {
                rules.specs.program(name).is_some()
            })
        })
        .flatten();
    if let Some((rest, powershell)) = readings {
        let as_powershell = analysis_decision("Bash", command, &powershell, rules, ctx, depth);
        return match rest {
            Some(rest) => {
                let as_bash = analysis_decision("Bash", command, &rest, rules, ctx, depth);
                if as_bash.verdict > as_powershell.verdict {
                    as_bash
                } else {
                    as_powershell
                }
            }
            None => as_powershell,
        };
    }
    analysis_decision("Bash", command, &analysis, rules, ctx, depth)
}

/// A shell command's decision (`tool`: Bash, or PowerShell's own tool), from its analysis.
fn analysis_decision(
    tool: &str,
    command: &str,
    analysis: &shell::Analysis,
    rules: &Rules,
    ctx: &Context,
    depth: u8,
) -> Decision {
    // Most calls file one report a command, and a few more.
    let mut reports: Vec<CommandReport> = Vec::with_capacity(analysis.commands.len() + 2);
    // Files a report; returns its index.
    let mut report_in = |text: String, via: Vec<String>, part: Part, cwd: Option<String>| {
        reports.push(part.into_report(text, via, cwd));
        reports.len() - 1
    };

    if let Some(error) = &analysis.parse_error {
        // Not understood: the person decides, in every mode (never "no answer"). What could still
        // be read (`analysis.commands` and `unparsed`, from the lines and pieces that parse) is
        // judged below, so a deny inside stays a deny.
        let why = format!("cannot parse the command: {error}");
        let mut part = Part::new(Verdict::Ask, why.clone(), None);
        part.effects = vec![Effect::Unknown { why }];
        report_in(command.to_string(), Vec::new(), part, None);
    }
    let mut credential = None;
    let mut egress = None;
    // Each command rendered once: for its rules, its report and the signs (which read it back
    // from its report, at `report_of[i]`).
    let mut report_of = Vec::with_capacity(analysis.commands.len());
    // Files written by the commands judged so far: a later one that runs them runs this text.
    let mut pending: Vec<Pending> = Vec::new();
    // A subcommand named by an abbreviation its program accepts (`artisan migrate:fr`) is
    // judged as each command it can stand for.
    let expanded = abbreviations_expanded(&analysis.commands, &rules.specs);
    let commands = expanded.as_deref().unwrap_or(&analysis.commands);
    let last = commands.len().saturating_sub(1);
    for (i, cmd) in commands.iter().enumerate() {
        let by_name;
        let cmd = match installed_program(cmd, ctx) {
            Some(c) => {
                by_name = c;
                &by_name
            }
            None => cmd,
        };
        let text = cmd.text();
        let mut inner_report = None;
        let (part, seen) = match bins::run_of(
            cmd,
            &rules.specs,
            ctx.fs,
            effective_cwd(cmd, ctx).as_deref(),
            ctx.home,
        ) {
            None => {
                let (mut part, mut seen) = judge_seen(cmd, &text, rules, ctx);
                // Only on the uncertain path (or with a variable set): what the command's words,
                // values and variables would run is judged as commands of their own (a deny
                // inside is a deny of the whole).
                if part.verdict < Verdict::Deny
                    && !cmd.name().is_empty()
                    && (!cmd.assignments.is_empty()
                        || (part.verdict == Verdict::Uncertain
                            && embedded::may_hide_a_command(cmd, &part.effects)))
                {
                    let judge = |t: &str| shell_decision(t, rules, ctx, depth + 1);
                    let judge: Option<&dyn Fn(&str) -> Decision> = (depth < MAX_EMBEDDED_DEPTH
                        && !ctx.suffix_search_spent())
                    .then_some(&judge);
                    embedded::check(cmd, &mut part, rules, ctx, judge, depth == 0);
                }
                if seen.egress.is_none() {
                    seen.egress = embedded::hidden_egress(cmd, &part.effects);
                }
                // No spec read it (what it has are the words' own findings, if any).
                let unread = part
                    .effects
                    .iter()
                    .all(|e| matches!(e, Effect::Unknown { .. }));
                if unread
                    && seen.credential.is_none()
                    && let Some((c, e)) = embedded::unknown_upload(
                        cmd,
                        effective_cwd(cmd, ctx).as_deref(),
                        rules,
                        ctx,
                    )
                {
                    seen.credential = Some(c);
                    seen.egress = seen.egress.or(Some(e));
                }
                (part, seen)
            }
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
        // What it runs is read first; what it writes, a later command may run (issue 29).
        let tier1 = |text: &str, inner: &Context| {
            decide(
                &ToolCall::Shell {
                    command: text.to_string(),
                },
                rules,
                inner,
            )
            .unwrap_or_else(|| Decision::local("Bash", Verdict::Uncertain, "no decision", None))
        };
        let mut part = scripts::with_runs(cmd, part, &mut pending, i < last, rules, ctx, &tier1);
        // An instruction file written with an `@`-import of a credential: denied, whatever else the command does.
        if part.verdict < Verdict::Deny && command.contains('@') {
            let cwd = effective_cwd(cmd, ctx);
            let written: Vec<std::path::PathBuf> =
                scripts::writes::pending_of(cmd, &part.effects, cwd.as_deref(), ctx)
                    .into_iter()
                    .map(|p| p.path)
                    .collect();
            if let Some(why) =
                scripts::instruction_imports_in_command(command, &written, rules, ctx)
            {
                part = Part {
                    effects: std::mem::take(&mut part.effects),
                    ..Part::new(Verdict::Deny, why, None)
                };
            }
        }
        credential = credential.or(seen.credential);
        egress = egress.or(seen.egress);
        let runs_in = (cmd.cwd != Cwd::Start).then(|| match effective_cwd(cmd, ctx) {
            Some(dir) => dir.display().to_string(),
            None => "unknown".to_string(),
        });
        report_of.push(report_in(text, cmd.via.clone(), part, runs_in.clone()));
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
    for pipeline in analysis.pipelines.iter().chain(&analysis.raw_statements) {
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
        // A line of `[[ … ]]` tests whose words were all read runs nothing; any other empty
        // line is not what it seems.
        let part = if analysis.tests {
            Part::new(Verdict::Allow, "only `[[ … ]]` tests: runs nothing", None)
        } else {
            Part::new(Verdict::Uncertain, "empty command", None)
        };
        report_in(String::new(), Vec::new(), part, None);
    }
    let mut decision = combine(tool, reports);
    // Signs only ever hold back an allow or turn a call into a deny: a denied call needs none.
    if decision.verdict < Verdict::Deny {
        let texts: Vec<&str> = report_of
            .iter()
            .map(|&i| decision.commands[i].text.as_str())
            .collect();
        let signs = signs::shell_signs(command, analysis, &texts, ctx.cwd, ctx.home, rules);
        decision.signs = signs;
    }
    decision
}
