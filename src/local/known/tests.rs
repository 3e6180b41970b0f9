use super::*;

fn bundled_text(file: &str) -> &'static str {
    match file {
        "signs.txt" => include_str!("../../../rules/signs.txt"),
        "program_roles.txt" => include_str!("../../../rules/program_roles.txt"),
        _ => include_str!("../../../rules/sql_words.txt"),
    }
}

#[test]
fn every_kind_has_bundled_entries_and_the_phrases_compile() {
    for info in &scan::KINDS {
        assert_eq!(KINDS_IN_ORDER[info.kind as usize], info.kind);
        assert!(!Known::bundled(info.kind).is_empty(), "{}", info.word);
    }
    phrases_regex(Known::bundled(Kind::OverridePhrase)).unwrap();
    // Each phrase holds an override word, or it would never be tried.
    for p in Known::bundled(Kind::OverridePhrase) {
        let one = phrases_regex(&[p]).unwrap();
        assert!(
            Known::bundled(Kind::OverrideWord).iter().any(|w| one
                .as_str()
                .to_ascii_lowercase()
                .contains(&w.replace(' ', "\\s+"))
                || p.contains(w)),
            "{p}"
        );
    }
    for w in Known::bundled(Kind::OverrideWord) {
        assert_eq!(
            *w,
            w.to_ascii_lowercase(),
            "override words are matched in lower case"
        );
    }
    for w in Known::bundled(Kind::SqlForbidden)
        .iter()
        .chain(Known::bundled(Kind::SqlReading))
        .chain(Known::bundled(Kind::SqlPure))
    {
        assert_eq!(
            *w,
            w.to_ascii_uppercase(),
            "SQL words are written in capitals"
        );
    }
}

const KINDS_IN_ORDER: [Kind; 17] = [
    Kind::OverrideWord,
    Kind::OverridePhrase,
    Kind::Egress,
    Kind::Downloader,
    Kind::Interpreter,
    Kind::SecretDumper,
    Kind::SecretPrinter,
    Kind::Runner,
    Kind::Writer,
    Kind::WriteOption,
    Kind::EditOption,
    Kind::Describer,
    Kind::SqlReading,
    Kind::SqlForbidden,
    Kind::SqlPure,
    Kind::SqlDot,
    Kind::SqlMeta,
];

#[test]
fn a_person_adds_what_tightens() {
    let mut known = Known::default();
    let text = "# mine\negress  mysend   # our upload tool\nsecret-printer  vaultctl show token  # prints our token\n";
    assert!(
        known
            .add("signs.txt", "/h/signs.txt", text, Author::Person)
            .is_empty()
    );
    assert!(known.holds(Kind::Egress, "mysend"));
    assert!(known.holds(Kind::Egress, "curl"));
    assert!(!known.holds(Kind::Downloader, "mysend"));
    assert!(
        known
            .entries(Kind::SecretPrinter)
            .any(|e| e == "vaultctl show token")
    );
    let text = "forbidden  vacuum_into  # ours\n";
    assert!(
        known
            .add("sql_words.txt", "s", text, Author::Person)
            .is_empty()
    );
    assert!(known.holds(Kind::SqlForbidden, "VACUUM_INTO"));
}

#[test]
fn a_person_cannot_loosen_and_each_bad_line_names_its_place() {
    let mut known = Known::default();
    let text = "describer  man  # bundled already: no change\ndescriber  rm  # not a describer\nrunner  # nothing\nrunner mytool\nwizard  x  # no such kind\nrunner ok  #\n";
    let errors = known.add(
        "program_roles.txt",
        "/h/program_roles.txt",
        text,
        Author::Person,
    );
    let at: Vec<String> = errors
        .iter()
        .map(|e| format!("{}:{}", e.file, e.line))
        .collect();
    assert_eq!(
        at,
        [
            "/h/program_roles.txt:3",
            "/h/program_roles.txt:4",
            "/h/program_roles.txt:5",
            "/h/program_roles.txt:6",
            "/h/program_roles.txt:2",
        ]
    );
    assert!(
        errors[4].message.contains("loosens"),
        "{}",
        errors[4].message
    );
    assert!(!known.holds(Kind::Describer, "rm"));
    // The organisation may.
    let errors = known.add(
        "program_roles.txt",
        "/etc/p",
        "describer rm  # ours\n",
        Author::Organisation,
    );
    assert!(errors.is_empty());
    assert!(known.holds(Kind::Describer, "rm"));
    // A phrase that does not compile.
    let errors = known.add(
        "signs.txt",
        "/h/signs.txt",
        "override-phrase  (unclosed  # x\n",
        Author::Person,
    );
    assert_eq!((errors.len(), errors[0].line), (1, 1));
    assert!(errors[0].message.starts_with("bad regex"));
}

#[test]
fn a_copy_of_each_bundled_file_is_valid_and_adds_nothing() {
    for file in scan::FILES {
        let mut known = Known::default();
        assert!(
            known
                .add(file, file, bundled_text(file), Author::Person)
                .is_empty(),
            "{file}"
        );
        assert!(known.added.is_empty(), "{file}");
    }
}

#[test]
fn the_person_files_are_read_from_the_home() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("signs.txt"), "egress  mysend  # ours\n").unwrap();
    std::fs::write(dir.join("program_roles.txt"), "writer\n").unwrap();
    let (known, errors) = Known::load(dir);
    assert!(known.holds(Kind::Egress, "mysend"));
    assert_eq!(errors.len(), 1);
    assert!(errors[0].file.ends_with("program_roles.txt") && errors[0].line == 1);
}
