//! Where a path is: resolved from a word, in the project, a safe or temp place, protected,
//! excluded, one of the agents' own settings; and whether a host is this machine.

use super::*;

/// Resolves a word in a path position to every real path it names: one, or each match of a
/// glob (the glob itself when nothing matches, as bash passes it on). None when it cannot be
/// known before the command runs.
pub fn resolve_all(word: &Word, base: Option<&Path>, ctx: &Context) -> Option<Vec<PathBuf>> {
    resolve_all_as(word, base, ctx, true)
}

/// As [`resolve_all`], for a path a program removes or renames (`rm`, `unlink`, `mv`): a link
/// at its end is the link itself, not where it leads (`rm link` removes the link). Written
/// with a trailing `/` (`rm -r link/`) the link is followed, as the system call does.
pub fn resolve_all_unfollowed(
    word: &Word,
    base: Option<&Path>,
    ctx: &Context,
) -> Option<Vec<PathBuf>> {
    resolve_all_as(word, base, ctx, follows_last(&word.text))
}

/// Whether the last component of a path written so is followed even by a call that does not
/// follow links (`link/`, `link/.`).
pub fn follows_last(text: &str) -> bool {
    text.ends_with('/')
        || text.ends_with("/.")
        || text == "."
        || text.ends_with("/..")
        || text == ".."
}

fn resolve_all_as(
    word: &Word,
    base: Option<&Path>,
    ctx: &Context,
    follow: bool,
) -> Option<Vec<PathBuf>> {
    let real = |p: &Path| -> PathBuf {
        match (follow, p.parent(), p.file_name()) {
            (false, Some(dir), Some(name)) => ctx.fs.real_path(dir).join(name),
            _ => ctx.fs.real_path(p),
        }
    };
    let literal = real(&lexical_path(word, base, ctx)?);
    if word.kind != WordKind::Glob {
        return Some(vec![literal]);
    }
    let lexical = {
        let absolute = word.text.starts_with('/') || shell::is_home_ref(&word.text);
        let b = if absolute { ctx.cwd } else { base? };
        paths::resolve(&word.text, b, ctx.home)?
    };
    match ctx.fs.glob(&lexical) {
        Some(found) if !found.is_empty() => {
            let mut out: Vec<PathBuf> = found.iter().map(|p| real(p)).collect();
            out.push(literal);
            Some(out)
        }
        _ => Some(vec![literal]),
    }
}

/// As [`resolve_word`], for a path a program removes or renames: a link at its end is the link
/// itself (see [`resolve_all_unfollowed`]).
pub fn resolve_word_unfollowed(word: &Word, cwd: Option<&Path>, ctx: &Context) -> Option<PathBuf> {
    let p = lexical_path(word, cwd, ctx)?;
    Some(
        match (follows_last(&word.text), p.parent(), p.file_name()) {
            (false, Some(dir), Some(name)) => ctx.fs.real_path(dir).join(name),
            _ => ctx.fs.real_path(&p),
        },
    )
}

/// Resolves a word to a real path, or None when its value is not known.
pub fn resolve_word(word: &Word, cwd: Option<&Path>, ctx: &Context) -> Option<PathBuf> {
    Some(ctx.fs.real_path(&lexical_path(word, cwd, ctx)?))
}

/// A word made absolute, `~`, `$HOME`, `$PWD` and `..` resolved, no link followed.
fn lexical_path(word: &Word, cwd: Option<&Path>, ctx: &Context) -> Option<PathBuf> {
    let text = match word.kind {
        WordKind::Computed if shell::is_home_ref(&word.text) || paths::is_pwd_ref(&word.text) => {
            word.text.as_str()
        }
        WordKind::Computed => word.value.as_deref()?,
        _ => word.text.as_str(),
    };
    if text.contains("$(") || text.contains('`') {
        return None;
    }
    let absolute =
        text.starts_with('/') || shell::is_home_ref(text) || paths::is_windows_path(text);
    let base = match cwd {
        Some(c) => c,
        None if absolute => ctx.cwd,
        None => return None,
    };
    paths::resolve(text, base, ctx.home)
}

/// Inside the project, where the agent works.
pub fn in_project(path: &Path, ctx: &Context) -> bool {
    paths::is_within(path, ctx.project())
}

/// Where writing is fine: the project, or a safe path.
pub fn in_safe_area(path: &Path, rules: &Rules, ctx: &Context) -> bool {
    in_project(path, ctx) || rules.safe_paths().matches(path).is_some()
}

/// The protected-places line `path` falls under, when it is inside the project.
pub fn protected<'r>(path: &Path, rules: &'r Rules, ctx: &Context) -> Option<&'r RuleRef> {
    let rel = path.strip_prefix(ctx.project()).ok()?;
    if rel.as_os_str().is_empty() {
        return None;
    }
    rules.protected_paths().matches(rel)
}

/// A protected-places line's `# why`, as a reason's tail: ` (hooks pre-commit runs …)`.
pub fn protected_why(rule: &RuleRef) -> String {
    rule.why
        .as_deref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default()
}

/// `$TMPDIR/…`, `${TMPDIR}/…`, `${TMPDIR:-/tmp}/…`
pub fn is_temp_ref(text: &str) -> bool {
    [
        "$TMPDIR",
        "${TMPDIR}",
        "${TMPDIR:-/tmp}",
        "${TMPDIR:-/var/tmp}",
    ]
    .iter()
    .any(|t| {
        text.strip_prefix(t)
            .is_some_and(|rest| rest.is_empty() || (rest.starts_with('/') && !rest.contains("..")))
    })
}

/// A deny part when `path` is part of the agent's guard (built in, whatever the rules say) or
/// in the excluded list.
pub fn excluded(path: &Path, shown: &str, rules: &Rules, ctx: &Context) -> Option<Part> {
    if let Some(what) = guard_file(path, ctx) {
        return Some(Part::person_only(format!(
            "`{shown}` is {what}: an agent may not change its own guard; only the person edits it, in their own terminal"
        )));
    }
    let rule = rules.excluded_paths().matches(path)?;
    Some(Part::new(
        Verdict::Deny,
        if Path::new(shown) == path {
            format!("`{shown}` is an excluded path")
        } else {
            format!("`{shown}` is an excluded path ({})", path.display())
        },
        Some(rule.clone()),
    ))
}

/// Agent settings files that register hooks or permissions, as trailing path components
/// (compared case-insensitively: macOS and Windows file systems are).
const AGENT_SETTINGS: &[&[&str]] = &[
    &[".claude", "settings.json"],
    &[".claude", "settings.local.json"],
    &[".claude.json"],
    &[".gemini", "settings.json"],
    &[".cursor", "hooks.json"],
    &[".codex", "hooks.json"],
    &[".codex", "config.toml"],
];

/// What part of the agent's guard `path` is, if it is one: SENTINEL_HOME, a project's
/// `.sentinel/` rules, or an agent's settings or hook registrations.
pub fn guard_file(path: &Path, ctx: &Context) -> Option<String> {
    if paths::is_within(path, ctx.sentinel_home_real()) {
        return Some(format!(
            "inside SENTINEL_HOME ({})",
            ctx.sentinel_home_real().display()
        ));
    }
    // Components compared as bytes, ASCII case ignored (every name here is ASCII lower case):
    // no lower-cased copy of each.
    let parts: Vec<&[u8]> = path
        .components()
        .map(|c| c.as_os_str().as_encoded_bytes())
        .collect();
    let is = |part: &[u8], name: &str| part.eq_ignore_ascii_case(name.as_bytes());
    if parts.iter().any(|p| is(p, crate::config::PROJECT_DIR)) {
        return Some(format!(
            "in a project's {}/ rules",
            crate::config::PROJECT_DIR
        ));
    }
    for tail in AGENT_SETTINGS {
        if parts.len() >= tail.len()
            && parts[parts.len() - tail.len()..]
                .iter()
                .zip(tail.iter())
                .all(|(p, t)| is(p, t))
        {
            return Some("an agent settings file".to_string());
        }
    }
    // Copilot CLI's and GitHub's hook directories: every file inside registers hooks.
    let dirs = parts
        .windows(2)
        .any(|w| (is(w[0], ".github") || is(w[0], ".copilot")) && is(w[1], "hooks"));
    dirs.then(|| "in an agent's hook directory".to_string())
}

/// The `HOST/PORT` of bash's `/dev/tcp/HOST/PORT` or `/dev/udp/…`: a socket, not a device.
pub fn socket_path(text: &str) -> Option<&str> {
    text.strip_prefix("/dev/tcp/")
        .or_else(|| text.strip_prefix("/dev/udp/"))
}

/// `https://…`, `npm:x`, `jsr:@a/b`, `data:…`: a scheme, not a file.
pub(super) fn is_url_like(text: &str) -> bool {
    match text.split_once(':') {
        Some((scheme, _)) => {
            scheme.len() > 1
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// A URL or `host[:port]` on this machine.
pub fn is_local_host(target: &str) -> bool {
    let rest = match target.split_once("://") {
        // Only the web's schemes: `gopher://127.0.0.1:6379/_FLUSHALL` speaks Redis.
        Some((scheme, rest)) => {
            if !matches!(
                scheme.to_ascii_lowercase().as_str(),
                "http" | "https" | "ws" | "wss"
            ) {
                return false;
            }
            rest
        }
        None => target,
    };
    // The authority ends at the first `/`, `?` or `#`; only then is a `user@` cut off
    // (`http://evil.example#@localhost/` is evil.example).
    let rest = rest.split(['/', '?', '#']).next().unwrap_or("");
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        rest.split([':', '/', '?', '#']).next().unwrap_or("")
    };
    let host = host.to_ascii_lowercase();
    // Without a scheme curl picks one from the host's first label (`dict.localhost:6379`
    // speaks DICT to Redis): only a host it would talk HTTP to is a web host.
    if !target.contains("://")
        && [
            "dict.", "ftp.", "ldap.", "imap.", "pop3.", "smtp.", "gopher.", "telnet.", "smb.",
        ]
        .iter()
        .any(|p| host.starts_with(p))
    {
        return false;
    }
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host == "0.0.0.0"
        || host == "host.docker.internal"
        || host.strip_prefix("127.").is_some_and(|r| {
            r.split('.').count() == 3 && r.split('.').all(|o| o.parse::<u8>().is_ok())
        })
}
