//! The interpreter-code reader: the calls in Python, JavaScript/TypeScript, Ruby, Perl, PHP or
//! Rust code that delete files, run commands, send data or write files, found line by line with
//! the patterns of `rules/code_calls.txt`. It reads tokens, not meaning: what it finds is judged
//! by the caller ([`super::judge_code`]), and what it cannot see (a call built at run time) is
//! what Tier 2 or the person is there for.

use super::lang::Lang;
use crate::ascii_regex::Lazy;
use std::sync::OnceLock;

/// The bundled patterns.
const BUNDLED: &str = include_str!("../../../rules/code_calls.txt");
const FILE: &str = "code_calls.txt";

/// What a call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Delete,
    Run,
    Send,
    Write,
    /// Not a call: an expression that stands for the home directory (`Path.home()`,
    /// `os.homedir()`, `$ENV{HOME}` …), read as `~` where a call's path is.
    Home,
}

/// One pattern of `code_calls.txt`.
#[derive(Debug)]
pub struct Pattern {
    langs: Vec<String>,
    pub class: Class,
    /// Compiled when code in one of `langs` is first read.
    re: Lazy,
    /// `code_calls.txt:LINE`.
    pub at: String,
    /// Why, and what to do instead.
    pub why: String,
}

/// A call found in the code.
#[derive(Debug)]
pub struct Finding<'p> {
    /// 1-based line of the code.
    pub line: usize,
    /// The line, trimmed.
    pub text: String,
    /// The call's path or command: the first string literal after the call, or the home
    /// directory's expression read as `~` (with a literal joined to it), when there is one.
    pub literal: Option<String>,
    pub pattern: &'p Pattern,
}

/// Reads the pattern file; each broken line is an error naming its file:line.
pub fn parse(text: &str, file: &str) -> (Vec<Pattern>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = format!("{file}:{}", i + 1);
        let (body, why) = match raw.split_once("   # ") {
            Some((b, w)) => (b.trim(), w.trim().to_string()),
            None => (raw.trim(), String::new()),
        };
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let mut parts = body.splitn(3, ' ');
        let (Some(langs), Some(class), Some(re)) = (parts.next(), parts.next(), parts.next())
        else {
            errors.push(format!("{at}: expected LANGUAGES CLASS REGEX"));
            continue;
        };
        let class = match class {
            "delete" => Class::Delete,
            "run" => Class::Run,
            "send" => Class::Send,
            "write" => Class::Write,
            "home" => Class::Home,
            other => {
                errors.push(format!("{at}: unknown class `{other}`"));
                continue;
            }
        };
        // Code's names are ASCII: classes like `\w` and `\b` need no Unicode tables, and a
        // hook searches a file once: compiled lean (~50M instructions on a call's first read
        // of code with Unicode, ~39M ASCII with the defaults' full DFAs and prefilters), and
        // each is compiled only when code of its language is read.
        match Lazy::new(re.trim()) {
            Ok(re) => out.push(Pattern {
                langs: langs.split(',').map(str::to_string).collect(),
                class,
                re,
                at,
                why,
            }),
            Err(e) => errors.push(format!("{at}: {e}")),
        }
    }
    (out, errors)
}

/// The bundled patterns, compiled on first use (a call that runs no code never compiles them).
pub fn bundled() -> &'static [Pattern] {
    static PATTERNS: OnceLock<Vec<Pattern>> = OnceLock::new();
    PATTERNS.get_or_init(|| parse(BUNDLED, FILE).0)
}

/// The calls in `text`, code in `lang`, in line order.
pub fn scan<'p>(text: &str, lang: Lang, patterns: &'p [Pattern]) -> Vec<Finding<'p>> {
    let tag = lang.tag();
    let (homes, mine): (Vec<&Pattern>, Vec<&Pattern>) = patterns
        .iter()
        .filter(|p| p.langs.iter().any(|l| l == tag))
        .partition(|p| p.class == Class::Home);
    let comment = match lang {
        Lang::Python | Lang::Ruby | Lang::Perl | Lang::Shell => "#",
        _ => "//",
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || (trimmed.starts_with(comment) && !trimmed.starts_with("#!")) {
            continue;
        }
        if i == 0 && trimmed.starts_with("#!") {
            continue;
        }
        for p in &mine {
            // A pattern that does not compile is taken to match: the call is then judged
            // as the one it stands for, never passed unread.
            let end = match p.re.get() {
                Some(re) => re.find(line.as_bytes()).map(|m| m.end()),
                None => Some(line.len()),
            };
            if let Some(end) = end {
                out.push(Finding {
                    line: i + 1,
                    text: trimmed.to_string(),
                    literal: line.get(end..).and_then(|rest| argument(rest, &homes)),
                    pattern: p,
                });
            }
        }
    }
    out
}

/// What a call's argument, `rest` (the text after the call's name), names: the first string
/// literal, unless an expression for the home directory comes before it. That reads as `~`
/// when the argument ends there (`rmtree(Path.home())`), as `~/LIT` when a literal is joined to
/// it (`homedir() + "/.ssh"`, `Path.home() / ".aws"`, `join(homedir(), ".ssh")`), and as
/// nothing known otherwise: a later literal is not the path then.
fn argument(rest: &str, homes: &[&Pattern]) -> Option<String> {
    let home = homes
        .iter()
        .filter_map(|p| p.re.get()?.find(rest.as_bytes()))
        .min_by_key(|m| m.start());
    let literal_at = rest.find(['\'', '"', '`']);
    match home {
        Some(h) if literal_at.is_none_or(|q| h.start() <= q) => joined_home(&rest[h.end()..]),
        _ => first_literal(rest),
    }
}

/// `~`, or `~/LIT`, for the text after a home expression; None when it goes on otherwise.
fn joined_home(after: &str) -> Option<String> {
    let mut after = after.trim_start();
    // Rust's Option/Result around the path.
    while let Some(a) = after
        .strip_prefix(".unwrap()")
        .or_else(|| after.strip_prefix('?'))
    {
        after = a.trim_start();
    }
    let joined = after
        .strip_prefix(['+', '/', ','])
        .map(str::trim_start)
        .filter(|a| a.starts_with(['\'', '"', '`']));
    match joined {
        Some(a) => {
            let lit = first_literal(a)?;
            Some(format!("~/{}", lit.trim_start_matches('/')))
        }
        None if after.is_empty() || after.starts_with([')', ',', ';']) => Some("~".into()),
        None => None,
    }
}

/// The paths under the home directory that `text` (code in `lang`) builds from a home
/// expression and a literal (`os.homedir() + "/.ssh/id_rsa"`), as `~/…`: for credentials
/// named without a literal `~`.
pub fn home_paths<'p>(text: &'p str, lang: Lang, patterns: &'p [Pattern]) -> Vec<String> {
    let tag = lang.tag();
    patterns
        .iter()
        .filter(|p| p.class == Class::Home && p.langs.iter().any(|l| l == tag))
        .filter_map(|p| p.re.get())
        .flat_map(|re| re.find_iter(text.as_bytes()))
        .filter_map(|m| joined_home(&text[m.end()..]))
        .filter(|p| p != "~")
        .collect()
}

/// The first quoted string in `text` (`'…'`, `"…"`, or a backquoted one without `${`).
pub fn first_literal(text: &str) -> Option<String> {
    let start = text.find(['\'', '"', '`'])?;
    let quote = text[start..].chars().next()?;
    let rest = &text[start + 1..];
    let end = rest.find(quote)?;
    let lit = &rest[..end];
    (!lit.contains("${") && !lit.contains("#{")).then(|| lit.to_string())
}

/// Every string literal in `text` (for credential paths named anywhere in the code).
pub fn literals(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        loop {
            let start = rest.find(['\'', '"'])?;
            let quote = rest[start..].chars().next()?;
            let after = &rest[start + 1..];
            let end = after.find([quote, '\n'])?;
            let lit = &after[..end];
            rest = &after[end + 1..];
            if !lit.is_empty() {
                return Some(lit);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_file_compiles() {
        let (p, errors) = parse(BUNDLED, FILE);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(p.len() > 30);
        assert!(
            p.iter().all(|p| p.why.contains("instead")),
            "each has an alternative"
        );
    }

    #[test]
    fn a_broken_line_names_its_file_and_line() {
        let (_, errors) = parse("py delete (\npy nothing x\n", "mine.txt");
        assert!(errors[0].starts_with("mine.txt:1:"), "{errors:?}");
        assert!(errors[1].starts_with("mine.txt:2:"), "{errors:?}");
    }

    #[test]
    fn calls_are_found_with_their_literal() {
        let code = "import shutil, os\n# shutil.rmtree('/')\nshutil.rmtree(os.path.expanduser('~'))\nprint('ok')\n";
        let f = scan(code, Lang::Python, bundled());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].line, 3);
        assert_eq!(f[0].literal.as_deref(), Some("~"));
        let js = "const {execSync} = require('child_process');\nexecSync(`rm -rf ${dir}`);\n";
        let f = scan(js, Lang::Js, bundled());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].literal, None, "a template with a hole is no literal");
        let plain = "def add(a, b):\n    return a + b\nimport re\nre.compile('x')\n";
        assert!(scan(plain, Lang::Python, bundled()).is_empty());
    }

    #[test]
    fn the_home_directorys_expressions_read_as_tilde() {
        let cases = [
            (
                Lang::Python,
                "shutil.rmtree(pathlib.Path.home())",
                Some("~"),
            ),
            (Lang::Python, "shutil.rmtree(os.environ['HOME'])", Some("~")),
            (
                Lang::Python,
                "shutil.rmtree(os.getenv('HOME'), ignore_errors=True)",
                Some("~"),
            ),
            (
                Lang::Python,
                "shutil.rmtree(Path.home() / '.ssh')",
                Some("~/.ssh"),
            ),
            (
                Lang::Python,
                "shutil.rmtree(os.path.join(os.environ['HOME'], 'x'))",
                Some("~/x"),
            ),
            (Lang::Python, "shutil.rmtree(Path.home() / sub / 'x')", None),
            (Lang::Python, "shutil.rmtree('build')", Some("build")),
            (
                Lang::Js,
                "fs.rmSync(require('os').homedir(), {recursive: true})",
                Some("~"),
            ),
            (
                Lang::Js,
                "fs.rmSync(process.env.HOME + '/.aws', {recursive: true})",
                Some("~/.aws"),
            ),
            (Lang::Js, "fs.rmSync(os.homedir())", Some("~")),
            (
                Lang::Js,
                "require('fs').rmSync(require('os').homedir())",
                Some("~"),
            ),
            (
                Lang::Js,
                "require('node:fs/promises').rm(homedir(), {force: true})",
                Some("~"),
            ),
            (Lang::Ruby, "FileUtils.rm_rf(Dir.home)", Some("~")),
            (Lang::Ruby, "FileUtils.rm_rf(ENV['HOME'])", Some("~")),
            (Lang::Perl, "rmtree($ENV{HOME})", Some("~")),
            (Lang::Php, "rmdir(getenv('HOME'))", Some("~")),
            (
                Lang::Rust,
                "std::fs::remove_dir_all(dirs::home_dir().unwrap())",
                Some("~"),
            ),
            (
                Lang::Rust,
                "fs::remove_dir_all(env::var(\"HOME\")?)",
                Some("~"),
            ),
        ];
        for (lang, code, want) in cases {
            let f = scan(code, lang, bundled());
            assert!(!f.is_empty(), "{code}");
            for f in f {
                assert_eq!(f.literal.as_deref(), want, "{code}");
            }
        }
        let js = "const k = fs.readFileSync(os.homedir() + '/.ssh/id_rsa', 'utf8');";
        assert_eq!(home_paths(js, Lang::Js, bundled()), ["~/.ssh/id_rsa"]);
    }

    #[test]
    fn literals_are_listed() {
        let v: Vec<&str> = literals("open('~/.ssh/id_rsa') + \"x\"").collect();
        assert_eq!(v, ["~/.ssh/id_rsa", "x"]);
    }
}
