//! What the person reads: [`check`]'s answer and exit status, [`explain`]'s account of one
//! decision, and the rules [`suggest`] proposes from what was decided.

pub mod check;
pub mod explain;
pub mod statusline;
pub mod suggest;
