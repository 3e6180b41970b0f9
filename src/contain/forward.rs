//! The loopback ports that were listening when the call was judged, carried into the fence's
//! own network: inside, a listener on 127.0.0.1:PORT (and [::1]:PORT) made in the fence's
//! namespace; outside, `sentinel contain` accepts on it and connects to the same port of this
//! machine's loopback, copying both ways. Nothing else crosses: the fence has no route out.

use crate::contain::lists::{self, List};
use crate::contain::sys;
use std::collections::{HashMap, HashSet};
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

/// Listeners in the current (the fence's) network namespace, one per port and loopback
/// address that can be bound.
pub fn listeners(ports: &[u16]) -> Vec<OwnedFd> {
    let mut out = Vec::new();
    for &port in ports {
        for ip in [
            SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            SocketAddr::from((Ipv6Addr::LOCALHOST, port)),
        ] {
            if let Ok(fd) = sys::tcp_listener(ip) {
                // SAFETY: a fresh fd this function owns.
                out.push(unsafe { OwnedFd::from_raw_fd(fd) });
            }
        }
    }
    out
}

/// Room for one control message carrying one fd, in 8-byte words.
const CONTROL_WORDS: usize = 8;

/// Calls `f` with a message header over `byte` and room for one control message of one fd: the
/// one setup [`send_fds`] and [`recv_message`] share.
fn with_message<R>(byte: &mut [u8; 1], f: impl FnOnce(&mut libc::msghdr) -> R) -> R {
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    // A cmsghdr's alignment (a plain byte buffer may not have it: undefined behaviour).
    let mut control = [0u64; CONTROL_WORDS];
    debug_assert!(space <= std::mem::size_of_val(&control));
    // SAFETY: a zeroed msghdr is valid; the buffers it points to outlive `f`.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    f(&mut msg)
}

/// Sends `fds` over the Unix socket `sock` (SCM_RIGHTS), one message each, its byte `tag`.
pub fn send_fds(sock: RawFd, fds: &[RawFd], tag: u8) -> io::Result<()> {
    for &fd in fds {
        with_message(&mut [tag], |msg| {
            // SAFETY: the control buffer holds one cmsg of one fd (CMSG_SPACE above).
            unsafe {
                let cmsg = libc::CMSG_FIRSTHDR(msg);
                (*cmsg).cmsg_level = libc::SOL_SOCKET;
                (*cmsg).cmsg_type = libc::SCM_RIGHTS;
                (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
                std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
                sys::sendmsg(sock, msg)
            }
        })?;
    }
    Ok(())
}

/// One message sent by [`send_fds`] (or a plain byte): its byte and the fds it carries; None
/// when the other end has closed `sock`.
pub fn recv_message(sock: RawFd) -> Option<(u8, Vec<OwnedFd>)> {
    loop {
        let mut byte = [0u8; 1];
        let got = with_message(&mut byte, |msg| {
            // SAFETY: recvmsg into the buffers above; MSG_CMSG_CLOEXEC keeps the fds from
            // children.
            let n = unsafe { sys::recvmsg(sock, msg, libc::MSG_CMSG_CLOEXEC) };
            if n <= 0 {
                let interrupted =
                    n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted;
                return Err(interrupted);
            }
            let mut fds = Vec::new();
            // SAFETY: the kernel filled the control buffer; each SCM_RIGHTS cmsg carries fds.
            unsafe {
                let mut cmsg = libc::CMSG_FIRSTHDR(msg);
                while !cmsg.is_null() {
                    if (*cmsg).cmsg_level == libc::SOL_SOCKET
                        && (*cmsg).cmsg_type == libc::SCM_RIGHTS
                    {
                        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
                        fds.push(OwnedFd::from_raw_fd(fd));
                    }
                    cmsg = libc::CMSG_NXTHDR(msg, cmsg);
                }
            }
            Ok(fds)
        });
        match got {
            Ok(fds) => return Some((byte[0], fds)),
            Err(true) => continue,
            Err(false) => return None,
        }
    }
}

/// Receives the listeners the fence made, each with its tag ([`FORWARDED`], [`PROXY`]), up to
/// the end marker (a message without fds).
pub fn recv_listeners(sock: RawFd) -> Vec<(u8, OwnedFd)> {
    let mut out = Vec::new();
    while let Some((tag, fds)) = recv_message(sock) {
        if fds.is_empty() {
            break;
        }
        out.extend(fds.into_iter().map(|fd| (tag, fd)));
    }
    out
}

/// The tag of a forwarded port's listener.
pub const FORWARDED: u8 = b'f';
/// The tag of the registry proxy's listener.
pub const PROXY: u8 = b'p';

/// Inside the fence: makes a TCP socket in its network for each request (`4` or `6`) that
/// comes over `sock`, and hands it out, until `sock` closes. Outside, [`expose`] connects
/// those sockets to the fence's own loopback.
pub fn socket_factory(sock: RawFd) {
    loop {
        let mut b = 0u8;
        // SAFETY: a one-byte read into a local.
        let n = unsafe { libc::read(sock, (&mut b as *mut u8).cast(), 1) };
        if n != 1 {
            if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        let domain = if b == b'6' {
            libc::AF_INET6
        } else {
            libc::AF_INET
        };
        // SAFETY: a fresh socket, closed here once sent.
        let fd = unsafe { libc::socket(domain, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 || send_fds(sock, &[fd], b's').is_err() {
            return;
        }
        // SAFETY: the other end holds its own copy now.
        unsafe { libc::close(fd) };
    }
}

/// Outside the fence: a server the run starts listening on a port of its own (a dev server,
/// `npm run dev`) is reached from this machine's loopback on the same port, when that port is
/// free here: the person's browser and the agent's next `curl` find it. Only inward: a
/// connection from outside is joined to a socket made inside (by [`socket_factory`]), so the
/// run still cannot open one out. `fence_pid` is a process in the fence's network namespace.
pub fn expose(sock: RawFd, fence_pid: libc::pid_t, forwarded: Vec<u16>) {
    let factory = std::sync::Arc::new(std::sync::Mutex::new(sock));
    std::thread::spawn(move || {
        let mut exposed = forwarded;
        loop {
            std::thread::sleep(std::time::Duration::from_millis(200));
            for (port, v6) in fence_listeners(fence_pid) {
                if exposed.contains(&port) {
                    continue;
                }
                exposed.push(port);
                let Ok(host) = sys::tcp_listener(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
                else {
                    continue;
                };
                // SAFETY: a fresh listener this thread owns.
                let host = unsafe { OwnedFd::from_raw_fd(host) };
                let factory = factory.clone();
                std::thread::spawn(move || {
                    while let Ok(conn) = sys::accept(host.as_raw_fd()) {
                        // SAFETY: a fresh fd from accept.
                        let outside = unsafe { TcpStream::from_raw_fd(conn) };
                        let Some(inside) = inside_socket(&factory, v6) else {
                            return;
                        };
                        let to: SocketAddr = if v6 {
                            (Ipv6Addr::LOCALHOST, port).into()
                        } else {
                            (Ipv4Addr::LOCALHOST, port).into()
                        };
                        std::thread::spawn(move || {
                            if let Ok(inside) = connect(inside, to) {
                                join(outside, inside);
                            }
                        });
                    }
                });
            }
        }
    });
}

/// A socket made in the fence's network, asked of the factory.
fn inside_socket(factory: &std::sync::Mutex<RawFd>, v6: bool) -> Option<OwnedFd> {
    let sock = factory.lock().ok()?;
    let b = if v6 { b'6' } else { b'4' };
    // SAFETY: a one-byte write from a local.
    if unsafe { libc::write(*sock, (&b as *const u8).cast(), 1) } != 1 {
        return None;
    }
    recv_message(*sock).and_then(|(_, mut fds)| fds.pop())
}

/// `sock` (a socket made in the fence) connected to `to`.
fn connect(sock: OwnedFd, to: SocketAddr) -> io::Result<TcpStream> {
    let (_, storage, len) = sys::sockaddr_of(to);
    // SAFETY: connect on an owned socket with a sockaddr of its length.
    let r = unsafe {
        libc::connect(
            sock.as_raw_fd(),
            (&storage as *const libc::sockaddr_storage).cast(),
            len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(TcpStream::from(sock))
}

/// The TCP ports listening in the fence's network (`/proc/PID/net/tcp*` of a process in it),
/// and whether on IPv6 only.
fn fence_listeners(pid: libc::pid_t) -> Vec<(u16, bool)> {
    listening(&format!("/proc/{pid}/net"))
}

/// Serves each listener (from the fence's namespace) on a thread of its own: every connection
/// accepted is joined to the same address and port of this machine's loopback. The threads
/// end with the process.
pub fn serve(listeners: Vec<OwnedFd>) {
    for listener in listeners {
        std::thread::spawn(move || {
            let Some(addr) = sys::local_addr(listener.as_raw_fd()) else {
                return;
            };
            while let Ok(conn) = sys::accept(listener.as_raw_fd()) {
                // SAFETY: a fresh fd from accept, owned from here on.
                let inside = unsafe { TcpStream::from_raw_fd(conn) };
                std::thread::spawn(move || {
                    if let Ok(outside) = TcpStream::connect(addr) {
                        join(inside, outside);
                    }
                });
            }
        });
    }
}

/// Copies both ways, one thread a direction; each side is shut for writing when the other
/// has nothing more.
pub(crate) fn join(a: TcpStream, b: TcpStream) {
    let (Ok(a2), Ok(b2)) = (a.try_clone(), b.try_clone()) else {
        return;
    };
    std::thread::spawn(move || copy(a, b2));
    copy(b, a2);
}

fn copy(mut from: TcpStream, mut to: TcpStream) {
    let _ = io::copy(&mut from, &mut to);
    let _ = to.shutdown(std::net::Shutdown::Write);
}

/// The loopback TCP ports listening on this machine now (`/proc/net/tcp` and `tcp6`): on
/// 127.0.0.0/8, ::1, or every address.
pub fn listening_loopback_ports() -> Vec<u16> {
    let mut ports: Vec<u16> = listening("/proc/net").into_iter().map(|(p, _)| p).collect();
    ports.sort_unstable();
    ports
}

/// The TCP ports listening on loopback or every address in the network namespace whose
/// `net` folder is `dir` (`tcp`, then `tcp6`), each once, with whether it was first seen on
/// IPv6.
fn listening(dir: &str) -> Vec<(u16, bool)> {
    let mut out: Vec<(u16, bool)> = Vec::new();
    for s in listening_sockets(dir) {
        if !out.iter().any(|(p, _)| *p == s.port) {
            out.push((s.port, s.v6));
        }
    }
    out
}

/// One listening TCP socket on loopback or every address, as `/proc/net/tcp*` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Socket {
    port: u16,
    v6: bool,
    /// Its owner's uid (who made it).
    uid: u32,
    /// The socket's inode: `socket:[INODE]` in the fd links of the processes that hold it.
    inode: u64,
}

/// Every listening socket on loopback or every address in the network namespace whose `net`
/// folder is `dir` (`tcp`, then `tcp6`).
fn listening_sockets(dir: &str) -> Vec<Socket> {
    let mut out = Vec::new();
    for (file, v6) in [("tcp", false), ("tcp6", true)] {
        let Ok(text) = std::fs::read_to_string(format!("{dir}/{file}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
            let cols: Vec<&str> = line.split_whitespace().take(10).collect();
            let [_, local, _, state, _, _, _, uid, _, inode] = cols[..] else {
                continue;
            };
            let Some((addr, port)) = local.split_once(':') else {
                continue;
            };
            if state != "0A" || !is_loopback_or_any(addr, v6) {
                continue;
            }
            if let (Ok(port), Ok(uid), Ok(inode)) = (
                u16::from_str_radix(port, 16),
                uid.parse::<u32>(),
                inode.parse::<u64>(),
            ) {
                out.push(Socket {
                    port,
                    v6,
                    uid,
                    inode,
                });
            }
        }
    }
    out
}

/// The loopback ports to carry into a fence judged now: those listening on this machine, less
/// those a service that runs code on request listens on (docs/containment.md):
///
/// - a port held by a process whose name is in `rules/contain/refused_port_owners.txt` (the
///   agent, editors, browsers, notebook servers and kernels), found through the socket's inode
///   in `/proc/*/fd`;
/// - a port of the person's own (the socket's uid is this process's) whose holder cannot be
///   found: a process sentinel cannot see (another pid namespace) may be any of those;
/// - a port Claude Code's IDE integration announces (`~/.claude/ide/PORT.lock`), whoever holds
///   it: the lock file's token is not the only guard.
///
/// A socket of another user whose holder cannot be seen (a database run as `postgres`: its
/// `/proc/PID/fd` is closed to the person) is forwarded: the person's agent, editors and
/// browsers run as the person. `refused_ports.txt` still applies, in the fence's plan.
pub fn ports_to_forward(home: Option<&Path>, sentinel_home: &Path) -> Vec<u16> {
    let sockets = listening_sockets("/proc/net");
    if sockets.is_empty() {
        return Vec::new();
    }
    let me = sys::geteuid();
    let (lines, _) = lists::load(List::RefusedPortOwners, sentinel_home);
    let names: Vec<String> = lines.into_iter().map(|l| l.entry).collect();
    let announced = ide_lock_ports(home);
    let holders = holders(&sockets, Path::new("/proc"));
    let refused_socket = |s: &Socket| {
        if announced.contains(&s.port) {
            return true;
        }
        match holders.get(&s.inode) {
            Some(pids) => pids.iter().any(|pid| {
                process_names(&Path::new("/proc").join(pid.to_string()))
                    .iter()
                    .any(|n| refused_name(n, &names))
            }),
            None => s.uid == me,
        }
    };
    let refused: Vec<u16> = sockets
        .iter()
        .filter(|s| refused_socket(s))
        .map(|s| s.port)
        .collect();
    let mut ports: Vec<u16> = sockets
        .iter()
        .map(|s| s.port)
        .filter(|p| !refused.contains(p))
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The processes (pids) holding each of `sockets`' inodes, from the fd links under `proc`:
/// only the processes whose fds this one may read (its own user's, or all as root).
fn holders(sockets: &[Socket], proc: &Path) -> HashMap<u64, Vec<u32>> {
    let wanted: HashSet<u64> = sockets.iter().map(|s| s.inode).collect();
    let mut found: HashMap<u64, Vec<u32>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir(proc) else {
        return found;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(e.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let Ok(link) = std::fs::read_link(fd.path()) else {
                continue;
            };
            let Some(inode) = link
                .to_str()
                .and_then(|l| l.strip_prefix("socket:["))
                .and_then(|l| l.strip_suffix(']'))
                .and_then(|l| l.parse::<u64>().ok())
            else {
                continue;
            };
            if wanted.contains(&inode) {
                let pids = found.entry(inode).or_default();
                if !pids.contains(&pid) {
                    pids.push(pid);
                }
            }
        }
    }
    found
}

/// The names a process goes by, for `refused_port_owners.txt`: its `comm`, its executable's
/// file name, its first argument's, and what an interpreter runs: the first argument after it
/// that is not an option (`node /usr/bin/claude`), or the module after `-m`.
fn process_names(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(comm) = std::fs::read_to_string(dir.join("comm")) {
        out.push(comm.trim_end_matches('\n').to_string());
    }
    if let Ok(exe) = std::fs::read_link(dir.join("exe"))
        && let Some(name) = exe.file_name()
    {
        // A deleted executable reads `NAME (deleted)`.
        let name = name.to_string_lossy();
        out.push(name.trim_end_matches(" (deleted)").to_string());
    }
    let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .take(16)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let base = |a: &str| a.rsplit('/').next().unwrap_or(a).to_string();
    if let Some(first) = args.first() {
        out.push(base(first));
    }
    let mut rest = args.iter().skip(1);
    while let Some(a) = rest.next() {
        if a == "-m" {
            if let Some(module) = rest.next() {
                out.push(module.clone());
            }
            break;
        }
        if !a.starts_with('-') {
            out.push(base(a));
            break;
        }
    }
    out
}

/// True when `name` is one of `list`'s names (an entry ending in `*` matches every name it
/// starts), in any case.
fn refused_name(name: &str, list: &[String]) -> bool {
    let name = name.to_ascii_lowercase();
    list.iter().any(|entry| {
        let entry = entry.to_ascii_lowercase();
        match entry.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == entry,
        }
    })
}

/// The ports Claude Code's IDE integrations announce: `PORT.lock` files in `~/.claude/ide`
/// (under `CLAUDE_CONFIG_DIR` when that is set).
fn ide_lock_ports(home: Option<&Path>) -> Vec<u16> {
    let dirs: Vec<PathBuf> = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(|d| PathBuf::from(d).join("ide"))
        .into_iter()
        .chain(home.map(|h| h.join(".claude/ide")))
        .collect();
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            if let Some(port) = name
                .to_str()
                .and_then(|n| n.strip_suffix(".lock"))
                .and_then(|n| n.parse::<u16>().ok())
            {
                out.push(port);
            }
        }
    }
    out
}

/// `/proc/net/tcp*`'s address column: hex, in the kernel's byte order per 32-bit word.
fn is_loopback_or_any(hex: &str, v6: bool) -> bool {
    if !v6 {
        // The kernel prints the address's four bytes as one native-endian word.
        let Ok(n) = u32::from_str_radix(hex, 16) else {
            return false;
        };
        let ip = Ipv4Addr::from(n.to_ne_bytes());
        return ip.is_loopback() || ip.is_unspecified();
    }
    hex == "00000000000000000000000000000000"
        || hex == "00000000000000000000000001000000"
        // ::ffff:127.0.0.1 style mapped loopback
        || (hex.starts_with("0000000000000000FFFF0000") && hex.ends_with("7F"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_net_addresses_read_as_loopback_or_not() {
        if cfg!(target_endian = "little") {
            assert!(is_loopback_or_any("0100007F", false));
            assert!(is_loopback_or_any("00000000", false));
            assert!(!is_loopback_or_any("0A00020F", false));
        }
        assert!(is_loopback_or_any("00000000000000000000000001000000", true));
        assert!(!is_loopback_or_any(
            "B80D0120000000000000000001000000",
            true
        ));
    }

    #[test]
    fn a_port_listening_here_is_listed() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(listening_loopback_ports().contains(&port));
    }
}
