//! Words of cmd and PowerShell text, as the rest of Tier 1 reads them: variables that name a
//! place (`%USERPROFILE%`, `$env:APPDATA`, `$HOME`) written as that place (`~`,
//! `~/AppData/Roaming`), any other variable left unknown (`$NAME`, Bash's spelling, so the
//! checks on secret-looking names apply), and `\` separators written as `/`.

use super::Dialect;
use crate::local::shell::{Word, WordKind};

/// The place a Windows environment variable names, as a path sentinel resolves; None for a
/// variable whose value is not a known place.
pub(super) fn env_place(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_uppercase().as_str() {
        "USERPROFILE" | "HOME" => "~",
        "APPDATA" => "~/AppData/Roaming",
        "LOCALAPPDATA" => "~/AppData/Local",
        "TEMP" | "TMP" => "~/AppData/Local/Temp",
        "ONEDRIVE" => "~/OneDrive",
        "PROGRAMFILES" | "PROGRAMW6432" => "C:/Program Files",
        "PROGRAMFILES(X86)" => "C:/Program Files (x86)",
        "PROGRAMDATA" | "ALLUSERSPROFILE" => "C:/ProgramData",
        "SYSTEMROOT" | "WINDIR" => "C:/Windows",
        "SYSTEMDRIVE" | "HOMEDRIVE" => "C:",
        "HOMEPATH" => "/Users/you",
        "PUBLIC" => "C:/Users/Public",
        "CD" => ".",
        _ => return None,
    })
}

/// The place a PowerShell automatic variable names (`$HOME`, `$PWD`, `$PROFILE`).
pub(super) fn automatic_place(name: &str, shell: Dialect) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "home" => "~",
        "pwd" => ".",
        // The profile runs at every start of PowerShell: written, it runs code later.
        "profile" => match shell {
            Dialect::Pwsh => "~/Documents/PowerShell/Microsoft.PowerShell_profile.ps1",
            _ => "~/Documents/WindowsPowerShell/Microsoft.PowerShell_profile.ps1",
        },
        _ => return None,
    })
}

/// A word being put together from its pieces.
#[derive(Default)]
pub(super) struct WordBuild {
    text: String,
    /// Every piece's value is known.
    unknown: bool,
    /// A `*` or `?`: a wildcard the command expands, quoted or not (cmd's built-ins and
    /// PowerShell's cmdlets expand it themselves: `Remove-Item '*'` deletes every file).
    glob: bool,
    /// Some piece was quoted (`""` is an empty word, not none).
    quoted: bool,
}

impl WordBuild {
    pub(super) fn text(&mut self, s: &str, quoted: bool) {
        if s.contains(['*', '?']) {
            self.glob = true;
        }
        self.quoted |= quoted;
        self.text.push_str(s);
    }

    pub(super) fn char(&mut self, c: char, quoted: bool) {
        if matches!(c, '*' | '?') {
            self.glob = true;
        }
        self.quoted |= quoted;
        self.text.push(c);
    }

    /// An environment variable: the place it names, or `$NAME` unknown.
    pub(super) fn env(&mut self, name: &str) {
        match env_place(name) {
            Some(place) => self.text.push_str(place),
            None => self.unknown(&format!("${name}")),
        }
    }

    /// A piece whose value is not known, shown as `shown`.
    pub(super) fn unknown(&mut self, shown: &str) {
        self.unknown = true;
        self.text.push_str(shown);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.text.is_empty() && !self.quoted && !self.unknown
    }

    pub(super) fn finish(self) -> Word {
        let text = windows_separators(self.text);
        // `C:` and `C:x` are relative to drive C's current folder, which is not known.
        let b = text.as_bytes();
        let drive_relative = b.len() >= 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && !matches!(b.get(2), Some(b'/'));
        let kind = if self.unknown || drive_relative {
            WordKind::Computed
        } else if self.glob {
            WordKind::Glob
        } else {
            WordKind::Literal
        };
        Word {
            text,
            kind,
            value: None,
        }
    }
}

/// `\` is the path separator on Windows, never an escape in cmd or PowerShell: a word that is a
/// path gets `/`. A word with spaces or quotes in it (a message, code for `python -c`) is left as
/// it is, unless it starts as a path does.
fn windows_separators(text: String) -> String {
    if !text.contains('\\') {
        return text;
    }
    let b = text.as_bytes();
    let starts_as_path = (b.len() >= 3 && b[1] == b':' && b[0].is_ascii_alphabetic())
        || text.starts_with(".\\")
        || text.starts_with("..\\")
        || text.starts_with("~\\")
        || text.starts_with("~/")
        || text.starts_with("\\\\");
    if starts_as_path || !text.contains([' ', '\t', '"', '\'', '(', ')', '{', '}']) {
        return text.replace('\\', "/");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(pieces: &[(&str, bool)]) -> Word {
        let mut w = WordBuild::default();
        for (p, q) in pieces {
            w.text(p, *q);
        }
        w.finish()
    }

    #[test]
    fn paths_get_forward_slashes() {
        assert_eq!(word(&[(r"src\main.ts", false)]).text, "src/main.ts");
        assert_eq!(
            word(&[(r"C:\Program Files\x", true)]).text,
            "C:/Program Files/x"
        );
        assert_eq!(
            word(&[(r"\\server\share\x", false)]).text,
            "//server/share/x"
        );
        assert_eq!(word(&[(r"print('a\n b')", true)]).text, r"print('a\n b')");
    }

    #[test]
    fn places_and_unknowns() {
        let mut w = WordBuild::default();
        w.env("UserProfile");
        w.text(r"\.ssh", false);
        let w = w.finish();
        assert_eq!((w.text.as_str(), w.kind), ("~/.ssh", WordKind::Literal));
        let mut w = WordBuild::default();
        w.env("GITHUB_TOKEN");
        let w = w.finish();
        assert_eq!(
            (w.text.as_str(), w.kind),
            ("$GITHUB_TOKEN", WordKind::Computed)
        );
        assert_eq!(word(&[("C:", false)]).kind, WordKind::Computed);
        assert_eq!(word(&[("*.ts", false)]).kind, WordKind::Glob);
        assert_eq!(word(&[("*.ts", true)]).kind, WordKind::Glob);
    }
}
