//! A rule file's image as a cache file stores it, read a line at a time.

use super::{Found, Image, Kind, Line};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// An image as a cache file holds it: its strings in one text and its literals in one blob
/// (one UTF-8 check, no allocation per line), each line a fixed record of [`FIELDS`] u32s
/// (read without a varint per field: postcard's per-field decoding was most of a load).
#[derive(Serialize, Deserialize)]
pub(super) struct Stored<'a> {
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

pub(super) const FIELDS: usize = 10;
pub(super) const NONE: u32 = u32::MAX;

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

    /// The byte-pair bit of a literal every match of command line `i` contains (its first
    /// required literal, else its one prefix), for a quick pass before [`Self::could_match`].
    /// None when there is none, or the line does not read (it is tried in full).
    pub fn key_pair(&self, i: usize) -> Option<u8> {
        let f = self.record(i)?;
        if !matches!(f[5], 1 | 2) {
            return None;
        }
        let k = match (f[9], f[7]) {
            (0, 1) => f[6],
            (0, _) => return None,
            _ => f[8],
        };
        let bit = crate::local::paths::scan::Mask::first_pair_bit(self.literal(k as usize)?)?;
        u8::try_from(bit).ok()
    }

    /// Whether command line `i` could match `text` (whose byte pairs are `pairs`) by its
    /// literals, read as `CommandRule::could_match` reads its rule's: every required literal
    /// in the text, and a prefix at its start (anchored) or in it. True for a line whose
    /// record or literals do not read: its rule is one that never allows, and is tried.
    pub fn could_match(
        &self,
        i: usize,
        text: &[u8],
        pairs: &crate::local::paths::scan::Mask,
    ) -> bool {
        let Some(f) = self.record(i) else {
            return true;
        };
        if !matches!(f[5], 1 | 2) {
            return true;
        }
        let read = |first: u32, n: u32| {
            (first..first.saturating_add(n))
                .map(|k| self.literal(k as usize))
                .collect::<Option<Vec<_>>>()
        };
        let (Some(prefixes), Some(required)) = (read(f[6], f[7]), read(f[8], f[9])) else {
            return true;
        };
        let contains = |l: &&[u8]| pairs.may_contain(l) && crate::local::contains_bytes(text, l);
        if !required.iter().all(contains) {
            return false;
        }
        prefixes.is_empty()
            || match f[5] {
                2 => prefixes.iter().any(|p| text.starts_with(p)),
                _ => prefixes.iter().any(contains),
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
    pub(super) fn image(&self) -> Option<Image<'a>> {
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
pub(super) fn words<const B: usize, const N: usize>(bytes: &[u8; B]) -> [u32; N] {
    std::array::from_fn(|i| {
        let at = 4 * i;
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    })
}

/// An image's stored bytes (postcard of its [`Stored`] form).
pub(super) fn encode_image(image: &Image) -> Option<Vec<u8>> {
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
pub(super) fn decode(bytes: &[u8]) -> Option<Compiled<'_>> {
    Compiled::new(postcard::from_bytes::<Stored>(bytes).ok()?)
}

/// The image stored in `bytes`, every line decoded.
#[cfg(test)]
pub(super) fn decode_image(bytes: &[u8]) -> Option<Image<'_>> {
    decode(bytes)?.image()
}
