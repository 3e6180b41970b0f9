//! `sentinel statusline`: Claude Code's status-line command. It reads the JSON Claude Code gives
//! a status line on stdin (only `session_id` is used) and prints one line. It never fails
//! loudly: a status bar has no room for errors, so what cannot be read is shown as `?`.

use sentinel::config::{Config, Mode};
use sentinel::ledger::stats;
use sentinel::ledger::status_tally::{self, Tally};
use sentinel::report::statusline;
use std::io::Read;

pub fn run() -> u8 {
    let mut input = Vec::new();
    // The status-line JSON is small; more than this is not read.
    let _ = std::io::stdin()
        .lock()
        .take(1 << 20)
        .read_to_end(&mut input);
    let session = serde_json::from_slice::<serde_json::Value>(&input)
        .ok()
        .and_then(|v| v["session_id"].as_str().map(str::to_string));
    let Some(config) = Config::load_for_process() else {
        outln!("sentinel ?");
        return 0;
    };
    let mode = match config.mode.value {
        Mode::Enforce => "enforce",
        Mode::Guard => "guard",
        Mode::Shadow => "shadow",
    };
    // The session's counts kept between refreshes: only what the journal gained is read.
    let tally = match &session {
        Some(id) => {
            let journal = stats::journal(&config.home.value, config.log_max_bytes.value);
            status_tally::session_tally(&config.home.value, &journal, id).unwrap_or_default()
        }
        None => Tally::default(),
    };
    outln!(
        "{}",
        statusline::line(mode, config.api_key.is_some(), &tally)
    );
    0
}
