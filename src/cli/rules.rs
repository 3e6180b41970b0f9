//! `sentinel rules lint` and `rules diff`: the person's rule files checked, and what they change.

use anyhow::{Context as _, Result};
use sentinel::config::{self, Config};
use sentinel::local::rules::project::Project;
use sentinel::rules::{RuleFile, Rules};

/// The rules as the hook layers them, the organisation's policy included: the person's files
/// under the policy's `allow_off`, then the policy's own files on top.
/// Also the reason the policy cannot be used, when it cannot.
fn layered() -> Result<(std::path::PathBuf, Rules, Option<String>)> {
    let config =
        Config::load_for_process().context("cannot find a home directory; set SENTINEL_HOME")?;
    let home = config.home.value.clone();
    let mut rules = Rules::load_with(
        &home,
        config::user_home().as_deref(),
        config.allow_off.value,
    );
    if let Some(m) = &config.managed {
        rules.add_managed(m);
    }
    let broken = config.managed_broken.clone().map(|why| {
        format!(
            "the organisation's policy cannot be used: {why}; every call asks until it is fixed"
        )
    });
    Ok((home, rules, broken))
}

pub fn lint(json: bool) -> Result<u8> {
    let (home, mut rules, broken) = layered()?;
    // A project's .sentinel/ is linted whole, trusted or not: its errors are the person's to fix.
    if let Some(p) = std::env::current_dir()
        .ok()
        .and_then(|cwd| Project::find(&cwd, &home))
    {
        p.layer_rules(&mut rules, true);
    }
    let errors = rules.lint();
    let warnings = spec_warnings(&home);
    let count = rules.hard_block().len()
        + rules.safe().len()
        + rules.conditional().len()
        + rules.safe_paths().len()
        + rules.excluded_paths().len();
    if json {
        let report = serde_json::json!({
            "ok": errors.is_empty() && broken.is_none(),
            "policy_broken": broken,
            "rules": count,
            "errors": errors.iter().map(|e| serde_json::json!({
                "file": e.file, "line": e.line, "message": e.message,
            })).collect::<Vec<_>>(),
            "warnings": warnings.iter().map(|(file, line, message)| serde_json::json!({
                "file": file, "line": line, "message": message,
            })).collect::<Vec<_>>(),
            "files": rules.origins.iter().map(|(file, origin)| serde_json::json!({
                "file": file, "origin": origin,
            })).collect::<Vec<_>>(),
        });
        outln!("{report}");
        return Ok(if errors.is_empty() && broken.is_none() {
            0
        } else {
            1
        });
    }
    // The whole report is the command's output (stdout); stderr is for failing to make one.
    if let Some(why) = &broken {
        outln!("{why}");
    }
    for e in &errors {
        outln!("{e}");
    }
    for (file, line, message) in &warnings {
        outln!("{file}:{line}: warning: {message}");
    }
    for (file, origin) in &rules.origins {
        outln!("  {file}: {origin}");
    }
    if errors.is_empty() && broken.is_none() {
        outln!(
            "ok: {count} rules in {} files, no errors{}",
            rules.origins.len(),
            match warnings.len() {
                0 => String::new(),
                1 => ", 1 warning".to_string(),
                n => format!(", {n} warnings"),
            }
        );
        Ok(0)
    } else {
        outln!(
            "{} error(s); until they are fixed every local allow becomes ask",
            errors.len() + usize::from(broken.is_some())
        );
        Ok(1)
    }
}

/// The person's spec lines whose deny names no alternative: it still denies, with a default
/// `instead`, so this is a warning, never an error (an error turns every local allow into ask).
fn spec_warnings(home: &std::path::Path) -> Vec<(String, usize, String)> {
    let dir = home.join(sentinel::local::spec::DIR);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (line, _) in sentinel::local::spec::check::missing_instead(&text) {
            out.push((
                path.display().to_string(),
                line,
                "a deny without `; instead: …`: it still denies, and the reason tells the agent to ask the person; name the alternative".to_string(),
            ));
        }
    }
    out
}

pub fn diff(json: bool) -> Result<u8> {
    let (_, rules, _) = layered()?;
    let layer_of = |file: RuleFile| rules.layers.iter().find(|l| l.file == Some(file));
    if json {
        let files: Vec<_> = RuleFile::ALL
            .iter()
            .map(|&file| match layer_of(file) {
                None => serde_json::json!({"file": file.name(), "layer": "bundled"}),
                Some(l) => serde_json::json!({
                    "file": file.name(),
                    "layer": if l.seeded_copy { "seeded-copy-ignored" } else { "bundled+person" },
                    "origin": l.origin,
                    "added": rules.added(l).iter().map(|(line, p)| serde_json::json!({"line": line, "pattern": p})).collect::<Vec<_>>(),
                    "switched_off": l.switched_off.iter().map(|(line, bl, p)| serde_json::json!({"line": line, "bundled_line": bl, "pattern": p})).collect::<Vec<_>>(),
                    "refused_off": l.refused_off.iter().map(|(line, p, why)| serde_json::json!({"line": line, "pattern": p, "why": why})).collect::<Vec<_>>(),
                    "unmatched_off": l.unmatched_off.iter().map(|(line, p)| serde_json::json!({"line": line, "pattern": p})).collect::<Vec<_>>(),
                    "spec_denies_off": l.spec_off.iter().map(|(line, r)| serde_json::json!({"line": line, "spec": r.file, "spec_line": r.line, "section": r.pattern})).collect::<Vec<_>>(),
                }),
            })
            .collect();
        outln!("{}", serde_json::json!({ "files": files }));
        return Ok(0);
    }
    for file in RuleFile::ALL {
        match layer_of(file) {
            None => outln!("{}: bundled only", file.name()),
            Some(l) if l.seeded_copy => outln!(
                "{}: {} is an unchanged copy of an earlier bundled file: ignored, this version's bundled rules apply (delete it, or keep only your own lines)",
                file.name(),
                l.origin
            ),
            Some(l) => {
                outln!(
                    "{}: bundled + {} ({} added, {} bundled switched off)",
                    file.name(),
                    l.origin,
                    rules.added(l).len(),
                    l.switched_off.len() + l.spec_off.len()
                );
                for (line, pattern) in &rules.added(l) {
                    outln!("  + line {line}: {pattern}");
                }
                for (line, bundled_line, pattern) in &l.switched_off {
                    outln!(
                        "  - line {line}: off: bundled {}:{bundled_line} {pattern}",
                        file.name()
                    );
                }
                for (line, r) in &l.spec_off {
                    outln!(
                        "  - line {line}: off: the deny of bundled {}:{} {}",
                        r.file,
                        r.line,
                        r.pattern
                    );
                }
                for (line, pattern, why) in &l.refused_off {
                    outln!("  ! line {line}: `off: {pattern}` has no effect: {why}");
                }
                for (line, pattern) in &l.unmatched_off {
                    outln!(
                        "  ? line {line}: `off: {pattern}` matches no bundled rule of this version (it changed or went away)"
                    );
                }
            }
        }
    }
    Ok(0)
}
