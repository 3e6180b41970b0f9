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

/// `pattern` compiled ASCII-only, for `is_match` (`groups` false) or for reading its groups.
pub fn compile(pattern: &str, groups: bool) -> Result<Regex, String> {
    let captures = if groups {
        WhichCaptures::All
    } else {
        WhichCaptures::None
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_classes_case_and_groups() {
        let re = compile(r"(?i)\bdrop\s+table\b", false).unwrap();
        assert!(re.is_match("x; DROP  TABLE users".as_bytes()));
        assert!(!re.is_match("backdrop table".as_bytes()));
        let re = compile(r"--password=([^\s]+)", true).unwrap();
        let mut caps = re.create_captures();
        re.captures("tool --password=hünter2 x".as_bytes(), &mut caps);
        let span = caps.get_group(1).unwrap();
        assert_eq!(&"tool --password=hünter2 x"[span.range()], "hünter2");
    }
}
