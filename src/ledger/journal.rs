//! An append-only JSON-lines file shared by many processes: the stats and the audit log.
//!
//! Appends happen under an exclusive fs2 lock on a separate lock file (so rotation can rename the
//! data file), as one write of a whole line; a failed write is cut back off, so a line is written
//! whole or not at all. A torn last line left by a crash is terminated before the next append and
//! reported. When the file passes its size bound it is renamed to `NAME.N.jsonl` (N counting up)
//! and a fresh `NAME.jsonl` begins; readers go through every file in order.

use crate::config::files::{self, Links};
use fs2::FileExt;
use std::fs::{File, OpenOptions};
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
        let open_lock = || {
            files::open(
                &self.sibling("lock"),
                OpenOptions::new().create(true).truncate(false).write(true),
                Links::Refuse,
            )
        };
        // The folder is made only when it is missing (two system calls less on every call).
        let lock = match open_lock() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                files::create_dir(&self.dir)?;
                open_lock()?
            }
            lock => lock?,
        };
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
        let current = files::open_with_len(
            &path,
            OpenOptions::new().read(true).append(true),
            Links::Refuse,
        );
        if let Err(e) = &current
            && files::is_refused(e)
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
                std::fs::rename(&path, self.dir.join(format!("{}.{next}.jsonl", self.name)))?;
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
        let mut out: Vec<(u64, PathBuf)> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                let n = name
                    .strip_prefix(&prefix)?
                    .strip_suffix(".jsonl")?
                    .parse()
                    .ok()?;
                Some((n, e.path()))
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

    /// Every line of every file, oldest first.
    pub fn lines(&self) -> std::io::Result<Vec<Line>> {
        let mut out = Vec::new();
        for file in self.files() {
            let bytes = files::read(&file, u64::MAX, Links::Refuse)?;
            let text = String::from_utf8_lossy(&bytes);
            let ends_clean = text.ends_with('\n');
            let count = text.lines().count();
            for (i, line) in text.lines().enumerate() {
                out.push(Line {
                    file: file.clone(),
                    number: i + 1,
                    text: line.to_string(),
                    complete: ends_clean || i + 1 < count,
                });
            }
        }
        Ok(out)
    }
}

impl Locked<'_> {
    /// Appends one line (a newline is added), whole or not at all. Returns the file's length
    /// after it.
    pub fn append(&mut self, line: &str) -> std::io::Result<u64> {
        let mut f = match self.current.take() {
            Some(f) => f,
            None => files::open(
                &self.journal.current(),
                OpenOptions::new().create(true).append(true),
                Links::Refuse,
            )?,
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
