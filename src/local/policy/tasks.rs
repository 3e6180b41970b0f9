//! What a project task's name says it does (`rules/tasks.txt`): `npm run deploy` reaches past the
//! project, `mvn flyway:clean` wipes a database. The task's own code is read and fenced as the
//! project's; the name is judged here.

use crate::decision::{RuleRef, Verdict};
use crate::local::spec::name_rules::{self, NameRule};
use std::sync::OnceLock;

const FILE: &str = "tasks.txt";
const TEXT: &str = include_str!("../../../rules/tasks.txt");

fn rules() -> &'static Result<Vec<NameRule>, String> {
    static RULES: OnceLock<Result<Vec<NameRule>, String>> = OnceLock::new();
    RULES.get_or_init(|| name_rules::parse(FILE, TEXT, &["name", "contains", "word"]))
}

/// What the name `task` says: the first rule at the highest verdict that holds, as (verdict,
/// reason, rule); None when no rule holds. A damaged bundled file makes every task uncertain.
/// A `name` rule holds for every name the tool may resolve the task to (`resolved_names`).
pub fn judge(task: &str) -> Option<(Verdict, String, Option<RuleRef>)> {
    let rules = match rules() {
        Ok(rules) => rules,
        Err(e) => return Some((Verdict::Uncertain, e.clone(), None)),
    };
    let lower = task.to_ascii_lowercase();
    let words = words(task);
    let variant = builds_a_variant(&words);
    let names = resolved_names(task);
    name_rules::worst(rules, |r| match r.how {
        "name" => names
            .iter()
            .any(|name| name.eq_ignore_ascii_case(&r.what) || abbreviates(name, &r.written)),
        "contains" => !variant && lower.contains(&r.what),
        _ => words.contains(&r.what),
    })
    .map(|r| (r.verdict, r.reason().to_string(), Some(r.rule.clone())))
}

/// The names a build tool may run for the operand `task`: the operand itself; Gradle's task in
/// a project path (`:db:flywayClean`, `db:flywayClean` run `flywayClean`); a Maven plugin goal
/// named in full (`org.flywaydb:flyway-maven-plugin[:VERSION]:clean` is `flyway:clean`, the
/// prefix Maven gives `X-maven-plugin` and `maven-X-plugin`).
fn resolved_names(task: &str) -> Vec<String> {
    let mut names = vec![task.to_string()];
    let parts: Vec<&str> = task.split(':').collect();
    if let [.., last] = parts.as_slice()
        && parts.len() > 1
        && !last.is_empty()
    {
        names.push(last.to_string());
    }
    if parts.len() >= 3 {
        let artifact = parts[1];
        let prefix = artifact
            .strip_suffix("-maven-plugin")
            .or_else(|| artifact.strip_prefix("maven-")?.strip_suffix("-plugin"));
        if let Some(prefix) = prefix.filter(|p| !p.is_empty()) {
            names.push(format!("{prefix}:{}", parts[parts.len() - 1]));
        }
    }
    names
}

/// Whether `name` is a Gradle camel-case abbreviation of the rule name `rule` (as the file
/// writes it): as many camel-case words, each a prefix of the rule name's word (`fC`, `flyC`
/// for `flywayClean`; Gradle runs the one task such a name matches).
fn abbreviates(name: &str, rule: &str) -> bool {
    if !name.chars().any(|c| c.is_ascii_uppercase()) || rule.contains(':') {
        return false;
    }
    let (short, full) = (words(name), words(rule));
    short.len() == full.len()
        && short
            .iter()
            .zip(&full)
            .all(|(s, f)| f.starts_with(s.as_str()))
}

/// The name's words, lower case: split at non-alphanumerics and where a capital follows.
fn words(task: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    for c in task.chars() {
        if c.is_ascii_uppercase() && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        if c.is_ascii_alphanumeric() {
            cur.push(c.to_ascii_lowercase());
        } else if !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// A local build of a release or production variant (`assembleRelease`, `bundleRelease`,
/// `build:prod`): a build verb first, then only variant names; any other word (`buildAndDeploy`,
/// `build-push`) keeps the task's `contains` rules.
fn builds_a_variant(words: &[String]) -> bool {
    let Some((verb, rest)) = words.split_first() else {
        return false;
    };
    matches!(
        verb.as_str(),
        "assemble" | "bundle" | "build" | "compile" | "lint" | "test"
    ) && !rest.is_empty()
        && rest.iter().all(|w| {
            matches!(
                w.as_str(),
                "release" | "prod" | "production" | "debug" | "staging"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(task: &str) -> Option<Verdict> {
        judge(task).map(|(v, _, _)| v)
    }

    #[test]
    fn the_bundled_file_parses() {
        assert!(rules().is_ok(), "{:?}", rules().as_ref().err());
    }

    #[test]
    fn names_words_and_parts() {
        assert_eq!(verdict("flyway:clean"), Some(Verdict::Deny));
        assert_eq!(verdict("flywayClean"), Some(Verdict::Deny));
        assert_eq!(verdict("FlywayClean"), Some(Verdict::Deny));
        assert_eq!(verdict("liquibase:dropAll"), Some(Verdict::Deny));
        assert_eq!(verdict("exec:exec"), Some(Verdict::Uncertain));
        assert_eq!(verdict("deploy:staging"), Some(Verdict::Uncertain));
        assert_eq!(verdict("db:seed:replant"), Some(Verdict::Uncertain));
        assert_eq!(verdict("print-env"), Some(Verdict::Uncertain));
        assert_eq!(verdict("printEnv"), Some(Verdict::Uncertain));
        // Harmless neighbours.
        for task in [
            "test",
            "clean",
            "flyway:info",
            "flyway:migrate",
            "flywayInfo",
            "exec:java",
            "environment",
            "assembleRelease",
            "build:prod",
            "spring-boot:run",
            "compileJava",
        ] {
            assert_eq!(verdict(task), None, "{task}");
        }
        // The names the tool resolves: a Gradle project path, a Maven plugin named in full, a
        // Gradle abbreviation.
        for task in [
            ":db:flywayClean",
            "db:flywayClean",
            "org.flywaydb:flyway-maven-plugin:clean",
            "org.flywaydb:flyway-maven-plugin:10.0.0:clean",
            "org.liquibase:liquibase-maven-plugin:dropAll",
            "fC",
            "flyC",
            "lDA",
        ] {
            assert_eq!(verdict(task), Some(Verdict::Deny), "{task}");
        }
        assert_eq!(
            verdict("org.codehaus.mojo:exec-maven-plugin:3.1.0:exec"),
            Some(Verdict::Uncertain)
        );
        for task in [
            ":app:test",
            "org.flywaydb:flyway-maven-plugin:info",
            "org.apache.maven.plugins:maven-surefire-plugin:test",
            "fI",
            "cT",
            "compileTestJava",
        ] {
            assert_eq!(verdict(task), None, "{task}");
        }
        // A variant build with another word keeps its rules.
        assert_eq!(verdict("buildAndDeploy"), Some(Verdict::Uncertain));
    }
}
