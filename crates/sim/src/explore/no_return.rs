//! The point of no return of a counterexample: the earliest step after which the leader -1 is
//! (almost) certain, whatever the network's jitter does from there on.
//!
//! **Definition.** Take a run that ends at leader -1 (a partition without a leader while an ISR
//! member is alive, [`AlertKind::LeaderlessWithLiveIsr`], when the scenario ends). A
//! *continuation* from step `s` is the world as it stands after the run's `s`-th event, with its
//! PRNG replaced by another seed ([`World::reseed`]) and nothing else changed: the same queued
//! messages and timers, the same remaining scripted faults (they are queued items too), run to the
//! scenario's end. Only the latency jitter (and, in KRaft, the election timeouts) drawn from then
//! on differ. `s` *holds* when at least 95% of `N` continuations also end at leader -1. The point of
//! no return is the earliest `s` that holds; step 0 is the world before the first event, and the
//! last step always holds (a continuation from the end changes nothing).
//!
//! **Search.** Bisection over `0..=last`, assuming that holding is monotone (once the outcome is
//! sealed, later steps stay sealed). Without that assumption the answer is still a step that holds
//! and whose predecessor does not (bisection keeps "lo fails, hi holds" invariant), so it is a
//! point of no return, if perhaps not the first. Each probe costs `N` runs from that step to the
//! end (a probe stops early once its verdict is decided); the answer's `held` is a full count.
//!
//! The continuation seeds are a fixed function of the run's seed and the continuation's index,
//! so the answer is deterministic. A continuation that does not end within
//! [`CONTINUATION_STEP_FACTOR`] times the run's own length counts as not holding.
use crate::alerts::AlertKind;
use crate::ids::NodeId;
use crate::mark::Mark;
use crate::rng::Rng;
use crate::scenario::{Mode, Scenario};
use crate::world::World;
use alloc::vec::Vec;
use serde::Serialize;

/// The share of continuations (in percent) that must still end at leader -1.
pub const THRESHOLD_PERCENT: u32 = 95;

/// A continuation may take at most this many times the original run's steps (plus 10 000).
pub const CONTINUATION_STEP_FACTOR: u64 = 4;

/// Where a run's leader -1 became (almost) certain.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct NoReturn {
    /// The step (the world after this many events; 0 is the opening world).
    pub step: u64,
    /// Virtual time of that step, ms.
    pub time_ms: u64,
    /// Continuations from this step that still ended at leader -1.
    pub held: u32,
    /// Continuations tried.
    pub of: u32,
    /// The node of that step's event (`None` at step 0).
    pub node: Option<NodeId>,
    /// The marks of that step's event.
    pub marks: Vec<Mark>,
    /// Continuations from the step before that ended at leader -1 (`None` at step 0).
    pub held_before: Option<u32>,
}

fn ends_at_minus_one(w: &World) -> bool {
    w.alerts().iter().any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr)
}

/// The seed of continuation `i` of a run with `seed`.
pub fn continuation_seed(seed: u64, i: u32) -> u64 {
    let mut r = Rng::new(seed ^ 0x6E6F_5F72_6574_7572);
    let mut x = 0;
    for _ in 0..=i {
        x = r.next_u64();
    }
    x
}

struct Run {
    /// Worlds every `stride` steps (index k holds step k * stride).
    checkpoints: Vec<World>,
    stride: u64,
    last: u64,
    seed: u64,
    max_steps: u64,
}

impl Run {
    fn world_at(&self, s: u64) -> World {
        let k = (s / self.stride) as usize;
        let mut w = self.checkpoints[k].clone();
        while w.step_count() < s {
            if w.step().is_none() {
                break;
            }
        }
        w
    }

    /// How many of `n` continuations from step `s` end at leader -1; with `early`, stops as soon
    /// as the verdict against `need` is decided.
    fn held(&self, s: u64, n: u32, need: u32, early: bool) -> u32 {
        let start = self.world_at(s);
        let mut held = 0;
        for i in 0..n {
            let mut w = start.clone();
            w.reseed(continuation_seed(self.seed, i));
            let mut steps = 0;
            let mut ended = true;
            while w.step().is_some() {
                steps += 1;
                if steps > self.max_steps {
                    ended = false;
                    break;
                }
            }
            if ended && ends_at_minus_one(&w) {
                held += 1;
            }
            let left = n - 1 - i;
            if early && (held >= need || held + left < need) {
                break;
            }
        }
        held
    }
}

/// The point of no return of `scenario` run in `mode` with `seed`, judged by `continuations`
/// random continuations per probed step (see the module doc); `None` when the run does not end
/// at leader -1 (or cannot be built, or `continuations` is 0).
pub fn point_of_no_return(scenario: &Scenario, mode: Mode, seed: u64, continuations: u32) -> Option<NoReturn> {
    if continuations == 0 {
        return None;
    }
    let mut w = World::with_mode(scenario, seed, mode).ok()?;
    // Checkpoints every `stride` steps, at most 128 of them (the stride doubles when full): a
    // probe replays fewer than `stride` steps to reach its start.
    let mut checkpoints = alloc::vec![w.clone()];
    let mut stride = 1u64;
    while w.step().is_some() {
        if w.step_count() % stride == 0 {
            if checkpoints.len() == 128 {
                checkpoints = checkpoints.into_iter().step_by(2).collect();
                stride *= 2;
            }
            if w.step_count() % stride == 0 {
                checkpoints.push(w.clone());
            }
        }
    }
    if !ends_at_minus_one(&w) {
        return None;
    }
    let last = w.step_count();
    let run =
        Run { checkpoints, stride, last, seed, max_steps: last.saturating_mul(CONTINUATION_STEP_FACTOR) + 10_000 };
    let need = (continuations * THRESHOLD_PERCENT).div_ceil(100);
    let holds = |s: u64| run.held(s, continuations, need, true) >= need;
    let step = if holds(0) {
        0
    } else {
        // Invariant: `lo` fails, `hi` holds (the last step holds: nothing is left to change).
        let (mut lo, mut hi) = (0u64, run.last);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if holds(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    };
    // The event that took the run to `step`.
    let event = (step > 0).then(|| run.world_at(step - 1).step()).flatten();
    Some(NoReturn {
        step,
        time_ms: event.as_ref().map(|e| e.time_ms).unwrap_or(0),
        held: run.held(step, continuations, need, false),
        of: continuations,
        node: event.as_ref().map(|e| e.node),
        marks: event.map(|e| e.marks).unwrap_or_default(),
        held_before: (step > 0).then(|| run.held(step - 1, continuations, need, false)),
    })
}
