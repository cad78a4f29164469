//! `ControllerBrokerRequestBatch` (1.0): LeaderAndIsr and UpdateMetadata requests collected while an
//! event is processed and sent together by `sendRequestsToBrokers`.
use super::{Controller, ControllerIo};
use crate::derived::Derived;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::message::{PartitionStateInfo, Payload};
use crate::vec_map::{VecMap, VecSet};
use alloc::rc::Rc;
use alloc::vec::Vec;

/// `ControllerBrokerRequestBatch`.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub(super) struct Batch {
    /// `leaderAndIsrRequestMap`: per broker, the partitions it is told about.
    pub(super) lai: VecMap<BrokerId, VecMap<TopicPartition, Rc<PartitionStateInfo>>>,
    /// `updateMetadataRequestPartitionInfoMap`: partitions every live broker is told about.
    pub(super) um: VecSet<TopicPartition>,
}

/// The partition states last put in a request, by partition: a state that has not moved since is
/// sent again as the same shared value instead of a new copy ([`Derived`]: a cache, not state).
pub(super) type Sent = Derived<VecMap<TopicPartition, Rc<PartitionStateInfo>>>;

impl Controller {
    /// State info for a cached partition (`Cached::info` with its assigned replicas).
    fn info(&mut self, tp: &TopicPartition) -> Option<Rc<PartitionStateInfo>> {
        let c = self.ctx.leadership.get(tp)?;
        let replicas = self.ctx.assignment.get(tp).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(s) = self.sent.0.get(tp).filter(|s| s.is_of(&c.state, c.zk_version, replicas)) {
            debug_assert_eq!(**s, c.info(tp, replicas.to_vec()));
            return Some(s.clone());
        }
        let info = Rc::new(c.info(tp, replicas.to_vec()));
        self.sent.0.insert(tp.clone(), info.clone());
        Some(info)
    }

    /// `addLeaderAndIsrRequestForBrokers`: LeaderAndIsr to `brokers`, UpdateMetadata to all.
    pub(super) fn add_lai(&mut self, brokers: &[BrokerId], tp: &TopicPartition) {
        if let Some(info) = self.info(tp) {
            for b in brokers {
                self.batch.lai.or_default(*b).insert(tp.clone(), info.clone());
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
            let parts: Vec<Rc<PartitionStateInfo>> = batch.um.iter().filter_map(|tp| self.info(tp)).collect();
            let live = &self.ctx.live_brokers;
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
