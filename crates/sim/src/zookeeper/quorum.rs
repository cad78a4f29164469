//! The ensemble's quorum protocol (ZooKeeper 3.4.10), as each server's share of it: roles,
//! election, sync, pings with the session touch relay, forwarded requests and commits.
//!
//! * Roles: `Leading`, `Following(leader)`, `Looking` (`QuorumPeer.ServerState`).
//! * Election (`FastLeaderElection`): a looking server sends its vote to every peer and waits
//!   `finalizeWait` = 200 ms (`release-3.4.10 FastLeaderElection.java:60`), doubling the wait up
//!   to `maxNotificationInterval` = 60 s while it hears no quorum (`FastLeaderElection.java:69,850`).
//!   Votes order by zxid, then server id (`totalOrderPredicate`, `FastLeaderElection.java:611`;
//!   the model has one epoch at a time and skips its first key). A server that hears a quorum of
//!   looking servers (itself included) picks the best vote; one that hears a peer already leading
//!   joins it, and a new leader announces itself to every peer so a looking one joins at once.
//!   Simplification: no vote-of-votes counting beyond that (3.4.10 joins an established leader
//!   once a quorum of out-of-election notifications agrees, `FastLeaderElection.java:930-966`).
//!   A link coming back to a looking server makes it send its vote again (a new connection
//!   carries the last notification, `QuorumCnxManager.java:132` `lastMessageSent`).
//! * Sync: a follower connects with its zxid (FOLLOWERINFO) and always takes the leader's tree
//!   (SNAP), which also covers a follower that rejoins after its connection was closed.
//! * Pings are implicit, like a client's (no PING packet, no periodic timer: an idle ensemble
//!   schedules nothing). The leader pings every follower every `tickTime / 2`
//!   (`release-3.4.10 Leader.java:465`); a follower answers with its touch table
//!   (`Learner.java:538` `ping`, `LearnerSessionTracker.java:70` `snapshot`), which the leader
//!   applies to its tracker (`LearnerHandler.java:586-594`). The model derives that relay:
//!   after every step the world hands each leader [`relayed_touches`] — the sessions whose client
//!   is heard by its server (the leader itself, or a synced follower of the same epoch whose link
//!   to the leader works both ways) — and the leader's [`ZkServerNode::on_touches`] notes when a
//!   session stops being touched. A session relayed by a follower was last touched at the last
//!   ping instant (`since + k * tickTime / 2`) before that; one heard by the leader itself, at
//!   that moment. A session touched again (a stalled follower link healed: its queued ping
//!   replies arrive) is touched then (at the heal, not heal + latency: a simplification). Only a session that stops being touched gets an expirer
//!   timer.
//! * syncLimit: a follower whose link to its leader stalls gives up `syncLimit * tickTime` later
//!   if the link is still down (its socket timeout, `Learner.java:468`) and goes looking; a
//!   leader whose link to a follower stalls drops that follower then, and stops leading if it no
//!   longer has a quorum synced (itself included) (`Leader.java:465-495`, with
//!   `LearnerHandler.synced`, `LearnerHandler.java:711`). The timer is armed when the link changes
//!   ([`ZkServerNode::on_peer_link`]). Either closes its client connections. A server that stops
//!   leading or following tells its peers by its next vote (`state: looking`); a peer still
//!   connected to it takes that as its connection closing.
//! * Writes: a follower forwards a write (and create/close session) to the leader; the leader
//!   checks the session (`PrepRequestProcessor.java:325`, a failed check is an error transaction
//!   answered like any other) and commits. Simplification: no PROPOSAL/ACK round trip — the leader
//!   commits at once if a quorum of servers (itself included) is synced with it over connections
//!   that are not stalled (those that would ACK now), then sends COMMIT to each synced follower,
//!   which applies transactions in zxid order. Without such a quorum the request is dropped (the
//!   real proposal would wait for ACKs; the client resends it on its next connection, and the
//!   leader closes its clients once syncLimit passes), and the expirer waits a tick.
//! * A cut link between two servers is a stalled TCP connection: the world holds its packets in
//!   order and delivers them when it heals; a packet of a connection one side has since closed
//!   (another epoch, or a server that is no longer following the sender) is discarded.
use super::ops::{ZkError, ZkResult};
use super::proto::{Origin, PeerMsg, Role, Txn, FINALIZE_WAIT_MS, MAX_NOTIFICATION_INTERVAL_MS};
use super::server::{ClientLinks, ZkServerNode};
use super::session::SessionId;
use super::session_tracker::SessionTracker;
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::NodeId;
use crate::mark::Mark;
use crate::message::{ConnectResult, Payload};
use crate::vec_map::VecMap;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

impl ZkServerNode {
    fn quorum(&self) -> usize {
        let servers = self.peers.len() + 1;
        servers / 2 + 1
    }

    /// Servers that would ACK a proposal now: the leader and each synced follower whose
    /// connection is not stalled.
    pub(super) fn acking(&self) -> usize {
        self.heard.keys().filter(|f| !self.stalled.contains_key(f)).count() + 1
    }

    /// A quorum would ACK a proposal now.
    pub(super) fn can_commit(&self) -> bool {
        self.acking() >= self.quorum()
    }

    fn sync_ms(&self) -> u64 {
        self.sync_limit * self.tick_ms
    }

    /// Submits a transaction: a follower forwards it to its leader; the leader checks the session
    /// and commits it if a quorum is synced with it.
    pub(super) fn submit(&mut self, origin: Origin, txn: Txn, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        match self.role {
            Role::Following(l) => {
                let msg = PeerMsg::Forward { epoch: self.epoch, origin, txn };
                out.send(l, Payload::ZkPeer { msg });
            }
            Role::Looking => {}
            Role::Leading => {
                let txn = match txn {
                    Txn::Op { session, op, .. } if !self.tracker.check(session) => {
                        Txn::Error { session, op, code: ZkError::SessionExpired }
                    }
                    Txn::Op { session, op, controller, .. } => Txn::Op { session, op, controller, now },
                    other => other,
                };
                let synced = self.acking();
                if synced < self.quorum() {
                    out.log(EventKind::ZkRequest, || {
                        format!(
                            "{}: no quorum synced ({synced} of {}); {} not committed",
                            self.id,
                            self.peers.len() + 1,
                            txn.label()
                        )
                    });
                    return;
                }
                let zxid = self.zxid + 1;
                self.commit_local(zxid, &txn, Some(origin), links, out);
                let followers: Vec<NodeId> = self.heard.keys().copied().collect();
                for f in followers {
                    let msg = PeerMsg::Commit { epoch: self.epoch, zxid, txn: txn.clone(), origin: Some(origin) };
                    out.send(f, Payload::ZkPeer { msg });
                }
            }
        }
    }

    fn commit_local(
        &mut self,
        zxid: u64,
        txn: &Txn,
        origin: Option<Origin>,
        links: &dyn ClientLinks,
        out: &mut Outbox,
    ) {
        match txn {
            Txn::AdminDelete { path } => {
                self.zxid = zxid;
                self.apply_admin_delete(path, links, out);
            }
            Txn::Error { session, code, .. } => {
                self.zxid = zxid;
                if let Some(o) = origin.filter(|o| o.server == self.id) {
                    out.headline(EventKind::ZkRequest, || {
                        format!(
                            "{}: {} from {} (session 0x{session:x}) → error {}",
                            self.id,
                            txn.label(),
                            o.client,
                            code.name()
                        )
                    });
                    let result = ZkResult::Error { code: *code };
                    out.send(o.client, Payload::ZkResponse { session: *session, xid: o.xid, result });
                }
            }
            _ => self.apply_txn(zxid, txn, origin, links, out),
        }
    }

    /// A packet from another server.
    pub(super) fn on_peer(&mut self, from: NodeId, msg: PeerMsg, now: u64, links: &dyn ClientLinks, out: &mut Outbox) {
        let me = self.id;
        out.headline(EventKind::ZkRequest, || format!("{me} ← {from}: {}", msg.label()));
        let leader_ok = |z: &ZkServerNode, epoch: u64| z.role == Role::Following(from) && z.epoch == epoch;
        let follower_ok =
            |z: &ZkServerNode, epoch: u64| z.role == Role::Leading && z.epoch == epoch && z.heard.contains_key(&from);
        match msg {
            PeerMsg::Vote { epoch, zxid, vote, state, reply } => {
                if state != Role::Leading && self.role == Role::Following(from) {
                    // The leader stopped leading (or never led: a stale announcement): its
                    // connection to us closed.
                    self.drop_clients(&format!("leader {from} stopped leading (its connection closed)"), out);
                    self.start_election(now, out);
                } else if state == Role::Looking && self.role == Role::Leading && self.heard.remove(&from).is_some() {
                    out.log(EventKind::ZkSession, || format!("{me}: follower {from} closed its connection (looking)"));
                    self.check_quorum(now, out);
                }
                if self.role == Role::Looking && state == Role::Leading && !reply {
                    // A peer announces it leads (`FastLeaderElection` answers a looking server
                    // with the established leader): join it now rather than at the next round.
                    self.follow(from, now, out);
                    return;
                }
                if self.role == Role::Looking {
                    self.votes.insert(from, (zxid, vote, state, epoch));
                }
                if !reply {
                    let vote = match self.role {
                        Role::Leading => me,
                        Role::Following(l) => l,
                        Role::Looking => me,
                    };
                    let msg = PeerMsg::Vote { epoch: self.epoch, zxid: self.zxid, vote, state: self.role, reply: true };
                    out.send(from, Payload::ZkPeer { msg });
                }
            }
            PeerMsg::FollowerInfo { .. } if self.role == Role::Leading => {
                self.heard.insert(from, now);
                let msg = PeerMsg::Snap { epoch: self.epoch, zxid: self.zxid, tree: Some(Box::new(self.tree.clone())) };
                out.send(from, Payload::ZkPeer { msg });
            }
            PeerMsg::FollowerInfo { .. } => {
                // Not leading: the connection is refused; the would-be follower learns our state.
                let vote = if let Role::Following(l) = self.role { l } else { me };
                let msg = PeerMsg::Vote { epoch: self.epoch, zxid: self.zxid, vote, state: self.role, reply: true };
                out.send(from, Payload::ZkPeer { msg });
            }
            PeerMsg::Snap { epoch, zxid, tree: Some(tree) } if self.role == Role::Following(from) => {
                self.tree = *tree;
                self.zxid = zxid;
                self.pending.retain(|z, _| *z > zxid);
                self.epoch = epoch;
                self.synced = true;
                self.heard.insert(from, now);
                out.log(EventKind::ZkSession, || format!("{me}: following {from}, synced to zxid {zxid} (SNAP)"));
            }
            PeerMsg::Forward { epoch, origin, txn } if follower_ok(self, epoch) => {
                self.submit(origin, txn, now, links, out);
            }
            PeerMsg::Commit { epoch, zxid, txn, origin } if leader_ok(self, epoch) && zxid > self.zxid => {
                // The quorum connection is one TCP stream: a commit overtaken on the wire (link
                // jitter) waits for the ones before it, and the follower applies in zxid order.
                self.pending.insert(zxid, (txn, origin));
                while let Some((txn, origin)) = self.pending.remove(&(self.zxid + 1)) {
                    self.commit_local(self.zxid + 1, &txn, origin, links, out);
                }
            }
            PeerMsg::Revalidate { epoch, session, client } if follower_ok(self, epoch) => {
                let valid = self.tree.is_live(session) && self.touch(session, now);
                let msg = PeerMsg::RevalidateReply { epoch, session, client, valid };
                out.send(from, Payload::ZkPeer { msg });
            }
            PeerMsg::RevalidateReply { epoch, session, client, valid } if leader_ok(self, epoch) => {
                if valid {
                    out.log(EventKind::ZkSession, || format!("{me}: session 0x{session:x} of {client} resumed here"));
                    self.accept(client, session, out);
                } else {
                    out.send(client, Payload::ZkConnectResponse { result: ConnectResult::Expired });
                }
            }
            other => {
                out.headline(EventKind::Info, || {
                    format!("{me} ← {from}: {} (of a closed or stale connection; discarded)", other.label())
                });
            }
        }
    }

    /// A leader that no longer has a quorum synced (itself included) stops leading
    /// (`Leader.java:465-495`) and closes its clients.
    fn check_quorum(&mut self, now: u64, out: &mut Outbox) {
        if self.role == Role::Leading && self.heard.len() + 1 < self.quorum() {
            self.drop_clients("Not sufficient followers synced; stops leading", out);
            self.start_election(now, out);
        }
    }

    /// The world tells the server that its link to `peer` (both ways) went down or came back.
    /// A stalled link arms the `syncLimit` timer; a link back to a looking server sends its vote
    /// again (a new connection carries a notification, `QuorumCnxManager`).
    pub fn on_peer_link(&mut self, peer: NodeId, up: bool, now: u64, out: &mut Outbox) {
        if up {
            self.stalled.remove(&peer);
            if self.role == Role::Looking {
                self.not_timeout = FINALIZE_WAIT_MS;
                self.broadcast_vote(out);
            }
            return;
        }
        let watched = match self.role {
            Role::Following(l) => l == peer,
            Role::Leading => self.heard.contains_key(&peer),
            Role::Looking => false,
        };
        if watched {
            self.stalled.insert(peer, now);
            out.timer(self.sync_ms(), Timer::ZkSyncLimit { peer, since: now });
        }
    }

    /// `syncLimit * tickTime` after the link to `peer` stalled at `since`: if it is still stalled,
    /// a follower gives up on its leader, a leader drops the follower (and maybe its leadership).
    pub(super) fn on_sync_limit(&mut self, peer: NodeId, since: u64, now: u64, out: &mut Outbox) {
        if self.stalled.get(&peer) != Some(&since) {
            return;
        }
        self.stalled.remove(&peer);
        let me = self.id;
        let limit = self.sync_ms();
        match self.role {
            Role::Following(l) if l == peer => {
                out.headline(EventKind::ZkSession, || {
                    format!("{me}: no packet from leader {l} for {limit} ms (syncLimit)")
                });
                self.drop_clients(&format!("gives up on leader {l}"), out);
                self.start_election(now, out);
            }
            Role::Leading if self.heard.remove(&peer).is_some() => {
                out.headline(EventKind::ZkSession, || {
                    format!("{me}: follower {peer} not heard for {limit} ms (syncLimit); closing its connection")
                });
                self.check_quorum(now, out);
            }
            _ => {}
        }
    }

    /// The implicit PING round (see the module docs): the sessions whose touches reach this
    /// leader now, each with the server that hears its client. Sessions that stop being touched
    /// are touched at their last relayed instant and get an expirer timer at their bucket;
    /// sessions touched again are touched now. Emits only timers.
    pub fn on_touches(&mut self, touched: &VecMap<SessionId, NodeId>, now: u64, out: &mut Outbox) {
        if self.role != Role::Leading {
            return;
        }
        let half = (self.tick_ms / 2).max(1);
        let tracked: Vec<SessionId> = self.tracker.live().collect();
        for s in tracked {
            let was = self.relay.get(&s).copied();
            match (touched.get(&s), was) {
                (Some(by), Some(Some(prev))) if *by == prev => {}
                (Some(by), _) => {
                    self.tracker.touch(s, now);
                    self.relay.insert(s, Some(*by));
                }
                (None, Some(None)) => {}
                (None, was) => {
                    if let Some(Some(by)) = was {
                        let last = if by == self.id { now } else { now - (now.saturating_sub(self.since) % half) };
                        self.tracker.touch(s, last);
                    }
                    self.relay.insert(s, None);
                    if let Some(at) = self.tracker.expires_at(s) {
                        self.arm_bucket(at, now, out);
                    }
                }
            }
        }
    }

    /// Feeds `h` everything [`relayed_touches`] and [`ZkServerNode::touches_changed`] read of this
    /// server: its role, epoch and sync, the followers it heard, its clients, its live sessions
    /// and what it last relayed. While no server's inputs moved (nor a link or a broker's
    /// session), the relay has nothing new to do (the world skips it; debug builds check).
    pub(crate) fn hash_relay_inputs(&self, h: &mut impl core::hash::Hasher) {
        use core::hash::Hash;
        (self.id, self.role, self.synced, self.epoch).hash(h);
        h.write_usize(self.heard.len());
        self.heard.keys().for_each(|k| k.hash(h));
        h.write_usize(self.clients.len());
        self.clients.iter().for_each(|c| c.hash(h));
        let mut live = 0usize;
        self.tracker.live().for_each(|s| {
            live += 1;
            s.hash(h)
        });
        h.write_usize(live);
        h.write_usize(self.relay.len());
        self.relay.iter().for_each(|r| r.hash(h));
    }

    /// Whether [`ZkServerNode::on_touches`] would change anything (so the world can skip it).
    pub fn touches_changed(&self, touched: &VecMap<SessionId, NodeId>) -> bool {
        self.role == Role::Leading
            && self.tracker.live().any(|s| match (touched.get(&s), self.relay.get(&s)) {
                (Some(by), Some(Some(prev))) => by != prev,
                (None, Some(None)) => false,
                _ => true,
            })
    }

    /// Goes looking: votes for itself and tells every peer.
    pub(super) fn start_election(&mut self, now: u64, out: &mut Outbox) {
        self.role = Role::Looking;
        self.heard.clear();
        self.synced = false;
        self.since = now;
        self.tracker = SessionTracker::new(self.tick_ms);
        self.buckets.clear();
        self.relay.clear();
        self.stalled.clear();
        self.pending.clear();
        self.not_timeout = FINALIZE_WAIT_MS;
        self.broadcast_vote(out);
    }

    fn broadcast_vote(&mut self, out: &mut Outbox) {
        self.votes.clear();
        self.round += 1;
        for p in self.peers.clone() {
            let msg =
                PeerMsg::Vote { epoch: self.epoch, zxid: self.zxid, vote: self.id, state: Role::Looking, reply: false };
            out.send(p, Payload::ZkPeer { msg });
        }
        out.timer(self.not_timeout, Timer::ZkElection { round: self.round });
    }

    /// The election's wait is over: join a leader, lead, follow the best vote, or ask again.
    pub(super) fn on_election_timer(&mut self, round: u64, now: u64, out: &mut Outbox) {
        if round != self.round || self.role != Role::Looking {
            return;
        }
        let me = self.id;
        out.headline(EventKind::Info, || format!("{me}: election round {round} ({} peer(s) heard)", self.votes.len()));
        let leading = self.votes.iter().filter(|(_, v)| v.2 == Role::Leading).map(|(p, _)| *p).max();
        if let Some(l) = leading {
            self.follow(l, now, out);
            return;
        }
        let looking: Vec<(u64, NodeId)> =
            self.votes.iter().filter(|(_, v)| v.2 == Role::Looking).map(|(p, v)| (v.0, *p)).collect();
        if looking.len() + 1 >= self.quorum() {
            let best = looking.iter().copied().chain(core::iter::once((self.zxid, me))).max().map(|b| b.1);
            if best == Some(me) {
                let seen = self.votes.values().map(|v| v.3).max().unwrap_or(0);
                self.epoch = self.epoch.max(seen) + 1;
                self.role = Role::Leading;
                self.since = now;
                self.heard.clear();
                self.start_tracker(now);
                out.log(EventKind::LeaderChange, || {
                    format!("{me}: LEADING (epoch {}, zxid {})", self.epoch, self.zxid)
                });
                out.mark(Mark::ZkLeaderElected { server: me, epoch: self.epoch, zxid: self.zxid });
                for p in self.peers.clone() {
                    let msg = PeerMsg::Vote {
                        epoch: self.epoch,
                        zxid: self.zxid,
                        vote: me,
                        state: Role::Leading,
                        reply: false,
                    };
                    out.send(p, Payload::ZkPeer { msg });
                }
            } else if let Some(b) = best {
                self.follow(b, now, out);
            }
            return;
        }
        self.not_timeout = (self.not_timeout * 2).min(MAX_NOTIFICATION_INTERVAL_MS);
        self.broadcast_vote(out);
    }

    fn follow(&mut self, leader: NodeId, now: u64, out: &mut Outbox) {
        self.role = Role::Following(leader);
        self.since = now;
        self.synced = false;
        self.heard.clear();
        self.heard.insert(leader, now);
        self.stalled.clear();
        out.log(EventKind::ZkSession, || format!("{}: FOLLOWING {leader}", self.id));
        out.send(leader, Payload::ZkPeer { msg: PeerMsg::FollowerInfo { zxid: self.zxid } });
    }
}

/// The implicit PING round of every leader among `servers`: for each leader, the sessions whose
/// client is heard now by the leader itself or by a synced follower of its epoch whose link to it
/// works both ways, with that server.
pub fn relayed_touches(
    servers: &VecMap<NodeId, ZkServerNode>,
    links: &dyn ClientLinks,
) -> Vec<(NodeId, VecMap<SessionId, NodeId>)> {
    let mut all = Vec::new();
    for l in servers.values().filter(|z| z.role == Role::Leading) {
        let mut touched = VecMap::new();
        for f in servers.values() {
            let relays = f.id == l.id
                || (f.role == Role::Following(l.id)
                    && f.synced
                    && f.epoch == l.epoch
                    && l.heard.contains_key(&f.id)
                    && links.peers_up(f.id, l.id));
            if !relays {
                continue;
            }
            for (c, s) in &f.clients {
                if links.pinging(f.id, *c, *s) {
                    touched.insert(*s, f.id);
                }
            }
        }
        all.push((l.id, touched));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::znodes::ZData;
    use crate::zookeeper::data_tree::DataTree;
    use crate::zookeeper::ops::ZkOp;
    use alloc::rc::Rc;
    use alloc::vec;

    const B1: NodeId = NodeId::Broker(1);
    const ZK1: NodeId = NodeId::Zk(1);
    const ZK2: NodeId = NodeId::Zk(2);
    const ZK3: NodeId = NodeId::Zk(3);

    struct Links;
    impl ClientLinks for Links {
        fn reachable(&self, _: NodeId, _: NodeId) -> bool {
            true
        }
        fn pinging(&self, _: NodeId, _: NodeId, _: SessionId) -> bool {
            false
        }
        fn peers_up(&self, _: NodeId, _: NodeId) -> bool {
            true
        }
    }

    /// zk3 leading zk1 and zk2 at time 0, with b1's session (6 s) open since 0: bucket 8 000.
    fn leader() -> (ZkServerNode, SessionId) {
        let mut tree = DataTree::new();
        let s = tree.open_session(B1, 6000, 0);
        let z = ZkServerNode::member(ZK3, vec![ZK1, ZK2], tree, 2000, 5, Some(ZK3), 0);
        assert_eq!(z.tracker().expires_at(s), Some(8000));
        (z, s)
    }

    fn create(path: &str) -> ZkOp {
        ZkOp::Create { path: path.into(), data: ZData::Empty, ephemeral: false, sequential: false }
    }

    fn forward(z: &mut ZkServerNode, s: SessionId, op: ZkOp, now: u64) -> Outbox {
        let origin = Origin { server: ZK1, client: B1, xid: 1 };
        let txn = Txn::Op { session: s, op: Rc::new(op), controller: false, now };
        let mut out = Outbox::default();
        z.on_message(ZK1, Payload::ZkPeer { msg: PeerMsg::Forward { epoch: 1, origin, txn } }, now, &Links, &mut out);
        out
    }

    fn commits(out: &Outbox) -> Vec<(NodeId, Txn)> {
        out.sent()
            .into_iter()
            .filter_map(|(to, p)| match p {
                Payload::ZkPeer { msg: PeerMsg::Commit { txn, .. } } => Some((to, txn)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_forwarded_write_commits_but_does_not_touch_the_session() {
        let (mut z, s) = leader();
        let out = forward(&mut z, s, create("/x"), 5000);
        assert_eq!(z.zxid(), 1);
        assert_eq!(commits(&out).iter().map(|c| c.0).collect::<Vec<_>>(), vec![ZK1, ZK2]);
        assert_eq!(z.tracker().expires_at(s), Some(8000), "a forwarded request only passes checkSession");
        // The same client's own packet to the leader touches it: roundToInterval(5 000 + 6 000).
        let mut out = Outbox::default();
        let req = Payload::ZkRequest { session: s, xid: 2, op: Rc::new(create("/y")), controller: false };
        z.on_message(B1, req, 5000, &Links, &mut out);
        assert_eq!(z.tracker().expires_at(s), Some(12_000));
    }

    #[test]
    fn a_forwarded_write_on_a_closing_session_is_an_error_transaction() {
        let (mut z, s) = leader();
        z.tracker.set_closing(s);
        let out = forward(&mut z, s, create("/x"), 5000);
        let c = commits(&out);
        assert!(matches!(&c[0].1, Txn::Error { code: ZkError::SessionExpired, .. }), "{c:?}");
        assert!(z.tree().get("/x").is_none());
    }

    #[test]
    fn a_stalled_follower_leaves_no_quorum_to_commit() {
        let (mut z, s) = leader();
        let mut out = Outbox::default();
        z.on_peer_link(ZK1, false, 1000, &mut out);
        assert_eq!(out.timers(), vec![(10_000, Timer::ZkSyncLimit { peer: ZK1, since: 1000 })]);
        z.on_peer_link(ZK2, false, 1000, &mut out);
        let out = forward(&mut z, s, create("/x"), 2000);
        assert!(commits(&out).is_empty() && z.zxid() == 0);
        // syncLimit later the leader drops both followers and stops leading: zk2 still counts
        // as synced until its own timer.
        let mut out = Outbox::default();
        z.on_timer(&Timer::ZkSyncLimit { peer: ZK1, since: 1000 }, 11_000, &Links, &mut out);
        assert_eq!(z.role(), Role::Leading);
        z.on_timer(&Timer::ZkSyncLimit { peer: ZK2, since: 1000 }, 11_000, &Links, &mut out);
        assert_eq!(z.role(), Role::Looking);
        assert!(out.marks().iter().any(|m| matches!(m, Mark::ZkClientsDropped { server, .. } if *server == ZK3)));
    }
}
