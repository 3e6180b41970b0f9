//! The agents' side: what each agent sends ([`event`]) and expects back ([`hook`]), and putting
//! sentinel in their way ([`install`], [`setup`] for the agents besides Claude Code, [`doctor`],
//! [`exposure`]).

pub mod after_call;
pub mod cursor;
pub mod doctor;
pub mod event;
pub mod exposure;
pub mod hook;
pub mod install;
pub mod install_plugin;
pub mod lenient;
pub mod plugin_files;
pub mod plugin_home;
pub mod probe;
pub mod prompts;
pub mod session_end;
pub mod setup;
