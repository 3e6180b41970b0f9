//! The Windows shells, as Claude Code on Windows reaches them from Git Bash: `cmd /c TEXT` and
//! `powershell -Command TEXT` (and the PowerShell tool's own text). Each text is read by a
//! parser of that shell ([`cmd`], [`powershell`]) into the commands it runs, which the walker
//! records like Bash's: a name the shell runs itself is judged by its `cmd/NAME` or
//! `powershell/CMDLET` spec (`rules/commands/windows-cmd.toml`, `powershell.toml`), any other
//! name is a program judged by its own spec as in Bash. What a parser cannot read is an unknown
//! (uncertain), never a guess; the statements as written also meet the hard-block rules.

pub(super) mod cmd;
mod invocation;
pub(super) mod powershell;
mod words;

#[cfg(test)]
mod tests;

pub(super) use invocation::{Invocation, invocation};

use crate::local::shell::{Redirect, Word};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// Which shell reads the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// cmd.exe.
    Cmd,
    /// Windows PowerShell 5.1 (`powershell.exe`).
    PowerShell,
    /// PowerShell 7 (`pwsh`).
    Pwsh,
}

impl Dialect {
    /// How the shell is named in a command's path of wrappers.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Dialect::Cmd => "cmd /c",
            Dialect::PowerShell => "powershell -Command",
            Dialect::Pwsh => "pwsh -Command",
        }
    }
}

/// One command the text runs.
#[derive(Debug)]
pub(crate) struct Command {
    /// `argv[0]` is `cmd/NAME` or `powershell/CMDLET` for a name the shell runs itself, else
    /// the program's name or path as written (with `/` separators).
    pub argv: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// The shell runs it itself (judged by its own section), not a program.
    pub own: bool,
    /// It gets its paths from a file listing earlier in the pipeline (`Get-ChildItem src |
    /// Remove-Item`): they lie under these folders (none: not known).
    pub piped_under: Option<Vec<Word>>,
}

/// What a Windows shell's text does, in order.
#[derive(Debug)]
pub(crate) enum Item {
    Command(Command),
    /// A variable set for what follows (`$env:NAME = …`, `set NAME=…`): `env` when the
    /// programs started later see it.
    Assign {
        name: String,
        env: bool,
        value: Word,
    },
    /// Code run inside another command (a script block, `$( )`, a parenthesised pipeline, the
    /// body of `& { }`): walked one level deeper.
    Nested {
        label: &'static str,
        items: Vec<Item>,
    },
    /// What the shell could not be read as: the call is uncertain.
    Unknown(String),
    /// A statement as written: the hard-block rules look at it, as at a PowerShell tool call.
    Raw(String),
    /// The current folder changes to this word (None: to a place not known).
    ChangeDir(Option<Word>),
}

/// The names PowerShell and cmd.exe run themselves (`rules/powershell_names.txt`,
/// `rules/cmd_commands.txt`), read once.
struct Names {
    aliases: HashMap<String, String>,
    verbs: HashSet<String>,
    cmd: HashSet<String>,
}

const POWERSHELL_NAMES: &str = include_str!("../../../../rules/powershell_names.txt");
const CMD_COMMANDS: &str = include_str!("../../../../rules/cmd_commands.txt");

fn names() -> &'static Names {
    static NAMES: OnceLock<Names> = OnceLock::new();
    NAMES.get_or_init(|| {
        let lines = crate::lists::entries;
        let mut aliases = HashMap::new();
        let mut verbs = HashSet::new();
        for line in lines(POWERSHELL_NAMES) {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["alias", name, cmdlet] => {
                    aliases.insert(name.to_ascii_lowercase(), cmdlet.to_ascii_lowercase());
                }
                ["verb", verb] => {
                    verbs.insert(verb.to_ascii_lowercase());
                }
                _ => {}
            }
        }
        let cmd = lines(CMD_COMMANDS)
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_ascii_lowercase)
            .collect();
        Names {
            aliases,
            verbs,
            cmd,
        }
    })
}

/// The section name of a command PowerShell runs itself (an alias resolved: `rm` is
/// `powershell/remove-item`), or None for a program.
pub(crate) fn powershell_name(name: &str) -> Option<String> {
    if name.contains(['/', '\\', '.']) {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    let n = names();
    if let Some(cmdlet) = n.aliases.get(&lower) {
        return Some(format!("powershell/{cmdlet}"));
    }
    let (verb, noun) = lower.split_once('-')?;
    (n.verbs.contains(verb) && !noun.is_empty() && noun.chars().all(|c| c.is_ascii_alphanumeric()))
        .then(|| format!("powershell/{lower}"))
}

/// A cmdlet's name as PowerShell writes it (`Get-ChildItem`: an approved verb and a noun, each
/// capitalised), which no program in Bash is called (theirs are lower case: `update-grub`).
pub(crate) fn is_cmdlet_name(name: &str) -> bool {
    let Some((verb, noun)) = name.split_once('-') else {
        return false;
    };
    verb.starts_with(|c: char| c.is_ascii_uppercase())
        && noun.starts_with(|c: char| c.is_ascii_uppercase())
        && noun.chars().all(|c| c.is_ascii_alphanumeric())
        && names().verbs.contains(&verb.to_ascii_lowercase())
}

/// The section name of a command cmd.exe runs itself, or of a Windows program that means
/// another program in Bash (`find`, `sort`, `timeout`): `cmd/NAME`; None for a program.
pub(crate) fn cmd_name(name: &str) -> Option<String> {
    if name.contains(['/', '\\']) {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    let base = lower.strip_suffix(".exe").unwrap_or(&lower);
    names().cmd.contains(base).then(|| format!("cmd/{base}"))
}
