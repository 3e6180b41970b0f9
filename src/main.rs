//! The `sentinel` command line: parses the arguments, runs the subcommand (`cli/`, one file
//! each) and maps the result onto the exit status.
//!
//! The process starts at a C `main` of its own rather than through std's start-up, which on
//! Linux reads `/proc/self/maps` to find the main thread's stack and install a stack-overflow
//! handler: about 0.18M instructions and three system calls, a fifth of a hook's decision. The
//! kernel's guard page still stops an overflow (a SIGSEGV rather than a message). What std's
//! start-up did that matters here is done below: SIGPIPE ignored (a closed pipe is an error the
//! commands handle, not a kill), stdout flushed before the exit, and the arguments taken from
//! `argv`: only glibc hands them to std before `main` (musl, the static release build, does not,
//! so `std::env::args_os()` is empty there without std's start-up).

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
extern "C" fn main(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // SAFETY: the C runtime passes `argc` valid NUL-terminated strings in `argv`.
    #[cfg(unix)]
    let args = unsafe { args_from_argv(argc, argv) };
    // Windows: argv is in the ANSI code page; std reads the UTF-16 command line itself, with or
    // without its start-up.
    #[cfg(windows)]
    let args = {
        let _ = (argc, argv);
        std::env::args_os().collect()
    };
    let code = run(args);
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::ffi::c_int::from(code)
}

/// The process's arguments as the kernel gave them (bytes, not necessarily UTF-8).
///
/// # Safety
/// `argv` must hold `argc` pointers to NUL-terminated strings, as C's `main` receives them.
#[cfg(all(not(test), unix))]
unsafe fn args_from_argv(
    argc: std::ffi::c_int,
    argv: *const *const std::ffi::c_char,
) -> Vec<std::ffi::OsString> {
    use std::os::unix::ffi::OsStrExt;
    let count = usize::try_from(argc).unwrap_or(0);
    (0..count)
        .map(|i| {
            // SAFETY: the caller's contract: `i < argc`, each entry a C string.
            let arg = unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) };
            std::ffi::OsStr::from_bytes(arg.to_bytes()).to_os_string()
        })
        .collect()
}

#[cfg_attr(test, allow(dead_code))]
fn run(args: Vec<std::ffi::OsString>) -> u8 {
    // The hook runs once per tool call: its few arguments are read by hand, since building
    // clap's whole command tree costs more than the rest of a start-up. Anything else, or
    // anything unexpected after `hook`, goes to clap (which reports it).
    if let Some((agent, shadow)) = cli::hook::args(args.iter().skip(1).cloned()) {
        return cli::hook::run(agent, shadow);
    }
    // clap exits 2 on a usage error, which `sentinel check` uses for "block": map it to 1.
    let cli = match cli::Cli::try_parse_from(args) {
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
