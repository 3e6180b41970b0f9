//! A simple command walked: its words, assignments and redirections, in source order, and the
//! process substitutions inside them.

use super::*;

impl Walker {
    pub(super) fn simple(&mut self, s: &mut ast::SimpleCommand, stdin: Stdin) {
        let ast::SimpleCommand {
            prefix,
            word_or_name,
            suffix,
        } = s;
        // Sized for every word up front: growing it was a reallocation or two a command.
        let mut argv = Vec::with_capacity(
            usize::from(word_or_name.is_some()) + suffix.as_ref().map_or(0, |x| x.0.len()),
        );
        let mut redirects = Vec::new();
        let mut assignments = Vec::new();
        let mut stdin = stdin;
        let items = prefix
            .iter_mut()
            .flat_map(|p| p.0.iter_mut().map(Item::Prefix))
            .chain(word_or_name.as_mut().map(Item::Name))
            .chain(
                suffix
                    .iter_mut()
                    .flat_map(|p| p.0.iter_mut().map(Item::Suffix)),
            );
        for item in items {
            let (item, in_prefix) = match item {
                Item::Name(name) => {
                    argv.push(self.word_taken(&mut name.value));
                    continue;
                }
                Item::Prefix(item) => (item, true),
                Item::Suffix(item) => (item, false),
            };
            match item {
                ast::CommandPrefixOrSuffixItem::Word(w) => argv.push(self.word_taken(&mut w.value)),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    let value = self.assignment_value(&a.value);
                    if in_prefix || argv.is_empty() {
                        assignments.push((assignment_name(&a.name), value));
                    } else {
                        // `export X=1`, `declare X=1`: an argument that assigns.
                        let name = assignment_name(&a.name);
                        let text = format!("{name}={}", value.text);
                        let _ = w;
                        // A computed value that is known (`export D=$HOME`) is kept, so the
                        // export below tracks it as a bare assignment's is.
                        let known = match value.kind {
                            WordKind::Literal => None,
                            _ => value.value.as_deref().map(|v| format!("{name}={v}")),
                        };
                        argv.push(Word {
                            text,
                            kind: value.kind,
                            value: known,
                        });
                    }
                }
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => {
                    if let Some(r) = self.redirect(r) {
                        if matches!(r.kind, RedirectKind::HereDoc | RedirectKind::HereString) {
                            stdin = if r.target.is_literal() {
                                Stdin::Text(r.target.text.clone())
                            } else {
                                Stdin::Pipe
                            };
                        }
                        redirects.push(r);
                    }
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                    let label = match kind {
                        ast::ProcessSubstitutionKind::Read => "<( )",
                        ast::ProcessSubstitutionKind::Write => ">( )",
                    };
                    // Rendered before it is walked: the walk moves words out of the tree.
                    let text = format!("{}{})", &label[..2], one_line(&sub.list.to_string()));
                    let output = self.process_substitution(label, sub);
                    argv.push(Word {
                        text,
                        kind: WordKind::Computed,
                        // What a reader of `<( )` gets (a shell fed it runs it: `fed.rs`).
                        value: output.filter(|_| label == "<( )"),
                    });
                }
            }
        }
        let assigned: Vec<String> = assignments.iter().map(|(n, _)| n.clone()).collect();
        self.loop_command(&argv, &assigned);
        if !argv.is_empty() {
            // Any command may set variables (`read f`, `export f=…`, a function): a value is
            // known only from bare assignments right before the command that uses it.
            self.vars.clear();
            self.name_taking(&argv);
            self.numbers.clear();
        } else {
            // A bare assignment sets shell variables for what follows.
            for (name, value) in &assignments {
                let known = value.known_value().map(str::to_string);
                match self.vars.iter().position(|(n, _)| n == name) {
                    Some(i) => self.vars[i].1 = known,
                    None if self.vars.len() < 64 => self.vars.push((name.clone(), known)),
                    None => {}
                }
                let number = value.is_literal() && value.text.parse::<i64>().is_ok();
                if !number && self.integers.iter().any(|n| n == name) {
                    let text = value.known_value().unwrap_or(&value.text).to_string();
                    self.arithmetic_names(&text, "a value assigned to an integer variable");
                }
                self.assigned(name, number);
            }
        }
        for (name, value) in &assignments {
            self.check_assignment(name, value);
        }
        self.aliases(&argv);
        self.fed(&argv);
        self.emit(argv, redirects, assignments, stdin);
    }

    /// Walks a process substitution; returns its output when it is one pipeline whose output
    /// is known (`<(echo 'rm -rf ~')`).
    pub(super) fn process_substitution(
        &mut self,
        label: &str,
        sub: &mut ast::SubshellCommand,
    ) -> Option<String> {
        if self.depth >= MAX_DEPTH {
            self.unknown(format!(
                "code nested deeper than {MAX_DEPTH} levels ({label})"
            ));
            return None;
        }
        self.depth += 1;
        self.via.push(label.to_string());
        let single = sub.list.0.len() == 1;
        let vars = self.vars.clone();
        let output = self.in_subshell(|w| {
            w.last_output = None;
            w.list(&mut sub.list);
            w.last_output.take()
        });
        self.vars = vars;
        self.via.pop();
        self.depth -= 1;
        output.filter(|_| single)
    }

    pub(super) fn assignment_value(&mut self, v: &ast::AssignmentValue) -> Word {
        match v {
            ast::AssignmentValue::Scalar(w) => self.word(&w.value),
            ast::AssignmentValue::Array(items) => {
                let mut text = String::from("(");
                for (key, value) in items {
                    if let Some(k) = key {
                        self.word(&k.value);
                    }
                    text.push_str(&self.word(&value.value).text);
                    text.push(' ');
                }
                text.push(')');
                Word {
                    text,
                    kind: WordKind::Computed,
                    value: None,
                }
            }
        }
    }

    /// Variables that change which program runs or what it executes: setting one makes the
    /// command's meaning depend on more than its words.
    pub(super) fn check_assignment(&mut self, name: &str, value: &Word) {
        // `$TMPDIR/…` is read as the temp dir by name: a script that points it elsewhere, at a
        // place known only when it runs, makes those paths unknown.
        if name == "TMPDIR" && value.known_value().is_none() {
            self.unknown(format!(
                "sets TMPDIR to `{}`, known only when it runs: `$TMPDIR/…` is not the temp dir",
                excerpt(&value.text)
            ));
        }
        // What loads code or picks a program is never known harmless; the other classes
        // (folders programs or code come from, a command line, options) are judged by their
        // value where the command is (`policy::judge`, the specs' `assigns`).
        if crate::local::spec::env_vars::known(name) == crate::local::spec::env_vars::Known::Loads {
            self.unknown(format!(
                "sets {name}={}, which changes what the command runs",
                excerpt(&value.text)
            ));
        }
    }

    pub(super) fn redirect(&mut self, r: &ast::IoRedirect) -> Option<Redirect> {
        use ast::IoFileRedirectKind as K;
        use ast::IoFileRedirectTarget as T;
        match r {
            ast::IoRedirect::File(_, kind, target) => {
                let kind = match kind {
                    K::Read => RedirectKind::Read,
                    K::Write | K::Clobber | K::ReadAndWrite => RedirectKind::Write,
                    K::Append => RedirectKind::Append,
                    K::DuplicateInput | K::DuplicateOutput => RedirectKind::Duplicate,
                };
                let target = match target {
                    T::Filename(w) => self.word(&w.value),
                    T::Fd(fd) => Word::literal(fd.to_string()),
                    T::Duplicate(w) => {
                        let w = self.word(&w.value);
                        // `>&file` writes a file unless the target is a descriptor.
                        let is_fd = w
                            .text
                            .trim_end_matches('-')
                            .chars()
                            .all(|c| c.is_ascii_digit());
                        if !is_fd || !w.is_literal() {
                            return Some(Redirect {
                                kind: RedirectKind::Write,
                                target: w,
                            });
                        }
                        w
                    }
                    T::ProcessSubstitution(k, sub) => {
                        let label = match k {
                            ast::ProcessSubstitutionKind::Read => "<( )",
                            ast::ProcessSubstitutionKind::Write => ">( )",
                        };
                        // Redirects are walked by shared reference: a copy (a rare form).
                        self.process_substitution(label, &mut sub.clone());
                        return None;
                    }
                };
                Some(Redirect { kind, target })
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                let body = &doc.doc.value;
                let (kind, value) = if doc.requires_expansion {
                    match word::parse_heredoc(body, &self.options) {
                        Ok(pieces) => {
                            let w = self.assemble(&pieces, body, true);
                            (w.kind, w.value)
                        }
                        Err(_) => {
                            self.unknown("a here-document whose expansions cannot be parsed");
                            (WordKind::Computed, None)
                        }
                    }
                } else {
                    (WordKind::Literal, None)
                };
                Some(Redirect {
                    kind: RedirectKind::HereDoc,
                    target: Word {
                        text: body.clone(),
                        kind,
                        value,
                    },
                })
            }
            ast::IoRedirect::HereString(_, w) => Some(Redirect {
                kind: RedirectKind::HereString,
                target: self.word(&w.value),
            }),
            ast::IoRedirect::OutputAndError(w, append) => Some(Redirect {
                kind: if *append {
                    RedirectKind::Append
                } else {
                    RedirectKind::Write
                },
                target: self.word(&w.value),
            }),
        }
    }
}
