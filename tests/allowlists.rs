//! Routine commands from real users' Claude Code allowlists: `permissions.allow` entries of
//! public repositories' `.claude/settings*.json`, each turned into a concrete command, the source
//! repository on each line. `tests/corpus/allowlists.jsonl` is the first set; `allowlists-fresh.jsonl`
//! a held-out one from repositories not in it (issue 33), each line labelled `routine` or not (a
//! deploy, a push, an install of a new package, a login: the person's to approve);
//! `allowlists-held-out.jsonl` a third, from 34 repositories in neither, measured before any rule
//! was written for it, with the lines of six repositories marked `held_out` and never tuned on
//! (issue 37); `allowlists-unseen.jsonl` a fourth, built the same way from 30 more repositories.
//! People approved these again and again, so a guard that asks for them gets switched
//! off. The share Tier 1 allows is printed (the README quotes it) and held above a floor; none may
//! be denied.

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
/// The share of the third list's routine commands Tier 1 must allow (34 repositories in none
/// of the other lists; 88.1% when measured before any rule was written for it, 95.1% with the specs of its programs), and
/// of the lines in it marked `held_out` (six repositories nothing was tuned on: 93.1% both times).
const HELD_OUT_FLOOR: f64 = 0.95;
const HELD_OUT_PART_FLOOR: f64 = 0.93;
/// The share of the fourth list's routine commands Tier 1 must allow, and of its `held_out`
/// part. `allowlists-unseen.jsonl`: 355 commands (308 routine) from 30 repositories in none of
/// the other three lists (Flutter, iOS and Xcode, Android/Gradle, .NET and PowerShell on
/// Windows, Maven, sbt, Rust, Node, Python, a Raspberry Pi's systemd), six repositories' lines
/// marked `held_out` before anything was measured. Measured before any rule was written for it:
/// 267 of 308 (86.7%), held-out part 48 of 49 (98.0%). The 41 it did not allow then: PowerShell
/// typed into the Bash tool (4), installed programs run by their path (Claude Code's own rg, 2),
/// toolchain programs without a spec (swiftc, msbuild, nuget, sbtn and `sbtn.bat`: 6), system
/// queries without one (ldconfig -p, rpm -q, systemd-analyze verify, redis-cli info: 5), cloud
/// reads (firebase firestore:indexes, supabase logs: 3), Windows paths to a project sentinel
/// sees elsewhere (3), `open` of an Xcode project (2), and by design: temp scripts (2), code
/// given as text (2), `git restore` (2), a body sent to a dev server, a container command, a
/// listing of `/`, a served folder, `git push --dry-run`, a loop over several words, a Bundler
/// setting, a PowerShell script block, a `rm -rf build` with no `.gitignore` to read, an
/// unknown server binary (one each). After the specs and mechanisms those called for: 285 of 308
/// (92.5%), held-out part 48 of 49 (98.0%).
const UNSEEN_FLOOR: f64 = 0.92;
const UNSEEN_PART_FLOOR: f64 = 0.97;

#[derive(serde::Deserialize)]
struct Entry {
    command: String,
    repo: String,
    /// Only in the held-out set: whether a careful person would let it run without a prompt.
    #[serde(default = "yes")]
    routine: bool,
    /// Only in the held-out set: a line from a repository kept out of tuning, measured apart.
    #[serde(default)]
    held_out: bool,
}

fn yes() -> bool {
    true
}

/// What one list measured: routine commands and how many were allowed, the same for the lines
/// marked `held_out`, and the denied lines.
struct Measured {
    total: usize,
    allowed: usize,
    held_total: usize,
    held_allowed: usize,
    denied: Vec<String>,
}

/// Decides every routine line of `text`; prints the share and what is not allowed.
fn measure(name: &str, text: &str) -> Measured {
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
    let (mut held_total, mut held_allowed) = (0, 0);
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
        if e.held_out {
            held_total += 1;
            held_allowed += usize::from(d.verdict == Verdict::Allow);
        }
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
            let part = if e.held_out { " (held out)" } else { "" };
            not_allowed
                .entry(program)
                .or_default()
                .push(format!("{}{part}  ←  {}", e.command, d.reason));
        }
    }
    let allowed = counts.get("allow").copied().unwrap_or(0);
    println!(
        "{name}: {total} routine commands ({other} others) from {} repositories; Tier 1 allows {allowed} ({:.1}%); {counts:?}",
        repos.len(),
        allowed as f64 * 100.0 / total as f64
    );
    if held_total > 0 {
        println!(
            "{name}, held-out part: Tier 1 allows {held_allowed} of {held_total} ({:.1}%)",
            held_allowed as f64 * 100.0 / held_total as f64
        );
    }
    for (program, cases) in &not_allowed {
        for c in cases {
            println!("  not allowed [{program}] {c}");
        }
    }
    Measured {
        total,
        allowed,
        held_total,
        held_allowed,
        denied,
    }
}

/// The README quotes each list's share; a figure that no longer matches what Tier 1 does fails
/// here, naming the words to write, so the front door never shows a stale number.
fn quoted_in_readme(name: &str, figure: &str) {
    let readme = include_str!("../README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        readme.contains(figure),
        "README.md must quote the {name} share as measured now: \"{figure}\""
    );
}

/// Holds a list to `floor` (and its held-out part, if any, to `held_floor`); no denies.
fn hold(name: &str, text: &str, min: usize, floor: f64, held_floor: f64) {
    let Measured {
        total,
        allowed,
        held_total,
        held_allowed,
        denied,
    } = measure(name, text);
    assert!(total >= min, "the list holds {total} commands");
    assert!(
        denied.is_empty(),
        "routine commands denied:\n{}",
        denied.join("\n")
    );
    let share = allowed as f64 / total as f64;
    eprintln!("{name}: {allowed}/{total} allowed ({:.1}%)", share * 100.0);
    quoted_in_readme(
        name,
        &format!("{allowed} of {total} ({:.1}%)", share * 100.0),
    );
    assert!(
        share >= floor,
        "Tier 1 allows {:.1}% of the {name} commands, under the {:.0}% floor",
        share * 100.0,
        floor * 100.0
    );
    if held_total > 0 {
        let held = held_allowed as f64 / held_total as f64;
        eprintln!(
            "{name}, held-out part: {held_allowed}/{held_total} allowed ({:.1}%)",
            held * 100.0
        );
        assert!(
            held >= held_floor,
            "Tier 1 allows {:.1}% of the held-out part of {name}, under the {:.0}% floor",
            held * 100.0,
            held_floor * 100.0
        );
    }
}

#[test]
fn routine_commands_from_real_allowlists_are_allowed() {
    hold(
        "allowlists",
        include_str!("corpus/allowlists.jsonl"),
        300,
        FLOOR,
        0.0,
    );
}

#[test]
fn routine_commands_from_held_out_allowlists_are_allowed() {
    hold(
        "allowlists-fresh",
        include_str!("corpus/allowlists-fresh.jsonl"),
        150,
        FRESH_FLOOR,
        0.0,
    );
}

#[test]
fn routine_commands_from_a_third_set_of_allowlists_are_allowed() {
    hold(
        "allowlists-held-out",
        include_str!("corpus/allowlists-held-out.jsonl"),
        150,
        HELD_OUT_FLOOR,
        HELD_OUT_PART_FLOOR,
    );
}

#[test]
fn routine_commands_from_a_fourth_set_of_allowlists_are_allowed() {
    hold(
        "allowlists-unseen",
        include_str!("corpus/allowlists-unseen.jsonl"),
        250,
        UNSEEN_FLOOR,
        UNSEEN_PART_FLOOR,
    );
}
