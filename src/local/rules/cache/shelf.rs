//! The envelope every kind of cache file shares: magic, signature, header, stat record, pruning.
//!
//! **Signed, so a crafted file is never trusted.** A cache file's bytes after its magic begin
//! with a SipHash-2-4 of the rest (a keyed function made for authenticating messages, a few
//! instructions a byte: a cache file is checked on every call), under a 128-bit key derived
//! (HMAC-SHA-256) from two halves: one drawn when this build
//! of sentinel was compiled (in the binary, so a file another build wrote does not verify) and
//! one drawn the first time the home's cache was written (`cache/sentinel-cache.key`, 32 random
//! bytes, 0600; a credential in `credential_paths.txt`, so no call reads it unseen). A file of
//! the right format whose content is not what sentinel compiled — a rule switched off, a
//! prefilter that hides a rule, another file's image — fails the check and is rebuilt from the
//! source; so does every file when the key is gone or replaced.

use super::{RACY_NS, STALE_TMP, VERSION, now};
use crate::config::files;
use crate::config::kept;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The home's half of the signing key, in the cache folder.
pub(crate) const KEY_FILE: &str = "sentinel-cache.key";
/// Bytes of a signature.
const SIGNATURE: usize = 8;
/// What a cache file's seal is named after it (`rules-….bin.seal`).
pub(super) const SEAL: &str = ".seal";
/// The key cache files are signed with.
pub(crate) type Key = [u8; 16];

/// The key this build signs cache files in `dir` with (None: no key, so no cache). Made (32
/// random bytes, a new file) when `create` and there is none.
pub(crate) fn signing_key(dir: &Path, create: bool) -> Option<Key> {
    static KEYS: Mutex<Vec<(PathBuf, Key)>> = Mutex::new(Vec::new());
    let mut keys = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, key)) = keys.iter().find(|(d, _)| d == dir) {
        return Some(*key);
    }
    let path = dir.join(KEY_FILE);
    let read = || {
        kept::read(&path, 64)
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
    };
    let home_half = match read() {
        Some(key) => key,
        None if create => {
            let mut fresh = [0u8; 32];
            getrandom::fill(&mut fresh).ok()?;
            // A new file: of two first writes at once, the second reads the first's key. One
            // that is there but not a key (damaged) is replaced.
            let made = match kept::open(&path, kept::Access::Fresh) {
                Ok(mut f) => std::io::Write::write_all(&mut f, &fresh).is_ok(),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match read() {
                    Some(theirs) => {
                        fresh = theirs;
                        true
                    }
                    None => kept::write_whole(&path, &fresh).is_ok(),
                },
                Err(_) => false,
            };
            made.then_some(fresh)?
        }
        None => return None,
    };
    let derived = crate::digest::hmac_sha256(&build_key(), &[&home_half]);
    let key: Key = derived[..16].try_into().expect("16 bytes");
    keys.push((dir.to_path_buf(), key));
    Some(key)
}

/// The build's half of the key (build.rs draws it).
fn build_key() -> [u8; 32] {
    const HEX: &str = env!("SENTINEL_BUILD_KEY");
    let mut key = [0u8; 32];
    for (i, b) in key.iter_mut().enumerate() {
        *b = u8::from_str_radix(&HEX[2 * i..2 * i + 2], 16).unwrap_or(0);
    }
    key
}

/// A file's stat as the cache compares it (ns times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stat {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) size: u64,
    pub(super) mtime: i128,
    pub(super) ctime: i128,
}

impl Stat {
    /// The stat of `meta`; None where the platform has no inode or ctime (no stat fast path).
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<Stat> {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Some(Stat {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: ns(meta.mtime(), meta.mtime_nsec()),
            ctime: ns(meta.ctime(), meta.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    pub fn of(_: &std::fs::Metadata) -> Option<Stat> {
        None
    }

    /// Whether the file may have changed within the timestamp granularity of a record made at
    /// `written` (ns): then its stat says nothing.
    pub(super) fn racy(&self, written: i128) -> bool {
        self.mtime.max(self.ctime) > written - RACY_NS
    }
}

/// The stat record: the file's stat before it was read and hashed, and when that was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Record {
    pub(super) stat: Stat,
    pub(super) written: i128,
}

/// Everything before the image.
#[derive(Serialize, Deserialize)]
pub(super) struct Header<'a> {
    pub(super) format: u32,
    pub(super) version: &'a str,
    pub(super) id: [u8; 32],
    /// The content's SHA-256.
    pub(super) content: [u8; 32],
    pub(super) record: Option<Record>,
}

/// One kind of cache file (a rule file's image, a spec file's): what its name starts with, its
/// magic and format, and how its payload tells where its source was read from. Every kind has
/// the same envelope (magic, signature, [`Header`]), key, stat fast path, damage handling and
/// pruning; only what follows the header differs.
pub(crate) struct Shelf {
    /// `rules-`: cache files are `PREFIX<hex id>.bin`.
    pub prefix: &'static str,
    pub magic: &'static [u8; 8],
    /// Bumped whenever what this kind's payload holds, or what it means, changes.
    pub format: u32,
    /// Where the source file of a payload (the bytes after the header) was read from; None
    /// when the payload does not read.
    pub origin: fn(&[u8]) -> Option<&str>,
}

impl Shelf {
    /// The cache file's name for `id`.
    pub(crate) fn file_name(&self, id: &[u8; 32]) -> String {
        // Without a `format!` per byte (~20K instructions a name, on every load).
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut name = String::with_capacity(self.prefix.len() + 2 * id.len() + 4);
        name.push_str(self.prefix);
        for b in id {
            name.push(HEX[usize::from(b >> 4)].into());
            name.push(HEX[usize::from(b & 15)].into());
        }
        name.push_str(".bin");
        name
    }

    /// The header of a cache file and where its payload starts, when the file is exactly what
    /// this build wrote for `id` under `key`.
    #[cfg(test)]
    pub(super) fn header<'b>(
        &self,
        key: &Key,
        bytes: &'b [u8],
        id: &[u8; 32],
    ) -> Option<(Header<'b>, usize)> {
        self.signed(key, bytes)?;
        self.unsigned_header(bytes, id)
    }

    /// The header of a cache file whose signature [`Shelf::read_checked`] has checked (or found
    /// sealed), and where its payload starts.
    fn unsigned_header<'b>(&self, bytes: &'b [u8], id: &[u8; 32]) -> Option<(Header<'b>, usize)> {
        let payload = bytes
            .strip_prefix(self.magic)?
            .split_first_chunk::<SIGNATURE>()?
            .1;
        let (h, image): (Header, _) = postcard::take_from_bytes(payload).ok()?;
        let at = bytes.len() - image.len();
        (h.format == self.format && h.version == VERSION && h.id == *id).then_some((h, at))
    }

    /// The bytes of the cache file for `id` in `dir`, when they are what this build signed.
    /// Checking a signature costs a few instructions a byte of a file read on every call (1.1M
    /// for a person's 2,000 rules), so a file whose signature checked is sealed: its own stat
    /// (device, inode, size, mtime, ctime), signed, in `NAME.seal`. A file whose stat is
    /// still the sealed one, and was not racy when sealed, is the file that was checked — a
    /// write sets the ctime, which no call can set back, and a rename makes another inode — and
    /// is not checked again.
    fn read_checked(&self, dir: &Path, id: &[u8; 32]) -> Option<Vec<u8>> {
        let key = signing_key(dir, false)?;
        let name = self.file_name(id);
        let (bytes, before, after) =
            kept::read_observed(&dir.join(&name), files::MAX_STATE_BYTES).ok()?;
        let (before, after) = (Stat::of(&before), Stat::of(&after));
        let seal_path = dir.join(format!("{name}{SEAL}"));
        if let Some(stat) = after
            && let Ok(seal) = kept::read(&seal_path, 256)
            && self.seal_holds(&key, &name, &seal, stat)
        {
            return Some(bytes);
        }
        self.signed(&key, &bytes)?;
        // Sealed only when nothing wrote the file while it was read, and its last write is
        // older than the timestamps' granularity (a write in the same tick could keep them).
        if let (Some(b), Some(a)) = (before, after)
            && a == b
        {
            let written = now();
            if !a.racy(written) {
                let _ = kept::write_whole(&seal_path, &self.seal(&key, &name, a, written));
            }
        }
        Some(bytes)
    }

    /// A seal's bytes: the stat, when it was made, and the signature of both and the file's name.
    pub(super) fn seal(&self, key: &Key, name: &str, stat: Stat, written: i128) -> Vec<u8> {
        let body = postcard::to_stdvec(&(stat, written)).unwrap_or_default();
        let mac = crate::digest::siphash24(key, &[SEAL.as_bytes(), name.as_bytes(), &body]);
        let mut bytes = mac.to_le_bytes().to_vec();
        bytes.extend_from_slice(&body);
        bytes
    }

    /// Whether `seal` is this build's seal of the file `name` with the stat `now`, made when
    /// that stat was no longer racy.
    fn seal_holds(&self, key: &Key, name: &str, seal: &[u8], now: Stat) -> bool {
        use subtle::ConstantTimeEq as _;
        let Some((mac, body)) = seal.split_first_chunk::<SIGNATURE>() else {
            return false;
        };
        let expected =
            crate::digest::siphash24(key, &[SEAL.as_bytes(), name.as_bytes(), body]).to_le_bytes();
        if !bool::from(expected.ct_eq(mac)) {
            return false;
        }
        postcard::from_bytes::<(Stat, i128)>(body)
            .is_ok_and(|(stat, written)| stat == now && !stat.racy(written))
    }

    /// The cache file for `id` in `dir` when the file's stat (taken now) is the recorded one and
    /// not racy: its bytes, where its payload starts, and the SHA-256 of the content it was
    /// compiled from.
    pub(crate) fn by_stat(
        &self,
        dir: &Path,
        id: &[u8; 32],
        stat: Stat,
    ) -> Option<(Vec<u8>, usize, [u8; 32])> {
        let bytes = self.read_checked(dir, id)?;
        let (header, at) = self.unsigned_header(&bytes, id)?;
        let record = header.record?;
        (record.stat == stat && !stat.racy(record.written)).then_some(())?;
        let content = header.content;
        Some((bytes, at, content))
    }

    /// The cache file for `id` in `dir` when it was compiled from content whose SHA-256 is
    /// `content`: its bytes, where its payload starts, and whether its stat record should be
    /// made again (`stat`, taken before the content was read, is given and is not the recorded
    /// one, or was racy).
    pub(crate) fn by_content(
        &self,
        dir: &Path,
        id: &[u8; 32],
        content: &[u8; 32],
        stat: Option<Stat>,
    ) -> Option<(Vec<u8>, usize, bool)> {
        let bytes = self.read_checked(dir, id)?;
        let (header, at) = self.unsigned_header(&bytes, id)?;
        (header.content == *content).then_some(())?;
        let stale = stat.is_some_and(|stat| {
            header
                .record
                .is_none_or(|r| r.stat != stat || stat.racy(r.written))
        });
        Some((bytes, at, stale))
    }

    /// Writes `payload` under `id` in `dir` atomically (a temporary file renamed over the old),
    /// then removes the cache files of this kind that this version cannot read; any failure
    /// leaves no cache and says nothing.
    pub(crate) fn store(
        &self,
        dir: &Path,
        id: &[u8; 32],
        content: &[u8; 32],
        stat: Option<Stat>,
        payload: &[u8],
    ) {
        let header = Header {
            format: self.format,
            version: VERSION,
            id: *id,
            content: *content,
            record: stat.map(|stat| Record {
                stat,
                written: now(),
            }),
        };
        let Some(key) = signing_key(dir, true) else {
            return;
        };
        let Some(bytes) = self.encode(&key, &header, payload) else {
            return;
        };
        let name = self.file_name(id);
        if kept::write_whole(&dir.join(&name), &bytes).is_err() {
            return;
        }
        self.prune(dir, &key, &name);
    }

    /// Removes the files of `dir` named as this kind's cache files, other than `kept_name`, that this
    /// version cannot read (an older format, another version, damage) or whose source file is
    /// gone, and the temporary files of this kind a killed process left (older than
    /// [`STALE_TMP`]). Only on a write, which follows an edit; nothing outside `dir`, nothing
    /// not named as a cache file of this kind.
    pub(super) fn prune(&self, dir: &Path, key: &Key, kept_name: &str) {
        let Ok(entries) = kept::entries(dir) else {
            return;
        };
        for entry in entries {
            let Some(name) = entry.name.to_str() else {
                continue;
            };
            let path = dir.join(name);
            if name.starts_with(&format!(".{}", self.prefix)) && name.ends_with(".tmp") {
                let stale = entry.modified.elapsed().is_ok_and(|age| age > STALE_TMP);
                if stale {
                    let _ = kept::remove(&path);
                }
                continue;
            }
            // A seal whose cache file is gone.
            if name.starts_with(self.prefix)
                && let Some(file) = name.strip_suffix(SEAL)
            {
                if !dir.join(file).exists() {
                    let _ = kept::remove(&path);
                }
                continue;
            }
            if name == kept_name || !(name.starts_with(self.prefix) && name.ends_with(".bin")) {
                continue;
            }
            let Ok(bytes) = kept::read(&path, files::MAX_STATE_BYTES) else {
                continue;
            };
            if !self.readable(key, &bytes) {
                let _ = kept::remove(&path);
            }
        }
    }

    /// Whether a cache file is one this build wrote (under `key`) for a source file that is
    /// still there.
    pub(super) fn readable(&self, key: &Key, bytes: &[u8]) -> bool {
        let Some(payload) = self.signed(key, bytes) else {
            return false;
        };
        let Ok((h, rest)) = postcard::take_from_bytes::<Header>(payload) else {
            return false;
        };
        let Some(origin) = (self.origin)(rest) else {
            return false;
        };
        h.format == self.format && h.version == VERSION && Path::new(origin).exists()
    }

    /// What follows the magic and the signature, when the signature is `key`'s over it
    /// (compared in constant time).
    fn signed<'b>(&self, key: &Key, bytes: &'b [u8]) -> Option<&'b [u8]> {
        use subtle::ConstantTimeEq as _;
        let (signature, payload) = bytes
            .strip_prefix(self.magic)?
            .split_first_chunk::<SIGNATURE>()?;
        let expected = crate::digest::siphash24(key, &[self.magic, payload]).to_le_bytes();
        bool::from(expected.ct_eq(signature)).then_some(payload)
    }

    /// A cache file's bytes: the magic, the signature of the rest under `key`, the header,
    /// the payload.
    pub(super) fn encode(&self, key: &Key, header: &Header, payload: &[u8]) -> Option<Vec<u8>> {
        let header = postcard::to_stdvec(header).ok()?;
        let mut bytes =
            Vec::with_capacity(self.magic.len() + SIGNATURE + header.len() + payload.len());
        bytes.extend_from_slice(self.magic);
        bytes.extend_from_slice(
            &crate::digest::siphash24(key, &[self.magic, &header, payload]).to_le_bytes(),
        );
        bytes.extend_from_slice(&header);
        bytes.extend_from_slice(payload);
        Some(bytes)
    }
}
