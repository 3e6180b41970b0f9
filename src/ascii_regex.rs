//! Patterns compiled for what a hook searches once: ASCII and lean.
//!
//! A hook is a process that lives a few milliseconds and searches a command or a request once,
//! so what a pattern costs is its compile, not its search. The `regex` crate's defaults are
//! made for the other case: Unicode classes (`\b`, `\s`, `(?i)` fold every script), a full
//! DFA and literal prefilters built up front. For the words sentinel looks for (SQL, HTTP,
//! option names, key shapes, all ASCII) that cost a call ~20M instructions per pattern list;
//! compiled ASCII, with only the lazy DFA (and the backtracker where groups are read), it is a
//! fifth of that. Text is searched as bytes; a match's offsets fall on ASCII characters.

use regex_automata::{meta, nfa::thompson::WhichCaptures, util::syntax};

pub use regex_automata::meta::Regex;

/// What a search asks of a match: the less, the less is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Only whether it matches (`is_match`): no capture states at all.
    Match,
    /// Where it matches (`find`): the whole match's span.
    Span,
    /// Its groups too (`captures`): with the backtracker to fill them.
    Groups,
}

/// `pattern` compiled ASCII-only for what `ask` needs. A caller that gates its patterns by its
/// own literals (the rules' prefilter, the redaction's words) needs no literal prefilter built
/// into each.
pub fn compile(pattern: &str, ask: Ask) -> Result<Regex, String> {
    let captures = match ask {
        Ask::Match => WhichCaptures::None,
        Ask::Span => WhichCaptures::Implicit,
        Ask::Groups => WhichCaptures::All,
    };
    Regex::builder()
        .configure(
            meta::Config::new()
                .which_captures(captures)
                .onepass(false)
                .backtrack(ask == Ask::Groups)
                .dfa(false)
                .auto_prefilter(false),
        )
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build(pattern)
        .map_err(|e| e.to_string())
}

/// `pattern` parsed as [`compile`] reads it.
pub fn parse(pattern: &str) -> Result<regex_syntax::hir::Hir, String> {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .map_err(|e| e.to_string())
}

/// Whether `pattern` reads as a pattern [`compile`] takes (the syntax only: a list's line is
/// checked when the list is read, and compiled when a search first needs it).
pub fn check(pattern: &str) -> Result<(), String> {
    parse(pattern).map(drop)
}

/// A pattern compiled the first time a search needs it.
#[derive(Debug)]
pub struct Lazy {
    source: String,
    compiled: std::sync::OnceLock<Option<Regex>>,
}

impl Lazy {
    /// `source`, checked by [`check`].
    pub fn new(source: &str) -> Result<Lazy, String> {
        check(source)?;
        Ok(Lazy {
            source: source.to_string(),
            compiled: std::sync::OnceLock::new(),
        })
    }

    /// The compiled pattern; None when the checked syntax still does not compile (a size
    /// bound): the caller must then assume a match.
    pub fn get(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| compile(&self.source, Ask::Span).ok())
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_classes_case_and_groups() {
        let re = compile(r"(?i)\bdrop\s+table\b", Ask::Span).unwrap();
        assert!(re.is_match("x; DROP  TABLE users".as_bytes()));
        assert_eq!(
            re.find("x; DROP  TABLE users".as_bytes()).unwrap().range(),
            3..14
        );
        assert!(!re.is_match("backdrop table".as_bytes()));
        let re = compile(r"--password=([^\s]+)", Ask::Groups).unwrap();
        let mut caps = re.create_captures();
        re.captures("tool --password=hünter2 x".as_bytes(), &mut caps);
        let span = caps.get_group(1).unwrap();
        assert_eq!(&"tool --password=hünter2 x"[span.range()], "hünter2");
    }
}
