//! A person's command specs (SENTINEL_HOME/commands/*.toml) are compiled once and cached in
//! SENTINEL_HOME/cache: a hit answers as a fresh compile does, errors keep their file:line, an
//! edit is seen, and a damaged or foreign cache is rebuilt, never trusted (issue 16).

use sentinel::call::ToolCall;
use sentinel::decide::decide;
use sentinel::local::context::Context;
use sentinel::rules::Rules;
use std::path::{Path, PathBuf};

mod common;

use common::{
    CACHE_TEST_HOME as HOME, Damage, cache_files, cache_names, damaged_caches_are_rebuilt,
    set_mtime, with_decisions,
};

/// A section that replaces the bundled `git status` (only `-s`), a program of the person's own,
/// and a pattern section.
const MINE: &str = "# mine\n[frob]\nflags = \"-a\"\noperands = \"text...\"\n\n[\"git status\"]\nabout = \"mine\"\nflags = \"-s\"\noperands = \"path...\"\n\n[fizz]\noperands = \"subcommand\"\n\n[\"fizz *\"]\nflags = \"-q\"\n";
/// A file with a bad section between good ones, and an alias.
const BAD: &str = "[zap]\nflags = \"-v\"\noperands = \"subcommand\"\n\n[\"zap x\"]\nsyntax = \"nope\"\n\n[\"zap y\"]\naliases = [\"yy\"]\nflags = \"-n\"\n";

/// A SENTINEL_HOME with the person's spec files (`files`: name, text).
fn home(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("spec-cache-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("commands")).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join("commands").join(file), text).unwrap();
    }
    dir
}

fn good(name: &str) -> PathBuf {
    home(name, &[("mine.toml", MINE)])
}

fn both(name: &str) -> PathBuf {
    home(name, &[("mine.toml", MINE), ("bad.toml", BAD)])
}

fn calls() -> Vec<ToolCall> {
    [
        "frob -a x",
        "frob -z",
        "fizz sub -q",
        "git status -s",
        "git status --short",
        "git log --oneline",
        "sort -u a",
        "zap -v",
        "zap y -n",
        "zap yy -n",
        "zap x",
        "rm -rf ~",
    ]
    .iter()
    .map(|c| ToolCall::Shell {
        command: c.to_string(),
    })
    .collect()
}

/// Every load error (with its file:line), every lint error, and every call's decision, as text.
fn answers(dir: &Path) -> Vec<String> {
    let rules = Rules::load(dir, Some(Path::new(HOME)));
    let mut lines: Vec<String> = rules.errors.iter().map(|e| format!("load {e}")).collect();
    lines.extend(rules.lint().iter().map(|e| format!("lint {e}")));
    with_decisions(dir, &rules, lines, &calls())
}

/// The decision of one call in `dir`, as text.
fn decision(dir: &Path, command: &str) -> String {
    let rules = Rules::load(dir, Some(Path::new(HOME)));
    let ctx = Context::lexical(Path::new("/home/dev/proj"), Some(Path::new(HOME)), dir);
    let call = ToolCall::Shell {
        command: command.to_string(),
    };
    format!("{:?}", decide(&call, &rules, &ctx))
}

#[test]
fn a_cache_hit_answers_as_a_fresh_compile_and_errors_keep_their_line() {
    let dir = both("hit");
    let fresh = answers(&dir);
    let files = cache_files(&dir);
    // One cache file per spec file.
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(
        files.iter().all(|(p, _)| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.starts_with("specs-") && name.ends_with(".bin") && name.len() == 6 + 64 + 4
        }),
        "{files:?}"
    );
    let hit = answers(&dir);
    assert_eq!(hit, fresh);
    // The bad section's error, with its file:line, on load and in lint; the error makes every
    // local allow `ask`.
    for what in ["load", "lint"] {
        assert!(
            hit.iter().any(|e| e.starts_with(&format!(
                "{what} $SENTINEL_HOME/commands/bad.toml:6: unknown syntax"
            ))),
            "{hit:#?}"
        );
    }
    assert!(
        !hit.iter().any(|a| a.contains("Decision { verdict: Allow")),
        "an error in a person's spec leaves no local allow: {hit:#?}"
    );
    // No other cache file was written on a hit.
    assert_eq!(cache_names(&cache_files(&dir)), cache_names(&files));
}

#[test]
fn a_persons_section_replaces_the_bundled_one_from_the_cache_too() {
    let dir = good("replace");
    for _ in 0..2 {
        let status = decision(&dir, "git status -s");
        assert!(status.contains("Decision { verdict: Allow"), "{status}");
        assert!(status.contains("commands/mine.toml"), "{status}");
        // The bundled section knows `--short`; the person's does not.
        let short = decision(&dir, "git status --short");
        assert!(!short.contains("Decision { verdict: Allow"), "{short}");
        assert!(decision(&dir, "frob -a x").contains("Decision { verdict: Allow"));
        assert!(decision(&dir, "fizz sub -q").contains("Decision { verdict: Allow"));
        assert!(!decision(&dir, "frob -z").contains("Decision { verdict: Allow"));
        // The bundled specs still apply to everything else.
        assert!(decision(&dir, "sort -u a").contains("Decision { verdict: Allow"));
        assert!(decision(&dir, "git log --oneline").contains("Decision { verdict: Allow"));
        assert_eq!(cache_files(&dir).len(), 1);
    }
}

#[test]
fn an_edited_file_is_seen() {
    let dir = both("edited");
    let before = answers(&dir);
    assert!(decision(&dir, "frob -a x").contains("Decision { verdict: Ask"));
    // The bad section fixed: the error is gone, and the allows are back.
    std::fs::write(
        dir.join("commands/bad.toml"),
        BAD.replace("syntax = \"nope\"", "syntax = \"posix\""),
    )
    .unwrap();
    let after = answers(&dir);
    assert_ne!(after, before);
    assert!(
        !after
            .iter()
            .any(|a| a.starts_with("load") || a.starts_with("lint")),
        "{after:#?}"
    );
    assert!(decision(&dir, "frob -a x").contains("Decision { verdict: Allow"));
    assert!(decision(&dir, "zap x").contains("Decision { verdict: Allow"));
    // A section removed: the bundled one is back.
    std::fs::write(
        dir.join("commands/mine.toml"),
        MINE.replace("[\"git status\"]", "[\"frob status\"]"),
    )
    .unwrap();
    assert!(decision(&dir, "git status --short").contains("Decision { verdict: Allow"));
    // One cache file per spec file still.
    assert_eq!(cache_files(&dir).len(), 2);
}

#[test]
fn an_unchanged_file_is_not_read_again_and_an_edit_that_keeps_size_and_mtime_is_seen() {
    let dir = good("stat");
    let spec = dir.join("commands/mine.toml");
    let mtime = std::fs::metadata(&spec).unwrap().modified().unwrap();
    // Past the racy window (the file's times are then older than any stat record made now).
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let fresh = answers(&dir);
    let files = cache_files(&dir);
    // A hit by stat: the record is not made again.
    assert_eq!(answers(&dir), fresh);
    assert_eq!(cache_files(&dir), files);
    // The same size, another flag, the mtime put back: the ctime tells.
    let edited = MINE.replace("flags = \"-s\"", "flags = \"-b\"");
    assert_eq!(edited.len(), MINE.len());
    std::fs::write(&spec, &edited).unwrap();
    set_mtime(&spec, mtime);
    assert_ne!(answers(&dir), fresh);
    assert!(decision(&dir, "git status -b").contains("Decision { verdict: Allow"));
    assert!(!decision(&dir, "git status -s").contains("Decision { verdict: Allow"));
    assert_eq!(cache_names(&cache_files(&dir)), cache_names(&files));
}

#[test]
fn a_damaged_or_foreign_cache_is_rebuilt_and_never_trusted() {
    let dir = both("damaged");
    let fresh = answers(&dir);
    assert_eq!(cache_files(&dir).len(), 2);
    // A rule file's cache under a spec file's name is foreign too.
    let rules_magic: Damage = |b| {
        let mut b = b.to_vec();
        b[..8].copy_from_slice(b"SNTLRUL\x02");
        b
    };
    damaged_caches_are_rebuilt(
        &dir,
        &fresh,
        answers,
        &[("a rule file's magic", rules_magic)],
    );
}

#[test]
fn an_old_cache_file_is_removed_when_a_new_one_is_written() {
    let dir = good("prune");
    answers(&dir);
    let files = cache_files(&dir);
    let cache = dir.join("cache");
    // An older format's file, one of a spec file that is gone, a rule file's and not a cache
    // file: the first two go when a spec's cache is written.
    std::fs::write(
        cache.join(format!("specs-{}.bin", "0".repeat(64))),
        b"SNTLSPC\x00...",
    )
    .unwrap();
    std::fs::write(dir.join("commands/gone.toml"), "[gone]\n").unwrap();
    answers(&dir);
    std::fs::remove_file(dir.join("commands/gone.toml")).unwrap();
    let rules = cache.join(format!("rules-{}.bin", "1".repeat(64)));
    std::fs::write(&rules, b"SNTLRUL\x02...").unwrap();
    std::fs::write(cache.join("notes.txt"), b"mine").unwrap();
    std::fs::write(dir.join("commands/mine.toml"), "[frob]\n").unwrap();
    answers(&dir);
    let mut want: Vec<PathBuf> = cache_names(&files)
        .into_iter()
        .map(Path::to_path_buf)
        .collect();
    want.push(cache.join("notes.txt"));
    want.push(rules);
    want.sort();
    let got: Vec<PathBuf> = cache_names(&cache_files(&dir))
        .into_iter()
        .map(Path::to_path_buf)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_home_that_cannot_hold_a_cache_just_has_none() {
    let dir = both("unwritable");
    std::fs::write(dir.join("cache"), "not a directory").unwrap();
    let first = answers(&dir);
    assert_eq!(answers(&dir), first);
    assert_eq!(
        std::fs::read_to_string(dir.join("cache")).unwrap(),
        "not a directory"
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        2,
        "no stray files"
    );
    assert_eq!(answers(&both("unwritable-control")), first);
}
