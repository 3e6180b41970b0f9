//! `sentinel hook`: its few arguments read without clap, and the answer written out.

use super::{guard, watchdog};
use sentinel::agents::event::Agent;
use sentinel::agents::hook;
use std::io::Write;

/// `hook [--agent NAME|--agent=NAME] [--shadow]`, each at most once; None for anything else.
pub fn args(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<(Agent, bool)> {
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

/// `sentinel hook`: one event on stdin, the answer on stdout as soon as it is known. The
/// event is read here; the judging runs in a child that the watchdog waits for with a
/// deadline (`cli::watchdog`), or in this process when no child can be made.
pub fn run(agent: Agent, shadow: bool) -> u8 {
    let started = std::time::Instant::now();
    // The last resort of this process: a crash or a kill while it reads or waits still answers.
    guard::arm(agent, shadow);
    let deadline = watchdog::deadline();
    let mut event = watchdog::Event::read();
    #[cfg(unix)]
    let agent_pid = std::os::unix::process::parent_id();
    // Windows: no /dev/tty nor /proc to reach the agent's terminal through.
    #[cfg(not(unix))]
    let agent_pid = 0;
    #[cfg(unix)]
    match watchdog::fork() {
        Ok(watchdog::Side::Judge(channel)) => {
            channel.become_judge(deadline);
            let mut emit = |text: &str| channel.answer(text);
            let silence = || channel.silence();
            let told = |kind: &sentinel::agents::event::EventKind| channel.kind(kind);
            let mut answer = hook::Answer::new(&mut emit, &silence).telling_kind(&told);
            let out = hook::run(agent, shadow, &mut event, &mut answer, started);
            if out.for_terminal && hook::to_terminal(&out.stderr, agent_pid) {
                channel.end(0, "", "");
            }
            channel.end(out.exit, &out.stdout, &out.stderr)
        }
        Ok(watchdog::Side::Watch(child, pipe)) => {
            guard::postpone(guard::DEADLINE_SECS + 2);
            let out = watchdog::watch(agent, shadow, &event, child, pipe, started, deadline);
            return finish(&out.stdout, &out.stderr, out.exit);
        }
        Err(_) => {}
    }
    // No child could be made (or Windows, which has no fork): judged here, with the guard's
    // deadline and crash answer around it.
    #[cfg(not(unix))]
    let _ = deadline;
    let mut emit = |text: &str| guard::give(text);
    let mut answer = hook::Answer::new(&mut emit, &guard::silence);
    let out = hook::run(agent, shadow, &mut event, &mut answer, started);
    if out.for_terminal && hook::to_terminal(&out.stderr, agent_pid) {
        guard::done();
        return 0;
    }
    finish(&out.stdout, &out.stderr, out.exit)
}

/// Prints the rest of the output (a PostToolUse reminder, Gemini's summary, the answer unless
/// one was given) and the messages, and returns the exit status.
fn finish(stdout: &str, stderr: &str, exit: u8) -> u8 {
    guard::give(stdout);
    guard::done();
    // A closed pipe is the agent's business; the exit status still says what happened.
    let _ = std::io::stderr().lock().write_all(stderr.as_bytes());
    exit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_arguments_are_read_without_clap_and_anything_else_goes_to_clap() {
        let args = |a: &[&str]| args(a.iter().map(std::ffi::OsString::from));
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
