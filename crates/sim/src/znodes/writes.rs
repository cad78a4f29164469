//! How Kafka's story reads a write that a ZooKeeper server commits. ZooKeeper itself knows
//! nothing of controllers or partitions: these are Kafka's znode paths and data seen in a
//! [`ZkOp`], and the lines and marks the server that answers a write adds to the trace when the
//! write means something for Kafka — a broker deleted `/controller` (`triggerControllerMove`), a
//! fenced controller write was refused (KAFKA-6082), or a deposed controller's partition-state
//! write landed. The server calls [`Before::read`], [`applied`] and [`answered`] at the points
//! where it has the tree before the write, the tree after it, and the reply; what they say is
//! decided here.
use crate::effects::Outbox;
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::mark::Mark;
use crate::znodes::{leader_isr_json, ZData};
use crate::zookeeper::data_tree::DataTree;
use crate::zookeeper::ops::{MultiOp, ZkOp, ZkResult};
use crate::zookeeper::session::SessionId;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Kafka's paths and data in a request.
impl ZkOp {
    /// A delete of `/controller`, alone or inside a `multi` (`triggerControllerMove`).
    pub fn deletes_controller(&self) -> bool {
        match self {
            ZkOp::Delete { path, .. } => path == "/controller",
            ZkOp::Multi { ops } => {
                ops.iter().any(|o| matches!(o, MultiOp::Delete { path, .. } if path == "/controller"))
            }
            _ => false,
        }
    }

    /// The partitions whose state znode this request would write (a `setData` or `create` of a
    /// `.../partitions/<n>/state` path, alone or inside a `multi`).
    pub fn state_writes(&self) -> Vec<TopicPartition> {
        match self {
            ZkOp::SetData { path, .. } | ZkOp::Create { path, .. } => {
                TopicPartition::from_state_path(path).into_iter().collect()
            }
            ZkOp::Multi { ops } => ops
                .iter()
                .filter_map(|o| match o {
                    MultiOp::SetData { path, .. } | MultiOp::Create { path, .. } => {
                        TopicPartition::from_state_path(path)
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A `setData` of a partition state, alone or in a `multi`: the writes a server's reply
    /// compares with `/controller_epoch` (see `ZkServerNode::answer`).
    pub fn sets_partition_state(&self) -> bool {
        match self {
            ZkOp::SetData { data: ZData::PartitionState { .. }, .. } => true,
            ZkOp::Multi { ops } => {
                ops.iter().any(|o| matches!(o, MultiOp::SetData { data: ZData::PartitionState { .. }, .. }))
            }
            _ => false,
        }
    }
}

/// What Kafka's story needs of the tree as it was before a client's write applied, read by the
/// server that will answer it (zero and `None` when the write cannot use them).
#[derive(Clone, Copy, Debug, Default)]
pub struct Before {
    /// `/controller_epoch`, read only when the reply's check can use it: a controller's
    /// partition-state write.
    pub current_epoch: i32,
    /// Who held `/controller` (and on which session) before a delete of it.
    holder: Option<(BrokerId, Option<SessionId>)>,
}

impl Before {
    /// Reads `tree` before `op` (sent by a controller event if `controller`) applies to it.
    pub fn read(tree: &DataTree, op: &ZkOp, controller: bool) -> Before {
        let current_epoch = match controller && op.sets_partition_state() {
            true => match tree.get("/controller_epoch").map(|n| &n.data) {
                Some(ZData::ControllerEpoch { epoch }) => *epoch,
                _ => 0,
            },
            false => 0,
        };
        // Who held `/controller` before a broker's delete of it (`triggerControllerMove`).
        let holder = match op.deletes_controller() {
            true => tree.get("/controller").and_then(|n| match n.data {
                ZData::Controller { broker_id, .. } => Some((broker_id, n.stat.ephemeral_owner)),
                _ => None,
            }),
            false => None,
        };
        Before { current_epoch, holder }
    }
}

/// After a write from `client` on `session` applied on server `me` (which answers it), `tree`
/// being the tree after it: a broker that deleted `/controller` is said, with whether the
/// holder's session is still alive ([`Mark::ControllerZnodeDeleted`]).
pub fn applied(
    me: NodeId,
    client: NodeId,
    session: SessionId,
    before: &Before,
    tree: &DataTree,
    result: &ZkResult,
    out: &mut Outbox,
) {
    if let (Some((holder, holder_session)), ZkResult::Deleted | ZkResult::MultiOk) = (before.holder, result) {
        if let NodeId::Broker(by) = client {
            let holder_live = holder_session.is_some_and(|h| tree.is_live(h));
            out.log(EventKind::LeaderChange, || {
                format!(
                    "{me}: broker {by}'s session 0x{session:x} deleted /controller, held by broker {holder}{}",
                    if holder_live && holder != by { " whose session is alive" } else { "" }
                )
            });
            out.mark(Mark::ControllerZnodeDeleted { by, session, holder, holder_live });
        }
    }
}

/// In server `me`'s reply to `from`'s write `op` (sent by a controller event if `controller`),
/// `current_epoch` being `/controller_epoch` before it: the `/controller_epoch` check of a fenced
/// controller write failed (KAFKA-6082, [`Mark::WriteRefused`]), or a partition-state write from a
/// controller epoch older than `/controller_epoch` landed ([`Mark::DeposedWriteAccepted`]).
pub fn answered(
    me: NodeId,
    from: NodeId,
    op: &ZkOp,
    controller: bool,
    current_epoch: i32,
    result: &ZkResult,
    out: &mut Outbox,
) {
    let write = match (op, result) {
        (ZkOp::SetData { data: ZData::PartitionState { state }, path, .. }, ZkResult::Written { .. }) => {
            Some((path, state))
        }
        (ZkOp::Multi { ops }, ZkResult::MultiOk) => ops.iter().find_map(|o| match o {
            MultiOp::SetData { data: ZData::PartitionState { state }, path, .. } => Some((path, state)),
            _ => None,
        }),
        _ => None,
    };
    if let (ZkOp::Multi { ops }, ZkResult::MultiFailed { index: 0, .. }) = (op, result) {
        if let Some(MultiOp::Check { version, .. }) = ops.first() {
            let target = ops
                .get(1)
                .map(|o| match o {
                    MultiOp::SetData { path, .. } => format!(" (setData {path})"),
                    MultiOp::Create { path, .. } => format!(" (create {path})"),
                    MultiOp::Delete { path, .. } => format!(" (delete {path})"),
                    MultiOp::Check { .. } => String::new(),
                })
                .unwrap_or_default();
            out.log(
                EventKind::LeaderChange,
                || format!(
                    "{me}: refused a fenced controller write{target} from {from}: it expected /controller_epoch at version {version}, which another controller has moved on (BADVERSION)"
                ),
            );
            if let NodeId::Broker(b) = from {
                let partition = op.state_writes().into_iter().next();
                out.mark(Mark::WriteRefused { from: b, expected_epoch_version: *version, partition });
            }
        }
    }
    if let (Some((path, state)), true) = (write, controller) {
        if state.controller_epoch < current_epoch {
            out.log(
                EventKind::LeaderChange,
                || format!(
                    "{me}: accepted a write to {path} made by controller epoch {} while /controller_epoch is {current_epoch}: a deposed controller's decision {} is now in ZooKeeper",
                    state.controller_epoch,
                    leader_isr_json(state)
                ),
            );
            if let (NodeId::Broker(b), Some(partition)) = (from, TopicPartition::from_state_path(path)) {
                out.mark(Mark::DeposedWriteAccepted {
                    from: b,
                    partition,
                    leader: state.leader,
                    leader_epoch: state.leader_epoch,
                    isr: state.isr.clone(),
                    controller_epoch: state.controller_epoch,
                    current_controller_epoch: current_epoch,
                });
            }
        }
    }
}
