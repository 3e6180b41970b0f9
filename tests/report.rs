//! `sentinel report`: the page is written, holds nothing to fetch, escapes what the agent
//! proposed, and shows the numbers `sentinel stats --json` counts over the same decisions.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn run(home: &Path, cwd: &Path, args: &[&str], stdin: &str) -> Output {
    let mut cmd = common::sentinel(&home.join(".agentos"));
    cmd.args(args).env("HOME", home).current_dir(cwd);
    common::feed(cmd, stdin.as_bytes())
}

/// A week of the agent's calls: allowed, denied (one with markup in it), deferred.
fn seeded() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("report")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let home = dir.path().join("home");
    let project = home.join("proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let calls: &[(&str, usize)] = &[
        ("git status", 3),
        ("cargo test", 2),
        ("git push --force", 4),
        ("echo '<script>alert(1)</script>' > /etc/motd", 1),
        ("npm run deploy", 5),
    ];
    for (command, times) in calls {
        for _ in 0..*times {
            let event = serde_json::json!({
                "hook_event_name": "PreToolUse", "session_id": "s1", "permission_mode": "default",
                "cwd": project, "tool_name": "Bash", "tool_input": {"command": command},
            });
            let out = run(&home, &project, &["hook"], &event.to_string());
            assert_eq!(out.status.code(), Some(0));
        }
    }
    (dir, home, project)
}

#[test]
fn the_page_is_self_contained_escaped_and_shows_the_stats_numbers() {
    let (dir, home, project) = seeded();
    let page = dir.path().join("report.html");
    let out = run(
        &home,
        &project,
        &["report", "--out", page.to_str().unwrap()],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("15 decisions"));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));

    // Nothing to fetch: no script, stylesheet link, import, or address in src/href/url().
    let lower = html.to_lowercase();
    for banned in [
        "<script", "<link", "@import", "<img", "<iframe", "src=", "href=", "url(",
    ] {
        assert!(!lower.contains(banned), "{banned} in the page");
    }
    // The agent's text is shown, escaped.
    assert!(html.contains("echo &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"));

    // The numbers are stats' numbers.
    let stats: Value =
        serde_json::from_slice(&run(&home, &project, &["stats", "--all", "--json"], "").stdout)
            .unwrap();
    let report: Value =
        serde_json::from_slice(&run(&home, &project, &["report", "--json"], "").stdout).unwrap();
    assert_eq!(report["summary"], stats["summary"]);
    let s = &stats["summary"];
    assert_eq!(s["checks"], 15);
    let card = |id: &str, value: String| {
        let want = format!("id=\"{id}\"><b>{value}</b>");
        assert!(html.contains(&want), "{want}");
    };
    card("checks", s["checks"].to_string());
    card(
        "denied",
        (s["local_block"].as_u64().unwrap() + s["api_block"].as_u64().unwrap()).to_string(),
    );
    card("prompts-avoided", report["prompts_avoided"].to_string());
    assert_eq!(report["prompts_avoided"], 5, "git status ×3, cargo test ×2");
    // The top denied, with the rule that denied it; the deferred one counted.
    assert_eq!(report["top_denied"][0]["subject"], "git push --force");
    assert_eq!(report["top_denied"][0]["count"], 4);
    let rule = report["top_denied"][0]["rule"].as_str().unwrap();
    assert!(rule.starts_with("hard_block_commands.txt:"), "{rule}");
    assert!(html.contains(&format!("<code>{rule}</code>")));
    assert_eq!(report["top_deferred"][0]["subject"], "npm run deploy");
    assert_eq!(report["top_deferred"][0]["count"], 5);
    // One bar for the day, its total as the tooltip.
    let day = report["days"][0]["date"].as_str().unwrap();
    assert!(html.contains(&format!("<title>{day}: 15</title>")), "{day}");
}

#[test]
fn an_empty_home_gives_an_empty_page_not_an_error() {
    let dir = tempfile::Builder::new()
        .prefix("report-empty")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let page = dir.path().join("r.html");
    let out = run(
        dir.path(),
        dir.path(),
        &["report", "--since", "all", "--out", page.to_str().unwrap()],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("No decisions recorded in this time."));
}

/// In a real browser, when one is installed (`apt-get install chromium`): the page parses into
/// the same numbers and renders to a screenshot. Without one, said and skipped.
#[test]
fn a_headless_browser_renders_it() {
    let Some(browser) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    else {
        eprintln!("no chromium on PATH: the browser check is skipped");
        return;
    };
    let (dir, home, project) = seeded();
    let page = dir.path().join("report.html");
    run(
        &home,
        &project,
        &["report", "--out", page.to_str().unwrap()],
        "",
    );
    let url = format!("file://{}", page.display());
    let browse = |extra: &[&str]| {
        std::process::Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
            ])
            .arg(format!(
                "--user-data-dir={}",
                dir.path().join("profile").display()
            ))
            .args(extra)
            .arg(&url)
            .env("HOME", dir.path())
            .output()
            .unwrap()
    };
    let dom = browse(&["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains("id=\"checks\"><b>15</b>"), "{dom}");
    assert!(dom.contains("<rect"), "the chart is drawn");
    let shot = dir.path().join("report.png");
    browse(&[
        &format!("--screenshot={}", shot.display()),
        "--window-size=1000,1000",
    ]);
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}
