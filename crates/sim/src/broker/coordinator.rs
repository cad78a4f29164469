//! The broker's group coordinator as a consumer sees it: FindCoordinator answered from the metadata
//! cache as `KafkaApis.handleFindCoordinatorRequest` does, and JoinGroup/Heartbeat from the ownership
//! `GroupCoordinator.handleGroupImmigration` / `handleGroupEmigration` leave.
use super::Broker;
use crate::consumer::coordinator_partition;
use crate::effects::Outbox;
use crate::ids::{BrokerId, NodeId, TopicPartition, NO_LEADER};
use crate::message::{ClientError, Payload};
use crate::scenario::{Config, OFFSETS_TOPIC};

impl Broker {
    /// `KafkaApis` for a consumer's request: FindCoordinator from the metadata cache, JoinGroup and
    /// Heartbeat from the group coordinator's ownership. Reads only this broker's state.
    pub fn on_client_request(&self, from: NodeId, payload: Payload, cfg: &Config, out: &mut Outbox) {
        match payload {
            Payload::FindCoordinator { group, corr } => {
                let result = self.find_coordinator(&group, cfg);
                out.send(from, Payload::FindCoordinatorResponse { corr, result });
            }
            Payload::JoinGroup { group, corr } | Payload::Heartbeat { group, corr } => {
                let error = self.group_error(&group, cfg);
                out.send(from, Payload::GroupResponse { corr, error });
            }
            _ => {}
        }
    }

    /// `handleFindCoordinatorRequest`, answered from this broker's own metadata cache.
    pub fn find_coordinator(&self, group: &str, cfg: &Config) -> Result<BrokerId, ClientError> {
        let p = coordinator_partition(group, cfg.offsets_partitions);
        match self.metadata.partitions.get(&TopicPartition::new(OFFSETS_TOPIC, p)) {
            Some(s) if s.leader != NO_LEADER && self.metadata.alive.contains(&s.leader) => Ok(s.leader),
            _ => Err(ClientError::CoordinatorNotAvailable),
        }
    }

    /// `GroupCoordinator.validateGroupStatus`: do we own the group's partition?
    pub fn group_error(&self, group: &str, cfg: &Config) -> Option<ClientError> {
        let p = coordinator_partition(group, cfg.offsets_partitions);
        if self.owned_offsets_partitions.contains(&p) {
            None
        } else {
            Some(ClientError::NotCoordinator)
        }
    }
}
