//! The plain parser against brush: wherever it answers, it must build brush's tree, and a
//! plain word must get the value brush's word parser gives it.

use super::*;
use crate::local::shell::walk::Walker;
use proptest::prelude::*;

/// A tree's Debug form with source locations blanked: the plain parser leaves them out, and
/// the walk never reads them.
fn shape(program: &ast::Program) -> String {
    static SPAN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"SourceSpan \{ start: SourcePosition \{[^}]*\}, end: SourcePosition \{[^}]*\} \}",
        )
        .unwrap()
    });
    let text = format!("{program:?}");
    SPAN.replace_all(&text, "SPAN")
        .replace("loc: Some(SPAN)", "loc: None")
}

fn brush(src: &str) -> Option<ast::Program> {
    brush_parser::Parser::new(
        std::io::Cursor::new(src),
        &brush_parser::ParserOptions::default(),
    )
    .parse_program()
    .ok()
}

/// `None` when the plain parser declines or builds brush's tree; the difference otherwise.
fn disagreement(src: &str) -> Option<String> {
    let plain = parse(src)?;
    match brush(src) {
        Some(b) if shape(&b) == shape(&plain) => None,
        Some(b) => Some(format!(
            "`{src}`:\n plain {}\n brush {}",
            shape(&plain),
            shape(&b)
        )),
        None => Some(format!("`{src}`: brush cannot parse it, plain did")),
    }
}

/// `None` when the word is not plain or both readings agree.
fn word_disagreement(raw: &str) -> Option<String> {
    let text = literal_word(raw)?;
    let mut walker = Walker::new();
    let slow = walker.word_by_pieces(raw);
    let same = slow.text == text
        && slow.kind == crate::local::shell::WordKind::Literal
        && slow.value.is_none()
        && walker.out.unknowns.is_empty()
        && walker.out.commands.is_empty();
    (!same).then(|| format!("`{raw}`: plain {text:?}, brush {slow:?}"))
}

fn corpus_commands() -> Vec<String> {
    [
        include_str!("../../../../tests/corpus/sentinel-cases.jsonl"),
        include_str!("../../../../tests/corpus/peer-cases.jsonl"),
        include_str!("../../../../tests/corpus/allowlists.jsonl"),
    ]
    .iter()
    .flat_map(|t| t.lines())
    .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    .filter_map(|v| v["command"].as_str().map(str::to_string))
    .collect()
}

#[test]
fn every_corpus_command_the_plain_parser_reads_gets_brushs_tree() {
    let commands = corpus_commands();
    let mut read = 0;
    let mut wrong = Vec::new();
    for c in &commands {
        if parse(c).is_some() {
            read += 1;
        }
        wrong.extend(disagreement(c));
        for w in c.split([' ', '|', '&', ';', '<', '>', '\n']) {
            wrong.extend(word_disagreement(w));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The point of the subset is that it is most commands: if it shrinks, the fast path has
    // quietly stopped being used.
    assert!(
        read * 10 >= commands.len() * 6,
        "the plain parser read {read} of {} corpus commands",
        commands.len()
    );
}

#[test]
fn the_subset_holds_what_it_says() {
    for (src, plain) in [
        ("git status", true),
        ("FOO=1 npm test 2>&1 | tail -5 && echo done; ls &", true),
        ("cargo test >out.txt 2>>err.txt <in &>all &>>both", true),
        ("a\n\nb && \n c | \n d", true),
        ("git commit -m 'it''s \"x\"' --author=\"A B\" $HOME/x", true),
        ("a=(1 2)", false),
        ("a[0]=x ls", false),
        ("echo $(id)", false),
        ("echo ${HOME}", false),
        ("echo `id`", false),
        ("echo \"$x\"", false),
        ("echo a\\ b", true),
        ("\\rm -rf ~", true),
        ("find . -name x -exec rm \\; -print", true),
        ("echo it\\'s a\\|b c\\;d \\$HOME \\# x", true),
        ("echo a\\\nb", false),
        ("echo a\\", false),
        ("echo \\é", false),
        ("find . -exec rm {} + && git stash drop stash@{0}", true),
        ("echo {a,b} {1..3} x{y}z }", true),
        ("{ls", true),
        ("ls # comment", false),
        ("if true; then ls; fi", false),
        ("time ls", false),
        ("! ls", false),
        ("{ ls; }", false),
        ("(ls)", false),
        ("cat <<EOF\nx\nEOF", false),
        ("cat <<< x", false),
        ("a |& b", false),
        ("diff <(ls) x", false),
        ("ls >| f", false),
        ("", false),
        ("   ", false),
        ("ls &&", false),
        ("ls ; ; ls", false),
        ("café", false),
    ] {
        assert_eq!(parse(src).is_some(), plain, "{src:?}");
        assert_eq!(disagreement(src), None);
    }
}

#[test]
fn literal_words_are_only_plain_text() {
    for (raw, text) in [
        ("abc", Some("abc")),
        ("--out=x.txt", Some("--out=x.txt")),
        ("'a b'", Some("a b")),
        ("\"a b\"c'd'", Some("a bcd")),
        ("'$HOME'", Some("$HOME")),
        ("~", None),
        ("*.rs", None),
        ("$HOME", None),
        ("\"$x\"", None),
        ("a\\b", None),
        ("{a,b}", None),
        ("'open", None),
    ] {
        assert_eq!(literal_word(raw).as_deref(), text, "{raw:?}");
        assert_eq!(word_disagreement(raw), None);
    }
}

/// Pieces that sit on every border of the subset, run together at random.
const PIECES: &[&str] = &[
    "ls",
    "git",
    "a",
    "x.txt",
    "-f",
    "--o=v",
    "FOO=1",
    "A+=2",
    "B+C=1",
    "_x=",
    "a[1]=2",
    "2",
    "10",
    "99999999999",
    " ",
    " ",
    " ",
    "\t",
    "\n",
    "|",
    "||",
    "&&",
    "&",
    ";",
    ";;",
    ">",
    ">>",
    "<",
    ">&",
    "<&",
    "&>",
    "&>>",
    ">|",
    "<>",
    "<<",
    "<<<",
    "|&",
    "'q r'",
    "'",
    "\"",
    "\"s t\"",
    "\"$x\"",
    "$HOME",
    "$",
    "$1",
    "${x}",
    "$(",
    ")",
    "(",
    "{",
    "}",
    "!",
    "#",
    "`",
    "\\",
    "~",
    "*",
    "?",
    "[",
    "]",
    "[[",
    "]]",
    "=",
    "+",
    "time",
    "if",
    "then",
    "fi",
    "done",
    "in",
    "function",
    "é",
    "'é'",
    "-",
];

/// Pieces inside the subset only, so that most generated scripts are read by both parsers.
const PLAIN_PIECES: &[&str] = &[
    "ls", "git", "a", "x.txt", "-f", "--o=v", "FOO=1", "A+=2", "B+C=1", "_x=", "2", "10", " ", " ",
    " ", "\t", "\n", "|", "||", "&&", "&", ";", ">", ">>", "<", ">&", "<&", "&>", "&>>", "'q r'",
    "\"s t\"", "$HOME", "~", "*", "?", "[", "]", "=", "+", "done", "in", "'é'", "-", "\\", "\\",
    "{", "}", "{}", "{a,b}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_scripts_get_brushs_tree(pieces in prop::collection::vec(prop::sample::select(PIECES), 1..12)) {
        let src: String = pieces.concat();
        prop_assert_eq!(disagreement(&src), None);
    }

    #[test]
    fn generated_plain_scripts_get_brushs_tree(pieces in prop::collection::vec(prop::sample::select(PLAIN_PIECES), 1..16)) {
        let src: String = pieces.concat();
        prop_assert_eq!(disagreement(&src), None);
    }

    #[test]
    fn generated_words_get_brushs_value(pieces in prop::collection::vec(prop::sample::select(PIECES), 1..6)) {
        let raw: String = pieces.concat();
        prop_assert_eq!(word_disagreement(&raw), None);
    }
}
