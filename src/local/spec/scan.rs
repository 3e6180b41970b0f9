//! Finding the sections of a spec file without parsing its TOML: their header lines and the
//! aliases they declare. Shared by `build.rs` (which indexes the bundled specs at build time) and
//! by the loader of a person's specs, so both read a file the same way.

/// One section: its name and where its text is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scanned {
    /// The name in the header: `sort`, `git commit`.
    pub name: String,
    /// Byte range of the section's text, header included.
    pub start: usize,
    /// End of that range.
    pub end: usize,
    /// 1-based line of the header.
    pub line: usize,
    /// Other names it answers to (`aliases = ["b"]`), as full names (`cargo b`).
    pub aliases: Vec<String>,
}

/// A line the scanner cannot place: (1-based line, message).
pub type ScanError = (usize, String);

/// Splits a spec file into its sections.
pub fn scan(text: &str) -> (Vec<Scanned>, Vec<ScanError>) {
    let mut out: Vec<Scanned> = Vec::new();
    let mut errors = Vec::new();
    let mut offset = 0;
    let mut open = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            if let Some(last) = out.last_mut().filter(|_| open) {
                last.end = offset;
            }
            match header_name(trimmed) {
                Some(name) => {
                    out.push(Scanned {
                        name,
                        start: offset,
                        end: text.len(),
                        line: i + 1,
                        aliases: Vec::new(),
                    });
                    open = true;
                }
                None => {
                    open = false;
                    errors.push((
                        i + 1,
                        format!(
                            "`{trimmed}` is not a section header: write [name] or [\"name sub\"]"
                        ),
                    ));
                }
            }
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') {
            if !open && out.is_empty() {
                errors.push((i + 1, "a setting before the first [section]".to_string()));
            } else if open && let Some(list) = alias_list(trimmed) {
                let last = out.last_mut().expect("a section is open");
                let parent = last.name.rsplit_once(' ').map(|(p, _)| p.to_string());
                for a in list {
                    last.aliases.push(match &parent {
                        Some(p) => format!("{p} {a}"),
                        None => a,
                    });
                }
            }
        }
        offset += line.len();
    }
    if let Some(last) = out.last_mut().filter(|_| open) {
        last.end = text.len();
    }
    (out, errors)
}

/// `aliases = ["b", "bld"]` → its names.
fn alias_list(line: &str) -> Option<Vec<String>> {
    let rest = line
        .strip_prefix("aliases")?
        .trim_start()
        .strip_prefix('=')?;
    let inner = rest.trim().strip_prefix('[')?.split(']').next()?;
    Some(
        inner
            .split(',')
            .map(|a| a.trim().trim_matches('"').to_string())
            .filter(|a| !a.is_empty())
            .collect(),
    )
}

/// The name in a header line: `[sort]` → `sort`, `["git commit"]` → `git commit`.
pub fn header_name(line: &str) -> Option<String> {
    let line = match line.find(" #") {
        Some(i) => line[..i].trim_end(),
        None => line,
    };
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.starts_with('[') {
        return None;
    }
    let name = if let Some(q) = inner.strip_prefix('"') {
        q.strip_suffix('"')?.to_string()
    } else if inner
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        inner.to_string()
    } else {
        return None;
    };
    let clean = !name.is_empty()
        && !name.contains("  ")
        && name.trim() == name
        && !name.contains(['"', '\\']);
    clean.then_some(name)
}
