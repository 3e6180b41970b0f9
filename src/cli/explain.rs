//! `sentinel explain`: one decision in full.

use super::ask::{Question, evaluate};
use anyhow::Result;
use sentinel::local::paths::fs::RealFs;
use sentinel::{report::check, report::explain};

pub fn run(q: Question, json: bool) -> Result<u8> {
    let offline = q.offline;
    let tool = q.tool.clone();
    let subject = q.subject();
    let e = evaluate(q)?;
    let explanation = explain::explain(&explain::Inputs {
        call: &e.call,
        layered: &e.layered,
        tool: &tool,
        subject: &subject,
        cwd: &e.cwd,
        home: e.user_home.as_deref(),
        fs: &RealFs,
        local: e.local.as_ref(),
        decision: e.decision.as_ref(),
        offline,
    });
    if json {
        outln!("{}", serde_json::to_string_pretty(&explanation)?);
    } else {
        out!("{}", explain::render(&explanation));
    }
    Ok(check::exit_code(e.decision.map(|d| d.verdict)) as u8)
}
