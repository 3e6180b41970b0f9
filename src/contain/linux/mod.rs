//! The fence on Linux, built in three processes:
//!
//! - `sentinel contain` itself stays outside: it carries the forwarded ports, waits, and
//!   afterwards moves aside any protected place the run created;
//! - a child makes the namespaces (user, mount, network, pid), hides the credential places,
//!   makes the protected places read-only, brings up its own loopback and hands the port
//!   listeners out;
//! - the first process of the new pid namespace is a small init (signals passed on, orphans
//!   reaped; when the command ends, whatever it left running ends too), and its child sets
//!   `no_new_privs`, Landlock and seccomp and runs the command.
//!
//! A step that fails before the command runs ends the run with status 125 and one line on
//! stderr: the command never runs unfenced.

mod aftermath;
mod mounts;
mod restrict;

use aftermath::{bound_quarantine, move_aside_new_places};
use mounts::{
    HOME_COPIED, bind_read_only, cover_dir, cover_file, out_of_view, pin, private_home,
    private_store, private_temp,
};
use restrict::{landlock, seccomp};

use crate::contain::plan::Fence;
use crate::contain::{forward, sys};
use std::ffi::{CString, OsStr, OsString};
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

/// The status of a run that could not be fenced (the command did not run).
pub const NOT_FENCED: i32 = 125;

/// Variables removed from the command's environment: sentinel's own and the agent's keys
/// (nothing a test needs, and the first thing a run that reads its environment would copy).
pub const SCRUBBED_VARIABLES: [&str; 5] = [
    "SENTINEL_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "SENTINEL_API_URL",
];

/// Variables that name a proxy, replaced by the registry proxy's (compared without case).
const PROXY_VARIABLES: [&str; 6] = [
    "https_proxy",
    "http_proxy",
    "all_proxy",
    "no_proxy",
    "npm_config_proxy",
    "npm_config_https_proxy",
];

/// Runs `argv` inside `fence`; returns its exit status (128 + N for a signal N).
pub fn run(fence: &Fence, argv: &[OsString], quarantine: &Path) -> i32 {
    let pair = match sys::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC) {
        Ok(p) => p,
        Err(e) => return fail("a socket pair", &e),
    };
    let (outside, inside) = (pair[0], pair[1]);
    // When the run starts, 50 ms early: the kernel stamps a change from a coarse clock that
    // may lag the one read here by a tick.
    let started = std::time::SystemTime::now()
        .checked_sub(std::time::Duration::from_millis(50))
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| (d.as_secs() as i64, i64::from(d.subsec_nanos())))
        .unwrap_or((0, 0));
    // Everything the children need is prepared before the fork: after it they only make
    // system calls on it.
    let prepared = match Prepared::new(fence, argv) {
        Ok(p) => p,
        Err(e) => return fail("the command line", &e),
    };
    // sentinel contain is single-threaded here; the child only makes system calls and then
    // execs or exits.
    let pid = match sys::fork() {
        Ok(p) => p,
        Err(e) => return fail("fork", &e),
    };
    if pid == 0 {
        // SAFETY: closing our copy of the other end.
        unsafe { libc::close(outside) };
        child(fence, &prepared, inside);
    }
    // SAFETY: closing the child's end in the parent.
    unsafe { libc::close(inside) };
    if prepared.uid == 0 {
        // The child's namespace is made: map every id, as root has them outside.
        if wait_byte(outside) == Some(b'u') {
            let all = b"0 0 4294967295";
            let ok = write_file(&format!("/proc/{pid}/uid_map"), all)
                && write_file(&format!("/proc/{pid}/gid_map"), all);
            signal_byte(outside, if ok { b'k' } else { b'x' });
        }
    }
    let (mut forwarded, mut proxied) = (Vec::new(), Vec::new());
    for (tag, fd) in forward::recv_listeners(outside) {
        if tag == forward::PROXY {
            proxied.push(fd);
        } else {
            forwarded.push(fd);
        }
    }
    forward::serve(forwarded);
    if let Some(proxy) = &fence.proxy {
        for listener in proxied {
            crate::contain::proxy::serve(listener, proxy.hosts.clone());
        }
    }
    forward::expose(outside, pid, fence.ports.clone());
    let status = wait_for(pid);
    move_aside_new_places(fence, quarantine, started);
    bound_quarantine(quarantine);
    status
}

/// What the child needs, made before the fork.
struct Prepared {
    program: CString,
    argv: Vec<CString>,
    env: Vec<CString>,
    uid: u32,
    gid: u32,
    cwd: CString,
}

impl Prepared {
    fn new(fence: &Fence, argv: &[OsString]) -> std::io::Result<Prepared> {
        let Some(first) = argv.first() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "no command given",
            ));
        };
        let env: Vec<(OsString, OsString)> = std::env::vars_os()
            .filter(|(k, _)| !SCRUBBED_VARIABLES.iter().any(|s| OsStr::new(s) == k))
            .collect();
        let path_var = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
        let program = resolve(first, &path_var).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("`{}` is not found in PATH", first.to_string_lossy()),
            )
        })?;
        let mut env_c = Vec::with_capacity(env.len() + 1);
        for (k, v) in &env {
            let mut kv = k.as_bytes().to_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            if let Ok(c) = CString::new(kv) {
                env_c.push(c);
            }
        }
        env_c.push(CString::new("SENTINEL_CONTAINED=1").expect("no NUL"));
        if let Some(proxy) = &fence.proxy {
            // Every way tools are told of a proxy: https for the registries, plain http too
            // (refused by the proxy with a reason rather than failing on no route); this
            // machine's loopback directly.
            env_c.retain(|kv| {
                let name = kv
                    .as_bytes()
                    .split(|b| *b == b'=')
                    .next()
                    .unwrap_or_default();
                !PROXY_VARIABLES
                    .iter()
                    .any(|v| v.as_bytes().eq_ignore_ascii_case(name))
            });
            let url = format!("http://127.0.0.1:{}", proxy.port);
            for name in [
                "HTTPS_PROXY",
                "https_proxy",
                "HTTP_PROXY",
                "http_proxy",
                "ALL_PROXY",
                "all_proxy",
            ] {
                env_c.push(CString::new(format!("{name}={url}")).expect("no NUL"));
            }
            // The JVM's tools (Gradle, sbt) take a proxy from system properties.
            let java = env
                .iter()
                .find(|(k, _)| k == "JAVA_TOOL_OPTIONS")
                .map(|(_, v)| format!("{} ", v.to_string_lossy()))
                .unwrap_or_default();
            env_c.retain(|kv| !kv.as_bytes().starts_with(b"JAVA_TOOL_OPTIONS="));
            let port = proxy.port;
            env_c.push(
                CString::new(format!(
                    "JAVA_TOOL_OPTIONS={java}-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort={port} -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort={port} -Dhttp.nonProxyHosts=localhost|127.0.0.1"
                ))
                .unwrap_or_else(|_| c"JAVA_TOOL_OPTIONS=".to_owned()),
            );
            for name in ["NO_PROXY", "no_proxy"] {
                env_c
                    .push(CString::new(format!("{name}=localhost,127.0.0.1,::1")).expect("no NUL"));
            }
        }
        // nyc's spawn-wrap (15 and later) keeps its shims here rather than at the top of the
        // home, which the fence does not let it write.
        if !env.iter().any(|(k, _)| k == "SPAWN_WRAP_SHIM_ROOT") {
            env_c.push(CString::new("SPAWN_WRAP_SHIM_ROOT=/tmp").expect("no NUL"));
        }
        // go's build cache is not writable in the fence (objects in it are linked into later
        // builds unchecked): one of the run's own, in its own /tmp.
        if !env.iter().any(|(k, _)| k == "GOCACHE") {
            env_c.push(CString::new("GOCACHE=/tmp/go-build").expect("no NUL"));
        }
        Ok(Prepared {
            program: cstr(program.as_os_str())?,
            argv: argv.iter().map(|a| cstr(a)).collect::<Result<_, _>>()?,
            env: env_c,
            // SAFETY: getuid and getgid have no preconditions.
            uid: sys::getuid(),
            gid: sys::getgid(),
            cwd: cstr(std::env::current_dir()?.as_os_str())?,
        })
    }
}

fn cstr(s: &OsStr) -> std::io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a NUL byte in an argument",
        )
    })
}

/// `name` found the way execvp finds it.
fn resolve(name: &OsStr, path_var: &OsStr) -> Option<PathBuf> {
    if name.as_bytes().contains(&b'/') {
        return Some(PathBuf::from(name));
    }
    std::env::split_paths(path_var)
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::metadata(p)
                .map(|m| {
                    m.is_file()
                        && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
                })
                .unwrap_or(false)
        })
}

/// The child: namespaces, mounts, network, then the init and the command. Never returns.
fn child(fence: &Fence, p: &Prepared, sock: RawFd) -> ! {
    // SAFETY: from here on, system calls on prepared data; every failure exits.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let flags =
            libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWPID;
        if sys::unshare(flags).is_err() {
            exit_failed("new namespaces (user, mount, network, pid)");
        }
    }
    // Root keeps every id (its power over other users' files, as outside: a checkout owned
    // by another user), which only a process outside the namespace may map: the parent does,
    // when told. Anyone else maps only their own id, from inside.
    if p.uid == 0 {
        if !signal_byte(sock, b'u') || wait_byte(sock) != Some(b'k') {
            exit_failed("the user namespace's id maps (by the parent)");
        }
    } else {
        write_file("/proc/self/setgroups", b"deny");
        if !write_file("/proc/self/uid_map", format!("{0} {0} 1", p.uid).as_bytes())
            || !write_file("/proc/self/gid_map", format!("{0} {0} 1", p.gid).as_bytes())
        {
            exit_failed("the user namespace's id maps");
        }
    }
    if sys::mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None).is_err() {
        exit_failed("private mounts");
    }
    for temp in &fence.private_temp {
        if !private_temp(temp, &fence.project) {
            exit_failed(&format!("a {} of the run's own", temp.display()));
        }
    }
    if let Some(home) = &fence.scratch_home {
        match private_home(home, fence) {
            Ok(true) => HOME_COPIED.store(true, Ordering::Relaxed),
            // The kernel refused the overlay, nothing changed: the home stays read-only.
            Ok(false) => {}
            Err(step) => exit_failed(&step),
        }
    }
    // Each repository's `.git` and each folder above a protected place, bound onto itself
    // before the read-only places inside it: a mount point cannot be renamed or removed.
    for path in &fence.pinned {
        if !pin(path) {
            exit_failed(&format!("pinning {} in place", path.display()));
        }
    }
    for path in &fence.read_only {
        if !bind_read_only(path) {
            exit_failed(&format!("making {} read-only", path.display()));
        }
    }
    // The stores' layers go in the run's own /tmp, never in the machine's.
    if !fence.stores.is_empty() && !fence.private_temp.iter().any(|t| t == Path::new("/tmp")) {
        exit_failed("a private /tmp for the package stores' copies");
    }
    for (n, store) in fence.stores.iter().enumerate() {
        // A store inside the home's copy is the run's own already (and an overlay on an
        // overlay may pass the kernel's bound on stacking).
        if HOME_COPIED.load(Ordering::Relaxed)
            && fence
                .scratch_home
                .as_ref()
                .is_some_and(|h| store.starts_with(h))
        {
            continue;
        }
        if store.is_dir() && !private_store(store, n) {
            exit_failed(&format!("a copy of {} of the run's own", store.display()));
        }
    }
    for path in &fence.hidden_dirs {
        if out_of_view(path) {
            continue;
        }
        if !cover_dir(path) {
            exit_failed(&format!("hiding {}", path.display()));
        }
    }
    for path in &fence.hidden_files {
        if out_of_view(path) {
            continue;
        }
        if !cover_file(path) {
            exit_failed(&format!("hiding {}", path.display()));
        }
    }
    // The working directory entered again through the new mounts: kept as it was, it would
    // reach the project through the old ones, where nothing is read-only.
    if sys::chdir(&p.cwd).is_err() {
        exit_failed(&format!("entering {} again", p.cwd.to_string_lossy()));
    }
    if !loopback_up() {
        exit_failed("the fence's own loopback");
    }
    let listeners = forward::listeners(&fence.ports);
    let fds: Vec<RawFd> = listeners
        .iter()
        .map(std::os::fd::AsRawFd::as_raw_fd)
        .collect();
    if forward::send_fds(sock, &fds, forward::FORWARDED).is_err() {
        exit_failed("handing out the forwarded ports");
    }
    drop(listeners);
    if let Some(proxy) = &fence.proxy {
        let addr = std::net::SocketAddr::from((std::net::Ipv4Addr::LOCALHOST, proxy.port));
        let Ok(fd) = sys::tcp_listener(addr) else {
            exit_failed("the registry proxy's listener");
        };
        if forward::send_fds(sock, &[fd], forward::PROXY).is_err() {
            exit_failed("handing out the registry proxy's listener");
        }
        // SAFETY: the parent holds its own copy now.
        unsafe { libc::close(fd) };
    }
    if !signal_byte(sock, b'.') {
        exit_failed("handing out the forwarded ports");
    }
    // A fork while still single-threaded.
    let Ok(init) = sys::fork() else {
        exit_failed("fork");
    };
    if init == 0 {
        init_process(fence, p, sock);
    }
    // SAFETY: the init holds the socket from here (this process, having made a pid namespace
    // for its children, cannot start a thread to serve it).
    unsafe { libc::close(sock) };
    let status = wait_for(init);
    // SAFETY: _exit ends the child without running the parent's destructors.
    unsafe { libc::_exit(status) }
}

static COMMAND_PID: AtomicI32 = AtomicI32::new(0);

extern "C" fn pass_on(sig: libc::c_int) {
    let pid = COMMAND_PID.load(Ordering::Relaxed);
    if pid > 0 {
        sys::kill(pid, sig);
    }
}

/// Pid 1 of the fence: its own /proc, the command as its child, signals passed on, orphans
/// reaped; ends with the command.
fn init_process(fence: &Fence, p: &Prepared, sock: RawFd) -> ! {
    // SAFETY: system calls; a failed /proc mount leaves the host's (Landlock still keeps other
    // processes' memory and environment out of reach).
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let _ = sys::mount(
            Some(c"proc"),
            c"/proc",
            Some(c"proc"),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            None,
        );
    }
    // A fork in a single-threaded process.
    let Ok(cmd) = sys::fork() else {
        exit_failed("fork");
    };
    if cmd == 0 {
        command(fence, p);
    }
    COMMAND_PID.store(cmd, Ordering::Relaxed);
    // Sockets made in the fence's network for the parent, which joins them to connections from
    // this machine to a server the run starts (`forward::expose`).
    std::thread::spawn(move || forward::socket_factory(sock));
    for sig in [
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ] {
        // SAFETY: installing an async-signal-safe handler.
        unsafe { libc::signal(sig, pass_on as *const () as libc::sighandler_t) };
    }
    loop {
        // Any child of pid 1 (orphans are reparented here).
        match sys::wait(-1) {
            // SAFETY: _exit; the kernel ends every other process of the namespace with pid 1.
            Ok((got, st)) if got == cmd => unsafe { libc::_exit(status_of(st)) },
            Ok(_) => {}
            // SAFETY: _exit when nothing is left to wait for.
            Err(_) => unsafe { libc::_exit(NOT_FENCED) },
        }
    }
}

/// The command's process: no new privileges, Landlock, seccomp, then exec.
fn command(fence: &Fence, p: &Prepared) -> ! {
    // SAFETY: prctl with constant arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        exit_failed("no_new_privs");
    }
    if let Err(e) = landlock(fence) {
        eprintln!(
            "sentinel contain: the fence could not be built (Landlock: {e}); the command did not run"
        );
        // SAFETY: exit before the command runs.
        unsafe { libc::_exit(NOT_FENCED) }
    }
    if let Err(e) = seccomp() {
        eprintln!(
            "sentinel contain: the fence could not be built (seccomp: {e}); the command did not run"
        );
        // SAFETY: exit before the command runs.
        unsafe { libc::_exit(NOT_FENCED) }
    }
    let argv: Vec<*const libc::c_char> = p
        .argv
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let env: Vec<*const libc::c_char> = p
        .env
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    // SAFETY: NUL-terminated arrays of C strings that live until exec.
    let e = unsafe { sys::execve(p.program.as_ptr(), argv.as_ptr(), env.as_ptr()) };
    eprintln!(
        "sentinel contain: cannot run {}: {e}",
        p.program.to_string_lossy()
    );
    // SAFETY: exit after a failed exec (127: not found, as a shell says).
    unsafe {
        libc::_exit(if e.kind() == std::io::ErrorKind::NotFound {
            127
        } else {
            126
        })
    }
}

/// The fence's loopback interface up.
fn loopback_up() -> bool {
    #[repr(C)]
    struct IfreqFlags {
        name: [u8; 16],
        flags: libc::c_short,
        _pad: [u8; 22],
    }
    let mut req = IfreqFlags {
        name: [0; 16],
        flags: (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short,
        _pad: [0; 22],
    };
    req.name[..2].copy_from_slice(b"lo");
    // SAFETY: an ioctl on a socket with a correctly sized ifreq.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return false;
        }
        // The request's type is the C library's (glibc: unsigned long; musl: int).
        let ok = libc::ioctl(fd, libc::SIOCSIFFLAGS as _, &mut req) == 0;
        libc::close(fd);
        ok
    }
}

/// One byte to the other end of the socket pair.
fn signal_byte(sock: RawFd, b: u8) -> bool {
    // SAFETY: a one-byte write from a local.
    unsafe { libc::write(sock, (&b as *const u8).cast(), 1) == 1 }
}

/// One byte from the other end; None when it closed first.
fn wait_byte(sock: RawFd) -> Option<u8> {
    let mut b = 0u8;
    loop {
        // SAFETY: a one-byte read into a local.
        let n = unsafe { libc::read(sock, (&mut b as *mut u8).cast(), 1) };
        if n == 1 {
            return Some(b);
        }
        if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return None;
    }
}

fn write_file(path: &str, bytes: &[u8]) -> bool {
    std::fs::write(path, bytes).is_ok()
}

fn exit_failed(step: &str) -> ! {
    let e = std::io::Error::last_os_error();
    eprintln!(
        "sentinel contain: the fence could not be built ({step}: {e}); the command did not run"
    );
    // SAFETY: exit before the command runs.
    unsafe { libc::_exit(NOT_FENCED) }
}

fn fail(step: &str, e: &std::io::Error) -> i32 {
    eprintln!(
        "sentinel contain: the fence could not be built ({step}: {e}); the command did not run"
    );
    NOT_FENCED
}

fn wait_for(pid: libc::pid_t) -> i32 {
    match sys::wait(pid) {
        Ok((_, st)) => status_of(st),
        Err(_) => NOT_FENCED,
    }
}

fn status_of(st: libc::c_int) -> i32 {
    if libc::WIFEXITED(st) {
        libc::WEXITSTATUS(st)
    } else if libc::WIFSIGNALED(st) {
        128 + libc::WTERMSIG(st)
    } else {
        NOT_FENCED
    }
}
