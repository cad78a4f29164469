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
        /// The epoch it holds, when known at election: with fenced writes `/controller_epoch` is
        /// bumped in the same `multi` as the create. Otherwise the failover reads and bumps it
        /// next ([`Mark::ControllerEpochIncremented`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        controller_epoch: Option<i32>,
    },
    /// `incrementControllerEpoch` wrote `/controller_epoch` (1.0's failover, after the election).
    ControllerEpochIncremented {
        /// The controller.
        broker: BrokerId,
        /// The new epoch.
        controller_epoch: i32,
        /// `/controller_epoch`'s znode version after the write (`epochZkVersion`).
        epoch_zk_version: i32,
    },
    /// `initializeControllerContext` read the live brokers (`/brokers/ids`, then each broker's
    /// znode). Kafka logs nothing here: `Currently active brokers in the cluster: Set(…)` comes
    /// only after every partition state is read (1.0.0 `KafkaController.scala:716`, after
    /// `updateLeaderAndIsrCache` at :712), with [`Mark::ContextLoaded`].
    LiveBrokersRead {
        /// The controller.
        controller: BrokerId,
        /// The brokers it found.
        live: Vec<BrokerId>,
    },
    /// `initializeControllerContext` loaded every partition's leader and ISR into its cache
    /// (`updateLeaderAndIsrCache`); the controller then logs `Currently active brokers in the
    /// cluster: Set(…)` (1.0.0 KC:716, 1.1.0 KC:656, 2.1.0 KC:652).
    ContextLoaded {
        /// The controller.
        controller: BrokerId,
        /// How many partitions' states it loaded.
        partitions: u32,
        /// The live brokers it logs (the ones [`Mark::LiveBrokersRead`] read).
        #[serde(default)]
        live: Vec<BrokerId>,
    },
    /// `PartitionStateMachine.startup`'s `initializePartitionState`: how many partitions start
    /// Online and Offline, before `triggerOnlinePartitionStateChange` elects any. Kafka 1.0 logs
    /// nothing here (1.1.0 and 2.1.0 log `Triggering online partition state changes`); its
    /// `Started partition state machine …` line comes after the elections, with
    /// [`Mark::PartitionStateMachineStarted`].
    PartitionStatesStarted {
        /// The controller.
        controller: BrokerId,
        /// OnlinePartition.
        online: u32,
        /// OfflinePartition (or NewPartition).
        offline: u32,
    },
    /// `PartitionStateMachine.startup` returned: `triggerOnlinePartitionStateChange` ran (every
    /// election of the failover is done or failed), and the controller logs `Started partition
    /// state machine with initial state -> …` (1.0.0 `PartitionStateMachine.scala:60`, 1.1.0 :63,
    /// 2.1.0 :67). Kafka prints the map as it is then, so "initial" counts the elected partitions
    /// as Online.
    PartitionStateMachineStarted {
        /// The controller.
        controller: BrokerId,
        /// OnlinePartition, after the elections.
        online: u32,
        /// Still OfflinePartition (or NewPartition): the elections that failed.
        offline: u32,
    },
    /// `BrokerChange` compared `/brokers/ids` with the cached live brokers.
    BrokerChange {
        /// The controller.
        controller: BrokerId,
        /// Newly added brokers.
        added: Vec<BrokerId>,
        /// Deleted brokers.
        deleted: Vec<BrokerId>,
        /// All live brokers now.
        live: Vec<BrokerId>,
    },
    /// `onBrokerStartup` ran for new brokers.
    BrokerStartup {
        /// The controller.
        controller: BrokerId,
        /// The brokers that started.
        brokers: Vec<BrokerId>,
    },
    /// `ControllerMovedException` (fenced writes): the `/controller_epoch` check failed; the
    /// controller abandons the event and re-reads `/controller` (`maybeResign`).
    ControllerMoved {
        /// The controller whose write was refused.
        broker: BrokerId,
        /// The epoch it held.
        controller_epoch: i32,
        /// The `/controller_epoch` version it expected.
        epoch_zk_version: i32,
    },
    /// `incrementControllerEpoch`'s conditional write of `/controller_epoch` failed (another
    /// controller bumped it). 1.0 swallows it and goes on with the old epoch (`swallowed`); 1.1
    /// throws `ControllerMovedException` into `elect`'s catch-all.
    ControllerEpochBumpFailed {
        /// The broker in `onControllerFailover`.
        broker: BrokerId,
        /// The epoch it keeps (the one it read, not bumped).
        controller_epoch: i32,
        /// The failure was logged and the failover went on.
        swallowed: bool,
    },
    /// `triggerControllerMove`: `onControllerResignation`, `activeControllerId = -1`, then delete
    /// `/controller` — whoever holds it in 1.0/1.1 (`owner_checked: false`), only if it is still
    /// ours and the `/controller_epoch` version matches in 2.1 (`owner_checked: true`).
    ControllerMoveTriggered {
        /// The broker.
        broker: BrokerId,
        /// `/controller` was re-read and found ours before the delete.
        owner_checked: bool,
    },
    /// `elect`'s read of the `/controller` holder after `NODEEXISTS` (`ZKCheckedEphemeral`'s
    /// `getData`, 1.0) lost its connection: `CONNECTIONLOSS` is its result, thrown into `elect`'s
    /// catch-all, which runs `triggerControllerMove`.
    ControllerOwnerReadLost {
        /// The broker.
        broker: BrokerId,
    },
    /// A broker's own session deleted `/controller` (`triggerControllerMove`), at the server its
    /// request came through: who held the node, and whether that holder's session was alive.
    ControllerZnodeDeleted {
        /// The broker whose session sent the delete.
        by: BrokerId,
        /// Its session.
        session: crate::zookeeper::session::SessionId,
        /// The broker id in the deleted node.
        holder: BrokerId,
        /// The holder's session was alive: a live controller's node was removed.
        holder_live: bool,
    },
    /// A broker resigned as controller (`onControllerResignation`).
    ControllerResigned {
        /// The broker.
        broker: BrokerId,
        /// The epoch it held.
        controller_epoch: i32,
    },
    /// `OfflinePartitionLeaderSelector.selectLeader` chose a leader, after reading the state znode
    /// and before writing it (1.0.0 `PartitionLeaderSelector.scala:90` logs `Selected new leader
    /// and ISR` here); the write may still fail. [`Mark::LeaderElected`] follows once it landed.
    LeaderSelected {
        /// The controller.
        controller: BrokerId,
        /// The partition.
        partition: TopicPartition,
        /// The leader chosen.
        leader: BrokerId,
        /// Its leader epoch.
        leader_epoch: i32,
        /// The ISR chosen.
        isr: Vec<BrokerId>,
        /// The controller epoch written with it.
        controller_epoch: i32,
        /// The state znode version the write is conditioned on (the one read).
        read_zk_version: i32,
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
        /// The state znode's version after the write (the `zkVersion` the LeaderAndIsr carries).
        #[serde(default)]
        zk_version: i32,
    },
    /// ZooKeeper refused a fenced controller write: the `/controller_epoch` check failed
    /// (KAFKA-6082; BADVERSION).
    WriteRefused {
        /// The broker whose controller wrote.
        from: BrokerId,
        /// The `/controller_epoch` version the write expected.
        expected_epoch_version: i32,
        /// The partition whose state the refused write would have set, if it was a partition-state
        /// write.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition: Option<TopicPartition>,
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
        /// The leader (or standalone server) whose session tracker expired it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<crate::ids::NodeId>,
        /// The tick bucket it expired in (`SessionTrackerImpl.roundToInterval`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bucket_ms: Option<u64>,
    },
    /// A ZooKeeper server won an election and leads (`FastLeaderElection`, `Leader.lead`).
    ZkLeaderElected {
        /// The server.
        server: crate::ids::NodeId,
        /// Its new epoch.
        epoch: u64,
        /// Its last zxid.
        zxid: u64,
    },
    /// A ZooKeeper server closed all its client connections (a follower that gave up on its
    /// leader, a leader that lost its quorum).
    ZkClientsDropped {
        /// The server.
        server: crate::ids::NodeId,
        /// The clients whose connection it closed.
        clients: Vec<crate::ids::NodeId>,
    },
    /// A broker's ZooKeeper client moved to the next server of its connection string
    /// (`StaticHostProvider.next`).
    ZkClientMoved {
        /// The broker.
        broker: BrokerId,
        /// The server it left.
        from: crate::ids::NodeId,
        /// The server it connects to now.
        to: crate::ids::NodeId,
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
    /// A broker ignored a LeaderAndIsr naming a leader it cannot follow (`makeFollowers`: the new
    /// leader is not alive in its metadata, e.g. -1); its local state is unchanged.
    FollowerTransitionSkipped {
        /// The broker.
        broker: BrokerId,
        /// The partition.
        partition: TopicPartition,
        /// The leader the request named.
        leader: BrokerId,
        /// The broker still acts as the partition's leader.
        still_leader: bool,
    },
    /// A consumer joined its group at a coordinator.
    ConsumerJoined {
        /// The consumer.
        consumer: u32,
        /// Its group.
        group: String,
        /// The coordinator broker.
        coordinator: BrokerId,
    },
    /// A partition leader's own ISR write was refused (`Partition.updateIsr`): with BADVERSION its
    /// cached zkVersion is not the state znode's (`Cached zkVersion [..] not equal to that in
    /// zookeeper`), and it does not retry until a new LeaderAndIsr.
    IsrUpdateRefused {
        /// The leader.
        broker: BrokerId,
        /// The partition.
        partition: TopicPartition,
        /// The zkVersion it expected.
        cached_zk_version: i32,
        /// ZooKeeper's error code (`BADVERSION`, ...).
        code: String,
    },
    /// `ReplicaManager.maybePropagateIsrChanges` wrote one `/isr_change_notification/isr_change_`
    /// znode for every ISR change it had collected.
    IsrChangesPropagated {
        /// The leader.
        broker: BrokerId,
        /// The partitions, sorted.
        partitions: Vec<TopicPartition>,
    },
    /// A broker's ZooKeeper client learnt that its session expired and opens a new one.
    SessionExpiryLearned {
        /// The broker.
        broker: BrokerId,
        /// Pending requests failed with SESSIONEXPIRED and not retried (1.1's ZooKeeperClient);
        /// with ZkClient (≤1.0), which keeps its requests for the new session, only a
        /// `ZKCheckedEphemeral` create of `/controller` on the raw handle (0 or 1).
        failed_requests: u32,
        /// The partitions whose state znode one of those failed controller requests would have written.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        failed_writes: Vec<TopicPartition>,
    },
    /// KAFKA-6879 (Kafka 1.1.0): the session expired while the controller thread was inside an
    /// event that then made one more ZooKeeper request; that request blocks on `ZooKeeperClient`'s
    /// initialization lock, which the expiry handler holds while it waits for the thread to take
    /// `Expire`. Neither ever moves: the broker opens no new session and its controller processes
    /// no further event (see [`crate::mode::Behaviour::expire_waits_under_init_lock`]).
    ControllerDeadlock {
        /// The broker.
        broker: BrokerId,
        /// The event the controller thread was processing (`ControllerEvent` name).
        event: String,
        /// The call it is blocked in (`triggerControllerMove`'s `deleteController`, or
        /// `fetchPendingPreferredReplicaElections`).
        blocked_in: String,
        /// The thread resigned before it blocked (`elect`'s catch-all → `triggerControllerMove`);
        /// when false it still believes it is the controller (`activeControllerId` is its own id).
        resigned: bool,
    },
    /// A broker registered `/brokers/ids/<id>` on its current session.
    BrokerRegistered {
        /// The broker.
        broker: BrokerId,
        /// Registered by `RegisterBrokerAndReelect` on the controller's event thread (1.1.0+),
        /// rather than by `KafkaHealthcheck`'s listener (1.0.0).
        on_controller_thread: bool,
    },
    /// A KRaft voter won an election (`CandidateState` → `LeaderState`).
    RaftLeaderElected {
        /// The voter.
        voter: u32,
        /// The epoch it leads.
        epoch: u32,
    },
    /// A KRaft leader's `LeaderChange` record committed: it is the active controller.
    QuorumControllerActive {
        /// The voter.
        voter: u32,
        /// The epoch.
        epoch: u32,
    },
    /// A KRaft leader stepped down: check quorum failed, or a voter is at a higher epoch.
    RaftLeaderResigned {
        /// The voter.
        voter: u32,
        /// The epoch it led.
        epoch: u32,
    },
    /// The active KRaft controller fenced a broker whose heartbeats lapsed, and moved its
    /// partitions in the same batch (`ReplicationControlManager.handleBrokerFenced`).
    BrokerFenced {
        /// The active controller.
        voter: u32,
        /// The broker.
        broker: BrokerId,
        /// Partition changes in the batch.
        partitions: u32,
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
            | Mark::LeaderSelected { partition, .. }
            | Mark::LeaderElectionFailed { partition, .. }
            | Mark::IsrReplicaRemoved { partition, .. }
            | Mark::DeposedWriteAccepted { partition, .. }
            | Mark::FollowerTransitionSkipped { partition, .. }
            | Mark::IsrUpdateRefused { partition, .. } => Some(partition),
            _ => None,
        }
    }
}
