//! The `sentinel` command line: maps subcommands onto the library and results onto exit codes.

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use sentinel::decide::{self, Context};
use sentinel::event::ToolCall;
use sentinel::paths::RealFs;
use sentinel::rules::Rules;
use sentinel::{check, config};
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
            offline: _,
            json,
        } => run_check(command, cwd, &tool, path, json),
        Command::Rules {
            command: RulesCommand::Lint,
        } => run_lint(),
    }
}

fn run_check(
    command: Option<String>,
    cwd: Option<PathBuf>,
    tool: &str,
    path: Option<String>,
    json: bool,
) -> Result<u8> {
    let home =
        config::sentinel_home().context("cannot find a home directory; set SENTINEL_HOME")?;
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
    let decision = decide::decide(&call, &rules, &ctx);
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
