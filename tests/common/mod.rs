//! What several test files need: the built binary started as an agent starts it, with HOME at
//! the fixtures' home (never created) and SENTINEL_HOME in a temp dir, so nothing real is read.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Starts `sentinel ARGS` with `stdin` written to it, Tier 2 off and shadow mode unset.
pub fn spawn(home: &Path, args: &[&str], stdin: &str) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sentinel"))
        .env("SENTINEL_NO_TTY", "1")
        .args(args)
        .env("HOME", "/home/dev/demo/home")
        .env("SENTINEL_HOME", home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("SENTINEL_API_KEY")
        .env_remove("SENTINEL_SHADOW")
        // The person-only commands refuse to run inside an agent's shell.
        .env_remove("CLAUDECODE")
        .env_remove("GEMINI_CLI")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child
}

/// Runs `sentinel ARGS` to the end.
pub fn run(home: &Path, args: &[&str], stdin: &str) -> Output {
    spawn(home, args, stdin).wait_with_output().unwrap()
}
