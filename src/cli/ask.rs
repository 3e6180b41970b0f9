//! What `check` and `explain` are asked about, and the question put to the tiers.

use super::load_config;
use anyhow::{Context as _, Result, bail};
use sentinel::call::ToolCall;
use sentinel::decision::Decision;
use sentinel::evaluator::tiers;
use sentinel::local::rules::project::Layered;
use sentinel::question::{self, Purpose, TaintFrom};
use std::path::PathBuf;

/// Claude Code's permission modes.
const PERMISSION_MODES: [&str; 6] = [
    "default",
    "acceptEdits",
    "plan",
    "auto",
    "dontAsk",
    "bypassPermissions",
];

/// One call, as the agent would propose it.
#[derive(clap::Args)]
pub struct Question {
    /// The shell command (for --tool Bash or PowerShell).
    command: Option<String>,
    /// The session's project directory [default: the current directory].
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// The tool: Bash, PowerShell, Write, Edit, MultiEdit, NotebookEdit, Read, Glob, Grep, LS, WebFetch, WebSearch (URL or query by --path).
    #[arg(long, default_value = "Bash")]
    pub tool: String,
    /// The target path for a file tool.
    #[arg(long)]
    path: Option<String>,
    /// Skip Tier 2 (the LLM evaluator): the answer the hook gives without a key.
    #[arg(long)]
    pub offline: bool,
    /// Decide as in a session that has taken in untrusted content (web pages, MCP output).
    #[arg(long)]
    tainted: bool,
    /// Decide as under this Claude Code permission mode (default, acceptEdits, plan, auto,
    /// dontAsk, bypassPermissions): with `on_uncertain = auto`, an uncertain call is deferred
    /// where the agent has a gate of its own. Without it, an uncertain call asks.
    #[arg(long, value_name = "MODE", value_parser = clap::builder::PossibleValuesParser::new(PERMISSION_MODES))]
    permission_mode: Option<String>,
}

impl Question {
    /// What was asked about: the command, or the path.
    pub fn subject(&self) -> String {
        self.command
            .clone()
            .or_else(|| self.path.clone())
            .unwrap_or_default()
    }
}

/// A call decided as `sentinel check` and `sentinel explain` see it.
pub struct Evaluated {
    pub layered: Layered,
    pub call: ToolCall,
    pub cwd: PathBuf,
    pub user_home: Option<PathBuf>,
    /// Tier 1's decision (None: no opinion on this tool).
    pub local: Option<Decision>,
    /// The answer after every tier (or Tier 1's own with --offline).
    pub decision: Option<Decision>,
}

/// Builds the call from the arguments and runs it through the tiers as a preview: no
/// allow-once grant is used or offered.
pub fn evaluate(q: Question) -> Result<Evaluated> {
    let mut config = load_config()?;
    // Offline is the hook without a key: the same answer words, never Tier 1's own `uncertain`.
    if q.offline {
        config.api_key = None;
    }
    let cwd = match &q.cwd {
        Some(c) => std::path::absolute(c).with_context(|| format!("bad --cwd {}", c.display()))?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let tool = q.tool.as_str();
    let input = match (tool, q.command, q.path) {
        ("Bash" | "PowerShell", Some(c), None) => serde_json::json!({ "command": c }),
        ("Bash" | "PowerShell", None, _) => {
            bail!("usage: sentinel check \"<command>\" (the command is missing)")
        }
        ("Bash" | "PowerShell", Some(_), Some(_)) => {
            bail!("--path is for file tools; give the command alone")
        }
        // WebFetch and WebSearch take the URL or the query by --path too.
        ("WebFetch" | "WebSearch", None, Some(p)) => serde_json::json!({ "url": p, "query": p }),
        (_, None, Some(p)) => serde_json::json!({ "file_path": p, "path": p, "notebook_path": p }),
        // A file tool takes its path by --path: a positional argument is a command, and a
        // command given with `--tool Read` is a mistake to say, not a path to judge.
        (t, Some(c), None) => bail!(
            "--tool {t} takes --path FILE, not a command (`{c}`); for a shell command leave out --tool, or use --tool Bash"
        ),
        (t, Some(_), Some(_)) => bail!("--tool {t} takes --path FILE alone, not a command too"),
        (t, None, None) => bail!("--tool {t} needs --path FILE"),
    };
    let input = if tool == "Read" {
        serde_json::json!({ "file_path": input["file_path"] })
    } else {
        input
    };
    let call = ToolCall::from_tool_input(tool, &input)?;
    let answered = question::answer(
        &config,
        &question::Question {
            call: &call,
            cwd: &cwd,
            session: tiers::Session {
                id: None,
                permission_mode: q.permission_mode.as_deref(),
                transcript: None,
            },
            taint: if q.tainted {
                TaintFrom::Assumed("sentinel check --tainted")
            } else {
                TaintFrom::Clean
            },
            purpose: Purpose::Preview { offline: false },
            // A preview shows what the hook answers Claude Code, which runs a rewritten call.
            rewritable: matches!(call, ToolCall::Shell { .. }).then_some(&input),
            without_ask: None,
        },
    );
    for w in &answered.warnings {
        sentinel::errln!("sentinel: warning: {w}");
    }
    Ok(Evaluated {
        layered: answered.layered,
        call,
        cwd,
        user_home: answered.user_home,
        local: answered.local,
        decision: answered.answer,
    })
}
