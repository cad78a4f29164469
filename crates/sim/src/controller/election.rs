//! `PartitionStateMachine.triggerOnlinePartitionStateChange` → `electLeaderForPartition` (1.0):
//! for each Offline or New partition, read its state znode, select a leader with
//! `OfflinePartitionLeaderSelector` (or `initializeLeaderAndIsrForPartition` for a New one), and
//! write it with the version read. Failover, broker startup and broker failure all end with it, so
//! it lives apart from each of them. After `BADVERSION` the write is verified by
//! `checkLeaderAndIsrZkData` (`write_landed` in partition_state.rs; `removeReplicaFromIsr` has its own step).
//!
//! 1.0's order of lines (1.0.0 `PartitionStateMachine.scala:282-327`): read the state znode (:292);
//! `Aborted leader election …` if a newer controller wrote it (:295-300); the selector logs
//! `Selected new leader and ISR … for offline partition …` (1.0.0 `PartitionLeaderSelector.scala:90`)
//! *before* the write (:304-305), so the line (and [`Mark::LeaderSelected`]) appears even when the
//! write then fails; after a successful write, `Elected leader N for Offline partition …` (:313, a
//! trace line) with [`Mark::LeaderElected`].
//!
//! Leader selection is a pure function, `OfflinePartitionLeaderSelector.selectLeader`, kept apart
//! from the I/O that surrounds it so it can be tested on its own.
use super::partition_state::{parse_state, write_landed};
use super::{Cached, Controller, ControllerIo, Exec, Step as AnyStep};
use crate::controller::partition_state::PartitionState;
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, TopicPartition};
use crate::mark::Mark;
use crate::vec_map::VecSet;
use crate::znodes::leader_isr_json;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::{ZkOp, ZkResult};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A micro-step of `triggerOnlinePartitionStateChange`.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// Queue an election for every Offline or New partition, then send the batch.
    TriggerOnline,
    /// Read the partition's state znode.
    ElectRead(TopicPartition),
    /// Write the selected leadership at the version read; LeaderAndIsr goes to the recipients.
    ElectWrite(TopicPartition, LeaderIsr, i32, Vec<BrokerId>),
    /// `initializeLeaderAndIsrForPartition`: create the state znode of a New partition.
    CreateState(TopicPartition, LeaderIsr, Vec<BrokerId>),
    /// `checkLeaderAndIsrZkData`: after a failed write, did it land anyway? (With the
    /// LeaderAndIsr recipients.)
    WriteCheck(TopicPartition, LeaderIsr, Vec<BrokerId>),
}

impl Step {
    pub(super) fn name(&self) -> String {
        match self {
            Step::TriggerOnline => "triggerOnlinePartitionStateChange".into(),
            Step::ElectRead(tp) | Step::ElectWrite(tp, ..) | Step::CreateState(tp, ..) => {
                format!("electLeaderForPartition({tp})")
            }
            Step::WriteCheck(tp, ..) => format!("checkLeaderAndIsrZkData({tp})"),
        }
    }

    /// The partition whose state znode this step writes, if it does.
    pub(super) fn writing(&self) -> Option<&TopicPartition> {
        match self {
            Step::ElectWrite(tp, ..) | Step::CreateState(tp, ..) | Step::WriteCheck(tp, ..) => Some(tp),
            Step::TriggerOnline | Step::ElectRead(_) => None,
        }
    }

    /// The request half.
    pub(super) fn request(&self, c: &mut Controller, _io: &mut ControllerIo) -> Exec {
        match self {
            Step::TriggerOnline => {
                let todo: Vec<AnyStep> = c
                    .partition_states
                    .iter()
                    .filter(|(_, s)| s.needs_election())
                    .map(|(tp, _)| Step::ElectRead(tp.clone()).into())
                    .chain(core::iter::once(AnyStep::FlushBatch))
                    .collect();
                c.push_front(todo);
                Exec::Done
            }
            Step::ElectRead(tp) | Step::WriteCheck(tp, ..) => {
                Exec::Wait(ZkOp::GetData { path: tp.state_path(), watch: false })
            }
            Step::ElectWrite(tp, state, version, _) => Exec::Wait(ZkOp::SetData {
                path: tp.state_path(),
                data: ZData::PartitionState { state: state.clone() },
                version: *version,
            }),
            Step::CreateState(tp, state, _) => Exec::Wait(ZkOp::Create {
                path: tp.state_path(),
                data: ZData::PartitionState { state: state.clone() },
                ephemeral: false,
                sequential: false,
            }),
        }
    }

    /// The response half.
    pub(super) fn on_response(self, c: &mut Controller, result: ZkResult, io: &mut ControllerIo) {
        match self {
            Step::ElectRead(tp) => c.on_elect_read(tp, result, io),
            Step::ElectWrite(tp, state, _, recipients) => match result {
                ZkResult::Written { stat } => c.elected(&tp, state, stat.version, &recipients, io),
                _ => c.then(Step::WriteCheck(tp, state, recipients)),
            },
            Step::CreateState(tp, state, recipients) => match result {
                ZkResult::Created { .. } => c.elected(&tp, state, 0, &recipients, io),
                _ => c.then(Step::ElectRead(tp)),
            },
            Step::WriteCheck(tp, intended, recipients) => match write_landed(&result, intended) {
                Some((s, v)) => c.elected(&tp, s, v, &recipients, io),
                None => c.then(Step::ElectRead(tp)),
            },
            // A local step never waits on ZooKeeper.
            Step::TriggerOnline => {}
        }
    }
}

impl Controller {
    /// `electLeaderForPartition` with the state znode read: select and write, or give up.
    fn on_elect_read(&mut self, tp: TopicPartition, result: ZkResult, io: &mut ControllerIo) {
        let live = self.ctx.live_brokers.clone();
        let assignment = self.ctx.assignment.get(&tp).cloned().unwrap_or_default();
        let epoch = self.ctx.epoch;
        let Some((current, version)) = parse_state(&result) else {
            // NewPartition: initializeLeaderAndIsrForPartition.
            let live_replicas: Vec<BrokerId> = assignment.iter().copied().filter(|r| live.contains(r)).collect();
            if let Some(&leader) = live_replicas.first() {
                let state = LeaderIsr { leader, leader_epoch: 0, isr: live_replicas.clone(), controller_epoch: epoch };
                self.then(Step::CreateState(tp, state, live_replicas));
            }
            return;
        };
        if current.controller_epoch > epoch {
            let (id, other) = (io.id, current.controller_epoch);
            self.slog(io, EventKind::Info, || {
                format!(
                    "Aborted leader election for partition {tp} since the LeaderAndIsr path was already written by another controller. This probably means that the current controller {id} went through a soft failure and another controller was elected with epoch {other}."
                )
            });
            return;
        }
        match offline_leader(&assignment, &current, &live, io.cfg.unclean, epoch) {
            Ok(e) => {
                if e.unclean {
                    self.slog(io, EventKind::Info, || {
                        format!("Unclean leader election for {tp}: no live replica in ISR; data loss is possible")
                    });
                }
                self.slog(io, EventKind::LeaderChange, || {
                    format!("Selected new leader and ISR {} for offline partition {tp}", leader_isr_json(&e.state))
                });
                io.out.mark(Mark::LeaderSelected {
                    controller: io.id,
                    partition: tp.clone(),
                    leader: e.state.leader,
                    leader_epoch: e.state.leader_epoch,
                    isr: e.state.isr.clone(),
                    controller_epoch: e.state.controller_epoch,
                    read_zk_version: version,
                });
                self.then(Step::ElectWrite(tp, e.state, version, e.recipients));
            }
            Err(why) => {
                self.slog(
                    io,
                    EventKind::LeaderChange,
                    || format!("Initiated state change for partition {tp} from OfflinePartition to OnlinePartition failed: NoReplicaOnlineException: {why}"),
                );
                io.out.mark(Mark::LeaderElectionFailed { controller: io.id, partition: tp });
            }
        }
    }

    /// The elected leadership is in ZooKeeper: cache it, the partition is Online, and
    /// LeaderAndIsr goes to the recipients.
    fn elected(
        &mut self,
        tp: &TopicPartition,
        state: LeaderIsr,
        version: i32,
        recipients: &[BrokerId],
        io: &mut ControllerIo,
    ) {
        self.slog(
            io,
            EventKind::LeaderChange,
            || format!(
                "Elected leader {} for Offline partition {tp} (leader and ISR {}; state znode now at zkVersion {version})",
                state.leader,
                leader_isr_json(&state)
            ),
        );
        io.out.mark(Mark::LeaderElected {
            controller: io.id,
            partition: tp.clone(),
            leader: state.leader,
            leader_epoch: state.leader_epoch,
            isr: state.isr.clone(),
            controller_epoch: state.controller_epoch,
            zk_version: version,
        });
        self.ctx.cache(tp.clone(), Cached { state, zk_version: version });
        self.partition_states.insert(tp.clone(), PartitionState::OnlinePartition);
        self.add_lai(recipients, tp);
    }
}

/// The outcome of an offline-partition election.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Elected {
    /// The new state (leader epoch already bumped).
    pub state: LeaderIsr,
    /// Replicas to send LeaderAndIsr to (live assigned replicas).
    pub recipients: Vec<BrokerId>,
    /// An out-of-ISR replica was chosen.
    pub unclean: bool,
}

/// `OfflinePartitionLeaderSelector.selectLeader`: the first replica in assignment order that is live
/// and in the ISR; the new ISR is the live part of the ISR. With no live ISR member, an unclean
/// election picks the first live assigned replica if allowed; otherwise `NoReplicaOnlineException`.
pub fn offline_leader(
    assignment: &[BrokerId],
    current: &LeaderIsr,
    live: &VecSet<BrokerId>,
    unclean_allowed: bool,
    controller_epoch: i32,
) -> Result<Elected, String> {
    let live_assigned: Vec<BrokerId> = assignment.iter().copied().filter(|r| live.contains(r)).collect();
    let live_isr: Vec<BrokerId> = current.isr.iter().copied().filter(|r| live.contains(r)).collect();
    let clean = assignment.iter().copied().find(|r| live_isr.contains(r));
    let (leader, isr, unclean) = match clean {
        Some(l) => (l, live_isr, false),
        None if unclean_allowed && !live_assigned.is_empty() => (live_assigned[0], alloc::vec![live_assigned[0]], true),
        None => {
            return Err(format!(
                "No replica in ISR for partition is alive. Live brokers are: [{}], ISR brokers are: [{}]",
                fmt_ids(live.iter().copied()),
                fmt_ids(current.isr.iter().copied())
            ))
        }
    };
    Ok(Elected {
        state: LeaderIsr { leader, leader_epoch: current.leader_epoch + 1, isr, controller_epoch },
        recipients: live_assigned,
        unclean,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn li(leader: BrokerId, epoch: i32, isr: &[BrokerId]) -> LeaderIsr {
        LeaderIsr { leader, leader_epoch: epoch, isr: isr.to_vec(), controller_epoch: 7 }
    }

    #[test]
    fn offline_election_follows_assignment_order_within_live_isr() {
        let live: VecSet<BrokerId> = [1, 2].into_iter().collect();
        let e = offline_leader(&[3, 1, 2], &li(3, 13, &[3, 1, 2]), &live, false, 8).unwrap();
        assert_eq!(e.state, LeaderIsr { leader: 1, leader_epoch: 14, isr: vec![1, 2], controller_epoch: 8 });
        assert_eq!(e.recipients, vec![1, 2]);
        assert!(!e.unclean);
    }

    #[test]
    fn no_live_isr_member_fails_unless_unclean() {
        let live: VecSet<BrokerId> = [2].into_iter().collect();
        assert!(offline_leader(&[3, 1, 2], &li(3, 5, &[3, 1]), &live, false, 8).is_err());
        let e = offline_leader(&[3, 1, 2], &li(3, 5, &[3, 1]), &live, true, 8).unwrap();
        assert_eq!((e.state.leader, e.state.isr.clone(), e.unclean), (2, vec![2], true));
    }
}
