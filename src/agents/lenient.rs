//! Reading what can be read of an event that is not clean JSON.
//!
//! JavaScript strings may hold a lone UTF-16 surrogate, so an agent written in it can send
//! `"\ud800"`, which serde_json (rightly) refuses. Refusing the whole event would leave the call
//! unjudged, so a lone surrogate escape becomes `\ufffd` (U+FFFD, the replacement character) and
//! the event is read as usual. When an event still cannot be read, [`sniff`] finds its kind, its
//! session and its tool by their keys, so that the hook answers in the right shape and a
//! PostToolUse of an untrusted tool still marks its session.

use std::borrow::Cow;

/// The text with every lone surrogate escape (`\ud800`, a high one not followed by a low one, or
/// a low one alone) replaced by `\ufffd`. Pairs and every other escape are kept as they are.
pub fn repair_surrogates(text: &str) -> Cow<'_, str> {
    // Most events hold no `\u` escape at all.
    if !text.as_bytes().windows(2).any(|w| w == b"\\u") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // A backslash in valid JSON is always inside a string and starts an escape: skip the
        // escaped byte, so `\\ud800` (a backslash, then text) is left alone.
        let Some(unit) = hex_unit(bytes, i) else {
            i += 2;
            continue;
        };
        let len = match unit {
            0xD800..=0xDBFF => match hex_unit(bytes, i + 6) {
                Some(0xDC00..=0xDFFF) => {
                    i += 12;
                    continue;
                }
                _ => 6,
            },
            0xDC00..=0xDFFF => 6,
            _ => {
                i += 6;
                continue;
            }
        };
        let s = out.get_or_insert_with(|| String::with_capacity(text.len()));
        s.push_str(&text[copied..i]);
        s.push_str("\\ufffd");
        i += len;
        copied = i;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut s) => {
            s.push_str(&text[copied..]);
            Cow::Owned(s)
        }
    }
}

/// The UTF-16 unit of a `\uXXXX` escape starting at `at`.
fn hex_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let esc = bytes.get(at..at + 6)?;
    if esc[0] != b'\\' || esc[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&esc[2..]).ok()?;
    u32::from_str_radix(hex, 16).ok()
}

/// What kind of event an unreadable one looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Looks {
    /// A call about to run, or an event of no kind that can be told: it gets an answer.
    PreToolUse,
    /// A tool has run.
    PostToolUse,
    /// The session is ending.
    SessionEnd,
    /// Another event of the protocol, which sentinel has nothing to do for.
    Other,
}

/// What could be found in an unreadable event by its keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sniffed {
    /// Its kind.
    pub looks: Looks,
    /// The session id, when one is found.
    pub session: Option<String>,
    /// The tool's name, when one is found.
    pub tool: Option<String>,
}

/// Finds an unreadable event's kind, session and tool by their keys (every agent's spelling),
/// reading only plain string values. What is not found stays unknown; an event of no known kind
/// looks like a call about to run, so that it is answered rather than let through.
pub fn sniff(text: &str) -> Sniffed {
    let name = string_after(text, "hook_event_name");
    let looks = match name.as_deref() {
        Some("PostToolUse" | "AfterTool" | "postToolUse") => Looks::PostToolUse,
        Some("SessionEnd" | "sessionEnd") => Looks::SessionEnd,
        Some(n) if crate::agents::event::is_other_event(n) => Looks::Other,
        // A call about to run, a name sentinel does not know, or none found.
        _ => Looks::PreToolUse,
    };
    let first = |keys: &[&str]| keys.iter().find_map(|k| string_after(text, k));
    Sniffed {
        looks,
        session: first(&["session_id", "sessionId", "conversation_id"]),
        tool: first(&["tool_name", "toolName"]),
    }
}

/// The plain string value of the first `"key":` in the text (no escapes in it), if any.
fn string_after(text: &str, key: &str) -> Option<String> {
    let quoted = format!("\"{key}\"");
    let at = text.find(&quoted)? + quoted.len();
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find(['"', '\\'])?;
    let value = &rest[..end];
    (rest.as_bytes()[end] == b'"' && value.len() <= 256 && !value.chars().any(char::is_control))
        .then(|| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_the_replacement_character_and_pairs_stay() {
        let fixed = |s: &str| repair_surrogates(s).into_owned();
        assert_eq!(fixed(r#"{"a":"x\ud800y"}"#), r#"{"a":"x\ufffdy"}"#);
        assert_eq!(fixed(r#"{"a":"\udc00"}"#), r#"{"a":"\ufffd"}"#);
        assert_eq!(fixed(r#"{"a":"\uD800\u0041"}"#), r#"{"a":"\ufffd\u0041"}"#);
        assert_eq!(fixed(r#"{"a":"\ud800"}"#), r#"{"a":"\ufffd"}"#);
        // A high surrogate at the very end, and two lone ones in a row.
        assert_eq!(fixed(r#""\ud800\ud801""#), r#""\ufffd\ufffd""#);
        // Kept: a valid pair, an escaped backslash before `ud800`, other escapes.
        for kept in [
            r#"{"a":"\ud83d\ude00"}"#,
            r#"{"a":"\\ud800"}"#,
            r#"{"a":"\n\"\u0041"}"#,
            "{\"a\":\"plain\"}",
        ] {
            assert!(
                matches!(repair_surrogates(kept), Cow::Borrowed(_)),
                "{kept}"
            );
        }
        // Every repaired event is JSON serde reads.
        for s in [
            r#"{"c":"git push --force origin main # \ud800"}"#,
            r#"{"c":"\udfff\ud800\udbff"}"#,
            r#"{"c":"a\\\ud800b"}"#,
        ] {
            let v: serde_json::Value = serde_json::from_str(&fixed(s)).unwrap();
            assert!(v["c"].as_str().unwrap().contains('\u{fffd}'), "{s}");
        }
    }

    #[test]
    fn an_unreadable_events_kind_session_and_tool_are_found_by_their_keys() {
        let s = sniff(
            r#"{"session_id": "abc", "hook_event_name" : "PostToolUse", "tool_name":"WebFetch", "tool_input": {"#,
        );
        assert_eq!(s.looks, Looks::PostToolUse);
        assert_eq!(s.session.as_deref(), Some("abc"));
        assert_eq!(s.tool.as_deref(), Some("WebFetch"));
        assert_eq!(sniff("garbage").looks, Looks::PreToolUse);
        assert_eq!(
            sniff(r#"{"hook_event_name":"SessionEnd""#).looks,
            Looks::SessionEnd
        );
        assert_eq!(sniff(r#"{"hook_event_name":"Stop"}"#).looks, Looks::Other);
        assert_eq!(
            sniff(r#"{"hook_event_name":"beforeShellExecution","conversation_id":"c"}"#),
            Sniffed {
                looks: Looks::PreToolUse,
                session: Some("c".into()),
                tool: None
            }
        );
        // A value with an escape or a control character is not taken.
        assert_eq!(sniff(r#"{"session_id":"a\"b"}"#).session, None);
    }
}
