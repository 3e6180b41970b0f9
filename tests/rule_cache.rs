//! A person's rule files are compiled once and cached in SENTINEL_HOME/cache: a hit answers as a
//! fresh parse does, and a damaged cache is rebuilt, never trusted (issue 16).

use sentinel::call::ToolCall;
use sentinel::rules::Rules;
use std::path::{Path, PathBuf};

mod common;

use common::{
    CACHE_TEST_HOME as HOME, cache_files, cache_names, damaged_caches_are_rebuilt, set_mtime,
    with_decisions,
};

/// A SENTINEL_HOME with a rule file of each kind, good lines and bad ones.
fn home(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rule-cache-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let write = |file: &str, text: &str| std::fs::write(dir.join(file), text).unwrap();
    write(
        "hard_block_commands.txt",
        "# mine\n^deploy prod( |$)   # not from here\n^(unclosed\n\n^wipe\\s+all\n",
    );
    write(
        "safe_commands.txt",
        "^mytool( --check)?$\n!^mytool --check --fix\n",
    );
    write("conditional_block_commands.txt", "!^nope\n^shred( |$)\n");
    write("excluded_paths.txt", "~/secrets/**\nrelative/bad\n");
    write("safe_paths.txt", "~/scratch/**\n");
    dir
}

fn calls() -> Vec<ToolCall> {
    let shell = |c: &str| ToolCall::Shell {
        command: c.to_string(),
    };
    let write = |p: &str| ToolCall::Write {
        tool: "Write".into(),
        path: p.into(),
        content: "x".into(),
    };
    vec![
        shell("deploy prod --now"),
        shell("wipe   all"),
        shell("mytool --check"),
        shell("mytool --check --fix"),
        shell("shred notes.txt"),
        shell("git status && ls -la src | head -20"),
        shell("rm -rf ~"),
        shell("frobnicate --check"),
        write("/home/dev/secrets/key"),
        write("/home/dev/scratch/a.txt"),
        write("/home/dev/proj/src/a.rs"),
    ]
}

/// Every call's decision and every load error (with its file:line), as text.
fn answers(dir: &Path) -> Vec<String> {
    let rules = Rules::load(dir, Some(Path::new(HOME)));
    let errors = rules.errors.iter().map(ToString::to_string).collect();
    with_decisions(dir, &rules, errors, &calls())
}

#[test]
fn a_cache_hit_answers_as_a_fresh_parse_and_errors_keep_their_line() {
    let dir = home("hit");
    let fresh = answers(&dir);
    let files = cache_files(&dir);
    // One cache file per rule file of the person's.
    assert_eq!(files.len(), 5, "{files:?}");
    assert!(
        files.iter().all(|(p, _)| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.starts_with("rules-") && name.ends_with(".bin") && name.len() == 6 + 64 + 4
        }),
        "{files:?}"
    );
    let hit = answers(&dir);
    assert_eq!(hit, fresh);
    assert!(
        hit.iter()
            .any(|e| e.starts_with("$SENTINEL_HOME/hard_block_commands.txt:3: bad regex")),
        "{hit:#?}"
    );
    assert!(
        hit.iter()
            .any(|e| e.starts_with("$SENTINEL_HOME/excluded_paths.txt:2: ")),
        "{hit:#?}"
    );
    assert!(
        hit.iter()
            .any(|e| e.contains("conditional_block_commands.txt:1: `!` exceptions")),
        "{hit:#?}"
    );
    // No other cache file was written on a hit.
    assert_eq!(cache_names(&cache_files(&dir)), cache_names(&files));
}

#[test]
fn an_unchanged_file_is_not_read_again_and_an_edit_that_keeps_size_and_mtime_is_seen() {
    let dir = home("stat");
    let rules = dir.join("hard_block_commands.txt");
    let mtime = std::fs::metadata(&rules).unwrap().modified().unwrap();
    // Past the racy window (the file's times are then older than any stat record made now).
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let fresh = answers(&dir);
    let files = cache_files(&dir);
    // A hit by stat: the record is not made again.
    assert_eq!(answers(&dir), fresh);
    assert_eq!(cache_files(&dir), files);
    // The same size, another rule, the mtime put back: the ctime tells.
    let text = std::fs::read_to_string(&rules).unwrap();
    let edited = text.replace("^deploy prod", "^deploy test");
    assert_eq!(edited.len(), text.len());
    std::fs::write(&rules, &edited).unwrap();
    set_mtime(&rules, mtime);
    assert_eq!(
        std::fs::metadata(&rules).unwrap().modified().unwrap(),
        mtime
    );
    let after = answers(&dir);
    assert_ne!(after, fresh);
    let loaded = Rules::load(&dir, Some(Path::new(HOME)));
    let patterns: Vec<&str> = loaded
        .hard_block()
        .iter()
        .map(|r| &*r.rule.pattern)
        .collect();
    assert!(patterns.contains(&"^deploy test( |$)"), "{patterns:?}");
    assert!(!patterns.contains(&"^deploy prod( |$)"), "{patterns:?}");
    // And its cache replaced the old one: one cache file per rule file.
    assert_eq!(cache_names(&cache_files(&dir)), cache_names(&files));
}

#[test]
fn a_racy_file_is_hashed_on_every_load() {
    let dir = home("racy");
    let rules = dir.join("hard_block_commands.txt");
    // An mtime after the stat record is made keeps the file racy: never trusted on its stat.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    set_mtime(&rules, later);
    let fresh = answers(&dir);
    let files = cache_files(&dir);
    // Hashed again, found the same, and its stat record made again.
    assert_eq!(answers(&dir), fresh);
    let again = cache_files(&dir);
    assert_eq!(cache_names(&again), cache_names(&files));
    assert_ne!(again, files, "the racy record is made again");
    // An edit of the same size with the same mtime is seen.
    let text = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(&rules, text.replace("^wipe", "^WIPE")).unwrap();
    set_mtime(&rules, later);
    let loaded = Rules::load(&dir, Some(Path::new(HOME)));
    assert!(
        loaded
            .hard_block()
            .iter()
            .any(|r| r.rule.pattern == "^WIPE\\s+all")
    );
}

#[test]
fn an_old_cache_file_is_removed_when_a_new_one_is_written() {
    let dir = home("prune");
    answers(&dir);
    let files = cache_files(&dir);
    // A file of an older format, and one of a rule file that is gone; and not a cache file.
    let cache = dir.join("cache");
    std::fs::write(
        cache.join(format!("rules-{}.bin", "0".repeat(64))),
        b"SNTLRUL\x01...",
    )
    .unwrap();
    std::fs::write(cache.join("notes.txt"), b"mine").unwrap();
    std::fs::write(dir.join("hard_block_commands.txt"), "^frobnicate( |$)\n").unwrap();
    answers(&dir);
    let mut want: Vec<PathBuf> = cache_names(&files)
        .into_iter()
        .map(Path::to_path_buf)
        .collect();
    want.push(cache.join("notes.txt"));
    want.sort();
    let now = cache_files(&dir);
    let got: Vec<PathBuf> = cache_names(&now)
        .into_iter()
        .map(Path::to_path_buf)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_damaged_cache_is_rebuilt_and_never_trusted() {
    let dir = home("damaged");
    let fresh = answers(&dir);
    damaged_caches_are_rebuilt(&dir, &fresh, answers, &[]);
}

#[test]
fn a_home_that_cannot_hold_a_cache_just_has_none() {
    let dir = home("unwritable");
    // `cache` is a file: no directory can be made there (a read-only home fails the same way,
    // but the tests may run as root, whom permissions do not stop).
    std::fs::write(dir.join("cache"), "not a directory").unwrap();
    let first = answers(&dir);
    assert_eq!(answers(&dir), first);
    assert_eq!(
        std::fs::read_to_string(dir.join("cache")).unwrap(),
        "not a directory"
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        6,
        "no stray files"
    );
    // And the answers are those of a home with a cache.
    let with = home("unwritable-control");
    assert_eq!(answers(&with), first);
}

#[test]
fn an_edited_file_is_parsed_afresh() {
    let dir = home("edited");
    let before = answers(&dir);
    std::fs::write(dir.join("hard_block_commands.txt"), "^frobnicate( |$)\n").unwrap();
    let after = answers(&dir);
    assert_ne!(after, before);
    let rules = Rules::load(&dir, Some(Path::new(HOME)));
    assert!(
        rules
            .hard_block()
            .iter()
            .any(|r| r.rule.pattern == "^frobnicate( |$)")
    );
    assert!(
        !rules
            .hard_block()
            .iter()
            .any(|r| r.rule.pattern.contains("deploy"))
    );
}

/// CRC-32 (IEEE), the checksum a cache file carried after its magic before files were signed.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_crafted_cache_is_never_trusted() {
    // The bundled rules that stop `rm -rf ~`, as their `off:` lines would name them.
    let bundled = |file: &str, starts: &str| {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("rules")
                .join(file),
        )
        .unwrap();
        let line = text.lines().find(|l| l.starts_with(starts)).unwrap();
        line.split("   #").next().unwrap().trim_end().to_string()
    };
    let hard = bundled("hard_block_commands.txt", "^rm( \\S+)* (/|");
    let cond = bundled("conditional_block_commands.txt", "^rm( \\S+)* (-");
    // The person's files are harmless, each as long as what would switch those rules off and
    // make every path safe.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rule-cache-crafted");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("proj/.git")).unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let (z, y) = ("Z".repeat(hard.len()), "Y".repeat(cond.len()));
    std::fs::write(home.join("hard_block_commands.txt"), format!("off: {z}\n")).unwrap();
    std::fs::write(
        home.join("conditional_block_commands.txt"),
        format!("off: {y}\n"),
    )
    .unwrap();
    std::fs::write(home.join("safe_paths.txt"), "/q*\n").unwrap();
    let hook = || {
        let event = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s",
            "cwd": dir.join("proj"), "permission_mode": "bypassPermissions", "tool_name": "Bash",
            "tool_input": {"command": "rm -rf ~"}});
        let mut cmd = common::sentinel(&home);
        cmd.arg("hook");
        let out = common::feed(cmd, event.to_string().as_bytes());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(hook(), "deny");
    let files = cache_files(&home);
    assert_eq!(files.len(), 3, "{files:?}");
    // Each cache file made to say what the files do not: the two rules off, every path safe.
    // Its header (the content's hash, the stat record) is left as sentinel wrote it, and its
    // checksum made right again.
    let swap = |bytes: &mut Vec<u8>, from: &[u8], to: &[u8]| {
        if let Some(at) = bytes.windows(from.len()).position(|w| w == from) {
            bytes[at..at + from.len()].copy_from_slice(to);
        }
    };
    for (path, good) in &files {
        let mut b = good.clone();
        swap(&mut b, z.as_bytes(), hard.as_bytes());
        swap(&mut b, y.as_bytes(), cond.as_bytes());
        swap(&mut b, b"/q*", b"/**");
        assert_ne!(&b, good, "{}", path.display());
        let crc = crc32(&b[12..]);
        b[8..12].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(path, b).unwrap();
    }
    assert_eq!(hook(), "deny", "a crafted cache was trusted");
    // The crafted files were rebuilt from the rule files.
    let now = cache_files(&home);
    assert_eq!(cache_names(&now), cache_names(&files));
    for (path, bytes) in &now {
        let crafted = bytes.windows(hard.len()).any(|w| w == hard.as_bytes())
            || bytes.windows(3).any(|w| w == b"/**");
        assert!(!crafted, "{} is still the crafted one", path.display());
    }
    assert_eq!(hook(), "deny");
}
