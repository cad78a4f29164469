//! Each candidate schedule of a search runs on a fresh world of the same cluster, seed and mode;
//! only the script (and the end time) differs. A [`Prototype`] builds that opening world once and
//! makes each schedule's world as a clone of it (the big maps are `Rc`-shared) plus the schedule,
//! instead of parsing, validating and building the steady state again for every candidate.
//!
//! **The invariant.** [`Prototype::world`] returns exactly the world
//! [`World::with_mode`] builds from the base with that script and end time: the same state and
//! the same queue, so the same run. It holds because of the order in which `with_mode` builds:
//!
//! 1. the script is the only part of the scenario that reaches the queue, and its items are pushed
//!    first, into an empty queue, sorted by `(at_ms, index in the script)`: sequence numbers
//!    `0..n`;
//! 2. everything else (the control plane, the brokers, the consumers, the ZooKeeper relay's first
//!    sync, which may queue items, and the alerts) reads the configuration but neither the script
//!    nor the end time, so it is the same for every schedule; its items take sequence numbers
//!    `n..`, in the order they were pushed.
//!
//! The queue orders items by `(time, sequence)`, so [`Prototype::world`] rebuilds it the same way:
//! the schedule's items first (same sort, sequence `0..n`), then the prototype's own items in
//! their order (which re-pushing keeps, sequence `n..`). Two items of the two groups compare as
//! they did (a script item's sequence is below every other), and two items of one group keep
//! their order. The configuration differs only in `end_ms`, which is set; the script is checked
//! against the cluster's nodes as [`Scenario::config`] checks it. Whatever does not fit that
//! shape (an invalid command, an end before the last fault, a cluster whose ZooKeeper ensemble
//! depends on the script because it names none, a base that does not build) is built the slow
//! way, by `with_mode` itself, so errors are the same too. `tests/prototype.rs` compares the two
//! paths' worlds (`Debug`) and full traces over many random schedules in every mode.
use crate::ids::NodeId;
use crate::scenario::{Mode, Scenario, ScenarioError, ScriptEntry};
use crate::sched::Queue;
use crate::world::{Item, World};
use alloc::vec::Vec;

/// The opening world of one (cluster, seed, mode), from which each schedule's world is made.
#[derive(Clone, Debug)]
pub struct Prototype {
    /// The base scenario without script or end time (the slow path adds them back).
    base: Scenario,
    seed: u64,
    mode: Mode,
    /// The opening world without a script, when the fast path applies.
    world: Option<World>,
}

impl Prototype {
    /// The prototype of `base`'s cluster (its script, end time and captions are ignored) with
    /// `seed` and `mode`.
    pub fn new(base: &Scenario, seed: u64, mode: Mode) -> Prototype {
        let mut base = base.clone();
        base.script.clear();
        base.end_ms = None;
        base.captions.clear();
        // Without an explicit ensemble, its size depends on whether the script names `zk`.
        let world = base.cluster.zookeeper.is_some().then(|| World::with_mode(&base, seed, mode).ok()).flatten();
        Prototype { base, seed, mode, world }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The scenario this prototype builds, with `script` and `end_ms`.
    pub fn scenario(&self, script: &[ScriptEntry], end_ms: Option<u64>) -> Scenario {
        let mut s = self.base.clone();
        s.script = script.to_vec();
        s.end_ms = end_ms;
        s
    }

    /// Exactly `World::with_mode(&self.scenario(script, end_ms), seed, mode)` (see the module's
    /// invariant), made from the prototype when it can be.
    pub fn world(&self, script: &[ScriptEntry], end_ms: Option<u64>) -> Result<World, ScenarioError> {
        match self.world.as_ref().and_then(|p| self.fast(p, script, end_ms)) {
            Some(w) => Ok(w),
            None => World::with_mode(&self.scenario(script, end_ms), self.seed, self.mode),
        }
    }

    fn fast(&self, proto: &World, script: &[ScriptEntry], end_ms: Option<u64>) -> Option<World> {
        let cfg = proto.config();
        // The checks of `Scenario::config` on the script; any failure takes the slow path, which
        // reports it.
        let known = |n: NodeId| match n {
            NodeId::Zk(_) => cfg.zk.servers.contains(&n),
            NodeId::Broker(b) => cfg.brokers.contains(&b),
            NodeId::Client(c) => cfg.consumers.iter().any(|x| x.id == c),
            NodeId::Voter(v) => (1..=crate::mode::KRAFT_VOTERS).contains(&v),
        };
        if script.iter().any(|e| e.command.validate(&known).is_err()) {
            return None;
        }
        let last = script.iter().map(|e| e.at_ms).max().unwrap_or(0);
        let end = end_ms.unwrap_or(last + 30_000);
        if end < last {
            return None;
        }
        let mut w = proto.clone();
        if w.cfg.end_ms != end {
            alloc::rc::Rc::make_mut(&mut w.cfg).end_ms = end;
        }
        let mut order: Vec<(usize, &ScriptEntry)> = script.iter().enumerate().collect();
        crate::sorted::sort_by_key(&mut order, |(i, e)| (e.at_ms, *i));
        let mut queue = Queue::default();
        for (_, e) in order {
            queue.push(e.at_ms, Item::Script(e.command.clone()));
        }
        for (t, item) in proto.queue.iter() {
            queue.push(t, item.clone());
        }
        w.queue = queue;
        Some(w)
    }
}
