//! What sentinel keeps between calls, in SENTINEL_HOME: the [`stats`] of every decision and the
//! hash-chained [`audit`] log (both [`journal`]s, written by [`record`]; a kept reader's [`journal_position`] in them), a session's [`taint`] and the [`secrets`] it read (fingerprints),
//! the person's [`allow_once`] grants, per-session [`state`], the files a session [`written`],
//! the project files [`changed`] since the person's baseline (or [`uncommitted`] at it, read
//! from the [`git_index`]) and the [`sessions`]' summaries; each opened through
//! [`crate::config::kept`].

pub mod allow_once;
pub mod audit;
pub mod changed;
pub mod git_ignore;
pub mod git_index;
pub mod journal;
pub mod journal_position;
pub mod record;
pub mod redact;
pub mod secrets;
pub mod sessions;
pub mod state;
pub mod stats;
pub mod status_tally;
pub mod taint;
pub mod uncommitted;
pub mod unobserved;
pub mod written;
