//! The words that make any text destructive (`rules/mcp/words.toml`): a `DROP TABLE`, a
//! `FLUSHALL`, a force push. Tried on every string an MCP tool is given, and on what a command
//! sends to a server (`curl -d 'DROP TABLE users' localhost:8123`). Also the helpers the MCP
//! specs share with it (verdict names, rule references).

use crate::ascii_regex::{self, Ask, Regex};
use crate::decision::{RuleRef, Verdict};
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

/// A word as its file says it, checked: its place and verdict read, every deny with an
/// alternative; its pattern not compiled yet.
struct Read {
    pattern: String,
    on_name: bool,
    on_request: bool,
    verdict: Verdict,
    rule: RuleRef,
}

/// The bundled words, read and checked once a process (the joined patterns and the words
/// compiled one by one both start from them).
fn read() -> Result<&'static [Read], String> {
    static READ: OnceLock<Result<Vec<Read>, String>> = OnceLock::new();
    READ.get_or_init(read_file).as_deref().map_err(Clone::clone)
}

fn read_file() -> Result<Vec<Read>, String> {
    let (file, text) = WORDS;
    let parsed: WordsFile = toml::from_str(text).map_err(|e| format!("rules/{file}: {e}"))?;
    // Each word's line, from one pass over the file.
    let headers: Vec<usize> = (text.lines().enumerate())
        .filter(|(_, l)| l.trim() == "[[word]]")
        .map(|(i, _)| i + 1)
        .collect();
    let mut words = Vec::new();
    for (i, w) in parsed.word.into_iter().enumerate() {
        let at = headers.get(i).copied().unwrap_or(0);
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
        words.push(Read {
            rule: rule(file, at, w.pattern.clone(), &w.reason, w.instead.as_deref()),
            pattern: w.pattern,
            on_name,
            on_request,
            verdict,
        });
    }
    Ok(words)
}

/// Reads and checks the bundled words: every deny has an alternative, every pattern compiles.
pub fn load() -> Result<Vec<Word>, String> {
    read()?
        .iter()
        .map(|w| {
            Ok(Word {
                re: ascii_regex::compile(&w.pattern, Ask::Match)
                    .map_err(|e| format!("rules/{}:{}: {e}", w.rule.file, w.rule.line))?,
                on_name: w.on_name,
                on_request: w.on_request,
                verdict: w.verdict,
                rule: w.rule.clone(),
            })
        })
        .collect()
}

fn loaded() -> &'static Result<Vec<Word>, String> {
    static L: OnceLock<Result<Vec<Word>, String>> = OnceLock::new();
    L.get_or_init(load)
}

/// Which words a search tries.
#[derive(Clone, Copy)]
enum Use {
    /// What a text given to a program holds (the input words).
    Input,
    /// A request line: the request words.
    Request,
    /// A request line to this machine, or a DELETE: the request and the input words.
    RequestOrInput,
}

impl Use {
    fn tries(self, on_name: bool, on_request: bool, verdict: Verdict) -> bool {
        let by_use = match self {
            Use::Input => !on_request,
            Use::Request => on_request,
            Use::RequestOrInput => true,
        };
        !on_name && by_use && verdict == Verdict::Deny
    }
}

/// One pattern joining those of the words a use tries. Most texts hold none, and one compile of
/// the union costs a fraction of one per word (each word is compiled only when the union
/// matches). None when the words do not read: the words are then tried one by one.
fn union(u: Use) -> Option<&'static Regex> {
    static UNIONS: [OnceLock<Option<Regex>>; 3] = [const { OnceLock::new() }; 3];
    UNIONS[u as usize]
        .get_or_init(|| {
            let joined: Vec<String> = read()
                .ok()?
                .iter()
                .filter(|w| u.tries(w.on_name, w.on_request, w.verdict))
                .map(|w| format!("(?:{})", w.pattern))
                .collect();
            ascii_regex::compile(&joined.join("|"), Ask::Match).ok()
        })
        .as_ref()
}

/// The first word (in the file's order) of those `u` tries that `text` holds.
fn first_held(text: &str, u: Use) -> Option<RuleRef> {
    if union(u).is_some_and(|re| !re.is_match(text.as_bytes())) {
        return None;
    }
    let Ok(words) = loaded() else {
        return None;
    };
    words
        .iter()
        .find(|w| u.tries(w.on_name, w.on_request, w.verdict) && w.re.is_match(text.as_bytes()))
        .map(|w| w.rule.clone())
}

/// The first word that denies and that `text` holds: what a request body makes a database's
/// HTTP port do (`curl -d 'DROP TABLE users' localhost:8123`) is judged as the same words
/// given to a SQL tool. None when the words do not load (a test holds them).
pub fn destructive_text(text: &str) -> Option<RuleRef> {
    first_held(text, Use::Input)
}

/// The first word that denies and that an HTTP request line (`METHOD URL`) holds: the
/// request words, and with `any_word` (a host on this machine, or a DELETE) the input words
/// too.
pub fn destructive_request(line: &str, any_word: bool) -> Option<RuleRef> {
    first_held(
        line,
        if any_word {
            Use::RequestOrInput
        } else {
            Use::Request
        },
    )
}
