//! What a program that walks a directory opens there (`rules/file_types.txt`): its own file
//! types, whether it skips what git ignores, hidden names, or what git does not track, and the
//! options that widen it. A recursive read by such a program is judged by the credentials it
//! can open ([`crate::decision::reach`]).

use crate::decision::reach::{Reach, Test};
use crate::shell::Word;

/// One line of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileTypes {
    /// The program, or `program subcommand`, as its spec is named.
    pub program: &'static str,
    /// Base-name wildcards of the files it reads; empty: every name.
    pub names: Vec<&'static str>,
    /// It skips what git ignores.
    pub gitignore: bool,
    /// It skips hidden files and directories.
    pub hidden: bool,
    /// It reads only what git tracks.
    pub tracked: bool,
    /// What git tracks counts as read already: it is in the repository, which `git log -p`
    /// prints. Only the files git does not track count (`git add .` stages new files).
    pub untracked: bool,
    /// Options that widen what it reads.
    pub unless: Vec<&'static str>,
}

const TEXT: &str = include_str!("../../../rules/file_types.txt");

/// Reads the list's lines; an error names `file_types.txt:LINE`.
pub fn parse(text: &'static str) -> Result<Vec<FileTypes>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(l) = parse_line(line, i + 1)? {
            out.push(l);
        }
    }
    Ok(out)
}

/// One line read: None for a comment or a blank line.
fn parse_line(line: &'static str, number: usize) -> Result<Option<FileTypes>, String> {
    {
        let body = match line.find(" #") {
            Some(at) => &line[..at],
            None if line.trim_start().starts_with('#') => "",
            None => line,
        }
        .trim();
        if body.is_empty() {
            return Ok(None);
        }
        let at = || format!("file_types.txt:{number}");
        let (program, rest) = body
            .split_once(':')
            .ok_or_else(|| format!("{}: no `:` after the program's name", at()))?;
        let program = program.trim();
        if program.is_empty() {
            return Err(format!("{}: the program's name is empty", at()));
        }
        let mut line = FileTypes {
            program,
            names: Vec::new(),
            gitignore: false,
            hidden: false,
            tracked: false,
            untracked: false,
            unless: Vec::new(),
        };
        let mut words = rest.split_whitespace();
        while let Some(w) = words.next() {
            match w {
                "gitignore" => line.gitignore = true,
                "hidden" => line.hidden = true,
                "tracked" => line.tracked = true,
                "untracked" => line.untracked = true,
                "unless" => {
                    line.unless.extend(words.by_ref());
                    if line.unless.is_empty() || line.unless.iter().any(|o| !o.starts_with('-')) {
                        return Err(format!(
                            "{}: `unless` takes options, each starting with `-`",
                            at()
                        ));
                    }
                }
                w if w.contains(['*', '?', '[']) || w.contains('.') => line.names.push(w),
                w => {
                    return Err(format!(
                        "{}: `{w}` is neither a file name pattern nor a keyword",
                        at()
                    ));
                }
            }
        }
        Ok(Some(line))
    }
}

/// The line for `program`, read when asked for: only that line is parsed (a walk is judged by
/// one program's line, and most hooks meet none). The bundled list is checked by a test: a bad
/// line there never ships.
fn line_for(program: &str) -> Option<FileTypes> {
    // A line starts with its program's name and a `:`; one search of the text finds it.
    let needle = format!("\n{program}:");
    let at = memchr::memmem::find(TEXT.as_bytes(), needle.as_bytes())? + 1;
    let line = TEXT[at..].lines().next()?;
    let number = TEXT[..at].bytes().filter(|&b| b == b'\n').count() + 1;
    parse_line(line, number).ok().flatten()
}

/// What `program`'s walks open, given its words: None when the list has no line for it, or
/// one of the options that widen it is given.
pub fn reach_of(program: &str, argv: &[Word]) -> Option<Reach> {
    let line = line_for(program)?;
    if argv.iter().skip(1).any(|w| gives(&w.text, &line.unless)) {
        return None;
    }
    let mut tests = Vec::new();
    if !line.names.is_empty() {
        tests.push(Test::Name {
            any_of: line.names.iter().map(|n| n.to_string()).collect(),
            ignore_case: false,
        });
    }
    if line.hidden {
        tests.push(Test::Visible);
    }
    if line.gitignore {
        tests.push(Test::NotIgnored);
    }
    let tracked = || Test::GitListed {
        cached: true,
        others: false,
        exclude_standard: false,
        pathspecs: Vec::new(),
    };
    if line.tracked {
        tests.push(tracked());
    }
    if line.untracked {
        tests.push(Test::Not {
            test: Box::new(tracked()),
        });
    }
    Some(Reach {
        tests,
        ..Reach::default()
    })
}

/// Whether the word gives one of `options`: spelled out (`--hidden`, `--config=x`), or a short
/// one inside a cluster (`-uu`, `-nu`): read widely, since a wrong yes only keeps the read whole.
fn gives(word: &str, options: &[&str]) -> bool {
    options.iter().any(|o| {
        word == *o
            || word
                .strip_prefix(o)
                .is_some_and(|rest| rest.starts_with('='))
            || (o.len() == 2
                && !o.starts_with("--")
                && word.starts_with('-')
                && !word.starts_with("--")
                && word[1..].contains(&o[1..]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_list_reads() {
        let lines = parse(TEXT).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            lines
                .iter()
                .any(|l| l.program == "ruff check" && l.gitignore)
        );
        for l in &lines {
            assert!(
                !l.names.is_empty() || l.gitignore || l.hidden || l.tracked || l.untracked,
                "{} rules nothing out",
                l.program
            );
        }
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(
            parse("ruff *.py\n").unwrap_err(),
            "file_types.txt:1: no `:` after the program's name"
        );
        assert!(parse("x: *.py unless\n").unwrap_err().contains(":1:"));
        assert!(
            parse("\n\nx: frob\n")
                .unwrap_err()
                .starts_with("file_types.txt:3:")
        );
    }

    #[test]
    fn options_that_widen_turn_the_line_off() {
        let argv = |s: &str| -> Vec<Word> { s.split(' ').map(Word::literal).collect() };
        assert!(reach_of("ruff check", &argv("ruff check .")).is_some());
        assert!(reach_of("ruff check", &argv("ruff check --no-respect-gitignore .")).is_none());
        assert!(reach_of("ruff check", &argv("ruff check --config=x.toml .")).is_none());
        assert!(reach_of("rg", &argv("rg -uu foo")).is_none());
        assert!(reach_of("rg", &argv("rg -n foo")).is_some());
        assert!(reach_of("frob", &argv("frob .")).is_none());
        assert!(reach_of("git add", &argv("git add -A")).is_some());
        assert!(reach_of("git add", &argv("git add -f .")).is_none());
    }
}
