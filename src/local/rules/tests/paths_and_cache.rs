//! The path lists and the cached files answer as the text they were built from.

use super::*;

/// Homes a path list is read with: the usual, and ones `~` lines cannot simply be
/// appended to (the root, a trailing slash, glob characters, a `.` component, relative).
const HOMES: [Option<&str>; 8] = [
    None,
    Some("/home/u"),
    Some("/"),
    Some("/home/u/"),
    Some("/h/[x]{a,b}"),
    Some("/home/./u"),
    Some("C:/Users/u"),
    Some("rel/u"),
];

const PATH_LISTS: [RuleFile; 4] = [
    RuleFile::SafePaths,
    RuleFile::ExcludedPaths,
    RuleFile::CredentialPaths,
    RuleFile::ProtectedPaths,
];

#[test]
fn the_built_path_lists_are_the_lists_read_from_the_text() {
    for home in HOMES {
        let h = home.map(Path::new);
        let rules = Rules::bundled(h);
        for file in PATH_LISTS {
            let ci = file != RuleFile::SafePaths;
            let lines: Vec<(usize, &str)> = file
                .bundled()
                .lines()
                .enumerate()
                .filter_map(|(i, raw)| split_line(raw).map(|(p, _)| (i + 1, p)))
                .collect();
            let read = |slowly: bool| -> Vec<(usize, String)> {
                lines
                    .iter()
                    .filter_map(|&(line, p)| {
                        let parsed = match (file, slowly) {
                            (RuleFile::ProtectedPaths, _) => PathPattern::parse_relative(p),
                            (_, false) => PathPattern::parse(p, h, ci),
                            (_, true) => PathPattern::parse_slowly(p, h, ci),
                        };
                        // A `~` line without a home is left out, as the bundled list does.
                        parsed.ok().map(|p| (line, p.fingerprint(!slowly)))
                    })
                    .collect()
            };
            let built = |with_mask: bool| -> Vec<(usize, String)> {
                rules
                    .paths(file)
                    .iter()
                    .map(|(p, r)| (r.line, p.fingerprint(with_mask)))
                    .collect()
            };
            let at = format!("{} with home {home:?}", file.name());
            assert_eq!(built(true), read(false), "{at}");
            // Appending a `~` line to a plain home is what expanding it in full gives.
            assert_eq!(built(false), read(true), "{at}");
        }
    }
}

/// Paths to try the path lists on: every word of the corpora resolved, and around every
/// line of the lists, the path it names, below it, above it, in other cases and spellings.
fn sample_paths(home: &str) -> Vec<PathBuf> {
    let cwd = Path::new("/home/u/proj");
    let h = Some(Path::new(home));
    let corpus = include_str!("../../../../tests/corpus/sentinel-cases.jsonl");
    let peer = include_str!("../../../../tests/corpus/peer-cases.jsonl");
    let mut texts: Vec<String> = corpus
        .lines()
        .chain(peer.lines())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .flat_map(|v| {
            let c = crate::shell::analyse(v["command"].as_str().unwrap());
            c.commands
                .iter()
                .flat_map(|c| c.argv.iter().map(|w| w.text.clone()))
                .collect::<Vec<_>>()
        })
        .flat_map(|w| w.split(['=', '@']).map(String::from).collect::<Vec<_>>())
        .collect();
    for file in PATH_LISTS {
        for (p, _) in file.bundled().lines().filter_map(split_line) {
            let p = p.trim_start_matches('!').trim();
            let named = p
                .replace("**/", "deep/er/")
                .replace('*', "x")
                .replace('?', "C")
                .replace("{rs,", "{")
                .replace(['{', '}'], "")
                .replace(",py,ts,tsx,js,jsx,mjs,cjs,go,java,kt,rb,php,cs,swift,c,h,cpp,md,rst,txt,html,css,scss", "");
            for t in [p.to_string(), named] {
                texts.push(format!("{t}/child"));
                texts.push(t.to_ascii_uppercase());
                texts.push(format!("{t}x"));
                texts.push(t.replace('/', "//"));
                texts.push(t.replace('/', "/./"));
                texts.push(t.rsplit_once('/').map_or(String::new(), |(a, _)| a.into()));
                texts.push(format!("~/proj/{t}"));
                texts.push(t.replace('/', "\\"));
                texts.push(t);
            }
        }
    }
    texts.extend(
        [
            "/",
            "C:\\Windows\\System32\\x.dll",
            "c:/users/bob/appdata/roaming",
            "/dev/null",
            "/dev/fd/3",
            "/proc/1/task/2/environ",
            "/home/u/.ssh/id_rsa.pub",
            "/home/u/src/credentials",
            "/p/src/a/credentials",
            "/p/secrets/x.py",
            "/p/client_secret.json",
        ]
        .map(String::from),
    );
    let mut out: Vec<PathBuf> = Vec::new();
    for t in &texts {
        if let Some(p) = crate::paths::resolve(t, cwd, h) {
            // Relative to the project too, as the protected list is asked.
            if let Ok(rel) = p.strip_prefix(cwd) {
                out.push(rel.to_path_buf());
            }
            out.push(p);
        }
        // As written, unresolved (`a//b`, `./x`, relative names).
        out.push(PathBuf::from(t));
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_byte_pair_masks_and_their_index_never_change_an_answer() {
    let persons = "/a//b\n!/a/b/keep\n!~/.cache/ok*\n/x/./y\n~/notes*\n~/.cache\nC:\\Tools\n/srv/[ab]*/{c,d}\n/opt/?\n/?\n";
    for home in ["/home/u", "/", "/h/[x]{a,b}"] {
        let h = Some(Path::new(home));
        let bundled = Rules::bundled(h);
        let person = Rules::from_sources(
            [
                (RuleFile::SafePaths, "/h/safe_paths.txt", persons),
                (RuleFile::ExcludedPaths, "/h/excluded_paths.txt", persons),
            ],
            h,
        );
        let paths = sample_paths(home);
        assert!(paths.len() > 2_000, "{}", paths.len());
        let mut matched = 0;
        for rules in [&bundled, &person] {
            for file in PATH_LISTS {
                let list = rules.paths(file);
                for path in &paths {
                    let probe = crate::paths::Probe::new(path);
                    for (p, r) in list {
                        let plain = p.matches_plainly(&probe);
                        matched += usize::from(plain);
                        assert_eq!(p.matches_probe(&probe), plain, "{r} on {path:?}");
                    }
                    let line = |m: Option<&RuleRef>| m.map(|r| r.line);
                    let plainly = line(crate::paths::list_matches_plainly(list, path));
                    assert_eq!(
                        line(crate::paths::list_matches(list, path)),
                        plainly,
                        "{} on {path:?}",
                        file.name()
                    );
                    // The pair index reads only some lines, and answers the same (a drive
                    // path written `/C:/x` is tried as `C:/x` first).
                    let plainly = crate::paths::list::drive_form(path)
                        .and_then(|d| line(crate::paths::list_matches_plainly(list, d)))
                        .or(plainly);
                    assert_eq!(
                        line(list.matches(path)),
                        plainly,
                        "{} indexed, on {path:?}",
                        file.name()
                    );
                }
            }
        }
        // The sample reaches the lines: a test that matched nothing would prove nothing.
        assert!(matched > 1_000, "{matched}");
    }
}

/// A bundled list's first lookups read the build's table and build only the lines whose byte
/// pairs the path has: the answer is the built list's, line for line (a home `~` lines are not
/// simply appended to builds the list at once).
#[test]
fn a_deferred_bundled_list_answers_as_the_built_one() {
    let mut matched = 0;
    // No home, a plain one, and one the list is built at once for.
    for home in [None, Some("/home/u"), Some("/h/[x]{a,b}")] {
        let h = home.map(Path::new);
        let paths = sample_paths(home.unwrap_or("/home/u"));
        for file in PATH_LISTS {
            let Parsed::Paths(built) = bundled_paths(file, "bundled", h) else {
                unreachable!()
            };
            let lines = built.lines();
            for path in &paths {
                let Parsed::Paths(fresh) = bundled_paths(file, "bundled", h) else {
                    unreachable!()
                };
                let line = |m: Option<&RuleRef>| m.map(|r| (r.line, r.origin.clone()));
                let plainly = line(crate::paths::list_matches_plainly(lines, path));
                let plainly = crate::paths::list::drive_form(path)
                    .and_then(|d| line(crate::paths::list_matches_plainly(lines, d)))
                    .or(plainly);
                matched += usize::from(plainly.is_some());
                assert_eq!(
                    line(fresh.matches(path)),
                    plainly,
                    "{} with home {home:?}, on {path:?}",
                    file.name()
                );
            }
        }
    }
    assert!(matched > 1_000, "{matched}");
}

#[test]
fn every_bundled_path_glob_builds() {
    let rules = Rules::bundled(Some(Path::new("/home/u")));
    for list in [
        rules.safe_paths(),
        rules.excluded_paths(),
        rules.credential_paths(),
        rules.protected_paths(),
    ] {
        for (p, r) in list {
            assert_eq!(p.check(), Ok(()), "{r}");
        }
    }
}

#[test]
fn every_bundled_rule_compiles() {
    let rules = Rules::bundled(Some(Path::new("/home/u")));
    assert_eq!(rules.lint(), Vec::<RuleError>::new());
    assert!(rules.hard_block().len() > 20);
}

#[test]
fn the_builds_first_byte_index_offers_what_the_rules_prefixes_say() {
    // For every first byte, the candidates (before the pairs and literals pass over them) are
    // the rules whose prefixes allow it, in order: with the build's index for a whole bundled
    // file, and computed when an `off:` took a line away or a person's rule follows.
    let brute = |list: &RuleList, b: u8| -> Vec<usize> {
        (0..list.len())
            .filter(|&i| {
                let r = list.get(i);
                RuleList::unprefixed(r) || r.prefixes.any_starts_with(b)
            })
            .collect()
    };
    let offered = |list: &RuleList, b: u8| -> Vec<usize> {
        let (lead, ids) = match list.lead {
            Some((file, n)) => (bundled::rows_for_byte(file, b), n),
            None => (&[][..], 0),
        };
        let rest = brute(list, b).into_iter().filter(|&i| i >= ids);
        lead.iter().map(|&i| usize::from(i)).chain(rest).collect()
    };
    for file in [
        RuleFile::HardBlock,
        RuleFile::Safe,
        RuleFile::ConditionalBlock,
    ] {
        let bundled_list = || match parse_file(
            file,
            "bundled",
            Lines::Bundled,
            Some(Path::new("/home/u")),
            false,
            Layer::Home,
            None,
        )
        .0
        {
            Parsed::Commands(list) => list,
            Parsed::Paths(_) => panic!("{} holds commands", file.name()),
        };
        let mut whole = bundled_list();
        let n = bundled::lines(file).len();
        assert_eq!(whole.lead, (n > 0).then_some((file, n)), "{}", file.name());
        let person = CommandRule::new(
            RuleRef {
                file: "t".into(),
                line: 1,
                origin: "t".into(),
                pattern: "^zz-mine( |$)".into(),
                why: None,
            },
            false,
            file == RuleFile::Safe,
            None,
        );
        whole.rules.push(person);
        whole.index();
        assert_eq!(
            whole.lead.is_some(),
            n > 0,
            "{}: a person's rule after",
            file.name()
        );
        let mut less = bundled_list();
        if n == 0 {
            continue;
        }
        less.own_base();
        less.rules.remove(n / 2);
        less.index();
        assert_eq!(less.lead, None, "{}: a line switched off", file.name());
        for list in [&whole, &less] {
            for b in 0..=255u8 {
                assert_eq!(offered(list, b), brute(list, b), "{} byte {b}", file.name());
            }
            // What `candidates` offers is a subsequence of that (the automata skip some).
            for t in [
                "git push --force",
                "rm -rf /",
                "zz-mine now",
                "ls",
                "sudo x",
            ] {
                let all = brute(list, t.as_bytes()[0]);
                let got: Vec<usize> = list
                    .candidates(t)
                    .map(|r| list.iter().position(|c| std::ptr::eq(c, r)).unwrap())
                    .collect();
                assert!(
                    got.iter().all(|i| all.contains(i)) && got.is_sorted(),
                    "{}: {t}",
                    file.name()
                );
                let firsts = list.iter().position(|r| r.test(t) == RuleMatch::Yes);
                assert_eq!(
                    got.into_iter()
                        .find(|&i| list.get(i).test(t) == RuleMatch::Yes),
                    firsts,
                    "{}: {t}",
                    file.name()
                );
            }
        }
    }
}

#[test]
fn a_cached_file_built_rule_by_rule_answers_as_its_parse() {
    // The bundled hard-block lines as a person's file: a parse of the text builds every rule;
    // the cached image builds each first byte's rules when a command starts with it.
    // (Not the bundled text itself, which a load takes as no file of the person's.)
    // Then rules that may match anywhere in a command (filed under every first byte; built
    // only for a command holding their literals), with a bad line and one without a literal.
    let anywhere: String = (0..300)
        .map(|i| format!("tool{i} --danger( |$)   # rule {i}\n"))
        .chain([
            "(unclosed\n".into(),
            "\\bx\\b\n".into(),
            "(?i)Secret-Tool\n".into(),
        ])
        .collect();
    let texts: Vec<String> = [
        "tool7 --danger",
        "x tool7 --danger now",
        "tool7 --dangerous",
        "sudo tool299 --danger",
        "tool1 --danger | tool2 --danger",
        "y x",
        "run SECRET-TOOL",
        "git status",
        "",
    ]
    .map(String::from)
    .into_iter()
    .chain(corpus_texts())
    .collect();
    for (file_text, with_errors) in [
        (format!("# mine\n{}", RuleFile::HardBlock.bundled()), false),
        (anywhere, true),
    ] {
        lazily_as_eagerly(&file_text, &texts, with_errors);
    }
}

/// A command file parsed from its text and from its cached image answers the same on `texts`.
fn lazily_as_eagerly(text: &str, texts: &[String], with_errors: bool) {
    let origin = "/h/hard_block_commands.txt";
    let parse = |lines| {
        let (parsed, errors, _) = parse_file(
            RuleFile::HardBlock,
            origin,
            lines,
            None,
            true,
            Layer::Home,
            None,
        );
        assert_eq!(!errors.is_empty(), with_errors, "{errors:?}");
        match parsed {
            Parsed::Commands(list) => list,
            Parsed::Paths(_) => unreachable!(),
        }
    };
    let eager = parse(Lines::Text(text));
    let content = Sha256::digest(text.as_bytes()).into();
    let image = compile_written(
        RuleFile::HardBlock,
        origin,
        text,
        &content,
        None,
        Layer::Home,
        None,
        None,
    )
    .unwrap();
    let lazy = parse(Lines::Image(image));
    assert!(lazy.rules.is_empty() && lazy.pending.is_some());
    let first = |list: &RuleList, t: &str| {
        list.candidates(t)
            .find(|r| r.test_unfiltered(t) != RuleMatch::No)
            .map(|r| r.rule.line)
    };
    for t in texts {
        assert_eq!(first(&lazy, t), first(&eager, t), "{t}");
    }
    assert_eq!(lazy.len(), eager.len());
    let lines = |list: &RuleList| list.iter().map(|r| r.rule.line).collect::<Vec<_>>();
    assert_eq!(lines(&lazy), lines(&eager));
}

#[test]
fn a_cached_line_that_does_not_read_is_a_rule_that_never_allows() {
    // A line whose literals lie past the table: damage the checksum did not catch.
    let image = cache::Image {
        kind: cache::Kind::Own,
        origin: "/h/rules.txt",
        off: Vec::new(),
        lines: vec![cache::Line {
            line: 1,
            pattern: "^ls( |$)",
            why: None,
            found: cache::Found::Command {
                anchored: true,
                prefixes: (0, 5),
                required: (0, 0),
            },
        }],
        literals: vec![b"ls"],
    };
    let compiled = cache::reload(&[1; 32], &[2; 32], &image).unwrap();
    for file in [
        RuleFile::HardBlock,
        RuleFile::Safe,
        RuleFile::ConditionalBlock,
    ] {
        let mut list = RuleList {
            pending: Some(Pending::new(compiled, file, Cow::Borrowed(file.name()))),
            ..RuleList::default()
        };
        list.index();
        for text in ["ls", "ls -la", "", "zzz"] {
            let found: Vec<_> = list.candidates(text).collect();
            assert_eq!(found.len(), 1, "{text}");
            assert!(
                matches!(found[0].test_unfiltered(text), RuleMatch::Broken(_)),
                "{text}"
            );
        }
        assert_eq!(list.len(), 1);
    }
}
