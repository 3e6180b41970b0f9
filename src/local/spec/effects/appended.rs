//! Operands a command gets at run time (`xargs`, `find -exec … {}`): what they can be, from
//! the listing that hands them on.

use super::*;

/// Operands added at run time: under `find`'s roots for `find -exec`, unknown for `xargs`.
pub(super) fn appended(cmd: &SimpleCommand, reading: &Reading, specs: &Specs, out: &mut Effects) {
    let spec = reading.spec();
    if spec
        .operands
        .first()
        .is_some_and(|s| s.kind == Kind::Subcommand)
    {
        out.list.push(Effect::Unknown {
            why: format!(
                "a word added at run time would choose what `{}` does",
                reading.name()
            ),
        });
        return;
    }
    if !reading.options_closed
        && !cmd.extra_args_from_find
        && !reading.chain.iter().all(|s| s.options_are_inert())
    {
        out.list.push(Effect::Unknown {
            why: format!(
                "words added at run time may be options of `{}` (end its options with `--`)",
                reading.name()
            ),
        });
        return;
    }
    let Some(kind) = reading.appended else {
        out.list.push(Effect::Unknown {
            why: format!(
                "`{}` gets operands at run time it does not take",
                reading.name()
            ),
        });
        return;
    };
    if matches!(
        kind,
        Kind::Text | Kind::Path | Kind::Subcommand | Kind::Args
    ) {
        return;
    }
    if cmd.extra_args_under.is_empty() {
        out.list.push(Effect::Unknown {
            why: format!(
                "`{}` gets paths at run time (xargs) that sentinel cannot see",
                reading.name()
            ),
        });
        return;
    }
    // What the listing hands on, when its tests say (`find . -name '*.py' | xargs grep`): a
    // program that reads a directory whole reads all below one it is handed.
    let whole_dirs = !matches!(kind, Kind::Read);
    let handed = reach::handed(cmd, specs, whole_dirs);
    for root in &cmd.extra_args_under {
        let path = root.clone();
        out.list.push(match (kind, &handed) {
            (Kind::Read | Kind::Tree | Kind::TreeFollow | Kind::TreeVisible, Some(h)) => {
                walk(path, if kind == Kind::Read { Kind::Tree } else { kind }, h)
            }
            (Kind::Read | Kind::Tree, None) => Effect::Read { path, tree: true },
            (Kind::TreeFollow | Kind::TreeVisible | Kind::List | Kind::ListFollow, _) => {
                walk(path, kind, &Reach::default())
            }
            (Kind::Write | Kind::Link | Kind::Symlink, _) => Effect::Write { path },
            (Kind::Mode, _) => Effect::Mode { path },
            (Kind::Delete | Kind::Move, _) => Effect::Delete { path, tree: false },
            (Kind::DeleteTree, _) => Effect::Delete { path, tree: true },
            // A script, task, package, URL … chosen at run time is not known.
            _ => Effect::Unknown {
                why: format!(
                    "`{}` gets a {kind:?} operand chosen at run time",
                    reading.name()
                ),
            },
        });
    }
}
