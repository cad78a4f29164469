//! The controller's partition state machine (`kafka.controller.PartitionStateMachine`, 1.0):
//! NonExistent, New, Online, Offline, and which partitions `triggerOnlinePartitionStateChange`
//! looks at — only Offline and New ones, which is why a partition left Online with leader -1 is
//! never elected again by a broker startup. Also how the controller reads a partition's state
//! znode: `parse_state`, and `checkLeaderAndIsrZkData`'s verdict on a conditional write,
//! `write_landed` (both conditional leader-and-ISR writes end with it).
use crate::ids::BrokerId;
use crate::vec_map::VecSet;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::ZkResult;
use serde::{Deserialize, Serialize};

/// `PartitionState`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub enum PartitionState {
    /// NonExistentPartition.
    NonExistentPartition,
    /// NewPartition.
    NewPartition,
    /// OnlinePartition.
    OnlinePartition,
    /// OfflinePartition.
    OfflinePartition,
}

impl PartitionState {
    /// `initializePartitionState`: Online if the cached leader is live, Offline if not, New when the
    /// partition has no leadership yet.
    pub fn initial(leadership: Option<&LeaderIsr>, live: &VecSet<BrokerId>) -> Self {
        match leadership {
            None => PartitionState::NewPartition,
            Some(l) if live.contains(&l.leader) => PartitionState::OnlinePartition,
            Some(_) => PartitionState::OfflinePartition,
        }
    }

    /// Will `triggerOnlinePartitionStateChange` try to elect a leader?
    pub fn needs_election(self) -> bool {
        matches!(self, PartitionState::OfflinePartition | PartitionState::NewPartition)
    }
}

/// A partition state znode as read: its leadership and version.
pub(super) fn parse_state(result: &ZkResult) -> Option<(LeaderIsr, i32)> {
    match result {
        ZkResult::Data { data: ZData::PartitionState { state }, stat } => Some((state.clone(), stat.version)),
        _ => None,
    }
}

/// `ReplicationUtils.checkLeaderAndIsrZkData` (1.0): after a conditional leader-and-ISR write
/// failed with `BADVERSION`, read the state znode again; if it holds exactly what was meant (a
/// retried write may already have landed), the write counts, at the version read.
pub(super) fn write_landed(result: &ZkResult, intended: LeaderIsr) -> Option<(LeaderIsr, i32)> {
    parse_state(result).filter(|(s, _)| *s == intended)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn online_means_the_cached_leader_is_live_and_only_offline_or_new_get_elections() {
        let live: VecSet<BrokerId> = [2, 3].into_iter().collect();
        let led_by = |l| LeaderIsr { leader: l, leader_epoch: 1, isr: vec![l], controller_epoch: 1 };
        assert_eq!(PartitionState::initial(Some(&led_by(3)), &live), PartitionState::OnlinePartition);
        assert_eq!(PartitionState::initial(Some(&led_by(1)), &live), PartitionState::OfflinePartition);
        assert_eq!(PartitionState::initial(Some(&led_by(-1)), &live), PartitionState::OfflinePartition);
        assert_eq!(PartitionState::initial(None, &live), PartitionState::NewPartition);
        assert!(!PartitionState::OnlinePartition.needs_election());
        assert!(PartitionState::OfflinePartition.needs_election());
    }
}
