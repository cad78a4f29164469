//! Shared helpers for the integration tests (native and wasm32).
#![allow(dead_code)]
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Event, Mark, TopicPartition, World};

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

/// `__consumer_offsets-<n>`.
pub fn offsets(n: u32) -> TopicPartition {
    TopicPartition::new("__consumer_offsets", n)
}

/// Every mark of every event, in order, each with the event (the step) that carries it.
pub fn marks(events: &[Event]) -> impl Iterator<Item = (&Event, &Mark)> {
    events.iter().flat_map(|e| e.marks.iter().map(move |m| (e, m)))
}

/// The first mark that satisfies `pred`, with its event.
pub fn first_mark(events: &[Event], mut pred: impl FnMut(&Mark) -> bool) -> Option<(&Event, &Mark)> {
    marks(events).find(|(_, m)| pred(m))
}

/// True if one of the step's marks satisfies `pred`.
pub fn has_mark(e: &Event, pred: impl FnMut(&Mark) -> bool) -> bool {
    e.marks.iter().any(pred)
}

/// The index (into `events`) of the first event at or after `from` with a mark that satisfies `pred`.
pub fn mark_index(events: &[Event], from: usize, mut pred: impl FnMut(&Mark) -> bool) -> Option<usize> {
    events[from..].iter().position(|e| e.marks.iter().any(&mut pred)).map(|i| i + from)
}

/// True if the step's headline or one of its detail lines contains `text`: for checking the wording
/// of a step already found by its marks, never for finding one.
pub fn says(e: &Event, text: &str) -> bool {
    e.details.iter().chain(Some(&e.line)).any(|l| l.contains(text))
}

/// The first time ZooKeeper accepted a write from a controller that had been deposed
/// ([`Mark::DeposedWriteAccepted`]), with its step.
pub fn deposed_write_landed(events: &[Event]) -> Option<(&Event, &Mark)> {
    first_mark(events, |m| matches!(m, Mark::DeposedWriteAccepted { .. }))
}
