//! Writes, deletes and moves: where the path a command writes, deletes or moves away lands
//! (through links for a write, the link itself for what `rm` and `mv` remove), and whether
//! that is inside the project, in a protected or excluded place, the project itself, or a tree
//! git does not ignore.

use super::*;

/// A delete of what `picked_by` picks below `path` (`find DIR -name '*.pyc' -delete`): judged
/// by where the directory lies, then by a delete of each entry the names pick (`names`: the
/// patterns, in any case, following links); with no names to list, uncertain.
pub(super) fn delete_below(
    path: &Word,
    (names, ignore_case, links, tree): (&[String], bool, bool, bool),
    picked_by: &str,
    base: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<Part> {
    let what = format!("deletes what `{picked_by}` picks below");
    let Some(found) = resolve_all(path, base, ctx) else {
        return Some(Part::uncertain(format!(
            "{what} `{}`, a path not known before it runs",
            shell::excerpt(&path.text)
        )));
    };
    for dir in found {
        if let Some(part) = excluded(&dir, &path.text, rules, ctx) {
            return Some(part);
        }
        let dir_shown = dir.display();
        let place = if !in_safe_area(&dir, rules, ctx) {
            Some("outside the project")
        } else if protected(&dir, rules, ctx).is_some() {
            Some("a protected place where a delete changes what runs later")
        } else if names.is_empty() {
            Some("which may be every entry there: sentinel cannot list them before it runs")
        } else {
            None
        };
        if let Some(place) = place {
            return Some(Part::uncertain(format!("{what} {dir_shown}, {place}")));
        }
        let picked = match crate::local::policy::delete_below::picked(&dir, names, ignore_case, ctx)
        {
            Ok(p) => p,
            Err(why) => return Some(Part::uncertain(format!("{what} {dir_shown}, {why}"))),
        };
        if links
            && let Some((link, to)) = picked
                .links
                .iter()
                .find(|(_, to)| !in_safe_area(to, rules, ctx))
        {
            return Some(Part::uncertain(format!(
                "{what} {dir_shown} following links, and {} leads to {}, outside the project",
                link.display(),
                to.display()
            )));
        }
        let verb = if tree { "deletes the tree" } else { "deletes" };
        for entry in &picked.entries {
            let word = Word::literal(entry.display().to_string());
            if let Some(part) = write(&word, verb, base, rules, ctx) {
                return Some(part);
            }
        }
    }
    None
}

pub(super) fn write(
    path: &Word,
    verb: &str,
    base: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<Part> {
    if SINKS.contains(&path.text.as_str()) || path.text.starts_with("/dev/fd/") {
        return None;
    }
    if let Some(rest) = socket_path(&path.text) {
        // bash opens a socket and writes to it: a send, to this machine as to any other.
        return Some(Part::uncertain(format!(
            "sends data over the network to {rest}"
        )));
    }
    if is_temp_ref(&path.text) && path.value.is_none() {
        return Some(Part::uncertain(format!(
            "{verb} `{}` in a temp dir, not the project",
            path.text
        )));
    }
    // `rm link`, `mv link x`: the link is what goes, not where it leads.
    let found = if verb.starts_with("deletes") {
        resolve_all_unfollowed(path, base, ctx)
    } else {
        resolve_all(path, base, ctx)
    };
    let Some(found) = found else {
        return Some(Part::uncertain(format!(
            "{verb} `{}`, a path not known before it runs",
            shell::excerpt(&path.text)
        )));
    };
    if path.kind == WordKind::Glob && path.text.contains(".*") {
        return Some(Part::uncertain(format!(
            "{verb} `{}`, a glob that can match `..`",
            path.text
        )));
    }
    for p in found {
        if let Some(part) = excluded(&p, &path.text, rules, ctx) {
            return Some(part);
        }
        // A secret is the person's to set: `cp .env.example .env` over a `.env` loses it, as
        // `rm .env` does when it is there and git does not track it (no copy anywhere), and a
        // write there is how keys and tokens get planted or swapped. A tracked one deleted is
        // still in git (`git rm --cached .env` only untracks it).
        if (verb == "writes" || (verb.starts_with("deletes") && only_copy(&p, ctx)))
            && let Some(rule) = credentials::credential(&p, rules)
        {
            return Some(Part::uncertain(format!(
                "{verb} the credential file {}",
                credentials::describe(&p, rule)
            )));
        }
        // The project itself (or a directory that holds it) deleted with everything in it,
        // however it is spelled (`rm -rf ../webapp` from inside webapp, `find -delete`): as
        // `rm -rf .` is. A move or an unlink of it is a question, not a wipe.
        if verb.starts_with("deletes") && paths::is_within(ctx.project(), &p) {
            let what = if p == ctx.project() {
                "the whole project"
            } else {
                "which holds the whole project"
            };
            let shown = format!("deletes {}, {what}", p.display());
            return Some(if verb == "deletes the tree" {
                Part::new(
                    Verdict::Deny,
                    format!(
                        "{shown}; instead: delete the exact paths inside the project you mean, by name"
                    ),
                    None,
                )
            } else {
                Part::uncertain(shown)
            });
        }
        if verb == "deletes the tree" && in_project(&p, ctx) {
            // A directory in the project deleted with everything in it: fine for what git
            // ignores (build output, dependencies: regenerable), not for what it may track,
            // where uncommitted work would be lost.
            match ctx.fs.is_dir(&p) {
                Some(false) => {}
                Some(true) if ctx.fs.git_ignored(ctx.project(), &p) == Some(true) => {}
                Some(true) => {
                    return Some(Part::uncertain(format!(
                        "deletes the directory {} and everything in it, which git does not ignore: uncommitted work there would be lost",
                        p.display()
                    )));
                }
                None => {
                    return Some(Part::uncertain(format!(
                        "deletes {} and everything in it, and sentinel cannot tell whether it is regenerable output",
                        p.display()
                    )));
                }
            }
        }
        if let Some(rule) = protected(&p, rules, ctx) {
            return Some(Part::new(
                Verdict::Uncertain,
                format!(
                    "{verb} {}, a protected place where a write makes code run later{}",
                    p.display(),
                    protected_why(rule)
                ),
                Some(rule.clone()),
            ));
        }
        if in_safe_area(&p, rules, ctx) {
            continue;
        }
        let in_temp = TEMP_DIRS.iter().any(|t| paths::is_within(&p, Path::new(t)));
        // A tree deleted outside the project, however it is spelled (`tar --remove-files`,
        // `zip -rm`, `rsync --remove-source-files`): as `rm -r` of it is.
        if verb == "deletes the tree" && !in_temp {
            return Some(Part::new(
                Verdict::Deny,
                format!(
                    "deletes the tree {} outside the project; instead: keep deletes inside the project, naming each path, or ask the person to run it",
                    p.display()
                ),
                None,
            ));
        }
        let what = if in_temp {
            "in a temp dir, not the project"
        } else {
            "outside the project"
        };
        return Some(Part::uncertain(format!("{verb} {} {what}", p.display())));
    }
    None
}

/// The paths a copy into `dir` of what the glob `from` matches writes: `dir/NAME` for each
/// match's name. When the matches cannot be listed, the glob's own last part under `dir`
/// (which names at least as much there).
pub(crate) fn landed(dir: &Word, from: &Word, base: Option<&Path>, ctx: &Context) -> Vec<Word> {
    let dir_text = dir.text.trim_end_matches('/');
    let under = |name: &str| Word {
        text: format!("{dir_text}/{name}"),
        kind: dir.kind,
        value: None,
    };
    let listed = base.and_then(|b| {
        let lexical = paths::resolve(&from.text, b, ctx.home)?;
        ctx.fs.glob(&lexical)
    });
    match listed {
        Some(found) => found
            .iter()
            .filter_map(|p| p.file_name())
            .map(|n| under(&n.to_string_lossy()))
            .collect(),
        None => {
            let last = from
                .text
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("");
            vec![Word {
                text: format!("{dir_text}/{last}"),
                kind: WordKind::Glob,
                value: None,
            }]
        }
    }
}

/// Whether `path` may be there with no copy in git: not known to be missing, not known to be
/// tracked by the repository it lies in.
fn only_copy(path: &Path, ctx: &Context) -> bool {
    use crate::local::paths::git;
    if matches!(
        ctx.fs.read_text(path, 0),
        crate::local::paths::fs::FileText::Missing
    ) {
        return false;
    }
    let tracked = path
        .parent()
        .and_then(|dir| git::repository(dir, ctx.fs))
        .and_then(|repo| {
            let rel = path.strip_prefix(&repo.work_tree).ok()?;
            git::tracked(&repo, rel, ctx.fs)
        });
    tracked != Some(true)
}
