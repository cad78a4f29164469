//! A KRaft broker's side of the metadata log: `BrokerMetadataListener` folds the committed records
//! the active controller pushes into the broker's own [`Image`], and `BrokerMetadataPublisher`
//! publishes that image to the broker's metadata cache, its `ReplicaManager` (local partitions)
//! and its group coordinator (the `__consumer_offsets` partitions it leads).
use super::record::{Image, Part, Record};
use crate::broker::Broker;
use crate::message::PartitionStateInfo;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl Part {
    /// The partition's state as a broker's metadata cache holds it (KRaft has no controller
    /// epoch; the partition epoch stands in the zkVersion's place).
    pub fn info(&self, tp: &crate::ids::TopicPartition) -> PartitionStateInfo {
        PartitionStateInfo {
            tp: tp.clone(),
            leader: self.leader,
            leader_epoch: self.leader_epoch,
            isr: self.isr.clone(),
            zk_version: self.partition_epoch,
            controller_epoch: 0,
            replicas: self.replicas.clone(),
        }
    }
}

/// `BrokerMetadataPublisher`: rebuilds `br`'s metadata cache, local partitions and owned offsets
/// partitions from `img` (the whole image each time: a KRaft broker keeps no state of its own
/// beside it).
pub fn publish(img: &Image, br: &mut Broker) {
    br.load_metadata(img.live(), img.partitions.iter().map(|(tp, p)| (tp.clone(), p.info(tp))).collect());
}

/// What applying one batch of committed records did, as log lines.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Applied {
    /// The listener's line.
    pub line: String,
    /// The group coordinator's line, when the offsets partitions it leads changed.
    pub coordinator: Option<String>,
}

/// `BrokerMetadataListener.handleCommit`: applies `records` (committed, from `from_offset`) to
/// the broker's image `img`, then [`publish`]es it to `br`.
pub fn apply_records(img: &mut Image, br: &mut Broker, from_offset: u64, records: &[Record]) -> Applied {
    let b = br.id;
    for r in records {
        img.apply(r);
    }
    let leaders_before = br.owned_offsets_partitions.clone();
    publish(img, br);
    let interesting: Vec<String> = records
        .iter()
        .filter(|r| !matches!(r, Record::Partition { .. }) || records.len() < 4)
        .map(|r| r.describe())
        .collect();
    let line = format!(
        "[BrokerMetadataListener id={b}] Applied {} committed record(s) from offset {from_offset}{}",
        records.len(),
        if interesting.is_empty() { String::new() } else { format!(": {}", interesting.join("; ")) }
    );
    let coordinator = (leaders_before != br.owned_offsets_partitions).then(|| {
        format!(
            "[GroupCoordinator {b}] now coordinates __consumer_offsets partitions {:?}",
            br.owned_offsets_partitions
        )
    });
    Applied { line, coordinator }
}
