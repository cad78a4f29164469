//! The client protocol's vocabulary (ZooKeeper 3.4.10): the requests a client sends ([`ZkOp`],
//! `multi`'s [`MultiOp`]), what comes back ([`ZkResult`] with a [`Stat`]), the error codes
//! ([`ZkError`], `KeeperException.Code`), and how the simulator's logs summarise a result. The
//! data is typed by Kafka's znode schema ([`crate::znodes::ZData`]), which ZooKeeper stores without
//! reading.
use super::session::SessionId;
use crate::znodes::ZData;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// ZooKeeper's `Stat`, the fields the model needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Stat {
    /// Data version: 0 at creation, +1 per `setData`.
    pub version: i32,
    /// Child version.
    pub cversion: i32,
    /// Zxid of the create.
    pub czxid: u64,
    /// Zxid of the last modification.
    pub mzxid: u64,
    /// The owning session of an ephemeral znode.
    pub ephemeral_owner: Option<SessionId>,
}

/// ZooKeeper error codes the model uses (`KeeperException.Code`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ZkError {
    /// The node does not exist.
    NoNode,
    /// The node already exists.
    NodeExists,
    /// The expected version did not match.
    BadVersion,
    /// The node has children.
    NotEmpty,
    /// Ephemeral znodes cannot have children.
    NoChildrenForEphemerals,
    /// The session has expired.
    SessionExpired,
    /// The client's connection dropped before the answer came (`ClientCnxn.cleanup` →
    /// `conLossPacket`, release-3.4.10 `ClientCnxn.java:659, 1245-1258`): every request pending or
    /// queued on the connection gets it. Never sent by a server; the client makes it.
    ConnectionLoss,
}

impl ZkError {
    /// Kafka/ZooKeeper's name for the code.
    pub fn name(self) -> &'static str {
        match self {
            ZkError::NoNode => "NONODE",
            ZkError::NodeExists => "NODEEXISTS",
            ZkError::BadVersion => "BADVERSION",
            ZkError::NotEmpty => "NOTEMPTY",
            ZkError::NoChildrenForEphemerals => "NOCHILDRENFOREPHEMERALS",
            ZkError::SessionExpired => "SESSIONEXPIRED",
            ZkError::ConnectionLoss => "CONNECTIONLOSS",
        }
    }
}

/// One operation of a `multi` transaction.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum MultiOp {
    /// `check(path, version)`.
    Check {
        /// Path.
        path: String,
        /// Expected version.
        version: i32,
    },
    /// `setData(path, data, version)`.
    SetData {
        /// Path.
        path: String,
        /// New data.
        data: ZData,
        /// Expected version (-1: any).
        version: i32,
    },
    /// `create(path, data, mode)`.
    Create {
        /// Path (a prefix when `sequential`).
        path: String,
        /// Data.
        data: ZData,
        /// Ephemeral?
        ephemeral: bool,
        /// Append a 10-digit sequence number (see [`ZkOp::Create`])? Left out of the JSON when false.
        #[serde(default, skip_serializing_if = "is_false")]
        sequential: bool,
    },
    /// `delete(path, version)`.
    Delete {
        /// Path.
        path: String,
        /// Expected version (-1: any).
        version: i32,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A client request.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ZkOp {
    /// `create`.
    Create {
        /// Path (a prefix when `sequential`).
        path: String,
        /// Data.
        data: ZData,
        /// Ephemeral (owned by the session)?
        ephemeral: bool,
        /// Append a 10-digit sequence number?
        sequential: bool,
    },
    /// `delete`.
    Delete {
        /// Path.
        path: String,
        /// Expected version (-1: any).
        version: i32,
    },
    /// `setData`.
    SetData {
        /// Path.
        path: String,
        /// New data.
        data: ZData,
        /// Expected version (-1: any).
        version: i32,
    },
    /// `getData`, optionally leaving a data watch (armed even when the node is missing, as ZkClient's
    /// `subscribeDataChanges` does with `exists`).
    GetData {
        /// Path.
        path: String,
        /// Leave a watch?
        watch: bool,
    },
    /// ZooKeeper's own `getData`, without ZkClient: a watch is left only when the node exists
    /// (`release-3.4.10 DataTree.java:558-567` throws `NoNode` before `addWatch`; the same in
    /// `release-3.8.0-1 DataTree.java:690-699`). What `splitbrain zk-replay` sends for `get`.
    GetDataPlain {
        /// Path.
        path: String,
        /// Leave a watch (when the node exists)?
        watch: bool,
    },
    /// `exists`, optionally leaving a watch (fires on create).
    Exists {
        /// Path.
        path: String,
        /// Leave a watch?
        watch: bool,
    },
    /// `getChildren`, optionally leaving a child watch.
    GetChildren {
        /// Path.
        path: String,
        /// Leave a watch?
        watch: bool,
    },
    /// Several `getData` calls that Kafka issues back to back (`ZkUtils.getAllBrokersInCluster`,
    /// `updateLeaderAndIsrCache`), modelled as one round trip read at one instant.
    GetDataMany {
        /// Paths.
        paths: Vec<String>,
    },
    /// `multi`: all or nothing.
    Multi {
        /// The operations.
        ops: Vec<MultiOp>,
    },
}

impl ZkOp {
    /// A short description for logs and message labels.
    pub fn describe(&self) -> String {
        match self {
            ZkOp::Create { path, ephemeral, .. } => {
                format!("create{} {path}", if *ephemeral { " -e" } else { "" })
            }
            ZkOp::Delete { path, .. } => format!("delete {path}"),
            ZkOp::SetData { path, version, .. } => format!("setData {path} (expected version {version})"),
            ZkOp::GetData { path, watch } | ZkOp::GetDataPlain { path, watch } => {
                format!("getData {path}{}", if *watch { " watch" } else { "" })
            }
            ZkOp::Exists { path, watch } => format!("exists {path}{}", if *watch { " watch" } else { "" }),
            ZkOp::GetChildren { path, watch } => {
                format!("getChildren {path}{}", if *watch { " watch" } else { "" })
            }
            ZkOp::GetDataMany { paths } => {
                if paths.len() == 1 {
                    format!("getData {}", paths[0])
                } else {
                    format!("getData ×{} ({}…)", paths.len(), paths.first().map(|s| s.as_str()).unwrap_or(""))
                }
            }
            ZkOp::Multi { ops } => format!("multi ({} ops)", ops.len()),
        }
    }

    /// True for operations that change the tree.
    pub fn is_write(&self) -> bool {
        matches!(self, ZkOp::Create { .. } | ZkOp::Delete { .. } | ZkOp::SetData { .. } | ZkOp::Multi { .. })
    }
}

/// The result of a request.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ZkResult {
    /// A node was created at `path`.
    Created {
        /// The actual path (with a sequence suffix for sequential nodes).
        path: String,
    },
    /// A write succeeded; the node's new stat.
    Written {
        /// New stat.
        stat: Stat,
    },
    /// A delete succeeded.
    Deleted,
    /// Data read.
    Data {
        /// Data.
        data: ZData,
        /// Stat.
        stat: Stat,
    },
    /// `exists` result.
    Exists {
        /// Stat if the node exists.
        stat: Option<Stat>,
    },
    /// Children names, sorted.
    Children {
        /// Names.
        names: Vec<String>,
    },
    /// `GetDataMany` results, one per path (None when the node is gone).
    DataMany {
        /// Results.
        items: Vec<Option<(ZData, Stat)>>,
    },
    /// `multi` succeeded.
    MultiOk,
    /// `multi` failed at op `index` (nothing was applied).
    MultiFailed {
        /// Index of the failing op.
        index: usize,
        /// Its error.
        code: ZkError,
    },
    /// The request failed.
    Error {
        /// Error code.
        code: ZkError,
    },
}

/// A result as the simulator's logs summarise it (`ok, version 3`, `multi failed at op 0: BADVERSION`).
pub fn result_summary(r: &ZkResult) -> String {
    match r {
        ZkResult::Created { path } => format!("created {path}"),
        ZkResult::Written { stat } => format!("ok, version {}", stat.version),
        ZkResult::Deleted => String::from("deleted"),
        ZkResult::Data { data, stat } => {
            let j = data.to_json();
            if j.len() > 90 {
                format!("data (version {})", stat.version)
            } else {
                format!("{j} (version {})", stat.version)
            }
        }
        ZkResult::Exists { stat: Some(s) } => format!("exists (version {})", s.version),
        ZkResult::Exists { stat: None } => String::from("does not exist"),
        ZkResult::Children { names } => format!("[{}]", names.join(",")),
        ZkResult::DataMany { items } => {
            format!("{} of {} nodes read", items.iter().filter(|i| i.is_some()).count(), items.len())
        }
        ZkResult::MultiOk => String::from("multi ok"),
        ZkResult::MultiFailed { index, code } => format!("multi failed at op {index}: {}", code.name()),
        ZkResult::Error { code } => format!("error {}", code.name()),
    }
}
