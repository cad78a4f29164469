//! The determinism check: a counterexample is replayed twice from its scenario, and the hashes of
//! the two traces must be equal. A trace's hash is FNV-1a (64 bit) over every event's JSON (the
//! schema of `splitbrain run --json`: step, time, node, kind, lines, alerts and typed marks), so
//! any difference in what a replay did changes it.
use crate::fnv::Fnv;
use crate::scenario::{Mode, Scenario};
use crate::world::World;
use alloc::string::String;
use core::hash::Hasher;

/// The result of replaying one scenario twice.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Determinism {
    /// The first replay's trace hash.
    pub hash: u64,
    /// The second replay's.
    pub second: u64,
    /// Steps of the run.
    pub steps: u64,
}

impl Determinism {
    /// Both replays gave the same trace.
    pub fn deterministic(&self) -> bool {
        self.hash == self.second
    }
}

/// Runs `scenario` (with its own seed) under `mode` to its end; the hash of its trace and its steps.
pub fn trace_hash(scenario: &Scenario, mode: Mode) -> Result<(u64, u64), String> {
    let mut w = World::with_mode(scenario, scenario.seed, mode).map_err(|e| alloc::format!("{e}"))?;
    // FNV-1a over the trace, fed event by event.
    let mut h = Fnv::default();
    let mut steps = 0;
    while let Some(e) = w.step() {
        let json = serde_json::to_vec(&e).map_err(|e| alloc::format!("cannot encode an event: {e}"))?;
        h.write(&json);
        h.write(b"\n");
        steps = e.step;
    }
    Ok((h.finish(), steps))
}

/// Replays `scenario` twice under `mode` and compares the trace hashes.
pub fn check(scenario: &Scenario, mode: Mode) -> Result<Determinism, String> {
    let (hash, steps) = trace_hash(scenario, mode)?;
    let (second, _) = trace_hash(scenario, mode)?;
    Ok(Determinism { hash, second, steps })
}
