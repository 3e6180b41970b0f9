//! The `sentinel` command line: parses the arguments, runs the subcommand (`cli/`, one file
//! each) and maps the result onto the exit status.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // The hook runs once per tool call: its few arguments are read by hand, since building
    // clap's whole command tree costs more than the rest of a start-up. Anything else, or
    // anything unexpected after `hook`, goes to clap (which reports it).
    if let Some((agent, shadow)) = cli::hook::args(std::env::args_os().skip(1)) {
        return ExitCode::from(cli::hook::run(agent, shadow));
    }
    // clap exits 2 on a usage error, which `sentinel check` uses for "block": map it to 1.
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("sentinel: {e:#}");
            ExitCode::from(1)
        }
    }
}
