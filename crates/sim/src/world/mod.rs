//! The deterministic world (TigerBeetle-simulator style): a virtual clock, one event queue, a seeded
//! PRNG, the network, ZooKeeper, the brokers and the consumers. [`World::step`] processes exactly
//! one queued item and returns its [`Event`]; [`World::apply`] injects a [`Command`] now. The fault
//! injector (scripted faults) sits beside the code under test, in the same queue.
mod bounds;
mod build;
mod control_plane;
mod faults;
mod state_hash;
mod step_log;

pub use crate::fnv::Fnv;
pub use control_plane::ControlPlane;
use step_log::StepLog;

use crate::alerts::{self, Alert};
use crate::broker::{Broker, LocalPartition};
use crate::command::{Command, CommandError};
use crate::consumer::Consumer;
use crate::effects::{Effect, Outbox, Timer};
use crate::event::{Delivery, Event, EventKind, Outcome};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kraft::{self, Kraft};
use crate::limits::Limits;
use crate::message::{Message, Payload};
use crate::network::Network;
use crate::rng::Rng;
use crate::scenario::{Config, Mode};
use crate::sched::Queue;
use crate::sorted::CollectOrdered;
use crate::vec_map::VecMap;
use crate::zookeeper::data_tree::DataTree;
use crate::zookeeper::ops::result_summary;
use crate::zookeeper::server::{ClientLinks, ZkServerNode};
use crate::zookeeper::session::SessionId;
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

    /// The quorum, in `kraft` mode.
    pub fn kraft(&self) -> Option<&Kraft> {
        self.plane.kraft()
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
            NodeId::Zk(_) => match self.plane.zk_servers() {
                Some(z) => z.contains_key(&n),
                // KRaft: a fault naming one of the scenario's ZooKeeper servers (or `zk`) applies to
                // the voters (see `apply_kraft`), so a scenario's faults run unchanged in every mode.
                None => n == NodeId::ZK || self.cfg.zk.servers.contains(&n),
            },
            NodeId::Broker(b) => self.brokers.contains_key(&b),
            NodeId::Client(c) => self.consumers.contains_key(&c),
            NodeId::Voter(v) => self.plane.kraft().is_some_and(|k| k.voters.contains_key(&v)),
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

    /// The alerts after a step, from what it touched (`None`: from scratch); `None` when they
    /// did not change.
    pub(super) fn compute_alerts(&mut self, touched: Option<&alerts::Touched>) -> Option<Vec<Alert>> {
        match &self.plane {
            ControlPlane::Kraft { quorum, .. } => {
                Some(alerts::check_kraft(quorum, self.consumers.values(), self.render)).filter(|a| *a != self.alerts)
            }
            ControlPlane::ZooKeeper(servers) => {
                // The tree `ControlPlane::zk` reads (the leader's, the first server's while none
                // leads), found with its server in one pass.
                let (server, node) = servers
                    .iter()
                    .find(|(_, s)| s.role() == crate::zookeeper::proto::Role::Leading)
                    .or_else(|| servers.iter().next())
                    .expect("a ZooKeeper plane has a server");
                let tree = node.tree();
                let key = (*server, tree.brokers_version());
                self.alert_memo.update(key, tree, &self.brokers, &self.consumers, touched, self.render)
            }
        }
    }

    /// Every alert that holds now, computed from scratch: what [`World::alerts`] must equal (the
    /// incremental computation is checked against it).
    #[doc(hidden)]
    pub fn alerts_recomputed(&self) -> Vec<Alert> {
        match &self.plane {
            ControlPlane::Kraft { quorum, .. } => alerts::check_kraft(quorum, self.consumers.values(), self.render),
            ControlPlane::ZooKeeper(_) => {
                let tree = self.plane.zk().expect("a ZooKeeper plane has a server");
                let mut memo = alerts::DivergenceMemo::new();
                alerts::check(tree, self.brokers.values(), self.consumers.values(), &mut memo, self.render)
            }
        }
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

    /// Runs a ZooKeeper server's handler, with what the server can observe of its clients now,
    /// and routes its effects (`None` when there is no such server).
    fn with_zk<R>(
        &mut self,
        server: NodeId,
        log: &mut StepLog,
        f: impl FnOnce(&mut ZkServerNode, u64, &dyn ClientLinks, &mut Outbox) -> R,
    ) -> Option<R> {
        let mut out = self.outbox();
        let links = ZkLinks { net: &self.net, brokers: &self.brokers };
        let r = f(self.plane.zk_node_mut(server)?, self.now, &links, &mut out);
        self.touched.zk = true;
        if !self.touched.zk_servers.contains(&server) {
            self.touched.zk_servers.push(server);
        }
        self.route(server, out, log);
        Some(r)
    }

    /// The ZooKeeper server a broker's client talks to.
    pub(crate) fn zk_server_of(&self, b: BrokerId) -> NodeId {
        self.brokers.get(&b).map(|br| br.zk.server()).unwrap_or(NodeId::ZK)
    }

    fn broker_liveness(&self) -> VecMap<BrokerId, bool> {
        self.brokers.iter().map(|(id, b)| (*id, b.alive)).collect_ordered()
    }

    /// Who can talk to whom among the voters and brokers, as the quorum learns it.
    fn kraft_reach(&self) -> kraft::Reach {
        kraft::Reach::new(self.cfg.voters(), &self.broker_liveness(), |a, b| self.net.is_up(a, b))
    }

    /// Re-derives the quorum's liveness timers after a fault changed the network or a process.
    fn kraft_change(&mut self, log: &mut StepLog) {
        if self.plane.kraft().is_some() {
            let reach = self.kraft_reach();
            self.kraft_react(&reach, log);
        }
    }

    /// Re-derives the quorum's liveness timers after a voter's handler ran, with the reach it ran
    /// with (a handler changes neither the network nor a process).
    fn kraft_react(&mut self, reach: &kraft::Reach, log: &mut StepLog) {
        let Some(k) = self.plane.kraft_mut() else { return };
        let rng = &mut self.rng;
        let outs = k.on_change(reach, &mut |max| rng.up_to(max));
        for (v, out) in outs {
            self.route(NodeId::Voter(v), out, log);
        }
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
        if let (NodeId::Voter(v), Some(k)) = (m.to, self.plane.kraft()) {
            if !k.voters.get(&v).is_some_and(|x| x.alive) {
                return Some(DropReason::VoterDown(v));
            }
        }
        None
    }

    fn deliver(&mut self, m: Message) -> StepLog {
        let render = self.render;
        if m.from.is_zk() && m.to.is_zk() && !self.net.is_up(m.from, m.to) {
            // A stalled TCP connection between two servers: the packet waits, in order.
            let mut log = StepLog::new(render, m.to, EventKind::Info, || {
                format!("{} → {}: {} (held: link cut)", m.from, m.to, m.payload.label())
            });
            log.from = Some(m.from);
            log.delivery = Some(delivery(&m, Outcome::Held));
            self.stalled.push(m);
            return log;
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
            NodeId::Voter(v) => {
                log.kind = EventKind::ZkRequest;
                let reach = self.kraft_reach();
                let mut out = self.outbox();
                if let Some(k) = self.plane.kraft_mut() {
                    k.on_message(v, m.from, m.payload, &reach, &mut out);
                }
                self.route(NodeId::Voter(v), out, &mut log);
                self.kraft_react(&reach, &mut log);
            }
            NodeId::Broker(b) if matches!(m.payload, Payload::MetadataRecords { .. }) => {
                log.kind = EventKind::ControlRequest;
                if let Payload::MetadataRecords { from_offset, records } = m.payload {
                    let mut img = self.plane.images_mut().and_then(|i| i.remove(&b)).unwrap_or_default();
                    let moved = kraft::image::apply_records(&mut img, self.broker_mut(b), &records);
                    if let Some(images) = self.plane.images_mut() {
                        images.insert(b, img);
                    }
                    log.set_line(|| kraft::image::applied_line(b, from_offset, &records));
                    if moved {
                        let br = &self.brokers[&b];
                        log.push(EventKind::Info, || kraft::image::coordinator_line(br));
                    }
                }
            }
            NodeId::Zk(_) => self.deliver_to_zk(m, &mut log),
            NodeId::Broker(b) => self.deliver_to_broker(b, m, &mut log),
            NodeId::Client(c) => {
                let from = m.from;
                log.kind = EventKind::Consumer;
                self.with_consumer(c, &mut log, |c, out| c.on_message(from, m.payload, out));
            }
        }
        log
    }

    fn on_dropped(&mut self, m: &Message, log: &mut StepLog) {
        match (&m.payload, m.from, m.to) {
            (Payload::RaftAppend { .. }, NodeId::Voter(l), NodeId::Voter(f)) => {
                if let Some(k) = self.plane.kraft_mut() {
                    k.append_lost(l, f);
                }
            }
            (Payload::MetadataRecords { from_offset, .. }, NodeId::Voter(v), NodeId::Broker(b)) => {
                if let Some(k) = self.plane.kraft_mut() {
                    k.metadata_lost(v, b, *from_offset as usize);
                }
            }
            (Payload::ZkRequest { session, xid, .. }, NodeId::Broker(b), _)
            | (Payload::ZkResponse { session, xid, .. }, _, NodeId::Broker(b)) => {
                self.broker_mut(b).on_zk_packet_lost(*session, *xid);
            }
            (Payload::ZkWatch { event }, from, _) => {
                self.with_zk(from, log, |zk, _, _, out| zk.on_watch_undelivered(event, out));
            }
            (Payload::LeaderAndIsr { .. } | Payload::UpdateMetadata { .. }, NodeId::Broker(x), NodeId::Broker(y)) => {
                // Only the link failed (the target is up): the sender's RequestSendThread retries.
                let target_up = self.brokers[&y].alive && self.brokers[&y].incarnation == m.incarnation;
                if target_up && self.brokers[&x].would_resend_control_request(y) {
                    let mut out = self.outbox();
                    self.broker_mut(x).hold_control_request(y, m.payload.clone(), &mut out);
                    self.route(NodeId::Broker(x), out, log);
                }
            }
            _ => {}
        }
    }

    fn deliver_to_zk(&mut self, m: Message, log: &mut StepLog) {
        log.node = m.to;
        log.kind = EventKind::ZkRequest;
        self.with_zk(m.to, log, |zk, now, links, out| zk.on_message(m.from, m.payload, now, links, out));
    }

    fn deliver_to_broker(&mut self, b: BrokerId, m: Message, log: &mut StepLog) {
        let from = m.from;
        if from.is_zk() && from != self.zk_server_of(b) {
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
            NodeId::Zk(_) => {
                self.with_zk(node, &mut log, |zk, now, links, out| zk.on_timer(&timer, now, links, out));
            }
            NodeId::Broker(b) => {
                let br = &self.brokers[&b];
                if !br.alive || br.incarnation != incarnation {
                    log.set_line(|| format!("{node}: timer {timer:?} (process gone, ignored)"));
                    return log;
                }
                match timer {
                    Timer::ZkReadTimeout { .. }
                        if br.zk.state == crate::zk_client::ConnState::Connected
                            && self.net.both_up(node, br.zk.server()) =>
                    {
                        log.set_line(|| {
                            format!("{node}: ZooKeeper read-timeout check: the link is back, still connected")
                        });
                    }
                    Timer::IsrCheck => {
                        log.set_line(|| format!("{node}: ISR check (replica.lag.time.max.ms)"));
                        let mut fetching = self.fetching_owned(b);
                        self.with_broker(b, &mut log, |br, _, out| br.isr_check(&mut fetching, out));
                    }
                    Timer::IsrPropagation => {
                        log.set_line(|| format!("{node}: isr-change-propagation (maybePropagateIsrChanges)"));
                        self.with_broker(b, &mut log, |br, _, out| br.maybe_propagate_isr_changes(out));
                    }
                    Timer::ZkReconnect { .. } => {
                        log.set_line(|| format!("{node}: ZooKeeper client's reconnect sleep is over"));
                        self.with_broker(b, &mut log, |br, cfg, out| br.on_timer(&timer, cfg, out));
                    }
                    t => {
                        // While connecting, the same timer is the attempt's connect timeout.
                        log.set_line(|| {
                            if br.zk.state != crate::zk_client::ConnState::Connected {
                                format!(
                                    "{node}: ZooKeeper connect timeout ({} ms)",
                                    self.cfg.connect_timeout_ms(br.zk.servers.len())
                                )
                            } else {
                                format!("{node}: ZooKeeper read timeout ({} ms)", self.cfg.read_timeout_ms())
                            }
                        });
                        self.with_broker(b, &mut log, |br, cfg, out| br.on_timer(&t, cfg, out));
                    }
                }
            }
            NodeId::Voter(v) => {
                log.set_line(|| format!("{node}: timer {timer:?}"));
                let reach = self.kraft_reach();
                let mut out = self.outbox();
                if let Some(k) = self.plane.kraft_mut() {
                    let rng = &mut self.rng;
                    k.on_timer(v, &timer, &reach, &mut |max| rng.up_to(max), &mut out);
                }
                self.route(node, out, &mut log);
                self.kraft_react(&reach, &mut log);
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

    /// Which followers fetch from `leader` (alive, linked both ways with it, following it for the
    /// partition asked about), as [`crate::broker::Fetching`]. The part that does not depend on
    /// the partition is asked once per broker here. With `views`, a follower's replicas are read
    /// from its [`FollowerView`] (up to date after a step's views were taken): the partition is
    /// first looked for at the place it has among the leader's replicas, where a follower holding
    /// the same partitions has it too (no lookup per partition and replica).
    fn fetching(
        &self,
        leader: BrokerId,
        views: bool,
    ) -> impl FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + '_ {
        // The leader itself is left out: it leads the partitions it is asked about.
        let reach: Vec<(BrokerId, &Broker, Option<&FollowerView>)> = self
            .brokers
            .iter()
            .filter(|(id, b)| {
                **id != leader && b.alive && self.net.both_up(NodeId::Broker(leader), NodeId::Broker(**id))
            })
            .map(|(id, b)| (*id, &**b, if views { self.isr_seen.get(id).map(|s| &s.view) } else { None }))
            .collect();
        debug_assert!(reach.iter().all(|(_, b, v)| v.is_none_or(|v| v.is(b))), "a follower view moved unseen");
        move |i: usize, tp: &TopicPartition, lp: &LocalPartition| {
            let mut bits = 0u64;
            for (j, r) in lp.replicas.iter().enumerate() {
                let Some((_, b, view)) = reach.iter().find(|(id, _, _)| id == r) else { continue };
                let follows = match view {
                    Some(v) => v.follows(i, tp) == Some(leader),
                    None => b.partitions.get(tp).is_some_and(|p| !p.is_leader && p.leader == leader),
                };
                bits |= (follows as u64) << j;
            }
            bits
        }
    }

    /// [`World::fetching`] for the partitions `leader` leads, owned (the broker's handler runs
    /// while the world is borrowed mutably), read from the brokers themselves.
    fn fetching_owned(&self, leader: BrokerId) -> impl FnMut(usize, &TopicPartition, &LocalPartition) -> u64 {
        let mut fetching = self.fetching(leader, false);
        let led: Vec<(TopicPartition, u64)> = self.brokers[&leader]
            .partitions
            .iter()
            .enumerate()
            .filter(|(_, (_, p))| p.is_leader)
            .map(|(i, (tp, p))| (tp.clone(), fetching(i, tp, p)))
            .collect();
        move |_: usize, tp: &TopicPartition, _: &LocalPartition| {
            led.iter().find(|(t, _)| t == tp).map_or(0, |(_, bits)| *bits)
        }
    }

    /// After every step the world tells the nodes what they would observe now: each consumer
    /// whether its coordinator is healthy, each partition leader which followers fetch from it.
    /// The nodes decide what to do about it.
    fn post_step(&mut self, log: &mut StepLog) {
        let mut next = self.consumers.keys().next().copied();
        while let Some(id) = next {
            next = self.consumers.key_after(&id).copied();
            let c = &self.consumers[&id];
            let Some(coord) = c.coordinator else { continue };
            let healthy = self
                .brokers
                .get(&coord)
                .map(|b| b.alive && b.owned_offsets_partitions.contains(&c.partition))
                .unwrap_or(false)
                && self.net.both_up(NodeId::Client(id), NodeId::Broker(coord));
            if let Some(wait) = c.heartbeat_due(healthy, self.now) {
                self.with_consumer(id, log, |c, out| c.schedule_heartbeat(wait, out));
            }
        }
        if self.plane.kraft().is_some() {
            return;
        }
        // The relay reads the servers, the links and the brokers' sessions; when none of them moved
        // since the last sync (which left every leader's relay as it found it), it has nothing to do.
        // Of a broker, the relay reads only its [`RelayKey`]: a broker written without moving it
        // gives the relay nothing new.
        let mut relay_moved = false;
        for i in 0..self.touched.brokers.len() {
            let b = self.touched.brokers[i];
            let key = self.brokers.get(&b).map(|br| RelayKey::of(br));
            if self.relay_seen.get(&b) != key.as_ref() {
                relay_moved = true;
                match key {
                    Some(k) => self.relay_seen.insert(b, k),
                    None => self.relay_seen.remove(&b),
                };
            }
        }
        // Of a ZooKeeper server, the relay reads what [`ZkServerNode::hash_relay_inputs`] feeds: a
        // server whose handler ran without moving it gives the relay nothing new either.
        if self.zk_relay_moved() || self.touched.net || relay_moved {
            self.sync_zk_relay(log);
            // Remember the servers as the relay left them.
            self.zk_relay_moved();
        } else {
            debug_assert!(self.relay_idle(), "the ZooKeeper relay skipped with work to do");
        }
        // What an ISR check reads (the brokers, the links) is unchanged since the last step left
        // every leader with nothing due (or a check pending): nothing can be due now.
        if self.touched.brokers.is_empty() && !self.touched.net {
            return;
        }
        // A leader's check reads its own state, the links, and what the other brokers show it
        // (their process and which leader each of their replicas follows). A leader is looked at
        // again only if what it reads of itself, the links or some broker's view changed.
        let mut views_changed = self.touched.net && self.broker_links_moved();
        let mut own_changed: Vec<BrokerId> = Vec::new();
        for i in 0..self.touched.brokers.len() {
            let b = self.touched.brokers[i];
            let Some(br) = self.brokers.get(&b) else { continue };
            let stamp = br.partitions_stamp.0;
            match self.isr_seen.get_mut(&b) {
                Some(seen) => {
                    // Replicas not written since: the same view (debug builds check it).
                    let written = seen.stamp != stamp;
                    seen.stamp = stamp;
                    if (written || seen.view.alive != br.alive) && !seen.view.is(br) {
                        seen.view = FollowerView::of(br);
                        views_changed = true;
                    }
                    debug_assert!(seen.view.is(br), "b{b}'s follower view moved unseen");
                    let own = IsrSeen::own(br);
                    if seen.own != own {
                        seen.own = own;
                        own_changed.push(b);
                    }
                }
                None => {
                    let own = IsrSeen::own(br);
                    self.isr_seen.insert(b, IsrSeen { view: FollowerView::of(br), own, stamp });
                    views_changed = true;
                }
            }
        }
        // A leader skipped has nothing due: nothing it reads moved since it last found nothing due
        // (or scheduled a check). Debug builds ask it anyway.
        debug_assert!(
            self.brokers
                .keys()
                .filter(|b| !views_changed && !own_changed.contains(b))
                .all(|b| self.brokers[b].isr_check_due(&mut self.fetching(*b, true), &self.cfg).is_none()),
            "a leader skipped with a check due"
        );
        // The others, in id order (their checks are scheduled in that order); usually none.
        let looked_at: Vec<BrokerId> = if views_changed {
            self.brokers.keys().copied().collect()
        } else {
            crate::sorted::sort(&mut own_changed);
            own_changed
        };
        for b in looked_at {
            let due = self.brokers[&b].isr_check_due(&mut self.fetching(b, true), &self.cfg);
            if let Some(wait) = due {
                let mut out = self.outbox();
                self.broker_mut(b).schedule_isr_check(wait, &mut out);
                self.route(NodeId::Broker(b), out, log);
            }
        }
    }

    /// Whether some link between two brokers (what an ISR check reads of the network) came up or
    /// went down since this was last asked; remembers the links as they are now.
    fn broker_links_moved(&mut self) -> bool {
        let ids: Vec<BrokerId> = self.brokers.keys().copied().collect();
        let mut now = Vec::with_capacity(ids.len() * ids.len());
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                now.push(self.net.both_up(NodeId::Broker(*a), NodeId::Broker(*b)));
            }
        }
        let moved = now != self.isr_links;
        self.isr_links = now;
        moved
    }

    /// Whether what the relay reads of a ZooKeeper server whose handler ran this step moved since
    /// it was last looked at; remembers it as it is now.
    fn zk_relay_moved(&mut self) -> bool {
        use core::hash::Hasher;
        let Some(servers) = self.plane.zk_servers() else { return false };
        let mut moved = false;
        for id in &self.touched.zk_servers {
            let fp = servers.get(id).map(|z| {
                let mut h = Mix(0);
                z.hash_relay_inputs(&mut h);
                h.finish()
            });
            if self.relay_zk_seen.get(id) != fp.as_ref() {
                moved = true;
                match fp {
                    Some(fp) => self.relay_zk_seen.insert(*id, fp),
                    None => self.relay_zk_seen.remove(id),
                };
            }
        }
        moved
    }

    /// No leader's relay would change now (what [`World::sync_zk_relay`] would act on).
    fn relay_idle(&self) -> bool {
        let Some(servers) = self.plane.zk_servers() else { return true };
        let links = ZkLinks { net: &self.net, brokers: &self.brokers };
        crate::zookeeper::quorum::relayed_touches(servers, &links)
            .into_iter()
            .all(|(l, t)| !servers[&l].touches_changed(&t))
    }

    /// The implicit PING round: each leader learns which sessions' touches reach it now
    /// ([`crate::zookeeper::quorum::relayed_touches`]); only a change runs its handler.
    pub(crate) fn sync_zk_relay(&mut self, log: &mut StepLog) {
        let relays = match self.plane.zk_servers() {
            Some(servers) => {
                let links = ZkLinks { net: &self.net, brokers: &self.brokers };
                crate::zookeeper::quorum::relayed_touches(servers, &links)
                    .into_iter()
                    .filter(|(l, t)| servers[l].touches_changed(t))
                    .collect()
            }
            None => Vec::new(),
        };
        for (leader, touched) in relays {
            self.with_zk(leader, log, |zk, now, _, out| zk.on_touches(&touched, now, out));
        }
    }
}

/// What [`ZkLinks::pinging`] reads of a broker: whether it runs, its session and the server it
/// talks to (a derived cache of its state, deciding nothing the state does not).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RelayKey(bool, Option<crate::zookeeper::session::SessionId>, NodeId);

impl RelayKey {
    fn of(b: &Broker) -> Self {
        RelayKey(b.alive, b.zk.session, b.zk.server())
    }
}

/// What a broker's state meant to the ISR checks when a step last touched it (a derived cache of
/// its state, deciding nothing the state does not): what it shows the other leaders
/// ([`FollowerView`]), and a fingerprint of what its own check reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IsrSeen {
    view: FollowerView,
    own: u64,
    /// The broker's `partitions_stamp` when `view` was last found to be what it shows.
    stamp: u64,
}

impl IsrSeen {
    /// A 64-bit fingerprint of what [`Broker::isr_check_due`] reads of the broker itself: whether
    /// it runs and has a check scheduled, its replicas (the partitions it leads: ISR, replicas,
    /// cached zkVersion, refused writes) and the ISR writes in flight. The replicas count by their
    /// `partitions_stamp`, which every write of them moves: a write that leaves the partitions it
    /// leads as they were costs one check of this leader, less than hashing what it leads at every
    /// write did.
    fn own(b: &Broker) -> u64 {
        use core::hash::Hasher;
        let mut h = Mix(0);
        h.write_u64(b.alive as u64 | (b.isr_check_pending as u64) << 1);
        h.write_u64(b.partitions_stamp.0);
        for tp in b.isr_writes_in_flight() {
            h.write_partition(tp);
        }
        h.finish()
    }
}

/// A fast 64-bit mixing hasher (multiply-rotate over 8-byte words), for [`IsrSeen::own`].
struct Mix(u64);

impl Mix {
    fn write_partition(&mut self, tp: &TopicPartition) {
        use core::hash::Hasher;
        if !tp.topic.is_offsets() {
            self.write(tp.topic.as_bytes());
        }
        self.write_u64(tp.partition as u64 | 1 << 40);
    }
}

impl core::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.write_u64(u64::from_le_bytes(last) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }

    fn write_i32(&mut self, x: i32) {
        self.write_u64(x as u32 as u64);
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// What a broker shows the other brokers' ISR checks ([`World::fetching`]): whether it runs, and
/// for each of its replicas whether it leads and which leader it follows. A derived cache of the
/// broker's state (it decides nothing a broker's own state does not).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FollowerView {
    alive: bool,
    replicas: Vec<(TopicPartition, bool, BrokerId)>,
}

impl FollowerView {
    fn of(b: &Broker) -> FollowerView {
        FollowerView {
            alive: b.alive,
            replicas: b.partitions.iter().map(|(tp, p)| (tp.clone(), p.is_leader, p.leader)).collect(),
        }
    }

    /// The leader `b` follows for `tp` (none when it leads it or has no replica of it), found
    /// first at place `i` (where a broker holding the same partitions as the asking leader has
    /// it), else by a search of the replicas (in partition order).
    fn follows(&self, i: usize, tp: &TopicPartition) -> Option<BrokerId> {
        let at = match self.replicas.get(i) {
            Some((t, _, _)) if t == tp => i,
            _ => self.replicas.binary_search_by(|(t, _, _)| t.cmp(tp)).ok()?,
        };
        let (_, leads, leader) = &self.replicas[at];
        (!leads).then_some(*leader)
    }

    /// The view is still what `b` shows.
    fn is(&self, b: &Broker) -> bool {
        self.alive == b.alive
            && self.replicas.len() == b.partitions.len()
            && self
                .replicas
                .iter()
                .zip(b.partitions.iter())
                .all(|((t, l, f), (tp, p))| *l == p.is_leader && *f == p.leader && t == tp)
    }
}

/// What the ZooKeeper server can observe of its clients, read from the network and the brokers.
struct ZkLinks<'a> {
    net: &'a Network,
    brokers: &'a VecMap<BrokerId, Rc<Broker>>,
}

impl ClientLinks for ZkLinks<'_> {
    fn reachable(&self, server: NodeId, client: NodeId) -> bool {
        self.net.both_up(client, server)
    }

    fn peers_up(&self, a: NodeId, b: NodeId) -> bool {
        self.net.both_up(a, b)
    }

    fn pinging(&self, server: NodeId, client: NodeId, session: SessionId) -> bool {
        match client {
            NodeId::Broker(b) => {
                self.brokers
                    .get(&b)
                    .is_some_and(|br| br.alive && br.zk.session == Some(session) && br.zk.server() == server)
                    && self.net.is_up(client, server)
            }
            _ => false,
        }
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
