//! Running one command for real, where it cannot touch the machine: bubblewrap with the system
//! read-only (`--ro-bind / /`), only the world's copy writable, a private /tmp, /run and /root,
//! no network but loopback (`--unshare-all`), no capabilities, its own pid namespace. Inside,
//! this same test binary (the "inner" role) starts the loopback listeners, then runs
//! `strace -f … bash -c CMD` and kills it after the harness's time limit.

use crate::fixture::World;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The loopback listeners: a web app, Elasticsearch, Redis, the Docker API, CouchDB.
pub const PORTS: &[u16] = &[8080, 3000, 9200, 6379, 2375, 5984];

/// The syscalls traced: every call naming a file, process calls, sockets, and the fd-taking
/// calls that change a file.
const TRACE: &str = "trace=%file,%process,%network,ftruncate,fchmod,fchown,fchdir";

/// Environment variable that makes the test binary play the inner role.
pub const INNER: &str = "SENTINEL_ORACLE_INNER";

/// What one run left behind.
pub struct Run {
    /// strace's output.
    pub trace: String,
    /// One entry per connection a listener accepted: (port, bytes received).
    pub received: Vec<(u16, Vec<u8>)>,
    /// The command's exit status (None: killed at the time limit, or the sandbox failed).
    pub status: Option<i32>,
    /// The first bytes of its stdout and stderr.
    pub output: String,
}

/// Is the sandbox usable here? An error says what is missing.
pub fn available() -> Result<(), String> {
    for p in ["bwrap", "strace"] {
        if crate::fixture::which(p).is_none() {
            return Err(format!(
                "`{p}` is not installed (apt-get install bubblewrap strace)"
            ));
        }
    }
    let out = Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--unshare-all",
            "--die-with-parent",
            "true",
        ])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "bwrap cannot make a sandbox here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// Runs `command` in `world` (a fresh copy) under strace; kills it after `limit`.
pub fn run(world: &World, command: &str, limit: Duration) -> Run {
    // A run's records never mix with the last one's.
    let _ = std::fs::remove_dir_all(&world.out);
    std::fs::create_dir_all(&world.out).unwrap();
    let exe = inner_exe(world);
    let path = format!(
        "{}:{}",
        world.bin.display(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
    );
    let mut cmd = Command::new("bwrap");
    cmd.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
        .args(["--tmpfs", "/tmp", "--tmpfs", "/run", "--tmpfs", "/root"])
        .arg("--bind")
        .arg(&world.root)
        .arg(&world.root)
        // The inner role's binary lies beside the world: under /tmp too when the checkout is
        // (a fresh clone there), where the private /tmp above would hide it.
        .arg("--ro-bind")
        .arg(&exe)
        .arg(&exe)
        .args(["--unshare-all", "--die-with-parent", "--new-session"])
        .args(["--cap-drop", "ALL", "--clearenv"])
        .args(["--setenv", "PATH", &path])
        .arg("--setenv")
        .arg("HOME")
        .arg(&world.home)
        .args(["--setenv", "USER", "dev", "--setenv", "LANG", "C.UTF-8"])
        .args(["--setenv", "TERM", "dumb", "--setenv", INNER, "1"])
        .arg("--chdir")
        .arg(&world.project)
        .arg("--")
        .arg(exe)
        .arg(&world.out)
        .arg(limit.as_millis().to_string())
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("bwrap starts");
    // The inner role enforces the limit; this one only catches a sandbox that hangs itself.
    let deadline = Instant::now() + limit + Duration::from_secs(10);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let trace = std::fs::read_to_string(world.out.join("trace")).unwrap_or_default();
    let status = std::fs::read_to_string(world.out.join("status"))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    let mut output = std::fs::read_to_string(world.out.join("output")).unwrap_or_default();
    if trace.is_empty() {
        output.push_str(&err);
    }
    Run {
        trace,
        received: read_received(&world.out),
        status,
        output,
    }
}

/// This binary, hard-linked once into the scratch dir (next to the worlds), so a rebuild by
/// cargo during a long run cannot take the inner role's program away.
fn inner_exe(world: &World) -> PathBuf {
    let link = world.root.parent().unwrap().join("oracle-inner");
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let exe = std::env::current_exe().unwrap();
        if std::fs::hard_link(&exe, &link).is_err() {
            std::fs::copy(&exe, &link).unwrap();
        }
    });
    link
}

fn read_received(out: &Path) -> Vec<(u16, Vec<u8>)> {
    let mut v = Vec::new();
    let Ok(dir) = std::fs::read_dir(out) else {
        return v;
    };
    let mut names: Vec<PathBuf> = dir.map(|e| e.unwrap().path()).collect();
    names.sort();
    for p in names {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if let Some(rest) = name.strip_prefix("conn-")
            && let Some(port) = rest.split('-').next().and_then(|s| s.parse().ok())
        {
            v.push((port, std::fs::read(&p).unwrap_or_default()));
        }
    }
    v
}

/// The inner role: `ARGS = OUT LIMIT_MS COMMAND`. Listeners, then the traced command; writes
/// `trace`, `status`, `output` and one `conn-PORT-N` file per connection into OUT.
pub fn inner(args: &[String]) -> i32 {
    let out = PathBuf::from(&args[0]);
    let limit = Duration::from_millis(args[1].parse().unwrap());
    let command = &args[2];
    let count = Arc::new(Mutex::new(0usize));
    for &port in PORTS {
        let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) else {
            continue;
        };
        let out = out.clone();
        let count = count.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let n = {
                    let mut c = count.lock().unwrap();
                    *c += 1;
                    *c
                };
                let file = out.join(format!("conn-{port}-{n:04}"));
                std::thread::spawn(move || serve(stream, &file));
            }
        });
    }
    let output = std::fs::File::create(out.join("output")).unwrap();
    let mut child = match Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-yy",
            "-s",
            "256",
            "-e",
            TRACE,
            "-e",
            "signal=none",
        ])
        .arg("-o")
        .arg(out.join("trace"))
        .args(["--", "bash", "-c", command])
        .stdin(Stdio::null())
        .stdout(output.try_clone().unwrap())
        .stderr(output)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("strace: {e}");
            return 1;
        }
    };
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if Instant::now() > deadline {
            // Everything else in the pid namespace dies with this process.
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // A connection still being read gets a moment to be recorded.
    std::thread::sleep(Duration::from_millis(20));
    if let Some(code) = status {
        std::fs::write(out.join("status"), code.to_string()).unwrap();
    }
    0
}

/// Records what a client sends (until it stops for a moment), answers a small HTTP 200.
fn serve(mut stream: std::net::TcpStream, file: &Path) {
    let _ = stream.set_read_timeout(Some(Duration::from_millis(150)));
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    let mut answered = false;
    while got.len() < 1 << 16 {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                let _ = std::fs::write(file, &got);
                // Answer once the request's head is in, so a client waiting for it finishes.
                if !answered && got.windows(4).any(|w| w == b"\r\n\r\n") {
                    answered = true;
                    let _ = stream.write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\nok\n",
                    );
                }
            }
            Err(_) => break,
        }
    }
    let _ = std::fs::write(file, &got);
}
