//! Build properties that change what a build runs (`rules/build_properties.txt`): `mvn exec:exec
//! -Dexec.executable=sh`, `-DargLine=-javaagent:…`. The options that take them are marked
//! `property` in the specs; any other property is a setting and changes nothing judged.

use crate::local::spec::name_rules::{self, NameRule};
use std::sync::OnceLock;

const FILE: &str = "build_properties.txt";
const TEXT: &str = include_str!("../../../rules/build_properties.txt");

fn rules() -> &'static Result<Vec<NameRule>, String> {
    static RULES: OnceLock<Result<Vec<NameRule>, String>> = OnceLock::new();
    RULES.get_or_init(|| name_rules::parse(FILE, TEXT, &["key", "value-contains"]))
}

/// What the property `key=value` (or a bare `key`) does, when it is one of the file's: the rule
/// at the highest verdict, as (verdict, reason, rule). A damaged bundled file: every property is
/// uncertain (its error as the reason).
pub fn judge(
    property: &str,
) -> Option<(
    crate::decision::Verdict,
    String,
    Option<crate::decision::RuleRef>,
)> {
    let rules = match rules() {
        Ok(rules) => rules,
        Err(e) => return Some((crate::decision::Verdict::Uncertain, e.clone(), None)),
    };
    let lower = property.to_ascii_lowercase();
    // MSBuild takes several properties in one switch (`/p:A=1;PostBuildEvent=x`, or `,`): each
    // piece is judged as well as the whole, so a JVM option's `;` never hides its value.
    let pieces: Vec<(&str, &str)> = std::iter::once(lower.as_str())
        .chain(lower.split([';', ',']))
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    name_rules::worst(rules, |r| {
        pieces.iter().any(|(key, value)| match r.how {
            "key" => name_rules::glob_matches(&r.what, key.trim()),
            _ => value.contains(&r.what),
        })
    })
    .map(|r| (r.verdict, r.reason().to_string(), Some(r.rule.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Verdict;

    fn verdict(p: &str) -> Option<Verdict> {
        judge(p).map(|(v, _, _)| v)
    }

    #[test]
    fn each_of_several_msbuild_properties_is_judged() {
        assert_eq!(
            verdict("Configuration=Debug;PostBuildEvent=calc"),
            Some(Verdict::Uncertain)
        );
        assert_eq!(
            verdict("Configuration=Debug,CscToolExe=x.exe"),
            Some(Verdict::Uncertain)
        );
        assert_eq!(verdict("Configuration=Debug;Platform=x64"), None);
        // A JVM option after a `;` in a value is still found in the whole value.
        assert_eq!(
            verdict("argLine=-Xmx1g;-javaagent:/tmp/a.jar"),
            Some(Verdict::Uncertain)
        );
    }

    #[test]
    fn the_bundled_file_parses() {
        assert!(rules().is_ok(), "{:?}", rules().as_ref().err());
    }

    #[test]
    fn programs_agents_and_catches_are_found_settings_are_not() {
        for p in [
            "exec.executable=sh",
            "EXEC.ARGS=-c id",
            "argLine=-javaagent:/tmp/a.jar",
            "spring-boot.run.jvmArguments=-agentlib:jdwp=transport=dt_socket",
            "foo=-Xmx1g -agentpath:/x.so",
            "docker.executable=/tmp/x",
            "flyway.cleanDisabled=false",
            "maven.repo.local=/tmp/repo",
        ] {
            assert_eq!(verdict(p), Some(Verdict::Uncertain), "{p}");
        }
        for p in [
            "skipTests",
            "maven.test.skip=true",
            "revision=1.2.3",
            "test=FooTest#bar",
            "file.encoding=UTF-8",
            "spotless.check.skip=true",
            "org.gradle.jvmargs=-Xmx4g",
            "argLine=-Xmx1g -ea",
        ] {
            assert_eq!(verdict(p), None, "{p}");
        }
    }
}
