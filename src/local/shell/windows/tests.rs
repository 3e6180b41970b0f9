//! The Windows shells' readers: what commands cmd and PowerShell text runs, and what they cannot
//! read. (What each command then gets is tested through the built binary, tests/windows.rs.)

use super::*;
use crate::local::shell::{Word, WordKind};

/// The commands found, as `argv` joined by spaces (nested code included, in order), and the
/// unknowns.
fn read(items: &[Item]) -> (Vec<String>, Vec<String>) {
    let mut commands = Vec::new();
    let mut unknowns = Vec::new();
    fn walk(items: &[Item], commands: &mut Vec<String>, unknowns: &mut Vec<String>) {
        for item in items {
            match item {
                Item::Command(c) => commands.push(
                    c.argv
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                Item::Nested { items, .. } => walk(items, commands, unknowns),
                Item::Unknown(u) => unknowns.push(u.clone()),
                _ => {}
            }
        }
    }
    walk(items, &mut commands, &mut unknowns);
    (commands, unknowns)
}

fn ps(text: &str) -> (Vec<String>, Vec<String>) {
    read(&powershell::parse(text, Dialect::PowerShell))
}

fn cmd(text: &str) -> (Vec<String>, Vec<String>) {
    read(&cmd::parse(text, false))
}

#[test]
fn powershell_names_resolve_aliases_and_keep_programs() {
    let (c, u) = ps("rm -r -fo ~; ls src | where { $_.Length -gt 1kb }; npx tsc --noEmit");
    assert_eq!(
        c,
        [
            "powershell/remove-item -r -fo ~",
            "powershell/get-childitem src",
            "powershell/where-object {…}",
            "npx tsc --noEmit",
        ]
    );
    assert!(u.is_empty(), "{u:?}");
    assert_eq!(ps("docker-compose up").0, ["docker-compose up"]);
    assert_eq!(ps("Get-FooBar").0, ["powershell/get-foobar"]);
}

#[test]
fn powershell_places_and_paths() {
    let (c, _) =
        ps(r#"Get-Content "$env:USERPROFILE\.ssh\id_rsa"; gc $HOME\x; Remove-Item $env:TEMP\b"#);
    assert_eq!(
        c,
        [
            "powershell/get-content ~/.ssh/id_rsa",
            "powershell/get-content ~/x",
            "powershell/remove-item ~/AppData/Local/Temp/b",
        ]
    );
    // A variable the text set names nothing known afterwards.
    let (c, _) = ps(r#"$env:TEMP = 'C:\Users\me'; Remove-Item $env:TEMP\x"#);
    assert_eq!(c, ["powershell/remove-item $TEMP/x"]);
    // Typographic quotes and dashes are PowerShell's too.
    let (c, _) = ps("Remove-Item \u{2018}~\u{2019} \u{2013}Recurse");
    assert_eq!(c, ["powershell/remove-item ~ -Recurse"]);
    // An array is one word a value.
    assert_eq!(
        ps("Remove-Item a,~ -Recurse").0,
        ["powershell/remove-item a ~ -Recurse"]
    );
}

#[test]
fn powershell_words_know_what_is_unknown() {
    let items = powershell::parse(
        "Write-Output $x \"a $env:GITHUB_TOKEN\" 'lit'",
        Dialect::Pwsh,
    );
    let Some(Item::Command(c)) = items.iter().find(|i| matches!(i, Item::Command(_))) else {
        panic!("{items:?}");
    };
    let kinds: Vec<(&str, WordKind)> = c.argv[1..]
        .iter()
        .map(|w| (w.text.as_str(), w.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("$x", WordKind::Computed),
            ("a $GITHUB_TOKEN", WordKind::Computed),
            ("lit", WordKind::Literal),
        ]
    );
}

#[test]
fn powershell_code_inside_is_read_and_the_rest_is_unknown() {
    let (c, u) = ps("(Get-Content package.json | ConvertFrom-Json).version");
    assert_eq!(
        c,
        [
            "powershell/get-content package.json",
            "powershell/convertfrom-json"
        ]
    );
    assert!(u.is_empty(), "{u:?}");
    let (c, _) = ps("Invoke-Expression 'Remove-Item -Recurse ~'");
    assert!(
        c.contains(&"powershell/remove-item -Recurse ~".to_string()),
        "{c:?}"
    );
    // The blocks of a statement that is not read are still read: a deny inside stands.
    let (c, u) = ps("foreach ($f in $files) { Remove-Item -Recurse ~ }");
    assert!(
        c.contains(&"powershell/remove-item -Recurse ~".to_string()),
        "{c:?}"
    );
    assert!(u.iter().any(|u| u.contains("`foreach`")), "{u:?}");
    for (text, why) in [
        ("if ($x) { rm x }", "`if`"),
        ("$f.Delete()", "`.Delete()`"),
        (
            "[IO.File]::WriteAllText('x', 'y')",
            "`[io.file]::writealltext`",
        ),
        ("Get-ChildItem env:", "`env:`"),
        ("Start-Job @args", "splatting"),
        ("git --% status", "`--%`"),
    ] {
        let (_, u) = ps(text);
        assert!(u.iter().any(|u| u.contains(why)), "{text}: {u:?}");
    }
    assert!(ps("[math]::Round($x.Length / 1mb, 2)").1.is_empty());
    assert!(ps("Get-ChildItem HKLM:\\SOFTWARE\\x").1.is_empty());
    assert!(!ps("Set-Item HKLM:\\SOFTWARE\\x 1").1.is_empty());
}

#[test]
fn powershell_nesting_is_bounded() {
    let deep = format!("{}Get-Date{}", "(".repeat(200), ")".repeat(200));
    let (_, u) = ps(&deep);
    assert!(u.iter().any(|u| u.contains("deeper")), "{u:?}");
    // Never a panic on broken text.
    for text in [
        "(",
        "{",
        "'",
        "\"",
        "$(",
        "@{",
        "[",
        "& ",
        "-",
        "`",
        "Get-Item -Path:",
        "a |",
    ] {
        let _ = ps(text);
    }
}

#[test]
fn cmd_reads_operators_variables_and_its_own_commands() {
    let (c, u) = cmd(r#"cd /d C:\proj && npm run build & echo %USERPROFILE%\x > nul"#);
    assert_eq!(c, ["cmd/cd /d C:/proj", "npm run build", "cmd/echo ~/x"]);
    assert!(u.is_empty(), "{u:?}");
    let (c, _) = cmd(r#"rd /s /q "%APPDATA%\gh" || del /q x"#);
    assert_eq!(c, ["cmd/rd /s /q ~/AppData/Roaming/gh", "cmd/del /q x"]);
    // `rem` comments out the rest of the line, operators and all.
    assert_eq!(cmd("rem x & rd /s /q C:\\").0, Vec::<String>::new());
    // `call`, `start` and `if` run what follows.
    assert_eq!(
        cmd(r#"call build.bat & start "" /b npm run dev & if exist x (del x) else (echo no)"#).0,
        ["./build.bat", "npm run dev", "cmd/del x", "cmd/echo no"]
    );
    // `for` is an unknown, its body still read.
    let (c, u) = cmd("for %f in (*.tmp) do del %f");
    assert_eq!(c, ["cmd/del %f"]);
    assert!(!u.is_empty());
    // `set` names the variable unknown afterwards; `^` escapes; an unknown variable.
    let (c, _) = cmd("set X=1& echo %X% ^& %FOO%");
    assert_eq!(c, ["cmd/set X=1", "cmd/echo $X & $FOO"]);
    // A command's name ends at an unquoted `/`; `copy a+b` and `start URL` are not followed.
    assert_eq!(cmd("rd/s/q x").0, ["cmd/rd /s/q x"]);
    assert!(
        !cmd("copy a+%USERPROFILE%\\.aws\\credentials b")
            .1
            .is_empty()
    );
    assert!(!cmd("start https://example.com/?q=1").1.is_empty());
}

#[test]
fn shells_are_recognised_with_their_options() {
    let words = |s: &str| -> Vec<Word> { s.split(' ').map(Word::literal).collect() };
    let text = |argv: &[Word]| match invocation(argv) {
        Some(Invocation::Text { text, shell, .. }) => Some((shell, text.text)),
        _ => None,
    };
    assert_eq!(
        text(&words("cmd //c dir")),
        Some((Dialect::Cmd, "dir".to_string()))
    );
    assert_eq!(
        text(&words(
            "powershell.exe -NoProfile -ExecutionPolicy Bypass -c Get-Date"
        )),
        Some((Dialect::PowerShell, "Get-Date".to_string()))
    );
    assert_eq!(
        text(&words("PWSH -nop -noni -Command Get-Date")),
        Some((Dialect::Pwsh, "Get-Date".to_string()))
    );
    // `-e` is -EncodedCommand: decoded, and noted.
    let enc = "VwByAGkAdABlAC0ATwB1AHQAcAB1AHQAIABoAGkA";
    match invocation(&words(&format!("powershell -e {enc}"))) {
        Some(Invocation::Text { text, notes, .. }) => {
            assert_eq!(text.text, "Write-Output hi");
            assert!(!notes.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        invocation(&words("powershell -File build.ps1 -x")),
        Some(Invocation::File { .. })
    ));
    assert!(matches!(
        invocation(&words("pwsh script.ps1")),
        Some(Invocation::File { .. })
    ));
    assert!(matches!(
        invocation(&words("cmd /x dir")),
        Some(Invocation::Unread(_))
    ));
    assert!(matches!(invocation(&words("cmd")), Some(Invocation::Stdin)));
    assert!(invocation(&words("command -v x")).is_none());
}
