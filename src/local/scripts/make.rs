//! What `make TARGET` runs: the recipes of the targets named (the first target when none is),
//! and of their prerequisites, from the makefile's text. Variables the makefile sets plainly
//! (`X = v`, `X := v`, `X ?= v`) are expanded, `$@ $< $^` and `$(MAKE)` too; anything else
//! stays `$(…)`, which Tier 1 reads as a value not known before it runs.

use std::collections::HashMap;

/// The makefile names GNU make tries, in order.
pub const NAMES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

/// One recipe line: its line number in the makefile and its command.
#[derive(Debug, PartialEq, Eq)]
pub struct RecipeLine {
    pub line: usize,
    pub command: String,
}

struct Rule {
    prereqs: Vec<String>,
    recipe: Vec<(usize, String)>,
}

/// The recipe lines `make targets` runs, in order, each once; at most `max` lines.
pub fn recipes(text: &str, targets: &[&str], max: usize) -> Vec<RecipeLine> {
    let mut vars: HashMap<String, String> = HashMap::new();
    let mut rules: HashMap<String, Rule> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let n = i + 1;
        // Joined with its continuation lines.
        let mut line = lines[i].to_string();
        while line.ends_with('\\') && i + 1 < lines.len() {
            line.pop();
            i += 1;
            line.push(' ');
            line.push_str(lines[i].trim_start());
        }
        i += 1;
        if let Some(cmd) = line.strip_prefix('\t') {
            for t in &current {
                if let Some(r) = rules.get_mut(t) {
                    r.recipe.push((n, cmd.to_string()));
                }
            }
            continue;
        }
        let code = line.split('#').next().unwrap_or("");
        if code.trim().is_empty() {
            continue;
        }
        if let Some((name, value)) = assignment(code) {
            vars.insert(name, value);
            current.clear();
            continue;
        }
        let Some((head, tail)) = code.split_once(':') else {
            current.clear();
            continue;
        };
        let (deps, inline) = match tail.trim_start_matches(':').split_once(';') {
            Some((d, r)) => (d, Some(r)),
            None => (tail.trim_start_matches(':'), None),
        };
        current = head.split_whitespace().map(str::to_string).collect();
        for t in &current {
            let r = rules.entry(t.clone()).or_insert_with(|| Rule {
                prereqs: Vec::new(),
                recipe: Vec::new(),
            });
            r.prereqs
                .extend(deps.split_whitespace().map(|d| expand(d, &vars, t, "")));
            if let Some(cmd) = inline {
                r.recipe.push((n, cmd.to_string()));
            }
            if !t.starts_with('.') && !t.contains('%') && !order.contains(t) {
                order.push(t.clone());
            }
        }
    }
    let roots: Vec<String> = if targets.is_empty() {
        order.first().cloned().into_iter().collect()
    } else {
        targets.iter().map(|t| t.to_string()).collect()
    };
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for t in roots {
        visit(&t, &rules, &vars, &mut seen, &mut out, 0);
    }
    out.truncate(max);
    out
}

/// Prerequisites first, as make runs them; each target once; a chain deeper than 64 is cut.
fn visit(
    t: &str,
    rules: &HashMap<String, Rule>,
    vars: &HashMap<String, String>,
    seen: &mut Vec<String>,
    out: &mut Vec<RecipeLine>,
    depth: usize,
) {
    if depth > 64 || seen.iter().any(|s| s == t) {
        return;
    }
    seen.push(t.to_string());
    let Some(r) = rules.get(t) else { return };
    for d in &r.prereqs {
        visit(d, rules, vars, seen, out, depth + 1);
    }
    let first = r.prereqs.first().map(String::as_str).unwrap_or("");
    out.extend(r.recipe.iter().map(|(line, cmd)| RecipeLine {
        line: *line,
        command: expand(
            cmd.trim_start_matches(['@', '-', '+', ' ', '\t']),
            vars,
            t,
            first,
        ),
    }));
}

/// `NAME = value` (`:=`, `::=`, `?=`, `+=`, `export NAME = value`).
fn assignment(line: &str) -> Option<(String, String)> {
    let line = line.strip_prefix("export ").unwrap_or(line);
    let eq = line.find('=')?;
    let (left, value) = (&line[..eq], &line[eq + 1..]);
    let name = left.trim_end_matches([':', '?', '+', '!']).trim();
    if name.is_empty()
        || name.contains(char::is_whitespace)
        || left.contains(':') && !left.ends_with(':')
    {
        return None;
    }
    Some((name.to_string(), value.trim().to_string()))
}

/// Expands the makefile's own variables in `text`.
fn expand(text: &str, vars: &HashMap<String, String>, target: &str, first: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let mut budget = 64;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (value, used) = match after.chars().next() {
            Some('$') => ("$".to_string(), 1),
            Some('@') => (target.to_string(), 1),
            Some('<') | Some('^') => (first.to_string(), 1),
            Some(open @ ('(' | '{')) => {
                let close = if open == '(' { ')' } else { '}' };
                match after.find(close) {
                    Some(end) => {
                        let name = &after[1..end];
                        let v = match name {
                            "MAKE" => Some("make".to_string()),
                            _ => vars.get(name).cloned(),
                        };
                        match v {
                            Some(v) if budget > 0 => {
                                budget -= 1;
                                (expand(&v, vars, target, first), end + 1)
                            }
                            _ => (format!("$({name})"), end + 1),
                        }
                    }
                    None => ("$(".to_string(), 1),
                }
            }
            _ => ("$".to_string(), 0),
        };
        out.push_str(&value);
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MK: &str = "CC := cc\nOUT = build\n\nall: build\n\nbuild: src/a.c\n\t@$(CC) -o $(OUT)/a $<\n\ntest: build\n\t./$(OUT)/a --test\n\nclean:\n\trm -rf $(OUT) \\\n\t  more\n.PHONY: all test clean\n";

    #[test]
    fn the_targets_recipes_with_their_prerequisites_first() {
        let r = recipes(MK, &["test"], 100);
        let cmds: Vec<&str> = r.iter().map(|l| l.command.as_str()).collect();
        assert_eq!(cmds, ["cc -o build/a src/a.c", "./build/a --test"]);
        assert_eq!(r[0].line, 7);
        let first = recipes(MK, &[], 100);
        assert_eq!(first.len(), 1, "the first target, `all`, builds");
        let clean = recipes(MK, &["clean"], 100);
        let words: Vec<&str> = clean[0].command.split_whitespace().collect();
        assert_eq!(words, ["rm", "-rf", "build", "more"]);
    }

    #[test]
    fn unknown_variables_stay_unknown_and_loops_end() {
        let r = recipes("a: b\n\techo $(X)\nb: a\n\ttrue\n", &["a"], 100);
        assert!(r.iter().any(|l| l.command == "echo $(X)"), "{r:?}");
        assert!(recipes("", &["x"], 10).is_empty());
    }
}
