//! The control-plane seam: what holds the cluster's metadata and elects the controller, a
//! ZooKeeper ensemble (whose clients are the brokers' controllers) or a KRaft quorum. One enum,
//! chosen once from [`crate::Behaviour::control_plane`] when the world is built, so a KRaft run
//! never builds a ZooKeeper it would throw away; and one interface through which the world
//! delivers to, fires, faults, observes and checks the alerts of either (`plane_*` below), as
//! str0m keeps its pacer variants behind one type. ZooKeeper mode's side is [`zookeeper`],
//! KRaft's is [`kraft`]; the world's router calls only this file's `plane_*` methods, and nothing
//! outside `control_plane`, `crate::kraft` and `crate::mode` should ask which plane runs.
mod kraft;
mod view;
mod zookeeper;

use super::step_log::StepLog;
use super::{DropReason, World};
use crate::alerts::{self, Alert};
use crate::broker::Broker;
use crate::command::Command;
use crate::effects::Timer;
use crate::ids::{BrokerId, NodeId};
use crate::kraft::Kraft;
use crate::message::Message;
use crate::mode::ControlPlaneKind;
use crate::scenario::Config;
use crate::vec_map::VecMap;
use crate::zookeeper::data_tree::DataTree;
use crate::zookeeper::proto::Role;
use crate::zookeeper::server::ZkServerNode;
use alloc::rc::Rc;
use alloc::vec::Vec;

/// The control plane of a run.
#[derive(Clone, Debug, Hash)]
pub enum ControlPlane {
    /// The ZooKeeper servers, by name.
    ZooKeeper(Rc<VecMap<NodeId, ZkServerNode>>),
    /// A KRaft quorum (each broker keeps the metadata image it folded).
    Kraft(Rc<Kraft>),
}

impl ControlPlane {
    /// The ZooKeeper data tree, when the control plane is ZooKeeper: the leader's replica (the
    /// first server's while none leads).
    pub fn zk(&self) -> Option<&DataTree> {
        let servers = self.zk_servers()?;
        let leader = servers.values().find(|s| s.role() == Role::Leading);
        leader.or_else(|| servers.values().next()).map(|s| s.tree())
    }

    /// The ZooKeeper servers.
    pub fn zk_servers(&self) -> Option<&VecMap<NodeId, ZkServerNode>> {
        match self {
            ControlPlane::ZooKeeper(z) => Some(z),
            ControlPlane::Kraft(_) => None,
        }
    }

    /// The leading ZooKeeper server, if one leads.
    pub fn zk_leader(&self) -> Option<NodeId> {
        self.zk_servers()?.values().find(|s| s.role() == Role::Leading).map(|s| s.id())
    }

    /// A ZooKeeper server node, to run one of its handlers.
    pub(crate) fn zk_node_mut(&mut self, id: NodeId) -> Option<&mut ZkServerNode> {
        match self {
            ControlPlane::ZooKeeper(z) => Rc::make_mut(z).get_mut(&id),
            ControlPlane::Kraft(_) => None,
        }
    }

    /// The quorum, when the control plane is KRaft.
    pub fn kraft(&self) -> Option<&Kraft> {
        match self {
            ControlPlane::Kraft(quorum) => Some(quorum),
            ControlPlane::ZooKeeper(_) => None,
        }
    }

    /// The quorum, to run one of its handlers.
    pub(crate) fn kraft_mut(&mut self) -> Option<&mut Kraft> {
        match self {
            ControlPlane::Kraft(quorum) => Some(Rc::make_mut(quorum)),
            ControlPlane::ZooKeeper(_) => None,
        }
    }
}

impl World {
    /// The control plane of the steady state `cfg` describes, built once for its behaviour, with
    /// the brokers as it leaves them (see `build.rs`).
    pub(in crate::world) fn plane_steady_state(cfg: &Config) -> (ControlPlane, VecMap<BrokerId, Rc<Broker>>) {
        match cfg.behaviour().control_plane {
            ControlPlaneKind::ZooKeeper => {
                let (servers, brokers) = super::build::zookeeper_steady_state(cfg);
                (ControlPlane::ZooKeeper(Rc::new(servers)), brokers)
            }
            ControlPlaneKind::Kraft => {
                let (quorum, brokers) = super::build::kraft_steady_state(cfg);
                (ControlPlane::Kraft(Rc::new(quorum)), brokers)
            }
        }
    }

    /// The quorum, in `kraft` mode.
    pub fn kraft(&self) -> Option<&Kraft> {
        self.plane.kraft()
    }

    /// The control plane's nodes, in id order: the ZooKeeper servers, or the KRaft voters.
    pub fn plane_nodes(&self) -> Vec<NodeId> {
        match &self.plane {
            ControlPlane::ZooKeeper(z) => z.keys().copied().collect(),
            ControlPlane::Kraft(k) => k.voters.keys().map(|v| NodeId::Voter(*v)).collect(),
        }
    }

    /// Whether the control plane knows node `n` (a command naming it is valid). In KRaft a fault
    /// naming one of the scenario's ZooKeeper servers (or `zk`) applies to the voters (see
    /// `apply_kraft`), so a scenario's faults run unchanged in every mode.
    pub(in crate::world) fn plane_knows(&self, n: NodeId) -> bool {
        match (&self.plane, n) {
            (ControlPlane::ZooKeeper(z), NodeId::Zk(_)) => z.contains_key(&n),
            (ControlPlane::Kraft(_), NodeId::Zk(_)) => n == NodeId::ZK || self.cfg.zk.servers.contains(&n),
            (ControlPlane::Kraft(k), NodeId::Voter(v)) => k.voters.contains_key(&v),
            _ => false,
        }
    }

    /// Why a message to a control-plane node cannot arrive, beyond its link: its voter is down.
    pub(in crate::world) fn plane_receiver_down(&self, m: &Message) -> Option<DropReason> {
        match (&self.plane, m.to) {
            (ControlPlane::Kraft(k), NodeId::Voter(v)) if !k.voters.get(&v).is_some_and(|x| x.alive) => {
                Some(DropReason::VoterDown(v))
            }
            _ => None,
        }
    }

    /// Whether the plane holds a message about to be delivered instead (the world then hands it
    /// to [`World::zk_hold`]): ZooKeeper's packets between two servers while their link is stalled.
    pub(in crate::world) fn plane_holds(&self, m: &Message) -> bool {
        match self.plane {
            ControlPlane::ZooKeeper(_) => self.zk_holds(m),
            ControlPlane::Kraft(_) => false,
        }
    }

    /// A message to a control-plane node (a ZooKeeper server or a voter).
    pub(in crate::world) fn plane_deliver(&mut self, m: Message, log: &mut StepLog) {
        match self.plane {
            ControlPlane::ZooKeeper(_) => self.zk_deliver(m, log),
            ControlPlane::Kraft(_) => self.kraft_deliver(m, log),
        }
    }

    /// A control-plane node's timer.
    pub(in crate::world) fn plane_fire(&mut self, node: NodeId, timer: Timer, log: &mut StepLog) {
        match self.plane {
            ControlPlane::ZooKeeper(_) => self.zk_fire(node, timer, log),
            ControlPlane::Kraft(_) => self.kraft_fire(node, timer, log),
        }
    }

    /// A message a control-plane node sent was dropped; whether the plane took it.
    pub(in crate::world) fn plane_dropped(&mut self, m: &Message, log: &mut StepLog) -> bool {
        match self.plane {
            ControlPlane::ZooKeeper(_) => self.zk_dropped(m, log),
            ControlPlane::Kraft(_) => self.kraft_dropped(m),
        }
    }

    /// A fault the plane applies whole (KRaft: every fault, a fault naming ZooKeeper applying to
    /// the voters); whether it did. ZooKeeper mode's faults are the world's (`faults.rs`).
    pub(in crate::world) fn plane_applies(&mut self, cmd: &Command, log: &mut StepLog) -> bool {
        match self.plane {
            ControlPlane::ZooKeeper(_) => false,
            ControlPlane::Kraft(_) => {
                self.apply_kraft(cmd, log);
                true
            }
        }
    }

    /// After a step: what the plane's nodes observe (ZooKeeper: the implicit PING round). Returns
    /// whether the brokers' ISR checks run in this plane (the model's KRaft brokers have none).
    pub(in crate::world) fn plane_observe(&mut self, log: &mut StepLog) -> bool {
        match self.plane {
            ControlPlane::ZooKeeper(_) => {
                self.zk_observe(log);
                true
            }
            ControlPlane::Kraft(_) => false,
        }
    }

    /// The alerts after a step, from what it touched (`None`: from scratch); `None` when they
    /// did not change.
    pub(in crate::world) fn compute_alerts(&mut self, touched: Option<&alerts::Touched>) -> Option<Vec<Alert>> {
        match &self.plane {
            ControlPlane::Kraft(quorum) => {
                Some(alerts::check_kraft(quorum, self.consumers.values(), self.render)).filter(|a| *a != self.alerts)
            }
            ControlPlane::ZooKeeper(servers) => {
                // The tree `ControlPlane::zk` reads (the leader's, the first server's while none
                // leads), found with its server in one pass.
                let (server, node) = servers
                    .iter()
                    .find(|(_, s)| s.role() == crate::zookeeper::proto::Role::Leading)
                    .or_else(|| servers.iter().next())
                    .expect("a ZooKeeper plane has a server");
                let tree = node.tree();
                let key = (*server, tree.brokers_version());
                self.alert_memo.update(key, tree, &self.brokers, &self.consumers, touched, self.render)
            }
        }
    }

    /// Every alert that holds now, computed from scratch: what [`World::alerts`] must equal (the
    /// incremental computation is checked against it).
    #[doc(hidden)]
    pub fn alerts_recomputed(&self) -> Vec<Alert> {
        match &self.plane {
            ControlPlane::Kraft(quorum) => alerts::check_kraft(quorum, self.consumers.values(), self.render),
            ControlPlane::ZooKeeper(_) => {
                let tree = self.plane.zk().expect("a ZooKeeper plane has a server");
                let mut memo = alerts::DivergenceMemo::new();
                alerts::check(tree, self.brokers.values(), self.consumers.values(), &mut memo, self.render)
            }
        }
    }
}
