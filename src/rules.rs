//! Rule files: loading the five lists from SENTINEL_HOME (or the bundled defaults) and matching.
//!
//! Command rules are regexes over a simple command as [`crate::shell::SimpleCommand::text`]
//! renders it. A regex is compiled only when a command could match it: each rule that starts
//! with `^literal` is skipped outright for commands that do not start with that literal.

use crate::decision::RuleRef;
use crate::paths::PathPattern;
use crate::shell::one_line;
use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use std::fmt;
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
}

impl RuleFile {
    /// Every rule file, in the order they are loaded.
    pub const ALL: [RuleFile; 5] = [
        RuleFile::HardBlock,
        RuleFile::Safe,
        RuleFile::ConditionalBlock,
        RuleFile::SafePaths,
        RuleFile::ExcludedPaths,
    ];

    /// The file name in SENTINEL_HOME.
    pub fn name(self) -> &'static str {
        match self {
            RuleFile::HardBlock => "hard_block_commands.txt",
            RuleFile::Safe => "safe_commands.txt",
            RuleFile::ConditionalBlock => "conditional_block_commands.txt",
            RuleFile::SafePaths => "safe_paths.txt",
            RuleFile::ExcludedPaths => "excluded_paths.txt",
        }
    }

    /// The default compiled into the binary from `rules/`.
    pub fn bundled(self) -> &'static str {
        match self {
            RuleFile::HardBlock => include_str!("../rules/hard_block_commands.txt"),
            RuleFile::Safe => include_str!("../rules/safe_commands.txt"),
            RuleFile::ConditionalBlock => include_str!("../rules/conditional_block_commands.txt"),
            RuleFile::SafePaths => include_str!("../rules/safe_paths.txt"),
            RuleFile::ExcludedPaths => include_str!("../rules/excluded_paths.txt"),
        }
    }
}

/// A bad line in a rule file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RuleError {
    /// The file as the user knows it: its path, or `name (bundled)`.
    pub file: String,
    /// 1-based line number; 0 when the whole file is unreadable.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// A regex rule over simple commands.
#[derive(Debug)]
pub struct CommandRule {
    /// Where the rule is written.
    pub rule: RuleRef,
    /// A `!` line in the safe list: a command it matches is not safe.
    pub negated: bool,
    /// Literals one of which every matching command starts with (empty: no constraint).
    prefixes: Vec<String>,
    /// Literals every matching command contains.
    required: Vec<String>,
    /// The pattern starts with `(?i)`: the literals above are lower case, compare likewise.
    ignore_case: bool,
    /// The pattern as compiled (safe rules are anchored to the whole command).
    compiled_pattern: String,
    regex: OnceLock<Result<Regex, String>>,
}

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
    fn new(rule: RuleRef, negated: bool, whole: bool) -> CommandRule {
        let body = rule.pattern.trim_start_matches('!').trim();
        let (compiled_pattern, filter_source) = if whole {
            let inner = body.strip_prefix('^').unwrap_or(body);
            let inner = inner
                .strip_suffix('$')
                .filter(|i| !i.ends_with('\\'))
                .unwrap_or(inner);
            (format!("^(?:{inner})$"), format!("^{inner}"))
        } else {
            (body.to_string(), body.to_string())
        };
        // `(?i)` up front is the one flag the prefilter understands: it compares lower case.
        let (ignore_case, filter_source) = match filter_source.strip_prefix("(?i)") {
            Some(rest) if !rest.contains("(?") => (true, rest.to_ascii_lowercase()),
            _ => (false, filter_source),
        };
        let filter_source = filter_source.replacen("^(?i)", "^", 1);
        CommandRule {
            prefixes: literal_prefixes(&filter_source),
            required: required_literals(filter_source.trim_start_matches('^')),
            ignore_case,
            rule,
            negated,
            compiled_pattern,
            regex: OnceLock::new(),
        }
    }

    /// Tests the rule against a rendered simple command.
    pub fn test(&self, text: &str) -> RuleMatch {
        let lowered;
        let filter_text = if self.ignore_case {
            lowered = text.to_ascii_lowercase();
            lowered.as_str()
        } else {
            text
        };
        if !self.prefixes.is_empty()
            && !self
                .prefixes
                .iter()
                .any(|p| filter_text.starts_with(p.as_str()))
        {
            return RuleMatch::No;
        }
        if !self
            .required
            .iter()
            .all(|lit| filter_text.contains(lit.as_str()))
        {
            return RuleMatch::No;
        }
        let regex = self
            .regex
            .get_or_init(|| compile(&self.compiled_pattern).map_err(|e| e.to_string()));
        match regex {
            Ok(r) if r.is_match(text.as_bytes()) => RuleMatch::Yes,
            Ok(_) => RuleMatch::No,
            Err(e) => RuleMatch::Broken(one_line(e)),
        }
    }

    /// Compiles the rule now (for `rules lint`).
    pub fn compile(&self) -> Result<(), String> {
        match self
            .regex
            .get_or_init(|| compile(&self.compiled_pattern).map_err(|e| e.to_string()))
        {
            Ok(_) => Ok(()),
            Err(e) => Err(one_line(e)),
        }
    }
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

/// Literal runs every match must contain: text at the top level of the pattern (outside groups
/// and classes) that no quantifier makes optional. Empty when the pattern alternates at the top
/// level or sets flags. A sound necessary condition, so a rule whose literals are missing from
/// a command is skipped without compiling it.
fn required_literals(pattern: &str) -> Vec<String> {
    if has_top_level_alternation(pattern) || pattern.contains("(?") {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut run = String::new();
    let mut depth = 0usize;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        let literal = match c {
            '(' => {
                depth += 1;
                None
            }
            ')' => {
                depth = depth.saturating_sub(1);
                None
            }
            '[' => {
                // Skip the class; a `]` right after `[` or `[^` is a member, not the end.
                let mut first = true;
                while let Some(n) = chars.next() {
                    if n == '\\' {
                        chars.next();
                    } else if n == ']' && !first {
                        break;
                    }
                    first = n == '^' && first;
                }
                None
            }
            '\\' => match chars.next() {
                Some(n) if !n.is_ascii_alphanumeric() => Some(n),
                _ => None,
            },
            '.' | '^' | '$' | '|' | '*' | '+' | '?' | '{' | '}' => None,
            c => Some(c),
        };
        let quantified = matches!(chars.peek(), Some('?' | '*' | '{'));
        match literal {
            Some(l) if depth == 0 && !quantified => run.push(l),
            _ => {
                if !run.is_empty() {
                    out.push(std::mem::take(&mut run));
                }
            }
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

/// The literals a pattern anchored with `^` may start with: `git push` for `^git push( .*)?`,
/// `head`, `tail` for `^(head|tail)( .*)?`. Empty when there is no such set (or the pattern
/// alternates at the top level). A shorter prefix than the true one is fine; a wrong one is not.
fn literal_prefixes(pattern: &str) -> Vec<String> {
    let Some(body) = pattern.strip_prefix('^') else {
        return Vec::new();
    };
    if has_top_level_alternation(body) {
        return Vec::new();
    }
    let Some(group) = body.strip_prefix('(') else {
        return leading_literal(body).into_iter().collect();
    };
    if group.starts_with('?') {
        return Vec::new();
    }
    let Some(close) = closing_paren(group) else {
        return Vec::new();
    };
    if group[close + 1..].starts_with(['?', '*', '{']) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for alternative in split_top_level_alternation(&group[..close]) {
        match leading_literal(alternative) {
            Some(l) => out.push(l),
            None => return Vec::new(),
        }
    }
    out
}

/// The literal text at the start of a pattern, up to the first meta character.
fn leading_literal(body: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let lit = match c {
            '\\' => match chars.peek() {
                Some(&n) if !n.is_ascii_alphanumeric() => {
                    chars.next();
                    n
                }
                _ => break,
            },
            c if c.is_alphanumeric() || " _-/=:,@%'\"!~<>&;".contains(c) => c,
            _ => {
                // A quantifier makes the previous character optional or repeatable.
                if matches!(c, '?' | '*' | '{') {
                    out.pop();
                }
                break;
            }
        };
        if matches!(chars.peek(), Some('?' | '*' | '{')) {
            break;
        }
        out.push(lit);
    }
    (!out.is_empty()).then_some(out)
}

/// The structural characters of a pattern: every character outside escapes and `[…]` classes,
/// with the group depth it is at (`)` reports the depth it closes). One walk that the three
/// questions below ask of a pattern.
fn structure(s: &str) -> impl Iterator<Item = (usize, char, usize)> + '_ {
    let (mut depth, mut in_class, mut escaped) = (0usize, false, false);
    s.char_indices().filter_map(move |(i, c)| {
        if escaped {
            escaped = false;
            return None;
        }
        match c {
            '\\' => {
                escaped = true;
                None
            }
            '[' if !in_class => {
                in_class = true;
                None
            }
            ']' if in_class => {
                in_class = false;
                None
            }
            _ if in_class => None,
            '(' => {
                depth += 1;
                Some((i, c, depth - 1))
            }
            ')' => {
                let closed = depth;
                depth = depth.saturating_sub(1);
                Some((i, c, closed))
            }
            _ => Some((i, c, depth)),
        }
    })
}

/// The index of the `)` closing a group whose `(` was just before `s`.
fn closing_paren(s: &str) -> Option<usize> {
    structure(s)
        .find(|&(_, c, depth)| c == ')' && depth == 0)
        .map(|(i, _, _)| i)
}

/// The `|`s of a pattern that are not inside a group or a class.
fn top_level_bars(s: &str) -> impl Iterator<Item = usize> + '_ {
    structure(s)
        .filter(|&(_, c, depth)| c == '|' && depth == 0)
        .map(|(i, _, _)| i)
}

/// Splits a group's body at its own `|`s (not those of nested groups or classes).
fn split_top_level_alternation(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for i in top_level_bars(s) {
        parts.push(&s[start..i]);
        start = i + 1;
    }
    parts.push(&s[start..]);
    parts
}

fn has_top_level_alternation(body: &str) -> bool {
    top_level_bars(body).next().is_some()
}

/// A list of command rules, with each rule also filed under the first byte of each of its literal
/// prefixes, so a command is only tested against rules that could match it.
#[derive(Debug, Default)]
pub struct RuleList {
    rules: Vec<CommandRule>,
    /// For each first byte: the rules filed under it and every rule without a prefix, in order.
    by_first_byte: Vec<Vec<usize>>,
    /// Rules without a literal prefix: tested against every command.
    unindexed: Vec<usize>,
}

impl RuleList {
    fn push(&mut self, rule: CommandRule) {
        self.rules.push(rule);
    }

    /// Builds the index in one pass over the rules; called once the list is complete.
    fn index(&mut self) {
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); 256];
        self.unindexed.clear();
        for (i, r) in self.rules.iter().enumerate() {
            if r.prefixes.is_empty() {
                self.unindexed.push(i);
                continue;
            }
            for p in &r.prefixes {
                let Some(&b) = p.as_bytes().first() else {
                    continue;
                };
                let variants = if r.ignore_case {
                    [b.to_ascii_lowercase(), b.to_ascii_uppercase()]
                } else {
                    [b, b]
                };
                for v in variants {
                    if buckets[v as usize].last() != Some(&i) {
                        buckets[v as usize].push(i);
                    }
                }
            }
        }
        // Each bucket also holds the unindexed rules, merged back into file order.
        self.by_first_byte = buckets
            .into_iter()
            .map(|mut bucket| {
                if bucket.is_empty() {
                    return Vec::new();
                }
                bucket.extend(&self.unindexed);
                bucket.sort_unstable();
                bucket.dedup();
                bucket
            })
            .collect();
    }

    /// The rules that could match `text`, in file order.
    pub fn candidates<'a>(&'a self, text: &str) -> impl Iterator<Item = &'a CommandRule> {
        let ids = match text.as_bytes().first() {
            Some(&b)
                if !self.by_first_byte.is_empty() && !self.by_first_byte[b as usize].is_empty() =>
            {
                &self.by_first_byte[b as usize]
            }
            _ => &self.unindexed,
        };
        ids.iter().map(|&i| &self.rules[i])
    }

    /// Appends another file's rules after these (a project's over SENTINEL_HOME's).
    fn extend(&mut self, other: RuleList) {
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
enum Parsed {
    Commands(RuleList),
    Paths(Vec<(PathPattern, RuleRef)>),
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
    files: [Lazy; 5],
    home: Option<PathBuf>,
    /// Bad lines and unreadable files; any of them turns local ALLOWs into `ask`.
    pub errors: Vec<RuleError>,
    /// Where each file came from: (name, `bundled` or path).
    pub origins: Vec<(String, String)>,
    /// A project's loosening rules held back because the person has not trusted its files.
    pub suspended: Vec<RuleRef>,
}

impl Rules {
    /// Loads the five files from `dir`, each falling back to the bundled default when absent.
    /// `home` expands `~` in path lists.
    pub fn load(dir: &Path, home: Option<&Path>) -> Rules {
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
            match std::fs::read(&path) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => sources.push((file, origin.clone(), Some(text))),
                    Err(_) => errors.push(unreadable("file is not valid UTF-8".into())),
                },
                Err(e) if crate::config::is_absent(&e) => {}
                Err(e) => errors.push(unreadable(format!("cannot read: {e}"))),
            }
        }
        let mut rules = Rules::from_owned_sources(sources, home);
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
            .map(|(f, o, t)| (f, o.to_string(), (t != f.bundled()).then(|| t.to_string())))
            .collect();
        Rules::from_owned_sources(sources, home)
    }

    /// (file, origin, text): None as the text means the bundled default, read from the binary.
    fn from_owned_sources(
        sources: Vec<(RuleFile, String, Option<String>)>,
        home: Option<&Path>,
    ) -> Rules {
        let mut rules = Rules {
            files: std::array::from_fn(|_| Lazy {
                origin: "bundled".into(),
                parsed: OnceLock::new(),
            }),
            home: home.map(Path::to_path_buf),
            errors: Vec::new(),
            origins: Vec::new(),
            suspended: Vec::new(),
        };
        for (file, origin, text) in sources {
            rules
                .origins
                .push((file.name().to_string(), origin.clone()));
            let slot = &mut rules.files[file as usize];
            slot.origin = origin.clone();
            // The bundled text (also what `sentinel install` seeds) is checked by the test suite
            // and parsed on first use; anything else is parsed now, so a bad line is reported
            // at once.
            if let Some(text) = text.filter(|t| t != file.bundled()) {
                let (parsed, errors) = parse_file(file, &origin, &text, home, true, Layer::Home);
                let _ = slot.parsed.set(parsed);
                rules.errors.extend(errors);
            }
        }
        rules
    }

    /// Layers a project's `.sentinel/` rule files over these. Tightening rules always apply; the
    /// loosening ones (safe commands, safe paths, `!` exceptions to excluded paths) only when
    /// `trusted`, and are listed in [`Rules::suspended`] otherwise.
    pub fn add_project(&mut self, project: &crate::project::Project, trusted: bool) {
        for file in RuleFile::ALL {
            let Some(source) = project.rule_text(file) else {
                continue;
            };
            let origin = source.path.display().to_string();
            self.origins.push((
                format!("{}/{}", crate::project::DIR, file.name()),
                origin.clone(),
            ));
            let text = match &source.text {
                Ok(t) => t,
                Err(e) => {
                    self.errors.push(RuleError {
                        file: origin,
                        line: 0,
                        message: e.clone(),
                    });
                    continue;
                }
            };
            let (parsed, errors) = parse_file(
                file,
                &origin,
                text,
                self.home.as_deref(),
                true,
                Layer::Project(&project.root),
            );
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
                file.bundled(),
                self.home.as_deref(),
                false,
                Layer::Home,
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
                    r.rule.origin.clone()
                };
                errors.push(RuleError {
                    file,
                    line: r.rule.line,
                    message: format!("bad regex: {e}"),
                });
            }
        }
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

/// Parses one rule file. `validate` checks each regex's syntax (a user's file); the bundled text
/// is validated by the test suite instead. Relative paths in a project's path lists are relative
/// to the project.
fn parse_file(
    file: RuleFile,
    origin: &str,
    text: &str,
    home: Option<&Path>,
    validate: bool,
    layer: Layer,
) -> (Parsed, Vec<RuleError>) {
    let mut errors = Vec::new();
    let mut commands = RuleList::default();
    let mut paths = Vec::new();
    let display = if origin == "bundled" {
        format!("{} (bundled)", file.name())
    } else {
        origin.to_string()
    };
    let label = match layer {
        Layer::Home => file.name().to_string(),
        Layer::Project(_) => format!("{}/{}", crate::project::DIR, file.name()),
    };
    for (i, raw) in text.lines().enumerate() {
        let Some((pattern, why)) = split_line(raw) else {
            continue;
        };
        let rule = RuleRef {
            file: label.clone(),
            line: i + 1,
            origin: origin.to_string(),
            pattern: pattern.to_string(),
            why: why.map(str::to_string),
        };
        let error = |message: String| RuleError {
            file: display.clone(),
            line: i + 1,
            message,
        };
        match file {
            RuleFile::HardBlock | RuleFile::ConditionalBlock | RuleFile::Safe => {
                let negated = file == RuleFile::Safe && pattern.starts_with('!');
                if pattern.starts_with('!') && file != RuleFile::Safe {
                    errors.push(error(
                        "`!` exceptions are only allowed in safe_commands.txt".into(),
                    ));
                    continue;
                }
                let body = pattern.trim_start_matches('!').trim();
                if body.is_empty() {
                    errors.push(error("empty pattern".into()));
                    continue;
                }
                if validate
                    && let Err(e) = regex_syntax::ParserBuilder::new()
                        .unicode(false)
                        .utf8(false)
                        .build()
                        .parse(body)
                {
                    errors.push(error(format!("bad regex: {}", one_line(&e.to_string()))));
                    continue;
                }
                commands.push(CommandRule::new(rule, negated, file == RuleFile::Safe));
            }
            RuleFile::SafePaths | RuleFile::ExcludedPaths => {
                let excluded = file == RuleFile::ExcludedPaths;
                if !excluded && pattern.starts_with('!') {
                    errors.push(error(
                        "`!` exceptions are only allowed in excluded_paths.txt".into(),
                    ));
                    continue;
                }
                let anchored = match layer {
                    Layer::Project(root) => relative_to(pattern, root),
                    Layer::Home => None,
                };
                match PathPattern::parse(anchored.as_deref().unwrap_or(pattern), home, excluded) {
                    Ok(p) => paths.push((p, rule)),
                    Err(e) => errors.push(error(e)),
                }
            }
        }
    }
    let parsed = match file {
        RuleFile::SafePaths | RuleFile::ExcludedPaths => Parsed::Paths(paths),
        _ => {
            commands.index();
            Parsed::Commands(commands)
        }
    };
    (parsed, errors)
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

/// Splits a rule line into pattern and `# why` comment; None for blank and comment lines.
/// A comment starts at a `#` preceded by whitespace; write `[#]` for a literal one.
fn split_line(raw: &str) -> Option<(&str, Option<&str>)> {
    let line = raw.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let cut = line
        .char_indices()
        .find(|&(i, c)| c == '#' && line[..i].ends_with(char::is_whitespace))
        .map(|(i, _)| i);
    match cut {
        Some(i) => {
            let why = line[i + 1..].trim();
            Some((line[..i].trim(), (!why.is_empty()).then_some(why)))
        }
        None => Some((line, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_prefixes_are_conservative() {
        let p = |s: &str| literal_prefixes(s);
        assert_eq!(p("^git push( .*)?"), ["git push"]);
        assert_eq!(p("^rm( |$)"), ["rm"]);
        assert_eq!(p("^gits?"), ["git"]);
        assert_eq!(p("^git|^hub"), Vec::<String>::new());
        assert_eq!(p("(?i)^drop"), Vec::<String>::new());
        assert_eq!(p("rm"), Vec::<String>::new());
        assert_eq!(p("^\\.\\/x"), ["./x"]);
        assert_eq!(p("^ls\\b"), ["ls"]);
        assert_eq!(p("^(head|tail|wc)( .*)?"), ["head", "tail", "wc"]);
        assert_eq!(p("^(test|\\[)( .*)?"), ["test", "["]);
        assert_eq!(p("^(a|b)?c"), Vec::<String>::new());
        assert_eq!(p("^((ba|z)?sh|eval) x"), Vec::<String>::new());
        assert_eq!(p("^(python[0-9.]*|perl) x"), ["python", "perl"]);
    }

    #[test]
    fn required_literals_are_sound() {
        let lits = |p: &str| required_literals(p);
        assert_eq!(
            lits("^git( \\S+)* push( \\S+)* (--force|-f)( |$)"),
            ["git", " push", " "]
        );
        assert_eq!(lits("^rm( \\S+)* /etc"), ["rm", " /etc"]);
        assert_eq!(lits("ab?c"), ["a", "c"]);
        assert_eq!(lits("a|b"), Vec::<String>::new());
        assert_eq!(lits("(?i)drop"), Vec::<String>::new());
        assert_eq!(lits("x[]a]y\\.z"), ["x", "y.z"]);
        // Wherever the regex matches, the filter must let it through.
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        let corpus = include_str!("../tests/corpus/sentinel-cases.jsonl");
        let texts: Vec<String> = corpus
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .flat_map(|v| {
                let c = crate::shell::analyse(v["command"].as_str().unwrap());
                let mut t: Vec<String> = c.commands.iter().map(|c| c.text()).collect();
                t.extend(c.pipelines);
                t
            })
            .collect();
        let mut texts = texts;
        texts.extend(
            [
                "Remove-Item -Recurse -Force C:\\",
                "FORMAT-VOLUME -DriveLetter D",
                "PSQL -c DROP TABLE x",
            ]
            .map(String::from),
        );
        // …and the first-byte index must offer the rule for that text.
        for list in [rules.hard_block(), rules.safe(), rules.conditional()] {
            for r in list {
                let re = compile(&r.compiled_pattern).unwrap();
                for t in &texts {
                    if re.is_match(t.as_bytes()) {
                        assert_eq!(r.test(t), RuleMatch::Yes, "{} on {t}", r.rule.pattern);
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
        assert_eq!(rules.hard_block().len(), 1);
    }

    #[test]
    fn every_bundled_rule_compiles() {
        let rules = Rules::bundled(Some(Path::new("/home/u")));
        assert_eq!(rules.lint(), Vec::<RuleError>::new());
        assert!(rules.hard_block().len() > 20);
    }
}
