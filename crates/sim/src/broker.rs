//! A broker process: its ZooKeeper client and registration (`KafkaHealthcheck`), its
//! `ReplicaManager` (leader/follower state with the controller-epoch and leader-epoch checks of
//! `becomeLeaderOrFollower`, the leader's own ISR writes in `Partition.updateIsr`, retried at every
//! isr-expiration run while refused — [`ISR_REFUSAL_REPEATS`] times in the model, forever in Kafka — and the batched ISR change notifications of
//! `maybePropagateIsrChanges`), its
//! `MetadataCache` (filled by UpdateMetadata, answering FindCoordinator as
//! `KafkaApis.handleFindCoordinatorRequest` does) and its group-coordinator ownership
//! (`GroupCoordinator.handleGroupImmigration` / `handleGroupEmigration`). The controller that every
//! broker also runs lives in [`crate::controller`].
use crate::consumer::coordinator_partition;
use crate::controller::{Controller, ControllerEvent, ControllerIo};
use crate::derived::Derived;
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, NodeId, TopicPartition, NO_LEADER};
use crate::message::{ClientError, ConnectResult, PartitionStateInfo, Payload};
use crate::scenario::{Config, OFFSETS_TOPIC};
use crate::sorted::CollectOrdered;
use crate::vec_map::{VecMap, VecSet};
use crate::zk_client::{ConnState, Purpose, ZkClient};
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use crate::zookeeper::session::SessionId;
use crate::zookeeper::watch::{WatchEvent, WatchEventType};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

/// Which followers of a partition this broker leads fetch from it now, as the world observes
/// them (alive, linked both ways with the leader, following it for the partition): bit `j` is set
/// when `replicas[j]` does (the same answer at every place a broker has; a partition has at most
/// one replica a broker, 9 brokers at most). The leader's own bit need not be set. Asked with the
/// partition's place among the broker's `partitions` (where the followers usually have it too).
pub type Fetching<'a> = dyn FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + 'a;

/// A replica as the local `ReplicaManager` knows it (`Partition`).
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct LocalPartition {
    /// Leader this broker follows (or itself).
    pub leader: BrokerId,
    /// Leader epoch of the last accepted LeaderAndIsr.
    pub leader_epoch: i32,
    /// ISR as the leader believes it.
    pub isr: Vec<BrokerId>,
    /// The cached state znode version: the leader's CAS expectation for ISR writes.
    pub zk_version: i32,
    /// Epoch of the controller that made the decision.
    pub controller_epoch: i32,
    /// Assigned replicas.
    pub replicas: Vec<BrokerId>,
    /// This broker leads the partition.
    pub is_leader: bool,
    /// The zkVersion at which an ISR write last failed: it is tried again (and fails again) at
    /// every isr-expiration run until a LeaderAndIsr brings a new zkVersion.
    pub isr_write_failed_at: Option<i32>,
    /// How many times in a row the write was refused at that zkVersion.
    pub isr_refusals: u32,
}

impl LocalPartition {
    /// The local state after accepting `info` (`Partition.makeLeader` / `makeFollower`): leader
    /// when `info` names broker `me`, else a follower of the leader it names.
    pub fn from_info(info: &PartitionStateInfo, me: BrokerId) -> Self {
        LocalPartition {
            leader: info.leader,
            leader_epoch: info.leader_epoch,
            isr: info.isr.clone(),
            zk_version: info.zk_version,
            controller_epoch: info.controller_epoch,
            replicas: info.replicas.clone(),
            is_leader: info.leader == me,
            isr_write_failed_at: None,
            isr_refusals: 0,
        }
    }

    /// Becomes [`LocalPartition::from_info`] of `info` in place, its lists keeping their room.
    fn assign_info(&mut self, info: &PartitionStateInfo, me: BrokerId) {
        self.leader = info.leader;
        self.leader_epoch = info.leader_epoch;
        self.isr.clone_from(&info.isr);
        self.zk_version = info.zk_version;
        self.controller_epoch = info.controller_epoch;
        self.replicas.clone_from(&info.replicas);
        self.is_leader = info.leader == me;
        self.isr_write_failed_at = None;
        self.isr_refusals = 0;
        debug_assert_eq!(*self, LocalPartition::from_info(info, me));
    }
}

/// `MetadataCache`.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct MetadataCache {
    /// Alive brokers, as the last UpdateMetadata said.
    pub alive: VecSet<BrokerId>,
    /// Partition states.
    /// Shared with the request that brought each (one allocation per state, however many
    /// brokers hold it).
    pub partitions: VecMap<TopicPartition, Rc<PartitionStateInfo>>,
}

/// How many refused ISR writes in a row (one per isr-expiration run, 5 s apart) the model shows
/// before it stops retrying: Kafka retries forever, which would flood a two-day run with steps.
pub const ISR_REFUSAL_REPEATS: u32 = 12;

/// The `isr-change-propagation` task's period (1.0.0 `ReplicaManager.scala:322`).
pub const ISR_PROPAGATION_PERIOD_MS: u64 = 2500;
/// `ReplicaManager.IsrChangePropagationBlackOut`.
pub const ISR_CHANGE_BLACKOUT_MS: u64 = 5000;
/// `ReplicaManager.IsrChangePropagationInterval`.
pub const ISR_PROPAGATION_INTERVAL_MS: u64 = 60000;

/// A broker.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Broker {
    /// `broker.id`.
    pub id: BrokerId,
    /// The process is running.
    pub alive: bool,
    /// Process incarnation, bumped at every start.
    pub incarnation: u64,
    /// ZooKeeper client.
    pub zk: ZkClient,
    /// `/brokers/ids/<id>` is registered on the current session.
    pub registered: bool,
    /// The controller component.
    pub controller: Controller,
    /// `ReplicaManager.controllerEpoch`: the highest controller epoch seen.
    pub controller_epoch: i32,
    /// Local replicas (every write moves `partitions_stamp`). Shared copy-on-write: a world
    /// cloned for a schedule copies them only when the broker's replicas are written, not at the
    /// broker's first write of anything (see [`Broker::partitions_mut`]).
    pub partitions: Rc<VecMap<TopicPartition, LocalPartition>>,
    /// Moves at every write of `partitions` (see [`Stamp`]).
    pub(crate) partitions_stamp: Stamp,
    /// Metadata cache.
    pub metadata: MetadataCache,
    /// `__consumer_offsets` partitions whose groups this broker coordinates.
    pub owned_offsets_partitions: VecSet<u32>,
    /// An ISR check (`replica.lag.time.max.ms`) is scheduled.
    pub isr_check_pending: bool,
    /// Virtual time of the input being handled (set by the world before each call).
    pub now_ms: u64,
    /// When this process started (`ReplicaManager`'s construction): the 2.5 s propagation task
    /// runs at `started_ms + k * 2500`.
    pub started_ms: u64,
    /// `isrChangeSet`: partitions whose ISR this leader changed, not yet propagated.
    pub isr_change_set: VecSet<TopicPartition>,
    /// `lastIsrChangeMs`.
    pub last_isr_change_ms: u64,
    /// `lastIsrPropagationMs`: `None` for a broker of the initial steady state, running long before.
    pub last_isr_propagation_ms: Option<u64>,
    /// An `isr-change-propagation` run is scheduled (the model runs the task only while
    /// `isrChangeSet` is non-empty; a run with an empty set does nothing).
    pub isr_propagation_pending: bool,
    started: bool,
}

/// A counter a broker moves at every write of its local replicas, so the world can tell "not
/// written since" without comparing them: [`Derived`], so a broker's equality and hash are its
/// state's.
pub type Stamp = Derived<u64>;

impl Broker {
    /// A stopped broker.
    pub fn new(id: BrokerId) -> Self {
        Broker {
            id,
            alive: false,
            incarnation: 0,
            zk: ZkClient::default(),
            registered: false,
            controller: Controller::default(),
            controller_epoch: 0,
            partitions: Rc::default(),
            partitions_stamp: Stamp::default(),
            metadata: MetadataCache::default(),
            owned_offsets_partitions: VecSet::new(),
            isr_check_pending: false,
            now_ms: 0,
            started_ms: 0,
            isr_change_set: VecSet::new(),
            last_isr_change_ms: 0,
            last_isr_propagation_ms: None,
            isr_propagation_pending: false,
            started: false,
        }
    }

    /// A fresh process (state lost): it connects to ZooKeeper and asks for a new session.
    pub fn start(&mut self, cfg: &Config, out: &mut Outbox) {
        let inc = self.incarnation + 1;
        let now = self.now_ms;
        let servers = core::mem::take(&mut self.zk.servers);
        let stamp = Derived(self.partitions_stamp.0 + 1);
        *self = Broker::new(self.id);
        self.partitions_stamp = stamp;
        self.zk.servers = servers;
        self.incarnation = inc;
        self.now_ms = now;
        self.started_ms = now;
        self.last_isr_propagation_ms = Some(now);
        self.alive = true;
        out.log(EventKind::Process, || format!("[KafkaServer id={}] starting", self.id));
        out.send(self.zk.server(), Payload::ZkConnect { session: None, timeout_ms: cfg.session_timeout_ms });
    }

    pub(crate) fn set_started(&mut self) {
        self.started = true;
    }

    /// `isActive`: this broker's controller believes it is the controller.
    pub fn is_active(&self) -> bool {
        self.controller.is_active(self.id)
    }

    /// Runs the controller event thread (only while the process is alive) until it blocks on
    /// ZooKeeper or runs out of events.
    pub(crate) fn controller_run(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.alive {
            self.controller.run(&mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out });
        }
    }

    fn resend(&mut self, out: &mut Outbox) {
        if let Some(session) = self.zk.session {
            for (xid, op, controller) in self.zk.take_resends() {
                out.send(self.zk.server(), Payload::ZkRequest { session, xid, op, controller });
            }
        }
    }

    /// The ZooKeeper link is back: reconnect if disconnected, else retransmit what was lost.
    pub fn on_zk_link_restored(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.zk.sleeping {
            return; // the client is in its reconnect sleep; it connects when that is over
        }
        if self.zk.init_blocked {
            return; // KAFKA-6879: no new session is ever opened
        }
        match self.zk.state {
            ConnState::Connected => self.resend(out),
            _ => out.send(
                self.zk.server(),
                Payload::ZkConnect { session: self.zk.session_to_resume(), timeout_ms: cfg.session_timeout_ms },
            ),
        }
    }

    /// The server closed the connection (it stopped serving, or closed the session): the client
    /// sees Disconnected and tries the next server of its list (`ClientCnxn.SendThread.run`,
    /// 3.4.10 `ClientCnxn.java:1039-1060` → `startConnect`, `ClientCnxn.java:989`).
    pub fn on_zk_closed(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.zk.state == ConnState::Connected {
            let (id, server) = (self.id, self.zk.server());
            self.connection_lost(
                move || {
                    format!(
                        "[ZkClient broker={id}] zookeeper state changed (Disconnected): {server} closed the connection"
                    )
                },
                cfg,
                out,
            );
        } else {
            self.zk.conn_gen += 1;
            self.reconnect_later(cfg, out);
        }
    }

    /// The TCP connection to ZooKeeper server `server` was reset (a network fault: both ends see
    /// it closed at once, `java.io.IOException: Connection reset by peer`). If it is this client's
    /// connection, connected or connecting, the client drops it as `ClientCnxn.SendThread.run`
    /// does for any socket error (release-3.4.10 `ClientCnxn.java:1142-1175` → `cleanup`), and
    /// connects to the next server after its sleep. Returns whether it was.
    pub fn on_zk_reset(&mut self, server: NodeId, cfg: &Config, out: &mut Outbox) -> bool {
        if !self.alive || self.zk.sleeping || self.zk.server() != server {
            return false;
        }
        match self.zk.state {
            ConnState::Connected => {
                let (id, pending) = (self.id, self.zk.outstanding.len());
                self.connection_lost(
                    move || format!(
                        "[ZkClient broker={id}] zookeeper state changed (Disconnected): connection to {server} reset (java.io.IOException: Connection reset by peer); {pending} request(s) pending"
                    ),
                    cfg,
                    out,
                );
                true
            }
            ConnState::Disconnected | ConnState::Connecting | ConnState::Expired => {
                // A connect attempt in progress on this connection fails the same way.
                out.log(EventKind::ZkSession, || {
                    format!("[ZkClient broker={}] connect attempt to {server} reset", self.id)
                });
                self.zk.conn_gen += 1;
                self.reconnect_later(cfg, out);
                true
            }
        }
    }

    /// The connection dropped (`ClientCnxn.cleanup`): every pending request gets `CONNECTIONLOSS`.
    /// ZkClient's `retryUntilConnected` retries its own on the next connection; of the raw
    /// handle's, `ZKCheckedEphemeral` creates again but its `getData` takes the error as the
    /// result (1.0.0 `ZkUtils.scala:1129-1131`), which `create()` throws into `elect`'s catch-all.
    /// `disconnected` is ZkClient's line, logged as its event thread sees `Disconnected`: after the
    /// raw handle's callbacks, which `cleanup` queued first (release-3.4.10 `ClientCnxn.java:
    /// 1170-1175`).
    fn connection_lost(&mut self, disconnected: impl crate::effects::Line, cfg: &Config, out: &mut Outbox) {
        self.zk.disconnect();
        let lost = self.zk.take_raw_reads();
        for o in &lost {
            if let ZkOp::GetData { path, .. } = &*o.op {
                // ZKCheckedEphemeral's GetDataCallback, `case _` (1.0.0 ZkUtils.scala:1129-1130).
                out.log(EventKind::Info, || {
                    format!("[ZKCheckedEphemeral broker={}] ZooKeeper event while getting znode data: {path} CONNECTIONLOSS", self.id)
                });
            }
        }
        out.log(EventKind::ZkSession, disconnected);
        for o in lost {
            if o.purpose == Purpose::Controller {
                let loss = ZkResult::Error { code: ZkError::ConnectionLoss };
                let io = &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out };
                self.controller.on_result(o.op, loss, io);
            }
        }
        self.reconnect_later(cfg, out);
        self.controller_run(cfg, out);
    }

    /// `SendThread.run`'s sleep before the next connect attempt ([`ZkClient::reconnect_delay`]);
    /// a client that never connected tries the next server at once.
    fn reconnect_later(&mut self, cfg: &Config, out: &mut Outbox) {
        let gen = self.zk.conn_gen;
        match self.zk.reconnect_delay() {
            Some((fixed, up_to)) => {
                self.zk.sleeping = true;
                out.random_timer(fixed, up_to, Timer::ZkReconnect { gen });
            }
            None => self.connect_next(cfg, out),
        }
    }

    /// The reconnect sleep is over.
    fn on_zk_reconnect(&mut self, gen: u64, cfg: &Config, out: &mut Outbox) {
        if gen != self.zk.conn_gen {
            return;
        }
        self.zk.sleeping = false;
        self.connect_next(cfg, out);
    }

    /// Connects to the next server of the list (the same one when the list has only one),
    /// resuming the session if it has one.
    fn connect_next(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.zk.init_blocked {
            return; // KAFKA-6879: no new session is ever opened
        }
        let connect = Payload::ZkConnect { session: self.zk.session_to_resume(), timeout_ms: cfg.session_timeout_ms };
        if self.zk.servers.len() < 2 {
            out.send(self.zk.server(), connect);
            return;
        }
        let (from, to) = self.zk.next_server();
        out.mark(crate::mark::Mark::ZkClientMoved { broker: self.id, from, to });
        out.log(EventKind::ZkSession, || {
            format!("[ZkClient broker={}] opening socket connection to server {to}", self.id)
        });
        out.send(to, connect);
        // The connect attempt's own timeout (`Config::connect_timeout_ms`); a later one moves on.
        out.timer(cfg.connect_timeout_ms(self.zk.servers.len()), Timer::ZkReadTimeout { gen: self.zk.conn_gen });
    }

    /// The read timeout passed without an answer.
    pub fn on_zk_read_timeout(&mut self, gen: u64, cfg: &Config, out: &mut Outbox) {
        if gen != self.zk.conn_gen {
            return;
        }
        if self.zk.state != ConnState::Connected {
            if self.zk.servers.len() < 2 {
                return;
            }
            // A connect attempt went unanswered: try the next server, after the sleep.
            self.zk.conn_gen += 1;
            self.reconnect_later(cfg, out);
            return;
        }
        let (id, pending) = (self.id, self.zk.outstanding.len());
        let line = move || {
            format!(
                "[ZkClient broker={id}] zookeeper state changed (Disconnected): no answer within the read timeout; {pending} request(s) will be retried"
            )
        };
        if self.zk.servers.len() < 2 {
            // One server: the client keeps trying it; the model reconnects when the link heals.
            out.log(EventKind::ZkSession, line);
            self.zk.disconnect();
            return;
        }
        self.connection_lost(line, cfg, out);
    }

    /// Answer to a connect.
    pub fn on_zk_connect_response(&mut self, result: ConnectResult, cfg: &Config, out: &mut Outbox) {
        if self.zk.init_blocked {
            return;
        }
        match result {
            ConnectResult::Expired => {
                let zkclient_line = format!(
                    "[ZkClient broker={}] zookeeper state changed (Expired): session 0x{:x} is gone; opening a new session and retrying {} interrupted request(s) on it",
                    self.id,
                    self.zk.session.unwrap_or(0),
                    self.zk.outstanding.len()
                );
                self.learn_session_expired(zkclient_line, cfg, out);
            }
            ConnectResult::Connected(s) => {
                let new_session = self.zk.session != Some(s);
                self.zk.session = Some(s);
                self.zk.connected();
                if !new_session {
                    out.log(EventKind::ZkSession, || {
                        format!(
                            "[ZkClient broker={}] zookeeper state changed (SyncConnected) on session 0x{s:x}",
                            self.id
                        )
                    });
                    // `primeConnection` puts SetWatches ahead of the queued requests.
                    if !self.zk.watches.is_empty() {
                        let watches = self.zk.watches.clone();
                        out.send(self.zk.server(), Payload::ZkSetWatches { session: s, watches });
                    }
                    self.resend(out);
                    return;
                }
                self.zk.watches.clear();
                out.log(EventKind::ZkSession, || {
                    format!(
                        "[ZkClient broker={}] zookeeper state changed (SyncConnected): new session 0x{s:x}",
                        self.id
                    )
                });
                self.on_new_session(cfg, out);
                // ZkClient retries the interrupted operations on the new session.
                self.resend(out);
            }
        }
    }

    /// The client learnt that its session expired; it opens a new one. ≤1.0 (ZkClient, logging
    /// `zkclient_line`) keeps every request to retry on it. Kafka 1.1's `ZooKeeperClient` fails
    /// every pending request with `SESSIONEXPIRED` (`retryRequestsUntilConnected` retries only
    /// `CONNECTIONLOSS`), then `beforeInitializingSession` makes the controller clear its queue
    /// and process `Expire` before the new session is opened. In 1.1.0 that wait holds the
    /// client's initialization lock: if the controller thread's event needs ZooKeeper again, both
    /// wait for good and no new session is opened (KAFKA-6879, [`Controller::deadlock`]).
    fn learn_session_expired(&mut self, zkclient_line: String, cfg: &Config, out: &mut Outbox) {
        self.zk.state = ConnState::Expired;
        self.zk.watches.clear();
        self.registered = false;
        if !cfg.behaviour().retry_after_expiry {
            let failed = self.zk.fail_all();
            let next = if cfg.behaviour().expire_waits_under_init_lock && self.controller.needs_zk_after_expiry() {
                "calling beforeInitializingSession under the initialization lock"
            } else {
                "initializing a new session"
            };
            out.log(
                EventKind::ZkSession,
                || format!(
                    "[ZooKeeperClient broker={}] Session expired: {} pending request(s) fail with SESSIONEXPIRED and are not retried; {next}",
                    self.id,
                    failed.len()
                ),
            );
            // The controller's own writes of partition state (a leader's ISR update is not one).
            let failed_writes = failed
                .iter()
                .filter(|o| o.purpose == crate::zk_client::Purpose::Controller)
                .flat_map(|o| o.op.state_writes())
                .collect();
            out.mark(crate::mark::Mark::SessionExpiryLearned {
                broker: self.id,
                failed_requests: failed.len() as u32,
                failed_writes,
            });
        } else {
            out.log(EventKind::ZkSession, zkclient_line);
            // ZKCheckedEphemeral's create was on the raw handle: it fails with SESSIONEXPIRED
            // (1.0.0 ZkUtils.scala:1095-1097) instead of being retried on the new session.
            let raw = self.zk.take_raw();
            out.mark(crate::mark::Mark::SessionExpiryLearned {
                broker: self.id,
                failed_requests: raw.len() as u32,
                failed_writes: Vec::new(),
            });
            for o in raw {
                if o.purpose == Purpose::Controller {
                    let expired = ZkResult::Error { code: ZkError::SessionExpired };
                    let io = &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out };
                    self.controller.on_result(o.op, expired, io);
                }
            }
        }
        if cfg.behaviour().expire_event {
            let io = &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out };
            // KAFKA-6879 (1.1.0): the handler waits for Expire under the initialization lock; if
            // the thread's event needs ZooKeeper again, neither moves and `initialize()` never runs.
            if cfg.behaviour().expire_waits_under_init_lock && self.controller.deadlock(io) {
                self.zk.init_blocked = true;
                return;
            }
            self.controller.expire(io);
        }
        out.send(self.zk.server(), Payload::ZkConnect { session: None, timeout_ms: cfg.session_timeout_ms });
    }

    /// `fireNewSessionEvents` then `fireAllEvents`: re-register, re-elect, re-read listeners. At
    /// start-up, and in 1.0 on every new session, the broker registers at once (`KafkaServer.startup`,
    /// `KafkaHealthcheck`); from 1.1.0 a later session's `afterInitializingSession` only puts
    /// `RegisterBrokerAndReelect` on the controller queue (see `controller/register.rs`), and the
    /// `/controller` watch comes back with that event's `maybeResign`.
    fn on_new_session(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.started && cfg.behaviour().register_on_controller_thread {
            self.controller.enqueue(ControllerEvent::RegisterBrokerAndReelect);
            return;
        }
        self.register(out);
        if !self.started {
            self.started = true;
            self.controller.enqueue(ControllerEvent::Startup);
        } else {
            // SessionExpirationListener.handleNewSession → Reelect; then ZkClient fires every
            // data/child listener: /controller is re-read, /brokers/ids and ISR notifications fire.
            self.controller.enqueue(ControllerEvent::Reelect);
            self.zk.send(ZkOp::GetData { path: "/controller".into(), watch: true }, Purpose::ControllerWatch, out);
            if self.controller.listeners {
                self.controller.enqueue(ControllerEvent::BrokerChange);
                self.controller.enqueue(ControllerEvent::IsrChangeNotification);
            }
        }
    }

    fn register(&mut self, out: &mut Outbox) {
        if self.zk.has(|p| matches!(p, Purpose::Register)) {
            return;
        }
        let path = format!("/brokers/ids/{}", self.id);
        self.zk.send(
            ZkOp::Create { path, data: ZData::Broker { id: self.id }, ephemeral: true, sequential: false },
            Purpose::Register,
            out,
        );
    }

    /// A ZooKeeper response.
    pub fn on_zk_response(&mut self, session: SessionId, xid: u64, result: ZkResult, cfg: &Config, out: &mut Outbox) {
        if Some(session) != self.zk.session {
            return; // a response for a dead session's request that has been re-sent since
        }
        if let ZkResult::Error { code: ZkError::SessionExpired } = result {
            // ≤1.0: retryUntilConnected catches SessionExpiredException and waits for a new
            // session. 1.1: the request fails, and so does every other pending one.
            self.zk.lost(xid);
            if self.zk.state == ConnState::Connected {
                let zkclient_line =
                    format!("[ZkClient broker={}] request failed with SESSIONEXPIRED; opening a new session", self.id);
                self.learn_session_expired(zkclient_line, cfg, out);
            }
            return;
        }
        let Some(done) = self.zk.complete(xid) else { return };
        self.zk.note_watch(&done.op, &result);
        match done.purpose {
            Purpose::Controller => self.controller.on_result(
                done.op,
                result,
                &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out },
            ),
            Purpose::Register => match result {
                ZkResult::Created { path } => {
                    self.registered = true;
                    out.log(EventKind::Info, || {
                        format!("[KafkaHealthcheck broker={}] Registered broker {} at path {path}", self.id, self.id)
                    });
                    out.mark(crate::mark::Mark::BrokerRegistered { broker: self.id, on_controller_thread: false });
                }
                ZkResult::Error { code: ZkError::NodeExists } => {
                    out.log(
                        EventKind::Info,
                        || format!(
                            "[KafkaHealthcheck broker={}] /brokers/ids/{} is still held by an older session; waiting for it to be deleted",
                            self.id, self.id
                        ),
                    );
                    let path = format!("/brokers/ids/{}", self.id);
                    self.zk.send(ZkOp::Exists { path, watch: true }, Purpose::RegisterWatch, out);
                }
                _ => {}
            },
            Purpose::RegisterWatch => {
                if let ZkResult::Exists { stat: None } = result {
                    self.register(out);
                }
            }
            Purpose::ControllerWatch => {
                let ev = match result {
                    ZkResult::Data { data: ZData::Controller { broker_id, .. }, .. } => {
                        ControllerEvent::ControllerChange(broker_id)
                    }
                    _ => ControllerEvent::Reelect,
                };
                self.controller.enqueue(ev);
            }
            Purpose::IsrUpdate { tp, isr } => self.on_isr_write(&tp, isr, result, out),
            Purpose::IsrNotify => {}
        }
        self.controller_run(cfg, out);
    }

    /// A watch notification (ZkClient's event thread hands it to the listener).
    pub fn on_watch(&mut self, ev: WatchEvent, cfg: &Config, out: &mut Outbox) {
        if Some(ev.session) != self.zk.session {
            return;
        }
        self.zk.watch_fired(&ev.path, ev.kind);
        // This broker's own registration znode, `/brokers/ids/<id>`.
        let is_me =
            |p: &str| p.strip_prefix("/brokers/ids/").is_some_and(|id| crate::ids::is_decimal(id, i64::from(self.id)));
        match (ev.path.as_str(), ev.kind) {
            ("/controller", WatchEventType::NodeDeleted) => self.controller.enqueue(ControllerEvent::Reelect),
            ("/controller", _) => {
                self.zk.send(ZkOp::GetData { path: "/controller".into(), watch: true }, Purpose::ControllerWatch, out);
            }
            ("/brokers/ids", WatchEventType::NodeChildrenChanged) if self.controller.listeners => {
                self.controller.enqueue(ControllerEvent::BrokerChange)
            }
            ("/isr_change_notification", WatchEventType::NodeChildrenChanged) if self.controller.listeners => {
                self.controller.enqueue(ControllerEvent::IsrChangeNotification)
            }
            (p, WatchEventType::NodeDeleted) if is_me(p) && !self.registered => self.register(out),
            _ => {}
        }
        self.controller_run(cfg, out);
    }

    /// `ReplicaManager.becomeLeaderOrFollower`.
    pub fn on_leader_and_isr(
        &mut self,
        controller_id: BrokerId,
        controller_epoch: i32,
        parts: Vec<Rc<PartitionStateInfo>>,
        out: &mut Outbox,
    ) -> bool {
        if controller_epoch < self.controller_epoch {
            out.log(
                EventKind::ControlRejected,
                || format!(
                    "[ReplicaManager broker={}] Ignoring LeaderAndIsr request from controller {controller_id} with epoch {controller_epoch} since its controller epoch is old. Latest known controller epoch is {} (STALE_CONTROLLER_EPOCH)",
                    self.id, self.controller_epoch
                ),
            );
            return false;
        }
        self.controller_epoch = controller_epoch;
        // At least one effect a partition: grown once, not doubling through a large request.
        out.effects.reserve(parts.len());
        for p in parts {
            if !p.replicas.contains(&self.id) {
                continue;
            }
            let (local_epoch, was_leader) =
                self.partitions.get(&p.tp).map(|l| (l.leader_epoch, l.is_leader)).unwrap_or((-1, false));
            if p.leader_epoch <= local_epoch {
                out.log(
                    EventKind::ControlRejected,
                    || format!(
                        "[ReplicaManager broker={}] Ignoring LeaderAndIsr from controller {controller_id} epoch {controller_epoch} for partition {} since its leader epoch {} is not higher than the current leader epoch {local_epoch}",
                        self.id, p.tp, p.leader_epoch
                    ),
                );
                continue;
            }
            if p.leader == self.id {
                self.accept_state(&p);
                out.log(
                    EventKind::ControlRequest,
                    || format!(
                        "[ReplicaManager broker={}] Became leader of {} with leader epoch {} ISR [{}] zkVersion {} (controller {controller_id} epoch {controller_epoch})",
                        self.id,
                        p.tp,
                        p.leader_epoch,
                        fmt_ids(p.isr.iter().copied()),
                        p.zk_version
                    ),
                );
                if p.tp.topic == OFFSETS_TOPIC && self.owned_offsets_partitions.insert(p.tp.partition) {
                    out.log(EventKind::Info, || {
                        format!(
                            "[GroupCoordinator {}] Loading group metadata for partition {} (immigration)",
                            self.id, p.tp
                        )
                    });
                }
            } else if p.leader != NO_LEADER && self.metadata.alive.contains(&p.leader) {
                self.accept_state(&p);
                out.log(EventKind::ControlRequest, || {
                    format!(
                        "[ReplicaManager broker={}] Became follower of broker {} for {} with leader epoch {}",
                        self.id, p.leader, p.tp, p.leader_epoch
                    )
                });
                if was_leader && p.tp.topic == OFFSETS_TOPIC && self.owned_offsets_partitions.remove(&p.tp.partition) {
                    out.log(EventKind::Info, || {
                        format!("[GroupCoordinator {}] Unloading group metadata for {} (emigration)", self.id, p.tp)
                    });
                }
            } else {
                // makeFollowers: "Only change partition state when the leader is available".
                out.log(
                    EventKind::ControlRequest,
                    || format!(
                        "[ReplicaManager broker={}] Broker {} cannot become follower for partition {} since the new leader {} is unavailable; local state unchanged{}",
                        self.id,
                        self.id,
                        p.tp,
                        p.leader,
                        if was_leader { " (still acting as its leader)" } else { "" }
                    ),
                );
                out.mark(crate::mark::Mark::FollowerTransitionSkipped {
                    broker: self.id,
                    partition: p.tp.clone(),
                    leader: p.leader,
                    still_leader: was_leader,
                });
                self.partitions_stamp.0 += 1;
                Rc::make_mut(&mut self.partitions).or_insert_with(p.tp.clone(), || LocalPartition {
                    leader: NO_LEADER,
                    leader_epoch: -1,
                    isr: Vec::new(),
                    zk_version: -1,
                    controller_epoch: -1,
                    replicas: p.replicas.clone(),
                    is_leader: false,
                    isr_write_failed_at: None,
                    isr_refusals: 0,
                });
            }
        }
        true
    }

    /// A LeaderAndIsr's state `p` becomes this broker's replica ([`LocalPartition::from_info`]),
    /// written over the entry it replaces in one map search.
    fn accept_state(&mut self, p: &PartitionStateInfo) {
        self.partitions_stamp.0 += 1;
        let me = self.id;
        let partitions = Rc::make_mut(&mut self.partitions);
        match partitions.get_mut(&p.tp) {
            Some(e) => e.assign_info(p, me),
            None => {
                partitions.insert(p.tp.clone(), LocalPartition::from_info(p, me));
            }
        }
    }

    /// `ReplicaManager.maybeUpdateMetadataCache`.
    pub fn on_update_metadata(
        &mut self,
        controller_id: BrokerId,
        controller_epoch: i32,
        live: Vec<BrokerId>,
        parts: Vec<Rc<PartitionStateInfo>>,
        out: &mut Outbox,
    ) -> bool {
        if controller_epoch < self.controller_epoch {
            out.log(
                EventKind::ControlRejected,
                || format!(
                    "[ReplicaManager broker={}] Received UpdateMetadata from an old controller {controller_id} with epoch {controller_epoch}. Latest known controller epoch is {} (ControllerMovedException)",
                    self.id, self.controller_epoch
                ),
            );
            return false;
        }
        self.controller_epoch = controller_epoch;
        self.metadata.alive = live.into_iter().collect_ordered();
        // `parts` come sorted (the controller's batch is a sorted set): the cache is walked once
        // beside them, each state replaced in place, and only partitions it lacks are inserted
        // (in any order the last state of a partition wins, as with one insert each).
        let mut missing = Vec::new();
        let mut cache = self.metadata.partitions.iter_mut().peekable();
        for p in parts {
            while cache.next_if(|(tp, _)| **tp < p.tp).is_some() {}
            match cache.next_if(|(tp, _)| **tp == p.tp) {
                Some((_, slot)) => *slot = p,
                None => missing.push(p),
            }
        }
        for p in missing {
            self.metadata.partitions.insert(p.tp.clone(), p);
        }
        true
    }

    /// Replaces what this broker knows of the cluster wholesale: its metadata cache becomes
    /// `alive` and `partitions`, it leads or follows each partition it is a replica of as
    /// `partitions` says, and it coordinates the groups of the `__consumer_offsets` partitions it
    /// leads. The steady state at time 0 starts from this, and a KRaft broker publishes every
    /// image this way (`BrokerMetadataPublisher`).
    pub fn load_metadata(&mut self, alive: VecSet<BrokerId>, partitions: VecMap<TopicPartition, PartitionStateInfo>) {
        self.partitions_stamp.0 += 1;
        Rc::make_mut(&mut self.partitions).clear();
        self.owned_offsets_partitions.clear();
        for (tp, info) in &partitions {
            if info.replicas.contains(&self.id) {
                self.partitions_stamp.0 += 1;
                Rc::make_mut(&mut self.partitions).insert(tp.clone(), LocalPartition::from_info(info, self.id));
            }
            if info.leader == self.id && tp.topic == OFFSETS_TOPIC {
                self.owned_offsets_partitions.insert(tp.partition);
            }
        }
        self.metadata.alive = alive;
        self.metadata.partitions = partitions.into_iter().map(|(tp, p)| (tp, Rc::new(p))).collect_ordered();
    }

    /// A packet of this broker's ZooKeeper connection on `session` was lost on a cut link: the
    /// request stays outstanding and is sent again when the connection comes back (TCP
    /// retransmission, then ZkClient's retry).
    pub fn on_zk_packet_lost(&mut self, session: SessionId, xid: u64) {
        if self.alive && self.zk.session == Some(session) {
            self.zk.lost(xid);
        }
    }

    /// Would this broker's controller resend a LeaderAndIsr/UpdateMetadata to `to` that a cut
    /// link dropped? Its `RequestSendThread` for a live broker retries until it is delivered or
    /// the controller resigns.
    pub fn would_resend_control_request(&self, to: BrokerId) -> bool {
        self.alive && self.is_active() && self.controller.ctx.live_brokers.contains(&to)
    }

    /// Holds a dropped controller request to `to`, to resend when the link heals.
    pub fn hold_control_request(&mut self, to: BrokerId, payload: Payload, out: &mut Outbox) {
        self.controller.hold(to, payload);
        out.log(EventKind::Info, || {
            format!("controller {} will resend it when the link heals (RequestSendThread retries)", self.id)
        });
    }

    /// `KafkaApis` for a consumer's request: FindCoordinator from the metadata cache, JoinGroup and
    /// Heartbeat from the group coordinator's ownership. Reads only this broker's state.
    pub fn on_client_request(&self, from: NodeId, payload: Payload, cfg: &Config, out: &mut Outbox) {
        match payload {
            Payload::FindCoordinator { group, corr } => {
                let result = self.find_coordinator(&group, cfg);
                out.send(from, Payload::FindCoordinatorResponse { corr, result });
            }
            Payload::JoinGroup { group, corr } | Payload::Heartbeat { group, corr } => {
                let error = self.group_error(&group, cfg);
                out.send(from, Payload::GroupResponse { corr, error });
            }
            _ => {}
        }
    }

    /// `handleFindCoordinatorRequest`, answered from this broker's own metadata cache.
    pub fn find_coordinator(&self, group: &str, cfg: &Config) -> Result<BrokerId, ClientError> {
        let p = coordinator_partition(group, cfg.offsets_partitions);
        match self.metadata.partitions.get(&TopicPartition::new(OFFSETS_TOPIC, p)) {
            Some(s) if s.leader != NO_LEADER && self.metadata.alive.contains(&s.leader) => Ok(s.leader),
            _ => Err(ClientError::CoordinatorNotAvailable),
        }
    }

    /// `GroupCoordinator.validateGroupStatus`: do we own the group's partition?
    pub fn group_error(&self, group: &str, cfg: &Config) -> Option<ClientError> {
        let p = coordinator_partition(group, cfg.offsets_partitions);
        if self.owned_offsets_partitions.contains(&p) {
            None
        } else {
            Some(ClientError::NotCoordinator)
        }
    }

    /// Given which followers fetch now (`fetching`, observed by the world, see [`Fetching`]): when
    /// an ISR check is due — a follower fell out (after `replica.lag.time.max.ms`,
    /// `Partition.maybeShrinkIsr`) or caught up (after 1 s, `maybeExpandIsr`) and none is
    /// scheduled — its delay. Pure, so the world asks every step without copying the broker;
    /// [`Broker::schedule_isr_check`] acts.
    /// Generic over `fetching` (the world's, inlined; or a [`Fetching`]).
    pub fn isr_check_due<F>(&self, fetching: &mut F, cfg: &Config) -> Option<u64>
    where
        F: FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + ?Sized,
    {
        if !self.alive || self.isr_check_pending {
            return None;
        }
        // Without a copy of the changes: most steps change no ISR (a changed one is built in two
        // buffers reused from partition to partition).
        let (mut any, mut retry, mut shrink) = (false, true, false);
        let (mut isr, mut want) = (Vec::new(), Vec::new());
        for (i, (tp, lp)) in self.partitions.iter().enumerate().filter(|(_, (_, lp))| lp.is_leader) {
            if !self.desired_isr_of(i, tp, lp, fetching, &mut isr, &mut want) {
                continue;
            }
            any = true;
            // A write that failed is tried again at the next run of the isr-expiration task, every
            // replica.lag.time.max.ms / 2 (1.0.0 ReplicaManager.scala:321): Partition.updateIsr
            // logs "Cached zkVersion … skip updating ISR" each time (1.0.0 Partition.scala:560-573).
            retry &= lp.isr_write_failed_at == Some(lp.zk_version);
            shrink |= isr.len() < lp.isr.len();
        }
        if !any {
            return None;
        }
        Some(if retry {
            cfg.replica_lag_ms / 2
        } else if shrink {
            cfg.replica_lag_ms
        } else {
            1000
        })
    }

    /// The partitions whose ISR write to ZooKeeper awaits its response.
    pub fn isr_writes_in_flight(&self) -> impl Iterator<Item = &TopicPartition> {
        self.zk.outstanding.values().filter_map(|o| match &o.purpose {
            Purpose::IsrUpdate { tp, .. } => Some(tp),
            _ => None,
        })
    }

    /// Schedules the ISR check [`Broker::isr_check_due`] asked for.
    pub fn schedule_isr_check(&mut self, after_ms: u64, out: &mut Outbox) {
        self.isr_check_pending = true;
        out.timer(after_ms, Timer::IsrCheck);
    }

    /// The ISR each led partition should have, given which followers are caught up.
    pub fn desired_isr(&self, fetching: &mut Fetching<'_>) -> Vec<(TopicPartition, Vec<BrokerId>)> {
        let (mut isr, mut want) = (Vec::new(), Vec::new());
        let mut changes = Vec::new();
        for (i, (tp, lp)) in self.partitions.iter().enumerate() {
            if self.desired_isr_of(i, tp, lp, fetching, &mut isr, &mut want) {
                changes.push((tp.clone(), isr.clone()));
            }
        }
        changes
    }

    /// Whether one partition should have another ISR (this broker leads it and the ISR it should
    /// have differs from its ISR): then that ISR is left in `isr` (`want` is a buffer).
    #[allow(clippy::manual_contains)] // see `same`
    fn desired_isr_of<F>(
        &self,
        i: usize,
        tp: &TopicPartition,
        lp: &LocalPartition,
        fetching: &mut F,
        isr: &mut Vec<BrokerId>,
        want: &mut Vec<BrokerId>,
    ) -> bool
    where
        F: FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + ?Sized,
    {
        if !lp.is_leader || (lp.isr_write_failed_at == Some(lp.zk_version) && lp.isr_refusals >= ISR_REFUSAL_REPEATS) {
            return false;
        }
        // Which replicas fetch, asked once for the partition (a bit per place in `replicas`, at
        // most 9 places: one per broker).
        debug_assert!(lp.replicas.len() <= 64, "{tp}: more than 64 replicas");
        let fetch = fetching(i, tp, lp);
        let fetches = |j: usize| fetch >> j & 1 == 1;
        // A replica is wanted when it is the leader or fetches from it (asked at its place among
        // the replicas: every place of one broker has its bit).
        let wanted_at = |j: usize| lp.replicas[j] == self.id || fetches(j);
        // The ISR stays as it is exactly when it holds the leader, every member is a replica
        // still wanted, and every wanted replica is a member.
        // (`iter().any`, not `contains`: its chunked search of integers costs more on a few ids.)
        let same = lp.isr.iter().any(|m| *m == self.id)
            && lp.isr.iter().all(|r| lp.replicas.iter().position(|x| x == r).is_some_and(wanted_at))
            && lp.replicas.iter().enumerate().all(|(j, r)| lp.isr.iter().any(|m| m == r) || !wanted_at(j));
        // Nor while a write of this partition's ISR awaits its answer (asked only when the ISR
        // would change: both answers are "nothing to write").
        if same || self.zk.has(|p| matches!(p, Purpose::IsrUpdate { tp: t, .. } if t == tp)) {
            return false;
        }
        want.clear();
        want.extend(lp.replicas.iter().enumerate().filter(|(j, _)| wanted_at(*j)).map(|(_, r)| *r));
        // Keep the leader's ISR order for replicas that stay; append the ones that catch up.
        isr.clear();
        isr.extend(lp.isr.iter().copied().filter(|r| want.contains(r)));
        want.retain(|r| !isr.contains(r));
        isr.extend_from_slice(want);
        if !isr.contains(&self.id) {
            isr.insert(0, self.id);
        }
        *isr != lp.isr
    }

    /// `Partition.maybeShrinkIsr` / `maybeExpandIsr`: write the new ISR with the cached zkVersion.
    pub fn isr_check(&mut self, fetching: &mut Fetching<'_>, out: &mut Outbox) {
        self.isr_check_pending = false;
        for (tp, isr) in self.desired_isr(fetching) {
            let lp = &self.partitions[&tp];
            let data = ZData::PartitionState {
                state: LeaderIsr {
                    leader: self.id,
                    leader_epoch: lp.leader_epoch,
                    isr: isr.clone(),
                    controller_epoch: lp.controller_epoch,
                },
            };
            out.log(EventKind::IsrChange, || {
                format!(
                    "[Partition {tp} broker={}] {} ISR from {} to {}",
                    self.id,
                    if isr.len() < lp.isr.len() { "Shrinking" } else { "Expanding" },
                    fmt_ids(lp.isr.iter().copied()),
                    fmt_ids(isr.iter().copied())
                )
            });
            let op = ZkOp::SetData { path: tp.state_path(), data, version: lp.zk_version };
            self.zk.send(op, Purpose::IsrUpdate { tp, isr }, out);
        }
    }

    fn on_isr_write(&mut self, tp: &TopicPartition, isr: Vec<BrokerId>, result: ZkResult, out: &mut Outbox) {
        self.partitions_stamp.0 += 1;
        let Some(lp) = Rc::make_mut(&mut self.partitions).get_mut(tp) else { return };
        match result {
            ZkResult::Written { stat } => {
                lp.isr = isr;
                lp.zk_version = stat.version;
                out.log(EventKind::IsrChange, || {
                    format!(
                        "[Partition {tp} broker={}] ISR updated to [{}] and zkVersion updated to [{}]",
                        self.id,
                        fmt_ids(lp.isr.iter().copied()),
                        stat.version
                    )
                });
                self.record_isr_change(tp, out);
            }
            ZkResult::Error { code } => {
                lp.isr_refusals = if lp.isr_write_failed_at == Some(lp.zk_version) { lp.isr_refusals + 1 } else { 1 };
                lp.isr_write_failed_at = Some(lp.zk_version);
                let why = if code == ZkError::BadVersion {
                    format!("Cached zkVersion [{}] not equal to that in zookeeper, skip updating ISR", lp.zk_version)
                } else {
                    format!("ISR update failed with {}", code.name())
                };
                out.log(EventKind::IsrChange, || format!("[Partition {tp} broker={}] {why}", self.id));
                if lp.isr_refusals >= ISR_REFUSAL_REPEATS {
                    out.log(
                        EventKind::Info,
                        || format!(
                            "[Partition {tp} broker={}] (Kafka keeps retrying and logging this every replica.lag.time.max.ms/2 until a LeaderAndIsr brings a new zkVersion; the model stops after {ISR_REFUSAL_REPEATS} refusals to keep the trace finite)",
                            self.id
                        ),
                    );
                }
                out.mark(crate::mark::Mark::IsrUpdateRefused {
                    broker: self.id,
                    partition: tp.clone(),
                    cached_zk_version: lp.zk_version,
                    code: code.name().into(),
                });
            }
            _ => {}
        }
    }

    /// `ReplicaManager.recordIsrChange` (1.0.0 `ReplicaManager.scala:255-260`): remember the
    /// partition for the next propagation; make sure the propagation task will run.
    fn record_isr_change(&mut self, tp: &TopicPartition, out: &mut Outbox) {
        self.isr_change_set.insert(tp.clone());
        self.last_isr_change_ms = self.now_ms;
        self.schedule_isr_propagation(out);
    }

    /// The next run of the `isr-change-propagation` task (every 2.5 s from the process start,
    /// 1.0.0 `ReplicaManager.scala:322`).
    fn schedule_isr_propagation(&mut self, out: &mut Outbox) {
        if self.isr_propagation_pending {
            return;
        }
        self.isr_propagation_pending = true;
        let into = self.now_ms.saturating_sub(self.started_ms) % ISR_PROPAGATION_PERIOD_MS;
        out.timer(ISR_PROPAGATION_PERIOD_MS - into, Timer::IsrPropagation);
    }

    /// `ReplicaManager.maybePropagateIsrChanges` (1.0.0 `ReplicaManager.scala:262-280`): when
    /// changes are pending and none came in the last 5 s (`IsrChangePropagationBlackOut`, :134) or
    /// the last propagation is over 60 s old (`IsrChangePropagationInterval`, :135), write them all
    /// in one sequential `/isr_change_notification/isr_change_` znode
    /// (`ReplicationUtils.propagateIsrChanges`, 1.0.0 `ReplicationUtils.scala:42-47`).
    pub fn maybe_propagate_isr_changes(&mut self, out: &mut Outbox) {
        self.isr_propagation_pending = false;
        if self.isr_change_set.is_empty() {
            return;
        }
        let now = self.now_ms;
        let quiet = self.last_isr_change_ms + ISR_CHANGE_BLACKOUT_MS < now;
        let overdue = self.last_isr_propagation_ms.is_none_or(|t| t + ISR_PROPAGATION_INTERVAL_MS < now);
        if !(quiet || overdue) {
            self.schedule_isr_propagation(out);
            return;
        }
        let partitions: Vec<TopicPartition> = core::mem::take(&mut self.isr_change_set).into_iter().collect();
        self.last_isr_propagation_ms = Some(now);
        out.mark(crate::mark::Mark::IsrChangesPropagated { broker: self.id, partitions: partitions.clone() });
        self.zk.send(
            ZkOp::Create {
                path: "/isr_change_notification/isr_change_".into(),
                data: ZData::IsrChange { partitions },
                ephemeral: false,
                sequential: true,
            },
            Purpose::IsrNotify,
            out,
        );
    }

    /// Links to controller requests are FIFO per broker; a message dropped on a cut is re-sent when
    /// the link heals (`RequestSendThread` retries until success).
    pub fn on_control_link_restored(&mut self, to: BrokerId, out: &mut Outbox) {
        if let Some(held) = self.controller.held.remove(&to) {
            for p in held {
                out.send(NodeId::Broker(to), p);
            }
        }
    }

    /// Timer dispatch.
    pub fn on_timer(&mut self, t: &Timer, cfg: &Config, out: &mut Outbox) {
        match t {
            Timer::ZkReadTimeout { gen } => self.on_zk_read_timeout(*gen, cfg, out),
            Timer::ZkReconnect { gen } => self.on_zk_reconnect(*gen, cfg, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effect;
    use crate::scenario::builtin;
    use alloc::vec;

    fn cfg() -> Config {
        builtin("seed-incident").expect("built-in").config().expect("valid")
    }

    fn offsets3() -> TopicPartition {
        TopicPartition::new(OFFSETS_TOPIC, 3)
    }

    fn info(leader: BrokerId, leader_epoch: i32, isr: &[BrokerId], controller_epoch: i32) -> PartitionStateInfo {
        PartitionStateInfo {
            tp: offsets3(),
            leader,
            leader_epoch,
            isr: isr.to_vec(),
            zk_version: 27,
            controller_epoch,
            replicas: vec![3, 1, 2],
        }
    }

    /// Broker 1, which has heard of controller epoch 8.
    fn broker_at_epoch_8() -> Broker {
        let mut b = Broker::new(1);
        b.alive = true;
        b.controller_epoch = 8;
        b
    }

    #[test]
    fn leader_and_isr_from_a_stale_controller_epoch_is_rejected_and_changes_nothing() {
        let mut b = broker_at_epoch_8();
        let mut out = Outbox::default();
        assert!(!b.on_leader_and_isr(3, 7, vec![Rc::new(info(1, 14, &[1, 2], 7))], &mut out));
        assert!(b.partitions.is_empty() && b.owned_offsets_partitions.is_empty());
        assert_eq!(b.controller_epoch, 8);
        let l = out.logs();
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].0, EventKind::ControlRejected);
        assert!(l[0].1.contains("with epoch 7 since its controller epoch is old. Latest known controller epoch is 8"));
    }

    #[test]
    fn leader_and_isr_makes_a_leader_that_loads_its_groups_and_an_older_leader_epoch_is_ignored() {
        let mut b = broker_at_epoch_8();
        let mut out = Outbox::default();
        assert!(b.on_leader_and_isr(2, 9, vec![Rc::new(info(1, 14, &[1, 2], 9))], &mut out));
        assert_eq!(b.controller_epoch, 9, "a newer controller epoch is adopted");
        let lp = &b.partitions[&offsets3()];
        assert!(lp.is_leader && lp.leader_epoch == 14 && lp.isr == vec![1, 2]);
        assert!(b.owned_offsets_partitions.contains(&3), "GroupCoordinator immigration");
        // A request carrying the same leader epoch again is ignored.
        let mut out = Outbox::default();
        assert!(b.on_leader_and_isr(2, 9, vec![Rc::new(info(2, 14, &[2], 9))], &mut out));
        assert!(b.partitions[&offsets3()].is_leader);
        assert!(out.logs()[0].1.contains("since its leader epoch 14 is not higher than the current leader epoch 14"));
    }

    #[test]
    fn a_leader_told_leader_minus_1_keeps_acting_as_leader_and_coordinator() {
        let mut b = broker_at_epoch_8();
        let mut out = Outbox::default();
        b.on_leader_and_isr(3, 8, vec![Rc::new(info(1, 14, &[1, 2], 8))], &mut out);
        let mut out = Outbox::default();
        assert!(b.on_leader_and_isr(3, 8, vec![Rc::new(info(NO_LEADER, 15, &[2], 8))], &mut out));
        assert!(out.logs()[0].1.contains("cannot become follower for partition __consumer_offsets-3 since the new leader -1 is unavailable; local state unchanged (still acting as its leader)"));
        let lp = &b.partitions[&offsets3()];
        assert!(lp.is_leader && lp.leader_epoch == 14);
        assert!(b.owned_offsets_partitions.contains(&3));
    }

    #[test]
    fn update_metadata_from_an_old_controller_is_rejected_and_find_coordinator_reads_the_cache() {
        let cfg = cfg();
        let group = "payments-group";
        assert_eq!(coordinator_partition(group, cfg.offsets_partitions), 3, "the incident's group");
        let mut b = broker_at_epoch_8();
        let mut out = Outbox::default();
        assert!(!b.on_update_metadata(3, 7, vec![1, 2, 3], vec![Rc::new(info(3, 13, &[3, 1, 2], 7))], &mut out));
        assert!(out.logs()[0].1.contains("(ControllerMovedException)"));
        assert_eq!(b.find_coordinator(group, &cfg), Err(ClientError::CoordinatorNotAvailable), "nothing cached");
        let mut out = Outbox::default();
        assert!(b.on_update_metadata(2, 8, vec![1, 2], vec![Rc::new(info(2, 15, &[2], 8))], &mut out));
        assert_eq!(b.find_coordinator(group, &cfg), Ok(2));
        assert!(b.on_update_metadata(2, 8, vec![1, 2], vec![Rc::new(info(NO_LEADER, 16, &[2], 8))], &mut out));
        assert_eq!(b.find_coordinator(group, &cfg), Err(ClientError::CoordinatorNotAvailable));
    }

    #[test]
    fn update_metadata_caches_the_last_state_of_each_partition_in_any_order() {
        // The cache is merged with the request in one walk; whatever the order (sorted, reversed,
        // repeated partitions), it must end as one insert per state, in request order, would.
        let state = |p: u32, leader: BrokerId| {
            Rc::new(PartitionStateInfo { tp: TopicPartition::new(OFFSETS_TOPIC, p), ..info(leader, 1, &[leader], 8) })
        };
        let requests: [Vec<Rc<PartitionStateInfo>>; 4] = [
            vec![state(1, 1), state(3, 2), state(5, 3)],
            vec![state(6, 1), state(4, 2), state(2, 3), state(0, 1)],
            vec![state(2, 2), state(2, 1), state(7, 3), state(1, 3), state(7, 2)],
            vec![state(0, 3), state(3, 3), state(3, 1), state(9, 2), state(8, 1)],
        ];
        let mut b = broker_at_epoch_8();
        let mut expected: VecMap<TopicPartition, Rc<PartitionStateInfo>> = VecMap::new();
        for parts in requests {
            for p in &parts {
                expected.insert(p.tp.clone(), p.clone());
            }
            assert!(b.on_update_metadata(2, 8, vec![1, 2, 3], parts, &mut Outbox::default()));
            assert_eq!(b.metadata.partitions, expected);
        }
    }

    #[test]
    fn a_dead_broker_runs_no_controller_thread() {
        let cfg = cfg();
        let mut b = Broker::new(1);
        b.controller.enqueue(ControllerEvent::Startup);
        let mut out = Outbox::default();
        b.controller_run(&cfg, &mut out);
        assert!(out.effects.is_empty() && b.controller.queue.len() == 1);
        b.alive = true;
        b.zk.session = Some(5);
        b.zk.state = ConnState::Connected;
        b.controller_run(&cfg, &mut out);
        let elect = ZkOp::GetData { path: "/controller".into(), watch: true };
        assert!(matches!(
            &out.effects[..],
            [Effect::Send { to: NodeId::ZK, payload: Payload::ZkRequest { session: 5, op, controller: true, .. } }] if **op == elect
        ));
        assert_eq!(b.controller.job.as_ref().and_then(|j| j.waiting_on()).as_deref(), Some("elect"));
    }

    #[test]
    fn zkclient_keeps_its_requests_for_the_new_session_but_the_raw_controller_create_fails() {
        let cfg = cfg();
        assert!(cfg.behaviour().retry_after_expiry, "seed-incident opens in 1.0's ZkClient behaviour");
        let mut b = Broker::new(1);
        b.alive = true;
        b.set_started();
        b.zk.session = Some(5);
        b.zk.state = ConnState::Connected;
        b.controller.enqueue(ControllerEvent::Startup);
        let mut out = Outbox::default();
        b.controller_run(&cfg, &mut out);
        let xid = *b.zk.outstanding.keys().next().unwrap();
        b.on_zk_response(5, xid, ZkResult::Error { code: ZkError::NoNode }, &cfg, &mut out);
        assert!(b.zk.outstanding.values().any(|o| o.raw), "elect's create is on the raw handle");
        let read = ZkOp::GetData { path: "/brokers/ids".into(), watch: false };
        b.zk.send(read.clone(), Purpose::ControllerWatch, &mut out);
        let mut out = Outbox::default();
        b.on_zk_connect_response(ConnectResult::Expired, &cfg, &mut out);
        b.controller_run(&cfg, &mut out);
        let marks = out.marks();
        assert!(marks.contains(&crate::mark::Mark::SessionExpiryLearned {
            broker: 1,
            failed_requests: 1,
            failed_writes: Vec::new()
        }));
        assert!(marks.contains(&crate::mark::Mark::ControllerMoveTriggered { broker: 1, owner_checked: false }));
        let ops: Vec<&ZkOp> = b.zk.outstanding.values().map(|o| &*o.op).collect();
        assert_eq!(ops.len(), 2, "{ops:?}");
        assert!(ops.contains(&&read), "ZkClient's own request waits for the new session");
        assert!(ops.contains(&&ZkOp::Delete { path: "/controller".into(), version: -1 }), "triggerControllerMove");
    }

    /// 1.0: a reset while `elect` reads the `/controller` holder after NODEEXISTS loses the read
    /// (CONNECTIONLOSS, not retried): the catch-all runs `triggerControllerMove`, whose delete
    /// waits for the next connection. The client sleeps U[0,1000) ms, moves to the next server,
    /// sends SetWatches first, then what was queued (the delete), then ZkClient's retried read.
    #[test]
    fn a_reset_under_the_holder_read_makes_one_oh_delete_the_controller_znode_after_the_reconnect() {
        let cfg = cfg();
        assert!(cfg.behaviour().owner_read_fails_on_connection_loss);
        let (zk1, zk3) = (NodeId::Zk(1), NodeId::Zk(3));
        let mut b = Broker::new(2);
        b.alive = true;
        b.set_started();
        b.zk.session = Some(5);
        b.zk.servers = vec![zk1, zk3, NodeId::Zk(2)];
        b.zk.connected();
        b.controller.enqueue(ControllerEvent::Reelect);
        let mut out = Outbox::default();
        b.controller_run(&cfg, &mut out);
        let next = |b: &Broker| *b.zk.outstanding.keys().last().unwrap();
        // Reelect reads /controller (none), creates it, and the create finds it held.
        for _ in 0..4 {
            let o = b.zk.outstanding.values().last().unwrap().clone();
            if o.raw && !o.op.is_write() {
                break;
            }
            let answer = if o.op.is_write() { ZkError::NodeExists } else { ZkError::NoNode };
            b.on_zk_response(5, next(&b), ZkResult::Error { code: answer }, &cfg, &mut out);
        }
        let holder = b.zk.outstanding.values().last().unwrap();
        assert!(holder.raw && matches!(&*holder.op, ZkOp::GetData { watch: false, .. }), "{holder:?}");
        // ZkClient's own re-read of /controller is in flight too; it watches /brokers/ids, and
        // /controller since its read found none.
        let reread = ZkOp::GetData { path: "/controller".into(), watch: true };
        b.zk.send(reread.clone(), Purpose::ControllerWatch, &mut out);
        b.zk.note_watch(
            &ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true },
            &ZkResult::Children { names: vec!["1".into(), "2".into()] },
        );

        let mut out = Outbox::default();
        assert!(!b.on_zk_reset(zk3, &cfg, &mut out), "not its connection: nothing happens");
        assert!(out.effects.is_empty());
        assert!(b.on_zk_reset(zk1, &cfg, &mut out));
        let marks = out.marks();
        assert!(marks.contains(&crate::mark::Mark::ControllerOwnerReadLost { broker: 2 }), "{marks:?}");
        assert!(marks.contains(&crate::mark::Mark::ControllerMoveTriggered { broker: 2, owner_checked: false }));
        assert!(out.sent().is_empty(), "disconnected: nothing goes out");
        let sleep = out.effects.iter().find_map(|e| match e {
            Effect::RandomTimer { after_ms, up_to_ms, timer: Timer::ZkReconnect { gen } } => {
                Some((*after_ms, *up_to_ms, *gen))
            }
            _ => None,
        });
        let gen = b.zk.conn_gen;
        assert_eq!(sleep, Some((0, 999, gen)), "r.nextInt(1000), no spin: zk3 is not the last server used");
        let ops: Vec<ZkOp> = b.zk.outstanding.values().map(|o| ZkOp::clone(&o.op)).collect();
        assert_eq!(ops, vec![reread.clone(), ZkOp::Delete { path: "/controller".into(), version: -1 }]);

        // The sleep is over: the client connects to zk3, resuming session 5.
        let mut out = Outbox::default();
        b.on_timer(&Timer::ZkReconnect { gen }, &cfg, &mut out);
        assert_eq!(
            out.sent(),
            vec![(zk3, Payload::ZkConnect { session: Some(5), timeout_ms: cfg.session_timeout_ms })]
        );
        let mut out = Outbox::default();
        b.on_zk_connect_response(ConnectResult::Connected(5), &cfg, &mut out);
        let sent: Vec<Payload> = out
            .sent()
            .into_iter()
            .map(|(to, p)| {
                assert_eq!(to, zk3);
                p
            })
            .collect();
        assert!(matches!(&sent[0], Payload::ZkSetWatches { session: 5, watches } if watches.len() == 2), "{sent:?}");
        let ops: Vec<&ZkOp> = sent[1..]
            .iter()
            .filter_map(|p| match p {
                Payload::ZkRequest { op, .. } => Some(&**op),
                _ => None,
            })
            .collect();
        assert_eq!(
            ops,
            vec![&ZkOp::Delete { path: "/controller".into(), version: -1 }, &reread],
            "queued first, retried after"
        );
    }

    /// StaticHostProvider's spinDelay: coming back round to the server last connected to costs a
    /// second more than the random sleep.
    #[test]
    fn the_reconnect_sleep_adds_the_spin_delay_when_the_list_comes_back_round() {
        let mut c = crate::zk_client::ZkClient::default();
        c.servers = vec![NodeId::Zk(1), NodeId::Zk(2)];
        assert_eq!(c.reconnect_delay(), None, "never connected: the first attempt does not sleep");
        c.connected();
        assert_eq!(c.reconnect_delay(), Some((0, 999)), "next is zk2");
        let _ = c.next_server();
        assert_eq!(c.reconnect_delay(), Some((1000, 999)), "next is zk1 again, the last one connected");
    }

    #[test]
    fn a_refused_isr_write_is_tried_and_refused_again_at_every_isr_expiration_run() {
        let cfg = cfg();
        let mut b = broker_at_epoch_8();
        b.zk.session = Some(5);
        b.zk.state = ConnState::Connected;
        let mut out = Outbox::default();
        assert!(b.on_leader_and_isr(3, 8, vec![Rc::new(info(1, 14, &[1, 2], 8))], &mut out));
        let mut only_me = |_: usize, _: &TopicPartition, _: &LocalPartition| 0;
        assert_eq!(b.isr_check_due(&mut only_me, &cfg), Some(cfg.replica_lag_ms), "the first shrink");
        for run in 0..3 {
            let mut out = Outbox::default();
            b.isr_check(&mut only_me, &mut out);
            let xid = *b.zk.outstanding.keys().next().expect("the ISR write is sent again");
            let done = b.zk.complete(xid).unwrap();
            assert!(matches!(*done.op, ZkOp::SetData { version: 27, .. }), "run {run}: {:?}", done.op);
            b.on_isr_write(&offsets3(), vec![1], ZkResult::Error { code: ZkError::BadVersion }, &mut out);
            let refused = crate::mark::Mark::IsrUpdateRefused {
                broker: 1,
                partition: offsets3(),
                cached_zk_version: 27,
                code: "BADVERSION".into(),
            };
            assert_eq!(out.marks(), vec![refused], "run {run}: logged again");
            assert_eq!(b.isr_check_due(&mut only_me, &cfg), Some(cfg.replica_lag_ms / 2), "next isr-expiration run");
        }
        // The model stops after ISR_REFUSAL_REPEATS refusals (Kafka never stops).
        Rc::make_mut(&mut b.partitions).get_mut(&offsets3()).unwrap().isr_refusals = ISR_REFUSAL_REPEATS;
        assert_eq!(b.isr_check_due(&mut only_me, &cfg), None);
    }

    #[test]
    fn isr_changes_are_propagated_together_after_a_5_s_blackout_once_one_went_out_in_the_last_60_s() {
        let mut b = broker_at_epoch_8();
        b.zk.session = Some(5);
        b.zk.state = ConnState::Connected;
        let tp = |p| TopicPartition::new(OFFSETS_TOPIC, p);
        let created = |out: &Outbox| -> Vec<Vec<TopicPartition>> {
            out.effects
                .iter()
                .filter_map(|e| match e {
                    Effect::Send { payload: Payload::ZkRequest { op, .. }, .. } => match &**op {
                        ZkOp::Create { path, data: ZData::IsrChange { partitions }, sequential: true, .. }
                            if path == "/isr_change_notification/isr_change_" =>
                        {
                            Some(partitions.clone())
                        }
                        _ => None,
                    },
                    _ => None,
                })
                .collect()
        };
        let timers = |out: &Outbox| -> Vec<u64> {
            out.effects
                .iter()
                .filter_map(|e| match e {
                    Effect::Timer { after_ms, timer: Timer::IsrPropagation } => Some(*after_ms),
                    _ => None,
                })
                .collect()
        };
        // A lone change (no propagation in the last 60 s) goes out at the task's next run.
        let mut out = Outbox::default();
        b.now_ms = 1000;
        b.record_isr_change(&tp(1), &mut out);
        assert_eq!(timers(&out), vec![1500], "the 2.5 s task's next run");
        assert!(created(&out).is_empty(), "nothing written at the change itself");
        b.now_ms = 2500;
        let mut out = Outbox::default();
        b.maybe_propagate_isr_changes(&mut out);
        assert_eq!(created(&out), vec![vec![tp(1)]]);
        // Two more changes within 60 s of it: both wait until 5 s passed without a change.
        let mut out = Outbox::default();
        b.now_ms = 3000;
        b.record_isr_change(&tp(2), &mut out);
        b.now_ms = 4000;
        b.record_isr_change(&tp(4), &mut out);
        assert_eq!(timers(&out), vec![2000], "one run scheduled");
        for at in [5000, 7500] {
            b.now_ms = at;
            let mut out = Outbox::default();
            b.maybe_propagate_isr_changes(&mut out);
            assert!(created(&out).is_empty(), "at {at}: last change at 4000, inside the 5 s blackout");
            assert_eq!(timers(&out), vec![2500]);
        }
        b.now_ms = 10000;
        let mut out = Outbox::default();
        b.maybe_propagate_isr_changes(&mut out);
        assert_eq!(created(&out), vec![vec![tp(2), tp(4)]], "one znode for both");
        assert!(out
            .marks()
            .contains(&crate::mark::Mark::IsrChangesPropagated { broker: 1, partitions: vec![tp(2), tp(4)] }));
        assert!(timers(&out).is_empty() && b.isr_change_set.is_empty());
    }
}
