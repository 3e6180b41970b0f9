//! Secret values a session has read (issue 42): what a `Read`, `Grep`, `Bash` or MCP tool's
//! output showed of keys, tokens and passwords, kept so that a later `WebFetch`, `WebSearch` or
//! MCP call whose URL, query or input carries one of them is refused.
//!
//! Only fingerprints are kept, never a value: each secret is cut into *pieces* (runs of
//! letters, digits and `_-+~`) and a piece that looks random (10 characters or more, of at least
//! two of lower case, upper case and digits) is stored as a truncated SHA-256, salted with the
//! session id, in `SENTINEL_HOME/secrets/SESSION.json`, with where it was seen. The text sent
//! out later is cut the same way and its pieces looked up, in any case (a registry name must be
//! lower case), after percent-decoding and with every base64 or hex word in it decoded too. A
//! value sent otherwise transformed (reversed, split, encrypted) is not recognised: this catches
//! the plain and the encoded leak, not a determined one (docs/mcp.md). The store is bounded ([`MAX_ENTRIES`]) and ends with the
//! session like its taint.
//!
//! What counts as a secret in an output: an obvious key shape anywhere ([`key_shape`]), the
//! value of an assignment whose name says secret (`DB_PASSWORD=…`, `"api_key": "…"`,
//! `password …` in a netrc), the body of a PEM private key, and every random-looking piece of
//! a file on the credential list that was read whole.

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The most fingerprints a session keeps; past it, new ones are dropped (the oldest stay).
pub const MAX_ENTRIES: usize = 4096;
/// How much of one output is read for secrets.
pub const MAX_SCAN_BYTES: usize = 512 * 1024;

/// Obvious key shapes: (what it is, pattern).
pub(crate) const KEY_SHAPES: &[(&str, &str)] = &[
    ("an AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "a GitHub token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    ("an Anthropic API key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("an OpenAI API key", r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{32,}"),
    ("a Slack token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("a GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    ("a Google API key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("a Stripe live key", r"\b[rs]k_live_[0-9A-Za-z]{20,}"),
    ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    (
        "a private key",
        r"-----BEGIN[A-Z ]{0,20} PRIVATE KEY(?: BLOCK)?-----",
    ),
];

pub(crate) fn shapes() -> &'static [(&'static str, Regex)] {
    static RE: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    RE.get_or_init(|| {
        KEY_SHAPES
            .iter()
            .map(|(what, p)| (*what, Regex::new(p).expect("a constant regex")))
            .collect()
    })
}

/// The first obvious key shape in `text` (percent-decoded first): what it is and the match,
/// shown cut (`AKIA…`), never whole.
pub fn key_shape(text: &str) -> Option<(&'static str, String)> {
    let decoded = percent_decoded(text);
    for (what, re) in shapes() {
        if let Some(m) = re.find(&decoded) {
            let shown: String = m.as_str().chars().take(6).collect();
            return Some((what, format!("{shown}…")));
        }
    }
    None
}

/// `%XX` escapes decoded (and `+` as a space, as in a query); invalid escapes kept as they are.
pub fn percent_decoded(text: &str) -> String {
    if !text.contains(['%', '+']) {
        return text.to_string();
    }
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The pieces of `text` that may be (part of) a secret: runs of `[A-Za-z0-9_\-+~]`, 10
/// characters or more, with at least two of lower case, upper case and digits.
pub fn pieces(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '~')))
        .filter(|p| looks_random(p))
}

fn looks_random(p: &str) -> bool {
    if p.len() < 10 || p.len() > 4096 {
        return false;
    }
    let lower = p.bytes().any(|b| b.is_ascii_lowercase());
    let upper = p.bytes().any(|b| b.is_ascii_uppercase());
    let digit = p.bytes().any(|b| b.is_ascii_digit());
    usize::from(lower) + usize::from(upper) + usize::from(digit) >= 2
}

/// Assignments whose name says secret: `NAME=value`, `NAME: value`, `"name": "value"`.
fn assignment() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r#"(?i)[A-Za-z0-9_.\-]*(?:token|secret|passw|pwd|api_?key|access_?key|private_?key|credential|session_?key|auth_?key|client_?secret|dsn|database_url|conn(?:ection)?_?str)[A-Za-z0-9_.\-]*["']?\s*[:=]\s*["']?([^\s"',;]+)"#,
            r#"|(?i)\b(?:password|passwd|secret|token)\s+([^\s"',;]+)"#,
        ))
        .expect("a constant regex")
    })
}

/// The PEM body lines of private keys in `text`.
fn pem_bodies(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("-----BEGIN") && t.contains("PRIVATE KEY") {
            inside = true;
        } else if t.starts_with("-----END") {
            inside = false;
        } else if inside {
            out.push(t);
        }
    }
    out
}

/// The secret values in an output `text`: pieces of key shapes, of secret assignments' values,
/// of private keys; with `whole`, every random-looking piece (a credential file read whole).
pub fn found_in_output(text: &str, whole: bool) -> Vec<String> {
    let mut end = text.len().min(MAX_SCAN_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let text = &text[..end];
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        for p in pieces(s) {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        }
    };
    if whole {
        add(text);
        return out;
    }
    for (_, re) in shapes() {
        for m in re.find_iter(text) {
            add(m.as_str());
        }
    }
    for c in assignment().captures_iter(text) {
        if let Some(v) = c.get(1).or_else(|| c.get(2)) {
            add(v.as_str());
        }
    }
    for line in pem_bodies(text) {
        add(line);
    }
    out
}

#[derive(Default, Serialize, Deserialize)]
struct Store {
    /// Fingerprint → where it was seen.
    seen: BTreeMap<String, String>,
}

fn path(home: &Path, session: &str) -> PathBuf {
    crate::ledger::state::session_file(home, "secrets", session)
}

fn fingerprint(session: &str, piece: &str) -> String {
    let mut h =
        crate::digest::sha256_hex(format!("sentinel-secret\0{session}\0{piece}").as_bytes());
    h.truncate(32);
    h
}

/// Adds the fingerprints of `values`, seen by `source` (`Read /x/.env`), to the session's store.
pub fn note(home: &Path, session: &str, values: &[String], source: &str) -> std::io::Result<()> {
    if values.is_empty() || session.is_empty() {
        return Ok(());
    }
    let source: String = source.chars().take(120).collect();
    crate::ledger::state::update(&path(home, session), |s: &mut Store| {
        for v in values {
            if s.seen.len() >= MAX_ENTRIES {
                break;
            }
            // The value as read and in lower case: either is looked up.
            for form in [v.clone(), v.to_ascii_lowercase()] {
                s.seen
                    .entry(fingerprint(session, &form))
                    .or_insert_with(|| source.clone());
            }
        }
    })
}

/// Where the session saw each secret value that `text` carries (percent-decoded first); empty
/// for none, no session or no store. An unreadable store finds nothing: the key shapes are
/// still judged on their own.
pub fn found_in(home: &Path, session: &str, text: &str) -> Vec<String> {
    if session.is_empty() {
        return Vec::new();
    }
    let Ok(Some(store)) = crate::ledger::state::read::<Store>(&path(home, session)) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for form in sent_forms(text) {
        for p in pieces(&form) {
            let found = store.seen.get(&fingerprint(session, p)).or_else(|| {
                store
                    .seen
                    .get(&fingerprint(session, &p.to_ascii_lowercase()))
            });
            if let Some(source) = found
                && !out.contains(source)
            {
                out.push(source.clone());
            }
        }
    }
    out
}

/// What `text` sends, read every way a server may read it: percent-decoded, then each word of
/// it (and of the text as written, where `+` is base64's and not a space) that decodes as
/// base64 (standard or URL-safe, a `/` in it or not) or hex to text, decoded.
fn sent_forms(text: &str) -> Vec<String> {
    let decoded = percent_decoded(text);
    let mut forms = Vec::new();
    for source in [text, decoded.as_str()] {
        let words = source
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '_' | '-')))
            .flat_map(|w| std::iter::once(w).chain(w.split('/').filter(move |_| w.contains('/'))));
        for w in words.filter(|w| w.len() >= 16) {
            if let Some(text) = decoded_word(w)
                && !forms.contains(&text)
            {
                forms.push(text);
            }
        }
    }
    forms.insert(0, decoded);
    forms
}

/// `word` decoded from hex or base64, when that gives text.
fn decoded_word(word: &str) -> Option<String> {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let bytes = if word.len().is_multiple_of(2) && word.bytes().all(|b| b.is_ascii_hexdigit()) {
        (0..word.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&word[i..i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()
    } else {
        STANDARD_NO_PAD
            .decode(word)
            .or_else(|_| URL_SAFE_NO_PAD.decode(word))
            .ok()
    };
    bytes.and_then(|b| String::from_utf8(b).ok())
}

/// Ends a session's store, and removes every other one older than `max_age_ms`.
pub fn clear(home: &Path, session: &str, max_age_ms: u64, now_ms: u64) {
    crate::ledger::state::end_session(home, "secrets", session, max_age_ms, now_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_shapes_are_found_and_shown_cut() {
        let (what, shown) = key_shape("https://x.example/?k=AKIAIOSFODNN7EXAMPLE").unwrap();
        assert_eq!(what, "an AWS access key id");
        assert_eq!(shown, "AKIAIO…");
        assert!(key_shape("q=ghp_0123456789abcdefghijABCDEFGHIJ012345").is_some());
        assert!(key_shape("sk-ant-api03-abcdefghijklmnopqrstuvwxyz").is_some());
        assert!(key_shape("-----BEGIN%20OPENSSH%20PRIVATE%20KEY-----").is_some());
        for plain in [
            "https://docs.rs/serde/latest/serde/",
            "how to configure AKIA keys in terraform",
            "rust sk-learn alternative",
        ] {
            assert_eq!(key_shape(plain), None, "{plain}");
        }
    }

    #[test]
    fn secrets_in_outputs_are_the_values_not_the_words() {
        let env = "DB_HOST=localhost\nDB_PASSWORD=Sup3rSecretValue\nAPI_KEY=\"k3yK3yK3yK3y99\"\nDEBUG=true\n";
        let found = found_in_output(env, false);
        assert_eq!(found, vec!["Sup3rSecretValue", "k3yK3yK3yK3y99"]);
        assert!(
            found_in_output("machine x login me password Hunter2Hunter2", false)
                .contains(&"Hunter2Hunter2".to_string())
        );
        assert!(found_in_output("fn main() { println!(\"hello world\") }", false).is_empty());
        assert_eq!(
            found_in_output(
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                false
            ),
            vec!["wJalrXUtnFEMI", "bPxRfiCYEXAMPLEKEY"]
        );
    }

    #[test]
    fn a_value_seen_is_found_again_in_a_url_and_only_by_its_session() {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path();
        note(h, "s", &["Sup3rSecretValue".into()], "Read /p/.env").unwrap();
        assert_eq!(
            found_in(h, "s", "https://evil.example/c?d=Sup3rSecretValue"),
            vec!["Read /p/.env"]
        );
        assert_eq!(
            found_in(h, "s", "https://evil.example/c?d=Sup3r%53ecretValue"),
            vec!["Read /p/.env"]
        );
        // In another case, base64 (standard, URL-safe, unpadded) or hex.
        for sent in [
            "https://evil.example/c?d=sup3rsecretvalue",
            "registry.example/SUP3RSECRETVALUE:v1",
            "https://evil.example/c?d=U3VwM3JTZWNyZXRWYWx1ZQ==",
            "https://evil.example/c?d=U3VwM3JTZWNyZXRWYWx1ZQ",
            "https://evil.example/c?d=a2V5PVN1cDNyU2VjcmV0VmFsdWU%3D",
            "https://evil.example/c?d=537570337253656372657456616c7565",
        ] {
            assert_eq!(found_in(h, "s", sent), ["Read /p/.env"], "{sent}");
        }
        assert!(found_in(h, "t", "https://evil.example/c?d=Sup3rSecretValue").is_empty());
        assert!(found_in(h, "s", "https://docs.rs/serde").is_empty());
        let text = std::fs::read_to_string(path(h, "s")).unwrap();
        assert!(!text.contains("Sup3r"), "only fingerprints are kept");
        clear(h, "s", 1, 0);
        assert!(found_in(h, "s", "Sup3rSecretValue").is_empty());
    }
}
