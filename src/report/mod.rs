//! What the person reads: [`check`]'s answer and exit status, [`explain`]'s account of one
//! decision, the rules [`suggest`] proposes from what was decided, and the report page
//! ([`dashboard`]'s numbers, kept between runs by [`kept_summary`]; [`html`]'s page).

pub mod check;
pub mod dashboard;
pub mod explain;
pub mod html;
pub mod kept_stretch;
pub mod kept_summary;
pub mod policy;
pub mod statusline;
pub mod suggest;
pub mod suggest_rows;
pub mod team;
