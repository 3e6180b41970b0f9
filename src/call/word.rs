//! One word of a shell command as sentinel reads it: its text after quote removal, and how
//! much is known about its value.

/// How much sentinel knows about a word's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WordKind {
    /// The text is exactly the value the command will see.
    Literal,
    /// Unquoted glob characters, no expansions: the value lies under the literal prefix.
    Glob,
    /// Contains an expansion or substitution: the value is not known before it runs.
    Computed,
}

/// One word of a command after quote removal; expansions stay in their source form.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Word {
    /// The text, quotes removed, `$X`, `$( … )` and `~` kept as written.
    pub text: String,
    /// Whether the text is the value.
    pub kind: WordKind,
    /// The value of a computed word when sentinel can work it out (a `$( )` whose output is
    /// literal or decoded, an ANSI-C `$'…'` string). The word still counts as computed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl Word {
    /// A literal word.
    pub fn literal(text: impl Into<String>) -> Word {
        Word {
            text: text.into(),
            kind: WordKind::Literal,
            value: None,
        }
    }

    /// True when the word's value is exactly its text.
    pub fn is_literal(&self) -> bool {
        self.kind == WordKind::Literal
    }

    /// The word's value when it is known: its text if literal, else a worked-out value.
    pub fn known_value(&self) -> Option<&str> {
        match self.kind {
            WordKind::Literal => Some(&self.text),
            _ => self.value.as_deref(),
        }
    }
}
