//! The control plane's share of what a UI draws, behind the seam: the partition table as the
//! plane holds it (ZooKeeper's state znodes, or KRaft's committed image), the voters as nodes, the
//! server a broker's client talks to, the metadata log's last entries, and where leadership is
//! recorded. [`crate::view`] composes these with the brokers and consumers and asks no mode.
use super::super::World;
use super::ControlPlane;
use crate::broker::Broker;
use crate::ids::{NodeId, NodeKind};
use crate::message::PartitionStateInfo;
use crate::view::{MetadataStore, NodeStatus, NodeView, ZnodeView};
use crate::znodes::{LeaderIsr, ZData};
use alloc::format;
use alloc::vec::Vec;

impl World {
    /// The partition table as the control plane holds it: each assigned partition's state znode
    /// (leader -1 and version -1 where none is written), or KRaft's committed image.
    pub(crate) fn plane_partition_states(&self) -> Vec<PartitionStateInfo> {
        if let ControlPlane::Kraft(k) = &self.plane {
            return k.image().partitions.iter().map(|(tp, p)| p.info(tp)).collect();
        }
        self.config()
            .assignment
            .iter()
            .map(|(tp, replicas)| {
                let (s, v) = match self.znode(&tp.state_path()) {
                    Some(n) => match &n.data {
                        ZData::PartitionState { state } => (Some(state.clone()), n.stat.version),
                        _ => (None, n.stat.version),
                    },
                    None => (None, -1),
                };
                let s = s.unwrap_or(LeaderIsr { leader: -1, leader_epoch: -1, isr: Vec::new(), controller_epoch: -1 });
                PartitionStateInfo::new(tp, &s, v, replicas.clone())
            })
            .collect()
    }

    /// The KRaft voters, as nodes (none under ZooKeeper, whose servers are drawn from
    /// [`World::zk_server_views`]).
    pub(crate) fn plane_voter_views(&self) -> Vec<NodeView> {
        let ControlPlane::Kraft(k) = &self.plane else { return Vec::new() };
        k.voters
            .values()
            .map(|v| NodeView {
                id: NodeId::Voter(v.id),
                kind: NodeKind::Voter,
                label: format!("controller q{}", v.id),
                alive: v.alive,
                status: if v.alive { NodeStatus::Voter(v.role) } else { NodeStatus::Down },
                session_id: None,
                zk_controller: false,
                acting_controller: v.alive && v.role == crate::kraft::Role::Leader,
                controller_epoch: v.epoch as i32,
                leads: Vec::new(),
                controller_queue: alloc::vec![format!("log {} · committed {}", v.log.len(), v.commit)],
                controller_waiting: None,
                zk_server: None,
                leads_watched: false,
            })
            .collect()
    }

    /// The ZooKeeper server broker `b`'s client talks to (none in KRaft).
    pub(crate) fn plane_client_server(&self, b: &Broker) -> Option<NodeId> {
        match self.plane {
            ControlPlane::ZooKeeper(_) => Some(b.zk.server()),
            ControlPlane::Kraft(_) => None,
        }
    }

    /// The metadata log's last 40 entries as the most advanced voter holds them, drawn where the
    /// ZooKeeper tree is drawn (none under ZooKeeper).
    pub(crate) fn plane_log_entries(&self) -> Vec<ZnodeView> {
        let ControlPlane::Kraft(k) = &self.plane else { return Vec::new() };
        let leader = k.voters.values().max_by_key(|v| (v.commit, v.epoch)).expect("voters");
        let from = leader.log.len().saturating_sub(40);
        leader
            .log
            .iter()
            .enumerate()
            .skip(from)
            .map(|(i, e)| ZnodeView {
                path: format!("/__cluster_metadata/{i:05}{}", if i < leader.commit { "" } else { " (uncommitted)" }),
                data: e.record.describe(),
                version: e.epoch as i32,
                ephemeral_owner: None,
                partition: None,
            })
            .collect()
    }

    /// Where partition leadership is recorded.
    pub(crate) fn plane_metadata(&self) -> MetadataStore {
        match self.plane {
            ControlPlane::ZooKeeper(_) => MetadataStore::ZooKeeper,
            ControlPlane::Kraft(_) => MetadataStore::MetadataLog,
        }
    }

    /// The KRaft quorum's live leader, if any (none under ZooKeeper).
    pub(crate) fn plane_quorum_leader(&self) -> Option<NodeId> {
        let ControlPlane::Kraft(k) = &self.plane else { return None };
        k.voters.values().find(|v| v.alive && v.role == crate::kraft::Role::Leader).map(|v| NodeId::Voter(v.id))
    }
}
