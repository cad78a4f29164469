//! Typed marks (as in TigerBeetle's `testing/marks.zig`): the structured facts of a step that
//! tests, captions, alerts and exports depend on. A handler emits a mark next to the log line that
//! tells the same fact in Kafka's words ([`crate::effects::Outbox::mark`]); the step's
//! [`crate::Event`] carries every mark of the step in `marks`, and the CLI's JSON lines print them.
//! Code that needs to know *that* something happened matches a mark's fields, never the prose of a
//! log line, so a reworded line cannot silently break a test or a caption.
use crate::command::Command;
use crate::ids::{BrokerId, TopicPartition};
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One structured fact of a step.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "mark", rename_all = "snake_case")]
pub enum Mark {
    /// A broker won the `/controller` race (`KafkaController.elect` → `onControllerFailover`).
    ControllerElected {
        /// The new controller.
        broker: BrokerId,
        /// The epoch in its controller context when it won: with fenced writes, the epoch it
        /// bumped `/controller_epoch` to in the same `multi`; otherwise the context's epoch before
        /// `readControllerEpochFromZookeeper` (0 for a broker that has not been the controller).
        controller_epoch: i32,
    },
    /// A broker resigned as controller (`onControllerResignation`).
    ControllerResigned {
        /// The broker.
        broker: BrokerId,
        /// The epoch it held.
        controller_epoch: i32,
    },
    /// A controller decided and wrote a leader for a partition (`electLeaderForPartition`).
    LeaderElected {
        /// The controller.
        controller: BrokerId,
        /// The partition.
        partition: TopicPartition,
        /// The leader chosen.
        leader: BrokerId,
        /// Its leader epoch.
        leader_epoch: i32,
        /// The ISR written.
        isr: Vec<BrokerId>,
        /// The controller epoch written into the state znode.
        controller_epoch: i32,
        /// The state znode's version after the write.
        zk_version: i32,
    },
    /// A controller found no replica to elect (`NoReplicaOnlineException`): the partition stays
    /// without a leader.
    LeaderElectionFailed {
        /// The controller.
        controller: BrokerId,
        /// The partition.
        partition: TopicPartition,
    },
    /// A controller removed a replica from a partition's ISR (`removeReplicaFromIsr`).
    IsrReplicaRemoved {
        /// The controller.
        controller: BrokerId,
        /// The partition.
        partition: TopicPartition,
        /// The replica removed.
        replica: BrokerId,
        /// The leader written (-1 when the removed replica was the leader ZooKeeper named).
        leader: BrokerId,
        /// Its leader epoch.
        leader_epoch: i32,
        /// The ISR written.
        isr: Vec<BrokerId>,
        /// The controller epoch written.
        controller_epoch: i32,
        /// The leader the controller's cache held before the write, if it had the partition.
        cached_leader: Option<BrokerId>,
    },
    /// ZooKeeper refused a fenced controller write: the `/controller_epoch` check failed
    /// (KAFKA-6082; BADVERSION).
    WriteRefused {
        /// The broker whose controller wrote.
        from: BrokerId,
        /// The `/controller_epoch` version the write expected.
        expected_epoch_version: i32,
    },
    /// ZooKeeper accepted a partition-state write made by a controller epoch older than
    /// `/controller_epoch`: a deposed controller's decision is now in ZooKeeper.
    DeposedWriteAccepted {
        /// The broker whose controller wrote.
        from: BrokerId,
        /// The partition.
        partition: TopicPartition,
        /// The leader written.
        leader: BrokerId,
        /// Its leader epoch.
        leader_epoch: i32,
        /// The ISR written.
        isr: Vec<BrokerId>,
        /// The controller epoch the write carries.
        controller_epoch: i32,
        /// `/controller_epoch` when it landed.
        current_controller_epoch: i32,
    },
    /// ZooKeeper expired a session and deleted its ephemerals.
    SessionExpired {
        /// The session id.
        session: u64,
        /// Its owner.
        owner: crate::ids::NodeId,
    },
    /// A consumer was told its group has no coordinator (`COORDINATOR_NOT_AVAILABLE`).
    CoordinatorUnavailable {
        /// The consumer.
        consumer: u32,
        /// Its group.
        group: String,
        /// The `__consumer_offsets` partition the group maps to.
        partition: u32,
    },
    /// A fault was applied (scripted, from the explorer, or made by a user).
    Fault {
        /// The fault.
        command: Command,
    },
}

impl Mark {
    /// The partition this mark is about, if any.
    pub fn partition(&self) -> Option<&TopicPartition> {
        match self {
            Mark::LeaderElected { partition, .. }
            | Mark::LeaderElectionFailed { partition, .. }
            | Mark::IsrReplicaRemoved { partition, .. }
            | Mark::DeposedWriteAccepted { partition, .. } => Some(partition),
            _ => None,
        }
    }
}
