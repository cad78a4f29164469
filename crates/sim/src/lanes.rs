//! The swim lanes of a run: one lane per node, each message an arrow from the step that sent it
//! to the step that delivered or dropped it (or to the current step while it is in flight), and
//! the faults and session expiries as markers on their lanes — the per-process picture of
//! porcupine's and etcd's robustness-test visualisations and of TLA+ trace viewers. Built from
//! what the run recorded (each [`Event`]'s [`Delivery`] and marks) and the world at the current
//! step (its queue); nothing here decides Kafka behaviour, and the page only draws it.
//!
//! Long runs (the seed incident is about 1 850 steps) are shown through a window: the last
//! `span` steps up to the current one. A message sent before the window starts is still drawn
//! when it ends inside it (its `sent_step` is before `first_step`: the page clips it at the
//! edge), and every message still in flight is drawn to the current step.
use crate::command::Command;
use crate::event::{Event, Outcome};
use crate::ids::NodeId;
use crate::mark::Mark;
use crate::world::{Item, World};
use alloc::vec::Vec;

/// What a lane's node is, from its [`NodeId`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LaneKind {
    /// A ZooKeeper server (`zk`, or `zk1`…`zk5` of an ensemble).
    Zk,
    /// A KRaft controller voter.
    Voter,
    /// A broker.
    Broker,
    /// A consumer client.
    Consumer,
}

impl LaneKind {
    /// The kind of `node`.
    pub fn of(node: NodeId) -> LaneKind {
        match node {
            NodeId::Zk(_) => LaneKind::Zk,
            NodeId::Voter(_) => LaneKind::Voter,
            NodeId::Broker(_) => LaneKind::Broker,
            NodeId::Client(_) => LaneKind::Consumer,
        }
    }
}

/// One lane.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Lane {
    /// Its node.
    pub node: NodeId,
    /// What the node is.
    pub kind: LaneKind,
}

/// Where a message's arrow ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fate {
    /// At its delivery.
    Delivered,
    /// At the step that dropped it (a cut link, a receiver down or restarted).
    Dropped,
    /// At the current step: it is still queued, or held on a cut link between two ZooKeeper
    /// servers.
    InFlight,
}

/// One message.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Arrow {
    /// The message's id (unique in a run).
    pub id: u64,
    /// Sender.
    pub from: NodeId,
    /// Receiver.
    pub to: NodeId,
    /// Its category.
    pub category: crate::message::Category,
    /// The step that sent it (may be before the window).
    pub sent_step: u64,
    /// Its send time, ms.
    pub sent_ms: u64,
    /// The step it ends at: its delivery, its drop, or the current step.
    pub end_step: u64,
    /// The time it ends at, ms (for one in flight: the current time).
    pub end_ms: u64,
    /// Where it ends.
    pub fate: Fate,
}

/// What a marker marks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MarkerKind {
    /// A link cut (on both ends' lanes).
    Cut,
    /// A link healed (on both ends' lanes).
    Heal,
    /// Every link of the node cut.
    Isolate,
    /// Every link of the node healed.
    Rejoin,
    /// A broker process killed.
    Crash,
    /// A broker process (re)started.
    Restart,
    /// A consumer restarted.
    RestartConsumer,
    /// An operator deleted `/controller` (on the lane of the server that applied it).
    DeleteController,
    /// A link's latency changed (on both ends' lanes).
    SetLatency,
    /// A broker's connection to a ZooKeeper server was reset (on both ends' lanes).
    Reset,
    /// ZooKeeper expired the node's session.
    SessionExpired,
}

impl MarkerKind {
    /// The marker of a fault.
    pub fn of(cmd: &Command) -> MarkerKind {
        match cmd {
            Command::Cut { .. } => MarkerKind::Cut,
            Command::Heal { .. } => MarkerKind::Heal,
            Command::Isolate { .. } => MarkerKind::Isolate,
            Command::Rejoin { .. } => MarkerKind::Rejoin,
            Command::Crash { .. } => MarkerKind::Crash,
            Command::Restart { .. } => MarkerKind::Restart,
            Command::RestartConsumer { .. } => MarkerKind::RestartConsumer,
            Command::DeleteController => MarkerKind::DeleteController,
            Command::SetLatency { .. } => MarkerKind::SetLatency,
            Command::Reset { .. } => MarkerKind::Reset,
        }
    }

    /// Its key, in snake case (`cut`, `crash`, `session_expired`, …).
    pub fn key(self) -> &'static str {
        match self {
            MarkerKind::Cut => "cut",
            MarkerKind::Heal => "heal",
            MarkerKind::Isolate => "isolate",
            MarkerKind::Rejoin => "rejoin",
            MarkerKind::Crash => "crash",
            MarkerKind::Restart => "restart",
            MarkerKind::RestartConsumer => "restart_consumer",
            MarkerKind::DeleteController => "delete_controller",
            MarkerKind::SetLatency => "set_latency",
            MarkerKind::Reset => "reset",
            MarkerKind::SessionExpired => "session_expired",
        }
    }

    /// Short words for it.
    pub fn words(self) -> &'static str {
        match self {
            MarkerKind::Cut => "link cut",
            MarkerKind::Heal => "link healed",
            MarkerKind::Isolate => "isolated",
            MarkerKind::Rejoin => "rejoined",
            MarkerKind::Crash => "crashed",
            MarkerKind::Restart => "restarted",
            MarkerKind::RestartConsumer => "consumer restarted",
            MarkerKind::DeleteController => "/controller deleted",
            MarkerKind::SetLatency => "latency set",
            MarkerKind::Reset => "connection reset",
            MarkerKind::SessionExpired => "session expired",
        }
    }
}

/// A fault, restart or session expiry on a lane.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Marker {
    /// The lane's node.
    pub node: NodeId,
    /// The step it happened at.
    pub step: u64,
    /// Its time, ms.
    pub ms: u64,
    /// What happened.
    pub kind: MarkerKind,
    /// For a fault on a link (cut, heal, latency): the other end.
    pub peer: Option<NodeId>,
}

/// The swim lanes of a window of steps.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Lanes {
    /// ZooKeeper servers (or voters), then brokers, then consumers, each by id.
    pub lanes: Vec<Lane>,
    /// The messages that end in the window, by end step (a step ends at most one), then those in
    /// flight, in delivery order.
    pub arrows: Vec<Arrow>,
    /// The markers in the window, by step.
    pub markers: Vec<Marker>,
    /// The window's first step (1 at the start of a run; the window is empty at step 0).
    pub first_step: u64,
    /// The current step: the window's last.
    pub current_step: u64,
    /// The current time, ms.
    pub now_ms: u64,
}

impl Lanes {
    /// The lanes of the last `span` steps up to `world`'s step; `events` are the run's events
    /// (step `i` is `events[i - 1]`, at least up to the world's step; later ones are ignored).
    pub fn build(events: &[Event], world: &World, span: u64) -> Lanes {
        let current = world.step_count();
        let first = current.saturating_sub(span.max(1)).saturating_add(1).min(current.max(1));
        let mut lanes: Vec<Lane> = Vec::new();
        let mut push = |node: NodeId| lanes.push(Lane { node, kind: LaneKind::of(node) });
        world.plane_nodes().into_iter().for_each(&mut push);
        world.brokers.keys().map(|b| NodeId::Broker(*b)).for_each(&mut push);
        world.consumers.keys().map(|c| NodeId::Client(*c)).for_each(&mut push);
        let has = |n: NodeId| lanes.iter().any(|l| l.node == n);

        let lo = usize::try_from(first.saturating_sub(1)).unwrap_or(usize::MAX).min(events.len());
        let hi = usize::try_from(current).unwrap_or(usize::MAX).min(events.len());
        let window = &events[lo..hi.max(lo)];
        let mut arrows = Vec::new();
        let mut markers = Vec::new();
        for e in window {
            if let (Some(d), Some(from)) = (e.delivery, e.from) {
                let fate = match d.outcome {
                    Outcome::Delivered => Some(Fate::Delivered),
                    Outcome::Dropped => Some(Fate::Dropped),
                    // Drawn once it is delivered or dropped, or as in flight at the current step.
                    Outcome::Held => None,
                };
                if let Some(fate) = fate {
                    arrows.push(Arrow {
                        id: d.id,
                        from,
                        to: e.node,
                        category: d.category,
                        sent_step: d.sent_step,
                        sent_ms: d.sent_ms,
                        end_step: e.step,
                        end_ms: e.time_ms,
                        fate,
                    });
                }
            }
            for m in &e.marks {
                match m {
                    Mark::Fault { command } => {
                        let kind = MarkerKind::of(command);
                        let nodes = command.nodes();
                        let mut placed = false;
                        for (i, n) in nodes.iter().enumerate() {
                            if has(*n) {
                                let peer = nodes.get(1 - i.min(1)).copied().filter(|p| *p != *n);
                                markers.push(Marker { node: *n, step: e.step, ms: e.time_ms, kind, peer });
                                placed = true;
                            }
                        }
                        if !placed {
                            // `/controller` deleted (it names no node), or a fault naming ZooKeeper
                            // in kraft mode: on the step's node, else the first lane (the
                            // metadata store's).
                            let node = if has(e.node) { Some(e.node) } else { lanes.first().map(|l| l.node) };
                            if let Some(node) = node {
                                markers.push(Marker { node, step: e.step, ms: e.time_ms, kind, peer: None });
                            }
                        }
                    }
                    Mark::SessionExpired { owner, .. } if has(*owner) => {
                        markers.push(Marker {
                            node: *owner,
                            step: e.step,
                            ms: e.time_ms,
                            kind: MarkerKind::SessionExpired,
                            peer: None,
                        });
                    }
                    _ => {}
                }
            }
        }
        let in_flight = world
            .queued()
            .filter_map(|(_, item)| match item {
                Item::Deliver(m) => Some(m),
                _ => None,
            })
            .chain(world.stalled.iter());
        for m in in_flight {
            arrows.push(Arrow {
                id: m.id,
                from: m.from,
                to: m.to,
                category: m.payload.category(),
                sent_step: m.sent_step.min(current),
                sent_ms: m.sent_ms,
                end_step: current,
                end_ms: world.now(),
                fate: Fate::InFlight,
            });
        }
        Lanes { lanes, arrows, markers, first_step: first, current_step: current, now_ms: world.now() }
    }

    /// The lane index of `node`.
    pub fn lane_of(&self, node: NodeId) -> Option<usize> {
        self.lanes.iter().position(|l| l.node == node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::Timeline;
    use alloc::collections::BTreeSet;

    fn seed_incident_at_end() -> Timeline {
        let s = crate::scenario::builtin("seed-incident").expect("built-in");
        let mut t = Timeline::new(s, None).expect("builds");
        t.compute_all();
        let n = t.len();
        t.seek(n);
        t
    }

    #[test]
    fn seed_incident_lanes_arrows_and_markers() {
        let t = seed_incident_at_end();
        let all = Lanes::build(t.events(), t.world(), u64::MAX);
        let names: Vec<NodeId> = all.lanes.iter().map(|l| l.node).collect();
        assert_eq!(
            names,
            [
                NodeId::Zk(1),
                NodeId::Zk(2),
                NodeId::Zk(3),
                NodeId::Broker(1),
                NodeId::Broker(2),
                NodeId::Broker(3),
                NodeId::Client(1)
            ]
        );
        assert_eq!(all.first_step, 1);
        assert_eq!(all.current_step, t.len() as u64);
        let mut ids = BTreeSet::new();
        let (mut delivered, mut dropped) = (0, 0);
        for a in &all.arrows {
            assert!(ids.insert(a.id), "message {} drawn twice", a.id);
            assert!(all.lane_of(a.from).is_some() && all.lane_of(a.to).is_some(), "{a:?} has no lane");
            assert!(a.end_ms >= a.sent_ms, "{a:?}");
            match a.fate {
                Fate::Delivered => {
                    delivered += 1;
                    assert!(a.end_step > a.sent_step, "{a:?} delivered before it was sent");
                }
                Fate::Dropped => {
                    dropped += 1;
                    assert!(a.end_step > a.sent_step, "{a:?}");
                    // It ends at the step that dropped it: that step is about this very message.
                    let e = &t.events()[a.end_step as usize - 1];
                    let d = e.delivery.expect("the drop step records the message");
                    assert_eq!((d.id, d.outcome, e.from, e.node), (a.id, Outcome::Dropped, Some(a.from), a.to));
                    // The scenario cuts b3 from ZooKeeper between 9 000 and 16 300 ms, resets b2's
                    // connection to zk1 at 16 129 ms and crashes b1 at 172 800 000 ms: every drop
                    // falls within one of them.
                    let cut_b3 = (9_000..=16_300).contains(&a.end_ms)
                        && (a.from == NodeId::Broker(3) || a.to == NodeId::Broker(3));
                    let dead_b1 = a.end_ms >= 172_800_000 && a.to == NodeId::Broker(1);
                    // …or was in flight on broker 2's connection to zk1 when it was reset.
                    let b2_zk1 = [NodeId::Broker(2), NodeId::Zk(1)];
                    let reset_b2 = a.sent_ms <= 16_129
                        && a.end_ms > 16_129
                        && ([a.from, a.to] == b2_zk1 || [a.to, a.from] == b2_zk1);
                    assert!(cut_b3 || dead_b1 || reset_b2, "{a:?} dropped outside the scenario's faults");
                }
                Fate::InFlight => assert_eq!(a.end_step, all.current_step),
            }
        }
        assert!(delivered > 1000, "{delivered} delivered");
        assert!(dropped > 0, "the cut of b3 drops messages");
        // The one delivered message count the events give, independently of the builder.
        let delivered_events =
            t.events().iter().filter(|e| e.delivery.is_some_and(|d| d.outcome == Outcome::Delivered)).count();
        assert_eq!(delivered, delivered_events);

        // The scripted crash of b1 at 172 800 000 ms: one marker, on b1's lane, at that step.
        let crashes: Vec<&Marker> = all.markers.iter().filter(|m| m.kind == MarkerKind::Crash).collect();
        assert_eq!(crashes.len(), 1, "{crashes:?}");
        assert_eq!((crashes[0].node, crashes[0].ms), (NodeId::Broker(1), 172_800_000));
        let step = t.events().iter().position(|e| e.time_ms == 172_800_000).expect("a step at the crash") + 1;
        assert_eq!(crashes[0].step, step as u64);
        // The three cuts of b3 at 9 000 ms: on b3's lane and on each server's.
        let cuts: Vec<&Marker> = all.markers.iter().filter(|m| m.kind == MarkerKind::Cut && m.ms == 9_000).collect();
        assert_eq!(cuts.iter().filter(|m| m.node == NodeId::Broker(3)).count(), 3);
        for z in 1..=3 {
            assert!(cuts.iter().any(|m| m.node == NodeId::Zk(z) && m.peer == Some(NodeId::Broker(3))));
        }
        // No operator: nothing deletes `/controller` by hand. The reset of b2's connection to zk1
        // at 16 129 ms sits on both ends' lanes.
        assert!(!all.markers.iter().any(|m| m.kind == MarkerKind::DeleteController));
        let resets: Vec<&Marker> = all.markers.iter().filter(|m| m.kind == MarkerKind::Reset).collect();
        assert_eq!(resets.len(), 2, "{resets:?}");
        assert!(resets.iter().all(|m| m.ms == 16_129));
        assert!(resets.iter().any(|m| m.node == NodeId::Broker(2) && m.peer == Some(NodeId::Zk(1))));
        assert!(resets.iter().any(|m| m.node == NodeId::Zk(1) && m.peer == Some(NodeId::Broker(2))));
        // b3's session expires while it is cut off.
        assert!(all.markers.iter().any(|m| m.kind == MarkerKind::SessionExpired && m.node == NodeId::Broker(3)));
    }

    #[test]
    fn window_and_in_flight() {
        let s = crate::scenario::builtin("seed-incident").expect("built-in");
        let mut t = Timeline::new(s, None).expect("builds");
        t.seek(200);
        let l = Lanes::build(t.events(), t.world(), 40);
        assert_eq!((l.first_step, l.current_step), (161, 200));
        assert!(l.markers.iter().all(|m| (161..=200).contains(&m.step)));
        for a in &l.arrows {
            assert!(a.end_step >= 161 && a.end_step <= 200, "{a:?}");
        }
        // Every message queued at step 200 is one in-flight arrow ending at the current time.
        let queued =
            t.world().queued().filter(|(_, i)| matches!(i, Item::Deliver(_))).count() + t.world().stalled.len();
        let in_flight: Vec<&Arrow> = l.arrows.iter().filter(|a| a.fate == Fate::InFlight).collect();
        assert_eq!(in_flight.len(), queued);
        assert!(in_flight.iter().all(|a| a.end_ms == t.world().now() && a.sent_step <= 200));
        // Stepping back shows the same run: the lanes at 200 are those built again after a seek.
        t.seek(150);
        t.seek(200);
        assert_eq!(Lanes::build(t.events(), t.world(), 40), l);
        // At step 0 the window is empty and only what the build sent is in flight.
        t.seek(0);
        let z = Lanes::build(t.events(), t.world(), 40);
        assert_eq!(z.current_step, 0);
        assert!(z.markers.is_empty() && z.arrows.iter().all(|a| a.fate == Fate::InFlight));
    }

    #[test]
    fn kraft_lanes_are_voters_brokers_consumer() {
        let s = crate::scenario::builtin("seed-incident").expect("built-in");
        let mode = crate::mode::Mode::parse("kraft").expect("kraft");
        let mut t = Timeline::with_mode(s, None, mode).expect("builds");
        t.seek(300);
        let l = Lanes::build(t.events(), t.world(), 300);
        assert!(l.lanes.iter().all(|x| x.kind != LaneKind::Zk), "{:?}", l.lanes);
        assert!(l.lanes.iter().any(|x| x.kind == LaneKind::Voter));
        assert_eq!(l.lanes.iter().filter(|x| x.kind == LaneKind::Broker).count(), 3);
        // The scenario's cuts of b3 from ZooKeeper apply to its voter links: markers on b3.
        assert!(l.markers.iter().any(|m| m.kind == MarkerKind::Cut && m.node == NodeId::Broker(3)));
        // Every marker and arrow is on a lane.
        assert!(l.markers.iter().all(|m| l.lane_of(m.node).is_some()));
        assert!(l.arrows.iter().all(|a| l.lane_of(a.from).is_some() && l.lane_of(a.to).is_some()));
        assert!(l.arrows.iter().any(|a| a.category == crate::message::Category::Quorum), "voters talk to each other");
    }

    #[test]
    fn a_user_cut_drops_at_the_cut() {
        let s = crate::scenario::builtin("seed-incident").expect("built-in");
        let mut t = Timeline::new(s, None).expect("builds");
        t.seek(20);
        t.apply(Command::Cut { a: NodeId::Broker(1), b: NodeId::Zk(2), dir: crate::command::Direction::Both })
            .expect("cut");
        let cut_step = t.cursor() as u64;
        t.seek(120);
        let l = Lanes::build(t.events(), t.world(), 200);
        assert!(l
            .markers
            .iter()
            .any(|m| m.kind == MarkerKind::Cut && m.node == NodeId::Broker(1) && m.step == cut_step));
        let link = |a: &Arrow| {
            (a.from == NodeId::Broker(1) && a.to == NodeId::Zk(2))
                || (a.from == NodeId::Zk(2) && a.to == NodeId::Broker(1))
        };
        let dropped: Vec<&Arrow> = l.arrows.iter().filter(|a| a.fate == Fate::Dropped && link(a)).collect();
        assert!(!dropped.is_empty(), "b1's traffic with zk2 is dropped after the cut");
        assert!(dropped.iter().all(|a| a.end_step > cut_step));
        assert!(!l.arrows.iter().any(|a| a.fate == Fate::Delivered && link(a) && a.sent_step > cut_step));
    }
}
