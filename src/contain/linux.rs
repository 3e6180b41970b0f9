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

use crate::contain::plan::{DEVICES, Fence};
use crate::contain::{forward, sys};
use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, Scope, path_beneath_rules,
};
use std::ffi::{CString, OsStr, OsString};
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

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

/// Reads everywhere but the devices (only those of [`DEVICES`]); writes only in the project
/// and the plan's writable places; no signals to or abstract sockets of processes outside.
fn landlock(fence: &Fence) -> Result<(), String> {
    let abi = ABI::V6;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::ReadFile | AccessFs::ReadDir | AccessFs::Execute;
    // Never a device node made, anywhere (a disk's node made in the project would be a way
    // round every fence).
    let write = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let mut tops: Vec<PathBuf> = std::fs::read_dir("/")
        .map_err(|e| format!("reading /: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != Path::new("/dev"))
        .collect();
    tops.sort();
    let device_files: Vec<&Path> = DEVICES.iter().map(Path::new).collect();
    let mut writable: Vec<&Path> = fence.writable.iter().map(PathBuf::as_path).collect();
    // The run's own copies of the package stores (their writes land in its private /tmp).
    writable.extend(fence.stores.iter().map(PathBuf::as_path));
    writable.push(&fence.project);
    // The home's copy: what the run writes there is gone when it ends.
    if HOME_COPIED.load(Ordering::Relaxed)
        && let Some(home) = &fence.scratch_home
    {
        writable.push(home);
    }
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(|e| e.to_string())?
        .scope(Scope::from_all(abi))
        .map_err(|e| e.to_string())?
        .create()
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&tops, read))
        .map_err(|e| e.to_string())?
        // Every folder may be listed, `/` itself too (getcwd walks up through `..` when a path
        // is too long); what a folder holds is read only where the rules above allow.
        .add_rules(path_beneath_rules([Path::new("/")], AccessFs::ReadDir))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&device_files, read | write))
        .map_err(|e| e.to_string())?
        .add_rules(path_beneath_rules(&writable, read | write))
        .map_err(|e| e.to_string())?;
    let status = created.restrict_self().map_err(|e| e.to_string())?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("not enforced by this kernel".into());
    }
    Ok(())
}

/// System calls refused inside the fence (EPERM): new namespaces, mounts, the kernel keyring,
/// io_uring (whose operations seccomp cannot see), modules, kexec, handles that bypass paths.
fn seccomp() -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    use std::collections::BTreeMap;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always = [
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_userfaultfd,
        libc::SYS_open_by_handle_at,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_mount_setattr,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_iopl,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_ioperm,
    ];
    for nr in always {
        rules.insert(nr, Vec::new());
    }
    // clone with any namespace flag; clone3 (whose flags seccomp cannot read) is refused as
    // unknown, and the C library falls back to clone.
    let namespaces = [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWCGROUP,
    ];
    let mut clone_rules = Vec::new();
    for flag in namespaces {
        let flag = flag as u64;
        let cond = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(flag),
            flag,
        )
        .map_err(|e| e.to_string())?;
        clone_rules.push(SeccompRule::new(vec![cond]).map_err(|e| e.to_string())?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let mut program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    // clone3 → ENOSYS, put first: the C library then uses clone, which the rules above read.
    let clone3: BpfProgram = SeccompFilter::new(
        [(libc::SYS_clone3, Vec::new())].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        std::env::consts::ARCH
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?,
    )
    .map_err(|e| e.to_string())?
    .try_into()
    .map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&clone3).map_err(|e| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())?;
    program.clear();
    Ok(())
}

/// statfs's relatime flag (the kernel's `ST_RELATIME`), which the libc crate names for glibc only.
const ST_RELATIME: libc::c_ulong = 0x1000;

/// Mount flags a bind mount inherits and a remount must keep (the kernel refuses to drop them
/// in a user namespace).
fn kept_flags(path: &Path) -> libc::c_ulong {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return 0;
    };
    let Some(f) = sys::mount_flags(&c) else {
        return 0;
    };
    let mut out = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f & st_flag != 0 {
            out |= ms_flag;
        }
    }
    out
}

/// `path` bound onto itself, read-write as it was: it cannot be renamed or removed inside the
/// fence (EBUSY), what is in it stays writable.
fn pin(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    sys::mount(Some(&c), &c, None, libc::MS_BIND | libc::MS_REC, None).is_ok()
}

fn bind_read_only(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // A bind mount of an existing path onto itself, then made read-only.
    if sys::mount(Some(&c), &c, None, libc::MS_BIND | libc::MS_REC, None).is_err() {
        return false;
    }
    let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | kept_flags(path);
    sys::mount(None, &c, None, flags, None).is_ok()
}

/// An empty temp dir of the run's own over `temp`; a project inside it is bound back in place.
fn private_temp(temp: &Path, project: &Path) -> bool {
    let Ok(t) = CString::new(temp.as_os_str().as_bytes()) else {
        return false;
    };
    let inside = project.starts_with(temp);
    // The project's folder, held open across the mount that hides it.
    let held = if inside {
        match std::fs::File::open(project) {
            Ok(f) => Some(f),
            Err(_) => return false,
        }
    } else {
        None
    };
    // SAFETY: a tmpfs mount on an existing folder.
    let mounted = sys::mount(
        Some(c"tmpfs"),
        &t,
        Some(c"tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(c"mode=1777"),
    )
    .is_ok();
    if !mounted {
        return false;
    }
    let Some(held) = held else {
        return true;
    };
    if std::fs::create_dir_all(project).is_err() {
        return false;
    }
    let from = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&held));
    let (Ok(from), Ok(to)) = (
        CString::new(from),
        CString::new(project.as_os_str().as_bytes()),
    ) else {
        return false;
    };
    // A recursive bind of the held folder onto its own path in the new temp dir.
    sys::mount(Some(&from), &to, None, libc::MS_BIND | libc::MS_REC, None).is_ok()
}

/// Set in the fence's first child when the home is the run's own copy (its children, the
/// command's process among them, are forks of it and see the same value).
static HOME_COPIED: AtomicBool = AtomicBool::new(false);

/// Where the run's own layer of the home lives: in its private /tmp, gone with it.
const HOME_LAYER: &str = "/tmp/.sentinel-home";

/// The home as the run sees it: an overlay of the home as it is with a layer of the run's own
/// above it, then the places inside it whose writes must stay real bound back as they are
/// (the project, the writable caches) and SENTINEL_HOME read-only. `Ok(false)`: the kernel
/// refused the overlay and nothing changed; `Err`: a step after it failed (the run must not
/// start: its writes to the project would be lost).
fn private_home(home: &Path, fence: &Fence) -> Result<bool, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // The places bound back, held open across the mount that covers them.
    let mut kept: Vec<&Path> = fence
        .writable
        .iter()
        .map(PathBuf::as_path)
        .filter(|w| w.starts_with(home) && !w.starts_with(&fence.project))
        .collect();
    if fence.project.starts_with(home) {
        kept.push(&fence.project);
    }
    let mut held = Vec::with_capacity(kept.len());
    for place in kept {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_NOFOLLOW)
            .open(place)
            .map_err(|e| format!("holding {} open: {e}", place.display()))?;
        held.push((file, place));
    }
    if !overlay(home, Path::new(HOME_LAYER)) {
        return Ok(false);
    }
    // Each as it is, on its path in the copy (a place inside another comes back with it).
    for (file, place) in &held {
        let from = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file));
        let (Ok(from), Ok(to)) = (
            CString::new(from),
            CString::new(place.as_os_str().as_bytes()),
        ) else {
            return Err(format!("binding {} back", place.display()));
        };
        if sys::mount(Some(&from), &to, None, libc::MS_BIND | libc::MS_REC, None).is_err() {
            return Err(format!(
                "binding {} back in the home's copy",
                place.display()
            ));
        }
    }
    let own = &fence.sentinel_home;
    if own.starts_with(home)
        && !own.starts_with(&fence.project)
        && own.is_dir()
        && !bind_read_only(own)
    {
        return Err(format!("making {} read-only", own.display()));
    }
    Ok(true)
}

/// A place to cover that the home's copy does not show (it was on another file system
/// mounted inside the home, which an overlay does not carry): nothing to cover.
fn out_of_view(path: &Path) -> bool {
    HOME_COPIED.load(Ordering::Relaxed) && std::fs::symlink_metadata(path).is_err()
}

/// Where the run's own layers of the package stores live: in its private /tmp, gone with it.
const STORE_LAYERS: &str = "/tmp/.sentinel-package-stores";

/// `store` as the run sees it: an overlay of the store as it is (read-only below) and a layer
/// of the run's own in its private /tmp above, where whatever it adds or changes lands.
fn private_store(store: &Path, n: usize) -> bool {
    overlay(store, Path::new(&format!("{STORE_LAYERS}/{n}")))
}

/// Mounts over `place` an overlay of it as it is (read-only below) with a layer in `layers`
/// (`upper` and `work` made there) above, where whatever the run adds or changes lands. False
/// when the layer cannot be made or the kernel refuses the mount: nothing was mounted.
fn overlay(place: &Path, layers: &Path) -> bool {
    let (upper, work) = (layers.join("upper"), layers.join("work"));
    if std::fs::create_dir_all(&upper).is_err() || std::fs::create_dir_all(&work).is_err() {
        return false;
    }
    let options = format!(
        "lowerdir={},upperdir={},workdir={},userxattr",
        escape_overlay(place),
        escape_overlay(&upper),
        escape_overlay(&work)
    );
    let (Ok(target), Ok(options)) = (
        CString::new(place.as_os_str().as_bytes()),
        CString::new(options),
    ) else {
        return false;
    };
    sys::mount(
        Some(c"overlay"),
        &target,
        Some(c"overlay"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&options),
    )
    .is_ok()
}

/// A path in overlayfs's options: `,`, `:` and `\` escaped.
fn escape_overlay(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        if matches!(c, ',' | ':' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An empty read-only folder over `path`.
fn cover_dir(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    sys::mount(
        Some(c"tmpfs"),
        &c,
        Some(c"tmpfs"),
        libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some(c"size=4k,mode=0555"),
    )
    .is_ok()
}

/// `/dev/null` (empty, whatever is written to it lost) over the file `path`.
fn cover_file(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    sys::mount(Some(c"/dev/null"), &c, None, libc::MS_BIND, None).is_ok()
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

/// True for a `.pth` file that runs no code: Python's `site` adds each of its lines to the
/// import path and executes only those that begin with `import`. An editable install writes
/// one (`pip install -e .`, `uv sync`): the project's path, or setuptools' finder, whose import
/// line runs a module the same install left in site-packages (as any installed module, it runs
/// when used; the finder line is let through so that editable installs keep working).
fn pth_runs_nothing(place: &Path) -> bool {
    if place.extension().is_none_or(|e| e != "pth") {
        return false;
    }
    let Ok(meta) = std::fs::symlink_metadata(place) else {
        return false;
    };
    if !meta.is_file() || meta.len() > 64 * 1024 {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(place) else {
        return false;
    };
    text.lines().all(|line| {
        let runs = line.starts_with("import ") || line.starts_with("import\t");
        !runs || editable_finder(line)
    })
}

/// setuptools' editable finder line: `import __editable___NAME_finder;
/// __editable___NAME_finder.install('PATH')`.
fn editable_finder(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("import __editable___") else {
        return false;
    };
    let Some((name, call)) = rest.split_once("_finder; __editable___") else {
        return false;
    };
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let Some(arg) = call
        .strip_prefix(name)
        .and_then(|c| c.strip_prefix("_finder.install("))
        .and_then(|c| c.strip_suffix(')'))
    else {
        return false;
    };
    // Nothing, or one quoted path: nothing that calls or joins anything else.
    let quoted = |q: char| {
        arg.len() >= 2
            && arg.starts_with(q)
            && arg.ends_with(q)
            && !arg[1..arg.len() - 1].contains([q, '\\'])
    };
    ident(name) && (arg.is_empty() || quoted('\'') || quoted('"'))
}

/// A protected place the run created (it did not exist before), or replaced (it is not the one
/// that was there: another device or inode), is moved into `quarantine`, so that nothing it
/// holds runs later outside the fence; the person is told on stderr. A look through the whole
/// project that could not be completed leaves it unverified ([`crate::contain::unverified`]).
fn move_aside_new_places(fence: &Fence, quarantine: &Path, started: (i64, i64)) {
    use crate::contain::plan::{Look, changed_watched};
    use crate::contain::unverified;
    // After a run whose look was incomplete, what changed since that run began.
    let since = fence.unverified_since.map_or(started, |u| u.min(started));
    // A lower bound may be asked for (the tests do, so as not to make 250,000 folders); never
    // a higher one.
    let budget = std::env::var("SENTINEL_CONTAIN_MAX_DIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(crate::contain::plan::MAX_WALK_DIRS, |n: usize| {
            n.min(crate::contain::plan::MAX_WALK_DIRS)
        });
    let mut look = Look {
        left: budget,
        incomplete: false,
    };
    // The repositories the plan found are pinned and checked by identity, so not looked at
    // again; after an unverified run, a nested one may be what that run made (the plan found it
    // since): only the project's own is left out then.
    let own_git = fence.project.join(".git");
    let known: Vec<PathBuf> = fence
        .repos
        .iter()
        .filter(|r| fence.unverified_since.is_none() || **r == own_git)
        .cloned()
        .collect();
    let nested = changed_watched(
        &fence.project,
        &fence.watched_names,
        &fence.git_places,
        since,
        &known,
        &mut look,
    );
    if look.incomplete {
        let recorded = unverified::record(&fence.sentinel_home, &fence.project, since);
        crate::errln!(
            "sentinel contain: the run left more than {} folders in the project: the look for places it made that run code later (.git, .envrc, .pth in any folder) could not be completed, so {} is recorded as unverified{}: no git or direnv there is allowed without you until a fenced run's look completes (`sentinel contain --project DIR -- true`, once the folders are gone) or you delete {}",
            budget,
            fence.project.display(),
            match &recorded {
                Ok(()) => String::new(),
                Err(e) => format!(" (COULD NOT BE RECORDED: {e}; look before anything runs there)"),
            },
            unverified::record_path(&fence.sentinel_home, &fence.project).display()
        );
    } else if fence.unverified_since.is_some() {
        unverified::clear(&fence.sentinel_home, &fence.project);
        crate::errln!(
            "sentinel contain: {} was unverified; this run's look went back to the run that left it so and was complete: verified",
            fence.project.display()
        );
    }
    let mut places: Vec<(PathBuf, &str)> = Vec::new();
    for p in fence.must_not_appear.iter().chain(&nested) {
        places.push((p.clone(), "created"));
    }
    for p in replaced(fence) {
        places.push((p, "replaced"));
    }
    // A place inside another one moved aside goes with it.
    places.sort();
    places.dedup_by(|b, a| b.0.starts_with(&a.0));
    for (place, what) in &places {
        if std::fs::symlink_metadata(place).is_err()
            || (*what == "created" && pth_runs_nothing(place))
        {
            continue;
        }
        if fence.sentinel_home.starts_with(place) {
            crate::errln!(
                "sentinel contain: the run {what} {}, which holds sentinel's home: look at it before anything runs there",
                place.display()
            );
            continue;
        }
        let rel = place.strip_prefix(&fence.project).unwrap_or(place);
        let to = quarantine.join(rel);
        let moved = crate::contain::quarantine::move_into(place, &to).is_ok();
        if moved {
            crate::errln!(
                "sentinel contain: the run {what} {}, a protected place (it would run code later): moved to {}",
                place.display(),
                to.display()
            );
        } else {
            let removed = std::fs::remove_dir_all(place)
                .or_else(|_| std::fs::remove_file(place))
                .is_ok();
            crate::errln!(
                "sentinel contain: the run {what} {}, a protected place (it would run code later): {}",
                place.display(),
                if removed {
                    "removed (it could not be moved aside)"
                } else {
                    "COULD NOT BE REMOVED: delete it before anything runs there"
                }
            );
        }
    }
}

/// Keeps the quarantine bounded (the folder above this run's).
fn bound_quarantine(quarantine: &Path) {
    if let Some(all) = quarantine.parent()
        && let Err(e) = crate::contain::quarantine::bound(all, crate::clock::now_ms())
    {
        crate::errln!("sentinel contain: warning: the quarantine could not be kept bounded: {e}");
    }
}

/// The places that are not what they were before the run (their pins make this impossible
/// inside the fence; checked all the same). A repository's `.git` that is another is not the
/// person's: moved aside whole, as a new nested one is. Another folder above protected places
/// (`.cargo`): the protected places in it. A read-only place: itself.
fn replaced(fence: &Fence) -> Vec<PathBuf> {
    use crate::contain::plan::Identity;
    let mut out = Vec::new();
    for before in &fence.identities {
        let Some(now) = Identity::of(&before.path) else {
            continue;
        };
        if now == *before {
            continue;
        }
        if fence.repos.contains(&before.path) || !fence.pinned.contains(&before.path) {
            out.push(before.path.clone());
        } else {
            out.extend(
                fence
                    .read_only
                    .iter()
                    .chain(&fence.must_not_appear)
                    .filter(|p| p.starts_with(&before.path))
                    .cloned(),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::editable_finder;

    #[test]
    fn only_setuptools_finder_line_is_taken_for_an_editable_install() {
        assert!(editable_finder(
            "import __editable___py1_0_1_finder; __editable___py1_0_1_finder.install('/p/src/py1')"
        ));
        assert!(editable_finder(
            "import __editable___py1_0_1_finder; __editable___py1_0_1_finder.install()"
        ));
        for bad in [
            "import os; os.system('x')",
            "import __editable___a_finder; __editable___b_finder.install('/p')",
            "import __editable___a_finder; __editable___a_finder.install('/p'); import os",
            "import __editable___a_finder; __editable___a_finder.install(__import__('os'))",
            "import __editable___a_finder; __editable___a_finder.install('/p') or 1",
            "import __editable___a_finder; __editable___a_finder.install('/p\\'+x+'')",
        ] {
            assert!(!editable_finder(bad), "{bad}");
        }
    }
}
