//! ZooKeeper's watches as the protocol carries them (`Watcher.Event.EventType`, `WatchedEvent`,
//! and the client's own table, `ZooKeeper.ZKWatchManager`): what the data tree's watch tables fire
//! ([`super::data_tree::DataTree`]), what a server delivers, and what a client re-registers.
use super::session::SessionId;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The kind of change a watch reports (`Watcher.Event.EventType`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub enum WatchEventType {
    /// NodeCreated.
    NodeCreated,
    /// NodeDeleted.
    NodeDeleted,
    /// NodeDataChanged.
    NodeDataChanged,
    /// NodeChildrenChanged.
    NodeChildrenChanged,
}

/// A watch notification for one session.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct WatchEvent {
    /// The watching session.
    pub session: SessionId,
    /// The path.
    pub path: String,
    /// What happened.
    pub kind: WatchEventType,
}

/// A watch as the client remembers it (`ZooKeeper.ZKWatchManager`), with what it last read of the
/// node, to re-register it on a new connection (`SetWatches`, release-3.4.10 `ClientCnxn.java:
/// 885-935`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "table", rename_all = "snake_case")]
pub enum ClientWatch {
    /// A data or exists watch: `mzxid` of the node when it was read, `None` if it was missing.
    Data {
        /// Path.
        path: String,
        /// The node's `mzxid` the client read.
        mzxid: Option<u64>,
    },
    /// A child watch, with the children the client read.
    Child {
        /// Path.
        path: String,
        /// The children it read.
        names: Vec<String>,
    },
}

impl ClientWatch {
    /// The watched path.
    pub fn path(&self) -> &str {
        match self {
            ClientWatch::Data { path, .. } | ClientWatch::Child { path, .. } => path,
        }
    }
}
