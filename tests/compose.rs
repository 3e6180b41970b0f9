//! The compound invariant, as a property: for generated safe S and dangerous D, no composition
//! of them (lists, pipes, substitutions, `bash -c`, wrappers, xargs, newlines, nested to depth 3)
//! is allowed. Every one must in fact be denied, since D is blocked on its own.

use proptest::prelude::*;
use sentinel::call::ToolCall;
use sentinel::decide::decide;
use sentinel::decision::Verdict;
use sentinel::local::context::Context;
use sentinel::rules::Rules;
use std::path::Path;
use std::sync::OnceLock;

fn rules() -> &'static Rules {
    static R: OnceLock<Rules> = OnceLock::new();
    R.get_or_init(|| Rules::bundled(Some(Path::new("/home/dev"))))
}

fn verdict(command: &str) -> Verdict {
    let ctx = Context::lexical(
        Path::new("/home/dev/proj"),
        Some(Path::new("/home/dev")),
        Path::new("/home/dev/.agentos"),
    );
    decide(
        &ToolCall::Shell {
            command: command.to_string(),
        },
        rules(),
        &ctx,
    )
    .unwrap()
    .verdict
}

fn safe() -> impl Strategy<Value = String> {
    let file = prop::sample::select(vec![
        "README.md",
        "src/main.rs",
        "Cargo.toml",
        "a.txt",
        "docs",
    ]);
    prop_oneof![
        file.clone().prop_map(|f| format!("cat {f}")),
        file.clone().prop_map(|f| format!("ls -la {f}")),
        file.prop_map(|f| format!("wc -l {f}")),
        Just("git status".to_string()),
        Just("git log --oneline -5".to_string()),
        Just("cargo test".to_string()),
        Just("pwd".to_string()),
        "[a-z]{1,8}".prop_map(|w| format!("echo {w}")),
        "[a-z]{1,8}".prop_map(|w| format!("grep -rn {w} src")),
    ]
}

fn dangerous() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "-rf",
            "-fr",
            "-Rf",
            "-r -f",
            "--recursive --force",
            "-rf --no-preserve-root"
        ])
        .prop_flat_map(|flags| prop::sample::select(vec![
            "/", "~", "$HOME", "/etc", "*", "~/"
        ])
        .prop_map(move |t| format!("rm {flags} {t}"))),
        prop::sample::select(vec!["--force", "-f", "--mirror"])
            .prop_map(|f| format!("git push {f} origin main")),
        Just("git reset --hard HEAD~1".to_string()),
        Just("git clean -fdx".to_string()),
        Just("git branch -D feature".to_string()),
        prop::sample::select(vec!["sda", "nvme0n1", "disk0"])
            .prop_map(|d| format!("dd if=/dev/zero of=/dev/{d}")),
        Just("mkfs.ext4 /dev/sdb1".to_string()),
        Just("terraform destroy -auto-approve".to_string()),
        Just("kubectl delete namespace prod".to_string()),
        Just("chmod -R 777 /".to_string()),
    ]
}

/// One way of putting `inner` inside a bigger command, next to a safe `s`.
fn compose(inner: String, s: String, how: u8) -> String {
    let quoted = inner.replace('\'', "'\\''");
    match how % 14 {
        0 => format!("{s}; {inner}"),
        1 => format!("{s} && {inner}"),
        2 => format!("{s} || {inner}"),
        3 => format!("{s} | {inner}"),
        4 => format!("echo $({inner})"),
        5 => format!("echo `{}`", inner.replace('\\', "\\\\").replace('`', "\\`")),
        6 => format!("bash -c '{quoted}'"),
        7 => format!("sudo {inner}"),
        8 => format!("env X=1 {inner}"),
        9 => format!("{s} | xargs -0 {inner}"),
        10 => format!("{s}\n{inner}"),
        11 => format!("( {s}; {inner} )"),
        12 => format!("{{ {inner}; }} && {s}"),
        _ => format!(
            "sh -c \"{}\"",
            inner
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('$', "\\$")
                .replace('`', "\\`")
        ),
    }
}

fn nested() -> impl Strategy<Value = String> {
    (
        dangerous(),
        prop::collection::vec((safe(), any::<u8>()), 1..=3),
    )
        .prop_map(|(d, layers)| {
            layers
                .into_iter()
                .fold(d, |inner, (s, how)| compose(inner, s, how))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn a_dangerous_command_is_denied_in_every_composition(command in nested()) {
        let v = verdict(&command);
        prop_assert_ne!(v, Verdict::Allow, "{:?}", command);
        // Some compositions are not valid shell (`sudo ( … )` inside `$( )`): the hard-block
        // rules still see their rough segments. Every one whose top level parses is denied.
        let a = sentinel::shell::analyse(&command);
        if a.parse_error.is_none() {
            prop_assert_eq!(v, Verdict::Deny, "{:?}", command);
        }
    }

    #[test]
    fn safe_commands_alone_and_chained_are_allowed(a in safe(), b in safe(), how in 0u8..4) {
        let command = match how { 0 => format!("{a}; {b}"), 1 => format!("{a} && {b}"), 2 => format!("{a} | {b}"), _ => a };
        prop_assert_eq!(verdict(&command), Verdict::Allow, "{:?}", command);
    }
}
