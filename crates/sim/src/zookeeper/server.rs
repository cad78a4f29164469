//! The ZooKeeper server as a sans-IO node: like a broker, it takes messages, timers and what it
//! observes of its clients' connections, and answers with effects in an [`Outbox`] (send, timer,
//! log, mark). It owns the [`DataTree`] and everything a real server keeps beside it:
//!
//! * connections and sessions — a connect opens a session or resumes a live one
//!   (`ZooKeeperServer.processConnectRequest`, `reopenSession`), an expired one is refused;
//! * requests — checked and applied (`PrepRequestProcessor`, `FinalRequestProcessor`), with the
//!   reply, and the watch notifications they trigger (`WatchManager.triggerWatch`,
//!   `NIOServerCnxn.process`);
//! * notifications a client cannot receive while its link is cut, held and sent when its
//!   connection works again (the connection's outgoing queue, or `SetWatches` on a reconnect);
//! * the `SessionTracker` (`SessionTrackerImpl`): a session not heard from within its timeout
//!   expires, its ephemerals are deleted and their watchers told (`ZooKeeperServer.expire`,
//!   `DataTree.killSession`).
//!
//! The server never reads the network or a broker: what a real server would observe of a client —
//! is its connection up both ways, is it still pinging on a session — comes through
//! [`ClientLinks`], and changes to a client's connection come in through
//! [`ZkServerNode::on_client_link`].
use super::{result_summary, DataTree, MultiOp, SessionId, WatchEvent, ZData, ZkOp, ZkResult};
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::{NodeId, TopicPartition};
use crate::mark::Mark;
use crate::message::{ConnectResult, Payload};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// What the server can observe of its clients' connections at the moment it handles an input.
pub trait ClientLinks {
    /// Would a packet sent to `client` now reach it (its connection works both ways)?
    fn reachable(&self, client: NodeId) -> bool;
    /// Is `client` still pinging on `session` now: its process is up, it holds that session, and
    /// its packets reach the server? (A ZooKeeper client pings every third of its timeout; the
    /// model treats any live, connected client as heard continuously.)
    fn pinging(&self, client: NodeId, session: SessionId) -> bool;
}

/// A change in what the server hears of a client's connection.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClientLink {
    /// The server stops hearing from the client (its process died, or its packets no longer
    /// arrive): the session was last heard now, and its expiry clock starts
    /// (`SessionTrackerImpl.touchSession`, then the expirer).
    Silent,
    /// The client's packets reach the server again: it is heard now.
    Heard,
    /// The connection works both ways again and the client kept it (it did not time out and
    /// reconnect): notifications held for the session go out on it, in order.
    Healed,
}

/// The ZooKeeper server node (one linearizable ensemble).
#[derive(Clone, Debug)]
pub struct ZkServerNode {
    tree: DataTree,
    /// Notifications that could not reach their session's client, by session, in order.
    held: BTreeMap<SessionId, Vec<WatchEvent>>,
}

impl Default for ZkServerNode {
    fn default() -> Self {
        ZkServerNode::new(DataTree::new())
    }
}

impl ZkServerNode {
    /// A server serving `tree` (built, or seeded, beforehand), holding no notifications.
    pub fn new(tree: DataTree) -> Self {
        ZkServerNode { tree, held: BTreeMap::new() }
    }

    /// The data tree and its sessions.
    pub fn tree(&self) -> &DataTree {
        &self.tree
    }

    /// Notifications held for `session` until its client can receive them.
    pub fn held(&self, session: SessionId) -> &[WatchEvent] {
        self.held.get(&session).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// A message from a client: a connect (new session or resume) or a request.
    pub fn on_message(&mut self, from: NodeId, payload: Payload, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        match payload {
            Payload::ZkConnect { session, timeout_ms } => self.on_connect(from, session, timeout_ms, now, out),
            Payload::ZkRequest { session, xid, op, controller } => {
                self.on_request(from, session, xid, op, controller, now, links, out)
            }
            _ => {}
        }
    }

    /// `ZooKeeperServer.processConnectRequest`: a client without a session gets a new one
    /// (`SessionTrackerImpl.createSession`); one resuming a live session is revalidated
    /// (`reopenSession`) and gets what the server held for it (the client's `SetWatches` on
    /// reconnect); one resuming an expired session is told so and must start over.
    fn on_connect(&mut self, from: NodeId, session: Option<SessionId>, timeout_ms: u64, now: u64, out: &mut Outbox) {
        let result = match session {
            Some(s) if self.tree.is_live(s) => {
                self.tree.touch(s, now);
                out.headline(EventKind::ZkRequest, format!("zk: session 0x{s:x} of {from} reconnected"));
                ConnectResult::Connected(s)
            }
            Some(s) => {
                out.headline(
                    EventKind::ZkRequest,
                    format!("zk: {from} asks to resume session 0x{s:x}, which has expired"),
                );
                ConnectResult::Expired
            }
            None => {
                let s = self.tree.open_session(from, timeout_ms, now);
                out.headline(
                    EventKind::ZkRequest,
                    format!("zk: new session 0x{s:x} for {from} (timeout {timeout_ms} ms)"),
                );
                ConnectResult::Connected(s)
            }
        };
        out.send(from, Payload::ZkConnectResponse { result });
        if let ConnectResult::Connected(s) = result {
            self.release_held(s, from, out);
        }
    }

    /// A request: `PrepRequestProcessor` checks it and `FinalRequestProcessor` applies it to the
    /// tree and replies, then the watches it triggered fire. Besides Kafka's own log lines, the
    /// server says when the `/controller_epoch` check of a fenced controller write failed
    /// (KAFKA-6082), and when it accepted a partition-state write from a controller epoch older
    /// than `/controller_epoch` — ZooKeeper itself knows nothing of controller epochs, so that
    /// write lands.
    #[allow(clippy::too_many_arguments)]
    fn on_request(
        &mut self,
        from: NodeId,
        session: SessionId,
        xid: u64,
        op: ZkOp,
        controller: bool,
        now: u64,
        links: &dyn ClientLinks,
        out: &mut Outbox,
    ) {
        let current_epoch = match self.tree.get("/controller_epoch").map(|n| &n.data) {
            Some(ZData::ControllerEpoch { epoch }) => *epoch,
            _ => 0,
        };
        let (result, events) = self.tree.apply(session, &op, now);
        out.headline(
            EventKind::ZkRequest,
            format!("zk: {} from {from} (session 0x{session:x}) → {}", op.describe(), result_summary(&result)),
        );
        let write = match (&op, &result) {
            (ZkOp::SetData { data: ZData::PartitionState { state }, path, .. }, ZkResult::Written { .. }) => {
                Some((path, state))
            }
            (ZkOp::Multi { ops }, ZkResult::MultiOk) => ops.iter().find_map(|o| match o {
                MultiOp::SetData { data: ZData::PartitionState { state }, path, .. } => Some((path, state)),
                _ => None,
            }),
            _ => None,
        };
        if let (ZkOp::Multi { ops }, ZkResult::MultiFailed { index: 0, .. }) = (&op, &result) {
            if let Some(MultiOp::Check { version, .. }) = ops.first() {
                out.log(
                    EventKind::LeaderChange,
                    format!(
                        "zk: refused a fenced controller write from {from}: it expected /controller_epoch at version {version}, which another controller has moved on (BADVERSION)"
                    ),
                );
                if let NodeId::Broker(b) = from {
                    let partition = ops.iter().find_map(|o| match o {
                        MultiOp::SetData { path, .. } | MultiOp::Create { path, .. } => {
                            TopicPartition::from_state_path(path)
                        }
                        _ => None,
                    });
                    out.mark(Mark::WriteRefused { from: b, expected_epoch_version: *version, partition });
                }
            }
        }
        if let (Some((path, state)), true) = (write, controller) {
            if state.controller_epoch < current_epoch {
                out.log(
                    EventKind::LeaderChange,
                    format!(
                        "zk: accepted a write to {path} made by controller epoch {} while /controller_epoch is {current_epoch}: a deposed controller's decision {} is now in ZooKeeper",
                        state.controller_epoch,
                        crate::controller::leader_isr_json(state)
                    ),
                );
                if let (NodeId::Broker(b), Some(partition)) = (from, TopicPartition::from_state_path(path)) {
                    out.mark(Mark::DeposedWriteAccepted {
                        from: b,
                        partition,
                        leader: state.leader,
                        leader_epoch: state.leader_epoch,
                        isr: state.isr.clone(),
                        controller_epoch: state.controller_epoch,
                        current_controller_epoch: current_epoch,
                    });
                }
            }
        }
        out.send(from, Payload::ZkResponse { session, xid, result });
        self.notify(events, links, out);
    }

    /// A timer set by this node: the `SessionTracker`'s expiry check.
    pub fn on_timer(&mut self, timer: &Timer, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        if let Timer::SessionExpiry { session } = *timer {
            self.session_check(session, now, links, out);
        }
    }

    /// `SessionTrackerImpl`: expire a session not heard from within its timeout. A client still
    /// pinging on it is heard now; one heard since the check was set moves the check to its new
    /// deadline; otherwise the session expires (`ZooKeeperServer.expire` → `DataTree.killSession`):
    /// its ephemerals are deleted, their watchers notified, and whatever was held for it dropped.
    fn session_check(&mut self, session: SessionId, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        let Some(s) = self.tree.session(session).cloned() else { return };
        if s.expired {
            out.headline(EventKind::Info, format!("zk: session 0x{session:x} already expired"));
            return;
        }
        if links.pinging(s.owner, session) {
            self.tree.touch(session, now);
            out.headline(EventKind::Info, format!("zk: session 0x{session:x} of {} is heartbeating again", s.owner));
            return;
        }
        let due = s.last_heard_ms + s.timeout_ms;
        if now < due {
            out.headline(
                EventKind::Info,
                format!(
                    "zk: session 0x{session:x} of {} was heard from at {} ms; expiry check moved",
                    s.owner, s.last_heard_ms
                ),
            );
            out.timer(due - now, Timer::SessionExpiry { session });
            return;
        }
        let (deleted, events) = self.tree.expire(session);
        self.held.remove(&session);
        out.headline(
            EventKind::SessionExpired,
            format!(
                "zk: session 0x{session:x} of {} expired ({} ms without a heartbeat); deleted ephemeral {}",
                s.owner,
                s.timeout_ms,
                if deleted.is_empty() { String::from("nothing") } else { deleted.join(", ") }
            ),
        );
        out.mark(Mark::SessionExpired { session, owner: s.owner });
        self.notify(events, links, out);
    }

    /// A change in what the server hears of `client`'s connection, which carries `session`.
    pub fn on_client_link(
        &mut self,
        client: NodeId,
        session: SessionId,
        change: ClientLink,
        now: u64,
        out: &mut Outbox,
    ) {
        match change {
            ClientLink::Silent => {
                self.tree.touch(session, now);
                if let Some(s) = self.tree.session(session) {
                    out.timer(s.timeout_ms, Timer::SessionExpiry { session });
                }
            }
            ClientLink::Heard => self.tree.touch(session, now),
            ClientLink::Healed => self.release_held(session, client, out),
        }
    }

    /// A notification the server sent did not reach its client (its link was cut, or its process
    /// was down): the server holds it for the session, while the session lives, until the client
    /// can receive it.
    pub fn on_watch_undelivered(&mut self, event: &WatchEvent, out: &mut Outbox) {
        if !self.tree.is_live(event.session) {
            return;
        }
        self.held.entry(event.session).or_default().push(event.clone());
        out.log(
            EventKind::Info,
            format!("zk holds the notification for session 0x{:x} until it reconnects", event.session),
        );
    }

    /// An operator's `delete <path>` from `zookeeper-shell` (on its own short session): removes a
    /// childless node and notifies its watchers. False (nothing done) if there is no such node or
    /// it has children.
    pub fn admin_delete(&mut self, path: &str, links: &dyn ClientLinks, out: &mut Outbox) -> bool {
        match self.tree.admin_delete(path) {
            Some(events) => {
                self.notify(events, links, out);
                true
            }
            None => false,
        }
    }

    /// Sends `to` the notifications held for `session` while it could not be reached.
    fn release_held(&mut self, session: SessionId, to: NodeId, out: &mut Outbox) {
        for event in self.held.remove(&session).unwrap_or_default() {
            out.send(to, Payload::ZkWatch { event });
        }
    }

    /// Delivers triggered watches to their sessions' clients (`NIOServerCnxn.process`), holding
    /// those for a client the server cannot reach now.
    fn notify(&mut self, events: Vec<WatchEvent>, links: &dyn ClientLinks, out: &mut Outbox) {
        for event in events {
            let Some(owner) = self.tree.session(event.session).map(|s| s.owner) else { continue };
            if links.reachable(owner) {
                out.send(owner, Payload::ZkWatch { event });
            } else {
                self.held.entry(event.session).or_default().push(event);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The server driven message by message, as a world would drive it (like quinn-proto's test
    //! `Pair`): each call is one input, and the test reads the effects it produced.
    use super::*;
    use crate::zookeeper::{LeaderIsr, WatchEventType, ZkError};
    use alloc::collections::BTreeSet;
    use alloc::vec;

    const TIMEOUT: u64 = 6000;
    const B1: NodeId = NodeId::Broker(1);
    const B2: NodeId = NodeId::Broker(2);

    /// What the test says the server can observe: clients whose link is cut, and the session each
    /// client's live connection carries.
    #[derive(Default)]
    struct Links {
        cut: BTreeSet<NodeId>,
        on: BTreeMap<NodeId, SessionId>,
    }

    impl ClientLinks for Links {
        fn reachable(&self, client: NodeId) -> bool {
            !self.cut.contains(&client)
        }
        fn pinging(&self, client: NodeId, session: SessionId) -> bool {
            !self.cut.contains(&client) && self.on.get(&client) == Some(&session)
        }
    }

    /// The server and the world around it.
    struct Pair {
        zk: ZkServerNode,
        links: Links,
        now: u64,
    }

    impl Pair {
        fn new(tree: DataTree) -> Self {
            Pair { zk: ZkServerNode::new(tree), links: Links::default(), now: 0 }
        }

        fn deliver(&mut self, from: NodeId, payload: Payload) -> Outbox {
            let mut out = Outbox::default();
            self.zk.on_message(from, payload, self.now, &self.links, &mut out);
            out
        }

        fn connect(&mut self, client: NodeId, session: Option<SessionId>) -> Outbox {
            let out = self.deliver(client, Payload::ZkConnect { session, timeout_ms: TIMEOUT });
            for (to, p) in out.sent() {
                if let (true, Payload::ZkConnectResponse { result: ConnectResult::Connected(s) }) = (to == client, p) {
                    self.links.on.insert(client, s);
                }
            }
            out
        }

        fn session_of(&mut self, client: NodeId) -> SessionId {
            if !self.links.on.contains_key(&client) {
                self.connect(client, None);
            }
            self.links.on[&client]
        }

        fn request(&mut self, client: NodeId, op: ZkOp, controller: bool) -> (ZkResult, Outbox) {
            let session = self.session_of(client);
            let out = self.deliver(client, Payload::ZkRequest { session, xid: 1, op, controller });
            let result = out
                .sent()
                .into_iter()
                .find_map(|(to, p)| match p {
                    Payload::ZkResponse { result, .. } if to == client => Some(result),
                    _ => None,
                })
                .expect("a response to the client");
            (result, out)
        }

        fn fire(&mut self, at: u64, timer: Timer) -> Outbox {
            self.now = at;
            let mut out = Outbox::default();
            self.zk.on_timer(&timer, self.now, &self.links, &mut out);
            out
        }

        /// Cuts the client's link both ways at `at`: the server stops hearing it.
        fn cut(&mut self, client: NodeId, at: u64) -> Outbox {
            self.now = at;
            self.links.cut.insert(client);
            let mut out = Outbox::default();
            let s = self.links.on[&client];
            self.zk.on_client_link(client, s, ClientLink::Silent, self.now, &mut out);
            out
        }

        /// Heals the client's link at `at`; its connection survived.
        fn heal(&mut self, client: NodeId, at: u64) -> Outbox {
            self.now = at;
            self.links.cut.remove(&client);
            let mut out = Outbox::default();
            let s = self.links.on[&client];
            self.zk.on_client_link(client, s, ClientLink::Heard, self.now, &mut out);
            self.zk.on_client_link(client, s, ClientLink::Healed, self.now, &mut out);
            out
        }
    }

    fn watches(out: &Outbox) -> Vec<(NodeId, WatchEvent)> {
        out.sent()
            .into_iter()
            .filter_map(|(to, p)| match p {
                Payload::ZkWatch { event } => Some((to, event)),
                _ => None,
            })
            .collect()
    }

    fn headline(out: &Outbox) -> (EventKind, String) {
        out.headline.clone().expect("the handler names the step")
    }

    fn create(path: &str, ephemeral: bool) -> ZkOp {
        ZkOp::Create { path: path.into(), data: ZData::Empty, ephemeral, sequential: false }
    }

    #[test]
    fn a_client_connects_and_gets_a_session() {
        let mut p = Pair::new(DataTree::new());
        let out = p.connect(B1, None);
        assert_eq!(out.sent(), vec![(B1, Payload::ZkConnectResponse { result: ConnectResult::Connected(0x1001) })]);
        assert_eq!(
            headline(&out),
            (EventKind::ZkRequest, String::from("zk: new session 0x1001 for b1 (timeout 6000 ms)"))
        );
        let s = p.zk.tree().session(0x1001).expect("opened");
        assert_eq!((s.owner, s.timeout_ms, s.expired), (B1, TIMEOUT, false));
        // Resuming it later is a reconnect on the same session.
        p.now = 50;
        let out = p.connect(B1, Some(0x1001));
        assert_eq!(out.sent(), vec![(B1, Payload::ZkConnectResponse { result: ConnectResult::Connected(0x1001) })]);
        assert_eq!(p.zk.tree().session(0x1001).map(|s| s.last_heard_ms), Some(50));
    }

    #[test]
    fn a_write_with_a_stale_version_gets_badversion() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/x", false), false);
        let set = |version| ZkOp::SetData { path: "/x".into(), data: ZData::ControllerEpoch { epoch: 1 }, version };
        let (r, _) = p.request(B1, set(0), false);
        assert!(matches!(r, ZkResult::Written { stat } if stat.version == 1), "{r:?}");
        let (r, out) = p.request(B1, set(0), false);
        assert_eq!(r, ZkResult::Error { code: ZkError::BadVersion });
        assert_eq!(headline(&out).1, "zk: setData /x (expected version 0) from b1 (session 0x1001) → error BADVERSION");
        assert!(out.marks().is_empty(), "a plain BADVERSION is no fenced controller write");
        assert_eq!(p.zk.tree().get("/x").map(|n| n.stat.version), Some(1));
    }

    #[test]
    fn a_silent_session_expires_exactly_after_its_timeout() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        p.request(B1, create("/brokers", false), false);
        p.request(B1, create("/brokers/1", true), false);
        let (_, _) = p.request(B2, ZkOp::GetData { path: "/controller".into(), watch: true }, false);
        let (_, _) = p.request(B2, ZkOp::GetChildren { path: "/brokers".into(), watch: true }, false);
        let a = p.links.on[&B1];

        // At 100 ms the server stops hearing b1: it checks the session a timeout later.
        let out = p.cut(B1, 100);
        assert_eq!(out.timers(), vec![(TIMEOUT, Timer::SessionExpiry { session: a })]);

        // One ms early the session lives: the check moves to the deadline.
        let out = p.fire(100 + TIMEOUT - 1, Timer::SessionExpiry { session: a });
        assert!(p.zk.tree().is_live(a));
        assert!(p.zk.tree().get("/controller").is_some());
        assert_eq!(out.timers(), vec![(1, Timer::SessionExpiry { session: a })]);
        assert!(out.marks().is_empty());

        // At the deadline it expires: its ephemerals go, and b2's watches fire.
        let out = p.fire(100 + TIMEOUT, Timer::SessionExpiry { session: a });
        assert!(!p.zk.tree().is_live(a));
        assert!(p.zk.tree().get("/controller").is_none() && p.zk.tree().get("/brokers/1").is_none());
        assert_eq!(
            headline(&out),
            (
                EventKind::SessionExpired,
                String::from(
                    "zk: session 0x1001 of b1 expired (6000 ms without a heartbeat); deleted ephemeral /brokers/1, /controller"
                )
            )
        );
        assert_eq!(out.marks(), vec![Mark::SessionExpired { session: a, owner: B1 }]);
        let b = p.links.on[&B2];
        assert_eq!(
            watches(&out),
            vec![
                (B2, WatchEvent { session: b, path: "/brokers".into(), kind: WatchEventType::NodeChildrenChanged }),
                (B2, WatchEvent { session: b, path: "/controller".into(), kind: WatchEventType::NodeDeleted }),
            ]
        );
        assert!(out.timers().is_empty());

        // Resuming it now is refused.
        let out = p.connect(B1, Some(a));
        assert_eq!(out.sent(), vec![(B1, Payload::ZkConnectResponse { result: ConnectResult::Expired })]);
    }

    #[test]
    fn a_session_that_pings_again_is_not_expired() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        let a = p.links.on[&B1];
        p.cut(B1, 0);
        p.links.cut.remove(&B1); // its packets arrive again, and it pings on the session
        let out = p.fire(TIMEOUT, Timer::SessionExpiry { session: a });
        assert_eq!(headline(&out).1, "zk: session 0x1001 of b1 is heartbeating again");
        assert!(p.zk.tree().is_live(a) && p.zk.tree().get("/controller").is_some());
        assert!(out.timers().is_empty() && out.marks().is_empty());
        assert_eq!(p.zk.tree().session(a).map(|s| s.last_heard_ms), Some(TIMEOUT));

        // Heard from again mid-way (link back at 9000, cut again at once): the check moves on.
        p.cut(B1, 7000);
        let mut out = Outbox::default();
        p.zk.on_client_link(B1, a, ClientLink::Heard, 9000, &mut out);
        let out = p.fire(7000 + TIMEOUT, Timer::SessionExpiry { session: a });
        assert!(p.zk.tree().is_live(a));
        assert_eq!(out.timers(), vec![(2000, Timer::SessionExpiry { session: a })]);
    }

    #[test]
    fn a_notification_for_a_cut_client_is_held_until_it_reconnects() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        p.request(B2, ZkOp::GetData { path: "/controller".into(), watch: true }, false);
        let b = p.links.on[&B2];
        p.cut(B2, 10);
        let (_, out) = p.request(B1, ZkOp::Delete { path: "/controller".into(), version: -1 }, true);
        assert!(watches(&out).is_empty(), "b2 cannot be reached");
        let held = WatchEvent { session: b, path: "/controller".into(), kind: WatchEventType::NodeDeleted };
        assert_eq!(p.zk.held(b), &[held.clone()][..]);

        // b2 timed out its connection and reconnects on the same session: the answer, then the
        // notification.
        p.links.cut.remove(&B2);
        let out = p.connect(B2, Some(b));
        assert_eq!(
            out.sent(),
            vec![
                (B2, Payload::ZkConnectResponse { result: ConnectResult::Connected(b) }),
                (B2, Payload::ZkWatch { event: held }),
            ]
        );
        assert!(p.zk.held(b).is_empty());
    }

    #[test]
    fn a_notification_for_a_cut_client_is_released_when_the_link_heals() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        p.request(B2, ZkOp::GetData { path: "/controller".into(), watch: true }, false);
        let b = p.links.on[&B2];
        // The notification was sent, and lost on the way.
        let (_, out) = p.request(B1, ZkOp::Delete { path: "/controller".into(), version: -1 }, true);
        let [(_, event)] = &watches(&out)[..] else { panic!("one notification") };
        p.cut(B2, 10);
        let mut out = Outbox::default();
        p.zk.on_watch_undelivered(event, &mut out);
        assert_eq!(out.lines(), vec![String::from("zk holds the notification for session 0x1002 until it reconnects")]);
        assert_eq!(p.zk.held(b).len(), 1);

        let out = p.heal(B2, 20);
        assert_eq!(watches(&out), vec![(B2, event.clone())]);
        assert!(p.zk.held(b).is_empty());
        let out = p.heal(B2, 30);
        assert!(watches(&out).is_empty(), "released once");
    }

    #[test]
    fn notifications_held_for_an_expired_session_are_dropped() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/x", false), false);
        p.request(B2, ZkOp::GetData { path: "/x".into(), watch: true }, false);
        let b = p.links.on[&B2];
        p.cut(B2, 0);
        p.request(B1, ZkOp::SetData { path: "/x".into(), data: ZData::Empty, version: -1 }, false);
        assert_eq!(p.zk.held(b).len(), 1);
        p.fire(TIMEOUT, Timer::SessionExpiry { session: b });
        assert!(p.zk.held(b).is_empty());
        let mut out = Outbox::default();
        let late = WatchEvent { session: b, path: "/x".into(), kind: WatchEventType::NodeDataChanged };
        p.zk.on_watch_undelivered(&late, &mut out);
        assert!(p.zk.held(b).is_empty() && out.effects.is_empty());
    }

    /// A tree where controller epoch 5 holds `/controller_epoch` (at version 4) and partition
    /// `t-0`'s state was last written by epoch 5.
    fn epoch_tree() -> DataTree {
        let mut t = DataTree::new();
        t.seed_node("/controller_epoch", ZData::ControllerEpoch { epoch: 5 }, None);
        t.seed_version("/controller_epoch", 4);
        let state = LeaderIsr { leader: 2, leader_epoch: 7, isr: vec![2, 3], controller_epoch: 5 };
        t.seed_node("/brokers/topics/t/partitions/0/state", ZData::PartitionState { state }, None);
        t
    }

    #[test]
    fn a_deposed_controllers_write_is_accepted_and_marked() {
        let mut p = Pair::new(epoch_tree());
        let state = LeaderIsr { leader: 1, leader_epoch: 8, isr: vec![1], controller_epoch: 4 };
        let op = ZkOp::SetData {
            path: "/brokers/topics/t/partitions/0/state".into(),
            data: ZData::PartitionState { state },
            version: -1,
        };
        let (r, out) = p.request(B1, op.clone(), true);
        assert!(matches!(r, ZkResult::Written { .. }), "{r:?}");
        assert_eq!(
            out.marks(),
            vec![Mark::DeposedWriteAccepted {
                from: 1,
                partition: TopicPartition::new("t", 0),
                leader: 1,
                leader_epoch: 8,
                isr: vec![1],
                controller_epoch: 4,
                current_controller_epoch: 5,
            }]
        );
        let [line] = &out.lines()[..] else { panic!("one line") };
        assert!(line.starts_with(
            "zk: accepted a write to /brokers/topics/t/partitions/0/state made by controller epoch 4 while /controller_epoch is 5: a deposed controller's decision"
        ));
        // The same write from a broker's own code (not the controller) is not a controller decision.
        let (_, out) = p.request(B1, op, false);
        assert!(out.marks().is_empty() && out.lines().is_empty());
    }

    #[test]
    fn a_current_controllers_write_is_not_marked() {
        let mut p = Pair::new(epoch_tree());
        let state = LeaderIsr { leader: 3, leader_epoch: 8, isr: vec![3], controller_epoch: 5 };
        let op = ZkOp::SetData {
            path: "/brokers/topics/t/partitions/0/state".into(),
            data: ZData::PartitionState { state },
            version: 0,
        };
        let (_, out) = p.request(B1, op, true);
        assert!(out.marks().is_empty() && out.lines().is_empty());
    }

    #[test]
    fn a_fenced_write_is_refused_and_marked() {
        let mut p = Pair::new(epoch_tree());
        let state = LeaderIsr { leader: 1, leader_epoch: 8, isr: vec![1], controller_epoch: 4 };
        let ops = vec![
            MultiOp::Check { path: "/controller_epoch".into(), version: 3 },
            MultiOp::SetData {
                path: "/brokers/topics/t/partitions/0/state".into(),
                data: ZData::PartitionState { state },
                version: 0,
            },
        ];
        let (r, out) = p.request(B1, ZkOp::Multi { ops }, true);
        assert_eq!(r, ZkResult::MultiFailed { index: 0, code: ZkError::BadVersion });
        assert_eq!(
            out.marks(),
            vec![Mark::WriteRefused {
                from: 1,
                expected_epoch_version: 3,
                partition: Some(TopicPartition::new("t", 0))
            }]
        );
        assert_eq!(
            out.lines(),
            vec![String::from(
                "zk: refused a fenced controller write from b1: it expected /controller_epoch at version 3, which another controller has moved on (BADVERSION)"
            )]
        );
        assert_eq!(p.zk.tree().get("/brokers/topics/t/partitions/0/state").map(|n| n.stat.version), Some(0));
    }
}
