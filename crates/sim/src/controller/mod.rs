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
//! Later versions change it through [`crate::mode::Behaviour`] properties: 1.1.0 adds the `Expire`
//! event put by `clearAndPut` when the session expires (`KafkaController.startup`'s
//! `StateChangeHandler`), makes `ControllerChange` re-read `/controller` (`maybeResign`), re-registers
//! the broker through `RegisterBrokerAndReelect`, and batches elections and ISR removals (pipelined
//! requests: [`Exec::WaitAll`]), and as shipped can deadlock on that expiry
//! ([`Controller::deadlock`], KAFKA-6879, fixed in 1.1.1); 2.1.0 has all of that but the deadlock and wraps every controller write in the
//! KAFKA-6082 epoch check, and checks the owner before `triggerControllerMove` deletes `/controller`.
//!
//! The controller is its own type, owned by its broker (`Broker.controller`); what
//! it needs from the broker comes in a [`ControllerIo`]. Only its broker drives it; the world's
//! steady-state build seeds it and the alerts and views read it. Each group of Kafka handlers is one file
//! holding both halves of its micro-steps — the ZooKeeper request and what the thread does with the
//! response — so one behaviour reads top to bottom:
//! - `failover.rs`: `elect`, `onControllerFailover`, `maybeResign` / controller moved;
//! - `election.rs`: `triggerOnlinePartitionStateChange`, `electLeaderForPartition` and the pure
//!   `OfflinePartitionLeaderSelector`;
//! - `broker_change.rs`: `BrokerChange`, `onBrokerStartup`, `onBrokerFailure`;
//! - `remove_isr.rs`: 1.0's `removeReplicaFromIsr` and its pure arithmetic;
//! - `partition_state.rs`: the partition state machine, and reading a state znode (`parse_state`,
//!   `checkLeaderAndIsrZkData` as `write_landed`, which ends both conditional leader-and-ISR writes);
//! - `isr_notification.rs`: `IsrChangeNotification`;
//! - `requests.rs`: `ControllerBrokerRequestBatch`;
//! - `batch_election.rs`, `batch_isr.rs`: 1.1.0/2.1.0's `doElectLeaderForPartitions` and
//!   `doRemoveReplicasFromIsr`;
//! - `register.rs`: 1.1.0/2.1.0's `RegisterBrokerAndReelect`;
mod batch_election;
mod batch_isr;
mod broker_change;
pub mod election;
mod failover;
mod isr_notification;
pub mod partition_state;
mod register;
mod remove_isr;
pub mod replica_state;
mod requests;
#[cfg(test)]
mod tests;

use crate::effects::{Line, Outbox};
use crate::event::EventKind;
use crate::ids::{BrokerId, TopicPartition};
use crate::mark::Mark;
use crate::scenario::Config;
use crate::vec_map::{VecMap, VecSet};
use crate::zk_client::{Purpose, ZkClient};
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::{MultiOp, Stat, ZkOp, ZkResult};
use alloc::collections::VecDeque;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use partition_state::PartitionState;
use replica_state::ReplicaState;
use requests::Batch;
use serde::{Deserialize, Serialize};

/// Events on the controller queue (`ControllerEvent` subclasses of 1.0).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
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
    /// 1.1.0+: `RegisterBrokerAndReelect`, put by `afterInitializingSession` on a new session.
    RegisterBrokerAndReelect,
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
            ControllerEvent::RegisterBrokerAndReelect => "RegisterBrokerAndReelect".into(),
        }
    }
}

/// `partitionLeadershipInfo`: each entry shared, so copying the map (copy-on-write while the
/// alerts' memo holds the last one) copies pointers, not ISR lists.
pub type Leadership = VecMap<TopicPartition, Rc<Cached>>;

/// `LeaderIsrAndControllerEpoch` with the znode version, as cached in `partitionLeadershipInfo`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Cached {
    /// The leadership.
    pub state: LeaderIsr,
    /// The znode version it was read or written at.
    pub zk_version: i32,
}

impl Cached {
    /// The `PartitionState` a LeaderAndIsr or UpdateMetadata request carries for it.
    pub fn info(&self, tp: &TopicPartition, replicas: Vec<BrokerId>) -> crate::message::PartitionStateInfo {
        crate::message::PartitionStateInfo::new(tp, &self.state, self.zk_version, replicas)
    }
}

/// `ControllerContext`: the controller's in-memory snapshot of ZooKeeper.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct ControllerContext {
    /// `epoch`.
    pub epoch: i32,
    /// `epochZkVersion`.
    pub epoch_zk_version: i32,
    /// `liveBrokers`.
    pub live_brokers: VecSet<BrokerId>,
    /// `partitionReplicaAssignment`, shared: failover replaces it whole and nothing else writes
    /// it, so a copy of the controller (or of a step that walks it) copies a pointer.
    pub assignment: Rc<VecMap<TopicPartition, Vec<BrokerId>>>,
    /// `partitionLeadershipInfo`. Written only through [`ControllerContext::cache`],
    /// [`ControllerContext::clear_cache`] and [`ControllerContext::set_cache`], which keep `log`.
    pub leadership: Rc<Leadership>,
    /// Which entries of `leadership` were written since when (see [`LeadershipLog`]).
    pub(crate) log: crate::derived::Derived<LeadershipLog>,
    /// `initializeControllerContext` has read the partition states.
    pub loaded: bool,
}

impl ControllerContext {
    /// Caches `c` for `tp` (`partitionLeadershipInfo.put`).
    pub(crate) fn cache(&mut self, tp: TopicPartition, c: Cached) {
        self.log.note(&tp);
        Rc::make_mut(&mut self.leadership).insert(tp, Rc::new(c));
    }

    /// Empties the cache.
    pub(crate) fn clear_cache(&mut self) {
        self.log.forget();
        Rc::make_mut(&mut self.leadership).clear();
    }

    /// Replaces the cache.
    pub(crate) fn set_cache(&mut self, leadership: Leadership) {
        self.log.forget();
        self.leadership = Rc::new(leadership);
    }
}

/// The partitions whose cached leadership was written, in order, so a reader that saw the cache
/// at some write (a [`LogMark`]) finds what changed since without keeping a copy of it. A cache
/// of the writes, not state: every two logs are equal and a log hashes to nothing.
#[derive(Clone, Debug)]
pub struct LeadershipLog {
    /// This log's identity: a new context starts a new log, and a mark of another log finds
    /// nothing in this one.
    token: Rc<u8>,
    /// Writes numbered below this are forgotten.
    floor: u64,
    /// The writes numbered `floor` on.
    written: Vec<TopicPartition>,
}

/// A place in a [`LeadershipLog`]: its identity (held weakly, so it cannot be reused while the
/// mark lives) and the number of writes then.
#[derive(Clone, Debug)]
pub struct LogMark(alloc::rc::Weak<u8>, u64);

/// Writes a log remembers before it forgets the older half.
const LOG_KEEP: usize = 4096;

impl Default for LeadershipLog {
    fn default() -> Self {
        LeadershipLog { token: Rc::new(0), floor: 0, written: Vec::new() }
    }
}

impl LeadershipLog {
    fn note(&mut self, tp: &TopicPartition) {
        if self.written.len() >= LOG_KEEP {
            self.written.drain(..LOG_KEEP / 2);
            self.floor += (LOG_KEEP / 2) as u64;
        }
        self.written.push(tp.clone());
    }

    /// Every entry may have changed: marks taken before find nothing.
    fn forget(&mut self) {
        self.floor += self.written.len() as u64 + 1;
        self.written.clear();
    }

    /// Where the log is now.
    pub(crate) fn mark(&self) -> LogMark {
        LogMark(Rc::downgrade(&self.token), self.floor + self.written.len() as u64)
    }

    /// The partitions written since `mark` (with repeats), if this log still knows them.
    pub(crate) fn since(&self, mark: &LogMark) -> Option<&[TopicPartition]> {
        let LogMark(token, at) = mark;
        if !core::ptr::eq(token.as_ptr(), Rc::as_ptr(&self.token)) || *at < self.floor {
            return None;
        }
        self.written.get((*at - self.floor) as usize..)
    }
}

/// What the controller needs from the broker that runs it: the broker's id, its ZooKeeper client
/// (controller requests are submitted with [`Purpose::Controller`]), the configuration, and the
/// outbox its handler call writes effects to. The broker only runs the controller thread while its
/// process is alive.
pub struct ControllerIo<'a> {
    /// `brokerId`.
    pub id: BrokerId,
    /// The broker's ZooKeeper client.
    pub zk: &'a mut ZkClient,
    /// The configuration (Kafka behaviour included).
    pub cfg: &'a Config,
    /// Where effects go.
    pub out: &'a mut Outbox,
}

impl ControllerIo<'_> {
    /// A log line in `KafkaController`'s voice.
    fn log(&mut self, kind: EventKind, text: impl Line) {
        let id = self.id;
        self.out.log(kind, move || format!("[Controller id={id}] {}", text.text()));
    }
}

/// A micro-step of a controller event: a step of one group of handlers, or a step shared by all.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
enum Step {
    Failover(failover::Step),
    Election(election::Step),
    BrokerChange(broker_change::Step),
    RemoveIsr(remove_isr::Step),
    IsrNotification(isr_notification::Step),
    BatchElection(batch_election::Step),
    BatchIsr(batch_isr::Step),
    Register(register::Step),
    /// `BrokerChange` and `IsrChangeNotification` start with `if (!isActive) return`.
    CheckActive,
    /// `ControllerBrokerRequestBatch.sendRequestsToBrokers`.
    FlushBatch,
    /// `sendUpdateMetadataRequest(liveOrShuttingDownBrokerIds)` for every cached partition.
    UpdateMetadataAll,
}

impl Step {
    /// The Kafka method the thread is in while this step waits on ZooKeeper.
    fn name(&self) -> String {
        match self {
            Step::Failover(s) => s.name(),
            Step::Election(s) => s.name(),
            Step::BrokerChange(s) => s.name(),
            Step::RemoveIsr(s) => s.name(),
            Step::IsrNotification(s) => s.name(),
            Step::BatchElection(s) => s.name(),
            Step::BatchIsr(s) => s.name(),
            Step::Register(s) => s.name(),
            Step::CheckActive => "isActive".into(),
            Step::FlushBatch => "sendRequestsToBrokers".into(),
            Step::UpdateMetadataAll => "sendUpdateMetadataRequest".into(),
        }
    }
}

impl From<failover::Step> for Step {
    fn from(s: failover::Step) -> Self {
        Step::Failover(s)
    }
}

impl From<election::Step> for Step {
    fn from(s: election::Step) -> Self {
        Step::Election(s)
    }
}

impl From<broker_change::Step> for Step {
    fn from(s: broker_change::Step) -> Self {
        Step::BrokerChange(s)
    }
}

impl From<remove_isr::Step> for Step {
    fn from(s: remove_isr::Step) -> Self {
        Step::RemoveIsr(s)
    }
}

impl From<isr_notification::Step> for Step {
    fn from(s: isr_notification::Step) -> Self {
        Step::IsrNotification(s)
    }
}

impl From<batch_election::Step> for Step {
    fn from(s: batch_election::Step) -> Self {
        Step::BatchElection(s)
    }
}

impl From<batch_isr::Step> for Step {
    fn from(s: batch_isr::Step) -> Self {
        Step::BatchIsr(s)
    }
}

impl From<register::Step> for Step {
    fn from(s: register::Step) -> Self {
        Step::Register(s)
    }
}

/// What the request half of a step did: finished locally, or sent ZooKeeper requests whose
/// responses the thread now blocks on.
enum Exec {
    Done,
    /// One request (fenced when the behaviour fences writes and it is a write).
    Wait(ZkOp),
    /// Several requests sent at once, as `KafkaZkClient.retryRequestsUntilConnected(requests)`
    /// pipelines them (1.1.0 KafkaZkClient.scala:1440, 2.1.0 :1592); the thread blocks until every
    /// response is in, then a failed epoch check on any of them is `ControllerMovedException`
    /// (2.1.0 :1609/:1617 `maybeThrowControllerMoveException`). Each write is fenced on its own.
    WaitAll(Vec<ZkOp>),
    /// One request that writes but is not a controller write, so never fenced: the broker's own
    /// registration (2.1.0 `KafkaZkClient.registerBroker`, :85, has no `zkVersionCheck`).
    WaitUnfenced(ZkOp),
}

/// The event being processed.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Job {
    /// The event.
    pub event: ControllerEvent,
    steps: VecDeque<Step>,
    waiting: Option<Step>,
    /// The pipelined requests of the step waiting on [`Exec::WaitAll`], with their responses so far.
    pipeline: Vec<(Rc<ZkOp>, Option<ZkResult>)>,
}

impl Job {
    /// The partitions whose state znodes this job is writing right now: until the responses
    /// arrive, ZooKeeper is legitimately ahead of the cache.
    pub fn writing(&self) -> Vec<TopicPartition> {
        match self.waiting.as_ref() {
            Some(Step::Election(s)) => s.writing().into_iter().cloned().collect(),
            Some(Step::RemoveIsr(s)) => s.writing().into_iter().cloned().collect(),
            Some(Step::BatchElection(s)) => s.writing(),
            Some(Step::BatchIsr(s)) => s.writing(),
            _ => Vec::new(),
        }
    }

    /// What the thread is blocked on, if anything.
    pub fn waiting_on(&self) -> Option<String> {
        self.waiting.as_ref().map(|s| s.name())
    }
}

/// The controller event thread, blocked for good (KAFKA-6879): the event it was processing and
/// the call whose request waits on `ZooKeeperClient`'s initialization lock.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Stuck {
    /// The event (`ControllerEvent` name).
    pub event: String,
    /// The call blocked on the lock.
    pub call: String,
}

/// The controller component of a broker.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
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
    pub partition_states: VecMap<TopicPartition, PartitionState>,
    /// Replica state machine.
    pub replica_states: VecMap<(TopicPartition, BrokerId), ReplicaState>,
    /// Controller-only ZooKeeper listeners are registered (BrokerChange, IsrChangeNotification).
    pub listeners: bool,
    /// Requests held for a broker whose link is cut (re-sent on heal).
    pub held: VecMap<BrokerId, Vec<crate::message::Payload>>,
    /// KAFKA-6879 (1.1.0): the event thread is blocked for good on `ZooKeeperClient`'s
    /// initialization lock; it processes nothing more.
    pub stuck: Option<Stuck>,
    batch: Batch,
    sent: requests::Sent,
}

impl Default for Controller {
    fn default() -> Self {
        Controller {
            active_id: -1,
            queue: VecDeque::new(),
            job: None,
            ctx: ControllerContext::default(),
            partition_states: VecMap::new(),
            replica_states: VecMap::new(),
            listeners: false,
            held: VecMap::new(),
            stuck: None,
            batch: Batch::default(),
            sent: requests::Sent::default(),
        }
    }
}

impl Controller {
    /// `isActive` of broker `id`'s controller: `activeControllerId == brokerId`.
    pub fn is_active(&self, id: BrokerId) -> bool {
        self.active_id == id
    }

    /// `elect` is waiting on `ZKCheckedEphemeral`'s read of the `/controller` holder: its create
    /// just answered `NODEEXISTS` (the read 1.0 fails into `elect`'s catch-all if the connection
    /// is lost).
    pub fn reading_owner(&self) -> bool {
        matches!(&self.job, Some(Job { waiting: Some(Step::Failover(s)), .. }) if s.reads_owner())
    }

    /// Hold a dropped controller request for re-sending.
    pub fn hold(&mut self, to: BrokerId, payload: crate::message::Payload) {
        self.held.or_default(to).push(payload);
    }

    /// A ZooKeeper listener fired: enqueue (never process inline).
    pub fn enqueue(&mut self, ev: ControllerEvent) {
        self.queue.push_back(ev);
    }

    /// A log line in `KafkaController`'s voice that names the controller epoch (state changes).
    fn slog(&self, io: &mut ControllerIo, kind: EventKind, text: impl Line) {
        let (id, epoch) = (io.id, self.ctx.epoch);
        io.out.log(kind, move || format!("[Controller id={id} epoch={epoch}] {}", text.text()));
    }

    /// Runs `steps` next, before the rest of the current event.
    fn push_front(&mut self, steps: Vec<Step>) {
        if let Some(job) = self.job.as_mut() {
            for s in steps.into_iter().rev() {
                job.steps.push_front(s);
            }
        }
    }

    /// `PartitionStateMachine.triggerOnlinePartitionStateChange`, as the behaviour runs it: one
    /// partition at a time through ZooKeeper in 1.0 ([`election::Step::TriggerOnline`]), one
    /// batch from 1.1.0 ([`batch_election::Step::Trigger`], KAFKA-5642). Resolved where the step is
    /// queued, so a reader following it reads the path the behaviour takes.
    fn trigger_online(io: &ControllerIo) -> Step {
        if io.cfg.behaviour().batched_elections {
            batch_election::Step::Trigger.into()
        } else {
            election::Step::TriggerOnline.into()
        }
    }

    /// Runs `step` next, before the rest of the current event.
    fn then(&mut self, step: impl Into<Step>) {
        self.push_front(alloc::vec![step.into()]);
    }

    /// Abandons the rest of the current event.
    fn abandon_event(&mut self) {
        if let Some(job) = self.job.as_mut() {
            job.steps.clear();
        }
    }

    /// `ControllerEventThread.doWork`: run the event thread until it blocks on ZooKeeper or runs
    /// out of events.
    pub fn run(&mut self, io: &mut ControllerIo) {
        if self.stuck.is_some() {
            return;
        }
        loop {
            if self.job.is_none() {
                let Some(ev) = self.queue.pop_front() else { return };
                let steps = self.steps_of(&ev, io);
                self.job = Some(Job { event: ev, steps: steps.into(), waiting: None, pipeline: Vec::new() });
            }
            let job = self.job.as_mut().expect("set above");
            if job.waiting.is_some() {
                return;
            }
            let Some(step) = job.steps.pop_front() else {
                self.job = None;
                continue;
            };
            match self.request(&step, io) {
                Exec::Done => {}
                Exec::Wait(op) | Exec::WaitUnfenced(op) => {
                    // `ZKCheckedEphemeral` (and its successors) create `/controller` on the raw handle.
                    let raw = matches!(step, Step::Failover(ref s) if s.creates_controller()
                        || (s.reads_owner() && io.cfg.behaviour().owner_read_fails_on_connection_loss));
                    if let Some(job) = self.job.as_mut() {
                        job.waiting = Some(step);
                    }
                    if raw {
                        io.zk.send_raw(op, Purpose::Controller, io.out);
                    } else {
                        io.zk.send(op, Purpose::Controller, io.out);
                    }
                    return;
                }
                Exec::WaitAll(ops) if ops.is_empty() => self.pipelined(step, Vec::new(), io),
                Exec::WaitAll(ops) => {
                    let ops: Vec<Rc<ZkOp>> = ops.into_iter().map(Rc::new).collect();
                    if let Some(job) = self.job.as_mut() {
                        job.waiting = Some(step);
                        job.pipeline = ops.iter().map(|op| (op.clone(), None)).collect();
                    }
                    for op in ops {
                        io.zk.send(op, Purpose::Controller, io.out);
                    }
                    return;
                }
            }
        }
    }

    /// `ControllerEvent.process`: the steps an event starts with.
    fn steps_of(&mut self, ev: &ControllerEvent, io: &mut ControllerIo) -> Vec<Step> {
        match ev {
            ControllerEvent::Startup => alloc::vec![failover::Step::Elect.into()],
            ControllerEvent::Reelect => alloc::vec![
                failover::Step::ReadControllerId { resign_check: true }.into(),
                failover::Step::Elect.into()
            ],
            // 1.1 (KAFKA-5642): events read ZooKeeper when processed — maybeResign().
            ControllerEvent::ControllerChange(_) if io.cfg.behaviour().reread_controller_on_change => {
                alloc::vec![failover::Step::ReadControllerId { resign_check: true }.into()]
            }
            ControllerEvent::ControllerChange(id) => {
                self.controller_change(*id, io);
                Vec::new()
            }
            ControllerEvent::BrokerChange => {
                alloc::vec![Step::CheckActive, broker_change::Step::ReadBrokerIds.into()]
            }
            ControllerEvent::IsrChangeNotification => {
                alloc::vec![Step::CheckActive, isr_notification::Step::ReadNotifications.into()]
            }
            ControllerEvent::RegisterBrokerAndReelect => alloc::vec![
                register::Step::Register.into(),
                failover::Step::ReadControllerId { resign_check: true }.into(),
                failover::Step::Elect.into()
            ],
        }
    }

    /// The request half of a step; a write is fenced when the behaviour says so.
    fn request(&mut self, step: &Step, io: &mut ControllerIo) -> Exec {
        let b = io.cfg.behaviour();
        let exec = match step {
            Step::Failover(s) => s.request(self, io),
            Step::Election(s) => s.request(self, io),
            Step::BrokerChange(s) => s.request(self, io),
            Step::RemoveIsr(s) => s.request(self, io),
            Step::IsrNotification(s) => s.request(self, io),
            Step::BatchElection(s) => s.request(self, io),
            Step::BatchIsr(s) => s.request(self, io),
            Step::Register(s) => s.request(self, io),
            Step::CheckActive => {
                if !self.is_active(io.id) {
                    self.abandon_event();
                }
                Exec::Done
            }
            Step::FlushBatch => {
                self.flush(io);
                Exec::Done
            }
            Step::UpdateMetadataAll => {
                self.update_metadata_all(io);
                Exec::Done
            }
        };
        match exec {
            Exec::Wait(op) if b.fenced_writes && op.is_write() => Exec::Wait(self.fence(op)),
            Exec::WaitAll(ops) if b.fenced_writes => {
                Exec::WaitAll(ops.into_iter().map(|op| if op.is_write() { self.fence(op) } else { op }).collect())
            }
            exec => exec,
        }
    }

    /// KAFKA-6082 as 2.1.0 has it: a controller write carries
    /// `controllerZkVersionCheck(epochZkVersion)` (KafkaZkClient.scala:1699) and
    /// `ZooKeeperClient.send` (2.1.0 ZooKeeperClient.scala:191-236) sends it as
    /// `multi(check(/controller_epoch, epochZkVersion), write)`. A `multi` is left as it is: the fenced
    /// `/controller` create carries its own epoch update, and the one other multi, legacy's
    /// notification deletes, never meets the fence (with fenced writes they are pipelined, one
    /// fenced delete each).
    fn fence(&self, op: ZkOp) -> ZkOp {
        let write = match op {
            ZkOp::SetData { path, data, version } => MultiOp::SetData { path, data, version },
            ZkOp::Create { path, data, ephemeral, sequential } => MultiOp::Create { path, data, ephemeral, sequential },
            ZkOp::Delete { path, version } => MultiOp::Delete { path, version },
            unfenced => return unfenced,
        };
        ZkOp::Multi {
            ops: alloc::vec![
                MultiOp::Check { path: "/controller_epoch".into(), version: self.ctx.epoch_zk_version },
                write
            ],
        }
    }

    /// The controller thread's ZooKeeper call `op` returned `result`: the response half of the
    /// step it was blocked on.
    pub fn on_result(&mut self, op: Rc<ZkOp>, result: ZkResult, io: &mut ControllerIo) {
        if let Some(job) = self.job.as_mut().filter(|j| !j.pipeline.is_empty()) {
            // One of several pipelined requests: wait for all of them.
            let Some(slot) = job.pipeline.iter_mut().find(|(o, r)| r.is_none() && (Rc::ptr_eq(o, &op) || *o == op))
            else {
                return;
            };
            slot.1 = Some(result);
            if job.pipeline.iter().any(|(_, r)| r.is_none()) {
                return;
            }
            let done = core::mem::take(&mut job.pipeline);
            let Some(step) = job.waiting.take() else { return };
            if done.iter().any(|(o, r)| r.as_ref().is_some_and(|r| fence_failed(o, r))) {
                self.controller_moved(io);
                return;
            }
            let results = done.into_iter().filter_map(|(o, r)| r.map(|r| unwrap_fenced(&o, r))).collect();
            self.pipelined(step, results, io);
            return;
        }
        let Some(step) = self.job.as_mut().and_then(|j| j.waiting.take()) else { return };
        let Some(result) = self.unfence(&op, result, io) else { return };
        match step {
            Step::Failover(s) => s.on_response(self, result, io),
            Step::Election(s) => s.on_response(self, result, io),
            Step::BrokerChange(s) => s.on_response(self, result, io),
            Step::RemoveIsr(s) => s.on_response(self, result, io),
            Step::IsrNotification(s) => s.on_response(self, result, io),
            Step::Register(s) => s.on_response(self, result, io),
            // Batch steps wait on pipelined requests; local steps never wait on ZooKeeper.
            Step::BatchElection(_)
            | Step::BatchIsr(_)
            | Step::CheckActive
            | Step::FlushBatch
            | Step::UpdateMetadataAll => {}
        }
    }

    /// Every response of a step's pipelined requests is in, unwrapped (in the order sent).
    fn pipelined(&mut self, step: Step, results: Vec<ZkResult>, io: &mut ControllerIo) {
        match step {
            Step::BatchElection(s) => s.on_responses(self, results, io),
            Step::BatchIsr(s) => s.on_responses(self, results, io),
            // The pipelined notification deletes: nothing to do with their results.
            _ => {}
        }
    }

    /// A fenced write: unwrap the multi (`unwrapResponseWithControllerEpochCheck`). A failed epoch
    /// check is `ControllerMovedException`: the step gets no response (`None`).
    fn unfence(&mut self, op: &ZkOp, result: ZkResult, io: &mut ControllerIo) -> Option<ZkResult> {
        if fence_failed(op, &result) {
            self.controller_moved(io);
            return None;
        }
        Some(unwrap_fenced(op, result))
    }

    /// Kafka 1.1's `Expire` event, put by `clearAndPut` ahead of everything else when the session
    /// expired: the event being processed (a job only ever waits on a ZooKeeper call, which has
    /// just failed with `SESSIONEXPIRED`) is abandoned, the queue is cleared, then
    /// `activeControllerId = -1` and `onControllerResignation()`.
    pub fn expire(&mut self, io: &mut ControllerIo) {
        if let Some(job) = self.job.take() {
            io.log(
                EventKind::Info,
                || format!(
                    "Error processing event {}: KeeperException$SessionExpiredException (its pending ZooKeeper call is not retried)",
                    job.event.name()
                ),
            );
        }
        let dropped = self.queue.len();
        self.queue.clear();
        let was = self.is_active(io.id);
        self.active_id = -1;
        io.log(EventKind::Info, || {
            format!("Processing Expire (queue cleared: {dropped} event(s) dropped); activeControllerId = -1")
        });
        if was {
            self.resign_noting("its session expired; Expire does not read /controller".into(), io);
        }
    }

    /// KAFKA-6879: where 1.1.0's event thread goes after the ZooKeeper call its event waits on
    /// failed because the session expired, when its next move is another ZooKeeper request:
    /// `Some(true)` when the call is inside `elect`'s `try` (1.1.0 KC:1199-1203), whose catch-all
    /// (:1214-1216) runs `triggerControllerMove` (resign, then `deleteController`, :1180-1184);
    /// `Some(false)` for the batched election of `PartitionStateMachine.startup` inside
    /// `onControllerFailover`, whose error `handleStateChanges` swallows (1.1.0 PSM:111-121)
    /// before the failover reads `/admin/preferred_replica_election` (KC:251, :661-662) as a
    /// controller that has not resigned. `None` when the error escapes the event (or the thread is
    /// idle): the thread then takes `Expire`.
    /// Whether the event in progress makes another ZooKeeper request after its pending call fails
    /// with `SESSIONEXPIRED` (see `request_after_expiry`).
    pub fn needs_zk_after_expiry(&self) -> bool {
        self.request_after_expiry().is_some()
    }

    fn request_after_expiry(&self) -> Option<bool> {
        let job = self.job.as_ref()?;
        match job.waiting.as_ref()? {
            Step::Failover(s) if s.inside_elect_try() => Some(true),
            Step::BatchElection(_)
                if matches!(
                    job.event,
                    ControllerEvent::Startup | ControllerEvent::Reelect | ControllerEvent::RegisterBrokerAndReelect
                ) =>
            {
                Some(false)
            }
            _ => None,
        }
    }

    /// Kafka 1.1.0's session expiry when the event in progress still needs ZooKeeper (see
    /// [`crate::mode::Behaviour::expire_waits_under_init_lock`]): the expiry handler has cleared
    /// the queue and put `Expire` (1.1.0 KC:161-162) and waits for it under the initialization
    /// write lock; the thread handles the error as the code does, then its next request blocks on
    /// the read lock (1.1.0 ZooKeeperClient.scala:137). Returns false (nothing done) when the
    /// thread would reach `Expire` instead.
    pub fn deadlock(&mut self, io: &mut ControllerIo) -> bool {
        if !self.needs_zk_after_expiry() {
            return false;
        }
        let resigns = self.request_after_expiry() == Some(true);
        let failed = self.job.as_mut().and_then(|j| j.waiting.take()).map(|s| s.name()).unwrap_or_default();
        let dropped = self.queue.len();
        self.queue.clear();
        let call = if resigns {
            self.elect_failed(&format!("KeeperException$SessionExpiredException (in {failed})"), io);
            "triggerControllerMove: deleteController"
        } else {
            self.slog(
                io,
                EventKind::Info,
                format!("Error while moving some partitions to OnlinePartition state: KeeperException$SessionExpiredException (in {failed})"),
            );
            self.batch = Batch::default();
            "fetchPendingPreferredReplicaElections"
        };
        let event = self.job.take().map(|j| j.event.name()).unwrap_or_default();
        io.log(
            EventKind::Info,
            || format!(
                "{call} blocks on ZooKeeperClient's initialization lock: the session-expiry handler holds it while it waits for this thread to process Expire (clearAndPut dropped {dropped} queued event(s)). Deadlock (KAFKA-6879): no new ZooKeeper session, and the controller thread processes no further event"
            ),
        );
        io.out.mark(Mark::ControllerDeadlock {
            broker: io.id,
            event: event.clone(),
            blocked_in: call.into(),
            resigned: resigns,
        });
        self.stuck = Some(Stuck { event, call: call.into() });
        true
    }

    /// `onControllerResignation`.
    fn resign(&mut self, io: &mut ControllerIo) {
        let holder = if self.active_id < 0 {
            String::from("/controller is now empty")
        } else {
            format!("/controller is now broker {}", self.active_id)
        };
        self.resign_noting(holder, io);
    }

    /// `onControllerResignation`, with `why` in the log line's parenthesis after the epoch.
    fn resign_noting(&mut self, why: String, io: &mut ControllerIo) {
        let epoch = self.ctx.epoch;
        self.listeners = false;
        self.partition_states.clear();
        self.replica_states.clear();
        self.ctx = ControllerContext::default();
        self.held.clear();
        self.batch = Batch::default();
        io.log(EventKind::ControllerResigned, format!("Resigned (broker {} held epoch {epoch}; {why})", io.id));
        io.out.mark(Mark::ControllerResigned { broker: io.id, controller_epoch: epoch });
    }
}

/// Is `op` a fenced write (`multi(check(/controller_epoch), write)`)?
fn is_fenced(op: &ZkOp) -> Option<&MultiOp> {
    match op {
        ZkOp::Multi { ops } if ops.len() == 2 && matches!(ops[0], MultiOp::Check { .. }) => Some(&ops[1]),
        _ => None,
    }
}

/// A fenced write whose epoch check failed: `ControllerMovedException`.
fn fence_failed(op: &ZkOp, result: &ZkResult) -> bool {
    is_fenced(op).is_some() && matches!(result, ZkResult::MultiFailed { index: 0, .. })
}

/// The result of the write inside a fenced `multi`, as if it had been sent alone
/// (the write's own error, or its success); any other result as it is.
fn unwrap_fenced(op: &ZkOp, result: ZkResult) -> ZkResult {
    let Some(write) = is_fenced(op) else { return result };
    match result {
        ZkResult::MultiFailed { code, .. } => ZkResult::Error { code },
        ZkResult::MultiOk => match write {
            MultiOp::SetData { version, .. } => ZkResult::Written {
                stat: Stat { version: version + 1, cversion: 0, czxid: 0, mzxid: 0, ephemeral_owner: None },
            },
            MultiOp::Create { path, .. } => ZkResult::Created { path: path.clone() },
            _ => ZkResult::Deleted,
        },
        other => other,
    }
}

/// The `/controller` holder in a read of `/controller` (-1 when it is empty).
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
fn readable_brokers(paths: &[String], result: &ZkResult) -> VecSet<BrokerId> {
    let mut live = VecSet::new();
    if let ZkResult::DataMany { items } = result {
        for (_, item) in paths.iter().zip(items) {
            if let Some((ZData::Broker { id }, _)) = item {
                live.insert(*id);
            }
        }
    }
    live
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
