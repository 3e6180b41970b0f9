//! A person's and a project's rule files compiled once: each file's lines, what parsing each
//! found (a command rule's prefilter, or the line's error) and its `off:` lines are kept in
//! `SENTINEL_HOME/cache/rules-<id>.bin`, one cache file per rule file (`id`: the SHA-256 of which
//! file, which layer, the home `~` expands to and where it was read from), with the SHA-256 of the
//! content it was compiled from, sentinel's version (with a digest of the bundled rules) and this
//! format's number, signed with a key of this build's and the home's ([`shelf`]). A cache file
//! that is damaged, truncated, of another build, version or format, whose signature does not
//! verify (crafted, or written under another key) or whose id does not match is rebuilt, never
//! trusted; a home that cannot be written just means no cache, silently (the
//! decision does not depend on it). An edit writes the file's new cache over the old one, and
//! cache files this version cannot read (an older format, another version) are removed then.
//! A person's spec files are cached the same way (`spec::cache`): everything here but the image
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

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::path::Path;
use std::sync::Mutex;

mod image;
mod shelf;
#[cfg(test)]
mod tests;

pub(crate) use image::Compiled;
#[cfg(test)]
use image::decode_image;
use image::{decode, encode_image};
#[cfg(test)]
use shelf::{Header, Record};
pub(crate) use shelf::{Shelf, Stat};

/// Bumped whenever what a cache file holds, or what it means, changes.
const FORMAT: u32 = 2;
/// The first bytes of every cache file, then the signature of the rest ([`shelf`]).
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
    /// A command rule's prefilter (what `rules::scan::literal_filters` computes): its prefixes
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

/// The key the cache files of SENTINEL_HOME `home` are signed with (made when there is none):
/// it also signs what `report` keeps of the journals, so that a summary only this home's
/// sentinel could have written is read.
pub(crate) fn home_key(home: &Path) -> Option<shelf::Key> {
    shelf::signing_key(&home.join("cache"), true)
}

/// The key the unit tests sign with: the one the cache files in `dir` are signed with.
#[cfg(test)]
fn test_key(dir: &Path) -> shelf::Key {
    shelf::signing_key(dir, true).expect("a key")
}

/// The cache file's name for `id`.
#[cfg(test)]
#[cfg_attr(not(unix), allow(dead_code))]
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
fn header<'b>(dir: &Path, bytes: &'b [u8], id: &[u8; 32]) -> Option<(Header<'b>, usize)> {
    RULES.header(&test_key(dir), bytes, id)
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

/// A cache file's bytes: the magic, the signature, the payload (header, image).
#[cfg(test)]
fn encode(dir: &Path, header: &Header, image: &Image) -> Option<Vec<u8>> {
    RULES.encode(&test_key(dir), header, &encode_image(image)?)
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
