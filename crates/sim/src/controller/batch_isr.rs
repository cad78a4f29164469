//! `ReplicaStateMachine` → OfflineReplica as Kafka 1.1.0 and 2.1.0 run it (property
//! [`batched_isr_removal`](crate::mode::Behaviour::batched_isr_removal)): the replicas of each dead
//! broker leave their ISRs in one batch per broker (2.1.0 RSM:104 `replicas.groupBy(_.replica)`;
//! RSM = `core/src/main/scala/kafka/controller/ReplicaStateMachine.scala`), through
//! `removeReplicasFromIsr` / `doRemoveReplicasFromIsr` (1.1.0 RSM:254/282, 2.1.0 RSM:266/294):
//! 1. one pipelined read of the partitions' state znodes (`getTopicPartitionStatesFromZk`,
//!    2.1.0 RSM:330): a missing znode or one written by a newer controller epoch fails;
//! 2. for each state whose ISR holds the replica: the leader becomes -1 if the replica led
//!    *in ZooKeeper's state* (no election here, as in 1.0), and
//!    `adjustedIsr = if (isr.size == 1) isr else isr - replica` (1.1.0 RSM:290, 2.1.0 RSM:302):
//!    the last ISR member is kept, whatever unclean election says ([`remove_from_isr_batched`]);
//! 3. one pipelined `updateLeaderAndIsr` (2.1.0 KafkaZkClient.scala:245), each write conditional on
//!    the version read (and fenced with fenced writes); `BADVERSION` retries those partitions
//!    (here `remaining = removalsToRetry`, 2.1.0 RSM:273);
//! 4. the written states, and the read states that did not hold the replica, are cached with this
//!    controller's epoch (2.1.0 RSM:313-317) and sent as LeaderAndIsr to the partition's other
//!    replicas (RSM:212-220); the replica is OfflineReplica.
//!
//! Logged: only TRACE "Changed state of replica … from OnlineReplica to OfflineReplica" (2.1.0
//! RSM:389-391); 1.0's INFO "New leader and ISR for partition …" is gone. The model adds the
//! written state and, when the cache disagreed with ZooKeeper, why no election ran.
use super::partition_state::parse_state;
use super::{Controller, ControllerIo, Exec};
use crate::event::EventKind;
use crate::ids::{BrokerId, TopicPartition};
use crate::znodes::leader_isr_json;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A micro-step of a batched OfflineReplica transition for one dead replica.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// `getTopicPartitionStatesFromZk(partitions)`.
    Read(BrokerId, Vec<TopicPartition>),
    /// `updateLeaderAndIsr`: each state without the replica, at the version read.
    Write(BrokerId, Vec<(TopicPartition, LeaderIsr, i32)>),
}

impl Step {
    pub(super) fn name(&self) -> String {
        match self {
            Step::Read(r, tps) => format!("removeReplicasFromIsr({r}): read {} partitions", tps.len()),
            Step::Write(r, w) => format!("removeReplicasFromIsr({r}): updateLeaderAndIsr ({} partitions)", w.len()),
        }
    }

    /// The partitions whose state znodes this step writes.
    pub(super) fn writing(&self) -> Vec<TopicPartition> {
        match self {
            Step::Write(_, w) => w.iter().map(|(tp, ..)| tp.clone()).collect(),
            Step::Read(..) => Vec::new(),
        }
    }

    /// The request half.
    pub(super) fn request(&self, _c: &mut Controller, _io: &mut ControllerIo) -> Exec {
        Exec::WaitAll(match self {
            Step::Read(_, tps) => tps.iter().map(|tp| ZkOp::GetData { path: tp.state_path(), watch: false }).collect(),
            Step::Write(_, writes) => writes
                .iter()
                .map(|(tp, state, version)| ZkOp::SetData {
                    path: tp.state_path(),
                    data: ZData::PartitionState { state: state.clone() },
                    version: *version,
                })
                .collect(),
        })
    }

    /// The response half: every pipelined response, in the order sent.
    pub(super) fn on_responses(self, c: &mut Controller, results: Vec<ZkResult>, io: &mut ControllerIo) {
        match self {
            Step::Read(r, tps) => c.on_batch_isr_read(r, tps, results, io),
            Step::Write(r, writes) => {
                let mut retry = Vec::new();
                for ((tp, state, _), result) in writes.into_iter().zip(results) {
                    match result {
                        ZkResult::Written { stat } => c.batch_isr_removed(&tp, r, state, stat.version, io),
                        ZkResult::Error { code: ZkError::BadVersion } => retry.push(tp),
                        ZkResult::Error { code } => {
                            c.replica_failed(&tp, r, format!("KeeperException: {}", code.name()), io)
                        }
                        _ => c.replica_failed(&tp, r, "unexpected response".into(), io),
                    }
                }
                if !retry.is_empty() {
                    c.then(Step::Read(r, retry));
                }
            }
        }
    }
}

/// 1.1.0/2.1.0's new state after taking `replica` out of the ISR (`doRemoveReplicasFromIsr`), or
/// `None` if the ISR does not hold it: the leader becomes -1 if `replica` leads *in this state*,
/// and a size-1 ISR is left as it is.
pub fn remove_from_isr_batched(current: &LeaderIsr, replica: BrokerId, controller_epoch: i32) -> Option<LeaderIsr> {
    // 1.0's arithmetic with unclean election off: the last ISR member is kept.
    super::remove_isr::remove_from_isr(current, replica, false, controller_epoch)
}

impl Controller {
    /// `doRemoveReplicasFromIsr` with the states read.
    fn on_batch_isr_read(
        &mut self,
        r: BrokerId,
        tps: Vec<TopicPartition>,
        results: Vec<ZkResult>,
        io: &mut ControllerIo,
    ) {
        let epoch = self.ctx.epoch;
        let mut writes = Vec::new();
        for (tp, result) in tps.into_iter().zip(&results) {
            let Some((current, version)) = parse_state(result) else {
                self.replica_failed(
                    &tp,
                    r,
                    format!("StateChangeFailedException: Failed to change state of replica {r} for partition {tp} since the leader and isr path in zookeeper is empty"),
                    io,
                );
                continue;
            };
            if current.controller_epoch > epoch {
                self.replica_failed(
                    &tp,
                    r,
                    format!("StateChangeFailedException: Leader and isr path written by another controller. This probablymeans the current controller with epoch {epoch} went through a soft failure and another controller was elected with epoch {}. Aborting state change by this controller", current.controller_epoch),
                    io,
                );
                continue;
            }
            match remove_from_isr_batched(&current, r, epoch) {
                Some(state) => writes.push((tp, state, version)),
                None => {
                    // leaderAndIsrsWithoutReplica: cached with this controller's epoch, sent on.
                    let state = LeaderIsr { controller_epoch: epoch, ..current };
                    self.slog(
                        io,
                        EventKind::Info,
                        || format!(
                            "Changed state of replica {r} for partition {tp} from OnlineReplica to OfflineReplica (not in the ISR: {})",
                            leader_isr_json(&state)
                        ),
                    );
                    self.offline_replica(&tp, r, state, version);
                }
            }
        }
        if !writes.is_empty() {
            self.then(Step::Write(r, writes));
        }
    }

    /// The ISR without `r` is in ZooKeeper.
    fn batch_isr_removed(
        &mut self,
        tp: &TopicPartition,
        r: BrokerId,
        state: LeaderIsr,
        version: i32,
        io: &mut ControllerIo,
    ) {
        let (kind, why) = self.note_isr_removed(tp, r, &state, version, io);
        self.slog(
            io,
            kind,
            || format!(
                "Changed state of replica {r} for partition {tp} from OnlineReplica to OfflineReplica; state znode now {} (zkVersion {version}){why}",
                leader_isr_json(&state)
            ),
        );
        self.offline_replica(tp, r, state, version);
    }

    /// `logFailedStateChange(replica, currState, OfflineReplica, e)` (2.1.0 RSM:401-405).
    fn replica_failed(&mut self, tp: &TopicPartition, r: BrokerId, why: String, io: &mut ControllerIo) {
        let (id, epoch) = (io.id, self.ctx.epoch);
        self.slog(io, EventKind::Info, || {
            format!(
                "Controller {id} epoch {epoch} initiated state change of replica {r} for partition {tp} from OnlineReplica to OfflineReplica failed: {why}"
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::remove_isr::remove_from_isr;
    use alloc::vec;

    fn li(leader: BrokerId, epoch: i32, isr: &[BrokerId]) -> LeaderIsr {
        LeaderIsr { leader, leader_epoch: epoch, isr: isr.to_vec(), controller_epoch: 7 }
    }

    #[test]
    fn a_size_one_isr_is_kept_whatever_unclean_election_says() {
        // 1.1.0 RSM:290 / 2.1.0 RSM:302: `if (isr.size == 1) isr else isr - r`.
        let r = remove_from_isr_batched(&li(2, 4, &[2]), 2, 9).unwrap();
        assert_eq!(r, LeaderIsr { leader: -1, leader_epoch: 5, isr: vec![2], controller_epoch: 9 });
        // 1.0's rule empties it when unclean election is enabled: the two differ exactly there.
        assert_eq!(remove_from_isr(&li(2, 4, &[2]), 2, true, 9).unwrap().isr, Vec::<BrokerId>::new());
        // Otherwise the same arithmetic: leader -1 when ZooKeeper's leader is the replica.
        let r = remove_from_isr_batched(&li(1, 14, &[1, 2]), 1, 9).unwrap();
        assert_eq!(r, LeaderIsr { leader: -1, leader_epoch: 15, isr: vec![2], controller_epoch: 9 });
        assert_eq!(Some(r), remove_from_isr(&li(1, 14, &[1, 2]), 1, false, 9));
        assert_eq!(remove_from_isr_batched(&li(3, 13, &[3, 2]), 1, 9), None);
    }
}
