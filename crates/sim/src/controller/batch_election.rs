//! `PartitionStateMachine.triggerOnlinePartitionStateChange` as Kafka 1.1.0 and 2.1.0 run it
//! (property [`batched_elections`](crate::mode::Behaviour::batched_elections)): every Offline
//! partition is elected in one batch, `doElectLeaderForPartitions` (1.1.0 PSM:276, 2.1.0 PSM:314;
//! PSM = `core/src/main/scala/kafka/controller/PartitionStateMachine.scala`):
//! 1. one pipelined read of every partition's state znode (`KafkaZkClient.getTopicPartitionStatesRaw`,
//!    2.1.0 KafkaZkClient.scala:176);
//! 2. a partition whose znode is missing, or was written by a newer controller epoch, fails
//!    (2.1.0 PSM:317-349); `leaderForOffline` (2.1.0 PSM:382) selects a leader for the rest,
//!    with the same rule as 1.0's `OfflinePartitionLeaderSelector` ([`offline_leader`]);
//! 3. one pipelined `updateLeaderAndIsr` (2.1.0 KafkaZkClient.scala:245): a conditional setData per
//!    partition at the version read (with fenced writes, each its own
//!    `multi(check(/controller_epoch), setData)`: KafkaZkClient.scala:189-196);
//! 4. a success is cached and gets LeaderAndIsr (2.1.0 PSM:372-378); `BADVERSION` asks for a retry,
//!    and `electLeaderForPartitions` (1.1.0 PSM:250-262, 2.1.0 PSM:288-300) retries by calling
//!    `doElectLeaderForPartitions(partitions, …)` again — with *every* partition of the batch, not
//!    only the ones to retry; the model does the same.
//!
//! What is logged, and when: nothing at INFO. The state-change log has, at TRACE and only after the
//! whole batch was written, "Changed partition … from OfflinePartition to OnlinePartition with state
//! …" (2.1.0 PSM:211-213), and at ERROR `logFailedStateChange` for each failure (2.1.0 PSM:468-472).
//! 1.0's INFO "Selected new leader and ISR" (logged per partition before its write) is gone. The
//! model logs the TRACE line per partition when the batch's responses are in.
//!
//! Simplified: a New partition (no state znode) is still initialised one at a time by 1.0's path
//! (2.1.0 batches it too, `initializeLeaderAndIsrForPartitions`); the pipelined read is answered as
//! ZooKeeper answers pipelined requests of one session, in order, but other clients' writes may
//! fall between them in the model exactly as in ZooKeeper.
use super::partition_state::parse_state;
use super::{Cached, Controller, ControllerIo, Exec, Step as AnyStep};
use crate::controller::election::{self, offline_leader};
use crate::controller::partition_state::PartitionState;
use crate::event::EventKind;
use crate::ids::{BrokerId, TopicPartition};
use crate::mark::Mark;
use crate::znodes::leader_isr_json;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One partition's election in a batch: the new state, the version read, the LeaderAndIsr
/// recipients.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) struct Update {
    tp: TopicPartition,
    state: LeaderIsr,
    version: i32,
    recipients: Vec<BrokerId>,
}

/// A micro-step of a batched `triggerOnlinePartitionStateChange`.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// Elect every Offline partition (New ones by 1.0's path), then send the requests.
    Trigger,
    /// `getTopicPartitionStatesRaw(partitions)`.
    Read(Vec<TopicPartition>),
    /// `updateLeaderAndIsr`: the batch's writes; `all` is the batch, retried whole on `BADVERSION`.
    Write { all: Vec<TopicPartition>, updates: Vec<Update> },
}

impl Step {
    pub(super) fn name(&self) -> String {
        match self {
            Step::Trigger => "triggerOnlinePartitionStateChange".into(),
            Step::Read(tps) => {
                format!("doElectLeaderForPartitions: getTopicPartitionStatesRaw ({} partitions)", tps.len())
            }
            Step::Write { updates, .. } => {
                format!("doElectLeaderForPartitions: updateLeaderAndIsr ({} partitions)", updates.len())
            }
        }
    }

    /// The partitions whose state znodes this step writes.
    pub(super) fn writing(&self) -> Vec<TopicPartition> {
        match self {
            Step::Write { updates, .. } => updates.iter().map(|u| u.tp.clone()).collect(),
            _ => Vec::new(),
        }
    }

    /// The request half.
    pub(super) fn request(&self, c: &mut Controller, _io: &mut ControllerIo) -> Exec {
        match self {
            Step::Trigger => {
                let mut steps: Vec<AnyStep> = Vec::new();
                let mut offline = Vec::new();
                for (tp, s) in &c.partition_states {
                    match s {
                        PartitionState::NewPartition => steps.push(election::Step::ElectRead(tp.clone()).into()),
                        PartitionState::OfflinePartition => offline.push(tp.clone()),
                        _ => {}
                    }
                }
                if !offline.is_empty() {
                    steps.push(Step::Read(offline).into());
                }
                steps.push(AnyStep::FlushBatch);
                c.push_front(steps);
                Exec::Done
            }
            Step::Read(tps) => {
                Exec::WaitAll(tps.iter().map(|tp| ZkOp::GetData { path: tp.state_path(), watch: false }).collect())
            }
            Step::Write { updates, .. } => Exec::WaitAll(
                updates
                    .iter()
                    .map(|u| ZkOp::SetData {
                        path: u.tp.state_path(),
                        data: ZData::PartitionState { state: u.state.clone() },
                        version: u.version,
                    })
                    .collect(),
            ),
        }
    }

    /// The response half: every pipelined response, in the order sent.
    pub(super) fn on_responses(self, c: &mut Controller, results: Vec<ZkResult>, io: &mut ControllerIo) {
        match self {
            Step::Trigger => {}
            Step::Read(tps) => c.on_batch_read(tps, results, io),
            Step::Write { all, updates } => {
                let mut retry = false;
                for (u, result) in updates.into_iter().zip(results) {
                    match result {
                        ZkResult::Written { stat } => c.batch_elected(u, stat.version, io),
                        ZkResult::Error { code: ZkError::BadVersion } => retry = true,
                        other => {
                            let why = match other {
                                ZkResult::Error { code } => format!("KeeperException: {}", code.name()),
                                _ => String::from("unexpected response"),
                            };
                            c.election_failed(&u.tp, why, io);
                        }
                    }
                }
                if retry {
                    // electLeaderForPartitions passes `partitions`, not `remaining`.
                    c.then(Step::Read(all));
                }
            }
        }
    }
}

impl Controller {
    /// `doElectLeaderForPartitions` with the states read: select a leader for each valid one and
    /// write them all.
    fn on_batch_read(&mut self, all: Vec<TopicPartition>, results: Vec<ZkResult>, io: &mut ControllerIo) {
        let epoch = self.ctx.epoch;
        let live = self.ctx.live_brokers.clone();
        let mut updates = Vec::new();
        for (tp, result) in all.iter().zip(&results) {
            let Some((current, version)) = parse_state(result) else {
                let state = self.partition_states.get(tp).copied().unwrap_or(PartitionState::NonExistentPartition);
                self.election_failed(
                    tp,
                    format!(
                        "StateChangeFailedException: LeaderAndIsr information doesn't exist for partition {tp} in {state:?} state"
                    ),
                    io,
                );
                continue;
            };
            if current.controller_epoch > epoch {
                self.election_failed(
                    tp,
                    format!(
                        "StateChangeFailedException: aborted leader election for partition {tp} since the LeaderAndIsr path was already written by another controller. This probably means that the current controller {} went through a soft failure and another controller was elected with epoch {}.",
                        io.id, current.controller_epoch
                    ),
                    io,
                );
                continue;
            }
            let assignment = self.ctx.assignment.get(tp).cloned().unwrap_or_default();
            match offline_leader(&assignment, &current, &live, io.cfg.unclean, epoch) {
                Ok(e) => updates.push(Update { tp: tp.clone(), state: e.state, version, recipients: e.recipients }),
                Err(_) => self.election_failed(
                    tp,
                    format!("StateChangeFailedException: Failed to elect leader for partition {tp} under strategy OfflinePartitionLeaderElectionStrategy"),
                    io,
                ),
            }
        }
        if !updates.is_empty() {
            self.then(Step::Write { all, updates });
        }
    }

    /// One partition of the batch is written: cache it, it is Online, LeaderAndIsr to its live
    /// replicas (2.1.0 PSM:372-378), and the TRACE line of PSM:211-213.
    fn batch_elected(&mut self, u: Update, version: i32, io: &mut ControllerIo) {
        self.slog(
            io,
            EventKind::LeaderChange,
            || format!(
                "Changed partition {} from OfflinePartition to OnlinePartition with state {} (batched election; state znode now at zkVersion {version})",
                u.tp,
                leader_isr_json(&u.state)
            ),
        );
        io.out.mark(Mark::LeaderElected {
            controller: io.id,
            partition: u.tp.clone(),
            leader: u.state.leader,
            leader_epoch: u.state.leader_epoch,
            isr: u.state.isr.clone(),
            controller_epoch: u.state.controller_epoch,
            zk_version: version,
        });
        self.ctx.cache(u.tp.clone(), Cached { state: u.state, zk_version: version });
        self.partition_states.insert(u.tp.clone(), PartitionState::OnlinePartition);
        self.add_lai(&u.recipients, &u.tp);
    }

    /// `logFailedStateChange(partition, currState, OnlinePartition, e)` (2.1.0 PSM:468-472).
    fn election_failed(&mut self, tp: &TopicPartition, why: String, io: &mut ControllerIo) {
        let from = self.partition_states.get(tp).copied().unwrap_or(PartitionState::NonExistentPartition);
        let (id, epoch) = (io.id, self.ctx.epoch);
        self.slog(io, EventKind::LeaderChange, || {
            format!(
                "Controller {id} epoch {epoch} failed to change state for partition {tp} from {from:?} to OnlinePartition: {why}"
            )
        });
        io.out.mark(Mark::LeaderElectionFailed { controller: io.id, partition: tp.clone() });
    }
}
