//! The fence's data files (`rules/contain/*.txt`, and the person's additions in SENTINEL_HOME):
//! where a contained run may write, what it cannot reach, which loopback ports stay closed.

use crate::contain::list_scan;
use crate::decision::RuleError;
use std::path::{Path, PathBuf};

/// One of the fence's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// Tool caches a contained run may write.
    Writable,
    /// Sockets and folders hidden from it.
    Hidden,
    /// Loopback ports never forwarded.
    RefusedPorts,
    /// The places inside `.git` a run cannot change.
    GitReadOnly,
    /// Files an interpreter runs at every start, moved aside when a run makes them.
    StartFiles,
    /// Programs whose own network need is fetching packages from registries.
    RegistryClients,
    /// The hosts (`host`, `host:port`, `*.domain`) the registry proxy reaches.
    Registries,
    /// Package stores a run that reaches the registries adds to in a copy of its own.
    PackageStores,
    /// Claude Code settings that widen its sandbox: with one set, it does not count as a fence.
    AgentSandboxWidening,
    /// Names of programs whose listening ports are never forwarded (the agent, editors,
    /// browsers, notebook servers).
    RefusedPortOwners,
}

include!(concat!(env!("OUT_DIR"), "/bundled_contain.rs"));

impl List {
    /// The bundled file's name under `rules/contain/`.
    pub fn bundled_name(self) -> &'static str {
        list_scan::FILES[self as usize]
    }

    /// The person's file in SENTINEL_HOME, which adds to the bundled one.
    pub fn home_name(self) -> &'static str {
        match self {
            List::Writable => "contain_writable.txt",
            List::Hidden => "contain_hidden.txt",
            List::RefusedPorts => "contain_refused_ports.txt",
            List::GitReadOnly => "contain_git_read_only.txt",
            List::StartFiles => "contain_start_files.txt",
            List::RegistryClients => "contain_registry_clients.txt",
            List::Registries => "contain_registries.txt",
            List::PackageStores => "contain_package_stores.txt",
            List::AgentSandboxWidening => "contain_agent_sandbox_widening.txt",
            List::RefusedPortOwners => "contain_refused_port_owners.txt",
        }
    }
}

/// One line: its entry (without the comment) and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub entry: String,
    pub file: String,
    pub line: usize,
}

/// The bundled lines of `list`, then the person's; errors name `file:line`.
pub fn load(list: List, sentinel_home: &Path) -> (Vec<Line>, Vec<RuleError>) {
    let bundled_file = format!("contain/{} (bundled)", list.bundled_name());
    let mut lines: Vec<Line> = BUNDLED[list as usize]
        .iter()
        .map(|&(entry, line)| Line {
            entry: entry.to_string(),
            file: bundled_file.clone(),
            line,
        })
        .collect();
    let mut errors = Vec::new();
    let own = sentinel_home.join(list.home_name());
    match crate::config::files::read(&own, 256 * 1024, crate::config::files::Links::Follow) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => lines.extend(parse(&text, &own.display().to_string())),
            Err(_) => errors.push(RuleError {
                file: own.display().to_string(),
                line: 0,
                message: "file is not valid UTF-8".into(),
            }),
        },
        Err(e) if crate::config::is_absent(&e) => {}
        Err(e) => errors.push(RuleError {
            file: own.display().to_string(),
            line: 0,
            message: format!("cannot read: {e}"),
        }),
    }
    if list == List::RefusedPorts {
        for l in &lines {
            if l.entry.parse::<u16>().is_err() {
                errors.push(RuleError {
                    file: l.file.clone(),
                    line: l.line,
                    message: format!("`{}` is not a port number", l.entry),
                });
            }
        }
    }
    if list == List::Registries {
        for l in &lines {
            if HostPattern::parse(&l.entry).is_none() {
                errors.push(RuleError {
                    file: l.file.clone(),
                    line: l.line,
                    message: format!("`{}` is not a host, host:port or *.domain", l.entry),
                });
            }
        }
    }
    (lines, errors)
}

/// One line of `registries.txt`: a host name (or every name below a domain) and a port.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HostPattern {
    /// Lower case, without the `*.` of a domain pattern.
    pub host: String,
    /// Every name below `host` (not `host` itself).
    pub below: bool,
    pub port: u16,
}

impl HostPattern {
    pub fn parse(entry: &str) -> Option<HostPattern> {
        let (name, port) = match entry.rsplit_once(':') {
            Some((n, p)) => (n, p.parse::<u16>().ok().filter(|p| *p != 0)?),
            None => (entry, 443),
        };
        let (below, host) = match name.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, name),
        };
        let ok = !host.is_empty()
            && host.len() <= 253
            && host.split('.').all(|l| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        ok.then(|| HostPattern {
            host: host.to_ascii_lowercase(),
            below,
            port,
        })
    }

    /// True when `host:port` (a name as a client asked for it) is this pattern's.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        port == self.port
            && if self.below {
                host.len() > self.host.len() + 1
                    && host.ends_with(&self.host)
                    && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
            } else {
                host == self.host
            }
    }
}

/// The entries of a person's list, named `file`.
fn parse(text: &str, file: &str) -> Vec<Line> {
    crate::lists::numbered_entries(text)
        .map(|(entry, line)| Line {
            entry: entry.to_string(),
            file: file.to_string(),
            line,
        })
        .collect()
}

/// A list entry as a path: `~` is `home`; `$XDG_RUNTIME_DIR` and `$SSH_AUTH_SOCK` come from
/// `var` (None when the variable is unset or the entry is not absolute after expansion).
pub fn expand(
    entry: &str,
    home: Option<&Path>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Option<PathBuf> {
    let path = if let Some(rest) = entry.strip_prefix("~/") {
        home?.join(rest)
    } else if entry == "~" {
        home?.to_path_buf()
    } else if let Some(name) = entry.strip_prefix('$') {
        PathBuf::from(var(name).filter(|v| !v.is_empty())?)
    } else {
        PathBuf::from(entry)
    };
    path.is_absolute().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_lists_parse_and_every_line_says_why() {
        for list in [
            List::Writable,
            List::Hidden,
            List::RefusedPorts,
            List::GitReadOnly,
            List::StartFiles,
            List::RegistryClients,
            List::Registries,
            List::PackageStores,
            List::AgentSandboxWidening,
            List::RefusedPortOwners,
        ] {
            // FILES is in the enum's order: each list's two names agree.
            assert_eq!(list.home_name(), format!("contain_{}", list.bundled_name()));
            let (lines, errors) = load(list, Path::new("/nonexistent-sentinel-home"));
            assert!(errors.is_empty(), "{errors:?}");
            assert!(!lines.is_empty());
            let path = format!(
                "{}/rules/contain/{}",
                env!("CARGO_MANIFEST_DIR"),
                list.bundled_name()
            );
            let text = std::fs::read_to_string(path).unwrap();
            // What build.rs compiled is what the file says now.
            let now: Vec<(&str, usize)> = crate::lists::numbered_entries(&text).collect();
            assert_eq!(BUNDLED[list as usize], now.as_slice());
            for (i, raw) in text.lines().enumerate() {
                if lines.iter().any(|l| l.line == i + 1) {
                    assert!(
                        raw.contains(" # "),
                        "{}:{} has no reason",
                        list.bundled_name(),
                        i + 1
                    );
                }
            }
        }
    }

    #[test]
    fn an_entry_is_what_comes_before_a_blank_and_a_hash() {
        let text = "# head\n\n  # indented\ncargo   # why\n  npm\nweird#name # why\n\t# tab\nx\t# a tab before it\n";
        let got: Vec<(String, usize)> = parse(text, "f")
            .into_iter()
            .map(|l| (l.entry, l.line))
            .collect();
        let want = [("cargo", 4), ("npm", 5), ("weird#name", 6), ("x", 8)];
        assert_eq!(got, want.map(|(e, n)| (e.to_string(), n)));
    }

    #[test]
    fn registry_hosts_match_by_name_and_port() {
        let exact = HostPattern::parse("registry.npmjs.org").unwrap();
        assert!(exact.matches("registry.npmjs.org", 443));
        assert!(exact.matches("Registry.NPMJS.org.", 443));
        assert!(!exact.matches("registry.npmjs.org", 80));
        assert!(!exact.matches("evil-registry.npmjs.org", 443));
        assert!(!exact.matches("registry.npmjs.org.evil.com", 443));
        let below = HostPattern::parse("*.example.org:8443").unwrap();
        assert!(below.matches("pkg.example.org", 8443));
        assert!(!below.matches("example.org", 8443));
        assert!(!below.matches("badexample.org", 8443));
        for bad in ["", "*.", "a..b", "host:0", "host:x", "a b", "http://x"] {
            assert_eq!(HostPattern::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn entries_expand_from_the_home_and_the_environment() {
        let home = Path::new("/home/dev");
        let var = |n: &str| (n == "XDG_RUNTIME_DIR").then(|| "/run/user/1000".to_string());
        assert_eq!(
            expand("~/.npm/_logs", Some(home), &var),
            Some(PathBuf::from("/home/dev/.npm/_logs"))
        );
        assert_eq!(
            expand("$XDG_RUNTIME_DIR", Some(home), &var),
            Some(PathBuf::from("/run/user/1000"))
        );
        assert_eq!(expand("$SSH_AUTH_SOCK", Some(home), &var), None);
        assert_eq!(expand("~/x", None, &var), None);
        assert_eq!(expand("relative", Some(home), &var), None);
    }
}
