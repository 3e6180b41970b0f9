//! The report as one self-contained HTML page: inline CSS and SVG, no script, no font, no image
//! or link to fetch, so it opens from disk anywhere, offline, and shows the same everywhere.

use super::dashboard::{Dashboard, Day, Top};
use std::fmt::Write as _;

/// One series of the per-day chart: label, colour, and the day's count.
type Series = (&'static str, &'static str, fn(&Day) -> usize);

/// The series, stacked bottom up.
const SERIES: &[Series] = &[
    ("local allow", "#2e7d32", |d| d.local_allow),
    ("local deny", "#c62828", |d| d.local_deny),
    ("local ask", "#ef6c00", |d| d.local_ask),
    ("uncertain", "#9e9e9e", |d| d.local_uncertain),
    ("Tier 2 allow", "#66bb6a", |d| d.api_allow),
    ("Tier 2 deny", "#e57373", |d| d.api_deny),
    ("Tier 2 ask", "#ffb74d", |d| d.api_ask),
    ("Tier 2 failed", "#5d4037", |d| d.fail),
];

const STYLE: &str = "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:960px;color:#222;padding:0 1em}\
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ddd}\
.sub{color:#666}.cards{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}\
.card{border:1px solid #ddd;border-radius:6px;padding:.6em 1em;min-width:9em}\
.card b{display:block;font-size:1.6em}.card span{color:#666;font-size:.9em}\
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3em .5em;border-bottom:1px solid #eee;vertical-align:top}\
th{font-weight:600}td.n{text-align:right;width:4em}code{font:12px ui-monospace,monospace;word-break:break-all}\
.legend span{display:inline-block;margin-right:1em;font-size:.9em}.legend i{display:inline-block;width:.8em;height:.8em;margin-right:.3em}";

/// Escapes text for HTML content and attribute values, inert ([`crate::text::inert`]): a
/// bidi override or an invisible character in a command is shown as its escape.
pub fn escape(text: &str) -> String {
    let text = crate::text::inert(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page.
pub fn render(d: &Dashboard, generated: &str) -> String {
    let s = &d.summary;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>sentinel report</title><style>{STYLE}</style></head><body>\n\
         <h1>sentinel report</h1><p class=\"sub\">{} — {} (UTC) · {} sessions · generated {}</p>\n",
        escape(d.from.as_deref().unwrap_or("no decisions")),
        escape(d.to.as_deref().unwrap_or("")),
        d.sessions,
        escape(generated),
    );
    let cards = [
        (s.checks.to_string(), "decisions", "checks"),
        (
            d.prompts_avoided.to_string(),
            "prompts avoided",
            "prompts-avoided",
        ),
        (
            (s.local_block + s.api_block).to_string(),
            "denied",
            "denied",
        ),
        (d.prompts_left.to_string(), "left to you", "prompts-left"),
        (
            format!("{:.1}%", s.local_resolution_pct),
            "settled locally",
            "local-pct",
        ),
        (s.api_calls.to_string(), "Tier 2 calls", "api-calls"),
        (format!("${:.4}", s.api_cost_usd), "Tier 2 cost", "api-cost"),
    ];
    h.push_str("<div class=\"cards\">");
    for (value, label, id) in cards {
        let _ = write!(
            h,
            "<div class=\"card\" id=\"{id}\"><b>{}</b><span>{label}</span></div>",
            escape(&value)
        );
    }
    h.push_str("</div>\n<h2>Decisions per day, by tier</h2>\n");
    chart(&mut h, &d.days);
    h.push_str("<h2>Denied most often</h2>\n");
    tops(&mut h, &d.top_denied, false);
    h.push_str("<h2>Deferred most often, and the rule that would settle them</h2>\n");
    tops(&mut h, &d.top_deferred, true);
    let _ = write!(
        h,
        "<h2>Tier 2</h2><table><tr><td>calls</td><td class=\"n\">{}</td></tr>\
         <tr><td>time spent</td><td class=\"n\">{:.1}&nbsp;s</td></tr>\
         <tr><td>tokens in / out</td><td class=\"n\">{}&nbsp;/&nbsp;{}</td></tr>\
         <tr><td>cost</td><td class=\"n\">${:.4}</td></tr>\
         <tr><td>allowed / denied / asked / failed</td><td class=\"n\">{}&nbsp;/&nbsp;{}&nbsp;/&nbsp;{}&nbsp;/&nbsp;{}</td></tr></table>\n\
         <h2>Audit log</h2><p>{} records over this time; {} sessions took in outside text (web, MCP). \
         <code>sentinel audit verify</code> checks its hash chain.</p>\n\
         <p class=\"sub\">Prompts avoided: calls sentinel allowed itself (not in shadow mode) that the \
         agent would have asked about, by the permission mode it sent (not under bypassPermissions). The same numbers: \
         <code>sentinel report --json</code>, <code>sentinel stats --all --json</code>.</p>\n</body></html>\n",
        s.api_calls,
        s.api_ms as f64 / 1000.0,
        s.api_tokens.input,
        s.api_tokens.output,
        s.api_cost_usd,
        s.api_allow,
        s.api_block,
        s.api_ask,
        s.api_error,
        d.audit_records,
        d.tainted_sessions,
    );
    h
}

/// Stacked bars, one per day, with a legend and each bar's total as its tooltip.
fn chart(h: &mut String, days: &[Day]) {
    if days.is_empty() {
        h.push_str("<p>No decisions recorded in this time.</p>\n");
        return;
    }
    let (width, height, top, bottom, left) = (900.0, 220.0, 10.0, 30.0, 40.0);
    let max = days
        .iter()
        .map(|d| SERIES.iter().map(|(_, _, f)| f(d)).sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let plot = height - top - bottom;
    let slot = (width - left) / days.len() as f64;
    let bar = (slot * 0.7).clamp(1.0, 48.0);
    let _ = write!(
        h,
        "<svg role=\"img\" aria-label=\"decisions per day\" \
         viewBox=\"0 0 {width} {height}\" width=\"100%\">\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{width}\" y2=\"{}\" stroke=\"#999\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{max}</text>\
         <text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">0</text>",
        top + plot,
        top + plot,
        left - 4.0,
        top + 10.0,
        left - 4.0,
        top + plot,
    );
    // Every label when they fit, else about twelve.
    let every = days.len().div_ceil(12).max(1);
    for (i, d) in days.iter().enumerate() {
        let x = left + slot * i as f64 + (slot - bar) / 2.0;
        let mut y = top + plot;
        let total: usize = SERIES.iter().map(|(_, _, f)| f(d)).sum();
        let _ = write!(h, "<g><title>{}: {total}</title>", escape(&d.date));
        for (label, colour, f) in SERIES {
            let n = f(d);
            if n == 0 {
                continue;
            }
            let bar_h = plot * n as f64 / max;
            y -= bar_h;
            let _ = write!(
                h,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{bar_h:.1}\" fill=\"{colour}\"><title>{} {label}: {n}</title></rect>",
                escape(&d.date)
            );
        }
        h.push_str("</g>");
        if i % every == 0 {
            let _ = write!(
                h,
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
                x + bar / 2.0,
                height - 12.0,
                escape(&d.date[5..])
            );
        }
    }
    h.push_str("</svg>\n<p class=\"legend\">");
    for (label, colour, _) in SERIES {
        let _ = write!(
            h,
            "<span><i style=\"background:{colour}\"></i>{label}</span>"
        );
    }
    h.push_str("</p>\n");
}

fn tops(h: &mut String, list: &[Top], suggestions: bool) {
    if list.is_empty() {
        h.push_str("<p>None.</p>\n");
        return;
    }
    h.push_str("<table><tr><th>times</th><th>command</th><th>");
    h.push_str(if suggestions {
        "rule that would settle it (<code>sentinel suggest</code>)"
    } else {
        "rule that decided"
    });
    h.push_str("</th></tr>");
    for t in list {
        let rule = if suggestions {
            t.suggestion
                .as_ref()
                .map(|(file, line)| format!("<code>{}</code> in {}", escape(line), escape(file)))
                .unwrap_or_else(|| "—".into())
        } else {
            t.rule
                .as_deref()
                .map(|r| format!("<code>{}</code>", escape(r)))
                .unwrap_or_else(|| "—".into())
        };
        let _ = write!(
            h,
            "<tr><td class=\"n\">{}</td><td><code>{}</code></td><td>{rule}</td></tr>",
            t.count,
            escape(&crate::text::excerpt(&t.subject))
        );
    }
    h.push_str("</table>\n");
}
