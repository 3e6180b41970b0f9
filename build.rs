//! Compiles the bundled command specs (`rules/commands/*.toml`) into the binary with an index of
//! their sections, so a call finds a program's spec without scanning every file, and a new spec
//! file needs no code change. The scanner is the one the runtime uses for a person's specs.

#[path = "src/local/spec_scan.rs"]
mod spec_scan;

#[path = "src/local/rule_scan.rs"]
#[allow(dead_code)]
mod rule_scan;

use std::fmt::Write;

fn main() {
    prefilters();
    specs();
}

/// The bundled command rules' literal prefilters, by file and line.
fn prefilters() {
    let mut rows = Vec::new();
    let mut blob: Vec<u8> = Vec::new();
    let mut spans_out: Vec<String> = Vec::new();
    let files = [
        ("conditional_block_commands.txt", false),
        ("hard_block_commands.txt", false),
        ("safe_commands.txt", true),
    ];
    for (f_idx, (file, whole)) in files.into_iter().enumerate() {
        println!("cargo:rerun-if-changed=rules/{file}");
        let text = std::fs::read_to_string(format!("rules/{file}")).expect("rule file");
        for (i, raw) in text.lines().enumerate() {
            let Some((pattern, _)) = rule_scan::split_line(raw) else {
                continue;
            };
            let body = pattern.trim_start_matches('!').trim();
            let (lits, anchored, required) =
                rule_scan::literal_filters(&rule_scan::compiled_pattern(body, whole));
            // Literals as spans of one blob: offsets need no relocation when the binary loads.
            let mut spans = |ls: &[Vec<u8>]| -> String {
                let first = spans_out.len();
                for l in ls {
                    spans_out.push(format!("({}, {})", blob.len(), l.len()));
                    blob.extend_from_slice(l);
                }
                format!("({first}, {})", ls.len())
            };
            let p = spans(&lits);
            let r = spans(&required);
            rows.push(format!("    ({f_idx}, {}, {anchored}, {p}, {r}),", i + 1));
        }
    }
    let out = format!(
        "/// (file: 0 conditional, 1 hard block, 2 safe; line; anchored; prefixes; required\n\
         /// literals), the last two as (first, count) into SPANS, sorted by file and line.\n\
         pub const PREFILTERS: &[(u8, u32, bool, (u32, u32), (u32, u32))] = &[\n{}\n];\n\
         /// (start, len) into BLOB.\npub const SPANS: &[(u32, u32)] = &[{}];\n\
         pub const BLOB: &[u8] = &{:?};\n",
        rows.join("\n"),
        spans_out.join(", "),
        blob
    );
    let target =
        std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("bundled_prefilters.rs");
    std::fs::write(target, out).expect("write bundled_prefilters.rs");
}

/// The bundled command specs and the index of their sections.
fn specs() {
    let dir = std::path::Path::new("rules/commands");
    println!("cargo:rerun-if-changed=rules/commands");
    println!("cargo:rerun-if-changed=src/local/spec_scan.rs");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("rules/commands exists")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    let mut out = String::new();
    let mut sections = Vec::new();
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut patterns: Vec<(String, usize)> = Vec::new();
    writeln!(out, "/// The bundled spec files: (file name, text).").unwrap();
    writeln!(out, "pub const FILES: &[(&str, &str)] = &[").unwrap();
    for (f_idx, f) in files.iter().enumerate() {
        println!("cargo:rerun-if-changed=rules/commands/{f}");
        let path = std::fs::canonicalize(dir.join(f)).expect("spec file");
        let text = std::fs::read_to_string(&path).expect("spec file is UTF-8");
        writeln!(
            out,
            "    ({f:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
        let (found, errors) = spec_scan::scan(&text);
        if let Some((line, message)) = errors.first() {
            panic!("rules/commands/{f}:{line}: {message}");
        }
        for s in found {
            let idx = sections.len();
            if s.name.contains('*') {
                patterns.push((s.name.clone(), idx));
            } else {
                names.push((s.name.clone(), idx));
            }
            for a in &s.aliases {
                names.push((a.clone(), idx));
            }
            sections.push((f_idx, s.start, s.end, s.line, s.name));
        }
    }
    writeln!(out, "];").unwrap();
    // Names are (start, len) into one NAMES_TEXT string, so the tables hold no pointers: a
    // pointer in a static costs a relocation every time the binary is loaded.
    let mut names_text = String::new();
    let mut span = |n: &str| {
        let start = names_text.len();
        names_text.push_str(n);
        format!("({start}, {})", n.len())
    };
    let mut table = String::from(
        "/// Every bundled section: (file index, start, end, header line, name span).\n\
         pub const SECTIONS: &[(u32, u32, u32, u32, (u32, u32))] = &[\n",
    );
    for (f, start, end, line, name) in &sections {
        table.push_str(&format!(
            "    ({f}, {start}, {end}, {line}, {}),\n",
            span(name)
        ));
    }
    table.push_str("];\n");
    // A name written as a section wins over the same name given as an alias; among sections,
    // the later one (file order) wins, as at run time.
    let mut by_name: std::collections::BTreeMap<String, usize> = Default::default();
    let section_names: std::collections::HashSet<String> =
        sections.iter().map(|s| s.4.clone()).collect();
    for (n, i) in &names {
        let is_alias = sections[*i].4 != *n;
        if is_alias && (section_names.contains(n) || by_name.contains_key(n)) {
            continue;
        }
        by_name.insert(n.clone(), *i);
    }
    table.push_str("/// Exact names and aliases, sorted: (name span, section).\n");
    table.push_str("pub const NAMES: &[((u32, u32), u32)] = &[\n");
    for (n, i) in &by_name {
        table.push_str(&format!("    ({}, {i}),\n", span(n)));
    }
    table.push_str("];\n/// Pattern sections in file order: (name span, section).\n");
    table.push_str("pub const PATTERNS: &[((u32, u32), u32)] = &[\n");
    for (n, i) in &patterns {
        table.push_str(&format!("    ({}, {i}),\n", span(n)));
    }
    table.push_str("];\n");
    out.push_str(&table);
    writeln!(out, "/// The text every name span points into.").unwrap();
    writeln!(out, "pub const NAMES_TEXT: &str = {names_text:?};").unwrap();
    let target = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("bundled_specs.rs");
    std::fs::write(target, out).expect("write bundled_specs.rs");
}
