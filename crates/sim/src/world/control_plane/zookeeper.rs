//! ZooKeeper mode behind the control-plane seam: delivering to and firing a ZooKeeper server,
//! holding packets between two servers while their link is stalled, what a dropped watch tells
//! its server, and the implicit PING round (which sessions' touches reach each leader) after a
//! step. The servers' own logic is [`crate::zookeeper`]'s; this file runs their handlers with what
//! they can observe of their clients and routes what they do.
use super::super::caches::{Mix, RelayKey};
use super::super::step_log::StepLog;
use super::super::{delivery, World};
use crate::broker::Broker;
use crate::effects::{Outbox, Timer};
use crate::event::{EventKind, Outcome};
use crate::ids::{BrokerId, NodeId};
use crate::message::{Message, Payload};
use crate::network::Network;
use crate::vec_map::VecMap;
use crate::zookeeper::server::{ClientLinks, ZkServerNode};
use crate::zookeeper::session::SessionId;
use alloc::format;
use alloc::rc::Rc;
use alloc::vec::Vec;

impl World {
    /// Whether `m` is a packet between two servers whose link is cut: it waits on its stalled
    /// TCP connection, in order ([`World::zk_hold`]).
    pub(in crate::world) fn zk_holds(&self, m: &Message) -> bool {
        m.from.is_zk() && m.to.is_zk() && !self.net.is_up(m.from, m.to)
    }

    /// Holds `m` on its stalled connection: the step that held it.
    pub(in crate::world) fn zk_hold(&mut self, m: Message) -> StepLog {
        let mut log = StepLog::new(self.render, m.to, EventKind::Info, || {
            format!("{} → {}: {} (held: link cut)", m.from, m.to, m.payload.label())
        });
        log.from = Some(m.from);
        log.delivery = Some(delivery(&m, Outcome::Held));
        self.stalled.push(m);
        log
    }

    /// A message to a ZooKeeper server.
    pub(in crate::world) fn zk_deliver(&mut self, m: Message, log: &mut StepLog) {
        log.node = m.to;
        log.kind = EventKind::ZkRequest;
        self.with_zk(m.to, log, |zk, now, links, out| zk.on_message(m.from, m.payload, now, links, out));
    }

    /// A ZooKeeper server's timer.
    pub(in crate::world) fn zk_fire(&mut self, node: NodeId, timer: Timer, log: &mut StepLog) {
        self.with_zk(node, log, |zk, now, links, out| zk.on_timer(&timer, now, links, out));
    }

    /// A message a server sent was dropped: a watch event it could not deliver (its session's
    /// connection is gone) is one the server forgets. Whether it was one.
    pub(in crate::world) fn zk_dropped(&mut self, m: &Message, log: &mut StepLog) -> bool {
        if let Payload::ZkWatch { event } = &m.payload {
            self.with_zk(m.from, log, |zk, _, _, out| zk.on_watch_undelivered(event, out));
            return true;
        }
        false
    }

    /// After a step: the implicit PING round, when something it reads moved.
    pub(in crate::world) fn zk_observe(&mut self, log: &mut StepLog) {
        // The relay reads the servers, the links and the brokers' sessions; when none of them moved
        // since the last sync (which left every leader's relay as it found it), it has nothing to do.
        // Of a broker, the relay reads only its [`RelayKey`]: a broker written without moving it
        // gives the relay nothing new.
        let mut relay_moved = false;
        for i in 0..self.touched.brokers.len() {
            let b = self.touched.brokers[i];
            let key = self.brokers.get(&b).map(|br| RelayKey::of(br));
            if self.relay_seen.get(&b) != key.as_ref() {
                relay_moved = true;
                match key {
                    Some(k) => self.relay_seen.insert(b, k),
                    None => self.relay_seen.remove(&b),
                };
            }
        }
        // Of a ZooKeeper server, the relay reads what [`ZkServerNode::hash_relay_inputs`] feeds: a
        // server whose handler ran without moving it gives the relay nothing new either.
        if self.zk_relay_moved() || self.touched.net || relay_moved {
            self.sync_zk_relay(log);
            // Remember the servers as the relay left them.
            self.zk_relay_moved();
        } else {
            debug_assert!(self.relay_idle(), "the ZooKeeper relay skipped with work to do");
        }
    }

    /// Runs a ZooKeeper server's handler, with what the server can observe of its clients now,
    /// and routes its effects (`None` when there is no such server).
    pub(in crate::world) fn with_zk<R>(
        &mut self,
        server: NodeId,
        log: &mut StepLog,
        f: impl FnOnce(&mut ZkServerNode, u64, &dyn ClientLinks, &mut Outbox) -> R,
    ) -> Option<R> {
        let mut out = self.outbox();
        let links = ZkLinks { net: &self.net, brokers: &self.brokers };
        let r = f(self.plane.zk_node_mut(server)?, self.now, &links, &mut out);
        self.touched.zk = true;
        if !self.touched.zk_servers.contains(&server) {
            self.touched.zk_servers.push(server);
        }
        self.route(server, out, log);
        Some(r)
    }

    /// Whether what the relay reads of a ZooKeeper server whose handler ran this step moved since
    /// it was last looked at; remembers it as it is now.
    pub(in crate::world) fn zk_relay_moved(&mut self) -> bool {
        use core::hash::Hasher;
        let Some(servers) = self.plane.zk_servers() else { return false };
        let mut moved = false;
        for id in &self.touched.zk_servers {
            let fp = servers.get(id).map(|z| {
                let mut h = Mix(0);
                z.hash_relay_inputs(&mut h);
                h.finish()
            });
            if self.relay_zk_seen.get(id) != fp.as_ref() {
                moved = true;
                match fp {
                    Some(fp) => self.relay_zk_seen.insert(*id, fp),
                    None => self.relay_zk_seen.remove(id),
                };
            }
        }
        moved
    }

    /// No leader's relay would change now (what [`World::sync_zk_relay`] would act on).
    pub(in crate::world) fn relay_idle(&self) -> bool {
        let Some(servers) = self.plane.zk_servers() else { return true };
        let links = ZkLinks { net: &self.net, brokers: &self.brokers };
        crate::zookeeper::quorum::relayed_touches(servers, &links)
            .into_iter()
            .all(|(l, t)| !servers[&l].touches_changed(&t))
    }

    /// The implicit PING round: each leader learns which sessions' touches reach it now
    /// ([`crate::zookeeper::quorum::relayed_touches`]); only a change runs its handler.
    pub(crate) fn sync_zk_relay(&mut self, log: &mut StepLog) {
        let relays = match self.plane.zk_servers() {
            Some(servers) => {
                let links = ZkLinks { net: &self.net, brokers: &self.brokers };
                crate::zookeeper::quorum::relayed_touches(servers, &links)
                    .into_iter()
                    .filter(|(l, t)| servers[l].touches_changed(t))
                    .collect()
            }
            None => Vec::new(),
        };
        for (leader, touched) in relays {
            self.with_zk(leader, log, |zk, now, _, out| zk.on_touches(&touched, now, out));
        }
    }
}

/// What the ZooKeeper server can observe of its clients, read from the network and the brokers.
pub(in crate::world) struct ZkLinks<'a> {
    pub(in crate::world) net: &'a Network,
    pub(in crate::world) brokers: &'a VecMap<BrokerId, Rc<Broker>>,
}

impl ClientLinks for ZkLinks<'_> {
    fn reachable(&self, server: NodeId, client: NodeId) -> bool {
        self.net.both_up(client, server)
    }

    fn peers_up(&self, a: NodeId, b: NodeId) -> bool {
        self.net.both_up(a, b)
    }

    fn pinging(&self, server: NodeId, client: NodeId, session: SessionId) -> bool {
        match client {
            NodeId::Broker(b) => {
                self.brokers
                    .get(&b)
                    .is_some_and(|br| br.alive && br.zk.session == Some(session) && br.zk.server() == server)
                    && self.net.is_up(client, server)
            }
            _ => false,
        }
    }
}
