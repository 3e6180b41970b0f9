//! A person's rule files compiled once: what parsing each line found (a command rule's prefilter,
//! or the line's error) is kept in `SENTINEL_HOME/cache/rules-<sha256>.bin`, keyed by the SHA-256
//! of the file's content (the digest the seeded-copy and project-trust checks already computed),
//! with sentinel's version, this format's number and whatever else the result depends on. A cache file that is damaged, truncated, of another version or format, or whose
//! checksum or key does not match is rebuilt, never trusted; a home that cannot be written just
//! means no cache, silently (the decision does not depend on it).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// Bumped whenever what a cache file holds, or what it means, changes.
const FORMAT: u32 = 1;
/// The first bytes of every cache file, then a CRC-32 of the rest.
const MAGIC: &[u8; 8] = b"SNTLRUL\x01";
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What parsing one rule line found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Found {
    /// A bad line, with its message (reported with the file and this line).
    Error(String),
    /// A command rule's prefilter (what `rule_scan::literal_filters` computes).
    Command {
        anchored: bool,
        prefixes: Vec<Vec<u8>>,
        required: Vec<Vec<u8>>,
    },
    /// A path-list line whose glob builds.
    Path,
}

/// One rule line of a file (comments and blank lines have none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub line: u32,
    pub found: Found,
}

#[derive(Serialize, Deserialize)]
struct Payload {
    format: u32,
    version: String,
    key: [u8; 32],
    entries: Vec<Entry>,
}

/// The key of one rule file's parse: its content's SHA-256 (`content`, hex) and everything else
/// the result depends on (which file, which layer, the home `~` expands to), each part
/// length-prefixed.
pub(crate) fn key(file: &str, layer: &[u8], home: Option<&Path>, content: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    let home = home.map(|h| h.as_os_str().as_encoded_bytes());
    for part in [
        &FORMAT.to_le_bytes()[..],
        VERSION.as_bytes(),
        file.as_bytes(),
        layer,
        home.unwrap_or(b"\0none"),
        content.as_bytes(),
    ] {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// The cache file's name for `key`.
pub(crate) fn file_name(key: &[u8; 32]) -> String {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    format!("rules-{hex}.bin")
}

/// The entries cached under `key` in `dir`, or None when there is no cache file or anything in
/// it is not exactly what this version wrote for this key.
pub(crate) fn load(dir: &Path, key: &[u8; 32]) -> Option<Vec<Entry>> {
    decode(&std::fs::read(dir.join(file_name(key))).ok()?, key)
}

/// A cache file's entries, when it is exactly what this version writes for `key`.
fn decode(bytes: &[u8], key: &[u8; 32]) -> Option<Vec<Entry>> {
    let (crc, payload) = bytes.strip_prefix(MAGIC)?.split_first_chunk::<4>()?;
    if u32::from_le_bytes(*crc) != crc32fast::hash(payload) {
        return None;
    }
    let (p, rest): (Payload, _) = postcard::take_from_bytes(payload).ok()?;
    (rest.is_empty() && p.format == FORMAT && p.version == VERSION && p.key == *key)
        .then_some(p.entries)
}

/// Writes the entries under `key` in `dir` atomically (a temporary file renamed over the old);
/// any failure leaves no cache and says nothing.
pub(crate) fn store(dir: &Path, key: &[u8; 32], entries: Vec<Entry>) {
    let Some(bytes) = encode(&Payload {
        format: FORMAT,
        version: VERSION.to_string(),
        key: *key,
        entries,
    }) else {
        return;
    };
    let name = file_name(key);
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::File::create(&tmp))
        .and_then(|mut f| f.write_all(&bytes))
        .and_then(|()| std::fs::rename(&tmp, dir.join(&name)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Removes the cache file of `key` (one whose lines did not fit its text), silently.
pub(crate) fn remove(dir: &Path, key: &[u8; 32]) {
    let _ = std::fs::remove_file(dir.join(file_name(key)));
}

/// A cache file's bytes: the magic, a CRC-32 of the payload, the payload.
fn encode(payload: &Payload) -> Option<Vec<u8>> {
    let payload = postcard::to_stdvec(payload).ok()?;
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(format: u32, version: &str, key: [u8; 32]) -> Payload {
        Payload {
            format,
            version: version.into(),
            key,
            entries: vec![
                Entry {
                    line: 2,
                    found: Found::Command {
                        anchored: true,
                        prefixes: vec![b"ls".to_vec()],
                        required: vec![b"ls".to_vec()],
                    },
                },
                Entry {
                    line: 4,
                    found: Found::Error("bad regex".into()),
                },
            ],
        }
    }

    #[test]
    fn only_this_versions_file_for_this_key_is_read() {
        let key = key("hard_block_commands.txt", b"home", None, "x\n");
        let good = encode(&payload(FORMAT, VERSION, key)).unwrap();
        assert_eq!(
            decode(&good, &key),
            Some(payload(FORMAT, VERSION, key).entries)
        );
        for (what, other) in [
            ("another version", payload(FORMAT, "0.0.0-other", key)),
            ("another format", payload(FORMAT + 1, VERSION, key)),
            ("another key", payload(FORMAT, VERSION, [7; 32])),
        ] {
            let bytes = encode(&other).unwrap();
            assert_eq!(decode(&bytes, &key), None, "{what}");
        }
        // Every truncation, and every single flipped bit, is refused.
        for n in 0..good.len() {
            assert_eq!(decode(&good[..n], &key), None, "cut at {n}");
        }
        for i in 0..good.len() {
            for bit in 0..8 {
                let mut b = good.clone();
                b[i] ^= 1 << bit;
                assert_eq!(decode(&b, &key), None, "byte {i} bit {bit}");
            }
        }
    }

    #[test]
    fn the_key_covers_everything_the_parse_depends_on() {
        let base = key("a.txt", b"home", Some(Path::new("/h")), "text");
        assert_ne!(base, key("b.txt", b"home", Some(Path::new("/h")), "text"));
        assert_ne!(
            base,
            key("a.txt", b"project:/p", Some(Path::new("/h")), "text")
        );
        assert_ne!(base, key("a.txt", b"home", Some(Path::new("/g")), "text"));
        assert_ne!(base, key("a.txt", b"home", None, "text"));
        assert_ne!(base, key("a.txt", b"home", Some(Path::new("/h")), "text2"));
        // Parts cannot run into each other.
        assert_ne!(key("ab", b"c", None, ""), key("a", b"bc", None, ""));
    }
}
