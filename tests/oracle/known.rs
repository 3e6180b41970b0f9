//! `tests/oracle/known.txt`: the violations of the classes still open (issue 28), one
//! `class | command` a line, so the oracle passes while each stays visible. A command ending in
//! ` *` stands for every command that starts with the rest.

use std::path::Path;

pub struct Known {
    /// (class, command or prefix, is a prefix, line number)
    entries: Vec<(String, String, bool, usize)>,
}

impl Known {
    pub fn load(root: &Path) -> Known {
        let path = root.join("tests/oracle/known.txt");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut entries = Vec::new();
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let Some((class, command)) = l.split_once(" | ") else {
                panic!("tests/oracle/known.txt:{}: not `class | command`", i + 1);
            };
            let (command, prefix) = match command.strip_suffix(" *") {
                Some(c) => (c.to_string(), true),
                None => (command.to_string(), false),
            };
            entries.push((class.trim().to_string(), command, prefix, i + 1));
        }
        Known { entries }
    }

    fn find(&self, class: &str, command: &str) -> Option<usize> {
        self.entries.iter().position(|(c, cmd, prefix, _)| {
            c == class && (cmd == command || (*prefix && command.starts_with(cmd.as_str())))
        })
    }

    /// Is this violation listed?
    pub fn covers(&self, class: &str, command: &str) -> bool {
        self.find(class, command).is_some()
    }

    /// The entries that name one of `commands` (exactly or as a prefix) and that no violation
    /// of `seen` (class, command) matched: fixed, so they should go.
    pub fn stale(&self, commands: &[&str], seen: &[(&str, &str)]) -> Vec<String> {
        let mut used = vec![false; self.entries.len()];
        for (class, command) in seen {
            if let Some(i) = self.find(class, command) {
                used[i] = true;
            }
        }
        self.entries
            .iter()
            .zip(used)
            .filter(|((_, cmd, prefix, _), used)| {
                !used
                    && commands
                        .iter()
                        .any(|c| *c == cmd || (*prefix && c.starts_with(cmd.as_str())))
            })
            .map(|((class, cmd, prefix, line), _)| {
                format!(
                    "tests/oracle/known.txt:{line}: {class} | {cmd}{}",
                    if *prefix { " *" } else { "" }
                )
            })
            .collect()
    }
}
