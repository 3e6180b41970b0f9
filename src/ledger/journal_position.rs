//! How far a kept reader got in a journal, file by file, and the lines past it: what lets
//! `sentinel report` read only what the journals gained since its last run.
//!
//! Each file the reader went through is named by its identity (device, inode), the bytes read
//! (up to the end of a whole line) and the bytes just before that point. The journal stays the
//! source of truth: a position is followed only while the journal's files, oldest first, begin
//! with the same files, none shorter than what was read and each with the same bytes before
//! the point. A rotation keeps the file (renamed, same identity), so it is still followed; a
//! file cut, rewritten, replaced or removed is not ([`Read::Stale`]: count again from the start).

use crate::config::kept::{self, Access};
use crate::ledger::journal::Journal;
use crate::platform::identity::{self, FileId};
use serde::{Deserialize, Serialize};
use std::io::{Read as _, Seek, SeekFrom};
use std::path::PathBuf;

/// Bytes before the point kept to recognise a file: a whole line's end, with its time.
const TAIL_BYTES: u64 = 64;

/// Where a reader stopped in one file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileMark {
    pub id: FileId,
    /// Bytes read, up to the end of a whole line.
    pub done: u64,
    /// The bytes just before `done` (at most [`TAIL_BYTES`]).
    pub tail: Vec<u8>,
}

/// How far a reader got: every file of the journal it went through, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Position {
    pub files: Vec<FileMark>,
}

/// A whole line read past the position: its file (an index into [`Position::files`]), where
/// it starts and ends (after its newline), and its text without the newline.
#[derive(Debug)]
pub struct NewLine {
    pub file: usize,
    pub start: u64,
    pub end: u64,
    pub text: String,
}

/// What reading on from a position found.
#[derive(Debug)]
pub enum Read {
    /// The position still matches the journal: the whole lines past it (the position now ends
    /// after them), and what follows the current file's last newline (a torn line, or one being
    /// written), read as the whole read reads it but not passed.
    On {
        lines: Vec<NewLine>,
        torn: Option<String>,
    },
    /// The journal no longer begins with what was read (cut, rewritten, replaced, removed).
    Stale,
    /// What a position cannot follow: a torn line inside a rotated file, or files that rotated
    /// or vanished while they were read.
    Unfollowable,
}

/// A line's text as the journal's readers take it: checked UTF-8, else with replacements.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

impl Position {
    /// Reads `journal` on from this position, moving it past the whole lines read. On anything
    /// but [`Read::On`] the position is left as it was.
    pub fn read_on(&mut self, journal: &Journal) -> std::io::Result<Read> {
        let listing = journal.files();
        let mut opened = Vec::new();
        for path in &listing {
            match kept::open_with_len(path, Access::Read) {
                Ok((f, len)) => {
                    let id = identity::of_file(&f)?;
                    opened.push((f, len, id));
                }
                Err(e) if crate::config::is_absent(&e) => return Ok(Read::Unfollowable),
                Err(e) => return Err(e),
            }
        }
        if self.files.len() > opened.len() {
            return Ok(Read::Stale);
        }
        for (mark, (f, len, id)) in self.files.iter().zip(opened.iter_mut()) {
            if *id != mark.id
                || *len < mark.done
                || mark.tail.len() as u64 != mark.done.min(TAIL_BYTES)
            {
                return Ok(Read::Stale);
            }
            let mut tail = vec![0; mark.tail.len()];
            f.seek(SeekFrom::Start(mark.done - tail.len() as u64))?;
            f.read_exact(&mut tail)?;
            if tail != mark.tail {
                return Ok(Read::Stale);
            }
        }
        let mut files = self.files.clone();
        let mut lines = Vec::new();
        let mut torn = None;
        let last = opened.len().saturating_sub(1);
        for (i, (f, len, id)) in opened.iter_mut().enumerate() {
            if i == files.len() {
                files.push(FileMark {
                    id: *id,
                    done: 0,
                    tail: Vec::new(),
                });
            }
            let mark = &mut files[i];
            if *len <= mark.done {
                continue;
            }
            f.seek(SeekFrom::Start(mark.done))?;
            let mut reader = std::io::BufReader::new(f.take(*len - mark.done));
            let mut at = mark.done;
            loop {
                let mut line = Vec::new();
                let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut line)?;
                if n == 0 {
                    break;
                }
                if line.last() != Some(&b'\n') {
                    if i != last {
                        return Ok(Read::Unfollowable);
                    }
                    torn = Some(String::from_utf8_lossy(&line).into_owned());
                    break;
                }
                // The mark moves to the end of each whole line, keeping the bytes before it.
                let keep_from = (mark.tail.len() + n).saturating_sub(TAIL_BYTES as usize);
                if keep_from >= mark.tail.len() {
                    let skip = keep_from - mark.tail.len();
                    mark.tail.clear();
                    mark.tail.extend_from_slice(&line[skip..]);
                } else {
                    mark.tail.drain(..keep_from);
                    mark.tail.extend_from_slice(&line);
                }
                line.pop();
                lines.push(NewLine {
                    file: i,
                    start: at,
                    end: at + n as u64,
                    text: text_of(line),
                });
                at += n as u64;
            }
            mark.done = at;
        }
        // A rotation while the files were read would put a file in two places.
        if journal.files() != listing {
            return Ok(Read::Unfollowable);
        }
        self.files = files;
        Ok(Read::On { lines, torn })
    }

    /// The lines of a stretch `start..end` of file `file` read before, as [`Position::read_on`]
    /// gave them; None when that file is no longer the journal's or the stretch is not whole
    /// lines within what was read.
    pub fn reread(
        &self,
        journal: &Journal,
        file: usize,
        start: u64,
        end: u64,
    ) -> std::io::Result<Option<Vec<String>>> {
        let Some(mark) = self.files.get(file) else {
            return Ok(None);
        };
        if start > end || end > mark.done {
            return Ok(None);
        }
        let listing: Vec<PathBuf> = journal.files();
        let Some(path) = listing.get(file) else {
            return Ok(None);
        };
        let (mut f, len) = match kept::open_with_len(path, Access::Read) {
            Ok(opened) => opened,
            Err(e) if crate::config::is_absent(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        if identity::of_file(&f)? != mark.id || len < end {
            return Ok(None);
        }
        // From the byte before: a stretch starts where a line starts.
        let from = start.saturating_sub(1);
        f.seek(SeekFrom::Start(from))?;
        let mut bytes = Vec::with_capacity((end - from) as usize);
        f.take(end - from).read_to_end(&mut bytes)?;
        if bytes.len() as u64 != end - from || (start > 0 && bytes.first() != Some(&b'\n')) {
            return Ok(None);
        }
        let stretch = &bytes[(start - from) as usize..];
        match stretch.split_last() {
            None => Ok(Some(Vec::new())),
            Some((b'\n', lines)) => Ok(Some(
                lines
                    .split(|&b| b == b'\n')
                    .map(|l| text_of(l.to_vec()))
                    .collect(),
            )),
            Some(_) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(j: &Journal, from: usize, to: usize) {
        for n in from..to {
            j.lock()
                .unwrap()
                .append(&format!(
                    "{{\"n\":{n},\"pad\":\"{}\"}}",
                    "x".repeat(n % 7 * 20)
                ))
                .unwrap();
        }
    }

    fn texts(j: &Journal) -> Vec<String> {
        j.lines().unwrap().into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn reading_on_gives_each_line_once_across_rotations_and_rereads_its_stretches() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::new(dir.path(), "t", 1500);
        let mut at = Position::default();
        let mut seen: Vec<String> = Vec::new();
        let mut stretches = Vec::new();
        let mut n = 0;
        for step in [0, 3, 1, 20, 7, 40] {
            append(&j, n, n + step);
            n += step;
            let Read::On { lines, torn } = at.read_on(&j).unwrap() else {
                panic!("not followed at {n}");
            };
            assert!(torn.is_none());
            for l in lines {
                stretches.push((l.file, l.start, l.end, l.text.clone()));
                seen.push(l.text);
            }
            assert_eq!(seen, texts(&j), "at {n}");
        }
        assert!(j.files().len() > 2, "the journal rotated");
        for (file, start, end, text) in stretches {
            assert_eq!(at.reread(&j, file, start, end).unwrap(), Some(vec![text]));
        }
    }

    #[test]
    fn a_cut_rewritten_or_replaced_journal_is_stale_and_a_torn_line_is_not_passed() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::new(dir.path(), "t", 1 << 20);
        append(&j, 0, 10);
        let mut at = Position::default();
        assert!(matches!(at.read_on(&j).unwrap(), Read::On { .. }));
        let text = std::fs::read_to_string(j.current()).unwrap();
        // Torn: read, not passed; once whole, read again as a line.
        std::fs::write(j.current(), format!("{text}{{\"n\":10}}")).unwrap();
        let Read::On { lines, torn } = at.clone().read_on(&j).unwrap() else {
            panic!("torn");
        };
        assert!(lines.is_empty());
        assert_eq!(torn.as_deref(), Some("{\"n\":10}"));
        for changed in [
            text.replacen("\"n\":9", "\"n\":8", 1),
            text[..text.len() - 5].to_string(),
            String::new(),
        ] {
            std::fs::write(j.current(), &changed).unwrap();
            assert!(matches!(at.clone().read_on(&j).unwrap(), Read::Stale));
        }
        // Replaced by another file with the same bytes (made before the old one goes, so it
        // cannot take its inode).
        let other = dir.path().join("other");
        std::fs::write(&other, &text).unwrap();
        std::fs::rename(&other, j.current()).unwrap();
        assert!(matches!(at.clone().read_on(&j).unwrap(), Read::Stale));
    }
}
