//! Names given a new meaning for the rest of the script: `alias ls='rm -rf ~'` and `hash -p
//! /bin/rm ls` make a later `ls` run something else. A later command by that name is also
//! walked as what it now runs (`rm -rf ~ …`), one level deeper, so a deny inside is found; the
//! command stands as written too, so this can only add to what is judged.

use super::*;

/// At most this many names are remembered.
const MAX_ALIASES: usize = 32;

impl Walker {
    /// Remembers what `alias` and `hash -p` bind, and walks a command whose name is bound as
    /// what it runs.
    pub(super) fn aliases(&mut self, argv: &[Word]) {
        let Some(name) = argv.first() else {
            return;
        };
        match name.text.as_str() {
            "alias" => {
                for w in &argv[1..] {
                    if let Some((n, v)) = w.text.split_once('=')
                        && !n.is_empty()
                        && !n.starts_with('-')
                    {
                        self.bind(n, v.to_string());
                    }
                }
            }
            "hash" => {
                // `hash -p PATH NAME…`: each NAME runs PATH.
                if let Some(at) = argv.iter().position(|w| w.text == "-p")
                    && let Some(path) = argv.get(at + 1)
                {
                    for n in &argv[at + 2..] {
                        self.bind(&n.text, crate::text::shell_word(&path.text));
                    }
                }
            }
            _ => {}
        }
        let Some(runs) = self
            .aliases
            .iter()
            .find(|(n, _)| *n == name.text)
            .map(|(_, v)| v.clone())
        else {
            return;
        };
        let mut text = runs;
        for w in &argv[1..] {
            text.push(' ');
            text.push_str(&crate::text::shell_word(&w.text));
        }
        let label = format!("alias {}", name.text);
        self.nested(&text, &label);
    }

    fn bind(&mut self, name: &str, runs: String) {
        match self.aliases.iter().position(|(n, _)| n == name) {
            Some(i) => self.aliases[i].1 = runs,
            None if self.aliases.len() < MAX_ALIASES => {
                self.aliases.push((name.to_string(), runs));
            }
            None => {}
        }
    }
}
