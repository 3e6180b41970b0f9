//! Command rules: a regex over a simple command's text, its literal prefilter and, for a bundled
//! rule, its DFA from the build; a list of them indexed by first byte.

use super::*;
use crate::local::paths::scan::Mask;

/// A regex rule over simple commands.
#[derive(Debug)]
pub struct CommandRule {
    /// Where the rule is written.
    pub rule: RuleRef,
    /// A `!` line in the safe list: a command it matches is not safe.
    pub negated: bool,
    /// Literals one of which every match begins with, extracted by regex-syntax (empty: no
    /// constraint). When `anchored`, a matching command starts with one of them; otherwise it
    /// contains one.
    pub(super) prefixes: Literals,
    /// The pattern only matches at the start of the command.
    pub(super) anchored: bool,
    /// Literals every matching command contains.
    pub(super) required: Literals,
    /// The byte pairs every matching command contains (`rules::scan::pair_mask`); empty for
    /// a person's rule, whose literals are searched for directly.
    pub(super) mask: Mask,
    /// The pattern as compiled, for a bundled rule (None: made from `rule.pattern` when the
    /// regex is compiled).
    pub(super) compiled_pattern: Option<&'static str>,
    /// A safe rule: anchored to the whole command.
    pub(super) whole: bool,
    /// A bundled rule's line in the build's tables (an index of `bundled::LINES`), whose DFA,
    /// if the build made one, answers for it (else the regex is compiled here when needed).
    pub(super) bundled: Option<usize>,
    pub(super) regex: OnceLock<Result<Regex, String>>,
}

/// A rule's prefilter as `literal_filters` computes it: prefixes, anchored, required literals.
pub(super) type Filters = (Vec<Vec<u8>>, bool, Vec<Vec<u8>>);

/// The outcome of testing one rule.
#[derive(Debug, PartialEq, Eq)]
pub enum RuleMatch {
    /// The rule does not match.
    No,
    /// It matches.
    Yes,
    /// The pattern failed to compile (size limit); the caller must not widen on it.
    Broken(String),
}

impl CommandRule {
    /// A rule; `built` is the line as `build.rs` compiled it, for a bundled rule (computing
    /// its prefilter and regex costs more than the rest of a decision).
    pub(super) fn new(
        rule: RuleRef,
        negated: bool,
        whole: bool,
        built: Option<(usize, &'static bundled::Line)>,
    ) -> CommandRule {
        let Some((index, b)) = built else {
            let body = rule.pattern.trim_start_matches('!').trim();
            let (prefixes, anchored, required) = literal_filters(&compiled_pattern(body, whole));
            let filters = (
                Literals::Owned(prefixes),
                anchored,
                Literals::Owned(required),
            );
            return CommandRule::written(rule, negated, whole, filters);
        };
        CommandRule {
            prefixes: Literals::Static(bundled::spans(b.prefixes)),
            anchored: b.anchored,
            required: Literals::Static(bundled::spans(b.required)),
            mask: b.mask,
            rule,
            negated,
            compiled_pattern: Some(bundled::text(b.compiled)),
            whole,
            bundled: Some(index),
            regex: OnceLock::new(),
        }
    }

    /// Line `index` of the build's tables, of command file `file`, as a constant
    /// ([`bundled::COMMAND_RULES`]): what [`CommandRule::new`] makes of it at run time.
    pub(super) const fn from_table(index: usize, file: RuleFile) -> CommandRule {
        let b = &bundled::LINES[index];
        let pattern = bundled::text(b.pattern);
        let whole = matches!(file, RuleFile::Safe);
        CommandRule {
            prefixes: Literals::Static(bundled::spans(b.prefixes)),
            anchored: b.anchored,
            required: Literals::Static(bundled::spans(b.required)),
            mask: b.mask,
            rule: RuleRef {
                file: Cow::Borrowed(file.name()),
                line: b.line as usize,
                origin: Cow::Borrowed("bundled"),
                pattern: Cow::Borrowed(pattern),
                why: match b.why {
                    Some(w) => Some(Cow::Borrowed(bundled::text(w))),
                    None => None,
                },
            },
            negated: whole && !pattern.is_empty() && pattern.as_bytes()[0] == b'!',
            compiled_pattern: Some(bundled::text(b.compiled)),
            whole,
            bundled: Some(index),
            regex: OnceLock::new(),
        }
    }

    /// A copy of a bundled rule (of [`bundled::COMMAND_RULES`]) to own, when a list is changed
    /// rule by rule; its regex, if it needs one, is compiled again when used.
    pub(super) fn copy_of_bundled(&self) -> CommandRule {
        let literals = |l: &Literals| match l {
            Literals::Static(s) => Literals::Static(s),
            Literals::Slices(v) => Literals::Slices(v.clone()),
            Literals::Owned(v) => Literals::Owned(v.clone()),
        };
        CommandRule {
            rule: self.rule.clone(),
            negated: self.negated,
            prefixes: literals(&self.prefixes),
            anchored: self.anchored,
            required: literals(&self.required),
            mask: self.mask,
            compiled_pattern: self.compiled_pattern,
            whole: self.whole,
            bundled: self.bundled,
            regex: OnceLock::new(),
        }
    }

    /// A rule of a person's file with its prefilter (prefixes, anchored, required) as
    /// `literal_filters` computed it, now or in the cache.
    pub(super) fn written(
        rule: RuleRef,
        negated: bool,
        whole: bool,
        (prefixes, anchored, required): (Literals, bool, Literals),
    ) -> CommandRule {
        CommandRule {
            prefixes,
            anchored,
            required,
            mask: Mask::EMPTY,
            rule,
            negated,
            compiled_pattern: None,
            whole,
            bundled: None,
            regex: OnceLock::new(),
        }
    }

    /// A line of a cached image that does not read (damage the checksum missed): a candidate
    /// for every command, whose test is `Broken`, so it never lets one through.
    pub(super) fn broken(rule: RuleRef) -> CommandRule {
        let rule = CommandRule::written(
            rule,
            false,
            false,
            (
                Literals::Owned(Vec::new()),
                false,
                Literals::Owned(Vec::new()),
            ),
        );
        let _ = rule
            .regex
            .set(Err("its line in the rule cache is damaged".to_string()));
        rule
    }

    /// The pattern as compiled (safe rules are anchored to the whole command).
    pub(super) fn compiled_pattern(&self) -> Cow<'static, str> {
        match self.compiled_pattern {
            Some(p) => Cow::Borrowed(p),
            None => {
                let body = self.rule.pattern.trim_start_matches('!').trim();
                Cow::Owned(compiled_pattern(body, self.whole))
            }
        }
    }

    /// Tests the rule against a rendered simple command.
    pub fn test(&self, text: &str) -> RuleMatch {
        if !self.could_match(text, &Mask::of(text.as_bytes())) {
            return RuleMatch::No;
        }
        self.test_unfiltered(text)
    }

    /// [`test`](Self::test) for a text the prefilter has let through (a list's candidates).
    pub(crate) fn test_unfiltered(&self, text: &str) -> RuleMatch {
        if let Some(found) = self
            .bundled
            .and_then(bundled::dfa)
            .and_then(|d| dfa_match(d, text))
        {
            return if found { RuleMatch::Yes } else { RuleMatch::No };
        }
        let regex = self
            .regex
            .get_or_init(|| compile(&self.compiled_pattern()).map_err(|e| e.to_string()));
        match regex {
            Ok(r) if r.is_match(text.as_bytes()) => RuleMatch::Yes,
            Ok(_) => RuleMatch::No,
            Err(e) => RuleMatch::Broken(one_line(e)),
        }
    }

    /// The prefilter: false only when the rule cannot match `text`, whose byte pairs are
    /// `pairs`. A literal whose first or last pair the text lacks is not searched for (a rule
    /// with many alternatives has as many literals).
    pub(super) fn could_match(&self, text: &str, pairs: &Mask) -> bool {
        let t = text.as_bytes();
        let contains = |l: &[u8]| pairs.may_contain(l) && crate::local::contains_bytes(t, l);
        if !self.required.iter().all(contains) {
            return false;
        }
        if self.prefixes.is_empty() {
            return true;
        }
        if self.prefixes.len() > SEARCHED_PREFIXES
            && self
                .bundled
                .is_some_and(|i| bundled::LINES[i].dfa.is_some())
        {
            // `(^|\| )(curl|wget|…)`, `(?i)^(remove-item|rm|…)`: up to 256 literals to try,
            // where the build's DFA reads the text once, at a few instructions a byte.
            true
        } else if self.anchored {
            self.prefixes.iter().any(|p| t.starts_with(p))
        } else {
            self.prefixes.iter().any(contains)
        }
    }

    /// Compiles the rule now (for `rules lint`).
    pub fn compile(&self) -> Result<(), String> {
        match self
            .regex
            .get_or_init(|| compile(&self.compiled_pattern()).map_err(|e| e.to_string()))
        {
            Ok(_) => Ok(()),
            Err(e) => Err(one_line(e)),
        }
    }
}

/// A bundled rule with more prefixes than this leaves them to its DFA (a rule is still filed
/// under their first bytes).
const SEARCHED_PREFIXES: usize = 8;

/// Runs a build-time DFA over `text`; None when it cannot answer (then the regex decides).
pub(super) fn dfa_match(dfa: &bundled::Dfa, text: &str) -> Option<bool> {
    use regex_automata::dfa::Automaton;
    let input = regex_automata::Input::new(text.as_bytes()).earliest(true);
    dfa.try_search_fwd(&input).ok().map(|m| m.is_some())
}

/// Compiles a rule. Classes are ASCII (`\S`, `\w`, `(?i)`): Unicode classes cost several times
/// more to compile, and rendered commands keep words apart with ASCII spaces.
pub(super) fn compile(pattern: &str) -> Result<Regex, String> {
    // Only `is_match` is ever asked, and `could_match` is the rule's literal prefilter.
    crate::ascii_regex::compile(pattern, crate::ascii_regex::Ask::Match)
}

/// Prefilter literals: spans of the build's table for bundled rules, slices of a cached image
/// for a person's (no copy), or computed now.
#[derive(Debug)]
pub(super) enum Literals {
    Static(&'static [(u32, u32)]),
    Slices(Vec<&'static [u8]>),
    Owned(Vec<Vec<u8>>),
}

impl Literals {
    pub(super) fn iter(&self) -> impl Iterator<Item = &[u8]> {
        type Parts<'a> = (&'a [(u32, u32)], &'a [&'static [u8]], &'a [Vec<u8>]);
        let (s, l, o): Parts = match self {
            Literals::Static(s) => (s, &[], &[]),
            Literals::Slices(l) => (&[], l.as_slice(), &[]),
            Literals::Owned(o) => (&[], &[], o),
        };
        s.iter()
            .map(|&(start, len)| &bundled::BLOB[start as usize..(start + len) as usize])
            .chain(l.iter().copied())
            .chain(o.iter().map(Vec::as_slice))
    }

    /// Whether one of them starts with `b` (without the chain of `iter`: a first byte's
    /// candidates are found by asking every rule of a list).
    pub(super) fn any_starts_with(&self, b: u8) -> bool {
        match self {
            Literals::Static(s) => s
                .iter()
                .any(|&(start, len)| len > 0 && bundled::BLOB[start as usize] == b),
            Literals::Slices(l) => l.iter().any(|l| l.first() == Some(&b)),
            Literals::Owned(o) => o.iter().any(|l| l.first() == Some(&b)),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Literals::Static(s) => s.len(),
            Literals::Slices(l) => l.len(),
            Literals::Owned(o) => o.len(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        match self {
            Literals::Static(s) => s.is_empty(),
            Literals::Slices(l) => l.is_empty(),
            Literals::Owned(o) => o.is_empty(),
        }
    }
}
