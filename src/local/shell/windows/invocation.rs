//! How a Windows shell is started from Bash: `cmd [/d /q /s /v:on …] /c|/k TEXT`,
//! `powershell|pwsh [-NoProfile -NonInteractive -NoLogo -ExecutionPolicy X …] -Command TEXT`,
//! `-EncodedCommand BASE64` (decoded, and never allowed on the strength of what it decodes to),
//! `-File SCRIPT ARGS` (a script run), or neither (an interactive shell, or commands on stdin).

use super::Dialect;
use crate::local::shell::{Word, WordKind};
use base64::Engine;

/// What a Windows shell started this way runs.
#[derive(Debug)]
pub(in crate::local::shell) enum Invocation {
    /// This text, in that shell; `delayed`: cmd's `/v:on`; `notes`: what makes the call
    /// uncertain whatever the text does (an encoded command, another working folder).
    Text {
        shell: Dialect,
        text: Word,
        delayed: bool,
        notes: Vec<String>,
    },
    /// A script file PowerShell runs, with its arguments: judged as running that file.
    File { argv: Vec<Word> },
    /// Nothing on its command line: commands from stdin, or an interactive shell.
    Stdin,
    /// Its command line is not read (an option sentinel does not know).
    Unread(String),
}

/// The Windows shell `argv` starts, if it is one (`cmd`, `powershell`, `pwsh`, any case, the
/// `.exe` already taken off its name).
pub(in crate::local::shell) fn invocation(argv: &[Word]) -> Option<Invocation> {
    let first = argv.first()?.text.as_bytes().first()?;
    // Every command comes here: most are none of these by their first letter.
    if !matches!(first, b'c' | b'C' | b'p' | b'P') {
        return None;
    }
    let name = argv.first()?.text.to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    match name {
        "cmd" => Some(cmd(argv)),
        "powershell" => Some(powershell(argv, Dialect::PowerShell)),
        "pwsh" | "pwsh-preview" => Some(powershell(argv, Dialect::Pwsh)),
        _ => None,
    }
}

/// The words after a shell's options as the one text it runs: a single word as it is, several
/// joined by spaces (a word with spaces in it quoted, as Git Bash passes it on).
fn text_of(words: &[Word]) -> Word {
    if let [one] = words {
        return one.clone();
    }
    let text = words
        .iter()
        .map(|w| {
            if w.text.contains([' ', '\t']) {
                format!("\"{}\"", w.text)
            } else {
                w.text.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let kind = if words.iter().all(Word::is_literal) {
        WordKind::Literal
    } else {
        WordKind::Computed
    };
    Word {
        text,
        kind,
        value: None,
    }
}

fn cmd(argv: &[Word]) -> Invocation {
    let mut delayed = false;
    for (i, w) in argv.iter().enumerate().skip(1) {
        let lower = w.text.to_ascii_lowercase();
        // Git Bash passes `//c` on as `/c`.
        let Some(opt) = lower
            .strip_prefix("//")
            .or_else(|| lower.strip_prefix('/'))
            .filter(|_| w.is_literal())
        else {
            return Invocation::Unread(format!(
                "`cmd {}`: a word before `/c` that sentinel does not read",
                w.text
            ));
        };
        match opt {
            "c" | "k" => {
                let rest = &argv[i + 1..];
                if rest.is_empty() {
                    return Invocation::Stdin;
                }
                return Invocation::Text {
                    shell: Dialect::Cmd,
                    text: text_of(rest),
                    delayed,
                    notes: Vec::new(),
                };
            }
            "v:on" => delayed = true,
            "s" | "q" | "d" | "a" | "u" | "v:off" | "e:on" | "e:off" | "f:on" | "f:off" => {}
            t if t.starts_with("t:") => {}
            _ => {
                return Invocation::Unread(format!(
                    "`{}` is not a cmd option sentinel knows",
                    w.text
                ));
            }
        }
    }
    Invocation::Stdin
}

/// PowerShell's own options, by full name: the first that a word is a prefix of is the one
/// (PowerShell reads `-c` as `-Command` and `-e` as `-EncodedCommand`). `true`: takes a value.
const POWERSHELL_OPTIONS: &[(&str, bool)] = &[
    ("command", true),
    ("encodedcommand", true),
    ("file", true),
    ("executionpolicy", true),
    ("noprofile", false),
    ("nologo", false),
    ("noninteractive", false),
    ("noexit", false),
    ("windowstyle", true),
    ("workingdirectory", true),
    ("version", true),
    ("inputformat", true),
    ("outputformat", true),
    ("sta", false),
    ("mta", false),
    ("login", false),
    ("interactive", false),
    ("configurationname", true),
    ("settingsfile", true),
    ("custompipename", true),
    ("commandwithargs", true),
];

fn powershell(argv: &[Word], shell: Dialect) -> Invocation {
    let mut notes = Vec::new();
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let lower = w.text.to_ascii_lowercase();
        let Some(name) = lower
            .strip_prefix("--")
            .or_else(|| lower.strip_prefix('-'))
            .or_else(|| lower.strip_prefix('/'))
            .filter(|n| !n.is_empty() && w.is_literal())
        else {
            // The first word that is no option: the command text for Windows PowerShell, a
            // script file for PowerShell 7.
            return match shell {
                Dialect::Pwsh => Invocation::File {
                    argv: argv[i..].to_vec(),
                },
                _ => text(shell, &argv[i..], notes),
            };
        };
        let (name, inline) = match name.split_once(':') {
            Some((n, v)) => (n, Some(v)),
            None => (name, None),
        };
        let Some(&(full, takes)) = POWERSHELL_OPTIONS.iter().find(|(f, _)| f.starts_with(name))
        else {
            return Invocation::Unread(format!(
                "`{}` is not a PowerShell option sentinel knows",
                w.text
            ));
        };
        let value = if takes && inline.is_none() {
            i += 1;
            argv.get(i)
        } else {
            None
        };
        match full {
            "command" | "commandwithargs" => {
                let rest = &argv[i..];
                return match rest {
                    [] => Invocation::Stdin,
                    [dash] if dash.text == "-" => Invocation::Stdin,
                    _ => text(shell, rest, notes),
                };
            }
            "file" => {
                return match value {
                    Some(f) if f.text == "-" => Invocation::Stdin,
                    Some(_) => Invocation::File {
                        argv: argv[i..].to_vec(),
                    },
                    None => Invocation::Stdin,
                };
            }
            "encodedcommand" => {
                notes.push("runs a base64-encoded PowerShell command".to_string());
                return match value.and_then(decode) {
                    Some(decoded) => Invocation::Text {
                        shell,
                        text: Word::literal(decoded),
                        delayed: false,
                        notes,
                    },
                    None => Invocation::Unread(
                        "runs a base64-encoded PowerShell command that does not decode".into(),
                    ),
                };
            }
            "workingdirectory" => {
                notes.push("PowerShell is started in another folder (-WorkingDirectory)".into())
            }
            "login" => notes.push(
                "a login PowerShell first runs the login profile, code from outside the project"
                    .into(),
            ),
            "configurationname" | "custompipename" | "settingsfile" => notes.push(format!(
                "PowerShell is started with -{full}, which loads what another file says"
            )),
            _ => {}
        }
        i += 1;
    }
    Invocation::Stdin
}

fn text(shell: Dialect, words: &[Word], notes: Vec<String>) -> Invocation {
    Invocation::Text {
        shell,
        text: text_of(words),
        delayed: false,
        notes,
    }
}

/// `-EncodedCommand`'s value: base64 of UTF-16LE text.
fn decode(w: &Word) -> Option<String> {
    let compact: String = w
        .known_value()?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if compact.len() > 256 * 1024 {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .or_else(|_| {
            base64::engine::general_purpose::STANDARD_NO_PAD.decode(compact.trim_end_matches('='))
        })
        .ok()?;
    if bytes.len() % 2 != 0 {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    String::from_utf16(&units).ok()
}
