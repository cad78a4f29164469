//! Outputs of the world, as values: one [`Event`] per step, with a line in the style of Kafka's
//! `controller.log` / `state-change.log` / `server.log`.
use crate::ids::NodeId;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// What kind of thing a step was.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A scripted or user fault was applied.
    Fault,
    /// ZooKeeper applied (or refused) a client request.
    ZkRequest,
    /// A broker received a ZooKeeper response and carried on.
    ZkResponse,
    /// A watch notification reached a broker.
    ZkWatch,
    /// A client's session or connection changed state (connected, disconnected, expired, new session).
    ZkSession,
    /// ZooKeeper expired a session and deleted its ephemeral znodes.
    SessionExpired,
    /// A broker won the `/controller` race.
    ControllerElected,
    /// A broker resigned as controller.
    ControllerResigned,
    /// A controller decided a new leader (or no leader) for a partition.
    LeaderChange,
    /// A controller request (LeaderAndIsr, UpdateMetadata) reached a broker.
    ControlRequest,
    /// A broker rejected a controller request (stale controller epoch or leader epoch).
    ControlRejected,
    /// A partition leader changed (or failed to change) its ISR.
    IsrChange,
    /// A message was dropped by a cut link or a dead node.
    MessageDropped,
    /// A consumer looked up, lost or joined its coordinator.
    Consumer,
    /// A broker process stopped or started.
    Process,
    /// Anything else a controller or broker did.
    Info,
}

/// One step of the simulation.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Event {
    /// Step number, from 1.
    pub step: u64,
    /// Virtual time in ms.
    pub time_ms: u64,
    /// The node where it happened.
    pub node: NodeId,
    /// For a message delivered or dropped: its sender (`node` is the receiver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<NodeId>,
    /// For a message: its category (`zk`, `watch`, `control`, `client`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What kind of step.
    pub kind: EventKind,
    /// The main log line.
    pub line: String,
    /// Further log lines written in the same step (requests sent, state changes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// Alerts raised by this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerts_raised: Vec<String>,
    /// Alerts cleared by this step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alerts_cleared: Vec<String>,
    /// The structured facts of this step, in the order they happened ([`crate::mark`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<crate::mark::Mark>,
}
