//! `sentinel trust`: trust a project's `.sentinel/` rules as they are now, or revoke it.

use super::load_config;
use super::person::{audit_person, person_only};
use anyhow::{Context as _, Result, bail};
use sentinel::config;
use sentinel::local::rules::project::{self, Project};
use sentinel::rules::Rules;
use std::path::PathBuf;

pub fn run(dir: Option<PathBuf>, revoke: bool, json: bool) -> Result<u8> {
    person_only("trust")?;
    let config = load_config()?;
    let home = &config.home.value;
    let start = match dir {
        Some(d) => std::path::absolute(&d).with_context(|| format!("bad --dir {}", d.display()))?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let Some(project) = Project::find(&start, home) else {
        bail!(
            "no {}/ directory at or above {}",
            project::DIR,
            start.display()
        );
    };
    let dir = project.root.join(project::DIR);
    let now = sentinel::clock::now_ms();
    if revoke {
        let was = project::revoke(&project.root, home).with_context(|| {
            format!("cannot update {}", home.join(project::TRUST_FILE).display())
        })?;
        audit_person(
            &config,
            "trust --revoke",
            &dir.display().to_string(),
            "revoked",
            "the person revoked trust in the project's loosening rules",
        );
        if json {
            outln!(
                "{}",
                serde_json::json!({ "ok": true, "dir": dir, "trusted": false, "was_trusted": was })
            );
            return Ok(0);
        }
        outln!(
            "{} {}; its loosening rules no longer apply",
            if was {
                "revoked trust in"
            } else {
                "was not trusted:"
            },
            dir.display()
        );
        return Ok(0);
    }
    if project.files.is_empty() {
        bail!(
            "{} holds none of {}",
            dir.display(),
            project::FILES.join(", ")
        );
    }
    let mut rules = Rules::load(home, config::user_home().as_deref());
    project.layer_rules(&mut rules, true);
    let errors: Vec<_> = rules
        .lint()
        .into_iter()
        .filter(|e| e.file.contains(project::DIR))
        .collect();
    if !errors.is_empty() {
        for e in &errors {
            outln!("{e}");
        }
        bail!("not trusted: fix the {} error(s) above first", errors.len());
    }
    let record = project::trust(&project, home, now)
        .with_context(|| format!("cannot update {}", home.join(project::TRUST_FILE).display()))?;
    let digests: Vec<String> = record
        .files
        .iter()
        .map(|(name, digest)| format!("{name} {}", &digest[..12]))
        .collect();
    audit_person(
        &config,
        "trust",
        &dir.display().to_string(),
        "trusted",
        &format!(
            "the person trusted {} ({})",
            dir.display(),
            digests.join(", ")
        ),
    );
    // What trusting changed: the loosening rules, listed so the person sees what they accepted.
    let mut untrusted = Rules::load(home, config::user_home().as_deref());
    project.layer_rules(&mut untrusted, false);
    let mut base = config.clone();
    let held = project
        .config()
        .map(|f| base.add_project(f.text.as_deref().map_err(String::as_str), false))
        .unwrap_or_default();
    if json {
        let loosening: Vec<String> = untrusted
            .suspended
            .iter()
            .map(|r| format!("{r}  {}", r.pattern))
            .chain(held.iter().map(ToString::to_string))
            .collect();
        outln!(
            "{}",
            serde_json::json!({
                "ok": true,
                "dir": dir,
                "trusted": true,
                "as_of_ms": now,
                "files": project.files.iter().map(|f| serde_json::json!({"name": f.name, "sha256": f.sha256})).collect::<Vec<_>>(),
                "loosening": loosening,
            })
        );
        return Ok(0);
    }
    outln!(
        "trusted {} as of {} UTC:",
        dir.display(),
        sentinel::clock::utc(now)
    );
    for f in &project.files {
        outln!("  {:<32} sha256 {}…", f.name, &f.sha256[..16]);
    }
    if untrusted.suspended.is_empty() && held.is_empty() {
        outln!("it holds only tightening rules; those applied before and still do");
    } else if !config.allow_project_trust.value {
        outln!(
            "its loosening rules still do not apply: the organisation's policy sets allow_project_trust = false ({})",
            config.allow_project_trust.source
        );
    } else {
        outln!(
            "these loosen what sentinel allows in {} and now apply:",
            project.root.display()
        );
        for r in &untrusted.suspended {
            outln!("  {r}  {}", r.pattern);
        }
        for h in &held {
            outln!("  {h}");
        }
    }
    outln!("any change to these files suspends them until you run `sentinel trust` again");
    Ok(0)
}
