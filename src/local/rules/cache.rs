//! A person's and a project's rule files compiled once: each file's lines, what parsing each
//! found (a command rule's prefilter, or the line's error) and its `off:` lines are kept in
//! `SENTINEL_HOME/cache/rules-<id>.bin`, one cache file per rule file (`id`: the SHA-256 of which
//! file, which layer, the home `~` expands to and where it was read from), with the SHA-256 of the
//! content it was compiled from, sentinel's version and this format's number. A cache file that is
//! damaged, truncated, of another version or format, or whose checksum or id does not match is
//! rebuilt, never trusted; a home that cannot be written just means no cache, silently (the
//! decision does not depend on it). An edit writes the file's new cache over the old one, and
//! cache files this version cannot read (an older format, another version) are removed then.
//! A person's spec files are cached the same way (`spec_cache`): everything here but the image
//! is a [`Shelf`], which both kinds of cache file go through.
//!
//! Which content a cache file is for is known two ways. A project's files are read and hashed
//! anyway (their trust is a SHA-256), so a project's cache is used when that hash is the one it
//! records. A file in SENTINEL_HOME is not read at all when its stat matches, the way git's index
//! does it: the cache records the file's device, inode, size, mtime and ctime (ns) as they were
//! before it was read and hashed; when all five are unchanged, and neither time is within
//! [`RACY_NS`] of when that record was written, the cache is used as it is. Otherwise the file is
//! read and hashed, and a cache whose hash matches is used and gets the new stat record.
//!
//! Why that is sound. Any write to a file sets its ctime to the current time, and no call lets a
//! user set ctime (utimensat sets mtime and atime only), so an edit that keeps the size and puts
//! the mtime back still changes the ctime; a file replaced by another (rename, a new file on a
//! reused inode) has a new ctime too. What the stat cannot see is an edit within the clock tick
//! (or the filesystem's timestamp granularity, whole seconds on some) of the stat it was compared
//! with: such a file is "racy", and its timestamps are then within `RACY_NS` of the record, so it
//! is hashed. Changing ctime takes root (the system clock, the raw device); a filesystem that does
//! not keep a real ctime (some FUSE and network mounts) could hide a same-size edit whose mtime is
//! put back, which is why project files, which an agent may write, are always hashed. At worst
//! the stat keeps the rules the file held before, which the person wrote; it never makes up one.

use crate::config::files::{self, Links};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// Bumped whenever what a cache file holds, or what it means, changes.
const FORMAT: u32 = 2;
/// The first bytes of every cache file, then a CRC-32 of the rest.
const MAGIC: &[u8; 8] = b"SNTLRUL\x02";
/// sentinel's version and a hash of the sources that define the layout (build.rs).
const VERSION: &str = env!("SENTINEL_CACHE_VERSION");
/// A file whose mtime or ctime is this close to (or after) when its stat was recorded may have
/// changed since without its stat showing it: hashed, not trusted on its stat.
pub(crate) const RACY_NS: i128 = 2_000_000_000;

/// What a person's file is against the bundled one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Kind {
    /// Exactly this version's bundled text: the bundled rules, no layer.
    Bundled,
    /// An untouched copy an earlier install seeded: ignored.
    Seeded,
    /// The person's own lines over the bundled rules.
    Own,
}

/// What parsing one rule line found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found<'a> {
    /// A bad line, with its message (reported with the file and this line).
    Error(Cow<'a, str>),
    /// A command rule's prefilter (what `rule_scan::literal_filters` computes): its prefixes
    /// and required literals as (first, count) into [`Image::literals`].
    Command {
        anchored: bool,
        prefixes: (u32, u32),
        required: (u32, u32),
    },
    /// A path-list line whose glob builds.
    Path,
}

/// One rule line of a file (comments and blank lines have none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub line: u32,
    pub pattern: &'a str,
    pub why: Option<&'a str>,
    pub found: Found<'a>,
}

/// A rule file as compiled: everything a load needs, without the file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Image<'a> {
    pub kind: Kind,
    /// Where the file was read from (each rule's origin).
    pub origin: &'a str,
    /// Its `off: PATTERN` lines (line, pattern).
    pub off: Vec<(u32, &'a str)>,
    pub lines: Vec<Line<'a>>,
    pub literals: Vec<&'a [u8]>,
}

/// An image as a cache file holds it: its strings in one text and its literals in one blob
/// (one UTF-8 check, no allocation per line), each line a fixed record of [`FIELDS`] u32s
/// (read without a varint per field: postcard's per-field decoding was most of a load).
#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    kind: Kind,
    origin: &'a str,
    #[serde(borrow)]
    off: Vec<(u32, &'a str)>,
    /// Patterns, comments and error messages, one after another (UTF-8, checked a string at
    /// a time when a line is read).
    text: &'a [u8],
    /// The literals' bytes.
    blob: &'a [u8],
    /// Each literal as (start, len) in `blob`, u32 LE.
    spans: &'a [u8],
    /// The lines, [`FIELDS`] u32 LE each: line; pattern (start, len) in `text`; why (start, len,
    /// `NONE` as start when there is none); what was found (0 error, 1 command, 2 anchored
    /// command, 3 path); then for an error its message (start, len), for a command its prefixes
    /// and required literals, each (first, count) in `spans`.
    lines: &'a [u8],
}

const FIELDS: usize = 10;
const NONE: u32 = u32::MAX;

/// A cached image as it is stored, read a line at a time: a load looks only at each line's
/// kind (to report the bad ones), and a command rule is built when a command could match it,
/// so a file of thousands of rules costs a few instructions a rule, not a parse. Every read is
/// bounds-checked; a line that does not read is a damaged line (see [`Compiled::line`]).
#[derive(Debug)]
pub(crate) struct Compiled<'a> {
    pub kind: Kind,
    /// Where the file was read from (each rule's origin).
    pub origin: &'a str,
    /// Its `off: PATTERN` lines (line, pattern).
    pub off: Vec<(u32, &'a str)>,
    text: &'a [u8],
    blob: &'a [u8],
    spans: &'a [u8],
    lines: &'a [u8],
}

impl<'a> Compiled<'a> {
    fn new(stored: Stored<'a>) -> Option<Compiled<'a>> {
        (stored.spans.len().is_multiple_of(8) && stored.lines.len().is_multiple_of(4 * FIELDS))
            .then_some(())?;
        Some(Compiled {
            kind: stored.kind,
            origin: stored.origin,
            off: stored.off,
            text: stored.text,
            blob: stored.blob,
            spans: stored.spans,
            lines: stored.lines,
        })
    }

    /// How many lines (rule lines and bad lines).
    pub fn len(&self) -> usize {
        self.lines.len() / (4 * FIELDS)
    }

    fn record(&self, i: usize) -> Option<[u32; FIELDS]> {
        let at = i * 4 * FIELDS;
        let bytes = self.lines.get(at..at + 4 * FIELDS)?;
        Some(words::<{ 4 * FIELDS }, FIELDS>(bytes.try_into().ok()?))
    }

    /// Whether line `i` is a bad line (reported at load), without reading the rest of it.
    pub fn is_error(&self, i: usize) -> bool {
        self.record(i).is_some_and(|f| f[5] == 0)
    }

    /// For a command line: whether it is filed under first byte `b` (a prefix starts with
    /// it) or under every byte (no prefix, not anchored, or a line that does not read).
    /// False for a bad line, which has no rule.
    pub fn filed_under(&self, i: usize, b: u8) -> bool {
        let Some(f) = self.record(i) else {
            return true;
        };
        match f[5] {
            0 => false,
            1 => true,
            2 if f[7] == 0 => true,
            2 => (f[6]..f[6].saturating_add(f[7])).any(|k| {
                self.literal(k as usize)
                    .is_none_or(|l| l.first().is_none_or(|&c| c == b))
            }),
            _ => true,
        }
    }

    /// Literal `k` of the table.
    fn literal(&self, k: usize) -> Option<&'a [u8]> {
        let span = self.spans.get(8 * k..8 * k + 8)?;
        let [a, n] = words::<8, 2>(span.try_into().ok()?);
        self.blob.get(a as usize..a as usize + n as usize)
    }

    /// Literals `first..first + n`, each checked to be within the table.
    pub fn literals(&self, (first, n): (u32, u32)) -> Option<Vec<&'a [u8]>> {
        (first as usize..first as usize + n as usize)
            .map(|k| self.literal(k))
            .collect()
    }

    /// Line `i` in full, or None when it does not read (a damaged file the checksum missed:
    /// the caller makes it a rule that never allows).
    pub fn line(&self, i: usize) -> Option<Line<'a>> {
        let f = self.record(i)?;
        let text = |a: u32, n: u32| {
            let bytes = self.text.get(a as usize..a as usize + n as usize)?;
            std::str::from_utf8(bytes).ok()
        };
        let of =
            |a: u32, n: u32| ((a as usize + n as usize) * 8 <= self.spans.len()).then_some((a, n));
        let why = match f[3] {
            NONE => None,
            a => Some(text(a, f[4])?),
        };
        let found = match f[5] {
            0 => Found::Error(Cow::Borrowed(text(f[6], f[7])?)),
            1 | 2 => Found::Command {
                anchored: f[5] == 2,
                prefixes: of(f[6], f[7])?,
                required: of(f[8], f[9])?,
            },
            3 => Found::Path,
            _ => return None,
        };
        Some(Line {
            line: f[0],
            pattern: text(f[1], f[2])?,
            why,
            found,
        })
    }

    /// Every line decoded, as an [`Image`] (tests, and what a miss compiled).
    #[cfg(test)]
    fn image(&self) -> Option<Image<'a>> {
        let literals = self.literals((0, (self.spans.len() / 8) as u32))?;
        let lines = (0..self.len())
            .map(|i| self.line(i))
            .collect::<Option<Vec<_>>>()?;
        Some(Image {
            kind: self.kind,
            origin: self.origin,
            off: self.off.clone(),
            lines,
            literals,
        })
    }
}

/// The u32s LE of `bytes` (`B` = 4 × `N`; fixed sizes, so no bounds are checked).
fn words<const B: usize, const N: usize>(bytes: &[u8; B]) -> [u32; N] {
    std::array::from_fn(|i| {
        let at = 4 * i;
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    })
}

/// An image's stored bytes (postcard of its [`Stored`] form).
fn encode_image(image: &Image) -> Option<Vec<u8>> {
    let mut text = String::new();
    let mut at = |s: &str| {
        let start = text.len() as u32;
        text.push_str(s);
        [start, s.len() as u32]
    };
    let mut blob = Vec::new();
    let mut spans = Vec::new();
    // Equal literals (a rule's prefix is often its required literal) are stored once.
    let mut seen = std::collections::HashMap::new();
    for l in &image.literals {
        let start = *seen.entry(*l).or_insert_with(|| {
            blob.extend_from_slice(l);
            (blob.len() - l.len()) as u32
        });
        spans.extend(start.to_le_bytes());
        spans.extend((l.len() as u32).to_le_bytes());
    }
    let mut lines = Vec::with_capacity(image.lines.len() * 4 * FIELDS);
    for l in &image.lines {
        let pattern = at(l.pattern);
        let why = l.why.map_or([NONE, 0], &mut at);
        let rest = match &l.found {
            Found::Error(message) => {
                let [a, n] = at(message);
                [0, a, n, 0, 0]
            }
            Found::Command {
                anchored,
                prefixes,
                required,
            } => [
                1 + u32::from(*anchored),
                prefixes.0,
                prefixes.1,
                required.0,
                required.1,
            ],
            Found::Path => [3, 0, 0, 0, 0],
        };
        let record = [l.line, pattern[0], pattern[1], why[0], why[1]];
        for v in record.iter().chain(&rest) {
            lines.extend(v.to_le_bytes());
        }
    }
    postcard::to_stdvec(&Stored {
        kind: image.kind,
        origin: image.origin,
        off: image.off.clone(),
        text: text.as_bytes(),
        blob: &blob,
        spans: &spans,
        lines: &lines,
    })
    .ok()
}

/// The image stored in `bytes`, all of them, to be read a line at a time.
fn decode(bytes: &[u8]) -> Option<Compiled<'_>> {
    Compiled::new(postcard::from_bytes::<Stored>(bytes).ok()?)
}

/// The image stored in `bytes`, every line decoded.
#[cfg(test)]
fn decode_image(bytes: &[u8]) -> Option<Image<'_>> {
    decode(bytes)?.image()
}

/// A file's stat as the cache compares it (ns times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i128,
    ctime: i128,
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
    fn racy(&self, written: i128) -> bool {
        self.mtime.max(self.ctime) > written - RACY_NS
    }
}

/// The stat record: the file's stat before it was read and hashed, and when that was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    stat: Stat,
    written: i128,
}

/// Everything before the image.
#[derive(Serialize, Deserialize)]
struct Header<'a> {
    format: u32,
    version: &'a str,
    id: [u8; 32],
    /// The content's SHA-256.
    content: [u8; 32],
    record: Option<Record>,
}

/// Which rule file a cache file is for: the SHA-256 of the file's name, its layer, the home `~`
/// expands to and where it was read from, each part length-prefixed.
pub(crate) fn id(file: &str, layer: &[u8], home: Option<&Path>, origin: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    let home = home.map(|h| h.as_os_str().as_encoded_bytes());
    for part in [
        file.as_bytes(),
        layer,
        home.unwrap_or(b"\0none"),
        origin.as_bytes(),
    ] {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// The cache file's name for `id`.
#[cfg(test)]
fn file_name(id: &[u8; 32]) -> String {
    RULES.file_name(id)
}

/// The time now, in ns since the epoch.
pub(crate) fn now() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// The image cached for `id` in `dir` when the file's stat (taken now) is the recorded one and
/// not racy: the file need not be read.
pub(crate) fn by_stat(dir: &Path, id: &[u8; 32], stat: Stat) -> Option<&'static Compiled<'static>> {
    let (bytes, at, content) = RULES.by_stat(dir, id, stat)?;
    intern(id, &content, bytes, at)
}

/// The image cached for `id` in `dir` when it was compiled from content whose SHA-256 is
/// `content`. When `stat` (taken before the content was read) is given and is not what the cache
/// records, or was racy, the record is refreshed.
pub(crate) fn by_content(
    dir: &Path,
    id: &[u8; 32],
    content: &[u8; 32],
    stat: Option<Stat>,
) -> Option<&'static Compiled<'static>> {
    let (bytes, at, stale) = RULES.by_content(dir, id, content, stat)?;
    // Only the stat record changes: the image's bytes, once they decode, are written back as
    // they are.
    let payload = stale.then(|| bytes[at..].to_vec());
    let image = intern(id, content, bytes, at)?;
    if let Some(payload) = payload {
        RULES.store(dir, id, content, stat, &payload);
    }
    Some(image)
}

/// The header of a cache file and where its image's bytes start, when the file is exactly what
/// this version writes for `id`.
#[cfg(test)]
fn header<'b>(bytes: &'b [u8], id: &[u8; 32]) -> Option<(Header<'b>, usize)> {
    RULES.header(bytes, id)
}

/// The images decoded in this process, by (id, content). An image's strings are the rules'
/// pattern, why and origin for as long as the rules live, so its bytes are kept for the process
/// (no copy per rule); each distinct image once, so loading the same files again keeps nothing
/// more.
type Interned = Vec<([u8; 32], [u8; 32], &'static Compiled<'static>)>;
static INTERNED: Mutex<Interned> = Mutex::new(Vec::new());

/// The image stored in `bytes` from `at` on, decoded once per process (the bytes are kept, not
/// copied).
fn intern(
    id: &[u8; 32],
    content: &[u8; 32],
    bytes: Vec<u8>,
    at: usize,
) -> Option<&'static Compiled<'static>> {
    let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((.., image)) = interned.iter().find(|(i, c, _)| i == id && c == content) {
        return Some(*image);
    }
    let bytes: &'static [u8] = bytes.leak();
    let image: &'static Compiled = Box::leak(Box::new(decode(bytes.get(at..)?)?));
    interned.push((*id, *content, image));
    Some(image)
}

/// `image` as a cache file for `id` would give it back (what a load uses on a miss, so a hit
/// and a miss build the rules from the same thing).
pub(crate) fn reload(
    id: &[u8; 32],
    content: &[u8; 32],
    image: &Image,
) -> Option<&'static Compiled<'static>> {
    intern(id, content, encode_image(image)?, 0)
}

/// Writes the image under `id` in `dir` atomically (a temporary file renamed over the old), then
/// removes the cache files this version cannot read; any failure leaves no cache and says nothing.
pub(crate) fn store(
    dir: &Path,
    id: &[u8; 32],
    content: &[u8; 32],
    stat: Option<Stat>,
    image: &Image,
) {
    if let Some(image) = encode_image(image) {
        RULES.store(dir, id, content, stat, &image);
    }
}

/// A cache file's bytes: the magic, a CRC-32 of the payload, the payload (header, image).
#[cfg(test)]
fn encode(header: &Header, image: &Image) -> Option<Vec<u8>> {
    RULES.encode(header, &encode_image(image)?)
}

/// A temporary cache file this old was left by a process killed mid-write (a write takes
/// milliseconds): the next write removes it.
pub(crate) const STALE_TMP: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// The rule files' cache files.
const RULES: Shelf = Shelf {
    prefix: "rules-",
    magic: MAGIC,
    format: FORMAT,
    origin: image_origin,
};

/// Where an image's rule file was read from, when `bytes` hold an image.
fn image_origin(bytes: &[u8]) -> Option<&str> {
    decode(bytes).map(|i| i.origin)
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
    fn header<'b>(&self, bytes: &'b [u8], id: &[u8; 32]) -> Option<(Header<'b>, usize)> {
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
    fn prune(&self, dir: &Path, kept: &str) {
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
    fn readable(&self, bytes: &[u8]) -> bool {
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
    fn encode(&self, header: &Header, payload: &[u8]) -> Option<Vec<u8>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn image(origin: &str) -> Image<'_> {
        Image {
            kind: Kind::Own,
            origin,
            off: vec![(3, "^rm")],
            lines: vec![
                Line {
                    line: 2,
                    pattern: "^ls",
                    why: Some("list"),
                    found: Found::Command {
                        anchored: true,
                        prefixes: (0, 1),
                        required: (1, 1),
                    },
                },
                Line {
                    line: 4,
                    pattern: "^(",
                    why: None,
                    found: Found::Error("bad regex".into()),
                },
            ],
            literals: vec![b"ls", b"ls"],
        }
    }

    fn header(version: &str, format: u32, id: [u8; 32]) -> Header<'_> {
        Header {
            format,
            version,
            id,
            content: [1; 32],
            record: None,
        }
    }

    #[test]
    fn only_this_versions_file_for_this_id_is_read() {
        let id = id("hard_block_commands.txt", b"home", None, "/h/x");
        let good = encode(&header(VERSION, FORMAT, id), &image("/h/x")).unwrap();
        let (_, at) = super::header(&good, &id).unwrap();
        assert_eq!(decode_image(&good[at..]), Some(image("/h/x")));
        for (what, other) in [
            ("another version", header("0.0.0-other", FORMAT, id)),
            ("another format", header(VERSION, FORMAT + 1, id)),
            ("another id", header(VERSION, FORMAT, [7; 32])),
        ] {
            let bytes = encode(&other, &image("/h/x")).unwrap();
            assert!(super::header(&bytes, &id).is_none(), "{what}");
        }
        // Every truncation, and every single flipped bit, is refused.
        let read = |b: &[u8]| {
            super::header(b, &id).is_some_and(|(_, at)| decode_image(&b[at..]).is_some())
        };
        for n in 0..good.len() {
            assert!(!read(&good[..n]), "cut at {n}");
        }
        for i in 0..good.len() {
            for bit in 0..8 {
                let mut b = good.clone();
                b[i] ^= 1 << bit;
                assert!(!read(&b), "byte {i} bit {bit}");
            }
        }
    }

    #[test]
    fn the_id_covers_everything_the_parse_depends_on_but_the_content() {
        let base = id("a.txt", b"home", Some(Path::new("/h")), "/s/a.txt");
        assert_ne!(
            base,
            id("b.txt", b"home", Some(Path::new("/h")), "/s/a.txt")
        );
        assert_ne!(
            base,
            id("a.txt", b"project:/p", Some(Path::new("/h")), "/s/a.txt")
        );
        assert_ne!(
            base,
            id("a.txt", b"home", Some(Path::new("/g")), "/s/a.txt")
        );
        assert_ne!(base, id("a.txt", b"home", None, "/s/a.txt"));
        assert_ne!(
            base,
            id("a.txt", b"home", Some(Path::new("/h")), "/t/a.txt")
        );
        // Parts cannot run into each other.
        assert_ne!(id("ab", b"c", None, ""), id("a", b"bc", None, ""));
    }

    /// A rule file and its stat, in a fresh directory of the tests' temporary space.
    fn scratch() -> (tempfile::TempDir, std::path::PathBuf, Stat) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hard_block_commands.txt");
        std::fs::write(&file, "^ls\n").unwrap();
        let stat = Stat::of(&std::fs::metadata(&file).unwrap()).unwrap();
        (dir, file, stat)
    }

    /// A cache file recording `stat` at `written` for content `content`.
    fn forge(
        dir: &Path,
        id: &[u8; 32],
        content: [u8; 32],
        stat: Stat,
        written: i128,
        origin: &str,
    ) {
        let header = Header {
            format: FORMAT,
            version: VERSION,
            id: *id,
            content,
            record: Some(Record { stat, written }),
        };
        std::fs::write(
            dir.join(file_name(id)),
            encode(&header, &image(origin)).unwrap(),
        )
        .unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_stat_is_trusted_only_when_unchanged_and_not_racy() {
        let (tmp, file, stat) = scratch();
        let dir = tmp.path();
        let origin = file.display().to_string();
        let id = id("hard_block_commands.txt", b"home", None, &origin);
        // A record made well after the file's last change: its stat is trusted, even for a
        // content it does not hash to (what an edit within one clock tick would look like).
        let late = stat.mtime.max(stat.ctime) + 2 * RACY_NS;
        forge(dir, &id, [9; 32], stat, late, &origin);
        assert_eq!(
            by_stat(dir, &id, stat).and_then(|c| c.image()),
            Some(image(&origin))
        );
        // The same record made right after the change (racy): the file must be hashed.
        forge(dir, &id, [9; 32], stat, stat.ctime + 1, &origin);
        assert!(by_stat(dir, &id, stat).is_none());
        // Any field of the stat that differs: hashed.
        for other in [
            Stat {
                size: stat.size + 1,
                ..stat
            },
            Stat {
                mtime: stat.mtime - 1,
                ..stat
            },
            Stat {
                ctime: stat.ctime + 1,
                ..stat
            },
            Stat {
                ino: stat.ino + 1,
                ..stat
            },
            Stat {
                dev: stat.dev + 1,
                ..stat
            },
        ] {
            forge(dir, &id, [9; 32], stat, late, &origin);
            assert!(by_stat(dir, &id, other).is_none(), "{other:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_matching_hash_refreshes_the_record_and_a_write_prunes_what_cannot_be_read() {
        let (tmp, file, stat) = scratch();
        let dir = tmp.path();
        let origin = file.display().to_string();
        let mine = id("hard_block_commands.txt", b"home", None, &origin);
        forge(dir, &mine, [5; 32], stat, stat.ctime, &origin);
        // Racy: not by stat; by content, and the record is made again, now.
        assert!(by_stat(dir, &mine, stat).is_none());
        assert!(
            by_content(dir, &mine, &[6; 32], Some(stat)).is_none(),
            "another content"
        );
        assert!(by_content(dir, &mine, &[5; 32], Some(stat)).is_some());
        let bytes = std::fs::read(dir.join(file_name(&mine))).unwrap();
        let (h, _) = super::header(&bytes, &mine).unwrap();
        let record = h.record.unwrap();
        assert_eq!(record.stat, stat);
        assert!(record.written > stat.ctime + 1);
        // An old format's file, a foreign one and one whose rule file is gone are removed when a
        // cache file is written; a readable one of another rule file, and anything not named as
        // a cache file, stay.
        let other = id("safe_commands.txt", b"home", None, &origin);
        forge(dir, &other, [5; 32], stat, 0, &origin);
        let gone = id("safe_paths.txt", b"home", None, "/no/such/file");
        forge(dir, &gone, [5; 32], stat, 0, "/no/such/file");
        std::fs::write(dir.join("rules-old.bin"), b"SNTLRUL\x01old").unwrap();
        std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
        store(dir, &mine, &[5; 32], Some(stat), &image(&origin));
        let mut left: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut want = vec![
            "hard_block_commands.txt".to_string(),
            "notes.txt".into(),
            file_name(&mine),
            file_name(&other),
        ];
        want.sort();
        assert_eq!(left, want);
    }
}
