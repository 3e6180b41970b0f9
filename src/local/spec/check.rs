//! The check that makes a spec section's checked form ([`super::checked`]) from its raw TOML
//! (`spec::raw::RawSpec`). Shared by `build.rs`, which checks every bundled section at build time
//! and stores the result (postcard), and the runtime, which checks a person's sections when it
//! loads them: both go through the same code, so a bundled section reads as its TOML does.

use super::checked::*;
use super::raw::RawSpec;
use std::collections::BTreeMap;

/// Checks one section's raw form (named `name`) and builds what sentinel reads of it; `line_of`
/// gives the line of the first line of the section that contains a text. An error is (line,
/// message).
pub fn check(
    raw: RawSpec,
    name: &str,
    line_of: &dyn Fn(&str) -> usize,
) -> Result<Checked, (usize, String)> {
    let err = |line: usize, message: String| (line, message);
    let declared = match raw.syntax.as_deref() {
        None => None,
        Some("gnu") => Some(Syntax::Gnu),
        Some("exact") => Some(Syntax::Exact),
        Some("posix") => Some(Syntax::Posix),
        Some("go") => Some(Syntax::Go),
        Some("single") => Some(Syntax::Single),
        Some("windows") => Some(Syntax::Windows),
        Some("powershell") => Some(Syntax::PowerShell),
        Some(other) => {
            return Err(err(
                line_of("syntax"),
                format!(
                    "unknown syntax `{other}`: gnu, exact, posix, go, single, windows or powershell"
                ),
            ));
        }
    };
    // Names are checked against the declared syntax; an inherited one allows any `-name`.
    let syntax = declared.unwrap_or(Syntax::Single);
    let mut options = Vec::new();
    if let Some(flags) = &raw.flags {
        for n in flags.split_whitespace() {
            check_name(n, syntax).map_err(|m| err(line_of(n), m))?;
            options.push(OptSpec {
                names: vec![n.to_string()],
                kind: OptKind::Flag,
                line: line_of(n),
            });
        }
    }
    for (names, meaning) in &raw.options {
        let line = line_of(&format!("\"{names}\""));
        let names: Vec<String> = names.split_whitespace().map(str::to_string).collect();
        if names.is_empty() {
            return Err(err(line, "an option with no name".into()));
        }
        for n in &names {
            check_name(n, syntax).map_err(|m| err(line, m))?;
        }
        let kind = opt_kind(meaning).map_err(|m| err(line, m))?;
        options.push(OptSpec { names, kind, line });
    }
    let mut short = BTreeMap::new();
    let mut long = BTreeMap::new();
    let mut prefixed = Vec::new();
    for (i, o) in options.iter().enumerate() {
        for (j, n) in o.names.iter().enumerate() {
            let at = (i as u32, j as u32);
            let clash = if n.ends_with('*') {
                prefixed.push(at);
                false
            } else if n.starts_with("--") || n.starts_with('/') || n == "+" || n.chars().count() > 2
            {
                // Long names, and single-dash names of several letters (`mvn -pl`), which
                // are matched as whole words before a cluster is split.
                long.insert(n.as_str(), at).is_some()
            } else {
                // `-x`: a short option in a cluster, or a whole word for go/single syntax
                // (which one applies is known only once the parent's syntax is).
                let c = n[1..].chars().next().unwrap_or('-');
                long.insert(n.as_str(), at);
                short.insert(c, i as u32).is_some()
            };
            if clash {
                return Err(err(o.line, format!("the option {n} is defined twice")));
            }
        }
    }
    let short: Vec<(char, u32)> = short.into_iter().collect();
    let long: Vec<(u32, u32)> = long.into_values().collect();
    let operands = match &raw.operands {
        Some(o) => slots(o).map_err(|m| err(line_of("operands"), m))?,
        None => Vec::new(),
    };
    if operands
        .iter()
        .position(|s| s.kind == Kind::Args)
        .is_some_and(|i| i + 1 != operands.len() || !operands[i].repeat)
    {
        return Err(err(
            line_of("operands"),
            "`args...` can only be the last operand, and repeats".into(),
        ));
    }
    if operands.iter().any(|s| s.kind == Kind::FirstOperand) {
        return Err(err(
            line_of("operands"),
            "`first-operand` is an option's meaning, not an operand slot".into(),
        ));
    }
    if operands.iter().skip(1).any(|s| s.kind == Kind::Subcommand) {
        return Err(err(
            line_of("operands"),
            "`subcommand` can only be the first operand".into(),
        ));
    }
    let extra = match &raw.extra {
        Some(e) => Some(opt_kind(e).map_err(|m| err(line_of("extra"), m))?),
        None => None,
    };
    if let Some(
        OptKind::Operands(..)
        | OptKind::NoFirstOperand
        | OptKind::Flag
        | OptKind::DefaultOperand(..),
    ) = extra
    {
        return Err(err(
            line_of("extra"),
            "extra is a value kind, `deny: …` or `review: …`".into(),
        ));
    }
    let bare = match &raw.bare {
        Some(b) => match opt_kind(b).map_err(|m| err(line_of("bare"), m))? {
            k @ (OptKind::Deny(_) | OptKind::Review(_)) => Some(k),
            _ => {
                return Err(err(
                    line_of("bare"),
                    "bare is `deny: …` or `review: …`".into(),
                ));
            }
        },
        None => None,
    };
    let no_operands = match &raw.no_operands {
        Some(b) => match opt_kind(b).map_err(|m| err(line_of("no_operands"), m))? {
            k @ (OptKind::Deny(_) | OptKind::Review(_)) => Some(k),
            _ => {
                return Err(err(
                    line_of("no_operands"),
                    "no_operands is `deny: …` or `review: …`".into(),
                ));
            }
        },
        None => None,
    };
    let dashdash = match &raw.dashdash {
        Some(b) => match opt_kind(b).map_err(|m| err(line_of("dashdash"), m))? {
            k @ (OptKind::Deny(_) | OptKind::Review(_)) => Some(k),
            _ => {
                return Err(err(
                    line_of("dashdash"),
                    "dashdash is `deny: …` or `review: …`".into(),
                ));
            }
        },
        None => None,
    };
    let input = match &raw.input {
        Some(b) => match opt_kind(b).map_err(|m| err(line_of("input"), m))? {
            k @ (OptKind::Deny(_) | OptKind::Review(_)) => Some(k),
            _ => {
                return Err(err(
                    line_of("input"),
                    "input is `deny: …` or `review: …`".into(),
                ));
            }
        },
        None => None,
    };
    let runs = match raw.runs.as_deref() {
        None | Some("nothing") => Runs::Nothing,
        Some("project") => Runs::Project,
        Some(other) => {
            return Err(err(
                line_of("runs"),
                format!("unknown runs `{other}`: project or nothing"),
            ));
        }
    };
    let network = match raw.network.as_deref() {
        None | Some("none") => Network::None,
        Some("fetch") => Network::Fetch,
        Some("send") => Network::Send,
        Some(other) => {
            return Err(err(
                line_of("network"),
                format!("unknown network `{other}`: none, fetch or send"),
            ));
        }
    };
    let home_paths =
        |field: &str, value: &Option<String>| -> Result<Vec<String>, (usize, String)> {
            let paths: Vec<String> = value
                .as_deref()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_string)
                .collect();
            match paths
                .iter()
                .find(|p| !(p.starts_with("~/") || p.starts_with('/')))
            {
                Some(p) => Err(err(
                    line_of(field),
                    format!("{field}: `{p}` is not an absolute or ~/ path"),
                )),
                None => Ok(paths),
            }
        };
    let logs_in_with = home_paths("logs_in_with", &raw.logs_in_with)?;
    let creates = home_paths("creates", &raw.creates)?;
    for (field, value) in [("deny", &raw.deny), ("review", &raw.review)] {
        if value.as_ref().is_some_and(|v| v.trim().is_empty()) {
            return Err(err(line_of(field), format!("{field} needs a reason")));
        }
    }
    let repository = match raw.repository.as_deref() {
        None => false,
        Some("git") => true,
        Some(other) => {
            return Err(err(
                line_of("repository"),
                format!("repository: `{other}` is not known (git)"),
            ));
        }
    };
    let abbreviations = match raw.abbreviations.as_deref() {
        None => false,
        Some("colon-parts") => true,
        Some(other) => {
            return Err(err(
                line_of("abbreviations"),
                format!("abbreviations: `{other}` is not known (colon-parts)"),
            ));
        }
    };
    // A deny without `; instead: …` still denies (with a default alternative): `rules lint`
    // warns (`missing_instead`), since an error would turn every local allow into ask.
    Ok(Checked {
        name: name.to_string(),
        about: raw.about.unwrap_or_default(),
        syntax: declared,
        options,
        operands,
        extra,
        aliases: raw.aliases,
        inherit: raw.inherit,
        runs,
        network,
        deny: raw.deny,
        review: raw.review,
        bare,
        no_operands,
        dashdash,
        interspersed: raw.interspersed,
        dashless: raw.dashless,
        bins: raw.bins,
        abbreviations,
        requests: raw.requests,
        logs_in_with,
        creates,
        repository,
        input,
        input_flags: raw
            .input_flags
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        default_operand: raw.default_operand,
        short,
        long,
        prefixed,
    })
}

fn check_name(name: &str, syntax: Syntax) -> Result<(), String> {
    // dd's `if=FILE`: in `single` syntax a word that starts `KEY=` is an option, written `if=*`.
    if syntax == Syntax::Single
        && let Some(key) = name.strip_suffix("=*")
        && !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Ok(());
    }
    let name = name.strip_suffix('*').unwrap_or(name);
    let dashed = name == "+" || (name.starts_with('-') && name.len() > 1);
    let ok = match syntax {
        // Windows programs and cmdlets are matched in lower case: a name written otherwise
        // would never match.
        Syntax::Windows => {
            (dashed || (name.starts_with('/') && name.len() > 1 && !name[1..].contains('/')))
                && !name.contains(':')
                && !name.chars().any(|c| c.is_ascii_uppercase())
        }
        Syntax::PowerShell => {
            dashed && !name.contains(':') && !name.chars().any(|c| c.is_ascii_uppercase())
        }
        _ => dashed,
    };
    if ok && !name.contains('=') {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not an option name for {syntax:?} syntax ({})",
            match syntax {
                Syntax::Windows => "/x or -x, in lower case",
                Syntax::PowerShell => "-name, in lower case",
                _ => "-x or --long",
            }
        ))
    }
}

/// The lines of a spec file's text whose deny names no alternative (`; instead: …`): (line,
/// the line's text). A warning of `rules lint`, and a test holds the bundled specs to none.
pub fn missing_instead(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start();
            let deny = l.starts_with("deny ")
                || l.starts_with("deny=")
                || l.contains("\"deny:")
                || l.contains(" deny:");
            deny && !l.starts_with('#') && !l.contains("; instead:")
        })
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .collect()
}

/// Parses an option's meaning: `flag`, a value kind (`write`, `text?`, `write text`),
/// `deny: why; instead: …`, `review: why`, `operands=KIND`, `no-first-operand`.
fn opt_kind(s: &str) -> Result<OptKind, String> {
    let s = s.trim();
    // `KIND... review: why`: a value that is also reviewed (or denied).
    if let Some(at) = s.find(" review:").or_else(|| s.find(" deny:"))
        && !s.starts_with("review:")
        && !s.starts_with("deny:")
    {
        let mark = opt_kind(&s[at + 1..])?;
        return match opt_kind(&s[..at])? {
            OptKind::Value {
                kinds,
                optional,
                as_first,
                mark: None,
            } => Ok(OptKind::Value {
                kinds,
                optional,
                as_first,
                mark: Some(Box::new(mark)),
            }),
            _ => Err("`review:` or `deny:` after a meaning needs value kinds before it".into()),
        };
    }
    // `KIND... operands=KIND`: a value that also turns the operands (`plutil -convert json f`
    // rewrites f in place).
    if let Some(at) = s.find(" operands=")
        && !s.starts_with("operands=")
        && !s.starts_with("default-operand=")
    {
        return match (opt_kind(&s[..at])?, opt_kind(&s[at + 1..])?) {
            (
                OptKind::Value {
                    kinds,
                    optional,
                    as_first,
                    mark: None,
                },
                turn @ OptKind::Operands(_, false),
            ) => Ok(OptKind::Value {
                kinds,
                optional,
                as_first,
                mark: Some(Box::new(turn)),
            }),
            _ => Err("`operands=KIND` after a meaning needs value kinds before it".into()),
        };
    }
    if let Some(why) = s.strip_prefix("deny:") {
        if why.trim().is_empty() {
            return Err("deny needs a reason: `deny: why; instead: …`".into());
        }
        return Ok(OptKind::Deny(why.trim().to_string()));
    }
    if let Some(why) = s.strip_prefix("review:") {
        if why.trim().is_empty() {
            return Err("review needs a reason: `review: why`".into());
        }
        return Ok(OptKind::Review(why.trim().to_string()));
    }
    if let Some(k) = s.strip_prefix("operands=") {
        let (k, suffix) = match k.trim().strip_suffix('?') {
            Some(k) => (k, true),
            None => (k.trim(), false),
        };
        return Kind::parse(k)
            .map(|k| OptKind::Operands(k, suffix))
            .ok_or_else(|| format!("unknown kind `{k}`"));
    }
    if let Some(rest) = s.strip_prefix("default-operand=") {
        let (path, turn) = match rest.split_once(' ') {
            Some((p, t)) => match opt_kind(t)? {
                OptKind::Operands(k, false) => (p, Some(k)),
                _ => return Err("after default-operand=PATH only `operands=KIND`".into()),
            },
            None => (rest, None),
        };
        if path.trim().is_empty() {
            return Err("default-operand needs a path: `default-operand=.`".into());
        }
        return Ok(OptKind::DefaultOperand(path.trim().to_string(), turn));
    }
    match s {
        "flag" => return Ok(OptKind::Flag),
        "no-first-operand" => return Ok(OptKind::NoFirstOperand),
        "narrows" => return Ok(OptKind::Narrows),
        "logs-in" => return Ok(OptKind::LogsIn),
        _ => {}
    }
    let (s, as_first) = match s.strip_suffix("as-first") {
        Some(b) => (b.trim_end(), true),
        None => (s, false),
    };
    let (body, optional) = match s.strip_suffix('?') {
        Some(b) => (b, true),
        None => (s, false),
    };
    let kinds = body
        .split_whitespace()
        .map(|k| Kind::parse(k).ok_or_else(|| format!("unknown kind `{k}`")))
        .collect::<Result<Vec<_>, _>>()?;
    if kinds.is_empty() {
        return Err("an option needs a meaning".into());
    }
    if optional && kinds.len() > 1 {
        return Err("only a one-value option can be optional".into());
    }
    if kinds.contains(&Kind::Subcommand) {
        return Err("`subcommand` is an operand kind".into());
    }
    if kinds.contains(&Kind::FirstOperand) && (kinds.len() > 1 || optional || as_first) {
        return Err(
            "`first-operand` stands alone: the option's one value is the first operand".into(),
        );
    }
    Ok(OptKind::Value {
        kinds,
        optional,
        as_first,
        mark: None,
    })
}

/// Parses `operands = "text read..."`.
fn slots(s: &str) -> Result<Vec<Slot>, String> {
    s.split_whitespace()
        .map(|w| {
            let (w, repeat) = match w.strip_suffix("...") {
                Some(b) => (b, true),
                None => (w, false),
            };
            let (w, optional) = match w.strip_suffix('?') {
                Some(b) => (b, true),
                None => (w, false),
            };
            let kind = Kind::parse(w).ok_or_else(|| format!("unknown operand kind `{w}`"))?;
            Ok(Slot {
                kind,
                repeat,
                optional: optional || repeat,
            })
        })
        .collect()
}
