//! The words that make any text destructive (`rules/mcp/words.toml`): a `DROP TABLE`, a
//! `FLUSHALL`, a force push. Tried on every string an MCP tool is given, and on what a command
//! sends to a server (`curl -d 'DROP TABLE users' localhost:8123`). Also the helpers the MCP
//! specs share with it (verdict names, rule references).

use crate::decision::{RuleRef, Verdict};
use regex::Regex;
use serde::Deserialize;
use std::borrow::Cow;
use std::sync::OnceLock;

const WORDS: (&str, &str) = ("mcp/words.toml", include_str!("../../rules/mcp/words.toml"));

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WordsFile {
    word: Vec<RawWord>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWord {
    pattern: String,
    #[serde(rename = "in", default)]
    applies_to: Option<String>,
    verdict: String,
    reason: String,
    instead: Option<String>,
}

/// One destructive word, checked.
pub struct Word {
    pub re: Regex,
    /// Tried on an MCP tool's name rather than its input.
    pub on_name: bool,
    /// Tried only on an HTTP request line (`DELETE localhost:9200/idx`).
    pub on_request: bool,
    pub verdict: Verdict,
    pub rule: RuleRef,
}

pub(crate) fn verdict_of(s: &str) -> Result<Verdict, String> {
    match s {
        "allow" => Ok(Verdict::Allow),
        "uncertain" => Ok(Verdict::Uncertain),
        "ask" => Ok(Verdict::Ask),
        "deny" => Ok(Verdict::Deny),
        other => Err(format!("verdict `{other}`: allow, uncertain, ask or deny")),
    }
}

/// The line of the `n`-th occurrence of `header` in `text` (1-based), for rule references.
pub(crate) fn line_of(text: &str, header: &str, n: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == header)
        .nth(n)
        .map_or(0, |(i, _)| i + 1)
}

pub(crate) fn rule(
    file: &'static str,
    line: usize,
    pattern: String,
    reason: &str,
    instead: Option<&str>,
) -> RuleRef {
    RuleRef {
        file: Cow::Borrowed(file),
        line,
        origin: Cow::Borrowed("bundled"),
        pattern: Cow::Owned(pattern),
        why: Some(Cow::Owned(match instead {
            Some(i) => format!("{reason}; instead: {i}"),
            None => reason.to_string(),
        })),
    }
}

/// Reads and checks the bundled words: every deny has an alternative, every pattern compiles.
pub fn load() -> Result<Vec<Word>, String> {
    let (file, text) = WORDS;
    let parsed: WordsFile = toml::from_str(text).map_err(|e| format!("rules/{file}: {e}"))?;
    let mut words = Vec::new();
    for (i, w) in parsed.word.into_iter().enumerate() {
        let at = line_of(text, "[[word]]", i);
        let verdict = verdict_of(&w.verdict).map_err(|e| format!("rules/{file}:{at}: {e}"))?;
        if verdict == Verdict::Deny && w.instead.is_none() {
            return Err(format!("rules/{file}:{at}: a deny needs `instead`"));
        }
        let (on_name, on_request) = match w.applies_to.as_deref() {
            None | Some("input") => (false, false),
            Some("name") => (true, false),
            Some("request") => (false, true),
            Some(o) => {
                return Err(format!(
                    "rules/{file}:{at}: in = `{o}`: input, name or request"
                ));
            }
        };
        words.push(Word {
            re: Regex::new(&w.pattern).map_err(|e| format!("rules/{file}:{at}: {e}"))?,
            on_name,
            on_request,
            verdict,
            rule: rule(file, at, w.pattern.clone(), &w.reason, w.instead.as_deref()),
        });
    }
    Ok(words)
}

fn loaded() -> &'static Result<Vec<Word>, String> {
    static L: OnceLock<Result<Vec<Word>, String>> = OnceLock::new();
    L.get_or_init(load)
}

/// The first word that denies and that `text` holds: what a request body makes a database's
/// HTTP port do (`curl -d 'DROP TABLE users' localhost:8123`) is judged as the same words
/// given to a SQL tool. None when the words do not load (a test holds them).
pub fn destructive_text(text: &str) -> Option<RuleRef> {
    let Ok(words) = loaded() else {
        return None;
    };
    words
        .iter()
        .find(|w| !w.on_name && !w.on_request && w.verdict == Verdict::Deny && w.re.is_match(text))
        .map(|w| w.rule.clone())
}

/// The first word that denies and that an HTTP request line (`METHOD URL`) holds: the
/// request words, and with `any_word` (a host on this machine, or a DELETE) the input words
/// too.
pub fn destructive_request(line: &str, any_word: bool) -> Option<RuleRef> {
    let Ok(words) = loaded() else {
        return None;
    };
    words
        .iter()
        .find(|w| {
            !w.on_name
                && (w.on_request || any_word)
                && w.verdict == Verdict::Deny
                && w.re.is_match(line)
        })
        .map(|w| w.rule.clone())
}
