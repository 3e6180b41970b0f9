//! Wrappers that run another command: `sudo`, `env`, `xargs`, `bash -c`, `find -exec` …

pub(super) use super::searches::{below_root, find_roots, split_fd, split_find};
use super::*;

/// What a wrapper at the front of a command does with the rest of it.
pub(super) enum Unwrap {
    /// Not a wrapper here (or a wrapper with nothing to run): the command stands as it is.
    No,
    /// Runs the command starting at this index of argv.
    Inner {
        start: usize,
        label: String,
        extra_args: bool,
        /// Text replaced at run time in the inner words (`xargs -I {}`).
        placeholder: Option<String>,
    },
    /// Runs this text as a shell script.
    Script { text: Word, label: String },
    /// A shell reading its script from stdin.
    StdinScript { label: String },
}
/// Splits the `NAME=value` words `env` takes before its command.
pub(super) fn split_env_assignments(words: Vec<Word>) -> (Vec<(String, Word)>, Vec<Word>) {
    let mut assignments = Vec::new();
    let mut rest = words.into_iter().peekable();
    while let Some(w) = rest.peek() {
        match w.text.split_once('=') {
            Some((name, value))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                assignments.push((
                    name.to_string(),
                    Word {
                        text: value.to_string(),
                        kind: w.kind,
                        value: None,
                    },
                ));
                rest.next();
            }
            _ => break,
        }
    }
    (assignments, rest.collect())
}

/// Skips options of a wrapper the way getopt does and returns the index of its first operand.
/// `short_val`/`long_val` are the options that take a value (`-u root`, `-uroot`, `--user root`).
pub(super) fn skip_options(argv: &[Word], short_val: &[&str], long_val: &[&str]) -> usize {
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].text.as_str();
        if a == "--" {
            return i + 1;
        }
        if !a.starts_with('-') || a == "-" {
            return i;
        }
        if a.starts_with("--") {
            if !a.contains('=') && long_val.contains(&a) {
                i += 1;
            }
        } else {
            // A run of short flags: the first one that takes a value takes the rest of the
            // word, or the next word when nothing follows it.
            for (pos, c) in a.char_indices().skip(1) {
                let mut buf = [0u8; 4];
                let opt = format!("-{}", c.encode_utf8(&mut buf));
                if short_val.contains(&opt.as_str()) {
                    if pos + c.len_utf8() == a.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    i
}

/// Whether `env`'s options change the directory its command runs in, however GNU env takes
/// `-C DIR`: alone, glued (`-C..`), in a cluster (`-iC..`), or as `--chdir` or any prefix of it
/// (`--ch=..`). A `-u`, `-S` or `-a` earlier in a cluster takes the rest of the word as its value.
pub(super) fn env_changes_dir(argv: &[Word]) -> bool {
    let mut words = argv.iter().skip(1);
    while let Some(w) = words.next() {
        let a = w.text.as_str();
        if a == "--" || !a.starts_with('-') || a == "-" {
            return false;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            if !name.is_empty() && "chdir".starts_with(name) {
                return true;
            }
            // `--unset NAME`, `--split-string S`, `--argv0 A`: the next word is the value.
            let takes_value = ["unset", "split-string", "argv0"]
                .iter()
                .any(|o| !name.is_empty() && o.starts_with(name));
            if takes_value && !inline {
                words.next();
            }
            continue;
        }
        let body = &a[1..];
        for (pos, c) in body.char_indices() {
            match c {
                'C' => return true,
                'u' | 'S' | 'a' => {
                    // The rest of the word is the value, or the next word when nothing is left.
                    if pos + 1 == body.len() {
                        words.next();
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    false
}

/// A shell started as a login shell (`-l`, `--login`, `-lc`, `-il`): it runs /etc/profile and
/// ~/.profile (or ~/.bash_profile …) before anything else.
pub(super) fn login_shell(argv: &[Word]) -> bool {
    argv.iter().skip(1).take_while(|w| w.text != "--").any(|w| {
        w.text == "--login"
            || (w.text.starts_with('-') && !w.text.starts_with("--") && w.text[1..].contains('l'))
    })
}

/// Whether a shell's options include `-c` (alone or in a cluster).
fn shell_has_c(argv: &[Word]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|w| w.text != "--" && w.text.starts_with('-'))
        .any(|w| !w.text.starts_with("--") && w.text[1..].contains('c'))
}

/// Words joined by spaces into one script (`eval a b`), literal only when every word is, with
/// a value when every word's value is known.
fn joined(words: &[Word]) -> Word {
    let text = words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    if words.iter().all(Word::is_literal) {
        return Word::literal(text);
    }
    let value: Option<Vec<&str>> = words.iter().map(Word::known_value).collect();
    Word {
        text,
        kind: WordKind::Computed,
        value: value.map(|v| v.join(" ")),
    }
}

/// Recognises a wrapper at the front of argv.
pub(super) fn wrapper(argv: &[Word]) -> Unwrap {
    let Some(name) = argv.first().map(|w| w.text.as_str()) else {
        return Unwrap::No;
    };
    let inner = |start: usize, label: &str| {
        if start < argv.len() {
            Unwrap::Inner {
                start,
                label: label.to_string(),
                extra_args: false,
                placeholder: None,
            }
        } else {
            Unwrap::No
        }
    };
    match name {
        "sudo" => {
            let start = skip_options(
                argv,
                &[
                    "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "-R",
                ],
                &[
                    "--user",
                    "--group",
                    "--host",
                    "--prompt",
                    "--close-from",
                    "--chdir",
                    "--role",
                    "--type",
                    "--command-timeout",
                    "--other-user",
                    "--chroot",
                ],
            );
            // `sudo -e FILE` edits a file: no command runs.
            if argv[1..start.min(argv.len())].iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "-e" | "--edit" | "-l" | "--list" | "-v" | "--validate"
                )
            }) {
                return Unwrap::No;
            }
            inner(start, "sudo")
        }
        "doas" => inner(skip_options(argv, &["-u", "-C"], &[]), "doas"),
        "env" => {
            let start = skip_options(
                argv,
                &["-u", "-C", "-S"],
                &["--unset", "--chdir", "--split-string"],
            );
            if let Some(i) = argv[1..start.min(argv.len())].iter().position(|w| {
                w.text == "-S"
                    || w.text.starts_with("--split-string")
                    || (w.text.starts_with("-S") && w.text.len() > 2)
            }) {
                let opt = &argv[i + 1];
                let text = if opt.text == "-S" || opt.text == "--split-string" {
                    argv.get(i + 2).cloned()
                } else {
                    let v = opt
                        .text
                        .trim_start_matches("--split-string=")
                        .trim_start_matches("-S");
                    Some(Word {
                        text: v.to_string(),
                        kind: opt.kind,
                        value: None,
                    })
                };
                let rest: Vec<&str> = argv[start.min(argv.len())..]
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect();
                if let Some(mut t) = text {
                    if !rest.is_empty() {
                        t.text = format!("{} {}", t.text, rest.join(" "));
                    }
                    return Unwrap::Script {
                        text: t,
                        label: "env -S".to_string(),
                    };
                }
            }
            inner(start, "env")
        }
        "nice" => {
            let mut start = skip_options(argv, &["-n"], &["--adjustment"]);
            // `nice -10 cmd`
            while argv.get(start).is_some_and(|w| {
                w.text.starts_with('-') && w.text[1..].chars().all(|c| c.is_ascii_digit())
            }) {
                start += 1;
            }
            inner(start, "nice")
        }
        "nohup" | "builtin" | "setsid" | "unbuffer" => inner(skip_options(argv, &[], &[]), name),
        "ionice" => inner(
            skip_options(
                argv,
                &["-c", "-n", "-p", "-P", "-u"],
                &["--class", "--classdata"],
            ),
            "ionice",
        ),
        "timeout" => {
            let start = skip_options(argv, &["-s", "-k"], &["--signal", "--kill-after"]);
            inner(start + 1, "timeout")
        }
        "time" => inner(
            skip_options(argv, &["-f", "-o"], &["--format", "--output"]),
            "time",
        ),
        "command" => {
            let start = skip_options(argv, &[], &[]);
            if argv[1..start.min(argv.len())]
                .iter()
                .any(|w| w.text.contains('v') || w.text.contains('V'))
            {
                return Unwrap::No;
            }
            inner(start, "command")
        }
        "exec" => inner(skip_options(argv, &["-a"], &[]), "exec"),
        // `flock [opts] FILE CMD…` or `flock [opts] FILE -c CMD` (`-c CMD` may also come
        // before FILE); `flock [opts] FD` runs nothing. The lock file is the spec's business.
        "flock" => {
            let short = &["-w", "-E", "-c"];
            let long = &["--wait", "--timeout", "--conflict-exit-code", "--command"];
            let start = skip_options(argv, short, long);
            let command_opt = |w: &Word| {
                matches!(w.text.as_str(), "-c" | "--command") || w.text.starts_with("--command=")
            };
            if let Some(at) = argv[1..start.min(argv.len())].iter().position(command_opt) {
                let w = &argv[1 + at];
                let text = match w.text.strip_prefix("--command=") {
                    Some(v) => Word {
                        text: v.to_string(),
                        kind: w.kind,
                        value: None,
                    },
                    None => match argv.get(2 + at) {
                        Some(v) => v.clone(),
                        None => return Unwrap::No,
                    },
                };
                return Unwrap::Script {
                    text,
                    label: "flock -c".to_string(),
                };
            }
            match argv.get(start + 1) {
                Some(w) if command_opt(w) => match argv.get(start + 2) {
                    Some(text) => Unwrap::Script {
                        text: text.clone(),
                        label: "flock -c".to_string(),
                    },
                    None => Unwrap::No,
                },
                _ => inner(start + 1, "flock"),
            }
        }
        // `taskset [opts] MASK CMD…` and `chrt [opts] PRIORITY CMD…`; with `-p` they change a
        // running process and run nothing.
        "taskset" | "chrt" => {
            let start = skip_options(argv, &[], &[]);
            if argv[1..start.min(argv.len())]
                .iter()
                .any(|w| w.text == "--pid" || (!w.text.starts_with("--") && w.text.contains('p')))
            {
                return Unwrap::No;
            }
            inner(start + 1, name)
        }
        "stdbuf" => inner(
            skip_options(
                argv,
                &["-i", "-o", "-e"],
                &["--input", "--output", "--error"],
            ),
            "stdbuf",
        ),
        "xargs" => {
            let start = skip_options(
                argv,
                &["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"],
                &[
                    "--arg-file",
                    "--delimiter",
                    "--eof",
                    "--replace",
                    "--max-lines",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--process-slot-var",
                ],
            );
            Unwrap::Inner {
                start,
                label: "xargs".to_string(),
                extra_args: true,
                placeholder: xargs_placeholder(&argv[1..start.min(argv.len())]),
            }
        }
        "poetry" | "pipenv" | "pdm" | "uv" | "rye" | "hatch"
            if argv.get(1).is_some_and(|w| w.text == "run") =>
        {
            if argv.get(2).is_some_and(|w| w.text.starts_with('-')) {
                return Unwrap::No;
            }
            inner(2, &format!("{name} run"))
        }
        "bundle" if argv.get(1).is_some_and(|w| w.text == "exec") => inner(2, "bundle exec"),
        // Laravel Sail (`./vendor/bin/sail artisan migrate:fresh`): its commands that name a
        // program run it in the app's container with the rest, judged as that program (`art`
        // is artisan's short name: a program sentinel does not know, so uncertain).
        _ if (name == "sail" || name.ends_with("vendor/bin/sail"))
            && argv.get(1).is_some_and(|w| {
                w.is_literal()
                    && matches!(
                        w.text.as_str(),
                        "artisan"
                            | "art"
                            | "php"
                            | "composer"
                            | "node"
                            | "npm"
                            | "npx"
                            | "pnpm"
                            | "pnpx"
                            | "yarn"
                            | "bun"
                            | "bunx"
                            | "phpunit"
                            | "pest"
                            | "pint"
                            | "dusk"
                    )
            }) =>
        {
            inner(1, "sail")
        }
        // `adb shell WORDS`: adb joins the words and the device's shell parses them again, so a
        // word with shell syntax (`"ls; reboot"`, `'$(rm -r /sdcard)'`) holds commands of its
        // own. Then the line is judged as a script run from `/` (the device shell's folder): a
        // delete stays a delete, anything unknown uncertain. Plain words are adb's spec
        // (`["adb shell NAME"]` sections).
        "adb" => {
            let mut i = 1;
            while let Some(w) = argv.get(i) {
                match w.text.as_str() {
                    "-s" | "-t" | "-P" | "-H" | "-L" => i += 2,
                    t if t.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            if !argv
                .get(i)
                .is_some_and(|w| matches!(w.text.as_str(), "shell" | "exec-out"))
            {
                return Unwrap::No;
            }
            i += 1;
            while let Some(w) = argv.get(i) {
                match w.text.as_str() {
                    "-e" => i += 2,
                    "-T" | "-t" | "-x" | "-n" | "--" => i += 1,
                    _ => break,
                }
            }
            let words = &argv[i.min(argv.len())..];
            let syntax = |w: &Word| {
                w.text
                    .chars()
                    .any(|c| c.is_whitespace() || ";&|<>()$`\\\"'".contains(c))
            };
            if !words.iter().any(syntax) {
                return Unwrap::No;
            }
            let mut text = joined(words);
            text.text = format!("cd / && {}", text.text);
            if let Some(v) = text.value.as_mut() {
                *v = format!("cd / && {v}");
            }
            Unwrap::Script {
                text,
                label: "adb shell".to_string(),
            }
        }
        // `xcrun simctl list`, `xcrun --sdk iphoneos clang`: finds an Xcode tool and runs it,
        // judged as that tool. `--find`, `--show-sdk-path` … run nothing: xcrun's own spec.
        "xcrun" => {
            let mut i = 1;
            while let Some(w) = argv.get(i) {
                match w.text.as_str() {
                    "-sdk" | "--sdk" | "-toolchain" | "--toolchain" => i += 2,
                    "-l" | "--log" | "-v" | "--verbose" | "-n" | "--no-cache" | "-k"
                    | "--kill-cache" | "-r" | "--run" => i += 1,
                    t if t.starts_with('-') || !w.is_literal() => return Unwrap::No,
                    _ => break,
                }
            }
            inner(i, "xcrun")
        }
        // `npx tsc`: runs a package's binary, judged as that program. Options that name another
        // package (`-p`) or give a command line (`-c`) are left to npx's own spec.
        "npx" | "bunx" => {
            let start = skip_options(argv, &[], &[]);
            let plain = argv[1..start.min(argv.len())].iter().all(|w| {
                matches!(
                    w.text.as_str(),
                    "-y" | "--yes" | "--no" | "--no-install" | "-q" | "--quiet" | "--"
                )
            });
            if !plain {
                return Unwrap::No;
            }
            inner(start, name)
        }
        // `bun x tsc` is `bunx tsc`: the same plain options only.
        "bun" if argv.get(1).is_some_and(|w| w.text == "x" && w.is_literal()) => {
            let rest = &argv[1..];
            let start = skip_options(rest, &[], &[]);
            let plain = rest[1..start.min(rest.len())]
                .iter()
                .all(|w| matches!(w.text.as_str(), "-y" | "--yes" | "--no-install" | "--"));
            if !plain {
                return Unwrap::No;
            }
            inner(start + 1, "bun x")
        }
        // `corepack pnpm install`: runs the package manager the project pins (fetched once, as
        // any package manager is), judged as that package manager.
        "corepack"
            if argv.get(1).is_some_and(|w| {
                w.is_literal()
                    && matches!(w.text.as_str(), "npm" | "npx" | "pnpm" | "pnpx" | "yarn")
            }) =>
        {
            inner(1, "corepack")
        }
        // `pnpm --filter web exec tsc`: workspace selection before `exec` does not change what
        // runs (the package directories lie inside the project).
        "pnpm" | "yarn" => {
            let mut i = 1;
            while let Some(w) = argv.get(i) {
                match w.text.as_str() {
                    "-r" | "--recursive" | "-w" | "--workspace-root" | "--parallel"
                    | "--stream" | "-s" | "--silent" => i += 1,
                    "--filter" | "-F" => i += 2,
                    t if t.starts_with("--filter=") => i += 1,
                    _ => break,
                }
            }
            if !argv
                .get(i)
                .is_some_and(|w| w.text == "exec" && w.is_literal())
                || argv
                    .get(i + 1)
                    .is_none_or(|w| w.text.starts_with('-') || !w.is_literal())
                || argv[1..i].iter().any(|w| !w.is_literal())
            {
                return Unwrap::No;
            }
            inner(i + 1, &format!("{name} exec"))
        }
        // `coverage run -m pytest`: as `python -m pytest`, under coverage.
        "coverage"
            if argv.get(1).is_some_and(|w| w.text == "run")
                && argv.get(2).is_some_and(|w| w.text == "-m")
                && argv
                    .get(3)
                    .is_some_and(|w| w.is_literal() && !w.text.starts_with('-')) =>
        {
            inner(3, "coverage run -m")
        }
        // `python -m pytest`: runs the module, judged as that program (`pytest`'s spec).
        n if is_python(n) => {
            let mut i = 1;
            // `py -3.12 -m pytest`: the Windows Python launcher's version comes first.
            while n == "py" && argv.get(i).is_some_and(|w| is_py_version(&w.text)) {
                i += 1;
            }
            while let Some(w) = argv.get(i) {
                match w.text.as_str() {
                    "-u" | "-B" | "-O" | "-OO" | "-I" | "-E" | "-s" | "-S" | "-q" | "-b"
                    | "-bb" | "-d" | "-v" | "-P" => i += 1,
                    "-W" | "-X" => i += 2,
                    // `python manage.py migrate` is Django's command line: judged as
                    // `manage.py migrate`, whose spec is django-admin's.
                    t if entry_point("python", t).is_some() => {
                        return inner(i, &format!("{name} {t}"));
                    }
                    "-m" => {
                        return match argv.get(i + 1) {
                            Some(m) if m.is_literal() && !m.text.starts_with('-') => {
                                inner(i + 1, &format!("{name} -m"))
                            }
                            _ => Unwrap::No,
                        };
                    }
                    _ => return Unwrap::No,
                }
            }
            Unwrap::No
        }
        // `php artisan migrate:fresh`, `node ace db:wipe`: a framework's entry point
        // (`rules/entry_points.txt`), judged as its own command line.
        n if interpreter_family(n).is_some_and(|f| f != "python")
            && argv.get(1).is_some_and(|w| {
                w.is_literal()
                    && interpreter_family(n).is_some_and(|f| entry_point(f, &w.text).is_some())
            }) =>
        {
            inner(1, &format!("{name} {}", argv[1].text))
        }
        "eval" => {
            let args = &argv[1..];
            if args.is_empty() {
                return Unwrap::No;
            }
            Unwrap::Script {
                text: joined(args),
                label: "eval".to_string(),
            }
        }
        "trap" => {
            // `trap -- HANDLER SIG`: `--` ends trap's options; `-p`/`-l` only print.
            let at = usize::from(argv.get(1).is_some_and(|w| w.text == "--")) + 1;
            match argv.get(at) {
                Some(w) if !w.text.starts_with('-') && argv.len() > at + 1 => Unwrap::Script {
                    text: w.clone(),
                    label: "trap".to_string(),
                },
                _ => Unwrap::No,
            }
        }
        "watch" => {
            let start = skip_options(argv, &["-n", "-d", "-q"], &["--interval", "--differences"]);
            let args = &argv[start.min(argv.len())..];
            if args.is_empty() {
                return Unwrap::No;
            }
            Unwrap::Script {
                text: joined(args),
                label: "watch".to_string(),
            }
        }
        "sort" => match sort_compressor(argv) {
            // The data it sorts is written through the program: a shell runs it as a script.
            Some(program) if SHELLS.contains(&program) => Unwrap::StdinScript {
                label: format!("sort --compress-program={program}"),
            },
            _ => Unwrap::No,
        },
        n if SHELLS.contains(&n) => shell_wrapper(argv, n),
        _ => Unwrap::No,
    }
}

/// The program `sort --compress-program=PROG` pipes its temporary data through, spelled out,
/// abbreviated (`--compress=sh`, getopt takes any unambiguous prefix down to `--co`) or given as
/// the next word; its base name (`/bin/sh` is `sh`).
fn sort_compressor(argv: &[Word]) -> Option<&str> {
    const NAME: &str = "--compress-program";
    let mut words = argv.iter().skip(1);
    while let Some(w) = words.next() {
        if w.text == "--" {
            return None;
        }
        let (name, value) = match w.text.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (w.text.as_str(), None),
        };
        if name.len() >= 4 && NAME.starts_with(name) {
            let program = match value {
                Some(v) => v,
                None => words.next()?.text.as_str(),
            };
            return Some(program.rsplit('/').next().unwrap_or(program));
        }
    }
    None
}

/// The text `xargs -I R` (`-iR`, `--replace[=R]`) replaces with each input line.
fn xargs_placeholder(opts: &[Word]) -> Option<String> {
    let mut it = opts.iter();
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        if t == "-I" {
            return Some(it.next().map_or("{}".to_string(), |v| v.text.clone()));
        }
        if let Some(r) = t.strip_prefix("--replace") {
            let r = r.strip_prefix('=').unwrap_or("");
            return Some(if r.is_empty() { "{}".into() } else { r.into() });
        }
        if let Some(r) = t.strip_prefix("-I").or_else(|| t.strip_prefix("-i")) {
            return Some(if r.is_empty() { "{}".into() } else { r.into() });
        }
    }
    None
}

/// `python`, `python3`, `python3.12`, `pypy3`.
/// `rules/entry_points.txt`: scripts an interpreter runs that are command lines of their own.
const ENTRY_POINTS: &str = include_str!("../../../rules/entry_points.txt");

/// The interpreter family of entry_points.txt a program name belongs to.
fn interpreter_family(name: &str) -> Option<&'static str> {
    let versioned = |base: &str| {
        name.strip_prefix(base)
            .is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    if is_python(name) {
        Some("python")
    } else if versioned("php") {
        Some("php")
    } else if matches!(name, "node" | "nodejs" | "bun") {
        Some("node")
    } else if versioned("ruby") {
        Some("ruby")
    } else {
        None
    }
}

/// The entry point `word` is when `family` runs it: its line's script, when the word is that
/// path or ends with it after a `/`.
pub(super) fn entry_point(family: &str, word: &str) -> Option<&'static str> {
    let word = word.strip_prefix("./").unwrap_or(word);
    crate::lists::entries(ENTRY_POINTS)
        .filter_map(|l| l.split_once(' '))
        .find(|(f, script)| {
            *f == family
                && (word == *script
                    || word
                        .strip_suffix(script)
                        .is_some_and(|head| head.ends_with('/')))
        })
        .map(|(_, script)| script)
}

fn is_python(name: &str) -> bool {
    if name == "py" {
        return true;
    }
    let rest = name
        .strip_prefix("python")
        .or_else(|| name.strip_prefix("pypy"));
    rest.is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The Python launcher's version selector: `-3`, `-3.12`, `-3.12-64`, `-V:3.12`.
fn is_py_version(w: &str) -> bool {
    w.starts_with("-V:")
        || w.strip_prefix('-').is_some_and(|v| {
            v.starts_with(|c: char| c.is_ascii_digit())
                && v.chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
        })
}

/// `bash -c STRING`, `bash -s`, `bash` fed on stdin, or `bash script.sh`.
pub(super) fn shell_wrapper(argv: &[Word], name: &str) -> Unwrap {
    // A login shell with a `-c` script still has it walked (a deny inside stands); the walker
    // adds that the start-up files run first (`login_shell`). Without one it stands as it is.
    let is_login = login_shell(argv);
    let mut has_c = false;
    let mut reads_stdin = false;
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].text.as_str();
        if a == "--" {
            i += 1;
            break;
        }
        if matches!(a, "--rcfile" | "--init-file")
            || a.starts_with("-i")
            || (is_login && !shell_has_c(argv))
        {
            // An interactive or login shell first runs start-up files sentinel does not read:
            // the command stands as it is, and its spec decides.
            return Unwrap::No;
        }
        if matches!(a, "-o" | "+o" | "-O" | "+O") {
            i += 2;
            continue;
        }
        if let Some(flags) = a.strip_prefix('-').or_else(|| a.strip_prefix('+')) {
            if flags.is_empty() {
                reads_stdin = true;
            } else if a.starts_with('-') && !a.starts_with("--") && flags.contains('i') {
                // `-ic`: an interactive shell in a cluster, as above.
                return Unwrap::No;
            } else if !a.starts_with("--") {
                has_c |= flags.contains('c');
                reads_stdin |= flags.contains('s');
            }
            i += 1;
            continue;
        }
        break;
    }
    if has_c {
        return match argv.get(i) {
            Some(script) => Unwrap::Script {
                text: script.clone(),
                label: format!("{name} -c"),
            },
            None => Unwrap::No,
        };
    }
    if i >= argv.len() || reads_stdin {
        return Unwrap::StdinScript {
            label: name.to_string(),
        };
    }
    Unwrap::No
}
