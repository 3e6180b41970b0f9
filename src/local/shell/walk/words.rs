//! Words: a word of brush's tree assembled from its pieces (quotes, expansions,
//! substitutions), with what is known of its value.

use super::*;

impl Walker {
    /// Quote removal and expansion discovery for one word; substitutions inside are walked.
    pub(in crate::local::shell) fn word(&mut self, raw: &str) -> Word {
        if let Some(w) = self.loop_word(raw) {
            return w;
        }
        // Most words are plain text and quotes: their value is known without brush's parse.
        match super::super::plain::literal_word(raw) {
            Some(text) => Word {
                text,
                kind: WordKind::Literal,
                value: None,
            },
            None => self.word_by_pieces(raw),
        }
    }

    /// [`Walker::word`] of a word the walk owns: a word of plain characters only (most of
    /// them) is its own text, moved out instead of copied.
    pub(in crate::local::shell) fn word_taken(&mut self, raw: &mut String) -> Word {
        if super::super::plain::is_plain_literal(raw) {
            return Word {
                text: std::mem::take(raw),
                kind: WordKind::Literal,
                value: None,
            };
        }
        self.word(raw)
    }

    /// [`Walker::word`] through brush's word parser, for any word.
    pub(in crate::local::shell) fn word_by_pieces(&mut self, raw: &str) -> Word {
        match word::parse(raw, &self.options) {
            Ok(pieces) => self.assemble(&pieces, raw, false),
            Err(_) => {
                self.unknown(format!("cannot parse the word `{}`", excerpt(raw)));
                self.hidden_substitutions(raw, "word");
                Word {
                    text: raw.to_string(),
                    kind: WordKind::Computed,
                    value: None,
                }
            }
        }
    }

    /// A word from its pieces (`quoted` inside a here-document): its value is kept only when
    /// the word is computed, since a literal word's value is its text.
    pub(super) fn assemble(
        &mut self,
        pieces: &[WordPieceWithSource],
        raw: &str,
        quoted: bool,
    ) -> Word {
        let mut w = WordBuild {
            text: String::new(),
            kind: WordKind::Literal,
            value: Some(String::new()),
        };
        for p in pieces {
            self.piece(p, raw, quoted, &mut w);
        }
        let value = if w.kind == WordKind::Computed {
            w.value
        } else {
            None
        };
        Word {
            text: w.text,
            kind: w.kind,
            value,
        }
    }

    fn piece(&mut self, p: &WordPieceWithSource, raw: &str, quoted: bool, w: &mut WordBuild) {
        let source = raw.get(p.start_index..p.end_index).unwrap_or("");
        match &p.piece {
            WordPiece::Text(s) => {
                w.push(s);
                if !quoted && w.kind == WordKind::Literal && has_glob_or_brace(s) {
                    w.kind = WordKind::Glob;
                }
                if !quoted && has_brace_expansion(s) {
                    w.unknown_value();
                }
            }
            WordPiece::SingleQuotedText(s) => w.push(s),
            WordPiece::AnsiCQuotedText(s) => match decode::unescape(s, decode::Escapes::AnsiC) {
                // `$'\x72m'` is `rm`: the text is the decoded value, and an escape in it makes
                // the word count as computed, so a name spelled this way is never trusted.
                Some(decoded) if s.contains('\\') => {
                    w.text.push_str(&decoded);
                    if let Some(v) = &mut w.value {
                        v.push_str(&decoded);
                    }
                    w.kind = WordKind::Computed;
                }
                Some(decoded) => w.push(&decoded),
                None => {
                    w.text.push_str(s);
                    w.unknown_value();
                }
            },
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                for i in inner {
                    self.piece(i, raw, true, w);
                }
            }
            WordPiece::TildeExpansion(t) => match t {
                word::TildeExpr::Home => {
                    w.text.push('~');
                    w.value = None;
                }
                _ => {
                    w.text.push_str(source);
                    w.unknown_value();
                }
            },
            WordPiece::ParameterExpansion(expr) => {
                w.text.push_str(source);
                let tracked = match expr {
                    word::ParameterExpr::Parameter {
                        parameter: word::Parameter::Named(name),
                        indirect: false,
                    } => match self.vars.iter().find(|(n, _)| n == name) {
                        Some((_, v)) => v.clone(),
                        // The home, as `~` is read (`D=$HOME; rm -rf "$D/x"`).
                        None if name == "HOME" => Some("~".to_string()),
                        None => None,
                    },
                    _ => None,
                };
                match (tracked, &mut w.value) {
                    (Some(known), Some(v)) => {
                        v.push_str(&known);
                        w.kind = WordKind::Computed;
                    }
                    _ => w.unknown_value(),
                }
                if !matches!(
                    expr,
                    word::ParameterExpr::Parameter {
                        indirect: false,
                        ..
                    }
                ) {
                    self.hidden_substitutions(source, "parameter expansion");
                }
                // `${!x}` expands the variable x's value names, and a subscript in that name is
                // arithmetic: `x='a[$(cmd)]'; echo ${!x}` runs cmd. Only a value known to be a
                // plain name (or a positional parameter's number) is harmless.
                if let word::ParameterExpr::Parameter {
                    parameter: word::Parameter::Named(name),
                    indirect: true,
                } = expr
                {
                    let value = self
                        .vars
                        .iter()
                        .find(|(n, _)| n == name)
                        .and_then(|(_, v)| v.clone());
                    let plain = value.as_deref().is_some_and(|v| {
                        !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    });
                    if !plain {
                        self.unknown(format!(
                            "`{}` expands the variable `{name}`'s value names, and bash evaluates a subscript in that name as arithmetic, which can run commands",
                            excerpt(source)
                        ));
                    }
                }
                // `${a[$i]}`: the subscript is arithmetic.
                self.expansion_subscript(source);
                match expr {
                    // `${s:$x}`: the offset and length are arithmetic.
                    word::ParameterExpr::Substring { offset, length, .. } => {
                        self.arithmetic_names(&offset.value, "a substring's offset");
                        if let Some(l) = length {
                            self.arithmetic_names(&l.value, "a substring's length");
                        }
                    }
                    // `${x@P}` expands the value as a prompt, command substitutions included.
                    word::ParameterExpr::Transform {
                        op: word::ParameterTransformOp::PromptExpand,
                        ..
                    } => self.unknown(format!(
                        "`{}` expands a value as a prompt, which runs the commands in it",
                        excerpt(source)
                    )),
                    _ => {}
                }
            }
            WordPiece::CommandSubstitution(inner) => {
                let output = self.in_subshell(|s| s.nested(inner, "$( )"));
                w.substitution(source, output);
            }
            WordPiece::BackquotedCommandSubstitution(inner) => {
                let inner = unescape_backquoted(inner);
                let output = self.in_subshell(|s| s.nested(&inner, "` `"));
                w.substitution(source, output);
            }
            WordPiece::EscapeSequence(s) => w.push(s.strip_prefix('\\').unwrap_or(s)),
            WordPiece::ArithmeticExpression(e) => {
                w.text.push_str(source);
                w.unknown_value();
                self.arithmetic(&e.value);
            }
        }
    }

    /// Finds `$( … )` and backquotes inside text the parser keeps as a string (parameter
    /// defaults, arithmetic) and walks them, and marks the command uncertain.
    pub(super) fn hidden_substitutions(&mut self, text: &str, context: &str) {
        let mut found = false;
        let mut rest = text;
        while let Some(i) = rest.find("$(").or_else(|| rest.find('`')) {
            found = true;
            let tail = &rest[i..];
            if let Ok(pieces) = word::parse(tail, &self.options) {
                match pieces.first().map(|p| &p.piece) {
                    Some(WordPiece::CommandSubstitution(s)) => {
                        self.nested(s, "$( )");
                    }
                    Some(WordPiece::BackquotedCommandSubstitution(s)) => {
                        self.nested(s, "` `");
                    }
                    Some(WordPiece::ArithmeticExpression(e)) if e.value != tail => {
                        self.arithmetic(&e.value)
                    }
                    _ => {}
                }
            }
            rest = &tail[1..];
        }
        if found || text.contains("<(") || text.contains(">(") {
            self.unknown(format!(
                "command substitution inside {context} `{}`",
                excerpt(text)
            ));
        }
    }
}

/// A word being assembled from its pieces: its text, what is known of it, and its value when
/// every piece's value is known.
struct WordBuild {
    text: String,
    kind: WordKind,
    value: Option<String>,
}

impl WordBuild {
    /// A piece whose text is its value.
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        if let Some(v) = &mut self.value {
            v.push_str(s);
        }
    }

    /// A piece whose value is not known: the word is computed and has no value.
    fn unknown_value(&mut self) {
        self.kind = WordKind::Computed;
        self.value = None;
    }

    /// A command substitution: computed, with the output as its value when known (bash drops
    /// the trailing newlines).
    fn substitution(&mut self, source: &str, output: Option<String>) {
        self.text.push_str(source);
        self.kind = WordKind::Computed;
        match (output, &mut self.value) {
            (Some(out), Some(v)) => v.push_str(out.trim_end_matches('\n')),
            _ => self.value = None,
        }
    }
}

/// Unquoted `*`, `?` or a `[…]` class: bash matches the word against file names.
fn has_glob_or_brace(s: &str) -> bool {
    s.contains(['*', '?']) || s.find('[').is_some_and(|i| s[i + 1..].contains(']'))
}

/// `{a,b}` or `{1..3}` unquoted: bash turns it into several words.
pub(super) fn has_brace_expansion(s: &str) -> bool {
    let Some(open) = s.find('{') else {
        return false;
    };
    let Some(close) = s[open..].find('}') else {
        return false;
    };
    let inner = &s[open + 1..open + close];
    inner.contains(',') || inner.contains("..")
}
