//! A PowerShell command: its name resolved, its parameters and arguments, its redirections, and
//! the drives of providers that are not files.

use super::*;

/// Drives of PowerShell's providers that are not files: what a cmdlet does there is not the
/// file it seems (`Get-ChildItem env:` prints every environment variable, `Set-Item env:PATH`
/// changes what runs, `cert:` holds private keys). Registry drives are only read by the
/// cmdlets that read.
pub(super) fn provider_path(argv: &[Word]) -> Option<String> {
    const READS_REGISTRY: &[&str] = &[
        "powershell/get-childitem",
        "powershell/get-item",
        "powershell/get-itemproperty",
        "powershell/get-itempropertyvalue",
        "powershell/test-path",
    ];
    for w in &argv[1..] {
        // `-Path:env:X` names one too.
        let value = match w.text.strip_prefix('-') {
            Some(rest) => match rest.split_once(':') {
                Some((_, v)) => v,
                None => continue,
            },
            None => w.text.as_str(),
        };
        let Some((drive, _)) = value.split_once(':') else {
            continue;
        };
        if drive.len() < 2 || !drive.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
            continue;
        }
        let lower = drive.to_ascii_lowercase();
        let registry = matches!(lower.as_str(), "hklm" | "hkcu" | "hkcr" | "hku" | "hkcc");
        if registry && READS_REGISTRY.contains(&argv[0].text.as_str()) {
            continue;
        }
        return Some(format!(
            "`{}` names PowerShell's `{drive}:` drive, not a file: what it reads or changes there is not read",
            excerpt(value)
        ));
    }
    None
}

impl Parser {
    /// A command: its name (after `&` or `.`, any value), its parameters and arguments.
    pub(super) fn command(&mut self, called: bool, close: Option<char>) -> Vec<Item> {
        self.skip_spaces();
        let mut items = Vec::new();
        let (mut names, inner) = self.argument(close);
        items.extend(inner);
        let Some(name) = names.drain(..).next() else {
            return items;
        };
        let (own, first) = match powershell_name(&name.text) {
            Some(section) if name.is_literal() => (true, Word::literal(section)),
            _ => {
                if called && !name.is_literal() {
                    items.push(Item::Unknown(format!(
                        "`&` runs `{}`, which is not known before it runs",
                        excerpt(&name.text)
                    )));
                }
                (false, name)
            }
        };
        let mut argv = vec![first];
        let mut redirects = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None | Some(';' | '\n' | '\r' | ')' | '}' | '|') => break,
                Some('&') if self.peek_at(1) == Some('&') => break,
                Some('&') => {
                    self.i += 1;
                    items.push(Item::Unknown(
                        "`&` at the end runs the pipeline as a background job".into(),
                    ));
                    break;
                }
                Some('#') => {
                    self.skip_line();
                    break;
                }
                Some('<') => {
                    self.i += 1;
                    items.push(Item::Unknown(
                        "`<` is not a redirection PowerShell has".into(),
                    ));
                }
                Some('-') if self.at("--%") => {
                    self.skip_line();
                    items.push(Item::Unknown(
                        "`--%` stops PowerShell from reading the rest".into(),
                    ));
                    break;
                }
                Some('-') if self.peek_at(1).is_some_and(char::is_alphabetic) => {
                    argv.push(self.parameter(close, &mut items));
                }
                Some(_) => {
                    if let Some(r) = self.redirect(close) {
                        redirects.push(r);
                        continue;
                    }
                    let before = self.i;
                    let (words, inner) = self.argument(close);
                    items.extend(inner);
                    argv.extend(words);
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
        if own {
            if let Some(why) = provider_path(&argv) {
                items.push(Item::Unknown(why));
                // It may have set what a variable names.
                self.assigned.push("*".into());
            }
            if argv[0].text == "powershell/invoke-expression" {
                // A literal string is code of its own: a deny inside it is a deny of the whole.
                for w in argv[1..]
                    .iter()
                    .filter(|w| w.is_literal() && !w.text.starts_with('-'))
                {
                    let text = w.text.clone();
                    items.push(self.nested_text(&text, "Invoke-Expression"));
                }
            }
        }
        if own
            && matches!(
                argv[0].text.as_str(),
                "powershell/set-location" | "powershell/push-location"
            )
        {
            let target = argv[1..].iter().find(|w| !w.text.starts_with('-')).cloned();
            let plain = argv[1..].iter().all(|w| {
                !w.text.starts_with('-')
                    || w.text.eq_ignore_ascii_case("-path")
                    || w.text.eq_ignore_ascii_case("-literalpath")
            });
            items.push(Item::Command(Command {
                argv,
                redirects,
                own,
                piped_under: None,
            }));
            items.push(Item::ChangeDir(if plain { target } else { None }));
            return items;
        }
        if own && argv[0].text == "powershell/pop-location" {
            items.push(Item::ChangeDir(None));
        }
        items.push(Item::Command(Command {
            argv,
            redirects,
            own,
            piped_under: None,
        }));
        items
    }

    /// `-Name` or `-Name:value`, as one word (a program gets `-Dkey=value` whole).
    pub(super) fn parameter(&mut self, close: Option<char>, items: &mut Vec<Item>) -> Word {
        let from = self.i;
        self.i += 1;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '?'))
        {
            self.i += 1;
        }
        let name = self.text(from);
        let rest = match self.peek() {
            Some(':') => {
                self.i += 1;
                true
            }
            Some(c) if !ends_word(c) && Some(c) != close => true,
            _ => false,
        };
        if !rest {
            return Word::literal(name);
        }
        let colon = self.c.get(self.i.wrapping_sub(1)) == Some(&':');
        let (value, inner) = self.value(close);
        items.extend(inner);
        let sep = if colon { ":" } else { "" };
        match value {
            Some(v) => Word {
                text: format!("{name}{sep}{}", v.text),
                kind: if v.text.eq_ignore_ascii_case("$true")
                    || v.text.eq_ignore_ascii_case("$false")
                {
                    WordKind::Literal
                } else {
                    v.kind
                },
                value: None,
            },
            None => Word::literal(format!("{name}{sep}")),
        }
    }

    /// Redirections after an expression (`"x" > out.txt`).
    pub(super) fn redirects(&mut self, close: Option<char>) -> Vec<Redirect> {
        let mut out = Vec::new();
        loop {
            self.skip_spaces();
            match self.redirect(close) {
                Some(r) => out.push(r),
                None => return out,
            }
        }
    }

    /// `>`, `>>`, `2>`, `*>`, `2>&1` and their target, when one is at the cursor.
    pub(super) fn redirect(&mut self, close: Option<char>) -> Option<Redirect> {
        let start = self.i;
        if self.peek().is_some_and(|c| c.is_ascii_digit() || c == '*')
            && self.peek_at(1) == Some('>')
        {
            self.i += 1;
        }
        if self.peek() != Some('>') {
            self.i = start;
            return None;
        }
        self.i += 1;
        let kind = if self.peek() == Some('>') {
            self.i += 1;
            RedirectKind::Append
        } else {
            RedirectKind::Write
        };
        if self.peek() == Some('&') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 2;
            return Some(Redirect {
                kind: RedirectKind::Duplicate,
                target: Word::literal("&1"),
            });
        }
        self.skip_spaces();
        let (words, _) = self.argument(close);
        let target = words.into_iter().next().unwrap_or_else(|| Word {
            text: String::new(),
            kind: WordKind::Computed,
            value: None,
        });
        let target = if target.text.eq_ignore_ascii_case("$null") {
            Word::literal("/dev/null")
        } else {
            target
        };
        Some(Redirect { kind, target })
    }
}
