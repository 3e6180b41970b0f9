//! A person's spec files (`SENTINEL_HOME/commands/*.toml`) compiled once: each file's sections
//! are scanned, read as TOML and checked (`spec::check`, the code the build checks the bundled
//! ones with), and what that gives — each section's name, header line, aliases and checked form
//! (postcard), and every error with its line — is kept in `SENTINEL_HOME/cache/specs-<id>.bin`,
//! one cache file per spec file. A call then decodes the sections it names, as it does the
//! bundled ones, with no TOML to read and nothing to check.
//!
//! The cache files are the rule files' kind (`rules::cache`, whose module doc says why each part
//! is sound): the same envelope (magic, signature, this format's number, sentinel's version, the
//! SHA-256 of the content), the same stat fast path (an unchanged, not racy file is not read), the
//! same damage handling (anything that does not read as this version's file for this spec file
//! is compiled afresh and written over, never trusted) and the same pruning.
//!
//! Errors are cached too: a file's errors are a function of its content, like its sections, so a
//! file with a bad line costs a call no more than a good one, and every call still reports the
//! error with its file:line (which turns a local allow into `ask`), as `rules lint` does.

use crate::local::rules::cache::{self, Shelf, Stat};
use crate::local::spec::checked::Checked;
use crate::local::spec::{raw, scan};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// The spec files' cache files.
pub(crate) const SHELF: Shelf = Shelf {
    prefix: "specs-",
    magic: b"SNTLSPC\x01",
    // Bumped whenever what a cache file holds, or what it means, changes (a change to
    // `Checked`'s fields needs a bump too, though sentinel's version changes with any release).
    format: 5,
    origin,
};

/// A spec file as compiled, the start of its payload (postcard); the sections' checked forms
/// follow it, one after another.
#[derive(Serialize, Deserialize)]
pub(crate) struct Index<'a> {
    /// Where the file was read from.
    pub origin: &'a str,
    /// Its errors in the order a read finds them (the scan's, then each section's):
    /// (line, message).
    #[serde(borrow)]
    pub errors: Vec<(u32, &'a str)>,
    /// Its sections in file order.
    #[serde(borrow)]
    pub sections: Vec<Entry<'a>>,
}

/// One section of a compiled spec file.
#[derive(Serialize, Deserialize)]
pub(crate) struct Entry<'a> {
    /// The name in its header.
    pub name: &'a str,
    /// The header's line.
    pub line: u32,
    /// Other names it answers to, as full names.
    #[serde(borrow)]
    pub aliases: Vec<&'a str>,
    /// Its checked form: (start, len) in the bytes after the index; None when it has an error
    /// (which is in the index's errors).
    pub checked: Option<(u32, u32)>,
}

/// A compiled spec file: the bytes that hold it, and where in them its payload starts.
pub(crate) struct Compiled {
    pub bytes: Vec<u8>,
    pub at: usize,
}

impl Compiled {
    /// Its index, and where in [`Compiled::bytes`] the checked forms' spans start, when it reads
    /// and every span is within the bytes (else it is not used).
    pub fn read(&self) -> Option<(Index<'_>, usize)> {
        let (index, forms) = postcard::take_from_bytes::<Index>(self.bytes.get(self.at..)?).ok()?;
        let fits = |(a, n): (u32, u32)| a as usize + n as usize <= forms.len();
        index
            .sections
            .iter()
            .all(|s| s.checked.is_none_or(fits))
            .then_some((index, self.bytes.len() - forms.len()))
    }
}

/// Where a payload's spec file was read from, when it reads.
fn origin(payload: &[u8]) -> Option<&str> {
    let compiled = postcard::take_from_bytes::<Index>(payload).ok()?;
    Some(compiled.0.origin)
}

/// The spec file `file` (read from `path`, shown as `origin`) compiled, through the cache in
/// `cache` when there is one: its bytes, and what `take` made of its index and where its checked
/// forms start (called once, on the index used; each index is read once). An unreadable file is
/// an error message.
pub(crate) fn load<R>(
    cache: Option<&Path>,
    file: &str,
    path: &Path,
    origin: &str,
    mut take: impl FnMut(&Index, usize) -> R,
) -> Result<(Vec<u8>, R), String> {
    let mut taken = |compiled: Compiled| {
        let made = compiled.read().map(|(index, forms)| take(&index, forms))?;
        Some((compiled.bytes, made))
    };
    // Which spec file: nothing but its name and path changes what its content compiles to.
    let id = cache::id(file, b"commands", None, origin);
    // A file whose stat is what its cache recorded is not read (see `rules::cache`).
    let stat = std::fs::metadata(path).ok().as_ref().and_then(Stat::of);
    if let Some(dir) = cache
        && let Some(stat) = stat
        && let Some((bytes, at, _)) = SHELF.by_stat(dir, &id, stat)
        && let Some(loaded) = taken(Compiled { bytes, at })
    {
        return Ok(loaded);
    }
    let links = crate::config::files::Links::Follow;
    let max = crate::rules::MAX_HOME_FILE_BYTES;
    let bytes =
        crate::config::files::read(path, max, links).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "file is not valid UTF-8".to_string())?;
    let content: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    if let Some(dir) = cache
        && let Some((bytes, at, stale)) = SHELF.by_content(dir, &id, &content, stat)
        && let Some((bytes, made)) = taken(Compiled { bytes, at })
    {
        if stale {
            SHELF.store(dir, &id, &content, stat, &bytes[at..]);
        }
        return Ok((bytes, made));
    }
    let bytes = compile(&text, origin).ok_or("could not be compiled")?;
    if let Some(dir) = cache {
        SHELF.store(dir, &id, &content, stat, &bytes);
    }
    taken(Compiled { bytes, at: 0 }).ok_or_else(|| "could not be compiled".into())
}

/// A spec file's text compiled into its payload: every section read and checked, every error
/// kept with its line. None only if postcard cannot write it (never expected).
pub(crate) fn compile(text: &str, origin: &str) -> Option<Vec<u8>> {
    let (found, scan_errors) = scan::scan(text);
    let mut errors: Vec<(u32, String)> = scan_errors
        .into_iter()
        .map(|(line, message)| (line as u32, message))
        .collect();
    let mut forms = Vec::new();
    let mut checked = Vec::with_capacity(found.len());
    for s in &found {
        checked.push(
            match check_section(&text[s.start..s.end], s.line, &s.name) {
                Ok(c) => {
                    let start = forms.len();
                    postcard::to_io(&c, &mut forms).ok()?;
                    Some((start as u32, (forms.len() - start) as u32))
                }
                Err((line, message)) => {
                    errors.push((line as u32, message));
                    None
                }
            },
        );
    }
    let index = Index {
        origin,
        errors: errors.iter().map(|(l, m)| (*l, m.as_str())).collect(),
        sections: found
            .iter()
            .zip(checked)
            .map(|(s, checked)| Entry {
                name: &s.name,
                line: s.line as u32,
                aliases: s.aliases.iter().map(String::as_str).collect(),
                checked,
            })
            .collect(),
    };
    let mut bytes = postcard::to_stdvec(&index).ok()?;
    bytes.extend(forms);
    Some(bytes)
}

/// Reads one section's TOML (`text`, whose header is on line `header`) and checks it; an error
/// is (line, message).
pub(crate) fn check_section(
    text: &str,
    header: usize,
    name: &str,
) -> Result<Checked, (usize, String)> {
    let mut doc: BTreeMap<String, raw::RawSpec> = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|r| text[..r.start.min(text.len())].matches('\n').count())
            .unwrap_or(0);
        (header + line, crate::text::one_line(e.message()))
    })?;
    let raw = doc
        .remove(name)
        .ok_or_else(|| (header, "the section is empty".to_string()))?;
    crate::local::spec::check::check(raw, name, &|needle| raw::line_of(text, header, needle))
}
