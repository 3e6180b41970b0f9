//! Sending the spool: batches of records in order, each POSTed as OTLP/HTTP JSON, removed from
//! the spool once the collector took them; then the counters as metrics.
//!
//! - **One sender at a time**: a sender claims the spool by pushing `next` past its own end
//!   (the lease); a hook that finds `next` in the future starts none.
//! - **Retry with backoff**: a refused connection, a timeout, 408, 429 or any 5xx leaves the
//!   batch at the spool's head and pushes `next` out by 1 s, 2 s, 4 s … up to `max_backoff_secs`
//!   (a `Retry-After` within that bound is honoured). The OTLP specification retries only
//!   429/502/503/504; sentinel retries every 5xx, so a collector in trouble loses nothing
//!   within the spool's bound.
//! - **Rejected**: another 4xx says the request itself is wrong and will never be taken; the
//!   batch is dropped, counted in `status.json` and named by `doctor`.
//! - **Within a budget**: the sender stops starting requests when its budget is spent (a
//!   SessionEnd's 1.2 s), leaving the rest for the next one.

use super::claim;
use super::otlp::{self, Counters, Resource};
use super::settings::Target;
use super::spool::{self, Paths, Spooled};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// What the sender keeps between runs, for `doctor`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Status {
    /// Failed attempts in a row.
    pub failures: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(default)]
    pub last_error_ms: u64,
    #[serde(default)]
    pub last_ok_ms: u64,
    /// Records the collector took.
    #[serde(default)]
    pub sent: u64,
    /// Records a collector refused for good (a 4xx other than 408/429).
    #[serde(default)]
    pub rejected: u64,
}

/// One run's outcome.
#[derive(Debug, Default)]
pub struct Sent {
    pub records: u64,
    /// The spool was not due (another sender, or a backoff).
    pub not_due: bool,
    pub error: Option<String>,
}

/// How an attempt ended.
enum Answered {
    Taken,
    Retry(String, Option<u64>),
    Rejected(String),
}

fn now_ms() -> u64 {
    crate::clock::now_ms()
}

/// The resource of this machine and person.
pub fn resource(target: &Target) -> Resource {
    Resource {
        service_name: target.service_name.clone(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        host: host_name(),
        user: user_name(),
        extra: target.resource.clone(),
    }
}

/// This machine's name. On Linux from the kernel's own file (not `gethostname`: every libc
/// function imported costs each hook's start a symbol lookup, and only the sender needs this).
fn host_name() -> String {
    #[cfg(target_os = "linux")]
    if let Ok(name) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        return name.trim().to_string();
    }
    #[cfg(windows)]
    if let Ok(name) = std::env::var("COMPUTERNAME") {
        return name;
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        let mut buf = [0u8; 256];
        // SAFETY: writes at most buf.len() bytes into a live buffer.
        if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            return String::from_utf8_lossy(&buf[..end]).into_owned();
        }
    }
    "unknown".into()
}

/// The person's login name (on Windows, the session's USERNAME).
#[cfg(windows)]
fn user_name() -> String {
    std::env::var("USERNAME").unwrap_or_else(|_| "unknown".into())
}

/// The person's login name (getpwuid_r, which the binary imports already), else `uid N`.
#[cfg(unix)]
fn user_name() -> String {
    // SAFETY: getpwuid_r writes into the buffers given, alive for the call.
    unsafe {
        let uid = libc::geteuid();
        let mut pw: libc::passwd = std::mem::zeroed();
        let mut buf = vec![0 as libc::c_char; 4096];
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        if libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut found) == 0
            && !found.is_null()
            && !pw.pw_name.is_null()
        {
            return std::ffi::CStr::from_ptr(pw.pw_name)
                .to_string_lossy()
                .into_owned();
        }
        format!("uid {uid}")
    }
}

/// Sends what the spool holds, batch by batch, until it is empty, an attempt fails, or
/// `budget` is spent. Never panics the caller's way: every failure is in the result.
pub fn run(home: &std::path::Path, target: &Target, budget: Duration) -> Sent {
    let started = Instant::now();
    let paths = Paths::of(home);
    let mut out = Sent::default();
    let resource = resource(target);
    let mut counted = Counters::default();
    loop {
        let left = budget.saturating_sub(started.elapsed());
        if left < Duration::from_millis(50) {
            break;
        }
        let timeout = left.min(Duration::from_secs(target.timeout_secs));
        let (claimed, batch) = match claim(&paths, target, timeout) {
            Ok(Some(b)) => b,
            Ok(None) => {
                out.not_due = out.records == 0;
                break;
            }
            Err(e) => {
                out.error = Some(format!("the export spool cannot be read: {e}"));
                break;
            }
        };
        if batch.is_empty() {
            let _ = spool::set_next(&paths, now_ms() + target.interval_secs * 1000);
            break;
        }
        let records: Vec<&Spooled> = batch.iter().filter_map(|(_, r)| r.as_ref()).collect();
        let unreadable: Vec<String> = batch
            .iter()
            .filter(|(_, r)| r.is_none())
            .map(|(l, _)| l.clone())
            .collect();
        let body = otlp::logs_request(&resource, &records);
        let answered = post(&target.logs_url, &target.logs_headers, &body, timeout);
        let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
        match answered {
            Answered::Taken | Answered::Rejected(_) => {
                let rejected = match &answered {
                    Answered::Rejected(why) => Some(why.clone()),
                    _ => None,
                };
                let left = claim::taken(&paths, &claimed, &ids, &unreadable);
                for r in &records {
                    if r.dropped > 0 {
                        counted.dropped += r.dropped;
                        for (k, n) in &r.dropped_counts {
                            *counted.decisions.entry(k.clone()).or_default() += n;
                        }
                    } else {
                        *counted.decisions.entry(r.key()).or_default() += 1;
                    }
                }
                let n = records.len() as u64;
                note(&paths, |s| {
                    s.failures = 0;
                    match &rejected {
                        Some(why) => {
                            s.rejected += n;
                            s.last_error = Some(why.clone());
                            s.last_error_ms = now_ms();
                        }
                        None => {
                            s.sent += n;
                            s.last_ok_ms = now_ms();
                        }
                    }
                });
                if rejected.is_none() {
                    out.records += n;
                } else {
                    out.error = rejected;
                }
                let next = match left {
                    Ok(0) => now_ms() + target.interval_secs * 1000,
                    _ => now_ms(),
                };
                let _ = spool::set_next(&paths, next);
                if let Err(e) = left {
                    out.error = Some(format!("the export spool cannot be written: {e}"));
                    break;
                }
            }
            Answered::Retry(why, after) => {
                let mut failures = 1;
                note(&paths, |s| {
                    s.failures = s.failures.saturating_add(1);
                    failures = s.failures;
                    s.last_error = Some(why.clone());
                    s.last_error_ms = now_ms();
                });
                let wait = backoff_ms(failures, target.max_backoff_secs, after);
                let _ = spool::set_next(&paths, now_ms() + wait);
                out.error = Some(why);
                break;
            }
        }
    }
    if counted != Counters::default()
        && let Some(url) = &target.metrics_url
    {
        send_metrics(&paths, target, &resource, url, &counted, started, budget);
    }
    out
}

/// Claims the spool for one attempt: None when a send is not due; else its first batch, with
/// `next` pushed past the attempt's end.
fn claim(
    paths: &Paths,
    target: &Target,
    timeout: Duration,
) -> std::io::Result<Option<(super::in_flight::Claim, Vec<claim::Line>)>> {
    let held = spool::lock(paths)?;
    let now = now_ms();
    if !spool::due(paths, now) {
        return Ok(None);
    }
    spool::set_next(paths, now + timeout.as_millis() as u64 + 5_000)?;
    drop(held);
    claim::first(paths, target.batch as usize).map(Some)
}

/// The wait after `failures` failures in a row: 1 s doubled each time, at most `max_secs`, a
/// quarter of it random (so many machines do not retry together); a `Retry-After` within the
/// bound instead.
fn backoff_ms(failures: u32, max_secs: u64, retry_after: Option<u64>) -> u64 {
    let max = max_secs.max(1) * 1000;
    if let Some(s) = retry_after {
        return (s * 1000).min(max);
    }
    let base = 1000u64
        .saturating_mul(1 << failures.saturating_sub(1).min(20))
        .min(max);
    let mut b = [0u8; 2];
    let jitter = match getrandom::fill(&mut b) {
        Ok(()) => u64::from(u16::from_le_bytes(b)) * (base / 4) / 65535,
        Err(_) => 0,
    };
    base - base / 4 + jitter
}

fn note(paths: &Paths, change: impl FnOnce(&mut Status)) {
    let _ = crate::ledger::state::update_with(
        &paths.status,
        crate::ledger::state::Damaged::KeepCopyAndReset,
        change,
    );
}

/// The sender's status as last kept.
pub fn status(home: &std::path::Path) -> Status {
    crate::ledger::state::read::<Status>(&Paths::of(home).status)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Adds what was sent to the cumulative counters and sends them (a failure is only noted:
/// the next run sends the counters again, cumulative).
fn send_metrics(
    paths: &Paths,
    target: &Target,
    resource: &Resource,
    url: &str,
    counted: &Counters,
    started: Instant,
    budget: Duration,
) {
    let Ok(total) = crate::ledger::state::update_with(
        &paths.metrics,
        crate::ledger::state::Damaged::KeepCopyAndReset,
        |c: &mut Counters| {
            if c.start_ms == 0 {
                c.start_ms = now_ms();
            }
            for (k, n) in &counted.decisions {
                *c.decisions.entry(k.clone()).or_default() += n;
            }
            c.dropped += counted.dropped;
            c.clone()
        },
    ) else {
        return;
    };
    let left = budget.saturating_sub(started.elapsed());
    if left < Duration::from_millis(50) {
        return;
    }
    let body = otlp::metrics_request(resource, &total, now_ms());
    let timeout = left.min(Duration::from_secs(target.timeout_secs));
    if let Answered::Retry(why, _) | Answered::Rejected(why) =
        post(url, &target.metrics_headers, &body, timeout)
    {
        note(paths, |s| {
            s.last_error = Some(format!("metrics: {why}"));
            s.last_error_ms = now_ms();
        });
    }
}

/// POSTs one JSON body.
fn post(
    url: &str,
    headers: &[(String, String)],
    body: &serde_json::Value,
    timeout: Duration,
) -> Answered {
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .timeout_connect(Some(timeout.min(Duration::from_secs(3))))
        .http_status_as_error(false)
        .max_redirects(0)
        .build();
    let agent: ureq::Agent = config.into();
    let mut request = agent.post(url).header("content-type", "application/json");
    for (k, v) in headers {
        request = request.header(k.as_str(), v.as_str());
    }
    let text = body.to_string();
    match request.send(text.as_bytes()) {
        Ok(response) => {
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            match status {
                200..=299 => Answered::Taken,
                408 | 429 | 500..=599 => {
                    Answered::Retry(format!("{url} answered HTTP {status}"), retry_after)
                }
                _ => Answered::Rejected(format!(
                    "{url} refused the records for good (HTTP {status}); they were dropped"
                )),
            }
        }
        Err(e) => Answered::Retry(
            format!(
                "{url}: {}",
                crate::text::one_line(&match &e {
                    ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                        "connection refused".to_string()
                    }
                    ureq::Error::Timeout(_) => "timed out".to_string(),
                    other => other.to_string(),
                })
            ),
            None,
        ),
    }
}

/// Sends in a detached process, so that the hook's exit waits for nothing: the process is
/// made the leader of a new session, holds none of the hook's descriptors (its stdio is
/// /dev/null), and ends itself after the timeout (an alarm) if the network keeps it.
///
/// Windows has no fork: nothing is sent from a later hook there; the spool waits for the
/// SessionEnd hook's send (docs/windows.md).
#[cfg(not(unix))]
pub fn detached(_home: &std::path::Path, _target: &Target) {}

/// The Unix sender: forked, in a session of its own.
#[cfg(unix)]
pub fn detached(home: &std::path::Path, target: &Target) {
    // SAFETY: the process has one thread; the child only sends and exits.
    match unsafe { libc::fork() } {
        0 => {}
        _ => return,
    }
    let budget = Duration::from_secs(target.timeout_secs.saturating_mul(2).max(2));
    // SAFETY: plain libc calls on this process's own descriptors; _exit ends it.
    unsafe {
        // Through `syscall` on Linux: no new import (see `host_name`).
        #[cfg(target_os = "linux")]
        libc::syscall(libc::SYS_setsid);
        #[cfg(not(target_os = "linux"))]
        libc::setsid();
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            for fd in 0..3 {
                libc::dup2(null, fd);
            }
        }
        for fd in 3..1024 {
            if fd != null {
                libc::close(fd);
            }
        }
        libc::alarm(budget.as_secs() as u32 + 10);
    }
    let _ = std::panic::catch_unwind(|| run(home, target, budget));
    // SAFETY: ends the sender without running anything else.
    unsafe { libc::_exit(0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_bound() {
        for (failures, lo, hi) in [
            (1, 750, 1000),
            (2, 1500, 2000),
            (4, 6000, 8000),
            (30, 45_000, 60_000),
        ] {
            let b = backoff_ms(failures, 60, None);
            assert!((lo..=hi).contains(&b), "{failures}: {b}");
        }
        assert_eq!(backoff_ms(1, 60, Some(5)), 5000);
        assert_eq!(backoff_ms(1, 60, Some(500)), 60_000);
    }
}
