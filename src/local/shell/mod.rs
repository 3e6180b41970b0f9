//! Shell parsing: a Bash command string in, every simple command it would run out.
//!
//! The grammar is brush-parser's; this module walks its syntax tree, follows every place code can
//! hide (substitutions, here-docs fed to a shell, `bash -c`, `eval`, `xargs`, `find -exec`, …),
//! unwraps wrappers and normalises command names. Whatever it cannot see through is recorded in
//! [`Analysis::unknowns`], which makes the command UNCERTAIN: it never turns into an ALLOW.

mod decode;
mod plain;
mod searches;
mod unwrap;
mod walk;
mod windows;

#[cfg(test)]
mod tests;

use walk::Walker;

/// How deep `bash -c`, `eval` and substitutions may nest before the rest is treated as unknown.
pub const MAX_DEPTH: usize = 8;
/// Commands longer than this are not parsed at all (UNCERTAIN).
pub const MAX_COMMAND_BYTES: usize = 128 * 1024;
/// Nesting (brackets and compound commands) beyond this is not handed to the parser, whose
/// recursion it could exhaust: ~1,400 nested `if`s overflowed a hook's stack.
pub(crate) const MAX_NESTING: usize = 64;
/// Simple commands one call is read into, at most: past it the call is uncertain and the
/// hard-block rules still look at each piece of it (every structure that grows with the input
/// has a bound that ends in a question, not in an allocation: docs/failures.md).
pub(crate) const MAX_COMMANDS: usize = 4096;
/// Nested code (`$( )`, `<( )`, `bash -c`, `eval` …) walked for one call, at most: scripts and
/// their bytes in all. Each level of `eval eval eval …` holds the rest of the text again.
pub(crate) const MAX_NESTED: usize = 1024;
pub(crate) const MAX_NESTED_BYTES: usize = 256 * 1024;
/// Operators and line breaks in one text parsed whole, at most (`bounds::operators`).
pub(crate) const MAX_OPERATORS: usize = 16 * 1024;
/// Reasons kept for an uncertain call (one is enough to ask; the rest name more of it).
pub(crate) const MAX_UNKNOWNS: usize = 64;
/// Bytes of rough pieces kept for the hard-block rules, at most.
pub(crate) const MAX_UNPARSED_BYTES: usize = 256 * 1024;
/// Arithmetic longer than this is not parsed (uncertain): its parser recurses once an operator.
pub(crate) const MAX_ARITHMETIC_BYTES: usize = 8 * 1024;

/// Directories whose programs are the system's own: `/bin/rm` is `rm`, but `./rm` is not.
pub(crate) const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/libexec",
    "/opt/homebrew/bin",
    "/run/current-system/sw/bin",
];

/// Shells whose `-c STRING` or stdin is itself a script to check.
pub(crate) const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "busybox-sh",
];

// A word is part of the call's vocabulary: the decision's effects name words too.
pub use crate::call::word::{Word, WordKind};

/// What a redirection does with its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedirectKind {
    /// `<`
    Read,
    /// `>`, `>|`, `<>`, `&>`
    Write,
    /// `>>`, `&>>`
    Append,
    /// `>&2`, `<&0`: duplicates a file descriptor.
    Duplicate,
    /// `<<EOF`
    HereDoc,
    /// `<<<`
    HereString,
}

impl RedirectKind {
    /// True when the target is a file that gets written.
    pub fn writes(self) -> bool {
        matches!(self, RedirectKind::Write | RedirectKind::Append)
    }

    fn symbol(self) -> &'static str {
        match self {
            RedirectKind::Read => "<",
            RedirectKind::Write => ">",
            RedirectKind::Append => ">>",
            RedirectKind::Duplicate => ">&",
            RedirectKind::HereDoc => "<<",
            RedirectKind::HereString => "<<<",
        }
    }
}

/// A redirection of a simple command.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Redirect {
    /// What it does.
    pub kind: RedirectKind,
    /// Its target: a file, a descriptor, or the here-doc / here-string text.
    pub target: Word,
}

/// A command that lists paths (`find . -name '*.py'`, `git ls-files '*.ts'`) whose output
/// becomes another command's arguments (`-exec … {}`, `| xargs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    /// Its words (find's own, without the commands its `-exec` runs).
    pub argv: Vec<Word>,
    /// Each name arrives whole: `find -exec`, or NUL-separated into `xargs -0`. Otherwise xargs
    /// splits names at blanks and quotes, so a name holding one hands on other paths.
    pub whole_names: bool,
}

/// The working directory a command runs in, relative to where the whole command started.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "path")]
pub enum Cwd {
    /// Where the command started.
    Start,
    /// After a `cd` to this literal path (absolute, `~`-prefixed or relative to the start).
    Changed(String),
    /// After a `cd` to a pattern (`cd ~/.config/g?`, then maybe a literal `cd sub`): the one
    /// directory it matches when it runs; unknown when it matches none or several.
    Matched(String),
    /// After a `cd` whose target is not known.
    Unknown,
}

/// Whether a simple command is a wrapper around another one or a command in its own right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Runs itself.
    Command,
    /// Runs the command that follows it (`sudo`, `env`, `xargs`, `bash -c` …); that command is
    /// reported separately.
    Wrapper,
}

/// One simple command found in a shell command, after unwrapping and name normalisation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SimpleCommand {
    /// The words; `argv[0]` is the normalised name. Empty for a bare assignment or redirection.
    pub argv: Vec<Word>,
    /// Its redirections, in order.
    pub redirects: Vec<Redirect>,
    /// `NAME=value` assignments that prefix it (or that `env` passes to it).
    pub assignments: Vec<(String, Word)>,
    /// Wrappers it was reached through, outermost first.
    pub via: Vec<String>,
    /// Wrapper or command.
    pub role: Role,
    /// The directory it runs in.
    pub cwd: Cwd,
    /// More arguments are added at run time (`xargs`, `find -exec … {}`).
    pub extra_args: bool,
    /// For `find -exec`: the directories the run-time arguments lie under (find's roots); for
    /// `find … | xargs`, the same, read from the pipe.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_args_under: Vec<Word>,
    /// The run-time arguments come through a pipe (`xargs`), so how many and which is up to
    /// what runs before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub extra_args_piped: bool,
    /// The run-time arguments are paths `find` prints, which start with its root and so are
    /// never options.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub extra_args_from_find: bool,
    /// The listing the run-time arguments come from (`find ROOT TESTS`, `git ls-files …`),
    /// whose tests say which entries under `extra_args_under` they can be.
    #[serde(skip)]
    pub extra_args_listing: Option<Listing>,
    /// How deep in nested code (`$( )`, `bash -c`, a decoded script …) it was found; 0 at the top.
    #[serde(skip)]
    pub depth: usize,
    /// The directory of the command name when it is not a system bin dir (`./ls`, `/tmp/x/ls`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_dir: Option<String>,
}

impl SimpleCommand {
    /// The normalised command name, or "" for a bare assignment or redirection.
    pub fn name(&self) -> &str {
        self.argv.first().map(|w| w.text.as_str()).unwrap_or("")
    }

    /// The arguments after the name.
    pub fn args(&self) -> &[Word] {
        self.argv.get(1..).unwrap_or(&[])
    }

    /// The command as the rules see it: words joined by single spaces, then the redirections.
    pub fn text(&self) -> String {
        // Sized once: every command is rendered, and growing it was ~4 reallocations each.
        let words = self.argv.iter().map(|w| w.text.len() + 1);
        let redirects = self.redirects.iter().map(|r| r.target.text.len() + 5);
        let mut out = String::with_capacity(words.chain(redirects).sum());
        for (i, w) in self.argv.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            push_flat(&mut out, &w.text);
        }
        for r in &self.redirects {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(r.kind.symbol());
            out.push(' ');
            push_flat(&mut out, &r.target.text);
        }
        if self.argv.is_empty() {
            for (name, value) in &self.assignments {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(name);
                out.push('=');
                push_flat(&mut out, &value.text);
            }
        }
        out
    }
}

/// Appends one word with its inner whitespace turned into tabs: rules match one line, and a
/// plain space must only ever separate words, so `git commit -m "no git push --force"` cannot
/// match `^git( \S+)* push`. (`\s` still matches a tab, for rules that look inside arguments.)
fn push_flat(out: &mut String, s: &str) {
    // Most words hold no whitespace at all: copied whole. (Not `is_ascii_whitespace`, which
    // leaves out the vertical tab that `char::is_whitespace` counts.)
    if !s
        .bytes()
        .any(|b| matches!(b, b'\t'..=b'\r' | b' ') || b >= 0x80)
    {
        out.push_str(s);
        return;
    }
    out.extend(s.chars().map(|c| if c.is_whitespace() { '\t' } else { c }));
}

/// Everything found in one shell command.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Analysis {
    /// Every simple command, in source order, wrappers before what they wrap.
    pub commands: Vec<SimpleCommand>,
    /// Pipelines of two or more stages, each rendered as `stage | stage` (innermost commands).
    pub pipelines: Vec<String>,
    /// What could not be seen through; any entry makes the command UNCERTAIN.
    pub unknowns: Vec<String>,
    /// Functions whose body calls the function itself (`:(){ :|:& };:`): fork bombs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub self_calling_functions: Vec<String>,
    /// Rough segments of nested code that did not parse (`bash -c '…'` with a syntax error),
    /// which the hard-block rules still look at.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unparsed: Vec<String>,
    /// Set when the command does not parse at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
    /// `[[ … ]]` tests walked: a line of tests alone runs nothing (`[[ -f .env.local ]]`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tests: bool,
    /// Statements of cmd or PowerShell text as written (and their rough pieces): the
    /// hard-block rules look at each, since the commands found there are named for their
    /// shell's sections (`powershell/remove-item`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub raw_statements: Vec<String>,
    /// A function was defined: a name called later may be one of them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub functions_defined: bool,
}

/// Parses a Bash command and finds every simple command it would run.
pub fn analyse(command: &str) -> Analysis {
    let mut walker = Walker::new();
    if command.len() > MAX_COMMAND_BYTES {
        walker.out.parse_error = Some(format!(
            "command is {} bytes, over the {MAX_COMMAND_BYTES}-byte parse limit",
            command.len()
        ));
        // Too long to parse, but the hard-block rules still look at each piece.
        walker.out.unparsed = rough_segments(command);
        return walker.out;
    }
    if let Err(e) = walker.script(command) {
        walker.out.parse_error = Some(e);
        walker.salvage(command);
    }
    if walker.over_bound {
        // What was not read one command at a time still meets the hard-block rules, piece by
        // piece (the command is at most MAX_COMMAND_BYTES).
        walker.out.unparsed = rough_segments(command);
    }
    walker.out
}

/// Reads PowerShell text (the PowerShell tool's command) and finds every command it would run.
pub fn analyse_powershell(command: &str) -> Analysis {
    let mut walker = Walker::new();
    if command.len() > MAX_COMMAND_BYTES {
        walker.out.parse_error = Some(format!(
            "command is {} bytes, over the {MAX_COMMAND_BYTES}-byte parse limit",
            command.len()
        ));
        walker.out.unparsed = rough_segments(command);
        return walker.out;
    }
    walker.windows_text(windows::Dialect::PowerShell, command, false, None);
    walker.out
}

/// Splits text that could not be parsed into rough segments at every shell operator, so that
/// hard-block rules still get a look at each piece. Used for parse errors and PowerShell.
pub fn rough_segments(text: &str) -> Vec<String> {
    text.split([';', '|', '&', '\n', '(', ')', '{', '}', '`'])
        .map(|s| {
            let s = s.trim().trim_start_matches('$').trim();
            s.split_whitespace()
                .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// `$HOME`, `${HOME}` and `~` at the start of a word name the home directory.
pub fn is_home_ref(text: &str) -> bool {
    ["$HOME", "${HOME}", "~"].iter().any(|h| {
        text.strip_prefix(h)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Environment variables that decide which program runs, load code into one, or name a
/// command or options it takes (`rules/env_vars.txt`): setting one is never plain data.
pub fn is_dangerous_variable(name: &str) -> bool {
    crate::local::spec::env_vars::known(name).may_change_what_runs()
}

pub(in crate::local) use walk::without_exe;
pub(in crate::local) use windows::is_cmdlet_name;

// Tier 1 names its excerpts through `shell::` (short texts in reasons).
pub use crate::text::{excerpt, excerpt_to, one_line};
