//! What one explorer run reached, as structured facts (marks and alert kinds, never log prose),
//! and the score the guided search ranks runs by: a run that put two controllers to work, let a
//! deposed controller's write land, or left an active controller's cache disagreeing with
//! ZooKeeper is closer to the 1.0 split brain than one that only moved the controller, and its
//! schedule is worth mutating. The facts also keep *where* those things happened (a few
//! `(time, broker)` hot spots), so a mutation can place a fault near them.
use crate::alerts::AlertKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::mark::Mark;
use crate::world::World;
use crate::Event;
use alloc::vec::Vec;

/// Most hot spots kept per run.
const MAX_HOT: usize = 16;

/// Structured facts one run reached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// `/controller` races won after the start.
    pub elections: u32,
    /// Some step had two live brokers acting as controller ([`AlertKind::MultipleControllers`]).
    pub two_controllers: bool,
    /// Partition-state writes by a deposed controller that ZooKeeper accepted
    /// ([`Mark::DeposedWriteAccepted`]).
    pub deposed_writes: u32,
    /// Some step had an active controller's cache disagreeing with ZooKeeper
    /// ([`AlertKind::CacheDivergence`]).
    pub cache_divergence: bool,
    /// The run ended with that disagreement still there.
    pub divergence_at_end: bool,
    /// A partition was at leader -1 with a live ISR member at some step
    /// ([`AlertKind::LeaderlessWithLiveIsr`], or an ISR removal that wrote leader -1).
    pub transient_minus_one: bool,
    /// `triggerControllerMove` ran ([`Mark::ControllerMoveTriggered`]).
    pub moves_triggered: u32,
    /// The property is violated (decided by the explorer, not by the observer).
    pub violated: bool,
    /// Where interesting things happened: a time and the broker it concerns (a new controller, a
    /// controller starting its elections, a deposed writer, the leader it wrote, an expired
    /// session's owner).
    pub hot: Vec<(u64, BrokerId)>,
    /// The first few deposed writes that left an ISR of two or more while an active controller's
    /// cache disagreed with ZooKeeper (see [`landed`]): when, by whom, and the leader each wrote (the broker whose death makes the active controller's ISR removal
    /// write leader -1, one per leader).
    pub deposed: Vec<(u64, BrokerId, BrokerId)>,
    /// ISR members left behind by an ISR removal that wrote leader -1 (1.0 keeps the last member
    /// in the ISR): when, and which broker. If that broker comes back, the partition is at
    /// leader -1 with a live ISR member, and a bare broker startup elects nothing.
    pub stranded: Vec<(u64, BrokerId)>,
    /// The first few accepted deposed writes that cannot end at leader -1 as they landed (see
    /// [`landed`]): when, by whom, the leader written, and the controller active then (`None`:
    /// none was, so the next one reads ZooKeeper afresh). A finisher can repair them: bring a
    /// broker back before the write so that a controller is active when it lands, or move the
    /// controller away from the leader written.
    pub unfit: Vec<(u64, BrokerId, BrokerId, Option<BrokerId>)>,
    /// The first few times a broker began `elect`'s read of the `/controller` holder (its create
    /// had just answered `NODEEXISTS`): when, and which broker. A reset of that broker's ZooKeeper
    /// connection (to the server named) while the read is on the wire makes 1.0's catch-all delete
    /// `/controller`.
    pub owner_reads: Vec<(u64, BrokerId, NodeId)>,
    /// Steps the run took.
    pub steps: u64,
    /// The brokers reading the `/controller` holder after the last step at each.
    reading: Vec<BrokerId>,
    /// The controller whose first election decision of its term was already seen (so each term
    /// records one hot spot, not fifty).
    last_selecting: Option<BrokerId>,
}

impl Facts {
    /// Takes in one step: its marks, and the alerts that hold after it.
    pub fn observe(&mut self, e: &Event, w: &World) {
        self.steps = e.step;
        // The alerts that hold after this step, first: a deposed write counts as a near miss only
        // if an active controller's cache now disagrees with ZooKeeper.
        let mut divergent = false;
        for a in w.alerts() {
            match a.kind {
                AlertKind::MultipleControllers => self.two_controllers = true,
                AlertKind::CacheDivergence => divergent = true,
                AlertKind::LeaderlessWithLiveIsr => self.transient_minus_one = true,
                AlertKind::NoCoordinator => {}
            }
        }
        self.cache_divergence |= divergent;
        self.divergence_at_end = divergent;
        if let NodeId::Broker(b) = e.node {
            let reading = reading_owner(w, b);
            if reading && !self.reading.contains(&b) && self.owner_reads.len() < MAX_HOT {
                let server = w.broker(b).map(|x| x.zk.server()).unwrap_or(NodeId::ZK);
                self.owner_reads.push((e.time_ms, b, server));
            }
            self.reading.retain(|x| *x != b);
            if reading {
                self.reading.push(b);
            }
        }
        for m in &e.marks {
            match m {
                Mark::ControllerElected { broker, .. } => {
                    self.elections += 1;
                    self.last_selecting = None;
                    self.hot(e.time_ms, *broker);
                }
                Mark::LeaderSelected { controller, .. } if self.last_selecting != Some(*controller) => {
                    self.last_selecting = Some(*controller);
                    self.hot(e.time_ms, *controller);
                }
                Mark::DeposedWriteAccepted { from, leader, isr, partition, .. } => {
                    if self.deposed_writes == 0 {
                        self.hot(e.time_ms, *from);
                    }
                    self.deposed_writes += 1;
                    if let Some(d) = landed(w, e.time_ms, *from, partition, *leader, isr) {
                        if self.deposed.len() < 4 && !self.deposed.iter().any(|x| x.2 == d.2) {
                            self.deposed.push(d);
                        }
                    } else if self.unfit.len() < 4 && *leader >= 0 && !self.unfit.iter().any(|x| x.2 == *leader) {
                        self.unfit.push((e.time_ms, *from, *leader, active(w)));
                    }
                }
                Mark::IsrReplicaRemoved { leader, isr, .. } if *leader < 0 => {
                    self.transient_minus_one = true;
                    for b in isr {
                        if self.stranded.len() < 4 && !self.stranded.iter().any(|s| s.1 == *b) {
                            self.stranded.push((e.time_ms, *b));
                        }
                    }
                }
                Mark::ControllerMoveTriggered { broker, .. } => {
                    self.moves_triggered += 1;
                    self.hot(e.time_ms, *broker);
                }
                Mark::SessionExpired { owner: NodeId::Broker(b), .. } => self.hot(e.time_ms, *b),
                _ => {}
            }
        }
    }

    fn hot(&mut self, t: u64, b: BrokerId) {
        if self.hot.len() < MAX_HOT && !self.hot.contains(&(t, b)) {
            self.hot.push((t, b));
        }
    }

    /// How close the run came to the split brain: higher is closer. A violation outranks all.
    pub fn score(&self) -> u32 {
        if self.violated {
            return 10_000;
        }
        // Weights from what random runs reach on seed-incident's cluster: two acting controllers,
        // a transient cache disagreement and a transient leader -1 are common (most runs with a
        // failover show them); a deposed controller's accepted write is rare (about 1 run in
        // 100) and is the 1.0 split brain's own step, so it dominates.
        let mut s = self.elections.min(3) + 3 * self.moves_triggered.min(2);
        s += 2 * self.two_controllers as u32 + self.cache_divergence as u32 + 2 * self.transient_minus_one as u32;
        if self.deposed_writes > 0 {
            s += 8;
        }
        if !self.deposed.is_empty() {
            s += 32 + 4 * self.deposed.len() as u32;
            // …and the deposed write left the active controller's cache disagreeing at the end.
            s += 10 * self.divergence_at_end as u32;
        }
        s
    }
}

/// A deposed controller's accepted write that can end at leader -1 (the step every found
/// counterexample goes through): it leaves another ISR member that is registered in ZooKeeper
/// (so the ISR removal that follows the written leader's death keeps a live member), and it landed under an active controller — not
/// the writer, not the leader written — whose cache names another leader for the partition (so
/// when the written leader dies, that controller elects nothing for it, reads the written leader
/// from ZooKeeper in its ISR removal, and writes -1). A write that lands while no controller is
/// active, or names the active controller itself, is read back afresh by the next controller
/// and heals. `(time, writer, leader written)`.
pub(crate) fn landed(
    w: &World,
    t: u64,
    from: BrokerId,
    partition: &TopicPartition,
    leader: BrokerId,
    isr: &[BrokerId],
) -> Option<(u64, BrokerId, BrokerId)> {
    let fooled = active(w).is_some_and(|c| {
        c != from
            && c != leader
            && w.brokers().any(|b| {
                b.id == c
                    && b.controller.ctx.loaded
                    && b.controller.ctx.leadership.get(partition).is_some_and(|p| p.state.leader != leader)
            })
    });
    let registered: Vec<BrokerId> = w
        .zk()
        .map(|zk| zk.children("/brokers/ids").iter().filter_map(|s| s.parse().ok()).collect())
        .unwrap_or_default();
    let kept = isr.iter().any(|m| *m != leader && registered.contains(m));
    (leader >= 0 && kept && fooled).then_some((t, from, leader))
}

/// Broker `b`'s `elect` is reading the `/controller` holder (its create answered `NODEEXISTS`).
/// It starts and ends only at steps of `b`.
pub(crate) fn reading_owner(w: &World, b: BrokerId) -> bool {
    w.broker(b).is_some_and(|x| x.alive && x.controller.reading_owner())
}

/// The active controller: the live broker that `/controller` names and that acts as controller.
/// Not every broker that believes it is active: one cut from ZooKeeper keeps `isActive` until it
/// hears of its session's expiry, yet never acts again while the cut holds.
pub(crate) fn active(w: &World) -> Option<BrokerId> {
    let c = w.zk_controller()?;
    w.brokers().any(|b| b.id == c && b.alive && b.is_active()).then_some(c)
}
