//! Which of the session's code files a run may load: the languages of what the call runs
//! (`python3 a.py` loads Python, `sh x.sh` shell sourced by a name it builds), or the tool's
//! line in `rules/runner_loads.txt` (`cargo` loads Rust). A call pays for reading the files its
//! run can load, not for every file the session wrote.

use super::Lang;

#[cfg(test)]
const FILE: &str = "runner_loads.txt";
const TEXT: &str = include_str!("../../../rules/runner_loads.txt");

/// Languages, one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Loads(u16);

const LANGS: [Lang; 8] = [
    Lang::Shell,
    Lang::Python,
    Lang::Js,
    Lang::Ruby,
    Lang::Perl,
    Lang::Php,
    Lang::Rust,
    Lang::Sqlite,
];

impl Loads {
    /// Nothing beyond the files named.
    pub(super) const NONE: Loads = Loads(0);
    /// Every language: a run sentinel cannot narrow.
    pub(super) const ALL: Loads = Loads(u16::MAX);

    pub(super) fn of(lang: Lang) -> Loads {
        Loads(1 << LANGS.iter().position(|l| *l == lang).unwrap_or(0))
    }

    pub(super) fn with(self, other: Loads) -> Loads {
        Loads(self.0 | other.0)
    }

    pub(super) fn holds(self, lang: Lang) -> bool {
        self.0 & Loads::of(lang).0 != 0
    }

    /// What a run of the program `name` (the project's tooling) may load: the language it
    /// interprets, else its line in the list; everything for a shell (`bash` running the
    /// project) or a tool the list does not name.
    pub(super) fn of_runner(name: &str) -> Loads {
        match Lang::of_program(name) {
            Some(Lang::Shell) | None => {}
            Some(l) => return Loads::of(l),
        }
        let base = name.rsplit('/').next().unwrap_or(name);
        // Only the tool's own line is read (the whole list parsed cost a call 50,000
        // instructions); a test holds every line to the format. A damaged line loads everything.
        crate::lists::entries(TEXT)
            .find(|e| e.split_whitespace().next() == Some(base))
            .and_then(|e| line(e).ok())
            .map_or(Loads::ALL, |(_, l)| l)
    }
}

/// One entry of the list: the tool and its languages.
fn line(entry: &str) -> Result<(&str, Loads), String> {
    let mut words = entry.split_whitespace();
    let (Some(name), Some(tags), None) = (words.next(), words.next(), words.next()) else {
        return Err(format!("want `NAME LANGUAGES`, got `{entry}`"));
    };
    let mut loads = Loads::NONE;
    if tags != "-" {
        for tag in tags.split(',') {
            let Some(l) = LANGS.iter().find(|l| l.tag() == tag) else {
                return Err(format!("unknown language `{tag}`"));
            };
            loads = loads.with(Loads::of(*l));
        }
    }
    Ok((name, loads))
}

/// The list's lines as (tool, languages); an error names the file and line.
#[cfg(test)]
fn parse(text: &str) -> Result<Vec<(String, Loads)>, String> {
    let mut out = Vec::new();
    for (i, text_line) in text.lines().enumerate() {
        let Some(entry) = crate::lists::entries(text_line).next() else {
            continue;
        };
        let (name, loads) = line(entry).map_err(|e| format!("{FILE}:{}: {e}", i + 1))?;
        out.push((name.to_string(), loads));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_list_reads() {
        let tools = parse(TEXT).unwrap();
        assert!(tools.len() >= 10);
        assert_eq!(Loads::of_runner("cargo"), Loads::of(Lang::Rust));
        assert_eq!(Loads::of_runner("/usr/bin/npm"), Loads::of(Lang::Js));
        assert_eq!(Loads::of_runner("python3.12"), Loads::of(Lang::Python));
        // Not narrowed: a tool the list does not name, a shell.
        assert_eq!(Loads::of_runner("make"), Loads::ALL);
        assert_eq!(Loads::of_runner("bash"), Loads::ALL);
        assert!(Loads::ALL.holds(Lang::Sqlite));
        assert!(!Loads::NONE.holds(Lang::Shell));
    }

    #[test]
    fn a_damaged_line_is_an_error_with_its_place() {
        let e = parse("# x\ncargo rs\npytest python # no such tag\n").unwrap_err();
        assert!(e.contains("runner_loads.txt:3"), "{e}");
        assert!(parse("cargo\n").unwrap_err().contains(":1"));
        assert_eq!(
            parse("go -  # none\n").unwrap(),
            [("go".to_string(), Loads::NONE)]
        );
    }
}
