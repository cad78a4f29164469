//! `triggerControllerMove` as Kafka 2.1.0 has it (KafkaController.scala:1174-1189; property
//! [`controller_move_checks_owner`](crate::mode::Behaviour::controller_move_checks_owner)): re-read
//! `/controller` (`activeControllerId = zkClient.getControllerId`); if this broker no longer holds
//! it, warn "Controller has already moved when trying to trigger controller movement" and stop.
//! Otherwise remember `epochZkVersion`, set `activeControllerId = -1`, `onControllerResignation()`,
//! and `deleteController(expectedControllerEpochZkVersion)` (2.1.0 KafkaZkClient.scala:1010, fenced
//! like every controller write); a failed epoch check is caught and logged with the same warning.
//! 1.0.0 (KC:1652) and 1.1.0 (KC:1180) resign and delete `/controller` whoever holds it.
use super::{controller_id, Controller, ControllerIo, Exec};
use crate::event::EventKind;
use crate::zookeeper::{MultiOp, ZkOp, ZkResult};
use alloc::string::String;

/// A micro-step of 2.1.0's `triggerControllerMove`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) enum Step {
    /// `zkClient.getControllerId`.
    ReadOwner,
    /// `deleteController(expectedControllerEpochZkVersion)`, with the version held before resigning.
    Delete(i32),
}

const MOVED: &str = "Controller has already moved when trying to trigger controller movement";

impl Step {
    pub(super) fn name(&self) -> String {
        "triggerControllerMove".into()
    }

    /// The request half.
    pub(super) fn request(self, _c: &mut Controller, io: &mut ControllerIo) -> Exec {
        match self {
            Step::ReadOwner => Exec::Wait(ZkOp::GetData { path: "/controller".into(), watch: false }),
            Step::Delete(version) => {
                let delete = ZkOp::Delete { path: "/controller".into(), version: -1 };
                if !io.cfg.behaviour().fenced_writes {
                    return Exec::WaitUnfenced(delete);
                }
                // Fenced here rather than by the generic wrapper: the context (and its
                // epochZkVersion) is gone with the resignation, and a failed check is caught here.
                Exec::WaitUnfenced(ZkOp::Multi {
                    ops: alloc::vec![
                        MultiOp::Check { path: "/controller_epoch".into(), version },
                        MultiOp::Delete { path: "/controller".into(), version: -1 }
                    ],
                })
            }
        }
    }

    /// The response half (the raw result: a failed epoch check is caught here, not resigned on).
    pub(super) fn on_response(self, c: &mut Controller, result: ZkResult, io: &mut ControllerIo) {
        match self {
            Step::ReadOwner => {
                c.active_id = controller_id(&result);
                if !c.is_active(io.id) {
                    io.log(EventKind::Info, MOVED.into());
                    return;
                }
                let version = c.ctx.epoch_zk_version;
                c.active_id = -1;
                c.resign_noting(
                    String::from("triggerControllerMove: it still held /controller, which it now deletes"),
                    io,
                );
                c.then(Step::Delete(version));
            }
            Step::Delete(_) => {
                if let ZkResult::MultiFailed { index: 0, .. } = result {
                    io.log(EventKind::Info, MOVED.into());
                }
            }
        }
    }
}
