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
    pub message: Option<alloc::borrow::Cow<'static, str>>,
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
    /// For a step that delivered, dropped or held a message: which message and when it was sent
    /// (what the swim lanes draw, [`crate::lanes`]). Not part of the trace: `run --json` and the
    /// exports are unchanged, and a parsed trace has `None` here.
    #[serde(skip)]
    pub delivery: Option<Delivery>,
}

/// What became of a message at the step that took it off the queue.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// Handed to its receiver.
    Delivered,
    /// Dropped: a cut link, or a receiver that is down or restarted since the send.
    Dropped,
    /// Held on a cut link between two ZooKeeper servers (a stalled TCP connection); it goes on
    /// when the link heals, and a later step delivers (or drops) it.
    Held,
}

/// The message a step took off the queue: its identity and send time, beside the event's `from`
/// (sender), `node` (receiver) and `message` (category).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Delivery {
    /// The message's id (unique in a run).
    pub id: u64,
    /// The step that sent it, from 1 (what the world sends while it is built counts as step 1's).
    pub sent_step: u64,
    /// Its send time, ms.
    pub sent_ms: u64,
    /// Its category ([`crate::message::Payload::category`]).
    pub category: crate::message::Category,
    /// What became of it.
    pub outcome: Outcome,
}
