//! Becoming (and stopping being) the controller: `KafkaController.elect`, `onControllerFailover`
//! (`readControllerEpochFromZookeeper`, `incrementControllerEpoch`, `initializeControllerContext`,
//! `ReplicaStateMachine.startup`, `PartitionStateMachine.startup`), `triggerControllerMove`, and
//! what tells a controller it moved: `ControllerChange` (1.0 trusts the id the listener read; 1.1's
//! `maybeResign` re-reads `/controller`) and, with fenced writes, `ControllerMovedException`.
//!
//! 1.0's own paths, as the code has them:
//! - `elect` (1.0.0 `KafkaController.scala:1658-1696`) creates `/controller` with `ZKCheckedEphemeral`
//!   on the raw handle ([`crate::zk_client`]): `NODEEXISTS` re-reads the holder (:1682-1690); any
//!   other result — `SESSIONEXPIRED` when the session expired under the create — is the catch-all
//!   `case e2: Throwable` (:1692-1694): `error("Error while electing or becoming controller on broker
//!   N")` and `triggerControllerMove()`.
//! - `triggerControllerMove` (1.0.0 :1652-1656; 1.1.0 :1180-1184): `onControllerResignation()`,
//!   `activeControllerId = -1`, `deletePath("/controller")` — without checking who holds it, so it
//!   can delete a newer controller's znode. 2.1.0 (:1174-1189) re-reads `/controller` first and
//!   deletes with the `/controller_epoch` version (`controller_move_checks_owner`).
//! - `incrementControllerEpoch` (1.0.0 :665-694) swallows a failed bump and logs `Incremented epoch
//!   to <old epoch>` (:693); the failover goes on (`epoch_bump_failure_swallowed`). 1.1.0 (:612-640)
//!   throws, which reaches `elect`'s catch-all and `triggerControllerMove`.
//! - `handleIllegalState` (1.0.0 :1644-1650) is not modelled: its triggers are an
//!   `IllegalStateException` from `ControllerBrokerRequestBatch.newBatch` finding an unsent batch
//!   (1.0.0 `ControllerChannelManager.scala:294-305`) or from `sendRequestsToBrokers` (:502). In the
//!   model every batch an event starts is flushed within that event, and resigning clears it, so no
//!   path leaves a batch behind, and sending never throws.
//!
//! Log lines follow 1.0: `N successfully elected as the controller` (:1679), `Starting become
//! controller state transition` (:273), `Incremented epoch to N` (:693), `Currently active brokers
//! in the cluster` (:716), `Ready to serve as the new controller with epoch N` (:302), `Resigned`
//! (:354), `Started partition state machine with initial state -> …` (1.0.0
//! `PartitionStateMachine.scala:60`; 1.0 prints the whole map, the model counts it). Lines with no
//! 1.0 counterpart (`Loaded leader and ISR of N partitions …`) are the model's own summaries.
//!
//! Two of them come later than the code they describe might suggest, in 1.0.0, 1.1.0 and 2.1.0
//! alike: `Currently active brokers` is logged at the end of `initializeControllerContext` (1.0.0
//! KC:716, 1.1.0 KC:656, 2.1.0 KC:652), after `updateLeaderAndIsrCache` has read every partition
//! state (1.0.0 KC:712), not when `/brokers/ids` is read (KC:706); and `Started partition state
//! machine` is logged at the end of `PartitionStateMachine.startup` (1.0.0 PSM:56-61, 1.1.0 :58-64,
//! 2.1.0 :62-68), after `triggerOnlinePartitionStateChange` has run every election, so the map it
//! prints already counts the elected partitions as Online. The typed facts keep their own moments:
//! [`Mark::LiveBrokersRead`] at the read, [`Mark::PartitionStatesStarted`] at
//! `initializePartitionState` (before the elections), [`Mark::ContextLoaded`] and
//! [`Mark::PartitionStateMachineStarted`] with the two lines.
use super::{
    children, controller_id, readable_brokers, short_list, Cached, Controller, ControllerIo, Exec, Step as AnyStep,
};
use crate::controller::partition_state::PartitionState;
use crate::controller::replica_state::ReplicaState;
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, TopicPartition};
use crate::mark::Mark;
use crate::sorted::CollectOrdered;
use crate::vec_map::VecMap;
use crate::znodes::leader_isr_json;
use crate::znodes::ZData;
use crate::zookeeper::ops::{MultiOp, ZkError, ZkOp, ZkResult};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A micro-step of `elect` / `onControllerFailover` / `maybeResign`.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// `getControllerID`; with `resign_check`, resign if it was us and is no longer.
    ReadControllerId {
        resign_check: bool,
    },
    /// `elect`: read `/controller`.
    Elect,
    /// `elect`: create the ephemeral `/controller`.
    CreateController,
    /// KAFKA-6082: `registerControllerAndIncrementControllerEpoch`.
    CreateControllerFenced,
    /// `elect` after a failed create: did our own create land before a lost response?
    CheckOwnCreate,
    ReadEpoch,
    IncrementEpoch,
    RegisterIsrListener,
    ReadBrokerIds,
    ReadBrokers(Vec<String>),
    ReadTopics,
    ReadAssignments(Vec<String>),
    ReadStates,
    /// 1.0's `getPartitionLeaderAndIsrForTopics`: one synchronous `getData` per partition.
    ReadState(TopicPartition),
    /// Every partition's state has been read one by one.
    StatesRead,
    ReplicaStartup,
    /// `PartitionStateMachine.startup`: `initializePartitionState`, then the elections.
    PartitionStartup,
    /// `PartitionStateMachine.startup` after `triggerOnlinePartitionStateChange`: its log line.
    PartitionStarted,
    FailoverDone,
    /// `triggerControllerMove`: delete `/controller`; with the `/controller_epoch` version to
    /// check (2.1's `deleteController(expectedControllerEpochZkVersion)`), else unconditionally.
    MoveController(Option<i32>),
    /// 2.1's `triggerControllerMove`: re-read `/controller` before resigning and deleting.
    MoveControllerCheck,
}

impl Step {
    pub(super) fn name(&self) -> String {
        match self {
            Step::ReadControllerId { .. } => "getControllerID".into(),
            Step::Elect | Step::CreateController | Step::CheckOwnCreate => "elect".into(),
            Step::CreateControllerFenced => "registerControllerAndIncrementControllerEpoch".into(),
            Step::ReadEpoch => "readControllerEpochFromZookeeper".into(),
            Step::IncrementEpoch => "incrementControllerEpoch".into(),
            Step::ReadBrokerIds
            | Step::ReadBrokers(_)
            | Step::ReadTopics
            | Step::ReadAssignments(_)
            | Step::ReadStates
            | Step::StatesRead => "initializeControllerContext".into(),
            Step::ReadState(tp) => format!("initializeControllerContext: updateLeaderAndIsrCache({tp})"),
            Step::RegisterIsrListener => "registerIsrChangeNotificationListener".into(),
            Step::ReplicaStartup => "ReplicaStateMachine.startup".into(),
            Step::PartitionStartup | Step::PartitionStarted => "PartitionStateMachine.startup".into(),
            Step::FailoverDone => "onControllerFailover".into(),
            Step::MoveController(_) | Step::MoveControllerCheck => "triggerControllerMove".into(),
        }
    }

    /// 1.1.0: the step's ZooKeeper call is inside `elect`'s `try` (KC:1199-1203: the
    /// `checkedEphemeralCreate`, with its own check of an existing node, and all of
    /// `onControllerFailover`), so an exception from it reaches the catch-all (:1214-1216). The
    /// reads of `/controller` before the `try` (`elect`'s first `getControllerId`, `maybeResign`)
    /// and `triggerControllerMove`'s delete are outside it.
    pub(super) fn inside_elect_try(&self) -> bool {
        matches!(
            self,
            Step::CreateController
                | Step::CreateControllerFenced
                | Step::CheckOwnCreate
                | Step::ReadEpoch
                | Step::IncrementEpoch
                | Step::RegisterIsrListener
                | Step::ReadBrokerIds
                | Step::ReadBrokers(_)
                | Step::ReadTopics
                | Step::ReadAssignments(_)
                | Step::ReadStates
                | Step::ReadState(_)
        )
    }

    /// The step creates `/controller` (on the raw handle: not retried on a new session).
    pub(super) fn creates_controller(&self) -> bool {
        matches!(self, Step::CreateController | Step::CreateControllerFenced)
    }

    /// The step is `ZKCheckedEphemeral`'s read of the holder after its create found the node.
    pub(super) fn reads_owner(&self) -> bool {
        matches!(self, Step::CheckOwnCreate)
    }

    /// The request half.
    pub(super) fn request(&self, c: &mut Controller, io: &mut ControllerIo) -> Exec {
        let epoch = c.ctx.epoch;
        let epoch_version = c.ctx.epoch_zk_version;
        match self {
            Step::ReadControllerId { .. } | Step::Elect => {
                Exec::Wait(ZkOp::GetData { path: "/controller".into(), watch: true })
            }
            // 1.0.0 ZkUtils.scala:1094: `ZKCheckedEphemeral` reads the holder with `getData(path,
            // false, …)`, no watch; 1.1+'s `getAfterNodeExists` goes through `ZooKeeperClient`,
            // which watches `/controller` (its change handler is registered).
            Step::CheckOwnCreate => Exec::Wait(ZkOp::GetData {
                path: "/controller".into(),
                watch: !io.cfg.behaviour().owner_read_fails_on_connection_loss,
            }),
            // 2.1.0 KC:1175 `zkClient.getControllerId`: a plain read, no watch.
            Step::MoveControllerCheck => Exec::Wait(ZkOp::GetData { path: "/controller".into(), watch: false }),
            Step::CreateController => Exec::Wait(ZkOp::Create {
                path: "/controller".into(),
                data: ZData::Controller { broker_id: io.id, timestamp: 0 },
                ephemeral: true,
                sequential: false,
            }),
            Step::CreateControllerFenced => Exec::Wait(ZkOp::Multi {
                ops: alloc::vec![
                    MultiOp::Create {
                        path: "/controller".into(),
                        data: ZData::Controller { broker_id: io.id, timestamp: 0 },
                        ephemeral: true,
                        sequential: false,
                    },
                    MultiOp::SetData {
                        path: "/controller_epoch".into(),
                        data: ZData::ControllerEpoch { epoch: epoch + 1 },
                        version: epoch_version,
                    },
                ],
            }),
            Step::ReadEpoch => Exec::Wait(ZkOp::GetData { path: "/controller_epoch".into(), watch: false }),
            Step::IncrementEpoch => Exec::Wait(ZkOp::SetData {
                path: "/controller_epoch".into(),
                data: ZData::ControllerEpoch { epoch: epoch + 1 },
                version: epoch_version,
            }),
            Step::RegisterIsrListener => {
                Exec::Wait(ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true })
            }
            Step::ReadBrokerIds => {
                c.listeners = true;
                Exec::Wait(ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true })
            }
            Step::ReadBrokers(paths) | Step::ReadAssignments(paths) => {
                Exec::Wait(ZkOp::GetDataMany { paths: paths.clone() })
            }
            Step::ReadTopics => Exec::Wait(ZkOp::GetChildren { path: "/brokers/topics".into(), watch: true }),
            Step::ReadStates if io.cfg.behaviour().context_reads_one_by_one => {
                // 1.0.0 ZkUtils.scala:738-746: a loop of synchronous reads, each after the
                // previous one's reply. 1.0 iterates a Scala HashSet of partitions (hash order);
                // the model reads in partition order.
                c.ctx.clear_cache();
                let steps: Vec<AnyStep> = c
                    .ctx
                    .assignment
                    .keys()
                    .map(|tp| Step::ReadState(tp.clone()).into())
                    .chain(core::iter::once(Step::StatesRead.into()))
                    .collect();
                c.push_front(steps);
                Exec::Done
            }
            Step::ReadStates => {
                // 1.1+: KafkaZkClient.getTopicPartitionStates pipelines one batch of reads.
                let paths = c.ctx.assignment.keys().map(|tp| tp.state_path()).collect();
                Exec::Wait(ZkOp::GetDataMany { paths })
            }
            Step::ReadState(tp) => Exec::Wait(ZkOp::GetData { path: tp.state_path(), watch: false }),
            Step::StatesRead => {
                c.states_loaded(io);
                Exec::Done
            }
            Step::ReplicaStartup => {
                c.replica_state_machine_startup(io);
                Exec::Done
            }
            Step::PartitionStartup => {
                c.partition_state_machine_startup(io);
                Exec::Done
            }
            Step::PartitionStarted => {
                c.partition_state_machine_started(io);
                Exec::Done
            }
            Step::FailoverDone => {
                io.log(EventKind::Info, || format!("Ready to serve as the new controller with epoch {epoch}"));
                Exec::Done
            }
            Step::MoveController(None) => Exec::Wait(ZkOp::Delete { path: "/controller".into(), version: -1 }),
            Step::MoveController(Some(version)) => Exec::Wait(ZkOp::Multi {
                ops: alloc::vec![
                    MultiOp::Check { path: "/controller_epoch".into(), version: *version },
                    MultiOp::Delete { path: "/controller".into(), version: -1 }
                ],
            }),
        }
    }

    /// The response half.
    pub(super) fn on_response(self, c: &mut Controller, result: ZkResult, io: &mut ControllerIo) {
        let fenced = io.cfg.behaviour().fenced_writes;
        match self {
            Step::ReadControllerId { resign_check } => {
                let id = controller_id(&result);
                let was = c.is_active(io.id);
                c.active_id = id;
                if resign_check && was && !c.is_active(io.id) {
                    c.resign(io);
                }
            }
            Step::Elect => {
                let id = controller_id(&result);
                c.active_id = id;
                if id == -1 {
                    if fenced {
                        c.push_front(alloc::vec![Step::ReadEpoch.into(), Step::CreateControllerFenced.into()]);
                    } else {
                        c.then(Step::CreateController);
                    }
                }
            }
            Step::CreateControllerFenced => match result {
                ZkResult::MultiOk => {
                    c.ctx.epoch += 1;
                    c.ctx.epoch_zk_version += 1;
                    c.won(io);
                }
                ZkResult::Error { code } => c.elect_failed(code.name(), io),
                _ => c.then(Step::CheckOwnCreate),
            },
            Step::CreateController => match result {
                ZkResult::Created { .. } => c.won(io),
                ZkResult::Error { code: ZkError::NodeExists } => c.then(Step::CheckOwnCreate),
                ZkResult::Error { code } => c.elect_failed(code.name(), io),
                other => c.elect_failed(&format!("{other:?}"), io),
            },
            Step::CheckOwnCreate if result == ZkResult::Error { code: ZkError::ConnectionLoss } => {
                // 1.0.0 ZkUtils.scala:1129-1131: the callback warned (the broker logged it), the
                // code became the result, and create() throws it (:1220-1221).
                io.out.mark(Mark::ControllerOwnerReadLost { broker: io.id });
                c.elect_failed("org.I0Itec.zkclient.exception.ZkException: org.apache.zookeeper.KeeperException$ConnectionLossException: KeeperErrorCode = ConnectionLoss", io);
            }
            Step::CheckOwnCreate => {
                let id = controller_id(&result);
                if id == io.id {
                    // ZKCheckedEphemeral / checkControllerAndEpoch: our own create landed before a
                    // lost response.
                    if fenced {
                        c.ctx.epoch += 1;
                        c.ctx.epoch_zk_version += 1;
                    }
                    c.won(io);
                } else {
                    c.active_id = id;
                    if id == -1 {
                        io.log(EventKind::Info, String::from("A controller has been elected but just resigned, this will result in another round of election"));
                    }
                }
            }
            Step::ReadEpoch => {
                if let ZkResult::Data { data: ZData::ControllerEpoch { epoch }, stat } = result {
                    c.ctx.epoch = epoch;
                    c.ctx.epoch_zk_version = stat.version;
                }
            }
            Step::IncrementEpoch => {
                // 1.0 (KC:693) and 1.1 (KC:639) word the success line differently.
                let one_oh = io.cfg.behaviour().epoch_bump_failure_swallowed;
                match result {
                    ZkResult::Written { stat } => {
                        c.ctx.epoch += 1;
                        c.ctx.epoch_zk_version = stat.version;
                        let line = if one_oh { "Incremented epoch to" } else { "Epoch incremented to" };
                        io.log(EventKind::Info, || format!("{line} {}", c.ctx.epoch));
                        io.out.mark(Mark::ControllerEpochIncremented {
                            broker: io.id,
                            controller_epoch: c.ctx.epoch,
                            epoch_zk_version: c.ctx.epoch_zk_version,
                        });
                    }
                    _ if one_oh => {
                        // 1.0.0 KC:681-693: the ControllerMovedException thrown inside the try is
                        // caught by `case oe: Throwable`; the epoch stays the one read.
                        io.log(
                            EventKind::Info,
                            String::from("Error while incrementing controller epoch: kafka.common.ControllerMovedException: Controller moved to another broker. Aborting controller startup procedure"),
                        );
                        io.log(EventKind::Info, || format!("Incremented epoch to {}", c.ctx.epoch));
                        io.out.mark(Mark::ControllerEpochBumpFailed {
                            broker: io.id,
                            controller_epoch: c.ctx.epoch,
                            swallowed: true,
                        });
                    }
                    _ => {
                        io.out.mark(Mark::ControllerEpochBumpFailed {
                            broker: io.id,
                            controller_epoch: c.ctx.epoch,
                            swallowed: false,
                        });
                        c.elect_failed(
                            "ControllerMovedException: Controller moved to another broker. Aborting controller startup procedure",
                            io,
                        );
                    }
                }
            }
            Step::RegisterIsrListener => {}
            Step::ReadBrokerIds => {
                let paths = children(&result).iter().map(|n| format!("/brokers/ids/{n}")).collect();
                c.then(Step::ReadBrokers(paths));
            }
            Step::ReadBrokers(paths) => {
                // 1.0.0 KC:706 `getAllBrokersInCluster`; the line naming them comes after the
                // partition states are read (`states_loaded`).
                let live = readable_brokers(&paths, &result);
                io.out.mark(Mark::LiveBrokersRead { controller: io.id, live: live.iter().copied().collect() });
                c.ctx.live_brokers = live;
            }
            Step::ReadTopics => {
                let paths = children(&result).iter().map(|n| format!("/brokers/topics/{n}")).collect();
                c.then(Step::ReadAssignments(paths));
            }
            Step::ReadAssignments(paths) => {
                let mut assignment = VecMap::new();
                if let ZkResult::DataMany { items } = &result {
                    for (path, item) in paths.iter().zip(items) {
                        let topic = path.rsplit('/').next().unwrap_or("");
                        if let Some((ZData::Assignment { partitions }, _)) = item {
                            for (p, r) in partitions {
                                assignment.insert(TopicPartition::new(topic, *p), r.clone());
                            }
                        }
                    }
                }
                c.ctx.assignment = alloc::rc::Rc::new(assignment);
            }
            Step::ReadStates => c.on_read_states(result, io),
            Step::ReadState(tp) => {
                if let ZkResult::Data { data: ZData::PartitionState { state }, stat } = result {
                    c.ctx.cache(tp, Cached { state, zk_version: stat.version });
                }
            }
            Step::MoveController(_) => c.active_id = -1,
            Step::MoveControllerCheck => {
                let id = controller_id(&result);
                if id != io.id {
                    c.active_id = id;
                    io.log(
                        EventKind::Info,
                        String::from("Controller has already moved when trying to trigger controller movement"),
                    );
                } else {
                    let expected = c.ctx.epoch_zk_version;
                    c.move_controller(Some(expected), io);
                }
            }
            // Local steps never wait on ZooKeeper.
            Step::ReplicaStartup
            | Step::PartitionStartup
            | Step::PartitionStarted
            | Step::FailoverDone
            | Step::StatesRead => {}
        }
    }
}

impl Controller {
    /// `onControllerFailover`, after `elect` won.
    fn failover_steps() -> Vec<AnyStep> {
        [
            Step::ReadEpoch,
            Step::IncrementEpoch,
            Step::RegisterIsrListener,
            Step::ReadBrokerIds,
            Step::ReadTopics,
            Step::ReadStates,
        ]
        .into_iter()
        .map(AnyStep::from)
        .chain([AnyStep::UpdateMetadataAll])
        .chain([Step::ReplicaStartup, Step::PartitionStartup, Step::FailoverDone].into_iter().map(AnyStep::from))
        .collect()
    }

    /// `elect` won the `/controller` race: `onControllerFailover`.
    fn won(&mut self, io: &mut ControllerIo) {
        self.active_id = io.id;
        let mut steps = Self::failover_steps();
        if io.cfg.behaviour().fenced_writes {
            // The epoch was bumped in the same transaction as the create.
            steps.retain(|s| !matches!(s, AnyStep::Failover(Step::ReadEpoch | Step::IncrementEpoch)));
            io.log(
                EventKind::ControllerElected,
                format!(
                    "{} successfully elected as the controller. Epoch incremented to {} and epoch zk version is now {}",
                    io.id, self.ctx.epoch, self.ctx.epoch_zk_version
                ),
            );
        } else {
            io.log(EventKind::ControllerElected, format!("{} successfully elected as the controller", io.id));
            io.log(EventKind::Info, String::from("Starting become controller state transition"));
        }
        let known = io.cfg.behaviour().fenced_writes;
        io.out.mark(Mark::ControllerElected { broker: io.id, controller_epoch: known.then_some(self.ctx.epoch) });
        self.push_front(steps);
    }

    /// `elect`'s catch-all (1.0.0 KC:1692-1694): anything but success or `NODEEXISTS` from the
    /// create, or an exception out of `onControllerFailover`: log, then `triggerControllerMove`.
    pub(super) fn elect_failed(&mut self, what: &str, io: &mut ControllerIo) {
        io.log(EventKind::Info, format!("Error while electing or becoming controller on broker {}: {what}", io.id));
        self.abandon_event();
        if io.cfg.behaviour().controller_move_checks_owner {
            self.then(Step::MoveControllerCheck);
        } else {
            self.move_controller(None, io);
        }
    }

    /// `triggerControllerMove`'s body: `onControllerResignation()`, `activeControllerId = -1`,
    /// delete `/controller` (checking the `/controller_epoch` version `expected`, when given).
    fn move_controller(&mut self, expected: Option<i32>, io: &mut ControllerIo) {
        if self.is_active(io.id) || self.listeners {
            self.active_id = -1;
            self.resign_noting("triggerControllerMove".into(), io);
        } else {
            self.active_id = -1;
            io.log(EventKind::Info, String::from("Resigned (onControllerResignation: it was not the controller)"));
        }
        io.out.mark(Mark::ControllerMoveTriggered { broker: io.id, owner_checked: expected.is_some() });
        self.then(Step::MoveController(expected));
    }

    /// 1.0's `ControllerChange(newControllerId).process`: trust the id the listener read when it
    /// fired; resign if it is no longer us.
    pub(super) fn controller_change(&mut self, id: BrokerId, io: &mut ControllerIo) {
        let was = self.is_active(io.id);
        self.active_id = id;
        if was && !self.is_active(io.id) {
            self.resign(io);
        } else if !was && self.is_active(io.id) {
            io.log(
                EventKind::Info,
                || format!(
                    "Processed a stale ControllerChange({id}) queued earlier: activeControllerId = {id}, so isActive is true again, without a failover (the event carries the id read when it was enqueued)"
                ),
            );
        }
    }

    /// `ControllerEventThread` caught `ControllerMovedException`: abandon the event and
    /// `maybeResign()` (re-read `/controller`, resign if it is not us).
    pub(super) fn controller_moved(&mut self, io: &mut ControllerIo) {
        let name = self.job.as_ref().map(|j| j.event.name()).unwrap_or_default();
        io.log(
            EventKind::ControllerResigned,
            || format!(
                "Controller moved to another broker when processing {name}: /controller_epoch is no longer at version {}. Trigger controller move listener immediately",
                self.ctx.epoch_zk_version
            ),
        );
        io.out.mark(Mark::ControllerMoved {
            broker: io.id,
            controller_epoch: self.ctx.epoch,
            epoch_zk_version: self.ctx.epoch_zk_version,
        });
        self.abandon_event();
        self.then(Step::ReadControllerId { resign_check: true });
    }

    /// `initializeControllerContext`: the partition states read into `partitionLeadershipInfo`.
    fn on_read_states(&mut self, result: ZkResult, io: &mut ControllerIo) {
        let mut leadership = VecMap::new();
        if let ZkResult::DataMany { items } = &result {
            for (tp, item) in self.ctx.assignment.keys().zip(items) {
                if let Some((ZData::PartitionState { state }, stat)) = item {
                    leadership.insert(
                        tp.clone(),
                        alloc::rc::Rc::new(Cached { state: state.clone(), zk_version: stat.version }),
                    );
                }
            }
        }
        self.ctx.set_cache(leadership);
        self.states_loaded(io);
    }

    /// Every partition state is in `partitionLeadershipInfo`.
    fn states_loaded(&mut self, io: &mut ControllerIo) {
        self.ctx.loaded = true;
        // The state of each `__consumer_offsets` partition a configured group maps to: the one whose
        // leader decides whether the group has a coordinator.
        let mut note = String::new();
        for tp in io.cfg.group_partitions() {
            if let Some(c) = self.ctx.leadership.get(&tp) {
                note.push_str(&format!("; {tp}: {} (zkVersion {})", leader_isr_json(&c.state), c.zk_version));
            }
        }
        io.log(EventKind::Info, || {
            format!(
                "Loaded leader and ISR of {} partitions into the controller context{note}",
                self.ctx.leadership.len()
            )
        });
        // `initializeControllerContext` logs the live brokers it read only now, after
        // `updateLeaderAndIsrCache` (1.0.0 KC:712-716; 1.1.0 KC:652-656; 2.1.0 KC:648-652).
        let live = &self.ctx.live_brokers;
        io.log(EventKind::Info, || {
            format!(
                "Currently active brokers in the cluster: Set({})",
                fmt_ids(live.iter().copied()).replace(',', ", ")
            )
        });
        io.out.mark(Mark::ContextLoaded {
            controller: io.id,
            partitions: self.ctx.leadership.len() as u32,
            live: live.iter().copied().collect(),
        });
    }

    /// `ReplicaStateMachine.startup`: replicas on live brokers Online (and told so), the others
    /// ReplicaDeletionIneligible.
    fn replica_state_machine_startup(&mut self, io: &mut ControllerIo) {
        let live = self.ctx.live_brokers.clone();
        let assignment = self.ctx.assignment.clone();
        let state = |r: &BrokerId| {
            if live.contains(r) {
                ReplicaState::OnlineReplica
            } else {
                ReplicaState::ReplicaDeletionIneligible
            }
        };
        // The states are all written before the first request is added (nothing the requests
        // read depends on them); into an empty map (a controller's first startup after
        // resigning, which clears it) in one bulk build instead of an insert per replica.
        let states =
            assignment.iter().flat_map(|(tp, replicas)| replicas.iter().map(move |r| ((tp.clone(), *r), state(r))));
        if self.replica_states.is_empty() {
            self.replica_states = states.collect_ordered();
        } else {
            self.replica_states.extend(states);
        }
        // The LeaderAndIsr for a partition's online replicas is added in one call (the same as one
        // call a replica: nothing it reads moves in between), so its state is built once.
        let mut online = Vec::new();
        for (tp, replicas) in assignment.iter() {
            online.clear();
            online.extend(replicas.iter().copied().filter(|r| live.contains(r)));
            if !online.is_empty() {
                self.add_lai(&online, tp);
            }
        }
        self.flush(io);
    }

    /// `PartitionStateMachine.startup`: `initializePartitionState`, then
    /// `triggerOnlinePartitionStateChange`, then its log line ([`Step::PartitionStarted`]).
    fn partition_state_machine_startup(&mut self, io: &mut ControllerIo) {
        let live = &self.ctx.live_brokers;
        let mut offline = Vec::new();
        // Built from the assignment's keys, which are sorted: one bulk build (`collect`), not an
        // insert per partition.
        let states: VecMap<TopicPartition, PartitionState> = self
            .ctx
            .assignment
            .keys()
            .map(|tp| {
                let st = PartitionState::initial(self.ctx.leadership.get(tp).map(|c| &c.state), live);
                if st != PartitionState::OnlinePartition {
                    offline.push(tp.clone());
                }
                (tp.clone(), st)
            })
            .collect_ordered();
        self.partition_states = states;
        let online = self.ctx.assignment.len() - offline.len();
        // No log line here in 1.0 (1.1.0 PSM:61 and 2.1.0 PSM:65 log `Triggering online partition
        // state changes`, which the model does not).
        io.out.mark(Mark::PartitionStatesStarted {
            controller: io.id,
            online: online as u32,
            offline: offline.len() as u32,
        });
        self.push_front(alloc::vec![Controller::trigger_online(io), Step::PartitionStarted.into()]);
    }

    /// The end of `PartitionStateMachine.startup` (1.0.0 PSM:60, after
    /// `triggerOnlinePartitionStateChange` at :58): `Started partition state machine with initial
    /// state -> $partitionState`, the map as the elections left it.
    fn partition_state_machine_started(&mut self, io: &mut ControllerIo) {
        let offline: Vec<TopicPartition> = self
            .partition_states
            .iter()
            .filter(|(_, s)| **s != PartitionState::OnlinePartition)
            .map(|(tp, _)| tp.clone())
            .collect();
        let online = self.partition_states.len() - offline.len();
        io.log(EventKind::Info, || {
            format!(
                "Started partition state machine with initial state -> {online} OnlinePartition, {} OfflinePartition{}",
                offline.len(),
                if offline.is_empty() { String::new() } else { format!(" ({})", short_list(&offline)) }
            )
        });
        io.out.mark(Mark::PartitionStateMachineStarted {
            controller: io.id,
            online: online as u32,
            offline: offline.len() as u32,
        });
    }
}
