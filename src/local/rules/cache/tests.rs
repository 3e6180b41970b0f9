//! The rule files' cache: round trips, damage, stat records, pruning.

use super::*;

fn image(origin: &str) -> Image<'_> {
    Image {
        kind: Kind::Own,
        origin,
        off: vec![(3, "^rm")],
        lines: vec![
            Line {
                line: 2,
                pattern: "^ls",
                why: Some("list"),
                found: Found::Command {
                    anchored: true,
                    prefixes: (0, 1),
                    required: (1, 1),
                },
            },
            Line {
                line: 4,
                pattern: "^(",
                why: None,
                found: Found::Error("bad regex".into()),
            },
        ],
        literals: vec![b"ls", b"ls"],
    }
}

fn header(version: &str, format: u32, id: [u8; 32]) -> Header<'_> {
    Header {
        format,
        version,
        id,
        content: [1; 32],
        record: None,
    }
}

#[test]
fn only_this_versions_file_for_this_id_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let id = id("hard_block_commands.txt", b"home", None, "/h/x");
    let good = encode(dir, &header(VERSION, FORMAT, id), &image("/h/x")).unwrap();
    let (_, at) = super::header(dir, &good, &id).unwrap();
    assert_eq!(decode_image(&good[at..]), Some(image("/h/x")));
    for (what, other) in [
        ("another version", header("0.0.0-other", FORMAT, id)),
        ("another format", header(VERSION, FORMAT + 1, id)),
        ("another id", header(VERSION, FORMAT, [7; 32])),
    ] {
        let bytes = encode(dir, &other, &image("/h/x")).unwrap();
        assert!(super::header(dir, &bytes, &id).is_none(), "{what}");
    }
    // Signed under another home's key (or crafted without one): refused.
    let elsewhere = tempfile::tempdir().unwrap();
    let foreign = encode(
        elsewhere.path(),
        &header(VERSION, FORMAT, id),
        &image("/h/x"),
    )
    .unwrap();
    assert_eq!(foreign.len(), good.len());
    assert!(super::header(dir, &foreign, &id).is_none(), "another key");
    // Every truncation, and every single flipped bit, is refused.
    let read = |b: &[u8]| {
        super::header(dir, b, &id).is_some_and(|(_, at)| decode_image(&b[at..]).is_some())
    };
    for n in 0..good.len() {
        assert!(!read(&good[..n]), "cut at {n}");
    }
    for i in 0..good.len() {
        for bit in 0..8 {
            let mut b = good.clone();
            b[i] ^= 1 << bit;
            assert!(!read(&b), "byte {i} bit {bit}");
        }
    }
}

#[test]
fn the_id_covers_everything_the_parse_depends_on_but_the_content() {
    let base = id("a.txt", b"home", Some(Path::new("/h")), "/s/a.txt");
    assert_ne!(
        base,
        id("b.txt", b"home", Some(Path::new("/h")), "/s/a.txt")
    );
    assert_ne!(
        base,
        id("a.txt", b"project:/p", Some(Path::new("/h")), "/s/a.txt")
    );
    assert_ne!(
        base,
        id("a.txt", b"home", Some(Path::new("/g")), "/s/a.txt")
    );
    assert_ne!(base, id("a.txt", b"home", None, "/s/a.txt"));
    assert_ne!(
        base,
        id("a.txt", b"home", Some(Path::new("/h")), "/t/a.txt")
    );
    // Parts cannot run into each other.
    assert_ne!(id("ab", b"c", None, ""), id("a", b"bc", None, ""));
}

/// A rule file and its stat, in a fresh directory of the tests' temporary space.
#[cfg_attr(not(unix), allow(dead_code))]
fn scratch() -> (tempfile::TempDir, std::path::PathBuf, Stat) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hard_block_commands.txt");
    std::fs::write(&file, "^ls\n").unwrap();
    let stat = Stat::of(&std::fs::metadata(&file).unwrap()).unwrap();
    (dir, file, stat)
}

/// A cache file recording `stat` at `written` for content `content`.
#[cfg_attr(not(unix), allow(dead_code))]
fn forge(dir: &Path, id: &[u8; 32], content: [u8; 32], stat: Stat, written: i128, origin: &str) {
    let header = Header {
        format: FORMAT,
        version: VERSION,
        id: *id,
        content,
        record: Some(Record { stat, written }),
    };
    std::fs::write(
        dir.join(file_name(id)),
        encode(dir, &header, &image(origin)).unwrap(),
    )
    .unwrap();
}

#[cfg(unix)]
#[test]
fn a_stat_is_trusted_only_when_unchanged_and_not_racy() {
    let (tmp, file, stat) = scratch();
    let dir = tmp.path();
    let origin = file.display().to_string();
    let id = id("hard_block_commands.txt", b"home", None, &origin);
    // A record made well after the file's last change: its stat is trusted, even for a
    // content it does not hash to (what an edit within one clock tick would look like).
    let late = stat.mtime.max(stat.ctime) + 2 * RACY_NS;
    forge(dir, &id, [9; 32], stat, late, &origin);
    assert_eq!(
        by_stat(dir, &id, stat).and_then(|c| c.image()),
        Some(image(&origin))
    );
    // The same record made right after the change (racy): the file must be hashed.
    forge(dir, &id, [9; 32], stat, stat.ctime + 1, &origin);
    assert!(by_stat(dir, &id, stat).is_none());
    // Any field of the stat that differs: hashed.
    for other in [
        Stat {
            size: stat.size + 1,
            ..stat
        },
        Stat {
            mtime: stat.mtime - 1,
            ..stat
        },
        Stat {
            ctime: stat.ctime + 1,
            ..stat
        },
        Stat {
            ino: stat.ino + 1,
            ..stat
        },
        Stat {
            dev: stat.dev + 1,
            ..stat
        },
    ] {
        forge(dir, &id, [9; 32], stat, late, &origin);
        assert!(by_stat(dir, &id, other).is_none(), "{other:?}");
    }
}

#[cfg(unix)]
#[test]
fn a_matching_hash_refreshes_the_record_and_a_write_prunes_what_cannot_be_read() {
    let (tmp, file, stat) = scratch();
    let dir = tmp.path();
    let origin = file.display().to_string();
    let mine = id("hard_block_commands.txt", b"home", None, &origin);
    forge(dir, &mine, [5; 32], stat, stat.ctime, &origin);
    // Racy: not by stat; by content, and the record is made again, now.
    assert!(by_stat(dir, &mine, stat).is_none());
    assert!(
        by_content(dir, &mine, &[6; 32], Some(stat)).is_none(),
        "another content"
    );
    assert!(by_content(dir, &mine, &[5; 32], Some(stat)).is_some());
    let bytes = std::fs::read(dir.join(file_name(&mine))).unwrap();
    let (h, _) = super::header(dir, &bytes, &mine).unwrap();
    let record = h.record.unwrap();
    assert_eq!(record.stat, stat);
    assert!(record.written > stat.ctime + 1);
    // An old format's file, a foreign one and one whose rule file is gone are removed when a
    // cache file is written; a readable one of another rule file, and anything not named as
    // a cache file, stay.
    let other = id("safe_commands.txt", b"home", None, &origin);
    forge(dir, &other, [5; 32], stat, 0, &origin);
    let gone = id("safe_paths.txt", b"home", None, "/no/such/file");
    forge(dir, &gone, [5; 32], stat, 0, "/no/such/file");
    std::fs::write(dir.join("rules-old.bin"), b"SNTLRUL\x01old").unwrap();
    std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
    store(dir, &mine, &[5; 32], Some(stat), &image(&origin));
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let mut want = vec![
        "hard_block_commands.txt".to_string(),
        "notes.txt".into(),
        shelf::KEY_FILE.into(),
        file_name(&mine),
        file_name(&other),
    ];
    want.sort();
    assert_eq!(left, want);
}

#[cfg(unix)]
#[test]
fn a_checked_cache_file_is_sealed_and_one_changed_since_is_checked_again() {
    let (tmp, file, stat) = scratch();
    let dir = tmp.path();
    let origin = file.display().to_string();
    let mine = id("hard_block_commands.txt", b"home", None, &origin);
    let late = stat.mtime.max(stat.ctime) + 2 * RACY_NS;
    forge(dir, &mine, [9; 32], stat, late, &origin);
    let cache = dir.join(file_name(&mine));
    let seal_path = dir.join(format!("{}{}", file_name(&mine), shelf::SEAL));
    let cache_stat = || Stat::of(&std::fs::metadata(&cache).unwrap()).unwrap();
    // Just written: racy, so checked and not sealed.
    assert!(by_stat(dir, &mine, stat).is_some());
    assert!(!seal_path.exists());
    // A seal made when the file's stat was no longer racy (forged here with the key, as the
    // hook makes it two seconds later).
    let seal = |s: Stat, written: i128| {
        let bytes = RULES.seal(&test_key(dir), &file_name(&mine), s, written);
        std::fs::write(&seal_path, bytes).unwrap();
    };
    let cs = cache_stat();
    seal(cs, cs.ctime + 2 * RACY_NS);
    assert!(by_stat(dir, &mine, stat).is_some());
    // The file changed after its seal (a byte of its signature): its ctime moved, so the seal
    // does not hold, the signature is checked and fails.
    let mut bytes = std::fs::read(&cache).unwrap();
    bytes[MAGIC.len()] ^= 1;
    std::fs::write(&cache, &bytes).unwrap();
    assert!(by_stat(dir, &mine, stat).is_none());
    // Sealed with the key as it is now, the changed file is taken unchecked: the seal is what
    // skips the check (only a holder of the key can make one).
    let cs = cache_stat();
    seal(cs, cs.ctime + 2 * RACY_NS);
    assert!(by_stat(dir, &mine, stat).is_some());
    // A seal that is not the key's, or made while the stat was racy, holds nothing.
    let mut forged = std::fs::read(&seal_path).unwrap();
    forged[0] ^= 1;
    std::fs::write(&seal_path, &forged).unwrap();
    assert!(by_stat(dir, &mine, stat).is_none());
    seal(cs, cs.ctime + 1);
    assert!(by_stat(dir, &mine, stat).is_none());
    // A seal whose cache file is gone goes with the next write's pruning.
    std::fs::remove_file(&cache).unwrap();
    let other = id("safe_commands.txt", b"home", None, &origin);
    store(dir, &other, &[5; 32], Some(stat), &image(&origin));
    assert!(!seal_path.exists());
}
