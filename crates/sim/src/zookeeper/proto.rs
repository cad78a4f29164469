//! What ZooKeeper servers say to each other (ZooKeeper 3.4.10), as plain data: a server's
//! [`Role`], the [`Txn`]s the leader commits, where a client's request came in ([`Origin`]), and
//! the packets between servers ([`PeerMsg`]), with `FastLeaderElection`'s timing constants. The
//! protocol's behaviour is in [`super::quorum`]; this leaf names no node, so the server, its
//! quorum half and the world's message type (`message::Payload::Peer`) can all read it.
use super::data_tree::DataTree;
use super::ops::{ZkError, ZkOp};
use super::session::SessionId;
use crate::ids::NodeId;
use alloc::boxed::Box;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// `FastLeaderElection.finalizeWait`.
pub const FINALIZE_WAIT_MS: u64 = 200;
/// `FastLeaderElection.maxNotificationInterval`.
pub const MAX_NOTIFICATION_INTERVAL_MS: u64 = 60_000;

/// A server's role.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The leader (a standalone server always leads).
    Leading,
    /// Following the leader.
    Following(NodeId),
    /// Looking for a leader: serves no client.
    Looking,
}

/// Where a request came in: the server its client is connected to, the client, its xid.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Origin {
    /// The server the client is connected to (it answers).
    pub server: NodeId,
    /// The client.
    pub client: NodeId,
    /// The client's request id.
    pub xid: u64,
}

/// A transaction the leader commits.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "txn", rename_all = "snake_case")]
pub enum Txn {
    /// `createSession`.
    CreateSession {
        /// The client.
        owner: NodeId,
        /// Its timeout.
        timeout_ms: u64,
        /// When it was asked for.
        now: u64,
    },
    /// `closeSession`, submitted by the expirer.
    CloseSession {
        /// The session.
        session: SessionId,
        /// The bucket it expired in.
        bucket: u64,
    },
    /// A client write.
    Op {
        /// Its session.
        session: SessionId,
        /// The operation.
        op: Rc<ZkOp>,
        /// Sent by a controller event.
        controller: bool,
        /// When the leader took it.
        now: u64,
    },
    /// A request that failed the leader's checks (an error transaction).
    Error {
        /// Its session.
        session: SessionId,
        /// The operation.
        op: Rc<ZkOp>,
        /// Why.
        code: ZkError,
    },
    /// An operator's delete from `zookeeper-shell`.
    AdminDelete {
        /// The path.
        path: String,
    },
}

/// A packet between two servers.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "peer", rename_all = "snake_case")]
pub enum PeerMsg {
    /// A `FastLeaderElection` notification: who the sender votes for and what state it is in.
    Vote {
        /// Sender's epoch.
        epoch: u64,
        /// Sender's last zxid.
        zxid: u64,
        /// Its vote (the leader, when it follows or leads).
        vote: NodeId,
        /// Its state.
        state: Role,
        /// An answer to a notification (not to be answered).
        reply: bool,
    },
    /// FOLLOWERINFO: a follower connects to its leader.
    FollowerInfo {
        /// Its last zxid.
        zxid: u64,
    },
    /// SNAP + NEWLEADER: the leader's tree.
    Snap {
        /// The leader's epoch.
        epoch: u64,
        /// Its last zxid.
        zxid: u64,
        /// The tree (not serialized: traces show the packet, not the data).
        #[serde(skip)]
        tree: Option<Box<DataTree>>,
    },
    /// A request a follower forwards to the leader.
    Forward {
        /// Leader epoch.
        epoch: u64,
        /// Where it came in.
        origin: Origin,
        /// The transaction to commit.
        txn: Txn,
    },
    /// COMMIT of a transaction (the model carries it whole: PROPOSAL and COMMIT in one packet).
    Commit {
        /// Leader epoch.
        epoch: u64,
        /// Its zxid.
        zxid: u64,
        /// The transaction.
        txn: Txn,
        /// Where it came in.
        origin: Option<Origin>,
    },
    /// REVALIDATE: a client resumed its session on a follower.
    Revalidate {
        /// Leader epoch.
        epoch: u64,
        /// The session.
        session: SessionId,
        /// The client.
        client: NodeId,
    },
    /// The leader's answer to REVALIDATE.
    RevalidateReply {
        /// Leader epoch.
        epoch: u64,
        /// The session.
        session: SessionId,
        /// The client.
        client: NodeId,
        /// The session is alive (and was touched).
        valid: bool,
    },
}

impl PeerMsg {
    /// A short label for traces.
    pub fn label(&self) -> String {
        match self {
            PeerMsg::Vote { zxid, vote, state, reply, .. } => format!(
                "{} vote {vote} (zxid {zxid}, {})",
                if *reply { "election reply:" } else { "election:" },
                match state {
                    Role::Leading => String::from("leading"),
                    Role::Following(l) => format!("following {l}"),
                    Role::Looking => String::from("looking"),
                }
            ),
            PeerMsg::FollowerInfo { zxid } => format!("FOLLOWERINFO (zxid {zxid})"),
            PeerMsg::Snap { zxid, .. } => format!("SNAP (zxid {zxid})"),
            PeerMsg::Forward { txn, .. } => format!("forward {}", txn.label()),
            PeerMsg::Commit { zxid, txn, .. } => format!("COMMIT zxid {zxid}: {}", txn.label()),
            PeerMsg::Revalidate { session, .. } => format!("REVALIDATE 0x{session:x}"),
            PeerMsg::RevalidateReply { session, valid, .. } => {
                format!("REVALIDATE 0x{session:x}: {}", if *valid { "valid" } else { "expired" })
            }
        }
    }
}

impl Txn {
    /// A short label for traces.
    pub fn label(&self) -> String {
        match self {
            Txn::CreateSession { owner, .. } => format!("createSession for {owner}"),
            Txn::CloseSession { session, .. } => format!("closeSession 0x{session:x}"),
            Txn::Op { op, .. } | Txn::Error { op, .. } => op.describe(),
            Txn::AdminDelete { path } => format!("delete {path}"),
        }
    }
}
