use super::*;
use crate::local::paths::scan::Mask;

mod paths_and_cache;

#[test]
fn the_prefilter_reads_escapes_and_counts_as_regex_syntax_does() {
    // The old hand-written filter took the `2` of `{2}` and the `41` of `\x41` as text.
    for (pattern, text) in [
        (r"^deploy v\d{2}( |$)", "deploy v12"),
        (r"^wipe \x41LL", "wipe ALL"),
        (r"^a{2}b", "aab"),
        (r"(?i)^drop", "DROP table"),
        (r"^(git|hub) x", "hub x"),
        (r"^\x{41}\u{42}", "AB"),
        (r"(^|\| )curl", "x | curl"),
        (r"^(?:ls)", "ls"),
    ] {
        let rule = CommandRule::new(
            RuleRef {
                file: "t".into(),
                line: 1,
                origin: "t".into(),
                pattern: pattern.into(),
                why: None,
            },
            false,
            false,
            None,
        );
        assert_eq!(rule.test(text), RuleMatch::Yes, "{pattern} on {text}");
        let mut list = RuleList::default();
        list.push(rule);
        list.index();
        assert_eq!(
            list.candidates(text).count(),
            1,
            "{pattern} indexed for {text}"
        );
    }
}

#[test]
fn the_build_time_tables_are_what_the_runtime_computes_from_the_text() {
    for file in RuleFile::ALL {
        let lines: Vec<(usize, &str, Option<&str>)> = file
            .bundled()
            .lines()
            .enumerate()
            .filter_map(|(i, raw)| split_line(raw).map(|(p, w)| (i + 1, p, w)))
            .collect();
        let built: Vec<(usize, &str, Option<&str>)> = bundled::lines(file)
            .iter()
            .map(|l| {
                (
                    l.line as usize,
                    bundled::text(l.pattern),
                    l.why.map(bundled::text),
                )
            })
            .collect();
        assert_eq!(lines, built, "{}", file.name());
        if file.is_path_list() {
            continue;
        }
        for l in bundled::lines(file) {
            let at = format!("{}:{}", file.name(), l.line);
            let body = bundled::text(l.pattern).trim_start_matches('!').trim();
            let pattern = compiled_pattern(body, file == RuleFile::Safe);
            assert_eq!(pattern, bundled::text(l.compiled), "{at}");
            let (lits, anchored, required) = literal_filters(&pattern);
            let spans = |(start, n): (u32, u32)| {
                Literals::Static(&bundled::SPANS[start as usize..(start + n) as usize])
                    .iter()
                    .map(<[u8]>::to_vec)
                    .collect::<Vec<_>>()
            };
            assert_eq!(anchored, l.anchored, "{at}");
            assert_eq!(lits, spans(l.prefixes), "{at}");
            assert_eq!(required, spans(l.required), "{at}");
            // Every bundled rule has its DFA: none is left to compile at run time.
            assert!(l.dfa.is_some(), "{at}: no DFA");
        }
    }
}

/// Both corpora's simple commands and pipelines, and strings made from them.
#[test]
fn the_rules_made_at_compile_time_are_those_the_runtime_makes_from_the_tables() {
    let shown = |r: &CommandRule| {
        let lits = |l: &Literals| l.iter().map(<[u8]>::to_vec).collect::<Vec<_>>();
        format!(
            "{:?} {} {} {} {:?} {:?} {:?} {:?} {:?}",
            r.rule,
            r.negated,
            r.anchored,
            r.whole,
            r.bundled,
            r.compiled_pattern,
            r.mask.0,
            lits(&r.prefixes),
            lits(&r.required)
        )
    };
    let mut seen = 0;
    for file in [
        RuleFile::HardBlock,
        RuleFile::Safe,
        RuleFile::ConditionalBlock,
    ] {
        let made = bundled::command_rules(file);
        let lines = bundled::lines(file);
        assert_eq!(made.len(), lines.len(), "{}", file.name());
        for (k, (r, l)) in made.iter().zip(lines).enumerate() {
            let pattern = bundled::text(l.pattern);
            let at_run_time = CommandRule::new(
                RuleRef {
                    file: Cow::Borrowed(file.name()),
                    line: l.line as usize,
                    origin: Cow::Borrowed("bundled"),
                    pattern: Cow::Borrowed(pattern),
                    why: l.why.map(|w| Cow::Borrowed(bundled::text(w))),
                },
                file == RuleFile::Safe && pattern.starts_with('!'),
                file == RuleFile::Safe,
                Some((bundled::first(file) + k, l)),
            );
            assert_eq!(shown(r), shown(&at_run_time), "{}:{}", file.name(), l.line);
            seen += 1;
        }
        // A bundled list borrows them, and a copy to change (`off:`) has the same rules.
        let Parsed::Commands(mut list) = parse_file(
            file,
            "bundled",
            Lines::Bundled,
            None,
            false,
            Layer::Home,
            None,
        )
        .0
        else {
            panic!("{} holds commands", file.name());
        };
        assert!(list.rules.is_empty() && list.base.len() == made.len());
        let before: Vec<String> = list.iter().map(shown).collect();
        list.own_base();
        assert!(list.base.is_empty() && list.rules.len() == made.len());
        assert_eq!(list.iter().map(shown).collect::<Vec<_>>(), before);
    }
    assert!(seen > 50, "only {seen} bundled command rules");
}

fn corpus_texts() -> Vec<String> {
    let corpus = include_str!("../../../../tests/corpus/sentinel-cases.jsonl");
    let peer = include_str!("../../../../tests/corpus/peer-cases.jsonl");
    let texts: Vec<String> = corpus
        .lines()
        .chain(peer.lines())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .flat_map(|v| {
            let c = crate::shell::analyse(v["command"].as_str().unwrap());
            let mut t: Vec<String> = c.commands.iter().map(|c| c.text()).collect();
            t.extend(c.pipelines);
            t
        })
        .collect();
    let mut texts = texts;
    // Generated strings: each text cut at every word, upper-cased, and with noise around it.
    let base = texts.clone();
    for t in &base {
        let words: Vec<&str> = t.split(' ').collect();
        for i in 1..words.len().min(6) {
            texts.push(words[i..].join(" "));
            texts.push(words[..i].join(" "));
        }
        texts.push(t.to_ascii_uppercase());
        texts.push(format!("x | {t}"));
        texts.push(format!("{t} | sh"));
    }
    texts.extend(
        [
            "Remove-Item -Recurse -Force C:\\",
            "FORMAT-VOLUME -DriveLetter D",
            "PSQL -c DROP TABLE x",
        ]
        .map(String::from),
    );
    texts
}

#[test]
fn the_first_candidate_that_matches_is_the_first_rule_of_the_file_that_does() {
    let rules = Rules::bundled(Some(Path::new("/home/u")));
    let texts = corpus_texts();
    // As `decide` asks for it: the first candidate its test says yes to.
    for list in [rules.hard_block(), rules.safe(), rules.conditional()] {
        let res: Vec<Regex> = list
            .iter()
            .map(|r| compile(&r.compiled_pattern()).unwrap())
            .collect();
        for t in &texts {
            let expected = res.iter().position(|r| r.is_match(t.as_bytes()));
            let found = list
                .candidates(t)
                .find(|r| r.test(t) == RuleMatch::Yes)
                .map(|r| list.iter().position(|c| std::ptr::eq(c, r)).unwrap());
            assert_eq!(found, expected, "{t}");
        }
    }
}

#[test]
fn a_texts_pairs_admit_every_literal_it_contains() {
    for t in corpus_texts() {
        let b = t.as_bytes();
        let pairs = Mask::of(b);
        for len in 1..=8 {
            for w in b.windows(len) {
                assert!(pairs.may_contain(w), "{t:?} holds {w:?}");
                assert!(
                    pairs.may_contain(&w.to_ascii_uppercase()),
                    "{t:?} holds {w:?}"
                );
            }
        }
    }
    // And it rules literals out: the point of asking.
    let pairs = Mask::of(b"git status");
    assert!(!pairs.may_contain(b"push") && !pairs.may_contain(b"--force"));
}

#[test]
fn the_prefilter_never_skips_a_rule_that_matches() {
    let rules = Rules::bundled(Some(Path::new("/home/u")));
    let texts = corpus_texts();
    // Wherever the regex matches, the filter must let it through, and the first-byte
    // index must offer the rule for that text. The rule's test (prefilter, then the
    // build's DFA) answers as the regex does: never a match where it has none, never a miss.
    for list in [rules.hard_block(), rules.safe(), rules.conditional()] {
        for r in list {
            assert!(
                r.bundled.is_some_and(|i| bundled::LINES[i].dfa.is_some()),
                "{} has no DFA",
                r.rule.pattern
            );
            let re = compile(&r.compiled_pattern()).unwrap();
            for t in &texts {
                let expected = if re.is_match(t.as_bytes()) {
                    RuleMatch::Yes
                } else {
                    RuleMatch::No
                };
                assert_eq!(r.test(t), expected, "{} on {t}", r.rule.pattern);
                if expected == RuleMatch::Yes {
                    assert!(
                        list.candidates(t).any(|c| std::ptr::eq(c, r)),
                        "{} not indexed for {t}",
                        r.rule.pattern
                    );
                }
            }
        }
    }
}

#[test]
fn a_projects_rule_files_are_named_under_its_directory() {
    for file in RuleFile::ALL {
        let name = format!("{}/{}", crate::config::PROJECT_DIR, file.name());
        assert_eq!(file.project_name(), name);
    }
}

#[test]
fn comments_and_blank_lines() {
    assert_eq!(split_line("  # hi"), None);
    assert_eq!(split_line(""), None);
    assert_eq!(
        split_line("^ls( .*)?   # list"),
        Some(("^ls( .*)?", Some("list")))
    );
    assert_eq!(split_line("^a[#]b"), Some(("^a[#]b", None)));
}

#[test]
fn bad_lines_are_reported_with_file_and_line() {
    let rules = Rules::from_sources(
        [
            (
                RuleFile::HardBlock,
                "/h/hard_block_commands.txt",
                "# c\n^ok\n^(unclosed\n",
            ),
            (RuleFile::SafePaths, "/h/safe_paths.txt", "relative/path\n"),
        ],
        None,
    );
    let errors: Vec<String> = rules.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with("/h/hard_block_commands.txt:3: bad regex"),
        "{errors:?}"
    );
    assert!(errors[1].starts_with("/h/safe_paths.txt:1: "), "{errors:?}");
    // The person's good line is added to the bundled rules.
    let bundled = Rules::bundled(None).hard_block().len();
    assert_eq!(rules.hard_block().len(), bundled + 1);
}

#[test]
fn a_persons_file_adds_to_the_bundled_rules_and_switches_off_by_pattern() {
    let bundled = Rules::bundled(None);
    let first = bundled.hard_block().iter().next().unwrap().rule.clone();
    let text = format!("^deploy prod\noff: {}\noff: ^no such rule\n", first.pattern);
    let rules = Rules::from_sources(
        [(
            RuleFile::HardBlock,
            "/h/hard_block_commands.txt",
            text.as_str(),
        )],
        None,
    );
    assert!(rules.errors.is_empty(), "{:?}", rules.errors);
    let list = rules.hard_block();
    assert_eq!(list.len(), bundled.hard_block().len());
    assert!(list.iter().any(|r| r.rule.pattern == "^deploy prod"));
    assert!(!list.iter().any(|r| r.rule.pattern == first.pattern));
    // The rest of the bundled rules still apply, with their bundled file and line.
    let second = bundled.hard_block().iter().nth(1).unwrap();
    assert!(list.iter().any(|r| r.rule.pattern == second.rule.pattern
        && r.rule.origin == "bundled"
        && r.rule.line == second.rule.line));
    let layer = &rules.layers[0];
    assert_eq!(rules.added(layer), vec![(1, Cow::from("^deploy prod"))]);
    assert_eq!(
        layer.switched_off,
        vec![(2, first.line, first.pattern.to_string())]
    );
    assert_eq!(layer.unmatched_off, vec![(3, "^no such rule".to_string())]);
}

#[test]
fn an_untouched_seeded_copy_is_not_a_customisation() {
    // Every bundled file as shipped now is a known seeded version (rules/seeded_versions.py
    // regenerates the list), so a copy of it is ignored.
    for file in RuleFile::ALL {
        assert!(
            layers::is_seeded_copy(file, file.bundled()),
            "{}",
            file.name()
        );
    }
    // An older seeded safe_commands.txt (with lines the command model replaced) is ignored
    // as a whole: none of its lines is a rule.
    let old = "^ls( |$)\n";
    assert!(!layers::is_seeded_copy(RuleFile::Safe, old));
    let edited = format!("{}^mytool --check\n", RuleFile::Safe.bundled());
    assert!(!layers::is_seeded_copy(RuleFile::Safe, &edited));
}
