//! `sentinel suggest`: learning from Tier 2. The commands that reached the evaluator (or were
//! asked about) most often become proposed rules — safe when the evaluator allowed them, block
//! when it mostly blocked them — each with its evidence; `--apply` appends the chosen ones to
//! the person's rule files once they lint and change the next decision as proposed.
//!
//! The decisions are re-judged under today's rules, so a command a rule already settles is not
//! proposed again, and a compound command is broken into the simple commands that were left
//! uncertain: `cd x && make lint` proposes a rule for `make lint`, not for the whole line.

use crate::call::ToolCall;
use crate::decide;
use crate::decision::Verdict;
use crate::ledger::audit::Brief;
use crate::ledger::stats::Record;
use crate::local::context::Context;
use crate::report::suggest_rows::{Answer, Row, learns_from, row};
use crate::rules::{RuleFile, Rules};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// Which file a proposed rule goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `safe_commands.txt`: the evaluator allowed it.
    Safe,
    /// `hard_block_commands.txt`: the evaluator mostly blocked it.
    Block,
}

impl Kind {
    /// The rule file it is appended to.
    pub fn file(self) -> RuleFile {
        match self {
            Kind::Safe => RuleFile::Safe,
            Kind::Block => RuleFile::HardBlock,
        }
    }
}

/// How often a command came up, and what was answered.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Evidence {
    /// Calls that contained it.
    pub calls: usize,
    /// In how many sessions.
    pub sessions: usize,
    /// The evaluator allowed the call.
    pub api_allow: usize,
    /// The evaluator blocked it.
    pub api_block: usize,
    /// The evaluator escalated it to the person.
    pub api_escalate: usize,
    /// Tier 2 failed and the fail path answered.
    pub api_failed: usize,
    /// Asked without an evaluator answer (no API key, or on_uncertain = ask).
    pub asked: usize,
    /// Deferred to the agent's own prompt (default and auto mode without Tier 2): what the
    /// person answered there is not seen.
    pub deferred: usize,
    /// Up to three of the evaluator's reasons.
    pub evaluator_said: Vec<String>,
    /// Up to three whole calls it was part of.
    pub examples: Vec<String>,
}

impl Evidence {
    /// Adds another command's evidence to this one (sessions: the larger count, since the two
    /// may share sessions).
    fn absorb(&mut self, e: Evidence) {
        self.calls += e.calls;
        self.sessions = self.sessions.max(e.sessions);
        self.api_allow += e.api_allow;
        self.api_block += e.api_block;
        self.api_escalate += e.api_escalate;
        self.api_failed += e.api_failed;
        self.asked += e.asked;
        self.deferred += e.deferred;
        keep_three(&mut self.evaluator_said, e.evaluator_said);
        keep_three(&mut self.examples, e.examples);
    }

    /// One line: how often and what was answered.
    pub fn line(&self) -> String {
        let mut parts = vec![format!(
            "{} call(s) in {} session(s)",
            self.calls, self.sessions
        )];
        let api = self.api_allow + self.api_block + self.api_escalate;
        if api > 0 {
            parts.push(format!(
                "evaluator: allow {}, block {}, escalate {}",
                self.api_allow, self.api_block, self.api_escalate
            ));
        }
        if self.api_failed > 0 {
            parts.push(format!("Tier 2 failed {}", self.api_failed));
        }
        if self.asked > 0 {
            parts.push(format!("asked the person {}", self.asked));
        }
        if self.deferred > 0 {
            parts.push(format!("left to the agent's prompt {}", self.deferred));
        }
        parts.join("; ")
    }
}

/// One proposed rule.
#[derive(Clone, Debug, Serialize)]
pub struct Suggestion {
    /// Its number for `--apply`.
    pub number: usize,
    /// Safe or block.
    pub kind: Kind,
    /// The regex line to append.
    pub pattern: String,
    /// The simple command(s) it covers, as the rules see them.
    pub commands: Vec<String>,
    /// Why.
    pub evidence: Evidence,
}

/// The simple commands of `command` (run in `cwd`) that today's rules leave uncertain for want
/// of a safe rule; None when the rules settle it (or sentinel has no opinion on it).
fn left_open(
    command: &str,
    cwd: &str,
    rules: &Rules,
    home: Option<&Path>,
    sentinel_home: &Path,
) -> Option<BTreeSet<String>> {
    let call = ToolCall::Shell {
        command: command.to_string(),
    };
    let ctx = Context::lexical(Path::new(cwd), home, sentinel_home);
    let now = decide::decide(&call, rules, &ctx)?;
    if now.verdict != Verdict::Uncertain {
        return None; // today's rules settle it
    }
    let open = now
        .commands
        .iter()
        .filter(|c| c.verdict == Verdict::Uncertain && c.reason.contains("no safe rule matches"))
        .map(|c| c.text.clone())
        .collect();
    Some(open)
}

/// The commands that reached Tier 2 or `ask` most often under `rules`, as proposed rules, most
/// frequent first. `audit` holds the audit records (for the whole command and the evaluator's
/// reasons); records of `sentinel check` and of the person are not evidence of agent traffic.
pub fn suggest(
    records: &[Record],
    audit: &[Brief],
    rules: &Rules,
    home: Option<&Path>,
    sentinel_home: &Path,
    limit: usize,
) -> Vec<Suggestion> {
    let by_key: HashMap<(u64, &str), &Brief> = audit
        .iter()
        .filter_map(|v| Some(((v.ts_ms?, v.session.as_deref()?), v)))
        .collect();
    let rows: Vec<Row> = records
        .iter()
        .filter(|r| learns_from(r))
        .filter_map(|r| row(r, by_key.get(&(r.ts_ms, r.session.as_str())).copied()))
        .collect();
    from_rows(&rows, rules, home, sentinel_home, limit)
}

/// The proposed rules from the calls that reached Tier 2 or the person, in journal order (the
/// first three examples and reasons met are kept), judged under today's `rules`.
pub fn from_rows(
    rows: &[Row],
    rules: &Rules,
    home: Option<&Path>,
    sentinel_home: &Path,
    limit: usize,
) -> Vec<Suggestion> {
    let mut groups: BTreeMap<String, (Evidence, BTreeSet<String>)> = BTreeMap::new();
    let mut judged: HashMap<(&str, &str), Option<BTreeSet<String>>> = HashMap::new();
    for r in rows {
        let (command, cwd) = (r.command.as_str(), r.cwd.as_str());
        // The same command in the same folder is judged once: a journal repeats its commands,
        // and judging each again was most of a report's time.
        let open = judged
            .entry((command, cwd))
            .or_insert_with(|| left_open(command, cwd, rules, home, sentinel_home));
        let Some(open) = open else {
            continue;
        };
        for text in open.iter().cloned() {
            let (ev, sessions) = groups.entry(text).or_default();
            ev.calls += 1;
            sessions.insert(r.session.clone());
            match r.answer {
                Answer::ApiAllow => ev.api_allow += 1,
                Answer::ApiBlock => ev.api_block += 1,
                Answer::ApiEscalate => ev.api_escalate += 1,
                Answer::ApiFailed => ev.api_failed += 1,
                Answer::Deferred => ev.deferred += 1,
                Answer::Asked => ev.asked += 1,
            }
            if let Some(said) = r.reason.as_deref().map(evaluator_reason) {
                keep_three(&mut ev.evaluator_said, [said]);
            }
            keep_three(&mut ev.examples, [command.to_string()]);
        }
    }
    let mut out: Vec<Suggestion> = Vec::new();
    // Commands sharing a program and subcommand, each allowed, become one rule over both.
    let mut families: BTreeMap<(String, String), Vec<(String, Evidence)>> = BTreeMap::new();
    for (text, (mut ev, sessions)) in groups {
        ev.sessions = sessions.len();
        let kind = if ev.api_block > 0 && ev.api_block >= ev.api_allow {
            Kind::Block
        } else {
            Kind::Safe
        };
        // Without the evaluator's allow, the person's answer was never seen: one sighting is
        // no evidence that it is safe (they may have said no); a command that came back is.
        if kind == Kind::Safe && ev.api_allow == 0 && ev.calls < MIN_UNSEEN_CALLS {
            continue;
        }
        match (kind, family(&text)) {
            (Kind::Safe, Some(f)) => families.entry(f).or_default().push((text, ev)),
            _ => out.push(Suggestion {
                number: 0,
                kind,
                pattern: exact(&text, kind),
                commands: vec![text],
                evidence: ev,
            }),
        }
    }
    for ((program, sub), members) in families {
        if members.len() == 1 {
            let (text, ev) = members.into_iter().next().unwrap_or_default();
            out.push(Suggestion {
                number: 0,
                kind: Kind::Safe,
                pattern: exact(&text, Kind::Safe),
                commands: vec![text],
                evidence: ev,
            });
            continue;
        }
        let mut ev = Evidence::default();
        let mut commands = Vec::new();
        for (text, e) in members {
            commands.push(text);
            ev.absorb(e);
        }
        out.push(Suggestion {
            number: 0,
            kind: Kind::Safe,
            pattern: format!("^{} {}( \\S+)*$", escape(&program), escape(&sub)),
            commands,
            evidence: ev,
        });
    }
    out.sort_by(|a, b| {
        b.evidence
            .calls
            .cmp(&a.evidence.calls)
            .then_with(|| a.pattern.cmp(&b.pattern))
    });
    out.truncate(limit);
    for (i, s) in out.iter_mut().enumerate() {
        s.number = i + 1;
    }
    out
}

/// How often a command asked or deferred, and never allowed by the evaluator, must come up
/// before a safe rule is proposed for it.
const MIN_UNSEEN_CALLS: usize = 2;

/// Adds the new items to a list of at most three distinct ones.
fn keep_three(list: &mut Vec<String>, items: impl IntoIterator<Item = String>) {
    for item in items {
        if list.len() < 3 && !list.contains(&item) {
            list.push(item);
        }
    }
}

/// `git log --oneline` → ("git", "log"): a program and a subcommand-like second word.
fn family(text: &str) -> Option<(String, String)> {
    let mut words = text.split(' ');
    let program = words.next()?;
    let sub = words.next()?;
    let word_like = |w: &str| {
        !w.is_empty()
            && w.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    };
    (word_like(program) && word_like(sub)).then(|| (program.to_string(), sub.to_string()))
}

/// A rule for exactly this command: whole for a safe rule, the command and its arguments as
/// written (more may follow) for a block rule.
fn exact(text: &str, kind: Kind) -> String {
    match kind {
        Kind::Safe => format!("^{}$", escape(text)),
        Kind::Block => format!("^{}( |$)", escape(text)),
    }
}

/// Escapes the regex metacharacters of a literal; `#` too, so the rule line's comment cannot start
/// inside the pattern. (regex::escape also escapes `-` and `&`, which reads badly in a rule file.)
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The evaluator's own words out of an audit reason.
fn evaluator_reason(reason: &str) -> String {
    let r = reason
        .split_once(": ")
        .map(|(_, rest)| rest)
        .unwrap_or(reason);
    let r = r.split_once(": ").map(|(_, rest)| rest).unwrap_or(r);
    let r = r
        .rsplit_once(" (local: ")
        .map(|(head, _)| head)
        .unwrap_or(r);
    crate::text::excerpt_to(r, 160)
}

/// The lines `--apply` appends for one suggestion: a comment with the date and evidence, then
/// the rule.
pub fn rule_lines(s: &Suggestion, date: &str) -> String {
    let said = s
        .evidence
        .evaluator_said
        .first()
        .map(|w| format!("; evaluator: \"{w}\""))
        .unwrap_or_default();
    let examples = s
        .evidence
        .examples
        .first()
        .map(|e| {
            format!(
                "; e.g. {}",
                crate::text::excerpt_to(&e.replace('\n', " "), 80)
            )
        })
        .unwrap_or_default();
    let verb = match s.kind {
        Kind::Safe => "allowed",
        Kind::Block => "blocked",
    };
    let why = match s.evidence.evaluator_said.first() {
        Some(w) => format!("the evaluator {verb} it: {w}"),
        None if s.evidence.api_allow + s.evidence.api_block == 0 => {
            "it kept coming back to the person".to_string()
        }
        None => format!("learned from Tier 2: {verb}"),
    };
    format!(
        "# added by sentinel suggest on {date}: {}{said}{examples}\n{}   # {why}\n",
        s.evidence.line().replace('#', "no."),
        s.pattern
    )
}

/// What `--apply` wrote.
#[derive(Debug)]
pub struct Applied {
    /// The files written, with the number of rules appended to each.
    pub files: Vec<(std::path::PathBuf, usize)>,
}

/// Appends the chosen suggestions to the rule files in `dir` (SENTINEL_HOME). A file that is
/// absent starts from the bundled default, so appending never drops the defaults. Nothing is
/// written unless every rule file lints and each new rule changes the decision of the commands
/// it was proposed for as proposed.
pub fn apply(
    dir: &Path,
    chosen: &[&Suggestion],
    date: &str,
    home: Option<&Path>,
) -> Result<Applied, String> {
    let mut texts: Vec<(RuleFile, String, String, usize)> = Vec::new();
    for file in RuleFile::ALL {
        let path = dir.join(file.name());
        let (origin, text) = match std::fs::read_to_string(&path) {
            Ok(t) => (path.display().to_string(), t),
            Err(e) if crate::config::is_absent(&e) => {
                ("bundled".to_string(), file.bundled().to_string())
            }
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        texts.push((file, origin, text, 0));
    }
    for s in chosen {
        let slot = texts
            .iter_mut()
            .find(|t| t.0 == s.kind.file())
            .ok_or("no such rule file")?;
        if !slot.2.ends_with('\n') && !slot.2.is_empty() {
            slot.2.push('\n');
        }
        slot.2.push_str(&rule_lines(s, date));
        slot.3 += 1;
        if slot.1 == "bundled" {
            slot.1 = dir.join(s.kind.file().name()).display().to_string();
        }
    }
    let rules = Rules::from_sources(
        texts
            .iter()
            .map(|(f, o, t, _)| (*f, o.as_str(), t.as_str())),
        home,
    );
    let errors = rules.lint();
    if !errors.is_empty() {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(format!(
            "nothing written: `rules lint` fails:\n{}",
            list.join("\n")
        ));
    }
    for s in chosen {
        for c in &s.commands {
            let changed = match s.kind {
                Kind::Safe => rules.safe().iter().any(|r| {
                    !r.negated
                        && r.rule.pattern == s.pattern
                        && r.test(c) == crate::rules::RuleMatch::Yes
                }),
                Kind::Block => rules.hard_block().iter().any(|r| {
                    r.rule.pattern == s.pattern && r.test(c) == crate::rules::RuleMatch::Yes
                }),
            };
            if !changed {
                return Err(format!(
                    "nothing written: suggestion {} (`{}`) does not match `{c}`",
                    s.number, s.pattern
                ));
            }
        }
    }
    let mut files = Vec::new();
    for (file, _, text, added) in texts.iter().filter(|t| t.3 > 0) {
        let path = dir.join(file.name());
        // Written whole (a rename, so a link there is replaced, never written through).
        crate::config::kept::write_whole(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        files.push((path, *added));
    }
    Ok(Applied { files })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Tier;

    fn record(ts: u64, session: &str, subject: &str, tier: Tier, verdict: &str) -> Record {
        Record {
            ts_ms: ts,
            session: session.into(),
            agent: "claude".into(),
            tool: "Bash".into(),
            subject: subject.into(),
            tier,
            verdict: verdict.into(),
            local: Verdict::Uncertain,
            rule: None,
            latency_us: 1,
            api_ms: None,
            tokens: None,
            cache_tokens: None,
            shadow: false,
            scope: None,
            seq: None,
            rebuilt: false,
            unkept: Vec::new(),
            spared: false,
        }
    }

    /// Without Tier 2 every uncertain call is deferred to the agent's prompt: those are learned
    /// from, but a command asked or deferred once, whose answer was never seen, proposes nothing.
    #[test]
    fn deferred_calls_teach_but_one_unseen_answer_is_no_evidence() {
        let rules = Rules::bundled(None);
        let records = vec![
            record(1, "a", "mytool lint src", Tier::Local, "defer"),
            record(2, "b", "mytool lint src", Tier::Local, "defer"),
            record(3, "a", "othertool run", Tier::Local, "ask"),
            record(4, "a", "thirdtool go", Tier::Local, "defer"),
            record(5, "a", "cd x && fourthtool check", Tier::Local, "defer"),
            record(6, "a", "fourthtool check", Tier::Local, "ask"),
        ];
        let s = suggest(&records, &[], &rules, None, Path::new("/h"), 10);
        let patterns: Vec<&str> = s.iter().map(|x| x.pattern.as_str()).collect();
        assert_eq!(
            patterns,
            vec!["^fourthtool check$", "^mytool lint src$"],
            "{s:#?}"
        );
        let lint = &s[1];
        assert_eq!((lint.evidence.deferred, lint.evidence.sessions), (2, 2));
        assert!(
            lint.evidence
                .line()
                .contains("left to the agent's prompt 2"),
            "{}",
            lint.evidence.line()
        );
        assert!(rule_lines(lint, "2026-01-01").contains("kept coming back"));
    }

    #[test]
    fn frequent_tier2_commands_become_rules_with_their_evidence() {
        let rules = Rules::bundled(None);
        let records = vec![
            record(1, "a", "cd sub && frobnicate --check", Tier::Api, "allow"),
            record(2, "a", "frobnicate --check", Tier::Api, "allow"),
            record(3, "b", "frobnicate --check", Tier::Local, "ask"),
            record(4, "b", "deploy-prod now", Tier::Api, "deny"),
            record(5, "b", "ls -la", Tier::Local, "allow"),
            record(6, "b", "mytool build x", Tier::Api, "allow"),
            record(7, "b", "mytool build y", Tier::Api, "allow"),
        ];
        let audit: Vec<Brief> = vec![
            serde_json::from_value(serde_json::json!({"ts_ms": 2, "session": "a", "subject": "frobnicate --check", "cwd": "/p", "reason": "sentinel[api]: allowed: a read-only lint check (local: sentinel[local]: uncertain: no safe rule)", "tier": "api"}))
                .unwrap(),
        ];
        let s = suggest(&records, &audit, &rules, None, Path::new("/h"), 10);
        assert_eq!(s.len(), 3, "{s:#?}");
        assert_eq!(s[0].pattern, "^frobnicate --check$");
        assert_eq!(s[0].kind, Kind::Safe);
        assert_eq!(s[0].evidence.calls, 3);
        assert_eq!(s[0].evidence.api_allow, 2);
        assert_eq!(s[0].evidence.asked, 1);
        assert_eq!(s[0].evidence.sessions, 2);
        assert_eq!(s[0].evidence.evaluator_said, vec!["a read-only lint check"]);
        let family = s.iter().find(|x| x.pattern.starts_with("^mytool")).unwrap();
        assert_eq!(family.pattern, "^mytool build( \\S+)*$");
        assert_eq!(family.evidence.calls, 2);
        let block = s.iter().find(|x| x.kind == Kind::Block).unwrap();
        assert_eq!(block.pattern, "^deploy-prod now( |$)");
        assert_eq!(
            s.iter().map(|x| x.number).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
    }
}
