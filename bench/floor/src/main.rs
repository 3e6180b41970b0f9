//! The floor: read one hook event from stdin, parse it with serde_json, print a fixed decision.
use std::io::{Read, Write};

fn main() {
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        std::process::exit(1);
    }
    let event: serde_json::Value = match serde_json::from_str(&input) {
        Ok(v) => v,
        Err(_) => std::process::exit(1),
    };
    let name = event["hook_event_name"].as_str().unwrap_or("PreToolUse");
    let out = serde_json::json!({"hookSpecificOutput": {"hookEventName": name, "permissionDecision": "allow", "permissionDecisionReason": "floor"}});
    let _ = writeln!(std::io::stdout(), "{out}");
}
