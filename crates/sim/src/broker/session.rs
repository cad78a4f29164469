//! The broker's ZooKeeper session lifecycle: connecting, losing and resuming the connection,
//! learning that the session expired, and re-registering on a new session (`KafkaHealthcheck`,
//! ZkClient's `SessionExpirationListener`). What the client library itself keeps (its requests,
//! watches and server list) is [`crate::zk_client::ZkClient`].
use super::Broker;
use crate::controller::{ControllerEvent, ControllerIo};
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::NodeId;
use crate::message::{ConnectResult, Payload};
use crate::scenario::Config;
use crate::zk_client::{ConnState, Purpose};
use crate::znodes::ZData;
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use crate::zookeeper::session::SessionId;
use crate::zookeeper::watch::{WatchEvent, WatchEventType};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl Broker {
    fn resend(&mut self, out: &mut Outbox) {
        if let Some(session) = self.zk.session {
            for (xid, op, controller) in self.zk.take_resends() {
                out.send(self.zk.server(), Payload::ZkRequest { session, xid, op, controller });
            }
        }
    }

    /// The link to its ZooKeeper server stopped carrying packets (as the world observes it): the
    /// client hears nothing more, so its read timeout (two thirds of the session timeout,
    /// `ClientCnxn.SendThread.run`, 3.4.10 `ClientCnxn.java:1098-1107`) runs out unless the link
    /// comes back first ([`Broker::on_timer`] then finds it up and does nothing).
    pub fn on_zk_link_lost(&mut self, cfg: &Config, out: &mut Outbox) {
        out.timer(cfg.read_timeout_ms(), Timer::ZkReadTimeout { gen: self.zk.conn_gen });
    }

    /// The ZooKeeper link is back: reconnect if disconnected, else retransmit what was lost.
    pub fn on_zk_link_restored(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.zk.sleeping {
            return; // the client is in its reconnect sleep; it connects when that is over
        }
        if self.zk.init_blocked {
            return; // KAFKA-6879: no new session is ever opened
        }
        match self.zk.state {
            ConnState::Connected => self.resend(out),
            _ => out.send(
                self.zk.server(),
                Payload::ZkConnect { session: self.zk.session_to_resume(), timeout_ms: cfg.session_timeout_ms },
            ),
        }
    }

    /// The server closed the connection (it stopped serving, or closed the session): the client
    /// sees Disconnected and tries the next server of its list (`ClientCnxn.SendThread.run`,
    /// 3.4.10 `ClientCnxn.java:1039-1060` → `startConnect`, `ClientCnxn.java:989`).
    pub fn on_zk_closed(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.zk.state == ConnState::Connected {
            let (id, server) = (self.id, self.zk.server());
            self.connection_lost(
                move || {
                    format!(
                        "[ZkClient broker={id}] zookeeper state changed (Disconnected): {server} closed the connection"
                    )
                },
                cfg,
                out,
            );
        } else {
            self.zk.conn_gen += 1;
            self.reconnect_later(cfg, out);
        }
    }

    /// The TCP connection to ZooKeeper server `server` was reset (a network fault: both ends see
    /// it closed at once, `java.io.IOException: Connection reset by peer`). If it is this client's
    /// connection, connected or connecting, the client drops it as `ClientCnxn.SendThread.run`
    /// does for any socket error (release-3.4.10 `ClientCnxn.java:1142-1175` → `cleanup`), and
    /// connects to the next server after its sleep. Returns whether it was.
    pub fn on_zk_reset(&mut self, server: NodeId, cfg: &Config, out: &mut Outbox) -> bool {
        if !self.alive || self.zk.sleeping || self.zk.server() != server {
            return false;
        }
        match self.zk.state {
            ConnState::Connected => {
                let (id, pending) = (self.id, self.zk.outstanding.len());
                self.connection_lost(
                    move || format!(
                        "[ZkClient broker={id}] zookeeper state changed (Disconnected): connection to {server} reset (java.io.IOException: Connection reset by peer); {pending} request(s) pending"
                    ),
                    cfg,
                    out,
                );
                true
            }
            ConnState::Disconnected | ConnState::Connecting | ConnState::Expired => {
                // A connect attempt in progress on this connection fails the same way.
                out.log(EventKind::ZkSession, || {
                    format!("[ZkClient broker={}] connect attempt to {server} reset", self.id)
                });
                self.zk.conn_gen += 1;
                self.reconnect_later(cfg, out);
                true
            }
        }
    }

    /// The connection dropped (`ClientCnxn.cleanup`): every pending request gets `CONNECTIONLOSS`.
    /// ZkClient's `retryUntilConnected` retries its own on the next connection; of the raw
    /// handle's, `ZKCheckedEphemeral` creates again but its `getData` takes the error as the
    /// result (1.0.0 `ZkUtils.scala:1129-1131`), which `create()` throws into `elect`'s catch-all.
    /// `disconnected` is ZkClient's line, logged as its event thread sees `Disconnected`: after the
    /// raw handle's callbacks, which `cleanup` queued first (release-3.4.10 `ClientCnxn.java:
    /// 1170-1175`).
    fn connection_lost(&mut self, disconnected: impl crate::effects::Line, cfg: &Config, out: &mut Outbox) {
        self.zk.disconnect();
        let lost = self.zk.take_raw_reads();
        for o in &lost {
            if let ZkOp::GetData { path, .. } = &*o.op {
                // ZKCheckedEphemeral's GetDataCallback, `case _` (1.0.0 ZkUtils.scala:1129-1130).
                out.log(EventKind::Info, || {
                    format!("[ZKCheckedEphemeral broker={}] ZooKeeper event while getting znode data: {path} CONNECTIONLOSS", self.id)
                });
            }
        }
        out.log(EventKind::ZkSession, disconnected);
        for o in lost {
            if o.purpose == Purpose::Controller {
                let loss = ZkResult::Error { code: ZkError::ConnectionLoss };
                let io = &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out };
                self.controller.on_result(o.op, loss, io);
            }
        }
        self.reconnect_later(cfg, out);
        self.controller_run(cfg, out);
    }

    /// `SendThread.run`'s sleep before the next connect attempt ([`ZkClient::reconnect_delay`]);
    /// a client that never connected tries the next server at once.
    fn reconnect_later(&mut self, cfg: &Config, out: &mut Outbox) {
        let gen = self.zk.conn_gen;
        match self.zk.reconnect_delay() {
            Some((fixed, up_to)) => {
                self.zk.sleeping = true;
                out.random_timer(fixed, up_to, Timer::ZkReconnect { gen });
            }
            None => self.connect_next(cfg, out),
        }
    }

    /// The reconnect sleep is over.
    pub(super) fn on_zk_reconnect(&mut self, gen: u64, cfg: &Config, out: &mut Outbox) {
        if gen != self.zk.conn_gen {
            return;
        }
        self.zk.sleeping = false;
        self.connect_next(cfg, out);
    }

    /// Connects to the next server of the list (the same one when the list has only one),
    /// resuming the session if it has one.
    fn connect_next(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.zk.init_blocked {
            return; // KAFKA-6879: no new session is ever opened
        }
        let connect = Payload::ZkConnect { session: self.zk.session_to_resume(), timeout_ms: cfg.session_timeout_ms };
        if self.zk.servers.len() < 2 {
            out.send(self.zk.server(), connect);
            return;
        }
        let (from, to) = self.zk.next_server();
        out.mark(crate::mark::Mark::ZkClientMoved { broker: self.id, from, to });
        out.log(EventKind::ZkSession, || {
            format!("[ZkClient broker={}] opening socket connection to server {to}", self.id)
        });
        out.send(to, connect);
        // The connect attempt's own timeout (`Config::connect_timeout_ms`); a later one moves on.
        out.timer(cfg.connect_timeout_ms(self.zk.servers.len()), Timer::ZkReadTimeout { gen: self.zk.conn_gen });
    }

    /// The read timeout passed without an answer.
    pub fn on_zk_read_timeout(&mut self, gen: u64, cfg: &Config, out: &mut Outbox) {
        if gen != self.zk.conn_gen {
            return;
        }
        if self.zk.state != ConnState::Connected {
            if self.zk.servers.len() < 2 {
                return;
            }
            // A connect attempt went unanswered: try the next server, after the sleep.
            self.zk.conn_gen += 1;
            self.reconnect_later(cfg, out);
            return;
        }
        let (id, pending) = (self.id, self.zk.outstanding.len());
        let line = move || {
            format!(
                "[ZkClient broker={id}] zookeeper state changed (Disconnected): no answer within the read timeout; {pending} request(s) will be retried"
            )
        };
        if self.zk.servers.len() < 2 {
            // One server: the client keeps trying it; the model reconnects when the link heals.
            out.log(EventKind::ZkSession, line);
            self.zk.disconnect();
            return;
        }
        self.connection_lost(line, cfg, out);
    }

    /// Answer to a connect.
    pub fn on_zk_connect_response(&mut self, result: ConnectResult, cfg: &Config, out: &mut Outbox) {
        if self.zk.init_blocked {
            return;
        }
        match result {
            ConnectResult::Expired => {
                let zkclient_line = format!(
                    "[ZkClient broker={}] zookeeper state changed (Expired): session 0x{:x} is gone; opening a new session and retrying {} interrupted request(s) on it",
                    self.id,
                    self.zk.session.unwrap_or(0),
                    self.zk.outstanding.len()
                );
                self.learn_session_expired(zkclient_line, cfg, out);
            }
            ConnectResult::Connected(s) => {
                let new_session = self.zk.session != Some(s);
                self.zk.session = Some(s);
                self.zk.connected();
                if !new_session {
                    out.log(EventKind::ZkSession, || {
                        format!(
                            "[ZkClient broker={}] zookeeper state changed (SyncConnected) on session 0x{s:x}",
                            self.id
                        )
                    });
                    // `primeConnection` puts SetWatches ahead of the queued requests.
                    if !self.zk.watches.is_empty() {
                        let watches = self.zk.watches.clone();
                        out.send(self.zk.server(), Payload::ZkSetWatches { session: s, watches });
                    }
                    self.resend(out);
                    return;
                }
                self.zk.watches.clear();
                out.log(EventKind::ZkSession, || {
                    format!(
                        "[ZkClient broker={}] zookeeper state changed (SyncConnected): new session 0x{s:x}",
                        self.id
                    )
                });
                self.on_new_session(cfg, out);
                // ZkClient retries the interrupted operations on the new session.
                self.resend(out);
            }
        }
    }

    /// The client learnt that its session expired; it opens a new one. ≤1.0 (ZkClient, logging
    /// `zkclient_line`) keeps every request to retry on it. Kafka 1.1's `ZooKeeperClient` fails
    /// every pending request with `SESSIONEXPIRED` (`retryRequestsUntilConnected` retries only
    /// `CONNECTIONLOSS`), then `beforeInitializingSession` makes the controller clear its queue
    /// and process `Expire` before the new session is opened. In 1.1.0 that wait holds the
    /// client's initialization lock: if the controller thread's event needs ZooKeeper again, both
    /// wait for good and no new session is opened (KAFKA-6879, [`Controller::deadlock`]).
    fn learn_session_expired(&mut self, zkclient_line: String, cfg: &Config, out: &mut Outbox) {
        self.registered = false;
        let retry = cfg.behaviour().retry_after_expiry;
        let failed = self.zk.session_expired(retry);
        if !retry {
            let next = if cfg.behaviour().expire_waits_under_init_lock && self.controller.needs_zk_after_expiry() {
                "calling beforeInitializingSession under the initialization lock"
            } else {
                "initializing a new session"
            };
            out.log(
                EventKind::ZkSession,
                || format!(
                    "[ZooKeeperClient broker={}] Session expired: {} pending request(s) fail with SESSIONEXPIRED and are not retried; {next}",
                    self.id,
                    failed.len()
                ),
            );
            // The controller's own writes of partition state (a leader's ISR update is not one).
            let failed_writes = failed
                .iter()
                .filter(|o| o.purpose == crate::zk_client::Purpose::Controller)
                .flat_map(|o| o.op.state_writes())
                .collect();
            out.mark(crate::mark::Mark::SessionExpiryLearned {
                broker: self.id,
                failed_requests: failed.len() as u32,
                failed_writes,
            });
        } else {
            out.log(EventKind::ZkSession, zkclient_line);
            // ZKCheckedEphemeral's create was on the raw handle: it fails with SESSIONEXPIRED
            // (1.0.0 ZkUtils.scala:1095-1097) instead of being retried on the new session.
            let raw = failed;
            out.mark(crate::mark::Mark::SessionExpiryLearned {
                broker: self.id,
                failed_requests: raw.len() as u32,
                failed_writes: Vec::new(),
            });
            for o in raw {
                if o.purpose == Purpose::Controller {
                    let expired = ZkResult::Error { code: ZkError::SessionExpired };
                    let io = &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out };
                    self.controller.on_result(o.op, expired, io);
                }
            }
        }
        if cfg.behaviour().expire_event {
            let io = &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out };
            // KAFKA-6879 (1.1.0): the handler waits for Expire under the initialization lock; if
            // the thread's event needs ZooKeeper again, neither moves and `initialize()` never runs.
            if cfg.behaviour().expire_waits_under_init_lock && self.controller.deadlock(io) {
                self.zk.init_blocked = true;
                return;
            }
            self.controller.expire(io);
        }
        out.send(self.zk.server(), Payload::ZkConnect { session: None, timeout_ms: cfg.session_timeout_ms });
    }

    /// `fireNewSessionEvents` then `fireAllEvents`: re-register, re-elect, re-read listeners. At
    /// start-up, and in 1.0 on every new session, the broker registers at once (`KafkaServer.startup`,
    /// `KafkaHealthcheck`); from 1.1.0 a later session's `afterInitializingSession` only puts
    /// `RegisterBrokerAndReelect` on the controller queue (see `controller/register.rs`), and the
    /// `/controller` watch comes back with that event's `maybeResign`.
    fn on_new_session(&mut self, cfg: &Config, out: &mut Outbox) {
        if self.started && cfg.behaviour().register_on_controller_thread {
            self.controller.enqueue(ControllerEvent::RegisterBrokerAndReelect);
            return;
        }
        self.register(out);
        if !self.started {
            self.started = true;
            self.controller.enqueue(ControllerEvent::Startup);
        } else {
            // SessionExpirationListener.handleNewSession → Reelect; then ZkClient fires every
            // data/child listener: /controller is re-read, /brokers/ids and ISR notifications fire.
            self.controller.enqueue(ControllerEvent::Reelect);
            self.zk.send(ZkOp::GetData { path: "/controller".into(), watch: true }, Purpose::ControllerWatch, out);
            if self.controller.listeners {
                self.controller.enqueue(ControllerEvent::BrokerChange);
                self.controller.enqueue(ControllerEvent::IsrChangeNotification);
            }
        }
    }

    fn register(&mut self, out: &mut Outbox) {
        if self.zk.has(|p| matches!(p, Purpose::Register)) {
            return;
        }
        let path = format!("/brokers/ids/{}", self.id);
        self.zk.send(
            ZkOp::Create { path, data: ZData::Broker { id: self.id }, ephemeral: true, sequential: false },
            Purpose::Register,
            out,
        );
    }

    /// A ZooKeeper response.
    pub fn on_zk_response(&mut self, session: SessionId, xid: u64, result: ZkResult, cfg: &Config, out: &mut Outbox) {
        if Some(session) != self.zk.session {
            return; // a response for a dead session's request that has been re-sent since
        }
        if let ZkResult::Error { code: ZkError::SessionExpired } = result {
            // ≤1.0: retryUntilConnected catches SessionExpiredException and waits for a new
            // session. 1.1: the request fails, and so does every other pending one.
            self.zk.lost(xid);
            if self.zk.state == ConnState::Connected {
                let zkclient_line =
                    format!("[ZkClient broker={}] request failed with SESSIONEXPIRED; opening a new session", self.id);
                self.learn_session_expired(zkclient_line, cfg, out);
            }
            return;
        }
        let Some(done) = self.zk.complete(xid) else { return };
        self.zk.note_watch(&done.op, &result);
        match done.purpose {
            Purpose::Controller => self.controller.on_result(
                done.op,
                result,
                &mut ControllerIo { id: self.id, zk: &mut self.zk, cfg, out },
            ),
            Purpose::Register => match result {
                ZkResult::Created { path } => {
                    self.registered = true;
                    out.log(EventKind::Info, || {
                        format!("[KafkaHealthcheck broker={}] Registered broker {} at path {path}", self.id, self.id)
                    });
                    out.mark(crate::mark::Mark::BrokerRegistered { broker: self.id, on_controller_thread: false });
                }
                ZkResult::Error { code: ZkError::NodeExists } => {
                    out.log(
                        EventKind::Info,
                        || format!(
                            "[KafkaHealthcheck broker={}] /brokers/ids/{} is still held by an older session; waiting for it to be deleted",
                            self.id, self.id
                        ),
                    );
                    let path = format!("/brokers/ids/{}", self.id);
                    self.zk.send(ZkOp::Exists { path, watch: true }, Purpose::RegisterWatch, out);
                }
                _ => {}
            },
            Purpose::RegisterWatch => {
                if let ZkResult::Exists { stat: None } = result {
                    self.register(out);
                }
            }
            Purpose::ControllerWatch => {
                let ev = match result {
                    ZkResult::Data { data: ZData::Controller { broker_id, .. }, .. } => {
                        ControllerEvent::ControllerChange(broker_id)
                    }
                    _ => ControllerEvent::Reelect,
                };
                self.controller.enqueue(ev);
            }
            Purpose::IsrUpdate { tp, isr } => self.on_isr_write(&tp, isr, result, out),
            Purpose::IsrNotify => {}
        }
        self.controller_run(cfg, out);
    }

    /// A watch notification (ZkClient's event thread hands it to the listener).
    pub fn on_watch(&mut self, ev: WatchEvent, cfg: &Config, out: &mut Outbox) {
        if Some(ev.session) != self.zk.session {
            return;
        }
        self.zk.watch_fired(&ev.path, ev.kind);
        // This broker's own registration znode, `/brokers/ids/<id>`.
        let is_me =
            |p: &str| p.strip_prefix("/brokers/ids/").is_some_and(|id| crate::ids::is_decimal(id, i64::from(self.id)));
        match (ev.path.as_str(), ev.kind) {
            ("/controller", WatchEventType::NodeDeleted) => self.controller.enqueue(ControllerEvent::Reelect),
            ("/controller", _) => {
                self.zk.send(ZkOp::GetData { path: "/controller".into(), watch: true }, Purpose::ControllerWatch, out);
            }
            ("/brokers/ids", WatchEventType::NodeChildrenChanged) if self.controller.listeners => {
                self.controller.enqueue(ControllerEvent::BrokerChange)
            }
            ("/isr_change_notification", WatchEventType::NodeChildrenChanged) if self.controller.listeners => {
                self.controller.enqueue(ControllerEvent::IsrChangeNotification)
            }
            (p, WatchEventType::NodeDeleted) if is_me(p) && !self.registered => self.register(out),
            _ => {}
        }
        self.controller_run(cfg, out);
    }

    /// A packet of this broker's ZooKeeper connection on `session` was lost on a cut link: the
    /// request stays outstanding and is sent again when the connection comes back (TCP
    /// retransmission, then ZkClient's retry).
    pub fn on_zk_packet_lost(&mut self, session: SessionId, xid: u64) {
        if self.alive && self.zk.session == Some(session) {
            self.zk.lost(xid);
        }
    }
}
