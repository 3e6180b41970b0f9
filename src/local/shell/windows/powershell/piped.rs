//! Paths handed down a pipeline. A cmdlet that takes paths (`Remove-Item`, `Get-Content`) binds
//! what comes down the pipeline to its `-Path` when its command line names none, and
//! `Select-String` reads the files a listing hands it: after `Get-ChildItem src` those lie under
//! `src` (judged as `find src | xargs …` is), after anything else they are not known.

use super::*;

/// Cmdlets that list items and hand them on.
const LISTERS: &[&str] = &[
    "powershell/get-childitem",
    "powershell/get-item",
    "powershell/resolve-path",
];

/// Cmdlets whose path comes from the pipeline when their command line gives none.
const TAKES_PIPED_PATHS: &[&str] = &[
    "powershell/get-content",
    "powershell/remove-item",
    "powershell/copy-item",
    "powershell/move-item",
    "powershell/rename-item",
    "powershell/get-item",
    "powershell/get-childitem",
    "powershell/test-path",
    "powershell/get-filehash",
    "powershell/set-content",
    "powershell/add-content",
    "powershell/clear-content",
    "powershell/resolve-path",
    "powershell/convert-path",
    "powershell/invoke-item",
    "powershell/import-csv",
    "powershell/format-hex",
    "powershell/get-acl",
    "powershell/expand-archive",
    "powershell/compress-archive",
    "powershell/get-itemproperty",
    "powershell/get-itempropertyvalue",
];

/// Parameters that name the path.
const PATH_PARAMETERS: &[&str] = &["-path", "-literalpath", "-lp", "-pspath", "-filepath"];

/// Switches of the cmdlets above: any other parameter takes the next word as its value.
const SWITCHES: &[&str] = &[
    "-recurse",
    "-force",
    "-raw",
    "-wait",
    "-container",
    "-passthru",
    "-whatif",
    "-confirm",
    "-verbose",
    "-debug",
    "-vb",
    "-db",
    "-wi",
    "-cf",
    "-nonewline",
    "-asbytestream",
    "-notypeinformation",
    "-nti",
    "-append",
    "-noclobber",
    "-useculture",
    "-casesensitive",
    "-simplematch",
    "-quiet",
    "-list",
    "-notmatch",
    "-allmatches",
    "-isvalid",
    "-relative",
    "-file",
    "-directory",
    "-hidden",
    "-readonly",
    "-system",
    "-name",
    "-followsymlink",
    "-af",
    "-ad",
    "-ah",
    "-as",
    "-ar",
    "-update",
    "-stack",
    "-leaf",
    "-parent",
    "-resolve",
];

/// The command a pipeline stage's items end with.
pub(super) fn stage_command(items: &mut [Item]) -> Option<&mut Command> {
    items.iter_mut().rev().find_map(|i| match i {
        Item::Command(c) => Some(c),
        _ => None,
    })
}

/// For a listing cmdlet, the folders what it lists lies under: its paths, or `.`; none when one
/// is not known before it runs.
pub(super) fn listed_roots(c: &Command) -> Option<Vec<Word>> {
    if !c.own || !LISTERS.contains(&c.argv[0].text.as_str()) {
        return None;
    }
    let paths = given_paths(c, false);
    if paths.is_empty() {
        return Some(vec![Word::literal(".")]);
    }
    if paths.iter().any(|w| w.kind == WordKind::Computed) {
        return Some(Vec::new());
    }
    Some(paths)
}

/// A later stage of a pipeline, given what a listing before it lies under (`roots`): the paths
/// it gets from there, or an unknown when they are not known.
pub(super) fn piped(c: &mut Command, roots: Option<&Vec<Word>>) -> Option<Item> {
    if !c.own {
        return None;
    }
    let name = c.argv[0].text.as_str();
    let reads_files = name == "powershell/select-string" && given_paths(c, true).is_empty();
    let takes_paths = TAKES_PIPED_PATHS.contains(&name) && given_paths(c, false).is_empty();
    match roots {
        Some(r) if reads_files || takes_paths => {
            c.piped_under = Some(r.clone());
            None
        }
        None if takes_paths => Some(Item::Unknown(format!(
            "`{}` takes its paths from the pipeline, which sentinel does not see",
            name.trim_start_matches("powershell/")
        ))),
        _ => None,
    }
}

/// The paths a command line names: the values of `-Path` and the like, and (unless
/// `named_only`) its positional words.
fn given_paths(c: &Command, named_only: bool) -> Vec<Word> {
    let mut out = Vec::new();
    let mut i = 1;
    while let Some(w) = c.argv.get(i) {
        let lower = w.text.to_ascii_lowercase();
        if lower.starts_with('-') && lower[1..].starts_with(|ch: char| ch.is_alphabetic()) {
            let (name, inline) = match lower.split_once(':') {
                Some((n, _)) => (n, Some(&w.text[n.len() + 1..])),
                None => (lower.as_str(), None),
            };
            if PATH_PARAMETERS.contains(&name) {
                match inline {
                    Some(v) => out.push(Word {
                        text: v.to_string(),
                        kind: w.kind,
                        value: None,
                    }),
                    None => {
                        out.extend(c.argv.get(i + 1).cloned());
                        i += 1;
                    }
                }
            } else if inline.is_none() && !SWITCHES.contains(&name) {
                // Its value.
                i += 1;
            }
        } else if !named_only {
            out.push(w.clone());
        }
        i += 1;
    }
    out
}
