//! `find` and `fd`: the directories they search and the commands their `-exec` / `-x` actions
//! run, split off so each is judged on its own.

use super::*;

/// The starting points of a `find` (the words before its first expression), `.` when none.
pub(super) fn find_roots(own: &[Word]) -> Vec<Word> {
    let roots: Vec<Word> = own
        .iter()
        .skip(1)
        .skip_while(|w| {
            matches!(w.text.as_str(), "-H" | "-L" | "-P")
                || w.text.starts_with("-O")
                || w.text.starts_with("-D")
        })
        .take_while(|w| !w.text.starts_with('-') && !matches!(w.text.as_str(), "(" | "!" | ")"))
        .cloned()
        .collect();
    if roots.is_empty() {
        vec![Word::literal(".")]
    } else {
        roots
    }
}

/// An entry below `root` that a search hands on (`fd -x`): `ROOT/{}`, computed and not known
/// before it runs (which entries the search picks is not listed), never the root itself.
pub(super) fn below_root(root: &Word) -> Word {
    Word {
        text: format!("{}/{{}}", root.text.trim_end_matches('/')),
        kind: WordKind::Computed,
        value: None,
    }
}

/// An action of `find` that runs a command: its label (`find -exec`), the command, and how many
/// of find's own words came before it (find evaluates its expression from the left).
pub(super) type FindExec = (String, Vec<Word>, usize);

/// Splits `find` into its own arguments and the commands its `-exec`, `-execdir`, `-ok` and
/// `-okdir` actions run (each up to `;` or `+`).
pub(super) fn split_find(argv: Vec<Word>) -> (Vec<Word>, Vec<FindExec>) {
    let mut own = Vec::new();
    let mut execs = Vec::new();
    let mut words = argv.into_iter();
    while let Some(w) = words.next() {
        if matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let label = format!("find {}", w.text);
            let mut cmd = Vec::new();
            for v in words.by_ref() {
                if v.text == ";" || v.text == "+" {
                    break;
                }
                cmd.push(v);
            }
            execs.push((label, cmd, own.len()));
        } else {
            own.push(w);
        }
    }
    (own, execs)
}

/// fd's options that take the next word as their value (so it is not a pattern or a path).
const FD_VALUED: &[&str] = &[
    "-d",
    "--max-depth",
    "--min-depth",
    "--exact-depth",
    "-t",
    "--type",
    "-e",
    "--extension",
    "-E",
    "--exclude",
    "-S",
    "--size",
    "--changed-within",
    "--changed-before",
    "--change-newer-than",
    "--change-older-than",
    "--newer",
    "--older",
    "-o",
    "--owner",
    "-c",
    "--color",
    "-j",
    "--threads",
    "--max-results",
    "--path-separator",
    "--format",
    "--max-buffer-time",
    "--and",
    "--base-directory",
    "--search-path",
    "--ignore-file",
    "--batch-size",
];

/// fd split: its own words, the command it runs (with its label) and the roots it searches.
pub(super) type FdSplit = (Vec<Word>, (String, Vec<Word>), Vec<Word>);

/// Splits `fd` (`fdfind`) into its own arguments, the command its `-x`/`--exec` or
/// `-X`/`--exec-batch` runs (up to `;`, or the end; `--exec=CMD` starts it in the same word)
/// and the directories it searches: its path operands and `--search-path` values, `.` when
/// none. None when it runs nothing.
pub(super) fn split_fd(argv: &[Word]) -> Option<FdSplit> {
    let mut own = vec![argv.first()?.clone()];
    let mut exec: Option<(String, Vec<Word>)> = None;
    let mut positional = Vec::new();
    let mut search = Vec::new();
    let mut i = 1;
    let mut options_done = false;
    while i < argv.len() {
        let w = &argv[i];
        let (name, attached) = match w.text.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (w.text.as_str(), None),
        };
        let short_exec = !w.text.starts_with("--")
            && (w.text.starts_with("-x") || w.text.starts_with("-X"))
            && w.text.len() > 2;
        if !options_done
            && exec.is_none()
            && (matches!(name, "-x" | "--exec" | "-X" | "--exec-batch") || short_exec)
        {
            let label = format!("fd {}", if short_exec { &w.text[..2] } else { name });
            let mut cmd = Vec::new();
            if let Some(v) = attached {
                cmd.push(Word {
                    text: v.to_string(),
                    kind: w.kind,
                    value: None,
                });
            } else if short_exec {
                cmd.push(Word {
                    text: w.text[2..].to_string(),
                    kind: w.kind,
                    value: None,
                });
            }
            i += 1;
            while i < argv.len() && argv[i].text != ";" {
                cmd.push(argv[i].clone());
                i += 1;
            }
            i += 1;
            exec = Some((label, cmd));
            continue;
        }
        own.push(w.clone());
        if options_done || !w.text.starts_with('-') || w.text == "-" {
            positional.push(w.clone());
        } else if w.text == "--" {
            options_done = true;
        } else if attached.is_none() && FD_VALUED.contains(&name) {
            if let Some(v) = argv.get(i + 1) {
                if name == "--search-path" {
                    search.push(v.clone());
                }
                own.push(v.clone());
                i += 1;
            }
        } else if name == "--search-path" {
            search.extend(attached.map(Word::literal));
        }
        i += 1;
    }
    let (label, mut cmd) = exec?;
    let mut roots: Vec<Word> = positional.into_iter().skip(1).collect();
    roots.extend(search);
    if roots.is_empty() {
        roots.push(Word::literal("."));
    }
    // fd's placeholders: the entry, its base name or stem (`{}`, `{/}`, `{.}`, `{/.}`: below
    // a root), its parent (`{//}`: a root itself for a top-level entry); with none, the entry
    // is appended.
    let placeholders = ["{}", "{/}", "{.}", "{/.}", "{//}"];
    if !cmd
        .iter()
        .any(|w| placeholders.iter().any(|p| w.text.contains(p)))
        && !cmd.is_empty()
    {
        cmd.push(Word::literal("{}"));
    }
    for w in &mut cmd {
        if w.text == "{//}" {
            *w = match roots.as_slice() {
                [root] => Word {
                    text: w.text.clone(),
                    kind: WordKind::Computed,
                    value: root.known_value().map(str::to_string),
                },
                _ => Word {
                    text: w.text.clone(),
                    kind: WordKind::Computed,
                    value: None,
                },
            };
        } else if matches!(w.text.as_str(), "{/}" | "{.}" | "{/.}") {
            w.text = "{}".to_string();
        }
    }
    Some((own, (label, cmd), roots))
}
