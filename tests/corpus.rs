//! sentinel's own labelled corpus (`tests/corpus/sentinel-cases.jsonl`): everyday commands that
//! must be allowed, destructive commands that must be denied, every bypass construct of SPEC 2.2
//! around six dangerous commands, and commands Tier 1 must leave uncertain. Each case gets
//! exactly the verdict it is labelled with; above all, no destructive or bypass case is allowed.

use sentinel::call::ToolCall;
use sentinel::decide::decide;
use sentinel::decision::Verdict;
use sentinel::local::context::Context;
use sentinel::rules::Rules;
use std::path::Path;

#[derive(serde::Deserialize)]
struct Case {
    expect: String,
    #[serde(default)]
    command: String,
    category: String,
    /// A tool call other than Bash (an MCP tool, WebFetch …) with its `tool_input`, as Claude
    /// Code sends it (`cases/mcp.jsonl`).
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    input: Option<serde_json::Value>,
}

#[test]
fn every_case_gets_its_labelled_verdict() {
    let rules = Rules::bundled(Some(Path::new("/home/dev")));
    let ctx = Context::lexical(
        Path::new("/home/dev/proj"),
        Some(Path::new("/home/dev")),
        Path::new("/home/dev/.agentos"),
    );
    let mut wrong = Vec::new();
    let mut allowed_danger = Vec::new();
    let mut total = 0;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/corpus/cases")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut lines: Vec<String> = include_str!("corpus/sentinel-cases.jsonl")
        .lines()
        .map(str::to_string)
        .collect();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string),
        );
    }
    for line in &lines {
        let case: Case = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("corpus line is not a case ({e}): {line}"));
        total += 1;
        let (call, shown) = match (&case.tool, &case.input) {
            (Some(tool), Some(input)) => (
                ToolCall::from_tool_input(tool, input).unwrap_or_else(|e| panic!("{line}: {e}")),
                format!("{tool} {input}"),
            ),
            _ => (
                ToolCall::Shell {
                    command: case.command.clone(),
                },
                case.command.clone(),
            ),
        };
        let d = decide(&call, &rules, &ctx).expect("every corpus call gets a decision");
        if d.verdict.as_str() != case.expect {
            wrong.push(format!(
                "[{}] expected {}, got {}: {:?}\n    {}",
                case.category, case.expect, d.verdict, shown, d.reason
            ));
        }
        if case.category != "everyday" && d.verdict == Verdict::Allow {
            allowed_danger.push(format!("{shown:?}: {}", d.reason));
        }
    }
    assert!(
        total >= 400,
        "the corpus must hold at least 400 cases, has {total}"
    );
    assert!(
        allowed_danger.is_empty(),
        "destructive or bypass cases ALLOWED:\n{}",
        allowed_danger.join("\n")
    );
    assert!(
        wrong.is_empty(),
        "{} of {total} cases got another verdict:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The routine commands of the mobile toolchains and JS test runners
/// (`cases/mobile-and-test-runners.jsonl`, category `everyday`): the share Tier 1 allows, printed
/// and held above a floor, and none denied. The ones kept out of the tuning (`held_out`) are
/// counted apart.
#[test]
fn routine_mobile_and_test_runner_commands_are_allowed() {
    let rules = Rules::bundled(Some(Path::new("/home/dev")));
    let ctx = Context::lexical(
        Path::new("/home/dev/proj"),
        Some(Path::new("/home/dev")),
        Path::new("/home/dev/.agentos"),
    );
    let (mut all, mut allowed, mut held, mut held_allowed) = (0, 0, 0, 0);
    let mut denied = Vec::new();
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/cases/mobile-and-test-runners.jsonl");
    for line in std::fs::read_to_string(file).unwrap().lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        if case["category"] != "everyday" {
            continue;
        }
        let command = case["command"].as_str().unwrap().to_string();
        let d = decide(
            &ToolCall::Shell {
                command: command.clone(),
            },
            &rules,
            &ctx,
        )
        .unwrap();
        let ok = d.verdict == Verdict::Allow;
        all += 1;
        allowed += usize::from(ok);
        if case["held_out"] == true {
            held += 1;
            held_allowed += usize::from(ok);
        }
        if d.verdict == Verdict::Deny {
            denied.push(command);
        }
    }
    let share = allowed as f64 / all as f64;
    println!(
        "mobile and test runners: {allowed}/{all} routine commands allowed ({:.1}%), held out {held_allowed}/{held}",
        share * 100.0
    );
    assert!(denied.is_empty(), "routine commands denied: {denied:?}");
    assert!(all >= 80 && held >= 20, "{all} routine, {held} held out");
    assert!(share >= 0.94, "{share}");
}
