//! Emitting a simple command: its name normalised, wrappers unwrapped into the commands they
//! run, a script run by a wrapper walked in turn, `cd` and git's config followed.

use super::words::has_brace_expansion;
use super::*;
use crate::local::paths::windows;

impl Walker {
    /// Unwraps wrappers at the front of argv and records every simple command.
    pub(super) fn emit(
        &mut self,
        mut argv: Vec<Word>,
        redirects: Vec<Redirect>,
        mut assignments: Vec<(String, Word)>,
        stdin: Stdin,
    ) {
        let mut extra_args = false;
        let via_len = self.via.len();
        let first = self.out.commands.len();
        let mut under: Vec<Word> = Vec::new();
        let mut under_from_find = false;
        let mut listing: Option<Listing> = None;
        let mut hops = 0;
        loop {
            let name_dir = self.normalise_name(&mut argv);
            // Borrowed from argv: what is asked of the name is asked before argv moves on.
            let name = argv.first().map_or("", |w| w.text.as_str());
            let is_env = name == "env";
            if name == "cd" || name == "pushd" || name == "popd" {
                self.change_dir(&argv);
            }
            if name == "git" {
                self.git_config_code(&argv);
            }
            if matches!(
                name,
                "export" | "declare" | "typeset" | "local" | "readonly"
            ) {
                for a in argv.iter().skip(1) {
                    if let Some((var, value)) = a.text.split_once('=') {
                        let value = Word {
                            text: value.to_string(),
                            kind: a.kind,
                            value: a
                                .value
                                .as_deref()
                                .and_then(|v| v.split_once('='))
                                .map(|(_, v)| v.to_string()),
                        };
                        self.check_assignment(var, &value);
                        // What follows sees the value (`export D=~ && rm -rf "$D/x"`).
                        let known = value.known_value().map(str::to_string);
                        match self.vars.iter().position(|(n, _)| n == var) {
                            Some(i) => self.vars[i].1 = known,
                            None if self.vars.len() < 64 => {
                                self.vars.push((var.to_string(), known))
                            }
                            None => {}
                        }
                    }
                }
            }
            if matches!(name, "fd" | "fdfind")
                && let Some((own, (label, cmd), roots)) = split_fd(&argv)
            {
                // fd hands the command entries below its roots, never a root itself.
                let below: Vec<Word> = roots.iter().map(below_root).collect();
                self.push(
                    own,
                    redirects,
                    assignments,
                    Role::Command,
                    extra_args,
                    name_dir,
                );
                if !cmd.is_empty() {
                    self.via.push(label);
                    self.emit_extra(cmd, &below, None);
                    self.via.pop();
                }
                break;
            }
            if name == "find"
                && argv
                    .iter()
                    .any(|w| w.text.starts_with("-exec") || w.text.starts_with("-ok"))
            {
                let (mut own, execs) = split_find(argv);
                let listed = Listing {
                    argv: own.clone(),
                    whole_names: true,
                };
                // `-exec rm {} \;` removes what find picks, as `-delete` does: find is judged as
                // if it had `-delete` there too (outside the project, or before a test, that is a
                // delete of a whole tree), and the `rm` on its own as before.
                if let Some(at) = execs
                    .iter()
                    .find(|(_, cmd, _)| removes_each_entry(cmd))
                    .map(|(_, _, at)| *at)
                {
                    own.insert(at.min(own.len()), Word::literal("-delete"));
                }
                let roots = find_roots(&own);
                self.push(
                    own,
                    redirects,
                    assignments,
                    Role::Command,
                    extra_args,
                    name_dir,
                );
                for (label, cmd, _) in execs {
                    if cmd.is_empty() {
                        continue;
                    }
                    self.via.push(label);
                    self.emit_extra(cmd, &roots, Some(listed.clone()));
                    self.via.pop();
                }
                break;
            }
            // `cmd /c TEXT`, `powershell -Command TEXT`: a shell of another grammar.
            if let Some(inv) = super::super::windows::invocation(&argv) {
                if extra_args {
                    self.unknown(format!(
                        "words added at run time (xargs) reach `{name}`, which runs them as a command"
                    ));
                }
                let shell_name = name.to_ascii_lowercase();
                self.push(
                    argv,
                    redirects,
                    assignments,
                    Role::Wrapper,
                    extra_args,
                    name_dir,
                );
                self.windows_shell(inv, &shell_name, &stdin);
                break;
            }
            hops += 1;
            let unwrap = if hops > 16 {
                Unwrap::No
            } else if let Some(bare) = argv.first().and_then(|w| without_exe(&w.text)) {
                // `C:/…/python.exe -m pytest` wraps as `python -m pytest` does.
                let mut as_named = argv.clone();
                as_named[0].text = bare;
                wrapper(&as_named)
            } else {
                wrapper(&argv)
            };
            if extra_args && !matches!(unwrap, Unwrap::No) {
                // `xargs xargs`, `xargs env`, `xargs sh -c`: the words added at run time become
                // the command this wrapper runs, or its options.
                self.unknown(format!(
                    "words added at run time (xargs) reach `{name}`, which runs them as a command"
                ));
            }
            let (script, label) = match unwrap {
                Unwrap::No => {
                    self.push(
                        argv,
                        redirects,
                        assignments,
                        Role::Command,
                        extra_args,
                        name_dir,
                    );
                    break;
                }
                Unwrap::Inner {
                    start,
                    label,
                    extra_args: more,
                    placeholder,
                } => {
                    let mut inner = argv.split_off(start.min(argv.len()));
                    let placeholder = placeholder.filter(|p| !p.is_empty());
                    // `echo ~ | xargs -I{} sh -c 'rm -rf {}'`: the input is known, so each of its
                    // lines is put in place of the placeholder and that command judged.
                    if more
                        && let Some(p) = &placeholder
                        && let Stdin::Text(t) = &stdin
                        && let Some(lines) = xargs_replace_lines(t, &argv[1..])
                    {
                        self.push(
                            argv,
                            Vec::new(),
                            assignments,
                            Role::Wrapper,
                            extra_args,
                            name_dir,
                        );
                        self.via.push(label);
                        for line in lines {
                            let replaced = inner.iter().map(|w| replace_in(w, p, line)).collect();
                            self.emit(replaced, Vec::new(), Vec::new(), Stdin::Inherited);
                        }
                        break;
                    }
                    if let Some(p) = placeholder {
                        // Each input line is put in place of the placeholder: those words are
                        // not known before it runs, and a script holding one is computed.
                        for w in &mut inner {
                            if w.text.contains(&p) {
                                w.kind = WordKind::Computed;
                                w.value = None;
                            }
                        }
                    }
                    let (env_assignments, inner) = if is_env {
                        split_env_assignments(inner)
                    } else {
                        (Vec::new(), inner)
                    };
                    if is_env && super::super::unwrap::env_changes_dir(&argv) {
                        self.cwd = Cwd::Unknown;
                    }
                    // `xargs -a FILE` takes its words from the file, not the pipe.
                    let from_file = more
                        && argv[1..].iter().any(|w| {
                            w.text == "-a"
                                || w.text.starts_with("--arg-file")
                                || (w.text.starts_with("-a") && !w.text.starts_with("--"))
                        });
                    let nul = argv[1..]
                        .iter()
                        .any(|w| w.text == "-0" || w.text == "--null");
                    self.push(
                        argv,
                        Vec::new(),
                        assignments,
                        Role::Wrapper,
                        extra_args,
                        name_dir,
                    );
                    for (n, v) in &env_assignments {
                        self.check_assignment(n, v);
                    }
                    assignments = env_assignments;
                    extra_args |= more;
                    if more
                        && !from_file
                        && let Stdin::Paths(roots, from_find, source) = &stdin
                    {
                        under = roots.clone();
                        under_from_find = *from_find;
                        let prints_nul = source
                            .iter()
                            .any(|w| matches!(w.text.as_str(), "-print0" | "-z"));
                        listing = Some(Listing {
                            argv: source.clone(),
                            whole_names: nul && prints_nul,
                        });
                    }
                    self.via.push(label);
                    argv = inner;
                    if argv.is_empty() {
                        // `xargs` with no command runs echo; a wrapper with nothing after it
                        // has been recorded already.
                        if extra_args {
                            argv.push(Word::literal("echo"));
                        } else {
                            break;
                        }
                    }
                    continue;
                }
                Unwrap::Script { text, label } => (Some(text), label),
                Unwrap::StdinScript { label } => (None, label),
            };
            // A wrapper that runs a script (`bash -c`, `sh < file`): recorded as a wrapper, then
            // the script is read from where it comes from.
            let login = (SHELLS.contains(&name) && login_shell(&argv)).then(|| name.to_string());
            self.push(
                argv,
                redirects,
                assignments,
                Role::Wrapper,
                extra_args,
                name_dir,
            );
            if let Some(shell) = login {
                self.unknown(format!(
                    "`{shell}` here is a login shell: it first runs /etc/profile and ~/.profile, code from outside the project"
                ));
            }
            match script {
                Some(script) => self.word_script(&script, &label),
                None => self.stdin_script(&stdin, &label),
            }
            break;
        }
        self.via.truncate(via_len);
        if !under.is_empty() {
            for c in &mut self.out.commands[first..] {
                if c.extra_args && c.extra_args_under.is_empty() {
                    c.extra_args_under = under.clone();
                    c.extra_args_piped = true;
                    c.extra_args_from_find = under_from_find;
                    c.extra_args_listing = listing.clone();
                }
            }
        }
    }

    /// Records a command that receives more arguments at run time (`find -exec … {}`). Each
    /// `{}` is a path found under the roots: computed, with the root as its value when there is
    /// one root, so it resolves under it.
    pub(super) fn emit_extra(
        &mut self,
        mut argv: Vec<Word>,
        under: &[Word],
        listing: Option<Listing>,
    ) {
        for w in &mut argv {
            if w.text.contains("{}") {
                w.value = match under {
                    [root] if w.text == "{}" && root.is_literal() => Some(root.text.clone()),
                    _ => None,
                };
                w.kind = WordKind::Computed;
            }
        }
        let first = self.out.commands.len();
        self.emit(argv, Vec::new(), Vec::new(), Stdin::Inherited);
        for c in &mut self.out.commands[first..] {
            c.extra_args = true;
            c.extra_args_under = under.to_vec();
            c.extra_args_from_find = true;
            c.extra_args_listing = listing.clone();
        }
    }

    /// A script given as a word (`bash -c '…'`): parsed and walked in its own right; a computed
    /// one is unknown, though what it decodes to is still checked (a block inside stands).
    pub(super) fn word_script(&mut self, script: &Word, label: &str) {
        if script.kind == WordKind::Computed {
            self.unknown(format!(
                "{label} runs a computed script `{}`",
                excerpt(&script.text)
            ));
            if let Some(value) = &script.value {
                self.nested(value, &format!("{label} (decoded)"));
            }
        } else {
            self.nested(&script.text, label);
        }
    }

    /// A script read from stdin (`sh < file`, `echo … | bash`): walked when its text is known.
    pub(super) fn stdin_script(&mut self, stdin: &Stdin, label: &str) {
        match stdin {
            Stdin::Text(t) => {
                self.nested(t, label);
            }
            Stdin::Pipe | Stdin::Paths(..) => {
                self.unknown(format!("{label} reads its script from a pipe"))
            }
            Stdin::Inherited => self.unknown(format!("{label} reads its script from stdin")),
        }
    }

    pub(super) fn push(
        &mut self,
        argv: Vec<Word>,
        redirects: Vec<Redirect>,
        assignments: Vec<(String, Word)>,
        role: Role,
        extra_args: bool,
        name_dir: Option<String>,
    ) {
        if self.out.commands.len() >= crate::local::shell::MAX_COMMANDS {
            self.unknown(format!(
                "more than {} simple commands: the rest is not read one by one",
                crate::local::shell::MAX_COMMANDS
            ));
            self.over_bound = true;
            return;
        }
        self.out.commands.push(SimpleCommand {
            argv,
            redirects,
            assignments,
            via: self.via.clone(),
            depth: self.depth,
            role,
            cwd: self.cwd.clone(),
            extra_args,
            extra_args_under: Vec::new(),
            extra_args_piped: false,
            extra_args_from_find: false,
            extra_args_listing: None,
            name_dir,
        });
    }

    /// `\rm`, `"rm"`, `r''m` are already `rm` after quote removal; `/bin/rm` becomes `rm`.
    /// Returns the directory of a name that is a path outside the system bin dirs.
    pub(super) fn normalise_name(&mut self, argv: &mut [Word]) -> Option<String> {
        let first = argv.first_mut()?;
        if first.kind != WordKind::Literal {
            self.unknown(format!(
                "the command name `{}` is computed",
                excerpt(&first.text)
            ));
            return None;
        }
        if first.text.contains(['{', '}']) && has_brace_expansion(&first.text) {
            self.unknown(format!(
                "the command name `{}` is a brace expansion",
                first.text
            ));
        }
        // `C:\Windows\System32\cmd.exe`: Windows writes its paths with `\`.
        if first.text.contains('\\') && windows::parse(&first.text, false).is_some() {
            first.text = first.text.replace('\\', "/");
        }
        let (dir, base) = match first.text.rsplit_once('/') {
            Some((dir, base)) if !base.is_empty() => (dir.to_string(), base.to_string()),
            _ => {
                // `node.exe` is `node`, as Windows finds it.
                if let Some(name) = without_exe(&first.text) {
                    first.text = name;
                }
                return None;
            }
        };
        let dir = if dir.is_empty() { "/".to_string() } else { dir };
        if SYSTEM_BIN_DIRS.contains(&dir.as_str()) {
            first.text = base;
            None
        } else if is_windows_system_dir(&dir) {
            first.text = without_exe(&base).unwrap_or(base);
            None
        } else {
            first.text = base;
            Some(dir)
        }
    }

    pub(super) fn change_dir(&mut self, argv: &[Word]) {
        let name = argv[0].text.as_str();
        let target = argv
            .iter()
            .skip(1)
            .find(|w| !(w.text.starts_with('-') && w.text.len() > 1));
        self.cwd = match (name, target) {
            ("popd", _) => Cwd::Unknown,
            (_, None) if argv.iter().skip(1).any(|w| w.text == "-") => Cwd::Unknown,
            (_, None) => Cwd::Changed("~".to_string()),
            // `cd ~/.config/g?`: a pattern, matched against the file system when it runs (by
            // the policy, which sees the file system: one directory, or unknown).
            (_, Some(t)) if t.kind == WordKind::Glob && !has_brace_expansion(&t.text) => {
                match &self.cwd {
                    Cwd::Unknown => Cwd::Unknown,
                    Cwd::Changed(prev) | Cwd::Matched(prev) if !t.text.starts_with(['/', '~']) => {
                        Cwd::Matched(format!("{prev}/{}", t.text))
                    }
                    _ => Cwd::Matched(t.text.clone()),
                }
            }
            (_, Some(t)) if !t.is_literal() && !is_home_ref(&t.text) => Cwd::Unknown,
            // `cd -` goes to $OLDPWD, which an earlier line may have set to anything.
            (_, Some(t)) if t.text == "-" || t.text.starts_with("~-") => Cwd::Unknown,
            // A quoted `*`, `?` or `[` in a literal name is not matched, but resolving the
            // path later would read it as a pattern.
            (_, Some(t)) if t.text.contains(['*', '?', '[']) => Cwd::Unknown,
            (_, Some(t)) => match &self.cwd {
                Cwd::Unknown => Cwd::Unknown,
                Cwd::Matched(_) if t.text.starts_with('/') || t.text.starts_with('~') => {
                    Cwd::Changed(t.text.clone())
                }
                Cwd::Matched(prev) => Cwd::Matched(format!("{prev}/{}", t.text)),
                Cwd::Start => Cwd::Changed(t.text.clone()),
                Cwd::Changed(prev)
                    if t.text.starts_with('/')
                        || t.text.starts_with('~')
                        || is_home_ref(&t.text) =>
                {
                    let _ = prev;
                    Cwd::Changed(t.text.clone())
                }
                Cwd::Changed(prev) => Cwd::Changed(format!("{prev}/{}", t.text)),
            },
        };
    }

    /// `git -c alias.x='!cmd'` and `git -c core.pager=cmd` carry shell code.
    pub(super) fn git_config_code(&mut self, argv: &[Word]) {
        let mut i = 1;
        while i < argv.len() {
            let a = &argv[i].text;
            let attached;
            let setting = if a == "-c" {
                i += 1;
                argv.get(i)
            } else if let Some(rest) = a.strip_prefix("-c").filter(|r| !r.is_empty()) {
                // `-ccore.pager=sh`: the value attached, as git's option parser allows.
                attached = Word {
                    text: rest.to_string(),
                    kind: argv[i].kind,
                    value: None,
                };
                Some(&attached)
            } else if a == "--config-env" || a.starts_with("--config-env=") {
                // `--config-env=KEY=ENVVAR`: the value comes from the environment.
                self.unknown("git --config-env takes a setting's value from the environment");
                i += if a == "--config-env" { 2 } else { 1 };
                continue;
            } else if a.starts_with('-') {
                if matches!(
                    a.as_str(),
                    "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
                ) {
                    i += 1;
                }
                i += 1;
                continue;
            } else {
                break;
            };
            i += 1;
            let Some(setting) = setting else { break };
            let Some((key, value)) = setting.text.split_once('=') else {
                continue;
            };
            let key = key.to_ascii_lowercase();
            let value = Word {
                text: value.to_string(),
                kind: setting.kind,
                value: None,
            };
            if key.starts_with("alias.") {
                if let Some(code) = value.text.strip_prefix('!') {
                    let code = Word {
                        text: code.to_string(),
                        kind: value.kind,
                        value: None,
                    };
                    self.run_config_script(&code, "git -c alias");
                }
            } else if is_git_code_key(&key) {
                self.unknown(format!(
                    "git -c {key} runs a program, sends data elsewhere or removes safeguards"
                ));
                self.run_config_script(&value, &format!("git -c {key}"));
            }
        }
    }

    pub(super) fn run_config_script(&mut self, code: &Word, label: &str) {
        if code.kind == WordKind::Computed {
            self.unknown(format!("{label} runs a computed script"));
        } else {
            self.nested(&code.text, label);
        }
    }
}

/// A Windows program's name without its `.exe` (or the `.bat`/`.cmd` launcher a toolchain
/// installs beside it: `sbtn.bat`, `flutter.bat`), in lower case (Windows finds it in any case).
pub(in crate::local) fn without_exe(name: &str) -> Option<String> {
    // Every command name comes here: only one that ends so is copied.
    let n = name.len();
    if n <= 4 || !name.is_char_boundary(n - 4) {
        return None;
    }
    let suffix = &name[n - 4..];
    if ![".exe", ".bat", ".cmd"]
        .iter()
        .any(|s| suffix.eq_ignore_ascii_case(s))
    {
        return None;
    }
    Some(name[..n - 4].to_ascii_lowercase())
}

/// Windows' own program folders (and Git for Windows' `usr/bin`, Git Bash's `/usr/bin`), in any
/// of the forms Git Bash writes them: a program there is the system's, as `/usr/bin/rm` is.
fn is_windows_system_dir(dir: &str) -> bool {
    const DIRS: &[&str] = &[
        "windows",
        "windows/system32",
        "windows/syswow64",
        "windows/system32/windowspowershell/v1.0",
        "windows/syswow64/windowspowershell/v1.0",
        "windows/system32/wbem",
        "windows/system32/openssh",
        "program files/powershell/7",
        "program files/powershell/7-preview",
        "program files/git/bin",
        "program files/git/usr/bin",
        "program files/git/cmd",
        "program files/git/mingw64/bin",
    ];
    match windows::parse(dir, true) {
        Some(windows::WindowsPath::Drive(_, parts)) => {
            let joined = parts.join("/").to_ascii_lowercase();
            DIRS.contains(&joined.as_str())
        }
        _ => false,
    }
}

fn is_git_code_key(key: &str) -> bool {
    const KEYS: &[&str] = &[
        "core.pager",
        "core.editor",
        "core.sshcommand",
        "core.fsmonitor",
        "core.hookspath",
        "core.askpass",
        "core.gitproxy",
        "diff.external",
        "sequence.editor",
        "credential.helper",
        "gpg.program",
        "gpg.ssh.program",
        "gpg.x509.program",
        "uploadpack.packobjectshook",
        "merge.tool",
        "diff.tool",
        "core.alternaterefscommand",
        "interactive.difffilter",
        "sendemail.smtpserver",
        "gc.auto",
    ];
    KEYS.contains(&key)
        || key.starts_with("pager.")
        || key.starts_with("filter.")
        || key.starts_with("mergetool.")
        || key.starts_with("difftool.")
        || (key.starts_with("diff.") && (key.ends_with(".textconv") || key.ends_with(".command")))
        || (key.starts_with("merge.") && key.ends_with(".driver"))
        || (key.starts_with("credential.") && key.ends_with(".helper"))
        || key.starts_with("protocol.")
        || key.starts_with("remote.")
        || key.starts_with("url.")
        || key.starts_with("include")
        || key == "clean.requireforce"
        || key.starts_with("gc.")
        || key.starts_with("http.")
        || key.starts_with("https.")
        || (key.starts_with("browser.") && key.ends_with(".cmd"))
        || (key.starts_with("man.") && key.ends_with(".cmd"))
}

/// True for an `-exec` command that only removes the entry find hands it: `rm [-f] [-r] {}`,
/// `unlink {}`.
fn removes_each_entry(cmd: &[Word]) -> bool {
    let Some((name, args)) = cmd.split_first() else {
        return false;
    };
    let flags_ok = |w: &Word| {
        matches!(
            w.text.as_str(),
            "-f" | "-r"
                | "-R"
                | "-rf"
                | "-fr"
                | "-Rf"
                | "-fR"
                | "-v"
                | "-d"
                | "--force"
                | "--recursive"
                | "--"
        )
    };
    match name.text.as_str() {
        "rm" | "/bin/rm" | "/usr/bin/rm" => {
            args.iter().filter(|w| w.text == "{}").count() == 1
                && args.iter().all(|w| w.text == "{}" || flags_ok(w))
        }
        "unlink" => args.len() == 1 && args[0].text == "{}",
        _ => false,
    }
}

/// The input lines `xargs -I` runs its command once for, when they can be read without
/// xargs's own quoting and are few; None: judged as unknown words.
fn xargs_replace_lines<'t>(text: &'t str, opts: &[Word]) -> Option<Vec<&'t str>> {
    // `-0`, `-d X`, `-E`: other separators or an end marker than the newline; `-a FILE`: the
    // lines come from the file, not the pipe.
    let splits_otherwise = opts.iter().any(|w| {
        let t = w.text.as_str();
        (t.starts_with("-a") && !t.starts_with("--"))
            || t.starts_with("--arg-file")
            || t == "-0"
            || t == "--null"
            || t.starts_with("-d")
            || t.starts_with("--delimiter")
            || t.starts_with("-E")
            || t.starts_with("--eof")
            || t.starts_with("-e")
    });
    if splits_otherwise || text.contains(['\'', '"', '\\', '\0']) {
        return None;
    }
    // Blank lines run nothing; leading blanks are dropped.
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty())
        .collect();
    (lines.len() <= 16).then_some(lines)
}

/// `w` with the placeholder replaced by an input line: known when `w` was.
fn replace_in(w: &Word, placeholder: &str, line: &str) -> Word {
    if !w.text.contains(placeholder) {
        return w.clone();
    }
    match w.known_value() {
        Some(v) => Word::literal(v.replace(placeholder, line)),
        None => Word {
            text: w.text.replace(placeholder, line),
            kind: WordKind::Computed,
            value: None,
        },
    }
}
