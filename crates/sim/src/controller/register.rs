//! `RegisterBrokerAndReelect` (1.1.0 KafkaController.scala:1483, 2.1.0 :1512; property
//! [`register_on_controller_thread`](crate::mode::Behaviour::register_on_controller_thread)): on a new
//! session `afterInitializingSession` (1.1.0 :157, 2.1.0 :164) puts this event on the controller
//! queue — after `Expire` has cleared it — and the event thread registers the broker and then runs
//! `Reelect` (`maybeResign`, then `elect`). 1.0.0 registered in `KafkaHealthcheck`'s own
//! `handleNewSession`, at once and off the controller thread.
//!
//! Registration is `KafkaZkClient.registerBrokerInZk` (1.1.0 KafkaZkClient.scala:82;
//! `registerBroker`, 2.1.0 :85) → `checkedEphemeralCreate` → `CheckedEphemeral.create`
//! (1.1.0 :1479-1508; 2.1.0 :1634): create the ephemeral; on `NODEEXISTS` read it back and accept it
//! only if this session owns it (a create that landed before its response was lost), try again if
//! it went away, else fail — and an exception in `process()` ends the event
//! (`ControllerEventManager`: "Error processing event"), so `Reelect` does not run. The
//! registration is not a controller write: 2.1.0 does not fence it.
use super::{Controller, ControllerIo, Exec};
use crate::event::EventKind;
use crate::mark::Mark;
use crate::znodes::ZData;
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use alloc::format;
use alloc::string::String;

/// A micro-step of `RegisterBrokerAndReelect`'s registration.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// Create `/brokers/ids/<id>` (ephemeral).
    Register,
    /// `getAfterNodeExists`: is the existing node ours?
    CheckOwner,
}

fn path(io: &ControllerIo) -> String {
    format!("/brokers/ids/{}", io.id)
}

impl Step {
    pub(super) fn name(&self) -> String {
        "RegisterBrokerAndReelect: registerBrokerInZk".into()
    }

    /// The request half.
    pub(super) fn request(&self, _c: &mut Controller, io: &mut ControllerIo) -> Exec {
        match self {
            Step::Register => Exec::WaitUnfenced(ZkOp::Create {
                path: path(io),
                data: ZData::Broker { id: io.id },
                ephemeral: true,
                sequential: false,
            }),
            Step::CheckOwner => Exec::Wait(ZkOp::GetData { path: path(io), watch: false }),
        }
    }

    /// The response half.
    pub(super) fn on_response(self, c: &mut Controller, result: ZkResult, io: &mut ControllerIo) {
        let path = path(io);
        match (self, result) {
            (Step::Register, ZkResult::Created { .. }) => registered(io),
            (Step::Register, ZkResult::Error { code: ZkError::NodeExists }) => c.then(Step::CheckOwner),
            (Step::CheckOwner, ZkResult::Data { stat, .. })
                if stat.ephemeral_owner.is_some() && stat.ephemeral_owner == io.zk.session =>
            {
                registered(io)
            }
            (Step::CheckOwner, ZkResult::Error { code: ZkError::NoNode }) => {
                zk_log(
                    io,
                    format!("The ephemeral node at {path} went away while reading it, attempting create() again"),
                );
                c.then(Step::Register);
            }
            (step, result) => {
                let why = match (&step, &result) {
                    (Step::CheckOwner, ZkResult::Data { stat, .. }) => format!(
                        "Error while creating ephemeral at {path}, node already exists and owner '{}' does not match current session '{}'",
                        stat.ephemeral_owner.unwrap_or(0),
                        io.zk.session.unwrap_or(0)
                    ),
                    _ => format!("Error while creating ephemeral at {path}: {result:?}"),
                };
                zk_log(io, why);
                io.log(
                    EventKind::Info,
                    String::from("Error processing event RegisterBrokerAndReelect: KeeperException$NodeExistsException (Reelect does not run)"),
                );
                c.abandon_event();
            }
        }
    }
}

fn zk_log(io: &mut ControllerIo, text: String) {
    let line = format!("[KafkaZkClient broker={}] {text}", io.id);
    io.out.log(EventKind::Info, line);
}

/// `registerBrokerInZk`'s "Registered broker".
fn registered(io: &mut ControllerIo) {
    let p = path(io);
    zk_log(
        io,
        format!("Registered broker {} at path {p} (RegisterBrokerAndReelect, on the controller event thread)", io.id),
    );
    io.out.mark(Mark::BrokerRegistered { broker: io.id, on_controller_thread: true });
}
