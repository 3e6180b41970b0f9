//! What a copy or a move into a directory writes there: an entry named as each source.

use super::*;

/// `cp SRC… DEST`, `mv`, `install`: when DEST is a directory each source lands at
/// DEST/basename(SRC), so those paths are written too (`cp -r tmpl/.vscode .` writes
/// `./.vscode`). When DEST is a file the extra paths lie under a file and cannot exist: checking
/// them only ever adds caution.
pub(super) fn into_directory(r: &Reading, out: &mut Effects) {
    let dests: Vec<&Word> = r
        .values
        .iter()
        .filter(|v| v.kind == Kind::Write)
        .map(|v| &v.word)
        .collect();
    let [dest] = dests.as_slice() else {
        return;
    };
    let sources: Vec<&Word> = r
        .values
        .iter()
        .filter(|v| {
            v.from == "operand"
                && matches!(
                    v.kind,
                    Kind::Read
                        | Kind::Tree
                        | Kind::TreeFollow
                        | Kind::Move
                        | Kind::Link
                        | Kind::Symlink
                )
        })
        .map(|v| &v.word)
        .collect();
    for src in sources {
        let base = src
            .text
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("");
        if base.is_empty() || base == "." || base == ".." {
            continue;
        }
        // `cp -r tmpl/* .`: the names that land are those the glob matches in `tmpl`, not
        // whatever the same glob would match in the destination.
        if src.kind == WordKind::Glob && base.contains(['*', '?', '[']) {
            out.list.push(Effect::WriteInto {
                dir: (*dest).clone(),
                from: src.clone(),
            });
            continue;
        }
        out.list.push(Effect::Write {
            path: Word {
                text: format!("{}/{base}", dest.text.trim_end_matches('/')),
                kind: if src.kind == WordKind::Literal {
                    dest.kind
                } else {
                    src.kind
                },
                value: None,
            },
        });
    }
}
