//! Compiles the bundled command specs (`rules/commands/*.toml`) into the binary with an index of
//! their sections, so a call finds a program's spec without scanning every file, and a new spec
//! file needs no code change. The scanner is the one the runtime uses for a person's specs.

#[path = "src/local/spec_scan.rs"]
mod spec_scan;

use std::fmt::Write;

fn main() {
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
    writeln!(
        out,
        "/// Every bundled section: (file index, start, end, header line, name)."
    )
    .unwrap();
    writeln!(
        out,
        "pub const SECTIONS: &[(usize, usize, usize, usize, &str)] = &["
    )
    .unwrap();
    for (f, start, end, line, name) in &sections {
        writeln!(out, "    ({f}, {start}, {end}, {line}, {name:?}),").unwrap();
    }
    writeln!(out, "];").unwrap();
    // A name written as a section wins over the same name given as an alias; among sections,
    // the later one (file order) wins, as at run time.
    let mut by_name: std::collections::BTreeMap<String, usize> = Default::default();
    let section_names: std::collections::HashSet<String> =
        sections.iter().map(|s| s.4.clone()).collect();
    for (n, i) in &names {
        let is_alias = sections[*i].4 != *n;
        if is_alias && section_names.contains(n) {
            continue;
        }
        if is_alias && by_name.contains_key(n) {
            continue;
        }
        by_name.insert(n.clone(), *i);
    }
    writeln!(
        out,
        "/// Exact names (and aliases), sorted: (name, section)."
    )
    .unwrap();
    writeln!(out, "pub const NAMES: &[(&str, usize)] = &[").unwrap();
    for (n, i) in &by_name {
        writeln!(out, "    ({n:?}, {i}),").unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out, "/// Pattern sections in file order: (name, section).").unwrap();
    writeln!(out, "pub const PATTERNS: &[(&str, usize)] = &[").unwrap();
    for (n, i) in &patterns {
        writeln!(out, "    ({n:?}, {i}),").unwrap();
    }
    writeln!(out, "];").unwrap();
    let target = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("bundled_specs.rs");
    std::fs::write(target, out).expect("write bundled_specs.rs");
}
