//! How Kafka's story reads a write that a ZooKeeper server commits. ZooKeeper itself knows
//! nothing of controllers or partitions: these are Kafka's znode paths and data seen in a
//! [`ZkOp`], and what the server that answers the write can tell of it for the trace.
use crate::ids::TopicPartition;
use crate::znodes::ZData;
use crate::zookeeper::ops::{MultiOp, ZkOp};
use alloc::vec::Vec;

/// Kafka's paths and data in a request.
impl ZkOp {
    /// A delete of `/controller`, alone or inside a `multi` (`triggerControllerMove`).
    pub fn deletes_controller(&self) -> bool {
        match self {
            ZkOp::Delete { path, .. } => path == "/controller",
            ZkOp::Multi { ops } => {
                ops.iter().any(|o| matches!(o, MultiOp::Delete { path, .. } if path == "/controller"))
            }
            _ => false,
        }
    }

    /// The partitions whose state znode this request would write (a `setData` or `create` of a
    /// `.../partitions/<n>/state` path, alone or inside a `multi`).
    pub fn state_writes(&self) -> Vec<TopicPartition> {
        match self {
            ZkOp::SetData { path, .. } | ZkOp::Create { path, .. } => {
                TopicPartition::from_state_path(path).into_iter().collect()
            }
            ZkOp::Multi { ops } => ops
                .iter()
                .filter_map(|o| match o {
                    MultiOp::SetData { path, .. } | MultiOp::Create { path, .. } => {
                        TopicPartition::from_state_path(path)
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A `setData` of a partition state, alone or in a `multi`: the writes a server's reply
    /// compares with `/controller_epoch` (see `ZkServerNode::answer`).
    pub fn sets_partition_state(&self) -> bool {
        match self {
            ZkOp::SetData { data: ZData::PartitionState { .. }, .. } => true,
            ZkOp::Multi { ops } => {
                ops.iter().any(|o| matches!(o, MultiOp::SetData { data: ZData::PartitionState { .. }, .. }))
            }
            _ => false,
        }
    }
}
