//! The `sentinel` command line: maps subcommands onto the library and results onto exit codes.

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use sentinel::config::Config;
use sentinel::decide::{self, Context};
use sentinel::event::Agent;
use sentinel::event::ToolCall;
use sentinel::paths::RealFs;
use sentinel::rules::Rules;
use sentinel::{check, config, hook, install, tiers};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// A pre-tool-use hook that guards AI coding agents.
#[derive(Parser)]
#[command(name = "sentinel", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decide a command (or a file tool call) as if the agent proposed it.
    Check {
        /// The shell command (for --tool Bash or PowerShell).
        command: Option<String>,
        /// The session's project directory [default: the current directory].
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// The tool: Bash, PowerShell, Write, Edit, MultiEdit, NotebookEdit, Read, Glob, Grep, LS.
        #[arg(long, default_value = "Bash")]
        tool: String,
        /// The target path for a file tool.
        #[arg(long)]
        path: Option<String>,
        /// Skip Tier 2 (the LLM evaluator).
        #[arg(long)]
        offline: bool,
        /// Print the whole decision record as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Work with the rule files.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
    /// The hook: read one event on stdin, answer on stdout (what the agent runs).
    Hook {
        /// The agent whose protocol to speak.
        #[arg(long, value_enum, default_value = "claude")]
        agent: Agent,
        /// Decide and record, but print nothing and exit 0.
        #[arg(long)]
        shadow: bool,
    },
    /// Print the effective configuration and where each value came from.
    Config {
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Register the hook in Claude Code's settings and seed SENTINEL_HOME.
    Install {
        /// Register in shadow mode (decide and record, never interfere).
        #[arg(long)]
        shadow: bool,
        /// The settings file [default: by --scope].
        #[arg(long)]
        settings: Option<PathBuf>,
        /// user: ~/.claude/settings.json; project: ./.claude/settings.json.
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
    },
    /// Remove exactly what install added to the settings file.
    Uninstall {
        /// The settings file [default: by --scope].
        #[arg(long)]
        settings: Option<PathBuf>,
        /// user: ~/.claude/settings.json; project: ./.claude/settings.json.
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Scope {
    User,
    Project,
}

#[derive(Subcommand)]
enum RulesCommand {
    /// Load every rule file and report each bad line as `file:line: error`.
    Lint,
}

fn main() -> ExitCode {
    // clap exits 2 on a usage error, which `sentinel check` uses for "block": map it to 1.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("sentinel: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Check {
            command,
            cwd,
            tool,
            path,
            offline,
            json,
        } => run_check(command, cwd, &tool, path, offline, json),
        Command::Rules {
            command: RulesCommand::Lint,
        } => run_lint(),
        Command::Hook { agent, shadow } => {
            let out = hook::run(agent, shadow, &mut std::io::stdin().lock());
            // A closed pipe is the agent's business; the exit status still says what happened.
            let _ = std::io::stdout().lock().write_all(out.stdout.as_bytes());
            let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
            Ok(out.exit)
        }
        Command::Config { json } => run_config(json),
        Command::Install {
            shadow,
            settings,
            scope,
        } => run_install(shadow, settings, scope),
        Command::Uninstall { settings, scope } => run_uninstall(settings, scope),
    }
}

fn load_config() -> Result<Config> {
    Config::load_for_process().context("cannot find a home directory; set SENTINEL_HOME")
}

fn run_config(json: bool) -> Result<u8> {
    let config = load_config()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&config)?);
    } else {
        let rows = config.rows();
        let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let vwidth = rows
            .iter()
            .map(|r| r.1.chars().count())
            .max()
            .unwrap_or(0)
            .min(44);
        for (key, value, source) in rows {
            println!("{key:<width$}  {value:<vwidth$}  {source}");
        }
        for e in &config.errors {
            println!("error: {e}");
        }
    }
    Ok(if config.errors.is_empty() { 0 } else { 1 })
}

fn settings_path(settings: Option<PathBuf>, scope: Scope) -> Result<PathBuf> {
    Ok(match (settings, scope) {
        (Some(p), _) => p,
        (None, Scope::User) => config::user_home()
            .context("cannot find the home directory")?
            .join(".claude/settings.json"),
        (None, Scope::Project) => std::env::current_dir()?.join(".claude/settings.json"),
    })
}

fn run_install(shadow: bool, settings: Option<PathBuf>, scope: Scope) -> Result<u8> {
    let config = load_config()?;
    let settings = settings_path(settings, scope)?;
    let binary = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("cannot find sentinel's own path")?;
    let timeout = config.hook_timeout_secs();
    let report = install::install(&settings, &binary, shadow, timeout, &config.home.value)?;
    let mode = if shadow { " in shadow mode" } else { "" };
    if report.changed {
        println!(
            "registered {}{mode} in {}",
            binary.display(),
            report.settings.display()
        );
    } else {
        println!("already registered{mode} in {}", report.settings.display());
    }
    if let Some(b) = &report.backup {
        println!("backup of the previous file: {}", b.display());
    }
    for p in &report.seeded {
        println!("seeded {}", p.display());
    }
    Ok(0)
}

fn run_uninstall(settings: Option<PathBuf>, scope: Scope) -> Result<u8> {
    let config = load_config()?;
    let settings = settings_path(settings, scope)?;
    let report = install::uninstall(&settings, &config.home.value)?;
    if report.changed {
        println!("removed sentinel from {}", report.settings.display());
    } else {
        println!(
            "sentinel was not registered in {}",
            report.settings.display()
        );
    }
    if let Some(b) = &report.backup {
        println!("backup of the previous file: {}", b.display());
    }
    Ok(0)
}

fn run_check(
    command: Option<String>,
    cwd: Option<PathBuf>,
    tool: &str,
    path: Option<String>,
    offline: bool,
    json: bool,
) -> Result<u8> {
    let config = load_config()?;
    let home = config.home.value.clone();
    let user_home = config::user_home();
    let cwd = match cwd {
        Some(c) => std::path::absolute(&c).with_context(|| format!("bad --cwd {}", c.display()))?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let input = match (tool, command, path) {
        ("Bash" | "PowerShell", Some(c), None) => serde_json::json!({ "command": c }),
        ("Bash" | "PowerShell", None, _) => {
            bail!("usage: sentinel check \"<command>\" (the command is missing)")
        }
        ("Bash" | "PowerShell", Some(_), Some(_)) => {
            bail!("--path is for file tools; give the command alone")
        }
        (_, None, Some(p)) => serde_json::json!({ "file_path": p, "path": p, "notebook_path": p }),
        (_, Some(c), None) => serde_json::json!({ "file_path": c, "path": c, "notebook_path": c }),
        (_, Some(_), Some(_)) => bail!("give either a path argument or --path, not both"),
        (t, None, None) => bail!("--tool {t} needs --path FILE"),
    };
    let input = if tool == "Read" {
        serde_json::json!({ "file_path": input["file_path"] })
    } else {
        input
    };
    let call = ToolCall::from_tool_input(tool, &input)?;
    let rules = Rules::load(&home, user_home.as_deref());
    for e in &rules.errors {
        eprintln!("sentinel: rule error: {e}");
    }
    let ctx = Context {
        cwd: &cwd,
        home: user_home.as_deref(),
        sentinel_home: &home,
        fs: &RealFs,
    };
    let local = decide::decide(&call, &rules, &ctx);
    // --offline shows Tier 1's own verdict; otherwise the call goes through every tier.
    let decision = if offline {
        local
    } else {
        tiers::resolve(local, &call, &config, tiers::Tier2::Enabled)
    };
    for e in &config.errors {
        eprintln!("sentinel: config error: {e}");
    }
    match (&decision, json) {
        (Some(d), true) => println!("{}", serde_json::to_string_pretty(d)?),
        (Some(d), false) => print!("{}", check::render(d)),
        (None, true) => println!(
            "{}",
            serde_json::json!({ "verdict": null, "tool": tool, "reason": "sentinel has no opinion on this tool; the agent's own permission flow decides" })
        ),
        (None, false) => println!(
            "verdict: none\nreason:  sentinel has no opinion on {tool}; the agent's own permission flow decides"
        ),
    }
    Ok(check::exit_code(decision.map(|d| d.verdict)) as u8)
}

fn run_lint() -> Result<u8> {
    let home =
        config::sentinel_home().context("cannot find a home directory; set SENTINEL_HOME")?;
    let rules = Rules::load(&home, config::user_home().as_deref());
    let errors = rules.lint();
    for e in &errors {
        println!("{e}");
    }
    let count = rules.hard_block.len()
        + rules.safe.len()
        + rules.conditional.len()
        + rules.safe_paths.len()
        + rules.excluded_paths.len();
    for (file, origin) in &rules.origins {
        eprintln!("  {file}: {origin}");
    }
    if errors.is_empty() {
        eprintln!(
            "ok: {count} rules in {} files, no errors",
            rules.origins.len()
        );
        Ok(0)
    } else {
        eprintln!(
            "{} error(s); until they are fixed every local allow becomes ask",
            errors.len()
        );
        Ok(1)
    }
}
