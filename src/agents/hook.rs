//! `sentinel hook`: one event in on stdin, one answer out on stdout, in the agent's protocol.
//!
//! This is the imperative shell around the pure decision: it reads the event (bounded), loads the
//! configuration and rules, runs Tier 1 ([`crate::decide`]) and the later tiers
//! ([`crate::evaluator::tiers`]), answers, then records the decision. sentinel catches its own
//! failures and decides on purpose what they mean: a bad event, a wrong-typed field, oversize
//! input, an unknown event or a panic is a one-line error on stderr and, for a call about to run,
//! an `ask` on stdout with exit 0 (Claude Code runs a call whose hook exits 1). None of them
//! produces an allow or lets the call through.

use crate::agents::event::{self, Agent, EventKind, HookEvent};
use crate::agents::lenient::{self, Looks};
use crate::agents::{after_call, session_end};
use crate::config::{Config, Mode};
use crate::decision::{Decision, Verdict};
use crate::question::{self, Purpose, Question, TaintFrom};
use crate::text::one_line;
use crate::{evaluator::tiers, ledger::record, ledger::secrets, ledger::taint};
use serde_json::json;
use std::io::Read;
use std::time::Instant;

/// What the hook process prints and exits with.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct HookOutput {
    /// The answer on stdout (empty: no opinion, shadow mode, or an error).
    pub stdout: String,
    /// One-line messages on stderr.
    pub stderr: String,
    /// The exit status.
    pub exit: u8,
    /// `stderr` is a message for the person, better shown on their terminal: when one can be
    /// opened, it goes there and the hook exits 0 (Claude Code labels a SessionEnd hook's
    /// stderr with exit 2 "failed"); without one, stderr and `exit` stand.
    pub for_terminal: bool,
}

/// Writes `text` to the person's terminal; false when none is found or it cannot be written, so
/// the caller falls back to stderr. Claude Code runs hooks without a controlling terminal, so
/// after `/dev/tty` the terminal is looked for where the agent itself writes: the stderr or
/// stdout of the agent's process `agent_pid`, when that is a terminal device (Linux `/proc`).
pub fn to_terminal(text: &str, agent_pid: u32) -> bool {
    use std::io::Write as _;
    if std::env::var_os("SENTINEL_NO_TTY").is_some() {
        return false;
    }
    let open = |p: &std::path::Path| std::fs::OpenOptions::new().write(true).open(p);
    if let Ok(mut tty) = open(std::path::Path::new("/dev/tty")) {
        return tty.write_all(text.as_bytes()).is_ok();
    }
    // Only the agent itself, the hook's parent: further up is whoever started the agent, whose
    // terminal is not where the agent shows its session.
    let pid = agent_pid;
    for fd in [2, 1] {
        let Ok(target) = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")) else {
            continue;
        };
        let device = target.to_string_lossy();
        if (device.starts_with("/dev/pts/") || device.starts_with("/dev/tty"))
            && let Ok(mut tty) = open(&target)
        {
            return tty.write_all(text.as_bytes()).is_ok();
        }
    }
    false
}

/// Where the answer goes as soon as it is known, before the bookkeeping: a crash or a kill while
/// the stats and audit are written must find the answer already given. Called at most once.
pub struct Answer<'a> {
    emit: &'a mut dyn FnMut(&str),
    silence: &'a dyn Fn(),
    /// Told the event's kind as soon as it is read (the watchdog gives a SessionEnd less time).
    told: Option<&'a dyn Fn(&EventKind)>,
    given: bool,
}

impl<'a> Answer<'a> {
    /// An answer that `emit` writes out; `silence` is called when the configuration turns out
    /// to ask for shadow mode (so a last-resort answer prepared before it is dropped).
    pub fn new(emit: &'a mut dyn FnMut(&str), silence: &'a dyn Fn()) -> Answer<'a> {
        Answer {
            emit,
            silence,
            told: None,
            given: false,
        }
    }

    /// The same, and `told` is called with the event's kind once it is read.
    pub fn telling_kind(mut self, told: &'a dyn Fn(&EventKind)) -> Answer<'a> {
        self.told = Some(told);
        self
    }

    fn give(&mut self, text: &str) {
        if !self.given && !text.is_empty() {
            self.given = true;
            (self.emit)(text);
        }
    }
}

/// Runs the hook on one event read from `input`, for a process started at `started` (the
/// decision's latency counts from there); the answer goes to `answer` (the returned output
/// carries stderr and the exit status). Never panics, and never fails open: whatever
/// goes wrong while judging a call about to run is answered `ask` with the reason (silence in
/// shadow mode), exit 0.
pub fn run(
    agent: Agent,
    shadow_flag: bool,
    input: &mut dyn Read,
    answer: &mut Answer<'_>,
    started: Instant,
) -> HookOutput {
    let Some(config) = Config::load_for_process() else {
        return failed(
            agent,
            shadow_flag,
            None,
            "cannot find a home directory; set SENTINEL_HOME".into(),
            None,
            answer,
        );
    };
    let shadow = shadow_of(&config, shadow_flag);
    if shadow {
        (answer.silence)();
    }
    let bytes = match read_bounded(input, config.max_event_bytes.value) {
        Ok(bytes) => bytes,
        Err((message, prefix)) => {
            let raw = String::from_utf8_lossy(&prefix).into_owned();
            return with_config_errors(
                failed(agent, shadow, Some(&config), message, Some(&raw), answer),
                &config,
            );
        }
    };

    // The default panic message is several lines on stderr; one line of our own replaces it.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handle(agent, shadow, &config, &bytes, started, answer)
    }));
    std::panic::set_hook(previous_hook);

    let out = match result {
        Ok(Ok(out)) => out,
        Ok(Err(message)) => {
            let raw = String::from_utf8_lossy(&bytes);
            failed(agent, shadow, Some(&config), message, Some(&raw), answer)
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let raw = String::from_utf8_lossy(&bytes);
            failed(
                agent,
                shadow,
                Some(&config),
                format!("internal error: {}", one_line(&what)),
                Some(&raw),
                answer,
            )
        }
    };
    with_config_errors(out, &config)
}

/// Whether the hook runs in shadow mode: the flag, or the person's configuration. A home
/// inside the agent's project is not the person's: its settings do not silence sentinel (the
/// rules it would load are refused in `Layered`).
fn shadow_of(config: &Config, shadow_flag: bool) -> bool {
    // The organisation's policy: a broken one never goes quiet; a pinned mode is the mode,
    // whatever the flag or the person's file say.
    if config.managed.is_some() {
        if config.managed_broken.is_some() {
            return false;
        }
        if crate::config::is_pinned(&config.mode) {
            return config.mode.value == Mode::Shadow;
        }
    }
    let named = crate::local::rules::project::named_by_agent();
    let foreign =
        crate::local::rules::project::home_inside_project(config, named.as_deref()).is_some();
    shadow_flag || (config.mode.value == Mode::Shadow && !foreign)
}

/// Records a call that was answered without being judged (the judging stalled or died, see
/// `cli::watchdog`): from what can be read of the event `raw`, as [`run`] records its own
/// failures (a call about to run: an `ask` in the stats and the audit; an untrusted tool that
/// ran: its session marked). Prints nothing: the answer was given already.
pub fn record_unjudged(agent: Agent, shadow_flag: bool, raw: &[u8], why: &str) {
    let Some(config) = Config::load_for_process() else {
        return;
    };
    let shadow = shadow_of(&config, shadow_flag);
    let raw = String::from_utf8_lossy(raw);
    let mut ignore = |_: &str| {};
    let mut answer = Answer::new(&mut ignore, &|| {});
    failed(
        agent,
        shadow,
        Some(&config),
        why.to_string(),
        Some(&raw),
        &mut answer,
    );
}

fn with_config_errors(mut out: HookOutput, config: &Config) -> HookOutput {
    for e in &config.errors {
        out.stderr
            .push_str(&format!("sentinel: config error: {e}\n"));
    }
    for w in &config.warnings {
        out.stderr.push_str(&format!("sentinel: warning: {w}\n"));
    }
    // What reaches the person's terminal shows the agent's text inert (crate::text).
    if let std::borrow::Cow::Owned(inert) = crate::text::inert_lines(&out.stderr) {
        out.stderr = inert;
    }
    out
}

/// The answer to a call sentinel could not judge, in the agent's shape: `ask`, with what went
/// wrong (Codex CLI and Gemini CLI, which have no ask, get a deny that says so). Also what the
/// last-resort signal handler prints.
pub fn unjudged(agent: Agent, why: &str) -> String {
    render(agent, &unjudged_decision("?", why))
}

/// The `ask` of a call of `tool` that sentinel could not judge, and why.
fn unjudged_decision(tool: &str, why: &str) -> Decision {
    Decision::local(
        tool,
        Verdict::Ask,
        format!(
            "sentinel[error]: this call was not checked ({}); the person decides",
            one_line(why)
        ),
        None,
    )
}

/// A failure, decided on purpose: what went wrong on one line on stderr, exit 0, and
/// - for a call about to run (or an event whose kind cannot be told): the `ask` of
///   [`unjudged`], recorded in the stats and the audit log like any decision;
/// - for a tool that has run: its session marked as carrying untrusted content when the tool is
///   an untrusted one or cannot be told (the matcher only sends those);
/// - otherwise nothing more.
///
/// Shadow mode prints no answer. `fail_mode` does not apply: it is about Tier 2, not about
/// sentinel's own failures.
fn failed(
    agent: Agent,
    shadow: bool,
    config: Option<&Config>,
    message: String,
    raw: Option<&str>,
    answer: &mut Answer<'_>,
) -> HookOutput {
    let sniffed = match raw {
        Some(raw) => lenient::sniff(raw),
        None => lenient::Sniffed {
            looks: Looks::PreToolUse,
            session: None,
            tool: None,
        },
    };
    let mut out = HookOutput {
        stderr: format!("sentinel: {}\n", one_line(&message)),
        ..HookOutput::default()
    };
    let session = sniffed.session.as_deref().unwrap_or("");
    match sniffed.looks {
        Looks::PreToolUse => {
            let text = unjudged(agent, &message);
            if !shadow {
                answer.give(&text);
            }
            let Some(config) = config else {
                return out;
            };
            let tool = sniffed.tool.clone().unwrap_or_else(|| "unknown".into());
            let exporting = crate::export::Exporting::default();
            let call = crate::call::ToolCall::Other { tool: tool.clone() };
            let d = unjudged_decision(&tool, &message);
            if let Some(warning) = record::record(
                config,
                &call,
                &d,
                Some(&d),
                &record::Meta {
                    session,
                    agent: agent.as_str(),
                    latency_us: 0,
                    shadow,
                    unkept: &[],
                    prompted: false,
                    also: Some(&|e| exporting.spool(config, e)),
                },
            ) {
                out.stderr.push_str(&warning);
                out.stderr.push('\n');
            }
            exporting.send_if_due(config);
        }
        Looks::PostToolUse => {
            let Some(config) = config else {
                return out;
            };
            let untrusted = sniffed
                .tool
                .as_deref()
                .is_none_or(|t| taint::is_untrusted(t, &config.untrusted_tools.value));
            if untrusted && !session.is_empty() {
                let tool = sniffed
                    .tool
                    .as_deref()
                    .unwrap_or("an unreadable tool event");
                if let Err(e) =
                    taint::mark(&config.home.value, session, tool, crate::clock::now_ms())
                {
                    out.stderr.push_str(&format!(
                        "sentinel: warning: the session's taint was not recorded ({e})\n"
                    ));
                }
            }
        }
        Looks::SessionEnd | Looks::Other => {}
    }
    out
}

fn handle(
    agent: Agent,
    shadow: bool,
    config: &Config,
    bytes: &[u8],
    started: Instant,
    answer: &mut Answer<'_>,
) -> Result<HookOutput, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("no event on stdin".into());
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("the event is not valid UTF-8 (byte {})", e.valid_up_to()))?;
    let text = lenient::repair_surrogates(text);
    let event = event::parse_event(agent, &text).map_err(|e| e.to_string())?;
    // Codex CLI registered as Claude Code (`sentinel hook`, an older install): its terms.
    let agent = match agent {
        Agent::Claude if event.from_codex => Agent::Codex,
        a => a,
    };
    if let Some(told) = answer.told {
        told(&event.kind);
    }
    match event.kind {
        EventKind::PreToolUse => pre_tool_use(agent, shadow, config, &event, started, answer),
        EventKind::SessionEnd => Ok(session_end::session_end(
            agent, shadow, config, &event, started,
        )),
        EventKind::PostToolUse => Ok(after_call::post_tool_use(agent, shadow, config, &event)),
        EventKind::Ignored(_) => Ok(HookOutput::default()),
    }
}

/// Reads the whole event, refusing more than `max` bytes without holding more than `max + 1`.
/// On failure, the message and what was read (for [`lenient::sniff`]).
fn read_bounded(input: &mut dyn Read, max: u64) -> Result<Vec<u8>, (String, Vec<u8>)> {
    let mut bytes = Vec::new();
    if let Err(e) = input.take(max + 1).read_to_end(&mut bytes) {
        return Err((format!("cannot read the event from stdin: {e}"), bytes));
    }
    if bytes.len() as u64 > max {
        return Err((
            format!("the event is over the {max}-byte limit (max_event_bytes)"),
            bytes,
        ));
    }
    Ok(bytes)
}

fn pre_tool_use(
    agent: Agent,
    shadow: bool,
    config: &Config,
    event: &HookEvent,
    started: Instant,
    answer: &mut Answer<'_>,
) -> Result<HookOutput, String> {
    let call = event
        .call
        .as_ref()
        .ok_or("PreToolUse without a tool call")?;
    let process_cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let cwd = match &event.cwd {
        Some(c) if !c.is_empty() => process_cwd.join(c),
        _ => process_cwd,
    };
    let session = event.session_id.as_deref().unwrap_or("");
    // A request out (a fetch, an MCP tool) carries a secret value the session read: found here,
    // at the edge, from the session's fingerprints; Tier 1 refuses the call on it.
    let annotated;
    let call = match call.outgoing_text() {
        Some(text) => {
            let mut c = call.clone();
            c.set_seen(secrets::found_in(&config.home.value, session, &text));
            annotated = c;
            &annotated
        }
        None => call,
    };
    let answered = question::answer(
        config,
        &Question {
            call,
            cwd: &cwd,
            session: tiers::Session {
                id: Some(session),
                permission_mode: event.permission_mode.as_deref(),
                transcript: event.transcript_path.as_deref().map(std::path::Path::new),
            },
            taint: TaintFrom::Session,
            purpose: Purpose::Hook { shadow },
            rewritable: match agent {
                Agent::Claude => event.shell_input.as_ref(),
                _ => None,
            },
            without_ask: (!agent.can_ask() || event.ask_unsupported).then(|| agent.title()),
        },
    );
    // Codex CLI takes an `allow` only with a rewritten input (a bare one is a failed hook
    // there): what sentinel would allow is left to Codex's own approval, and recorded so.
    let mut answered = answered;
    if agent == Agent::Codex
        && answered
            .answer
            .as_ref()
            .is_some_and(|a| a.verdict == Verdict::Allow)
    {
        answered.answer = None;
    }
    let Some(local) = &answered.local else {
        return Ok(HookOutput::default());
    };
    let config = &answered.layered.config;
    // A managed rule file that does not parse is found with the rules: not quiet either.
    let shadow = shadow && answered.layered.managed_broken().is_none();
    let latency = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);

    // The answer first: the bookkeeping after it never decides anything.
    if !shadow && let Some(decided) = &answered.answer {
        answer.give(&render(agent, decided));
    }
    let mut out = HookOutput::default();
    let exporting = crate::export::Exporting::default();
    if let Some(warning) = record::record(
        config,
        call,
        local,
        answered.answer.as_ref(),
        &record::Meta {
            session,
            agent: agent.as_str(),
            latency_us: latency,
            shadow,
            unkept: &answered.unkept,
            prompted: crate::agents::prompts::would_prompt(
                agent,
                call.tool(),
                event.permission_mode.as_deref(),
            ),
            also: Some(&|e| exporting.spool(config, e)),
        },
    ) {
        // Bookkeeping never decides anything: one warning, and the answer all the same.
        out.stderr.push_str(&warning);
        out.stderr.push('\n');
    }
    // The books are kept: a due send goes on in a process the hook's exit does not wait for.
    exporting.send_if_due(config);
    for e in &answered.layered.rules.errors {
        out.stderr.push_str(&format!("sentinel: rule error: {e}\n"));
    }
    for w in &answered.warnings {
        out.stderr.push_str(&format!("sentinel: warning: {w}\n"));
    }
    for e in config
        .errors
        .iter()
        .filter(|e| e.at.starts_with(".sentinel"))
    {
        out.stderr
            .push_str(&format!("sentinel: project config error: {e}\n"));
    }
    // The process ends right after this answer: freeing every rule would cost more than the
    // decision took, and the OS takes the memory back anyway.
    std::mem::forget(answered);
    Ok(out)
}

/// The answer in the agent's own output shape, as one line of JSON. The reason and the warning
/// are inert ([`crate::text::inert_lines`]): the agents show them to the person.
pub fn render(agent: Agent, d: &Decision) -> String {
    let shown;
    let d = match (
        crate::text::inert_lines(&d.reason),
        d.warning.as_deref().map(crate::text::inert_lines),
    ) {
        (std::borrow::Cow::Borrowed(_), None | Some(std::borrow::Cow::Borrowed(_))) => d,
        (reason, warning) => {
            let mut c = d.clone();
            c.reason = reason.into_owned();
            c.warning = warning.map(std::borrow::Cow::into_owned);
            shown = c;
            &shown
        }
    };
    let verdict = match d.verdict {
        Verdict::Allow => "allow",
        Verdict::Deny => "deny",
        Verdict::Ask | Verdict::Uncertain => "ask",
    };
    // An `ask` left for an agent without one (sentinel's own failures; the tiers' asks were
    // made denies with an allow-once code already): refused, saying why.
    let no_ask = |reason: &str| {
        format!(
            "{reason} — this needs the user's approval, which a {} hook cannot ask for: ask the user to run it or to allow it in sentinel's rules",
            agent.title()
        )
    };
    let mut value = match agent {
        // Codex CLI: a bare allow is a failed hook there (left to its own approval, see
        // `pre_tool_use`); an ask is refused as for Gemini CLI.
        Agent::Codex if verdict == "allow" => return String::new(),
        Agent::Codex => json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": if verdict == "ask" { no_ask(&d.reason) } else { d.reason.clone() },
            }
        }),
        Agent::Claude => json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": verdict,
                "permissionDecisionReason": d.reason,
            }
        }),
        // Gemini CLI hooks answer allow or deny only. A call the person must approve is refused
        // with a reason that says so: deferring would let it run unasked under --yolo.
        Agent::Gemini => {
            let (decision, reason) = match verdict {
                "ask" => ("deny", no_ask(&d.reason)),
                v => (v, d.reason.clone()),
            };
            json!({ "decision": decision, "reason": reason })
        }
        // Cursor has used both casings for its message keys: give both.
        Agent::Cursor => json!({
            "permission": verdict,
            "user_message": d.reason,
            "agent_message": d.reason,
            "userMessage": d.reason,
            "agentMessage": d.reason,
        }),
        Agent::Copilot => json!({
            "permissionDecision": verdict,
            "permissionDecisionReason": d.reason,
        }),
    };
    if let Some(w) = &d.warning {
        value["systemMessage"] = json!(w);
    }
    // A run allowed fenced: Claude Code runs the rewritten input instead of the agent's.
    if agent == Agent::Claude
        && d.verdict == Verdict::Allow
        && let Some(updated) = d.contained.as_ref().and_then(|c| c.updated_input.as_ref())
    {
        value["hookSpecificOutput"]["updatedInput"] = updated.clone();
    }
    format!("{value}\n")
}
