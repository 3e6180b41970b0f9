//! Which language a file that runs is written in: from the program that runs it, its name, or
//! its `#!` line.

use std::path::Path;

/// A language sentinel reads before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// sh, bash, zsh …: judged by Tier 1 as the commands it holds.
    Shell,
    Python,
    /// JavaScript and TypeScript.
    Js,
    Ruby,
    Perl,
    Php,
    Rust,
    /// An `sqlite3 -init` file: SQL, and dot-commands (`.shell`, `.system` run commands).
    Sqlite,
}

impl Lang {
    /// The tag of the language in `rules/code_calls.txt`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::Shell => "sh",
            Lang::Python => "py",
            Lang::Js => "js",
            Lang::Ruby => "rb",
            Lang::Perl => "pl",
            Lang::Php => "php",
            Lang::Rust => "rs",
            Lang::Sqlite => "sql",
        }
    }

    /// The language a program runs its file argument as (`python3` → Python).
    pub fn of_program(name: &str) -> Option<Lang> {
        let base = name.rsplit('/').next().unwrap_or(name);
        let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match stem {
            "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "busybox" | "source"
            | "." => Lang::Shell,
            "python" | "pypy" | "python3-dbg" | "py" => Lang::Python,
            "node" | "nodejs" | "deno" | "bun" | "tsx" | "ts-node" | "esno" => Lang::Js,
            "ruby" | "jruby" => Lang::Ruby,
            "perl" => Lang::Perl,
            "php" => Lang::Php,
            "sqlite" => Lang::Sqlite,
            _ => return None,
        })
    }

    /// The language of a file by its name (extension, or a name the tooling runs).
    pub fn of_name(path: &Path) -> Option<Lang> {
        let name = path.file_name()?.to_str()?;
        if matches!(name, "Makefile" | "makefile" | "GNUmakefile") {
            return None;
        }
        let ext = name.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "sh" | "bash" | "zsh" | "ksh" | "command" => Lang::Shell,
            "py" | "pyw" | "pth" => Lang::Python,
            "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => Lang::Js,
            "rb" | "rake" => Lang::Ruby,
            "pl" | "pm" => Lang::Perl,
            "php" => Lang::Php,
            "rs" => Lang::Rust,
            _ => return None,
        })
    }

    /// The language a `#!` line names.
    pub fn of_shebang(text: &str) -> Option<Lang> {
        let line = text.lines().next()?.strip_prefix("#!")?;
        let mut words = line.split_whitespace();
        let mut prog = words.next()?;
        if prog.ends_with("/env") {
            prog = words.find(|w| !w.starts_with('-'))?;
        }
        Lang::of_program(prog)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_told_by_program_name_and_shebang() {
        assert_eq!(Lang::of_program("python3.12"), Some(Lang::Python));
        assert_eq!(Lang::of_program("/usr/bin/bash"), Some(Lang::Shell));
        assert_eq!(Lang::of_program("cargo"), None);
        assert_eq!(Lang::of_name(Path::new("a/b.test.ts")), Some(Lang::Js));
        assert_eq!(Lang::of_name(Path::new("x.pth")), Some(Lang::Python));
        assert_eq!(Lang::of_name(Path::new("README.md")), None);
        assert_eq!(Lang::of_shebang("#!/usr/bin/env -S node\n"), Some(Lang::Js));
        assert_eq!(Lang::of_shebang("#!/bin/sh -e\n"), Some(Lang::Shell));
        assert_eq!(Lang::of_shebang("echo hi"), None);
    }
}
