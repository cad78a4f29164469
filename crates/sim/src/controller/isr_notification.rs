//! `IsrChangeNotification` (1.0): a leader that changed an ISR writes a sequential
//! `/isr_change_notification/isr_change_` znode; the controller reads the notifications, re-reads the
//! named partitions' state znodes into its cache (`updateLeaderAndIsrCache`), sends UpdateMetadata
//! for them, and deletes the notifications.
use super::{children, short_list, Cached, Controller, ControllerIo, Exec};
use crate::event::EventKind;
use crate::ids::TopicPartition;
use crate::zookeeper::{MultiOp, ZData, ZkOp, ZkResult};
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A micro-step of `IsrChangeNotification`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) enum Step {
    /// The children of `/isr_change_notification`…
    ReadNotifications,
    /// …their data (the partitions each names)…
    ReadNotificationData(Vec<String>),
    /// …the named partitions' state znodes (the notification paths, to delete afterwards)…
    ReadStates(Vec<TopicPartition>, Vec<String>),
    /// …and `deleteIsrChangeNotifications`.
    DeleteNotifications(Vec<String>),
}

impl Step {
    pub(super) fn name(&self) -> String {
        "IsrChangeNotification".into()
    }

    /// The request half.
    pub(super) fn request(self, _c: &mut Controller, _io: &mut ControllerIo) -> Exec {
        Exec::Wait(match self {
            Step::ReadNotifications => ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true },
            Step::ReadNotificationData(paths) => ZkOp::GetDataMany { paths },
            Step::ReadStates(tps, _) => ZkOp::GetDataMany { paths: tps.iter().map(|t| t.state_path()).collect() },
            Step::DeleteNotifications(paths) => {
                ZkOp::Multi { ops: paths.into_iter().map(|path| MultiOp::Delete { path, version: -1 }).collect() }
            }
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
                            c.ctx
                                .leadership
                                .insert(tp.clone(), Cached { state: state.clone(), zk_version: stat.version });
                            c.batch.um.insert(tp.clone());
                        }
                    }
                }
                io.log(EventKind::Info, format!("Processed ISR change notification for {}", short_list(&tps)));
                c.flush(io);
                c.then(Step::DeleteNotifications(paths));
            }
            Step::DeleteNotifications(_) => {}
        }
    }
}
