//! The policy over effects, one effect at a time.

use super::*;

#[test]
fn local_hosts() {
    for h in [
        "localhost",
        "localhost:3000",
        "http://localhost:3000/api",
        "http://127.0.0.1:8080",
        "https://[::1]:443/x",
        "http://user@localhost/",
        "api.localhost",
    ] {
        assert!(is_local_host(h), "{h}");
    }
    for h in [
        "http://evil.example#@localhost/",
        "http://evil.example?@localhost/",
        "gopher://127.0.0.1:6379/_FLUSHALL",
        "http://localhost.evil.com",
        "https://example.com",
        "http://127.0.0.1.nip.io",
        "http://evil.com/localhost",
        "http://localhost@evil.com",
        "dict.localhost:6379/flushall",
        "ftp.localhost/x",
        "file:///etc/passwd",
        "scp://localhost/x",
    ] {
        assert!(!is_local_host(h), "{h}");
    }
}

#[test]
fn guard_files_in_any_ascii_case() {
    let ctx = Context::lexical(
        Path::new("/w/p"),
        Some(Path::new("/w/h")),
        Path::new("/w/h/.agentos"),
    );
    let guard = |p: &str| guard_file(Path::new(p), &ctx);
    for p in [
        "/w/h/.agentos/rules/x.txt",
        "/w/p/.sentinel/rules.txt",
        "/w/p/.SENTINEL/rules.txt",
        "/w/h/.claude/settings.json",
        "/w/h/.Claude/Settings.JSON",
        "/w/h/.claude.json",
        "/w/p/.codex/config.toml",
        "/w/p/.github/hooks/guard.json",
        "/w/p/.Copilot/HOOKS/x.json",
    ] {
        assert!(guard(p).is_some(), "{p}");
    }
    for p in [
        "/w/p/src/settings.json",
        "/w/p/.claude/agents/x.md",
        "/w/p/.github/workflows/ci.yml",
        "/w/p/hooks/x.json",
        "/w/p/sentinel/x",
    ] {
        assert!(guard(p).is_none(), "{p}");
    }
}
