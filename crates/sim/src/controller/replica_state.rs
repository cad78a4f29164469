//! The controller's replica state machine (`kafka.controller.ReplicaStateMachine`, 1.0). Only the
//! states the model reaches: replicas on live brokers are Online, replicas on dead brokers become
//! Offline (taking them out of the ISR, see `remove_isr::remove_from_isr`) or, at failover,
//! ReplicaDeletionIneligible.
use serde::{Deserialize, Serialize};

/// `ReplicaState`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub enum ReplicaState {
    /// OnlineReplica.
    OnlineReplica,
    /// OfflineReplica.
    OfflineReplica,
    /// ReplicaDeletionIneligible: on a dead broker at failover.
    ReplicaDeletionIneligible,
}
