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
                    out.mark(Mark::WriteRefused { from: b, expected_epoch_version: *version });
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
                if let (NodeId::Broker(b), Some(partition)) = (from, partition_of_state_path(path)) {
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

/// The partition of a state znode, `/brokers/topics/<t>/partitions/<p>/state`.
fn partition_of_state_path(path: &str) -> Option<TopicPartition> {
    let rest = path.strip_prefix("/brokers/topics/")?.strip_suffix("/state")?;
    let (topic, partition) = rest.split_once("/partitions/")?;
    Some(TopicPartition::new(topic, partition.parse().ok()?))
}
