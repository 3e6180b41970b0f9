//! Folders a variable says programs run from (`PATH=/opt/homebrew/bin:$PATH npm run build`,
//! `JAVA_HOME=/usr/lib/jvm/x ./gradlew test`): the person's toolchain when each is a place known
//! before the command runs, outside the project, the temp dirs and the safe paths. A folder the
//! agent writes in unasked (the project, a temp dir) put there makes whatever it holds run
//! under a trusted name.

use super::*;

/// The part for a folder `variable` names, when it is not the person's toolchain.
pub(super) fn runs_from(
    variable: &str,
    folder: &Word,
    base: Option<&Path>,
    rules: &Rules,
    ctx: &Context,
) -> Option<Part> {
    let shown = shell::excerpt(&folder.text);
    let Some(p) = resolve_word(folder, base, ctx) else {
        return Some(Part::uncertain(format!(
            "{variable} names `{shown}`, a folder not known before it runs: programs run from there"
        )));
    };
    let place = if in_project(&p, ctx) {
        "in the project"
    } else if TEMP_DIRS.iter().any(|t| paths::is_within(&p, Path::new(t))) {
        "in a temp dir"
    } else if in_safe_area(&p, rules, ctx) {
        "in a safe path, where writes are allowed"
    } else {
        return None;
    };
    Some(Part::uncertain(format!(
        "{variable} names {}, {place}: programs run from there, not from the person's toolchain",
        p.display()
    )))
}
