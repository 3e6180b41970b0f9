//! The envelope every kind of cache file shares: magic, CRC-32, header, stat record, pruning.

use super::{RACY_NS, STALE_TMP, VERSION, now};
use crate::config::files::{self, Links};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

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
/// the same envelope (magic, CRC-32, [`Header`]), key, stat fast path, damage handling and
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
    /// this version writes for `id`.
    pub(super) fn header<'b>(&self, bytes: &'b [u8], id: &[u8; 32]) -> Option<(Header<'b>, usize)> {
        let (crc, payload) = bytes.strip_prefix(self.magic)?.split_first_chunk::<4>()?;
        if u32::from_le_bytes(*crc) != crc32fast::hash(payload) {
            return None;
        }
        let (h, image): (Header, _) = postcard::take_from_bytes(payload).ok()?;
        let at = bytes.len() - image.len();
        (h.format == self.format && h.version == VERSION && h.id == *id).then_some((h, at))
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
        let bytes = files::read(
            &dir.join(self.file_name(id)),
            files::MAX_STATE_BYTES,
            Links::Refuse,
        )
        .ok()?;
        let (header, at) = self.header(&bytes, id)?;
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
        let bytes = files::read(
            &dir.join(self.file_name(id)),
            files::MAX_STATE_BYTES,
            Links::Refuse,
        )
        .ok()?;
        let (header, at) = self.header(&bytes, id)?;
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
        let Some(bytes) = self.encode(&header, payload) else {
            return;
        };
        let name = self.file_name(id);
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let written = files::create_dir(dir)
            .and_then(|()| {
                let mut create = std::fs::OpenOptions::new();
                create.write(true).create(true).truncate(true);
                files::open(&tmp, &mut create, Links::Refuse)
            })
            .and_then(|mut f| f.write_all(&bytes))
            .and_then(|()| std::fs::rename(&tmp, dir.join(&name)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
            return;
        }
        self.prune(dir, &name);
    }

    /// Removes the files of `dir` named as this kind's cache files, other than `kept`, that this
    /// version cannot read (an older format, another version, damage) or whose source file is
    /// gone, and the temporary files of this kind a killed process left (older than
    /// [`STALE_TMP`]). Only on a write, which follows an edit; nothing outside `dir`, nothing
    /// not named as a cache file of this kind.
    pub(super) fn prune(&self, dir: &Path, kept: &str) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with(&format!(".{}", self.prefix)) && name.ends_with(".tmp") {
                let stale = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > STALE_TMP);
                if stale {
                    let _ = std::fs::remove_file(entry.path());
                }
                continue;
            }
            if name == kept || !(name.starts_with(self.prefix) && name.ends_with(".bin")) {
                continue;
            }
            let path = entry.path();
            let Ok(bytes) = files::read(&path, files::MAX_STATE_BYTES, Links::Refuse) else {
                continue;
            };
            if !self.readable(&bytes) {
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    /// Whether a cache file is one this version wrote for a source file that is still there.
    pub(super) fn readable(&self, bytes: &[u8]) -> bool {
        let Some((crc, payload)) = bytes
            .strip_prefix(self.magic)
            .and_then(|b| b.split_first_chunk::<4>())
        else {
            return false;
        };
        if u32::from_le_bytes(*crc) != crc32fast::hash(payload) {
            return false;
        }
        let Ok((h, rest)) = postcard::take_from_bytes::<Header>(payload) else {
            return false;
        };
        let Some(origin) = (self.origin)(rest) else {
            return false;
        };
        h.format == self.format && h.version == VERSION && Path::new(origin).exists()
    }

    /// A cache file's bytes: the magic, a CRC-32 of the rest, the header, the payload.
    pub(super) fn encode(&self, header: &Header, payload: &[u8]) -> Option<Vec<u8>> {
        let header = postcard::to_stdvec(header).ok()?;
        let mut bytes = Vec::with_capacity(self.magic.len() + 4 + header.len() + payload.len());
        bytes.extend_from_slice(self.magic);
        let mut crc = crc32fast::Hasher::new();
        crc.update(&header);
        crc.update(payload);
        bytes.extend_from_slice(&crc.finalize().to_le_bytes());
        bytes.extend_from_slice(&header);
        bytes.extend_from_slice(payload);
        Some(bytes)
    }
}
