//! An append-only JSON-lines file shared by many processes: the stats and the audit log.
//!
//! Appends happen under an exclusive fs2 lock on a separate lock file (so rotation can rename the
//! data file), as one write of a whole line; a failed write is cut back off, so a line is written
//! whole or not at all. A torn last line left by a crash is terminated before the next append and
//! reported. When the file passes its size bound it is renamed to `NAME.N.jsonl` (N counting up)
//! and a fresh `NAME.jsonl` begins; readers go through every file in order.

use crate::config::kept::{self, Access};
use fs2::FileExt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One journal: `DIR/NAME.jsonl`, its rotated predecessors `DIR/NAME.N.jsonl` and `DIR/NAME.lock`.
#[derive(Clone, Debug)]
pub struct Journal {
    dir: PathBuf,
    name: &'static str,
    max_bytes: u64,
}

/// The lock held while appending; dropped, it unlocks.
pub struct Locked<'a> {
    journal: &'a Journal,
    lock: File,
    /// The current file as `lock` opened it (to check its last line), kept for the append.
    current: Option<File>,
    /// Set when a torn last line was found and terminated.
    pub repaired: Option<String>,
    /// The current file's length when the lock was taken (0 when there was none), before any
    /// repair or rotation: what a head written after the last append records.
    pub len: u64,
    /// Set when the current file was full and has just been rotated away.
    pub rotated: bool,
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.lock);
    }
}

/// A line read back, with where it came from.
#[derive(Debug)]
pub struct Line {
    /// The file it is in.
    pub file: PathBuf,
    /// 1-based line number in that file.
    pub number: usize,
    /// The text, without the newline.
    pub text: String,
    /// False for the last line of a file that does not end in a newline (torn).
    pub complete: bool,
}

impl Journal {
    /// The journal `name` in `dir`, rotating past `max_bytes`.
    pub fn new(dir: &Path, name: &'static str, max_bytes: u64) -> Journal {
        Journal {
            dir: dir.to_path_buf(),
            name,
            max_bytes,
        }
    }

    /// The current file.
    pub fn current(&self) -> PathBuf {
        self.dir.join(format!("{}.jsonl", self.name))
    }

    /// A file next to the journal (its head, its lock).
    pub fn sibling(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}.{suffix}", self.name))
    }

    /// Takes the exclusive lock, terminates a torn last line and rotates if the file is full.
    pub fn lock(&self) -> std::io::Result<Locked<'_>> {
        // The home is made when it is missing (0700).
        let lock = kept::open(&self.sibling("lock"), Access::Write)?;
        lock.lock_exclusive()?;
        let mut locked = Locked {
            journal: self,
            lock,
            current: None,
            repaired: None,
            len: 0,
            rotated: false,
        };
        let path = self.current();
        let current = kept::open_with_len(&path, Access::ReadAppend);
        if let Err(e) = &current
            && kept::refused(e)
        {
            // A link or a FIFO at the log: refused, never appended through.
            return Err(std::io::Error::new(e.kind(), e.to_string()));
        }
        if let Ok((mut f, len)) = current {
            locked.len = len;
            if len > 0 {
                f.seek(SeekFrom::Start(len - 1))?;
                let mut last = [0u8; 1];
                f.read_exact(&mut last)?;
                if last[0] != b'\n' {
                    f.write_all(b"\n")?;
                    locked.repaired = Some(format!(
                        "{} ended in a torn line; it was terminated and is kept as damage",
                        path.display()
                    ));
                }
            }
            if len >= self.max_bytes {
                let next = self.rotated().last().map(|(n, _)| n + 1).unwrap_or(1);
                kept::rename(&path, &self.dir.join(format!("{}.{next}.jsonl", self.name)))?;
                locked.rotated = true;
            } else {
                locked.current = Some(f);
            }
        }
        Ok(locked)
    }

    /// Rotated files, oldest first, with their numbers.
    fn rotated(&self) -> Vec<(u64, PathBuf)> {
        let prefix = format!("{}.", self.name);
        let mut out: Vec<(u64, PathBuf)> = kept::entries(&self.dir)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|e| {
                let name = e.name.to_string_lossy();
                let n = name
                    .strip_prefix(&prefix)?
                    .strip_suffix(".jsonl")?
                    .parse()
                    .ok()?;
                Some((n, self.dir.join(&e.name)))
            })
            .collect();
        out.sort();
        out
    }

    /// Every file, oldest first, the current one last.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self.rotated().into_iter().map(|(_, p)| p).collect();
        if self.current().exists() {
            files.push(self.current());
        }
        files
    }

    /// The last whole line of the current file (read back from its end, at most `max_bytes`),
    /// or of the newest rotated file when the current one is empty or missing. None when there
    /// is none within the bound.
    pub fn last_line(&self, max_bytes: u64) -> std::io::Result<Option<String>> {
        let current = match kept::open_with_len(&self.current(), Access::Read) {
            Ok((f, len)) if len > 0 => Some((f, len)),
            Ok(_) => None,
            Err(e) if crate::config::is_absent(&e) => None,
            Err(e) => return Err(e),
        };
        let (mut f, len) = match current {
            Some(opened) => opened,
            None => match self.rotated().last() {
                Some((_, p)) => kept::open_with_len(p, Access::Read)?,
                None => return Ok(None),
            },
        };
        let take = len.min(max_bytes);
        f.seek(SeekFrom::Start(len - take))?;
        let mut bytes = Vec::with_capacity(take as usize);
        (&mut f).take(take).read_to_end(&mut bytes)?;
        // Up to the last newline; from the one before it (or the start, when the whole file
        // was read).
        let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
            return Ok(None);
        };
        let start = match bytes[..end].iter().rposition(|&b| b == b'\n') {
            Some(at) => at + 1,
            None if take == len => 0,
            None => return Ok(None),
        };
        Ok(Some(
            String::from_utf8_lossy(&bytes[start..end]).into_owned(),
        ))
    }

    /// The last whole lines, newest first, from at most `max_bytes` read back from the end
    /// (across rotated files); a line cut by the bound is left out.
    pub fn last_lines(&self, max_bytes: u64) -> std::io::Result<Vec<String>> {
        let mut out = Vec::new();
        let mut left = max_bytes;
        for file in self.files().iter().rev() {
            if left == 0 {
                break;
            }
            let (mut f, len) = match kept::open_with_len(file, Access::Read) {
                Ok(opened) => opened,
                Err(e) if crate::config::is_absent(&e) => continue,
                Err(e) => return Err(e),
            };
            let take = len.min(left);
            f.seek(SeekFrom::Start(len - take))?;
            let mut bytes = Vec::with_capacity(take as usize);
            (&mut f).take(take).read_to_end(&mut bytes)?;
            left -= take;
            let text = String::from_utf8_lossy(&bytes);
            let mut lines: Vec<&str> = text.split('\n').collect();
            // What follows the last newline is torn (or empty); what precedes the first one
            // was cut by the bound, unless the whole file was read.
            lines.pop();
            if take < len && !lines.is_empty() {
                lines.remove(0);
            }
            out.extend(lines.iter().rev().map(|l| l.to_string()));
            if take < len {
                break;
            }
        }
        Ok(out)
    }

    /// Every line of every file, oldest first.
    pub fn lines(&self) -> std::io::Result<Vec<Line>> {
        // Gathered per file (by inode, as [`Journal::scan`] reads them), then put in the order
        // of the last listing: a file rotated while it was read is in its rotated place.
        let mut by_file: Vec<(PathBuf, Vec<Line>)> = Vec::new();
        self.scan(|file, number, text, complete| {
            let line = Line {
                file: file.to_path_buf(),
                number,
                text: text.to_string(),
                complete,
            };
            match by_file.iter_mut().find(|(f, _)| f == file) {
                Some((_, lines)) => lines.push(line),
                None => by_file.push((file.to_path_buf(), vec![line])),
            }
        })?;
        let order = self.files();
        by_file.sort_by_key(|(f, _)| order.iter().position(|o| o == f).unwrap_or(usize::MAX));
        Ok(by_file.into_iter().flat_map(|(_, lines)| lines).collect())
    }

    /// Calls `each` with every line of every file (its file, 1-based number, text, and whether
    /// it ends in a newline), without holding more than one read's bytes. Exact while other
    /// processes append and rotate: each file is followed by its inode, not its name, from where
    /// the last pass stopped, and the listing is read again until a pass finds nothing new (a
    /// file renamed to `NAME.N.jsonl` after the listing named it `NAME.jsonl` is neither missed
    /// nor read twice). A file's lines come in order; the files come in the order they are
    /// first found.
    pub fn scan(&self, mut each: impl FnMut(&Path, usize, &str, bool)) -> std::io::Result<()> {
        use crate::platform::identity;
        struct Seen {
            id: (u64, u64),
            name: PathBuf,
            /// Bytes read, up to the end of the last whole line.
            done: u64,
            lines: usize,
        }
        let mut seen: Vec<Seen> = Vec::new();
        // A few passes at most: each one after the first only finds what was appended or
        // rotated while the one before read.
        for _ in 0..8 {
            let mut grew = false;
            for file in self.files() {
                let (mut f, len) = match kept::open_with_len(&file, Access::Read) {
                    Ok(opened) => opened,
                    Err(e) if crate::config::is_absent(&e) => continue,
                    Err(e) => return Err(e),
                };
                let id = identity::of_file(&f)?;
                let at = match seen.iter().position(|s| s.id == id) {
                    Some(i) => {
                        seen[i].name = file.clone();
                        i
                    }
                    None => {
                        seen.push(Seen {
                            id,
                            name: file.clone(),
                            done: 0,
                            lines: 0,
                        });
                        seen.len() - 1
                    }
                };
                let entry = &mut seen[at];
                if len <= entry.done {
                    continue;
                }
                f.seek(SeekFrom::Start(entry.done))?;
                let mut reader = std::io::BufReader::new(f.take(len - entry.done));
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut buf)?;
                    if n == 0 || buf.last() != Some(&b'\n') {
                        // A line still being written, or torn: read again next pass, and
                        // given as torn if it is still so at the end.
                        break;
                    }
                    entry.done += n as u64;
                    entry.lines += 1;
                    grew = true;
                    // Checked first as it almost always is, valid (`from_utf8_lossy` walks
                    // its chunks byte by byte: a sixth of a report's instructions).
                    let line = &buf[..n - 1];
                    let text = match std::str::from_utf8(line) {
                        Ok(text) => std::borrow::Cow::Borrowed(text),
                        Err(_) => String::from_utf8_lossy(line),
                    };
                    each(&entry.name, entry.lines, &text, true);
                }
            }
            if !grew {
                break;
            }
        }
        // What is left after the last newline of each file is a torn line.
        for entry in &mut seen {
            let Ok((mut f, len)) = kept::open_with_len(&entry.name, Access::Read) else {
                continue;
            };
            let same = identity::of_file(&f).is_ok_and(|id| id == entry.id);
            if !same || len <= entry.done {
                continue;
            }
            f.seek(SeekFrom::Start(entry.done))?;
            let mut rest = Vec::new();
            f.take(len - entry.done).read_to_end(&mut rest)?;
            let text = String::from_utf8_lossy(&rest);
            let mut parts: Vec<&str> = text.split('\n').collect();
            // After the last newline: torn, when anything is there.
            let torn = parts.pop().filter(|t| !t.is_empty());
            for part in parts {
                entry.lines += 1;
                each(&entry.name, entry.lines, part, true);
            }
            if let Some(t) = torn {
                entry.lines += 1;
                each(&entry.name, entry.lines, t, false);
            }
        }
        Ok(())
    }
}

impl Locked<'_> {
    /// Appends one line (a newline is added), whole or not at all. Returns the file's length
    /// after it.
    pub fn append(&mut self, line: &str) -> std::io::Result<u64> {
        let mut f = match self.current.take() {
            Some(f) => f,
            None => kept::open(&self.journal.current(), Access::Append)?,
        };
        let before = f.metadata()?.len();
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        if let Err(e) = f.write_all(&bytes).and_then(|()| f.flush()) {
            let _ = f.set_len(before);
            return Err(e);
        }
        Ok(before + bytes.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_lines_are_terminated_and_files_rotate() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::new(dir.path(), "t", 40);
        std::fs::write(j.current(), "{\"a\":1}\n{\"tor").unwrap();
        let mut l = j.lock().unwrap();
        assert!(l.repaired.is_some());
        l.append("{\"b\":2}").unwrap();
        drop(l);
        assert_eq!(
            std::fs::read_to_string(j.current()).unwrap(),
            "{\"a\":1}\n{\"tor\n{\"b\":2}\n"
        );
        // Past 40 bytes the next append starts a new file.
        for i in 0..5 {
            j.lock().unwrap().append(&format!("{{\"n\":{i}}}")).unwrap();
        }
        assert!(j.files().len() >= 2);
        let texts: Vec<String> = j.lines().unwrap().into_iter().map(|l| l.text).collect();
        assert_eq!(texts.last().unwrap(), "{\"n\":4}");
        assert_eq!(texts.len(), 8);
    }
}
