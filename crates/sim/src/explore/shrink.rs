//! Shrinking a violating schedule: delta debugging (Zeller and Hildebrandt's ddmin) over its
//! faults. ddmin ends at the granularity of single faults, where it has tried removing each one:
//! the result is **1-minimal** — removing any one fault loses the violation
//! ([`is_one_minimal`] checks it by re-running every such schedule).
//!
//! Each ddmin round tries the complements of one partition and keeps the first (in order) that
//! still violates. The caller's `first_violating` judges a round's complements: sequentially (stop
//! at the first) or in parallel (judge all, take the first) — the same answer either way.
use super::{violates, Options};
use crate::scenario::{Scenario, ScriptEntry};
use alloc::vec::Vec;

/// Judges a round's candidate schedules: the index of the first that violates the property.
pub type FirstViolating<'a> = dyn Fn(&[Vec<ScriptEntry>]) -> Option<usize> + 'a;

/// ddmin over the schedule's faults, judging one candidate at a time.
pub fn shrink(base: &Scenario, schedule: &[ScriptEntry], opts: &Options) -> Vec<ScriptEntry> {
    shrink_with(schedule, &|cands: &[Vec<ScriptEntry>]| cands.iter().position(|s| violates(base, s, opts).is_some()))
}

/// ddmin over the schedule's faults, judging each round's complements with `first_violating`.
pub fn shrink_with(schedule: &[ScriptEntry], first_violating: &FirstViolating) -> Vec<ScriptEntry> {
    let mut cur: Vec<ScriptEntry> = schedule.to_vec();
    let mut n = 2usize;
    while cur.len() >= 2 {
        let chunk = cur.len().div_ceil(n);
        let complements: Vec<Vec<ScriptEntry>> = (0..cur.len())
            .step_by(chunk)
            .map(|start| {
                let end = (start + chunk).min(cur.len());
                cur[..start].iter().chain(&cur[end..]).cloned().collect::<Vec<_>>()
            })
            .filter(|c| !c.is_empty())
            .collect();
        match first_violating(&complements) {
            Some(i) => {
                cur = complements[i].clone();
                n = (n - 1).max(2);
            }
            None => {
                if n >= cur.len() {
                    break;
                }
                n = (n * 2).min(cur.len());
            }
        }
    }
    cur
}

/// True when `schedule` violates the property and removing any one of its faults does not
/// (every one-fault-removed schedule is really run).
pub fn is_one_minimal(base: &Scenario, schedule: &[ScriptEntry], opts: &Options) -> bool {
    violates(base, schedule, opts).is_some()
        && (0..schedule.len()).all(|i| {
            let mut fewer = schedule.to_vec();
            fewer.remove(i);
            violates(base, &fewer, opts).is_none()
        })
}
