//! Rule files: loading the five lists from SENTINEL_HOME (or the bundled defaults) and matching.
//!
//! Command rules are regexes over a simple command as [`crate::shell::SimpleCommand::text`]
//! renders it. A regex is compiled only when a command could match it: each rule that starts
//! with `^literal` is skipped outright for commands that do not start with that literal.

use crate::decision::{RuleError, RuleRef};
use crate::local::rule_scan::{compiled_pattern, literal_filters, split_line};
use crate::paths::PathPattern;
use crate::text::one_line;
use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One of the five rule files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleFile {
    /// `hard_block_commands.txt`: a match → BLOCK.
    HardBlock,
    /// `safe_commands.txt`: a whole-command match → safe.
    Safe,
    /// `conditional_block_commands.txt`: BLOCK unless every path is inside a safe path.
    ConditionalBlock,
    /// `safe_paths.txt`: writes inside → ALLOW.
    SafePaths,
    /// `excluded_paths.txt`: writes inside → BLOCK.
    ExcludedPaths,
    /// `credential_paths.txt`: reading one is never allowed locally.
    CredentialPaths,
    /// `protected_paths.txt`: places in a project no tool's write is allowed locally.
    ProtectedPaths,
}

impl RuleFile {
    /// Every rule file, in the order they are loaded.
    pub const ALL: [RuleFile; 7] = [
        RuleFile::HardBlock,
        RuleFile::Safe,
        RuleFile::ConditionalBlock,
        RuleFile::SafePaths,
        RuleFile::ExcludedPaths,
        RuleFile::CredentialPaths,
        RuleFile::ProtectedPaths,
    ];

    /// The file name in SENTINEL_HOME.
    pub fn name(self) -> &'static str {
        match self {
            RuleFile::HardBlock => "hard_block_commands.txt",
            RuleFile::Safe => "safe_commands.txt",
            RuleFile::ConditionalBlock => "conditional_block_commands.txt",
            RuleFile::SafePaths => "safe_paths.txt",
            RuleFile::ExcludedPaths => "excluded_paths.txt",
            RuleFile::CredentialPaths => "credential_paths.txt",
            RuleFile::ProtectedPaths => "protected_paths.txt",
        }
    }

    /// The file's name in a project, under `.sentinel/` (a test checks it against
    /// `config::PROJECT_DIR`).
    pub fn project_name(self) -> &'static str {
        match self {
            RuleFile::HardBlock => ".sentinel/hard_block_commands.txt",
            RuleFile::Safe => ".sentinel/safe_commands.txt",
            RuleFile::ConditionalBlock => ".sentinel/conditional_block_commands.txt",
            RuleFile::SafePaths => ".sentinel/safe_paths.txt",
            RuleFile::ExcludedPaths => ".sentinel/excluded_paths.txt",
            RuleFile::CredentialPaths => ".sentinel/credential_paths.txt",
            RuleFile::ProtectedPaths => ".sentinel/protected_paths.txt",
        }
    }

    /// The default compiled into the binary from `rules/`.
    pub fn bundled(self) -> &'static str {
        match self {
            RuleFile::HardBlock => include_str!("../../rules/hard_block_commands.txt"),
            RuleFile::Safe => include_str!("../../rules/safe_commands.txt"),
            RuleFile::ConditionalBlock => {
                include_str!("../../rules/conditional_block_commands.txt")
            }
            RuleFile::SafePaths => include_str!("../../rules/safe_paths.txt"),
            RuleFile::ExcludedPaths => include_str!("../../rules/excluded_paths.txt"),
            RuleFile::CredentialPaths => include_str!("../../rules/credential_paths.txt"),
            RuleFile::ProtectedPaths => include_str!("../../rules/protected_paths.txt"),
        }
    }

    /// True for the files that list paths rather than command patterns.
    pub fn is_path_list(self) -> bool {
        matches!(
            self,
            RuleFile::SafePaths
                | RuleFile::ExcludedPaths
                | RuleFile::CredentialPaths
                | RuleFile::ProtectedPaths
        )
    }

    /// True for path lists whose `!` lines are exceptions.
    fn allows_exceptions(self) -> bool {
        matches!(
            self,
            RuleFile::ExcludedPaths | RuleFile::CredentialPaths | RuleFile::ProtectedPaths
        )
    }
}

/// One of a project's rule files as the layering hands it over (`local::project` finds and
/// reads them; the rules only parse what they are given).
pub struct ProjectRules<'a> {
    /// Which rule file it is.
    pub file: RuleFile,
    /// Where it is.
    pub path: &'a Path,
    /// Its text, or why it cannot be read.
    pub text: Result<&'a str, &'a str>,
    /// SHA-256 of its bytes, in hex.
    pub sha256: &'a str,
}

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
    prefixes: Literals,
    /// The pattern only matches at the start of the command.
    anchored: bool,
    /// Literals every matching command contains.
    required: Literals,
    /// The pattern as compiled, for a bundled rule (None: made from `rule.pattern` when the
    /// regex is compiled).
    compiled_pattern: Option<&'static str>,
    /// A safe rule: anchored to the whole command.
    whole: bool,
    /// A bundled rule's line in the build's tables, whose DFA answers for it (None: the regex is
    /// compiled here when needed).
    dfa: Option<usize>,
    /// A bundled rule's whole-list automaton (an index of `bundled::GROUPS`): when it finds no
    /// match, neither can this rule.
    group: Option<usize>,
    regex: OnceLock<Result<Regex, String>>,
}

/// A rule's prefilter as `literal_filters` computes it: prefixes, anchored, required literals.
type Filters = (Vec<Vec<u8>>, bool, Vec<Vec<u8>>);

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
    fn new(
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
        let spans = |(start, n): (u32, u32)| &bundled::SPANS[start as usize..(start + n) as usize];
        CommandRule {
            prefixes: Literals::Static(spans(b.prefixes)),
            anchored: b.anchored,
            required: Literals::Static(spans(b.required)),
            rule,
            negated,
            compiled_pattern: Some(bundled::text(b.compiled)),
            whole,
            dfa: b.dfa.map(|_| index),
            group: bundled::group_of(index),
            regex: OnceLock::new(),
        }
    }

    /// A rule of a person's file with its prefilter (prefixes, anchored, required) as
    /// `literal_filters` computed it, now or in the cache.
    fn written(
        rule: RuleRef,
        negated: bool,
        whole: bool,
        (prefixes, anchored, required): (Literals, bool, Literals),
    ) -> CommandRule {
        CommandRule {
            prefixes,
            anchored,
            required,
            rule,
            negated,
            compiled_pattern: None,
            whole,
            dfa: None,
            group: None,
            regex: OnceLock::new(),
        }
    }

    /// The pattern as compiled (safe rules are anchored to the whole command).
    fn compiled_pattern(&self) -> Cow<'static, str> {
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
        if !self.could_match(text) {
            return RuleMatch::No;
        }
        if let Some(found) = self
            .dfa
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

    /// The prefilter: false only when the rule cannot match `text`.
    fn could_match(&self, text: &str) -> bool {
        let t = text.as_bytes();
        let contains = |l: &[u8]| crate::local::contains_bytes(t, l);
        if !self.required.iter().all(contains) {
            return false;
        }
        if self.prefixes.is_empty() {
            return true;
        }
        if self.anchored {
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

/// Runs a build-time DFA over `text`; None when it cannot answer (then the regex decides).
fn dfa_match(dfa: &bundled::Dfa, text: &str) -> Option<bool> {
    use regex_automata::dfa::Automaton;
    let input = regex_automata::Input::new(text.as_bytes()).earliest(true);
    dfa.try_search_fwd(&input).ok().map(|m| m.is_some())
}

/// Compiles a rule. Classes are ASCII (`\S`, `\w`, `(?i)`): Unicode classes cost several times
/// more to compile, and rendered commands keep words apart with ASCII spaces.
fn compile(pattern: &str) -> Result<Regex, String> {
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

pub(crate) mod cache;
pub mod layers;

/// The bundled rule files as `build.rs` compiled them.
#[allow(clippy::type_complexity)]
mod bundled {
    use std::sync::OnceLock;

    pub use crate::local::path_scan::{Form, Mask};

    /// One rule line: spans of TEXT, prefilter literals as (first, count) into SPANS, and the
    /// DFA's span of DFAS (None: too big to build; compiled at run time when needed); a path
    /// list's line as `path_scan` read it.
    pub struct Line {
        pub line: u32,
        pub pattern: (u32, u32),
        pub why: Option<(u32, u32)>,
        pub compiled: (u32, u32),
        pub anchored: bool,
        pub prefixes: (u32, u32),
        pub required: (u32, u32),
        pub dfa: Option<(u32, u32)>,
        pub path: Option<PathLine>,
    }

    /// A path-list line as `path_scan::Scanned`, its texts spans of TEXT.
    pub struct PathLine {
        pub negated: bool,
        pub form: Form,
        pub text: (u32, u32),
        pub literals: (u32, u32),
        pub glob: bool,
        pub simple: bool,
        pub mask: Mask,
    }

    impl PathLine {
        /// The line as `path_scan::scan` reads it, borrowing the table's text.
        pub fn scanned(&self) -> crate::local::path_scan::Scanned {
            crate::local::path_scan::Scanned {
                negated: self.negated,
                form: self.form,
                text: std::borrow::Cow::Borrowed(text(self.text)),
                literals: std::borrow::Cow::Borrowed(text(self.literals)),
                glob: self.glob,
                simple: self.simple,
                mask: self.mask,
            }
        }
    }

    include!(concat!(env!("OUT_DIR"), "/bundled_rules.rs"));

    /// A span of TEXT.
    pub fn text((start, len): (u32, u32)) -> &'static str {
        &TEXT[start as usize..(start + len) as usize]
    }

    /// The compiled lines of one file.
    pub fn lines(file: super::RuleFile) -> &'static [Line] {
        let (start, end) = FILES[file as usize];
        &LINES[start as usize..end as usize]
    }

    /// The index in LINES of one file's first line.
    pub fn first(file: super::RuleFile) -> usize {
        FILES[file as usize].0 as usize
    }

    pub type Dfa = regex_automata::dfa::sparse::DFA<&'static [u8]>;

    /// Line `i`'s DFA, deserialized the first time a command reaches it and kept for the process
    /// (a long-lived engine would otherwise re-read its header on every test).
    pub fn dfa(i: usize) -> Option<&'static Dfa> {
        static LOADED: OnceLock<Box<[OnceLock<Option<Dfa>>]>> = OnceLock::new();
        let slots = LOADED.get_or_init(|| LINES.iter().map(|_| OnceLock::new()).collect());
        slots[i].get_or_init(|| load(LINES[i].dfa?)).as_ref()
    }

    // `RuleList::candidates` keeps one bit per automaton.
    const _: () = assert!(GROUPS.len() <= 64);

    /// The whole-list automaton of line `i`, if it has one.
    pub fn group_of(i: usize) -> Option<usize> {
        let i = i as u32;
        GROUPS
            .iter()
            .position(|&(start, end, _)| start <= i && i < end)
    }

    /// Whole-list automaton `g`, loaded as `dfa` loads a line's.
    pub fn group(g: usize) -> Option<&'static Dfa> {
        static LOADED: [OnceLock<Option<Dfa>>; GROUPS.len()] =
            [const { OnceLock::new() }; GROUPS.len()];
        LOADED[g].get_or_init(|| load(GROUPS[g].2)).as_ref()
    }

    fn load((start, n): (u32, u32)) -> Option<Dfa> {
        let bytes = &DFAS.bytes[start as usize..(start + n) as usize];
        // SAFETY: build.rs serialized these bytes with this regex-automata (one version in
        // Cargo.lock) for this target's endianness; the tests check every DFA against its
        // regex, and each whole-list automaton against its lines.
        unsafe { Dfa::from_bytes_unchecked(bytes) }
            .ok()
            .map(|(d, _)| d)
    }
}

/// Prefilter literals: spans of the build's table for bundled rules, slices of a cached image
/// for a person's (no copy), or computed now.
#[derive(Debug)]
enum Literals {
    Static(&'static [(u32, u32)]),
    Slices(&'static [&'static [u8]]),
    Owned(Vec<Vec<u8>>),
}

impl Literals {
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        type Parts<'a> = (&'a [(u32, u32)], &'a [&'static [u8]], &'a [Vec<u8>]);
        let (s, l, o): Parts = match self {
            Literals::Static(s) => (s, &[], &[]),
            Literals::Slices(l) => (&[], l, &[]),
            Literals::Owned(o) => (&[], &[], o),
        };
        s.iter()
            .map(|&(start, len)| &bundled::BLOB[start as usize..(start + len) as usize])
            .chain(l.iter().copied())
            .chain(o.iter().map(Vec::as_slice))
    }

    /// Whether one of them starts with `b` (without the chain of `iter`: a first byte's
    /// candidates are found by asking every rule of a list).
    fn any_starts_with(&self, b: u8) -> bool {
        match self {
            Literals::Static(s) => s
                .iter()
                .any(|&(start, len)| len > 0 && bundled::BLOB[start as usize] == b),
            Literals::Slices(l) => l.iter().any(|l| l.first() == Some(&b)),
            Literals::Owned(o) => o.iter().any(|l| l.first() == Some(&b)),
        }
    }

    fn is_empty(&self) -> bool {
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
    rules: Vec<CommandRule>,
    /// For each first byte: the rules filed under it and every rule without a prefix, in order.
    /// Each is built on first use: a call looks at a few first bytes, not 256.
    by_first_byte: Vec<std::sync::OnceLock<Vec<usize>>>,
    /// Rules without a literal prefix: tested against every command.
    unindexed: Vec<usize>,
}

impl RuleList {
    pub(crate) fn push(&mut self, rule: CommandRule) {
        self.rules.push(rule);
    }

    /// Prepares the index; called once the list is complete. The rules without a literal
    /// prefix are found now; each first byte's list when a command first starts with it.
    pub(crate) fn index(&mut self) {
        self.unindexed = (0..self.rules.len())
            .filter(|&i| Self::unprefixed(&self.rules[i]))
            .collect();
        self.by_first_byte = (0..256).map(|_| std::sync::OnceLock::new()).collect();
    }

    fn unprefixed(r: &CommandRule) -> bool {
        r.prefixes.is_empty() || !r.anchored
    }

    /// The rules that could match `text`, in file order. A bundled rule is offered only when
    /// its whole-list automaton finds a match in `text` (asked once, when the first such rule
    /// comes up): a command no bundled rule matches is scanned once, not once per rule.
    pub fn candidates<'a>(&'a self, text: &str) -> impl Iterator<Item = &'a CommandRule> {
        // Per automaton: asked, and its answer (a DFA that cannot answer says "maybe").
        let (mut asked, mut found) = (0u64, 0u64);
        let mut any = move |g: usize| {
            let bit = 1u64 << g;
            if asked & bit == 0 {
                asked |= bit;
                let hit = bundled::group(g).and_then(|d| dfa_match(d, text));
                if hit != Some(false) {
                    found |= bit;
                }
            }
            found & bit != 0
        };
        let ids = match (text.as_bytes().first(), self.by_first_byte.is_empty()) {
            (Some(&b), false) => self.by_first_byte[b as usize].get_or_init(|| {
                // The rules filed under `b` (a prefix starts with it) and every unprefixed
                // rule, in file order.
                (0..self.rules.len())
                    .filter(|&i| {
                        let r = &self.rules[i];
                        Self::unprefixed(r) || r.prefixes.any_starts_with(b)
                    })
                    .collect()
            }),
            _ => &self.unindexed,
        };
        ids.iter()
            .map(|&i| &self.rules[i])
            .filter(move |r| r.group.is_none_or(&mut any))
    }

    /// Appends another file's rules after these (a project's over SENTINEL_HOME's).
    pub(crate) fn extend(&mut self, other: RuleList) {
        self.rules.extend(other.rules);
        self.index();
    }

    /// Every rule, in file order.
    pub fn iter(&self) -> std::slice::Iter<'_, CommandRule> {
        self.rules.iter()
    }

    /// How many rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

impl<'a> IntoIterator for &'a RuleList {
    type Item = &'a CommandRule;
    type IntoIter = std::slice::Iter<'a, CommandRule>;

    fn into_iter(self) -> Self::IntoIter {
        self.rules.iter()
    }
}

/// A rule file's parsed lines.
#[derive(Debug)]
pub(crate) enum Parsed {
    Commands(RuleList),
    Paths(Vec<(PathPattern, RuleRef)>),
}

impl Parsed {
    fn len(&self) -> usize {
        match self {
            Parsed::Commands(list) => list.len(),
            Parsed::Paths(list) => list.len(),
        }
    }

    /// The rules from the `from`th on (line, pattern).
    fn added(&self, from: usize) -> Vec<(usize, Cow<'static, str>)> {
        let rule = |r: &RuleRef| (r.line, r.pattern.clone());
        match self {
            Parsed::Commands(list) => list.rules[from..].iter().map(|r| rule(&r.rule)).collect(),
            Parsed::Paths(list) => list[from..].iter().map(|(_, r)| rule(r)).collect(),
        }
    }
}

/// A rule file whose text is the bundled default, parsed the first time it is needed: most calls
/// need only some of the five files (a Bash command never the path lists unless it writes, a file
/// tool never the command lists), and this text is known to be valid.
#[derive(Debug)]
struct Lazy {
    origin: String,
    parsed: OnceLock<Parsed>,
}

/// The loaded rules: the three command lists, the two path lists, and any load errors.
#[derive(Debug)]
pub struct Rules {
    files: [Lazy; 7],
    home: Option<PathBuf>,
    /// Where a person's and a project's rule files are cached compiled (None: not cached).
    cache: Option<PathBuf>,
    /// Bad lines and unreadable files; any of them turns local ALLOWs into `ask`.
    pub errors: Vec<RuleError>,
    /// Where each file came from: (name, `bundled` or path).
    pub origins: Vec<(String, String)>,
    /// A project's loosening rules held back because the person has not trusted its files.
    pub suspended: Vec<RuleRef>,
    /// The command specs: bundled, and the person's `commands/*.toml`.
    pub specs: crate::local::spec::Specs,
    /// What each of the person's rule files changes against the bundled defaults.
    pub layers: Vec<layers::FileLayer>,
}

impl Rules {
    /// Loads the rule files from `dir`, each falling back to the bundled default when absent.
    /// `home` expands `~` in path lists.
    pub fn load(dir: &Path, home: Option<&Path>) -> Rules {
        let cache_dir = dir.join("cache");
        let mut sources = Vec::new();
        let mut errors = Vec::new();
        for file in RuleFile::ALL {
            let path = dir.join(file.name());
            let origin = path.display().to_string();
            let unreadable = |message: String| RuleError {
                file: origin.clone(),
                line: 0,
                message,
            };
            // A file whose stat is what its cache recorded is not read (see `cache`).
            let stat = match std::fs::metadata(&path) {
                Ok(meta) => cache::Stat::of(&meta),
                Err(e) if crate::config::is_absent(&e) => continue,
                Err(e) => {
                    errors.push(unreadable(format!("cannot read: {e}")));
                    continue;
                }
            };
            let id = cache_id(file, &origin, home, Layer::Home);
            if let Some(image) = stat.and_then(|s| cache::by_stat(&cache_dir, &id, s)) {
                sources.push((file, origin, Source::Image(image)));
                continue;
            }
            match std::fs::read(&path) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => sources.push((file, origin.clone(), Source::Text(text, stat))),
                    Err(_) => errors.push(unreadable("file is not valid UTF-8".into())),
                },
                Err(e) if crate::config::is_absent(&e) => {}
                Err(e) => errors.push(unreadable(format!("cannot read: {e}"))),
            }
        }
        let mut rules = Rules::from_owned_sources(sources, home, Some(cache_dir));
        rules.specs = crate::local::spec::Specs::load(dir);
        rules.errors.extend(rules.specs.errors.iter().cloned());
        for file in RuleFile::ALL {
            if !rules.origins.iter().any(|(name, _)| name == file.name()) {
                rules
                    .origins
                    .push((file.name().to_string(), "bundled".to_string()));
            }
        }
        rules.errors.extend(errors);
        rules
    }

    /// The bundled defaults only.
    pub fn bundled(home: Option<&Path>) -> Rules {
        Rules::from_sources(
            RuleFile::ALL.iter().map(|f| (*f, "bundled", f.bundled())),
            home,
        )
    }

    /// Builds rules from (file, origin, text) triples; pure, for tests and fuzzing.
    pub fn from_sources<'a>(
        sources: impl IntoIterator<Item = (RuleFile, &'a str, &'a str)>,
        home: Option<&Path>,
    ) -> Rules {
        let sources = sources
            .into_iter()
            .map(|(f, o, t)| {
                let source = match t == f.bundled() {
                    true => Source::Bundled,
                    false => Source::Text(t.to_string(), None),
                };
                (f, o.to_string(), source)
            })
            .collect();
        Rules::from_owned_sources(sources, home, None)
    }

    /// (file, origin, source).
    fn from_owned_sources(
        sources: Vec<(RuleFile, String, Source)>,
        home: Option<&Path>,
        cache: Option<PathBuf>,
    ) -> Rules {
        let mut rules = Rules {
            files: std::array::from_fn(|_| Lazy {
                origin: "bundled".into(),
                parsed: OnceLock::new(),
            }),
            home: home.map(Path::to_path_buf),
            cache,
            errors: Vec::new(),
            origins: Vec::new(),
            suspended: Vec::new(),
            specs: crate::local::spec::Specs::bundled(),
            layers: Vec::new(),
        };
        for (file, origin, source) in sources {
            rules
                .origins
                .push((file.name().to_string(), origin.clone()));
            let slot = &mut rules.files[file as usize];
            slot.origin = origin.clone();
            // The bundled text is checked by the test suite and parsed on first use. A person's
            // file adds to it (SPEC 2.1): compiled now (or taken from the cache), so a bad line
            // is reported at once, and laid over the bundled rules, less the ones it switches
            // off. An untouched copy of a bundled file an earlier install seeded is no
            // customisation: the bundled rules of this version apply.
            let image = match source {
                Source::Bundled => None,
                Source::Image(image) => Some(image),
                Source::Text(text, stat) => {
                    let content = Sha256::digest(text.as_bytes()).into();
                    let image = compile_written(
                        file,
                        &origin,
                        &text,
                        &content,
                        home,
                        Layer::Home,
                        rules.cache.as_deref(),
                        stat,
                    );
                    if image.is_none() {
                        rules.errors.push(not_compiled(&origin));
                    }
                    image
                }
            };
            let Some(image) = image.filter(|i| i.kind != cache::Kind::Bundled) else {
                slot.origin = "bundled".into();
                continue;
            };
            if image.kind == cache::Kind::Seeded {
                slot.origin = "bundled".into();
                rules.layers.push(layers::FileLayer {
                    file: Some(file),
                    origin,
                    seeded_copy: true,
                    ..Default::default()
                });
                continue;
            }
            let off = image
                .off
                .iter()
                .map(|(l, p)| (*l as usize, p.to_string()))
                .collect();
            let (bundled, ..) = parse_file(
                file,
                "bundled",
                Lines::Bundled,
                home,
                false,
                Layer::Home,
                None,
            );
            let (base, mut layer) = layers::switch_off(file, &origin, bundled, off);
            let from = base.len();
            let lines = Lines::Image(image);
            let (merged, errors, _) =
                parse_file(file, &origin, lines, home, true, Layer::Home, Some(base));
            rules.errors.extend(errors);
            layer.added = merged.added(from);
            rules.layers.push(layer);
            let _ = slot.parsed.set(merged);
        }
        rules
    }

    /// Layers a project's `.sentinel/` rule files over these. Tightening rules always apply; the
    /// loosening ones (safe commands, safe paths, `!` exceptions to excluded paths) only when
    /// `trusted`, and are listed in [`Rules::suspended`] otherwise.
    pub fn add_project(&mut self, root: &Path, files: &[ProjectRules], trusted: bool) {
        for source in files {
            let file = source.file;
            let origin = source.path.display().to_string();
            self.origins
                .push((file.project_name().to_string(), origin.clone()));
            let text = match source.text {
                Ok(t) => t,
                Err(e) => {
                    self.errors.push(RuleError {
                        file: origin,
                        line: 0,
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            // Read and hashed for its trust anyway: its cache is found by that hash.
            let content = unhex(source.sha256).unwrap_or_else(|| Sha256::digest(text).into());
            let layer = Layer::Project(root);
            let home = self.home.as_deref();
            let cache = self.cache.as_deref();
            let Some(image) =
                compile_written(file, &origin, text, &content, home, layer, cache, None)
            else {
                self.errors.push(not_compiled(&origin));
                continue;
            };
            let (parsed, errors, _) =
                parse_file(file, &origin, Lines::Image(image), home, true, layer, None);
            self.errors.extend(errors);
            // Make sure the home layer is parsed before the project's rules go after it.
            let _ = self.parsed(file);
            let Some(slot) = self.files[file as usize].parsed.get_mut() else {
                continue;
            };
            let suspended = &mut self.suspended;
            match (slot, parsed) {
                (Parsed::Commands(list), Parsed::Commands(mut extra)) => {
                    if file == RuleFile::Safe && !trusted {
                        // `!` exceptions tighten and stay; positive safe rules wait for trust.
                        let (keep, held): (Vec<_>, Vec<_>) =
                            extra.rules.into_iter().partition(|r| r.negated);
                        suspended.extend(held.into_iter().map(|r| r.rule));
                        extra.rules = keep;
                    }
                    list.extend(extra);
                }
                (Parsed::Paths(list), Parsed::Paths(extra)) => {
                    for (pattern, rule) in extra {
                        let loosens = file == RuleFile::SafePaths || pattern.negated;
                        if loosens && !trusted {
                            suspended.push(rule);
                        } else {
                            list.push((pattern, rule));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn parsed(&self, file: RuleFile) -> &Parsed {
        let slot = &self.files[file as usize];
        slot.parsed.get_or_init(|| {
            parse_file(
                file,
                &slot.origin,
                Lines::Bundled,
                self.home.as_deref(),
                false,
                Layer::Home,
                None,
            )
            .0
        })
    }

    fn commands(&self, file: RuleFile) -> &RuleList {
        match self.parsed(file) {
            Parsed::Commands(list) => list,
            Parsed::Paths(_) => unreachable!("{} holds commands", file.name()),
        }
    }

    fn paths(&self, file: RuleFile) -> &[(PathPattern, RuleRef)] {
        match self.parsed(file) {
            Parsed::Paths(list) => list,
            Parsed::Commands(_) => unreachable!("{} holds paths", file.name()),
        }
    }

    /// `hard_block_commands.txt`
    pub fn hard_block(&self) -> &RuleList {
        self.commands(RuleFile::HardBlock)
    }

    /// `safe_commands.txt` (positive and `!` lines)
    pub fn safe(&self) -> &RuleList {
        self.commands(RuleFile::Safe)
    }

    /// `conditional_block_commands.txt`
    pub fn conditional(&self) -> &RuleList {
        self.commands(RuleFile::ConditionalBlock)
    }

    /// `safe_paths.txt`
    pub fn safe_paths(&self) -> &[(PathPattern, RuleRef)] {
        self.paths(RuleFile::SafePaths)
    }

    /// `excluded_paths.txt`
    pub fn excluded_paths(&self) -> &[(PathPattern, RuleRef)] {
        self.paths(RuleFile::ExcludedPaths)
    }

    /// `credential_paths.txt`
    pub fn credential_paths(&self) -> &[(PathPattern, RuleRef)] {
        self.paths(RuleFile::CredentialPaths)
    }

    /// `protected_paths.txt`, relative to a project root.
    pub fn protected_paths(&self) -> &[(PathPattern, RuleRef)] {
        self.paths(RuleFile::ProtectedPaths)
    }

    /// Compiles every command rule and reports each that fails, plus the load errors.
    pub fn lint(&self) -> Vec<RuleError> {
        let mut errors = self.errors.clone();
        for r in self
            .hard_block()
            .iter()
            .chain(self.safe())
            .chain(self.conditional())
        {
            if let Err(e) = r.compile() {
                let file = if r.rule.origin == "bundled" {
                    format!("{} (bundled)", r.rule.file)
                } else {
                    r.rule.origin.to_string()
                };
                errors.push(RuleError {
                    file,
                    line: r.rule.line,
                    message: format!("bad regex: {e}"),
                });
            }
        }
        errors.extend(self.specs.lint());
        errors.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        errors.dedup();
        errors
    }
}

/// Which layer a rule file belongs to: SENTINEL_HOME (or the bundled default), or a project's
/// `.sentinel/` directory rooted at the given path.
#[derive(Clone, Copy)]
enum Layer<'a> {
    Home,
    Project(&'a Path),
}

/// Compiles a person's or a project's rule file (`text`, whose SHA-256 is `content`) into the
/// image its rules are built from, through the cache when there is one: a cached image of this
/// content skips each line's regex check and prefilter extraction; anything else in the cache
/// (damaged, another version) is a miss, and the image compiled afresh is written back. `stat`
/// is the file's stat taken before it was read (a file in SENTINEL_HOME), recorded for the stat
/// fast path of [`Rules::load`].
#[allow(clippy::too_many_arguments)]
fn compile_written(
    file: RuleFile,
    origin: &str,
    text: &str,
    content: &[u8; 32],
    home: Option<&Path>,
    layer: Layer,
    cache: Option<&Path>,
    stat: Option<cache::Stat>,
) -> Option<&'static cache::Image<'static>> {
    let id = cache_id(file, origin, home, layer);
    if let Some(image) = cache.and_then(|dir| cache::by_content(dir, &id, content, stat)) {
        return Some(image);
    }
    // A person's file may be the bundled text, a copy an install seeded, and has `off:` lines
    // (SPEC 2.1); a project's lines are all its own.
    let (kind, text, off) = match layer {
        Layer::Home if text == file.bundled() => (cache::Kind::Bundled, String::new(), Vec::new()),
        Layer::Home if layers::is_seeded(file, &hex(content)) => {
            (cache::Kind::Seeded, String::new(), Vec::new())
        }
        Layer::Home => {
            let (text, off) = layers::take_off_lines(text);
            (cache::Kind::Own, text, off)
        }
        Layer::Project(_) => (cache::Kind::Own, text.to_string(), Vec::new()),
    };
    let (.., found) = parse_file(file, origin, Lines::Text(&text), home, true, layer, None);
    let (lines, literals) = found?;
    let image = cache::Image {
        kind,
        origin,
        off: off.iter().map(|(l, p)| (*l as u32, p.as_str())).collect(),
        lines,
        literals: literals.iter().map(Vec::as_slice).collect(),
    };
    if let Some(dir) = cache {
        cache::store(dir, &id, content, stat, &image);
    }
    cache::reload(&id, content, &image)
}

/// Which rule file a cache file is for.
fn cache_id(file: RuleFile, origin: &str, home: Option<&Path>, layer: Layer) -> [u8; 32] {
    let layer = match layer {
        Layer::Home => Cow::Borrowed(&b"home"[..]),
        Layer::Project(root) => {
            Cow::Owned([b"project:", root.as_os_str().as_encoded_bytes()].concat())
        }
    };
    cache::id(file.name(), &layer, home, origin)
}

/// Lower-case hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A SHA-256 given in hex.
fn unhex(hex: &str) -> Option<[u8; 32]> {
    let mut out = [0; 32];
    (hex.len() == 64).then_some(())?;
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// A rule file whose image could not be made (never expected): its rules are missing, so the
/// load has an error, and local allows become `ask`.
fn not_compiled(origin: &str) -> RuleError {
    RuleError {
        file: origin.to_string(),
        line: 0,
        message: "could not be compiled".into(),
    }
}

/// A person's rule file as `Rules::load` found it.
enum Source {
    /// Exactly the bundled text (or absent).
    Bundled,
    /// Its text, and its stat before it was read.
    Text(String, Option<cache::Stat>),
    /// Its image from the cache (the stat fast path).
    Image(&'static cache::Image<'static>),
}

/// Where a file's rule lines come from: the build's tables (the bundled file), a text, or a
/// compiled image (whose strings live as long as the process: the rules borrow them).
#[derive(Clone, Copy)]
enum Lines<'t> {
    Bundled,
    Text(&'t str),
    Image(&'static cache::Image<'static>),
}

/// What a parse of a text found for each line, for its image: the lines, and the prefilter
/// literals they point into.
type FoundLines<'t> = (Vec<cache::Line<'t>>, Vec<Vec<u8>>);

/// Parses one rule file: the bundled file from the build's tables (no text to read, no regex or
/// prefilter to compute), a text, or an image. `validate` checks each regex's syntax (a user's
/// file); the build checked the bundled ones. Relative paths in a project's path lists are
/// relative to the project. An image gives what an earlier parse found for each line (a line
/// whose entry does not fit the file is parsed afresh); the third result is what the parse of a
/// text found for each line, for its image. The rules follow those of `onto` when it is given
/// (a person's after the bundled: no copy of either).
fn parse_file<'t>(
    file: RuleFile,
    origin: &str,
    source: Lines<'t>,
    home: Option<&Path>,
    validate: bool,
    layer: Layer,
    onto: Option<Parsed>,
) -> (Parsed, Vec<RuleError>, Option<FoundLines<'t>>) {
    if matches!(source, Lines::Bundled) && file.is_path_list() && onto.is_none() {
        return (bundled_paths(file, origin, home), Vec::new(), None);
    }
    let text = match source {
        Lines::Text(t) => Some(t),
        _ => None,
    };
    let image = match source {
        Lines::Image(image) => Some(image),
        _ => None,
    };
    let mut found = Vec::new();
    let mut literals: Vec<Vec<u8>> = Vec::new();
    let mut errors = Vec::new();
    let (mut commands, mut paths) = match onto {
        Some(Parsed::Commands(list)) => (list, Vec::new()),
        Some(Parsed::Paths(list)) => (RuleList::default(), list),
        None => (RuleList::default(), Vec::new()),
    };
    let more = image.map_or(0, |i| i.lines.len());
    commands
        .rules
        .reserve(if file.is_path_list() { 0 } else { more });
    paths.reserve(if file.is_path_list() { more } else { 0 });
    let display = if origin == "bundled" {
        format!("{} (bundled)", file.name())
    } else {
        origin.to_string()
    };
    let label: Cow<'static, str> = match layer {
        Layer::Home => Cow::Borrowed(file.name()),
        Layer::Project(_) => Cow::Borrowed(file.project_name()),
    };
    let origin_ref: Cow<'static, str> = match (origin, image) {
        ("bundled", _) => Cow::Borrowed("bundled"),
        (_, Some(image)) => Cow::Borrowed(image.origin),
        (o, None) => Cow::Owned(o.to_string()),
    };
    type Item<'t> = (
        usize,
        &'t str,
        Option<&'t str>,
        Option<(usize, &'static bundled::Line)>,
        Option<&'static cache::Line<'static>>,
    );
    let built = match source {
        Lines::Bundled => bundled::lines(file),
        _ => &[],
    };
    let first = bundled::first(file);
    let built = built.iter().enumerate().map(|(i, l)| -> Item<'_> {
        (
            l.line as usize,
            bundled::text(l.pattern),
            l.why.map(bundled::text),
            Some((first + i, l)),
            None,
        )
    });
    let written = text
        .unwrap_or("")
        .lines()
        .enumerate()
        .filter_map(|(i, raw)| {
            split_line(raw).map(|(pattern, why)| -> Item<'_> { (i + 1, pattern, why, None, None) })
        });
    let cached = image
        .map_or(&[][..], |i| &i.lines[..])
        .iter()
        .map(|l| -> Item<'_> { (l.line as usize, l.pattern, l.why, None, Some(l)) });
    for (line, pattern, why, compiled, cached) in built.chain(written).chain(cached) {
        // The rule's strings: the build's or the image's (no copy), or the text's.
        let rule = RuleRef {
            file: label.clone(),
            line,
            origin: origin_ref.clone(),
            pattern: match (compiled, cached) {
                (Some((_, l)), _) => Cow::Borrowed(bundled::text(l.pattern)),
                (None, Some(l)) => Cow::Borrowed(l.pattern),
                (None, None) => Cow::Owned(pattern.to_string()),
            },
            why: match (compiled, cached) {
                (Some((_, l)), _) => l.why.map(|w| Cow::Borrowed(bundled::text(w))),
                (None, Some(l)) => l.why.map(Cow::Borrowed),
                (None, None) => why.map(|w| Cow::Owned(w.to_string())),
            },
        };
        let error = |message: String| RuleError {
            file: display.clone(),
            line,
            message,
        };
        // What the image says of this line, when it fits the file (else it is parsed afresh).
        let hint = cached.map(|l| &l.found).filter(|f| match f {
            cache::Found::Error(_) => true,
            cache::Found::Command { .. } => !file.is_path_list(),
            cache::Found::Path => file.is_path_list(),
        });
        let mut note = |f: cache::Found<'static>| {
            if text.is_some() {
                found.push(cache::Line {
                    line: line as u32,
                    pattern,
                    why,
                    found: f,
                });
            }
        };
        match file {
            RuleFile::HardBlock | RuleFile::ConditionalBlock | RuleFile::Safe => {
                let negated = file == RuleFile::Safe && pattern.starts_with('!');
                let whole = file == RuleFile::Safe;
                if compiled.is_some() {
                    commands.push(CommandRule::new(rule, negated, whole, compiled));
                    continue;
                }
                let filters = match (hint, image) {
                    (
                        Some(&cache::Found::Command {
                            anchored,
                            prefixes,
                            required,
                        }),
                        Some(image),
                    ) => Ok((
                        Literals::Slices(image.literals(prefixes)),
                        anchored,
                        Literals::Slices(image.literals(required)),
                    )),
                    (Some(cache::Found::Error(message)), _) => Err(message.to_string()),
                    _ => command_filters(file, pattern, whole, validate).map(
                        |(prefixes, anchored, required)| {
                            let mut span = |l: Vec<Vec<u8>>| {
                                let first = literals.len() as u32;
                                literals.extend(l.iter().cloned());
                                ((first, l.len() as u32), Literals::Owned(l))
                            };
                            let (p, prefixes) = span(prefixes);
                            let (r, required) = span(required);
                            note(cache::Found::Command {
                                anchored,
                                prefixes: p,
                                required: r,
                            });
                            (prefixes, anchored, required)
                        },
                    ),
                };
                match filters {
                    Ok(filters) => {
                        commands.push(CommandRule::written(rule, negated, whole, filters));
                    }
                    Err(message) => {
                        note(cache::Found::Error(Cow::Owned(message.clone())));
                        errors.push(error(message));
                    }
                }
            }
            RuleFile::ProtectedPaths
            | RuleFile::SafePaths
            | RuleFile::ExcludedPaths
            | RuleFile::CredentialPaths => {
                if !file.allows_exceptions() && pattern.starts_with('!') {
                    let message = format!("`!` exceptions are not allowed in {}", file.name());
                    note(cache::Found::Error(Cow::Owned(message.clone())));
                    errors.push(error(message));
                    continue;
                }
                let parse = || {
                    if file == RuleFile::ProtectedPaths {
                        // Relative to whichever project a call is in: kept as a glob over the
                        // path below the project root.
                        return PathPattern::parse_relative(pattern);
                    }
                    let anchored = match layer {
                        Layer::Project(root) => relative_to(pattern, root),
                        Layer::Home => None,
                    };
                    let case_insensitive = file != RuleFile::SafePaths;
                    PathPattern::parse(
                        anchored.as_deref().unwrap_or(pattern),
                        home,
                        case_insensitive,
                    )
                };
                // A cached line's glob was built when it was written: not built again.
                let parsed = match hint {
                    Some(cache::Found::Error(message)) => Err(message.to_string()),
                    Some(cache::Found::Path) => parse(),
                    _ => parse().and_then(|p| checked(p, validate)),
                };
                match parsed {
                    Ok(p) => {
                        note(cache::Found::Path);
                        paths.push((p, rule));
                    }
                    Err(e) => {
                        note(cache::Found::Error(Cow::Owned(e.clone())));
                        errors.push(error(e));
                    }
                }
            }
        }
    }
    let parsed = match file {
        f if f.is_path_list() => Parsed::Paths(paths),
        _ => {
            commands.index();
            Parsed::Commands(commands)
        }
    };
    let found = text.map(|_| (found, literals));
    (parsed, errors, found)
}

/// A bundled path list from the build's table: each line as the build read it, with the home
/// directory put into its `~` lines (left out without a home, as a bad line of a bundled file
/// is: the build checked the rest). Nothing is parsed or copied but those lines' paths.
fn bundled_paths(file: RuleFile, origin: &str, home: Option<&Path>) -> Parsed {
    let home = home.map(crate::paths::Home::new);
    let origin: Cow<'static, str> = match origin {
        "bundled" => Cow::Borrowed("bundled"),
        o => Cow::Owned(o.to_string()),
    };
    let lines = bundled::lines(file);
    let mut paths = Vec::with_capacity(lines.len());
    for l in lines {
        let Some(b) = &l.path else {
            continue;
        };
        let pattern = bundled::text(l.pattern);
        let case_insensitive = file != RuleFile::SafePaths;
        let Ok(p) = PathPattern::read(
            Cow::Borrowed(pattern),
            b.scanned(),
            home.as_ref(),
            case_insensitive,
        ) else {
            continue;
        };
        let rule = RuleRef {
            file: Cow::Borrowed(file.name()),
            line: l.line as usize,
            origin: origin.clone(),
            pattern: Cow::Borrowed(pattern),
            why: l.why.map(|w| Cow::Borrowed(bundled::text(w))),
        };
        paths.push((p, rule));
    }
    Parsed::Paths(paths)
}

/// A command rule line's prefilter (prefixes, anchored, required), or what is wrong with it.
/// `validate` checks the regex's syntax (a person's file; the build checked the bundled ones).
fn command_filters(
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

/// A path-list line with its glob built now when `validate` (a person's file), so a bad glob
/// is reported at load; bundled lines are checked by the tests.
fn checked(p: PathPattern, validate: bool) -> Result<PathPattern, String> {
    if validate {
        p.check()?;
    }
    Ok(p)
}

/// A project's relative path entry made absolute under the project root (`!` kept).
fn relative_to(pattern: &str, root: &Path) -> Option<String> {
    let (bang, body) = match pattern.strip_prefix('!') {
        Some(rest) => ("!", rest.trim()),
        None => ("", pattern),
    };
    let absolute = body.starts_with(['/', '~', '$', '*']) || crate::paths::is_windows_path(body);
    (!absolute).then(|| format!("{bang}{}/{}", root.display(), body.trim_start_matches("./")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefilter_reads_escapes_and_counts_as_regex_syntax_does() {
        // The old hand-written filter took the `2` of `{2}` and the `41` of `\x41` as text.
        for (pattern, text) in [
            (r"^deploy v\d{2}( |$)", "deploy v12"),
            (r"^wipe \x41LL", "wipe ALL"),
            (r"^a{2}b", "aab"),
            (r"(?i)^drop", "DROP table"),
            (r"^(git|hub) x", "hub x"),
            (r"^\x{41}\u{42}", "AB"),
            (r"(^|\| )curl", "x | curl"),
            (r"^(?:ls)", "ls"),
        ] {
            let rule = CommandRule::new(
                RuleRef {
                    file: "t".into(),
                    line: 1,
                    origin: "t".into(),
                    pattern: pattern.into(),
                    why: None,
                },
                false,
                false,
                None,
            );
            assert_eq!(rule.test(text), RuleMatch::Yes, "{pattern} on {text}");
            let mut list = RuleList::default();
            list.push(rule);
            list.index();
            assert_eq!(
                list.candidates(text).count(),
                1,
                "{pattern} indexed for {text}"
            );
        }
    }

    #[test]
    fn the_build_time_tables_are_what_the_runtime_computes_from_the_text() {
        for file in RuleFile::ALL {
            let lines: Vec<(usize, &str, Option<&str>)> = file
                .bundled()
                .lines()
                .enumerate()
                .filter_map(|(i, raw)| split_line(raw).map(|(p, w)| (i + 1, p, w)))
                .collect();
            let built: Vec<(usize, &str, Option<&str>)> = bundled::lines(file)
                .iter()
                .map(|l| {
                    (
                        l.line as usize,
                        bundled::text(l.pattern),
                        l.why.map(bundled::text),
                    )
                })
                .collect();
            assert_eq!(lines, built, "{}", file.name());
            if file.is_path_list() {
                continue;
            }
            for l in bundled::lines(file) {
                let at = format!("{}:{}", file.name(), l.line);
                let body = bundled::text(l.pattern).trim_start_matches('!').trim();
                let pattern = compiled_pattern(body, file == RuleFile::Safe);
                assert_eq!(pattern, bundled::text(l.compiled), "{at}");
                let (lits, anchored, required) = literal_filters(&pattern);
                let spans = |(start, n): (u32, u32)| {
                    Literals::Static(&bundled::SPANS[start as usize..(start + n) as usize])
                        .iter()
                        .map(<[u8]>::to_vec)
                        .collect::<Vec<_>>()
                };
                assert_eq!(anchored, l.anchored, "{at}");
                assert_eq!(lits, spans(l.prefixes), "{at}");
                assert_eq!(required, spans(l.required), "{at}");
                // Every bundled rule has its DFA: none is left to compile at run time.
                assert!(l.dfa.is_some(), "{at}: no DFA");
            }
        }
    }

    /// Both corpora's simple commands and pipelines, and strings made from them.
    fn corpus_texts() -> Vec<String> {
        let corpus = include_str!("../../tests/corpus/sentinel-cases.jsonl");
        let peer = include_str!("../../tests/corpus/peer-cases.jsonl");
        let texts: Vec<String> = corpus
            .lines()
            .chain(peer.lines())
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .flat_map(|v| {
                let c = crate::shell::analyse(v["command"].as_str().unwrap());
                let mut t: Vec<String> = c.commands.iter().map(|c| c.text()).collect();
                t.extend(c.pipelines);
                t
            })
            .collect();
        let mut texts = texts;
        // Generated strings: each text cut at every word, upper-cased, and with noise around it.
        let base = texts.clone();
        for t in &base {
            let words: Vec<&str> = t.split(' ').collect();
            for i in 1..words.len().min(6) {
                texts.push(words[i..].join(" "));
                texts.push(words[..i].join(" "));
            }
            texts.push(t.to_ascii_uppercase());
            texts.push(format!("x | {t}"));
            texts.push(format!("{t} | sh"));
        }
        texts.extend(
            [
                "Remove-Item -Recurse -Force C:\\",
                "FORMAT-VOLUME -DriveLetter D",
                "PSQL -c DROP TABLE x",
            ]
            .map(String::from),
        );
        texts
    }

    #[test]
    fn a_whole_list_automaton_matches_exactly_where_one_of_its_rules_does() {
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        let texts = corpus_texts();
        let lists = [rules.hard_block(), rules.safe(), rules.conditional()];
        let mut covered = 0;
        for (g, &(start, end, _)) in bundled::GROUPS.iter().enumerate() {
            let d = bundled::group(g).expect("the automaton loads");
            let res: Vec<Regex> = (start..end)
                .map(|i| compile(bundled::text(bundled::LINES[i as usize].compiled)).unwrap())
                .collect();
            covered += res.len();
            for t in &texts {
                let any = res.iter().any(|r| r.is_match(t.as_bytes()));
                assert_eq!(dfa_match(d, t), Some(any), "automaton {g} on {t}");
            }
        }
        // Every command list of more than one rule has its automata (the build's size cap
        // splits a list, and never leaves all of it to its rules).
        let rule_count: usize = lists.iter().map(|l| l.len()).sum();
        assert!(
            covered > rule_count / 2,
            "{covered} of {rule_count} rules covered"
        );
        // The first rule found, as `decide` asks for it, is the first of the file that matches.
        for list in lists {
            let res: Vec<Regex> = list
                .iter()
                .map(|r| compile(&r.compiled_pattern()).unwrap())
                .collect();
            for t in &texts {
                let expected = res.iter().position(|r| r.is_match(t.as_bytes()));
                let found = list
                    .candidates(t)
                    .find(|r| r.test(t) == RuleMatch::Yes)
                    .map(|r| list.iter().position(|c| std::ptr::eq(c, r)).unwrap());
                assert_eq!(found, expected, "{t}");
            }
        }
    }

    #[test]
    fn the_prefilter_never_skips_a_rule_that_matches() {
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        let texts = corpus_texts();
        // Wherever the regex matches, the filter must let it through, and the first-byte
        // index must offer the rule for that text. The rule's test (prefilter, then the
        // build's DFA) answers as the regex does: never a match where it has none, never a miss.
        for list in [rules.hard_block(), rules.safe(), rules.conditional()] {
            for r in list {
                assert!(r.dfa.is_some(), "{} has no DFA", r.rule.pattern);
                let re = compile(&r.compiled_pattern()).unwrap();
                for t in &texts {
                    let expected = if re.is_match(t.as_bytes()) {
                        RuleMatch::Yes
                    } else {
                        RuleMatch::No
                    };
                    assert_eq!(r.test(t), expected, "{} on {t}", r.rule.pattern);
                    if expected == RuleMatch::Yes {
                        assert!(
                            list.candidates(t).any(|c| std::ptr::eq(c, r)),
                            "{} not indexed for {t}",
                            r.rule.pattern
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_projects_rule_files_are_named_under_its_directory() {
        for file in RuleFile::ALL {
            let name = format!("{}/{}", crate::config::PROJECT_DIR, file.name());
            assert_eq!(file.project_name(), name);
        }
    }

    #[test]
    fn comments_and_blank_lines() {
        assert_eq!(split_line("  # hi"), None);
        assert_eq!(split_line(""), None);
        assert_eq!(
            split_line("^ls( .*)?   # list"),
            Some(("^ls( .*)?", Some("list")))
        );
        assert_eq!(split_line("^a[#]b"), Some(("^a[#]b", None)));
    }

    #[test]
    fn bad_lines_are_reported_with_file_and_line() {
        let rules = Rules::from_sources(
            [
                (
                    RuleFile::HardBlock,
                    "/h/hard_block_commands.txt",
                    "# c\n^ok\n^(unclosed\n",
                ),
                (RuleFile::SafePaths, "/h/safe_paths.txt", "relative/path\n"),
            ],
            None,
        );
        let errors: Vec<String> = rules.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].starts_with("/h/hard_block_commands.txt:3: bad regex"),
            "{errors:?}"
        );
        assert!(errors[1].starts_with("/h/safe_paths.txt:1: "), "{errors:?}");
        // The person's good line is added to the bundled rules.
        let bundled = Rules::bundled(None).hard_block().len();
        assert_eq!(rules.hard_block().len(), bundled + 1);
    }

    #[test]
    fn a_persons_file_adds_to_the_bundled_rules_and_switches_off_by_pattern() {
        let bundled = Rules::bundled(None);
        let first = bundled.hard_block().iter().next().unwrap().rule.clone();
        let text = format!("^deploy prod\noff: {}\noff: ^no such rule\n", first.pattern);
        let rules = Rules::from_sources(
            [(
                RuleFile::HardBlock,
                "/h/hard_block_commands.txt",
                text.as_str(),
            )],
            None,
        );
        assert!(rules.errors.is_empty(), "{:?}", rules.errors);
        let list = rules.hard_block();
        assert_eq!(list.len(), bundled.hard_block().len());
        assert!(list.iter().any(|r| r.rule.pattern == "^deploy prod"));
        assert!(!list.iter().any(|r| r.rule.pattern == first.pattern));
        // The rest of the bundled rules still apply, with their bundled file and line.
        let second = bundled.hard_block().iter().nth(1).unwrap();
        assert!(list.iter().any(|r| r.rule.pattern == second.rule.pattern
            && r.rule.origin == "bundled"
            && r.rule.line == second.rule.line));
        let layer = &rules.layers[0];
        assert_eq!(layer.added, vec![(1, Cow::from("^deploy prod"))]);
        assert_eq!(
            layer.switched_off,
            vec![(2, first.line, first.pattern.to_string())]
        );
        assert_eq!(layer.unmatched_off, vec![(3, "^no such rule".to_string())]);
    }

    #[test]
    fn an_untouched_seeded_copy_is_not_a_customisation() {
        // Every bundled file as shipped now is a known seeded version (rules/seeded_versions.py
        // regenerates the list), so a copy of it is ignored.
        for file in RuleFile::ALL {
            assert!(
                layers::is_seeded_copy(file, file.bundled()),
                "{}",
                file.name()
            );
        }
        // An older seeded safe_commands.txt (with lines the command model replaced) is ignored
        // as a whole: none of its lines is a rule.
        let old = "^ls( |$)\n";
        assert!(!layers::is_seeded_copy(RuleFile::Safe, old));
        let edited = format!("{}^mytool --check\n", RuleFile::Safe.bundled());
        assert!(!layers::is_seeded_copy(RuleFile::Safe, &edited));
    }

    /// Homes a path list is read with: the usual, and ones `~` lines cannot simply be
    /// appended to (the root, a trailing slash, glob characters, a `.` component, relative).
    const HOMES: [Option<&str>; 8] = [
        None,
        Some("/home/u"),
        Some("/"),
        Some("/home/u/"),
        Some("/h/[x]{a,b}"),
        Some("/home/./u"),
        Some("C:/Users/u"),
        Some("rel/u"),
    ];

    const PATH_LISTS: [RuleFile; 4] = [
        RuleFile::SafePaths,
        RuleFile::ExcludedPaths,
        RuleFile::CredentialPaths,
        RuleFile::ProtectedPaths,
    ];

    #[test]
    fn the_built_path_lists_are_the_lists_read_from_the_text() {
        for home in HOMES {
            let h = home.map(Path::new);
            let rules = Rules::bundled(h);
            for file in PATH_LISTS {
                let ci = file != RuleFile::SafePaths;
                let lines: Vec<(usize, &str)> = file
                    .bundled()
                    .lines()
                    .enumerate()
                    .filter_map(|(i, raw)| split_line(raw).map(|(p, _)| (i + 1, p)))
                    .collect();
                let read = |slowly: bool| -> Vec<(usize, String)> {
                    lines
                        .iter()
                        .filter_map(|&(line, p)| {
                            let parsed = match (file, slowly) {
                                (RuleFile::ProtectedPaths, _) => PathPattern::parse_relative(p),
                                (_, false) => PathPattern::parse(p, h, ci),
                                (_, true) => PathPattern::parse_slowly(p, h, ci),
                            };
                            // A `~` line without a home is left out, as the bundled list does.
                            parsed.ok().map(|p| (line, p.fingerprint(!slowly)))
                        })
                        .collect()
                };
                let built = |with_mask: bool| -> Vec<(usize, String)> {
                    rules
                        .paths(file)
                        .iter()
                        .map(|(p, r)| (r.line, p.fingerprint(with_mask)))
                        .collect()
                };
                let at = format!("{} with home {home:?}", file.name());
                assert_eq!(built(true), read(false), "{at}");
                // Appending a `~` line to a plain home is what expanding it in full gives.
                assert_eq!(built(false), read(true), "{at}");
            }
        }
    }

    /// Paths to try the path lists on: every word of the corpora resolved, and around every
    /// line of the lists, the path it names, below it, above it, in other cases and spellings.
    fn sample_paths(home: &str) -> Vec<PathBuf> {
        let cwd = Path::new("/home/u/proj");
        let h = Some(Path::new(home));
        let corpus = include_str!("../../tests/corpus/sentinel-cases.jsonl");
        let peer = include_str!("../../tests/corpus/peer-cases.jsonl");
        let mut texts: Vec<String> = corpus
            .lines()
            .chain(peer.lines())
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .flat_map(|v| {
                let c = crate::shell::analyse(v["command"].as_str().unwrap());
                c.commands
                    .iter()
                    .flat_map(|c| c.argv.iter().map(|w| w.text.clone()))
                    .collect::<Vec<_>>()
            })
            .flat_map(|w| w.split(['=', '@']).map(String::from).collect::<Vec<_>>())
            .collect();
        for file in PATH_LISTS {
            for (p, _) in file.bundled().lines().filter_map(split_line) {
                let p = p.trim_start_matches('!').trim();
                let named = p
                    .replace("**/", "deep/er/")
                    .replace('*', "x")
                    .replace('?', "C")
                    .replace("{rs,", "{")
                    .replace(['{', '}'], "")
                    .replace(",py,ts,tsx,js,jsx,mjs,cjs,go,java,kt,rb,php,cs,swift,c,h,cpp,md,rst,txt,html,css,scss", "");
                for t in [p.to_string(), named] {
                    texts.push(format!("{t}/child"));
                    texts.push(t.to_ascii_uppercase());
                    texts.push(format!("{t}x"));
                    texts.push(t.replace('/', "//"));
                    texts.push(t.replace('/', "/./"));
                    texts.push(t.rsplit_once('/').map_or(String::new(), |(a, _)| a.into()));
                    texts.push(format!("~/proj/{t}"));
                    texts.push(t.replace('/', "\\"));
                    texts.push(t);
                }
            }
        }
        texts.extend(
            [
                "/",
                "C:\\Windows\\System32\\x.dll",
                "c:/users/bob/appdata/roaming",
                "/dev/null",
                "/dev/fd/3",
                "/proc/1/task/2/environ",
                "/home/u/.ssh/id_rsa.pub",
                "/home/u/src/credentials",
                "/p/src/a/credentials",
                "/p/secrets/x.py",
                "/p/client_secret.json",
            ]
            .map(String::from),
        );
        let mut out: Vec<PathBuf> = Vec::new();
        for t in &texts {
            if let Some(p) = crate::paths::resolve(t, cwd, h) {
                // Relative to the project too, as the protected list is asked.
                if let Ok(rel) = p.strip_prefix(cwd) {
                    out.push(rel.to_path_buf());
                }
                out.push(p);
            }
            // As written, unresolved (`a//b`, `./x`, relative names).
            out.push(PathBuf::from(t));
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn the_byte_pair_masks_never_change_an_answer() {
        let persons = "/a//b\n/x/./y\n~/notes*\n~/.cache\nC:\\Tools\n/srv/[ab]*/{c,d}\n/opt/?\n";
        for home in ["/home/u", "/", "/h/[x]{a,b}"] {
            let h = Some(Path::new(home));
            let bundled = Rules::bundled(h);
            let person = Rules::from_sources(
                [
                    (RuleFile::SafePaths, "/h/safe_paths.txt", persons),
                    (RuleFile::ExcludedPaths, "/h/excluded_paths.txt", persons),
                ],
                h,
            );
            let paths = sample_paths(home);
            assert!(paths.len() > 2_000, "{}", paths.len());
            let mut matched = 0;
            for rules in [&bundled, &person] {
                for file in PATH_LISTS {
                    let list = rules.paths(file);
                    for path in &paths {
                        let probe = crate::paths::Probe::new(path);
                        for (p, r) in list {
                            let plain = p.matches_plainly(&probe);
                            matched += usize::from(plain);
                            assert_eq!(p.matches_probe(&probe), plain, "{r} on {path:?}");
                        }
                        let line = |m: Option<&RuleRef>| m.map(|r| r.line);
                        assert_eq!(
                            line(crate::paths::list_matches(list, path)),
                            line(crate::paths::list_matches_plainly(list, path)),
                            "{} on {path:?}",
                            file.name()
                        );
                    }
                }
            }
            // The sample reaches the lines: a test that matched nothing would prove nothing.
            assert!(matched > 1_000, "{matched}");
        }
    }

    #[test]
    fn every_bundled_path_glob_builds() {
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        for list in [
            rules.safe_paths(),
            rules.excluded_paths(),
            rules.credential_paths(),
            rules.protected_paths(),
        ] {
            for (p, r) in list {
                assert_eq!(p.check(), Ok(()), "{r}");
            }
        }
    }

    #[test]
    fn every_bundled_rule_compiles() {
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        assert_eq!(rules.lint(), Vec::<RuleError>::new());
        assert!(rules.hard_block().len() > 20);
    }
}
