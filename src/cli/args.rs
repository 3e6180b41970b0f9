//! The command line's grammar (clap): every subcommand, its arguments and their help.

use crate::cli::ask::Question;
use clap::{Parser, Subcommand};
use sentinel::agents::event::Agent;
use std::path::PathBuf;

/// A pre-tool-use hook that guards AI coding agents.
#[derive(Parser)]
#[command(
    name = "sentinel",
    version,
    about,
    after_help = "Exit status:
  0  allow, or success
  1  a usage, configuration or load error; doctor: something is wrong
  2  deny (check, explain; the hook only on its own error under fail_mode = closed)
  3  ask or defer (check, explain)

Environment (a project's agent settings can set variables, so one that would loosen sentinel
is ignored, with a warning, unless sentinel.toml's [env] trust names it):
  SENTINEL_HOME       rule files, specs, sentinel.toml, stats and audit [default: ~/.agentos]
  SENTINEL_API_KEY    Tier 2's key (else ANTHROPIC_API_KEY); no key: Tier 2 is off
  SENTINEL_API_URL    Tier 2's base URL; first found of it, [api] url, ANTHROPIC_BASE_URL,
                      api.anthropic.com. Either variable is read only with a key, and one that
                      names another server only when [env] trust names it
  SENTINEL_FAIL_MODE  open | closed | ask over sentinel.toml's fail_mode; a laxer one only
                      when [env] trust names it
  SENTINEL_SHADOW     1: decide and record only, never interfere (only when [env] trust names
                      it, or mode is shadow already); 0: shadow mode off
  SENTINEL_MANAGED_DIR  another folder for the organisation's policy (testing one), read only
                      while none is deployed, from a folder root owns, and when [env] trust
                      names it
  SENTINEL_NO_TTY     1: print the session summary on stderr, never on the agent's terminal

Examples:
  sentinel check \"git status && cargo test\"      decide a command as the agent would propose it
  sentinel check --tool Write --path ~/.bashrc   decide a file tool call
  sentinel explain \"npm run deploy\"              every rule, path and tier behind one decision
  sentinel install / sentinel doctor             register the hook, then check it is in the way
  sentinel rules lint / sentinel rules diff      check your rule files; what they change
  sentinel stats --all / sentinel audit verify   what was decided; is the audit log intact
  sentinel suggest                               rules proposed from what Tier 2 decided
  echo '{...}' | sentinel hook                   what the agent runs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Decide a command (or a file tool call) as if the agent proposed it.
    Check {
        #[command(flatten)]
        question: Question,
        /// Print the whole decision record as JSON.
        #[arg(long)]
        json: bool,
        /// Also record the decision in the stats and the audit log (as session `check`); a
        /// what-if is not recorded otherwise.
        #[arg(long)]
        record: bool,
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
    /// Tier distribution, API calls, errors and latency, from the stats.
    Stats {
        /// One session [default: the most recent one].
        #[arg(long, conflicts_with = "all")]
        session: Option<String>,
        /// Every session.
        #[arg(long)]
        all: bool,
        /// List the sessions recorded (id, decisions, first and last time), newest last.
        #[arg(long, conflicts_with_all = ["session", "all"])]
        sessions: bool,
        /// Only decisions newer than this: 30m, 2h, 7d, or a Unix time in seconds.
        #[arg(long)]
        since: Option<String>,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check or read the audit log.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Print the effective configuration and where each value came from.
    Config {
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Register the hook in an agent's settings (Claude Code by default) and seed SENTINEL_HOME.
    Install {
        /// Register in shadow mode (decide and record, never interfere).
        #[arg(long)]
        shadow: bool,
        /// The agent: claude (Claude Code), codex (~/.codex/hooks.json), gemini
        /// (~/.gemini/settings.json), cursor (~/.cursor/hooks.json), copilot
        /// (~/.copilot/hooks/sentinel.json); with --scope project, the project's own file.
        #[arg(long, value_enum, default_value = "claude")]
        agent: SetupAgent,
        /// Also show sentinel's status line in Claude Code (`statusLine`), unless you have one.
        #[arg(long)]
        statusline: bool,
        /// The settings file [default: by --agent and --scope].
        #[arg(long)]
        settings: Option<PathBuf>,
        /// user: ~/.claude/settings.json; project: ./.claude/settings.json (committed, so the
        /// hook names `sentinel` on PATH, no machine path); local: ./.claude/settings.local.json.
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
        /// Only write the commented starter files into SENTINEL_HOME (where absent) and register
        /// nothing: for the Claude Code plugin route.
        #[arg(long, conflicts_with_all = ["shadow", "settings"])]
        seed_only: bool,
        /// Claude Code's plugin route: write the plugin into SENTINEL_HOME/claude-plugin (its
        /// hook runs this binary; no clone needed, so moving or deleting one drops nothing), seed
        /// SENTINEL_HOME, and print the `claude plugin` commands that install it from there.
        #[arg(long, conflicts_with_all = ["shadow", "settings", "statusline", "seed_only"])]
        plugin: bool,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Trust this project's `.sentinel/` rules as they are now (its loosening rules then apply).
    Trust {
        /// The project directory [default: the nearest with .sentinel/ at or above the current one].
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Forget the trust instead.
        #[arg(long)]
        revoke: bool,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Let exactly one refused call through, once, within 10 minutes (the code is in the deny reason).
    AllowOnce {
        /// The code from the deny reason.
        code: String,
        /// Print what was granted as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Explain one decision in full: parsed commands, every matching rule, paths, taint, tiers.
    Explain {
        #[command(flatten)]
        question: Question,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Propose rules for the commands that reached Tier 2 or `ask` most often.
    Suggest {
        /// Append these suggestions (by number) to the rule files in SENTINEL_HOME.
        #[arg(long, num_args = 1..)]
        apply: Vec<usize>,
        /// How many suggestions to list.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove exactly what install added to the settings file.
    Uninstall {
        /// The agent whose file to remove sentinel from (as for install).
        #[arg(long, value_enum, default_value = "claude")]
        agent: SetupAgent,
        /// The settings file [default: by --agent and --scope].
        #[arg(long)]
        settings: Option<PathBuf>,
        /// user: ~/.claude/settings.json; project: ./.claude/settings.json; local:
        /// ./.claude/settings.local.json.
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
        /// Also remove the settings backup, a settings file left empty, SENTINEL_HOME (rules,
        /// stats, audit log) and the installed binary; switch off the Claude Code plugin, whose
        /// hook runs that binary.
        #[arg(long)]
        purge: bool,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write one self-contained HTML page of what sentinel decided: decisions per day by tier,
    /// prompts avoided, what it denied and deferred most (with the rule that would settle it),
    /// Tier 2's cost. No network, no server: open the file.
    Report {
        /// The file to write [default: SENTINEL_HOME/report.html].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Only decisions newer than this: 30m, 2h, 7d, a Unix time in seconds, or `all`
        /// [default: 7d].
        #[arg(long)]
        since: Option<String>,
        /// Print the report's numbers as JSON instead.
        #[arg(long)]
        json: bool,
        /// Read the stats and the audit log whole, without the summary the report keeps of them
        /// (SENTINEL_HOME/report-summary.json; neither read nor written).
        #[arg(long, conflicts_with = "otlp")]
        whole: bool,
        /// The team view instead: read the decisions many machines exported, as a collector's
        /// file exporter writes them (one OTLP JSON logs request a line), and show them per
        /// host, user and project with the rules that denied and asked most (docs/teams.md).
        #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with = "out")]
        otlp: Vec<PathBuf>,
    },
    /// One line for Claude Code's status bar (reads the status-line JSON on stdin): the mode,
    /// Tier 2, and this session's answers.
    Statusline,
    /// Print a shell completion script: `sentinel completions bash > /etc/bash_completion.d/sentinel`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Run a command fenced (Linux: Landlock, seccomp, namespaces): writes that last only in the
    /// project and the tool caches (the home and temp dirs are its own copies); credential
    /// places hidden; no network but its own
    /// loopback, the given loopback ports and, with --registries, the package registries. The
    /// hook rewrites runs of project code to this.
    Contain {
        /// The project: the one folder tree it may write besides temp dirs and caches.
        #[arg(long)]
        project: PathBuf,
        /// A loopback TCP port of this machine to reach from inside (repeatable).
        #[arg(long = "port")]
        ports: Vec<u16>,
        /// Reach the package registries of rules/contain/registries.txt (and nothing else
        /// outside) through sentinel's proxy: HTTPS_PROXY and its kin are set for the command.
        #[arg(long)]
        registries: bool,
        /// Print the fence as JSON instead of running anything.
        #[arg(long)]
        plan: bool,
        /// The command and its arguments.
        #[arg(last = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// Check that sentinel is in the way of every call it should judge: registration, binary,
    /// matcher, rules, configuration, SENTINEL_HOME, Tier 2. Exit 1 when something is wrong.
    Doctor {
        /// Check this agent's registration instead of Claude Code's (as for install).
        #[arg(long, value_enum, default_value = "claude")]
        agent: SetupAgent,
        /// The settings file [default: by --agent and --scope].
        #[arg(long)]
        settings: Option<PathBuf>,
        /// Which settings file to look in (as for install).
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
        /// Print the checks as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum AuditCommand {
    /// Check the hash chain; name the first broken record.
    Verify {
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the latest records.
    Tail {
        /// How many.
        #[arg(short = 'n', default_value_t = 20)]
        n: usize,
        /// One JSON record a line, as stored.
        #[arg(long)]
        json: bool,
    },
}

/// The agents `install`, `uninstall` and `doctor` set up.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SetupAgent {
    Claude,
    Codex,
    Gemini,
    Cursor,
    Copilot,
}

impl SetupAgent {
    /// The agent besides Claude Code, or None for Claude Code.
    pub fn target(self) -> Option<sentinel::agents::setup::Target> {
        use sentinel::agents::setup::Target;
        match self {
            SetupAgent::Claude => None,
            SetupAgent::Codex => Some(Target::Codex),
            SetupAgent::Gemini => Some(Target::Gemini),
            SetupAgent::Cursor => Some(Target::Cursor),
            SetupAgent::Copilot => Some(Target::Copilot),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    User,
    Project,
    Local,
}

#[derive(Subcommand)]
pub enum RulesCommand {
    /// Load every rule file and report each bad line as `file:line: error`.
    Lint {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// What your rule files change against the bundled defaults: lines added, bundled rules
    /// switched off (`off: PATTERN`), untouched seeded copies that are ignored.
    Diff {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}
