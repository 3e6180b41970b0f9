//! Tier 1 for MCP tools that are not read as a built-in call (issue 42), for a shell server's
//! command run in a directory of its own, and for requests out (`WebFetch`, `WebSearch`, fetch
//! servers). docs/mcp.md says what each gets and why.
//!
//! An MCP tool is judged by the first spec in `rules/mcp/*.toml` whose names (and servers) match
//! it, and always by a scan of its input's string values: a secret value the session read or a
//! key shape → deny; a credential path → ask (a server that reads it and a network in one call
//! → deny); a destructive word (`words.toml`) → its verdict. A tool no spec knows is uncertain
//! at least, never left without an answer. The verdict is the maximum of the parts.

use crate::call::{ToolCall, mcp as call_mcp};
use crate::decision::{CommandReport, Decision, RuleRef, Verdict};
use crate::local::context::Context;
use crate::local::destructive_words::{self, Word, line_of, rule, verdict_of};
use crate::local::paths::{self as local_paths, credentials};
use crate::local::policy::judge::hard_block;
use crate::local::policy::outcome::combine;
use crate::local::spec::sql;
use crate::rules::Rules;
use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The bundled spec files, in the order they are tried.
const FILES: &[(&str, &str)] = &[
    ("mcp/sql.toml", include_str!("../../rules/mcp/sql.toml")),
    ("mcp/git.toml", include_str!("../../rules/mcp/git.toml")),
    (
        "mcp/github.toml",
        include_str!("../../rules/mcp/github.toml"),
    ),
    (
        "mcp/kubernetes.toml",
        include_str!("../../rules/mcp/kubernetes.toml"),
    ),
    (
        "mcp/docker.toml",
        include_str!("../../rules/mcp/docker.toml"),
    ),
    ("mcp/fetch.toml", include_str!("../../rules/mcp/fetch.toml")),
];
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    #[serde(default)]
    tool: Vec<RawSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    names: Vec<String>,
    #[serde(default)]
    servers: Vec<String>,
    #[serde(default = "uncertain")]
    verdict: String,
    reason: String,
    instead: Option<String>,
    #[serde(default)]
    sql: Vec<String>,
    #[serde(default)]
    url: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    /// Fields naming the git repository the server runs git in (its config and hooks run).
    #[serde(default)]
    repository: Vec<String>,
    /// Fields listing paths the server stages, relative to that repository (`git_add`).
    #[serde(default)]
    stages: Vec<String>,
    /// Fields the server passes to its program as arguments (`git diff TARGET`).
    #[serde(default)]
    argv: Vec<String>,
    #[serde(default)]
    when: Vec<RawWhen>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWhen {
    field: String,
    #[serde(rename = "in", default)]
    any_of: Vec<String>,
    is: Option<bool>,
    verdict: String,
    reason: String,
    instead: Option<String>,
}

fn uncertain() -> String {
    "uncertain".into()
}

/// One spec, checked.
pub struct Spec {
    names: Vec<String>,
    servers: Vec<String>,
    verdict: Verdict,
    rule: RuleRef,
    sql: Vec<String>,
    url: Vec<String>,
    paths: Vec<String>,
    repository: Vec<String>,
    stages: Vec<String>,
    argv: Vec<String>,
    when: Vec<When>,
}

struct When {
    field: String,
    any_of: Vec<String>,
    is: Option<bool>,
    verdict: Verdict,
    rule: RuleRef,
}

struct Loaded {
    specs: Vec<Spec>,
    words: Vec<Word>,
}

/// Reads and checks the bundled specs: every deny has an alternative, every pattern compiles.
fn load() -> Result<Loaded, String> {
    let mut specs = Vec::new();
    for (file, text) in FILES {
        let parsed: SpecFile = toml::from_str(text).map_err(|e| format!("rules/{file}: {e}"))?;
        let mut when_n = 0;
        for (i, raw) in parsed.tool.into_iter().enumerate() {
            let at = line_of(text, "[[tool]]", i);
            let verdict =
                verdict_of(&raw.verdict).map_err(|e| format!("rules/{file}:{at}: {e}"))?;
            if verdict == Verdict::Deny && raw.instead.is_none() {
                return Err(format!("rules/{file}:{at}: a deny needs `instead`"));
            }
            if raw.names.is_empty() {
                return Err(format!("rules/{file}:{at}: no names"));
            }
            let mut when = Vec::new();
            for w in raw.when {
                let wat = line_of(text, "[[tool.when]]", when_n);
                when_n += 1;
                let v = verdict_of(&w.verdict).map_err(|e| format!("rules/{file}:{wat}: {e}"))?;
                if v == Verdict::Deny && w.instead.is_none() {
                    return Err(format!("rules/{file}:{wat}: a deny needs `instead`"));
                }
                if w.any_of.is_empty() == w.is.is_none() {
                    return Err(format!("rules/{file}:{wat}: give one of `in` and `is`"));
                }
                when.push(When {
                    rule: rule(
                        file,
                        wat,
                        format!("{} when {}", raw.names[0], w.field),
                        &w.reason,
                        w.instead.as_deref(),
                    ),
                    field: w.field,
                    any_of: w.any_of.iter().map(|a| a.to_ascii_lowercase()).collect(),
                    is: w.is,
                    verdict: v,
                });
            }
            specs.push(Spec {
                rule: rule(
                    file,
                    at,
                    raw.names.join(" "),
                    &raw.reason,
                    raw.instead.as_deref(),
                ),
                names: raw.names,
                servers: raw.servers.iter().map(|s| s.to_ascii_lowercase()).collect(),
                verdict,
                sql: raw.sql,
                url: raw.url,
                paths: raw.paths,
                repository: raw.repository,
                stages: raw.stages,
                argv: raw.argv,
                when,
            });
        }
    }
    let words = destructive_words::load()?;
    Ok(Loaded { specs, words })
}

fn loaded() -> &'static Result<Loaded, String> {
    static L: OnceLock<Result<Loaded, String>> = OnceLock::new();
    L.get_or_init(load)
}

/// Whether the bundled MCP specs load (for `rules lint` and the tests); the error otherwise.
pub fn check_bundled() -> Result<usize, String> {
    match loaded() {
        Ok(l) => Ok(l.specs.len() + l.words.len()),
        Err(e) => Err(e.clone()),
    }
}

fn name_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// The first spec for the tool `name` of `server`.
fn spec_for<'a>(specs: &'a [Spec], server: &str, name: &str) -> Option<&'a Spec> {
    let server = server.to_ascii_lowercase();
    specs.iter().find(|s| {
        s.names.iter().any(|n| name_matches(n, name))
            && (s.servers.is_empty() || s.servers.iter().any(|w| server.contains(w.as_str())))
    })
}

/// A request out: WebFetch's URL, WebSearch's query, a fetch server's URL.
pub fn fetch_decision(
    tool: &str,
    text: &str,
    seen: &[String],
    rules: &Rules,
    ctx: &Context,
) -> Decision {
    let mut reports = crate::local::outgoing::judged(text, seen, rules, ctx);
    reports.push(CommandReport::plain(
        crate::text::excerpt(text),
        Verdict::Allow,
        "carries no secret the session read and no key",
        None,
    ));
    let mut d = combine(tool, reports);
    if d.verdict == Verdict::Allow {
        d.reason = format!(
            "sentinel[local]: allowed: {tool} of `{}` carries no secret value the session read and no key",
            crate::text::excerpt(text)
        );
    }
    d
}

/// A shell server's command, run in the directory the tool names (`~` expanded, a relative one
/// from the session's cwd), and the same arguments joined unquoted when one holds shell syntax.
pub fn mcp_shell_decision(
    tool: &str,
    command: &str,
    raw: Option<&str>,
    dir: Option<&str>,
    ctx: &Context,
    decide: &dyn Fn(&ToolCall, &Context) -> Option<Decision>,
) -> Decision {
    let shell = |c: &str| ToolCall::Shell {
        command: c.to_string(),
    };
    let resolved: Option<PathBuf> = match dir {
        None => Some(ctx.cwd.to_path_buf()),
        Some(d) if d.contains('$') || d.contains('`') => None,
        Some(d) => local_paths::resolve(d, ctx.cwd, ctx.home),
    };
    let judge = |c: &str| -> Decision {
        let nothing = || {
            Decision::local(
                tool,
                Verdict::Uncertain,
                "sentinel[local]: uncertain: no decision",
                None,
            )
        };
        match &resolved {
            Some(d) => {
                let inner = Context::new(d, ctx.home, ctx.sentinel_home, ctx.fs, ctx.taint)
                    .with_project(ctx.project())
                    .with_writes(ctx.writes)
                    .with_programs(ctx.programs)
                    .with_fenced(false);
                decide(&shell(c), &inner).unwrap_or_else(nothing)
            }
            None => decide(&shell(c), ctx).unwrap_or_else(nothing),
        }
    };
    let mut d = judge(command);
    if let Some(r) = raw {
        let other = judge(r);
        if other.verdict > d.verdict {
            d = other;
        }
    }
    d.tool = tool.to_string();
    let place = match (dir, &resolved) {
        (Some(given), Some(p)) => {
            format!("run by the MCP server in {} (its `{given}`)", p.display())
        }
        (Some(given), None) => {
            format!("run by the MCP server in `{given}`, a directory not known before it runs")
        }
        (None, _) => "run by the MCP server, its arguments as one command line".to_string(),
    };
    if resolved.is_none() && d.verdict < Verdict::Uncertain {
        d.verdict = Verdict::Uncertain;
        d.rule = None;
        d.reason = format!("sentinel[local]: uncertain: `{command}` {place}");
    } else {
        let rest = d
            .reason
            .strip_prefix("sentinel[local]: ")
            .unwrap_or(&d.reason);
        d.reason = format!("sentinel[local]: {place}: {rest}");
    }
    if let Some(p) = resolved {
        d.cwd = p.display().to_string();
    }
    d
}

/// Any other MCP tool: its spec, then its input.
pub fn mcp_decision(
    tool: &str,
    input: &Value,
    seen: &[String],
    rules: &Rules,
    ctx: &Context,
) -> Decision {
    let (server, name) = call_mcp::names(tool).unwrap_or(("", tool));
    let loaded = match loaded() {
        Ok(l) => l,
        Err(e) => {
            return Decision::local(
                tool,
                Verdict::Ask,
                format!(
                    "sentinel[local]: ask: the bundled MCP specs do not load ({e}); the person decides"
                ),
                None,
            );
        }
    };
    let spec = spec_for(&loaded.specs, server, name);
    let field_str = |f: &str| input.get(f).and_then(Value::as_str);
    let mut reports: Vec<CommandReport> = Vec::new();
    // Fields the spec reads itself (SQL, URLs): the words are not tried on them.
    let mut own_fields: Vec<&str> = Vec::new();
    match spec {
        Some(s) => {
            let mut verdict = s.verdict;
            let mut reason = s.rule.why.as_deref().unwrap_or("").to_string();
            if !s.sql.is_empty() {
                match s.sql.iter().find_map(|f| field_str(f).map(|v| (f, v))) {
                    Some((f, q)) => {
                        own_fields.push(f);
                        if verdict == Verdict::Allow && !sql::is_read_only(q, &rules.known) {
                            verdict = Verdict::Uncertain;
                            reason = "SQL that does more than read (a write, a schema change, a function sentinel does not know)".into();
                        }
                        for w in loaded.words.iter().filter(|w| !w.on_name && !w.on_request) {
                            if w.re.is_match(q.as_bytes()) {
                                reports.push(CommandReport::plain(
                                    crate::text::excerpt(q),
                                    w.verdict,
                                    w.rule.why.as_deref().unwrap_or(""),
                                    Some(w.rule.clone()),
                                ));
                            }
                        }
                    }
                    None if verdict == Verdict::Allow => {
                        verdict = Verdict::Uncertain;
                        reason = format!("no SQL in `{}` to read", s.sql.join("`, `"));
                    }
                    None => {}
                }
            }
            if !s.url.is_empty()
                && let Some((f, u)) = s.url.iter().find_map(|f| field_str(f).map(|v| (f, v)))
            {
                own_fields.push(f);
                reports.extend(crate::local::outgoing::judged(u, &[], rules, ctx));
            }
            for p in &s.paths {
                let Some(raw) = field_str(p) else { continue };
                let Some(path) = local_paths::resolve(raw, ctx.cwd, ctx.home) else {
                    continue;
                };
                let real = ctx.fs.real_path(&path);
                if verdict == Verdict::Allow && !local_paths::is_within(&real, ctx.project()) {
                    verdict = Verdict::Uncertain;
                    reason = format!("`{p}` {} is outside the project", real.display());
                }
            }
            if verdict == Verdict::Allow
                && let Some(why) = git_reach(s, input, rules, ctx)
            {
                verdict = Verdict::Uncertain;
                reason = why;
            }
            // A value the server hands its program as an argument is an option when it starts
            // with `-`: `git diff --output=~/.bashrc` writes anywhere.
            for f in &s.argv {
                let values: Vec<&str> = match input.get(f) {
                    Some(Value::String(t)) => vec![t.as_str()],
                    Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
                    _ => continue,
                };
                if let Some(v) = values.iter().find(|v| v.trim_start().starts_with('-')) {
                    reports.push(CommandReport::plain(
                        format!("{name} {f}={}", crate::text::excerpt(v)),
                        Verdict::Deny,
                        format!(
                            "`{f}` is passed to the server's program as an argument, where `{}` is read as an option (an option can write or run anything); instead: name a revision, branch or path that does not start with `-`",
                            crate::text::excerpt(v)
                        ),
                        Some(s.rule.clone()),
                    ));
                }
            }
            for w in &s.when {
                let Some(v) = input.get(&w.field) else {
                    continue;
                };
                let hit = match (v, w.is) {
                    (Value::Bool(b), Some(want)) => *b == want,
                    (Value::String(t), None) => w.any_of.contains(&t.to_ascii_lowercase()),
                    _ => false,
                };
                if hit {
                    reports.push(CommandReport::plain(
                        format!("{name} {}={v}", w.field),
                        w.verdict,
                        w.rule.why.as_deref().unwrap_or(""),
                        Some(w.rule.clone()),
                    ));
                }
            }
            let shown = format!("{name} on {server}");
            reports.push(CommandReport::plain(
                shown,
                verdict,
                match verdict {
                    Verdict::Allow | Verdict::Deny => reason,
                    _ => format!("{name} on the MCP server `{server}`: {reason}"),
                },
                Some(s.rule.clone()),
            ));
        }
        None => {
            for w in loaded.words.iter().filter(|w| w.on_name) {
                if w.re.is_match(name.as_bytes()) {
                    reports.push(CommandReport::plain(
                        name,
                        w.verdict,
                        format!(
                            "`{name}` on the MCP server `{server}`: {}",
                            w.rule.why.as_deref().unwrap_or("")
                        ),
                        Some(w.rule.clone()),
                    ));
                }
            }
            reports.push(CommandReport::plain(
                format!("{name} on {server}"),
                Verdict::Uncertain,
                format!("`{name}` on the MCP server `{server}` is a tool sentinel has no spec for; its input shows no secret, credential or destructive word"),
                None,
            ));
        }
    }
    reports.extend(input_scan(
        input,
        &own_fields,
        seen,
        &loaded.words,
        rules,
        ctx,
    ));
    let mut d = combine(tool, reports);
    d.cwd = ctx.cwd.to_string_lossy().into_owned();
    d
}

/// The input's string values judged: secrets, credential paths (with a host: deny), the words.
fn input_scan(
    input: &Value,
    skip: &[&str],
    seen: &[String],
    words: &[Word],
    rules: &Rules,
    ctx: &Context,
) -> Vec<CommandReport> {
    let mut scanned = input.clone();
    if let Value::Object(map) = &mut scanned {
        for f in skip {
            map.remove(*f);
        }
    }
    let values = call_mcp::strings(&scanned);
    let all = values.join("\n");
    let mut out = crate::local::outgoing::judged(&all, seen, rules, ctx);
    let mut credential = None;
    let mut host = None;
    for v in &values {
        for w in words.iter().filter(|w| !w.on_name && !w.on_request) {
            if w.re.is_match(v.as_bytes()) {
                out.push(CommandReport::plain(
                    crate::text::excerpt(v),
                    w.verdict,
                    w.rule.why.as_deref().unwrap_or(""),
                    Some(w.rule.clone()),
                ));
            }
        }
        for line in v.lines().take(200) {
            if let Some(part) = hard_block(&[line.trim()], rules) {
                out.push(part.into_report(crate::text::excerpt(line), Vec::new(), None));
            }
        }
        if host.is_none()
            && let Some(h) = host_in(v)
        {
            host = Some(h);
        }
        if credential.is_none() {
            credential = credential_in(v, rules, ctx);
        }
    }
    if let Some(c) = &credential {
        out.push(CommandReport::plain(
            c.clone(),
            Verdict::Ask,
            format!("its input names the credential file {c}, which the server may read"),
            None,
        ));
        if let Some(h) = &host {
            out.push(CommandReport::plain(
                c.clone(),
                Verdict::Deny,
                format!("its input names the credential file {c} and a host ({h}): a credential and the network in one call; instead: keep credential files out of tool input"),
                None,
            ));
        }
    }
    if call_mcp::cut(input) {
        out.push(CommandReport::plain(
            "…",
            Verdict::Uncertain,
            "its input is larger than sentinel reads (the rest was not judged)",
            None,
        ));
    }
    out
}

/// A host the value names: a URL's, or `user@host`.
fn host_in(v: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:https?|ftp|wss?|s3|gs|ssh|git)://(?:[^\s/@]*@)?([a-z0-9.\-]+)")
            .expect("a constant regex")
    });
    re.captures(v).map(|c| c[1].to_string())
}

/// A credential file a value names, as a path (whole, or a word of it that looks like one).
fn credential_in(v: &str, rules: &Rules, ctx: &Context) -> Option<String> {
    let whole = (!v.contains(char::is_whitespace)).then_some(v);
    for word in whole.into_iter().chain(v.split_whitespace()).take(64) {
        let w = word.trim_matches(|c: char| matches!(c, '"' | '\'' | ',' | ';' | '(' | ')'));
        let w = w.strip_prefix("file://").unwrap_or(w);
        if !(w.starts_with('/') || w.starts_with('~') || w.starts_with('.') || w.contains('/'))
            || w.contains("://")
        {
            continue;
        }
        let Some(p) = local_paths::resolve(w, ctx.cwd, ctx.home) else {
            continue;
        };
        let real = ctx.fs.real_path(&p);
        if let Some(cred) =
            credentials::credential(&real, rules).or_else(|| credentials::credential(&p, rules))
        {
            return Some(format!("{} ({})", p.display(), cred.pattern));
        }
    }
    None
}

/// What git reads beyond the tool's named files (`repository`, `stages` fields), as the
/// uncertain reason ([`crate::local::policy::git_reach`]).
fn git_reach(s: &Spec, input: &Value, rules: &Rules, ctx: &Context) -> Option<String> {
    if s.repository.is_empty() && s.stages.is_empty() {
        return None;
    }
    let repo = s
        .repository
        .iter()
        .find_map(|f| input.get(f).and_then(Value::as_str));
    let mut staged = Vec::new();
    for f in &s.stages {
        match input.get(f) {
            Some(Value::String(t)) => staged.push((f.as_str(), t.as_str())),
            Some(Value::Array(a)) => {
                staged.extend(a.iter().filter_map(Value::as_str).map(|v| (f.as_str(), v)))
            }
            _ => {}
        }
    }
    crate::local::policy::git_reach(repo, !s.repository.is_empty(), &staged, rules, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_specs_load_and_every_deny_says_what_to_do_instead() {
        let n = check_bundled().unwrap();
        assert!(n > 20, "{n}");
        let l = loaded().as_ref().unwrap();
        for s in &l.specs {
            assert!(s.rule.line > 0, "{}", s.rule.pattern);
            if s.verdict == Verdict::Deny {
                assert!(s.rule.why.as_deref().unwrap().contains("; instead: "));
            }
        }
        let find = |server: &str, name: &str| {
            spec_for(&l.specs, server, name).map(|s| s.rule.file.to_string())
        };
        assert_eq!(
            find("github", "delete_repository").as_deref(),
            Some("mcp/github.toml")
        );
        assert_eq!(find("postgres", "query").as_deref(), Some("mcp/sql.toml"));
        assert_eq!(
            find("my-tools", "get_issue"),
            None,
            "reads are known by the server's name"
        );
        assert_eq!(
            find("kubernetes", "kubectl_delete").as_deref(),
            Some("mcp/kubernetes.toml")
        );
    }
}
