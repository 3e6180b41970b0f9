//! What find's tests pick for a delete of its starting points.

use super::*;

/// What a reading's tests pick, when it has any.
pub(super) struct Picked {
    pub(super) names: Vec<String>,
    pub(super) ignore_case: bool,
    pub(super) shown: String,
}

/// The tests that pick which entries a `delete-tree` of the operands deletes (`find . -name
/// '*.pyc' -delete` deletes the `.pyc` files below `.`, not `.`). Tests are joined by "and"
/// unless something negates or joins them otherwise (`!`, `( )`: operands to the reader; `-not`,
/// `-o`), so the entries any name pattern picks hold every entry deleted. Only the tests read
/// before the option that deletes count: find evaluates from the left.
pub(super) fn picked_entries(r: &Reading) -> Option<Picked> {
    let before = r.delete_tree_at.unwrap_or(r.values.len());
    let tests: Vec<&options::Value> = r.values[..before.min(r.values.len())]
        .iter()
        .filter(|v| matches!(v.kind, Kind::Filter | Kind::NameFilter | Kind::PathFilter))
        .collect();
    if tests.is_empty() {
        return None;
    }
    let grouped = r.values.iter().any(|v| {
        (v.from == "operand" && matches!(v.word.text.as_str(), "!" | "(" | ")" | ","))
            || (v.kind == Kind::Filter && matches!(v.word.text.as_str(), "-not" | "-o" | "-or"))
    });
    let names: Option<Vec<String>> = tests
        .iter()
        .filter(|v| v.kind == Kind::NameFilter)
        .map(|v| v.word.known_value().map(str::to_string))
        .collect();
    let shown = tests
        .iter()
        .map(|v| {
            if v.kind == Kind::Filter && v.word.text == v.from {
                v.from.to_string()
            } else {
                format!("{} {}", v.from, crate::text::excerpt(&v.word.text))
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let shown = if grouped {
        format!("{shown}` with `!` or `( )")
    } else {
        shown
    };
    Some(Picked {
        names: names.filter(|_| !grouped).unwrap_or_default(),
        ignore_case: tests
            .iter()
            .any(|v| v.kind == Kind::NameFilter && v.from.starts_with("-i")),
        shown,
    })
}
