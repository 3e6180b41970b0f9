//! Option reading, as each program parses its arguments.

use super::*;

const SPEC: &str = r#"
[sort]
flags = "-u --unique -r --reverse -n"
options."-o --output" = "write"
options."-k --key" = "text"
options."--compress-program" = "run"
operands = "read..."

[git]
options."-C" = "cwd"
flags = "--no-pager"
operands = "subcommand"

["git push"]
flags = "-u --set-upstream"
options."-f --force" = "deny: rewrites history; instead: --force-with-lease"
operands = "text? text..."

[cp]
flags = "-r -R --recursive -f"
operands = "read... write"

[sed]
options."-i --in-place" = "operands=write"
options."-e --expression" = "sed-script"
options."-n" = "flag"
operands = "sed-script read..."
"#;

fn words(s: &str) -> Vec<Word> {
    s.split(' ').map(Word::literal).collect()
}

fn kinds(cmd: &str) -> (Vec<(Kind, String)>, Vec<String>, Vec<String>) {
    let specs = Specs::from_texts([("t.toml", SPEC)]);
    let r = read(&words(cmd), &specs).unwrap();
    (
        r.values
            .iter()
            .map(|v| (v.kind, v.word.text.clone()))
            .collect(),
        r.marked.iter().map(|m| m.name.clone()).collect(),
        r.problems,
    )
}

#[test]
fn a_word_with_a_space_names_no_program_or_subcommand() {
    // `docker 'compose up'` runs docker's subcommand named `compose up`, which does not
    // exist; joined with spaces it would read as `docker compose up`.
    let specs = Specs::bundled();
    let argv = [Word::literal("docker"), Word::literal("compose up")];
    let r = read(&argv, &specs).unwrap();
    assert_eq!(r.chain.len(), 1);
    assert_eq!(r.problems, ["sentinel has no spec for `docker compose up`"]);
    assert!(read(&[Word::literal("docker compose")], &specs).is_none());
    assert!(specs.program("docker compose").is_none());
    assert!(specs.lookup("docker compose up").is_some());
}

#[test]
fn every_spelling_of_an_option_value() {
    for cmd in [
        "sort -o out in",
        "sort -oout in",
        "sort -uo out in",
        "sort --output out in",
        "sort --output=out in",
        "sort in -o out",
    ] {
        let (values, _, _) = kinds(cmd);
        assert!(
            values.contains(&(Kind::Write, "out".into())),
            "{cmd}: {values:?}"
        );
        assert!(
            values.contains(&(Kind::Read, "in".into())),
            "{cmd}: {values:?}"
        );
    }
    let (values, _, problems) = kinds("sort --outp=x");
    assert_eq!(values, [(Kind::Write, "x".into())]);
    assert_eq!(
        problems.len(),
        1,
        "an abbreviation is never a reason to allow"
    );
    let (values, _, _) = kinds("sort --compress-program=sh");
    assert_eq!(values, [(Kind::Run, "sh".into())]);
}

#[test]
fn operands_fill_their_slots() {
    let (values, _, problems) = kinds("cp -r a b dest");
    assert_eq!(
        values,
        [
            (Kind::Read, "a".into()),
            (Kind::Read, "b".into()),
            (Kind::Write, "dest".into())
        ]
    );
    assert!(problems.is_empty());
    let (values, _, _) = kinds("sed -i s/a/b/ f g");
    assert_eq!(
        values,
        [
            (Kind::SedScript, "s/a/b/".into()),
            (Kind::Write, "f".into()),
            (Kind::Write, "g".into())
        ]
    );
    let (values, _, _) = kinds("sort -- -o");
    assert_eq!(values, [(Kind::Read, "-o".into())]);
}

#[test]
fn subcommands_and_marks() {
    let (values, marked, problems) = kinds("git -C sub push -uf origin main");
    assert_eq!(values[0], (Kind::Cwd, "sub".into()));
    assert_eq!(marked, ["-f"]);
    assert!(problems.is_empty());
    let (_, marked, problems) = kinds("git push --forc");
    assert_eq!(marked, ["--force"]);
    assert_eq!(problems.len(), 1);
    let (_, _, problems) = kinds("git frobnicate");
    assert_eq!(problems, ["sentinel has no spec for `git frobnicate`"]);
    let (_, _, problems) = kinds("sort -x");
    assert_eq!(problems.len(), 1);
}
