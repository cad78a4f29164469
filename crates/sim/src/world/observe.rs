//! What the world shows the nodes after every step, as each would observe it (the nodes decide
//! what to do about it): each consumer whether its coordinator answers, each partition leader
//! which followers fetch from it, each ZooKeeper leader which sessions' touches reach it (the
//! implicit PING round). Incremental: it asks only what a step could have moved (see `caches.rs`).
use super::caches::{FollowerView, IsrSeen};
use super::step_log::StepLog;
use super::World;
use crate::broker::{Broker, LocalPartition};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use alloc::vec::Vec;

impl World {
    /// Which followers fetch from `leader` (alive, linked both ways with it, following it for the
    /// partition asked about), as [`crate::broker::Fetching`]. The part that does not depend on
    /// the partition is asked once per broker here. With `views`, a follower's replicas are read
    /// from its [`FollowerView`] (up to date after a step's views were taken): the partition is
    /// first looked for at the place it has among the leader's replicas, where a follower holding
    /// the same partitions has it too (no lookup per partition and replica).
    pub(super) fn fetching(
        &self,
        leader: BrokerId,
        views: bool,
    ) -> impl FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + '_ {
        // The leader itself is left out: it leads the partitions it is asked about.
        let reach: Vec<(BrokerId, &Broker, Option<&FollowerView>)> = self
            .brokers
            .iter()
            .filter(|(id, b)| {
                **id != leader && b.alive && self.net.both_up(NodeId::Broker(leader), NodeId::Broker(**id))
            })
            .map(|(id, b)| (*id, &**b, if views { self.isr_seen.get(id).map(|s| &s.view) } else { None }))
            .collect();
        debug_assert!(reach.iter().all(|(_, b, v)| v.is_none_or(|v| v.is(b))), "a follower view moved unseen");
        move |i: usize, tp: &TopicPartition, lp: &LocalPartition| {
            let mut bits = 0u64;
            for (j, r) in lp.replicas.iter().enumerate() {
                let Some((_, b, view)) = reach.iter().find(|(id, _, _)| id == r) else { continue };
                let follows = match view {
                    Some(v) => v.follows(i, tp) == Some(leader),
                    None => b.partitions.get(tp).is_some_and(|p| !p.is_leader && p.leader == leader),
                };
                bits |= (follows as u64) << j;
            }
            bits
        }
    }

    /// [`World::fetching`] for the partitions `leader` leads, owned (the broker's handler runs
    /// while the world is borrowed mutably), read from the brokers themselves.
    pub(super) fn fetching_owned(
        &self,
        leader: BrokerId,
    ) -> impl FnMut(usize, &TopicPartition, &LocalPartition) -> u64 {
        let mut fetching = self.fetching(leader, false);
        let led: Vec<(TopicPartition, u64)> = self.brokers[&leader]
            .partitions
            .iter()
            .enumerate()
            .filter(|(_, (_, p))| p.is_leader)
            .map(|(i, (tp, p))| (tp.clone(), fetching(i, tp, p)))
            .collect();
        move |_: usize, tp: &TopicPartition, _: &LocalPartition| {
            led.iter().find(|(t, _)| t == tp).map_or(0, |(_, bits)| *bits)
        }
    }

    /// After every step the world tells the nodes what they would observe now: each consumer
    /// whether its coordinator is healthy, each partition leader which followers fetch from it.
    /// The nodes decide what to do about it.
    pub(super) fn post_step(&mut self, log: &mut StepLog) {
        let mut next = self.consumers.keys().next().copied();
        while let Some(id) = next {
            next = self.consumers.key_after(&id).copied();
            let c = &self.consumers[&id];
            let Some(coord) = c.coordinator else { continue };
            let healthy = self
                .brokers
                .get(&coord)
                .map(|b| b.alive && b.owned_offsets_partitions.contains(&c.partition))
                .unwrap_or(false)
                && self.net.both_up(NodeId::Client(id), NodeId::Broker(coord));
            if let Some(wait) = c.heartbeat_due(healthy, self.now) {
                self.with_consumer(id, log, |c, out| c.schedule_heartbeat(wait, out));
            }
        }
        if !self.plane_observe(log) {
            return;
        }
        // What an ISR check reads (the brokers, the links) is unchanged since the last step left
        // every leader with nothing due (or a check pending): nothing can be due now.
        if self.touched.brokers.is_empty() && !self.touched.net {
            return;
        }
        // A leader's check reads its own state, the links, and what the other brokers show it
        // (their process and which leader each of their replicas follows). A leader is looked at
        // again only if what it reads of itself, the links or some broker's view changed.
        let mut views_changed = self.touched.net && self.broker_links_moved();
        let mut own_changed: Vec<BrokerId> = Vec::new();
        for i in 0..self.touched.brokers.len() {
            let b = self.touched.brokers[i];
            let Some(br) = self.brokers.get(&b) else { continue };
            let stamp = br.partitions_stamp.0;
            match self.isr_seen.get_mut(&b) {
                Some(seen) => {
                    // Replicas not written since: the same view (debug builds check it).
                    let written = seen.stamp != stamp;
                    seen.stamp = stamp;
                    if (written || seen.view.alive != br.alive) && !seen.view.is(br) {
                        seen.view = FollowerView::of(br);
                        views_changed = true;
                    }
                    debug_assert!(seen.view.is(br), "b{b}'s follower view moved unseen");
                    let own = IsrSeen::own(br);
                    if seen.own != own {
                        seen.own = own;
                        own_changed.push(b);
                    }
                }
                None => {
                    let own = IsrSeen::own(br);
                    self.isr_seen.insert(b, IsrSeen { view: FollowerView::of(br), own, stamp });
                    views_changed = true;
                }
            }
        }
        // A leader skipped has nothing due: nothing it reads moved since it last found nothing due
        // (or scheduled a check). Debug builds ask it anyway.
        debug_assert!(
            self.brokers
                .keys()
                .filter(|b| !views_changed && !own_changed.contains(b))
                .all(|b| self.brokers[b].isr_check_due(&mut self.fetching(*b, true), &self.cfg).is_none()),
            "a leader skipped with a check due"
        );
        // The others, in id order (their checks are scheduled in that order); usually none.
        let looked_at: Vec<BrokerId> = if views_changed {
            self.brokers.keys().copied().collect()
        } else {
            crate::sorted::sort(&mut own_changed);
            own_changed
        };
        for b in looked_at {
            let due = self.brokers[&b].isr_check_due(&mut self.fetching(b, true), &self.cfg);
            if let Some(wait) = due {
                let mut out = self.outbox();
                self.broker_mut(b).schedule_isr_check(wait, &mut out);
                self.route(NodeId::Broker(b), out, log);
            }
        }
    }

    /// Whether some link between two brokers (what an ISR check reads of the network) came up or
    /// went down since this was last asked; remembers the links as they are now.
    fn broker_links_moved(&mut self) -> bool {
        let ids: Vec<BrokerId> = self.brokers.keys().copied().collect();
        let mut now = Vec::with_capacity(ids.len() * ids.len());
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                now.push(self.net.both_up(NodeId::Broker(*a), NodeId::Broker(*b)));
            }
        }
        let moved = now != self.isr_links;
        self.isr_links = now;
        moved
    }
}
