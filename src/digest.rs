//! Digests of content: what trust, allow-once and the rule cache compare.

use sha2::{Digest, Sha256};

/// SHA-256 in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` in lower-case hex (without a `format!` per byte: ~1,000 instructions each).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)].into());
        out.push(DIGITS[usize::from(b & 15)].into());
    }
    out
}

/// HMAC-SHA-256 (RFC 2104) of the concatenation of `parts` under a 32-byte `key`.
pub fn hmac_sha256(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    let mut padded = [0u8; 64];
    padded[..32].copy_from_slice(key);
    let pad = |byte: u8| padded.map(|b| b ^ byte);
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    for part in parts {
        inner.update(part);
    }
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// SipHash-2-4 (Aumasson and Bernstein), a keyed function made for authenticating messages, of
/// the concatenation of `parts` under a 128-bit `key`: what signs the rule cache (a few
/// instructions a byte, where SHA-256 without the CPU's SHA instructions costs some fifty).
pub fn siphash24(key: &[u8; 16], parts: &[&[u8]]) -> u64 {
    let k0 = u64::from_le_bytes(key[..8].try_into().expect("8 bytes"));
    let k1 = u64::from_le_bytes(key[8..].try_into().expect("8 bytes"));
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    fn round(v: &mut [u64; 4]) {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }
    let compress = |v: &mut [u64; 4], m: u64| {
        v[3] ^= m;
        round(v);
        round(v);
        v[0] ^= m;
    };
    let mut pending = [0u8; 8];
    let mut filled = 0;
    let mut len = 0u64;
    for part in parts {
        len = len.wrapping_add(part.len() as u64);
        let mut rest = *part;
        if filled > 0 {
            let take = rest.len().min(8 - filled);
            pending[filled..filled + take].copy_from_slice(&rest[..take]);
            filled += take;
            rest = &rest[take..];
            if filled < 8 {
                continue;
            }
            compress(&mut v, u64::from_le_bytes(pending));
        }
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            compress(&mut v, u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let tail = words.remainder();
        pending[..tail.len()].copy_from_slice(tail);
        filled = tail.len();
    }
    let mut last = [0u8; 8];
    last[..filled].copy_from_slice(&pending[..filled]);
    last[7] = len as u8;
    compress(&mut v, u64::from_le_bytes(last));
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

#[cfg(test)]
mod tests {
    #[test]
    fn siphash_matches_the_papers_vectors() {
        let key: [u8; 16] = std::array::from_fn(|i| i as u8);
        let message: Vec<u8> = (0u8..64).collect();
        // From the reference implementation's vectors (vectors.h): message lengths 0, 1, 7, 8,
        // 15 and 63.
        for (n, want) in [
            (0, 0x726fdb47dd0e0e31u64),
            (1, 0x74f839c593dc67fd),
            (7, 0xab0200f58b01d137),
            (8, 0x93f5f5799a932462),
            (15, 0xa129ca6149be45e5),
            (63, 0x958a324ceb064572),
        ] {
            assert_eq!(super::siphash24(&key, &[&message[..n]]), want, "{n} bytes");
            // Split anywhere, the same.
            for at in 0..=n {
                let (a, b) = message[..n].split_at(at);
                assert_eq!(
                    super::siphash24(&key, &[a, &[], b]),
                    want,
                    "{n} split at {at}"
                );
            }
        }
    }

    #[test]
    fn hmac_matches_rfc_4231() {
        // RFC 4231 test case 2's message, under a 32-byte key (Python's hmac module gives the
        // same bytes): the construction, checked against an independent one.
        let key = *b"Jefe\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
        let mac = super::hmac_sha256(&key, &[b"what do ya want ", b"for nothing?"]);
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
