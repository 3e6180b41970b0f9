//! What leaves the machine in a request (WebFetch's URL, WebSearch's query, a fetch server's
//! URL, an MCP tool's URL field and input): a secret value the session read, a key's shape, a
//! URL's password, a credential file's `file://` URL, or a host that answers the machine's own
//! cloud credentials.

use crate::decision::{CommandReport, Verdict};
use crate::ledger::secrets;
use crate::local::context::Context;
use crate::local::paths::{self as local_paths, credentials};
use crate::rules::Rules;
use regex::Regex;
use std::sync::OnceLock;

/// What text leaving the machine carries: a secret value the session read, a key shape, a
/// password in a URL, a credential file named by a `file:` URL, a cloud metadata host.
pub(crate) fn judged(
    text: &str,
    seen: &[String],
    rules: &Rules,
    ctx: &Context,
) -> Vec<CommandReport> {
    let mut out = Vec::new();
    let shown = crate::text::excerpt(text);
    if !seen.is_empty() {
        out.push(CommandReport::plain(
            shown.clone(),
            Verdict::Deny,
            format!(
                "it carries a secret value this session read ({}); instead: keep secrets out of URLs, queries and tool input; if the person wants it sent, they send it",
                seen.join(", ")
            ),
            None,
        ));
    }
    if let Some((what, cut)) = secrets::key_shape(text) {
        out.push(CommandReport::plain(
            shown.clone(),
            Verdict::Deny,
            format!("it carries {what} (`{cut}`); instead: keep keys out of URLs, queries and tool input"),
            None,
        ));
    }
    let decoded = secrets::percent_decoded(text);
    if let Some(pw) = url_password(&decoded) {
        out.push(CommandReport::plain(
            shown.clone(),
            Verdict::Deny,
            format!("the URL carries a password (`{pw}…`); instead: fetch it without credentials, or ask the person"),
            None,
        ));
    }
    if let Some(host) = metadata_host(&decoded) {
        out.push(CommandReport::plain(
            shown.clone(),
            Verdict::Deny,
            format!(
                "`{host}` answers this machine's cloud credentials (rules/metadata_hosts.txt); instead: ask the person for what the task needs from the cloud"
            ),
            None,
        ));
    }
    for part in decoded.split_whitespace() {
        if let Some(path) = part.strip_prefix("file://")
            && let Some(p) = local_paths::resolve(path, ctx.cwd, ctx.home)
            && let Some(cred) = credentials::credential(&ctx.fs.real_path(&p), rules)
                .or_else(|| credentials::credential(&p, rules))
        {
            out.push(CommandReport::plain(
                shown.clone(),
                Verdict::Deny,
                format!(
                    "it names the credential file {} ({}); instead: leave credential files alone",
                    p.display(),
                    cred.pattern
                ),
                None,
            ));
        }
    }
    out
}

/// The first URL host in `text` that answers cloud credentials (`rules/metadata_hosts.txt`).
fn metadata_host(text: &str) -> Option<String> {
    let hosts = || crate::lists::entries(include_str!("../../rules/metadata_hosts.txt"));
    text.match_indices("://").find_map(|(at, _)| {
        let rest = &text[at + 3..];
        let authority = rest
            .split(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace())
            .next()?;
        let host = authority.rsplit('@').next()?;
        let host = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next()?,
            None => host.split(':').next()?,
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        // An address in any spelling (`0xa9fea9fe`, `2852039166`, `::ffff:169.254.169.254`) is
        // the address; the link-local range is never a page.
        let ip = address(&host);
        let listed = hosts().any(|h| h == host || (ip.is_some() && address(h) == ip));
        let link_local = matches!(ip, Some(std::net::IpAddr::V4(v4)) if v4.is_link_local());
        (listed || link_local).then_some(host)
    })
}

/// `host` as an IP address, read as the resolver reads it: IPv4 in `inet_aton`'s forms (one to
/// four parts, each decimal, `0x` hex or `0` octal: `2852039166`, `0xa9.0xfe.169.254`), IPv6,
/// and an IPv4-mapped IPv6 address as its IPv4.
fn address(host: &str) -> Option<std::net::IpAddr> {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    if let Ok(v6) = host.parse::<Ipv6Addr>() {
        return Some(match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        });
    }
    let parts: Vec<u64> = host
        .split('.')
        .map(|p| {
            let (digits, radix) = if let Some(h) = p.strip_prefix("0x") {
                (h, 16)
            } else if p.len() > 1 && p.starts_with('0') {
                (&p[1..], 8)
            } else {
                (p, 10)
            };
            u64::from_str_radix(digits, radix).ok()
        })
        .collect::<Option<_>>()?;
    let (last, head) = parts.split_last()?;
    if head.len() > 3 || head.iter().any(|&p| p > 255) {
        return None;
    }
    let rest_bits = 8 * (4 - head.len() as u32);
    if *last >= 1u64 << rest_bits {
        return None;
    }
    let n = head
        .iter()
        .fold(0u64, |acc, &p| acc << 8 | p)
        .checked_shl(rest_bits)?
        | last;
    Some(IpAddr::V4(Ipv4Addr::from(u32::try_from(n).ok()?)))
}

/// The start of the password in a URL's user info (`https://u:PASSWORD@host`).
fn url_password(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s/@:]+:([^\s/@]{3,})@")
            .expect("a constant regex")
    });
    re.captures(text).map(|c| c[1].chars().take(2).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_read_in_every_spelling_the_resolver_takes() {
        let v4 = |s: &str| address(s).map(|a| a.to_string());
        for spelled in [
            "169.254.169.254",
            "0xa9fea9fe",
            "2852039166",
            "0251.0376.0251.0376",
            "169.254.43518",
            "0xa9.0xfe.0xa9.0xfe",
            "::ffff:169.254.169.254",
        ] {
            assert_eq!(v4(spelled).as_deref(), Some("169.254.169.254"), "{spelled}");
        }
        for not in [
            "docs.python.org",
            "256.1.1.1",
            "1.2.3.4.5",
            "0x1g",
            "metadata",
            "",
        ] {
            assert!(address(not).is_none() || not.is_empty(), "{not}");
        }
        assert_eq!(v4("fd00:ec2::254").as_deref(), Some("fd00:ec2::254"));
    }
}
