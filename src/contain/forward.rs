//! The loopback ports that were listening when the call was judged, carried into the fence's
//! own network: inside, a listener on 127.0.0.1:PORT (and [::1]:PORT) made in the fence's
//! namespace; outside, `sentinel contain` accepts on it and connects to the same port of this
//! machine's loopback, copying both ways. Nothing else crosses: the fence has no route out.

use crate::contain::sys;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

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

/// Sends `fds` over the Unix socket `sock` (SCM_RIGHTS), one message each.
pub fn send_fds(sock: RawFd, fds: &[RawFd]) -> io::Result<()> {
    for &fd in fds {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        // SAFETY: CMSG_SPACE only computes a size.
        let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
        let mut control = vec![0u8; space];
        // SAFETY: a zeroed msghdr is valid; the pointers below outlive the call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: the control buffer holds one cmsg of one fd (CMSG_SPACE above).
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
            sys::sendmsg(sock, &msg)?;
        }
    }
    Ok(())
}

/// Receives fds sent by [`send_fds`] until the other end closes `sock`.
pub fn recv_fds(sock: RawFd) -> Vec<OwnedFd> {
    let mut out = Vec::new();
    loop {
        let mut byte = [0u8; 1];
        let mut iov = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        // SAFETY: CMSG_SPACE only computes a size.
        let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
        let mut control = vec![0u8; space];
        // SAFETY: a zeroed msghdr is valid; the buffers outlive the call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: recvmsg into the buffers above; MSG_CMSG_CLOEXEC keeps the fds from children.
        let n = unsafe { sys::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n <= 0 {
            if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return out;
        }
        // SAFETY: the kernel filled the control buffer; each SCM_RIGHTS cmsg carries fds.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
                    out.push(OwnedFd::from_raw_fd(fd));
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
        }
    }
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
fn join(a: TcpStream, b: TcpStream) {
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
    let mut ports = Vec::new();
    for (file, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let mut cols = line.split_whitespace();
            let (Some(_), Some(local), Some(_), Some(state)) =
                (cols.next(), cols.next(), cols.next(), cols.next())
            else {
                continue;
            };
            if state != "0A" {
                continue;
            }
            let Some((addr, port)) = local.split_once(':') else {
                continue;
            };
            let Ok(port) = u16::from_str_radix(port, 16) else {
                continue;
            };
            if is_loopback_or_any(addr, v6) && !ports.contains(&port) {
                ports.push(port);
            }
        }
    }
    ports.sort_unstable();
    ports
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
