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

/// `pattern` compiled ASCII-only, for `is_match` and `find` (`groups` false: only the whole
/// match's span is kept) or for reading its groups too.
pub fn compile(pattern: &str, groups: bool) -> Result<Regex, String> {
    let captures = if groups {
        WhichCaptures::All
    } else {
        WhichCaptures::Implicit
    };
    Regex::builder()
        .configure(
            meta::Config::new()
                .which_captures(captures)
                .onepass(false)
                .backtrack(groups)
                .dfa(false)
                .auto_prefilter(false),
        )
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build(pattern)
        .map_err(|e| e.to_string())
}

/// Whether `pattern` reads as a pattern [`compile`] takes (the syntax only: a list's line is
/// checked when the list is read, and compiled when a search first needs it).
pub fn check(pattern: &str) -> Result<(), String> {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .map(drop)
        .map_err(|e| e.to_string())
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
            .get_or_init(|| compile(&self.source, false).ok())
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_classes_case_and_groups() {
        let re = compile(r"(?i)\bdrop\s+table\b", false).unwrap();
        assert!(re.is_match("x; DROP  TABLE users".as_bytes()));
        assert_eq!(
            re.find("x; DROP  TABLE users".as_bytes()).unwrap().range(),
            3..14
        );
        assert!(!re.is_match("backdrop table".as_bytes()));
        let re = compile(r"--password=([^\s]+)", true).unwrap();
        let mut caps = re.create_captures();
        re.captures("tool --password=hünter2 x".as_bytes(), &mut caps);
        let span = caps.get_group(1).unwrap();
        assert_eq!(&"tool --password=hünter2 x"[span.range()], "hünter2");
    }
}
