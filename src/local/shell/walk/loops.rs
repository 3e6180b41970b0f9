//! A `for` loop over a listing of project files (`for d in apps/*/; do ls "$d"; done`, `for f in
//! src/**/*.jsx; do mv "$f" "${f%.jsx}.tsx"; done`): the loop variable takes each word of the
//! list, so where the body uses it whole and quoted (`"$f"`, `"${f}"`), or with a literal
//! suffix the words end in removed (`"${f%.jsx}.tsx"`), it stands for that word, a glob
//! judged as the paths it matches. Only relative words that cannot leave the directory or
//! become an option are bound; the binding ends at the first command that can assign shell
//! variables (`read`, `declare`, `eval`, `source`, a function …), at an assignment to the
//! name, and inside code another shell runs (`bash -c`).

use super::*;

/// Builtins that can assign a shell variable by name.
const ASSIGNING: &[&str] = &[
    "read",
    "mapfile",
    "readarray",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "printf",
    "unset",
    "eval",
    "source",
    ".",
    "getopts",
    "let",
    "set",
    "shift",
    "exec",
    "command",
    "builtin",
    "alias",
    "trap",
    "wait",
    "fc",
    "enable",
    "shopt",
];

/// A list of one word (a glob, most often) is bound; with more, the body would be walked once
/// per word and each command reported again, so nothing is bound.
const MAX_WORDS: usize = 1;

impl Walker {
    /// The words a loop variable may be bound to: relative literal words or globs that start
    /// with neither `-` nor `/` nor `~` and have no `..`.
    pub(super) fn bindable(values: &[Word]) -> bool {
        !values.is_empty()
            && values.len() <= MAX_WORDS
            && values.iter().all(|w| {
                matches!(w.kind, WordKind::Literal | WordKind::Glob)
                    && !w.text.is_empty()
                    && !w.text.starts_with(['-', '/', '~', '$'])
                    && !w.text.contains("..")
                    && !w
                        .text
                        .contains(['{', '}', '\'', '"', '\\', '=', ' ', '\t', '\n'])
            })
    }

    /// The word `raw` stands for when it uses a bound loop variable as a whole quoted word.
    pub(super) fn loop_word(&self, raw: &str) -> Option<Word> {
        if self.loop_words.is_empty() {
            return None;
        }
        let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
        let bound = |name: &str| {
            self.loop_words
                .iter()
                .rfind(|(n, _)| n == name)
                .and_then(|(_, w)| w.clone())
        };
        if let Some(name) = inner.strip_prefix('$')
            && is_name(name)
        {
            return bound(name);
        }
        let body = inner.strip_prefix("${")?;
        let (expr, rest) = body.split_once('}')?;
        if !rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
        {
            return None;
        }
        let (name, suffix) = match expr.split_once('%') {
            Some((n, s)) => (n, Some(s)),
            None => (expr, None),
        };
        if !is_name(name) {
            return None;
        }
        let w = bound(name)?;
        let stem = match suffix {
            None => w.text.as_str(),
            // Only a literal suffix every word ends in: `${f%.jsx}` of `src/*.jsx`.
            Some(s)
                if !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) =>
            {
                w.text.strip_suffix(s)?
            }
            Some(_) => return None,
        };
        let text = format!("{stem}{rest}");
        if text.is_empty() || text.starts_with('-') {
            return None;
        }
        Some(Word {
            kind: w.kind,
            text,
            value: None,
        })
    }

    /// After a simple command: one that can assign variables ends every binding; a bare
    /// assignment ends the binding of its name.
    pub(super) fn loop_command(&mut self, argv: &[Word], assigned: &[String]) {
        if self.loop_words.is_empty() {
            return;
        }
        let assigns = argv.first().is_some_and(|n| {
            !n.is_literal() || ASSIGNING.contains(&n.text.as_str()) || self.functions_defined
        });
        if assigns {
            self.loop_words.clear();
            return;
        }
        for name in assigned {
            for (n, w) in &mut self.loop_words {
                if n == name {
                    *w = None;
                }
            }
        }
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
