//! A broker process, in rooms of its own: its ZooKeeper session lifecycle ([`session`]), its
//! `ReplicaManager` and `MetadataCache` ([`replica_manager`]), its ISR checks and their propagation
//! ([`isr`]) and its group-coordinator ownership ([`coordinator`]). This file holds the process
//! itself: its state, start-up, the controller thread it runs (which lives in [`crate::controller`])
//! and the controller's `RequestSendThread` retries. Only the world calls a broker's handlers; the
//! controller reaches the broker's ZooKeeper client through `ControllerIo`.
mod coordinator;
mod isr;
mod metadata_listener;
mod replica_manager;
mod session;

pub use isr::{
    Fetching, ISR_CHANGE_BLACKOUT_MS, ISR_PROPAGATION_INTERVAL_MS, ISR_PROPAGATION_PERIOD_MS, ISR_REFUSAL_REPEATS,
};
pub use replica_manager::{LocalPartition, MetadataCache};

use crate::controller::{Controller, ControllerIo};
use crate::derived::Derived;
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::message::Payload;
use crate::scenario::Config;
use crate::vec_map::{VecMap, VecSet};
use crate::zk_client::{ConnState, ZkClient};
use alloc::format;
use alloc::rc::Rc;

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
    /// KRaft only: the metadata image `BrokerMetadataListener` has folded so far (empty under
    /// ZooKeeper).
    pub(crate) metadata_image: crate::kraft::Image,
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
            metadata_image: crate::kraft::Image::default(),
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

    /// Would this broker's controller resend a LeaderAndIsr/UpdateMetadata to `to` that a cut
    /// link dropped? Its `RequestSendThread` for a live broker retries until it is delivered or
    /// the controller resigns.
    /// `target_up`: the target process still runs the incarnation it was sent to (only the link
    /// failed), as the world observes it.
    pub fn would_resend_control_request(&self, to: BrokerId, target_up: bool) -> bool {
        target_up && self.alive && self.is_active() && self.controller.ctx.live_brokers.contains(&to)
    }

    /// Holds a dropped controller request to `to`, to resend when the link heals.
    pub fn hold_control_request(&mut self, to: BrokerId, payload: Payload, out: &mut Outbox) {
        self.controller.hold(to, payload);
        out.log(EventKind::Info, || {
            format!("controller {} will resend it when the link heals (RequestSendThread retries)", self.id)
        });
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

    /// A timer of this process fired. `zk_link_up`: whether the link to its ZooKeeper server is
    /// up both ways now; `fetching`: for an ISR check, which followers fetch from this leader now
    /// (both observed by the world). A read-timeout check that finds the link back while still
    /// connected does nothing: the client heard from the server again, so `ClientCnxn` never
    /// reaches its read timeout (3.4.10 `ClientCnxn.java:1098-1107` counts from the last packet).
    pub fn on_timer(
        &mut self,
        t: &Timer,
        zk_link_up: bool,
        fetching: Option<&mut Fetching<'_>>,
        cfg: &Config,
        out: &mut Outbox,
    ) {
        let node = NodeId::Broker(self.id);
        match t {
            Timer::ZkReadTimeout { .. } if self.zk.state == ConnState::Connected && zk_link_up => {
                out.headline(EventKind::Info, || {
                    format!("{node}: ZooKeeper read-timeout check: the link is back, still connected")
                });
            }
            Timer::IsrCheck => {
                out.headline(EventKind::Info, || format!("{node}: ISR check (replica.lag.time.max.ms)"));
                if let Some(fetching) = fetching {
                    self.isr_check(fetching, out);
                }
            }
            Timer::IsrPropagation => {
                out.headline(EventKind::Info, || format!("{node}: isr-change-propagation (maybePropagateIsrChanges)"));
                self.maybe_propagate_isr_changes(out);
            }
            Timer::ZkReconnect { gen } => {
                out.headline(EventKind::Info, || format!("{node}: ZooKeeper client's reconnect sleep is over"));
                self.on_zk_reconnect(*gen, cfg, out);
            }
            t => {
                // While connecting, the same timer is the attempt's connect timeout.
                out.headline(EventKind::Info, || {
                    if self.zk.state != ConnState::Connected {
                        format!(
                            "{node}: ZooKeeper connect timeout ({} ms)",
                            cfg.connect_timeout_ms(self.zk.servers.len())
                        )
                    } else {
                        format!("{node}: ZooKeeper read timeout ({} ms)", cfg.read_timeout_ms())
                    }
                });
                if let Timer::ZkReadTimeout { gen } = t {
                    self.on_zk_read_timeout(*gen, cfg, out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
