//! The `sentinel` command line: maps subcommands onto the library and results onto exit codes.

/// `println!` that a closed stdout (`sentinel config | head -1`) does not turn into a panic: the
/// rest of the output is dropped and the command ends with its own exit status.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `print!`, likewise.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use sentinel::config::Config;
use sentinel::decide::Context;
use sentinel::decision::Decision;
use sentinel::event::Agent;
use sentinel::event::ToolCall;
use sentinel::paths::RealFs;
use sentinel::project::Layered;
use sentinel::project::{self, Project};
use sentinel::rules::{RuleFile, Rules};
use sentinel::{
    allow_once, audit, check, config, explain, hook, install, record, stats, suggest, tiers,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// A pre-tool-use hook that guards AI coding agents.
#[derive(Parser)]
#[command(
    name = "sentinel",
    version,
    about,
    after_help = "Exit status: 0 allow / success, 2 deny (check; hook only on an error under fail_mode closed),
3 uncertain or ask (check), 1 usage,
configuration or load error (doctor: something is wrong).

Environment:
  SENTINEL_HOME       rule files, specs, sentinel.toml, stats and audit [default: ~/.agentos]
  SENTINEL_API_KEY    Tier 2's key (else ANTHROPIC_API_KEY); no key: Tier 2 is off
  SENTINEL_API_URL    Tier 2's base URL (else [api] url, ANTHROPIC_BASE_URL, api.anthropic.com)
  SENTINEL_FAIL_MODE  open | closed | ask, over sentinel.toml's fail_mode
  SENTINEL_SHADOW     1: decide and record only, never interfere
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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decide a command (or a file tool call) as if the agent proposed it.
    Check {
        #[command(flatten)]
        question: Question,
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
    /// Tier distribution, API calls, errors and latency, from the stats.
    Stats {
        /// One session [default: the most recent one].
        #[arg(long, conflicts_with = "all")]
        session: Option<String>,
        /// Every session.
        #[arg(long)]
        all: bool,
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
    /// Register the hook in Claude Code's settings and seed SENTINEL_HOME.
    Install {
        /// Register in shadow mode (decide and record, never interfere).
        #[arg(long)]
        shadow: bool,
        /// The settings file [default: by --scope].
        #[arg(long)]
        settings: Option<PathBuf>,
        /// user: ~/.claude/settings.json; project: ./.claude/settings.json (committed, so the
        /// hook names `sentinel` on PATH, no machine path); local: ./.claude/settings.local.json.
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
    },
    /// Trust this project's `.sentinel/` rules as they are now (its loosening rules then apply).
    Trust {
        /// The project directory [default: the nearest with .sentinel/ at or above the current one].
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Forget the trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// Let exactly one refused call through, once, within 10 minutes (the code is in the deny reason).
    AllowOnce {
        /// The code from the deny reason.
        code: String,
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
        /// The settings file [default: by --scope].
        #[arg(long)]
        settings: Option<PathBuf>,
        /// user: ~/.claude/settings.json; project: ./.claude/settings.json; local:
        /// ./.claude/settings.local.json.
        #[arg(long, value_enum, default_value = "user")]
        scope: Scope,
        /// Also remove the settings backup, a settings file left empty, SENTINEL_HOME (rules,
        /// stats, audit log) and the installed binary.
        #[arg(long)]
        purge: bool,
    },
    /// Check that sentinel is in the way of every call it should judge: registration, binary,
    /// matcher, rules, configuration, SENTINEL_HOME, Tier 2. Exit 1 when something is wrong.
    Doctor {
        /// The settings file [default: by --scope].
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
enum AuditCommand {
    /// Check the hash chain; name the first broken record.
    Verify,
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

#[derive(Clone, Copy, clap::ValueEnum)]
enum Scope {
    User,
    Project,
    Local,
}

#[derive(Subcommand)]
enum RulesCommand {
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

fn main() -> ExitCode {
    // The hook runs once per tool call: its few arguments are read by hand, since building
    // clap's whole command tree costs more than the rest of a start-up. Anything else, or
    // anything unexpected after `hook`, goes to clap (which reports it).
    if let Some((agent, shadow)) = hook_args(std::env::args_os().skip(1)) {
        return ExitCode::from(run_hook(agent, shadow));
    }
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

/// `hook [--agent NAME|--agent=NAME] [--shadow]`, each at most once; None for anything else.
fn hook_args(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<(Agent, bool)> {
    if args.next()? != "hook" {
        return None;
    }
    let (mut agent, mut shadow) = (None, false);
    while let Some(arg) = args.next() {
        let arg = arg.into_string().ok()?;
        let name = match arg.as_str() {
            "--shadow" if !shadow => {
                shadow = true;
                continue;
            }
            "--agent" => args.next()?.into_string().ok()?,
            a => a.strip_prefix("--agent=")?.to_string(),
        };
        if agent.is_some() {
            return None;
        }
        agent = Some(Agent::parse(&name)?);
    }
    Some((agent.unwrap_or(Agent::Claude), shadow))
}

/// `sentinel hook`: one event on stdin, the answer on stdout.
fn run_hook(agent: Agent, shadow: bool) -> u8 {
    let out = hook::run(agent, shadow, &mut std::io::stdin().lock());
    if out.for_terminal && hook::to_terminal(&out.stderr) {
        return 0;
    }
    // A closed pipe is the agent's business; the exit status still says what happened.
    let _ = std::io::stdout().lock().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
    out.exit
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Check { question, json } => run_check(question, json),
        Command::Rules {
            command: RulesCommand::Lint { json },
        } => run_lint(json),
        Command::Rules {
            command: RulesCommand::Diff { json },
        } => run_rules_diff(json),
        Command::Hook { agent, shadow } => Ok(run_hook(agent, shadow)),
        Command::Config { json } => run_config(json),
        Command::Stats {
            session,
            all,
            since,
            json,
        } => run_stats(session, all, since, json),
        Command::Audit {
            command: AuditCommand::Verify,
        } => run_audit_verify(),
        Command::Audit {
            command: AuditCommand::Tail { n, json },
        } => run_audit_tail(n, json),
        Command::Install {
            shadow,
            settings,
            scope,
        } => run_install(shadow, settings, scope),
        Command::Uninstall {
            settings,
            scope,
            purge,
        } => run_uninstall(settings, scope, purge),
        Command::Doctor {
            settings,
            scope,
            json,
        } => run_doctor(settings, scope, json),
        Command::Trust { dir, revoke } => run_trust(dir, revoke),
        Command::AllowOnce { code } => run_allow_once(&code),
        Command::Explain { question, json } => run_explain(question, json),
        Command::Suggest { apply, limit, json } => run_suggest(&apply, limit, json),
    }
}

fn load_config() -> Result<Config> {
    Config::load_for_process().context("cannot find a home directory; set SENTINEL_HOME")
}

fn run_config(json: bool) -> Result<u8> {
    let config = load_config()?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&config)?);
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
            outln!("{key:<width$}  {value:<vwidth$}  {source}");
        }
        for e in &config.errors {
            outln!("error: {e}");
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
        (None, Scope::Local) => std::env::current_dir()?.join(".claude/settings.local.json"),
    })
}

/// The commands that loosen the guard refuse to run inside an agent's own shell: the hook stops
/// the agent from running them by name, and this stops a renamed copy.
fn person_only(what: &str) -> Result<()> {
    for var in ["CLAUDECODE", "GEMINI_CLI"] {
        if std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
            bail!(
                "`sentinel {what}` must be run by the person in their own terminal, not inside an agent session ({var} is set)"
            );
        }
    }
    Ok(())
}

fn run_trust(dir: Option<PathBuf>, revoke: bool) -> Result<u8> {
    person_only("trust")?;
    let config = load_config()?;
    let home = &config.home.value;
    let start = match dir {
        Some(d) => std::path::absolute(&d).with_context(|| format!("bad --dir {}", d.display()))?,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let Some(project) = Project::find(&start, home) else {
        bail!(
            "no {}/ directory at or above {}",
            project::DIR,
            start.display()
        );
    };
    let dir = project.root.join(project::DIR);
    let now = sentinel::budget::now_ms();
    if revoke {
        let was = project::revoke(&project.root, home).with_context(|| {
            format!("cannot update {}", home.join(project::TRUST_FILE).display())
        })?;
        audit_person(
            &config,
            "trust --revoke",
            &dir.display().to_string(),
            "revoked",
            "the person revoked trust in the project's loosening rules",
        );
        outln!(
            "{} {}; its loosening rules no longer apply",
            if was {
                "revoked trust in"
            } else {
                "was not trusted:"
            },
            dir.display()
        );
        return Ok(0);
    }
    if project.files.is_empty() {
        bail!(
            "{} holds none of {}",
            dir.display(),
            project::FILES.join(", ")
        );
    }
    let mut rules = Rules::load(home, config::user_home().as_deref());
    rules.add_project(&project, true);
    let errors: Vec<_> = rules
        .lint()
        .into_iter()
        .filter(|e| e.file.contains(project::DIR))
        .collect();
    if !errors.is_empty() {
        for e in &errors {
            outln!("{e}");
        }
        bail!("not trusted: fix the {} error(s) above first", errors.len());
    }
    let record = project::trust(&project, home, now)
        .with_context(|| format!("cannot update {}", home.join(project::TRUST_FILE).display()))?;
    let digests: Vec<String> = record
        .files
        .iter()
        .map(|(name, digest)| format!("{name} {}", &digest[..12]))
        .collect();
    audit_person(
        &config,
        "trust",
        &dir.display().to_string(),
        "trusted",
        &format!(
            "the person trusted {} ({})",
            dir.display(),
            digests.join(", ")
        ),
    );
    outln!(
        "trusted {} as of {} UTC:",
        dir.display(),
        sentinel::audit::utc(now)
    );
    for f in &project.files {
        outln!("  {:<32} sha256 {}…", f.name, &f.sha256[..16]);
    }
    // What trusting changed: the loosening rules, listed so the person sees what they accepted.
    let mut untrusted = Rules::load(home, config::user_home().as_deref());
    untrusted.add_project(&project, false);
    let mut base = config.clone();
    let held = project
        .config()
        .map(|f| base.add_project(f.text.as_deref().map_err(String::as_str), false))
        .unwrap_or_default();
    if untrusted.suspended.is_empty() && held.is_empty() {
        outln!("it holds only tightening rules; those applied before and still do");
    } else {
        outln!(
            "these loosen what sentinel allows in {} and now apply:",
            project.root.display()
        );
        for r in &untrusted.suspended {
            outln!("  {r}  {}", r.pattern);
        }
        for h in &held {
            outln!("  {h}");
        }
    }
    outln!("any change to these files suspends them until you run `sentinel trust` again");
    Ok(0)
}

fn run_allow_once(code: &str) -> Result<u8> {
    person_only("allow-once")?;
    let config = load_config()?;
    let now = sentinel::budget::now_ms();
    match allow_once::grant(&config.home.value, code, now) {
        Ok(granted) => {
            audit_person(
                &config,
                &granted.tool,
                &granted.subject,
                "allow-once",
                &format!(
                    "the person granted allow-once {} for this call in {}, valid until {} UTC",
                    granted.code,
                    granted.cwd,
                    sentinel::audit::utc(now + allow_once::TTL_MS)
                ),
            );
            outln!(
                "allowed once, until {} UTC:",
                sentinel::audit::utc(now + allow_once::TTL_MS)
            );
            outln!("  tool     {}", granted.tool);
            outln!(
                "  {:<8} {}",
                if granted.tool == "Bash" || granted.tool == "PowerShell" {
                    "command"
                } else {
                    "path"
                },
                granted.subject
            );
            outln!("  cwd      {}", granted.cwd);
            outln!("  refused  {}", granted.reason);
            outln!("the agent's next identical call runs; any other call is decided as usual");
            Ok(0)
        }
        Err(e) => {
            eprintln!("sentinel: {e}");
            Ok(1)
        }
    }
}

/// One audit record of something the person did (trust, allow-once), chained like decisions.
fn audit_person(config: &Config, tool: &str, subject: &str, verdict: &str, reason: &str) {
    let entry = sentinel::audit::Entry {
        ts_ms: sentinel::budget::now_ms(),
        session: String::new(),
        agent: "person".into(),
        tool: tool.to_string(),
        subject: subject.to_string(),
        cwd: std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        tier: "person".into(),
        verdict: verdict.to_string(),
        reason: reason.to_string(),
        rule: None,
        shadow: false,
    };
    let journal = sentinel::audit::journal(&config.home.value, config.log_max_bytes.value);
    if let Err(e) = sentinel::audit::append(&journal, &entry) {
        eprintln!("sentinel: warning: not in the audit log ({e})");
    }
}

fn run_install(shadow: bool, settings: Option<PathBuf>, scope: Scope) -> Result<u8> {
    person_only("install")?;
    let config = load_config()?;
    let explicit = settings.is_some();
    let settings = settings_path(settings, scope)?;
    // A project's settings file is committed: it names `sentinel` as found on PATH, never this
    // machine's path.
    let binary = match scope {
        Scope::Project if !explicit => PathBuf::from("sentinel"),
        _ => std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .context("cannot find sentinel's own path")?,
    };
    let timeout = config.hook_timeout_secs();
    let report = install::install(&settings, &binary, shadow, timeout, &config.home.value)?;
    let mode = if shadow { " in shadow mode" } else { "" };
    if report.changed {
        outln!(
            "registered {}{mode} in {}",
            binary.display(),
            report.settings.display()
        );
    } else {
        outln!("already registered{mode} in {}", report.settings.display());
    }
    if let Some(b) = &report.backup {
        outln!("backup of the previous file: {}", b.display());
    }
    for p in &report.seeded {
        outln!("seeded {}", p.display());
    }
    Ok(0)
}

fn run_uninstall(settings: Option<PathBuf>, scope: Scope, purge: bool) -> Result<u8> {
    person_only("uninstall")?;
    let config = load_config()?;
    let settings = settings_path(settings, scope)?;
    let report = install::uninstall(&settings, &config.home.value)?;
    if report.changed {
        outln!("removed sentinel from {}", report.settings.display());
    } else {
        outln!(
            "sentinel was not registered in {}",
            report.settings.display()
        );
    }
    if !purge {
        if let Some(b) = &report.backup {
            outln!("backup of the previous file: {}", b.display());
        }
        return Ok(0);
    }
    for removed in install::purge(&settings, &config.home.value)? {
        outln!("removed {}", removed.display());
    }
    Ok(0)
}

fn run_doctor(settings: Option<PathBuf>, scope: Scope, json: bool) -> Result<u8> {
    let config = load_config()?;
    let settings = settings_path(settings, scope)?;
    let rules = Rules::load(&config.home.value, config::user_home().as_deref());
    let checks = sentinel::doctor::run(&settings, &config, &rules, sentinel::doctor::on_path());
    let failed = checks
        .iter()
        .any(|c| c.status == sentinel::doctor::Status::Fail);
    if json {
        outln!("{}", serde_json::json!({ "ok": !failed, "checks": checks }));
    } else {
        for c in &checks {
            let mark = match c.status {
                sentinel::doctor::Status::Ok => "ok  ",
                sentinel::doctor::Status::Warn => "warn",
                sentinel::doctor::Status::Fail => "FAIL",
            };
            outln!("{mark}  {:<8} {}", c.name, c.detail);
            if let Some(fix) = &c.fix {
                outln!("                fix: {fix}");
            }
        }
    }
    Ok(u8::from(failed))
}

/// A call decided as `sentinel check` and `sentinel explain` see it.
struct Evaluated {
    layered: Layered,
    call: ToolCall,
    cwd: PathBuf,
    user_home: Option<PathBuf>,
    /// Tier 1's decision (None: no opinion on this tool).
    local: Option<Decision>,
    /// The answer after every tier (or Tier 1's own with --offline).
    decision: Option<Decision>,
}

/// What `check` and `explain` are asked about: one call, as the agent would propose it.
#[derive(clap::Args)]
struct Question {
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
    /// Decide as in a session that has taken in untrusted content (web pages, MCP output).
    #[arg(long)]
    tainted: bool,
    /// Decide as under this Claude Code permission mode (default, acceptEdits, plan, auto,
    /// dontAsk, bypassPermissions): with `on_uncertain = auto`, an uncertain call is deferred
    /// where the agent has a gate of its own. Without it, an uncertain call asks.
    #[arg(long, value_name = "MODE")]
    permission_mode: Option<String>,
}

fn evaluate(q: Question) -> Result<Evaluated> {
    let config = load_config()?;
    let user_home = config::user_home();
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
    let layered = Layered::load(&config, &cwd, user_home.as_deref());
    let taint = q.tainted.then(|| sentinel::taint::Taint {
        marks: vec![sentinel::taint::Mark {
            tool: "sentinel check --tainted".into(),
            ts_ms: sentinel::budget::now_ms(),
        }],
    });
    let ctx = Context::new(
        &cwd,
        user_home.as_deref(),
        &config.home.value,
        &RealFs,
        taint.as_ref(),
    )
    .with_project(&sentinel::project::root(
        &cwd,
        sentinel::project::named_by_agent().as_deref(),
    ));
    let local = layered.decide(&call, &ctx, user_home.as_deref());
    // --offline shows Tier 1's own verdict; otherwise the call goes through every tier.
    let decision = if q.offline {
        local.clone()
    } else {
        let session = tiers::Session {
            id: None,
            permission_mode: q.permission_mode.as_deref(),
            transcript: None,
        };
        tiers::resolve(local.clone(), &call, &layered.config, &session)
    };
    Ok(Evaluated {
        layered,
        call,
        cwd,
        user_home,
        local,
        decision,
    })
}

fn run_check(q: Question, json: bool) -> Result<u8> {
    let started = std::time::Instant::now();
    let tool = q.tool.clone();
    let e = evaluate(q)?;
    for err in &e.layered.rules.errors {
        eprintln!("sentinel: rule error: {err}");
    }
    for err in &e.layered.config.errors {
        eprintln!("sentinel: config error: {err}");
    }
    if let Some(local) = &e.local {
        let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let meta = record::Meta {
            session: "check",
            agent: "check",
            latency_us,
            shadow: false,
        };
        if let Some(warning) = record::record(
            &e.layered.config,
            &e.call,
            local,
            e.decision.as_ref(),
            &meta,
        ) {
            eprintln!("{warning}");
        }
    }
    match (&e.decision, json) {
        (Some(d), true) => outln!("{}", serde_json::to_string_pretty(d)?),
        (Some(d), false) => out!("{}", check::render(d)),
        (None, true) if e.local.is_some() => outln!(
            "{}",
            serde_json::json!({ "verdict": "defer", "tool": tool, "reason": check::DEFERRED, "local": e.local })
        ),
        (None, false) if e.local.is_some() => out!(
            "{}",
            check::render_deferred(e.local.as_ref().expect("checked"))
        ),
        (None, true) => outln!(
            "{}",
            serde_json::json!({ "verdict": null, "tool": tool, "reason": "sentinel has no opinion on this tool; the agent's own permission flow decides" })
        ),
        (None, false) => outln!(
            "verdict: none\nreason:  sentinel has no opinion on {tool}; the agent's own permission flow decides"
        ),
    }
    Ok(check::exit_code(e.decision.map(|d| d.verdict)) as u8)
}

fn run_explain(q: Question, json: bool) -> Result<u8> {
    let offline = q.offline;
    let tool = q.tool.clone();
    let subject = q
        .command
        .clone()
        .or_else(|| q.path.clone())
        .unwrap_or_default();
    let e = evaluate(q)?;
    let explanation = explain::explain(&explain::Inputs {
        call: &e.call,
        layered: &e.layered,
        tool: &tool,
        subject: &subject,
        cwd: &e.cwd,
        home: e.user_home.as_deref(),
        fs: &RealFs,
        local: e.local.as_ref(),
        decision: e.decision.as_ref(),
        offline,
    });
    if json {
        outln!("{}", serde_json::to_string_pretty(&explanation)?);
    } else {
        out!("{}", explain::render(&explanation));
    }
    Ok(check::exit_code(e.decision.map(|d| d.verdict)) as u8)
}

fn run_suggest(apply: &[usize], limit: usize, json: bool) -> Result<u8> {
    if !apply.is_empty() {
        person_only("suggest --apply")?;
    }
    let config = load_config()?;
    let home = &config.home.value;
    let user_home = config::user_home();
    let loaded = stats::load(&stats::journal(home, config.log_max_bytes.value))
        .context("cannot read the stats")?;
    let audit_records = audit::tail(
        &audit::journal(home, config.log_max_bytes.value),
        usize::MAX,
    )
    .context("cannot read the audit log")?;
    let rules = Rules::load(home, user_home.as_deref());
    let limit = limit.max(apply.iter().copied().max().unwrap_or(0));
    let found = suggest::suggest(
        &loaded.records,
        &audit_records,
        &rules,
        user_home.as_deref(),
        home,
        limit,
    );
    if apply.is_empty() {
        if json {
            outln!("{}", serde_json::to_string_pretty(&found)?);
            return Ok(0);
        }
        if found.is_empty() {
            outln!(
                "nothing to suggest: no command reached Tier 2 or ask that a rule could settle ({} decisions read)",
                loaded.records.len()
            );
            return Ok(0);
        }
        for s in &found {
            let file = s.kind.file().name();
            outln!(
                "{:>3}. {:<5} {}   → {file}",
                s.number,
                format!("{:?}", s.kind).to_lowercase(),
                s.pattern
            );
            outln!("       evidence: {}", s.evidence.line());
            for said in &s.evidence.evaluator_said {
                outln!("       evaluator: \"{said}\"");
            }
            for e in &s.evidence.examples {
                outln!("       e.g. {}", sentinel::shell::excerpt(e));
            }
        }
        outln!();
        outln!(
            "apply with: sentinel suggest --apply N [N…] (appends to the rule files in {})",
            home.display()
        );
        return Ok(0);
    }
    let mut chosen = Vec::new();
    for n in apply {
        match found.iter().find(|s| s.number == *n) {
            Some(s) => chosen.push(s),
            None => bail!("no suggestion {n}: run `sentinel suggest` to see the list"),
        }
    }
    let date = audit::utc(sentinel::budget::now_ms());
    let date = date.split(' ').next().unwrap_or(&date).to_string();
    match suggest::apply(home, &chosen, &date, user_home.as_deref()) {
        Ok(applied) => {
            for (path, n) in &applied.files {
                outln!("appended {n} rule(s) to {}", path.display());
            }
            for s in &chosen {
                outln!("  {}  {}  ({})", s.number, s.pattern, s.evidence.line());
                audit_person(
                    &config,
                    "suggest --apply",
                    &s.pattern,
                    "rule added",
                    &format!(
                        "the person added a {} rule to {}: {}",
                        format!("{:?}", s.kind).to_lowercase(),
                        s.kind.file().name(),
                        s.evidence.line()
                    ),
                );
            }
            outln!("`sentinel rules lint` passes; the next decision uses them");
            Ok(0)
        }
        Err(e) => {
            eprintln!("sentinel: {e}");
            Ok(1)
        }
    }
}

fn run_lint(json: bool) -> Result<u8> {
    let home =
        config::sentinel_home().context("cannot find a home directory; set SENTINEL_HOME")?;
    let mut rules = Rules::load(&home, config::user_home().as_deref());
    // A project's .sentinel/ is linted whole, trusted or not: its errors are the person's to fix.
    if let Some(p) = std::env::current_dir()
        .ok()
        .and_then(|cwd| Project::find(&cwd, &home))
    {
        rules.add_project(&p, true);
    }
    let errors = rules.lint();
    let count = rules.hard_block().len()
        + rules.safe().len()
        + rules.conditional().len()
        + rules.safe_paths().len()
        + rules.excluded_paths().len();
    if json {
        let report = serde_json::json!({
            "ok": errors.is_empty(),
            "rules": count,
            "errors": errors.iter().map(|e| serde_json::json!({
                "file": e.file, "line": e.line, "message": e.message,
            })).collect::<Vec<_>>(),
            "files": rules.origins.iter().map(|(file, origin)| serde_json::json!({
                "file": file, "origin": origin,
            })).collect::<Vec<_>>(),
        });
        outln!("{report}");
        return Ok(if errors.is_empty() { 0 } else { 1 });
    }
    for e in &errors {
        outln!("{e}");
    }
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

fn run_rules_diff(json: bool) -> Result<u8> {
    let home =
        config::sentinel_home().context("cannot find a home directory; set SENTINEL_HOME")?;
    let rules = Rules::load(&home, config::user_home().as_deref());
    let layer_of = |file: RuleFile| rules.layers.iter().find(|l| l.file == Some(file));
    if json {
        let files: Vec<_> = RuleFile::ALL
            .iter()
            .map(|&file| match layer_of(file) {
                None => serde_json::json!({"file": file.name(), "layer": "bundled"}),
                Some(l) => serde_json::json!({
                    "file": file.name(),
                    "layer": if l.seeded_copy { "seeded-copy-ignored" } else { "bundled+person" },
                    "origin": l.origin,
                    "added": l.added.iter().map(|(line, p)| serde_json::json!({"line": line, "pattern": p})).collect::<Vec<_>>(),
                    "switched_off": l.switched_off.iter().map(|(line, bl, p)| serde_json::json!({"line": line, "bundled_line": bl, "pattern": p})).collect::<Vec<_>>(),
                    "unmatched_off": l.unmatched_off.iter().map(|(line, p)| serde_json::json!({"line": line, "pattern": p})).collect::<Vec<_>>(),
                }),
            })
            .collect();
        outln!("{}", serde_json::json!({ "files": files }));
        return Ok(0);
    }
    for file in RuleFile::ALL {
        match layer_of(file) {
            None => outln!("{}: bundled only", file.name()),
            Some(l) if l.seeded_copy => outln!(
                "{}: {} is an unchanged copy of an earlier bundled file: ignored, this version's bundled rules apply (delete it, or keep only your own lines)",
                file.name(),
                l.origin
            ),
            Some(l) => {
                outln!(
                    "{}: bundled + {} ({} added, {} bundled switched off)",
                    file.name(),
                    l.origin,
                    l.added.len(),
                    l.switched_off.len()
                );
                for (line, pattern) in &l.added {
                    outln!("  + line {line}: {pattern}");
                }
                for (line, bundled_line, pattern) in &l.switched_off {
                    outln!(
                        "  - line {line}: off: bundled {}:{bundled_line} {pattern}",
                        file.name()
                    );
                }
                for (line, pattern) in &l.unmatched_off {
                    outln!(
                        "  ? line {line}: `off: {pattern}` matches no bundled rule of this version (it changed or went away)"
                    );
                }
            }
        }
    }
    Ok(0)
}

/// `30m`, `2h`, `7d`, `45s`, or a Unix time in seconds → ms since the epoch.
fn parse_since(text: &str) -> Result<u64> {
    let now = sentinel::budget::now_ms();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = number
        .parse()
        .with_context(|| format!("--since {text}: expected 30m, 2h, 7d or a Unix time"))?;
    let ms = match unit {
        "" => return Ok(n * 1000),
        "s" => n * 1000,
        "m" => n * 60_000,
        "h" => n * 3_600_000,
        "d" => n * 86_400_000,
        _ => bail!("--since {text}: the unit must be s, m, h or d"),
    };
    Ok(now.saturating_sub(ms))
}

fn duration(us: u64) -> String {
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => format!("{:.1} ms", us as f64 / 1e3),
        _ => format!("{:.2} s", us as f64 / 1e6),
    }
}

fn run_stats(session: Option<String>, all: bool, since: Option<String>, json: bool) -> Result<u8> {
    let config = load_config()?;
    let journal = stats::journal(&config.home.value, config.log_max_bytes.value);
    let loaded = stats::load(&journal).context("cannot read the stats")?;
    if !loaded.damaged.is_empty() {
        eprintln!(
            "sentinel: warning: {} damaged stats line(s) skipped: {}",
            loaded.damaged.len(),
            loaded.damaged.join(", ")
        );
    }
    let since_ms = since.as_deref().map(parse_since).transpose()?;
    let mut records: Vec<&stats::Record> = loaded
        .records
        .iter()
        .filter(|r| since_ms.is_none_or(|s| r.ts_ms >= s))
        .collect();
    let scope = match (&session, all) {
        (Some(id), _) => {
            records.retain(|r| &r.session == id);
            format!("session {id}")
        }
        (None, true) => {
            let sessions: std::collections::BTreeSet<&str> =
                records.iter().map(|r| r.session.as_str()).collect();
            format!("all sessions ({})", sessions.len())
        }
        (None, false) => match records.last().map(|r| r.session.clone()) {
            Some(id) => {
                records.retain(|r| r.session == id);
                format!("session {id} (the most recent; --all for every session)")
            }
            None => "no decisions recorded yet".to_string(),
        },
    };
    let summary = stats::summarize(records.iter().copied());
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "scope": scope, "summary": summary })
            )?
        );
        return Ok(0);
    }
    outln!("{scope}");
    if let (Some(first), Some(last)) = (records.first(), records.last()) {
        outln!(
            "from {} to {} UTC",
            audit::utc(first.ts_ms),
            audit::utc(last.ts_ms)
        );
    }
    outln!("{}", summary.line());
    outln!();
    outln!(
        "{:<7} {:>9} {:>7} {:>10} {:>10} {:>10}",
        "tier",
        "decisions",
        "share",
        "mean",
        "p50",
        "p95"
    );
    for (tier, l) in &summary.latency {
        let share = 100.0 * l.count as f64 / summary.checks.max(1) as f64;
        outln!(
            "{tier:<7} {:>9} {:>6.1}% {:>10} {:>10} {:>10}",
            l.count,
            share,
            duration(l.mean_us),
            duration(l.p50_us),
            duration(l.p95_us)
        );
    }
    outln!();
    outln!(
        "resolved locally: {:.1}%   api calls: {} (errors {}, {:.1} s, ~${:.4})",
        summary.local_resolution_pct,
        summary.api_calls,
        summary.api_error,
        summary.api_ms as f64 / 1000.0,
        summary.api_cost_usd
    );
    let t = &summary.api_tokens;
    if t.input + t.output > 0 {
        let answered = summary.api_allow + summary.api_block + summary.api_ask;
        outln!(
            "api tokens: {} in, {} out, cache read {}, written {}; ~${:.4} per evaluation",
            t.input,
            t.output,
            t.cache_read,
            t.cache_write,
            summary.api_cost_usd / answered.max(1) as f64
        );
    }
    if summary.deferred > 0 {
        outln!(
            "deferred to the agent's own permission flow: {} (on_uncertain)",
            summary.deferred
        );
    }
    if !summary.top_tier2.is_empty() {
        outln!("reached Tier 2 most often (candidates for a local rule):");
        for (subject, n) in &summary.top_tier2 {
            outln!("{n:>6}  {subject}");
        }
    }
    Ok(0)
}

fn run_audit_verify() -> Result<u8> {
    let config = load_config()?;
    let journal = audit::journal(&config.home.value, config.log_max_bytes.value);
    match audit::verify(&journal).context("cannot read the audit log")? {
        audit::Verification::Intact(n) => {
            outln!(
                "intact: {n} records in {} file(s), chain and head agree",
                journal.files().len()
            );
            Ok(0)
        }
        audit::Verification::Broken(why) => {
            outln!("broken: {why}");
            Ok(1)
        }
    }
}

fn run_audit_tail(n: usize, json: bool) -> Result<u8> {
    let config = load_config()?;
    let journal = audit::journal(&config.home.value, config.log_max_bytes.value);
    for r in audit::tail(&journal, n).context("cannot read the audit log")? {
        if json {
            outln!("{r}");
            continue;
        }
        if let Some(damaged) = r.get("damaged") {
            outln!("(damaged line) {damaged}");
            continue;
        }
        let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
        let rule = r["rule"]
            .as_str()
            .map(|x| format!("  [{x}]"))
            .unwrap_or_default();
        let shadow = if r["shadow"] == true { " (shadow)" } else { "" };
        outln!(
            "#{:<5} {}  {:<5} {:<6} {:<10} {}{rule}{shadow}",
            r["seq"].as_u64().unwrap_or(0),
            audit::utc(r["ts_ms"].as_u64().unwrap_or(0)),
            s("verdict"),
            s("tier"),
            s("tool"),
            sentinel::shell::excerpt(&s("subject")),
        );
        outln!("        session {}  {}", s("session"), s("reason"));
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_arguments_are_read_without_clap_and_anything_else_goes_to_clap() {
        let args = |a: &[&str]| hook_args(a.iter().map(std::ffi::OsString::from));
        assert_eq!(args(&["hook"]), Some((Agent::Claude, false)));
        assert_eq!(
            args(&["hook", "--agent", "gemini", "--shadow"]),
            Some((Agent::Gemini, true))
        );
        assert_eq!(
            args(&["hook", "--agent=cursor"]),
            Some((Agent::Cursor, false))
        );
        for other in [
            &["check", "ls"][..],
            &["hook", "--help"],
            &["hook", "--agent"],
            &["hook", "--agent", "vim"],
            &["hook", "--shadow", "--shadow"],
            &["hook", "--agent=claude", "--agent=gemini"],
            &["hook", "extra"],
        ] {
            assert_eq!(args(other), None, "{other:?}");
        }
        // Every agent clap knows is known here, by the same name.
        for a in Agent::ALL {
            use clap::ValueEnum as _;
            assert_eq!(
                a.to_possible_value().map(|v| v.get_name().to_string()),
                Some(a.as_str().to_string())
            );
        }
    }
}
