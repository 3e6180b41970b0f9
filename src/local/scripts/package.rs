//! What a package manager runs for `npm test`, `npm run NAME`, `yarn NAME`, `pnpm NAME`,
//! `bun run NAME`: the `package.json` scripts of that name, with their `pre` and `post` scripts.

use crate::shell::SimpleCommand;

/// The script name a package-manager command runs, when it runs one of the project's scripts.
pub fn script_name(cmd: &SimpleCommand) -> Option<String> {
    let name = cmd.name();
    if !matches!(name, "npm" | "yarn" | "pnpm" | "bun") {
        return None;
    }
    // The first word that is not an option, and the one after it.
    let mut words = cmd
        .args()
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .map(|w| w.known_value());
    let first = words.next()??;
    let script = match (name, first) {
        ("npm", "test" | "t" | "tst") => "test",
        ("npm", "start" | "stop" | "restart") => first,
        ("npm" | "yarn" | "pnpm" | "bun", "run" | "run-script" | "rum" | "urn") => {
            words.next()??
        }
        ("pnpm" | "yarn", "test" | "start") => first,
        // `yarn NAME`, `pnpm NAME`: the script of that name when there is one.
        ("yarn" | "pnpm", other) => other,
        _ => return None,
    };
    Some(script.to_string())
}

/// The script texts `name` runs in this manifest (`preNAME`, `NAME`, `postNAME`), each with its
/// key; None when the manifest cannot be read as JSON.
pub fn scripts(manifest: &str, name: &str) -> Option<Vec<(String, String)>> {
    let v: serde_json::Value = serde_json::from_str(manifest).ok()?;
    let scripts = v.get("scripts").and_then(|s| s.as_object());
    let mut out = Vec::new();
    for key in [
        format!("pre{name}"),
        name.to_string(),
        format!("post{name}"),
    ] {
        if let Some(text) = scripts.and_then(|s| s.get(&key)).and_then(|t| t.as_str()) {
            out.push((key, text.to_string()));
        }
    }
    Some(out)
}

/// The line of `"KEY":` in the manifest, for the reason.
pub fn line_of(manifest: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    manifest
        .lines()
        .position(|l| l.trim_start().starts_with(&quoted))
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(text: &str) -> SimpleCommand {
        crate::shell::analyse(text).commands.remove(0)
    }

    #[test]
    fn which_script_runs() {
        for (c, want) in [
            ("npm test", Some("test")),
            ("npm run build", Some("build")),
            ("npm run-script lint -- --fix", Some("lint")),
            ("yarn build", Some("build")),
            ("pnpm run dev", Some("dev")),
            ("bun run x", Some("x")),
            ("npm install", None),
            ("bun test", None),
            ("cargo test", None),
        ] {
            assert_eq!(script_name(&cmd(c)).as_deref(), want, "{c}");
        }
        let m = "{\n  \"scripts\": {\n    \"pretest\": \"tsc\",\n    \"test\": \"jest\"\n  }\n}";
        let s = scripts(m, "test").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(line_of(m, "test"), Some(4));
    }
}
