//! A list of command rules indexed by the first byte of their literal prefixes, and the
//! prefilter of a rule line.

use super::*;
use crate::local::paths::scan::Mask;

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

/// A person's rule file from its cached image, after a list's other rules: a rule is built the
/// first time a command passes its literals, read from the image (a file of thousands of rules
/// then costs a few instructions a rule, not a parse of each, and no rule is built for a command
/// that names none of its literals: unanchored rules are filed under every first byte).
#[derive(Debug)]
pub(super) struct Pending {
    image: &'static cache::Compiled<'static>,
    file: RuleFile,
    label: Cow<'static, str>,
    /// For each first byte: the lines filed under it and every unprefixed one, in file order.
    by_first_byte: Vec<OnceLock<Vec<u32>>>,
    /// Every line, in file order (for an empty text).
    every_line: OnceLock<Vec<u32>>,
    /// Each line's [`cache::Compiled::key_pair`] (`NO_KEY` for none): a text without that
    /// pair is passed over in a few instructions, without reading the line.
    keys: OnceLock<Vec<u16>>,
    /// Each line's rule, built when a command first passes its literals.
    built: OnceLock<Box<[BuiltRule]>>,
    /// Every rule, in file order (for [`RuleList::iter`]).
    all: OnceLock<Vec<CommandRule>>,
}

/// A pending line's rule once built (None: a bad line, which has none).
type BuiltRule = OnceLock<Option<Box<CommandRule>>>;

/// A line without a key pair.
const NO_KEY: u16 = u16::MAX;

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
            every_line: OnceLock::new(),
            keys: OnceLock::new(),
            built: OnceLock::new(),
            all: OnceLock::new(),
        }
    }

    /// The lines a text starting with `first` could match, in file order.
    fn lines_for(&self, first: Option<u8>) -> &[u32] {
        let Some(b) = first else {
            return self
                .every_line
                .get_or_init(|| (0..self.image.len() as u32).collect());
        };
        self.by_first_byte[usize::from(b)].get_or_init(|| {
            (0..self.image.len() as u32)
                .filter(|&i| self.image.filed_under(i as usize, b))
                .collect()
        })
    }

    /// The rules whose literals `text` (with byte pairs `pairs`) has, in file order.
    fn candidates<'a, 't>(
        &'a self,
        text: &'t [u8],
        pairs: Mask,
    ) -> impl Iterator<Item = &'a CommandRule> + use<'a, 't> {
        let lines = self.lines_for(text.first().copied());
        // Read when some line is filed under this first byte (not for `git` against rules
        // that all start `^tool`).
        let keys: &[u16] = match lines.is_empty() {
            true => &[],
            false => self.keys.get_or_init(|| {
                (0..self.image.len())
                    .map(|i| self.image.key_pair(i).map_or(NO_KEY, u16::from))
                    .collect()
            }),
        };
        lines
            .iter()
            .map(|&i| i as usize)
            .filter(move |&i| {
                keys.get(i)
                    .is_none_or(|&k| k == NO_KEY || pairs.has(usize::from(k)))
            })
            .filter(move |&i| self.image.could_match(i, text, &pairs))
            .filter_map(|i| self.built_rule(i))
    }

    /// Line `i`'s rule, built once.
    fn built_rule(&self, i: usize) -> Option<&CommandRule> {
        let slots = self
            .built
            .get_or_init(|| (0..self.image.len()).map(|_| OnceLock::new()).collect());
        slots
            .get(i)?
            .get_or_init(|| self.rule(i).map(Box::new))
            .as_deref()
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
        let pending = self
            .pending
            .iter()
            .flat_map(move |p| p.candidates(text.as_bytes(), pairs));
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
    if validate && let Err(e) = crate::ascii_regex::parse(body) {
        return Err(format!("bad regex: {}", one_line(&e)));
    }
    Ok(literal_filters(&compiled_pattern(body, whole)))
}
