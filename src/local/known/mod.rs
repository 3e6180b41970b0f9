//! What sentinel knows about programs, secrets and SQL, as data: `rules/signs.txt`,
//! `rules/program_roles.txt` and `rules/sql_words.txt`, one entry a line with its reason.
//!
//! The bundled files are compiled by build.rs into a static slice per kind, so a lookup costs
//! what the Rust constants they replace cost. A person's SENTINEL_HOME file of the same name adds
//! entries of the kinds that tighten (a program that sends data, a runner whose command is
//! judged); a kind that loosens (a describer, whose words are not judged; SQL that only reads)
//! comes only from the bundled file and the organisation's policy. Each bad line is an error
//! with its file:line, which turns a local allow into `ask`, as a bad rule line does.

pub mod scan;

use crate::decision::RuleError;
use regex::bytes::{Regex, RegexBuilder};
pub use scan::Kind;
use std::path::Path;
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/bundled_known.rs"));

/// Largest knowledge file read from SENTINEL_HOME: a list of names is a few KB.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Who wrote a knowledge file: the person may only tighten; the organisation may also loosen.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Author {
    Person,
    Organisation,
}

/// The knowledge lists: the bundled entries, and those a person's or the organisation's files
/// add.
#[derive(Debug, Default)]
pub struct Known {
    /// Added entries, in file order.
    added: Vec<(Kind, String)>,
    /// The added override phrases, compiled on first use (None: there are none).
    phrases: OnceLock<Option<Regex>>,
}

impl Known {
    /// The bundled entries of `kind`.
    pub fn bundled(kind: Kind) -> &'static [&'static str] {
        BUNDLED[kind as usize]
    }

    /// Whether `kind` holds `entry` (as the file writes it: words joined by one space).
    pub fn holds(&self, kind: Kind, entry: &str) -> bool {
        Known::bundled(kind).contains(&entry) || self.added_of(kind).any(|e| e == entry)
    }

    /// Every entry of `kind`: the bundled ones, then the added ones.
    pub fn entries(&self, kind: Kind) -> impl Iterator<Item = &str> {
        Known::bundled(kind)
            .iter()
            .copied()
            .chain(self.added_of(kind))
    }

    /// The entries of `kind` that files added.
    pub fn added_of(&self, kind: Kind) -> impl Iterator<Item = &str> {
        (self.added.iter())
            .filter(move |(k, _)| *k == kind)
            .map(|(_, e)| e.as_str())
    }

    /// The added override phrases as one regex (None when there are none).
    pub fn added_phrases(&self) -> Option<&Regex> {
        self.phrases
            .get_or_init(|| {
                let phrases: Vec<&str> = self.added_of(Kind::OverridePhrase).collect();
                (!phrases.is_empty())
                    .then(|| phrases_regex(&phrases).ok())
                    .flatten()
            })
            .as_ref()
    }

    /// Reads the knowledge files in `dir` (SENTINEL_HOME) that exist, as the person's.
    pub fn load(dir: &Path) -> (Known, Vec<RuleError>) {
        let mut known = Known::default();
        let mut errors = Vec::new();
        for file in scan::FILES {
            let path = dir.join(file);
            let links = crate::config::files::Links::Follow;
            let text = match crate::config::files::read(&path, MAX_FILE_BYTES, links) {
                Ok(bytes) => String::from_utf8(bytes).map_err(|_| "is not valid UTF-8".into()),
                // Most homes have none: one failed open each, nothing more.
                Err(e) if crate::config::is_absent(&e) => continue,
                Err(e) => Err(format!("cannot read: {e}")),
            };
            let origin = path.display().to_string();
            match text {
                Ok(text) => errors.extend(known.add(file, &origin, &text, Author::Person)),
                Err(message) => errors.push(RuleError {
                    file: origin,
                    line: 0,
                    message,
                }),
            }
        }
        (known, errors)
    }

    /// Adds the entries of knowledge file `file` (named `origin` in errors) written by
    /// `author`; returns each bad line. A person's entry of a loosening kind is refused unless
    /// the bundled list already holds it (a copy of the bundled file stays valid).
    pub fn add(&mut self, file: &str, origin: &str, text: &str, author: Author) -> Vec<RuleError> {
        let error = |line, message| RuleError {
            file: origin.to_string(),
            line,
            message,
        };
        let (entries, bad) = scan::scan(file, text);
        let mut errors: Vec<RuleError> = bad.into_iter().map(|(l, m)| error(l, m)).collect();
        for e in entries {
            let info = &scan::KINDS[e.kind as usize];
            let text = match e.kind {
                Kind::SqlForbidden | Kind::SqlReading | Kind::SqlPure => {
                    e.text.to_ascii_uppercase()
                }
                // Matched against text in lower case.
                Kind::OverrideWord => e.text.to_ascii_lowercase(),
                _ => e.text,
            };
            if Known::bundled(e.kind).contains(&text.as_str()) {
                continue;
            }
            if !info.tightens && author == Author::Person {
                let message = format!(
                    "`{}` loosens what sentinel judges: only the bundled list and the organisation's policy add one",
                    info.word
                );
                errors.push(error(e.line, message));
                continue;
            }
            if e.kind == Kind::OverridePhrase
                && let Err(why) = phrases_regex(&[text.as_str()])
            {
                errors.push(error(e.line, format!("bad regex: {why}")));
                continue;
            }
            self.added.push((e.kind, text));
        }
        self.phrases = OnceLock::new();
        errors
    }
}

/// One regex for override phrases: any case, ASCII classes (cheap to compile), any phrase.
pub fn phrases_regex(phrases: &[&str]) -> Result<Regex, String> {
    let alternatives: Vec<String> = phrases.iter().map(|p| format!("(?:{p})")).collect();
    RegexBuilder::new(&format!("(?i){}", alternatives.join("|")))
        .unicode(false)
        .build()
        .map_err(|e| crate::text::one_line(&e.to_string()))
}

#[cfg(test)]
mod tests;
