//! KRaft mode behind the control-plane seam: delivering to and firing a voter, what a dropped
//! append or metadata push tells its sender, how a fault naming ZooKeeper applies to the voters,
//! and the quorum's liveness timers re-derived after a fault or a voter's handler. The voters' own
//! logic is [`crate::kraft`]'s.
use super::super::step_log::StepLog;
use super::super::World;
use crate::command::{Command, Direction};
use crate::effects::Timer;
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId};
use crate::kraft;
use crate::message::{Message, Payload};
use crate::sorted::CollectOrdered;
use crate::vec_map::VecMap;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

impl World {
    /// A message to a voter.
    pub(in crate::world) fn kraft_deliver(&mut self, m: Message, log: &mut StepLog) {
        let NodeId::Voter(v) = m.to else { return };
        log.kind = EventKind::ZkRequest;
        let reach = self.kraft_reach();
        let mut out = self.outbox();
        if let Some(k) = self.plane.kraft_mut() {
            k.on_message(v, m.from, m.payload, &reach, &mut out);
        }
        self.route(NodeId::Voter(v), out, log);
        self.kraft_react(&reach, log);
    }

    /// A voter's timer.
    pub(in crate::world) fn kraft_fire(&mut self, node: NodeId, timer: Timer, log: &mut StepLog) {
        let NodeId::Voter(v) = node else { return };
        log.set_line(|| format!("{node}: timer {timer:?}"));
        let reach = self.kraft_reach();
        let mut out = self.outbox();
        if let Some(k) = self.plane.kraft_mut() {
            let rng = &mut self.rng;
            k.on_timer(v, &timer, &reach, &mut |max| rng.up_to(max), &mut out);
        }
        self.route(node, out, log);
        self.kraft_react(&reach, log);
    }

    /// A message a voter sent was dropped: the leader learns the append or metadata push to
    /// retry. Whether it was one.
    pub(in crate::world) fn kraft_dropped(&mut self, m: &Message) -> bool {
        match (&m.payload, m.from, m.to) {
            (Payload::RaftAppend { .. }, NodeId::Voter(l), NodeId::Voter(f)) => {
                if let Some(k) = self.plane.kraft_mut() {
                    k.append_lost(l, f);
                }
                true
            }
            (Payload::MetadataRecords { from_offset, .. }, NodeId::Voter(v), NodeId::Broker(b)) => {
                if let Some(k) = self.plane.kraft_mut() {
                    k.metadata_lost(v, b, *from_offset as usize);
                }
                true
            }
            _ => false,
        }
    }

    fn broker_liveness(&self) -> VecMap<BrokerId, bool> {
        self.brokers.iter().map(|(id, b)| (*id, b.alive)).collect_ordered()
    }

    /// Who can talk to whom among the voters and brokers, as the quorum learns it.
    pub(in crate::world) fn kraft_reach(&self) -> kraft::Reach {
        kraft::Reach::new(self.cfg.voters(), &self.broker_liveness(), |a, b| self.net.is_up(a, b))
    }

    /// Re-derives the quorum's liveness timers after a fault changed the network or a process
    /// (only `apply_kraft` calls it, so the plane is KRaft).
    pub(in crate::world) fn kraft_change(&mut self, log: &mut StepLog) {
        let reach = self.kraft_reach();
        self.kraft_react(&reach, log);
    }

    /// Re-derives the quorum's liveness timers after a voter's handler ran, with the reach it ran
    /// with (a handler changes neither the network nor a process).
    pub(in crate::world) fn kraft_react(&mut self, reach: &kraft::Reach, log: &mut StepLog) {
        let Some(k) = self.plane.kraft_mut() else { return };
        let rng = &mut self.rng;
        let outs = k.on_change(reach, &mut |max| rng.up_to(max));
        for (v, out) in outs {
            self.route(NodeId::Voter(v), out, log);
        }
    }

    /// `kraft` mode: a fault naming ZooKeeper applies to every voter link of the other end.
    pub(in crate::world) fn apply_kraft(&mut self, cmd: &Command, log: &mut StepLog) {
        let voters: Vec<NodeId> = self.cfg.voters().map(NodeId::Voter).collect();
        let expand = |a: NodeId, b: NodeId| -> Vec<(NodeId, NodeId)> {
            match (a, b) {
                (NodeId::Zk(_), o) | (o, NodeId::Zk(_)) => voters.iter().map(|v| (o, *v)).collect(),
                _ => alloc::vec![(a, b)],
            }
        };
        self.touched.net = true;
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
                    log.push(EventKind::Process, || {
                        format!("[KafkaServer id={b}] starting (KRaft broker: registers with the active controller)")
                    });
                    self.broker_mut(*b).restart_metadata_image();
                    if let Some(k) = self.plane.kraft_mut() {
                        k.broker_restarted(*b);
                    }
                } else {
                    log.push(EventKind::Process, || format!("[KafkaServer id={b}] process killed"));
                }
            }
            Command::Crash { node: NodeId::Voter(v) } | Command::Restart { node: NodeId::Voter(v) } => {
                let alive = matches!(cmd, Command::Restart { .. });
                if let Some(k) = self.plane.kraft_mut() {
                    k.set_voter_alive(*v, alive);
                }
                log.push(EventKind::Process, || {
                    format!("[KafkaRaftServer q{v}] {}", if alive { "starting" } else { "process killed" })
                });
            }
            Command::RestartConsumer { node: NodeId::Client(c) } => {
                self.with_consumer(*c, log, |c, out| c.rediscover("Consumer restarted", out));
            }
            Command::DeleteController => {
                log.set_line(|| {
                    String::from("FAULT ignored: KRaft has no /controller znode (the quorum elects its leader)")
                });
            }
            Command::Reset { .. } => {
                log.set_line(|| String::from("FAULT ignored: a KRaft broker holds no ZooKeeper connection to reset"));
            }
            _ => {}
        }
        self.kraft_change(log);
    }
}
