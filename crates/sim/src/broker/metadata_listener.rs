//! A KRaft broker's side of the metadata log (Kafka's `kafka.server.metadata`, a broker
//! component): `BrokerMetadataListener` folds the committed records the active controller pushes
//! into the broker's own [`Image`] ([`Broker::on_metadata_records`]), and
//! `BrokerMetadataPublisher` publishes that image to the broker's metadata cache, its
//! `ReplicaManager` (local partitions) and its group coordinator (the `__consumer_offsets`
//! partitions it leads). Only the broker writes its own fields.
use super::{Broker, LocalPartition};
use crate::effects::Outbox;
use crate::event::EventKind;
use crate::ids::BrokerId;
use crate::kraft::{Image, Part, Record};
use crate::message::PartitionStateInfo;
use crate::scenario::OFFSETS_TOPIC;
use crate::sorted::CollectOrdered;
use alloc::format;
use alloc::rc::Rc;
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

/// `BrokerMetadataPublisher`: brings `br`'s metadata cache, local partitions and owned offsets
/// partitions to what `img` says (the whole image each time: a KRaft broker keeps no state of its
/// own beside it). The result is [`Broker::load_metadata`] of the whole image; an entry that
/// already says what the image says is kept as it is rather than rebuilt.
fn publish(img: &Image, br: &mut Broker) {
    #[cfg(debug_assertions)]
    let mut full = br.clone();
    publish_in_place(img, br);
    #[cfg(debug_assertions)]
    {
        full.load_metadata(img.live(), img.partitions.iter().map(|(tp, p)| (tp.clone(), p.info(tp))).collect_ordered());
        debug_assert!(full == *br, "publishing in place differs from loading the whole image");
    }
}

fn publish_in_place(img: &Image, br: &mut Broker) {
    let cache = &br.metadata.partitions;
    if cache.len() != img.partitions.len() || cache.keys().zip(img.partitions.keys()).any(|(a, b)| a != b) {
        br.load_metadata(img.live(), img.partitions.iter().map(|(tp, p)| (tp.clone(), p.info(tp))).collect_ordered());
        return;
    }
    let me = br.id;
    let mut moved = false;
    let mut local = 0;
    let mut owned = crate::vec_map::VecSet::new();
    for ((tp, p), (_, cached)) in img.partitions.iter().zip(br.metadata.partitions.iter_mut()) {
        if !p.says(cached) {
            *cached = Rc::new(p.info(tp));
        }
        if p.replicas.contains(&me) {
            local += 1;
            // Copied (when a cloned world shares them) only for an entry that changes.
            if !br.partitions.get(tp).is_some_and(|l| p.is_local(l, me)) {
                Rc::make_mut(&mut br.partitions).insert(tp.clone(), LocalPartition::from_info(cached, me));
                moved = true;
            }
        }
        if p.leader == me && tp.topic == OFFSETS_TOPIC {
            owned.insert(tp.partition);
        }
    }
    if br.partitions.len() != local {
        Rc::make_mut(&mut br.partitions)
            .retain(|tp, _| img.partitions.get(tp).is_some_and(|p| p.replicas.contains(&me)));
        moved = true;
    }
    if moved {
        br.partitions_stamp.0 += 1;
    }
    br.owned_offsets_partitions = owned;
    if !img.registered.difference(&img.fenced).eq(br.metadata.alive.iter()) {
        br.metadata.alive = img.live();
    }
}

impl Part {
    /// What [`Part::info`] writes into a metadata cache entry or a local replica: leader, leader
    /// epoch, ISR, version (the partition epoch), controller epoch (none in KRaft), replicas.
    fn fields(&self) -> (BrokerId, i32, &[BrokerId], i32, i32, &[BrokerId]) {
        (self.leader, self.leader_epoch, &self.isr, self.partition_epoch, 0, &self.replicas)
    }

    /// The metadata cache's entry `i` is [`Part::info`] of this partition.
    fn says(&self, i: &PartitionStateInfo) -> bool {
        self.fields() == (i.leader, i.leader_epoch, &i.isr[..], i.zk_version, i.controller_epoch, &i.replicas[..])
    }

    /// Broker `me`'s local replica `l` is what [`LocalPartition::from_info`] makes of this
    /// partition.
    fn is_local(&self, l: &LocalPartition, me: BrokerId) -> bool {
        self.fields() == (l.leader, l.leader_epoch, &l.isr[..], l.zk_version, l.controller_epoch, &l.replicas[..])
            && l.is_leader == (self.leader == me)
            && l.isr_write_failed_at.is_none()
            && l.isr_refusals == 0
    }
}

impl Broker {
    /// `BrokerMetadataListener.handleCommit`: applies `records` (committed, from the log's offset
    /// `from_offset`) to this broker's image, then [`publish`]es it; says when the offsets
    /// partitions its group coordinator leads changed.
    pub fn on_metadata_records(&mut self, from_offset: u64, records: &[Rc<Record>], out: &mut Outbox) {
        let b = self.id;
        out.headline(EventKind::ControlRequest, || applied_line(b, from_offset, records));
        let mut img = core::mem::take(&mut self.metadata_image);
        for r in records {
            img.apply(r);
        }
        let leaders_before = self.owned_offsets_partitions.clone();
        publish(&img, self);
        self.metadata_image = img;
        if leaders_before != self.owned_offsets_partitions {
            out.log(EventKind::Info, || coordinator_line(self));
        }
    }

    /// A KRaft broker process restarted: its image is empty until the controller sends the log
    /// again.
    pub fn restart_metadata_image(&mut self) {
        self.metadata_image = Image::default();
        publish(&Image::default(), self);
    }

    /// A KRaft broker of the initial steady state: it has published `img` long before.
    pub(crate) fn load_metadata_image(&mut self, img: &Image) {
        publish(img, self);
        self.metadata_image = img.clone();
    }
}

/// The listener's line for a batch of `records` from `from_offset` applied at broker `b`.
fn applied_line(b: BrokerId, from_offset: u64, records: &[Rc<Record>]) -> String {
    let interesting: Vec<String> = records
        .iter()
        .filter(|r| !matches!(***r, Record::Partition { .. }) || records.len() < 4)
        .map(|r| r.describe())
        .collect();
    format!(
        "[BrokerMetadataListener id={b}] Applied {} committed record(s) from offset {from_offset}{}",
        records.len(),
        if interesting.is_empty() { String::new() } else { format!(": {}", interesting.join("; ")) }
    )
}

/// The group coordinator's line when the offsets partitions `br` leads changed.
fn coordinator_line(br: &Broker) -> String {
    format!(
        "[GroupCoordinator {}] now coordinates __consumer_offsets partitions {:?}",
        br.id, br.owned_offsets_partitions
    )
}
