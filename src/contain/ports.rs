//! Which loopback ports a fenced run may reach: those listening on this machine when the call
//! is judged (`/proc/net/tcp`, `tcp6`), less the refused ones and those held by programs that
//! run code on request (docs/containment.md, "Which ports come in"). Read by the hook, on every
//! system; only Linux has a fence to carry them into ([`super::forward`]).

use crate::contain::lists::{self, List};
use std::collections::{HashMap, HashSet};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

/// The loopback TCP ports listening on this machine now (`/proc/net/tcp` and `tcp6`): on
/// 127.0.0.0/8, ::1, or every address.
pub fn listening_loopback_ports() -> Vec<u16> {
    let mut ports: Vec<u16> = listening_sockets_here()
        .into_iter()
        .map(|s| s.port)
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The TCP ports listening on loopback or every address in the network namespace whose
/// `net` folder is `dir` (`tcp`, then `tcp6`), each once, with whether it was first seen on
/// IPv6. (Only Linux has a fence to look into.)
#[cfg(target_os = "linux")]
pub(crate) fn listening(dir: &str) -> Vec<(u16, bool)> {
    once_each(listening_sockets(dir))
}

/// As [`listening`], for the namespace of a `sock_diag` socket; `None` when it cannot answer.
#[cfg(target_os = "linux")]
pub(crate) fn listening_through(diag: &std::os::fd::OwnedFd) -> Option<Vec<(u16, bool)>> {
    let all = super::sock_diag::listening_tcp_through(diag).ok()?;
    Some(once_each(on_loopback(all)))
}

/// The kernel's listeners that are on loopback or every address, as sockets.
#[cfg(target_os = "linux")]
fn on_loopback(all: Vec<super::sock_diag::Listener>) -> Vec<Socket> {
    all.into_iter()
        .filter(|l| is_loopback_or_any_bytes(&l.addr, l.v6))
        .map(|l| Socket {
            port: l.port,
            v6: l.v6,
            uid: l.uid,
            inode: l.inode,
        })
        .collect()
}

/// Each socket's port once, with whether it was first seen on IPv6.
#[cfg(target_os = "linux")]
fn once_each(sockets: Vec<Socket>) -> Vec<(u16, bool)> {
    let mut out: Vec<(u16, bool)> = Vec::new();
    for s in sockets {
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

/// Every listening socket on loopback or every address in this process's network namespace:
/// asked of the kernel through `sock_diag` (`/proc/net/tcp` costs a millisecond a file to
/// print, [`super::sock_diag`]), read from `/proc/net` when that fails.
fn listening_sockets_here() -> Vec<Socket> {
    #[cfg(target_os = "linux")]
    if let Ok(all) = super::sock_diag::listening_tcp() {
        return on_loopback(all);
    }
    listening_sockets("/proc/net")
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
    let sockets = listening_sockets_here();
    if sockets.is_empty() {
        return Vec::new();
    }
    #[cfg(unix)]
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    // Windows has no /proc/net: the list above is empty there, and this is never reached.
    #[cfg(not(unix))]
    let me = u32::MAX;
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
            let link = match std::fs::read_link(fd.path()) {
                Ok(link) => link,
                // Another user's process (or one ptrace rules keep out): its folder lists,
                // but none of its links read; asking for each costs a call a descriptor.
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => break,
                Err(_) => continue,
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

/// A `sock_diag` address (network byte order) on loopback or every address, as
/// [`is_loopback_or_any`] reads `/proc/net/tcp*`'s: 127.0.0.0/8, 0.0.0.0, `::1`, `::`, and
/// `::ffff:127.x.y.z`.
#[cfg(target_os = "linux")]
fn is_loopback_or_any_bytes(addr: &[u8; 16], v6: bool) -> bool {
    if !v6 {
        let ip = Ipv4Addr::new(addr[0], addr[1], addr[2], addr[3]);
        return ip.is_loopback() || ip.is_unspecified();
    }
    let ip = std::net::Ipv6Addr::from(*addr);
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
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
    fn the_kernel_and_proc_net_name_the_same_listeners() {
        let v4 = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let v6 = std::net::TcpListener::bind("[::1]:0").ok();
        let mine: Vec<u16> = std::iter::once(&v4)
            .chain(v6.as_ref())
            .map(|l| l.local_addr().unwrap().port())
            .collect();
        let pick = |all: Vec<Socket>| {
            let mut v: Vec<Socket> = all.into_iter().filter(|s| mine.contains(&s.port)).collect();
            v.sort_by_key(|s| (s.port, s.v6));
            v
        };
        let asked = pick(listening_sockets_here());
        assert_eq!(asked, pick(listening_sockets("/proc/net")));
        assert_eq!(asked.len(), mine.len());
    }

    #[test]
    fn a_port_listening_here_is_listed() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert!(listening_loopback_ports().contains(&port));
    }
}
