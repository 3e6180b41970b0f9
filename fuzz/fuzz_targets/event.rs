//! The event reader on arbitrary bytes, in every agent's shape: it never panics, and whatever
//! call it reads, Tier 1 decides it without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sentinel::decide::{Context, decide};
use sentinel::event::{Agent, parse_event};
use sentinel::rules::Rules;
use std::path::Path;
use std::sync::OnceLock;

fuzz_target!(|data: &[u8]| {
    static RULES: OnceLock<Rules> = OnceLock::new();
    let rules = RULES.get_or_init(|| Rules::bundled(Some(Path::new("/home/u"))));
    let Ok(text) = std::str::from_utf8(data) else { return };
    for agent in [Agent::Claude, Agent::Gemini, Agent::Cursor, Agent::Copilot] {
        if let Ok(event) = parse_event(agent, text)
            && let Some(call) = &event.call
        {
            let ctx = Context::lexical(Path::new("/home/u/proj"), Some(Path::new("/home/u")), Path::new("/home/u/.agentos"));
            let _ = decide(call, rules, &ctx);
        }
    }
});
