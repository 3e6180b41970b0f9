//! The line format of the knowledge lists under `rules/` (`signs.txt`, `program_roles.txt`,
//! `sql_words.txt`): `KIND  ENTRY  # why`, one entry a line. Pure; build.rs compiles the bundled
//! files with it, the runtime reads a person's and the organisation's with it.

/// Which list an entry belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    OverrideWord,
    OverridePhrase,
    Egress,
    Downloader,
    Interpreter,
    SecretDumper,
    SecretPrinter,
    Runner,
    Writer,
    WriteOption,
    EditOption,
    Describer,
    SqlReading,
    SqlForbidden,
    SqlPure,
    SqlDot,
    SqlMeta,
}

/// A kind as its file writes it.
pub struct KindInfo {
    pub kind: Kind,
    /// The file that holds it.
    pub file: &'static str,
    /// Its word at the start of a line.
    pub word: &'static str,
    /// Whether an entry added makes sentinel stricter (a person may add one), or looser (only
    /// the bundled file and the organisation's policy may).
    pub tightens: bool,
}

const fn info(kind: Kind, file: &'static str, word: &'static str, tightens: bool) -> KindInfo {
    KindInfo {
        kind,
        file,
        word,
        tightens,
    }
}

/// The knowledge files, in the order build.rs compiles them.
pub const FILES: [&str; 3] = ["signs.txt", "program_roles.txt", "sql_words.txt"];

/// Every kind, in `Kind`'s order.
pub const KINDS: [KindInfo; 17] = [
    info(Kind::OverrideWord, FILES[0], "override-word", true),
    info(Kind::OverridePhrase, FILES[0], "override-phrase", true),
    info(Kind::Egress, FILES[0], "egress", true),
    info(Kind::Downloader, FILES[0], "downloader", true),
    info(Kind::Interpreter, FILES[0], "interpreter", true),
    info(Kind::SecretDumper, FILES[0], "secret-dumper", true),
    info(Kind::SecretPrinter, FILES[0], "secret-printer", true),
    info(Kind::Runner, FILES[1], "runner", true),
    info(Kind::Writer, FILES[1], "writer", true),
    info(Kind::WriteOption, FILES[1], "write-option", true),
    info(Kind::EditOption, FILES[1], "edit-option", true),
    info(Kind::Describer, FILES[1], "describer", false),
    info(Kind::SqlReading, FILES[2], "reading", false),
    info(Kind::SqlForbidden, FILES[2], "forbidden", true),
    info(Kind::SqlPure, FILES[2], "pure", false),
    info(Kind::SqlDot, FILES[2], "dot", false),
    info(Kind::SqlMeta, FILES[2], "meta", false),
];

/// One entry: its line (1-based), kind, the entry (words joined by one space; a phrase as
/// written) and why.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    pub line: usize,
    pub kind: Kind,
    pub text: String,
    pub why: &'a str,
}

/// The entries of knowledge file `file`'s `text`, and each bad line as (line, message). A line
/// is `KIND ENTRY # why`; `#` starts a comment after a blank (an entry may hold `#` inside a
/// word); blank and comment lines are skipped.
pub fn scan<'a>(file: &str, text: &'a str) -> (Vec<Entry<'a>>, Vec<(usize, String)>) {
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = [line.find(" #"), line.find("\t#")];
        let Some(cut) = at.into_iter().flatten().min() else {
            errors.push((
                i + 1,
                "the line gives no reason (`# why` at its end)".into(),
            ));
            continue;
        };
        let (body, why) = (line[..cut].trim(), line[cut + 2..].trim());
        if why.is_empty() {
            errors.push((i + 1, "the reason after `#` is empty".into()));
            continue;
        }
        let (word, rest) = body.split_once([' ', '\t']).unwrap_or((body, ""));
        let Some(kind) = KINDS.iter().find(|k| k.file == file && k.word == word) else {
            let known: Vec<&str> = (KINDS.iter().filter(|k| k.file == file))
                .map(|k| k.word)
                .collect();
            errors.push((
                i + 1,
                format!(
                    "unknown kind `{word}` (this file holds {})",
                    known.join(", ")
                ),
            ));
            continue;
        };
        let rest = rest.trim();
        let text = match kind.kind {
            Kind::OverridePhrase => rest.to_string(),
            _ => rest.split_whitespace().collect::<Vec<_>>().join(" "),
        };
        if text.is_empty() {
            errors.push((i + 1, format!("`{word}` names nothing")));
            continue;
        }
        entries.push(Entry {
            line: i + 1,
            kind: kind.kind,
            text,
            why,
        });
    }
    (entries, errors)
}
