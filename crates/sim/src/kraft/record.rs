//! The KRaft metadata records (`org.apache.kafka.common.metadata`) and the image they fold into
//! (`MetadataImage`): what the quorum replicates and what brokers learn. Only ids and serde: the
//! message layer carries these without depending on the quorum.
use crate::ids::{fmt_ids, BrokerId, TopicPartition};
use crate::sorted::CollectOrdered;
use crate::vec_map::{VecMap, VecSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// A metadata record.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "type")]
pub enum Record {
    /// `LeaderChangeMessage`: written by each new leader in its own epoch.
    LeaderChange {
        /// Leader voter.
        leader: u32,
        /// Epoch.
        epoch: u32,
    },
    /// `RegisterBrokerRecord`.
    RegisterBroker {
        /// Broker.
        broker: BrokerId,
    },
    /// `BrokerRegistrationChangeRecord(fenced = true)`.
    FenceBroker {
        /// Broker.
        broker: BrokerId,
    },
    /// `BrokerRegistrationChangeRecord(fenced = false)`.
    UnfenceBroker {
        /// Broker.
        broker: BrokerId,
    },
    /// `PartitionRecord` / `PartitionChangeRecord`: the whole new state.
    Partition {
        /// Partition.
        tp: TopicPartition,
        /// The new state, shared with every image that applies the record (same JSON fields:
        /// replicas, isr, leader, leader_epoch, partition_epoch).
        #[serde(flatten)]
        part: Rc<Part>,
    },
}

impl Record {
    /// A partition record: `replicas`, `isr`, `leader` or -1, the leader epoch (bumped iff the
    /// leader changes) and the partition epoch (bumped on every change).
    pub fn partition(
        tp: TopicPartition,
        replicas: Vec<BrokerId>,
        isr: Vec<BrokerId>,
        leader: BrokerId,
        leader_epoch: i32,
        partition_epoch: i32,
    ) -> Record {
        Record::Partition { tp, part: Rc::new(Part { replicas, isr, leader, leader_epoch, partition_epoch }) }
    }

    /// One line for logs.
    pub fn describe(&self) -> String {
        match self {
            Record::LeaderChange { leader, epoch } => format!("LeaderChange(leader=q{leader}, epoch={epoch})"),
            Record::RegisterBroker { broker } => format!("RegisterBroker({broker})"),
            Record::FenceBroker { broker } => format!("BrokerRegistrationChange({broker}, fenced)"),
            Record::UnfenceBroker { broker } => format!("BrokerRegistrationChange({broker}, unfenced)"),
            Record::Partition { tp, part } => {
                format!(
                    "PartitionChange({tp}: leader={}, isr=[{}], leader_epoch={})",
                    part.leader,
                    fmt_ids(part.isr.iter().copied()),
                    part.leader_epoch
                )
            }
        }
    }
}

/// One log entry.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Entry {
    /// Epoch it was appended in.
    pub epoch: u32,
    /// The record, shared: the leader's log, its followers' copies, the appends that carry it and
    /// the batches pushed to brokers hold one record, never a copy.
    pub record: Rc<Record>,
}

/// A partition in the metadata image.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Part {
    /// Replicas.
    pub replicas: Vec<BrokerId>,
    /// ISR.
    pub isr: Vec<BrokerId>,
    /// Leader.
    pub leader: BrokerId,
    /// Leader epoch.
    pub leader_epoch: i32,
    /// Partition epoch.
    pub partition_epoch: i32,
}

/// The metadata image: the fold of the committed log.
///
/// The partitions are shared, copy-on-write (as Kafka's `MetadataImage` is immutable and a delta
/// builds the next one): the voters' and brokers' images, and every clone of a world, share one
/// map until one of them applies a record, which copies the map's spine but not the unchanged
/// partitions.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct Image {
    /// Registered brokers.
    pub registered: VecSet<BrokerId>,
    /// Fenced brokers.
    pub fenced: VecSet<BrokerId>,
    /// Partitions.
    pub partitions: Rc<VecMap<TopicPartition, Rc<Part>>>,
}

impl Image {
    /// Applies one record.
    pub fn apply(&mut self, r: &Record) {
        match r {
            Record::LeaderChange { .. } => {}
            Record::RegisterBroker { broker } => {
                self.registered.insert(*broker);
            }
            Record::FenceBroker { broker } => {
                self.fenced.insert(*broker);
            }
            Record::UnfenceBroker { broker } => {
                self.fenced.remove(broker);
            }
            Record::Partition { tp, part } => {
                let partitions = Rc::make_mut(&mut self.partitions);
                match partitions.get_mut(tp) {
                    Some(p) if Rc::ptr_eq(p, part) => {}
                    Some(p) => *p = part.clone(),
                    None => {
                        partitions.insert(tp.clone(), part.clone());
                    }
                }
            }
        }
    }

    /// Unfenced registered brokers.
    pub fn live(&self) -> VecSet<BrokerId> {
        self.registered.difference(&self.fenced).copied().collect_ordered()
    }
}
