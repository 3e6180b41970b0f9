//! The bundled rule tables build.rs generates, and the DFAs in them loaded once per process.

use super::CommandRule;
use crate::decision::RuleRef;
use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::sync::OnceLock;

pub use crate::local::paths::scan::{Form, Mask};

/// One rule line: spans of TEXT, prefilter literals as (first, count) into SPANS, and the
/// DFA's span of DFAS (None: too big to build; compiled at run time when needed); a path
/// list's line as `paths::scan` read it.
pub struct Line {
    pub line: u32,
    pub pattern: (u32, u32),
    pub why: Option<(u32, u32)>,
    pub compiled: (u32, u32),
    pub anchored: bool,
    pub prefixes: (u32, u32),
    pub required: (u32, u32),
    /// The pairs every match contains (`rules::scan::pair_mask`).
    pub mask: Mask,
    pub dfa: Option<(u32, u32)>,
    pub path: Option<PathLine>,
}

/// A path-list line as `paths::scan::Scanned`, its texts spans of TEXT.
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
    /// The line as `paths::scan::scan` reads it, borrowing the table's text.
    pub fn scanned(&self) -> crate::local::paths::scan::Scanned {
        crate::local::paths::scan::Scanned {
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
pub const fn text((start, len): (u32, u32)) -> &'static str {
    TEXT.split_at(start as usize).1.split_at(len as usize).0
}

/// A span of SPANS: a rule's prefilter literals.
pub const fn spans((start, n): (u32, u32)) -> &'static [(u32, u32)] {
    SPANS.split_at(start as usize).1.split_at(n as usize).0
}

/// The lines of the command files (the first three of `FILES`, in `RuleFile::ALL`'s order).
const COMMAND_LINES: usize = {
    let (h, s, c) = (FILES[0], FILES[1], FILES[2]);
    assert!(
        h.0 == 0 && s.0 == h.1 && c.0 == s.1,
        "the command files lead LINES"
    );
    c.1 as usize
};

/// Every bundled command rule, made when sentinel is compiled. A call's lists borrow them:
/// built at run time, they cost a hook ~70K instructions and the arena's pages for 27 KB,
/// when a command reaches a few of them.
pub static COMMAND_RULES: [CommandRule; COMMAND_LINES] = {
    let mut out = [const { MaybeUninit::<CommandRule>::uninit() }; COMMAND_LINES];
    let mut f = 0;
    while f < 3 {
        let file = super::RuleFile::ALL[f];
        let (start, end) = FILES[f];
        let mut i = start as usize;
        while i < end as usize {
            out[i] = MaybeUninit::new(CommandRule::from_table(i, file));
            i += 1;
        }
        f += 1;
    }
    // SAFETY: the command files' ranges cover 0..COMMAND_LINES (asserted above), so every
    // element was written; MaybeUninit<T> has T's layout.
    unsafe { std::mem::transmute::<[MaybeUninit<CommandRule>; COMMAND_LINES], _>(out) }
};

/// The path lists' lines (the last four of `FILES`, after the command files).
const PATH_LINES: usize = {
    let mut f = 3;
    while f < 7 {
        assert!(
            FILES[f].0 == FILES[f - 1].1,
            "the files' lines follow each other"
        );
        f += 1;
    }
    LINES.len() - COMMAND_LINES
};

/// Every bundled path-list line's rule, made when sentinel is compiled (as `COMMAND_RULES`): a
/// bundled list's lookup answers with one of these, so a list is not built line by line for
/// the few lookups a hook makes.
pub static PATH_RULES: [RuleRef; PATH_LINES] = {
    let mut out = [const { MaybeUninit::<RuleRef>::uninit() }; PATH_LINES];
    let mut f = 3;
    while f < 7 {
        let file = super::RuleFile::ALL[f];
        let (start, end) = FILES[f];
        let mut i = start as usize;
        while i < end as usize {
            let b = &LINES[i];
            out[i - COMMAND_LINES] = MaybeUninit::new(RuleRef {
                file: Cow::Borrowed(file.name()),
                line: b.line as usize,
                origin: Cow::Borrowed("bundled"),
                pattern: Cow::Borrowed(text(b.pattern)),
                why: match b.why {
                    Some(w) => Some(Cow::Borrowed(text(w))),
                    None => None,
                },
            });
            i += 1;
        }
        f += 1;
    }
    // SAFETY: the path files' ranges cover COMMAND_LINES..LINES.len() (asserted above), so
    // every element was written; MaybeUninit<T> has T's layout.
    unsafe { std::mem::transmute::<[MaybeUninit<RuleRef>; PATH_LINES], _>(out) }
};

/// The rule of path-list line `i` (an index in LINES).
pub fn path_rule(i: usize) -> &'static RuleRef {
    &PATH_RULES[i - COMMAND_LINES]
}

/// The rules of command file `file`, made at compile time.
pub fn command_rules(file: super::RuleFile) -> &'static [CommandRule] {
    let (start, end) = FILES[file as usize];
    COMMAND_RULES
        .get(start as usize..end as usize)
        .unwrap_or(&[])
}

/// The compiled lines of one file.
pub fn lines(file: super::RuleFile) -> &'static [Line] {
    let (start, end) = FILES[file as usize];
    &LINES[start as usize..end as usize]
}

/// The rows of command file `file` (indexes among its lines) that a command starting with `b`
/// can match, in order: the build's first-byte index.
pub fn rows_for_byte(file: super::RuleFile, b: u8) -> &'static [u16] {
    let (start, n) = BYTES[file as usize * 256 + usize::from(b)];
    &BYTE_ROWS[start as usize..(start + n) as usize]
}

/// The index in LINES of one file's first line.
pub fn first(file: super::RuleFile) -> usize {
    FILES[file as usize].0 as usize
}

pub type Dfa = regex_automata::dfa::dense::DFA<&'static [u32]>;

/// Line `i`'s DFA, deserialized the first time a command reaches it and kept for the process
/// (a long-lived engine would otherwise re-read its header on every test). The slots are a
/// zeroed static, each a pointer: a table of the 784-byte DFAs themselves, built on the first
/// call, wrote 250 KB and cost a hook 62 page faults, a sixth of its wall time.
pub fn dfa(i: usize) -> Option<&'static Dfa> {
    static LOADED: [OnceLock<Option<Box<Dfa>>>; LINES.len()] =
        [const { OnceLock::new() }; LINES.len()];
    LOADED[i].get_or_init(|| load(LINES[i].dfa?)).as_deref()
}

fn load((start, n): (u32, u32)) -> Option<Box<Dfa>> {
    let bytes = &DFAS.bytes[start as usize..(start + n) as usize];
    // SAFETY: build.rs serialized these bytes with this regex-automata (one version in
    // Cargo.lock) for this target's endianness; the tests check every DFA against its
    // regex.
    unsafe { Dfa::from_bytes_unchecked(bytes) }
        .ok()
        .map(|(d, _)| Box::new(d))
}
