//! A sign of planted instructions a call shows (SPEC 2.5), as a decision reports it; the checks
//! that find them are in `local::policy::signs`.

use serde::Serialize;

/// One kind of sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignKind {
    /// "ignore previous instructions", "new system prompt", "you are now" …
    InstructionOverride,
    /// Reads a credential file or a secret from the environment.
    CredentialAccess,
    /// Sends data over the network (curl, wget, nc, scp, ssh, rsync, git push to a URL …).
    NetworkEgress,
    /// Downloads something and runs it.
    DownloadExecute,
    /// Decodes something (base64, hex, gzip, escapes) and runs it.
    EncodedPayload,
    /// Text (a written file, a subagent's prompt) that asks for a credential to be sent out:
    /// a credential's place and a way out on one line.
    SendsCredential,
}

impl SignKind {
    /// A few words for reasons.
    pub fn describe(self) -> &'static str {
        match self {
            SignKind::InstructionOverride => "instruction-override phrase",
            SignKind::CredentialAccess => "credential access",
            SignKind::NetworkEgress => "network egress",
            SignKind::DownloadExecute => "download then execute",
            SignKind::EncodedPayload => "decoded payload executed",
            SignKind::SendsCredential => "a credential and a way out in one instruction",
        }
    }
}

/// A sign and what showed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sign {
    /// The kind.
    pub kind: SignKind,
    /// The part of the call that shows it.
    pub evidence: String,
}
