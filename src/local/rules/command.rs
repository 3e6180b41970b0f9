//! Command rules: a regex over a simple command's text, its literal prefilter and, for a bundled
//! rule, its DFA from the build; a list of them indexed by first byte.

use super::*;
use crate::local::path_scan::Mask;

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
    /// The byte pairs every matching command contains (`rule_scan::pair_mask`); empty for
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
    fn copy_of_bundled(&self) -> CommandRule {
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
    // Only `is_match` is ever asked: no capture groups and no one-pass DFA to build, which is
    // most of the compile cost of a rule.
    Regex::builder()
        .configure(
            Regex::config()
                .which_captures(regex_automata::nfa::thompson::WhichCaptures::None)
                .onepass(false)
                .backtrack(false)
                .dfa(false),
        )
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build(pattern)
        .map_err(|e| e.to_string())
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

/// A list of command rules, with each rule also filed under the first byte of each of its literal
/// prefixes, so a command is only tested against rules that could match it.
#[derive(Debug, Default)]
pub struct RuleList {
    /// A whole bundled file's rules, made at compile time: the list's first rules.
    pub(super) base: &'static [CommandRule],
    /// The rules after `base`.
    pub(super) rules: Vec<CommandRule>,
    /// When the list begins with every line of a bundled file in order (no `off:` took one
    /// away): that file and how many rules it gave. Their first-byte index is the build's.
    pub(super) lead: Option<(RuleFile, usize)>,
    /// For each first byte: the rules after `lead` filed under it and every such rule without
    /// a prefix, in order. Each is built on first use: a call looks at a few first bytes, not
    /// 256. Empty when no rule follows `lead`.
    pub(super) by_first_byte: Vec<std::sync::OnceLock<Vec<usize>>>,
    /// `index` has run (else every rule is a candidate).
    pub(super) indexed: bool,
    /// Rules without a literal prefix: tested against every command.
    pub(super) unindexed: Vec<usize>,
    /// A person's cached rules after `rules`, built from their image only when a command
    /// could match them.
    pub(super) pending: Option<Pending>,
}

/// A person's rule file from its cached image, after a list's other rules: each first byte's
/// rules are built the first time a command starts with it (a file of thousands of rules then
/// costs a few instructions a rule, not a parse of each).
#[derive(Debug)]
pub(super) struct Pending {
    image: &'static cache::Compiled<'static>,
    file: RuleFile,
    label: Cow<'static, str>,
    /// For each first byte: the rules filed under it and every unprefixed one, in file order.
    by_first_byte: Vec<OnceLock<Vec<CommandRule>>>,
    /// Every rule, in file order (for an empty text and for [`RuleList::iter`]).
    all: OnceLock<Vec<CommandRule>>,
}

impl Pending {
    pub(super) fn new(
        image: &'static cache::Compiled<'static>,
        file: RuleFile,
        label: Cow<'static, str>,
    ) -> Pending {
        Pending {
            image,
            file,
            label,
            by_first_byte: (0..256).map(|_| OnceLock::new()).collect(),
            all: OnceLock::new(),
        }
    }

    /// The rules a text starting with `first` could match, in file order.
    fn for_byte(&self, first: Option<u8>) -> &[CommandRule] {
        let Some(b) = first else {
            return self.all();
        };
        self.by_first_byte[usize::from(b)].get_or_init(|| {
            (0..self.image.len())
                .filter(|&i| self.image.filed_under(i, b))
                .filter_map(|i| self.rule(i))
                .collect()
        })
    }

    fn all(&self) -> &[CommandRule] {
        self.all
            .get_or_init(|| (0..self.image.len()).filter_map(|i| self.rule(i)).collect())
    }

    /// Line `i`'s rule (None for a bad line, reported at load).
    fn rule(&self, i: usize) -> Option<CommandRule> {
        let rule = |line: usize, pattern: &'static str, why: Option<&'static str>| RuleRef {
            file: self.label.clone(),
            line,
            origin: Cow::Borrowed(self.image.origin),
            pattern: Cow::Borrowed(pattern),
            why: why.map(Cow::Borrowed),
        };
        let Some(line) = self.image.line(i) else {
            return Some(CommandRule::broken(rule(0, "?", None)));
        };
        let whole = self.file == RuleFile::Safe;
        let negated = whole && line.pattern.starts_with('!');
        let made = rule(line.line as usize, line.pattern, line.why);
        match line.found {
            cache::Found::Error(_) => None,
            cache::Found::Command {
                anchored,
                prefixes,
                required,
            } => match (self.image.literals(prefixes), self.image.literals(required)) {
                (Some(p), Some(r)) => Some(CommandRule::written(
                    made,
                    negated,
                    whole,
                    (Literals::Slices(p), anchored, Literals::Slices(r)),
                )),
                _ => Some(CommandRule::broken(made)),
            },
            // A path line in a command file: not what this file's cache holds.
            cache::Found::Path => Some(CommandRule::broken(made)),
        }
    }
}

impl RuleList {
    /// A whole bundled file's rules, borrowed from the build's.
    pub(super) fn bundled(file: RuleFile) -> RuleList {
        RuleList {
            base: bundled::command_rules(file),
            ..RuleList::default()
        }
    }

    pub(crate) fn push(&mut self, rule: CommandRule) {
        self.rules.push(rule);
    }

    /// Rule `i` of `base` then `rules`.
    pub(super) fn get(&self, i: usize) -> &CommandRule {
        match i.checked_sub(self.base.len()) {
            Some(j) => &self.rules[j],
            None => &self.base[i],
        }
    }

    /// How many rules `base` and `rules` hold (the pending ones aside).
    fn built(&self) -> usize {
        self.base.len() + self.rules.len()
    }

    /// Copies `base` into `rules`, before the list is changed rule by rule (`off:`).
    pub(super) fn own_base(&mut self) {
        if self.base.is_empty() {
            return;
        }
        let mut owned: Vec<CommandRule> =
            self.base.iter().map(CommandRule::copy_of_bundled).collect();
        owned.append(&mut self.rules);
        self.rules = owned;
        self.base = &[];
        if self.indexed {
            self.index();
        }
    }

    /// Prepares the index; called once the list is complete. The rules without a literal
    /// prefix are found now; each first byte's list when a command first starts with it.
    pub(crate) fn index(&mut self) {
        self.lead = self.bundled_lead();
        self.unindexed = (0..self.built())
            .filter(|&i| Self::unprefixed(self.get(i)))
            .collect();
        let rest = self.built() - self.lead.map_or(0, |(_, n)| n);
        self.by_first_byte = match rest {
            0 => Vec::new(),
            _ => (0..256).map(|_| std::sync::OnceLock::new()).collect(),
        };
        self.indexed = true;
    }

    /// The bundled file whose lines, all of them and in order, begin the list.
    fn bundled_lead(&self) -> Option<(RuleFile, usize)> {
        let first = (self.built() > 0).then(|| self.get(0))?.bundled?;
        let file = [
            RuleFile::HardBlock,
            RuleFile::Safe,
            RuleFile::ConditionalBlock,
        ]
        .into_iter()
        .find(|&f| bundled::first(f) == first && !bundled::lines(f).is_empty())?;
        let n = bundled::lines(file).len();
        let whole = self.built() >= n && (0..n).all(|j| self.get(j).bundled == Some(first + j));
        whole.then_some((file, n))
    }

    pub(super) fn unprefixed(r: &CommandRule) -> bool {
        r.prefixes.is_empty() || !r.anchored
    }

    /// The rules that could match `text`, in file order: those filed under its first byte
    /// whose byte pairs and literal prefilter let it through (over the corpora, ~0.4 rules a
    /// command, most of which match). Test each with [`CommandRule::test_unfiltered`].
    pub fn candidates<'a, 't>(
        &'a self,
        text: &'t str,
    ) -> impl Iterator<Item = &'a CommandRule> + use<'a, 't> {
        self.candidates_in(text, Mask::of(text.as_bytes()))
    }

    /// [`RuleList::candidates`] with the text's byte pairs already taken (a command's text is
    /// tried against three lists).
    pub fn candidates_in<'a, 't>(
        &'a self,
        text: &'t str,
        pairs: Mask,
    ) -> impl Iterator<Item = &'a CommandRule> + use<'a, 't> {
        let all = (!self.indexed).then_some(0..self.built());
        let (lead, ids): (&[u16], &[usize]) = match text.as_bytes().first() {
            _ if !self.indexed => (&[], &[]),
            Some(&b) => {
                let (lead, from) = match self.lead {
                    Some((file, n)) => (bundled::rows_for_byte(file, b), n),
                    None => (&[][..], 0),
                };
                let rest = match self.by_first_byte.get(usize::from(b)) {
                    Some(slot) => slot.get_or_init(|| {
                        // The rules filed under `b` (a prefix starts with it) and every
                        // unprefixed rule, in file order.
                        (from..self.built())
                            .filter(|&i| {
                                let r = self.get(i);
                                Self::unprefixed(r) || r.prefixes.any_starts_with(b)
                            })
                            .collect()
                    }),
                    None => &[][..],
                };
                (lead, rest)
            }
            None => (&[], &self.unindexed),
        };
        let pending = match &self.pending {
            Some(p) => p.for_byte(text.as_bytes().first().copied()),
            None => &[],
        };
        lead.iter()
            .map(|&i| usize::from(i))
            .chain(ids.iter().copied())
            .chain(all.into_iter().flatten())
            .map(|i| self.get(i))
            .chain(pending)
            .filter(move |r| r.mask.within(&pairs) && r.could_match(text, &pairs))
    }

    /// Builds every pending rule into `rules` (before rules are appended after them, or the
    /// list is changed rule by rule).
    pub(crate) fn build_all(&mut self) {
        if let Some(p) = self.pending.take() {
            p.all();
            self.rules.extend(p.all.into_inner().unwrap_or_default());
            self.index();
        }
    }

    /// Appends another file's rules after these (a project's over SENTINEL_HOME's).
    pub(crate) fn extend(&mut self, mut other: RuleList) {
        self.build_all();
        other.build_all();
        other.own_base();
        self.rules.extend(other.rules);
        self.index();
    }

    /// Every rule, in file order.
    pub fn iter(&self) -> RuleIter<'_> {
        let pending = match &self.pending {
            Some(p) => p.all(),
            None => &[],
        };
        self.base.iter().chain(&self.rules).chain(pending)
    }

    /// How many rules.
    pub fn len(&self) -> usize {
        self.built() + self.pending.as_ref().map_or(0, |p| p.all().len())
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A list's rules in file order.
pub type RuleIter<'a> = std::iter::Chain<
    std::iter::Chain<std::slice::Iter<'a, CommandRule>, std::slice::Iter<'a, CommandRule>>,
    std::slice::Iter<'a, CommandRule>,
>;

impl<'a> IntoIterator for &'a RuleList {
    type Item = &'a CommandRule;
    type IntoIter = RuleIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A command rule line's prefilter (prefixes, anchored, required), or what is wrong with it.
/// `validate` checks the regex's syntax (a person's file; the build checked the bundled ones).
pub(super) fn command_filters(
    file: RuleFile,
    pattern: &str,
    whole: bool,
    validate: bool,
) -> Result<Filters, String> {
    if pattern.starts_with('!') && file != RuleFile::Safe {
        return Err("`!` exceptions are only allowed in safe_commands.txt".into());
    }
    let body = pattern.trim_start_matches('!').trim();
    if body.is_empty() {
        return Err("empty pattern".into());
    }
    if validate
        && let Err(e) = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(body)
    {
        return Err(format!("bad regex: {}", one_line(&e.to_string())));
    }
    Ok(literal_filters(&compiled_pattern(body, whole)))
}
