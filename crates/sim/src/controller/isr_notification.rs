//! `IsrChangeNotification` (1.0): a leader that changed ISRs writes them, batched by
//! `ReplicaManager.maybePropagateIsrChanges` ([`crate::broker::Broker::maybe_propagate_isr_changes`]),
//! in one sequential `/isr_change_notification/isr_change_` znode; the controller reads the notifications, re-reads the
//! named partitions' state znodes into its cache (`updateLeaderAndIsrCache`), sends UpdateMetadata
//! for them, and deletes the notifications. 1.0 re-reads the states one synchronous `getData` at a
//! time (1.0.0 `KafkaController.scala:800-804` → `ZkUtils.scala:738-746`); 1.1+ in one pipelined
//! batch (`context_reads_one_by_one`).
use super::{children, short_list, Cached, Controller, ControllerIo, Exec, Step as AnyStep};
use crate::event::EventKind;
use crate::ids::TopicPartition;
use crate::znodes::ZData;
use crate::zookeeper::ops::{MultiOp, ZkOp, ZkResult};
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A micro-step of `IsrChangeNotification`.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub(super) enum Step {
    /// The children of `/isr_change_notification`…
    ReadNotifications,
    /// …their data (the partitions each names)…
    ReadNotificationData(Vec<String>),
    /// …the named partitions' state znodes (the notification paths, to delete afterwards)…
    ReadStates(Vec<TopicPartition>, Vec<String>),
    /// …(1.0) one partition's state znode…
    ReadState(TopicPartition),
    /// …(1.0) all of them read: UpdateMetadata, then the deletes…
    StatesRead(Vec<TopicPartition>, Vec<String>),
    /// …and `deleteIsrChangeNotifications`: one multi in 1.0…
    DeleteNotifications(Vec<String>),
    /// …or, 1.1.0+ (`pipelined_notification_deletes`), `deleteIsrChangeNotifications(sequenceNumbers)`
    /// sending one delete each, pipelined.
    DeleteNotificationsEach(Vec<String>),
}

impl Step {
    pub(super) fn name(&self) -> String {
        "IsrChangeNotification".into()
    }

    /// The request half.
    pub(super) fn request(&self, c: &mut Controller, io: &mut ControllerIo) -> Exec {
        Exec::Wait(match self {
            Step::DeleteNotificationsEach(paths) => {
                return Exec::WaitAll(
                    paths.iter().map(|path| ZkOp::Delete { path: path.clone(), version: -1 }).collect(),
                );
            }
            Step::ReadStates(tps, paths) if io.cfg.behaviour().context_reads_one_by_one => {
                let mut steps: Vec<AnyStep> = tps.iter().map(|tp| Step::ReadState(tp.clone()).into()).collect();
                steps.push(Step::StatesRead(tps.clone(), paths.clone()).into());
                c.push_front(steps);
                return Exec::Done;
            }
            Step::StatesRead(tps, paths) => {
                c.isr_states_read(tps, paths.clone(), io);
                return Exec::Done;
            }
            Step::ReadState(tp) => ZkOp::GetData { path: tp.state_path(), watch: false },
            Step::ReadNotifications => ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true },
            Step::ReadNotificationData(paths) => ZkOp::GetDataMany { paths: paths.clone() },
            Step::ReadStates(tps, _) => ZkOp::GetDataMany { paths: tps.iter().map(|t| t.state_path()).collect() },
            Step::DeleteNotifications(paths) => ZkOp::Multi {
                ops: paths.iter().map(|path| MultiOp::Delete { path: path.clone(), version: -1 }).collect(),
            },
        })
    }

    /// The response half.
    pub(super) fn on_response(self, c: &mut Controller, result: ZkResult, io: &mut ControllerIo) {
        match self {
            Step::ReadNotifications => {
                let names = children(&result);
                if !names.is_empty() {
                    let paths = names.iter().map(|n| format!("/isr_change_notification/{n}")).collect();
                    c.then(Step::ReadNotificationData(paths));
                }
            }
            Step::ReadNotificationData(paths) => {
                let mut tps = BTreeSet::new();
                if let ZkResult::DataMany { items } = &result {
                    for item in items.iter().flatten() {
                        if let (ZData::IsrChange { partitions }, _) = item {
                            tps.extend(partitions.iter().cloned());
                        }
                    }
                }
                c.then(Step::ReadStates(tps.into_iter().collect(), paths));
            }
            Step::ReadStates(tps, paths) => {
                if let ZkResult::DataMany { items } = &result {
                    for (tp, item) in tps.iter().zip(items) {
                        if let Some((ZData::PartitionState { state }, stat)) = item {
                            c.cache_isr_state(tp, state.clone(), stat.version);
                        }
                    }
                }
                c.isr_states_read(&tps, paths, io);
            }
            Step::ReadState(tp) => {
                if let ZkResult::Data { data: ZData::PartitionState { state }, stat } = result {
                    c.cache_isr_state(&tp, state, stat.version);
                }
            }
            Step::DeleteNotifications(_) | Step::DeleteNotificationsEach(_) | Step::StatesRead(..) => {}
        }
    }
}

impl Controller {
    /// `updateLeaderAndIsrCache` for one partition; UpdateMetadata will carry it.
    fn cache_isr_state(&mut self, tp: &TopicPartition, state: crate::znodes::LeaderIsr, version: i32) {
        self.ctx.cache(tp.clone(), Cached { state, zk_version: version });
        self.batch.um.insert(tp.clone());
    }

    /// The notified partitions' states are cached: send UpdateMetadata, then delete the
    /// notifications.
    fn isr_states_read(&mut self, tps: &[TopicPartition], paths: Vec<String>, io: &mut ControllerIo) {
        io.log(EventKind::Info, || format!("Processed ISR change notification for {}", short_list(tps)));
        self.flush(io);
        self.then(if io.cfg.behaviour().pipelined_notification_deletes {
            Step::DeleteNotificationsEach(paths)
        } else {
            Step::DeleteNotifications(paths)
        });
    }
}
