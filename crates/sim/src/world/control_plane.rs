//! What holds the cluster's metadata and elects the controller: a ZooKeeper server (whose
//! clients are the brokers' controllers) or a KRaft quorum (with each broker's metadata image).
//! One enum, chosen once from [`crate::Behaviour::control_plane`] when the world is built, so a
//! KRaft run never builds a ZooKeeper it would throw away.
use crate::ids::BrokerId;
use crate::kraft::{Image, Kraft};
use crate::zookeeper::{DataTree, ZkServerNode};
use alloc::collections::BTreeMap;
use alloc::rc::Rc;

/// The control plane of a run.
#[derive(Clone, Debug)]
pub enum ControlPlane {
    /// A ZooKeeper server node.
    ZooKeeper(Rc<ZkServerNode>),
    /// A KRaft quorum, and the metadata image each broker has folded so far.
    Kraft {
        /// The voters.
        quorum: Rc<Kraft>,
        /// Each broker's metadata image (`BrokerMetadataListener`'s).
        images: BTreeMap<BrokerId, Image>,
    },
}

impl ControlPlane {
    /// The ZooKeeper data tree, when the control plane is ZooKeeper.
    pub fn zk(&self) -> Option<&DataTree> {
        match self {
            ControlPlane::ZooKeeper(z) => Some(z.tree()),
            ControlPlane::Kraft { .. } => None,
        }
    }

    /// The ZooKeeper server node, to run one of its handlers.
    pub(crate) fn zk_node_mut(&mut self) -> Option<&mut ZkServerNode> {
        match self {
            ControlPlane::ZooKeeper(z) => Some(Rc::make_mut(z)),
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
    pub(crate) fn images_mut(&mut self) -> Option<&mut BTreeMap<BrokerId, Image>> {
        match self {
            ControlPlane::Kraft { images, .. } => Some(images),
            ControlPlane::ZooKeeper(_) => None,
        }
    }
}
