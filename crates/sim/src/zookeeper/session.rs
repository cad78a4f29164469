//! ZooKeeper sessions as the server's table holds them (`SessionTrackerImpl`'s session records,
//! release-3.4.10): the id a client is known by and what the server remembers of it. When a
//! session expires is decided elsewhere: the leader's tick buckets ([`super::session_tracker`]).
use crate::ids::NodeId;
use serde::{Deserialize, Serialize};

/// A ZooKeeper session id.
pub type SessionId = u64;

/// A server-side session (`SessionTrackerImpl`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Session {
    /// Its id.
    pub id: SessionId,
    /// The client that owns it.
    pub owner: NodeId,
    /// Negotiated timeout.
    pub timeout_ms: u64,
    /// Expired sessions stay listed so a reconnect learns `Expired`.
    pub expired: bool,
}
