//! Routine commands from real users' Claude Code allowlists: `permissions.allow` entries of
//! public repositories' `.claude/settings*.json`, each turned into a concrete command, the source
//! repository on each line. `tests/corpus/allowlists.jsonl` is the first set; `allowlists-fresh.jsonl`
//! a held-out one from repositories not in it (issue 33), each line labelled `routine` or not (a
//! deploy, a push, an install of a new package, a login: the person's to approve). People approved
//! these again and again, so a guard that asks for them gets switched off. The share Tier 1 allows
//! is printed (the README quotes it) and held above a floor; none may be denied.

use sentinel::call::ToolCall;
use sentinel::decide::decide;
use sentinel::decision::Verdict;
use sentinel::local::context::Context;
use sentinel::rules::Rules;
use std::collections::BTreeMap;
use std::path::Path;

/// The share of the first list Tier 1 must allow; raise it as the specs grow, never lower it
/// (lowered once, by 2 points, when a body sent to this machine became a send, issue 28: posts to
/// local MCP and dev servers, a correct answer rather than a widening).
const FLOOR: f64 = 0.88;
/// The share of the held-out list's routine commands Tier 1 must allow (95.4% before `git remote
/// set-url` became reviewed: a changed remote redirects the person's own later pushes).
const FRESH_FLOOR: f64 = 0.94;

#[derive(serde::Deserialize)]
struct Entry {
    command: String,
    repo: String,
    /// Only in the held-out set: whether a careful person would let it run without a prompt.
    #[serde(default = "yes")]
    routine: bool,
}

fn yes() -> bool {
    true
}

/// Decides every routine line of `text`; prints the share and what is not allowed; returns
/// (routine commands, allowed, denied lines).
fn measure(name: &str, text: &str) -> (usize, usize, Vec<String>) {
    let rules = Rules::bundled(Some(Path::new("/home/dev")));
    let ctx = Context::lexical(
        Path::new("/home/dev/proj"),
        Some(Path::new("/home/dev")),
        Path::new("/home/dev/.agentos"),
    );
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut not_allowed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut denied = Vec::new();
    let mut repos = std::collections::BTreeSet::new();
    let mut total = 0;
    let mut other = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let e: Entry = serde_json::from_str(line).expect("allowlist line is JSON");
        repos.insert(e.repo.clone());
        let d = decide(
            &ToolCall::Shell {
                command: e.command.clone(),
            },
            &rules,
            &ctx,
        )
        .expect("Bash always gets a decision");
        if !e.routine {
            other += 1;
            println!("  not routine: {}  ←  {}", e.command, d.verdict.as_str());
            continue;
        }
        total += 1;
        *counts.entry(d.verdict.as_str()).or_default() += 1;
        if d.verdict == Verdict::Deny {
            denied.push(format!("{}: {}", e.command, d.reason));
        }
        if d.verdict != Verdict::Allow {
            let program = e
                .command
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            not_allowed
                .entry(program)
                .or_default()
                .push(format!("{}  ←  {}", e.command, d.reason));
        }
    }
    let allowed = counts.get("allow").copied().unwrap_or(0);
    println!(
        "{name}: {total} routine commands ({other} others) from {} repositories; Tier 1 allows {allowed} ({:.1}%); {counts:?}",
        repos.len(),
        allowed as f64 * 100.0 / total as f64
    );
    for (program, cases) in &not_allowed {
        for c in cases {
            println!("  not allowed [{program}] {c}");
        }
    }
    (total, allowed, denied)
}

fn hold(name: &str, text: &str, min: usize, floor: f64) {
    let (total, allowed, denied) = measure(name, text);
    assert!(total >= min, "the list holds {total} commands");
    assert!(
        denied.is_empty(),
        "routine commands denied:\n{}",
        denied.join("\n")
    );
    let share = allowed as f64 / total as f64;
    eprintln!("{name}: {allowed}/{total} allowed ({:.1}%)", share * 100.0);
    assert!(
        share >= floor,
        "Tier 1 allows {:.1}% of the {name} commands, under the {:.0}% floor",
        share * 100.0,
        floor * 100.0
    );
}

#[test]
fn routine_commands_from_real_allowlists_are_allowed() {
    hold(
        "allowlists",
        include_str!("corpus/allowlists.jsonl"),
        300,
        FLOOR,
    );
}

#[test]
fn routine_commands_from_held_out_allowlists_are_allowed() {
    hold(
        "allowlists-fresh",
        include_str!("corpus/allowlists-fresh.jsonl"),
        150,
        FRESH_FLOOR,
    );
}
