//! The loopback ports that were listening when the call was judged, carried into the fence's
//! own network: inside, a listener on 127.0.0.1:PORT (and [::1]:PORT) made in the fence's
//! namespace; outside, `sentinel contain` accepts on it and connects to the same port of this
//! machine's loopback, copying both ways. Nothing else crosses: the fence has no route out.

use crate::contain::sys;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};

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
        // SAFETY: a fresh socket, closed here once sent.
        let fd = unsafe {
            match b {
                // A sock_diag socket: through it the parent asks which ports listen in here.
                b'n' => crate::contain::sock_diag::diag_socket().map_or(-1, IntoRawFd::into_raw_fd),
                b'6' => libc::socket(libc::AF_INET6, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0),
                _ => libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0),
            }
        };
        if fd < 0 {
            // Nothing made: a message without a socket says so, and the parent asks no more.
            // SAFETY: a one-byte write from a local.
            if unsafe { libc::write(sock, (&b'e' as *const u8).cast(), 1) } != 1 {
                return;
            }
            continue;
        }
        if send_fds(sock, &[fd], b's').is_err() {
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
        let diag = inside_socket_of(&factory, b'n');
        loop {
            std::thread::sleep(std::time::Duration::from_millis(200));
            for (port, v6) in fence_listeners(diag.as_ref(), fence_pid) {
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
    inside_socket_of(factory, if v6 { b'6' } else { b'4' })
}

/// A socket of kind `b` made in the fence by [`socket_factory`] (`4`, `6`: TCP; `n`: sock_diag).
fn inside_socket_of(factory: &std::sync::Mutex<RawFd>, b: u8) -> Option<OwnedFd> {
    let sock = factory.lock().ok()?;
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

/// The TCP ports listening in the fence's network, and whether on IPv6 only: asked through a
/// sock_diag socket made in it (polled five times a second, `/proc/PID/net/tcp*` would walk
/// the machine's whole established-socket hash each time), else read from `/proc/PID/net` of a
/// process in it.
fn fence_listeners(diag: Option<&OwnedFd>, pid: libc::pid_t) -> Vec<(u16, bool)> {
    diag.and_then(crate::contain::ports::listening_through)
        .unwrap_or_else(|| crate::contain::ports::listening(&format!("/proc/{pid}/net")))
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
