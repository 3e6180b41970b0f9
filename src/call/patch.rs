//! OpenAI Codex CLI's `apply_patch` tool: one call that adds, updates, deletes and moves files,
//! the patch text in `tool_input.command`. Its file headers name every path it touches:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: NEW
//! +text
//! *** Update File: OLD
//! *** Move to: NEW
//! @@ context
//! -old
//! +new
//! *** Delete File: GONE
//! *** End Patch
//! ```
//!
//! (Codex's `codex-rs/apply-patch` grammar.) Each path is judged as a write or a delete of that
//! path would be; a patch whose headers cannot be read is never guessed harmless.

/// What a patch does to one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchOp {
    /// `*** Add File:` creates the file with the `+` lines.
    Add,
    /// `*** Update File:` changes it in place.
    Update,
    /// `*** Delete File:` removes it.
    Delete,
    /// `*** Move to:` the updated file's new path (the old one goes away).
    MoveTo,
}

impl PatchOp {
    /// The header's words, for reasons and records.
    pub fn header(self) -> &'static str {
        match self {
            PatchOp::Add => "Add File",
            PatchOp::Update => "Update File",
            PatchOp::Delete => "Delete File",
            PatchOp::MoveTo => "Move to",
        }
    }
}

/// One path a patch touches, and the text it puts there (its `+` lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchedFile {
    pub op: PatchOp,
    pub path: String,
    pub added: String,
}

/// The most paths one patch may name before it is refused as unreadable (bounded work).
const MAX_FILES: usize = 512;

/// The paths `patch` touches, in order; Err names what cannot be read (no `*** Begin Patch`, a
/// header without a path, a hunk line before any file, too many files).
pub fn parse(patch: &str) -> Result<Vec<PatchedFile>, String> {
    let mut lines = patch.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    // Codex also takes the patch wrapped in a here-document (`apply_patch <<'EOF'`): what comes
    // before the first header line is not part of it.
    if !lines.by_ref().any(|l| l.trim() == "*** Begin Patch") {
        return Err("no `*** Begin Patch` line".into());
    }
    let mut files: Vec<PatchedFile> = Vec::new();
    let mut ended = false;
    for line in lines {
        if ended {
            continue;
        }
        if line.trim() == "*** End Patch" {
            ended = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("*** ") {
            if rest.trim() == "End of File" {
                continue;
            }
            let (op, path) = [
                PatchOp::Add,
                PatchOp::Update,
                PatchOp::Delete,
                PatchOp::MoveTo,
            ]
            .into_iter()
            .find_map(|op| {
                rest.strip_prefix(op.header())
                    .and_then(|r| r.strip_prefix(':'))
                    .map(|p| (op, p.trim()))
            })
            .ok_or_else(|| format!("unknown patch header `{}`", crate::text::excerpt(line)))?;
            if path.is_empty() {
                return Err(format!("`*** {}:` without a path", op.header()));
            }
            if op == PatchOp::MoveTo && files.last().is_none_or(|f| f.op != PatchOp::Update) {
                return Err("`*** Move to:` not after an `*** Update File:`".into());
            }
            files.push(PatchedFile {
                op,
                path: path.to_string(),
                added: String::new(),
            });
            if files.len() > MAX_FILES {
                return Err(format!("more than {MAX_FILES} files in one patch"));
            }
            continue;
        }
        let Some(file) = files.last_mut() else {
            if line.trim().is_empty() {
                continue;
            }
            return Err("a patch line before any file header".into());
        };
        if let Some(text) = line.strip_prefix('+') {
            file.added.push_str(text);
            file.added.push('\n');
        }
    }
    if files.is_empty() {
        return Err(
            "no file header (`*** Add File:`, `*** Update File:`, `*** Delete File:`)".into(),
        );
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_names_its_path() {
        let p = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@ fn x\n-old\n+new\n*** Delete File: /etc/d\n*** End Patch\n";
        let files = parse(p).unwrap();
        let got: Vec<(PatchOp, &str, &str)> = files
            .iter()
            .map(|f| (f.op, f.path.as_str(), f.added.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (PatchOp::Add, "a.txt", "hello\n"),
                (PatchOp::Update, "src/b.rs", ""),
                (PatchOp::MoveTo, "src/c.rs", "new\n"),
                (PatchOp::Delete, "/etc/d", ""),
            ]
        );
    }

    #[test]
    fn a_heredoc_wrapper_and_crlf_are_read() {
        let p = "apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Add File: x\r\n+y\r\n*** End Patch\r\nEOF\r\n";
        assert_eq!(parse(p).unwrap()[0].path, "x");
    }

    #[test]
    fn what_cannot_be_read_is_an_error() {
        for bad in [
            "",
            "*** Add File: x\n",
            "*** Begin Patch\n*** End Patch\n",
            "*** Begin Patch\n*** Add File:\n",
            "*** Begin Patch\n*** Copy File: x\n",
            "*** Begin Patch\n+orphan\n*** Add File: x\n",
            "*** Begin Patch\n*** Move to: x\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
