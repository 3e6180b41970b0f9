//! A Windows shell started from Bash (`cmd /c`, `powershell -Command`), or the PowerShell tool's
//! text: what its reader found (`shell::windows`) recorded like Bash's commands. A command the
//! shell runs itself is recorded as it is (`cmd/dir`, `powershell/get-childitem`); a program is
//! emitted as Bash's would be, wrappers and all (`npx tsc`, `git push`, another `powershell`).

use super::*;
use crate::local::shell::windows::{self, Dialect, Invocation, Item};

impl Walker {
    /// The wrapper `argv` (already recorded) starts this Windows shell.
    pub(super) fn windows_shell(&mut self, inv: Invocation, shell_name: &str, stdin: &Stdin) {
        match inv {
            Invocation::Text {
                shell,
                text,
                delayed,
                notes,
            } => {
                for n in notes {
                    self.unknown(n);
                }
                let label = shell.label();
                if text.kind == WordKind::Computed {
                    self.unknown(format!(
                        "{label} runs a computed script `{}`",
                        excerpt(&text.text)
                    ));
                    if let Some(value) = &text.value {
                        self.windows_text(shell, value, delayed, Some(label));
                    }
                } else {
                    self.windows_text(shell, &text.text, delayed, Some(label));
                }
            }
            Invocation::File { mut argv } => {
                // `-File x.ps1` finds the script from the current folder.
                if let Some(first) = argv.first_mut() {
                    first.text = first.text.replace('\\', "/");
                    if !first.text.contains('/') {
                        first.text = format!("./{}", first.text);
                    }
                }
                self.via.push(format!("{shell_name} -File"));
                self.emit(argv, Vec::new(), Vec::new(), Stdin::Inherited);
                self.via.pop();
            }
            Invocation::Stdin => match stdin {
                Stdin::Text(t) => {
                    let shell = if shell_name == "cmd" {
                        Dialect::Cmd
                    } else {
                        Dialect::PowerShell
                    };
                    let t = t.clone();
                    self.windows_text(shell, &t, false, Some(shell_name));
                }
                _ => self.unknown(format!(
                    "`{shell_name}` reads its commands from stdin, or starts an interactive shell"
                )),
            },
            Invocation::Unread(why) => self.unknown(why),
        }
    }

    /// Reads `text` as cmd's or PowerShell's and records what it runs; `label` names the shell
    /// in the commands' path (None for the PowerShell tool's own text, at the top).
    pub(in crate::local::shell) fn windows_text(
        &mut self,
        shell: Dialect,
        text: &str,
        delayed: bool,
        label: Option<&str>,
    ) {
        if label.is_some() {
            if self.depth >= MAX_DEPTH {
                self.unknown(format!(
                    "code nested deeper than {MAX_DEPTH} levels ({})",
                    label.unwrap_or("")
                ));
                return;
            }
            self.depth += 1;
            self.via.push(label.unwrap_or("").to_string());
        }
        let items = match shell {
            Dialect::Cmd => windows::cmd::parse(text, delayed),
            Dialect::PowerShell | Dialect::Pwsh => windows::powershell::parse(text, shell),
        };
        // Another shell: what it sets and where it goes stay there.
        let (vars, cwd) = (self.vars.clone(), self.cwd.clone());
        self.windows_items(items);
        self.vars = vars;
        if label.is_some() {
            self.cwd = cwd;
            self.via.pop();
            self.depth -= 1;
        }
    }

    fn windows_items(&mut self, items: Vec<Item>) {
        for item in items {
            match item {
                Item::Command(c) if c.own || c.argv.is_empty() => {
                    let piped = c.piped_under.is_some();
                    self.push(c.argv, c.redirects, Vec::new(), Role::Command, piped, None);
                    if let (Some(under), Some(last)) = (c.piped_under, self.out.commands.last_mut())
                    {
                        // As `find ROOT | xargs CMD`: the paths lie under the listing's folders.
                        last.extra_args_under = under;
                        last.extra_args_piped = true;
                        last.extra_args_from_find = true;
                    }
                }
                Item::Command(c) => {
                    self.emit(c.argv, c.redirects, Vec::new(), Stdin::Inherited);
                }
                Item::Assign { name, env, value } => {
                    if env {
                        // Windows' names are any case: `$env:Path` is PATH.
                        let name = name.to_ascii_uppercase();
                        self.check_assignment(&name, &value);
                        // Judged as Bash's `export NAME=VALUE` is (its spec's `assigns`): a
                        // PATH that puts a project or temp folder first is not the toolchain.
                        let word = Word {
                            text: format!("{name}={}", value.text),
                            kind: value.kind,
                            value: value.known_value().map(|v| format!("{name}={v}")),
                        };
                        self.emit(
                            vec![Word::literal("export"), word],
                            Vec::new(),
                            Vec::new(),
                            Stdin::Inherited,
                        );
                    }
                }
                Item::Nested { label, items } => {
                    if self.depth >= MAX_DEPTH {
                        self.unknown(format!(
                            "code nested deeper than {MAX_DEPTH} levels ({label})"
                        ));
                        continue;
                    }
                    self.depth += 1;
                    self.via.push(label.to_string());
                    let cwd = self.cwd.clone();
                    self.windows_items(items);
                    // A block may run any number of times, or not at all: where it went is not
                    // known after it.
                    if self.cwd != cwd {
                        self.cwd = Cwd::Unknown;
                    }
                    self.via.pop();
                    self.depth -= 1;
                }
                Item::Unknown(why) => self.unknown(why),
                Item::Raw(text) => {
                    for segment in rough_segments(&text) {
                        if segment != text {
                            self.out.raw_statements.push(segment);
                        }
                    }
                    self.out.raw_statements.push(text);
                }
                Item::ChangeDir(target) => match target {
                    Some(w) => self.change_dir(&[Word::literal("cd"), w]),
                    None => self.cwd = Cwd::Unknown,
                },
            }
        }
    }
}
