//! What sentinel keeps between calls, in SENTINEL_HOME: the [`stats`] of every decision and the
//! hash-chained [`audit`] log (both [`journal`]s, written by [`record`]), a session's [`taint`],
//! the person's [`allow_once`] grants, and per-session [`state`]; each opened through
//! [`crate::config::files`].

pub mod allow_once;
pub mod audit;
pub mod journal;
pub mod record;
pub mod state;
pub mod stats;
pub mod taint;
pub mod written;
