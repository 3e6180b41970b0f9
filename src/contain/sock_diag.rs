//! The listening TCP sockets of this process's network namespace, asked of the kernel through
//! netlink's `sock_diag` (`NETLINK_SOCK_DIAG`, `inet_diag_req_v2`, states = LISTEN only).
//!
//! Why not `/proc/net/tcp`: to print it the kernel walks every bucket of the established-socket
//! hash, whose size grows with the machine's memory, on each `read`: 1.1-1.6 ms a file on a
//! 24 GiB machine with three sockets, most of a fenced call's hook. Asked for listeners only,
//! `inet_diag` walks the listening hash alone (~0.06 ms for both families). Any failure here
//! (no netlink in a sandbox, `inet_diag` not loadable, an answer that does not parse) makes the
//! caller read `/proc/net/tcp*` as before: the two give the same sockets.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// One listening socket as `inet_diag` describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listener {
    pub port: u16,
    pub v6: bool,
    /// The local address, as the kernel keeps it (network byte order; IPv4 in the first four).
    pub addr: [u8; 16],
    pub uid: u32,
    pub inode: u64,
}

const NETLINK_SOCK_DIAG: libc::c_int = 4;
const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const TCP_LISTEN: u32 = 10;
const NLMSG_HDRLEN: usize = 16;
/// `inet_diag_req_v2`: family, protocol, ext, pad, states, then a 48-byte `inet_diag_sockid`.
const REQ_LEN: usize = 8 + 48;
/// `inet_diag_msg`: family, state, timer, retrans, the 48-byte id, expires, rqueue, wqueue,
/// uid, inode.
const MSG_LEN: usize = 4 + 48 + 4 * 5;

/// Every TCP socket listening in this namespace, IPv4 then IPv6.
pub fn listening_tcp() -> io::Result<Vec<Listener>> {
    listening_tcp_through(&diag_socket()?)
}

/// A `sock_diag` socket: it answers for the network namespace it was made in, whoever asks
/// through it later (the fence's is made inside and handed out, [`super::forward`]).
pub fn diag_socket() -> io::Result<OwnedFd> {
    // SAFETY: socket(2) with constant arguments; the fd is owned at once.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd was just returned by socket(2) and nothing else owns it.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    // The kernel answers a dump at once; a second without one is an error (then /proc is
    // read), never a hook that waits for its watchdog.
    let timeout = libc::timeval {
        tv_sec: 1,
        tv_usec: 0,
    };
    // SAFETY: setsockopt with a timeval of its size.
    let set = unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&timeout as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if set != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(sock)
}

/// Every TCP socket listening in the namespace of `sock` (a [`diag_socket`]), IPv4 then IPv6.
pub fn listening_tcp_through(sock: &OwnedFd) -> io::Result<Vec<Listener>> {
    let mut out = Vec::new();
    for (seq, family) in [(1u32, libc::AF_INET), (2, libc::AF_INET6)] {
        send_request(sock, seq, family as u8)?;
        read_answers(sock, seq, family == libc::AF_INET6, &mut out)?;
    }
    Ok(out)
}

fn send_request(sock: &OwnedFd, seq: u32, family: u8) -> io::Result<()> {
    let mut msg = [0u8; NLMSG_HDRLEN + REQ_LEN];
    msg[0..4].copy_from_slice(&((NLMSG_HDRLEN + REQ_LEN) as u32).to_ne_bytes());
    msg[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    msg[6..8].copy_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    msg[8..12].copy_from_slice(&seq.to_ne_bytes());
    let req = &mut msg[NLMSG_HDRLEN..];
    req[0] = family;
    req[1] = libc::IPPROTO_TCP as u8;
    req[4..8].copy_from_slice(&(1u32 << TCP_LISTEN).to_ne_bytes());
    // SAFETY: msg is a valid buffer of msg.len() bytes for the duration of the call.
    let n = unsafe { libc::send(sock.as_raw_fd(), msg.as_ptr().cast(), msg.len(), 0) };
    if n != msg.len() as isize {
        return Err(io::Error::other("sock_diag: request not sent whole"));
    }
    Ok(())
}

/// Reads the kernel's answers to request `seq` until its `NLMSG_DONE`.
fn read_answers(sock: &OwnedFd, seq: u32, v6: bool, out: &mut Vec<Listener>) -> io::Result<()> {
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        // SAFETY: buf is a valid writable buffer of buf.len() bytes.
        let n = unsafe { libc::recv(sock.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::Error::other("sock_diag: the answer ended early"));
        }
        if parse(&buf[..n as usize], seq, v6, out)? {
            return Ok(());
        }
    }
}

/// Adds the sockets of one datagram of answers to `out`; true once the dump's end is read.
fn parse(mut data: &[u8], seq: u32, v6: bool, out: &mut Vec<Listener>) -> io::Result<bool> {
    let bad = || io::Error::other("sock_diag: an answer that does not parse");
    while data.len() >= NLMSG_HDRLEN {
        let len = u32::from_ne_bytes(data[0..4].try_into().map_err(|_| bad())?) as usize;
        let kind = u16::from_ne_bytes([data[4], data[5]]);
        let their_seq = u32::from_ne_bytes(data[8..12].try_into().map_err(|_| bad())?);
        if len < NLMSG_HDRLEN || len > data.len() {
            return Err(bad());
        }
        if their_seq == seq {
            match kind {
                NLMSG_DONE => return Ok(true),
                NLMSG_ERROR => return Err(io::Error::other("sock_diag: the kernel refused")),
                SOCK_DIAG_BY_FAMILY => {
                    out.push(listener(&data[NLMSG_HDRLEN..len], v6).ok_or_else(bad)?)
                }
                _ => {}
            }
        }
        let step = (len + 3) & !3;
        data = data.get(step..).unwrap_or(&[]);
    }
    Ok(false)
}

fn listener(m: &[u8], v6: bool) -> Option<Listener> {
    if m.len() < MSG_LEN {
        return None;
    }
    let word = |at: usize| u32::from_ne_bytes([m[at], m[at + 1], m[at + 2], m[at + 3]]);
    Some(Listener {
        port: u16::from_be_bytes([m[4], m[5]]),
        v6,
        addr: m[8..24].try_into().ok()?,
        uid: word(64),
        inode: u64::from(word(68)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listener_here_is_seen_with_its_address_uid_and_inode() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let Ok(all) = listening_tcp() else {
            // A sandbox without netlink: the caller reads /proc/net instead.
            return;
        };
        let me = all
            .iter()
            .find(|s| s.port == port && !s.v6)
            .expect("listed");
        assert_eq!(&me.addr[..4], &[127, 0, 0, 1]);
        // SAFETY: geteuid has no preconditions.
        assert_eq!(me.uid, unsafe { libc::geteuid() });
        let link = format!("socket:[{}]", me.inode);
        let held = std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .any(|fd| {
                std::fs::read_link(fd.path()).is_ok_and(|l| l.to_str() == Some(link.as_str()))
            });
        assert!(held, "the inode is the one this process holds");
    }

    #[test]
    fn a_truncated_answer_is_an_error_not_a_short_list() {
        let mut out = Vec::new();
        // A header that claims more bytes than the datagram holds.
        let mut d = vec![0u8; NLMSG_HDRLEN];
        d[0..4].copy_from_slice(&200u32.to_ne_bytes());
        d[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        assert!(parse(&d, 1, false, &mut out).is_err());
        // A message too short for an inet_diag_msg.
        let mut d = vec![0u8; NLMSG_HDRLEN + 8];
        d[0..4].copy_from_slice(&((NLMSG_HDRLEN + 8) as u32).to_ne_bytes());
        d[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        d[8..12].copy_from_slice(&1u32.to_ne_bytes());
        assert!(parse(&d, 1, false, &mut out).is_err());
        assert!(out.is_empty());
    }
}
