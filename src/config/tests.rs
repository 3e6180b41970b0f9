use super::*;

fn load(text: Option<&str>, env: &[(&str, &str)]) -> Config {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_parts(
        Path::new("/h"),
        Source::Default,
        text.map(|t| Ok(t.to_string())),
        &move |name| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
    )
}

#[test]
fn an_api_url_or_model_that_cannot_work_is_an_error_naming_the_key() {
    let c = load(
        Some("[api]\nurl = \"api.anthropic.com\"\nmodel = \"claude haiku\"\n"),
        &[],
    );
    let errors: Vec<String> = c.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with("sentinel.toml:2: [api] url `api.anthropic.com` is not an http"),
        "{errors:?}"
    );
    assert!(
        errors[1].starts_with("sentinel.toml:3: [api] model `claude haiku` is not a model id"),
        "{errors:?}"
    );
    // A broken API setting means the fail path asks rather than allowing unchecked.
    assert_eq!(c.fail_mode.value, FailMode::Ask);
    let trusting = Some("[env]\ntrust = [\"SENTINEL_API_URL\"]\n");
    let c = load(
        trusting,
        &[("SENTINEL_API_URL", "ftp://x"), ("SENTINEL_API_KEY", "k")],
    );
    assert!(
        c.errors[0]
            .to_string()
            .starts_with("SENTINEL_API_URL: [api] url `ftp://x`"),
        "{:?}",
        c.errors
    );
    for good in [
        "http://127.0.0.1:8080",
        "https://gateway.example/anthropic/",
    ] {
        assert!(
            load(trusting, &[("SENTINEL_API_URL", good)])
                .errors
                .is_empty(),
            "{good}"
        );
    }
    for good in [
        "anthropic.claude-haiku-4-5-20251001-v1:0",
        "claude-haiku-4-5@20251001",
        "team/haiku",
    ] {
        assert!(check_model(good).is_ok(), "{good}");
    }
    assert!(check_url("https://").is_err() && check_url("http://:80").is_err());
}

#[test]
fn defaults_without_a_file() {
    let c = load(None, &[]);
    assert!(c.errors.is_empty());
    assert_eq!(c.mode.value, Mode::Enforce);
    assert_eq!(c.fail_mode.value, FailMode::Open);
    assert_eq!(c.on_uncertain.value, OnUncertain::Auto);
    assert_eq!(c.on_block.value, OnBlock::Deny);
    assert_eq!(c.api_url.value, DEFAULT_API_URL);
    assert!(c.api_key.is_none());
}

#[test]
fn file_values_carry_their_line() {
    let c = load(
        Some("# c\nmode = \"shadow\"\n\n[api]\ntimeout = 3.5\n"),
        &[],
    );
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(c.mode.value, Mode::Shadow);
    assert_eq!(c.mode.source, Source::File { line: 2 });
    assert_eq!(c.api_timeout_secs.value, 3.5);
    assert_eq!(c.api_timeout_secs.source, Source::File { line: 5 });
}

#[test]
fn unknown_keys_and_bad_values_name_the_key_and_never_widen() {
    let c = load(Some("mode = \"enforce\"\nfail-mode = \"open\"\n"), &[]);
    assert_eq!(c.errors.len(), 1);
    assert!(
        c.errors[0].to_string().starts_with("sentinel.toml:2: "),
        "{}",
        c.errors[0]
    );
    assert!(c.errors[0].message.contains("fail-mode"), "{}", c.errors[0]);
    assert_eq!(c.fail_mode.value, FailMode::Ask);
    let c = load(Some("\n\nfail_mode = \"opne\"\n"), &[]);
    assert!(
        c.errors[0].to_string().starts_with("sentinel.toml:3: "),
        "{}",
        c.errors[0]
    );
    assert!(c.errors[0].message.contains("opne"), "{}", c.errors[0]);
    let c = load(Some("[api]\ntimeout = -1.0\n"), &[]);
    assert!(c.errors[0].to_string().contains("timeout"));
    let c = load(Some("mode = [\n"), &[]);
    assert_eq!(c.errors.len(), 1);
}

/// A key appended to the end of the seeded file lands in its last table: the error names that
/// table and says where the key belongs.
#[test]
fn an_unknown_key_names_its_table_and_where_it_belongs() {
    let seeded = super::TEMPLATE;
    let c = load(Some(&format!("{seeded}\nparanoid = true\n")), &[]);
    let message = &c.errors[0].message;
    let last = seeded
        .lines()
        .rev()
        .filter_map(|l| l.trim().strip_prefix('['))
        .find_map(|l| l.split(']').next())
        .unwrap();
    assert!(
        message.starts_with(&format!("unknown key `paranoid` in [{last}]")),
        "{message}"
    );
    assert!(
        message.contains("top-level key: move it above the first [section]"),
        "{message}"
    );
    let c = load(Some("[logs]\ntimeout = 3.0\n"), &[]);
    let message = &c.errors[0].message;
    assert!(
        message.starts_with("unknown key `timeout` in [logs]"),
        "{message}"
    );
    assert!(message.ends_with("`timeout` belongs in [api]"), "{message}");
    let c = load(Some("colour = \"red\"\n"), &[]);
    let message = &c.errors[0].message;
    assert!(
        message.starts_with("unknown key `colour` at the top level"),
        "{message}"
    );
    assert_eq!(c.fail_mode.value, FailMode::Ask, "still never widens");
}

#[test]
fn environment_overrides_the_file() {
    let c = load(
        Some(
            "fail_mode = \"open\"\n[api]\nurl = \"http://file\"\n[env]\ntrust = [\"SENTINEL_SHADOW\", \"SENTINEL_API_URL\", \"ANTHROPIC_BASE_URL\"]\n",
        ),
        &[
            ("SENTINEL_FAIL_MODE", "closed"),
            ("SENTINEL_SHADOW", "1"),
            ("ANTHROPIC_BASE_URL", "http://gw"),
            ("ANTHROPIC_API_KEY", "k"),
        ],
    );
    assert_eq!(c.fail_mode.value, FailMode::Closed);
    assert_eq!(
        c.fail_mode.source,
        Source::Env {
            name: "SENTINEL_FAIL_MODE".into()
        }
    );
    assert_eq!(c.mode.value, Mode::Shadow);
    assert_eq!(
        c.api_url.value, "http://file",
        "[api] url comes before ANTHROPIC_BASE_URL"
    );
    assert_eq!(c.api_key.as_ref().map(|k| k.value.as_str()), Some("k"));
    let trust = Some("[env]\ntrust = [\"SENTINEL_API_URL\", \"ANTHROPIC_BASE_URL\"]\n");
    let c = load(
        trust,
        &[
            ("ANTHROPIC_BASE_URL", "http://gw"),
            ("SENTINEL_API_URL", "http://s"),
            ("ANTHROPIC_API_KEY", "k"),
        ],
    );
    assert_eq!(c.api_url.value, "http://s");
    let c = load(
        trust,
        &[
            ("ANTHROPIC_BASE_URL", "http://gw"),
            ("ANTHROPIC_API_KEY", "k"),
        ],
    );
    assert_eq!(c.api_url.value, "http://gw");
    // No key, nothing sent: the variable's URL is not used (and not warned about).
    let c = load(None, &[("ANTHROPIC_BASE_URL", "http://gw")]);
    assert_eq!(c.api_url.value, DEFAULT_API_URL);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let c = load(None, &[("SENTINEL_FAIL_MODE", "sometimes")]);
    assert_eq!(c.errors[0].at, "SENTINEL_FAIL_MODE");
}

#[test]
fn the_seeded_template_is_valid_and_changes_nothing() {
    let c = load(Some(TEMPLATE), &[]);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(c.mode.source, Source::Default);
}

#[test]
fn a_variable_that_would_loosen_is_ignored_unless_the_person_trusts_it() {
    let hostile = [
        ("SENTINEL_SHADOW", "1"),
        ("SENTINEL_FAIL_MODE", "open"),
        ("SENTINEL_API_URL", "https://evil.example"),
        ("ANTHROPIC_BASE_URL", "http://evil.example"),
        ("ANTHROPIC_API_KEY", "k"),
    ];
    let c = load(Some("fail_mode = \"closed\"\n"), &hostile);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(c.mode.value, Mode::Enforce);
    assert_eq!(c.fail_mode.value, FailMode::Closed);
    assert_eq!(c.api_url.value, DEFAULT_API_URL);
    assert_eq!(c.warnings.len(), 4, "{:?}", c.warnings);
    assert!(
        c.warnings[0].starts_with("SENTINEL_SHADOW=1 is ignored")
            && c.warnings[0].contains("[env] trust = [\"SENTINEL_SHADOW\"]"),
        "{:?}",
        c.warnings
    );
    // Stricter, or Anthropic's own URL: honoured without a word.
    let c = load(
        None,
        &[
            ("SENTINEL_SHADOW", "0"),
            ("SENTINEL_FAIL_MODE", "closed"),
            ("ANTHROPIC_BASE_URL", "https://api.anthropic.com/"),
        ],
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(c.fail_mode.value, FailMode::Closed);
    // SENTINEL_SHADOW=0 turns shadow off; it never turns guard (stricter) into enforce.
    let c = load(Some("mode = \"guard\"\n"), &[("SENTINEL_SHADOW", "0")]);
    assert_eq!(c.mode.value, Mode::Guard);
    let c = load(Some("mode = \"shadow\"\n"), &[("SENTINEL_SHADOW", "0")]);
    assert_eq!(c.mode.value, Mode::Enforce);
    // Open over a broken file's fallback (ask) loosens too.
    let c = load(Some("bad = 1\n"), &[("SENTINEL_FAIL_MODE", "open")]);
    assert_eq!(c.fail_mode.value, FailMode::Ask);
    // Trusted: honoured, and named.
    let c = load(
        Some(
            "fail_mode = \"ask\"\n[env]\ntrust = [\"SENTINEL_FAIL_MODE\", \"SENTINEL_API_URL\"]\n",
        ),
        &hostile,
    );
    assert_eq!(c.fail_mode.value, FailMode::Open);
    assert_eq!(c.api_url.value, "https://evil.example");
    assert_eq!(c.mode.value, Mode::Enforce, "not trusted: {:?}", c.warnings);
    assert!(
        c.warnings.iter().any(|w| w
            .starts_with("SENTINEL_API_URL=https://evil.example is honoured")
            && w.contains("sentinel.toml:3")),
        "{:?}",
        c.warnings
    );
    // A name that is not one of them is an error at its line.
    let c = load(Some("[env]\ntrust = [\"PATH\"]\n"), &[]);
    assert!(
        c.errors[0]
            .to_string()
            .starts_with("sentinel.toml:2: [env] trust: `PATH`")
    );
}
