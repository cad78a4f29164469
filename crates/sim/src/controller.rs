//! The controller every broker runs, as in Kafka 0.11–1.0 (`kafka.controller.KafkaController` with
//! `ControllerEventManager`): ZooKeeper listeners only enqueue [`ControllerEvent`]s; one event thread
//! processes them in order; `isActive` is `activeControllerId == brokerId`, a cached value refreshed
//! only when `ControllerChange`/`Reelect` is processed, so a deposed controller keeps acting until
//! it dequeues that event.
//!
//! Each event runs as a [`Job`]: a list of micro-steps, each either local work or one ZooKeeper
//! request that blocks the thread until its response — so a long `onControllerFailover` takes
//! virtual time and interleaves with other brokers. Modelled handlers: `elect`,
//! `onControllerFailover` (`readControllerEpochFromZookeeper`, `incrementControllerEpoch`,
//! `initializeControllerContext`, `ReplicaStateMachine.startup`, `PartitionStateMachine.startup`),
//! `electLeaderForPartition` with `OfflinePartitionLeaderSelector`, `BrokerChange` (re-reading
//! `/brokers/ids` at processing time, KAFKA-5502), `onBrokerStartup`, `onBrokerFailure` →
//! `onReplicasBecomeOffline` → `removeReplicaFromIsr`, `IsrChangeNotification`,
//! `onControllerResignation`, and `ControllerBrokerRequestBatch` for LeaderAndIsr/UpdateMetadata.
//!
//! Two later versions change it by mode: `1.1` adds the `Expire` event put by `clearAndPut` when the
//! session expires (`KafkaController.startup`'s `StateChangeHandler`) and makes `ControllerChange`
//! re-read `/controller` (`maybeResign`); `fenced` wraps every write in the KAFKA-6082 epoch check.
use crate::broker::Broker;
use crate::effects::Outbox;
use crate::election::{offline_leader, remove_from_isr};
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, NodeId, TopicPartition};
use crate::message::{PartitionStateInfo, Payload};
use crate::partition_state::PartitionState;
use crate::replica_state::ReplicaState;
use crate::scenario::Config;
use crate::zk_client::Purpose;
use crate::zookeeper::{LeaderIsr, MultiOp, ZData, ZkError, ZkOp, ZkResult};
use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Events on the controller queue (`ControllerEvent` subclasses of 1.0).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum ControllerEvent {
    /// `Startup`: register listeners, `elect()`.
    Startup,
    /// `Reelect`: `/controller` was deleted, or a new session began.
    Reelect,
    /// `ControllerChange(newControllerId)`: `/controller` data changed.
    ControllerChange(BrokerId),
    /// `BrokerChange`: `/brokers/ids` children changed.
    BrokerChange,
    /// `IsrChangeNotification`.
    IsrChangeNotification,
}

impl ControllerEvent {
    /// The Kafka name.
    pub fn name(&self) -> String {
        match self {
            ControllerEvent::Startup => "Startup".into(),
            ControllerEvent::Reelect => "Reelect".into(),
            ControllerEvent::ControllerChange(id) => format!("ControllerChange({id})"),
            ControllerEvent::BrokerChange => "BrokerChange".into(),
            ControllerEvent::IsrChangeNotification => "IsrChangeNotification".into(),
        }
    }
}

/// `LeaderIsrAndControllerEpoch` with the znode version, as cached in `partitionLeadershipInfo`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Cached {
    /// The leadership.
    pub state: LeaderIsr,
    /// The znode version it was read or written at.
    pub zk_version: i32,
}

/// `ControllerContext`: the controller's in-memory snapshot of ZooKeeper.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ControllerContext {
    /// `epoch`.
    pub epoch: i32,
    /// `epochZkVersion`.
    pub epoch_zk_version: i32,
    /// `liveBrokers`.
    pub live_brokers: BTreeSet<BrokerId>,
    /// `partitionReplicaAssignment`.
    pub assignment: BTreeMap<TopicPartition, Vec<BrokerId>>,
    /// `partitionLeadershipInfo`.
    pub leadership: BTreeMap<TopicPartition, Cached>,
    /// `initializeControllerContext` has read the partition states.
    pub loaded: bool,
}

/// A micro-step of a controller event.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Step {
    ReadControllerId { resign_check: bool },
    Elect,
    CreateController,
    CreateControllerFenced,
    CheckOwnCreate,
    ReadEpoch,
    IncrementEpoch,
    ReadBrokerIds,
    RegisterIsrListener,
    ReadBrokers(Vec<String>),
    ReadTopics,
    ReadAssignments(Vec<String>),
    ReadStates,
    SendUpdateMetadataAll,
    ReplicaStartup,
    PartitionStartup,
    FailoverDone,
    TriggerOnline,
    ElectRead(TopicPartition),
    ElectWrite(TopicPartition, LeaderIsr, i32, Vec<BrokerId>),
    CreateState(TopicPartition, LeaderIsr, Vec<BrokerId>),
    WriteCheck(TopicPartition, LeaderIsr, WriteKind),
    FlushBatch,
    CheckActive,
    BrokerChangeRead,
    BrokerChangeData(Vec<String>),
    BrokerStartup(Vec<BrokerId>),
    BrokerFailure(Vec<BrokerId>),
    RemoveIsrRead(TopicPartition, BrokerId),
    RemoveIsrWrite(TopicPartition, BrokerId, LeaderIsr, i32),
    UpdateMetadataAll,
    IsrNotifRead,
    IsrNotifData(Vec<String>),
    IsrNotifStates(Vec<TopicPartition>, Vec<String>),
    IsrNotifDelete(Vec<String>),
    MoveController,
}

/// Which conditional write a [`Step::WriteCheck`] verifies after `BADVERSION`
/// (`ReplicationUtils.checkLeaderAndIsrZkData`: a retried write may already have landed).
#[derive(Clone, PartialEq, Eq, Debug)]
enum WriteKind {
    Elect(Vec<BrokerId>),
    RemoveIsr(BrokerId),
}

impl Step {
    fn name(&self) -> String {
        match self {
            Step::ReadControllerId { .. } => "getControllerID".into(),
            Step::Elect | Step::CreateController | Step::CheckOwnCreate => "elect".into(),
            Step::CreateControllerFenced => "registerControllerAndIncrementControllerEpoch".into(),
            Step::ReadEpoch => "readControllerEpochFromZookeeper".into(),
            Step::IncrementEpoch => "incrementControllerEpoch".into(),
            Step::ReadBrokerIds
            | Step::ReadBrokers(_)
            | Step::ReadTopics
            | Step::ReadAssignments(_)
            | Step::ReadStates => "initializeControllerContext".into(),
            Step::RegisterIsrListener => "registerIsrChangeNotificationListener".into(),
            Step::ElectRead(tp) | Step::ElectWrite(tp, ..) | Step::CreateState(tp, ..) => {
                format!("electLeaderForPartition({tp})")
            }
            Step::WriteCheck(tp, ..) => format!("checkLeaderAndIsrZkData({tp})"),
            Step::RemoveIsrRead(tp, r) | Step::RemoveIsrWrite(tp, r, ..) => format!("removeReplicaFromIsr({tp}, {r})"),
            Step::BrokerChangeRead | Step::BrokerChangeData(_) => "BrokerChange: getAllBrokersInCluster".into(),
            Step::IsrNotifRead | Step::IsrNotifData(_) | Step::IsrNotifStates(..) | Step::IsrNotifDelete(_) => {
                "IsrChangeNotification".into()
            }
            Step::MoveController => "triggerControllerMove".into(),
            other => format!("{other:?}"),
        }
    }
}

/// The event being processed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Job {
    /// The event.
    pub event: ControllerEvent,
    steps: VecDeque<Step>,
    waiting: Option<Step>,
}

impl Job {
    /// The partition whose state znode this job is writing right now, if any: until the response
    /// arrives, ZooKeeper is legitimately ahead of the cache.
    pub fn writing(&self) -> Option<&TopicPartition> {
        match self.waiting.as_ref()? {
            Step::ElectWrite(tp, ..)
            | Step::RemoveIsrWrite(tp, ..)
            | Step::CreateState(tp, ..)
            | Step::WriteCheck(tp, ..) => Some(tp),
            _ => None,
        }
    }

    /// What the thread is blocked on, if anything.
    pub fn waiting_on(&self) -> Option<String> {
        self.waiting.as_ref().map(|s| s.name())
    }
}

/// `ControllerBrokerRequestBatch`.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
struct Batch {
    lai: BTreeMap<BrokerId, BTreeMap<TopicPartition, PartitionStateInfo>>,
    um: BTreeSet<TopicPartition>,
}

/// The controller component of a broker.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Controller {
    /// `activeControllerId` (-1 when unknown).
    pub active_id: BrokerId,
    /// The event queue.
    pub queue: VecDeque<ControllerEvent>,
    /// The event being processed.
    pub job: Option<Job>,
    /// The context.
    pub ctx: ControllerContext,
    /// Partition state machine.
    pub partition_states: BTreeMap<TopicPartition, PartitionState>,
    /// Replica state machine.
    pub replica_states: BTreeMap<(TopicPartition, BrokerId), ReplicaState>,
    /// Controller-only ZooKeeper listeners are registered (BrokerChange, IsrChangeNotification).
    pub listeners: bool,
    /// Requests held for a broker whose link is cut (re-sent on heal).
    pub held: BTreeMap<BrokerId, Vec<Payload>>,
    batch: Batch,
}

impl Default for Controller {
    fn default() -> Self {
        Controller {
            active_id: -1,
            queue: VecDeque::new(),
            job: None,
            ctx: ControllerContext::default(),
            partition_states: BTreeMap::new(),
            replica_states: BTreeMap::new(),
            listeners: false,
            held: BTreeMap::new(),
            batch: Batch::default(),
        }
    }
}

impl Controller {
    /// Hold a dropped controller request for re-sending.
    pub fn hold(&mut self, to: BrokerId, payload: Payload) {
        self.held.entry(to).or_default().push(payload);
    }

    /// State info for a cached partition.
    fn info(&self, tp: &TopicPartition) -> Option<PartitionStateInfo> {
        let c = self.ctx.leadership.get(tp)?;
        Some(PartitionStateInfo {
            tp: tp.clone(),
            leader: c.state.leader,
            leader_epoch: c.state.leader_epoch,
            isr: c.state.isr.clone(),
            zk_version: c.zk_version,
            controller_epoch: c.state.controller_epoch,
            replicas: self.ctx.assignment.get(tp).cloned().unwrap_or_default(),
        })
    }

    /// `addLeaderAndIsrRequestForBrokers`: LeaderAndIsr to `brokers`, UpdateMetadata to all.
    fn add_lai(&mut self, brokers: &[BrokerId], tp: &TopicPartition) {
        if let Some(info) = self.info(tp) {
            for b in brokers {
                self.batch.lai.entry(*b).or_default().insert(tp.clone(), info.clone());
            }
            self.batch.um.insert(tp.clone());
        }
    }
}

fn parse_state(result: &ZkResult) -> Option<(LeaderIsr, i32)> {
    match result {
        ZkResult::Data { data: ZData::PartitionState { state }, stat } => Some((state.clone(), stat.version)),
        _ => None,
    }
}

enum Exec {
    Done,
    Wait(ZkOp),
}

impl Broker {
    fn clog(&self, out: &mut Outbox, kind: EventKind, text: String) {
        out.log(kind, format!("[Controller id={}] {text}", self.id));
    }

    fn slog(&self, out: &mut Outbox, kind: EventKind, text: String) {
        out.log(kind, format!("[Controller id={} epoch={}] {text}", self.id, self.controller.ctx.epoch));
    }

    /// `isActive`.
    pub fn is_active(&self) -> bool {
        self.controller.active_id == self.id
    }

    /// A ZooKeeper listener fired: enqueue (never process inline).
    pub(crate) fn controller_enqueue(&mut self, ev: ControllerEvent, _out: &mut Outbox) {
        self.controller.queue.push_back(ev);
    }

    fn push_front(&mut self, steps: Vec<Step>) {
        if let Some(job) = self.controller.job.as_mut() {
            for s in steps.into_iter().rev() {
                job.steps.push_front(s);
            }
        }
    }

    /// Run the event thread until it blocks on ZooKeeper or runs out of events.
    pub(crate) fn controller_run(&mut self, _cfg: &Config, out: &mut Outbox) {
        if !self.alive {
            return;
        }
        loop {
            if self.controller.job.is_none() {
                let Some(ev) = self.controller.queue.pop_front() else { return };
                let steps: Vec<Step> = match &ev {
                    ControllerEvent::Startup => alloc::vec![Step::Elect],
                    ControllerEvent::Reelect => alloc::vec![Step::ReadControllerId { resign_check: true }, Step::Elect],
                    // 1.1 (KAFKA-5642): events read ZooKeeper when processed — maybeResign().
                    ControllerEvent::ControllerChange(_) if _cfg.behaviour().reread_controller_on_change => {
                        alloc::vec![Step::ReadControllerId { resign_check: true }]
                    }
                    ControllerEvent::ControllerChange(id) => {
                        let was = self.is_active();
                        self.controller.active_id = *id;
                        if was && !self.is_active() {
                            self.resign(out);
                        } else if !was && self.is_active() {
                            self.clog(
                                out,
                                EventKind::Info,
                                format!(
                                    "Processed a stale ControllerChange({id}) queued earlier: activeControllerId = {id}, so isActive is true again, without a failover (the event carries the id read when it was enqueued)"
                                ),
                            );
                        }
                        Vec::new()
                    }
                    ControllerEvent::BrokerChange => alloc::vec![Step::CheckActive, Step::BrokerChangeRead],
                    ControllerEvent::IsrChangeNotification => alloc::vec![Step::CheckActive, Step::IsrNotifRead],
                };
                self.controller.job = Some(Job { event: ev, steps: steps.into(), waiting: None });
            }
            let job = self.controller.job.as_mut().expect("set above");
            if job.waiting.is_some() {
                return;
            }
            let Some(step) = job.steps.pop_front() else {
                self.controller.job = None;
                continue;
            };
            match self.exec(step.clone(), _cfg, out) {
                Exec::Done => {}
                Exec::Wait(op) => {
                    if let Some(job) = self.controller.job.as_mut() {
                        job.waiting = Some(step);
                    }
                    self.zk_send(op, Purpose::Controller, out);
                    return;
                }
            }
        }
    }

    fn exec(&mut self, step: Step, cfg: &Config, out: &mut Outbox) -> Exec {
        match self.exec_unfenced(step, out) {
            Exec::Wait(op) if cfg.behaviour().fenced_writes && op.is_write() && !matches!(op, ZkOp::Multi { .. }) => {
                Exec::Wait(self.fence(op))
            }
            other => other,
        }
    }

    /// KAFKA-6082 (`KafkaZkClient.wrapRequestWithControllerEpochCheck`): a controller write becomes
    /// `multi(check(/controller_epoch, epochZkVersion), write)`.
    fn fence(&self, op: ZkOp) -> ZkOp {
        let write = match op {
            ZkOp::SetData { path, data, version } => MultiOp::SetData { path, data, version },
            ZkOp::Create { path, data, ephemeral, .. } => MultiOp::Create { path, data, ephemeral },
            ZkOp::Delete { path, version } => MultiOp::Delete { path, version },
            other => return other,
        };
        ZkOp::Multi {
            ops: alloc::vec![
                MultiOp::Check { path: "/controller_epoch".into(), version: self.controller.ctx.epoch_zk_version },
                write
            ],
        }
    }

    fn exec_unfenced(&mut self, step: Step, out: &mut Outbox) -> Exec {
        let ctl = |p: &str| ZkOp::GetData { path: p.into(), watch: true };
        match step {
            Step::ReadControllerId { .. } | Step::Elect | Step::CheckOwnCreate => Exec::Wait(ctl("/controller")),
            Step::CreateController => Exec::Wait(ZkOp::Create {
                path: "/controller".into(),
                data: ZData::Controller { broker_id: self.id, timestamp: 0 },
                ephemeral: true,
                sequential: false,
            }),
            Step::CreateControllerFenced => Exec::Wait(ZkOp::Multi {
                ops: alloc::vec![
                    MultiOp::Create {
                        path: "/controller".into(),
                        data: ZData::Controller { broker_id: self.id, timestamp: 0 },
                        ephemeral: true,
                    },
                    MultiOp::SetData {
                        path: "/controller_epoch".into(),
                        data: ZData::ControllerEpoch { epoch: self.controller.ctx.epoch + 1 },
                        version: self.controller.ctx.epoch_zk_version,
                    },
                ],
            }),
            Step::ReadEpoch => Exec::Wait(ZkOp::GetData { path: "/controller_epoch".into(), watch: false }),
            Step::IncrementEpoch => Exec::Wait(ZkOp::SetData {
                path: "/controller_epoch".into(),
                data: ZData::ControllerEpoch { epoch: self.controller.ctx.epoch + 1 },
                version: self.controller.ctx.epoch_zk_version,
            }),
            Step::ReadBrokerIds | Step::BrokerChangeRead => {
                self.controller.listeners = true;
                Exec::Wait(ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true })
            }
            Step::RegisterIsrListener | Step::IsrNotifRead => {
                Exec::Wait(ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true })
            }
            Step::ReadBrokers(paths)
            | Step::BrokerChangeData(paths)
            | Step::ReadAssignments(paths)
            | Step::IsrNotifData(paths) => Exec::Wait(ZkOp::GetDataMany { paths }),
            Step::ReadTopics => Exec::Wait(ZkOp::GetChildren { path: "/brokers/topics".into(), watch: true }),
            Step::ReadStates => {
                let paths = self.controller.ctx.assignment.keys().map(|tp| tp.state_path()).collect();
                Exec::Wait(ZkOp::GetDataMany { paths })
            }
            Step::IsrNotifStates(tps, _) => {
                Exec::Wait(ZkOp::GetDataMany { paths: tps.iter().map(|t| t.state_path()).collect() })
            }
            Step::IsrNotifDelete(paths) => Exec::Wait(ZkOp::Multi {
                ops: paths.into_iter().map(|path| MultiOp::Delete { path, version: -1 }).collect(),
            }),
            Step::ElectRead(tp) | Step::RemoveIsrRead(tp, _) | Step::WriteCheck(tp, ..) => {
                Exec::Wait(ZkOp::GetData { path: tp.state_path(), watch: false })
            }
            Step::ElectWrite(tp, state, version, _) | Step::RemoveIsrWrite(tp, _, state, version) => {
                Exec::Wait(ZkOp::SetData { path: tp.state_path(), data: ZData::PartitionState { state }, version })
            }
            Step::CreateState(tp, state, _) => Exec::Wait(ZkOp::Create {
                path: tp.state_path(),
                data: ZData::PartitionState { state },
                ephemeral: false,
                sequential: false,
            }),
            Step::MoveController => Exec::Wait(ZkOp::Delete { path: "/controller".into(), version: -1 }),
            Step::CheckActive => {
                if !self.is_active() {
                    if let Some(job) = self.controller.job.as_mut() {
                        job.steps.clear();
                    }
                }
                Exec::Done
            }
            Step::SendUpdateMetadataAll | Step::UpdateMetadataAll => {
                let all: Vec<TopicPartition> = self.controller.ctx.leadership.keys().cloned().collect();
                self.controller.batch.um.extend(all);
                self.flush(out);
                Exec::Done
            }
            Step::ReplicaStartup => {
                let live = self.controller.ctx.live_brokers.clone();
                let assignment = self.controller.ctx.assignment.clone();
                for (tp, replicas) in &assignment {
                    for r in replicas {
                        let st = if live.contains(r) {
                            ReplicaState::OnlineReplica
                        } else {
                            ReplicaState::ReplicaDeletionIneligible
                        };
                        self.controller.replica_states.insert((tp.clone(), *r), st);
                        if st == ReplicaState::OnlineReplica {
                            self.controller.add_lai(&[*r], tp);
                        }
                    }
                }
                self.flush(out);
                Exec::Done
            }
            Step::PartitionStartup => {
                let live = &self.controller.ctx.live_brokers;
                let mut offline = Vec::new();
                let mut states = BTreeMap::new();
                for tp in self.controller.ctx.assignment.keys() {
                    let st = PartitionState::initial(self.controller.ctx.leadership.get(tp).map(|c| &c.state), live);
                    if st != PartitionState::OnlinePartition {
                        offline.push(tp.clone());
                    }
                    states.insert(tp.clone(), st);
                }
                self.controller.partition_states = states;
                let online = self.controller.ctx.assignment.len() - offline.len();
                self.clog(
                    out,
                    EventKind::Info,
                    format!(
                        "Started partition state machine: {online} OnlinePartition, {} OfflinePartition{}",
                        offline.len(),
                        if offline.is_empty() { String::new() } else { format!(" ({})", short_list(&offline)) }
                    ),
                );
                self.push_front(alloc::vec![Step::TriggerOnline]);
                Exec::Done
            }
            Step::TriggerOnline => {
                let todo: Vec<Step> = self
                    .controller
                    .partition_states
                    .iter()
                    .filter(|(_, s)| s.needs_election())
                    .map(|(tp, _)| Step::ElectRead(tp.clone()))
                    .chain(core::iter::once(Step::FlushBatch))
                    .collect();
                self.push_front(todo);
                Exec::Done
            }
            Step::FlushBatch => {
                self.flush(out);
                Exec::Done
            }
            Step::FailoverDone => {
                self.clog(
                    out,
                    EventKind::Info,
                    format!("Ready to serve as the new controller with epoch {}", self.controller.ctx.epoch),
                );
                Exec::Done
            }
            Step::BrokerStartup(new) => {
                self.clog(
                    out,
                    EventKind::Info,
                    format!("New broker startup callback for {}", fmt_ids(new.iter().copied())),
                );
                let all: Vec<TopicPartition> = self.controller.ctx.leadership.keys().cloned().collect();
                self.controller.batch.um.extend(all);
                self.flush(out);
                let assignment = self.controller.ctx.assignment.clone();
                for (tp, replicas) in &assignment {
                    for r in replicas.iter().filter(|r| new.contains(r)) {
                        self.controller.replica_states.insert((tp.clone(), *r), ReplicaState::OnlineReplica);
                        self.controller.add_lai(&[*r], tp);
                    }
                }
                self.flush(out);
                self.push_front(alloc::vec![Step::TriggerOnline]);
                Exec::Done
            }
            Step::BrokerFailure(dead) => {
                self.clog(
                    out,
                    EventKind::Info,
                    format!("Broker failure callback for {}", fmt_ids(dead.iter().copied())),
                );
                for d in &dead {
                    self.controller.held.remove(d);
                }
                let live = self.controller.ctx.live_brokers.clone();
                // onReplicasBecomeOffline: "needs an election?" is decided from the cache.
                let without_leader: Vec<TopicPartition> = self
                    .controller
                    .ctx
                    .leadership
                    .iter()
                    .filter(|(_, c)| !live.contains(&c.state.leader))
                    .map(|(tp, _)| tp.clone())
                    .collect();
                for tp in &without_leader {
                    self.controller.partition_states.insert(tp.clone(), PartitionState::OfflinePartition);
                }
                self.clog(
                    out,
                    EventKind::Info,
                    format!(
                        "Partitions whose cached leader is offline: {} — {}",
                        without_leader.len(),
                        if without_leader.is_empty() {
                            String::from("no leader election needed")
                        } else {
                            short_list(&without_leader)
                        }
                    ),
                );
                let mut steps = alloc::vec![Step::TriggerOnline];
                let assignment = self.controller.ctx.assignment.clone();
                for (tp, replicas) in &assignment {
                    for r in replicas.iter().filter(|r| dead.contains(r)) {
                        if self.controller.ctx.leadership.contains_key(tp) {
                            steps.push(Step::RemoveIsrRead(tp.clone(), *r));
                        } else {
                            self.controller.replica_states.insert((tp.clone(), *r), ReplicaState::OfflineReplica);
                        }
                    }
                }
                steps.push(Step::FlushBatch);
                if without_leader.is_empty() {
                    steps.push(Step::UpdateMetadataAll);
                }
                self.push_front(steps);
                Exec::Done
            }
        }
    }

    /// Send the batched requests (`sendRequestsToBrokers`): LeaderAndIsr first, then UpdateMetadata.
    fn flush(&mut self, out: &mut Outbox) {
        let epoch = self.controller.ctx.epoch;
        let live = self.controller.ctx.live_brokers.clone();
        let batch = core::mem::take(&mut self.controller.batch);
        for (b, parts) in batch.lai {
            if !live.contains(&b) {
                continue; // "Not sending request to broker since it is offline"
            }
            out.send(
                NodeId::Broker(b),
                Payload::LeaderAndIsr {
                    controller_id: self.id,
                    controller_epoch: epoch,
                    partitions: parts.into_values().collect(),
                },
            );
        }
        if !batch.um.is_empty() {
            let parts: Vec<PartitionStateInfo> = batch.um.iter().filter_map(|tp| self.controller.info(tp)).collect();
            for b in &live {
                out.send(
                    NodeId::Broker(*b),
                    Payload::UpdateMetadata {
                        controller_id: self.id,
                        controller_epoch: epoch,
                        live_brokers: live.iter().copied().collect(),
                        partitions: parts.clone(),
                    },
                );
            }
        }
    }

    /// Kafka 1.1's `Expire` event, put by `clearAndPut` ahead of everything else when the session
    /// expired: the event being processed (a job only ever waits on a ZooKeeper call, which has
    /// just failed with `SESSIONEXPIRED`) is abandoned, the queue is cleared, then
    /// `activeControllerId = -1` and `onControllerResignation()`.
    pub(crate) fn controller_expire(&mut self, out: &mut Outbox) {
        if let Some(job) = self.controller.job.take() {
            self.clog(
                out,
                EventKind::Info,
                format!(
                    "Error processing event {}: KeeperException$SessionExpiredException (its pending ZooKeeper call is not retried)",
                    job.event.name()
                ),
            );
        }
        let dropped = self.controller.queue.len();
        self.controller.queue.clear();
        let was = self.is_active();
        self.controller.active_id = -1;
        self.clog(
            out,
            EventKind::Info,
            format!("Processing Expire (queue cleared: {dropped} event(s) dropped); activeControllerId = -1"),
        );
        if was {
            self.resign_noting("its session expired; Expire does not read /controller".into(), out);
        }
    }

    /// `onControllerResignation`.
    fn resign(&mut self, out: &mut Outbox) {
        let holder = if self.controller.active_id < 0 {
            String::from("/controller is now empty")
        } else {
            format!("/controller is now broker {}", self.controller.active_id)
        };
        self.resign_noting(holder, out);
    }

    /// `onControllerResignation`, with `why` in the log line's parenthesis after the epoch.
    fn resign_noting(&mut self, why: String, out: &mut Outbox) {
        let epoch = self.controller.ctx.epoch;
        self.controller.listeners = false;
        self.controller.partition_states.clear();
        self.controller.replica_states.clear();
        self.controller.ctx = ControllerContext::default();
        self.controller.held.clear();
        self.controller.batch = Batch::default();
        self.clog(
            out,
            EventKind::ControllerResigned,
            format!("Broker {} resigned as the controller (it held epoch {epoch}; {why})", self.id),
        );
    }

    fn failover_steps() -> Vec<Step> {
        alloc::vec![
            Step::ReadEpoch,
            Step::IncrementEpoch,
            Step::RegisterIsrListener,
            Step::ReadBrokerIds,
            Step::ReadTopics,
            Step::ReadStates,
            Step::SendUpdateMetadataAll,
            Step::ReplicaStartup,
            Step::PartitionStartup,
            Step::FailoverDone,
        ]
    }

    /// The controller thread's ZooKeeper call returned.
    pub(crate) fn controller_on_result(&mut self, op: ZkOp, result: ZkResult, cfg: &Config, out: &mut Outbox) {
        let Some(step) = self.controller.job.as_mut().and_then(|j| j.waiting.take()) else { return };
        let result = match (&op, result) {
            // A fenced write: unwrap the multi (`unwrapResponseWithControllerEpochCheck`).
            (ZkOp::Multi { ops }, r) if ops.len() == 2 && matches!(ops[0], MultiOp::Check { .. }) => match r {
                ZkResult::MultiFailed { index: 0, .. } => {
                    self.controller_moved(out);
                    return;
                }
                ZkResult::MultiFailed { code, .. } => ZkResult::Error { code },
                ZkResult::MultiOk => match &ops[1] {
                    MultiOp::SetData { version, .. } => ZkResult::Written {
                        stat: crate::zookeeper::Stat {
                            version: version + 1,
                            cversion: 0,
                            czxid: 0,
                            mzxid: 0,
                            ephemeral_owner: None,
                        },
                    },
                    MultiOp::Create { path, .. } => ZkResult::Created { path: path.clone() },
                    _ => ZkResult::Deleted,
                },
                other => other,
            },
            (_, r) => r,
        };
        match step {
            Step::ReadControllerId { resign_check } => {
                let id = controller_id(&result);
                let was = self.is_active();
                self.controller.active_id = id;
                if resign_check && was && !self.is_active() {
                    self.resign(out);
                }
            }
            Step::Elect => {
                let id = controller_id(&result);
                self.controller.active_id = id;
                if id == -1 {
                    if cfg.behaviour().fenced_writes {
                        self.push_front(alloc::vec![Step::ReadEpoch, Step::CreateControllerFenced]);
                    } else {
                        self.push_front(alloc::vec![Step::CreateController]);
                    }
                }
            }
            Step::CreateControllerFenced => match result {
                ZkResult::MultiOk => {
                    self.controller.ctx.epoch += 1;
                    self.controller.ctx.epoch_zk_version += 1;
                    self.won(cfg, out);
                }
                _ => self.push_front(alloc::vec![Step::CheckOwnCreate]),
            },
            Step::CreateController => match result {
                ZkResult::Created { .. } => self.won(cfg, out),
                ZkResult::Error { code: ZkError::NodeExists } => self.push_front(alloc::vec![Step::CheckOwnCreate]),
                _ => self.push_front(alloc::vec![Step::MoveController]),
            },
            Step::CheckOwnCreate => {
                let id = controller_id(&result);
                if id == self.id {
                    // ZKCheckedEphemeral / checkControllerAndEpoch: our own create landed before a
                    // lost response.
                    if cfg.behaviour().fenced_writes {
                        self.controller.ctx.epoch += 1;
                        self.controller.ctx.epoch_zk_version += 1;
                    }
                    self.won(cfg, out);
                } else {
                    self.controller.active_id = id;
                    if id == -1 {
                        self.clog(out, EventKind::Info, "A controller has been elected but just resigned, this will result in another round of election".into());
                    }
                }
            }
            Step::ReadEpoch => {
                if let ZkResult::Data { data: ZData::ControllerEpoch { epoch }, stat } = result {
                    self.controller.ctx.epoch = epoch;
                    self.controller.ctx.epoch_zk_version = stat.version;
                }
            }
            Step::IncrementEpoch => match result {
                ZkResult::Written { stat } => {
                    self.controller.ctx.epoch += 1;
                    self.controller.ctx.epoch_zk_version = stat.version;
                    self.clog(
                        out,
                        EventKind::Info,
                        format!("Controller {} incremented epoch to {}", self.id, self.controller.ctx.epoch),
                    );
                }
                _ => {
                    self.clog(
                        out,
                        EventKind::Info,
                        "Controller moved to another broker. Aborting controller startup procedure".into(),
                    );
                    if let Some(job) = self.controller.job.as_mut() {
                        job.steps.clear();
                    }
                    self.controller.active_id = -1;
                    self.resign(out);
                    self.push_front(alloc::vec![Step::MoveController]);
                }
            },
            Step::RegisterIsrListener => {}
            Step::ReadBrokerIds => {
                let names = children(&result);
                let paths = names.iter().map(|n| format!("/brokers/ids/{n}")).collect();
                self.push_front(alloc::vec![Step::ReadBrokers(paths)]);
            }
            Step::ReadBrokers(paths) => {
                let live = readable_brokers(&paths, &result);
                self.clog(
                    out,
                    EventKind::Info,
                    format!(
                        "Currently active brokers in the cluster: Set({})",
                        fmt_ids(live.iter().copied()).replace(',', ", ")
                    ),
                );
                self.controller.ctx.live_brokers = live;
            }
            Step::ReadTopics => {
                let names = children(&result);
                let paths = names.iter().map(|n| format!("/brokers/topics/{n}")).collect();
                self.push_front(alloc::vec![Step::ReadAssignments(paths)]);
            }
            Step::ReadAssignments(paths) => {
                let mut assignment = BTreeMap::new();
                if let ZkResult::DataMany { items } = &result {
                    for (path, item) in paths.iter().zip(items) {
                        let topic = path.rsplit('/').next().unwrap_or("");
                        if let Some((ZData::Assignment { partitions }, _)) = item {
                            for (p, r) in partitions {
                                assignment.insert(TopicPartition::new(topic, *p), r.clone());
                            }
                        }
                    }
                }
                self.controller.ctx.assignment = assignment;
                let _ = cfg;
            }
            Step::ReadStates => {
                let tps: Vec<TopicPartition> = self.controller.ctx.assignment.keys().cloned().collect();
                let mut leadership = BTreeMap::new();
                if let ZkResult::DataMany { items } = &result {
                    for (tp, item) in tps.iter().zip(items) {
                        if let Some((ZData::PartitionState { state }, stat)) = item {
                            leadership.insert(tp.clone(), Cached { state: state.clone(), zk_version: stat.version });
                        }
                    }
                }
                self.controller.ctx.leadership = leadership;
                self.controller.ctx.loaded = true;
                let offsets3 = TopicPartition::new(crate::scenario::OFFSETS_TOPIC, 3);
                let note = match self.controller.ctx.leadership.get(&offsets3) {
                    Some(c) => format!("; {offsets3}: {} (zkVersion {})", leader_isr_json(&c.state), c.zk_version),
                    None => String::new(),
                };
                self.clog(
                    out,
                    EventKind::Info,
                    format!(
                        "Loaded leader and ISR of {} partitions into the controller context{note}",
                        self.controller.ctx.leadership.len()
                    ),
                );
            }
            Step::ElectRead(tp) => self.on_elect_read(tp, result, cfg, out),
            Step::ElectWrite(tp, state, _, recipients) => match result {
                ZkResult::Written { stat } => self.elected(&tp, state, stat.version, &recipients, out),
                _ => self.push_front(alloc::vec![Step::WriteCheck(tp, state, WriteKind::Elect(recipients))]),
            },
            Step::CreateState(tp, state, recipients) => match result {
                ZkResult::Created { .. } => self.elected(&tp, state, 0, &recipients, out),
                _ => self.push_front(alloc::vec![Step::ElectRead(tp)]),
            },
            Step::WriteCheck(tp, intended, kind) => {
                let landed = parse_state(&result).filter(|(s, _)| *s == intended);
                match (landed, kind) {
                    (Some((s, v)), WriteKind::Elect(rcp)) => self.elected(&tp, s, v, &rcp, out),
                    (Some((s, v)), WriteKind::RemoveIsr(r)) => self.isr_removed(&tp, r, s, v, out),
                    (None, WriteKind::Elect(_)) => self.push_front(alloc::vec![Step::ElectRead(tp)]),
                    (None, WriteKind::RemoveIsr(r)) => self.push_front(alloc::vec![Step::RemoveIsrRead(tp, r)]),
                }
            }
            Step::BrokerChangeRead => {
                let names = children(&result);
                let paths = names.iter().map(|n| format!("/brokers/ids/{n}")).collect();
                self.push_front(alloc::vec![Step::BrokerChangeData(paths)]);
            }
            Step::BrokerChangeData(paths) => {
                let cur = readable_brokers(&paths, &result);
                let old = self.controller.ctx.live_brokers.clone();
                let new: Vec<BrokerId> = cur.difference(&old).copied().collect();
                let dead: Vec<BrokerId> = old.difference(&cur).copied().collect();
                self.controller.ctx.live_brokers = cur.clone();
                self.clog(
                    out,
                    EventKind::Info,
                    format!(
                        "Newly added brokers: {}, deleted brokers: {}, all live brokers: {}",
                        fmt_ids(new.iter().copied()),
                        fmt_ids(dead.iter().copied()),
                        fmt_ids(cur.iter().copied())
                    ),
                );
                let mut steps = Vec::new();
                if !new.is_empty() {
                    steps.push(Step::BrokerStartup(new));
                }
                if !dead.is_empty() {
                    steps.push(Step::BrokerFailure(dead));
                }
                self.push_front(steps);
            }
            Step::RemoveIsrRead(tp, r) => self.on_remove_read(tp, r, result, cfg, out),
            Step::RemoveIsrWrite(tp, r, state, _) => match result {
                ZkResult::Written { stat } => self.isr_removed(&tp, r, state, stat.version, out),
                _ => self.push_front(alloc::vec![Step::WriteCheck(tp, state, WriteKind::RemoveIsr(r))]),
            },
            Step::IsrNotifRead => {
                let names = children(&result);
                if !names.is_empty() {
                    let paths = names.iter().map(|n| format!("/isr_change_notification/{n}")).collect();
                    self.push_front(alloc::vec![Step::IsrNotifData(paths)]);
                }
            }
            Step::IsrNotifData(paths) => {
                let mut tps = BTreeSet::new();
                if let ZkResult::DataMany { items } = &result {
                    for item in items.iter().flatten() {
                        if let (ZData::IsrChange { partitions }, _) = item {
                            tps.extend(partitions.iter().cloned());
                        }
                    }
                }
                self.push_front(alloc::vec![Step::IsrNotifStates(tps.into_iter().collect(), paths)]);
            }
            Step::IsrNotifStates(tps, paths) => {
                if let ZkResult::DataMany { items } = &result {
                    for (tp, item) in tps.iter().zip(items) {
                        if let Some((ZData::PartitionState { state }, stat)) = item {
                            self.controller
                                .ctx
                                .leadership
                                .insert(tp.clone(), Cached { state: state.clone(), zk_version: stat.version });
                            self.controller.batch.um.insert(tp.clone());
                        }
                    }
                }
                self.clog(out, EventKind::Info, format!("Processed ISR change notification for {}", short_list(&tps)));
                self.flush(out);
                self.push_front(alloc::vec![Step::IsrNotifDelete(paths)]);
            }
            Step::IsrNotifDelete(_) => {}
            Step::MoveController => {
                self.controller.active_id = -1;
            }
            other => {
                let _ = other;
            }
        }
    }

    fn won(&mut self, cfg: &Config, out: &mut Outbox) {
        self.controller.active_id = self.id;
        let mut steps = Self::failover_steps();
        if cfg.behaviour().fenced_writes {
            // The epoch was bumped in the same transaction as the create.
            steps.retain(|s| !matches!(s, Step::ReadEpoch | Step::IncrementEpoch));
            self.clog(
                out,
                EventKind::ControllerElected,
                format!(
                    "{} successfully elected as the controller. Epoch incremented to {} and epoch zk version is now {}",
                    self.id, self.controller.ctx.epoch, self.controller.ctx.epoch_zk_version
                ),
            );
        } else {
            self.clog(
                out,
                EventKind::ControllerElected,
                format!("{} successfully elected as the controller; starting become-controller state transition (onControllerFailover)", self.id),
            );
        }
        self.push_front(steps);
    }

    /// `ControllerEventThread` caught `ControllerMovedException`: abandon the event and
    /// `maybeResign()` (re-read `/controller`, resign if it is not us).
    fn controller_moved(&mut self, out: &mut Outbox) {
        let name = self.controller.job.as_ref().map(|j| j.event.name()).unwrap_or_default();
        self.clog(
            out,
            EventKind::ControllerResigned,
            format!(
                "Controller moved to another broker when processing {name}: /controller_epoch is no longer at version {}. Trigger controller move listener immediately",
                self.controller.ctx.epoch_zk_version
            ),
        );
        if let Some(job) = self.controller.job.as_mut() {
            job.steps.clear();
        }
        self.push_front(alloc::vec![Step::ReadControllerId { resign_check: true }]);
    }

    fn on_elect_read(&mut self, tp: TopicPartition, result: ZkResult, cfg: &Config, out: &mut Outbox) {
        let live = self.controller.ctx.live_brokers.clone();
        let assignment = self.controller.ctx.assignment.get(&tp).cloned().unwrap_or_default();
        let epoch = self.controller.ctx.epoch;
        let Some((current, version)) = parse_state(&result) else {
            // NewPartition: initializeLeaderAndIsrForPartition.
            let live_replicas: Vec<BrokerId> = assignment.iter().copied().filter(|r| live.contains(r)).collect();
            if let Some(&leader) = live_replicas.first() {
                let state = LeaderIsr { leader, leader_epoch: 0, isr: live_replicas.clone(), controller_epoch: epoch };
                self.push_front(alloc::vec![Step::CreateState(tp, state, live_replicas)]);
            }
            return;
        };
        if current.controller_epoch > epoch {
            self.slog(
                out,
                EventKind::Info,
                format!(
                    "aborted leader election for partition {tp} since the LeaderAndIsr path was already written by another controller. This probably means that the current controller {} went through a soft failure and another controller was elected with epoch {}.",
                    self.id, current.controller_epoch
                ),
            );
            return;
        }
        match offline_leader(&assignment, &current, &live, cfg.unclean, epoch) {
            Ok(e) => {
                if e.unclean {
                    self.slog(
                        out,
                        EventKind::Info,
                        format!("Unclean leader election for {tp}: no live replica in ISR; data loss is possible"),
                    );
                }
                self.push_front(alloc::vec![Step::ElectWrite(tp, e.state, version, e.recipients)]);
            }
            Err(why) => {
                self.slog(
                    out,
                    EventKind::LeaderChange,
                    format!("Initiated state change for partition {tp} from OfflinePartition to OnlinePartition failed: NoReplicaOnlineException: {why}"),
                );
            }
        }
    }

    fn elected(
        &mut self,
        tp: &TopicPartition,
        state: LeaderIsr,
        version: i32,
        recipients: &[BrokerId],
        out: &mut Outbox,
    ) {
        self.slog(
            out,
            EventKind::LeaderChange,
            format!(
                "Selected new leader and ISR {} for offline partition {tp} (state znode now at zkVersion {version})",
                leader_isr_json(&state)
            ),
        );
        self.controller.ctx.leadership.insert(tp.clone(), Cached { state, zk_version: version });
        self.controller.partition_states.insert(tp.clone(), PartitionState::OnlinePartition);
        self.controller.add_lai(recipients, tp);
    }

    fn on_remove_read(&mut self, tp: TopicPartition, r: BrokerId, result: ZkResult, cfg: &Config, out: &mut Outbox) {
        let epoch = self.controller.ctx.epoch;
        let Some((current, version)) = parse_state(&result) else {
            self.clog(
                out,
                EventKind::Info,
                format!("Cannot remove replica {r} from ISR of {tp} - leaderAndIsr is empty."),
            );
            return;
        };
        if current.controller_epoch > epoch {
            self.clog(
                out,
                EventKind::Info,
                format!(
                    "Leader and isr path written by another controller. This probably means the current controller with epoch {epoch} went through a soft failure and another controller was elected with epoch {}. Aborting state change by this controller",
                    current.controller_epoch
                ),
            );
            return;
        }
        match remove_from_isr(&current, r, cfg.unclean, epoch) {
            Some(state) => self.push_front(alloc::vec![Step::RemoveIsrWrite(tp, r, state, version)]),
            None => {
                self.clog(
                    out,
                    EventKind::Info,
                    format!(
                        "Cannot remove replica {r} from ISR of partition {tp} since it is not in the ISR. Leader = {} ; ISR = [{}]",
                        current.leader,
                        fmt_ids(current.isr.iter().copied())
                    ),
                );
                self.controller.ctx.leadership.insert(tp.clone(), Cached { state: current, zk_version: version });
                self.controller.replica_states.insert((tp, r), ReplicaState::OfflineReplica);
            }
        }
    }

    fn isr_removed(&mut self, tp: &TopicPartition, r: BrokerId, state: LeaderIsr, version: i32, out: &mut Outbox) {
        let cached_leader = self.controller.ctx.leadership.get(tp).map(|c| c.state.leader);
        let kind = if state.leader == crate::ids::NO_LEADER { EventKind::LeaderChange } else { EventKind::Info };
        let why = match cached_leader {
            Some(cl) if state.leader == crate::ids::NO_LEADER && cl != r => format!(
                " — ZooKeeper said the leader was {r} while the controller's cache said {cl}, so no election was run"
            ),
            _ => String::new(),
        };
        self.clog(
            out,
            kind,
            format!("New leader and ISR for partition {tp} is {} (removed replica {r}){why}", leader_isr_json(&state)),
        );
        self.controller.ctx.leadership.insert(tp.clone(), Cached { state, zk_version: version });
        self.controller.replica_states.insert((tp.clone(), r), ReplicaState::OfflineReplica);
        let others: Vec<BrokerId> = self
            .controller
            .ctx
            .assignment
            .get(tp)
            .map(|a| a.iter().copied().filter(|b| *b != r).collect())
            .unwrap_or_default();
        self.controller.add_lai(&others, tp);
    }
}

fn controller_id(result: &ZkResult) -> BrokerId {
    match result {
        ZkResult::Data { data: ZData::Controller { broker_id, .. }, .. } => *broker_id,
        _ => -1,
    }
}

fn children(result: &ZkResult) -> Vec<String> {
    match result {
        ZkResult::Children { names } => names.clone(),
        _ => Vec::new(),
    }
}

/// `getAllBrokersInCluster`: ids whose registration could be read (others silently dropped).
fn readable_brokers(paths: &[String], result: &ZkResult) -> BTreeSet<BrokerId> {
    let mut live = BTreeSet::new();
    if let ZkResult::DataMany { items } = result {
        for (_, item) in paths.iter().zip(items) {
            if let Some((ZData::Broker { id }, _)) = item {
                live.insert(*id);
            }
        }
    }
    live
}

/// `LeaderAndIsr.toString` in 1.0.
pub fn leader_isr_json(s: &LeaderIsr) -> String {
    format!(
        "{{\"leader\":{},\"leader_epoch\":{},\"isr\":[{}]}}",
        s.leader,
        s.leader_epoch,
        fmt_ids(s.isr.iter().copied())
    )
}

fn short_list(tps: &[TopicPartition]) -> String {
    let mut s = String::new();
    for (i, tp) in tps.iter().take(6).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!("{tp}"));
    }
    if tps.len() > 6 {
        s.push_str(&format!(" and {} more", tps.len() - 6));
    }
    s
}
