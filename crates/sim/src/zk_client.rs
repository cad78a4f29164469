//! A broker's ZooKeeper client, behaving like the I0Itec `ZkClient` that Kafka ≤1.0 wraps in
//! `ZkUtils`: `retryUntilConnected` retries an operation after `ConnectionLoss` *and* after
//! `SessionExpired`, waiting for a connection — on a brand-new session if the old one expired
//! (`ZkClient.processStateChanged` → `reconnect()` → `fireNewSessionEvents()`). That retry is what
//! lets a deposed controller's write land after another broker has taken over.
//!
//! In the `1.1` mode the broker behaves like Kafka 1.1's `kafka.zookeeper.ZooKeeperClient`
//! (KAFKA-5642) instead: on expiry every outstanding request fails ([`ZkClient::fail_all`]) and
//! only `CONNECTIONLOSS` is retried (`KafkaZkClient.retryRequestsUntilConnected`).
//!
//! One request is not ZkClient's: `elect` creates `/controller` with `ZKCheckedEphemeral`
//! (1.0.0 `ZkUtils.scala:1069-1224`) on the raw `ZooKeeper` handle. It retries the create itself
//! after `CONNECTIONLOSS` (`CreateCallback`, :1087-1089) — on the same session, as the model resends —
//! but `SESSIONEXPIRED` is a result (:1095-1097) that `create()` throws (:1217-1222) into `elect`'s
//! catch-all; it is never retried on a new session ([`ZkClient::send_raw`], [`ZkClient::take_raw`]).
//! 1.1's `KafkaZkClient.checkedEphemeralCreate` and 2.1's `registerControllerAndIncrementControllerEpoch`
//! do not retry `SESSIONEXPIRED` either, so the rule holds in every ZooKeeper mode.
//!
//! The model keeps every outstanding request until its response arrives; a request or response lost
//! on a cut link is sent again when the connection comes back (TCP retransmission plus ZkClient's
//! retry), so an operation is applied at most once per send but may be applied after a long delay.
use crate::effects::Outbox;
use crate::ids::NodeId;
use crate::message::Payload;
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use crate::zookeeper::session::SessionId;
use crate::zookeeper::watch::{ClientWatch, WatchEventType};
use alloc::rc::Rc;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// `ClientCnxn`'s reconnect sleep is `r.nextInt(RECONNECT_SLEEP_MS)` ms (release-3.4.10
/// `ClientCnxn.java:1049-1051`).
pub const RECONNECT_SLEEP_MS: u64 = 1_000;

/// The client's connection state, as its `Watcher` sees it (`KeeperState`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ConnState {
    /// Opening a first session.
    Connecting,
    /// SyncConnected.
    Connected,
    /// Disconnected: no answer within the read timeout (2/3 of the session timeout).
    Disconnected,
    /// Learned on reconnect that the session expired; opening a new one.
    Expired,
}

impl ConnState {
    /// The snake_case word.
    pub fn name(self) -> &'static str {
        match self {
            ConnState::Connecting => "connecting",
            ConnState::Connected => "connected",
            ConnState::Disconnected => "disconnected",
            ConnState::Expired => "expired",
        }
    }
}

/// Who inside the broker is waiting for a request (a thread or listener of the real broker).
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub enum Purpose {
    /// The controller event thread (its current micro-step).
    Controller,
    /// `KafkaHealthcheck` registering `/brokers/ids/<id>`.
    Register,
    /// Waiting for an old registration to disappear (exists watch).
    RegisterWatch,
    /// ZkClient re-reading `/controller` to fire `handleDataChange`.
    ControllerWatch,
    /// A partition leader writing a shrunk or expanded ISR (`Partition.updateIsr`).
    IsrUpdate {
        /// Partition.
        tp: crate::ids::TopicPartition,
        /// The ISR being written.
        isr: Vec<crate::ids::BrokerId>,
    },
    /// `ReplicaManager.maybePropagateIsrChanges` writing `/isr_change_notification/isr_change_`.
    IsrNotify,
}

/// An outstanding request.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Outstanding {
    /// The request (shared with the message that carries it and the server's transaction).
    pub op: Rc<ZkOp>,
    /// Who waits.
    pub purpose: Purpose,
    /// Sent and not known to be lost.
    pub in_flight: bool,
    /// Number of sends.
    pub sends: u32,
    /// Sent on the raw `ZooKeeper` handle (`ZKCheckedEphemeral`): retried on the same session
    /// after a connection loss, but failed with `SESSIONEXPIRED` when the session is gone.
    pub raw: bool,
    /// Failed with `CONNECTIONLOSS` when a connection dropped under it, and waiting for ZkClient's
    /// `retryUntilConnected` to issue it again once `SyncConnected` is seen: it goes out after
    /// what was queued on the new connection meanwhile (zkclient 0.10 `ZkClient.java:981-1011`).
    pub retried: bool,
}

/// The outstanding requests, by xid (ascending: the order sent). A sorted list rather than a map:
/// a client has a handful at a time, xids only grow, and the list keeps its room when it empties
/// (a map frees and reallocates its node every time the last request completes).
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct Requests(Vec<(u64, Outstanding)>);

impl Requests {
    fn at(&self, xid: u64) -> Result<usize, usize> {
        self.0.binary_search_by_key(&xid, |(x, _)| *x)
    }

    /// Adds (or replaces) the request `xid`.
    pub fn insert(&mut self, xid: u64, o: Outstanding) {
        match self.at(xid) {
            Ok(i) => self.0[i].1 = o,
            Err(i) => self.0.insert(i, (xid, o)),
        }
    }

    /// The request `xid`.
    pub fn get(&self, xid: &u64) -> Option<&Outstanding> {
        self.at(*xid).ok().map(|i| &self.0[i].1)
    }

    /// The request `xid`, to change.
    pub fn get_mut(&mut self, xid: &u64) -> Option<&mut Outstanding> {
        self.at(*xid).ok().map(|i| &mut self.0[i].1)
    }

    /// Removes the request `xid`.
    pub fn remove(&mut self, xid: &u64) -> Option<Outstanding> {
        self.at(*xid).ok().map(|i| self.0.remove(i).1)
    }

    /// Whether `xid` is outstanding.
    pub fn contains_key(&self, xid: &u64) -> bool {
        self.at(*xid).is_ok()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// None outstanding.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The xids, ascending.
    pub fn keys(&self) -> impl Iterator<Item = &u64> {
        self.0.iter().map(|(x, _)| x)
    }

    /// The requests, by ascending xid.
    pub fn values(&self) -> impl Iterator<Item = &Outstanding> {
        self.0.iter().map(|(_, o)| o)
    }

    /// The requests, by ascending xid, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Outstanding> {
        self.0.iter_mut().map(|(_, o)| o)
    }

    /// (xid, request), ascending.
    pub fn iter(&self) -> impl Iterator<Item = (&u64, &Outstanding)> {
        self.0.iter().map(|(x, o)| (x, o))
    }

    /// (xid, request), ascending, the requests to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&u64, &mut Outstanding)> {
        self.0.iter_mut().map(|(x, o)| (&*x, o))
    }

    /// Removes and returns the requests `pred` picks, in xid order; the others stay.
    fn take_where(&mut self, pred: impl Fn(&Outstanding) -> bool) -> Vec<Outstanding> {
        let mut taken = Vec::new();
        let mut kept = Vec::with_capacity(self.0.len());
        for (x, o) in core::mem::take(&mut self.0) {
            if pred(&o) {
                taken.push(o);
            } else {
                kept.push((x, o));
            }
        }
        self.0 = kept;
        taken
    }
}

impl core::ops::Index<&u64> for Requests {
    type Output = Outstanding;
    fn index(&self, xid: &u64) -> &Outstanding {
        self.get(xid).expect("an outstanding xid")
    }
}

/// The client.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct ZkClient {
    /// Current session, once connected.
    pub session: Option<SessionId>,
    /// Connection state.
    pub state: ConnState,
    /// Outstanding requests by xid.
    pub outstanding: Requests,
    next_xid: u64,
    /// Bumped on every connection loss so stale read-timeout timers do nothing.
    pub conn_gen: u64,
    /// The connection string: the servers it tries, in order (`StaticHostProvider`).
    pub servers: Vec<NodeId>,
    /// Index of the server it is connected (or connecting) to.
    pub current: usize,
    /// Index of the server it last connected to (`StaticHostProvider.lastIndex`; `None` before
    /// the first connection): coming back round to it costs the `spinDelay`.
    pub last_connected: Option<usize>,
    /// The watches it holds (`ZKWatchManager`), set again on every new connection of the session.
    pub watches: Vec<ClientWatch>,
    /// In the sleep before its next connect attempt ([`ZkClient::reconnect_delay`]).
    pub sleeping: bool,
    /// KAFKA-6879 (1.1.0): the session-expiry handler holds the initialization write lock and
    /// waits for a controller thread that is itself blocked on the read lock. The client never
    /// opens a new session (`initialize()` comes after the callbacks), and every request waits.
    pub init_blocked: bool,
}

impl Default for ZkClient {
    fn default() -> Self {
        ZkClient {
            session: None,
            state: ConnState::Connecting,
            outstanding: Requests::default(),
            next_xid: 1,
            conn_gen: 0,
            servers: alloc::vec![NodeId::ZK],
            current: 0,
            last_connected: None,
            watches: Vec::new(),
            sleeping: false,
            init_blocked: false,
        }
    }
}

impl ZkClient {
    /// The server it is connected (or connecting) to.
    pub fn server(&self) -> NodeId {
        self.servers.get(self.current).copied().unwrap_or(NodeId::ZK)
    }

    /// Whether a packet from `from` is one this client ignores: it comes from a ZooKeeper server
    /// other than the one it is connected or connecting to. `ClientCnxn` reads only the socket of
    /// its current connection; `startConnect` closed the old one when it moved on (3.4.10
    /// `ClientCnxn.java:989`, `ClientCnxnSocketNIO.cleanup`), so whatever that server still sends
    /// never reaches the client.
    pub fn ignores(&self, from: NodeId) -> bool {
        from.is_zk() && from != self.server()
    }

    /// `StaticHostProvider.next` (3.4.10 `StaticHostProvider.java:94`): the next server of the
    /// list, round robin. Returns `(left, now)`.
    pub fn next_server(&mut self) -> (NodeId, NodeId) {
        let left = self.server();
        self.current = self.next_index();
        (left, self.server())
    }

    /// The index [`ZkClient::next_server`] moves to.
    fn next_index(&self) -> usize {
        (self.current + 1) % self.servers.len().max(1)
    }

    /// The session a connect asks to resume: the current one, unless it is gone (expired) or
    /// none was ever opened (connecting).
    pub fn session_to_resume(&self) -> Option<SessionId> {
        match self.state {
            ConnState::Expired | ConnState::Connecting => None,
            ConnState::Connected | ConnState::Disconnected => self.session,
        }
    }

    /// How long `SendThread.run` waits before its next connect attempt, at most: a uniform
    /// `r.nextInt(1000)` ms after any connection but the first (release-3.4.10
    /// `ClientCnxn.java:1049-1051`), plus `hostProvider.next(1000)`'s one-second `spinDelay` when
    /// the next server is the one it was last connected to (`StaticHostProvider.java:94-104`).
    /// Returns `(fixed, random_up_to)` for the world to draw; `None` when it never connected
    /// (the first attempt does not sleep).
    pub fn reconnect_delay(&self) -> Option<(u64, u64)> {
        let last = self.last_connected?;
        let spin = if self.servers.len() > 1 && self.next_index() == last { 1000 } else { 0 };
        Some((spin, RECONNECT_SLEEP_MS - 1))
    }

    /// The connection is up (`onConnected`: `StaticHostProvider.lastIndex = currentIndex`).
    pub fn connected(&mut self) {
        self.state = ConnState::Connected;
        self.last_connected = Some(self.current);
    }

    /// A request `op` answered `result`: the watch it left, as `ZKWatchManager` records it (a
    /// `getData`/`exists` watch with the node's `mzxid`, or none when it was missing; a child watch
    /// with the children read).
    pub fn note_watch(&mut self, op: &ZkOp, result: &ZkResult) {
        let w = match (op, result) {
            (ZkOp::GetData { path, watch: true }, ZkResult::Data { stat, .. })
            | (ZkOp::GetDataPlain { path, watch: true }, ZkResult::Data { stat, .. })
            | (ZkOp::Exists { path, watch: true }, ZkResult::Exists { stat: Some(stat) }) => {
                ClientWatch::Data { path: path.clone(), mzxid: Some(stat.mzxid) }
            }
            (ZkOp::GetData { path, watch: true }, ZkResult::Error { code: ZkError::NoNode })
            | (ZkOp::Exists { path, watch: true }, ZkResult::Exists { stat: None }) => {
                ClientWatch::Data { path: path.clone(), mzxid: None }
            }
            (ZkOp::GetChildren { path, watch: true }, ZkResult::Children { names }) => {
                ClientWatch::Child { path: path.clone(), names: names.clone() }
            }
            _ => return,
        };
        let same = |x: &ClientWatch| {
            x.path() == w.path() && matches!(x, ClientWatch::Child { .. }) == matches!(w, ClientWatch::Child { .. })
        };
        match self.watches.iter_mut().find(|x| same(x)) {
            Some(x) => *x = w,
            None => self.watches.push(w),
        }
    }

    /// A notification arrived: the watches it fired are gone (`ZKWatchManager.materialize`).
    pub fn watch_fired(&mut self, path: &str, kind: WatchEventType) {
        self.watches.retain(|w| {
            let child = matches!(w, ClientWatch::Child { .. });
            let fires = match kind {
                WatchEventType::NodeDeleted => true,
                WatchEventType::NodeChildrenChanged => child,
                _ => !child,
            };
            !(w.path() == path && fires)
        });
    }

    /// The connection dropped: the raw handle's reads fail with `CONNECTIONLOSS` (removed here,
    /// for their callback to see the error; `ClientCnxn.cleanup`, release-3.4.10
    /// `ClientCnxn.java:1245-1258`). Its creates stay: `ZKCheckedEphemeral`'s create callback
    /// answers `CONNECTIONLOSS` by creating again at once (1.0.0 `ZkUtils.scala:1087-1089`),
    /// which the model shows as the same request sent again on the next connection. ZkClient's
    /// own requests stay too: `retryUntilConnected` retries them.
    pub fn take_raw_reads(&mut self) -> Vec<Outstanding> {
        self.outstanding.take_where(|o| o.raw && !o.op.is_write())
    }

    /// Queues a request; returns `(xid, send_now)`: send it now when connected, else it waits.
    pub fn submit(&mut self, op: Rc<ZkOp>, purpose: Purpose) -> (u64, bool) {
        let xid = self.next_xid;
        self.next_xid += 1;
        let send = self.state == ConnState::Connected;
        let o = Outstanding { op, purpose, in_flight: send, sends: send as u32, raw: false, retried: false };
        self.outstanding.insert(xid, o);
        (xid, send)
    }

    /// [`ZkClient::send`] on the raw `ZooKeeper` handle (`ZKCheckedEphemeral`): the request is not
    /// retried on a new session.
    pub fn send_raw(&mut self, op: impl Into<Rc<ZkOp>>, purpose: Purpose, out: &mut Outbox) -> u64 {
        let xid = self.send(op, purpose, out);
        if let Some(o) = self.outstanding.get_mut(&xid) {
            o.raw = true;
        }
        xid
    }

    /// The session expired: the raw handle's outstanding requests fail with `SESSIONEXPIRED`
    /// (removed here, for their waiter to see the error); ZkClient's own stay for the new session.
    pub fn take_raw(&mut self) -> Vec<Outstanding> {
        self.outstanding.take_where(|o| o.raw)
    }

    /// Submits a request and sends it now when connected (else it waits for the connection).
    pub fn send(&mut self, op: impl Into<Rc<ZkOp>>, purpose: Purpose, out: &mut Outbox) -> u64 {
        let controller = purpose == Purpose::Controller;
        let op = op.into();
        let (xid, now) = self.submit(op.clone(), purpose);
        if now {
            if let Some(session) = self.session {
                out.send(self.server(), Payload::ZkRequest { session, xid, op, controller });
            }
        }
        xid
    }

    /// A response for `xid` arrived: the request is done.
    pub fn complete(&mut self, xid: u64) -> Option<Outstanding> {
        self.outstanding.remove(&xid)
    }

    /// The request or its response was lost; it will be sent again.
    pub fn lost(&mut self, xid: u64) {
        if let Some(o) = self.outstanding.get_mut(&xid) {
            o.in_flight = false;
        }
    }

    /// The connection is gone (`ClientCnxn.cleanup`): every pending request failed with
    /// `CONNECTIONLOSS`. ZkClient's are retried once connected again, after what is queued
    /// meanwhile; the raw handle's create is issued again at once by its callback, so it keeps its
    /// place in the queue ([`ZkClient::take_raw_reads`] takes its reads).
    pub fn disconnect(&mut self) {
        self.state = ConnState::Disconnected;
        self.conn_gen += 1;
        for o in self.outstanding.values_mut() {
            o.in_flight = false;
            o.retried = !o.raw;
        }
    }

    /// Requests to (re)send now, marking them in flight: first those queued for the connection
    /// (`outgoingQueue`, in the order issued), then those ZkClient retries after `SyncConnected`.
    pub fn take_resends(&mut self) -> Vec<(u64, Rc<ZkOp>, bool)> {
        if self.state != ConnState::Connected {
            return Vec::new();
        }
        let mut out = Vec::new();
        for retried in [false, true] {
            for (xid, o) in self.outstanding.iter_mut() {
                if !o.in_flight && o.retried == retried {
                    o.in_flight = true;
                    o.retried = false;
                    o.sends += 1;
                    out.push((*xid, o.op.clone(), o.purpose == Purpose::Controller));
                }
            }
        }
        out
    }

    /// The session is gone and nothing will be retried (Kafka 1.1's `ZooKeeperClient`): every
    /// outstanding request fails — except an ISR change notification, which
    /// `ReplicaManager.maybePropagateIsrChanges` keeps in `isrChangeSet` until a write succeeds, so
    /// it goes out again on the new session.
    pub fn fail_all(&mut self) -> Vec<Outstanding> {
        let failed = self.outstanding.take_where(|o| o.purpose != Purpose::IsrNotify);
        for o in self.outstanding.values_mut() {
            o.in_flight = false;
        }
        failed
    }

    /// The client learnt that its session expired: which outstanding requests fail now. With
    /// `retry_after_expiry` (≤1.0's I0Itec `ZkClient.retryUntilConnected`, which catches
    /// `SessionExpiredException` and waits for a new session) only the raw handle's fail
    /// ([`ZkClient::take_raw`]) and ZkClient's own stay to be retried on the new session; without
    /// it (1.1's `ZooKeeperClient`, KAFKA-5642) every one fails ([`ZkClient::fail_all`]).
    pub fn session_expired(&mut self, retry_after_expiry: bool) -> Vec<Outstanding> {
        self.state = ConnState::Expired;
        self.watches.clear();
        if retry_after_expiry {
            self.take_raw()
        } else {
            self.fail_all()
        }
    }

    /// True if a request for `purpose` is outstanding.
    pub fn has(&self, pred: impl Fn(&Purpose) -> bool) -> bool {
        self.outstanding.values().any(|o| pred(&o.purpose))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn read() -> ZkOp {
        ZkOp::GetData { path: "/controller".into(), watch: true }
    }

    #[test]
    fn requests_stay_in_xid_order_whatever_order_they_come_and_go() {
        let o = |raw| Outstanding {
            op: Rc::new(read()),
            purpose: Purpose::ControllerWatch,
            in_flight: true,
            sends: 1,
            raw,
            retried: false,
        };
        let mut r = Requests::default();
        for (x, raw) in [(5, false), (2, true), (9, true), (7, false)] {
            r.insert(x, o(raw));
        }
        assert_eq!(r.keys().copied().collect::<Vec<_>>(), [2, 5, 7, 9]);
        assert_eq!(r.remove(&7).map(|o| o.raw), Some(false));
        assert_eq!(r.remove(&7), None);
        assert!(r.contains_key(&9) && !r.contains_key(&7) && r[&2].raw);
        let taken = r.take_where(|o| o.raw);
        assert_eq!(taken.len(), 2);
        assert_eq!(r.keys().copied().collect::<Vec<_>>(), [5]);
        r.insert(1, o(false));
        assert_eq!(r.iter().map(|(x, _)| *x).collect::<Vec<_>>(), [1, 5]);
    }

    #[test]
    fn requests_wait_while_disconnected_and_are_resent() {
        let mut c = ZkClient::default();
        let (x1, now) = c.submit(Rc::new(read()), Purpose::Controller);
        assert!(!now, "not connected yet");
        c.state = ConnState::Connected;
        assert_eq!(c.take_resends(), alloc::vec![(x1, Rc::new(read()), true)]);
        assert!(c.take_resends().is_empty(), "in flight now");
        c.disconnect();
        assert!(c.take_resends().is_empty(), "disconnected: nothing goes out");
        c.state = ConnState::Connected;
        assert_eq!(c.take_resends().len(), 1);
        assert_eq!(c.outstanding[&x1].sends, 2);
        assert!(c.complete(x1).is_some());
        assert!(c.outstanding.is_empty());
    }

    #[test]
    fn after_expiry_only_an_isr_change_notification_survives_for_the_new_session() {
        let mut c = ZkClient { state: ConnState::Connected, ..ZkClient::default() };
        let (_, _) = c.submit(Rc::new(read()), Purpose::Controller);
        let notify = ZkOp::Create {
            path: "/isr_change_notification/isr_change_".into(),
            data: crate::znodes::ZData::Empty,
            ephemeral: false,
            sequential: true,
        };
        let (xn, _) = c.submit(Rc::new(notify), Purpose::IsrNotify);
        let failed = c.fail_all();
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0].purpose, Purpose::Controller);
        assert_eq!(c.outstanding.keys().copied().collect::<Vec<_>>(), alloc::vec![xn]);
        assert!(!c.outstanding[&xn].in_flight, "sent again once the new session is connected");
    }

    #[test]
    fn the_client_remembers_its_watches_until_they_fire() {
        let mut c = ZkClient::default();
        let stat = crate::zookeeper::ops::Stat { version: 0, cversion: 0, czxid: 3, mzxid: 7, ephemeral_owner: None };
        let data = ZkResult::Data { data: crate::znodes::ZData::Empty, stat };
        c.note_watch(&ZkOp::GetData { path: "/controller".into(), watch: false }, &data);
        assert!(c.watches.is_empty(), "no watch asked, none kept");
        c.note_watch(&read(), &data);
        c.note_watch(
            &ZkOp::GetChildren { path: "/controller".into(), watch: true },
            &ZkResult::Children { names: vec![] },
        );
        assert_eq!(c.watches.len(), 2);
        assert_eq!(c.watches[0], ClientWatch::Data { path: "/controller".into(), mzxid: Some(7) });
        c.watch_fired("/controller", WatchEventType::NodeDataChanged);
        assert_eq!(c.watches, vec![ClientWatch::Child { path: "/controller".into(), names: vec![] }]);
        c.note_watch(&read(), &ZkResult::Error { code: ZkError::NoNode });
        assert!(c.watches.contains(&ClientWatch::Data { path: "/controller".into(), mzxid: None }), "an exists watch");
        c.watch_fired("/controller", WatchEventType::NodeDeleted);
        assert!(c.watches.is_empty(), "a deletion fires every watch on the path");
    }

    #[test]
    fn a_raw_create_is_taken_out_on_expiry_and_the_rest_stay() {
        let mut c = ZkClient { state: ConnState::Connected, session: Some(1), ..ZkClient::default() };
        let mut out = Outbox::default();
        let create = ZkOp::Create {
            path: "/controller".into(),
            data: crate::znodes::ZData::Empty,
            ephemeral: true,
            sequential: false,
        };
        let xr = c.send_raw(create, Purpose::Controller, &mut out);
        let xo = c.send(read(), Purpose::ControllerWatch, &mut out);
        c.disconnect();
        c.state = ConnState::Connected;
        assert_eq!(c.take_resends().len(), 2, "a connection loss resends both on the same session");
        let taken = c.take_raw();
        assert_eq!(taken.len(), 1);
        assert!(taken[0].raw && !c.outstanding.contains_key(&xr) && c.outstanding.contains_key(&xo));
    }
}
