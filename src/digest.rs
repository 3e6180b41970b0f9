//! Digests of content: what trust, allow-once and the rule cache compare.

use sha2::{Digest, Sha256};

/// SHA-256 in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
