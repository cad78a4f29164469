//! One ZooKeeper server as a sans-IO node (ZooKeeper 3.4.10): it takes messages from clients and
//! from the other servers, timers, and what it observes of its clients' connections, and answers
//! with effects in an [`Outbox`]. Each server keeps its own replica of the [`DataTree`] and the
//! zxid of the last transaction it applied; reads are served from the local replica (a lagging
//! follower answers stale reads), writes go through the leader ([`super::quorum`]).
//!
//! * connections and sessions — a connect opens a session (a `createSession` transaction) or
//!   resumes a live one (`ZooKeeperServer.processConnectRequest`, `reopenSession`); a follower
//!   asks the leader to revalidate a resumed session, which touches it
//!   (`release-3.4.10 Learner.java:106` `validateSession`, `LearnerHandler.java:597` REVALIDATE);
//! * requests — a client's packet touches its session on the server it is connected to
//!   (`ZooKeeperServer.java:741` `submitRequest` → `touch`); on a follower the touch goes in the
//!   `LearnerSessionTracker` touch table (`LearnerSessionTracker.java:36,65`) and reaches the
//!   leader only in the reply to the leader's PING (`Learner.java:538`, `LearnerHandler.java:586-594`),
//!   which the model makes implicit ([`super::quorum::relayed_touches`], [`ZkServerNode::on_touches`]);
//!   a request forwarded to the leader carries no connection and does not touch the session there,
//!   it only passes `checkSession` (`PrepRequestProcessor.java:325`, `SessionTrackerImpl.java:260`);
//! * each server applies committed transactions to its replica in zxid order and fires the watches
//!   registered on it (`FinalRequestProcessor`); the server the client is connected to replies;
//! * notifications a client cannot receive while its link is cut are held and sent when its
//!   connection works again (the connection's outgoing queue, or `SetWatches` on a reconnect);
//! * the leader's [`SessionTracker`] expires sessions in tick buckets; the `closeSession`
//!   transaction deletes the session's ephemerals on every server as it applies it, and the server
//!   the expired client is connected to closes its connection (`FinalRequestProcessor.java:124-133`).
//!
//! The standalone server `zk` is a leader of a one-server ensemble: no forwarding, no pings, and
//! the same bucketed expiry (standalone 3.4 also uses `SessionTrackerImpl`,
//! `ZooKeeperServer.java:440` `createSessionTracker`): its clients' touches are direct, so a session
//! last heard at `t` expires at `roundToInterval(t + timeout)`.
//!
//! Simplifications: watches live on the server a client set them on; a client that moves to
//! another server does not re-register them (`SetWatches`), so a notification fired on its old
//! server is held there. A client "pinging" a server is read from [`ClientLinks`] at the moment
//! the server looks (a live, connected client is heard continuously). Expirer timers exist only
//! for sessions that stopped being touched, so an idle ensemble schedules nothing.
use super::data_tree::DataTree;
use super::ops::{result_summary, ZkOp, ZkResult};
use super::proto::{Origin, PeerMsg, Role, Txn, FINALIZE_WAIT_MS};
use super::session::SessionId;
use super::session_tracker::SessionTracker;
use super::watch::WatchEvent;
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::NodeId;
use crate::mark::Mark;
use crate::message::{ConnectResult, Payload};
use crate::vec_map::{VecMap, VecSet};
use crate::znodes::writes::{self, Before};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

/// What a server can observe of its clients' connections at the moment it handles an input.
pub trait ClientLinks {
    /// Would a packet sent from `server` to `client` now reach it (its connection works both ways)?
    fn reachable(&self, server: NodeId, client: NodeId) -> bool;
    /// Is `client` still pinging `server` on `session` now: its process is up, it holds that
    /// session, it is connected to that server, and its packets reach it? (A ZooKeeper client
    /// pings every third of its timeout; the model treats a live, connected client as heard
    /// continuously.)
    fn pinging(&self, server: NodeId, client: NodeId, session: SessionId) -> bool;
    /// Does the link between two servers work both ways now (their quorum connection is not
    /// stalled)?
    fn peers_up(&self, a: NodeId, b: NodeId) -> bool;
}

/// A change in what the server hears of a client's connection.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClientLink {
    /// The connection works both ways again and the client kept it: notifications held for the
    /// session go out on it, in order.
    Healed,
}

/// One ZooKeeper server.
#[derive(Clone, Debug, Hash)]
pub struct ZkServerNode {
    /// This server.
    pub(super) id: NodeId,
    /// The other servers of the ensemble.
    pub(super) peers: Vec<NodeId>,
    /// `tickTime`, ms.
    pub(super) tick_ms: u64,
    /// `syncLimit`, ticks.
    pub(super) sync_limit: u64,
    /// Leading, following or looking.
    pub(super) role: Role,
    /// The epoch of the current leadership this server leads or follows (its quorum connection);
    /// a packet of another epoch belongs to a connection that was closed and is discarded.
    pub(super) epoch: u64,
    pub(super) tree: DataTree,
    /// The zxid of the last transaction applied.
    pub(super) zxid: u64,
    /// The leader's session tracker (empty unless leading).
    pub(super) tracker: SessionTracker,
    /// Bucket times the expirer has a timer for.
    pub(super) buckets: VecSet<u64>,
    /// Leader: each tracked session's implicit relay — `Some(server)` while its client is heard
    /// by `server` and that reaches the leader, `None` once it stopped (an expirer timer is armed).
    pub(super) relay: VecMap<SessionId, Option<NodeId>>,
    /// Peers whose link to this server stalled, and since when (a follower's entry for its
    /// leader is its `relay_stalled_since`); cleared when the link heals.
    pub(super) stalled: VecMap<NodeId, u64>,
    /// A follower's commits that arrived ahead of an earlier one, by zxid.
    pub(super) pending: VecMap<u64, (Txn, Option<Origin>)>,
    /// Clients connected to this server, with their session.
    pub(super) clients: VecMap<NodeId, SessionId>,
    /// Notifications that could not reach their session's client, by session, in order.
    held: VecMap<SessionId, Vec<WatchEvent>>,
    /// Leader: followers synced with it (their connection is open), with when they joined;
    /// follower: its leader.
    pub(super) heard: VecMap<NodeId, u64>,
    /// When the current role began.
    pub(super) since: u64,
    /// A follower has its leader's tree (SNAP received).
    pub(super) synced: bool,
    /// Looking: the latest vote or state heard from each peer this round.
    pub(super) votes: VecMap<NodeId, (u64, NodeId, Role, u64)>,
    /// Looking: the current notification timeout (`FastLeaderElection` `notTimeout`).
    pub(super) not_timeout: u64,
    /// Looking: election round, so stale election timers do nothing.
    pub(super) round: u64,
}

impl Default for ZkServerNode {
    fn default() -> Self {
        ZkServerNode::new(DataTree::new())
    }
}

impl ZkServerNode {
    /// The standalone server `zk` serving `tree` (built, or seeded, beforehand), every session of
    /// the tree tracked as touched at time 0, with `tickTime` 2000.
    pub fn new(tree: DataTree) -> Self {
        ZkServerNode::standalone(tree, 2000)
    }

    /// The standalone server `zk`.
    pub fn standalone(tree: DataTree, tick_ms: u64) -> Self {
        ZkServerNode::member(NodeId::ZK, Vec::new(), tree, tick_ms, 5, Some(NodeId::ZK), 0)
    }

    /// A server of an ensemble with `peers`, all holding `tree` at time 0; `leader` leads (epoch 1)
    /// and the others follow it, synced.
    pub fn member(
        id: NodeId,
        peers: Vec<NodeId>,
        tree: DataTree,
        tick_ms: u64,
        sync_limit: u64,
        leader: Option<NodeId>,
        now: u64,
    ) -> Self {
        let role = match leader {
            Some(l) if l == id => Role::Leading,
            Some(l) => Role::Following(l),
            None => Role::Looking,
        };
        let mut z = ZkServerNode {
            id,
            peers,
            tick_ms,
            sync_limit,
            role,
            epoch: 1,
            zxid: 0,
            tracker: SessionTracker::new(tick_ms),
            buckets: VecSet::new(),
            relay: VecMap::new(),
            stalled: VecMap::new(),
            pending: VecMap::new(),
            clients: VecMap::new(),
            held: VecMap::new(),
            heard: VecMap::new(),
            since: now,
            synced: true,
            votes: VecMap::new(),
            not_timeout: FINALIZE_WAIT_MS,
            round: 0,
            tree,
        };
        match role {
            Role::Leading => {
                z.start_tracker(now);
                let peers = z.peers.clone();
                for p in peers {
                    z.heard.insert(p, now);
                }
            }
            Role::Following(l) => {
                z.heard.insert(l, now);
            }
            Role::Looking => {}
        }
        z
    }

    /// This server's name.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// Its role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The zxid of the last transaction it applied.
    pub fn zxid(&self) -> u64 {
        self.zxid
    }

    /// Its replica of the data tree, with the session table.
    pub fn tree(&self) -> &DataTree {
        &self.tree
    }

    /// The leader's session tracker.
    pub fn tracker(&self) -> &SessionTracker {
        &self.tracker
    }

    /// The clients connected to it.
    pub fn clients(&self) -> &VecMap<NodeId, SessionId> {
        &self.clients
    }

    /// Notifications held for `session` until its client can receive them.
    pub fn held(&self, session: SessionId) -> &[WatchEvent] {
        self.held.get(&session).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// Records that `client` holds `session` on this server (scenario set-up).
    pub fn seed_client(&mut self, client: NodeId, session: SessionId) {
        self.clients.insert(client, session);
    }

    /// A new leader's `SessionTracker` starts with every live session touched now.
    pub(super) fn start_tracker(&mut self, now: u64) {
        self.tracker = SessionTracker::new(self.tick_ms);
        self.buckets.clear();
        self.relay.clear();
        let live: Vec<(SessionId, u64)> =
            self.tree.sessions().filter(|s| !s.expired).map(|s| (s.id, s.timeout_ms)).collect();
        for (id, timeout) in live {
            self.tracker.add(id, timeout, now);
        }
    }

    /// Touches `session` on this server at `now` because its client was heard: the leader
    /// touches its tracker; on a follower the touch reaches the leader by the implicit ping relay
    /// ([`super::quorum::relayed_touches`]). False if the leader knows the session no more or it
    /// is closing, or the server is looking.
    pub(super) fn touch(&mut self, session: SessionId, now: u64) -> bool {
        match self.role {
            Role::Leading => self.tracker.touch(session, now).is_some(),
            Role::Following(_) => true,
            Role::Looking => false,
        }
    }

    pub(super) fn arm_bucket(&mut self, at: u64, now: u64, out: &mut Outbox) {
        if self.buckets.insert(at) {
            out.timer(at.saturating_sub(now), Timer::ZkExpireBucket { at });
        }
    }

    /// A message from a client or a peer.
    pub fn on_message(&mut self, from: NodeId, payload: Payload, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        match payload {
            Payload::ZkConnect { session, timeout_ms } => self.on_connect(from, session, timeout_ms, now, links, out),
            Payload::ZkRequest { session, xid, op, controller } => {
                self.on_request(from, session, xid, op, controller, now, links, out)
            }
            Payload::ZkSetWatches { session, watches } => self.on_set_watches(from, session, &watches, now, links, out),
            Payload::ZkPeer { msg } => self.on_peer(from, msg, now, links, out),
            _ => {}
        }
    }

    /// `ZooKeeperServer.processConnectRequest`. A server that is not serving (looking) closes the
    /// connection at once and the client tries its next server.
    fn on_connect(
        &mut self,
        from: NodeId,
        session: Option<SessionId>,
        timeout_ms: u64,
        now: u64,
        links: &dyn ClientLinks,
        out: &mut Outbox,
    ) {
        let me = self.id;
        match (self.role, session) {
            (Role::Looking, _) => {
                out.headline(EventKind::ZkRequest, || {
                    format!("{me}: not serving (looking for a leader); closes {from}'s connection")
                });
                out.send(from, Payload::ZkClosed);
            }
            (Role::Leading, Some(s)) => {
                // reopenSession → revalidateSession: touch it (ZooKeeperServer.java:631).
                if self.tree.is_live(s) && self.touch(s, now) {
                    out.headline(EventKind::ZkRequest, || format!("{me}: session 0x{s:x} of {from} reconnected"));
                    self.accept(from, s, out);
                } else {
                    out.headline(EventKind::ZkRequest, || {
                        format!("{me}: {from} asks to resume session 0x{s:x}, which has expired")
                    });
                    out.send(from, Payload::ZkConnectResponse { result: ConnectResult::Expired });
                }
            }
            (Role::Following(l), Some(s)) => {
                out.headline(EventKind::ZkRequest, || {
                    format!("{me}: {from} resumes session 0x{s:x}; asking leader {l} to revalidate it")
                });
                let msg = PeerMsg::Revalidate { epoch: self.epoch, session: s, client: from };
                out.send(l, Payload::ZkPeer { msg });
            }
            (_, None) => {
                let txn = Txn::CreateSession { owner: from, timeout_ms, now };
                let origin = Origin { server: me, client: from, xid: 0 };
                out.headline(EventKind::ZkRequest, || {
                    format!("{me}: {from} asks for a new session (timeout {timeout_ms} ms)")
                });
                self.submit(origin, txn, now, links, out);
            }
        }
    }

    /// The client is connected on `session` by a new connection: answer. What was held for the
    /// session was queued on its old connection, which is gone; the client's `SetWatches` on
    /// this connection fires what changed meanwhile ([`DataTree::set_watches`]).
    pub(super) fn accept(&mut self, client: NodeId, session: SessionId, out: &mut Outbox) {
        self.clients.insert(client, session);
        self.held.remove(&session);
        out.send(client, Payload::ZkConnectResponse { result: ConnectResult::Connected(session) });
    }

    /// Drops the watches `session` has on this server (building a world whose clients each set
    /// their watches on their own server).
    pub fn drop_watches(&mut self, session: SessionId) {
        self.tree.drop_watches(session);
    }

    /// A client request. Its packet touches its session here; reads are answered from this
    /// server's replica; writes are submitted to the leader.
    #[allow(clippy::too_many_arguments)]
    fn on_request(
        &mut self,
        from: NodeId,
        session: SessionId,
        xid: u64,
        op: Rc<ZkOp>,
        controller: bool,
        now: u64,
        links: &dyn ClientLinks,
        out: &mut Outbox,
    ) {
        let me = self.id;
        if self.role == Role::Looking {
            out.headline(EventKind::ZkRequest, || format!("{me}: not serving; closes {from}'s connection"));
            self.clients.remove(&from);
            out.send(from, Payload::ZkClosed);
            return;
        }
        self.touch(session, now);
        if !op.is_write() {
            let (result, events) = self.tree.apply(session, &op, now);
            out.headline(EventKind::ZkRequest, || {
                format!("{me}: {} from {from} (session 0x{session:x}) → {}", op.describe(), result_summary(&result))
            });
            out.send(from, Payload::ZkResponse { session, xid, result });
            self.notify(events, links, out);
            return;
        }
        let origin = Origin { server: me, client: from, xid };
        let txn = Txn::Op { session, op, controller, now };
        self.submit(origin, txn, now, links, out);
    }

    /// Applies a committed transaction to this replica; the server the request came through
    /// answers its client. Returns nothing; effects go to `out`.
    pub(super) fn apply_txn(
        &mut self,
        zxid: u64,
        txn: &Txn,
        origin: Option<Origin>,
        links: &dyn ClientLinks,
        out: &mut Outbox,
    ) {
        self.zxid = zxid;
        let me = self.id;
        let mine = origin.filter(|o| o.server == me);
        match txn {
            Txn::CreateSession { owner, timeout_ms, now } => {
                let s = self.tree.open_session(*owner, *timeout_ms, *now);
                if self.role == Role::Leading {
                    self.tracker.add(s, *timeout_ms, *now);
                }
                if let Some(o) = mine {
                    out.headline(EventKind::ZkRequest, || {
                        format!("{me}: new session 0x{s:x} for {} (timeout {timeout_ms} ms)", o.client)
                    });
                    self.accept(o.client, s, out);
                }
            }
            Txn::CloseSession { session, bucket } => self.close_session(*session, *bucket, links, out),
            Txn::Error { .. } | Txn::AdminDelete { .. } => {}
            Txn::Op { session, op, controller, now } => {
                // What Kafka's story needs of the tree as it was, on the server that answers.
                let before = mine.map(|_| Before::read(&self.tree, op, *controller)).unwrap_or_default();
                let (result, events) = self.tree.apply(*session, op, *now);
                if let Some(o) = mine {
                    writes::applied(me, o.client, *session, &before, &self.tree, &result, out);
                }
                if let Some(o) = mine {
                    self.answer(o, *session, op, *controller, before.current_epoch, result, out);
                }
                self.notify(events, links, out);
            }
        }
    }

    /// The reply to a write, with the server-side lines Kafka's story needs
    /// ([`writes::answered`]: ZooKeeper itself knows nothing of controller epochs).
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &mut self,
        o: Origin,
        session: SessionId,
        op: &ZkOp,
        controller: bool,
        current_epoch: i32,
        result: ZkResult,
        out: &mut Outbox,
    ) {
        let (me, from) = (self.id, o.client);
        out.headline(EventKind::ZkRequest, || {
            format!("{me}: {} from {from} (session 0x{session:x}) → {}", op.describe(), result_summary(&result))
        });
        writes::answered(me, from, op, controller, current_epoch, &result, out);
        out.send(from, Payload::ZkResponse { session, xid: o.xid, result });
    }

    /// A timer set by this server: the expirer's bucket, the quorum tick, an election round.
    pub fn on_timer(&mut self, timer: &Timer, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        match *timer {
            Timer::ZkExpireBucket { at } => self.expire_bucket(at, now, links, out),
            Timer::ZkSyncLimit { peer, since } => self.on_sync_limit(peer, since, now, out),
            Timer::ZkElection { round } => self.on_election_timer(round, now, out),
            _ => {}
        }
    }

    /// `SessionTrackerImpl.run` at bucket time `at`: every session still in that bucket is marked
    /// closing and a `closeSession` transaction is submitted (`ZooKeeperServer.expire`). A session
    /// touched again since its timer was armed (its relay is live) was heard: it moves on instead.
    fn expire_bucket(&mut self, at: u64, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        self.buckets.remove(&at);
        if self.role != Role::Leading {
            return;
        }
        let me = self.id;
        if !self.can_commit() && !self.tracker.due(at).is_empty() {
            // No quorum would ACK the closeSession now: the expirer tries again next tick.
            out.headline(EventKind::Info, || {
                format!("{me}: session expirer at bucket {at} ms: no quorum, waits a tick")
            });
            self.arm_bucket(at + self.tick_ms, now, out);
            return;
        }
        out.headline(EventKind::Info, || format!("{me}: session expirer at bucket {at} ms"));
        for s in self.tracker.due(at) {
            let Some(sess) = self.tree.session(s).cloned() else {
                self.tracker.remove(s);
                continue;
            };
            if matches!(self.relay.get(&s), Some(Some(_))) {
                self.touch(s, now);
                continue;
            }
            self.tracker.set_closing(s);
            let origin = Origin { server: me, client: sess.owner, xid: 0 };
            self.submit(origin, Txn::CloseSession { session: s, bucket: at }, now, links, out);
        }
    }

    /// `DataTree.killSession` on this replica: the session's ephemerals are deleted and their
    /// watchers told; the server the session's client is connected to closes its connection.
    fn close_session(&mut self, session: SessionId, bucket: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        let me = self.id;
        let Some(s) = self.tree.session(session).cloned() else { return };
        let (deleted, events) = self.tree.expire(session);
        self.held.remove(&session);
        self.tracker.remove(session);
        self.relay.remove(&session);
        out.headline(
            EventKind::SessionExpired,
            || format!(
                "{me}: session 0x{session:x} of {} expired (not heard within its {} ms timeout; bucket {bucket} ms); deleted ephemeral {}",
                s.owner,
                s.timeout_ms,
                if deleted.is_empty() { String::from("nothing") } else { deleted.join(", ") }
            ),
        );
        if self.role == Role::Leading {
            out.mark(Mark::SessionExpired { session, owner: s.owner, server: Some(me), bucket_ms: Some(bucket) });
        }
        if self.clients.get(&s.owner) == Some(&session) {
            self.clients.remove(&s.owner);
            if !self.peers.is_empty() {
                out.send(s.owner, Payload::ZkClosed);
            }
        }
        self.notify(events, links, out);
    }

    /// `SetWatches` on a resumed connection (`FinalRequestProcessor`, `OpCode.setWatches`,
    /// release-3.4.10 `FinalRequestProcessor.java:293-303`): served from this replica, like a read.
    fn on_set_watches(
        &mut self,
        from: NodeId,
        session: SessionId,
        watches: &[crate::zookeeper::watch::ClientWatch],
        now: u64,
        links: &dyn ClientLinks,
        out: &mut Outbox,
    ) {
        if self.role == Role::Looking || self.clients.get(&from) != Some(&session) {
            return;
        }
        self.touch(session, now);
        let events = self.tree.set_watches(session, watches);
        let me = self.id;
        out.headline(EventKind::ZkRequest, || {
            format!(
                "{me}: setWatches from {from} (session 0x{session:x}): {} watch(es) set again, {} fired at once",
                watches.len() - events.len(),
                events.len()
            )
        });
        self.notify(events, links, out);
    }

    /// The client's TCP connection was reset: the server closes its side (`NIOServerCnxn.close`);
    /// the session lives on, but the watches the client set here and the notifications queued on
    /// the connection go with it (the client sets its watches again on its next connection).
    pub fn on_client_reset(&mut self, client: NodeId, out: &mut Outbox) -> bool {
        let Some(session) = self.clients.remove(&client) else { return false };
        self.tree.drop_watches(session);
        self.held.remove(&session);
        let me = self.id;
        out.log(EventKind::ZkSession, || {
            format!("{me}: connection of {client} (session 0x{session:x}) reset; closed; its watches here removed")
        });
        true
    }

    /// A change in what the server hears of `client`'s connection, which carries `session`.
    /// Silence and hearing again reach the leader's tracker by the implicit relay
    /// ([`ZkServerNode::on_touches`]); a healed connection gets what was held for it.
    pub fn on_client_link(&mut self, client: NodeId, session: SessionId, change: ClientLink, out: &mut Outbox) {
        if change == ClientLink::Healed {
            self.release_held(session, client, out);
        }
    }

    /// A notification the server sent did not reach its client: the server holds it for the
    /// session, while the session lives, until the client can receive it.
    pub fn on_watch_undelivered(&mut self, event: &WatchEvent, out: &mut Outbox) {
        if !self.tree.is_live(event.session) {
            return;
        }
        self.held.or_default(event.session).push(event.clone());
        out.log(EventKind::Info, || {
            format!("{} holds the notification for session 0x{:x} until it reconnects", self.id, event.session)
        });
    }

    /// An operator's `delete <path>` from `zookeeper-shell` (on its own short session), sent to
    /// the leader: removes a childless node, and every server notifies its watchers as it applies
    /// it. False if this server is not leading, or there is no such node, or it has children.
    pub fn admin_delete(&mut self, path: &str, now: u64, links: &dyn ClientLinks, out: &mut Outbox) -> bool {
        if self.role != Role::Leading || self.tree.get(path).is_none() || self.tree.has_children(path) {
            return false;
        }
        let txn = Txn::AdminDelete { path: path.into() };
        let origin = Origin { server: self.id, client: self.id, xid: 0 };
        self.submit(origin, txn, now, links, out);
        true
    }

    /// Applies an operator's delete on this replica.
    pub(super) fn apply_admin_delete(&mut self, path: &str, links: &dyn ClientLinks, out: &mut Outbox) {
        if let Some(events) = self.tree.admin_delete(path) {
            self.notify(events, links, out);
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
    pub(super) fn notify(&mut self, events: Vec<WatchEvent>, links: &dyn ClientLinks, out: &mut Outbox) {
        for event in events {
            let Some(owner) = self.tree.session(event.session).map(|s| s.owner) else { continue };
            if links.reachable(self.id, owner) && self.clients.get(&owner) == Some(&event.session) {
                out.send(owner, Payload::ZkWatch { event });
            } else {
                self.held.or_default(event.session).push(event);
            }
        }
    }

    /// Closes every client connection (a follower that gave up on its leader, a leader that lost
    /// its quorum): each client sees its connection drop and tries its next server.
    pub(super) fn drop_clients(&mut self, why: &str, out: &mut Outbox) {
        let clients: Vec<NodeId> = self.clients.keys().copied().collect();
        self.clients.clear();
        for c in &clients {
            out.send(*c, Payload::ZkClosed);
        }
        out.mark(Mark::ZkClientsDropped { server: self.id, clients: clients.clone() });
        out.log(EventKind::ZkSession, || format!("{}: {why}; closes {} client connection(s)", self.id, clients.len()));
    }
}

#[cfg(test)]
mod tests {
    //! The server driven message by message, as a world would drive it (like quinn-proto's test
    //! `Pair`): each call is one input, and the test reads the effects it produced.
    use super::*;
    use crate::ids::TopicPartition;
    use crate::vec_map::{VecMap, VecSet};
    use crate::znodes::{LeaderIsr, ZData};
    use crate::zookeeper::ops::{MultiOp, ZkError};
    use crate::zookeeper::watch::{ClientWatch as ClientWatchOf, WatchEventType};
    use alloc::vec;

    const TIMEOUT: u64 = 6000;
    const B1: NodeId = NodeId::Broker(1);
    const B2: NodeId = NodeId::Broker(2);

    /// What the test says the server can observe: clients whose link is cut, and the session each
    /// client's live connection carries.
    #[derive(Default)]
    struct Links {
        cut: VecSet<NodeId>,
        on: VecMap<NodeId, SessionId>,
    }

    impl ClientLinks for Links {
        fn reachable(&self, _: NodeId, client: NodeId) -> bool {
            !self.cut.contains(&client)
        }
        fn pinging(&self, _: NodeId, client: NodeId, session: SessionId) -> bool {
            !self.cut.contains(&client) && self.on.get(&client) == Some(&session)
        }
        fn peers_up(&self, _: NodeId, _: NodeId) -> bool {
            true
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
            self.relay(&mut out);
            out
        }

        /// What the world does after every step: the implicit ping relay.
        fn relay(&mut self, out: &mut Outbox) {
            let mut servers = VecMap::new();
            servers.insert(self.zk.id(), self.zk.clone());
            for (_, touched) in crate::zookeeper::quorum::relayed_touches(&servers, &self.links) {
                self.zk.on_touches(&touched, self.now, out);
            }
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
            let out = self.deliver(client, Payload::ZkRequest { session, xid: 1, op: Rc::new(op), controller });
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
            self.relay(&mut out);
            out
        }

        /// Cuts the client's link both ways at `at`: the server stops hearing it.
        fn cut(&mut self, client: NodeId, at: u64) -> Outbox {
            self.now = at;
            self.links.cut.insert(client);
            let mut out = Outbox::default();
            self.relay(&mut out);
            out
        }

        /// Heals the client's link at `at`; its connection survived.
        fn heal(&mut self, client: NodeId, at: u64) -> Outbox {
            self.now = at;
            self.links.cut.remove(&client);
            let mut out = Outbox::default();
            let s = self.links.on[&client];
            self.zk.on_client_link(client, s, ClientLink::Healed, &mut out);
            self.relay(&mut out);
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
        assert_eq!(p.zk.tracker().expires_at(0x1001), Some(8000), "touched at 50: bucket roundToInterval(6050)");
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
    fn a_notification_held_for_a_dead_connection_comes_back_through_set_watches() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        let (read, _) = p.request(B2, ZkOp::GetData { path: "/controller".into(), watch: true }, false);
        let ZkResult::Data { stat, .. } = read else { panic!("{read:?}") };
        let b = p.links.on[&B2];
        p.cut(B2, 10);
        let (_, out) = p.request(B1, ZkOp::Delete { path: "/controller".into(), version: -1 }, true);
        assert!(watches(&out).is_empty(), "b2 cannot be reached");
        let held = WatchEvent { session: b, path: "/controller".into(), kind: WatchEventType::NodeDeleted };
        assert_eq!(p.zk.held(b), &[held.clone()][..]);

        // b2 timed out its connection and reconnects on the same session: a new connection gets
        // only the answer (what was queued on the old one died with it)…
        p.links.cut.remove(&B2);
        let out = p.connect(B2, Some(b));
        assert_eq!(out.sent(), vec![(B2, Payload::ZkConnectResponse { result: ConnectResult::Connected(b) })]);
        assert!(p.zk.held(b).is_empty());
        // …and the client's SetWatches, with the mzxid it read, fires the deletion at once.
        let watch = ClientWatchOf::Data { path: "/controller".into(), mzxid: Some(stat.mzxid) };
        let out = p.deliver(B2, Payload::ZkSetWatches { session: b, watches: vec![watch.clone()] });
        assert_eq!(watches(&out), vec![(B2, held)]);
        // A node that did not change is watched again, and fires on its next change.
        p.request(B1, create("/controller", true), true);
        let (read, _) = p.request(B2, ZkOp::GetData { path: "/controller".into(), watch: false }, false);
        let ZkResult::Data { stat, .. } = read else { panic!("{read:?}") };
        let watch = ClientWatchOf::Data { path: "/controller".into(), mzxid: Some(stat.mzxid) };
        let out = p.deliver(B2, Payload::ZkSetWatches { session: b, watches: vec![watch] });
        assert!(watches(&out).is_empty(), "unchanged since read: watched again, nothing fired");
        let (_, out) = p.request(B1, ZkOp::Delete { path: "/controller".into(), version: -1 }, true);
        assert_eq!(watches(&out).len(), 1, "the re-set watch fires");
    }

    #[test]
    fn a_reset_connection_takes_its_watches_and_queue_with_it() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        p.request(B2, ZkOp::GetData { path: "/controller".into(), watch: true }, false);
        let mut out = Outbox::default();
        assert!(p.zk.on_client_reset(B2, &mut out), "b2 was connected here");
        assert!(!p.zk.on_client_reset(B2, &mut out), "only once");
        let (_, out) = p.request(B1, ZkOp::Delete { path: "/controller".into(), version: -1 }, true);
        assert!(watches(&out).is_empty(), "the watch went with the connection");
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
    fn a_silent_session_expires_in_its_tick_bucket() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        let (_, _) = p.request(B2, ZkOp::GetData { path: "/controller".into(), watch: true }, false);
        let a = p.links.on[&B1];
        // Cut at 20 000 ms: last touched then, so it expires at roundToInterval(26 000) = 28 000.
        let out = p.cut(B1, 20_000);
        assert_eq!(out.timers(), vec![(8000, Timer::ZkExpireBucket { at: 28_000 })]);
        assert_eq!(p.zk.tracker().expires_at(a), Some(28_000));
        let out = p.fire(28_000, Timer::ZkExpireBucket { at: 28_000 });
        assert!(!p.zk.tree().is_live(a));
        assert!(p.zk.tree().get("/controller").is_none());
        assert_eq!(
            out.marks(),
            vec![Mark::SessionExpired { session: a, owner: B1, server: Some(NodeId::ZK), bucket_ms: Some(28_000) }]
        );
        let b = p.links.on[&B2];
        assert_eq!(
            watches(&out),
            vec![(B2, WatchEvent { session: b, path: "/controller".into(), kind: WatchEventType::NodeDeleted })]
        );
        let out = p.connect(B1, Some(a));
        assert_eq!(out.sent(), vec![(B1, Payload::ZkConnectResponse { result: ConnectResult::Expired })]);
    }

    #[test]
    fn a_client_still_pinging_at_its_bucket_is_not_expired() {
        let mut p = Pair::new(DataTree::new());
        p.request(B1, create("/controller", true), true);
        let a = p.links.on[&B1];
        p.cut(B1, 0);
        p.heal(B1, 100);
        let out = p.fire(8000, Timer::ZkExpireBucket { at: 8000 });
        assert!(p.zk.tree().is_live(a) && out.marks().is_empty());
        assert_eq!(p.zk.tracker().expires_at(a), Some(16_000));
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
                "zk: refused a fenced controller write (setData /brokers/topics/t/partitions/0/state) from b1: it expected /controller_epoch at version 3, which another controller has moved on (BADVERSION)"
            )]
        );
        assert_eq!(p.zk.tree().get("/brokers/topics/t/partitions/0/state").map(|n| n.stat.version), Some(0));
    }
}
