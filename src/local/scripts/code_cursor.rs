//! The cursor the narrow code readers share (`python_code`, `js_code`): a position in a
//! language's tokens, the steps over them, and the loop over statements. Each reader keeps its
//! own tokens and grammar; what a statement may be is its own business.

/// What the cursor needs of a reader's token.
pub(super) trait Token: Clone + PartialEq + 'static {
    /// A statement's end (a newline or `;`), also what reading past the last token gives.
    fn end() -> &'static Self;
    /// The operator the token is, if it is one.
    fn op(&self) -> Option<&str>;
    /// The name (or keyword) the token is, if it is one.
    fn name(&self) -> Option<&str>;
}

/// A position in a token list.
pub(super) struct Cursor<'a, T> {
    pub t: &'a [T],
    pub i: usize,
}

impl<'a, T: Token> Cursor<'a, T> {
    pub fn new(t: &'a [T]) -> Self {
        Cursor { t, i: 0 }
    }

    /// The token here (the end past the last one).
    pub fn peek(&self) -> &T {
        self.t.get(self.i).unwrap_or(T::end())
    }

    /// The token here, stepping past it.
    pub fn next(&mut self) -> T {
        let t = self.peek().clone();
        self.i += 1;
        t
    }

    /// Steps past the operator `o` when it is here.
    pub fn op(&mut self, o: &str) -> bool {
        let here = self.peek().op() == Some(o);
        self.i += usize::from(here);
        here
    }

    /// Steps past the name `w` when it is here.
    pub fn word(&mut self, w: &str) -> bool {
        let here = self.peek().name() == Some(w);
        self.i += usize::from(here);
        here
    }
}

/// A reader of one statement at a time.
pub(super) trait Statements<'a> {
    type Tok: Token;
    fn cursor(&mut self) -> &mut Cursor<'a, Self::Tok>;
    /// Reads one statement at the cursor; None when the code does something the reader refuses.
    fn statement(&mut self) -> Option<()>;
}

/// Reads every statement: blank ones skipped, each followed by its end. Some(true) when there
/// was at least one, None when one is refused or runs on past its end.
pub(super) fn read_all<'a, R: Statements<'a>>(r: &mut R) -> Option<bool> {
    let mut any = false;
    while r.cursor().i < r.cursor().t.len() {
        if r.cursor().peek() == R::Tok::end() {
            r.cursor().i += 1;
            continue;
        }
        r.statement()?;
        any = true;
        if &r.cursor().next() != R::Tok::end() {
            return None;
        }
    }
    Some(any)
}
