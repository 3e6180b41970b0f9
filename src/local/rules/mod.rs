//! Rule files: loading the five lists from SENTINEL_HOME (or the bundled defaults) and matching.
//!
//! Command rules are regexes over a simple command as [`crate::shell::SimpleCommand::text`]
//! renders it. A regex is compiled only when a command could match it: each rule that starts
//! with `^literal` is skipped outright for commands that do not start with that literal.

use crate::decision::{RuleError, RuleRef};
use crate::local::paths::list::PathList;
use crate::local::rules::scan::{compiled_pattern, literal_filters, split_line};
use crate::paths::PathPattern;
use crate::text::one_line;
use regex_automata::meta::Regex;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Largest rule file read from SENTINEL_HOME (a project's are bounded tighter, see
/// `local::rules::project`).
pub const MAX_HOME_FILE_BYTES: u64 = 16 * 1024 * 1024;

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
    pub const fn name(self) -> &'static str {
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
            RuleFile::HardBlock => include_str!("../../../rules/hard_block_commands.txt"),
            RuleFile::Safe => include_str!("../../../rules/safe_commands.txt"),
            RuleFile::ConditionalBlock => {
                include_str!("../../../rules/conditional_block_commands.txt")
            }
            RuleFile::SafePaths => include_str!("../../../rules/safe_paths.txt"),
            RuleFile::ExcludedPaths => include_str!("../../../rules/excluded_paths.txt"),
            RuleFile::CredentialPaths => include_str!("../../../rules/credential_paths.txt"),
            RuleFile::ProtectedPaths => include_str!("../../../rules/protected_paths.txt"),
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

/// One of a project's rule files as the layering hands it over (`local::rules::project` finds and
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

mod bundled;
pub(crate) mod cache;
mod command;
pub mod layers;
mod parse;
pub mod project;
mod rule_list;
pub mod scan;
#[cfg(test)]
mod tests;

use command::*;
pub use command::{CommandRule, RuleMatch};
use parse::*;
pub use rule_list::RuleList;
use rule_list::*;

/// A rule file's parsed lines.
#[derive(Debug)]
pub(crate) enum Parsed {
    Commands(RuleList),
    Paths(PathList<RuleRef>),
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
            Parsed::Commands(list) => list.iter().skip(from).map(|r| rule(&r.rule)).collect(),
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
    /// The knowledge lists (`rules/signs.txt` …): bundled, with what the person's and the
    /// organisation's files add.
    pub known: crate::local::known::Known,
}

impl Rules {
    /// Loads the rule files from `dir`, each falling back to the bundled default when absent.
    /// `home` expands `~` in path lists.
    pub fn load(dir: &Path, home: Option<&Path>) -> Rules {
        Rules::load_with(dir, home, true)
    }

    /// [`Rules::load`]; the person's `off:` lines switch bundled rules off only when
    /// `allow_off` (the organisation's policy may say they do not).
    pub fn load_with(dir: &Path, home: Option<&Path>, allow_off: bool) -> Rules {
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
                // A FIFO or a device is never opened: it could block or never end.
                Ok(meta) if !meta.is_file() => {
                    errors.push(unreadable(
                        "is not a regular file (a FIFO, a device or a directory): refused".into(),
                    ));
                    continue;
                }
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
            let links = crate::config::files::Links::Follow;
            match crate::config::files::read(&path, MAX_HOME_FILE_BYTES, links) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => sources.push((file, origin.clone(), Source::Text(text, stat))),
                    Err(_) => errors.push(unreadable("file is not valid UTF-8".into())),
                },
                Err(e) if crate::config::is_absent(&e) => {}
                Err(e) => errors.push(unreadable(format!("cannot read: {e}"))),
            }
        }
        let mut rules = Rules::from_owned_sources(sources, home, Some(cache_dir), allow_off);
        rules.specs = crate::local::spec::Specs::load(dir);
        rules.errors.extend(rules.specs.errors.iter().cloned());
        let (known, known_errors) = crate::local::known::Known::load(dir);
        rules.known = known;
        rules.errors.extend(known_errors);
        if allow_off {
            layers::switch_off_spec_denies(&mut rules.layers, &mut rules.specs);
        }
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
        Rules::from_owned_sources(sources, home, None, true)
    }

    /// (file, origin, source).
    fn from_owned_sources(
        sources: Vec<(RuleFile, String, Source)>,
        home: Option<&Path>,
        cache: Option<PathBuf>,
        allow_off: bool,
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
            known: Default::default(),
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
            let off: Vec<(usize, String)> = image
                .off
                .iter()
                .map(|(l, p)| (*l as usize, p.to_string()))
                .collect();
            // Refused by the organisation's policy: every bundled rule stays, and it is said.
            let (off, refused) = match allow_off {
                true => (off, Vec::new()),
                false => (Vec::new(), off),
            };
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
            layer.refused_off = refused
                .into_iter()
                .map(|(l, p)| {
                    let why = "the organisation's policy sets [managed] allow_off = false";
                    (l, p, why.to_string())
                })
                .collect();
            let from = base.len();
            let lines = Lines::Image(image);
            let (merged, errors, _) =
                parse_file(file, &origin, lines, home, true, Layer::Home, Some(base));
            rules.errors.extend(errors);
            layer.added_from = from;
            rules.layers.push(layer);
            let _ = slot.parsed.set(merged);
        }
        rules
    }

    /// Layers a project's `.sentinel/` rule files over these. Tightening rules always apply; the
    /// loosening ones (safe commands, safe paths, `!` exceptions to excluded paths) only when
    /// `trusted`, and are listed in [`Rules::suspended`] otherwise.
    pub fn add_project(&mut self, root: &Path, files: &[ProjectRules], trusted: bool) {
        let cache = self.cache.clone();
        self.add_layer(Layer::Project(root), files, trusted, cache.as_deref());
    }

    /// Layers the organisation's policy over these (after the person's and the projects'):
    /// every line applies, and no `off:` below switches one off. Its files are compiled afresh
    /// each time, never through the person's cache (which the person can write), and a line
    /// `off:` in them is an error (the policy is then broken: every call asks).
    pub fn add_managed(&mut self, managed: &crate::config::managed::Managed) {
        let mut files = Vec::new();
        let mut hashes = Vec::new();
        for file in RuleFile::ALL {
            if let Some(f) = managed.file(file.name()) {
                hashes.push(crate::digest::sha256_hex(f.text.as_bytes()));
                files.push((file, f));
            }
        }
        let origin = |f: &crate::config::managed::ManagedFile| f.path.display().to_string();
        for (file, f) in &files {
            for (i, line) in f.text.lines().enumerate() {
                if line.trim_start().starts_with("off:") {
                    self.errors.push(RuleError {
                        file: origin(f),
                        line: i + 1,
                        message: "a managed file adds rules; it does not switch rules off (`off:`)"
                            .into(),
                    });
                }
            }
            // The person's `off:` of a rule the policy holds too: no effect, and said so.
            let held: Vec<(usize, &str)> = (f.text.lines().enumerate())
                .filter_map(|(i, l)| split_line(l).map(|(p, _)| (i + 1, p)))
                .collect();
            for layer in self.layers.iter_mut().filter(|l| l.file == Some(*file)) {
                let offs = layer
                    .switched_off
                    .iter()
                    .map(|(l, _, p)| (*l, p.clone()))
                    .chain(layer.unmatched_off.iter().cloned())
                    .collect::<Vec<_>>();
                for (line, pattern) in offs {
                    if let Some((at, _)) = held.iter().find(|(_, p)| *p == pattern) {
                        let why = format!(
                            "the organisation's policy holds the same rule ({}:{at})",
                            origin(f)
                        );
                        layer.refused_off.push((line, pattern, why));
                    }
                }
            }
        }
        let paths: Vec<String> = files.iter().map(|(_, f)| origin(f)).collect();
        let rules: Vec<ProjectRules> = files
            .iter()
            .zip(&paths)
            .zip(&hashes)
            .map(|(((file, f), path), sha256)| ProjectRules {
                file: *file,
                path: Path::new(path.as_str()),
                text: Ok(f.text.as_str()),
                sha256,
            })
            .collect();
        self.add_layer(Layer::Managed, &rules, true, None);
        let specs: Vec<(String, String, &str)> = managed
            .spec_files()
            .map(|f| (origin(f), origin(f), f.text.as_str()))
            .collect();
        let before = self.specs.errors.len();
        for (file, origin, text) in &specs {
            self.specs.add_text(file, origin, text);
        }
        let added: Vec<RuleError> = self.specs.errors[before..].to_vec();
        self.errors.extend(added);
        // The organisation's knowledge lists may add every kind, loosening ones too.
        for name in crate::local::known::scan::FILES {
            if let Some(f) = managed.file(name) {
                let author = crate::local::known::Author::Organisation;
                let errors = self.known.add(name, &origin(f), &f.text, author);
                self.errors.extend(errors);
            }
        }
    }

    /// Layers one set of rule files (a project's, or the organisation's) over these.
    fn add_layer(
        &mut self,
        layer: Layer,
        files: &[ProjectRules],
        trusted: bool,
        cache: Option<&Path>,
    ) {
        for source in files {
            let file = source.file;
            let origin = source.path.display().to_string();
            let name = match layer {
                Layer::Project(_) => file.project_name().to_string(),
                _ => origin.clone(),
            };
            self.origins.push((name, origin.clone()));
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
            let home = self.home.as_deref();
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
                    // Rule by rule from here: the project's cached rules are built now.
                    extra.build_all();
                    extra.own_base();
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
                    for (pattern, rule) in extra.into_lines() {
                        let loosens = file == RuleFile::SafePaths || pattern.negated;
                        if loosens && !trusted {
                            suspended.push(rule);
                        } else {
                            list.lines_mut().push((pattern, rule));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A person's file's own lines (line, pattern; the rule's own string, not a copy).
    pub fn added(&self, layer: &layers::FileLayer) -> Vec<(usize, Cow<'static, str>)> {
        match layer.file {
            Some(file) if !layer.seeded_copy => self.parsed(file).added(layer.added_from),
            _ => Vec::new(),
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

    fn paths(&self, file: RuleFile) -> &PathList<RuleRef> {
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
    pub fn safe_paths(&self) -> &PathList<RuleRef> {
        self.paths(RuleFile::SafePaths)
    }

    /// `excluded_paths.txt`
    pub fn excluded_paths(&self) -> &PathList<RuleRef> {
        self.paths(RuleFile::ExcludedPaths)
    }

    /// `credential_paths.txt`
    pub fn credential_paths(&self) -> &PathList<RuleRef> {
        self.paths(RuleFile::CredentialPaths)
    }

    /// `protected_paths.txt`, relative to a project root.
    pub fn protected_paths(&self) -> &PathList<RuleRef> {
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
    /// The organisation's policy: its rules are named by their file's full path.
    Managed,
}
