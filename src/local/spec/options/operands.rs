//! The operands of a reading: each given its kind from the spec, turned by the options read.

use super::*;

/// A flag turns the operands into `k`, unless an earlier one made them do more: a delete is
/// never undone by a flag that writes or only reads (`zip -m -y`, `find -delete -L`, `gzip -r
/// -k`), nor a read through links by a plain one, in whatever order they come; among reads of
/// one rank the last one says.
pub(super) fn turn(operand_kind: &mut Option<Kind>, k: Kind) {
    let rank = |k: Kind| match k {
        Kind::DeleteTree => 5,
        Kind::Delete | Kind::Move => 4,
        Kind::Write | Kind::Link | Kind::Symlink => 3,
        // A read that follows links reads more than one that does not (`rg -L --hidden`).
        Kind::TreeFollow | Kind::ListFollow => 2,
        _ => 1,
    };
    match *operand_kind {
        Some(old) if rank(k) < rank(old) => {}
        _ => *operand_kind = Some(k),
    }
}

/// Gives each operand its slot's kind: repeated slots take what the later slots leave.
pub(super) fn assign_operands(
    r: &mut Reading,
    operands: &[&Word],
    turn_into: Option<Kind>,
    no_first: bool,
) {
    // The spec is held by its own handle, so `r` takes the values as they are found.
    let spec = Arc::clone(r.chain.last().expect("a reading has a spec"));
    let mut slots: Vec<_> = spec
        .operands
        .iter()
        .copied()
        .filter(|s| s.kind != Kind::Subcommand)
        .collect();
    if no_first && !slots.is_empty() {
        slots.remove(0);
    }
    let extra = &spec.extra;
    let name = &spec.name;
    r.appended = match (slots.last(), extra) {
        (Some(s), _) if s.repeat => Some(turned(s.kind, turn_into)),
        (_, Some(OptKind::Value { kinds, .. })) => Some(kinds[0]),
        (None, None) => None,
        _ => Some(Kind::Text),
    };
    let mut next = 0;
    let mut first_empty = None;
    for (k, slot) in slots.iter().enumerate() {
        let left = operands.len() - next;
        let needed_after = slots[k + 1..].iter().filter(|s| !s.optional).count();
        let take = if slot.repeat {
            left.saturating_sub(needed_after)
        } else if slot.optional {
            usize::from(left > needed_after)
        } else {
            // A program that writes or deletes what it is given refuses to run without it;
            // sentinel does not guess what such a command line meant.
            if left == 0
                && matches!(
                    slot.kind,
                    Kind::Write | Kind::Delete | Kind::DeleteTree | Kind::Move
                )
            {
                r.problems.push(format!("`{name}` is missing an operand"));
            }
            left.min(1)
        };
        for w in &operands[next..next + take] {
            let kind = turned(slot.kind, turn_into);
            r.values.push(Value {
                kind,
                word: (*w).clone(),
                from: Cow::Borrowed("operand"),
            });
        }
        // A program's default operand is an operand: `find -delete` deletes `.`, `grep -r PAT`
        // reads `.`, as if they were written.
        if take == 0
            && slot.repeat
            && slot.kind.is_input_path()
            && let Some(path) = r.default_operand.take()
        {
            r.values.push(Value {
                kind: turned(slot.kind, turn_into),
                word: Word::literal(path),
                from: Cow::Borrowed("operand"),
            });
        }
        // A word added at run time fills the first slot left empty (`xargs npm run` gets its
        // task name from the input).
        if take == 0 && !slot.repeat && first_empty.is_none() {
            first_empty = Some(turned(slot.kind, turn_into));
        }
        next += take;
    }
    if let Some(k) = first_empty {
        r.appended = Some(k);
    }
    for w in &operands[next..] {
        match extra {
            Some(OptKind::Value { kinds, .. }) => r.values.push(Value {
                kind: kinds[0],
                word: (*w).clone(),
                from: Cow::Borrowed("operand"),
            }),
            Some(kind @ (OptKind::Deny(_) | OptKind::Review(_))) => {
                r.marked.push(Marked {
                    name: format!("operand `{}`", crate::text::excerpt(&w.text)),
                    kind: kind.clone(),
                    line: spec.rule.line,
                });
                break;
            }
            _ => {
                r.problems.push(format!(
                    "`{name}` takes no operand `{}` here",
                    crate::text::excerpt(&w.text)
                ));
                break;
            }
        }
    }
}

/// An operand's kind after a flag such as `sed -i` or `rm -r` turned it.
pub(super) fn turned(kind: Kind, into: Option<Kind>) -> Kind {
    match into {
        Some(Kind::Symlink) if kind == Kind::Link => Kind::Symlink,
        Some(Kind::Symlink) => kind,
        Some(Kind::DeleteTree) if kind == Kind::Delete => Kind::DeleteTree,
        // A flag that keeps the files a delete names (`git rm --cached`: the index forgets
        // them, the working tree keeps them).
        Some(Kind::Path) if matches!(kind, Kind::Delete | Kind::DeleteTree) => Kind::Path,
        Some(t) if t != Kind::DeleteTree && kind.is_input_path() => t,
        Some(Kind::DeleteTree) if kind.is_input_path() => Kind::DeleteTree,
        _ => kind,
    }
}
