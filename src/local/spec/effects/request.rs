//! An HTTP client's requests as a server reads them: the method and the URL (`DELETE
//! localhost:9200/idx`, `POST localhost:9200/_all/_delete_by_query`), for specs with
//! `requests = true` (curl, wget, HTTPie). Each request line is tried on the words of
//! `rules/mcp/words.toml`: the `in = "request"` ones (datastore endpoints and ports) for any
//! host, the others (`FLUSHALL`, `_all`) for a host on this machine or a DELETE, where they
//! cannot be a search for the word.

use crate::decision::effect::Effect;
use crate::local::destructive_words;
use crate::local::policy::is_local_host;
use crate::local::spec::Kind;
use crate::local::spec::options::Reading;
use crate::shell::Word;

/// The methods a request line may start with; a first operand that is one of them is the
/// method, as HTTPie reads `http DELETE URL`.
const METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
];

/// The options that set the method (`curl -X`, `wget --method`).
const METHOD_OPTIONS: &[&str] = &["-X", "--request", "--method"];

/// Destroy effects for the request lines a reading makes that the words say destroy data.
pub(super) fn destroying(r: &Reading, argv: &[Word]) -> Vec<Effect> {
    if !r.chain.first().is_some_and(|s| s.requests) {
        return Vec::new();
    }
    let mut methods: Vec<String> = Vec::new();
    let mut sends = false;
    let mut urls: Vec<&str> = Vec::new();
    let mut method_word_at = None;
    for (n, v) in r.values.iter().enumerate() {
        match v.kind {
            Kind::Send if METHOD_OPTIONS.contains(&&*v.from) => match v.word.known_value() {
                Some(m) => methods.push(m.to_ascii_uppercase()),
                // Not known before it runs: it may be any method that changes data.
                None => methods.extend(["POST", "PUT", "DELETE"].map(String::from)),
            },
            Kind::Send => sends = true,
            Kind::Url => match url_text(&v.word) {
                Some(m) if n == 0 && v.from == "operand" && is_method(m) => {
                    methods.push(m.to_ascii_uppercase());
                    method_word_at = argv.iter().position(|w| std::ptr::eq(w, &v.word));
                    method_word_at =
                        method_word_at.or_else(|| argv.iter().position(|w| w.text == v.word.text));
                }
                Some(u) => urls.push(u),
                None => {}
            },
            _ => {}
        }
    }
    // `http DELETE localhost:9200/idx`: the URL is the word after the method.
    if let Some(at) = method_word_at
        && let Some(u) = argv.get(at + 1).and_then(url_text)
    {
        urls.push(u);
    }
    if methods.is_empty() {
        methods.push(if sends { "POST" } else { "GET" }.to_string());
    }
    let mut out = Vec::new();
    for url in urls {
        for method in &methods {
            let line = format!("{method} {url}");
            let any_word = method == "DELETE" || is_local_host(url);
            if let Some(rule) = destructive_words::destructive_request(&line, any_word) {
                out.push(Effect::Destroy {
                    why: rule.why.as_deref().unwrap_or("destroys data").to_string(),
                    rule,
                });
                break;
            }
        }
    }
    out
}

fn is_method(word: &str) -> bool {
    METHODS.iter().any(|m| m.eq_ignore_ascii_case(word))
}

/// A URL's text: its value, or a pattern's own text (`[::1]:9200/idx` unquoted is a pattern
/// that matches no file, so bash passes it on as it is).
fn url_text(w: &Word) -> Option<&str> {
    match w.kind {
        crate::shell::WordKind::Glob => Some(&w.text),
        _ => w.known_value(),
    }
}
