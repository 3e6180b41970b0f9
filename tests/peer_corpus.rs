//! The peer corpus: 909 labelled commands from other guards' public test suites (dcg,
//! cc-safety-net, parry-guard, codex; MIT / Apache-2.0, sources in each line). A peer `block`
//! must never be allowed; a peer `allow` must never be denied (uncertain is fine either way).

use sentinel::call::ToolCall;
use sentinel::decide::decide;
use sentinel::decision::Verdict;
use sentinel::local::context::Context;
use sentinel::rules::Rules;
use std::path::Path;

#[derive(serde::Deserialize)]
struct Case {
    command: String,
    expected: String,
    source: String,
}

fn verdict(rules: &Rules, command: &str) -> (Verdict, String) {
    let ctx = Context::lexical(
        Path::new("/home/dev/proj"),
        Some(Path::new("/home/dev")),
        Path::new("/home/dev/.agentos"),
    );
    let call = ToolCall::Shell {
        command: command.to_string(),
    };
    let d = decide(&call, rules, &ctx).expect("Bash always gets a decision");
    (d.verdict, d.reason)
}

/// Peer `block` cases sentinel allows on purpose, each with the reason.
const DELIBERATE_ALLOWS: &[(&str, &str)] = &[
    (
        "find . -name \"*.pyc\" -delete",
        "issue 28: a find whose -name patterns alone pick what it deletes is judged by the entries they pick below the project (none protected, none outside), as `rm` of each would be",
    ),
    (
        "find . -name '*.tmp' -exec rm -r --force {} \\;",
        "`{}` is what find's -name test picks below `.`, never `.` itself: each entry it picks is judged as `rm -r` of it (one git does not ignore is uncertain, outside the project or protected is not allowed)",
    ),
];

/// Peer `allow` cases sentinel denies on purpose, each with the reason (see README, Rules).
const DELIBERATE_DENIALS: &[(&str, &str)] = &[
    (
        "find . -exec rm -r {} \\;",
        "issue 30: find hands `.` and every entry below it to `rm -r`, the whole project's content, as `rm -rf .` is",
    ),
    (
        "find . -exec rm -f {} \\;",
        "find hands every file below the project to `rm -f`: every file of the project, .git's objects included, as `find . -delete` removes them",
    ),
    (
        "docker system prune -a",
        "the issue's hard-block list: removes every image",
    ),
    (
        "kubectl delete namespace prod",
        "the issue's hard-block list: deletes everything in it",
    ),
    (
        "kubectl delete namespace foo",
        "the issue's hard-block list: deletes everything in it",
    ),
    (
        "kubectl delete all --all",
        "deletes every resource of every kind listed",
    ),
    (
        "git push --force --force-with-lease",
        "--force is present; git's precedence is not worth betting history on",
    ),
    ("git push -f --force-with-lease", "-f is present; same"),
    (
        "rm -r /some/path",
        "SPEC 2.1: recursive delete outside the project and safe paths",
    ),
    (
        "rm -R /some/path",
        "SPEC 2.1: recursive delete outside the project and safe paths",
    ),
];

#[test]
fn peer_blocks_are_never_allowed_and_peer_allows_never_denied() {
    let rules = Rules::bundled(Some(Path::new("/home/dev")));
    let text = include_str!("corpus/peer-cases.jsonl");
    let mut allowed_blocks = Vec::new();
    let mut denied_allows = Vec::new();
    let mut counts = std::collections::BTreeMap::new();
    for line in text.lines() {
        let case: Case = serde_json::from_str(line).expect("corpus line is JSON");
        let (v, reason) = verdict(&rules, &case.command);
        *counts.entry((case.expected.clone(), v)).or_insert(0) += 1;
        match (case.expected.as_str(), v) {
            ("block", Verdict::Allow)
                if DELIBERATE_ALLOWS.iter().any(|(c, _)| *c == case.command) => {}
            ("block", Verdict::Allow) => {
                allowed_blocks.push(format!("{:?} ({}) {reason}", case.command, case.source))
            }
            ("allow", Verdict::Deny)
                if DELIBERATE_DENIALS.iter().any(|(c, _)| *c == case.command) => {}
            ("allow", Verdict::Deny) => {
                denied_allows.push(format!("{:?} ({}) {reason}", case.command, case.source))
            }
            _ => {}
        }
    }
    eprintln!("peer expected × sentinel verdict: {counts:?}");
    for (c, why) in DELIBERATE_ALLOWS {
        let (v, _) = verdict(&rules, c);
        assert_eq!(
            v,
            Verdict::Allow,
            "{c} is listed as a deliberate allow ({why}) but is {v}"
        );
    }
    for (c, why) in DELIBERATE_DENIALS {
        let (v, _) = verdict(&rules, c);
        assert_eq!(
            v,
            Verdict::Deny,
            "{c} is listed as a deliberate denial ({why}) but is {v}"
        );
    }
    assert!(
        allowed_blocks.is_empty(),
        "{} peer blocks allowed:\n{}",
        allowed_blocks.len(),
        allowed_blocks.join("\n")
    );
    assert!(
        denied_allows.is_empty(),
        "{} peer allows denied:\n{}",
        denied_allows.len(),
        denied_allows.join("\n")
    );
}
