//! `BrokerChange` (1.0): re-read `/brokers/ids` when the event is processed (KAFKA-5502), then
//! `onBrokerStartup` for the new brokers and `onBrokerFailure` for the dead ones. A dead broker's
//! replicas go Offline through `removeReplicaFromIsr`, which reads the state znode and writes it
//! back without the replica — taking the leader from what ZooKeeper says, while whether a partition
//! needs an election at all was decided from the controller's cache (`onReplicasBecomeOffline`).
use super::{
    election, parse_state, readable_brokers, short_list, Cached, Controller, ControllerIo, Exec, Step as AnyStep,
};
use crate::controller::election::remove_from_isr;
use crate::controller::leader_isr_json;
use crate::controller::partition_state::PartitionState;
use crate::controller::replica_state::ReplicaState;
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, TopicPartition, NO_LEADER};
use crate::mark::Mark;
use crate::vec_map::VecMap;
use crate::zookeeper::{LeaderIsr, ZData, ZkOp, ZkResult};
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
    /// `removeReplicaFromIsr`: read the state znode.
    RemoveIsrRead(TopicPartition, BrokerId),
    /// `removeReplicaFromIsr`: write it without the replica, at the version read.
    RemoveIsrWrite(TopicPartition, BrokerId, LeaderIsr, i32),
}

impl Step {
    pub(super) fn name(&self) -> String {
        match self {
            Step::ReadBrokerIds | Step::ReadBrokers(_) => "BrokerChange: getAllBrokersInCluster".into(),
            Step::BrokerStartup(_) => "onBrokerStartup".into(),
            Step::BrokerFailure(_) => "onBrokerFailure".into(),
            Step::RemoveIsrRead(tp, r) | Step::RemoveIsrWrite(tp, r, ..) => format!("removeReplicaFromIsr({tp}, {r})"),
        }
    }

    /// The partition whose state znode this step writes, if it does.
    pub(super) fn writing(&self) -> Option<&TopicPartition> {
        match self {
            Step::RemoveIsrWrite(tp, ..) => Some(tp),
            _ => None,
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
            Step::RemoveIsrRead(tp, _) => Exec::Wait(ZkOp::GetData { path: tp.state_path(), watch: false }),
            Step::RemoveIsrWrite(tp, _, state, version) => Exec::Wait(ZkOp::SetData {
                path: tp.state_path(),
                data: ZData::PartitionState { state: state.clone() },
                version: *version,
            }),
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
            Step::RemoveIsrRead(tp, r) => c.on_remove_read(tp, r, result, io),
            Step::RemoveIsrWrite(tp, r, state, _) => match result {
                ZkResult::Written { stat } => c.isr_removed(&tp, r, state, stat.version, io),
                _ => c.then(election::Step::WriteCheck(tp, state, election::WriteKind::RemoveIsr(r))),
            },
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
                    steps.push(Step::RemoveIsrRead(tp.clone(), *r).into());
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

    /// `removeReplicaFromIsr` with the state znode read: the new state comes from what ZooKeeper
    /// says, not from the cache.
    fn on_remove_read(&mut self, tp: TopicPartition, r: BrokerId, result: ZkResult, io: &mut ControllerIo) {
        let epoch = self.ctx.epoch;
        let Some((current, version)) = parse_state(&result) else {
            io.log(EventKind::Info, || format!("Cannot remove replica {r} from ISR of {tp} - leaderAndIsr is empty."));
            return;
        };
        if current.controller_epoch > epoch {
            io.log(
                EventKind::Info,
                || format!(
                    "Leader and isr path written by another controller. This probably means the current controller with epoch {epoch} went through a soft failure and another controller was elected with epoch {}. Aborting state change by this controller",
                    current.controller_epoch
                ),
            );
            return;
        }
        match remove_from_isr(&current, r, io.cfg.unclean, epoch) {
            Some(state) => self.then(Step::RemoveIsrWrite(tp, r, state, version)),
            None => {
                io.log(
                    EventKind::Info,
                    || format!(
                        "Cannot remove replica {r} from ISR of partition {tp} since it is not in the ISR. Leader = {} ; ISR = [{}]",
                        current.leader,
                        fmt_ids(current.isr.iter().copied())
                    ),
                );
                self.ctx.cache(tp.clone(), Cached { state: current, zk_version: version });
                self.replica_states.insert((tp, r), ReplicaState::OfflineReplica);
            }
        }
    }

    /// The ISR without `r` is in ZooKeeper: cache it, the replica is Offline, and LeaderAndIsr goes
    /// to the partition's other replicas.
    pub(super) fn isr_removed(
        &mut self,
        tp: &TopicPartition,
        r: BrokerId,
        state: LeaderIsr,
        version: i32,
        io: &mut ControllerIo,
    ) {
        let (kind, why) = self.note_isr_removed(tp, r, &state, version, io);
        io.log(kind, || {
            format!("New leader and ISR for partition {tp} is {} (removed replica {r}){why}", leader_isr_json(&state))
        });
        self.offline_replica(tp, r, state, version);
    }

    /// Removing `r` from `tp`'s ISR wrote `state`: the [`Mark::IsrReplicaRemoved`], with the
    /// controller's cached leader, and the log kind and note for the line saying so (why no
    /// election ran when ZooKeeper's leader was not the one the cache held). Shared by 1.0's
    /// one-partition removal and 1.1+'s batch.
    pub(super) fn note_isr_removed(
        &self,
        tp: &TopicPartition,
        r: BrokerId,
        state: &LeaderIsr,
        zk_version: i32,
        io: &mut ControllerIo,
    ) -> (EventKind, String) {
        let cached_leader = self.ctx.leadership.get(tp).map(|c| c.state.leader);
        let kind = if state.leader == NO_LEADER { EventKind::LeaderChange } else { EventKind::Info };
        let why = match cached_leader {
            Some(cl) if state.leader == NO_LEADER && cl != r => format!(
                " — ZooKeeper said the leader was {r} while the controller's cache said {cl}, so no election was run"
            ),
            _ => String::new(),
        };
        io.out.mark(Mark::IsrReplicaRemoved {
            controller: io.id,
            partition: tp.clone(),
            replica: r,
            leader: state.leader,
            leader_epoch: state.leader_epoch,
            isr: state.isr.clone(),
            controller_epoch: state.controller_epoch,
            cached_leader,
            zk_version,
        });
        (kind, why)
    }

    /// Cache the state, LeaderAndIsr to the partition's other replicas, the replica is Offline.
    pub(super) fn offline_replica(&mut self, tp: &TopicPartition, r: BrokerId, state: LeaderIsr, version: i32) {
        self.ctx.cache(tp.clone(), Cached { state, zk_version: version });
        self.replica_states.insert((tp.clone(), r), ReplicaState::OfflineReplica);
        let others: Vec<BrokerId> =
            self.ctx.assignment.get(tp).map(|a| a.iter().copied().filter(|b| *b != r).collect()).unwrap_or_default();
        self.add_lai(&others, tp);
    }
}
