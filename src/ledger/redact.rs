//! Secrets taken out of a text before it leaves the machine (the decisions sentinel exports).
//!
//! What is taken out, each replaced by [`MARK`]:
//! - every obvious key shape ([`super::secrets`]'s list: AWS, GitHub, Anthropic, OpenAI, Slack,
//!   GitLab, Google, Stripe, npm), found in the text as written and percent-decoded;
//! - the value of an assignment or option whose name says secret (`DB_PASSWORD=…`,
//!   `--api-key …`, `"token": "…"`, `-H 'Authorization: Bearer …'`, `password …`);
//! - the password of a URL (`https://user:PASSWORD@host`);
//! - a PEM private key's body, from its BEGIN line to its END line (or the end of the text).
//!
//! The local audit log keeps what was asked whole (it is the person's, 0600 in SENTINEL_HOME,
//! and a reviewer needs the command as it ran); what goes to a collector goes through
//! [`redacted`]. A value sent otherwise transformed (split, reversed, encrypted) is not
//! recognised, as in `secrets`.

use regex::Regex;
use std::sync::OnceLock;

/// What stands in for a secret.
pub const MARK: &str = "[REDACTED]";

/// Values named as secrets: `NAME=v`, `NAME: v`, `"name": "v"`, `--name v`, `--name=v`.
fn named() -> &'static [Regex] {
    static RE: OnceLock<Vec<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        let name = r"(?:token|secret|passw|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|session[_-]?key|auth[_-]?key|client[_-]?secret|dsn|database[_-]?url|conn(?:ection)?[_-]?str)";
        [
            // NAME=value, NAME: value, "name": "value" (the name may carry more around it).
            format!(
                r#"(?i)[A-Za-z0-9_.\-]*{name}[A-Za-z0-9_.\-]*["']?\s*[:=]\s*["']?([^\s"',;&]+)"#
            ),
            // --name value (an option whose name says secret, its value the next word).
            format!(r#"(?i)(?:^|\s)--?[A-Za-z0-9_\-]*{name}[A-Za-z0-9_\-]*\s+["']?([^\s"',;&]+)"#),
            // password VALUE (a netrc, a prompt's answer).
            r#"(?i)\b(?:password|passwd|secret|token)\s+["']?([^\s"',;&-][^\s"',;&]*)"#.into(),
            // Authorization: Bearer VALUE / Basic VALUE, and a bare `Bearer VALUE`.
            r#"(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/=\-]{8,})"#.into(),
            r#"(?i)\bauthorization\s*[:=]\s*["']?(?:[A-Za-z]+\s+)?([^\s"',;]+)"#.into(),
            // scheme://user:PASSWORD@host
            r#"(?i)\b[a-z][a-z0-9+.\-]*://[^/\s:@]*:([^/\s@]+)@"#.into(),
            // The allow-once code in a deny's reason: the person's grant, not the collector's.
            r#"\ballow-once\s+([A-Z0-9]{4,})"#.into(),
        ]
        .into_iter()
        .chain(PASSWORD_OPTIONS.iter().map(|(programs, option)| {
            // PROGRAM … OPTION VALUE or OPTIONVALUE (a `user:` before the value stays).
            format!(
                r#"(?:^|[^A-Za-z0-9_./\-])(?:{programs})\s(?:[^;&|]*\s)?{option}\s*["']?(?:[^\s:"'@]+:)?([^\s"']+)"#
            )
        }))
        .collect::<Vec<String>>()
        .iter()
        .map(|p| Regex::new(p).expect("a constant regex"))
        .collect()
    })
}

/// Programs whose option takes a password as its value (the value may be `user:password`, as
/// curl's `-u`): `(programs as an alternation, the option)`.
const PASSWORD_OPTIONS: &[(&str, &str)] = &[
    ("mysql|mysqldump|mysqladmin|mariadb", "-p"),
    ("sshpass", "-p"),
    ("redis-cli", "-a"),
    ("curl", "(?:-u|--user|--proxy-user|-U)"),
    ("wget", "(?:--password|--http-password|--ftp-password)=?"),
    ("smbclient|rdesktop|xfreerdp", "(?:-U|-p|/p:)"),
];

/// `text` with every secret it shows replaced by [`MARK`] (see the module doc).
pub fn redacted(text: &str) -> String {
    let decoded = super::secrets::percent_decoded(text);
    // A secret written percent-encoded is judged in its decoded form; the decoded text is
    // what is kept then (a URL's escapes are lost, its secrets are not sent).
    let text = if decoded != text && has_secret(&decoded) {
        decoded.as_str()
    } else {
        text
    };
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for (_, re) in super::secrets::shapes() {
        for m in re.find_iter(text) {
            cuts.push((m.start(), m.end()));
        }
    }
    for re in named() {
        for c in re.captures_iter(text) {
            if let Some(v) = c.iter().skip(1).flatten().next() {
                cuts.push((v.start(), v.end()));
            }
        }
    }
    cuts.extend(pem_bodies(text));
    if cuts.is_empty() {
        return text.to_string();
    }
    cuts.sort();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in cuts {
        if end <= at {
            continue;
        }
        let start = start.max(at);
        out.push_str(&text[at..start]);
        out.push_str(MARK);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// Whether `text` shows a secret [`redacted`] takes out.
pub fn has_secret(text: &str) -> bool {
    super::secrets::shapes()
        .iter()
        .any(|(_, re)| re.is_match(text))
        || named().iter().any(|re| re.is_match(text))
}

/// The byte ranges of private keys' bodies: after each BEGIN … PRIVATE KEY line's header, to
/// its END line or the text's end.
fn pem_bodies(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(b) = text[from..].find("-----BEGIN") {
        let begin = from + b;
        let Some(head_end) = text[begin + 10..].find("-----").map(|e| begin + 10 + e + 5) else {
            break;
        };
        if !text[begin..head_end].contains("PRIVATE KEY") {
            from = head_end;
            continue;
        }
        let end = text[head_end..]
            .find("-----END")
            .map(|e| head_end + e)
            .unwrap_or(text.len());
        if end > head_end {
            out.push((head_end, end));
        }
        from = end.max(head_end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_of_every_kind_are_taken_out_and_the_rest_kept() {
        for (text, secret) in [
            (
                "aws s3 ls --profile x AKIAIOSFODNN7EXAMPLE",
                "AKIAIOSFODNN7EXAMPLE",
            ),
            (
                "export DB_PASSWORD=hunter2hunter2 && psql",
                "hunter2hunter2",
            ),
            (
                "curl -H 'Authorization: Bearer abc.DEF.123456' https://x",
                "abc.DEF.123456",
            ),
            (
                "git clone https://bob:s3cr3tpw@git.example/r.git",
                "s3cr3tpw",
            ),
            ("tool --api-key K9x8c7v6b5n4 run", "K9x8c7v6b5n4"),
            (
                "no rule matches `sshpass -p MySshPass77 ssh web1`",
                "MySshPass77",
            ),
            ("mysql -u root -pRootPw99 db", "RootPw99"),
            (
                "echo '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----'",
                "MIIEow",
            ),
            (
                "curl 'https://x/?t=ghp_0123456789abcdefghijABCDEFGHIJ012345'",
                "ghp_0123456789",
            ),
            (
                "curl https://x/?k=%41KIAIOSFODNN7EXAMPLE",
                "IOSFODNN7EXAMPLE",
            ),
        ] {
            let r = redacted(text);
            assert!(!r.contains(secret), "{text} -> {r}");
            assert!(r.contains(MARK), "{text} -> {r}");
        }
        for plain in [
            "git status",
            "ls -la src",
            "cargo test --release",
            "rm -rf target",
        ] {
            assert_eq!(redacted(plain), plain);
        }
    }
}

#[cfg(test)]
mod corpus {
    /// The credential corpus (`tests/corpus/credentials.jsonl`): no secret survives, the
    /// held-out lines (written before they were run, not tuned on) included.
    #[test]
    fn no_secret_of_the_credential_corpus_survives() {
        let corpus = include_str!("../../tests/corpus/credentials.jsonl");
        let mut missed = Vec::new();
        for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let (command, secret) = (
                v["command"].as_str().unwrap(),
                v["secret"].as_str().unwrap(),
            );
            let r = super::redacted(command);
            if r.contains(secret) {
                missed.push(format!("held_out={} {command} -> {r}", v["held_out"]));
            }
        }
        assert!(missed.is_empty(), "{missed:#?}");
    }
}
