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
//! The same redaction applies to what sentinel keeps on the machine: the audit log's and the
//! stats journal's command and reason go through [`kept`] before they are written, so that
//! sentinel's own records (which any later session can read, and which the export's spool is
//! built from) are not a store of every secret an agent ever typed. What leaves the machine goes
//! through [`redacted`] again on the way out. A value sent otherwise transformed (split,
//! reversed, encrypted) is not recognised, as in `secrets`.

use crate::ascii_regex::{self, Regex};
use std::borrow::Cow;
use std::sync::OnceLock;

/// Words one of which every pattern below needs (compared in ASCII lower case): a text that has
/// none of them, and no `%` or `+` that percent-decoding could turn into one, holds nothing
/// [`redacted`] takes out, and is kept without compiling a pattern. They are the first group of
/// every pattern's gate (the key shapes' prefixes, the secret names, `bearer`/`basic`,
/// `authorization`, a URL's `://`, the password options' programs), gathered at compile time;
/// `tests::every_gate_starts_with_triggers` holds the patterns to them.
const TRIGGERS: [&str; trigger_count()] = triggers();

/// The other patterns' first gate groups.
const BEARER_WORDS: &[&str] = &["bearer", "basic"];
const AUTHORIZATION_WORDS: &[&str] = &["authorization"];
const URL_WORDS: &[&str] = &["://"];

/// The groups [`TRIGGERS`] gathers, in order (the password options' first groups after them).
const TRIGGER_GROUPS: [&[&str]; 14] = [
    SHAPE_GATES[0],
    SHAPE_GATES[1],
    SHAPE_GATES[2],
    SHAPE_GATES[3],
    SHAPE_GATES[4],
    SHAPE_GATES[5],
    SHAPE_GATES[6],
    SHAPE_GATES[7],
    SHAPE_GATES[8],
    SHAPE_GATES[9],
    NAME_WORDS,
    BEARER_WORDS,
    AUTHORIZATION_WORDS,
    URL_WORDS,
];

const fn trigger_count() -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < TRIGGER_GROUPS.len() {
        n += TRIGGER_GROUPS[i].len();
        i += 1;
    }
    let mut i = 0;
    while i < PASSWORD_OPTIONS.len() {
        n += PASSWORD_OPTIONS[i].2[0].len();
        i += 1;
    }
    n
}

const fn triggers() -> [&'static str; trigger_count()] {
    let mut out = [""; trigger_count()];
    let mut n = 0;
    let mut i = 0;
    while i < TRIGGER_GROUPS.len() {
        let mut j = 0;
        while j < TRIGGER_GROUPS[i].len() {
            out[n] = TRIGGER_GROUPS[i][j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    let mut i = 0;
    while i < PASSWORD_OPTIONS.len() {
        let programs = PASSWORD_OPTIONS[i].2[0];
        let mut j = 0;
        while j < programs.len() {
            out[n] = programs[j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// The bit of a byte pair (ASCII case folded) in a 256-bit set.
const fn pair_bit(a: u8, b: u8) -> usize {
    let pair = (a.to_ascii_lowercase() as u32) << 8 | b.to_ascii_lowercase() as u32;
    (pair.wrapping_mul(0x9E37_79B1) >> 24) as usize
}

/// Each trigger's byte pairs: a text without all of one's pairs cannot contain it.
const TRIGGER_PAIRS: [[u64; 4]; TRIGGERS.len()] = {
    let mut out = [[0u64; 4]; TRIGGERS.len()];
    let mut i = 0;
    while i < TRIGGERS.len() {
        let t = TRIGGERS[i].as_bytes();
        let mut j = 1;
        while j < t.len() {
            let bit = pair_bit(t[j - 1], t[j]);
            out[i][bit >> 6] |= 1 << (bit & 63);
            j += 1;
        }
        i += 1;
    }
    out
};

/// Whether `text` may show a secret: one of [`TRIGGERS`] in it (in any case), or an escape.
/// One pass collects the text's byte pairs; only a trigger whose pairs are all there is looked
/// for (a `str::contains` per trigger costs a searcher's setup each, ~15K instructions a call,
/// and trying every trigger at every byte ~80 instructions a byte).
fn may_show_secret(text: &str) -> bool {
    let b = text.as_bytes();
    let mut pairs = [0u64; 4];
    for w in b.windows(2) {
        let bit = pair_bit(w[0], w[1]);
        pairs[bit >> 6] |= 1 << (bit & 63);
    }
    if b.iter().any(|&c| c == b'%' || c == b'+') {
        return true;
    }
    TRIGGERS.iter().zip(TRIGGER_PAIRS).any(|(t, need)| {
        (0..4).all(|k| need[k] & pairs[k] == need[k])
            && b.windows(t.len())
                .any(|w| w.eq_ignore_ascii_case(t.as_bytes()))
    })
}

/// `text` as sentinel's own records keep it: [`redacted`], without the patterns' cost for the
/// text that cannot hold a secret (most commands).
pub fn kept(text: &str) -> Cow<'_, str> {
    if may_show_secret(text) {
        Cow::Owned(redact(text, false))
    } else {
        Cow::Borrowed(text)
    }
}

/// What stands in for a secret.
pub const MARK: &str = "[REDACTED]";

/// A pattern and the words a text must hold for it to match (one of each group, compared in
/// ASCII lower case), compiled the first time a text holds them: a command with `curl` and a
/// URL compiles none of them unless it also has `-u` or an `@` after the `://`.
struct Gated {
    source: String,
    gate: Vec<&'static [&'static str]>,
    /// A closer look the text must also pass (a name word used as a name: `X_TOKEN=`, `--token`).
    shape: Option<fn(&[u8]) -> bool>,
    /// What is taken out: the first group that took part (else the whole match).
    re: OnceLock<Option<Regex>>,
}

impl Gated {
    fn new(source: String, gate: Vec<&'static [&'static str]>) -> Gated {
        Gated {
            source,
            gate,
            shape: None,
            re: OnceLock::new(),
        }
    }

    fn shaped(mut self, shape: fn(&[u8]) -> bool) -> Gated {
        self.shape = Some(shape);
        self
    }

    /// The pattern, when `lower` (the text in lower case) holds its words.
    fn for_text(&self, lower: &str) -> Option<&Regex> {
        if !self
            .gate
            .iter()
            .all(|any| any.iter().any(|w| lower.contains(w)))
        {
            return None;
        }
        self.re
            .get_or_init(|| ascii_regex::compile(&self.source, ascii_regex::Ask::Groups).ok())
            .as_ref()
    }
}

/// The names that say secret, as the patterns below spell them, and as their gate.
const NAME: &str = r"(?:token|secret|passw|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|session[_-]?key|auth[_-]?key|client[_-]?secret|dsn|database[_-]?url|conn(?:ection)?[_-]?str)";
const NAME_WORDS: &[&str] = &[
    "token",
    "secret",
    "passw",
    "pwd",
    "key",
    "credential",
    "dsn",
    "database",
    "conn",
];

/// Where a name word occurs in `lower`, with the span of the name around it (`[A-Za-z0-9_.-]`).
fn names_around(lower: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let part = |c: u8| c.is_ascii_alphanumeric() || b"_.-".contains(&c);
    NAME_WORDS.iter().flat_map(move |w| {
        let w = w.as_bytes();
        (0..lower.len().saturating_sub(w.len() - 1))
            .filter(move |&i| lower[i..].starts_with(w))
            .map(move |i| {
                let mut start = i;
                while start > 0 && part(lower[start - 1]) {
                    start -= 1;
                }
                let mut end = i + w.len();
                while end < lower.len() && part(lower[end]) {
                    end += 1;
                }
                (start, end)
            })
    })
}

/// A name word in a name that is assigned: `DB_PASSWORD=`, `"api_key": `, `token :`.
fn assigned_name(lower: &[u8]) -> bool {
    names_around(lower).any(|(_, mut j)| {
        if j < lower.len() && (lower[j] == b'"' || lower[j] == b'\'') {
            j += 1;
        }
        while j < lower.len() && lower[j].is_ascii_whitespace() {
            j += 1;
        }
        j < lower.len() && (lower[j] == b':' || lower[j] == b'=')
    })
}

/// A name word in an option's name: `--api-key`, `-token`.
fn option_name(lower: &[u8]) -> bool {
    names_around(lower).any(|(start, _)| {
        lower[start] == b'-' && (start == 0 || lower[start - 1].is_ascii_whitespace())
    })
}

/// The words each key shape (`secrets::KEY_SHAPES`, in its order) starts with.
const SHAPE_GATES: [&[&str]; 10] = [
    &["akia", "asia"],
    &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    &["sk-ant-"],
    &["sk-"],
    &["xox"],
    &["glpat-"],
    &["aiza"],
    &["k_live_"],
    &["npm_"],
    &["-----begin"],
];

/// Every pattern: the key shapes (`secrets`' list), then the values named as secrets (`NAME=v`,
/// `NAME: v`, `"name": "v"`, `--name v`, `--name=v`, …), then the password options.
fn patterns() -> &'static [Gated] {
    static ALL: OnceLock<Vec<Gated>> = OnceLock::new();
    ALL.get_or_init(|| {
        let shapes = (super::secrets::KEY_SHAPES.iter())
            .zip(SHAPE_GATES)
            .map(|((_, p), gate)| Gated::new(format!("({p})"), vec![gate]));
        let named = [
            // NAME=value, NAME: value, "name": "value" (the name may carry more around it).
            (
                format!(
                    r#"(?i)[A-Za-z0-9_.\-]*{NAME}[A-Za-z0-9_.\-]*["']?\s*[:=]\s*["']?([^\s"',;&]+)"#
                ),
                vec![NAME_WORDS, &[":", "="][..]],
                Some(assigned_name as fn(&[u8]) -> bool),
            ),
            // --name value (an option whose name says secret, its value the next word).
            (
                format!(
                    r#"(?i)(?:^|\s)--?[A-Za-z0-9_\-]*{NAME}[A-Za-z0-9_\-]*\s+["']?([^\s"',;&]+)"#
                ),
                vec![NAME_WORDS, &["-"][..]],
                Some(option_name as fn(&[u8]) -> bool),
            ),
            // password VALUE (a netrc, a prompt's answer).
            (
                r#"(?i)\b(?:password|passwd)\s+["']?([^\s"',;&-][^\s"',;&]*)"#.into(),
                vec![&["passw"][..]],
                None,
            ),
            // secret VALUE, token VALUE: a value with a digit (`the token refresh` is prose).
            (
                r#"(?i)\b(?:secret|token)\s+["']?([^\s"',;&0-9-][^\s"',;&0-9]*[0-9][^\s"',;&]*)"#.into(),
                vec![&["secret", "token"][..]],
                None,
            ),
            // Authorization: Bearer VALUE / Basic VALUE, and a bare `Bearer VALUE`.
            (
                r#"(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/=\-]{8,})"#.into(),
                vec![BEARER_WORDS],
                None,
            ),
            (
                r#"(?i)\bauthorization\s*[:=]\s*["']?(?:[A-Za-z]+\s+)?([^\s"',;]+)"#.into(),
                vec![AUTHORIZATION_WORDS],
                None,
            ),
            // scheme://user:PASSWORD@host
            (
                r#"(?i)\b[a-z][a-z0-9+.\-]*://[^/\s:@]*:([^/\s@]+)@"#.into(),
                vec![URL_WORDS, &["@"][..]],
                None,
            ),
        ]
        .into_iter()
        .map(|(p, gate, shape)| match shape {
            Some(shape) => Gated::new(p, gate).shaped(shape),
            None => Gated::new(p, gate),
        });
        let options = PASSWORD_OPTIONS.iter().map(|(programs, option, gate)| {
            // PROGRAM … OPTION VALUE or OPTIONVALUE (a `user:` before the value stays).
            Gated::new(
                format!(
                    r#"(?:^|[^A-Za-z0-9_./\-])(?:{programs})\s(?:[^;&|]*\s)?{option}\s*["']?(?:[^\s:"'@]+:)?([^\s"']+)"#
                ),
                gate.to_vec(),
            )
        });
        shapes.chain(named).chain(options).collect()
    })
}

/// The allow-once code in a deny's reason: the person's grant, not the collector's. Sentinel's
/// own records keep it (the agent read it in the reason already, and it ties a deny to the
/// grant that let it through).
fn codes() -> &'static Gated {
    static RE: OnceLock<Gated> = OnceLock::new();
    RE.get_or_init(|| {
        Gated::new(
            r"\ballow-once\s+([A-Z0-9]{4,})".into(),
            vec![&["allow-once"][..]],
        )
    })
}

/// Programs whose option takes a password as its value (the value may be `user:password`, as
/// curl's `-u`): `(programs as an alternation, the option, the gate: one word of each group)`.
#[allow(clippy::type_complexity)]
const PASSWORD_OPTIONS: &[(&str, &str, &[&[&str]])] = &[
    (
        "mysql|mysqldump|mysqladmin|mariadb",
        "-p",
        &[&["mysql", "mariadb"], &["-p"]],
    ),
    ("sshpass", "-p", &[&["sshpass"], &["-p"]]),
    ("redis-cli", "-a", &[&["redis-cli"], &["-a"]]),
    (
        "curl",
        "(?:-u|--user|--proxy-user|-U)",
        &[&["curl"], &["-u", "--user", "--proxy-user"]],
    ),
    (
        "wget",
        "(?:--password|--http-password|--ftp-password)=?",
        &[&["wget"], &["password"]],
    ),
    (
        "smbclient|rdesktop|xfreerdp",
        "(?:-U|-p|/p:)",
        &[&["smbclient", "rdesktop", "xfreerdp"], &["-u", "-p", "/p:"]],
    ),
];

/// `text` with every secret it shows replaced by [`MARK`] (see the module doc), allow-once
/// codes included.
pub fn redacted(text: &str) -> String {
    redact(text, true)
}

fn redact(text: &str, with_codes: bool) -> String {
    let decoded = super::secrets::percent_decoded(text);
    // A secret written percent-encoded is judged in its decoded form; the decoded text is
    // what is kept then (a URL's escapes are lost, its secrets are not sent).
    let text = if decoded != text && has_secret(&decoded) {
        decoded.as_str()
    } else {
        text
    };
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let code = with_codes.then(codes);
    for re in patterns()
        .iter()
        .chain(code)
        .filter_map(|g| g.for_text(&lower))
    {
        for c in re.captures_iter(bytes) {
            if let Some(v) = (1..c.group_len()).find_map(|i| c.get_group(i)) {
                cuts.push((v.start, v.end));
            }
        }
    }
    // The patterns are ASCII; a cut is widened to whole characters all the same.
    for (start, end) in &mut cuts {
        while !text.is_char_boundary(*start) {
            *start -= 1;
        }
        while !text.is_char_boundary(*end) {
            *end += 1;
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
    let lower = text.to_ascii_lowercase();
    (patterns().iter().chain([codes()]))
        .filter_map(|g| g.for_text(&lower))
        .any(|re| re.is_match(text.as_bytes()))
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

    /// Every pattern's gate starts with a group of triggers: a text the prefilter lets pass
    /// is the only one that can open a gate.
    #[test]
    fn every_gate_starts_with_triggers() {
        assert_eq!(
            patterns().len(),
            SHAPE_GATES.len() + 7 + PASSWORD_OPTIONS.len()
        );
        for g in patterns() {
            for w in g.gate[0] {
                assert!(
                    TRIGGERS.contains(w),
                    "`{w}` of `{}` is no trigger",
                    g.source
                );
            }
        }
    }

    /// Every pattern needs one of the triggers: one example of each key shape (alternatives
    /// apart), each password option's program and each secret name, alone, must pass the
    /// prefilter; a new key shape without an example here fails the count.
    #[test]
    fn every_pattern_needs_a_trigger() {
        let a36 = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
        let shapes = [
            "AKIAIOSFODNN7EXAMPLE".to_string(),
            "ASIAIOSFODNN7EXAMPLE".to_string(),
            format!("ghp_{a36}"),
            format!("gho_{a36}"),
            format!("ghu_{a36}"),
            format!("ghs_{a36}"),
            format!("ghr_{a36}"),
            format!("github_pat_{a36}{a36}"),
            format!("sk-ant-{a36}"),
            format!("sk-proj-{a36}"),
            format!("sk-{a36}"),
            "xoxb-1234567890ab".to_string(),
            "glpat-A1b2C3d4E5f6G7h8I9j0".to_string(),
            format!("AIza{a36}"),
            "sk_live_A1b2C3d4E5f6G7h8I9j0".to_string(),
            "rk_live_A1b2C3d4E5f6G7h8I9j0".to_string(),
            format!("npm_{a36}"),
            "-----BEGIN OPENSSH PRIVATE KEY-----".to_string(),
        ];
        let shown = |t: &str| {
            super::super::secrets::shapes()
                .iter()
                .any(|(_, re)| re.is_match(t))
        };
        for t in &shapes {
            assert!(shown(t), "the example {t} matches no key shape");
            assert!(may_show_secret(t), "{t} passes the prefilter unseen");
            assert!(
                redacted(t).contains(MARK),
                "{t}: its gate keeps its pattern off"
            );
        }
        // 10 shapes, of which AWS, GitHub (six prefixes), OpenAI (two) and Stripe (two) have
        // several spellings: a new shape needs its examples above.
        assert_eq!(super::super::secrets::shapes().len(), 10);
        for (programs, _, _) in PASSWORD_OPTIONS {
            for program in programs.split('|') {
                assert!(may_show_secret(program), "{program} has no trigger");
            }
        }
        for word in [
            "token",
            "secret",
            "passw",
            "pwd",
            "api_key",
            "apikey",
            "access-key",
            "private_key",
            "credential",
            "session_key",
            "auth-key",
            "client_secret",
            "dsn",
            "database_url",
            "connection_str",
            "conn-str",
            "password",
            "passwd",
            "bearer",
            "basic",
            "authorization",
            "https://a:b@c",
        ] {
            assert!(
                may_show_secret(&word.to_uppercase()),
                "{word} has no trigger"
            );
        }
        for text in [
            "curl -u bob:Pw12345678 https://x",
            "x AKIAIOSFODNN7EXAMPLE",
            "DB_PASSWORD=hunter2hunter2 psql",
            "git clone https://bob:s3cr3tpw@git.example/r.git",
        ] {
            assert_ne!(kept(text), text, "{text}");
        }
        assert!(matches!(kept("git status && ls -la src"), Cow::Borrowed(_)));
    }

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
            let k = super::kept(command);
            if r.contains(secret) || k.contains(secret) {
                missed.push(format!("held_out={} {command} -> {r}", v["held_out"]));
            }
        }
        assert!(missed.is_empty(), "{missed:#?}");
    }
}
