//! `ControllerBrokerRequestBatch` (1.0): LeaderAndIsr and UpdateMetadata requests collected while an
//! event is processed and sent together by `sendRequestsToBrokers`.
use super::{Controller, ControllerIo};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::message::{PartitionStateInfo, Payload};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::rc::Rc;
use alloc::vec::Vec;

/// `ControllerBrokerRequestBatch`.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub(super) struct Batch {
    /// `leaderAndIsrRequestMap`: per broker, the partitions it is told about.
    pub(super) lai: BTreeMap<BrokerId, BTreeMap<TopicPartition, Rc<PartitionStateInfo>>>,
    /// `updateMetadataRequestPartitionInfoMap`: partitions every live broker is told about.
    pub(super) um: BTreeSet<TopicPartition>,
}

impl Controller {
    /// State info for a cached partition.
    fn info(&self, tp: &TopicPartition) -> Option<PartitionStateInfo> {
        let c = self.ctx.leadership.get(tp)?;
        Some(c.info(tp, self.ctx.assignment.get(tp).cloned().unwrap_or_default()))
    }

    /// `addLeaderAndIsrRequestForBrokers`: LeaderAndIsr to `brokers`, UpdateMetadata to all.
    pub(super) fn add_lai(&mut self, brokers: &[BrokerId], tp: &TopicPartition) {
        if let Some(info) = self.info(tp) {
            let info = Rc::new(info);
            for b in brokers {
                self.batch.lai.entry(*b).or_default().insert(tp.clone(), info.clone());
            }
            self.batch.um.insert(tp.clone());
        }
    }

    /// `sendUpdateMetadataRequest` for every cached partition, sent now.
    pub(super) fn update_metadata_all(&mut self, io: &mut ControllerIo) {
        self.batch.um.extend(self.ctx.leadership.keys().cloned());
        self.flush(io);
    }

    /// Send the batched requests (`sendRequestsToBrokers`): LeaderAndIsr first, then UpdateMetadata.
    pub(super) fn flush(&mut self, io: &mut ControllerIo) {
        let epoch = self.ctx.epoch;
        let live = &self.ctx.live_brokers;
        let batch = core::mem::take(&mut self.batch);
        // The UpdateMetadata state of a partition shares the LeaderAndIsr state the batch holds
        // for it when that is still what the cache says (it always is unless the cache moved
        // since): one copy instead of building it again.
        let um: Vec<Rc<PartitionStateInfo>> = batch
            .um
            .iter()
            .filter_map(|tp| {
                let c = self.ctx.leadership.get(tp)?;
                let replicas = self.ctx.assignment.get(tp).map_or(&[][..], Vec::as_slice);
                let current = |i: &&Rc<PartitionStateInfo>| {
                    i.leader == c.state.leader
                        && i.leader_epoch == c.state.leader_epoch
                        && i.zk_version == c.zk_version
                        && i.controller_epoch == c.state.controller_epoch
                        && i.isr == c.state.isr
                        && i.replicas == replicas
                        && i.tp == *tp
                };
                let shared = batch.lai.values().find_map(|m| m.get(tp).filter(current).cloned());
                Some(shared.unwrap_or_else(|| Rc::new(c.info(tp, replicas.to_vec()))))
            })
            .collect();
        debug_assert!(um.iter().map(|i| &**i).eq(batch
            .um
            .iter()
            .filter_map(|tp| self.info(tp))
            .collect::<Vec<_>>()
            .iter()));
        for (b, parts) in batch.lai {
            if !live.contains(&b) {
                continue; // "Not sending request to broker since it is offline"
            }
            io.out.send(
                NodeId::Broker(b),
                Payload::LeaderAndIsr {
                    controller_id: io.id,
                    controller_epoch: epoch,
                    partitions: parts.into_values().collect(),
                },
            );
        }
        if !batch.um.is_empty() {
            let parts = um;
            for b in live {
                io.out.send(
                    NodeId::Broker(*b),
                    Payload::UpdateMetadata {
                        controller_id: io.id,
                        controller_epoch: epoch,
                        live_brokers: live.iter().copied().collect(),
                        partitions: parts.clone(),
                    },
                );
            }
        }
    }
}
