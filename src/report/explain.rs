//! `sentinel explain`: the whole path of one decision, for a person asking "why?" — the simple
//! commands after unwrapping, every rule that matches each of them (not only the one that
//! decided), how path arguments resolve, taint and signs, the tiers visited and why, and the
//! final answer.

use crate::call::ToolCall;
use crate::config::Config;
use crate::config::enum_name;
use crate::decision::{ApiOutcome, Decision, RuleRef, Tier, Verdict};
use crate::local::paths::fs::Fs;
use crate::local::rules::project::{Layered, Trust};
use crate::paths;
use crate::rules::{RuleList, RuleMatch, Rules};
use serde::Serialize;
use std::path::Path;

/// Everything `explain` shows about one call.
#[derive(Debug, Serialize)]
pub struct Explanation {
    /// The tool.
    pub tool: String,
    /// The command or path asked about.
    pub subject: String,
    /// The directory it was judged in.
    pub cwd: String,
    /// Where each rule file came from: (name, `bundled` or path).
    pub rule_files: Vec<(String, String)>,
    /// The organisation's policy, when this system has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<crate::report::policy::PolicyView>,
    /// The project's `.sentinel/`, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<ProjectState>,
    /// The simple commands Tier 1 judged, each with every rule that matches it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<ExplainedCommand>,
    /// A file tool's target path and the path rules that match it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<ExplainedPath>,
    /// The tiers visited, in order, each with what it concluded.
    pub tiers: Vec<Step>,
    /// The final decision.
    pub decision: Option<Decision>,
}

/// A project's `.sentinel/` as it stands.
#[derive(Debug, Serialize)]
pub struct ProjectState {
    /// The project root.
    pub root: String,
    /// Whether its loosening rules apply.
    pub trust: Trust,
    /// Its loosening rules held back, `file:line pattern`.
    pub suspended: Vec<String>,
    /// Its laxer settings held back.
    pub held_settings: Vec<String>,
}

/// One simple command and every rule that matches it.
#[derive(Debug, Serialize)]
pub struct ExplainedCommand {
    /// As the rules see it.
    pub text: String,
    /// The wrappers it was unwrapped from.
    pub via: Vec<String>,
    /// Tier 1's verdict for it alone.
    pub verdict: Verdict,
    /// Why.
    pub reason: String,
    /// Every matching rule: (list, rule).
    pub matches: Vec<Matched>,
    /// Its path-like words, resolved.
    pub paths: Vec<ExplainedPath>,
    /// Where it runs after a `cd`, when not in the session's cwd.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// What it does, as its command spec reads it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<crate::decision::effect::Effect>,
}

/// A rule that matches, and which list it is in.
#[derive(Debug, Serialize)]
pub struct Matched {
    /// `hard block`, `conditional block`, `safe`, `safe exception`, `excluded path`, `safe path`.
    pub list: &'static str,
    /// The rule.
    pub rule: RuleRef,
}

/// A path as written, where it resolves, and what sentinel makes of it.
#[derive(Debug, Serialize)]
pub struct ExplainedPath {
    /// As written.
    pub word: String,
    /// Absolute, `~` and `..` resolved, symlinks followed; None when unknown before it runs.
    pub resolved: Option<String>,
    /// What applies: inside the project, excluded, a safe path, a credential file …
    pub notes: Vec<String>,
    /// The path rules that match.
    pub matches: Vec<Matched>,
}

/// One tier's part in the decision.
#[derive(Debug, Serialize)]
pub struct Step {
    /// `Tier 1`, `Tier 2`, `Tier 3`, or `config`.
    pub tier: String,
    /// What it concluded, or why it was skipped.
    pub outcome: String,
}

/// The inputs of one explanation.
pub struct Inputs<'a> {
    /// The rules and configuration in force.
    pub layered: &'a Layered,
    /// The call.
    pub call: &'a ToolCall,
    /// The tool.
    pub tool: &'a str,
    /// The command or path.
    pub subject: &'a str,
    /// The directory.
    pub cwd: &'a Path,
    /// `~`.
    pub home: Option<&'a Path>,
    /// How symlinks are followed.
    pub fs: &'a dyn Fs,
    /// Tier 1's decision.
    pub local: Option<&'a Decision>,
    /// The final answer.
    pub decision: Option<&'a Decision>,
    /// Tier 2 was skipped on request.
    pub offline: bool,
}

/// Builds the explanation.
pub fn explain(i: &Inputs) -> Explanation {
    let rules = &i.layered.rules;
    let project = i.layered.project.as_ref().map(|p| ProjectState {
        root: p.root.display().to_string(),
        trust: p.trust.clone(),
        suspended: rules
            .suspended
            .iter()
            .map(|r| format!("{r} {}", r.pattern))
            .collect(),
        held_settings: i.layered.held.clone(),
    });
    let commands = i
        .local
        .map(|d| {
            d.commands
                .iter()
                .map(|c| ExplainedCommand {
                    text: c.text.replace('\t', " "),
                    via: c.via.clone(),
                    verdict: c.verdict,
                    reason: c.reason.clone(),
                    matches: command_matches(rules, &c.text),
                    paths: path_words(&c.text)
                        .into_iter()
                        .map(|w| explain_path(&w, c.cwd.as_deref(), i, rules))
                        .collect(),
                    cwd: c.cwd.clone(),
                    effects: c.effects.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let is_shell = matches!(i.tool, "Bash" | "PowerShell");
    let path = (!is_shell).then(|| explain_path(i.subject, None, i, rules));
    Explanation {
        tool: i.tool.to_string(),
        subject: i.subject.to_string(),
        cwd: i.cwd.display().to_string(),
        rule_files: rules.origins.clone(),
        policy: crate::report::policy::view(&i.layered.config, rules, i.layered.managed_broken()),
        project,
        commands,
        path,
        tiers: steps(i.local, i.decision, &i.layered.config, i.offline, i.call),
        decision: i.decision.cloned(),
    }
}

fn all_matches(list: &RuleList, text: &str, name: &'static str, out: &mut Vec<Matched>) {
    for r in list.iter() {
        if matches!(r.test(text), RuleMatch::Yes | RuleMatch::Broken(_)) {
            let name = if r.negated { "safe exception" } else { name };
            out.push(Matched {
                list: name,
                rule: r.rule.clone(),
            });
        }
    }
}

fn command_matches(rules: &Rules, text: &str) -> Vec<Matched> {
    let mut out = Vec::new();
    all_matches(rules.hard_block(), text, "hard block", &mut out);
    all_matches(rules.conditional(), text, "conditional block", &mut out);
    all_matches(rules.safe(), text, "safe", &mut out);
    out
}

/// The words of a rendered command that name paths: redirection targets, and arguments with a
/// `/`, a leading `~` or `.`.
fn path_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = text.split(' ').skip(1).peekable();
    while let Some(w) = words.next() {
        if matches!(w, ">" | ">>" | "<" | "&>" | ">|" | "2>" | "2>>") {
            if let Some(t) = words.next() {
                out.push(t.to_string());
            }
            continue;
        }
        if w.starts_with('-') || w.starts_with("<<") {
            continue;
        }
        if w.contains('/') || w.starts_with('~') || w.starts_with('.') {
            out.push(w.to_string());
        }
    }
    out
}

/// Resolves a path word against the directory its command runs in (`cwd` after a `cd`, else
/// the session's).
fn explain_path(word: &str, cwd: Option<&str>, i: &Inputs, rules: &Rules) -> ExplainedPath {
    let absolute = word.starts_with('/') || word.starts_with('~');
    let base = match cwd {
        Some("unknown") if !absolute => None,
        Some(dir) if dir != "unknown" => Some(Path::new(dir)),
        _ => Some(i.cwd),
    };
    let resolved = base
        .and_then(|b| paths::resolve(word, b, i.home))
        .map(|p| i.fs.real_path(&p));
    let mut notes = Vec::new();
    let mut matches = Vec::new();
    if let Some(p) = &resolved {
        let project = i.fs.real_path(i.cwd);
        if paths::is_within(p, &project) {
            notes.push("inside the project".to_string());
        } else {
            notes.push("outside the project".to_string());
        }
        if let Some(cred) = crate::local::paths::credentials::credential(p, rules) {
            notes.push(format!("a credential file ({})", cred.pattern));
        }
        for (list, name) in [
            (rules.excluded_paths(), "excluded path"),
            (rules.safe_paths(), "safe path"),
        ] {
            for (pattern, rule) in list {
                if pattern.matches(p) {
                    let name = if pattern.negated {
                        "excluded-path exception"
                    } else {
                        name
                    };
                    matches.push(Matched {
                        list: name,
                        rule: rule.clone(),
                    });
                }
            }
        }
    } else {
        notes.push("not known before it runs".to_string());
    }
    ExplainedPath {
        word: word.to_string(),
        resolved: resolved.map(|p| p.display().to_string()),
        notes,
        matches,
    }
}

fn steps(
    local: Option<&Decision>,
    last: Option<&Decision>,
    config: &Config,
    offline: bool,
    call: &ToolCall,
) -> Vec<Step> {
    let tool = call.tool();
    let step = |tier: &str, outcome: String| Step {
        tier: tier.to_string(),
        outcome,
    };
    let Some(local) = local else {
        return vec![step(
            "Tier 1",
            format!(
                "no opinion on {tool}: nothing is printed and the agent's own permission flow decides"
            ),
        )];
    };
    let mut out = vec![step(
        "Tier 1",
        format!("{}: {}", local.verdict, local.reason),
    )];
    let wants_tier2 = crate::evaluator::tiers::wants_tier2(local.verdict, call, config);
    if !wants_tier2 {
        out.push(step(
            "Tier 2",
            format!("not asked: Tier 1 decided ({})", local.verdict),
        ));
    } else if offline {
        out.push(step("Tier 2", "skipped (--offline)".into()));
    } else {
        match last.and_then(|d| d.api.as_ref()) {
            None if config.api_key.is_none() => out.push(step(
                "Tier 2",
                format!(
                    "off: no API key (SENTINEL_API_KEY or ANTHROPIC_API_KEY); on_uncertain = {} ({}) decides",
                    enum_name(&config.on_uncertain.value),
                    config.on_uncertain.source
                ),
            )),
            None => out.push(step("Tier 2", "not asked".into())),
            Some(ApiOutcome::Answer(a)) => out.push(step(
                "Tier 2",
                format!(
                    "{} at {} answered {:?} in {} ms: {}",
                    config.api_model.value, config.api_url.value, a.verdict, a.elapsed_ms, a.reason
                ),
            )),
            Some(ApiOutcome::Error(e)) => {
                out.push(step("Tier 2", format!("failed: {}", e.message)));
                out.push(step(
                    "Tier 3",
                    format!(
                        "fail_mode = {} ({})",
                        enum_name(&config.fail_mode.value),
                        config.fail_mode.source
                    ),
                ));
            }
            Some(ApiOutcome::Budget(why)) => {
                out.push(step("Tier 2", format!("not called: {why}")));
                out.push(step(
                    "Tier 3",
                    format!(
                        "fail_mode = {} ({})",
                        enum_name(&config.fail_mode.value),
                        config.fail_mode.source
                    ),
                ));
            }
        }
    }
    if local.verdict == Verdict::Deny && last.is_some_and(|d| d.verdict == Verdict::Ask) {
        out.push(step(
            "config",
            format!(
                "on_block = ask ({}): the person decides",
                config.on_block.source
            ),
        ));
    }
    if !config.errors.is_empty() {
        out.push(step(
            "config",
            format!(
                "{} configuration error(s), first {}: an allow becomes ask",
                config.errors.len(),
                config.errors[0]
            ),
        ));
    }
    match last {
        Some(d) => out.push(step(
            "answer",
            format!(
                "{} from {} — {}",
                match d.verdict {
                    Verdict::Uncertain => "uncertain",
                    v => v.as_str(),
                },
                match d.tier {
                    Tier::Local => "Tier 1",
                    Tier::Api => "Tier 2",
                    Tier::Fail => "Tier 3",
                },
                d.reason
            ),
        )),
        None => out.push(step(
            "answer",
            format!(
                "none: the agent's own permission flow decides (on_uncertain = {} ({}))",
                enum_name(&config.on_uncertain.value),
                config.on_uncertain.source
            ),
        )),
    }
    out
}

/// The explanation as text for a terminal.
pub fn render(e: &Explanation) -> String {
    let mut s = String::new();
    let mut line = |text: String| {
        s.push_str(&text);
        s.push('\n');
    };
    line(format!("{:<9}{}", "tool", e.tool));
    let label = if matches!(e.tool.as_str(), "Bash" | "PowerShell") {
        "command"
    } else {
        "path"
    };
    line(format!("{label:<9}{}", e.subject));
    line(format!("{:<9}{}", "cwd", e.cwd));
    let files: Vec<String> = e
        .rule_files
        .iter()
        .map(|(name, origin)| {
            if origin == "bundled" {
                format!("{name} (bundled)")
            } else {
                origin.clone()
            }
        })
        .collect();
    line(format!("{:<9}{}", "rules", files.join(", ")));
    if let Some(p) = &e.policy {
        line(format!(
            "{:<9}{} (the organisation's, above yours)",
            "policy", p.dir
        ));
        if let Some(why) = &p.broken {
            line(format!("{:<9}  cannot be used: {why}; every call asks", ""));
        }
        for pin in &p.pinned {
            line(format!("{:<9}  pins {pin}", ""));
        }
        for n in &p.no_effect {
            line(format!("{:<9}  {n}", ""));
        }
    }
    if let Some(p) = &e.project {
        let trust = match &p.trust {
            Trust::Trusted { since_ms } => {
                format!("trusted since {} UTC", crate::clock::utc(*since_ms))
            }
            Trust::Untrusted => "not trusted: only its tightening rules apply".into(),
            Trust::Changed { files } => format!(
                "changed since `sentinel trust` ({}): its loosening rules are suspended",
                files.join(", ")
            ),
            Trust::Unknown { why } => format!("trust store unreadable ({why})"),
        };
        line(format!("{:<9}{}/.sentinel — {trust}", "project", p.root));
        for r in p.suspended.iter().chain(&p.held_settings) {
            line(format!("{:<9}  held back: {r}", ""));
        }
    }
    if !e.commands.is_empty() {
        line(String::new());
        line(format!(
            "parsed into {} simple command(s), after unwrapping:",
            e.commands.len()
        ));
        for (n, c) in e.commands.iter().enumerate() {
            let via = if c.via.is_empty() {
                String::new()
            } else {
                format!("   (via {})", c.via.join(" → "))
            };
            line(format!("  {}. {}{via}", n + 1, c.text));
            if let Some(dir) = &c.cwd {
                line(format!("       runs in {dir}"));
            }
            if c.matches.is_empty() {
                line("       matches no rule".into());
            }
            for m in &c.matches {
                line(format!(
                    "       {:<18} {}  {}",
                    m.list, m.rule, m.rule.pattern
                ));
            }
            for e in &c.effects {
                line(format!("       does {}", e.describe()));
            }
            for p in &c.paths {
                line(format!("       path {}", path_line(p)));
            }
            line(format!("       → {}: {}", c.verdict, c.reason));
        }
    }
    if let Some(p) = &e.path {
        line(String::new());
        line(format!("path     {}", path_line(p)));
    }
    if let Some(d) = &e.decision {
        line(String::new());
        match &d.taint {
            Some(t) => line(format!("taint    {}", t.describe())),
            None => line("taint    none: the session has taken in no outside text".into()),
        }
        if d.signs.is_empty() {
            line("signs    none".into());
        }
        for sign in &d.signs {
            line(format!(
                "signs    {}: {}",
                sign.kind.describe(),
                sign.evidence
            ));
        }
    }
    line(String::new());
    for st in &e.tiers {
        line(format!("{:<9}{}", st.tier, st.outcome));
    }
    s
}

fn path_line(p: &ExplainedPath) -> String {
    let mut out = format!(
        "{} → {}",
        p.word,
        p.resolved.as_deref().unwrap_or("(unknown)")
    );
    if !p.notes.is_empty() {
        out.push_str(&format!(" ({})", p.notes.join(", ")));
    }
    for m in &p.matches {
        out.push_str(&format!("; {} {} {}", m.list, m.rule, m.rule.pattern));
    }
    out
}
