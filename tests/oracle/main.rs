//! The tracing oracle (issue 28, docs/oracle.md): each command is decided by sentinel's Tier 1
//! through the library, as the hook decides it, then run for real in a bubblewrap sandbox under
//! `strace -f`; what the process tree did is judged against what the decision said.
//!
//! `cargo test --test oracle` runs the fast part (tests/oracle/fast.txt and the mutation check);
//! `cargo test --release --test oracle -- --ignored` runs the whole oracle. Without bwrap or
//! strace the fast part prints why and passes; the whole oracle fails.

mod fixture;
mod inputs;
mod judge;
mod known;
mod run;
mod sandbox;
mod trace;

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if std::env::var_os(sandbox::INNER).is_some() {
        std::process::exit(sandbox::inner(&args[1..]));
    }
    // libtest's own flags: `--list` lists nothing to filter (one run, not separate tests).
    if args.iter().any(|a| a == "--list") {
        return;
    }
    // A panic in Tier 1 is a finding (class `panics`), reported with its command: one line here.
    std::panic::set_hook(Box::new(|info| eprintln!("oracle: panic: {info}")));
    trace::self_check();
    let full = args
        .iter()
        .any(|a| a == "--ignored" || a == "--include-ignored");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Err(why) = sandbox::available() {
        if full {
            eprintln!("oracle: cannot run: {why}");
            std::process::exit(1);
        }
        println!("oracle: SKIPPED (fast part): {why}");
        return;
    }
    let ok = if full {
        run::whole(root)
    } else {
        run::fast(root)
    };
    if !ok {
        std::process::exit(1);
    }
}
