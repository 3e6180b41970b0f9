//! sentinel: a pre-tool-use hook that guards AI coding agents.
//!
//! Read it from [`decide::decide`] down: an agent's call ([`event::ToolCall`]) goes through
//! Tier 1 — the parsed shell command ([`shell`]) against the rule files ([`rules`]) and path lists
//! ([`paths`]) — and comes out as a [`decision::Decision`].

pub mod check;
pub mod config;
pub mod decide;
pub mod decision;
pub mod event;
pub mod paths;
pub mod rules;
pub mod shell;
