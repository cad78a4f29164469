//! Everything that crosses a link: ZooKeeper client traffic, controller requests
//! (`LeaderAndIsrRequest`, `UpdateMetadataRequest`, built by `ControllerBrokerRequestBatch`) and the
//! consumer's group-coordinator requests.
use crate::ids::{fmt_ids, BrokerId, NodeId, TopicPartition};
use crate::znodes::LeaderIsr;
use crate::zookeeper::ops::{ZkOp, ZkResult};
use crate::zookeeper::session::SessionId;
use crate::zookeeper::watch::WatchEvent;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One partition's state inside a controller request (`PartitionState` in the wire protocol).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct PartitionStateInfo {
    /// The partition.
    pub tp: TopicPartition,
    /// Leader or -1.
    pub leader: BrokerId,
    /// Leader epoch.
    pub leader_epoch: i32,
    /// ISR.
    pub isr: Vec<BrokerId>,
    /// The state znode version the controller last saw (the leader's CAS expectation).
    pub zk_version: i32,
    /// Epoch of the controller that made the decision.
    pub controller_epoch: i32,
    /// Assigned replicas.
    pub replicas: Vec<BrokerId>,
}

impl PartitionStateInfo {
    /// The request's state for `tp`: the leadership read from (or written to) its state znode at
    /// `zk_version`, and its assigned replicas.
    pub fn new(tp: &TopicPartition, state: &LeaderIsr, zk_version: i32, replicas: Vec<BrokerId>) -> Self {
        PartitionStateInfo {
            tp: tp.clone(),
            leader: state.leader,
            leader_epoch: state.leader_epoch,
            isr: state.isr.clone(),
            zk_version,
            controller_epoch: state.controller_epoch,
            replicas,
        }
    }

    /// This is [`PartitionStateInfo::new`] of `state` at `zk_version` with `replicas` (for `tp`,
    /// which the caller matched), compared without building it.
    pub fn is_of(&self, state: &LeaderIsr, zk_version: i32, replicas: &[BrokerId]) -> bool {
        self.leader == state.leader
            && self.leader_epoch == state.leader_epoch
            && self.isr == state.isr
            && self.zk_version == zk_version
            && self.controller_epoch == state.controller_epoch
            && self.replicas == replicas
    }
}

/// Answer to a session (re)connect.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub enum ConnectResult {
    /// Connected on this session.
    Connected(SessionId),
    /// The session asked for has expired.
    Expired,
}

/// Kafka error codes used on the client path.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ClientError {
    /// No live leader for the coordinator partition.
    CoordinatorNotAvailable,
    /// This broker does not own the group.
    NotCoordinator,
}

impl ClientError {
    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            ClientError::CoordinatorNotAvailable => "COORDINATOR_NOT_AVAILABLE",
            ClientError::NotCoordinator => "NOT_COORDINATOR",
        }
    }
}

/// A message payload.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Payload {
    /// Open or resume a session.
    ZkConnect {
        /// The session to resume, or None for a new one.
        session: Option<SessionId>,
        /// Requested timeout.
        timeout_ms: u64,
    },
    /// Answer to [`Payload::ZkConnect`].
    ZkConnectResponse {
        /// Result.
        result: ConnectResult,
    },
    /// `SetWatches`, sent first on a resumed session's new connection (release-3.4.10
    /// `ClientCnxn.java:885-935`, `primeConnection`): the watches the client holds, for the server
    /// to register again or fire at once ([`crate::zookeeper::data_tree::DataTree::set_watches`]).
    ZkSetWatches {
        /// The session.
        session: SessionId,
        /// The client's watches.
        watches: Vec<crate::zookeeper::watch::ClientWatch>,
    },
    /// A ZooKeeper request.
    ZkRequest {
        /// Session it is sent on.
        session: SessionId,
        /// Client-side request id.
        xid: u64,
        /// The operation (shared with the client's retry table, never copied on the way).
        op: Rc<ZkOp>,
        /// Sent by the controller event thread (not by the broker's own ISR or registration code).
        controller: bool,
    },
    /// A ZooKeeper response.
    ZkResponse {
        /// Session.
        session: SessionId,
        /// Request id.
        xid: u64,
        /// Result.
        result: ZkResult,
    },
    /// A watch notification.
    ZkWatch {
        /// The event.
        event: WatchEvent,
    },
    /// The server closed the client's connection (it stopped serving: a follower that lost its
    /// leader, a leader that lost its quorum, or the session was closed).
    ZkClosed,
    /// Between ZooKeeper servers: election, sync, pings, forwarded requests, commits.
    ZkPeer {
        /// The quorum packet.
        msg: crate::zookeeper::proto::PeerMsg,
    },
    /// `LeaderAndIsrRequest`.
    LeaderAndIsr {
        /// Sending controller.
        controller_id: BrokerId,
        /// Its epoch (request level).
        controller_epoch: i32,
        /// Partitions (one state shared by every broker told, as the controller builds it once).
        partitions: Vec<alloc::rc::Rc<PartitionStateInfo>>,
    },
    /// `UpdateMetadataRequest`.
    UpdateMetadata {
        /// Sending controller.
        controller_id: BrokerId,
        /// Its epoch.
        controller_epoch: i32,
        /// Live brokers.
        live_brokers: Vec<BrokerId>,
        /// Partitions.
        partitions: Vec<alloc::rc::Rc<PartitionStateInfo>>,
    },
    /// `FindCoordinatorRequest`.
    FindCoordinator {
        /// Group id.
        group: String,
        /// Correlation id.
        corr: u64,
    },
    /// `FindCoordinatorResponse`.
    FindCoordinatorResponse {
        /// Correlation id.
        corr: u64,
        /// The coordinator, or an error.
        result: Result<BrokerId, ClientError>,
    },
    /// `JoinGroupRequest` (also stands for SyncGroup).
    JoinGroup {
        /// Group id.
        group: String,
        /// Correlation id.
        corr: u64,
    },
    /// `HeartbeatRequest`.
    Heartbeat {
        /// Group id.
        group: String,
        /// Correlation id.
        corr: u64,
    },
    /// Response to JoinGroup or Heartbeat.
    GroupResponse {
        /// Correlation id.
        corr: u64,
        /// None when fine.
        error: Option<ClientError>,
    },
    /// KRaft `VoteRequest`.
    RaftVote {
        /// Candidate's epoch.
        epoch: u32,
        /// Candidate.
        candidate: u32,
        /// Epoch of its last entry.
        last_epoch: u32,
        /// Its log length.
        last_index: u64,
    },
    /// KRaft `VoteResponse`.
    RaftVoteResponse {
        /// Voter's epoch.
        epoch: u32,
        /// Granted?
        granted: bool,
    },
    /// KRaft replication (`BeginQuorumEpoch` + `Fetch` responses, pushed).
    RaftAppend {
        /// Leader epoch.
        epoch: u32,
        /// Leader.
        leader: u32,
        /// Entries before these.
        prev_index: u64,
        /// Epoch of the entry at `prev_index`.
        prev_epoch: u32,
        /// New entries.
        entries: alloc::vec::Vec<crate::kraft::record::Entry>,
        /// Leader's high watermark.
        commit: u64,
    },
    /// Follower's answer.
    RaftAppendResponse {
        /// Follower's epoch.
        epoch: u32,
        /// Log matched.
        ok: bool,
        /// Follower's log length after the append.
        matched: u64,
    },
    /// Committed metadata records for a broker (its metadata fetch).
    MetadataRecords {
        /// Offset of the first record.
        from_offset: u64,
        /// Records.
        records: alloc::vec::Vec<alloc::rc::Rc<crate::kraft::record::Record>>,
    },
}

/// A message's category: ZooKeeper client traffic, a watch notification, a controller request,
/// KRaft quorum traffic or a client (consumer) request.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// A ZooKeeper client request, response or connection (and the servers' own peer traffic).
    Zk,
    /// A ZooKeeper watch notification.
    Watch,
    /// LeaderAndIsr, UpdateMetadata or KRaft metadata records.
    Control,
    /// Raft votes and appends between KRaft voters.
    Quorum,
    /// A consumer's request or its answer.
    Client,
}

impl Category {
    /// The snake_case word (what a trace's `message` field holds).
    pub fn name(self) -> &'static str {
        match self {
            Category::Zk => "zk",
            Category::Watch => "watch",
            Category::Control => "control",
            Category::Quorum => "quorum",
            Category::Client => "client",
        }
    }
}

impl Payload {
    /// What kind of message this is (how a UI colours it; the word in a trace's `message`).
    pub fn category(&self) -> Category {
        match self {
            Payload::ZkConnect { .. }
            | Payload::ZkConnectResponse { .. }
            | Payload::ZkRequest { .. }
            | Payload::ZkSetWatches { .. }
            | Payload::ZkResponse { .. }
            | Payload::ZkClosed
            | Payload::ZkPeer { .. } => Category::Zk,
            Payload::ZkWatch { .. } => Category::Watch,
            Payload::LeaderAndIsr { .. } | Payload::UpdateMetadata { .. } | Payload::MetadataRecords { .. } => {
                Category::Control
            }
            Payload::RaftVote { .. }
            | Payload::RaftVoteResponse { .. }
            | Payload::RaftAppend { .. }
            | Payload::RaftAppendResponse { .. } => Category::Quorum,
            _ => Category::Client,
        }
    }

    /// A short label.
    pub fn label(&self) -> String {
        match self {
            Payload::ZkConnect { session: Some(s), .. } => format!("connect session 0x{s:x}"),
            Payload::ZkConnect { session: None, .. } => String::from("connect (new session)"),
            Payload::ZkConnectResponse { result: ConnectResult::Connected(s) } => format!("connected 0x{s:x}"),
            Payload::ZkConnectResponse { result: ConnectResult::Expired } => String::from("session expired"),
            Payload::ZkRequest { op, .. } => op.describe(),
            Payload::ZkSetWatches { watches, .. } => format!("setWatches ×{}", watches.len()),
            Payload::ZkResponse { result, .. } => match result {
                crate::zookeeper::ops::ZkResult::Error { code }
                | crate::zookeeper::ops::ZkResult::MultiFailed { code, .. } => {
                    format!("error {}", code.name())
                }
                _ => String::from("ok"),
            },
            Payload::ZkWatch { event } => format!("watch {:?} {}", event.kind, event.path),
            Payload::ZkClosed => String::from("connection closed by the server"),
            Payload::ZkPeer { msg } => msg.label(),
            Payload::LeaderAndIsr { controller_epoch, partitions, .. } => {
                if partitions.len() == 1 {
                    let p = &partitions[0];
                    format!(
                        "LeaderAndIsr {} leader={} epoch={} isr=[{}] (controller epoch {controller_epoch})",
                        p.tp,
                        p.leader,
                        p.leader_epoch,
                        fmt_ids(p.isr.iter().copied())
                    )
                } else {
                    format!("LeaderAndIsr ×{} (controller epoch {controller_epoch})", partitions.len())
                }
            }
            Payload::UpdateMetadata { controller_epoch, live_brokers, partitions, .. } => format!(
                "UpdateMetadata live=[{}] ×{} (controller epoch {controller_epoch})",
                fmt_ids(live_brokers.iter().copied()),
                partitions.len()
            ),
            Payload::FindCoordinator { group, .. } => format!("FindCoordinator {group}"),
            Payload::FindCoordinatorResponse { result: Ok(b), .. } => format!("coordinator = broker {b}"),
            Payload::FindCoordinatorResponse { result: Err(e), .. } => String::from(e.name()),
            Payload::JoinGroup { group, .. } => format!("JoinGroup {group}"),
            Payload::Heartbeat { group, .. } => format!("Heartbeat {group}"),
            Payload::GroupResponse { error: None, .. } => String::from("NONE"),
            Payload::GroupResponse { error: Some(e), .. } => String::from(e.name()),
            Payload::RaftVote { epoch, candidate, .. } => format!("Vote q{candidate} for epoch {epoch}"),
            Payload::RaftVoteResponse { epoch, granted } => {
                format!("vote {} (epoch {epoch})", if *granted { "granted" } else { "rejected" })
            }
            Payload::RaftAppend { epoch, entries, commit, .. } => {
                format!("Append ×{} epoch {epoch} hw {commit}", entries.len())
            }
            Payload::RaftAppendResponse { ok, matched, .. } => {
                format!("{} matched {matched}", if *ok { "ok" } else { "diverged" })
            }
            Payload::MetadataRecords { from_offset, records } => {
                format!("metadata records {}..{}", from_offset, from_offset + records.len() as u64)
            }
        }
    }
}

/// A message on the wire.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Message {
    /// Unique id (per run).
    pub id: u64,
    /// Sender.
    pub from: NodeId,
    /// Receiver.
    pub to: NodeId,
    /// Send time.
    pub sent_ms: u64,
    /// The step that sent it, from 1 (what the world sends while it is built counts as step 1's):
    /// a label, for the swim lanes.
    pub sent_step: u64,
    /// Arrival time.
    pub deliver_ms: u64,
    /// The link direction's cut generation at send time: a cut in between drops the message.
    pub link_gen: u64,
    /// The receiver's process incarnation at send time: a restart in between drops it.
    pub incarnation: u64,
    /// The payload.
    pub payload: Payload,
}
