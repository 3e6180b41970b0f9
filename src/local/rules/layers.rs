//! The person's rule files over the bundled defaults (SPEC 2.1). The bundled rules always apply;
//! a person's file adds its lines to them and may switch a bundled rule off with a line
//! `off: PATTERN` that repeats the bundled line's pattern exactly. Matching by text, not by line
//! number, means a switch-off can never land on another rule: when a newer sentinel changes the
//! bundled line, the old `off:` matches nothing and the rule is back. A file that is exactly a
//! copy an earlier `sentinel install` seeded (`rules/seeded_versions.txt`) is not a
//! customisation and is ignored, so an old install gets this version's rules.

use super::{Parsed, RuleFile};

/// The hashes of every bundled rule file a release has seeded.
const SEEDED_VERSIONS: &str = include_str!("../../../rules/seeded_versions.txt");

/// What one of the person's rule files changes.
#[derive(Clone, Debug, Default)]
pub struct FileLayer {
    /// The file.
    pub file: Option<RuleFile>,
    /// Where it was read from.
    pub origin: String,
    /// An untouched copy of a bundled file an earlier install seeded: ignored.
    pub seeded_copy: bool,
    /// Where its own lines start in the file's merged rules ([`super::Rules::added`] lists
    /// them when asked: a load does not build a list of thousands of rules it never shows).
    pub added_from: usize,
    /// The bundled rules it switches off (its line, the bundled line, the pattern).
    pub switched_off: Vec<(usize, usize, String)>,
    /// `off:` lines that match no bundled rule (line, pattern): harmless, but probably stale.
    pub unmatched_off: Vec<(usize, String)>,
    /// The bundled command-spec denies it switches off (its line, the spec's section).
    pub spec_off: Vec<(usize, crate::decision::RuleRef)>,
    /// `off:` lines that have no effect because the organisation's policy says so (its line,
    /// the pattern, why).
    pub refused_off: Vec<(usize, String, String)>,
}

impl FileLayer {
    /// The file's name.
    pub fn name(&self) -> &'static str {
        self.file.map(RuleFile::name).unwrap_or("")
    }
}

/// Whether `text` is exactly a bundled version of `file` that an install seeded.
pub fn is_seeded_copy(file: RuleFile, text: &str) -> bool {
    is_seeded(file, &crate::digest::sha256_hex(text.as_bytes()))
}

/// Whether the text whose SHA-256 is `hex` is a bundled version of `file` an install seeded.
pub fn is_seeded(file: RuleFile, hex: &str) -> bool {
    SEEDED_VERSIONS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .any(|l| l.split_once(' ') == Some((file.name(), hex)))
}

/// The `off: PATTERN` lines of a person's file, and the text with them blanked (so the other
/// lines keep their numbers).
pub fn take_off_lines(text: &str) -> (String, Vec<(usize, String)>) {
    let mut off = Vec::new();
    let mut rest = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        match line.trim_start().strip_prefix("off:") {
            Some(pattern) => off.push((i + 1, pattern.trim().to_string())),
            None => rest.push_str(line),
        }
        rest.push('\n');
    }
    (rest, off)
}

/// The bundled rules less the ones the person's `off:` lines switch off, and what that changed
/// (the person's own rules go after these, and into [`FileLayer::added`], when they are parsed).
pub(crate) fn switch_off(
    file: RuleFile,
    origin: &str,
    bundled: Parsed,
    off: Vec<(usize, String)>,
) -> (Parsed, FileLayer) {
    let mut layer = FileLayer {
        file: Some(file),
        origin: origin.to_string(),
        ..FileLayer::default()
    };
    let is_off = |pattern: &str| off.iter().find(|(_, p)| p == pattern).map(|(l, _)| *l);
    let mut used = vec![false; off.len()];
    let mut note = |line: usize, bundled_line: usize, pattern: &str| {
        if let Some(k) = off.iter().position(|(l, _)| *l == line) {
            used[k] = true;
        }
        layer
            .switched_off
            .push((line, bundled_line, pattern.to_string()));
    };
    let kept = match bundled {
        Parsed::Commands(mut base) => {
            base.own_base();
            base.rules.retain(|r| match is_off(&r.rule.pattern) {
                Some(line) => {
                    note(line, r.rule.line, &r.rule.pattern);
                    false
                }
                None => true,
            });
            Parsed::Commands(base)
        }
        Parsed::Paths(mut base) => {
            base.lines_mut().retain(|(_, r)| match is_off(&r.pattern) {
                Some(line) => {
                    note(line, r.line, &r.pattern);
                    false
                }
                None => true,
            });
            Parsed::Paths(base)
        }
    };
    layer.unmatched_off = off
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((l, p), _)| (*l, p.clone()))
        .collect();
    (kept, layer)
}

/// One switch for one behaviour: in the person's hard-block file, `off:` of a bundled pattern also
/// switches off the bundled command-spec denies of the commands it names (`off: ^git( \S+)* stash
/// (drop|clear)( |$)` takes `[git stash drop]` and `[git stash clear]` with it), and `off: [NAME]`
/// switches off the deny of the bundled section NAME alone (as a reason shows it). The rest of the
/// section still decides, so the command is judged like any other, not allowed outright.
pub(crate) fn switch_off_spec_denies(
    layers: &mut [FileLayer],
    specs: &mut crate::local::spec::Specs,
) {
    let Some(layer) = layers
        .iter_mut()
        .find(|l| l.file == Some(RuleFile::HardBlock) && !l.seeded_copy)
    else {
        return;
    };
    let mut found = Vec::new();
    for (line, _, pattern) in &layer.switched_off {
        if let Ok(re) = regex::Regex::new(pattern) {
            for rule in specs.bundled_denies(|name| re.is_match(name)) {
                found.push((*line, rule));
            }
        }
    }
    layer.unmatched_off.retain(|(line, pattern)| {
        let Some(name) = pattern
            .strip_prefix('[')
            .and_then(|p| p.strip_suffix(']'))
            .map(str::trim)
        else {
            return true;
        };
        let named = specs.bundled_denies(|n| n == name);
        let none = named.is_empty();
        found.extend(named.into_iter().map(|r| (*line, r)));
        none
    });
    for (line, rule) in found {
        let name = rule.pattern.trim_start_matches('[').trim_end_matches(']');
        specs.switch_off_deny(name);
        layer.spec_off.push((line, rule));
    }
}
