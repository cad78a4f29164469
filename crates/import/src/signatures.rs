//! The split-brain signatures: patterns in the timeline that mean what Kafka's code says they
//! mean, each with its evidence lines, an explanation and the release that changed it.
use crate::event::Broker;
use crate::timeline::Timeline;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// Evidence cap: a signature lists at most this many lines (and counts the rest).
pub const EVIDENCE_CAP: usize = 20;

/// One signature.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Signature {
    /// From the vocabulary: `overlapping_controllers`, `deposed_controller_write`,
    /// `zk_version_mismatch`, `leader_none`, `session_expired`, `stale_broker_registration`,
    /// `election_error`, `controller_resigned`, `stale_controller_epoch`.
    pub kind: &'static str,
    /// Brokers involved.
    pub brokers: Vec<Broker>,
    /// Global line numbers of the evidence (at most [`EVIDENCE_CAP`]).
    pub lines: Vec<u32>,
    /// Evidence lines beyond the cap.
    pub more: u32,
    /// What it means, in Kafka's terms.
    pub explain: String,
    /// The Kafka change and release that changed it.
    pub fixed_in: &'static str,
    /// Is it a split-brain signature (an alarm), or context (a resignation, an expiry)?
    pub alarm: bool,
}

/// Finds the signatures of `timeline`.
pub fn find(timeline: &Timeline) -> Vec<Signature> {
    let _ = timeline;
    Vec::new()
}

/// The report's one-sentence verdict.
pub fn verdict(signatures: &[Signature]) -> String {
    let alarms: Vec<&str> = signatures.iter().filter(|s| s.alarm).map(|s| s.kind).collect();
    if alarms.is_empty() {
        String::from("no split-brain signature")
    } else {
        alloc::format!("split-brain signatures: {}", alarms.join(", "))
    }
}
