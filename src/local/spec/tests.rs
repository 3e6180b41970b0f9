//! Specs: the bundled sections, a person's files over them, lookup by name and pattern.

use super::*;
use crate::local::spec::scan::header_name;

/// One section's TOML read and checked the way a person's is (what the build stores).
fn parse_section(
    file: &str,
    origin: &str,
    text: &str,
    header: usize,
    name: &str,
) -> Result<CommandSpec, RuleError> {
    cache::check_section(text, header, name)
        .map(|checked| CommandSpec::new(checked, file, origin, header))
        .map_err(|(line, message)| RuleError {
            file: display(file, origin),
            line,
            message,
        })
}

/// What the build stored of each bundled section is what the runtime's own reading of its
/// TOML (a person's path: scan, TOML, check) gives, and the build's index lists every section
/// the scan finds, in order.
#[test]
fn every_bundled_section_reads_from_the_build_as_from_its_toml() {
    let specs = Specs::bundled();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules")
        .join(DIR);
    let mut built = bundled::SECTIONS.iter().enumerate();
    for (f, file) in bundled::FILES.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let (found, errors) = crate::local::spec::scan::scan(&text);
        assert!(errors.is_empty(), "{file}: {errors:?}");
        for s in found {
            let (i, &(bf, line, name, _)) = built.next().expect("a section of the build");
            assert_eq!(
                (bf as usize, line as usize, bundled_name(name)),
                (f, s.line, s.name.as_str()),
                "{file}:{}",
                s.line
            );
            let from_toml = parse_section(file, "bundled", &text[s.start..s.end], s.line, &s.name);
            assert_eq!(
                format!("{from_toml:?}"),
                format!("{:?}", specs.parse(Id::Bundled(i))),
                "{file}:{}",
                s.line
            );
        }
    }
    assert!(built.next().is_none(), "the build has sections no file has");
}

#[test]
fn every_bundled_spec_parses() {
    let specs = Specs::bundled();
    assert_eq!(specs.lint(), Vec::<RuleError>::new());
    assert!(specs.program("sort").is_some());
    // The build-time index is sorted, so lookups by binary search find every name.
    assert!(
        bundled::NAMES
            .windows(2)
            .all(|w| bundled_name(w[0].0) < bundled_name(w[1].0))
    );
    for (name, _) in bundled::NAMES {
        let name = bundled_name(*name);
        assert!(specs.lookup(name).is_some(), "{name}");
    }
    // Every pattern section is found by words it matches.
    for (p, _) in bundled::PATTERNS {
        let name = bundled_name(*p).replace('*', "x");
        assert!(specs.lookup(&name).is_some(), "{}", bundled_name(*p));
    }
    // The build's list of package managers: each program's first `["P *"]` section says.
    let mut seen = std::collections::HashSet::new();
    for &(p, i) in bundled::PATTERNS {
        if let Some(program) = bundled_name(p).strip_suffix(" *")
            && seen.insert(program)
        {
            let bins = specs.section(Id::Bundled(i as usize)).unwrap().bins;
            assert_eq!(specs.bins_section(program).is_some(), bins, "{program}");
        }
    }
}

#[test]
fn header_names() {
    assert_eq!(header_name("[sort]").as_deref(), Some("sort"));
    assert_eq!(
        header_name("[\"git commit\"]  # x").as_deref(),
        Some("git commit")
    );
    assert_eq!(header_name("[[x]]"), None);
    assert_eq!(header_name("[a.b]"), None);
}

#[test]
fn globs_match_one_word() {
    assert!(word_glob("describe-*", "describe-instances"));
    assert!(word_glob("*", "ec2"));
    assert!(!word_glob("describe-*", "delete-x"));
    assert!(word_glob("*-delete-*", "x-delete-y"));
}

#[test]
fn bad_specs_are_reported_with_file_and_line() {
    let specs = Specs::from_texts([(
        "mine.toml",
        "# mine\n[frob]\nflags = \"-a\"\noptions.\"-o --out\" = \"wrte\"\n\n[\"frob x\"]\nsyntax = \"nope\"\n",
    )]);
    let errors: Vec<String> = specs.lint().iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with("mine.toml:4: unknown kind `wrte`"),
        "{errors:?}"
    );
    assert!(
        errors[1].starts_with("mine.toml:7: unknown syntax"),
        "{errors:?}"
    );
}

#[test]
fn a_persons_section_replaces_the_bundled_one() {
    let specs = Specs::from_texts([("t.toml", "[sort]\nflags = \"-u\"\n")]);
    let s = specs.program("sort").unwrap();
    assert_eq!(s.rule.file, "commands/t.toml");
    assert!(s.short('o').is_none());
}

#[test]
fn long_options_resolve_like_getopt() {
    let specs = Specs::from_texts([(
        "t.toml",
        "[sort]\nflags = \"-u --unique --output-debug\"\noptions.\"-o --output\" = \"write\"\n",
    )]);
    let s = specs.program("sort").unwrap();
    assert!(matches!(s.long("--output", Syntax::Gnu), Matched::Exact(_)));
    assert!(matches!(
        s.long("--uni", Syntax::Gnu),
        Matched::Abbreviated(_)
    ));
    assert!(matches!(s.long("--outp", Syntax::Gnu), Matched::Ambiguous));
    assert!(matches!(s.long("--nope", Syntax::Gnu), Matched::Unknown));
}
