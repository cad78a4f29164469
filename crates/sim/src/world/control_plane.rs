//! What holds the cluster's metadata and elects the controller: a ZooKeeper server (whose
//! clients are the brokers' controllers) or a KRaft quorum (with each broker's metadata image).
//! One enum, chosen once from [`crate::Behaviour::control_plane`] when the world is built, so a
//! KRaft run never builds a ZooKeeper it would throw away.
use crate::ids::{BrokerId, NodeId};
use crate::kraft::{Image, Kraft};
use crate::vec_map::VecMap;
use crate::zookeeper::data_tree::DataTree;
use crate::zookeeper::proto::Role;
use crate::zookeeper::server::ZkServerNode;
use alloc::rc::Rc;

/// The control plane of a run.
#[derive(Clone, Debug, Hash)]
pub enum ControlPlane {
    /// The ZooKeeper servers, by name.
    ZooKeeper(Rc<VecMap<NodeId, ZkServerNode>>),
    /// A KRaft quorum, and the metadata image each broker has folded so far.
    Kraft {
        /// The voters.
        quorum: Rc<Kraft>,
        /// Each broker's metadata image (`BrokerMetadataListener`'s).
        images: VecMap<BrokerId, Image>,
    },
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
            ControlPlane::Kraft { .. } => None,
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
            ControlPlane::Kraft { .. } => None,
        }
    }

    /// The quorum, when the control plane is KRaft.
    pub fn kraft(&self) -> Option<&Kraft> {
        match self {
            ControlPlane::Kraft { quorum, .. } => Some(quorum),
            ControlPlane::ZooKeeper(_) => None,
        }
    }

    /// The quorum, to run one of its handlers.
    pub(crate) fn kraft_mut(&mut self) -> Option<&mut Kraft> {
        match self {
            ControlPlane::Kraft { quorum, .. } => Some(Rc::make_mut(quorum)),
            ControlPlane::ZooKeeper(_) => None,
        }
    }

    /// The brokers' metadata images (KRaft only).
    pub(crate) fn images_mut(&mut self) -> Option<&mut VecMap<BrokerId, Image>> {
        match self {
            ControlPlane::Kraft { images, .. } => Some(images),
            ControlPlane::ZooKeeper(_) => None,
        }
    }
}
