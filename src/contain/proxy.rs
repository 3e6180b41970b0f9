//! sentinel's registry proxy: a fenced run of a package tool (`cargo build`, `npm install`,
//! `go test`) reaches the package registries of `rules/contain/registries.txt` and nothing else.
//! Inside the fence the tool finds `HTTPS_PROXY=http://127.0.0.1:PORT`; the listener there was
//! made in the fence's network and handed out, and `sentinel contain`, outside, accepts on it:
//! each connection must open with `CONNECT host:port`, and only a listed host and port is
//! connected (from this machine's network, its DNS) and joined both ways. The run never holds a
//! socket of its own outside: a refused host gets a 403 that names the list, and one line on
//! stderr.
//!
//! Only tunnels (HTTPS): a plain-HTTP request through a proxy may be followed by another to a
//! different host on the same connection, so the host checked would not be the host reached.

use crate::contain::forward;
use crate::contain::lists::HostPattern;
use crate::contain::sys;
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest request head read before it is refused.
const MAX_HEAD: usize = 8 * 1024;
/// How long a registry gets to answer a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Serves `listener` (in the fence's network) on a thread of its own, for as long as the
/// process lives.
pub fn serve(listener: OwnedFd, hosts: Vec<HostPattern>) {
    let hosts = Arc::new(hosts);
    let refused: Arc<Mutex<Vec<String>>> = Arc::default();
    std::thread::spawn(move || {
        while let Ok(conn) = sys::accept(listener.as_raw_fd()) {
            // SAFETY: a fresh fd from accept, owned from here on.
            let inside = unsafe { TcpStream::from_raw_fd(conn) };
            let (hosts, refused) = (hosts.clone(), refused.clone());
            std::thread::spawn(move || handle(inside, &hosts, &refused));
        }
    });
}

/// What a request head asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    /// A tunnel to `host:port`.
    Connect { host: String, port: u16 },
    /// Anything else, with its method.
    Other(String),
}

/// The request line of `head` (the bytes up to the blank line).
pub fn parse(head: &[u8]) -> Option<Request> {
    let text = std::str::from_utf8(head).ok()?;
    let line = text.lines().next()?;
    let mut words = line.split(' ');
    let (method, target, version) = (words.next()?, words.next()?, words.next()?);
    if words.next().is_some() || !version.starts_with("HTTP/1.") {
        return None;
    }
    if !method.eq_ignore_ascii_case("CONNECT") {
        return Some(Request::Other(method.to_string()));
    }
    // `[::1]:443` is refused below: no listed name is an address in brackets.
    let (host, port) = target.rsplit_once(':')?;
    let port = port.parse::<u16>().ok()?;
    Some(Request::Connect {
        host: host.to_string(),
        port,
    })
}

fn handle(mut inside: TcpStream, hosts: &[HostPattern], refused: &Mutex<Vec<String>>) {
    let _ = inside.set_read_timeout(Some(Duration::from_secs(30)));
    let Some((head, rest)) = read_head(&mut inside) else {
        let _ = answer(
            &mut inside,
            "400 Bad Request",
            "a request head too long or cut off",
        );
        return;
    };
    let (host, port) = match parse(&head) {
        Some(Request::Connect { host, port }) => (host, port),
        Some(Request::Other(method)) => {
            let _ = answer(
                &mut inside,
                "405 Method Not Allowed",
                &format!(
                    "{method}: only HTTPS (CONNECT) reaches the package registries from a fenced run"
                ),
            );
            return;
        }
        None => {
            let _ = answer(&mut inside, "400 Bad Request", "not an HTTP/1 request");
            return;
        }
    };
    if !hosts.iter().any(|h| h.matches(&host, port)) {
        let shown = format!("{host}:{port}");
        if let Ok(mut seen) = refused.lock()
            && !seen.contains(&shown)
        {
            crate::errln!(
                "sentinel contain: refused a connection to {shown}: a fenced run reaches only the package registries of rules/contain/registries.txt (add a mirror in SENTINEL_HOME/contain_registries.txt)"
            );
            seen.push(shown.clone());
        }
        let _ = answer(
            &mut inside,
            "403 Forbidden",
            &format!("{shown} is not a package registry this fence reaches"),
        );
        return;
    }
    let Some(mut outside) = connect(&host, port) else {
        let _ = answer(
            &mut inside,
            "502 Bad Gateway",
            &format!("{host}:{port} could not be reached"),
        );
        return;
    };
    let _ = inside.set_read_timeout(None);
    if inside
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
        || (!rest.is_empty() && outside.write_all(&rest).is_err())
    {
        return;
    }
    forward::join(inside, outside);
}

/// The request head (up to and without the blank line) and any bytes read past it.
fn read_head(conn: &mut TcpStream) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(at + 4);
            buf.truncate(at);
            return Some((buf, rest));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// A connection to `host:port` from this machine's network, trying each address it resolves to.
fn connect(host: &str, port: u16) -> Option<TcpStream> {
    let addrs = (host, port).to_socket_addrs().ok()?;
    addrs
        .into_iter()
        .find_map(|a| TcpStream::connect_timeout(&a, CONNECT_TIMEOUT).ok())
}

fn answer(conn: &mut TcpStream, status: &str, why: &str) -> io::Result<()> {
    let body = format!("sentinel contain: {why}\n");
    // One write: a client that reads once sees the whole status line.
    let text = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    conn.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tunnel_request_names_its_host_and_port() {
        assert_eq!(
            parse(b"CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443"),
            Some(Request::Connect {
                host: "registry.npmjs.org".into(),
                port: 443
            })
        );
        assert_eq!(
            parse(b"GET http://example.org/ HTTP/1.1"),
            Some(Request::Other("GET".into()))
        );
        for bad in [
            &b"CONNECT host HTTP/1.1"[..],
            b"CONNECT host:99999 HTTP/1.1",
            b"CONNECT a:1 HTTP/2",
            b"CONNECT a:1 HTTP/1.1 extra",
            b"\xff\xfe",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_bracketed_address_matches_no_listed_name() {
        let Some(Request::Connect { host, port }) = parse(b"CONNECT [::1]:443 HTTP/1.1") else {
            panic!("parsed");
        };
        let listed = HostPattern::parse("registry.npmjs.org").unwrap();
        assert!(!listed.matches(&host, port));
    }
}
