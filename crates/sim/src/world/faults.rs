//! Faults applied to the world: network cuts and heals (per direction), latency, crashes and
//! restarts, a consumer restart, an operator deleting `/controller`. A fault changes the network
//! or a process, then tells the nodes what they would observe of it — a ZooKeeper server that its
//! link to another server stalled or healed (a client going silent reaches the leader by the implicit
//! ping relay after the step), a broker that its ZooKeeper link is back, a controller
//! that a broker link healed — and routes what they do. In `kraft` mode a fault naming ZooKeeper
//! applies to every voter link of the other end.
use super::{StepLog, World};
use crate::command::{Command, Direction};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId};
use crate::sorted::CollectOrdered;
use crate::vec_map::VecMap;
use crate::zk_client::ConnState;
use crate::zookeeper::server::ClientLink;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

impl World {
    pub(super) fn zk_views(&self) -> VecMap<BrokerId, (bool, bool)> {
        self.brokers
            .keys()
            .map(|b| {
                let n = NodeId::Broker(*b);
                let z = self.zk_server_of(*b);
                (*b, (self.net.is_up(n, z), self.net.both_up(n, z)))
            })
            .collect_ordered()
    }

    pub(super) fn apply_inner(&mut self, cmd: &Command) -> StepLog {
        let mut log = StepLog::new(self.render, NodeId::ZK, EventKind::Fault, || format!("FAULT: {}", cmd.describe()));
        if let Some(n) = cmd.nodes().first() {
            log.node = *n;
        }
        // Every command reaching here was validated once: by the scenario's config (script,
        // after_steps), by `schedule`, or by `apply`.
        log.marks.push(crate::mark::Mark::Fault { command: cmd.clone() });
        if self.plane_applies(cmd, &mut log) {
            return log;
        }
        let before_zk = self.zk_views();
        let before_links = self.dir_states();
        self.touched.net = true;
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
            Command::Reset { a, b } => {
                let _ = net.reset(*a, *b);
                let (broker, server) = if a.is_zk() { (*b, *a) } else { (*a, *b) };
                if let NodeId::Broker(id) = broker {
                    let mut was = false;
                    self.with_broker(id, &mut log, |br, cfg, out| was = br.on_zk_reset(server, cfg, out));
                    self.with_zk(server, &mut log, |zk, _, _, out| zk.on_client_reset(broker, out));
                    if !was {
                        log.set_line(|| {
                            format!("FAULT: {} (not {broker}'s connection now: nothing to reset)", cmd.describe())
                        });
                    }
                }
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
                let leader = self.plane.zk_leader().unwrap_or(NodeId::ZK);
                log.node = leader;
                let deleted = self
                    .with_zk(leader, &mut log, |zk, now, links, out| zk.admin_delete("/controller", now, links, out));
                if deleted == Some(true) {
                    log.set_line(|| String::from("FAULT: delete /controller (an operator, from zookeeper-shell): every broker watching it re-elects"));
                } else {
                    log.set_line(|| {
                        String::from("FAULT ignored: /controller does not exist (no controller right now)")
                    });
                }
            }
        }
        if link_changed {
            self.after_link_change(&before_zk, &before_links, &mut log);
        }
        log
    }

    /// Whether each link's two directions are up, in link order.
    pub(super) fn dir_states(&self) -> DirStates {
        DirStates(self.net.links().map(|l| (l.a_to_b.up, l.b_to_a.up)).collect())
    }

    pub(super) fn crash(&mut self, b: BrokerId, log: &mut StepLog) {
        {
            let br = self.broker_mut(b);
            br.alive = false;
        }
        log.push(EventKind::Process, || {
            format!("[KafkaServer id={b}] process killed; its ZooKeeper session lives until it times out")
        });
        self.broker_mut(b).isr_check_pending = false;
    }

    pub(super) fn after_link_change(
        &mut self,
        before_zk: &VecMap<BrokerId, (bool, bool)>,
        before: &DirStates,
        log: &mut StepLog,
    ) {
        let after_zk = self.zk_views();
        let ids: Vec<BrokerId> = self.brokers.keys().copied().collect();
        for b in ids {
            let (_, both0) = before_zk[&b];
            let (_, both1) = after_zk[&b];
            let br = &self.brokers[&b];
            if !br.alive {
                continue;
            }
            if both0 && !both1 {
                self.with_broker(b, log, |br, cfg, out| br.on_zk_link_lost(cfg, out));
            }
            if !both0 && both1 {
                self.with_broker(b, log, |br, cfg, out| br.on_zk_link_restored(cfg, out));
                // Back within the read timeout: the connection never dropped, so the server
                // delivers what it held for the session on it (no reconnect will ask for it).
                let br = &self.brokers[&b];
                if let (ConnState::Connected, Some(s)) = (br.zk.state, br.zk.session) {
                    let n = NodeId::Broker(b);
                    let z = br.zk.server();
                    self.with_zk(z, log, |zk, _, _, out| zk.on_client_link(n, s, ClientLink::Healed, out));
                }
            }
        }
        // Servers learn that a quorum connection stalled or came back.
        let servers: Vec<NodeId> = self.zk_servers().map(|z| z.id()).collect();
        let after_links = self.dir_states();
        let net = &self.net;
        let both = |m: &DirStates, a: NodeId, b: NodeId| m.up(net, a, b) && m.up(net, b, a);
        let mut moved: Vec<(NodeId, NodeId, bool)> = Vec::new();
        for &a in &servers {
            for &p in &servers {
                let (up0, up1) = (both(before, a, p), both(&after_links, a, p));
                if a != p && up0 != up1 {
                    moved.push((a, p, up1));
                }
            }
        }
        for (a, p, up) in moved {
            self.with_zk(a, log, |zk, now, _, out| zk.on_peer_link(p, up, now, out));
        }
        // Packets held on a stalled server–server connection go on, in order.
        let stalled = core::mem::take(&mut self.stalled);
        for mut m in stalled {
            if self.net.is_up(m.from, m.to) {
                let lat = self.net.link(m.from, m.to).map(|l| l.latency_ms).unwrap_or(0);
                m.deliver_ms = self.now + lat;
                self.queue.push(m.deliver_ms, super::Item::Deliver(m));
            } else {
                self.stalled.push(m);
            }
        }
        // Controller requests held on a cut broker–broker link go out again.
        let after = self.dir_states();
        let mut restored: Vec<(NodeId, NodeId)> = Vec::new();
        for ((l, was), now) in self.net.links().zip(&before.0).zip(&after.0) {
            if now.0 && !was.0 {
                restored.push((l.a, l.b));
            }
            if now.1 && !was.1 {
                restored.push((l.b, l.a));
            }
        }
        crate::sorted::sort(&mut restored);
        for (from, to) in restored {
            if let (NodeId::Broker(x), NodeId::Broker(y)) = (from, to) {
                if self.brokers[&x].alive && self.brokers[&x].controller.held.contains_key(&y) {
                    self.with_broker(x, log, |br, _, out| br.on_control_link_restored(y, out));
                }
            }
        }
    }
}

/// Whether each link's directions (`a → b`, `b → a`) are up, in the network's link order: a
/// snapshot taken around a fault (faults change no link's existence, only its state).
pub(super) struct DirStates(Vec<(bool, bool)>);

impl DirStates {
    /// Whether `from → to` was up (a pair with no link counts as up).
    fn up(&self, net: &crate::network::Network, from: NodeId, to: NodeId) -> bool {
        match net.link_index(from, to) {
            Some(i) => {
                let l = net.links().nth(i).expect("a link's index");
                if l.a == from {
                    self.0[i].0
                } else {
                    self.0[i].1
                }
            }
            None => true,
        }
    }
}
