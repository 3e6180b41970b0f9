//! What every test file needs: the built binary started as an agent or a person starts it, with
//! HOME at the fixtures' home (never created) and SENTINEL_HOME in a scratch dir, so nothing
//! real is read and nothing in the developer's own environment changes a decision.
// Each test crate uses a part of this module.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// A scratch folder named `prefix…` under cargo's per-target temp dir: outside /tmp, which
/// sentinel treats as scratch space of its own (a home there would judge differently).
pub fn scratch(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

/// The hook's `permissionDecision`, or `none` when it answered nothing.
pub fn decision(out: &Output) -> String {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

/// The lines of a journal (none when it is missing).
pub fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

/// The hook's answer (one JSON object, which must be there) as `verdict: reason`.
pub fn verdict_and_reason(out: &Output) -> String {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["hookSpecificOutput"];
    format!(
        "{}: {}",
        d["permissionDecision"].as_str().unwrap_or("none"),
        d["permissionDecisionReason"].as_str().unwrap_or("")
    )
}

/// Every command's answer (`verdict: reason`, from `answer`) is not an allow, and mentions `why`.
pub fn assert_refused(answer: impl Fn(&str) -> String, commands: &[&str], why: &str) {
    for c in commands {
        let a = answer(c);
        assert!(!a.starts_with("allow"), "{c}: {a}");
        assert!(a.contains(why), "{c}: expected `{why}` in {a}");
    }
}

/// Every command's answer (`verdict: reason`, from `answer`) is an allow.
pub fn assert_allowed(answer: impl Fn(&str) -> String, commands: &[&str]) {
    for c in commands {
        let a = answer(c);
        assert!(a.starts_with("allow"), "{c}: {a}");
    }
}

/// `sentinel` with SENTINEL_HOME at `sentinel_home`, HOME at the fixtures' home (set another
/// with `.env("HOME", …)`), Tier 2 off, no shadow or fail-mode override, outside any agent's
/// shell and project, and no terminal for the session summary.
pub fn sentinel(sentinel_home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sentinel"));
    cmd.env("SENTINEL_NO_TTY", "1")
        .env("HOME", "/home/dev/demo/home")
        .env("SENTINEL_HOME", sentinel_home);
    for name in [
        "ANTHROPIC_API_KEY",
        "SENTINEL_API_KEY",
        "ANTHROPIC_BASE_URL",
        "SENTINEL_API_URL",
        "SENTINEL_SHADOW",
        "SENTINEL_FAIL_MODE",
        // A policy folder of the developer's own (the system's still applies: see tests/managed.rs).
        "SENTINEL_MANAGED_DIR",
        // The person-only commands refuse to run inside an agent's shell.
        "CLAUDECODE",
        "GEMINI_CLI",
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
    ] {
        cmd.env_remove(name);
    }
    // The developer's own OpenTelemetry settings would export every test's decisions.
    for name in sentinel::export::settings::VARS {
        cmd.env_remove(name);
    }
    cmd
}

/// Runs `cmd` (a `sentinel` command line, stdio not yet set) to the end with `stdin` written to
/// it. A hook may stop reading early (an oversize event): a broken pipe is expected then.
pub fn feed(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

/// Starts `sentinel ARGS` with `stdin` written to it.
pub fn spawn(home: &Path, args: &[&str], stdin: &str) -> Child {
    let mut child = sentinel(home)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child
}

/// Runs `sentinel ARGS` to the end.
pub fn run(home: &Path, args: &[&str], stdin: &str) -> Output {
    spawn(home, args, stdin).wait_with_output().unwrap()
}

/// The cache tests' person's home (for `~`).
pub const CACHE_TEST_HOME: &str = "/home/dev";

/// `lines` (a load's errors, as the test words them), then each call's decision with `dir` as
/// SENTINEL_HOME, all as text with `dir` written `$SENTINEL_HOME`: the same in any home.
pub fn with_decisions(
    dir: &Path,
    rules: &sentinel::rules::Rules,
    mut lines: Vec<String>,
    calls: &[sentinel::call::ToolCall],
) -> Vec<String> {
    let home = Path::new(CACHE_TEST_HOME);
    let ctx =
        sentinel::local::context::Context::lexical(Path::new("/home/dev/proj"), Some(home), dir);
    lines.extend(
        calls
            .iter()
            .map(|c| format!("{:?}", sentinel::decide::decide(c, rules, &ctx))),
    );
    let here = dir.display().to_string();
    lines
        .iter()
        .map(|a| a.replace(&here, "$SENTINEL_HOME"))
        .collect()
}

/// The files in `dir/cache` but the key the cache files are signed with, sorted, with their
/// bytes.
pub fn cache_files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(dir.join("cache"))
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| !p.ends_with("sentinel-cache.key"))
                .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The names of cache files.
pub fn cache_names(files: &[(std::path::PathBuf, Vec<u8>)]) -> Vec<&Path> {
    files.iter().map(|(p, _)| p.as_path()).collect()
}

/// Sets a file's mtime, as `touch -d` does (its ctime becomes now: no call sets a ctime).
pub fn set_mtime(path: &Path, time: std::time::SystemTime) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(time).unwrap();
}

/// One way a cache file can be damaged.
pub type Damage = fn(&[u8]) -> Vec<u8>;

/// The damage any cache file must survive: each is refused and the file written again.
pub const DAMAGES: [(&str, Damage); 7] = [
    ("empty", |_| Vec::new()),
    ("truncated", |b| b[..b.len() / 2].to_vec()),
    ("one byte short", |b| b[..b.len() - 1].to_vec()),
    ("a byte flipped", |b| {
        let mut b = b.to_vec();
        let i = b.len() * 2 / 3;
        b[i] ^= 0x20;
        b
    }),
    ("garbage", |b| {
        (0..b.len()).map(|i| (i * 37 % 251) as u8).collect()
    }),
    ("trailing bytes", |b| [b, b"more"].concat()),
    ("another magic", |b| {
        let mut b = b.to_vec();
        b[7] ^= 0xff;
        b
    }),
];

/// Whether the cache files `now` are the `good` ones rebuilt: the same files, each of the good
/// one's length (the stat record in each is made when it is written), none of them `damaged`.
pub fn rebuilt(
    now: &[(std::path::PathBuf, Vec<u8>)],
    good: &[(std::path::PathBuf, Vec<u8>)],
    damaged: &[Vec<u8>],
) -> bool {
    cache_names(now) == cache_names(good)
        && now
            .iter()
            .zip(good)
            .zip(damaged)
            .all(|(((_, n), (_, g)), d)| n.len() == g.len() && n != d)
}

/// Damages the cache files of `dir` (at least two, as `answers` left them) in every way of
/// `DAMAGES` and `more`, then swaps the first two, then puts a directory where the first was:
/// each time `answers` gives `fresh` again, and every damaged file is written again.
pub fn damaged_caches_are_rebuilt(
    dir: &Path,
    fresh: &[String],
    answers: impl Fn(&Path) -> Vec<String>,
    more: &[(&str, Damage)],
) {
    let good = cache_files(dir);
    assert!(good.len() >= 2, "{good:?}");
    for (what, damage) in DAMAGES.iter().chain(more) {
        let damaged: Vec<Vec<u8>> = good.iter().map(|(_, b)| damage(b)).collect();
        for ((path, _), bytes) in good.iter().zip(&damaged) {
            std::fs::write(path, bytes).unwrap();
        }
        assert_eq!(answers(dir), fresh, "{what}");
        assert!(
            rebuilt(&cache_files(dir), &good, &damaged),
            "{what}: the cache is rewritten"
        );
    }
    // Another file's cache put under this one's name: refused, rebuilt.
    let (a, b) = (&good[0], &good[1]);
    std::fs::write(&a.0, &b.1).unwrap();
    std::fs::write(&b.0, &a.1).unwrap();
    assert_eq!(answers(dir), fresh, "swapped");
    let swapped = vec![b.1.clone(), a.1.clone()];
    assert!(
        rebuilt(&cache_files(dir)[..2], &good[..2], &swapped),
        "swapped: the cache is rewritten"
    );
    // A directory where a cache file should be: no cache, same answers.
    std::fs::remove_file(&a.0).unwrap();
    std::fs::create_dir(&a.0).unwrap();
    assert_eq!(answers(dir), fresh, "a directory");
}

/// Waits until what was written under `dir` is older than sentinel's first look may reach back
/// (the baseline is set a file-clock tick early, and a file changed then counts as the agent's):
/// a fixture built just before the first hook call is the person's, as on a real machine.
/// Waits on the file clock itself, so a slow or busy machine only waits less.
pub fn let_fixtures_age(dir: &Path) {
    let probe = dir.join(".fixture-age-probe");
    std::fs::write(&probe, "").unwrap();
    let meta = std::fs::metadata(&probe).unwrap();
    std::fs::remove_file(&probe).unwrap();
    #[cfg(unix)]
    let stamped = {
        use std::os::unix::fs::MetadataExt;
        std::time::UNIX_EPOCH
            + std::time::Duration::new(meta.ctime() as u64, meta.ctime_nsec() as u32)
    };
    #[cfg(not(unix))]
    let stamped = meta.modified().unwrap();
    // Three times the 20 ms the baseline is set back.
    let aged = stamped + std::time::Duration::from_millis(60);
    while std::time::SystemTime::now() < aged {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The name sentinel keeps session `id`'s state under when the agent names no project (as
/// `sentinel()` runs it): the id's letters, digits, `-` and `_`, then 16 hex digits of the
/// SHA-256 of the id and the (empty) project.
pub fn session_key(id: &str) -> String {
    use sha2::Digest as _;
    let safe: String = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(64)
        .collect();
    let digest = sha2::Sha256::digest(format!("{id}\0").as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{safe}-{hex}")
}

/// The files of session `id`'s state in `home/DIR` (`ID-KEY.EXT`), whatever project keyed them.
pub fn session_files(home: &Path, dir: &str, id: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(home.join(dir))
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .strip_prefix(id)
                        .is_some_and(|rest| rest.starts_with('-'))
                })
                .collect()
        })
        .unwrap_or_default()
}
