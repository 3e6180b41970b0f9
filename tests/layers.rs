//! The layering docs/architecture.md draws, held: a module uses only its own layer and the
//! layers below it, and no module imports one that imports it back, however indirectly.
//! Read from the source text (`crate::` and `super::` paths outside comments and test modules).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module's layer, lowest first. Vocabulary (0) may be used by all.
const LAYERS: &[(&str, u8)] = &[
    ("call", 0),
    ("clock", 0),
    ("text", 0),
    ("digest", 0),
    ("ascii_regex", 0),
    ("lists", 0),
    ("decision", 0),
    ("platform", 0),
    ("config", 1),
    ("ledger", 2),
    ("local", 3),
    ("evaluator", 4),
    ("contain", 4),
    ("export", 4),
    ("carried_secrets", 4),
    ("question", 5),
    ("agents", 6),
    ("report", 6),
];

/// Names lib.rs re-exports at the top for the rest of the crate.
const ALIASES: &[(&str, &str)] = &[
    ("decide", "local::decide"),
    ("paths", "local::paths"),
    ("rules", "local::rules"),
    ("shell", "local::shell"),
];

/// Every module of the library: its path (`local::shell::walk`) and its text, without comments
/// and without its test module.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let name = parts.join("::");
            if matches!(name.as_str(), "lib" | "main") || name.starts_with("cli") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let text = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            let code: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            out.insert(name, code.join("\n"));
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

/// The modules `text` (the module `name`) refers to, each the longest known module path.
fn uses(name: &str, text: &str, known: &BTreeMap<String, String>) -> BTreeSet<String> {
    let resolve = |parts: Vec<&str>| -> Option<String> {
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|c| known.contains_key(c))
    };
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    for (prefix, relative) in [("crate::", false), ("super::", true)] {
        for (at, _) in text.match_indices(prefix) {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            let mut full: Vec<String> = Vec::new();
            if relative {
                let mut parent: Vec<&str> = name.split("::").collect();
                parent.pop();
                full.extend(parent.iter().map(|p| p.to_string()));
            } else if let Some((_, to)) = parts
                .first()
                .and_then(|first| ALIASES.iter().find(|(a, _)| a == first))
            {
                parts.remove(0);
                full.extend(to.split("::").map(str::to_string));
            }
            full.extend(parts.iter().map(|p| p.to_string()));
            let full: Vec<&str> = full.iter().map(String::as_str).collect();
            if let Some(m) = resolve(full)
                && m != name
                && !name.starts_with(&format!("{m}::"))
            {
                out.insert(m);
            }
        }
    }
    out
}

fn layer(module: &str) -> (&str, u8) {
    let top = module.split("::").next().unwrap();
    let (_, rank) = LAYERS.iter().find(|(n, _)| *n == top).unwrap_or_else(|| {
        panic!("{top} is in no layer: add it to LAYERS and to docs/architecture.md")
    });
    (top, *rank)
}

#[test]
fn a_module_uses_only_its_own_layer_and_the_ones_below() {
    let mods = modules();
    assert!(mods.len() > 40, "the source was not found");
    let mut wrong = Vec::new();
    for (name, text) in &mods {
        let (top, rank) = layer(name);
        for used in uses(name, text, &mods) {
            let (utop, urank) = layer(&used);
            let ok = urank < rank || utop == top || urank == 0;
            if !ok {
                wrong.push(format!("{name} uses {used}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses across layers, upwards or sideways: {wrong:#?}"
    );
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let mods = modules();
    let graph: BTreeMap<&str, BTreeSet<String>> = mods
        .iter()
        .map(|(name, text)| (name.as_str(), uses(name, text, &mods)))
        .collect();
    // Depth-first search with the path kept: a module met again on the path closes a circle.
    fn visit<'a>(
        at: &'a str,
        graph: &'a BTreeMap<&'a str, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| *p == at) {
            let mut circle: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
            circle.push(at.to_string());
            return Some(circle);
        }
        if !done.insert(at) {
            return None;
        }
        path.push(at);
        for next in &graph[at] {
            if let Some(c) = visit(next.as_str(), graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for name in graph.keys() {
        if let Some(circle) = visit(name, &graph, &mut Vec::new(), &mut done) {
            panic!("an import circle: {}", circle.join(" → "));
        }
    }
}
