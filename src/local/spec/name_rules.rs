//! Rule files of one shape: `HOW WHAT VERDICT  # reason[; instead: what to do]` a line, where
//! HOW says how WHAT is matched (each file names its own ways). `rules/tasks.txt` (what a task's
//! name says it does) and `rules/build_properties.txt` (build properties that change what runs).

use crate::decision::{RuleRef, Verdict};
use std::borrow::Cow;

/// One line, checked.
#[derive(Clone, Debug)]
pub struct NameRule {
    /// One of the file's ways of matching.
    pub how: &'static str,
    /// Lower case.
    pub what: String,
    /// WHAT as the file writes it (its case says where a camel-case name's words begin).
    pub written: String,
    pub verdict: Verdict,
    pub rule: RuleRef,
}

impl NameRule {
    /// The reason, without what to do instead.
    pub fn reason(&self) -> &str {
        let why = self.rule.why.as_deref().unwrap_or("");
        why.split("; instead:").next().unwrap_or(why).trim()
    }
}

/// The rules of `text` (the bundled `file`), matched in the ways `hows` names; every bad line as
/// `file:line: error`. A deny must say what to do instead.
pub fn parse(
    file: &'static str,
    text: &str,
    hows: &[&'static str],
) -> Result<Vec<NameRule>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let (body, why) = match line.split_once('#') {
            Some((body, why)) => (body.trim(), why.trim()),
            None => (line.trim(), ""),
        };
        if body.is_empty() {
            continue;
        }
        let words: Vec<&str> = body.split_whitespace().collect();
        let [how, what, verdict] = words[..] else {
            return Err(format!("{file}:{n}: expected `HOW WHAT VERDICT # reason`"));
        };
        let Some(how) = hows.iter().copied().find(|h| *h == how) else {
            return Err(format!("{file}:{n}: `{how}`: one of {}", hows.join(", ")));
        };
        let verdict = match verdict {
            "deny" => Verdict::Deny,
            "uncertain" => Verdict::Uncertain,
            other => return Err(format!("{file}:{n}: verdict `{other}`: deny or uncertain")),
        };
        if why.is_empty() {
            return Err(format!("{file}:{n}: a rule needs its reason after `#`"));
        }
        if verdict == Verdict::Deny && !why.contains("; instead: ") {
            return Err(format!(
                "{file}:{n}: a deny says what to do instead (`; instead: …`)"
            ));
        }
        out.push(NameRule {
            how,
            what: what.to_ascii_lowercase(),
            written: what.to_string(),
            verdict,
            rule: RuleRef {
                file: Cow::Borrowed(file),
                line: n,
                origin: Cow::Borrowed("bundled"),
                pattern: Cow::Owned(words.join(" ")),
                why: Some(Cow::Owned(why.to_string())),
            },
        });
    }
    Ok(out)
}

/// The first rule at the highest verdict among those `holds` accepts.
pub fn worst(rules: &[NameRule], holds: impl Fn(&NameRule) -> bool) -> Option<&NameRule> {
    let mut worst: Option<&NameRule> = None;
    for r in rules {
        if holds(r) && worst.is_none_or(|w| r.verdict > w.verdict) {
            worst = Some(r);
        }
    }
    worst
}

/// Whether `text` (lower case) matches `glob` (lower case), where `*` is any run of characters.
pub fn glob_matches(glob: &str, text: &str) -> bool {
    let parts: Vec<&str> = glob.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return glob == text;
    };
    if parts.len() == 1 {
        return glob == text;
    }
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for m in middle {
        match rest.find(m) {
            Some(at) => rest = &rest[at + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_name_their_place() {
        let hows = &["name", "contains"];
        for (text, says) in [
            ("name x\n", "t.txt:1: expected"),
            (
                "\nsome x deny # r; instead: y\n",
                "t.txt:2: `some`: one of name, contains",
            ),
            ("name x allow # r\n", "verdict `allow`"),
            ("name x uncertain\n", "needs its reason"),
            ("name x deny # r\n", "instead"),
        ] {
            let err = parse("t.txt", text, hows).err().unwrap();
            assert!(err.contains(says), "{text:?}: {err}");
        }
        let ok = parse("t.txt", "# c\n\nname X deny # r; instead: y\n", hows).unwrap();
        assert_eq!(ok[0].what, "x");
        assert_eq!(ok[0].rule.line, 3);
        assert_eq!(ok[0].reason(), "r");
    }

    #[test]
    fn globs() {
        assert!(glob_matches("*.executable", "exec.executable"));
        assert!(glob_matches("*jvmargs", "org.gradle.jvmargs"));
        assert!(glob_matches("a*b*c", "axxbyyc"));
        assert!(!glob_matches("a*b*c", "axxbyy"));
        assert!(glob_matches("argline", "argline"));
        assert!(!glob_matches("argline", "arglinex"));
        assert!(!glob_matches("*ab", "b"));
    }
}
