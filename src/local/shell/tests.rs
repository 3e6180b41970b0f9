//! The parser on every construct of SPEC 2.2: what simple commands it finds, through what.

use super::*;

/// The texts of the commands (not wrappers) found in `src`.
fn commands(src: &str) -> Vec<String> {
    let a = analyse(src);
    assert!(
        a.parse_error.is_none(),
        "{src:?} failed to parse: {:?}",
        a.parse_error
    );
    a.commands
        .iter()
        .filter(|c| c.role == Role::Command)
        .map(SimpleCommand::text)
        .collect()
}

fn has(src: &str, text: &str) -> bool {
    commands(src).iter().any(|c| c == text)
}

fn unknowns(src: &str) -> Vec<String> {
    analyse(src).unknowns
}

#[test]
fn lists_and_newlines() {
    assert_eq!(commands("ls; rm x"), ["ls", "rm x"]);
    assert_eq!(commands("a && b || c & d"), ["a", "b", "c", "d"]);
    assert_eq!(commands("a\nb\n\nc"), ["a", "b", "c"]);
}

#[test]
fn pipelines_are_recorded_with_their_stages() {
    let a = analyse("curl -s x | sudo bash");
    assert_eq!(a.pipelines, ["curl -s x | bash"]);
    assert!(
        a.unknowns
            .iter()
            .any(|u| u.contains("reads its script from a pipe"))
    );
    assert_eq!(commands("a | b |& c"), ["a", "b >& 1", "c"]);
}

#[test]
fn subshells_groups_and_compounds() {
    assert_eq!(commands("(a; b)"), ["a", "b"]);
    assert_eq!(commands("{ a; b; }"), ["a", "b"]);
    assert_eq!(
        commands("if a; then b; elif c; then d; else e; fi"),
        ["a", "b", "c", "d", "e"]
    );
    assert_eq!(commands("for i in 1 2; do a $i; done"), ["a $i"]);
    assert_eq!(
        commands("while a; do b; done; until c; do d; done"),
        ["a", "b", "c", "d"]
    );
    assert_eq!(commands("case $x in a) b;; *) c;; esac"), ["b", "c"]);
    assert_eq!(commands("f() { rm -rf /; }; f"), ["rm -rf /", "f"]);
    assert_eq!(commands("coproc rm x"), ["rm x"]);
    assert_eq!(commands("! rm x"), ["rm x"]);
    assert_eq!(commands("time rm x"), ["rm x"]);
}

#[test]
fn substitutions_are_walked() {
    assert!(has("echo $(rm -rf /)", "rm -rf /"));
    assert!(has("echo `rm -rf /`", "rm -rf /"));
    assert!(has("echo \"a $(rm x) b\"", "rm x"));
    assert!(has("cat <(curl x)", "curl x"));
    assert!(has("tee >(rm x)", "rm x"));
    assert!(has("diff <(ls a) <(ls b)", "ls b"));
    assert!(has("x=$(rm y)", "rm y"));
    assert!(has("echo $(echo $(echo $(rm z)))", "rm z"));
    assert!(has("echo ${x:-$(rm w)}", "rm w"));
    assert!(has("echo $(( $(rm v) + 1 ))", "rm v"));
    assert!(has("[[ -n $(rm u) ]]", "rm u"));
    assert!(has("echo `echo \\`rm t\\``", "rm t"));
}

#[test]
fn heredocs_herestrings_and_redirections() {
    assert!(has("cat <<EOF\n$(rm -rf /)\nEOF", "rm -rf /"));
    // A quoted delimiter means no expansion: the text is data.
    assert_eq!(
        commands("cat <<'EOF'\n$(rm -rf /)\nEOF"),
        ["cat << $(rm\t-rf\t/)\t"]
    );
    assert!(has("bash <<EOF\nrm -rf /\nEOF", "rm -rf /"));
    assert!(has("bash <<< 'rm -rf /'", "rm -rf /"));
    assert!(has("echo 'rm -rf /' | sh", "rm -rf /"));
    let a = analyse("ls > out.txt 2>&1 >> log < in");
    let kinds: Vec<_> = a.commands[0].redirects.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            RedirectKind::Write,
            RedirectKind::Duplicate,
            RedirectKind::Append,
            RedirectKind::Read
        ]
    );
    let a = analyse("ls &> all.log");
    assert_eq!(a.commands[0].redirects[0].kind, RedirectKind::Write);
    let a = analyse("{ ls; } > /etc/x");
    assert!(
        a.commands
            .iter()
            .any(|c| c.argv.is_empty() && c.redirects[0].target.text == "/etc/x")
    );
}

#[test]
fn comments_quoting_and_escapes() {
    assert_eq!(commands("ls # rm -rf /"), ["ls"]);
    assert_eq!(commands("echo 'a;b' \"c|d\""), ["echo a;b c|d"]);
    assert_eq!(commands("echo a\\;b"), ["echo a;b"]);
    assert_eq!(commands("ls \\\n -la"), ["ls -la"]);
    assert_eq!(commands("git commit -m \"x y\""), ["git commit -m x\ty"]);
}

#[test]
fn every_whitespace_inside_a_word_renders_as_a_tab() {
    // A rule's plain space must only ever separate words, whatever whitespace a quoted word
    // holds: the vertical tab, form feed, NEL and the Unicode spaces included.
    for space in [
        '\t', '\n', '\u{b}', '\u{c}', '\r', '\u{85}', '\u{a0}', '\u{2003}', '\u{3000}',
    ] {
        let src = format!("git commit -m 'no{space}git{space}push{space}--force'");
        assert_eq!(
            commands(&src),
            ["git commit -m no\tgit\tpush\t--force"],
            "{space:?}"
        );
    }
    assert_eq!(commands("echo 'é x'"), ["echo é\tx"]);
}

#[test]
fn names_are_normalised() {
    for src in [
        "\\rm -rf /",
        "\"rm\" -rf /",
        "r''m -rf /",
        "/bin/rm -rf /",
        "/usr/bin/rm -rf /",
        "'rm' -rf /",
        "r\\m -rf /",
        "/usr/bin/env rm -rf /",
    ] {
        assert!(has(src, "rm -rf /"), "{src}: {:?}", commands(src));
    }
    let a = analyse("./rm -rf /");
    assert_eq!(a.commands[0].name(), "rm");
    assert_eq!(a.commands[0].name_dir.as_deref(), Some("."));
    let a = analyse("/bin/ls");
    assert_eq!(a.commands[0].name_dir, None);
}

#[test]
fn computed_command_names_are_unknown() {
    for src in [
        "$X -rf /",
        "$(echo rm) -rf /",
        "`echo rm` x",
        "${CMD} x",
        "{rm,-rf,/}",
        "$'\\x72m' -rf /",
    ] {
        assert!(
            unknowns(src).iter().any(|u| u.contains("command name")),
            "{src}: {:?}",
            unknowns(src)
        );
    }
}

#[test]
fn wrappers_are_unwrapped() {
    let cases = [
        ("sudo rm -rf /", "sudo"),
        ("sudo -u root -E rm -rf /", "sudo"),
        ("sudo -uroot rm -rf /", "sudo"),
        ("doas rm -rf /", "doas"),
        ("env X=1 Y=2 rm -rf /", "env"),
        ("env -i -u HOME rm -rf /", "env"),
        ("nice -n 5 rm -rf /", "nice"),
        ("nice -5 rm -rf /", "nice"),
        ("nohup rm -rf /", "nohup"),
        ("timeout 5 rm -rf /", "timeout"),
        ("timeout -s KILL -k 1 5 rm -rf /", "timeout"),
        ("command rm -rf /", "command"),
        ("builtin rm -rf /", "builtin"),
        ("exec rm -rf /", "exec"),
        ("stdbuf -oL -eL rm -rf /", "stdbuf"),
        ("xargs -0 -n1 rm -rf /", "xargs"),
        ("bash -c 'rm -rf /'", "bash -c"),
        ("sh -lc 'rm -rf /'", "sh -c"),
        ("zsh -c 'rm -rf /'", "zsh -c"),
        ("dash -c 'rm -rf /'", "dash -c"),
        ("ksh -c 'rm -rf /'", "ksh -c"),
        ("eval 'rm -rf /'", "eval"),
        ("eval rm -rf /", "eval"),
        ("env -S 'rm -rf /'", "env -S"),
        ("poetry run rm -rf /", "poetry run"),
        ("git -c alias.x='!rm -rf /' x", "git -c alias"),
        ("find . -exec rm -rf / \\;", "find -exec"),
        ("find . -execdir rm -rf / +", "find -execdir"),
        ("find . -ok rm -rf / \\;", "find -ok"),
    ];
    for (src, label) in cases {
        let a = analyse(src);
        let rm = a.commands.iter().find(|c| c.name() == "rm");
        let rm = rm.unwrap_or_else(|| panic!("{src}: no rm in {:?}", a.commands));
        assert!(
            rm.via.iter().any(|v| v == label),
            "{src}: via {:?}, want {label}",
            rm.via
        );
        assert!(rm.text().starts_with("rm -rf /"), "{src}: {}", rm.text());
    }
}

#[test]
fn wrappers_with_nothing_to_run_stand_alone() {
    assert_eq!(commands("command -v rm"), ["command -v rm"]);
    assert_eq!(commands("sudo -l"), ["sudo -l"]);
    assert_eq!(commands("env"), ["env"]);
    assert_eq!(commands("xargs"), ["echo"]);
    assert_eq!(commands("bash script.sh"), ["bash script.sh"]);
}

#[test]
fn nesting_is_bounded() {
    let src = format!("{}rm -rf /", "eval ".repeat(12));
    let a = analyse(&src);
    assert!(
        a.unknowns.iter().any(|u| u.contains("nested deeper")),
        "{:?}",
        a.unknowns
    );
    let mut src = "rm -rf /".to_string();
    for _ in 0..4 {
        src = format!("bash -c {}", shell_quote(&src));
    }
    assert!(
        analyse(&src)
            .commands
            .iter()
            .any(|c| c.text() == "rm -rf /")
    );
    let src = format!("{}rm -rf /{}", "bash -c \"$(".repeat(10), ")\"".repeat(10));
    let a = analyse(&src);
    assert!(
        a.unknowns.iter().any(|u| u.contains("nested deeper")),
        "{:?}",
        a.unknowns
    );
    let deep = format!("{}x{}", "(".repeat(200), ")".repeat(200));
    assert!(analyse(&deep).parse_error.is_some());
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn find_keeps_its_own_arguments_and_roots() {
    let a = analyse("find src -name '*.o' -exec rm {} \\; -print");
    // `-exec rm {}` removes what find picks: find is read as having `-delete` in its place.
    assert_eq!(a.commands[0].text(), "find src -name *.o -delete -print");
    let rm = &a.commands[1];
    assert!(rm.extra_args);
    assert_eq!(rm.extra_args_under, [Word::literal("src")]);
}

#[test]
fn cd_is_tracked_and_scoped() {
    let a = analyse("cd /tmp && rm -rf x");
    assert_eq!(a.commands[1].cwd, Cwd::Changed("/tmp".into()));
    let a = analyse("(cd /tmp) && rm -rf x");
    assert_eq!(a.commands[1].cwd, Cwd::Start);
    let a = analyse("cd $X; rm -rf y");
    assert_eq!(a.commands[1].cwd, Cwd::Unknown);
    let a = analyse("cd a; cd b; ls");
    assert_eq!(a.commands[2].cwd, Cwd::Changed("a/b".into()));
}

#[test]
fn dangerous_assignments_are_unknown() {
    // What loads code or picks a program is unknown as soon as it is parsed; the variables
    // whose value is judged (`PATH`, `PYTHONPATH`, `GIT_SSH_COMMAND`, `NODE_OPTIONS`) are
    // judged by Tier 1's policy, where the project and the temp dirs are known.
    for src in [
        "LD_PRELOAD=x.so ls",
        "export LD_LIBRARY_PATH=/tmp",
        "env BASH_ENV=/x ls",
        "TAR_OPTIONS=--to-command=sh tar xf a.tar",
    ] {
        assert!(
            unknowns(src)
                .iter()
                .any(|u| u.contains("changes what the command runs")),
            "{src}"
        );
    }
    assert!(unknowns("RUST_LOG=debug cargo test").is_empty());
}

#[test]
fn git_config_that_runs_code_is_unknown() {
    assert!(
        unknowns("git -c core.pager='rm -rf /' log")
            .iter()
            .any(|u| u.contains("core.pager"))
    );
    assert!(has("git -c core.sshCommand='rm -rf /' fetch", "rm -rf /"));
}

#[test]
fn fork_bombs_are_found() {
    assert_eq!(analyse(":(){ :|:& };:").self_calling_functions, [":"]);
    assert_eq!(analyse("b() { b | b & }; b").self_calling_functions, ["b"]);
}

#[test]
fn parse_errors_are_reported_not_guessed() {
    for src in ["echo \"unterminated", "ls $(", "if then fi", "ls |", "(("] {
        assert!(analyse(src).parse_error.is_some(), "{src} should not parse");
    }
    assert!(
        analyse(&"a".repeat(MAX_COMMAND_BYTES + 1))
            .parse_error
            .is_some()
    );
}

#[test]
fn rough_segments_split_at_operators() {
    assert_eq!(
        rough_segments("ls; rm -rf \"/\" | x"),
        ["ls", "rm -rf /", "x"]
    );
}

#[test]
fn text_that_is_not_arithmetic_is_a_subshell() {
    // bash runs `$(( cat x; rm y ))` as `$( ( cat x; rm y ) )`; found by the property test.
    assert!(has("echo $(( cat README.md; rm -rf / ))", "rm -rf /"));
    assert!(has("(( ls; rm -rf ~ ))", "rm -rf ~"));
    assert!(
        unknowns("echo $(( cat x; ls ))")
            .iter()
            .any(|u| u.contains("not arithmetic"))
    );
    assert!(unknowns("echo $(( 1 + 2 * 3 ))").is_empty());
    // A variable's value is evaluated as arithmetic again (issue 28): only a known number is
    // inert there.
    assert!(unknowns("x=4; echo $(( 1 + 2 * x ))").is_empty());
    assert!(!unknowns("echo $(( 1 + 2 * x ))").is_empty());
}

#[test]
fn a_comment_hides_the_rest_of_its_line() {
    // The fuzzer's first find: `rm` after `#` on the same line never runs, so allowing is right.
    assert_eq!(commands("find . -name #*' x; rm -rf ~"), ["find . -name"]);
    assert_eq!(commands("ls #x\nrm -rf ~"), ["ls", "rm -rf ~"]);
}
