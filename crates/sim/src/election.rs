//! Leader selection and ISR removal as pure functions: `OfflinePartitionLeaderSelector.selectLeader`
//! and the arithmetic of `KafkaController.removeReplicaFromIsr` (1.0), kept apart from the I/O that
//! surrounds them so they can be tested on their own.
use crate::ids::{fmt_ids, BrokerId, NO_LEADER};
use crate::zookeeper::LeaderIsr;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The outcome of an offline-partition election.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Elected {
    /// The new state (leader epoch already bumped).
    pub state: LeaderIsr,
    /// Replicas to send LeaderAndIsr to (live assigned replicas).
    pub recipients: Vec<BrokerId>,
    /// An out-of-ISR replica was chosen.
    pub unclean: bool,
}

/// `OfflinePartitionLeaderSelector.selectLeader`: the first replica in assignment order that is live
/// and in the ISR; the new ISR is the live part of the ISR. With no live ISR member, an unclean
/// election picks the first live assigned replica if allowed; otherwise `NoReplicaOnlineException`.
pub fn offline_leader(
    assignment: &[BrokerId],
    current: &LeaderIsr,
    live: &BTreeSet<BrokerId>,
    unclean_allowed: bool,
    controller_epoch: i32,
) -> Result<Elected, String> {
    let live_assigned: Vec<BrokerId> = assignment.iter().copied().filter(|r| live.contains(r)).collect();
    let live_isr: Vec<BrokerId> = current.isr.iter().copied().filter(|r| live.contains(r)).collect();
    let clean = assignment.iter().copied().find(|r| live_isr.contains(r));
    let (leader, isr, unclean) = match clean {
        Some(l) => (l, live_isr, false),
        None if unclean_allowed && !live_assigned.is_empty() => (live_assigned[0], alloc::vec![live_assigned[0]], true),
        None => {
            return Err(format!(
                "No replica in ISR for partition is alive. Live brokers are: [{}], ISR brokers are: [{}]",
                fmt_ids(live.iter().copied()),
                fmt_ids(current.isr.iter().copied())
            ))
        }
    };
    Ok(Elected {
        state: LeaderIsr { leader, leader_epoch: current.leader_epoch + 1, isr, controller_epoch },
        recipients: live_assigned,
        unclean,
    })
}

/// The new state after taking `replica` out of the ISR, or `None` if it is not in the ISR. If the
/// replica is the leader *in this state*, the leader becomes -1 (`LeaderAndIsr.NoLeader`): no
/// election happens here. The last ISR member is kept unless unclean election is enabled.
pub fn remove_from_isr(
    current: &LeaderIsr,
    replica: BrokerId,
    unclean_allowed: bool,
    controller_epoch: i32,
) -> Option<LeaderIsr> {
    if !current.isr.contains(&replica) {
        return None;
    }
    let leader = if current.leader == replica { NO_LEADER } else { current.leader };
    let mut isr: Vec<BrokerId> = current.isr.iter().copied().filter(|r| *r != replica).collect();
    if isr.is_empty() && !unclean_allowed {
        isr = current.isr.clone();
    }
    Some(LeaderIsr { leader, leader_epoch: current.leader_epoch + 1, isr, controller_epoch })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn li(leader: BrokerId, epoch: i32, isr: &[BrokerId]) -> LeaderIsr {
        LeaderIsr { leader, leader_epoch: epoch, isr: isr.to_vec(), controller_epoch: 7 }
    }

    #[test]
    fn offline_election_follows_assignment_order_within_live_isr() {
        let live: BTreeSet<BrokerId> = [1, 2].into_iter().collect();
        let e = offline_leader(&[3, 1, 2], &li(3, 13, &[3, 1, 2]), &live, false, 8).unwrap();
        assert_eq!(e.state, LeaderIsr { leader: 1, leader_epoch: 14, isr: vec![1, 2], controller_epoch: 8 });
        assert_eq!(e.recipients, vec![1, 2]);
        assert!(!e.unclean);
    }

    #[test]
    fn no_live_isr_member_fails_unless_unclean() {
        let live: BTreeSet<BrokerId> = [2].into_iter().collect();
        assert!(offline_leader(&[3, 1, 2], &li(3, 5, &[3, 1]), &live, false, 8).is_err());
        let e = offline_leader(&[3, 1, 2], &li(3, 5, &[3, 1]), &live, true, 8).unwrap();
        assert_eq!((e.state.leader, e.state.isr.clone(), e.unclean), (2, vec![2], true));
    }

    #[test]
    fn removing_the_leader_writes_no_leader() {
        let r = remove_from_isr(&li(1, 14, &[1, 2]), 1, false, 9).unwrap();
        assert_eq!(r, LeaderIsr { leader: -1, leader_epoch: 15, isr: vec![2], controller_epoch: 9 });
        let r = remove_from_isr(&li(3, 13, &[3, 1, 2]), 1, false, 9).unwrap();
        assert_eq!((r.leader, r.isr), (3, vec![3, 2]));
        assert_eq!(remove_from_isr(&li(3, 13, &[3, 2]), 1, false, 9), None);
        // The last ISR member stays when unclean election is off.
        assert_eq!(remove_from_isr(&li(2, 4, &[2]), 2, false, 9).unwrap().isr, vec![2]);
        assert_eq!(remove_from_isr(&li(2, 4, &[2]), 2, true, 9).unwrap().isr, Vec::<BrokerId>::new());
    }
}
