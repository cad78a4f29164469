//! The records merged by time into one lane per broker, with controller epochs as bands and typed
//! events as markers: the same swim lanes the simulator draws, read from logs instead of a run.
use crate::event::{Broker, Event};
use crate::parse::Parsed;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// One lane: a broker, or the lines no broker could be given.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Lane {
    /// Its broker (None: unknown).
    pub broker: Option<Broker>,
    /// Typed events on it.
    pub markers: u32,
}

/// One controller epoch: from the line where a broker became controller to the line where it
/// resigned, or where a newer epoch began.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct EpochBand {
    /// The epoch, where a line states it.
    pub epoch: Option<i32>,
    /// The broker that was controller in it.
    pub controller: Broker,
    /// When it began.
    pub from_ms: Option<i64>,
    /// When its controller resigned, if a line says so.
    pub resigned_ms: Option<i64>,
    /// When the next epoch began, if one did.
    pub next_ms: Option<i64>,
    /// The global line that began it.
    pub line: u32,
    /// The global line of the resignation.
    pub resigned_line: Option<u32>,
}

/// One typed event on a lane.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Marker {
    /// Index into [`Timeline::lanes`].
    pub lane: u32,
    /// Its time, if the line had one.
    pub ts_ms: Option<i64>,
    /// Its global line.
    pub line: u32,
    /// Index into [`Timeline::epochs`] of the band it falls in.
    pub band: Option<u32>,
    /// What it says.
    pub event: Event,
}

/// An effect logged before its cause on another broker: the brokers' clocks disagree (or the
/// logs are not what they seem). Shown, never corrected.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Skew {
    /// The broker whose line is the cause.
    pub cause_broker: Broker,
    /// The broker whose line is the effect.
    pub effect_broker: Broker,
    /// The cause's global line.
    pub cause_line: u32,
    /// The effect's global line.
    pub effect_line: u32,
    /// How much earlier the effect was stamped than its cause.
    pub ms: i64,
    /// Why one causes the other.
    pub explain: String,
}

/// The whole timeline.
#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct Timeline {
    /// Earliest timestamp seen.
    pub start_ms: Option<i64>,
    /// Latest timestamp seen.
    pub end_ms: Option<i64>,
    /// One lane per broker, by id; the unknown broker last.
    pub lanes: Vec<Lane>,
    /// Controller epochs, in the order they began.
    pub epochs: Vec<EpochBand>,
    /// Typed events, by time (records without a time keep their place in their file).
    pub markers: Vec<Marker>,
    /// Suspected clock skews.
    pub skews: Vec<Skew>,
}

/// Builds the timeline of `parsed`.
pub fn build(parsed: &Parsed) -> Timeline {
    let _ = parsed;
    Timeline::default()
}
