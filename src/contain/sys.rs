//! The system calls the fence makes, through libc's one `syscall` entry rather than a libc
//! function each: rustc calls imported functions through the GOT, so every libc function the
//! binary imports is bound at every start-up — each hook would pay for a subcommand it does not
//! run (46 imports cost every hook ~34,000 instructions, callgrind).

use std::ffi::CStr;

fn ret(r: libc::c_long) -> std::io::Result<libc::c_long> {
    if r < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// fork(2), as the kernel's clone with only SIGCHLD: the caller is single-threaded.
pub fn fork() -> std::io::Result<libc::pid_t> {
    // SAFETY: clone without a new stack behaves as fork; no other thread exists.
    ret(unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::SIGCHLD as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    })
    .map(|p| p as libc::pid_t)
}

pub fn unshare(flags: libc::c_int) -> std::io::Result<()> {
    // SAFETY: unshare takes flags only.
    ret(unsafe { libc::syscall(libc::SYS_unshare, flags as libc::c_long) }).map(drop)
}

/// mount(2); `None` for a null argument.
pub fn mount(
    source: Option<&CStr>,
    target: &CStr,
    fstype: Option<&CStr>,
    flags: libc::c_ulong,
    data: Option<&CStr>,
) -> std::io::Result<()> {
    let p = |c: Option<&CStr>| c.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: NUL-terminated strings (or null) that outlive the call.
    ret(unsafe {
        libc::syscall(
            libc::SYS_mount,
            p(source),
            target.as_ptr(),
            p(fstype),
            flags,
            p(data),
        )
    })
    .map(drop)
}

pub fn socketpair(domain: libc::c_int, kind: libc::c_int) -> std::io::Result<[libc::c_int; 2]> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: the kernel fills two fds.
    ret(unsafe { libc::syscall(libc::SYS_socketpair, domain, kind, 0, fds.as_mut_ptr()) })?;
    Ok(fds)
}

/// # Safety
/// `msg` must describe valid buffers.
pub unsafe fn sendmsg(fd: libc::c_int, msg: *const libc::msghdr) -> std::io::Result<()> {
    // SAFETY: the caller's buffers.
    ret(unsafe { libc::syscall(libc::SYS_sendmsg, fd, msg, 0) }).map(drop)
}

/// # Safety
/// `msg` must describe valid buffers.
pub unsafe fn recvmsg(fd: libc::c_int, msg: *mut libc::msghdr, flags: libc::c_int) -> libc::c_long {
    // SAFETY: the caller's buffers.
    unsafe { libc::syscall(libc::SYS_recvmsg, fd, msg, flags) }
}

/// The kernel's `struct statfs` on 64-bit Linux (the libc crate's lacks `f_flags`).
#[repr(C)]
struct StatFs {
    f_type: i64,
    f_bsize: i64,
    f_blocks: u64,
    f_bfree: u64,
    f_bavail: u64,
    f_files: u64,
    f_ffree: u64,
    f_fsid: [i32; 2],
    f_namelen: i64,
    f_frsize: i64,
    f_flags: i64,
    f_spare: [i64; 4],
}

/// The mount flags (`ST_*`) of the mount `path` is on.
pub fn mount_flags(path: &CStr) -> Option<libc::c_ulong> {
    // SAFETY: statfs into a zeroed struct of the kernel's layout.
    let mut st: StatFs = unsafe { std::mem::zeroed() };
    ret(unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), &mut st) }).ok()?;
    Some(st.f_flags as libc::c_ulong)
}

/// waitpid(2) without options; EINTR retried.
pub fn wait(pid: libc::pid_t) -> std::io::Result<(libc::pid_t, libc::c_int)> {
    loop {
        let mut st: libc::c_int = 0;
        // SAFETY: wait4 into a local status.
        let r = unsafe { libc::syscall(libc::SYS_wait4, pid, &mut st, 0, 0usize) };
        match ret(r) {
            Ok(p) => return Ok((p as libc::pid_t, st)),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => return Err(e),
        }
    }
}

pub fn kill(pid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: kill is async-signal-safe and takes plain numbers.
    unsafe { libc::syscall(libc::SYS_kill, pid, sig) };
}

/// # Safety
/// NUL-terminated arrays of C strings that live until the call.
pub unsafe fn execve(
    program: *const libc::c_char,
    argv: *const *const libc::c_char,
    env: *const *const libc::c_char,
) -> std::io::Error {
    // SAFETY: the caller's arrays.
    unsafe { libc::syscall(libc::SYS_execve, program, argv, env) };
    std::io::Error::last_os_error()
}

pub fn geteuid() -> u32 {
    // SAFETY: no arguments.
    unsafe { libc::syscall(libc::SYS_geteuid) as u32 }
}

pub fn getuid() -> u32 {
    // SAFETY: no arguments.
    unsafe { libc::syscall(libc::SYS_getuid) as u32 }
}

pub fn getgid() -> u32 {
    // SAFETY: no arguments.
    unsafe { libc::syscall(libc::SYS_getgid) as u32 }
}

pub fn chdir(path: &CStr) -> std::io::Result<()> {
    // SAFETY: a NUL-terminated path.
    ret(unsafe { libc::syscall(libc::SYS_chdir, path.as_ptr()) }).map(drop)
}

/// A TCP listener on `addr` (IPv4 or IPv6), as a raw fd.
pub fn tcp_listener(addr: std::net::SocketAddr) -> std::io::Result<libc::c_int> {
    let (domain, storage, len) = sockaddr_of(addr);
    // SAFETY: a socket, bound and listening; closed on failure.
    unsafe {
        let fd = ret(libc::syscall(
            libc::SYS_socket,
            domain,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
        ))? as libc::c_int;
        let one: libc::c_int = 1;
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_REUSEADDR,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
        if let Err(e) = ret(libc::syscall(libc::SYS_bind, fd, &storage, len))
            .and_then(|_| ret(libc::syscall(libc::SYS_listen, fd, 128)))
        {
            libc::close(fd);
            return Err(e);
        }
        Ok(fd)
    }
}

/// accept4(2) with CLOEXEC; EINTR retried.
pub fn accept(fd: libc::c_int) -> std::io::Result<libc::c_int> {
    loop {
        // SAFETY: accept without the peer's address.
        let r = unsafe {
            libc::syscall(
                libc::SYS_accept4,
                fd,
                std::ptr::null_mut::<libc::sockaddr>(),
                std::ptr::null_mut::<libc::socklen_t>(),
                libc::SOCK_CLOEXEC,
            )
        };
        match ret(r) {
            Ok(c) => return Ok(c as libc::c_int),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The address a socket is bound to.
pub fn local_addr(fd: libc::c_int) -> Option<std::net::SocketAddr> {
    // SAFETY: getsockname into storage of its full size.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    ret(unsafe { libc::syscall(libc::SYS_getsockname, fd, &mut storage, &mut len) }).ok()?;
    match storage.ss_family as libc::c_int {
        libc::AF_INET => {
            // SAFETY: the kernel wrote a sockaddr_in.
            let a: libc::sockaddr_in =
                unsafe { std::ptr::read((&storage as *const libc::sockaddr_storage).cast()) };
            Some(std::net::SocketAddr::from((
                a.sin_addr.s_addr.to_ne_bytes(),
                u16::from_be(a.sin_port),
            )))
        }
        libc::AF_INET6 => {
            // SAFETY: the kernel wrote a sockaddr_in6.
            let a: libc::sockaddr_in6 =
                unsafe { std::ptr::read((&storage as *const libc::sockaddr_storage).cast()) };
            Some(std::net::SocketAddr::from((
                a.sin6_addr.s6_addr,
                u16::from_be(a.sin6_port),
            )))
        }
        _ => None,
    }
}

pub fn sockaddr_of(
    addr: std::net::SocketAddr,
) -> (libc::c_int, libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: a zeroed sockaddr_storage is valid, then filled as the family says.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    match addr {
        std::net::SocketAddr::V4(a) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: a.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(a.ip().octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_in fits in sockaddr_storage.
            unsafe { std::ptr::write((&mut storage as *mut libc::sockaddr_storage).cast(), sin) };
            (
                libc::AF_INET,
                storage,
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        }
        std::net::SocketAddr::V6(a) => {
            // SAFETY: a zeroed sockaddr_in6 is valid.
            let mut sin6: libc::sockaddr_in6 = unsafe { std::mem::zeroed() };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_port = a.port().to_be();
            sin6.sin6_addr.s6_addr = a.ip().octets();
            // SAFETY: sockaddr_in6 fits in sockaddr_storage.
            unsafe { std::ptr::write((&mut storage as *mut libc::sockaddr_storage).cast(), sin6) };
            (
                libc::AF_INET6,
                storage,
                std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
            )
        }
    }
}
