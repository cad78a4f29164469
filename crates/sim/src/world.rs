//! The deterministic world (TigerBeetle-simulator style): a virtual clock, one event queue, a seeded
//! PRNG, the network, ZooKeeper, the brokers and the consumers. [`World::step`] processes exactly
//! one queued item and returns its [`Event`]; [`World::apply`] injects a [`Command`] now. The fault
//! injector (scripted faults) sits beside the code under test, in the same queue.
use crate::alerts::{self, Alert};
use crate::broker::{Broker, LocalPartition};
use crate::command::{Command, CommandError, Direction};
use crate::consumer::{Consumer, ConsumerStatus, HEARTBEAT_MS};
use crate::controller::partition_state::PartitionState;
use crate::controller::replica_state::ReplicaState;
use crate::controller::{Cached, ControllerContext};
use crate::effects::{Effect, Outbox, Timer};
use crate::event::{Event, EventKind};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kraft::{self, Image, Kraft};
use crate::message::{Message, PartitionStateInfo, Payload};
use crate::network::Network;
use crate::rng::Rng;
use crate::scenario::{Config, Mode, Scenario, ScenarioError, OFFSETS_TOPIC};
use crate::sched::Queue;
use crate::zk_client::ConnState;
use crate::zookeeper::{
    result_summary, ClientLink, ClientLinks, DataTree, LeaderIsr, SessionId, ZData, ZkOp, ZkServerNode,
};
use alloc::collections::{BTreeMap, BTreeSet};
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
    pub(crate) zk: Rc<ZkServerNode>,
    pub(crate) brokers: BTreeMap<BrokerId, Rc<Broker>>,
    pub(crate) consumers: BTreeMap<u32, Rc<Consumer>>,
    next_msg: u64,
    /// The quorum, in `kraft` mode.
    pub(crate) kraft: Option<Rc<Kraft>>,
    /// Each broker's metadata image, in `kraft` mode.
    kraft_images: BTreeMap<BrokerId, Image>,
    isr_check_pending: BTreeSet<BrokerId>,
    pub(crate) alerts: Vec<Alert>,
    /// The cache-divergence findings the alerts were last computed with.
    divergence: alerts::DivergenceMemo,
    /// Messages dropped in the last step (for drawing).
    pub(crate) last_dropped: Vec<Message>,
    /// The message delivered in the last step (for drawing).
    pub(crate) last_delivered: Option<Message>,
    last_node: Option<NodeId>,
}

/// Collects the lines of one step and picks the main one.
struct StepLog {
    node: NodeId,
    from: Option<NodeId>,
    message: Option<&'static str>,
    kind: EventKind,
    line: String,
    lines: Vec<(EventKind, String)>,
    marks: Vec<crate::mark::Mark>,
}

fn priority(k: EventKind) -> u8 {
    match k {
        EventKind::ControllerElected | EventKind::ControllerResigned => 10,
        EventKind::LeaderChange => 9,
        EventKind::SessionExpired => 8,
        EventKind::ZkSession => 7,
        EventKind::IsrChange => 6,
        EventKind::ControlRejected => 5,
        EventKind::Consumer => 5,
        EventKind::Fault => 5,
        EventKind::Process => 4,
        EventKind::ControlRequest => 3,
        EventKind::Info => 2,
        _ => 1,
    }
}

impl StepLog {
    fn new(node: NodeId, kind: EventKind, line: String) -> Self {
        StepLog { node, from: None, message: None, kind, line, lines: Vec::new(), marks: Vec::new() }
    }
    fn finish(self, step: u64, time_ms: u64) -> Event {
        let best = self
            .lines
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| priority(*k) > priority(self.kind))
            .max_by_key(|(i, (k, _))| (priority(*k), usize::MAX - *i))
            .map(|(i, _)| i);
        let mut details = Vec::new();
        let (kind, line) = match best {
            Some(i) => {
                details.push(self.line);
                let mut lines = self.lines;
                let (k, l) = lines.remove(i);
                details.extend(lines.into_iter().map(|(_, l)| l));
                (k, l)
            }
            None => {
                details.extend(self.lines.into_iter().map(|(_, l)| l));
                (self.kind, self.line)
            }
        };
        Event {
            step,
            time_ms,
            node: self.node,
            from: self.from,
            message: self.message.map(String::from),
            kind,
            line,
            details,
            alerts_raised: Vec::new(),
            alerts_cleared: Vec::new(),
            marks: self.marks,
        }
    }
}

impl World {
    /// Builds the world at time 0 in the steady state the scenario describes.
    pub fn new(scenario: &Scenario) -> Result<World, ScenarioError> {
        Self::with_seed(scenario, scenario.seed)
    }

    /// Same, with another seed.
    pub fn with_seed(scenario: &Scenario, seed: u64) -> Result<World, ScenarioError> {
        Self::with_mode(scenario, seed, scenario.opening_mode(None))
    }

    /// Same, with another seed and Kafka behaviour.
    pub fn with_mode(scenario: &Scenario, seed: u64, mode: Mode) -> Result<World, ScenarioError> {
        let mut cfg = scenario.config()?;
        cfg.mode = mode;
        let net = Network::new(&cfg.nodes(), &cfg.latency);
        let mut zk = DataTree::new();
        let mut brokers = BTreeMap::new();
        let epoch = cfg.controller_epoch;
        zk.seed_node("/controller_epoch", ZData::ControllerEpoch { epoch }, None);
        zk.seed_version("/controller_epoch", epoch - 1);
        zk.seed_node("/isr_change_notification", ZData::Empty, None);
        let mut sessions = BTreeMap::new();
        for &b in &cfg.brokers {
            let s = zk.open_session(NodeId::Broker(b), cfg.session_timeout_ms, 0);
            sessions.insert(b, s);
            zk.seed_node(&format!("/brokers/ids/{b}"), ZData::Broker { id: b }, Some(s));
        }
        zk.seed_node(
            "/controller",
            ZData::Controller { broker_id: cfg.controller, timestamp: 0 },
            Some(sessions[&cfg.controller]),
        );
        for t in &cfg.topics {
            let partitions = cfg.partitions_of(t).map(|tp| (tp.partition, cfg.assignment[tp].clone())).collect();
            zk.seed_node(&format!("/brokers/topics/{t}"), ZData::Assignment { partitions }, None);
        }
        let mut leadership = BTreeMap::new();
        for (tp, replicas) in &cfg.assignment {
            let (le, ver) = cfg.initial[tp];
            let state =
                LeaderIsr { leader: replicas[0], leader_epoch: le, isr: replicas.clone(), controller_epoch: epoch };
            zk.seed_node(&tp.state_path(), ZData::PartitionState { state: state.clone() }, None);
            zk.seed_version(&tp.state_path(), ver);
            leadership.insert(tp.clone(), Cached { state, zk_version: ver });
        }
        let live: BTreeSet<BrokerId> = cfg.brokers.iter().copied().collect();
        let infos: BTreeMap<TopicPartition, PartitionStateInfo> = leadership
            .iter()
            .map(|(tp, c)| {
                (
                    tp.clone(),
                    PartitionStateInfo {
                        tp: tp.clone(),
                        leader: c.state.leader,
                        leader_epoch: c.state.leader_epoch,
                        isr: c.state.isr.clone(),
                        zk_version: c.zk_version,
                        controller_epoch: epoch,
                        replicas: cfg.assignment[tp].clone(),
                    },
                )
            })
            .collect();
        for &b in &cfg.brokers {
            let s = sessions[&b];
            let mut br = Broker::new(b);
            br.alive = true;
            br.incarnation = 1;
            br.zk.session = Some(s);
            br.zk.state = ConnState::Connected;
            br.registered = true;
            br.set_started();
            br.controller.active_id = cfg.controller;
            br.controller_epoch = epoch;
            let tmp_session = s;
            let _ = zk.apply(tmp_session, &ZkOp::GetData { path: "/controller".into(), watch: true }, 0);
            if b == cfg.controller {
                let _ = zk.apply(s, &ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true }, 0);
                let _ = zk.apply(s, &ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true }, 0);
                let _ = zk.apply(s, &ZkOp::GetChildren { path: "/brokers/topics".into(), watch: true }, 0);
                let ver = zk.get("/controller_epoch").map(|n| n.stat.version).unwrap_or(0);
                br.controller.ctx = ControllerContext {
                    epoch,
                    epoch_zk_version: ver,
                    live_brokers: live.clone(),
                    assignment: cfg.assignment.clone(),
                    leadership: leadership.clone(),
                    loaded: true,
                };
                br.controller.listeners = true;
                for (tp, replicas) in &cfg.assignment {
                    br.controller.partition_states.insert(tp.clone(), PartitionState::OnlinePartition);
                    for r in replicas {
                        br.controller.replica_states.insert((tp.clone(), *r), ReplicaState::OnlineReplica);
                    }
                }
            }
            for (tp, replicas) in cfg.assignment.iter().filter(|(_, r)| r.contains(&b)) {
                let i = &infos[tp];
                br.partitions.insert(
                    tp.clone(),
                    LocalPartition {
                        leader: replicas[0],
                        leader_epoch: i.leader_epoch,
                        isr: i.isr.clone(),
                        zk_version: i.zk_version,
                        controller_epoch: epoch,
                        replicas: replicas.clone(),
                        is_leader: replicas[0] == b,
                        isr_write_failed_at: None,
                    },
                );
                if replicas[0] == b && tp.topic == OFFSETS_TOPIC {
                    br.owned_offsets_partitions.insert(tp.partition);
                }
            }
            br.metadata.alive = live.clone();
            br.metadata.partitions = infos.clone();
            brokers.insert(b, Rc::new(br));
        }
        let mut consumers = BTreeMap::new();
        for c in &cfg.consumers {
            let p = crate::consumer::coordinator_partition(&c.group, cfg.offsets_partitions);
            let coordinator = cfg.assignment.get(&TopicPartition::new(OFFSETS_TOPIC, p)).map(|r| r[0]);
            consumers.insert(
                c.id,
                Rc::new(Consumer::stable(c.id, &c.group, cfg.offsets_partitions, coordinator, cfg.brokers.clone())),
            );
        }
        let mut queue = Queue::default();
        let mut script: Vec<(usize, &crate::scenario::ScriptEntry)> = scenario.script.iter().enumerate().collect();
        script.sort_by_key(|(i, e)| (e.at_ms, *i));
        for (_, e) in script {
            queue.push(e.at_ms, Item::Script(e.command.clone()));
        }
        let mut w = World {
            cfg: Rc::new(cfg),
            name: scenario.name.clone(),
            seed,
            now: 0,
            step: 0,
            queue,
            rng: Rng::new(seed),
            net: Rc::new(net),
            zk: Rc::new(ZkServerNode::new(zk)),
            brokers,
            consumers,
            next_msg: 1,
            kraft: None,
            kraft_images: BTreeMap::new(),
            isr_check_pending: BTreeSet::new(),
            alerts: Vec::new(),
            divergence: alerts::DivergenceMemo::new(),
            last_dropped: Vec::new(),
            last_delivered: None,
            last_node: None,
        };
        if mode.behaviour().is_kraft() {
            let k = Kraft::new(&w.cfg);
            let img = k.image().clone();
            for id in w.cfg.brokers.clone() {
                w.kraft_images.insert(id, img.clone());
                kraft::image::publish(&img, w.broker_mut(id));
                w.broker_mut(id).controller = Default::default();
            }
            w.kraft = Some(Rc::new(k));
            w.zk = Rc::new(ZkServerNode::default());
        }
        w.alerts = w.compute_alerts();
        Ok(w)
    }

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

    /// ZooKeeper's data tree and sessions.
    pub fn zk(&self) -> &DataTree {
        self.zk.tree()
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
        self.kraft.as_deref()
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Queued items (messages in flight, timers, scripted faults).
    pub fn queued(&self) -> impl Iterator<Item = (u64, &Item)> {
        self.queue.iter()
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

    /// Processes the next queued item if it is due at or before `until_ms`.
    pub fn step_until(&mut self, until_ms: u64) -> Option<Event> {
        // A fault placed by step number (a playground export) comes first, whatever the time.
        if let Ok(i) = self.cfg.after_steps.binary_search_by_key(&self.step, |(s, _)| *s) {
            let cmd = self.cfg.after_steps[i].1.clone();
            return self.apply(&cmd).ok();
        }
        let t = self.queue.peek_time()?;
        if t > until_ms {
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
            NodeId::Zk => true,
            NodeId::Broker(b) => self.brokers.contains_key(&b),
            NodeId::Client(c) => self.consumers.contains_key(&c),
            NodeId::Voter(v) => self.kraft.as_ref().is_some_and(|k| k.voters.contains_key(&v)),
        };
        cmd.validate(&known).map_err(|e| match e {
            CommandError::UnknownNode(n) => format!("unknown node {n} in '{}'", cmd.describe()),
            CommandError::Invalid(m) => m,
        })
    }

    fn finish_step(&mut self, log: StepLog) -> Event {
        self.post_step();
        self.step += 1;
        let mut ev = log.finish(self.step, self.now);
        self.last_node = Some(ev.node);
        let new_alerts = self.compute_alerts();
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
        ev
    }

    fn compute_alerts(&mut self) -> Vec<Alert> {
        match &self.kraft {
            Some(k) => alerts::check_kraft(k, self.consumers.values()),
            None => alerts::check(self.zk.tree(), self.brokers.values(), self.consumers.values(), &mut self.divergence),
        }
    }

    fn broker_mut(&mut self, id: BrokerId) -> &mut Broker {
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
            deliver_ms: self.now + latency,
            link_gen,
            incarnation: self.incarnation(to),
            payload,
        };
        if matches!(m.payload.category(), "control" | "watch")
            || matches!(m.payload, Payload::ZkRequest { ref op, .. } if op.is_write())
        {
            log.lines.push((EventKind::Info, format!("{from} → {to}: {}", m.payload.label())));
        }
        self.queue.push(m.deliver_ms, Item::Deliver(m));
    }

    fn route(&mut self, node: NodeId, out: Outbox, log: &mut StepLog) {
        if let Some((kind, line)) = out.headline {
            log.kind = kind;
            log.line = line;
        }
        for e in out.effects {
            match e {
                Effect::Send { to, payload } => self.send(node, to, payload, log),
                Effect::Timer { after_ms, timer } => self.schedule_timer(node, after_ms, timer),
                Effect::Log { kind, line } => log.lines.push((kind, line)),
                Effect::Mark(m) => log.marks.push(m),
            }
        }
    }

    fn with_broker(&mut self, id: BrokerId, log: &mut StepLog, f: impl FnOnce(&mut Broker, &Config, &mut Outbox)) {
        let cfg = self.cfg.clone();
        let mut out = Outbox::default();
        {
            let b = self.broker_mut(id);
            f(b, &cfg, &mut out);
            b.controller_run(&cfg, &mut out);
        }
        self.route(NodeId::Broker(id), out, log);
    }

    fn with_consumer(&mut self, id: u32, log: &mut StepLog, f: impl FnOnce(&mut Consumer, &mut Outbox)) {
        let mut out = Outbox::default();
        if let Some(c) = self.consumers.get_mut(&id) {
            f(Rc::make_mut(c), &mut out);
        }
        self.route(NodeId::Client(id), out, log);
    }

    /// Runs a ZooKeeper server handler, with what the server can observe of its clients now, and
    /// routes its effects.
    fn with_zk<R>(
        &mut self,
        log: &mut StepLog,
        f: impl FnOnce(&mut ZkServerNode, u64, &dyn ClientLinks, &mut Outbox) -> R,
    ) -> R {
        let mut out = Outbox::default();
        let links = ZkLinks { net: &self.net, brokers: &self.brokers };
        let r = f(Rc::make_mut(&mut self.zk), self.now, &links, &mut out);
        self.route(NodeId::Zk, out, log);
        r
    }

    // ---- faults -------------------------------------------------------------------------------

    fn zk_views(&self) -> BTreeMap<BrokerId, (bool, bool)> {
        self.brokers
            .keys()
            .map(|b| {
                let n = NodeId::Broker(*b);
                (*b, (self.net.is_up(n, NodeId::Zk), self.net.both_up(n, NodeId::Zk)))
            })
            .collect()
    }

    fn apply_inner(&mut self, cmd: &Command) -> StepLog {
        let mut log = StepLog::new(NodeId::Zk, EventKind::Fault, format!("FAULT: {}", cmd.describe()));
        if let Some(n) = cmd.nodes().first() {
            log.node = *n;
        }
        // Every command reaching here was validated once: by the scenario's config (script,
        // after_steps), by `schedule`, or by `apply`.
        log.marks.push(crate::mark::Mark::Fault { command: cmd.clone() });
        if self.kraft.is_some() {
            self.apply_kraft(cmd, &mut log);
            return log;
        }
        let before_zk = self.zk_views();
        let before_links: BTreeMap<(NodeId, NodeId), bool> = self.dir_states();
        let net = Rc::make_mut(&mut self.net);
        let mut link_changed = false;
        match cmd {
            Command::Cut { a, b, dir } => link_changed = net.cut(*a, *b, *dir).unwrap_or(false),
            Command::Heal { a, b, dir } => link_changed = net.heal(*a, *b, *dir).unwrap_or(false),
            Command::Isolate { node } => {
                for p in net.peers(*node) {
                    link_changed |= net.cut(*node, p, Direction::Both).unwrap_or(false);
                }
            }
            Command::Rejoin { node } => {
                for p in net.peers(*node) {
                    link_changed |= net.heal(*node, p, Direction::Both).unwrap_or(false);
                }
            }
            Command::SetLatency { a, b, ms } => {
                let _ = net.set_latency(*a, *b, *ms);
            }
            Command::Crash { node } => {
                if let NodeId::Broker(b) = node {
                    self.crash(*b, &mut log);
                }
            }
            Command::Restart { node } => {
                if let NodeId::Broker(b) = node {
                    if self.brokers[b].alive {
                        self.crash(*b, &mut log);
                    }
                    self.with_broker(*b, &mut log, |br, cfg, out| br.start(cfg, out));
                }
            }
            Command::RestartConsumer { node } => {
                if let NodeId::Client(c) = node {
                    self.with_consumer(*c, &mut log, |c, out| c.rediscover("Consumer restarted", out));
                }
            }
            Command::DeleteController => {
                if self.with_zk(&mut log, |zk, _, links, out| zk.admin_delete("/controller", links, out)) {
                    log.line = String::from(
                        "FAULT: delete /controller (an operator, from zookeeper-shell): every broker watching it re-elects",
                    );
                } else {
                    log.line = String::from("FAULT ignored: /controller does not exist (no controller right now)");
                }
            }
        }
        if link_changed {
            self.after_link_change(&before_zk, &before_links, &mut log);
        }
        log
    }

    /// `kraft` mode: a fault naming ZooKeeper applies to every voter link of the other end.
    fn apply_kraft(&mut self, cmd: &Command, log: &mut StepLog) {
        let voters: Vec<NodeId> = self.cfg.voters().map(NodeId::Voter).collect();
        let expand = |a: NodeId, b: NodeId| -> Vec<(NodeId, NodeId)> {
            match (a, b) {
                (NodeId::Zk, o) | (o, NodeId::Zk) => voters.iter().map(|v| (o, *v)).collect(),
                _ => alloc::vec![(a, b)],
            }
        };
        let net = Rc::make_mut(&mut self.net);
        match cmd {
            Command::Cut { a, b, dir } => {
                for (x, y) in expand(*a, *b) {
                    let _ = net.cut(x, y, *dir);
                }
            }
            Command::Heal { a, b, dir } => {
                for (x, y) in expand(*a, *b) {
                    let _ = net.heal(x, y, *dir);
                }
            }
            Command::Isolate { node } | Command::Rejoin { node } => {
                let cut = matches!(cmd, Command::Isolate { .. });
                for p in net.peers(*node) {
                    let _ = if cut { net.cut(*node, p, Direction::Both) } else { net.heal(*node, p, Direction::Both) };
                }
            }
            Command::SetLatency { a, b, ms } => {
                for (x, y) in expand(*a, *b) {
                    let _ = net.set_latency(x, y, *ms);
                }
            }
            Command::Crash { node: NodeId::Broker(b) } | Command::Restart { node: NodeId::Broker(b) } => {
                let restart = matches!(cmd, Command::Restart { .. });
                let br = self.broker_mut(*b);
                br.incarnation += 1;
                br.alive = restart;
                if restart {
                    log.lines.push((
                        EventKind::Process,
                        format!("[KafkaServer id={b}] starting (KRaft broker: registers with the active controller)"),
                    ));
                    self.kraft_images.insert(*b, Image::default());
                    kraft::image::publish(&Image::default(), self.broker_mut(*b));
                    Rc::make_mut(self.kraft.as_mut().expect("kraft")).broker_restarted(*b);
                } else {
                    log.lines.push((EventKind::Process, format!("[KafkaServer id={b}] process killed")));
                }
            }
            Command::Crash { node: NodeId::Voter(v) } | Command::Restart { node: NodeId::Voter(v) } => {
                let alive = matches!(cmd, Command::Restart { .. });
                Rc::make_mut(self.kraft.as_mut().expect("kraft")).set_voter_alive(*v, alive);
                log.lines.push((
                    EventKind::Process,
                    format!("[KafkaRaftServer q{v}] {}", if alive { "starting" } else { "process killed" }),
                ));
            }
            Command::RestartConsumer { node: NodeId::Client(c) } => {
                self.with_consumer(*c, log, |c, out| c.rediscover("Consumer restarted", out));
            }
            Command::DeleteController => {
                log.line = String::from("FAULT ignored: KRaft has no /controller znode (the quorum elects its leader)")
            }
            _ => {}
        }
        self.kraft_change(log);
    }

    fn broker_liveness(&self) -> BTreeMap<BrokerId, bool> {
        self.brokers.iter().map(|(id, b)| (*id, b.alive)).collect()
    }

    /// Who can talk to whom among the voters and brokers, as the quorum learns it.
    fn kraft_reach(&self) -> kraft::Reach {
        kraft::Reach::new(self.cfg.voters(), &self.broker_liveness(), |a, b| self.net.is_up(a, b))
    }

    /// Re-derives the quorum's liveness timers after any change.
    fn kraft_change(&mut self, log: &mut StepLog) {
        if self.kraft.is_none() {
            return;
        }
        let reach = self.kraft_reach();
        let Some(k) = self.kraft.as_mut() else { return };
        let rng = &mut self.rng;
        let outs = Rc::make_mut(k).on_change(&reach, &mut |max| rng.up_to(max));
        for (v, out) in outs {
            self.route(NodeId::Voter(v), out, log);
        }
    }

    fn dir_states(&self) -> BTreeMap<(NodeId, NodeId), bool> {
        let mut m = BTreeMap::new();
        for l in self.net.links() {
            m.insert((l.a, l.b), l.a_to_b.up);
            m.insert((l.b, l.a), l.b_to_a.up);
        }
        m
    }

    fn crash(&mut self, b: BrokerId, log: &mut StepLog) {
        let session = self.brokers[&b].zk.session;
        {
            let br = self.broker_mut(b);
            br.alive = false;
        }
        log.lines.push((
            EventKind::Process,
            format!("[KafkaServer id={b}] process killed; its ZooKeeper session lives until it times out"),
        ));
        if let Some(s) = session {
            let n = NodeId::Broker(b);
            self.with_zk(log, |zk, now, _, out| zk.on_client_link(n, s, ClientLink::Silent, now, out));
        }
        self.isr_check_pending.remove(&b);
    }

    fn after_link_change(
        &mut self,
        before_zk: &BTreeMap<BrokerId, (bool, bool)>,
        before: &BTreeMap<(NodeId, NodeId), bool>,
        log: &mut StepLog,
    ) {
        let after_zk = self.zk_views();
        let ids: Vec<BrokerId> = self.brokers.keys().copied().collect();
        for b in ids {
            let (up0, both0) = before_zk[&b];
            let (up1, both1) = after_zk[&b];
            let br = &self.brokers[&b];
            if !br.alive {
                continue;
            }
            let session = br.zk.session;
            let gen = br.zk.conn_gen;
            if let (Some(s), true) = (session, up0 != up1) {
                let change = if up1 { ClientLink::Heard } else { ClientLink::Silent };
                let n = NodeId::Broker(b);
                self.with_zk(log, |zk, now, _, out| zk.on_client_link(n, s, change, now, out));
            }
            if both0 && !both1 {
                let t = self.cfg.read_timeout_ms();
                self.schedule_timer(NodeId::Broker(b), t, Timer::ZkReadTimeout { gen });
            }
            if !both0 && both1 {
                self.with_broker(b, log, |br, cfg, out| br.on_zk_link_restored(cfg, out));
                // Back within the read timeout: the connection never dropped, so the server
                // delivers what it held for the session on it (no reconnect will ask for it).
                let br = &self.brokers[&b];
                if let (ConnState::Connected, Some(s)) = (br.zk.state, br.zk.session) {
                    let n = NodeId::Broker(b);
                    self.with_zk(log, |zk, now, _, out| zk.on_client_link(n, s, ClientLink::Healed, now, out));
                }
            }
        }
        // Controller requests held on a cut broker–broker link go out again.
        let after = self.dir_states();
        for ((from, to), up) in after {
            if up && !before.get(&(from, to)).copied().unwrap_or(true) {
                if let (NodeId::Broker(x), NodeId::Broker(y)) = (from, to) {
                    if self.brokers[&x].alive && self.brokers[&x].controller.held.contains_key(&y) {
                        self.with_broker(x, log, |br, _, out| br.on_control_link_restored(y, out));
                    }
                }
            }
        }
    }

    // ---- delivery -----------------------------------------------------------------------------

    fn drop_reason(&self, m: &Message) -> Option<String> {
        if m.from != m.to {
            match self.net.dir(m.from, m.to) {
                Some(d) if d.up && d.gen == m.link_gen => {}
                _ => return Some(format!("link {} → {} is cut", m.from, m.to)),
            }
        }
        if let NodeId::Broker(b) = m.to {
            let br = &self.brokers[&b];
            if !br.alive || br.incarnation != m.incarnation {
                return Some(format!("broker {b} is down"));
            }
        }
        if let (NodeId::Voter(v), Some(k)) = (m.to, &self.kraft) {
            if !k.voters.get(&v).is_some_and(|x| x.alive) {
                return Some(format!("controller q{v} is down"));
            }
        }
        None
    }

    fn deliver(&mut self, m: Message) -> StepLog {
        let label = m.payload.label();
        if let Some(reason) = self.drop_reason(&m) {
            let mut log = StepLog::new(
                m.to,
                EventKind::MessageDropped,
                format!("DROPPED {} → {}: {label} ({reason})", m.from, m.to),
            );
            log.from = Some(m.from);
            log.message = Some(m.payload.category());
            self.on_dropped(&m, &mut log);
            self.last_dropped.push(m);
            return log;
        }
        self.last_delivered = Some(m.clone());
        let mut log = StepLog::new(m.to, EventKind::Info, format!("{} ← {}: {label}", m.to, m.from));
        log.from = Some(m.from);
        log.message = Some(m.payload.category());
        match m.to {
            NodeId::Voter(v) => {
                log.kind = EventKind::ZkRequest;
                let reach = self.kraft_reach();
                let mut out = Outbox::default();
                if let Some(k) = self.kraft.as_mut() {
                    Rc::make_mut(k).on_message(v, m.from, m.payload, &reach, &mut out);
                }
                self.route(NodeId::Voter(v), out, &mut log);
                self.kraft_change(&mut log);
            }
            NodeId::Broker(b) if matches!(m.payload, Payload::MetadataRecords { .. }) => {
                log.kind = EventKind::ControlRequest;
                if let Payload::MetadataRecords { from_offset, records } = m.payload {
                    let mut img = self.kraft_images.remove(&b).unwrap_or_default();
                    let applied = kraft::image::apply_records(&mut img, self.broker_mut(b), from_offset, &records);
                    self.kraft_images.insert(b, img);
                    log.line = applied.line;
                    if let Some(line) = applied.coordinator {
                        log.lines.push((EventKind::Info, line));
                    }
                }
            }
            NodeId::Zk => self.deliver_to_zk(m, &mut log),
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
                if let Some(k) = self.kraft.as_mut() {
                    Rc::make_mut(k).append_lost(l, f);
                }
            }
            (Payload::MetadataRecords { from_offset, .. }, NodeId::Voter(v), NodeId::Broker(b)) => {
                if let Some(k) = self.kraft.as_mut() {
                    Rc::make_mut(k).metadata_lost(v, b, *from_offset as usize);
                }
            }
            (Payload::ZkRequest { session, xid, .. }, NodeId::Broker(b), _)
            | (Payload::ZkResponse { session, xid, .. }, _, NodeId::Broker(b)) => {
                let (b, s, x) = (b, *session, *xid);
                if self.brokers[&b].alive && self.brokers[&b].zk.session == Some(s) {
                    self.broker_mut(b).zk.lost(x);
                }
            }
            (Payload::ZkWatch { event }, _, _) => {
                self.with_zk(log, |zk, _, _, out| zk.on_watch_undelivered(event, out));
            }
            (Payload::LeaderAndIsr { .. } | Payload::UpdateMetadata { .. }, NodeId::Broker(x), NodeId::Broker(y)) => {
                let alive_target = self.brokers[&y].alive && self.brokers[&y].incarnation == m.incarnation;
                let sender = &self.brokers[&x];
                if alive_target && sender.alive && sender.is_active() && sender.controller.ctx.live_brokers.contains(&y)
                {
                    self.broker_mut(x).controller.hold(y, m.payload.clone());
                    log.lines.push((
                        EventKind::Info,
                        format!("controller {x} will resend it when the link heals (RequestSendThread retries)"),
                    ));
                }
            }
            _ => {}
        }
    }

    fn deliver_to_zk(&mut self, m: Message, log: &mut StepLog) {
        log.node = NodeId::Zk;
        log.kind = EventKind::ZkRequest;
        self.with_zk(log, |zk, now, links, out| zk.on_message(m.from, m.payload, now, links, out));
    }

    fn deliver_to_broker(&mut self, b: BrokerId, m: Message, log: &mut StepLog) {
        let from = m.from;
        match m.payload {
            Payload::ZkConnectResponse { result } => {
                log.kind = EventKind::ZkSession;
                self.with_broker(b, log, |br, cfg, out| br.on_zk_connect_response(result, cfg, out));
            }
            Payload::ZkResponse { session, xid, result } => {
                log.kind = EventKind::ZkResponse;
                log.line = format!("{} ← zk: {}", NodeId::Broker(b), result_summary(&result));
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
            Payload::FindCoordinator { group, corr } => {
                log.kind = EventKind::Consumer;
                let result = self.brokers[&b].find_coordinator(&group, &self.cfg);
                self.send(NodeId::Broker(b), from, Payload::FindCoordinatorResponse { corr, result }, log);
            }
            Payload::JoinGroup { group, corr } | Payload::Heartbeat { group, corr } => {
                log.kind = EventKind::Consumer;
                let error = self.brokers[&b].group_error(&group, &self.cfg);
                self.send(NodeId::Broker(b), from, Payload::GroupResponse { corr, error }, log);
            }
            _ => {}
        }
    }

    // ---- timers -------------------------------------------------------------------------------

    fn fire(&mut self, node: NodeId, incarnation: u64, timer: Timer) -> StepLog {
        let mut log = StepLog::new(node, EventKind::Info, format!("{node}: timer {timer:?}"));
        match node {
            NodeId::Zk => self.with_zk(&mut log, |zk, now, links, out| zk.on_timer(&timer, now, links, out)),
            NodeId::Broker(b) => {
                let br = &self.brokers[&b];
                if !br.alive || br.incarnation != incarnation {
                    log.line = format!("{node}: timer {timer:?} (process gone, ignored)");
                    return log;
                }
                match timer {
                    Timer::ZkReadTimeout { .. } if self.net.both_up(node, NodeId::Zk) => {
                        log.line = format!("{node}: ZooKeeper read-timeout check: the link is back, still connected");
                    }
                    Timer::IsrCheck => {
                        self.isr_check_pending.remove(&b);
                        log.line = format!("{node}: ISR check (replica.lag.time.max.ms)");
                        let in_sync = self.in_sync_fn(b);
                        self.with_broker(b, &mut log, |br, _, out| br.isr_check(&in_sync, out));
                    }
                    t => {
                        log.line = format!("{node}: ZooKeeper read timeout ({} ms)", self.cfg.read_timeout_ms());
                        self.with_broker(b, &mut log, |br, _, out| br.on_timer(&t, out));
                    }
                }
            }
            NodeId::Voter(v) => {
                log.line = format!("{node}: timer {timer:?}");
                let reach = self.kraft_reach();
                let mut out = Outbox::default();
                if let Some(k) = self.kraft.as_mut() {
                    let rng = &mut self.rng;
                    Rc::make_mut(k).on_timer(v, &timer, &reach, &mut |max| rng.up_to(max), &mut out);
                }
                self.route(node, out, &mut log);
                self.kraft_change(&mut log);
            }
            NodeId::Client(c) => {
                log.kind = EventKind::Consumer;
                log.line = match &timer {
                    Timer::ConsumerRetry => format!("{node}: retry backoff elapsed"),
                    Timer::ConsumerHeartbeat => format!("{node}: heartbeat due"),
                    Timer::ConsumerTimeout { .. } => format!("{node}: request timeout"),
                    other => format!("{node}: timer {other:?}"),
                };
                self.with_consumer(c, &mut log, |c, out| c.on_timer(&timer, out));
            }
        }
        log
    }

    /// Is follower `r` fetching from `leader` for `tp` (alive, linked both ways, following it)?
    fn in_sync(&self, leader: BrokerId, tp: &TopicPartition, r: BrokerId) -> bool {
        self.brokers.get(&r).is_some_and(|b| {
            b.alive
                && b.partitions.get(tp).is_some_and(|p| !p.is_leader && p.leader == leader)
                && self.net.both_up(NodeId::Broker(leader), NodeId::Broker(r))
        })
    }

    /// `in_sync` for every replica of the partitions `leader` leads, as an owned predicate.
    fn in_sync_fn(&self, leader: BrokerId) -> impl Fn(&TopicPartition, BrokerId) -> bool {
        let mut yes: BTreeSet<(TopicPartition, BrokerId)> = BTreeSet::new();
        for (tp, p) in self.brokers[&leader].partitions.iter().filter(|(_, p)| p.is_leader) {
            for r in &p.replicas {
                if self.in_sync(leader, tp, *r) {
                    yes.insert((tp.clone(), *r));
                }
            }
        }
        move |tp: &TopicPartition, r: BrokerId| yes.contains(&(tp.clone(), r))
    }

    fn post_step(&mut self) {
        // Consumers: a stable member notices trouble at its next heartbeat.
        let ids: Vec<u32> = self.consumers.keys().copied().collect();
        for id in ids {
            let c = &self.consumers[&id];
            if c.status != ConsumerStatus::Stable || c.heartbeat_scheduled || c.pending.is_some() {
                continue;
            }
            let Some(coord) = c.coordinator else { continue };
            let healthy = self
                .brokers
                .get(&coord)
                .map(|b| b.alive && b.owned_offsets_partitions.contains(&c.partition))
                .unwrap_or(false)
                && self.net.both_up(NodeId::Client(id), NodeId::Broker(coord));
            if !healthy {
                Rc::make_mut(self.consumers.get_mut(&id).expect("known")).heartbeat_scheduled = true;
                let wait = HEARTBEAT_MS - self.now % HEARTBEAT_MS;
                self.schedule_timer(NodeId::Client(id), wait, Timer::ConsumerHeartbeat);
            }
        }
        // Partition leaders: schedule an ISR check when a follower fell out or caught up.
        if self.kraft.is_some() {
            return;
        }
        let ids: Vec<BrokerId> = self.brokers.keys().copied().collect();
        for b in ids {
            if !self.brokers[&b].alive || self.isr_check_pending.contains(&b) {
                continue;
            }
            let changes = self.brokers[&b].desired_isr(&|tp, r| self.in_sync(b, tp, r));
            if changes.is_empty() {
                continue;
            }
            let shrink = changes.iter().any(|(tp, isr)| isr.len() < self.brokers[&b].partitions[tp].isr.len());
            let wait = if shrink { self.cfg.replica_lag_ms } else { 1000 };
            self.isr_check_pending.insert(b);
            self.schedule_timer(NodeId::Broker(b), wait, Timer::IsrCheck);
        }
    }
}

/// What the ZooKeeper server can observe of its clients, read from the network and the brokers.
struct ZkLinks<'a> {
    net: &'a Network,
    brokers: &'a BTreeMap<BrokerId, Rc<Broker>>,
}

impl ClientLinks for ZkLinks<'_> {
    fn reachable(&self, client: NodeId) -> bool {
        self.net.both_up(client, NodeId::Zk)
    }

    fn pinging(&self, client: NodeId, session: SessionId) -> bool {
        match client {
            NodeId::Broker(b) => {
                self.brokers.get(&b).is_some_and(|br| br.alive && br.zk.session == Some(session))
                    && self.net.is_up(client, NodeId::Zk)
            }
            _ => false,
        }
    }
}
