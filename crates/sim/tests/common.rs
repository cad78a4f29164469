//! Shared helpers for the integration tests (native and wasm32).
#![allow(dead_code)]
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Event, World};

/// Runs a world to its end and returns its events.
pub fn run_to_end(w: &mut World) -> Vec<Event> {
    let mut v = Vec::new();
    while let Some(e) = w.step() {
        v.push(e);
    }
    v
}

/// The trace as text: one line per event, details and alerts indented under it.
pub fn trace_text(events: &[Event]) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&format!("{} {} {} {:?} {}\n", e.step, e.time_ms, e.node, e.kind, e.line));
        for d in &e.details {
            s.push_str(&format!("    | {d}\n"));
        }
        for a in &e.alerts_raised {
            s.push_str(&format!("    + ALERT {a}\n"));
        }
        for a in &e.alerts_cleared {
            s.push_str(&format!("    - cleared {a}\n"));
        }
    }
    s
}

/// FNV-1a over the trace text: a short fingerprint to compare runs.
pub fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// A built-in world.
pub fn world(name: &str) -> World {
    World::new(&builtin(name).expect("built-in exists")).expect("built-in is valid")
}

/// True if the step's headline or one of its detail lines contains `text`.
pub fn says(e: &Event, text: &str) -> bool {
    e.details.iter().chain(Some(&e.line)).any(|l| l.contains(text))
}

/// The first step at which ZooKeeper accepted a write from a controller that had been deposed.
pub fn deposed_write_landed(events: &[Event]) -> Option<&Event> {
    events.iter().find(|e| says(e, "a deposed controller's decision"))
}
