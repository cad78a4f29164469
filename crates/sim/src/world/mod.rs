//! The deterministic world (TigerBeetle-simulator style): a virtual clock, one event queue, a seeded
//! PRNG, the network, the control plane (ZooKeeper or KRaft), the brokers and the consumers.
//! [`World::step`] processes exactly one queued item and returns its [`Event`]; [`World::apply`]
//! injects a [`Command`] now. The fault injector (scripted faults) sits beside the code under test,
//! in the same queue.
//!
//! This file holds the queue, the step and the routing only: it pops an item, hands a message or a
//! timer to the node it names, and routes the effects the node returns (messages over the
//! network with their latency, timers, log lines, marks). Every decision is a node's. Beside it:
//! `control_plane/` (the seam through which ZooKeeper mode or KRaft is delivered to, fired,
//! faulted, observed and checked), `observe.rs` (what the nodes observe after a step: coordinator
//! health, which followers fetch, the ZooKeeper PING relay), `caches.rs` (derived fingerprints that
//! keep those observations incremental), `faults.rs` (scripted faults), `build.rs` (the steady
//! state at time 0), `state_hash.rs`, `step_log.rs` and `bounds.rs`. Callers outside the core (the
//! CLI, the page, the explorer) use `World`'s public methods; nodes never call the world.
mod bounds;
mod build;
mod caches;
mod control_plane;
mod faults;
mod observe;
mod state_hash;
mod step_log;

pub use crate::fnv::Fnv;
use caches::{IsrSeen, RelayKey};
pub use control_plane::ControlPlane;
use step_log::StepLog;

use crate::alerts::{self, Alert};
use crate::broker::Broker;
use crate::command::{Command, CommandError};
use crate::consumer::Consumer;
use crate::effects::{Effect, Outbox, Timer};
use crate::event::{Delivery, Event, EventKind, Outcome};
use crate::ids::{BrokerId, NodeId};
use crate::limits::Limits;
use crate::message::{Message, Payload};
use crate::network::Network;
use crate::rng::Rng;
use crate::scenario::{Config, Mode};
use crate::sched::Queue;
use crate::vec_map::VecMap;
use crate::zookeeper::data_tree::DataTree;
use crate::zookeeper::ops::result_summary;
use crate::zookeeper::server::ZkServerNode;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

/// A queued happening.
#[derive(Clone, Debug)]
pub enum Item {
    /// A message arrives.
    Deliver(Message),
    /// A timer fires on a node (ignored if the node restarted since).
    Timer {
        /// Node.
        node: NodeId,
        /// Incarnation it was set in.
        incarnation: u64,
        /// The timer.
        timer: Timer,
    },
    /// A scripted fault.
    Script(Command),
}

/// The simulation.
#[derive(Clone, Debug)]
pub struct World {
    pub(crate) cfg: Rc<Config>,
    pub(crate) name: String,
    pub(crate) seed: u64,
    pub(crate) now: u64,
    pub(crate) step: u64,
    pub(crate) queue: Queue<Item>,
    rng: Rng,
    pub(crate) net: Rc<Network>,
    /// ZooKeeper, or the KRaft quorum.
    pub(crate) plane: ControlPlane,
    pub(crate) brokers: VecMap<BrokerId, Rc<Broker>>,
    pub(crate) consumers: VecMap<u32, Rc<Consumer>>,
    next_msg: u64,
    pub(crate) alerts: Vec<Alert>,
    /// The alerts by section, brought up to date from what each step touched.
    alert_memo: alerts::Incremental,
    /// What the current step changed that the alerts and the ISR checks read.
    touched: alerts::Touched,
    /// What each broker's state last meant to the ISR checks (see [`IsrSeen`]).
    isr_seen: VecMap<BrokerId, IsrSeen>,
    /// What each broker last showed the ZooKeeper relay (see [`RelayKey`]).
    relay_seen: VecMap<BrokerId, RelayKey>,
    /// [`ZkServerNode::hash_relay_inputs`] of each server when a step last touched it (a derived
    /// cache, deciding nothing the state does not).
    relay_zk_seen: VecMap<NodeId, u64>,
    /// Whether each pair of brokers (in id order) was linked both ways when a step last changed
    /// the network: what the ISR checks read of it.
    isr_links: Vec<bool>,
    /// Messages dropped in the last step (for drawing).
    pub(crate) last_dropped: Vec<Message>,
    /// The message delivered in the last step (for drawing).
    pub(crate) last_delivered: Option<Message>,
    last_node: Option<NodeId>,
    /// Packets between two ZooKeeper servers held on a cut link, in send order.
    pub(crate) stalled: Vec<Message>,
    /// The bounds of the run (see `bounds.rs`).
    limits: Limits,
    /// Whether steps format their text ([`World::set_render`]).
    render: bool,
    /// An empty effects list whose room a handler's [`Outbox`] reuses ([`World::outbox`]), so a
    /// step does not allocate and grow a fresh one per handler. Always empty between steps: it
    /// holds room, not state (state hashes skip it).
    spare: Vec<crate::effects::Effect>,
}

impl World {
    /// Virtual time, ms.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Steps taken.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The Kafka behaviour.
    pub fn mode(&self) -> Mode {
        self.cfg.mode
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The scenario name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Active alerts.
    pub fn alerts(&self) -> &[Alert] {
        &self.alerts
    }

    /// ZooKeeper's data tree and sessions (the leader's replica).
    pub fn zk(&self) -> Option<&DataTree> {
        self.plane.zk()
    }

    /// The ZooKeeper servers.
    pub fn zk_servers(&self) -> impl Iterator<Item = &ZkServerNode> {
        self.plane.zk_servers().into_iter().flat_map(|m| m.values())
    }

    /// A broker.
    pub fn broker(&self, id: BrokerId) -> Option<&Broker> {
        self.brokers.get(&id).map(|b| &**b)
    }

    /// All brokers.
    pub fn brokers(&self) -> impl Iterator<Item = &Broker> {
        self.brokers.values().map(|b| &**b)
    }

    /// All consumers.
    pub fn consumers(&self) -> impl Iterator<Item = &Consumer> {
        self.consumers.values().map(|c| &**c)
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Queued items (messages in flight, timers, scripted faults).
    pub fn queued(&self) -> impl Iterator<Item = (u64, &Item)> {
        self.queue.iter()
    }

    /// Whether steps format their text: on (the default), every [`Event`] carries its log lines
    /// and every alert its message; off, events keep every structured field (step, time, node,
    /// from, message category, kind, marks) and alerts their kinds and keys, with empty text. The
    /// run takes exactly the same decisions either way (same random draws, same queue order), so
    /// a step can be re-run with rendering on to show it. Off, the world also keeps no copy of the
    /// message a step delivered (what [`World::view`] draws as its "delivered" arrow).
    pub fn set_render(&mut self, on: bool) {
        self.render = on;
    }

    /// Whether steps format their text ([`World::set_render`]).
    pub fn render(&self) -> bool {
        self.render
    }

    /// The node of the last step.
    pub fn last_node(&self) -> Option<NodeId> {
        self.last_node
    }

    /// Time of the next queued item.
    pub fn next_time(&self) -> Option<u64> {
        self.queue.peek_time()
    }

    /// Queues a fault at `at_ms` (not before now), as a scripted fault; extends the end if needed.
    pub fn schedule(&mut self, at_ms: u64, cmd: Command) -> Result<(), String> {
        self.check_command(&cmd)?;
        let at = at_ms.max(self.now);
        self.queue.push(at, Item::Script(cmd));
        Ok(())
    }

    /// Replaces the PRNG state with a fresh generator for `seed`; nothing else changes (not even
    /// [`World::seed`], a label): the same world, with other jitter from here on. The point of no
    /// return's continuations ([`crate::explore::no_return`]) are made with it.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// Applies a fault at `at_ms` the way a scenario's script would (first among the items due
    /// then): the clock moves to `at_ms` and the fault is one step. Fails, changing nothing, if an
    /// item is due before `at_ms`, `at_ms` lies in the past, or the command is impossible.
    pub fn apply_at(&mut self, at_ms: u64, cmd: &Command) -> Result<Event, String> {
        if at_ms < self.now || self.queue.peek_time().is_some_and(|t| t < at_ms) {
            return Err(format!("cannot apply '{}' at {at_ms} ms: earlier items are due", cmd.describe()));
        }
        self.check_command(cmd)?;
        self.now = at_ms;
        self.apply(cmd)
    }

    /// Moves the end of the run.
    pub fn set_end(&mut self, end_ms: u64) {
        Rc::make_mut(&mut self.cfg).end_ms = end_ms;
    }

    /// Links that are cut in at least one direction.
    pub fn cut_links(&self) -> Vec<(NodeId, NodeId)> {
        self.net.links().filter(|l| !l.a_to_b.up || !l.b_to_a.up).map(|l| (l.a, l.b)).collect()
    }

    /// Faults placed by step number ([`crate::scenario::Scenario::after_steps`]) that the run has
    /// not reached yet; once it is [`finished`](World::finished) they will never apply, and a
    /// caller should say so rather than drop them silently.
    pub fn unreached_step_faults(&self) -> Vec<(u64, Command)> {
        self.cfg.after_steps.iter().filter(|(s, _)| *s > self.step).cloned().collect()
    }

    /// True when nothing more will happen before the scenario's end.
    pub fn finished(&self) -> bool {
        let step_fault_due = self.cfg.after_steps.binary_search_by_key(&self.step, |(s, _)| *s).is_ok();
        !step_fault_due && self.queue.peek_time().map(|t| t > self.cfg.end_ms).unwrap_or(true)
    }

    /// Processes the next queued item, unless it lies past the scenario's end.
    pub fn step(&mut self) -> Option<Event> {
        self.step_until(self.cfg.end_ms)
    }

    /// Processes the next queued item if it is due at or before `until_ms`, within the run's
    /// [limits](World::limits) (past one, `None`, and [`World::stopped_by`] says which).
    pub fn step_until(&mut self, until_ms: u64) -> Option<Event> {
        if self.step >= self.limits.max_steps {
            return None;
        }
        // A fault placed by step number (a playground export) comes first, whatever the time.
        if let Ok(i) = self.cfg.after_steps.binary_search_by_key(&self.step, |(s, _)| *s) {
            let cmd = self.cfg.after_steps[i].1.clone();
            return self.apply(&cmd).ok();
        }
        let t = self.queue.peek_time()?;
        if t > until_ms || t > self.limits.max_time_ms {
            return None;
        }
        let (t, item) = self.queue.pop()?;
        self.now = t.max(self.now);
        self.last_dropped.clear();
        self.last_delivered = None;
        let log = match item {
            Item::Script(cmd) => self.apply_inner(&cmd),
            Item::Deliver(m) => self.deliver(m),
            Item::Timer { node, incarnation, timer } => self.fire(node, incarnation, timer),
        };
        Some(self.finish_step(log))
    }

    /// Applies a command now, as its own step. Fails (changing nothing) if the command is impossible.
    pub fn apply(&mut self, cmd: &Command) -> Result<Event, String> {
        self.check_command(cmd)?;
        self.last_dropped.clear();
        self.last_delivered = None;
        let log = self.apply_inner(cmd);
        Ok(self.finish_step(log))
    }

    /// Whether a command can be applied to this cluster.
    pub fn check_command(&self, cmd: &Command) -> Result<(), String> {
        let known = |n: NodeId| match n {
            NodeId::Broker(b) => self.brokers.contains_key(&b),
            NodeId::Client(c) => self.consumers.contains_key(&c),
            NodeId::Zk(_) | NodeId::Voter(_) => self.plane_knows(n),
        };
        cmd.validate(&known).map_err(|e| match e {
            CommandError::UnknownNode(n) => format!("unknown node {n} in '{}'", cmd.describe()),
            CommandError::Invalid(m) => m,
        })
    }

    fn finish_step(&mut self, mut log: StepLog) -> Event {
        self.post_step(&mut log);
        self.step += 1;
        let mut ev = log.finish(self.step, self.now);
        self.last_node = Some(ev.node);
        let touched = core::mem::take(&mut self.touched);
        if let Some(new_alerts) = self.compute_alerts(Some(&touched)) {
            for a in &new_alerts {
                if !self.alerts.iter().any(|o| o.key == a.key) {
                    ev.alerts_raised.push(a.message.clone());
                }
            }
            for o in &self.alerts {
                if !new_alerts.iter().any(|a| a.key == o.key) {
                    ev.alerts_cleared.push(o.message.clone());
                }
            }
            self.alerts = new_alerts;
        }
        self.touched = touched;
        self.touched.clear();
        ev
    }

    fn broker_mut(&mut self, id: BrokerId) -> &mut Broker {
        self.touched.broker(id);
        Rc::make_mut(self.brokers.get_mut(&id).expect("known broker"))
    }

    fn incarnation(&self, n: NodeId) -> u64 {
        match n {
            NodeId::Broker(b) => self.brokers.get(&b).map(|b| b.incarnation).unwrap_or(0),
            _ => 0,
        }
    }

    fn schedule_timer(&mut self, node: NodeId, after_ms: u64, timer: Timer) {
        let incarnation = self.incarnation(node);
        self.queue.push(self.now + after_ms, Item::Timer { node, incarnation, timer });
    }

    fn send(&mut self, from: NodeId, to: NodeId, payload: Payload, log: &mut StepLog) {
        let (latency, link_gen) = if from == to {
            (0, 0)
        } else {
            match (self.net.link(from, to), self.net.dir(from, to)) {
                (Some(l), Some(d)) => (l.latency_ms + self.rng.up_to(self.cfg.latency.jitter_ms), d.gen),
                _ => return,
            }
        };
        let id = self.next_msg;
        self.next_msg += 1;
        let m = Message {
            id,
            from,
            to,
            sent_ms: self.now,
            // The step being processed (`finish_step` counts it after the effects are routed).
            sent_step: self.step + 1,
            deliver_ms: self.now + latency,
            link_gen,
            incarnation: self.incarnation(to),
            payload,
        };
        if matches!(m.payload.category(), crate::message::Category::Control | crate::message::Category::Watch)
            || matches!(m.payload, Payload::ZkRequest { ref op, .. } if op.is_write())
        {
            log.push(EventKind::Info, || format!("{from} → {to}: {}", m.payload.label()));
        }
        self.queue.push(m.deliver_ms, Item::Deliver(m));
    }

    fn route(&mut self, node: NodeId, out: Outbox, log: &mut StepLog) {
        if let Some((kind, line)) = out.headline {
            log.kind = kind;
            log.line = line;
        }
        let mut effects = out.effects;
        for e in effects.drain(..) {
            match e {
                Effect::Send { to, payload } => self.send(node, to, payload, log),
                Effect::Timer { after_ms, timer } => self.schedule_timer(node, after_ms, timer),
                Effect::RandomTimer { after_ms, up_to_ms, timer } => {
                    let after_ms = after_ms + self.rng.up_to(up_to_ms);
                    self.schedule_timer(node, after_ms, timer)
                }
                Effect::Log { kind, line } => log.push(kind, line),
                Effect::Mark(m) => log.marks.push(m),
            }
        }
        if effects.capacity() > self.spare.capacity() {
            self.spare = effects;
        }
    }

    /// An empty outbox for a handler, with the room of the last one routed.
    fn outbox(&mut self) -> Outbox {
        Outbox::reusing(self.render, core::mem::take(&mut self.spare))
    }

    fn with_broker(&mut self, id: BrokerId, log: &mut StepLog, f: impl FnOnce(&mut Broker, &Config, &mut Outbox)) {
        let cfg = self.cfg.clone();
        let now = self.now;
        let mut out = self.outbox();
        {
            let b = self.broker_mut(id);
            b.now_ms = now;
            f(b, &cfg, &mut out);
            b.controller_run(&cfg, &mut out);
        }
        self.route(NodeId::Broker(id), out, log);
    }

    fn with_consumer(&mut self, id: u32, log: &mut StepLog, f: impl FnOnce(&mut Consumer, &mut Outbox)) {
        let mut out = self.outbox();
        self.touched.consumers = true;
        if let Some(c) = self.consumers.get_mut(&id) {
            f(Rc::make_mut(c), &mut out);
        }
        self.route(NodeId::Client(id), out, log);
    }

    /// The ZooKeeper server a broker's client talks to.
    pub(crate) fn zk_server_of(&self, b: BrokerId) -> NodeId {
        self.brokers.get(&b).map(|br| br.zk.server()).unwrap_or(NodeId::ZK)
    }

    // ---- delivery -----------------------------------------------------------------------------

    fn drop_reason(&self, m: &Message) -> Option<DropReason> {
        if m.from.is_zk() && m.to.is_zk() {
            return None; // held while the link is cut (see `deliver`)
        }
        if m.from != m.to {
            match self.net.dir(m.from, m.to) {
                Some(d) if d.up && d.gen == m.link_gen => {}
                // Up again, but the connection it was sent on broke since (a cut, or a reset).
                Some(d) if d.up => return Some(DropReason::ConnectionGone),
                _ => return Some(DropReason::Cut),
            }
        }
        if let NodeId::Broker(b) = m.to {
            let br = &self.brokers[&b];
            if !br.alive || br.incarnation != m.incarnation {
                return Some(DropReason::BrokerDown(b));
            }
        }
        self.plane_receiver_down(m)
    }

    fn deliver(&mut self, m: Message) -> StepLog {
        let render = self.render;
        if self.plane_holds(&m) {
            return self.zk_hold(m);
        }
        if let Some(reason) = self.drop_reason(&m) {
            let mut log = StepLog::new(render, m.to, EventKind::MessageDropped, || {
                let reason = match reason {
                    DropReason::Cut => format!("link {} → {} is cut", m.from, m.to),
                    DropReason::ConnectionGone => String::from("the connection it was sent on broke"),
                    DropReason::BrokerDown(b) => format!("broker {b} is down"),
                    DropReason::VoterDown(v) => format!("controller q{v} is down"),
                };
                format!("DROPPED {} → {}: {} ({reason})", m.from, m.to, m.payload.label())
            });
            log.from = Some(m.from);
            log.message = Some(m.payload.category().name());
            log.delivery = Some(delivery(&m, Outcome::Dropped));
            self.on_dropped(&m, &mut log);
            self.last_dropped.push(m);
            return log;
        }
        if render {
            // Kept for drawing only (the view's "delivered" arrow): not copied when nothing is shown.
            self.last_delivered = Some(m.clone());
        }
        let mut log =
            StepLog::new(render, m.to, EventKind::Info, || format!("{} ← {}: {}", m.to, m.from, m.payload.label()));
        log.from = Some(m.from);
        log.message = Some(m.payload.category().name());
        log.delivery = Some(delivery(&m, Outcome::Delivered));
        match m.to {
            NodeId::Broker(b) => {
                if let Payload::MetadataRecords { from_offset, records } = m.payload {
                    let mut out = self.outbox();
                    self.broker_mut(b).on_metadata_records(from_offset, &records, &mut out);
                    self.route(m.to, out, &mut log);
                } else {
                    self.deliver_to_broker(b, m, &mut log);
                }
            }
            NodeId::Zk(_) | NodeId::Voter(_) => self.plane_deliver(m, &mut log),
            NodeId::Client(c) => {
                let from = m.from;
                log.kind = EventKind::Consumer;
                self.with_consumer(c, &mut log, |c, out| c.on_message(from, m.payload, out));
            }
        }
        log
    }

    fn on_dropped(&mut self, m: &Message, log: &mut StepLog) {
        if self.plane_dropped(m, log) {
            return;
        }
        match (&m.payload, m.from, m.to) {
            (Payload::ZkRequest { session, xid, .. }, NodeId::Broker(b), _)
            | (Payload::ZkResponse { session, xid, .. }, _, NodeId::Broker(b)) => {
                self.broker_mut(b).on_zk_packet_lost(*session, *xid);
            }
            (Payload::LeaderAndIsr { .. } | Payload::UpdateMetadata { .. }, NodeId::Broker(x), NodeId::Broker(y)) => {
                // Only the link failed (the target is up): the sender's RequestSendThread retries.
                let target_up = self.brokers[&y].alive && self.brokers[&y].incarnation == m.incarnation;
                if self.brokers[&x].would_resend_control_request(y, target_up) {
                    let mut out = self.outbox();
                    self.broker_mut(x).hold_control_request(y, m.payload.clone(), &mut out);
                    self.route(NodeId::Broker(x), out, log);
                }
            }
            _ => {}
        }
    }

    fn deliver_to_broker(&mut self, b: BrokerId, m: Message, log: &mut StepLog) {
        let from = m.from;
        if self.brokers[&b].zk.ignores(from) {
            log.set_line(|| {
                format!(
                    "{} ← {from}: {label} (from a server it no longer talks to; ignored)",
                    NodeId::Broker(b),
                    label = m.payload.label()
                )
            });
            return;
        }
        match m.payload {
            Payload::ZkClosed => {
                log.kind = EventKind::ZkSession;
                self.with_broker(b, log, |br, cfg, out| br.on_zk_closed(cfg, out));
            }
            Payload::ZkConnectResponse { result } => {
                log.kind = EventKind::ZkSession;
                self.with_broker(b, log, |br, cfg, out| br.on_zk_connect_response(result, cfg, out));
            }
            Payload::ZkResponse { session, xid, result } => {
                log.kind = EventKind::ZkResponse;
                log.set_line(|| format!("{} ← {from}: {}", NodeId::Broker(b), result_summary(&result)));
                self.with_broker(b, log, |br, cfg, out| br.on_zk_response(session, xid, result, cfg, out));
            }
            Payload::ZkWatch { event } => {
                log.kind = EventKind::ZkWatch;
                self.with_broker(b, log, |br, cfg, out| br.on_watch(event, cfg, out));
            }
            Payload::LeaderAndIsr { controller_id, controller_epoch, partitions } => {
                log.kind = EventKind::ControlRequest;
                self.with_broker(b, log, |br, _, out| {
                    br.on_leader_and_isr(controller_id, controller_epoch, partitions, out);
                });
            }
            Payload::UpdateMetadata { controller_id, controller_epoch, live_brokers, partitions } => {
                log.kind = EventKind::ControlRequest;
                self.with_broker(b, log, |br, _, out| {
                    br.on_update_metadata(controller_id, controller_epoch, live_brokers, partitions, out);
                });
            }
            payload @ (Payload::FindCoordinator { .. } | Payload::JoinGroup { .. } | Payload::Heartbeat { .. }) => {
                log.kind = EventKind::Consumer;
                let mut out = self.outbox();
                self.brokers[&b].on_client_request(from, payload, &self.cfg, &mut out);
                self.route(NodeId::Broker(b), out, log);
            }
            _ => {}
        }
    }

    // ---- timers -------------------------------------------------------------------------------

    fn fire(&mut self, node: NodeId, incarnation: u64, timer: Timer) -> StepLog {
        let mut log = StepLog::new(self.render, node, EventKind::Info, || format!("{node}: timer {timer:?}"));
        match node {
            NodeId::Zk(_) | NodeId::Voter(_) => self.plane_fire(node, timer, &mut log),
            NodeId::Broker(b) => {
                let br = &self.brokers[&b];
                if !br.alive || br.incarnation != incarnation {
                    log.set_line(|| format!("{node}: timer {timer:?} (process gone, ignored)"));
                    return log;
                }
                let zk_link_up = self.net.both_up(node, br.zk.server());
                let mut fetching = matches!(timer, Timer::IsrCheck).then(|| self.fetching_owned(b));
                self.with_broker(b, &mut log, |br, cfg, out| {
                    br.on_timer(&timer, zk_link_up, fetching.as_mut().map(|f| f as _), cfg, out);
                });
            }
            NodeId::Client(c) => {
                log.kind = EventKind::Consumer;
                log.set_line(|| match &timer {
                    Timer::ConsumerRetry => format!("{node}: retry backoff elapsed"),
                    Timer::ConsumerHeartbeat => format!("{node}: heartbeat due"),
                    Timer::ConsumerTimeout { .. } => format!("{node}: request timeout"),
                    other => format!("{node}: timer {other:?}"),
                });
                self.with_consumer(c, &mut log, |c, out| c.on_timer(&timer, out));
            }
        }
        log
    }
}

/// Why a message was dropped on arrival (rendered only when the step is shown).
#[derive(Clone, Copy)]
enum DropReason {
    /// Its link is cut.
    Cut,
    /// Its link is up, but was cut and healed, or its connection reset, since it was sent.
    ConnectionGone,
    /// The broker it was sent to is down (or restarted since).
    BrokerDown(BrokerId),
    /// The KRaft voter it was sent to is down.
    VoterDown(u32),
}

/// The typed record of what a step did with `m` (for the swim lanes; nothing is allocated).
fn delivery(m: &Message, outcome: Outcome) -> Delivery {
    Delivery { id: m.id, sent_step: m.sent_step, sent_ms: m.sent_ms, category: m.payload.category(), outcome }
}
