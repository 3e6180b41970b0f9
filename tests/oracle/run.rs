//! Running the oracle over a list of cases: workers (each with its own copy of the world),
//! decisions, runs, judgements, then the report: violations by class, the known list, coverage.

use crate::fixture::{self, World};
use crate::inputs::{self, Case, Section};
use crate::judge::{self, Violation};
use crate::known::Known;
use crate::{sandbox, trace};
use sentinel::call::ToolCall;
use sentinel::decision::effect::Effect;
use sentinel::decision::{Decision, Verdict};
use sentinel::local::context::Context;
use sentinel::local::paths::fs::RealFs;
use sentinel::rules::Rules;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What happened to one case.
pub struct Outcome {
    pub case: Case,
    pub verdict: Verdict,
    pub reason: String,
    pub ran: bool,
    /// Not run: it names a program outside tests/oracle/programs.txt.
    pub out_of_scope: bool,
    pub violations: Vec<Violation>,
}

/// How a worker's rules are made from its world (the mutation check swaps a spec in).
pub type Spec = Option<(&'static str, String)>;

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The scratch root: under the target dir, never /tmp (sentinel reads temp dirs as scratch
/// space) and never the real home.
fn scratch() -> tempfile::TempDir {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    // A checkout under a temp dir (a fresh clone in /tmp) puts the target dir there too: then
    // the worlds go under the home's cache, as the e2e's work dir does.
    let in_temp = ["/tmp", "/var/tmp", "/dev/shm"]
        .iter()
        .any(|t| target.starts_with(t));
    let base = match (in_temp, std::env::var_os("HOME")) {
        (true, Some(home)) => PathBuf::from(home).join(".cache").join("sentinel-oracle"),
        _ => target,
    };
    std::fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix("oracle")
        .tempdir_in(base)
        .unwrap()
}

/// A command is run when it is allowed (every allow is checked), or when its reason claims a
/// whole tree is deleted (the claim is checked).
fn worth_running(d: &Decision) -> bool {
    d.verdict == Verdict::Allow
        || d.commands.iter().any(|c| {
            c.effects
                .iter()
                .any(|e| matches!(e, Effect::Delete { tree: true, .. }))
        })
}

/// Decides and runs every case on `jobs` workers.
pub fn run_cases(
    cases: Vec<Case>,
    template: &World,
    spec: &Spec,
    scope: &BTreeSet<String>,
) -> Vec<Outcome> {
    let jobs = env_num("ORACLE_JOBS", 2).max(1);
    let limit = Duration::from_millis(env_num("ORACLE_LIMIT_MS", 3000) as u64);
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let started = &started;
    let results = Mutex::new(Vec::new());
    let base = template.root.parent().unwrap().to_path_buf();
    std::thread::scope(|s| {
        for w in 0..jobs {
            let (next, results, cases, base) = (&next, &results, &cases, &base);
            s.spawn(move || {
                let slot = base.join(format!("w{w}"));
                let mut world = fixture::fresh_copy(template, &slot);
                let rules = rules_for(&world, spec);
                let mut dirty = false;
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = cases.get(i) else { break };
                    if dirty {
                        world = fixture::fresh_copy(template, &slot);
                    }
                    let (outcome, changed) = one(case, &world, &rules, scope, limit);
                    dirty = changed;
                    if (i + 1) % 1000 == 0 {
                        println!(
                            "oracle: {} of {} commands ({:.0}s)",
                            i + 1,
                            cases.len(),
                            started.elapsed().as_secs_f64()
                        );
                    }
                    results.lock().unwrap().push((i, outcome));
                }
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by_key(|(i, _)| *i);
    r.into_iter().map(|(_, o)| o).collect()
}

fn rules_for(world: &World, spec: &Spec) -> Rules {
    if let Some((file, text)) = spec {
        let dir = world.sentinel_home.join("commands");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
    }
    Rules::load(&world.sentinel_home, Some(&world.home))
}

/// Tier 1's decision, as the hook makes it: the real file system, the project's cwd, HOME at
/// the decoy home, no taint.
pub fn decide(command: &str, world: &World, rules: &Rules) -> Decision {
    let ctx = Context::new(
        &world.project,
        Some(&world.home),
        &world.sentinel_home,
        &RealFs,
        None,
    )
    .with_project(&world.project);
    let call = ToolCall::Shell {
        command: command.to_string(),
    };
    sentinel::decide::decide(&call, rules, &ctx).expect("a shell call always gets a decision")
}

fn one(
    case: &Case,
    world: &World,
    rules: &Rules,
    scope: &BTreeSet<String>,
    limit: Duration,
) -> (Outcome, bool) {
    let mut changed = false;
    let d = match std::panic::catch_unwind(|| decide(&case.command, world, rules)) {
        Ok(d) => d,
        Err(e) => {
            let what = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let out = Outcome {
                case: case.clone(),
                verdict: Verdict::Deny,
                reason: "(no decision: Tier 1 panicked)".into(),
                ran: false,
                out_of_scope: false,
                violations: vec![Violation {
                    class: "panics",
                    what: format!("Tier 1 panicked: {what}"),
                    evidence: String::new(),
                }],
            };
            return (out, false);
        }
    };
    let mut out = Outcome {
        case: case.clone(),
        verdict: d.verdict,
        reason: d.reason.clone(),
        ran: false,
        out_of_scope: false,
        violations: Vec::new(),
    };
    let in_scope = |p: &String| p.contains('/') || scope.contains(p.as_str());
    if worth_running(&d) && !judge::programs_of(&d).iter().all(in_scope) {
        out.out_of_scope = true;
    } else if worth_running(&d) {
        let run = sandbox::run(world, &case.command, limit);
        out.ran = true;
        let events = trace::parse(&run.trace, &world.project);
        // The copy is made again only when the command changed it (most only read), or when
        // the trace is unreadable.
        changed = events.is_empty()
            || events.iter().any(|e| {
                e.ok && matches!(&e.act, trace::Act::Write { path } | trace::Act::Delete { path }
                    if path.starts_with(&world.root))
            });
        if events.is_empty() {
            out.violations.push(Violation {
                class: "harness",
                what: "no trace: the sandbox or strace failed".into(),
                evidence: run.output.chars().take(300).collect(),
            });
        }
        out.violations.extend(judge::judge(
            &d,
            &events,
            &run.received,
            run.status,
            world,
            rules,
        ));
        // One line per distinct finding, at most a few of each class (a `find -delete` of
        // `.git` is hundreds of unlinks of one kind).
        let mut seen = BTreeSet::new();
        out.violations
            .retain(|v| seen.insert((v.class, v.what.clone())));
        let mut per_class: BTreeMap<&str, usize> = BTreeMap::new();
        out.violations.retain(|v| {
            let n = per_class.entry(v.class).or_default();
            *n += 1;
            *n <= 3
        });
    }
    (out, changed)
}

/// The report of a list of outcomes against the known list; true when nothing unexpected.
fn report(title: &str, outcomes: &[Outcome], known: &Known, file: Option<&Path>) -> bool {
    let mut unexpected = String::new();
    let mut all = String::new();
    let mut by_class: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    let mut seen = Vec::new();
    let mut n_unexpected = 0;
    let verbose = std::env::var_os("ORACLE_VERBOSE").is_some();
    for o in outcomes {
        if verbose {
            println!(
                "{} {}{} | {}",
                o.verdict,
                if o.ran { "ran " } else { "" },
                o.case.command,
                o.reason
            );
        }
        for v in &o.violations {
            seen.push((v.class, o.case.command.as_str()));
            let program = o
                .case
                .command
                .split_whitespace()
                .find(|w| !w.contains('='))
                .unwrap_or("")
                .to_string();
            *by_class
                .entry(v.class)
                .or_default()
                .entry(program)
                .or_default() += 1;
            let text = format!(
                "[{}] {}\n    sentinel: {}: {}\n    did: {}\n    trace: {}\n",
                v.class, o.case.command, o.verdict, o.reason, v.what, v.evidence
            );
            all.push_str(&text);
            if !known.covers(v.class, &o.case.command) {
                n_unexpected += 1;
                unexpected.push_str(&text);
            }
        }
    }
    let commands: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.ran)
        .map(|o| o.case.command.as_str())
        .collect();
    let stale = known.stale(&commands, &seen);
    let ran = outcomes.iter().filter(|o| o.ran).count();
    let allowed = outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Allow)
        .count();
    println!(
        "oracle ({title}): {} commands decided, {allowed} allowed, {ran} run in the sandbox, {} violations ({n_unexpected} not in known.txt)",
        outcomes.len(),
        seen.len()
    );
    for (class, programs) in &by_class {
        let total: usize = programs.values().sum();
        let mut top: Vec<_> = programs.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1));
        let top: Vec<String> = top
            .iter()
            .take(12)
            .map(|(p, n)| format!("{p} {n}"))
            .collect();
        println!("  {class}: {total} ({})", top.join(", "));
    }
    if let Some(f) = file {
        std::fs::write(f, &all).unwrap();
        println!("  every violation: {}", f.display());
    }
    if !stale.is_empty() {
        println!(
            "oracle: {} known.txt entries no longer fail (fixed? remove them):\n  {}",
            stale.len(),
            stale.join("\n  ")
        );
    }
    if n_unexpected > 0 {
        println!("oracle: VIOLATIONS not in tests/oracle/known.txt:\n{unexpected}");
    }
    n_unexpected == 0
}

/// The template world under a scratch dir, with the commands' programs.
fn template(dir: &Path) -> World {
    fixture::build(&dir.join("template"))
}

/// The fast part: tests/oracle/fast.txt, and the mutation check.
pub fn fast(root: &Path) -> bool {
    let dir = scratch();
    let t = template(dir.path());
    let known = Known::load(root);
    let scope = inputs::scope(root);
    let outcomes = run_cases(inputs::fast(root), &t, &None, &scope);
    let ok = report("fast", &outcomes, &known, None);
    ok & mutation_bites(root, &t, &scope)
}

/// A spec mistyped on purpose must make the oracle fail: `sort -o` typed as a plain flag
/// makes `sort data.txt -o ../other/out.txt` read `../other/out.txt` as input and allow it,
/// and the trace shows the write outside the project.
pub fn mutation_bites(root: &Path, t: &World, scope: &BTreeSet<String>) -> bool {
    let text = std::fs::read_to_string(root.join("rules/commands/coreutils.toml")).unwrap();
    let start = text.find("\n[sort]\n").expect("a [sort] section") + 1;
    let end = text[start + 1..]
        .find("\n[")
        .map(|e| start + 1 + e)
        .unwrap_or(text.len());
    let section = &text[start..end];
    let line = "options.\"-o --output\" = \"write\"";
    assert!(
        section.contains(line),
        "coreutils.toml [sort]: {line} moved"
    );
    let mutated = section.replace(line, "options.\"-o --output\" = \"flag\"");
    let case = Case {
        command: "sort data.txt -o ../other/out.txt".into(),
        origin: "mutation",
        section: None,
        option: None,
    };
    let honest = run_cases(vec![case.clone()], t, &None, scope);
    let broken = run_cases(vec![case], t, &Some(("coreutils.toml", mutated)), scope);
    let bites = broken[0].verdict == Verdict::Allow
        && broken[0]
            .violations
            .iter()
            .any(|v| v.class == "writes-outside");
    let clean = honest[0].verdict != Verdict::Allow && honest[0].violations.is_empty();
    println!(
        "oracle mutation check: with sort's `-o` typed as a flag, `{}` is {} with {} violation(s) ({}); with the bundled spec: {}, {} violation(s)",
        broken[0].case.command,
        broken[0].verdict,
        broken[0].violations.len(),
        broken[0]
            .violations
            .first()
            .map(|v| v.what.as_str())
            .unwrap_or("-"),
        honest[0].verdict,
        honest[0].violations.len()
    );
    if !bites || !clean {
        println!("oracle: the mutation check FAILED: the oracle does not bite");
    }
    bites && clean
}

/// The whole oracle: fast list, corpus, every section's options, the fuzzer; coverage.
pub fn whole(root: &Path) -> bool {
    let started = Instant::now();
    let dir = scratch();
    let t = template(dir.path());
    let known = Known::load(root);
    let scope = inputs::scope(root);
    let sections = inputs::sections(root);
    let installed = |program: &str| {
        fixture::which(program).is_some() || t.bin.join(program).exists() || builtin(program)
    };
    let missing: BTreeSet<String> = scope.iter().filter(|p| !installed(p)).cloned().collect();
    let mut cases = inputs::fast(root);
    cases.extend(inputs::corpus(root));
    for s in &sections {
        let program = s.name.split_whitespace().next().unwrap_or("");
        if scope.contains(program) && !missing.contains(program) {
            cases.extend(inputs::generate(s));
        }
    }
    println!("oracle: {} commands to decide", cases.len());
    let first = run_cases(cases, &t, &None, &scope);
    // The fuzzer's seeds: every command allowed and run so far.
    let seeds: Vec<String> = first
        .iter()
        .filter(|o| o.ran && o.verdict == Verdict::Allow)
        .map(|o| o.case.command.clone())
        .collect();
    let n = env_num("ORACLE_FUZZ", 1500);
    let seed = env_num("ORACLE_SEED", 28) as u64;
    let mut outcomes = first;
    outcomes.extend(run_cases(
        inputs::fuzz(&seeds, &sections, n, seed),
        &t,
        &None,
        &scope,
    ));
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle-report.txt");
    let ok = report("whole", &outcomes, &known, Some(&file));
    coverage(&sections, &outcomes, &scope, &missing);
    let untraceable: Vec<String> = inputs::untraceable(root)
        .into_iter()
        .map(|(file, n)| format!("{file} ({n} sections)"))
        .collect();
    println!(
        "  untraceable (programs that cannot run in this sandbox; their spec files say `# oracle: not traced`): {}",
        untraceable.join(", ")
    );
    let bites = mutation_bites(root, &t, &scope);
    println!(
        "oracle: whole run in {:.0}s (seed {seed}, {n} mutants)",
        started.elapsed().as_secs_f64()
    );
    ok & bites
}

/// bash's builtins and keywords (`cd`, `declare`, `[[`): always there.
fn builtin(name: &str) -> bool {
    std::process::Command::new("bash")
        .args(["-c", "type -t -- \"$1\"", "-", name])
        .output()
        .map(|o| matches!(o.stdout.as_slice(), b"builtin\n" | b"keyword\n"))
        .unwrap_or(false)
}

fn coverage(
    sections: &[Section],
    outcomes: &[Outcome],
    scope: &BTreeSet<String>,
    missing: &BTreeSet<String>,
) {
    let mut out = String::new();
    let program = |s: &str| s.split_whitespace().next().unwrap_or("").to_string();
    let names = |s: &Section| s.options.iter().map(|(n, _)| n.len()).sum::<usize>();
    let option_names: usize = sections.iter().map(names).sum();
    let in_scope: Vec<&Section> = sections
        .iter()
        .filter(|s| scope.contains(&program(&s.name)) && !missing.contains(&program(&s.name)))
        .collect();
    let scope_names: usize = in_scope.iter().map(|s| names(s)).sum();
    let generated: usize = in_scope.iter().filter(|s| !s.name.contains('*')).count();
    let decided_sections: BTreeSet<&str> = outcomes
        .iter()
        .filter_map(|o| o.case.section.as_deref())
        .collect();
    let run_sections: BTreeSet<&str> = outcomes
        .iter()
        .filter(|o| o.ran)
        .filter_map(|o| o.case.section.as_deref())
        .collect();
    let decided_options: BTreeSet<&str> = outcomes
        .iter()
        .filter_map(|o| o.case.option.as_deref())
        .collect();
    let run_options: BTreeSet<&str> = outcomes
        .iter()
        .filter(|o| o.ran)
        .filter_map(|o| o.case.option.as_deref())
        .collect();
    let programs: BTreeSet<String> = sections.iter().map(|s| program(&s.name)).collect();
    let traced: BTreeSet<String> = outcomes
        .iter()
        .filter(|o| o.ran)
        .filter_map(|o| o.case.section.as_deref().map(program))
        .collect();
    let out_of_scope = outcomes.iter().filter(|o| o.out_of_scope).count();
    let _ = writeln!(
        out,
        "oracle coverage:\n  sections: {} bundled; {} of the programs run here ({generated} without a pattern, generated); {} decided, {} traced (an allowed or claim-checked command run)",
        sections.len(),
        in_scope.len(),
        decided_sections.len(),
        run_sections.len()
    );
    let _ = writeln!(
        out,
        "  option names: {option_names} bundled, {scope_names} of the programs run here, {} decided, {} traced",
        decided_options.len(),
        run_options.len()
    );
    let _ = writeln!(
        out,
        "  programs: {} with specs, {} in tests/oracle/programs.txt, {} traced; missing here (reported, not traced): {}",
        programs.len(),
        scope.len(),
        traced.len(),
        if missing.is_empty() {
            "none".to_string()
        } else {
            missing.iter().cloned().collect::<Vec<_>>().join(" ")
        }
    );
    let _ = writeln!(
        out,
        "  {out_of_scope} allowed commands not run: they name a program outside programs.txt"
    );
    print!("{out}");
}
