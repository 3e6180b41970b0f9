//! Routine commands from real users' Claude Code allowlists (`tests/corpus/allowlists.jsonl`:
//! `permissions.allow` entries of public repositories' `.claude/settings*.json`, each turned into
//! a concrete command, the source repository on each line). People approved these again and
//! again, so a guard that asks for them gets switched off. The share Tier 1 allows is printed
//! (the README quotes it) and held above a floor; none may be denied.

use sentinel::call::ToolCall;
use sentinel::decide::decide;
use sentinel::decision::Verdict;
use sentinel::local::context::Context;
use sentinel::rules::Rules;
use std::collections::BTreeMap;
use std::path::Path;

/// The share of the list Tier 1 must allow; raise it as the specs grow, never lower it. Lowered
/// once, from 80% to 78%, when a body sent to this machine became a send (issue 28: 10 posts
/// to local MCP and dev servers, 80.7% to 78.9%): a correct answer, not a widening.
const FLOOR: f64 = 0.78;

#[derive(serde::Deserialize)]
struct Entry {
    command: String,
    repo: String,
}

#[test]
fn routine_commands_from_real_allowlists_are_allowed() {
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
    let text = include_str!("corpus/allowlists.jsonl");
    let mut total = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let e: Entry = serde_json::from_str(line).expect("allowlist line is JSON");
        repos.insert(e.repo.clone());
        total += 1;
        let d = decide(
            &ToolCall::Shell {
                command: e.command.clone(),
            },
            &rules,
            &ctx,
        )
        .expect("Bash always gets a decision");
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
    let share = allowed as f64 / total as f64;
    println!(
        "allowlists: {total} commands from {} repositories; Tier 1 allows {allowed} ({:.1}%); {counts:?}",
        repos.len(),
        share * 100.0
    );
    for (program, cases) in &not_allowed {
        for c in cases {
            println!("  not allowed [{program}] {c}");
        }
    }
    assert!(total >= 300, "the list holds {total} commands");
    assert!(
        denied.is_empty(),
        "routine commands denied:\n{}",
        denied.join("\n")
    );
    assert!(
        share >= FLOOR,
        "Tier 1 allows {:.1}% of the allowlist commands, under the {:.0}% floor",
        share * 100.0,
        FLOOR * 100.0
    );
}
