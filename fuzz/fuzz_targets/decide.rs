//! Parse + decide on arbitrary text. Invariants: it never panics, and a command that contains,
//! in any compound or wrapper, a simple command that a hard-block rule blocks on its own is
//! never allowed. The fuzzer's text is also tried next to blocked commands (after it, before it,
//! inside a substitution), which gives it that structure to play with. Whether the blocked
//! command really runs (not in a comment or a here-doc) is read off sentinel's own parse.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sentinel::decide::{Context, decide};
use sentinel::decision::Verdict;
use sentinel::event::ToolCall;
use sentinel::rules::{RuleMatch, Rules};
use sentinel::shell::analyse;
use std::path::Path;
use std::sync::OnceLock;

const BLOCKED: &[&str] = &["rm -rf ~", "git push --force origin main", "mkfs.ext4 /dev/sda1"];

fuzz_target!(|data: &[u8]| {
    static RULES: OnceLock<Rules> = OnceLock::new();
    let rules = RULES.get_or_init(|| Rules::bundled(Some(Path::new("/home/u"))));
    let ctx = Context::lexical(Path::new("/home/u/proj"), Some(Path::new("/home/u")), Path::new("/home/u/.agentos"));
    let text = String::from_utf8_lossy(data).to_string();
    let mut inputs = vec![text.clone()];
    for d in BLOCKED {
        inputs.push(format!("{text}\n{d}"));
        inputs.push(format!("{d}; {text}"));
        inputs.push(format!("echo $({d}) {text}"));
        inputs.push(format!("{text} $({d})"));
    }
    for command in inputs {
        let verdict = decide(&ToolCall::Shell { command: command.clone() }, rules, &ctx).map(|d| d.verdict);
        let blocked_inside = analyse(&command)
            .commands
            .iter()
            .any(|c| rules.hard_block().iter().any(|r| r.test(&c.text()) == RuleMatch::Yes));
        if blocked_inside {
            assert_ne!(verdict, Some(Verdict::Allow), "allowed with a blocked command inside: {command:?}");
        }
    }
});
