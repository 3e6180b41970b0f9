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

/// The bundled Windows sections, read against real command lines.
fn bundled(cmd: &str) -> (Vec<(Kind, String)>, Vec<String>) {
    let r = read(&words(cmd), &Specs::bundled()).unwrap();
    (
        r.values
            .iter()
            .map(|v| (v.kind, v.word.text.clone()))
            .collect(),
        r.problems,
    )
}

#[test]
fn windows_switches_are_read_as_windows_programs_read_them() {
    // `/S` in any case, several in one word, Git Bash's `//s`, a value after `:` or glued.
    let (v, p) = bundled("cmd/dir /S/B /a:h //o-d src");
    assert!(p.is_empty(), "{p:?}");
    assert_eq!(
        v,
        [
            (Kind::Text, "h".to_string()),
            (Kind::Text, "-d".to_string()),
            (Kind::List, "src".to_string())
        ]
    );
    let (v, p) = bundled("cmd/dir /ah");
    assert!(p.is_empty(), "{p:?}");
    assert_eq!(v[0], (Kind::Text, "h".to_string()));
    // `rd /s` turns the operand into a tree deleted; an unknown switch is a problem.
    assert_eq!(
        bundled("cmd/rd /s /q x").0,
        [(Kind::DeleteTree, "x".into())]
    );
    assert!(!bundled("cmd/rd /x y").1.is_empty());
    // `-ano` is a cluster; `/FI` takes the next word.
    assert!(bundled("findstr /s /i TODO *.ts").1.is_empty());
    assert_eq!(bundled("tasklist /FI x").0, [(Kind::Text, "x".to_string())]);
}

#[test]
fn powershell_parameters_are_bound_as_powershell_binds_them() {
    // Any case; `-Name:value`; the common parameters; `-Path` is the first operand, so the
    // positional words fill the slots after it.
    let (v, p) = bundled("powershell/copy-item dest -PATH src -ErrorAction:Stop");
    assert!(p.is_empty(), "{p:?}");
    assert_eq!(
        v,
        [
            (Kind::Text, "Stop".to_string()),
            (Kind::Read, "src".to_string()),
            (Kind::Write, "dest".to_string())
        ]
    );
    // `-Recurse` turns a named `-Path` too; `-Recurse:$false` is the switch not given.
    assert_eq!(
        bundled("powershell/remove-item -Path x -Recurse").0,
        [(Kind::DeleteTree, "x".to_string())]
    );
    assert_eq!(
        bundled("powershell/remove-item -Path x -Recurse:$false").0,
        [(Kind::Delete, "x".to_string())]
    );
    // An abbreviation is read for what it means, and never allowed.
    let (v, p) = bundled("powershell/remove-item x -rec");
    assert_eq!(v, [(Kind::DeleteTree, "x".to_string())]);
    assert!(p[0].contains("abbreviates `-recurse`"), "{p:?}");
    // A number is no parameter; an unknown parameter is a problem.
    assert!(bundled("powershell/get-content x -Tail -5").1.is_empty());
    assert!(!bundled("powershell/get-content x -Frobnicate").1.is_empty());
}
