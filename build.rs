//! Compiles the bundled rules into the binary: the rule files (`rules/*.txt`) as tables with a
//! serialized DFA for each command rule, and the command specs (`rules/commands/*.toml`) with an
//! index of their sections, so a call finds a program's spec without scanning every file, and a
//! new spec file needs no code change. The scanners are the ones the runtime uses for a person's
//! files.

#[path = "src/local/spec/scan.rs"]
mod spec_scan;

#[path = "src/local/spec/raw.rs"]
mod raw;

#[path = "src/local/spec/checked.rs"]
#[allow(dead_code)]
mod checked;

#[path = "src/local/spec/check.rs"]
#[allow(dead_code)]
mod spec_check;

#[path = "src/local/rules/scan.rs"]
#[allow(dead_code)]
mod rule_scan;

#[path = "src/local/paths/scan.rs"]
#[allow(dead_code)]
mod path_scan;

#[path = "src/local/known/scan.rs"]
#[allow(dead_code)]
mod known_scan;

#[path = "src/contain/list_scan.rs"]
mod contain_scan;

#[path = "src/lists.rs"]
#[allow(dead_code)]
mod lists;

/// The scanners name each other by their place in the library (`crate::local::paths::scan`).
mod local {
    pub(crate) mod paths {
        pub(crate) use crate::path_scan as scan;
    }
}

use std::fmt::Write;

fn main() {
    rules();
    known();
    contain_lists();
    specs();
    link();
    cache_layout();
}

/// What a cache file in SENTINEL_HOME is keyed on besides its content: the version, a hash of
/// the sources that define what the cache holds and of the bundled rules compiled in. postcard
/// does not name fields, so two builds of one version whose layouts differ must not read each
/// other's files. And the build's half of the key cache files are signed with, drawn here: a
/// file another build wrote does not verify.
fn cache_layout() {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    println!("cargo:rerun-if-changed=rules");
    let mut bundled = Vec::new();
    let mut stack = vec![std::path::PathBuf::from("rules")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a rules/ entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                bundled.push(path);
            }
        }
    }
    bundled.sort();
    for f in &bundled {
        f.hash(&mut hasher);
        std::fs::read(f)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            .hash(&mut hasher);
    }
    let mut key = [0u8; 32];
    let drawn = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
        .is_ok();
    if !drawn {
        // No /dev/urandom: the time and the process, which differ from build to build.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for i in 0..4u8 {
            (std::time::SystemTime::now(), std::process::id(), i).hash(&mut h);
            key[8 * i as usize..8 * i as usize + 8].copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=SENTINEL_BUILD_KEY={hex}");
    for f in [
        "src/local/rules/cache/mod.rs",
        "src/local/rules/cache/image.rs",
        "src/local/rules/cache/shelf.rs",
        "src/local/spec/cache.rs",
        "src/local/spec/check.rs",
        "src/local/spec/checked.rs",
        "src/local/rules/scan.rs",
        "src/local/paths/scan.rs",
        "src/decision/mod.rs",
    ] {
        println!("cargo:rerun-if-changed={f}");
        std::fs::read_to_string(f)
            .unwrap_or_else(|e| panic!("{f}: {e}"))
            .hash(&mut hasher);
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!(
        "cargo:rustc-env=SENTINEL_CACHE_VERSION={version}+{:016x}",
        hasher.finish()
    );
}

/// The sentinel binary is linked as a position-dependent executable on Linux: the loader then
/// has no relocations to apply to it, which measured ~0.3M instructions of every hook call
/// (docs/performance.md). Only the binary: tests, proc macros and the library are as cargo makes
/// them. Not for musl: its static binary starts with crt code that relocates itself, which
/// crashes when linked `-no-pie`; release/build-linux.sh asks rustc for a position-dependent
/// static binary instead (`-C relocation-model=static`).
fn link() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" && std::env::var_os("SENTINEL_PIE").is_none() {
        println!("cargo:rustc-link-arg-bin=sentinel=-no-pie");
    }
    println!("cargo:rerun-if-env-changed=SENTINEL_PIE");
    link_order();
}

/// The functions a local decision runs are laid out together (`bench/link-order.txt`, written by
/// `bench/link_order.py`): scattered over the text, they cost a hook ~40 page faults and ~2.5 MiB
/// of memory, since the kernel maps 64 KiB around each fault. The list is lld's
/// `--symbol-ordering-file`; rustc links with lld on x86_64-unknown-linux-gnu since 1.90. Another
/// linker, or `SENTINEL_NO_LINK_ORDER=1`, links as cargo would. A name the list has and the
/// binary has not is skipped (a stale list costs memory, never correctness).
fn link_order() {
    println!("cargo:rerun-if-env-changed=SENTINEL_NO_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    println!("cargo:rerun-if-changed=bench/link-order.txt");
    let target = std::env::var("TARGET").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let other_linker = ["linker", "fuse-ld", "link-self-contained"]
        .iter()
        .any(|f| flags.contains(f))
        || std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some();
    let lld = target == "x86_64-unknown-linux-gnu" && !other_linker && rustc_minor() >= Some(90);
    let list = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("bench/link-order.txt");
    if lld && list.is_file() && std::env::var_os("SENTINEL_NO_LINK_ORDER").is_none() {
        println!(
            "cargo:rustc-link-arg-bin=sentinel=-Wl,--symbol-ordering-file={},--no-warn-symbol-ordering",
            list.display()
        );
    }
}

/// The minor version of the rustc that builds this (`1.95.0` → 95).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let out = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()?;
    let version = String::from_utf8(out.stdout).ok()?;
    let mut parts = version.split_whitespace().nth(1)?.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}

/// The bundled rule files as tables: each line's pattern, comment, compiled pattern, literal
/// prefilter and, for command rules, a serialized dense DFA, so the bundled layer is neither
/// parsed nor compiled at run time. A bad bundled line fails the build with its file:line.
fn rules() {
    use regex_automata::dfa::{StartKind, dense};
    use regex_automata::{nfa::thompson, util::syntax};
    // In `RuleFile`'s declaration order (a test checks it); `true`: a command-rule file.
    let files = [
        ("hard_block_commands.txt", true),
        ("safe_commands.txt", true),
        ("conditional_block_commands.txt", true),
        ("safe_paths.txt", false),
        ("excluded_paths.txt", false),
        ("credential_paths.txt", false),
        ("protected_paths.txt", false),
    ];
    for f in ["rules/scan", "paths/scan"] {
        println!("cargo:rerun-if-changed=src/local/{f}.rs");
    }
    let little = std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() != Ok("big");
    let mut text = String::new();
    let mut span = |s: &str| {
        let start = text.len();
        text.push_str(s);
        format!("({start}, {})", s.len())
    };
    let mut blob: Vec<u8> = Vec::new();
    let mut lit_spans: Vec<String> = Vec::new();
    let mut dfas: Vec<u8> = Vec::new();
    let mut rows = Vec::new();
    let mut ranges = Vec::new();
    // Per command file and first byte: the file's rows a command starting with that byte can
    // match (a literal prefix starts with it, or the rule has no anchored prefix), in order.
    let mut byte_spans: Vec<String> = Vec::new();
    let mut byte_rows: Vec<u16> = Vec::new();
    for (file, commands) in files {
        let mut firsts: Vec<Option<Vec<u8>>> = Vec::new();
        println!("cargo:rerun-if-changed=rules/{file}");
        let source = std::fs::read_to_string(format!("rules/{file}")).expect("rule file");
        let first = rows.len();
        for (i, raw) in source.lines().enumerate() {
            let Some((pattern, why)) = rule_scan::split_line(raw) else {
                continue;
            };
            let at = format!("rules/{file}:{}", i + 1);
            let why = match why {
                Some(w) => format!("Some({})", span(w)),
                None => "None".into(),
            };
            let pattern_span = span(pattern);
            let (mut compiled, mut prefixes, mut required) = (
                "(0, 0)".to_string(),
                "(0, 0)".to_string(),
                "(0, 0)".to_string(),
            );
            let (mut anchored, mut dfa) = (false, "None".to_string());
            let mut mask = "Mask::EMPTY".to_string();
            let path = match commands {
                true => "None".to_string(),
                false => path_line(file, pattern, &at, &mut span),
            };
            if commands {
                let whole = file == "safe_commands.txt";
                assert!(
                    whole || !pattern.starts_with('!'),
                    "{at}: `!` exceptions are only allowed in safe_commands.txt"
                );
                let body = pattern.trim_start_matches('!').trim();
                assert!(!body.is_empty(), "{at}: empty pattern");
                if let Err(e) = regex_syntax::ParserBuilder::new()
                    .unicode(false)
                    .utf8(false)
                    .build()
                    .parse(body)
                {
                    panic!("{at}: bad regex: {e}");
                }
                let pattern = rule_scan::compiled_pattern(body, whole);
                compiled = span(&pattern);
                let filters = rule_scan::literal_filters(&pattern);
                mask = format!("Mask({:?})", rule_scan::pair_mask(&pattern, &filters).0);
                let (lits, a, req) = filters;
                anchored = a;
                // As `RuleList::unprefixed` and `Literals::any_starts_with` read them.
                firsts.push(match a && !lits.is_empty() {
                    true => Some(lits.iter().filter_map(|l| l.first().copied()).collect()),
                    false => None,
                });
                // Literals as spans of one blob: offsets need no relocation when the binary loads.
                let mut spans = |ls: &[Vec<u8>]| -> String {
                    let first = lit_spans.len();
                    for l in ls {
                        lit_spans.push(format!("({}, {})", blob.len(), l.len()));
                        blob.extend_from_slice(l);
                    }
                    format!("({first}, {})", ls.len())
                };
                prefixes = spans(&lits);
                required = spans(&req);
                // The same syntax as the runtime's compile; a DFA too big to build is left to
                // the runtime, which compiles the regex when a command passes the prefilter.
                // Dense, not sparse: a sparse state searches its transitions on every byte
                // (~90 instructions a byte against ~5), and only the pages of the DFAs a
                // command reaches are ever read from the binary.
                let built = dense::Builder::new()
                    .configure(
                        dense::Config::new()
                            .start_kind(StartKind::Unanchored)
                            .dfa_size_limit(Some(1 << 20))
                            .determinize_size_limit(Some(4 << 20)),
                    )
                    .syntax(syntax::Config::new().unicode(false).utf8(false))
                    .thompson(thompson::Config::new().utf8(false))
                    .build(&pattern)
                    .ok();
                if let Some(built) = built {
                    let (bytes, pad) = if little {
                        built.to_bytes_little_endian()
                    } else {
                        built.to_bytes_big_endian()
                    };
                    let bytes = &bytes[pad..];
                    // Each DFA starts on an 8-byte boundary of an 8-aligned blob.
                    while !dfas.len().is_multiple_of(8) {
                        dfas.push(0);
                    }
                    dfa = format!("Some(({}, {}))", dfas.len(), bytes.len());
                    dfas.extend_from_slice(bytes);
                }
            }
            rows.push(format!(
                "    Line {{ line: {}, pattern: {pattern_span}, why: {why}, compiled: {compiled}, \
                 anchored: {anchored}, prefixes: {prefixes}, required: {required}, mask: {mask}, \
                 dfa: {dfa}, path: {path} }},",
                i + 1
            ));
        }
        ranges.push(format!("({first}, {})", rows.len()));
        if commands {
            for b in 0..=255u8 {
                let start = byte_rows.len();
                for (row, f) in firsts.iter().enumerate() {
                    if f.as_ref().is_none_or(|f| f.contains(&b)) {
                        byte_rows.push(u16::try_from(row).expect("a rule file under 65,536 rules"));
                    }
                }
                byte_spans.push(format!("({start}, {})", byte_rows.len() - start));
            }
        }
    }
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out_dir.join("bundled_dfas.bin"), &dfas).expect("write bundled_dfas.bin");
    let out = format!(
        "/// Every rule line of the bundled files, by file (in `RuleFile` order) and line.\n\
         pub const LINES: &[Line] = &[\n{}\n];\n\
         /// Each file's lines: a range of LINES.\n\
         pub const FILES: [(u32, u32); 7] = [{}];\n\
         /// The text every pattern, comment and compiled-pattern span points into.\n\
         pub const TEXT: &str = {text:?};\n\
         /// Prefilter literals: (start, len) into BLOB.\n\
         pub const SPANS: &[(u32, u32)] = &[{}];\n\
         pub const BLOB: &[u8] = &{blob:?};\n\
         /// The serialized dense DFAs (8-aligned), each a span of it.\n\
         /// Per command file (in `RuleFile` order) and first byte: a span of BYTE_ROWS, the\n\
         /// file's rows a command starting with that byte can match, in order.\n\
         pub const BYTES: &[(u32, u32)] = &[{}];\n\
         pub const BYTE_ROWS: &[u16] = &{byte_rows:?};\n\
         pub static DFAS: &regex_automata::util::wire::AlignAs<[u8], u64> =\n    \
         &regex_automata::util::wire::AlignAs {{ _align: [], bytes: *include_bytes!(concat!(env!(\"OUT_DIR\"), \"/bundled_dfas.bin\")) }};\n",
        rows.join("\n"),
        ranges.join(", "),
        lit_spans.join(", "),
        byte_spans.join(", "),
    );
    std::fs::write(out_dir.join("bundled_rules.rs"), out).expect("write bundled_rules.rs");
}

/// A bundled path-list line read as the runtime reads a person's (`path_scan`), as the
/// `Some(PathLine { … })` of its row: its texts are spans of the table's text, so loading the
/// list copies nothing and parses nothing; only a `~` line is joined to the home directory.
fn path_line(file: &str, pattern: &str, at: &str, span: &mut impl FnMut(&str) -> String) -> String {
    let exceptions = file != "safe_paths.txt";
    assert!(
        exceptions || !pattern.starts_with('!'),
        "{at}: `!` exceptions are not allowed in {file}"
    );
    let scanned = match file {
        "protected_paths.txt" => path_scan::scan_relative(pattern),
        _ => path_scan::scan(pattern, file != "safe_paths.txt"),
    }
    .unwrap_or_else(|e| panic!("{at}: {e}"));
    let form = match scanned.form {
        path_scan::Form::Prefix => "Prefix",
        path_scan::Form::Glob => "Glob",
        path_scan::Form::Home => "Home",
    };
    format!(
        "Some(PathLine {{ negated: {}, form: Form::{form}, text: {}, literals: {}, glob: {}, \
         simple: {}, mask: Mask({:?}) }})",
        scanned.negated,
        span(&scanned.text),
        span(&scanned.literals),
        scanned.glob,
        scanned.simple,
        scanned.mask.0,
    )
}

/// The bundled command specs, checked as the runtime checks a person's (`spec_check`), each
/// section stored as its checked form (postcard), with the index of their names: a call decodes
/// the sections it names and nothing else. A bad bundled section fails the build with its
/// file:line.
/// The knowledge lists (`rules/signs.txt`, `program_roles.txt`, `sql_words.txt`) as a static
/// slice per kind: a lookup costs what the constants they replace cost, with no parse at run
/// time. A bad line fails the build with its file:line.
fn known() {
    println!("cargo:rerun-if-changed=src/local/known/scan.rs");
    let mut lists: Vec<Vec<String>> = known_scan::KINDS.iter().map(|_| Vec::new()).collect();
    for file in known_scan::FILES {
        let path = format!("rules/{file}");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).expect("a knowledge file is UTF-8");
        let (entries, errors) = known_scan::scan(file, &text);
        if let Some((line, message)) = errors.first() {
            panic!("{path}:{line}: {message}");
        }
        for e in entries {
            let list = &mut lists[e.kind as usize];
            if list.contains(&e.text) {
                panic!("{path}:{}: `{}` is listed twice", e.line, e.text);
            }
            list.push(e.text);
        }
    }
    let mut out = String::from("/// Each kind's bundled entries, in `Kind`'s order.\n");
    writeln!(out, "pub static BUNDLED: [&[&str]; {}] = [", lists.len()).unwrap();
    for list in &lists {
        writeln!(out, "    &{list:?},").unwrap();
    }
    out.push_str("];\n");
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out_dir.join("bundled_known.rs"), out).expect("write bundled_known.rs");
}

/// The fence's lists (`rules/contain/*.txt`) as a static slice of (entry, line) per list, in
/// `contain::lists::List`'s order: a call that is answered fenced reads two of them, and
/// parsing their text (half of it comments) cost ~40K instructions.
fn contain_lists() {
    println!("cargo:rerun-if-changed=src/contain/list_scan.rs");
    println!("cargo:rerun-if-changed=src/lists.rs");
    let mut out =
        String::from("/// Each list's bundled entries and their lines, in `List`'s order.\n");
    writeln!(
        out,
        "pub static BUNDLED: [&[(&str, usize)]; {}] = [",
        contain_scan::FILES.len()
    )
    .unwrap();
    for file in contain_scan::FILES {
        let path = format!("rules/contain/{file}");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).expect("a fence list is UTF-8");
        let entries: Vec<(&str, usize)> = lists::numbered_entries(&text).collect();
        writeln!(out, "    &{entries:?},").unwrap();
    }
    out.push_str("];\n");
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out_dir.join("bundled_contain.rs"), out).expect("write bundled_contain.rs");
}

fn specs() {
    let dir = std::path::Path::new("rules/commands");
    println!("cargo:rerun-if-changed=rules/commands");
    for f in ["spec/scan", "spec/raw", "spec/check", "spec/checked"] {
        println!("cargo:rerun-if-changed=src/local/{f}.rs");
    }
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("rules/commands exists")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    let mut checked_bytes: Vec<u8> = Vec::new();
    // (file, header line, name, span of its checked form, bins)
    let mut sections = Vec::new();
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut patterns: Vec<(String, usize)> = Vec::new();
    // A section named twice leaves one of them dead, and which one depends on file order.
    let mut headers: std::collections::HashMap<String, (String, usize)> = Default::default();
    for (f_idx, f) in files.iter().enumerate() {
        println!("cargo:rerun-if-changed=rules/commands/{f}");
        let text = std::fs::read_to_string(dir.join(f)).expect("spec file is UTF-8");
        let (found, errors) = spec_scan::scan(&text);
        if let Some((line, message)) = errors.first() {
            panic!("rules/commands/{f}:{line}: {message}");
        }
        for s in found {
            if let Some((file, line)) = headers.insert(s.name.clone(), (f.clone(), s.line)) {
                panic!(
                    "rules/commands/{f}:{}: section [{}] is already defined at rules/commands/{file}:{line}",
                    s.line, s.name
                );
            }
            let idx = sections.len();
            let section = &text[s.start..s.end];
            let raw = toml::from_str::<std::collections::BTreeMap<String, raw::RawSpec>>(section)
                .unwrap_or_else(|e| panic!("rules/commands/{f}:{}: {e}", s.line))
                .remove(&s.name)
                .unwrap_or_else(|| panic!("rules/commands/{f}:{}: the section is empty", s.line));
            let checked = spec_check::check(raw, &s.name, &|needle| {
                raw::line_of(section, s.line, needle)
            })
            .unwrap_or_else(|(line, message)| panic!("rules/commands/{f}:{line}: {message}"));
            let bytes = postcard::to_stdvec(&checked).expect("postcard");
            let span = (checked_bytes.len(), bytes.len());
            checked_bytes.extend_from_slice(&bytes);
            if s.name.contains('*') {
                patterns.push((s.name.clone(), idx));
            } else {
                names.push((s.name.clone(), idx));
            }
            for a in &s.aliases {
                names.push((a.clone(), idx));
            }
            sections.push((f_idx, s.line, s.name, span, checked.bins));
        }
    }
    // Names are (start, len) into one NAMES_TEXT string, so the tables hold no pointers: a
    // pointer in a static costs a relocation every time the binary is loaded.
    let mut names_text = String::new();
    let mut span = |n: &str| {
        let start = names_text.len();
        names_text.push_str(n);
        format!("({start}, {})", n.len())
    };
    let mut out = String::from(
        "/// Every bundled section: (file index, header line, name span, span of its checked\n\
         /// form in CHECKED).\n\
         pub const SECTIONS: &[(u32, u32, (u32, u32), (u32, u32))] = &[\n",
    );
    for (f, line, name, (at, len), _) in &sections {
        writeln!(out, "    ({f}, {line}, {}, ({at}, {len})),", span(name)).unwrap();
    }
    out.push_str("];\n");
    // A name written as a section wins over the same name given as an alias; among sections,
    // the later one (file order) wins, as at run time.
    let mut by_name: std::collections::BTreeMap<String, usize> = Default::default();
    let section_names: std::collections::HashSet<&str> =
        sections.iter().map(|s| s.2.as_str()).collect();
    for (n, i) in &names {
        let is_alias = sections[*i].2 != *n;
        if is_alias && (section_names.contains(n.as_str()) || by_name.contains_key(n)) {
            continue;
        }
        by_name.insert(n.clone(), *i);
    }
    out.push_str("/// Exact names and aliases, sorted: (name span, section).\n");
    out.push_str("pub const NAMES: &[((u32, u32), u32)] = &[\n");
    for (n, i) in &by_name {
        writeln!(out, "    ({}, {i}),", span(n)).unwrap();
    }
    out.push_str("];\n/// Pattern sections in file order: (name span, section).\n");
    out.push_str("pub const PATTERNS: &[((u32, u32), u32)] = &[\n");
    for (n, i) in &patterns {
        writeln!(out, "    ({}, {i}),", span(n)).unwrap();
    }
    // A package manager: a program whose first `["P *"]` section says `bins = true`.
    let mut bins: std::collections::BTreeMap<&str, Option<usize>> = Default::default();
    for (n, i) in &patterns {
        if let Some(program) = n.strip_suffix(" *") {
            bins.entry(program)
                .or_insert_with(|| sections[*i].4.then_some(*i));
        }
    }
    out.push_str(
        "];\n/// Package managers, sorted: (program name span, its `[\"P *\"]` section).\n",
    );
    out.push_str("pub const BINS: &[((u32, u32), u32)] = &[\n");
    for (n, i) in &bins {
        if let Some(i) = i {
            writeln!(out, "    ({}, {i}),", span(n)).unwrap();
        }
    }
    out.push_str("];\n");
    writeln!(out, "/// The bundled spec files' names.").unwrap();
    writeln!(out, "pub const FILES: &[&str] = &{files:?};").unwrap();
    writeln!(out, "/// The text every name span points into.").unwrap();
    writeln!(out, "pub const NAMES_TEXT: &str = {names_text:?};").unwrap();
    writeln!(
        out,
        "/// Each section's checked form (`spec::checked::Checked`, postcard)."
    )
    .unwrap();
    writeln!(
        out,
        "pub static CHECKED: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/bundled_specs.bin\"));"
    )
    .unwrap();
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out_dir.join("bundled_specs.bin"), &checked_bytes)
        .expect("write bundled_specs.bin");
    std::fs::write(out_dir.join("bundled_specs.rs"), out).expect("write bundled_specs.rs");
}
