//! What the person reads: [`check`]'s answer and exit status, [`explain`]'s account of one
//! decision, the rules [`suggest`] proposes from what was decided, and the report page
//! ([`dashboard`]'s numbers, [`html`]'s page).

pub mod check;
pub mod dashboard;
pub mod explain;
pub mod html;
pub mod policy;
pub mod statusline;
pub mod suggest;
pub mod team;
