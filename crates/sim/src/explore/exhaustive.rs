//! Bounded exhaustive verification with state merging, as Stateright and TLC do it: every
//! schedule of at most `k` faults from the explorer's alphabet, at most one per grid time, is
//! covered, and worlds that coincide are explored once.
//!
//! **The tree.** A node is a world just after its schedule's last fault (the root: the opening
//! world, no fault), with the run's end at that fault's time plus the settle time, as
//! [`super::with_schedule`] sets it. Expanding a node (1) runs a copy of its world to the end and
//! judges the schedule that stops there; (2) if fewer than `k` faults were used, advances one copy
//! of the world through each later grid time `T` (every item due before `T`, past the end if need
//! be: a later fault moves the end), and at each applies every fault of the alphabet
//! ([`World::apply_at`]: first among the items due at `T`, as a scripted fault is). A fault that
//! cannot apply there is skipped (counted as impossible).
//!
//! **Merging.** A child is keyed by (grid slot, [`World::state_hash`]); the hash covers the end
//! time, so it also fixes where the schedule stops. A key already reached with as few faults or
//! fewer is merged (counted) instead of explored: its future, and every extension of it, is
//! already covered. With merging off, every schedule is run. A 64-bit hash collision could merge
//! two different worlds (odds about 2^-64 per pair).
//!
//! **Properties.** Leader -1 with a live ISR member when a schedule's run ends; two controllers at
//! any step (of the run, or of the advance to a later fault, which belongs to the schedules that
//! place it). The search stops at the first violating schedule, in depth-first order.
//!
//! Deterministic: a fixed order, one seed (the jitter of every run), no hash-map iteration.
use super::{alphabet, Options, Property};
use crate::alerts::AlertKind;
use crate::command::Command;
use crate::scenario::{Scenario, ScriptEntry};
use crate::world::World;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// Times (ms) the exhaustive search places faults at: a coarse grid that still lets a cut land
/// inside a controller failover (a session expires 6–8 s after a cut at 1 s).
pub const GRID_MS: [u64; 3] = [1_000, 7_200, 7_500];

/// Steps one run may take before it is abandoned (as in [`super::violates`]).
const STEP_GUARD: u64 = 200_000;

/// Counts of a search (so far, or in all).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Schedules covered: every schedule of ≤ k faults on the grid, Σ C(g, j)·Aʲ, when exhausted.
    pub schedules: u64,
    /// Distinct states (tree nodes) explored: one run to the end each.
    pub distinct_states: u64,
    /// Children merged into a state already explored.
    pub merged: u64,
    /// Faults that could not apply where they were placed (skipped).
    pub impossible: u64,
    /// Simulation steps taken.
    pub steps: u64,
}

/// The outcome of a bounded exhaustive search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Kafka behaviour (its name).
    pub mode: String,
    /// The property checked.
    pub property: Property,
    /// Most faults per schedule.
    pub max_faults: usize,
    /// The grid, ms.
    pub grid_ms: Vec<u64>,
    /// Size of the fault alphabet.
    pub alphabet: usize,
    /// Whether equal states were merged.
    pub merge: bool,
    /// True when the whole bounded space was covered.
    pub exhausted: bool,
    /// The counts.
    pub counts: Counts,
    /// The first violating schedule found (depth-first), if any.
    pub violation: Option<Vec<ScriptEntry>>,
}

impl Verdict {
    /// One sentence with the numbers, e.g. "2.1: no leader -1 in any schedule of ≤ 3 faults on
    /// grid 1.0/7.2/7.5 s (6859 schedules, 900 distinct states, 5000 merged)".
    pub fn statement(&self) -> String {
        let grid: Vec<String> = self.grid_ms.iter().map(|t| format!("{}.{}", t / 1000, (t % 1000) / 100)).collect();
        let what = match self.property {
            Property::LeaderMinusOne => "leader -1",
            Property::TwoControllers => "two controllers",
        };
        let c = &self.counts;
        let bound = format!("schedule of ≤ {} faults on grid {} s", self.max_faults, grid.join("/"));
        let merging = if self.merge { format!("{} merged", c.merged) } else { String::from("merging off") };
        match (&self.violation, self.exhausted) {
            (Some(v), _) => format!(
                "{}: {what} in a {bound}: {} faults ({} distinct states reached, {merging})",
                self.mode,
                v.len(),
                c.distinct_states
            ),
            (None, true) => format!(
                "{}: no {what} in any {bound} ({} schedules, {} distinct states, {merging})",
                self.mode, c.schedules, c.distinct_states
            ),
            (None, false) => format!(
                "{}: no {what} so far in the {bound}s ({} distinct states reached, {merging}; not exhausted)",
                self.mode, c.distinct_states
            ),
        }
    }
}

/// Σ_{j=0..k} C(g, j)·Aʲ: the schedules of at most `k` faults, one per grid time (saturating).
pub fn schedule_count(grid: usize, k: usize, alphabet: usize) -> u64 {
    let mut total = 0u64;
    let mut choose = 1u64; // C(g, j)
    let mut pow = 1u64; // A^j
    for j in 0..=k.min(grid) {
        total = total.saturating_add(choose.saturating_mul(pow));
        choose = choose.saturating_mul((grid - j) as u64) / (j as u64 + 1);
        pow = pow.saturating_mul(alphabet as u64);
    }
    total
}

struct Node {
    world: World,
    /// First grid slot free for the next fault.
    next_slot: usize,
    path: Vec<ScriptEntry>,
}

/// A bounded exhaustive search in progress (depth-first, an explicit stack: work in slices).
pub struct Exhaustive {
    opts: Options,
    grid: Vec<u64>,
    merge: bool,
    alphabet: Vec<Command>,
    stack: Vec<Node>,
    /// (grid slot, state hash) → fewest faults it was reached with.
    seen: BTreeMap<(usize, u64), usize>,
    counts: Counts,
    violation: Option<Vec<ScriptEntry>>,
}

fn two_controllers(w: &World) -> bool {
    w.alerts().iter().any(|a| a.kind == AlertKind::MultipleControllers)
}

impl Exhaustive {
    /// A search of `base`'s cluster (its script is ignored) with `opts` (mode, seed, property,
    /// max_faults, settle_ms, operator), faults at the times of `grid` (ms, increasing).
    pub fn new(base: &Scenario, opts: &Options, grid: &[u64], merge: bool) -> Result<Exhaustive, String> {
        if grid.is_empty() || grid.windows(2).any(|w| w[0] >= w[1]) || grid[0] == 0 {
            return Err(String::from("the grid must be increasing times after 0 ms"));
        }
        let mut base = base.clone();
        base.pin_zookeeper();
        // No resets: the grid cannot aim one at the few milliseconds a reset matters in (a read on
        // the wire), and they would grow the tree by a sixth per fault.
        let alphabet = alphabet(&base, opts.operator, false);
        let root = super::with_schedule(&base, &[], opts.settle_ms);
        let mut world = World::with_mode(&root, opts.seed, opts.mode).map_err(|e| format!("{e}"))?;
        world.set_render(false);
        Ok(Exhaustive {
            opts: opts.clone(),
            grid: grid.to_vec(),
            merge,
            alphabet,
            stack: alloc::vec![Node { world, next_slot: 0, path: Vec::new() }],
            seen: BTreeMap::new(),
            counts: Counts { distinct_states: 1, ..Counts::default() },
            violation: None,
        })
    }

    /// True when the search is over (exhausted, or a violation found).
    pub fn done(&self) -> bool {
        self.stack.is_empty() || self.violation.is_some()
    }

    /// States expanded so far.
    pub fn expanded(&self) -> u64 {
        self.counts.distinct_states - self.stack.len() as u64
    }

    /// Expands up to `n` more states; returns the schedules judged (each expanded state's own
    /// schedule, with whether it violated the property).
    pub fn run(&mut self, n: u64) -> Vec<(Vec<ScriptEntry>, bool)> {
        let mut judged = Vec::new();
        for _ in 0..n {
            if self.done() {
                break;
            }
            let Some(node) = self.stack.pop() else { break };
            let bad = self.expand(node, &mut judged);
            if bad.is_some() {
                self.violation = bad;
            }
        }
        judged
    }

    /// Runs to the end (or the first violation).
    pub fn run_to_end(&mut self) -> Verdict {
        while !self.done() {
            self.run(64);
        }
        self.verdict()
    }

    /// The verdict so far.
    pub fn verdict(&self) -> Verdict {
        let exhausted = self.stack.is_empty() && self.violation.is_none();
        let mut counts = self.counts.clone();
        counts.schedules =
            if exhausted { schedule_count(self.grid.len(), self.opts.max_faults, self.alphabet.len()) } else { 0 };
        Verdict {
            mode: String::from(self.opts.mode.name()),
            property: self.opts.property,
            max_faults: self.opts.max_faults,
            grid_ms: self.grid.clone(),
            alphabet: self.alphabet.len(),
            merge: self.merge,
            exhausted,
            counts,
            violation: self.violation.clone(),
        }
    }

    fn step_checked(&mut self, w: &mut World, until: Option<u64>, prefix_bad: &mut bool) -> bool {
        let e = match until {
            Some(t) => w.step_until(t),
            None => w.step(),
        };
        if e.is_none() {
            return false;
        }
        self.counts.steps += 1;
        if self.opts.property == Property::TwoControllers && two_controllers(w) {
            *prefix_bad = true;
        }
        true
    }

    /// Judges `node`'s schedule and pushes its children; returns a violating schedule.
    fn expand(&mut self, node: Node, judged: &mut Vec<(Vec<ScriptEntry>, bool)>) -> Option<Vec<ScriptEntry>> {
        // (1) The schedule that stops here.
        let mut w = node.world.clone();
        let mut bad = self.opts.property == Property::TwoControllers && two_controllers(&w);
        let mut guard = 0u64;
        while guard < STEP_GUARD && self.step_checked(&mut w, None, &mut bad) {
            guard += 1;
        }
        bad |= self.opts.property == Property::LeaderMinusOne
            && w.alerts().iter().any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr);
        judged.push((node.path.clone(), bad));
        if bad {
            return Some(node.path);
        }
        // (2) One more fault at each later grid time.
        if node.path.len() >= self.opts.max_faults {
            return None;
        }
        let used = node.path.len() + 1;
        let mut adv = node.world;
        let mut children = Vec::new();
        for slot in node.next_slot..self.grid.len() {
            let t = self.grid[slot];
            let mut prefix_bad = false;
            let mut guard = 0u64;
            while guard < STEP_GUARD && self.step_checked(&mut adv, Some(t - 1), &mut prefix_bad) {
                guard += 1;
            }
            for cmd in &self.alphabet {
                let mut child = adv.clone();
                if child.apply_at(t, cmd).is_err() {
                    self.counts.impossible += 1;
                    continue;
                }
                self.counts.steps += 1;
                child.set_end(t + self.opts.settle_ms);
                let mut path = node.path.clone();
                path.push(ScriptEntry { at_ms: t, command: cmd.clone() });
                // Two controllers on the way to this fault, or at it: every schedule placing it
                // there violates.
                if prefix_bad || (self.opts.property == Property::TwoControllers && two_controllers(&child)) {
                    judged.push((path.clone(), true));
                    return Some(path);
                }
                if self.merge {
                    let key = (slot, child.state_hash());
                    match self.seen.get(&key) {
                        Some(&k) if k <= used => {
                            self.counts.merged += 1;
                            continue;
                        }
                        _ => {
                            self.seen.insert(key, used);
                        }
                    }
                }
                self.counts.distinct_states += 1;
                children.push(Node { world: child, next_slot: slot + 1, path });
            }
        }
        // Depth-first in enumeration order: the first child on top.
        children.reverse();
        self.stack.extend(children);
        None
    }
}

impl super::Explorer {
    /// The next schedule judged by the exhaustive tree (default grid [`GRID_MS`], merging on),
    /// with whether it violated; `None` once the tree is exhausted.
    pub(super) fn next_exhaustive(&mut self) -> Option<(Vec<ScriptEntry>, bool)> {
        if self.tree.is_none() {
            self.tree = Exhaustive::new(&self.base, &self.opts, &GRID_MS, true).ok();
        }
        let tree = self.tree.as_mut()?;
        while !tree.done() {
            if let Some(last) = tree.run(1).pop() {
                return Some(last);
            }
        }
        None
    }
}
