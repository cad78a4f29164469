//! `BrokerChange` (1.0): re-read `/brokers/ids` when the event is processed (KAFKA-5502), then
//! `onBrokerStartup` for the new brokers and `onBrokerFailure` for the dead ones. A dead broker's
//! replicas go Offline through `removeReplicaFromIsr` (`remove_isr.rs`), which reads the state
//! znode and writes it back without the replica — taking the leader from what ZooKeeper says,
//! while whether a partition needs an election at all was decided from the controller's cache
//! (`onReplicasBecomeOffline`).
use super::{readable_brokers, remove_isr, short_list, Controller, ControllerIo, Exec, Step as AnyStep};
use crate::controller::partition_state::PartitionState;
use crate::controller::replica_state::ReplicaState;
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, TopicPartition};
use crate::mark::Mark;
use crate::vec_map::VecMap;
use crate::zookeeper::ops::{ZkOp, ZkResult};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A micro-step of `BrokerChange`.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// `getAllBrokersInCluster`: the children of `/brokers/ids`…
    ReadBrokerIds,
    /// …and each registration.
    ReadBrokers(Vec<String>),
    /// `onBrokerStartup` for these brokers.
    BrokerStartup(Vec<BrokerId>),
    /// `onBrokerFailure` for these brokers.
    BrokerFailure(Vec<BrokerId>),
}

impl Step {
    pub(super) fn name(&self) -> String {
        match self {
            Step::ReadBrokerIds | Step::ReadBrokers(_) => "BrokerChange: getAllBrokersInCluster".into(),
            Step::BrokerStartup(_) => "onBrokerStartup".into(),
            Step::BrokerFailure(_) => "onBrokerFailure".into(),
        }
    }

    /// The request half.
    pub(super) fn request(&self, c: &mut Controller, io: &mut ControllerIo) -> Exec {
        match self {
            Step::ReadBrokerIds => {
                c.listeners = true;
                Exec::Wait(ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true })
            }
            Step::ReadBrokers(paths) => Exec::Wait(ZkOp::GetDataMany { paths: paths.clone() }),
            Step::BrokerStartup(new) => {
                c.on_broker_startup(new, io);
                Exec::Done
            }
            Step::BrokerFailure(dead) => {
                c.on_broker_failure(dead, io);
                Exec::Done
            }
        }
    }

    /// The response half.
    pub(super) fn on_response(self, c: &mut Controller, result: ZkResult, io: &mut ControllerIo) {
        match self {
            Step::ReadBrokerIds => {
                let paths = super::children(&result).iter().map(|n| format!("/brokers/ids/{n}")).collect();
                c.then(Step::ReadBrokers(paths));
            }
            Step::ReadBrokers(paths) => c.on_brokers_read(&paths, &result, io),
            // Local steps never wait on ZooKeeper.
            Step::BrokerStartup(_) | Step::BrokerFailure(_) => {}
        }
    }
}

impl Controller {
    /// `BrokerChange.process` with the registrations read: which brokers came and went.
    fn on_brokers_read(&mut self, paths: &[String], result: &ZkResult, io: &mut ControllerIo) {
        let cur = readable_brokers(paths, result);
        let old = &self.ctx.live_brokers;
        let new: Vec<BrokerId> = cur.difference(old).copied().collect();
        let dead: Vec<BrokerId> = old.difference(&cur).copied().collect();
        io.log(EventKind::Info, || {
            format!(
                "Newly added brokers: {}, deleted brokers: {}, all live brokers: {}",
                fmt_ids(new.iter().copied()),
                fmt_ids(dead.iter().copied()),
                fmt_ids(cur.iter().copied())
            )
        });
        io.out.mark(Mark::BrokerChange {
            controller: io.id,
            added: new.clone(),
            deleted: dead.clone(),
            live: cur.iter().copied().collect(),
        });
        self.ctx.live_brokers = cur;
        let mut steps = Vec::new();
        if !new.is_empty() {
            steps.push(Step::BrokerStartup(new).into());
        }
        if !dead.is_empty() {
            steps.push(Step::BrokerFailure(dead).into());
        }
        self.push_front(steps);
    }

    /// `onBrokerStartup`: UpdateMetadata to everyone, the new brokers' replicas Online (with
    /// LeaderAndIsr), then `triggerOnlinePartitionStateChange`.
    fn on_broker_startup(&mut self, new: &[BrokerId], io: &mut ControllerIo) {
        io.log(EventKind::Info, || format!("New broker startup callback for {}", fmt_ids(new.iter().copied())));
        io.out.mark(Mark::BrokerStartup { controller: io.id, brokers: new.to_vec() });
        self.update_metadata_all(io);
        let assignment = self.ctx.assignment.clone();
        for (tp, replicas) in assignment.iter() {
            for r in replicas.iter().filter(|r| new.contains(r)) {
                self.replica_states.insert((tp.clone(), *r), ReplicaState::OnlineReplica);
                self.add_lai(&[*r], tp);
            }
        }
        self.flush(io);
        self.then(Controller::trigger_online(io));
    }

    /// `onBrokerFailure` → `onReplicasBecomeOffline`: partitions whose *cached* leader died go
    /// Offline (and get an election); every replica on a dead broker leaves its ISR.
    fn on_broker_failure(&mut self, dead: &[BrokerId], io: &mut ControllerIo) {
        io.log(EventKind::Info, || format!("Broker failure callback for {}", fmt_ids(dead.iter().copied())));
        for d in dead {
            self.held.remove(d);
        }
        let live = &self.ctx.live_brokers;
        // onReplicasBecomeOffline: "needs an election?" is decided from the cache.
        let without_leader: Vec<TopicPartition> = self
            .ctx
            .leadership
            .iter()
            .filter(|(_, c)| !live.contains(&c.state.leader))
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in &without_leader {
            self.partition_states.insert(tp.clone(), PartitionState::OfflinePartition);
        }
        io.log(EventKind::Info, || {
            format!(
                "Partitions whose cached leader is offline: {} — {}",
                without_leader.len(),
                if without_leader.is_empty() {
                    String::from("no leader election needed")
                } else {
                    short_list(&without_leader)
                }
            )
        });
        let mut steps = alloc::vec![Controller::trigger_online(io)];
        // 1.1.0+ (batched_isr_removal): one batch per dead replica, see batch_isr.rs.
        let batched = io.cfg.behaviour().batched_isr_removal;
        let mut batches: VecMap<BrokerId, Vec<TopicPartition>> = Default::default();
        for (tp, replicas) in self.ctx.assignment.iter() {
            for r in replicas.iter().filter(|r| dead.contains(r)) {
                if !self.ctx.leadership.contains_key(tp) {
                    self.replica_states.insert((tp.clone(), *r), ReplicaState::OfflineReplica);
                } else if batched {
                    batches.or_default(*r).push(tp.clone());
                } else {
                    steps.push(remove_isr::Step::Read(tp.clone(), *r).into());
                }
            }
        }
        steps.extend(batches.into_iter().map(|(r, tps)| super::batch_isr::Step::Read(r, tps).into()));
        steps.push(AnyStep::FlushBatch);
        if without_leader.is_empty() {
            steps.push(AnyStep::UpdateMetadataAll);
        }
        self.push_front(steps);
    }
}
