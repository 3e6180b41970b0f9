//! Subcommand names given shortened, for programs whose spec says they accept it
//! (`abbreviations = "colon-parts"`: Symfony Console, under Laravel's artisan, Symfony's
//! bin/console, Magento …). Each colon-separated part may be cut to a prefix: `d:s:d` is
//! `doctrine:schema:drop`, `migrate:fr` is `migrate:fresh`.
//!
//! Read as Symfony's `Application::find` reads it: a name matches when each typed part starts
//! the name's part in the same place (case-sensitive first, then ignoring case); the typed
//! name must have as many parts as some match, and a match may have more (`mig` reaches
//! `migrate` and `migrate:fresh`, so it is ambiguous). One match: that command. Several: the
//! program refuses to run, but the project's commands are not all in the spec, so the command
//! is judged as each of them (the worst stands). None: no spec knows it (uncertain).

use super::Specs;
use super::options;
use crate::shell::{SimpleCommand, Word};

/// The commands `cmd` may be when it names a subcommand by an abbreviation its program
/// accepts: one per full name it can stand for. None when it is not such a command.
pub fn expand(cmd: &SimpleCommand, specs: &Specs) -> Option<Vec<SimpleCommand>> {
    let first = cmd.argv.first()?;
    if !first.is_literal() || cmd.argv.len() < 2 {
        return None;
    }
    let program = specs.program(&first.text)?;
    if !program.abbreviations {
        return None;
    }
    let reading = options::read(&cmd.argv, specs)?;
    if !reading.unknown_subcommand || reading.chain.len() != 1 {
        return None;
    }
    let at = reading.unknown_subcommand_at;
    let typed = cmd.argv.get(at).filter(|w| w.is_literal())?;
    let names = specs.subcommand_names(&program.name);
    let full = matches(&typed.text, &names);
    if full.is_empty() {
        return None;
    }
    Some(
        full.into_iter()
            .map(|name| {
                let mut c = cmd.clone();
                c.argv[at] = Word::literal(name);
                c
            })
            .collect(),
    )
}

/// The full names `typed` stands for among `names` (a pattern part such as `make:*`'s `*`
/// takes the typed part as it is, so the pattern's section still reads it).
pub fn matches(typed: &str, names: &[String]) -> Vec<String> {
    let parts: Vec<&str> = typed.split(':').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Vec::new();
    }
    for ignore_case in [false, true] {
        let found: Vec<(&String, bool)> = names
            .iter()
            .filter_map(|n| starts(&parts, n, ignore_case).map(|whole| (n, whole)))
            .collect();
        if found.is_empty() {
            continue;
        }
        // Only names longer than what was typed (a namespace's commands): not a command.
        if !found.iter().any(|(_, whole)| *whole) {
            return Vec::new();
        }
        let mut out: Vec<String> = found
            .into_iter()
            .map(|(n, _)| {
                n.split(':')
                    .enumerate()
                    .map(|(i, part)| match parts.get(i) {
                        Some(t) if part.contains('*') => *t,
                        _ => part,
                    })
                    .collect::<Vec<_>>()
                    .join(":")
            })
            .collect();
        out.dedup();
        return out;
    }
    Vec::new()
}

/// Whether each typed part starts the name's part in its place: Some(true) when the name has
/// no more parts than were typed.
fn starts(typed: &[&str], name: &str, ignore_case: bool) -> Option<bool> {
    let parts: Vec<&str> = name.split(':').collect();
    if parts.len() < typed.len() {
        return None;
    }
    let fits = typed.iter().zip(&parts).all(|(t, p)| {
        p.contains('*')
            || if ignore_case {
                p.len() >= t.len()
                    && p.is_char_boundary(t.len())
                    && p[..t.len()].eq_ignore_ascii_case(t)
            } else {
                p.starts_with(t)
            }
    });
    fits.then_some(parts.len() == typed.len())
}

#[cfg(test)]
mod tests {
    use super::matches;

    fn names() -> Vec<String> {
        [
            "migrate",
            "migrate:fresh",
            "migrate:refresh",
            "migrate:reset",
            "migrate:status",
            "doctrine:schema:drop",
            "doctrine:schema:update",
            "doctrine:database:drop",
            "make:*",
            "cache:clear",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn each_part_is_a_prefix_as_symfony_reads_it() {
        let n = names();
        assert_eq!(matches("migrate:fr", &n), ["migrate:fresh"]);
        assert_eq!(matches("d:s:d", &n), ["doctrine:schema:drop"]);
        assert_eq!(matches("do:da:d", &n), ["doctrine:database:drop"]);
        assert_eq!(matches("MIGRATE:FR", &n), ["migrate:fresh"]);
        assert_eq!(matches("ma:model", &n), ["make:model"]);
        // Several: every one of them.
        assert_eq!(
            matches("migrate:re", &n),
            ["migrate:refresh", "migrate:reset"]
        );
        assert_eq!(matches("d:s", &n).len(), 0, "a namespace is no command");
        assert_eq!(
            matches("mig", &n).len(),
            5,
            "`mig` reaches every migrate command"
        );
        assert!(matches("zz", &n).is_empty());
        assert!(matches("d::d", &n).is_empty());
    }
}
