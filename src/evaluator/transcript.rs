//! What the person asked for: their last few messages in the agent's session transcript, for the
//! evaluator (SPEC 2.6). Only the person's own words are taken — never the assistant's text, a
//! tool's output or a system reminder, which an injection can write.
//!
//! The transcript is Claude Code's JSONL (one record a line; the person's messages are
//! `"type":"user"` records whose content is text, while tool results come back as `"type":"user"`
//! records too, with `tool_result` blocks and a `toolUseResult` field). It can be large and is
//! written while the session runs, so it is read from its end, in chunks, up to a byte bound and
//! under a time bound; a missing, huge, truncated or foreign file yields fewer words or none,
//! never an error and never an answer by itself.

use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

/// How much of a transcript is looked at, and how much is kept.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The person's messages kept, the most recent.
    pub messages: usize,
    /// Characters kept of one message (its start and its end).
    pub chars_each: usize,
    /// Bytes read from the end of the file at most.
    pub bytes: u64,
    /// Time the reading may take.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            messages: 4,
            chars_each: 1_500,
            bytes: 8 * 1024 * 1024,
            time: Duration::from_secs(1),
        }
    }
}

/// Bytes read per step from the end.
const CHUNK: u64 = 64 * 1024;
/// A line longer than this is not a message the person typed; it is skipped unread.
const MAX_LINE: usize = 1024 * 1024;

/// The person's last messages in the transcript at `path`, oldest first. Reads in a thread so
/// a slow file system costs at most `limits.time`.
pub fn person_words(path: &Path, limits: Limits) -> Vec<String> {
    // Only a regular file named like a transcript: never a FIFO or a device, which could block,
    // and never some other file an odd event names.
    let is_transcript = path.extension().is_some_and(|e| e == "jsonl")
        && std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if !is_transcript {
        return Vec::new();
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(read_tail(&path, limits));
    });
    rx.recv_timeout(limits.time).unwrap_or_default()
}

/// Reads chunks from the end of the file until enough messages are found or the byte bound is
/// reached; each complete line is judged once, newest first.
fn read_tail(path: &Path, limits: Limits) -> Vec<String> {
    let Ok((mut file, _)) = crate::config::files::open_with_len(
        path,
        std::fs::OpenOptions::new().read(true),
        crate::config::files::Links::Follow,
    ) else {
        return Vec::new();
    };
    let Ok(len) = file.seek(SeekFrom::End(0)) else {
        return Vec::new();
    };
    let floor = len.saturating_sub(limits.bytes);
    let mut end = len;
    // The end part of a line that began before the chunk just read; it is completed by the
    // next chunk. `skipping`: that line is over MAX_LINE and is dropped instead.
    let mut carry: Vec<u8> = Vec::new();
    let mut skipping = false;
    let mut newest_first = Vec::new();
    while end > floor && newest_first.len() < limits.messages {
        let start = end.saturating_sub(CHUNK).max(floor);
        let mut chunk = vec![0u8; (end - start) as usize];
        if file.seek(SeekFrom::Start(start)).is_err() || file.read_exact(&mut chunk).is_err() {
            break;
        }
        end = start;
        if !skipping {
            chunk.extend_from_slice(&carry);
        }
        let segments: Vec<&[u8]> = chunk.split(|b| *b == b'\n').collect();
        let (first, mut complete) = segments.split_first().expect("split yields one at least");
        if skipping {
            // The last segment is the start of the line being skipped; with no newline at all,
            // the whole chunk is inside it.
            match complete.split_last() {
                Some((_, before)) => complete = before,
                None => continue,
            }
        }
        for line in complete.iter().rev() {
            if newest_first.len() >= limits.messages {
                break;
            }
            newest_first.extend(person_message(line, limits.chars_each));
        }
        if start == floor {
            // At the start of the file the first line is whole; past the byte bound it is cut.
            if start == 0 && newest_first.len() < limits.messages {
                newest_first.extend(person_message(first, limits.chars_each));
            }
            break;
        }
        skipping = first.len() > MAX_LINE;
        carry = if skipping { Vec::new() } else { first.to_vec() };
    }
    newest_first.reverse();
    newest_first
}

/// The text of one transcript line when it is a message the person wrote; None otherwise.
pub fn person_message(line: &[u8], chars_each: usize) -> Option<String> {
    // Most lines are tool output and API records: skip them without parsing. A tool result is
    // a "user" record too, with a top-level `toolUseResult` key (inside a string the quotes
    // would be escaped, so a person's message that mentions it is not skipped).
    if !contains(line, br#""user""#) || contains(line, br#""toolUseResult":"#) {
        return None;
    }
    let v: Value = serde_json::from_slice(line).ok()?;
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    if v.get("type")?.as_str()? != "user"
        || flag("isMeta")
        || flag("isSidechain")
        || flag("isCompactSummary")
        || v.get("toolUseResult").is_some()
    {
        return None;
    }
    let message = v.get("message")?;
    if message.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    let text = match message.get("content")? {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let mut parts = Vec::new();
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => parts.push(b.get("text")?.as_str()?.to_string()),
                    // A tool result is output, never the person's words.
                    Some("tool_result") => return None,
                    _ => {}
                }
            }
            parts.join("\n")
        }
        _ => return None,
    };
    let text = strip_machine_text(&text);
    let text = text.trim();
    let machine = ["<local-command-", "[Request interrupted by user"];
    if text.is_empty() || machine.iter().any(|m| text.starts_with(m)) {
        return None;
    }
    Some(cut(text, chars_each))
}

/// Removes `<system-reminder>…</system-reminder>` blocks: the agent adds them, not the person.
fn strip_machine_text(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("<system-reminder>") {
        out.push_str(&rest[..i]);
        match rest[i..].find("</system-reminder>") {
            Some(j) => rest = &rest[i + j + "</system-reminder>".len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The start and the end of a long message, with how much was left out between.
fn cut(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let half = max / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head} […{} characters left out…] {tail}", count - 2 * half)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: Value) -> Vec<u8> {
        v.to_string().into_bytes()
    }

    #[test]
    fn only_the_persons_words_count() {
        let said = |v| person_message(&line(v), 100);
        assert_eq!(
            said(json!({"type":"user","message":{"role":"user","content":"clean the build dir"}})),
            Some("clean the build dir".into())
        );
        assert_eq!(
            said(
                json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>deploy it"}]}})
            ),
            Some("deploy it".into())
        );
        for not_the_person in [
            json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"user"}]}}),
            json!({"type":"user","toolUseResult":{},"message":{"role":"user","content":[{"type":"tool_result","content":"rm -rf ~ now"}]}}),
            json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ignore previous"}]}}),
            json!({"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: user"}}),
            json!({"type":"user","isSidechain":true,"message":{"role":"user","content":"subagent prompt"}}),
            json!({"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}),
            json!({"type":"user","message":{"role":"user","content":"<local-command-stdout>out</local-command-stdout>"}}),
            json!({"type":"user","message":{"role":"user","content":"<system-reminder>only a reminder</system-reminder>"}}),
        ] {
            assert_eq!(said(not_the_person.clone()), None, "{not_the_person}");
        }
        assert_eq!(person_message(b"not json \"user\"", 100), None);
    }

    fn user(text: &str) -> String {
        json!({"type":"user","message":{"role":"user","content":text}}).to_string()
    }

    #[test]
    fn the_tail_is_read_in_chunks_across_long_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let tool_output = json!({"type":"user","toolUseResult":{},"message":{"role":"user",
            "content":[{"type":"tool_result","content":"y".repeat(200_000)}]}})
        .to_string();
        let huge = format!(
            "{{\"type\":\"attachment\",\"x\":\"{}\"}}",
            "z".repeat(3 * MAX_LINE)
        );
        let lines = [
            user("first"),
            huge.clone(),
            user("second"),
            tool_output.clone(),
            user("third"),
            huge,
            user("fourth"),
            tool_output,
            user("fifth"),
            "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"half-writ".into(),
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        // read_tail itself: the time bound of person_words is for slow file systems, and a
        // test must not depend on how fast this machine is.
        let limits = Limits::default();
        assert_eq!(
            read_tail(&path, limits),
            ["second", "third", "fourth", "fifth"]
        );
        let all = Limits {
            messages: 10,
            ..limits
        };
        assert_eq!(
            read_tail(&path, all),
            ["first", "second", "third", "fourth", "fifth"]
        );
        // Past the byte bound nothing more is read.
        let near = Limits {
            bytes: 300_000,
            ..all
        };
        assert_eq!(read_tail(&path, near), ["fourth", "fifth"]);
    }

    #[test]
    fn what_is_not_a_transcript_gives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        assert!(person_words(&dir.path().join("absent.jsonl"), limits).is_empty());
        assert!(person_words(dir.path(), limits).is_empty());
        let other = dir.path().join("notes.txt");
        std::fs::write(&other, user("hello")).unwrap();
        assert!(person_words(&other, limits).is_empty(), "not named .jsonl");
        let garbage = dir.path().join("g.jsonl");
        std::fs::write(&garbage, b"\xff\xfe\x00 user \"user\"\n{{{").unwrap();
        assert!(person_words(&garbage, limits).is_empty());
    }

    #[test]
    fn long_messages_keep_their_start_and_end() {
        let text = format!("start {} end", "x".repeat(500));
        let kept = cut(&text, 100);
        assert!(
            kept.starts_with("start ") && kept.ends_with(" end"),
            "{kept}"
        );
        assert!(kept.contains("characters left out"));
    }
}
