//! The subcommands, one file each; [`run`] maps a parsed command line onto them. Each returns
//! the process's exit status (or an error, which `main` prints on one line and exits 1 with).

/// `println!` that a closed stdout (`sentinel config | head -1`) does not turn into a panic: the
/// rest of the output is dropped and the command ends with its own exit status. Everything
/// printed is inert ([`sentinel::text::inert_lines`]): a command, path, reason or session id the
/// agent wrote shows its control, bidi and invisible characters as escapes.
macro_rules! outln {
    () => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout());
    }};
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($t)*);
        let _ = writeln!(std::io::stdout(), "{}", sentinel::text::inert_lines(&text));
    }};
}

/// `print!`, likewise.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($t)*);
        let _ = write!(std::io::stdout(), "{}", sentinel::text::inert_lines(&text));
    }};
}

mod allow_once;
pub mod arena;
mod args;
mod ask;
mod audit;
mod check;
mod config;
mod contain;
mod doctor;
mod doctor_contain;
mod doctor_export;
mod doctor_managed;
mod doctor_selftest;
mod explain;
mod guard;
pub mod hook;
mod install;
mod person;
mod report;
mod rules;
mod setup;
mod stats;
mod statusline;
mod suggest;
mod trust;
mod watchdog;

use anyhow::{Context as _, Result};
pub use args::Cli;
use args::{AuditCommand, Command, RulesCommand};
use sentinel::config::Config;

/// Runs one subcommand.
pub fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Check {
            question,
            json,
            record,
        } => check::run(question, json, record),
        Command::Rules {
            command: RulesCommand::Lint { json },
        } => rules::lint(json),
        Command::Rules {
            command: RulesCommand::Diff { json },
        } => rules::diff(json),
        Command::Hook { agent, shadow } => Ok(hook::run(agent, shadow)),
        Command::Config { json } => config::run(json),
        Command::Stats {
            sessions: true,
            since,
            json,
            ..
        } => stats::sessions(since, json),
        Command::Stats {
            session,
            all,
            since,
            json,
            ..
        } => stats::run(session, all, since, json),
        Command::Audit {
            command: AuditCommand::Verify { json },
        } => audit::verify(json),
        Command::Audit {
            command: AuditCommand::Tail { n, json },
        } => audit::tail(n, json),
        Command::Install {
            plugin: true,
            agent,
            json,
            ..
        } => install::plugin(agent.target().is_none(), json),
        Command::Install {
            seed_only: true, ..
        } => install::seed_only(),
        Command::Install {
            shadow,
            agent,
            statusline,
            settings,
            scope,
            json,
            ..
        } => match agent.target() {
            None => install::install(shadow, settings, scope, statusline, json),
            Some(target) => setup::install(target, shadow, settings, scope, statusline),
        },
        Command::Uninstall {
            agent,
            settings,
            scope,
            purge,
            json,
        } => match agent.target() {
            None => install::uninstall(settings, scope, purge, json),
            Some(target) => setup::uninstall(target, settings, scope, purge),
        },
        Command::Contain {
            project,
            ports,
            registries,
            plan,
            command,
        } => contain::run(&project, &ports, registries, plan, &command),
        Command::Doctor {
            agent,
            settings,
            scope,
            json,
        } => match agent.target() {
            None => doctor::run(settings, scope, json),
            Some(target) => setup::doctor(target, settings, scope, json),
        },
        Command::Trust { dir, revoke, json } => trust::run(dir, revoke, json),
        Command::AllowOnce { code, json } => allow_once::run(&code, json),
        Command::Explain { question, json } => explain::run(question, json),
        Command::Suggest { apply, limit, json } => suggest::run(&apply, limit, json),
        Command::Report {
            out,
            since,
            json,
            whole,
            otlp,
        } => match otlp.is_empty() {
            true => report::run(out, since, json, whole),
            false => report::team(&otlp, since, json),
        },
        Command::Statusline => Ok(statusline::run()),
        Command::Completions { shell } => {
            use clap::CommandFactory as _;
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "sentinel", &mut std::io::stdout());
            Ok(0)
        }
    }
}

/// The person's configuration, as every subcommand but `hook` and `rules` loads it.
fn load_config() -> Result<Config> {
    Config::load_for_process().context("cannot find a home directory; set SENTINEL_HOME")
}
