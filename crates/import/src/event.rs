//! The typed events the importer recognises in a Kafka log line: one variant per meaning, not
//! per wording. Which wordings of which releases produce each variant, with the tag:file:line of
//! the log statement, is in `recognise.rs` and `docs/log-formats.md`.
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// A Kafka broker id (`broker.id`).
pub type Broker = i32;

/// A topic partition as a log line names it (`[topic,3]`, `topic-3`, `[topic, 3]`).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize)]
pub struct Partition {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: u32,
}

impl core::fmt::Display for Partition {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// What one log line says happened. The broker that wrote the line is the [`crate::parse::Record`]'s
/// `broker`; fields here are what the text itself states.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A broker won `/controller` (and, where the line says it, the epoch it incremented to).
    Elected { broker: Broker, epoch: Option<i32> },
    /// Another broker won the race to `/controller` ("Broker 3 was elected as controller instead
    /// of broker 1"): healthy, not a split brain.
    ElectionLost { winner: Broker, loser: Option<Broker> },
    /// A broker learnt which broker is controller (a `/controller` change seen, "Controller moved
    /// to another broker", a controller id in a request) without being it.
    ControllerIs { controller: Broker, epoch: Option<i32> },
    /// A controller resigned ("Resigning", "Broker 1 resigning as the controller").
    Resigned { broker: Option<Broker> },
    /// A controller stopped an operation because the controller moved (ControllerMovedException,
    /// "Controller moved to another broker. Aborting ...").
    ControllerMoved { new_controller: Option<Broker> },
    /// "Error while electing or becoming controller on broker N".
    ElectionError { broker: Option<Broker> },
    /// A ZooKeeper session expired (the client's "Expired" state, "Session expired", the
    /// controller's "ZK expired; shut down all controller components").
    SessionExpired { session: Option<u64> },
    /// A new ZooKeeper session was established ("Session establishment complete ... sessionid =
    /// 0x..", "re-registering broker info in ZK").
    NewSession { session: Option<u64> },
    /// A broker (re-)registered `/brokers/ids/N`.
    Registered { broker: Option<Broker> },
    /// `/brokers/ids/N` already held by an older session: 0.8–0.10 "conflict in /brokers/ids/N
    /// ... stored in a different session", 1.1+ "node already exists and owner ... does not match
    /// current session".
    StaleRegistration { broker: Option<Broker> },
    /// The controller's view of which brokers are alive changed ("Newly added brokers: 3,
    /// deleted brokers: 1, all live brokers: 2,3").
    BrokersChanged { added: Vec<Broker>, deleted: Vec<Broker>, live: Vec<Broker> },
    /// A controller chose a leader and ISR for a partition ("Selected new leader and ISR
    /// {"leader":1,"leader_epoch":14,"isr":[1,2]} for offline partition [t,3]").
    SelectedLeader {
        partition: Partition,
        leader: Broker,
        leader_epoch: Option<i32>,
        isr: Vec<Broker>,
        controller_epoch: Option<i32>,
        zk_version: Option<i32>,
    },
    /// The partition's state as written or read (a leader/ISR JSON that is not a selection:
    /// "New leader and ISR for partition", "Removed replica 1 from ISR ...", describe output).
    LeaderIsr {
        partition: Partition,
        leader: Broker,
        leader_epoch: Option<i32>,
        isr: Vec<Broker>,
        controller_epoch: Option<i32>,
    },
    /// A controller sent LeaderAndIsr (state-change.log "Sending become-leader LeaderAndIsr
    /// request ... to broker 2").
    LeaderAndIsrSent {
        partition: Option<Partition>,
        to: Option<Broker>,
        controller_epoch: Option<i32>,
        leader: Option<Broker>,
    },
    /// A broker received or handled LeaderAndIsr from a controller.
    LeaderAndIsrReceived {
        partition: Option<Partition>,
        controller: Option<Broker>,
        controller_epoch: Option<i32>,
        leader: Option<Broker>,
    },
    /// A broker ignored a request from a controller with an old epoch ("since its controller
    /// epoch 8 is old. Latest known controller epoch is 9").
    StaleControllerEpoch { controller: Option<Broker>, epoch: Option<i32>, latest: Option<i32> },
    /// A partition or replica state change failed ("Error while moving some partitions to the
    /// online state", "Initiated state change for partition ... failed").
    StateChangeFailed { partition: Option<Partition> },
    /// "Cached zkVersion [27] not equal to that in zookeeper, skip updating ISR".
    ZkVersionSkip { partition: Option<Partition>, cached: Option<i32> },
    /// A leader shrank a partition's ISR ("Shrinking ISR from 1,2,3 to 1").
    IsrShrink { partition: Option<Partition>, from: Vec<Broker>, to: Vec<Broker> },
    /// A leader expanded a partition's ISR.
    IsrExpand { partition: Option<Partition>, from: Vec<Broker>, to: Vec<Broker> },
    /// A partition has no leader: an offline partition, NoReplicaOnlineException, "No broker in
    /// ISR is alive", a leader -1 (in a state JSON or `kafka-topics --describe`).
    LeaderNone { partition: Option<Partition> },
    /// A broker began a controlled shutdown or shut down (healthy: every broker resigns there).
    ShuttingDown,
    /// A broker finished starting ("[KafkaServer id=1] started").
    Started,
}

impl Event {
    /// The variant's name as it appears in JSON (`"elected"`, `"selected_leader"`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Elected { .. } => "elected",
            Event::ElectionLost { .. } => "election_lost",
            Event::ControllerIs { .. } => "controller_is",
            Event::Resigned { .. } => "resigned",
            Event::ControllerMoved { .. } => "controller_moved",
            Event::ElectionError { .. } => "election_error",
            Event::SessionExpired { .. } => "session_expired",
            Event::NewSession { .. } => "new_session",
            Event::Registered { .. } => "registered",
            Event::StaleRegistration { .. } => "stale_registration",
            Event::BrokersChanged { .. } => "brokers_changed",
            Event::SelectedLeader { .. } => "selected_leader",
            Event::LeaderIsr { .. } => "leader_isr",
            Event::LeaderAndIsrSent { .. } => "leader_and_isr_sent",
            Event::LeaderAndIsrReceived { .. } => "leader_and_isr_received",
            Event::StaleControllerEpoch { .. } => "stale_controller_epoch",
            Event::StateChangeFailed { .. } => "state_change_failed",
            Event::ZkVersionSkip { .. } => "zk_version_skip",
            Event::IsrShrink { .. } => "isr_shrink",
            Event::IsrExpand { .. } => "isr_expand",
            Event::LeaderNone { .. } => "leader_none",
            Event::ShuttingDown => "shutting_down",
            Event::Started => "started",
        }
    }
}
