//! The `sentinel` command line: parses the arguments, runs the subcommand (`cli/`, one file
//! each) and maps the result onto the exit status.
//!
//! The process starts at a C `main` of its own rather than through std's start-up, which on
//! Linux reads `/proc/self/maps` to find the main thread's stack and install a stack-overflow
//! handler: about 0.18M instructions and three system calls, a fifth of a hook's decision. The
//! kernel's guard page still stops an overflow (a SIGSEGV rather than a message). What std's
//! start-up did that matters here is done below: SIGPIPE ignored (a closed pipe is an error the
//! commands handle, not a kill), stdout flushed before the exit.

// The test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

mod cli;

use clap::Parser;

/// Allocations come from a 4 MiB bump arena first (`cli/arena.rs`): a hook's 230 KB cost a
/// fifth of its instructions in glibc's malloc and free.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: cli::arena::Arena<{ 4 << 20 }> = cli::arena::Arena::new();

#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = run();
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::ffi::c_int::from(code)
}

#[cfg_attr(test, allow(dead_code))]
fn run() -> u8 {
    // The hook runs once per tool call: its few arguments are read by hand, since building
    // clap's whole command tree costs more than the rest of a start-up. Anything else, or
    // anything unexpected after `hook`, goes to clap (which reports it).
    if let Some((agent, shadow)) = cli::hook::args(std::env::args_os().skip(1)) {
        return cli::hook::run(agent, shadow);
    }
    // clap exits 2 on a usage error, which `sentinel check` uses for "block": map it to 1.
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            sentinel::errln!("sentinel: {e:#}");
            1
        }
    }
}
