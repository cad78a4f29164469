//! `KafkaController.removeReplicaFromIsr` (1.0), one partition at a time: read the state znode,
//! write it back without the replica at the version read, and after `BADVERSION` check whether the
//! write landed anyway (`ReplicationUtils.checkLeaderAndIsrZkData`, `write_landed` in partition_state.rs) or
//! start again from the read. The new state comes from what ZooKeeper says, not from the cache: a
//! leader that ZooKeeper names is taken out even when the cache named another, and no election
//! runs here. `onBrokerFailure` (`broker_change.rs`) queues it for every replica of a dead broker;
//! 1.1.0+ batches it instead (`batch_isr.rs`, which shares the ending, [`Controller::isr_removed`]'s
//! mark and [`Controller::offline_replica`]).
//!
//! The arithmetic is a pure function, [`remove_from_isr`], tested on its own.
use super::partition_state::{parse_state, write_landed};
use super::{Cached, Controller, ControllerIo, Exec};
use crate::controller::replica_state::ReplicaState;
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, TopicPartition, NO_LEADER};
use crate::mark::Mark;
use crate::znodes::leader_isr_json;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::{ZkOp, ZkResult};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A micro-step of `removeReplicaFromIsr`.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// Read the state znode.
    Read(TopicPartition, BrokerId),
    /// Write it without the replica, at the version read.
    Write(TopicPartition, BrokerId, LeaderIsr, i32),
    /// `checkLeaderAndIsrZkData`: after a failed write, did it land anyway?
    WriteCheck(TopicPartition, LeaderIsr, BrokerId),
}

impl Step {
    pub(super) fn name(&self) -> String {
        match self {
            Step::Read(tp, r) | Step::Write(tp, r, ..) => format!("removeReplicaFromIsr({tp}, {r})"),
            Step::WriteCheck(tp, ..) => format!("checkLeaderAndIsrZkData({tp})"),
        }
    }

    /// The partition whose state znode this step writes, if it does.
    pub(super) fn writing(&self) -> Option<&TopicPartition> {
        match self {
            Step::Write(tp, ..) | Step::WriteCheck(tp, ..) => Some(tp),
            Step::Read(..) => None,
        }
    }

    /// The request half.
    pub(super) fn request(&self, _c: &mut Controller, _io: &mut ControllerIo) -> Exec {
        match self {
            Step::Read(tp, _) | Step::WriteCheck(tp, ..) => {
                Exec::Wait(ZkOp::GetData { path: tp.state_path(), watch: false })
            }
            Step::Write(tp, _, state, version) => Exec::Wait(ZkOp::SetData {
                path: tp.state_path(),
                data: ZData::PartitionState { state: state.clone() },
                version: *version,
            }),
        }
    }

    /// The response half.
    pub(super) fn on_response(self, c: &mut Controller, result: ZkResult, io: &mut ControllerIo) {
        match self {
            Step::Read(tp, r) => c.on_remove_read(tp, r, result, io),
            Step::Write(tp, r, state, _) => match result {
                ZkResult::Written { stat } => c.isr_removed(&tp, r, state, stat.version, io),
                _ => c.then(Step::WriteCheck(tp, state, r)),
            },
            Step::WriteCheck(tp, intended, r) => match write_landed(&result, intended) {
                Some((s, v)) => c.isr_removed(&tp, r, s, v, io),
                None => c.then(Step::Read(tp, r)),
            },
        }
    }
}

impl Controller {
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
            Some(state) => self.then(Step::Write(tp, r, state, version)),
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

/// The new state after taking `replica` out of the ISR, or `None` if it is not in the ISR. If the
/// replica is the leader *in this state*, the leader becomes -1 (`LeaderAndIsr.NoLeader`): no
/// election happens here. The last ISR member is kept unless unclean election is enabled.
pub fn remove_from_isr(
    current: &LeaderIsr,
    replica: BrokerId,
    unclean_allowed: bool,
    controller_epoch: i32,
) -> Option<LeaderIsr> {
    if !current.isr.contains(&replica) {
        return None;
    }
    let leader = if current.leader == replica { NO_LEADER } else { current.leader };
    let mut isr: Vec<BrokerId> = current.isr.iter().copied().filter(|r| *r != replica).collect();
    if isr.is_empty() && !unclean_allowed {
        isr = current.isr.clone();
    }
    Some(LeaderIsr { leader, leader_epoch: current.leader_epoch + 1, isr, controller_epoch })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn li(leader: BrokerId, epoch: i32, isr: &[BrokerId]) -> LeaderIsr {
        LeaderIsr { leader, leader_epoch: epoch, isr: isr.to_vec(), controller_epoch: 7 }
    }

    #[test]
    fn removing_the_leader_writes_no_leader() {
        let r = remove_from_isr(&li(1, 14, &[1, 2]), 1, false, 9).unwrap();
        assert_eq!(r, LeaderIsr { leader: -1, leader_epoch: 15, isr: vec![2], controller_epoch: 9 });
        let r = remove_from_isr(&li(3, 13, &[3, 1, 2]), 1, false, 9).unwrap();
        assert_eq!((r.leader, r.isr), (3, vec![3, 2]));
        assert_eq!(remove_from_isr(&li(3, 13, &[3, 2]), 1, false, 9), None);
        // The last ISR member stays when unclean election is off.
        assert_eq!(remove_from_isr(&li(2, 4, &[2]), 2, false, 9).unwrap().isr, vec![2]);
        assert_eq!(remove_from_isr(&li(2, 4, &[2]), 2, true, 9).unwrap().isr, Vec::<BrokerId>::new());
    }
}
