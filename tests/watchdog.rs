//! The answer never waits on the machine, and the hook's memory is bounded (docs/failures.md):
//! the built hook, as the agent runs it, against a file system that hangs (a real FUSE mount
//! whose reads are never answered), FIFOs where sentinel reads, a judging process that dies,
//! and inputs whose reading once took memory growing with the square of their size, under a
//! 64 MiB address space. No wall-clock limit is asserted: each test waits for the hook without
//! one, and the hook's own deadline (set short here) is what ends a stalled call.
//! Linux only: a FUSE mount, the address-space limit and /proc are Linux's.
#![cfg(target_os = "linux")]

mod common;

use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The deadline the tests give the hook (SENTINEL_HOOK_DEADLINE_MS), in milliseconds.
const DEADLINE_MS: &str = "1500";

fn bash(cwd: &Path, command: &str) -> Vec<u8> {
    json!({"hook_event_name": "PreToolUse", "session_id": "watchdog", "tool_name": "Bash",
           "cwd": cwd, "permission_mode": "bypassPermissions",
           "tool_input": {"command": command}})
    .to_string()
    .into_bytes()
}

/// The hook with `home` as SENTINEL_HOME, the short deadline, and `address_space` bytes of
/// address space at most (RLIMIT_AS, as `ulimit -v` sets it) when given.
fn hook(home: &Path, address_space: Option<u64>) -> Command {
    let mut cmd = common::sentinel(home);
    cmd.arg("hook")
        .env("SENTINEL_HOOK_DEADLINE_MS", DEADLINE_MS)
        .env_remove("SENTINEL_HOOK_MEMORY_MIB");
    if let Some(bytes) = address_space {
        // SAFETY: setrlimit between fork and exec touches only the child.
        unsafe {
            cmd.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                libc::setrlimit(libc::RLIMIT_AS, &limit);
                Ok(())
            });
        }
    }
    cmd
}

/// The answer's decision and reason; the exit status must be 0 and stdout one JSON line.
fn answer(out: &Output) -> (String, String) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let h = &v["hookSpecificOutput"];
    (
        h["permissionDecision"].as_str().unwrap().to_string(),
        h["permissionDecisionReason"].as_str().unwrap().to_string(),
    )
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "{path:?}");
}

/// A FIFO is refused as unreadable without being opened for a blocking read: the call is
/// judged as usual, not answered by the deadline. A FIFO as the script a call runs, as a
/// project's rule file, and as the project's package.json and git config.
#[test]
fn a_fifo_where_sentinel_reads_never_holds_the_answer_back() {
    let home = common::scratch("home");
    let project = common::scratch("proj");
    let p = project.path();
    std::fs::create_dir_all(p.join(".sentinel")).unwrap();
    std::fs::create_dir_all(p.join(".git")).unwrap();
    for f in [
        "run.sh",
        ".sentinel/hard_block_commands.txt",
        "package.json",
        ".git/config",
    ] {
        mkfifo(&p.join(f));
    }
    for (command, want) in [
        ("bash run.sh", None),
        ("./run.sh && git push --force origin main", Some("deny")),
        ("npm run build", None),
        ("git status", None),
        ("rm -rf ~", Some("deny")),
    ] {
        let out = common::feed(hook(home.path(), None), &bash(p, command));
        let (decision, reason) = answer(&out);
        assert!(
            !reason.contains("took over") && !reason.contains("not checked"),
            "{command}: {reason}"
        );
        if let Some(want) = want {
            assert_eq!(decision, want, "{command}: {reason}");
        }
    }
}

/// A FUSE file system whose reads hang (tests/fixtures/stalled_fs.py), mounted for one test.
struct StalledMount {
    server: Child,
    at: PathBuf,
}

impl StalledMount {
    /// Mounts it at `at` with these files; None (and why, on stderr) where FUSE cannot be
    /// mounted: not root, no /dev/fuse, no python3.
    fn mount(at: &Path, files: &[&str], stop_reading: bool) -> Option<StalledMount> {
        // SAFETY: getuid has no preconditions.
        if unsafe { libc::getuid() } != 0 || !Path::new("/dev/fuse").exists() {
            eprintln!("skipped: mounting FUSE here needs root and /dev/fuse");
            return None;
        }
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stalled_fs.py");
        let mut server = Command::new("python3")
            .arg(fixture)
            .args(stop_reading.then_some("--stop-reading"))
            .arg(at)
            .args(files)
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let mut line = String::new();
        std::io::BufReader::new(server.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // Root with /dev/fuse (as in CI): a mount that fails is a failure, not a skip.
        assert_eq!(
            line.trim(),
            "mounted",
            "the stalled file system did not mount"
        );
        Some(StalledMount {
            server,
            at: at.to_path_buf(),
        })
    }
}

impl Drop for StalledMount {
    fn drop(&mut self) {
        // Its /dev/fuse closed, the connection aborts: every read left waiting fails and the
        // processes stuck in one go on; then the mount is detached.
        let _ = self.server.kill();
        let _ = self.server.wait();
        let c = std::ffi::CString::new(self.at.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string.
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    }
}

/// A read that hangs in the kernel (no signal ends it, as on a hung NFS mount): the script a
/// call runs, and sentinel's own configuration. The hook answers `ask` on its own at its
/// deadline and exits; the stuck reader is left behind, holding none of the agent's pipes.
#[test]
fn a_hung_file_system_gets_an_ask_and_the_hook_exits() {
    let dir = common::scratch("stall");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_mount) = StalledMount::mount(&mnt, &["run.sh", "sentinel.toml"], false) else {
        return;
    };
    let home = common::scratch("home");
    // The project is on the hung mount: reading the script hangs.
    let out = common::feed(
        hook(home.path(), None),
        &bash(&mnt, "bash run.sh && git status"),
    );
    let (decision, reason) = answer(&out);
    assert_eq!(decision, "ask", "{reason}");
    assert!(reason.contains("took over 1.5 s"), "{reason}");
    // SENTINEL_HOME is on the hung mount: reading sentinel.toml hangs.
    let out = common::feed(
        hook(&mnt, None),
        &bash(dir.path(), "git push --force origin main"),
    );
    let (decision, reason) = answer(&out);
    assert_eq!(decision, "ask", "{reason}");
    assert!(reason.contains("took over 1.5 s"), "{reason}");
    // The call answered on its own is in the stats, recorded apart from the stuck judge.
    let stats = loop {
        let text = std::fs::read_to_string(home.path().join("stats.jsonl")).unwrap_or_default();
        if !text.is_empty() {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(stats.contains("\"verdict\":\"ask\""), "{stats}");
}

/// The judging process dies (here: SIGKILL, as the kernel's OOM killer sends it, while it waits
/// on the hung mount, before the deadline): the hook answers `ask`, naming it, and exits.
#[test]
fn a_judge_that_dies_gets_an_ask() {
    let dir = common::scratch("stall");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_mount) = StalledMount::mount(&mnt, &["run.sh"], true) else {
        return;
    };
    let home = common::scratch("home");
    let mut cmd = hook(home.path(), None);
    // The default deadline (20 s): the kill comes first.
    cmd.env_remove("SENTINEL_HOOK_DEADLINE_MS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut parent = cmd.spawn().unwrap();
    parent
        .stdin
        .take()
        .unwrap()
        .write_all(&bash(&mnt, "bash run.sh"))
        .unwrap();
    // The judge is the hook's child: wait (without a limit) until it waits on the mount.
    let judge = loop {
        let children = std::fs::read_to_string(format!(
            "/proc/{}/task/{}/children",
            parent.id(),
            parent.id()
        ))
        .unwrap_or_default();
        // Waiting in the kernel for the file system's answer (its request still queued).
        let stuck = children.split_whitespace().find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/wchan"))
                .is_ok_and(|w| w.contains("request_wait_answer"))
        });
        if let Some(pid) = stuck {
            break pid.parse::<i32>().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    // SAFETY: signalling the hook's own child; SIGKILL ends even a wait on FUSE.
    unsafe { libc::kill(judge, libc::SIGKILL) };
    let out = parent.wait_with_output().unwrap();
    let (decision, reason) = answer(&out);
    assert_eq!(decision, "ask", "{reason}");
    assert!(reason.contains("was killed (SIGKILL)"), "{reason}");
}

/// The judging process runs out of its address space (lowered here to 8 MiB): the hook answers
/// `ask` with the memory bound as the reason, and exits.
#[test]
fn a_judge_out_of_memory_gets_an_ask() {
    let home = common::scratch("home");
    let project = common::scratch("proj");
    let event = json!({"hook_event_name": "PreToolUse", "session_id": "m", "tool_name": "Write",
        "cwd": project.path(), "permission_mode": "bypassPermissions",
        "tool_input": {"file_path": project.path().join("a.txt"), "content": "x".repeat(900_000)}});
    let mut cmd = hook(home.path(), None);
    cmd.env("SENTINEL_HOOK_MEMORY_MIB", "8");
    let out = common::feed(cmd, event.to_string().as_bytes());
    let (decision, reason) = answer(&out);
    assert_eq!(decision, "ask", "{reason}");
    assert!(reason.contains("ran out of its memory bound"), "{reason}");
}

/// Inputs whose reading took memory or time growing with the square of their size, each
/// followed by a force push: within 64 MiB of address space (`ulimit -v 65536`), every one is
/// still a deny. First the script of the report: `yes 'bash -c' | head -n 16000 | tr '\n' ' '`.
#[test]
fn long_inputs_keep_their_denies_within_64_mib() {
    let home = common::scratch("home");
    let project = common::scratch("proj");
    let p = project.path();
    std::fs::write(p.join("s.sh"), "bash -c ".repeat(16000)).unwrap();
    let force = "; git push --force origin main";
    let fill = |unit: &str| unit.repeat((120 * 1024) / unit.len());
    let commands = [
        format!("bash s.sh{force}"),
        format!("{}{force}", fill("bash -c ")),
        format!("{}ls{force}", fill("eval ")),
        format!("{}ls{force}", fill("sudo ")),
        format!("{}{force}", fill("x;")),
        format!("{}{force}", fill("cat <(ls) ")),
        format!("ls{}{force}", fill(" 2>&1")),
        format!("{}{force}", fill("echo ls | sh; ")),
    ];
    for command in &commands {
        let mut cmd = hook(home.path(), Some(64 << 20));
        // The default deadline: a debug build reads them slowly.
        cmd.env_remove("SENTINEL_HOOK_DEADLINE_MS");
        let out = common::feed(cmd, &bash(p, command));
        let (decision, reason) = answer(&out);
        assert_eq!(decision, "deny", "{}…: {reason}", &command[..40]);
        assert!(reason.contains("git push --force"), "{reason}");
    }
}
