//! The broker's `ReplicaManager` (leader/follower state with the controller-epoch and leader-epoch
//! checks of `becomeLeaderOrFollower`) and its `MetadataCache` (filled by UpdateMetadata).
use super::Broker;
use crate::effects::Outbox;
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, TopicPartition, NO_LEADER};
use crate::message::PartitionStateInfo;
use crate::scenario::OFFSETS_TOPIC;
use crate::sorted::CollectOrdered;
use crate::vec_map::{VecMap, VecSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::vec::Vec;

/// A replica as the local `ReplicaManager` knows it (`Partition`).
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct LocalPartition {
    /// Leader this broker follows (or itself).
    pub leader: BrokerId,
    /// Leader epoch of the last accepted LeaderAndIsr.
    pub leader_epoch: i32,
    /// ISR as the leader believes it.
    pub isr: Vec<BrokerId>,
    /// The cached state znode version: the leader's CAS expectation for ISR writes.
    pub zk_version: i32,
    /// Epoch of the controller that made the decision.
    pub controller_epoch: i32,
    /// Assigned replicas.
    pub replicas: Vec<BrokerId>,
    /// This broker leads the partition.
    pub is_leader: bool,
    /// The zkVersion at which an ISR write last failed: it is tried again (and fails again) at
    /// every isr-expiration run until a LeaderAndIsr brings a new zkVersion.
    pub isr_write_failed_at: Option<i32>,
    /// How many times in a row the write was refused at that zkVersion.
    pub isr_refusals: u32,
}

impl LocalPartition {
    /// The local state after accepting `info` (`Partition.makeLeader` / `makeFollower`): leader
    /// when `info` names broker `me`, else a follower of the leader it names.
    pub fn from_info(info: &PartitionStateInfo, me: BrokerId) -> Self {
        LocalPartition {
            leader: info.leader,
            leader_epoch: info.leader_epoch,
            isr: info.isr.clone(),
            zk_version: info.zk_version,
            controller_epoch: info.controller_epoch,
            replicas: info.replicas.clone(),
            is_leader: info.leader == me,
            isr_write_failed_at: None,
            isr_refusals: 0,
        }
    }

    /// Becomes [`LocalPartition::from_info`] of `info` in place, its lists keeping their room.
    fn assign_info(&mut self, info: &PartitionStateInfo, me: BrokerId) {
        self.leader = info.leader;
        self.leader_epoch = info.leader_epoch;
        self.isr.clone_from(&info.isr);
        self.zk_version = info.zk_version;
        self.controller_epoch = info.controller_epoch;
        self.replicas.clone_from(&info.replicas);
        self.is_leader = info.leader == me;
        self.isr_write_failed_at = None;
        self.isr_refusals = 0;
        debug_assert_eq!(*self, LocalPartition::from_info(info, me));
    }
}

/// `MetadataCache`.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct MetadataCache {
    /// Alive brokers, as the last UpdateMetadata said.
    pub alive: VecSet<BrokerId>,
    /// Partition states.
    /// Shared with the request that brought each (one allocation per state, however many
    /// brokers hold it).
    pub partitions: VecMap<TopicPartition, Rc<PartitionStateInfo>>,
}

impl Broker {
    /// `ReplicaManager.becomeLeaderOrFollower`.
    pub fn on_leader_and_isr(
        &mut self,
        controller_id: BrokerId,
        controller_epoch: i32,
        parts: Vec<Rc<PartitionStateInfo>>,
        out: &mut Outbox,
    ) -> bool {
        if controller_epoch < self.controller_epoch {
            out.log(
                EventKind::ControlRejected,
                || format!(
                    "[ReplicaManager broker={}] Ignoring LeaderAndIsr request from controller {controller_id} with epoch {controller_epoch} since its controller epoch is old. Latest known controller epoch is {} (STALE_CONTROLLER_EPOCH)",
                    self.id, self.controller_epoch
                ),
            );
            return false;
        }
        self.controller_epoch = controller_epoch;
        // At least one effect a partition: grown once, not doubling through a large request.
        out.effects.reserve(parts.len());
        for p in parts {
            if !p.replicas.contains(&self.id) {
                continue;
            }
            let (local_epoch, was_leader) =
                self.partitions.get(&p.tp).map(|l| (l.leader_epoch, l.is_leader)).unwrap_or((-1, false));
            if p.leader_epoch <= local_epoch {
                out.log(
                    EventKind::ControlRejected,
                    || format!(
                        "[ReplicaManager broker={}] Ignoring LeaderAndIsr from controller {controller_id} epoch {controller_epoch} for partition {} since its leader epoch {} is not higher than the current leader epoch {local_epoch}",
                        self.id, p.tp, p.leader_epoch
                    ),
                );
                continue;
            }
            if p.leader == self.id {
                self.accept_state(&p);
                out.log(
                    EventKind::ControlRequest,
                    || format!(
                        "[ReplicaManager broker={}] Became leader of {} with leader epoch {} ISR [{}] zkVersion {} (controller {controller_id} epoch {controller_epoch})",
                        self.id,
                        p.tp,
                        p.leader_epoch,
                        fmt_ids(p.isr.iter().copied()),
                        p.zk_version
                    ),
                );
                if p.tp.topic == OFFSETS_TOPIC && self.owned_offsets_partitions.insert(p.tp.partition) {
                    out.log(EventKind::Info, || {
                        format!(
                            "[GroupCoordinator {}] Loading group metadata for partition {} (immigration)",
                            self.id, p.tp
                        )
                    });
                }
            } else if p.leader != NO_LEADER && self.metadata.alive.contains(&p.leader) {
                self.accept_state(&p);
                out.log(EventKind::ControlRequest, || {
                    format!(
                        "[ReplicaManager broker={}] Became follower of broker {} for {} with leader epoch {}",
                        self.id, p.leader, p.tp, p.leader_epoch
                    )
                });
                if was_leader && p.tp.topic == OFFSETS_TOPIC && self.owned_offsets_partitions.remove(&p.tp.partition) {
                    out.log(EventKind::Info, || {
                        format!("[GroupCoordinator {}] Unloading group metadata for {} (emigration)", self.id, p.tp)
                    });
                }
            } else {
                // makeFollowers: "Only change partition state when the leader is available".
                out.log(
                    EventKind::ControlRequest,
                    || format!(
                        "[ReplicaManager broker={}] Broker {} cannot become follower for partition {} since the new leader {} is unavailable; local state unchanged{}",
                        self.id,
                        self.id,
                        p.tp,
                        p.leader,
                        if was_leader { " (still acting as its leader)" } else { "" }
                    ),
                );
                out.mark(crate::mark::Mark::FollowerTransitionSkipped {
                    broker: self.id,
                    partition: p.tp.clone(),
                    leader: p.leader,
                    still_leader: was_leader,
                });
                self.partitions_stamp.0 += 1;
                Rc::make_mut(&mut self.partitions).or_insert_with(p.tp.clone(), || LocalPartition {
                    leader: NO_LEADER,
                    leader_epoch: -1,
                    isr: Vec::new(),
                    zk_version: -1,
                    controller_epoch: -1,
                    replicas: p.replicas.clone(),
                    is_leader: false,
                    isr_write_failed_at: None,
                    isr_refusals: 0,
                });
            }
        }
        true
    }

    /// A LeaderAndIsr's state `p` becomes this broker's replica ([`LocalPartition::from_info`]),
    /// written over the entry it replaces in one map search.
    fn accept_state(&mut self, p: &PartitionStateInfo) {
        self.partitions_stamp.0 += 1;
        let me = self.id;
        let partitions = Rc::make_mut(&mut self.partitions);
        match partitions.get_mut(&p.tp) {
            Some(e) => e.assign_info(p, me),
            None => {
                partitions.insert(p.tp.clone(), LocalPartition::from_info(p, me));
            }
        }
    }

    /// `ReplicaManager.maybeUpdateMetadataCache`.
    pub fn on_update_metadata(
        &mut self,
        controller_id: BrokerId,
        controller_epoch: i32,
        live: Vec<BrokerId>,
        parts: Vec<Rc<PartitionStateInfo>>,
        out: &mut Outbox,
    ) -> bool {
        if controller_epoch < self.controller_epoch {
            out.log(
                EventKind::ControlRejected,
                || format!(
                    "[ReplicaManager broker={}] Received UpdateMetadata from an old controller {controller_id} with epoch {controller_epoch}. Latest known controller epoch is {} (ControllerMovedException)",
                    self.id, self.controller_epoch
                ),
            );
            return false;
        }
        self.controller_epoch = controller_epoch;
        self.metadata.alive = live.into_iter().collect_ordered();
        // `parts` come sorted (the controller's batch is a sorted set): the cache is walked once
        // beside them, each state replaced in place, and only partitions it lacks are inserted
        // (in any order the last state of a partition wins, as with one insert each).
        let mut missing = Vec::new();
        let mut cache = self.metadata.partitions.iter_mut().peekable();
        for p in parts {
            while cache.next_if(|(tp, _)| **tp < p.tp).is_some() {}
            match cache.next_if(|(tp, _)| **tp == p.tp) {
                Some((_, slot)) => *slot = p,
                None => missing.push(p),
            }
        }
        for p in missing {
            self.metadata.partitions.insert(p.tp.clone(), p);
        }
        true
    }

    /// Replaces what this broker knows of the cluster wholesale: its metadata cache becomes
    /// `alive` and `partitions`, it leads or follows each partition it is a replica of as
    /// `partitions` says, and it coordinates the groups of the `__consumer_offsets` partitions it
    /// leads. The steady state at time 0 starts from this, and a KRaft broker publishes every
    /// image this way (`BrokerMetadataPublisher`).
    pub fn load_metadata(&mut self, alive: VecSet<BrokerId>, partitions: VecMap<TopicPartition, PartitionStateInfo>) {
        self.partitions_stamp.0 += 1;
        Rc::make_mut(&mut self.partitions).clear();
        self.owned_offsets_partitions.clear();
        for (tp, info) in &partitions {
            if info.replicas.contains(&self.id) {
                self.partitions_stamp.0 += 1;
                Rc::make_mut(&mut self.partitions).insert(tp.clone(), LocalPartition::from_info(info, self.id));
            }
            if info.leader == self.id && tp.topic == OFFSETS_TOPIC {
                self.owned_offsets_partitions.insert(tp.partition);
            }
        }
        self.metadata.alive = alive;
        self.metadata.partitions = partitions.into_iter().map(|(tp, p)| (tp, Rc::new(p))).collect_ordered();
    }
}
