//! A leader's own ISR writes (`Partition.maybeShrinkIsr` / `maybeExpandIsr` → `updateIsr`), retried at
//! every isr-expiration run while refused ([`ISR_REFUSAL_REPEATS`] times in the model, forever in
//! Kafka), and the batched ISR change notifications of `ReplicaManager.maybePropagateIsrChanges`.
use super::{Broker, LocalPartition};
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::{fmt_ids, BrokerId, TopicPartition};
use crate::scenario::Config;
use crate::zk_client::Purpose;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use alloc::format;
use alloc::rc::Rc;
use alloc::vec::Vec;

/// Which followers of a partition this broker leads fetch from it now, as the world observes
/// them (alive, linked both ways with the leader, following it for the partition): bit `j` is set
/// when `replicas[j]` does (the same answer at every place a broker has; a partition has at most
/// one replica a broker, 9 brokers at most). The leader's own bit need not be set. Asked with the
/// partition's place among the broker's `partitions` (where the followers usually have it too).
pub type Fetching<'a> = dyn FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + 'a;

/// How many refused ISR writes in a row (one per isr-expiration run, 5 s apart) the model shows
/// before it stops retrying: Kafka retries forever, which would flood a two-day run with steps.
pub const ISR_REFUSAL_REPEATS: u32 = 12;

/// The `isr-change-propagation` task's period (1.0.0 `ReplicaManager.scala:322`).
pub const ISR_PROPAGATION_PERIOD_MS: u64 = 2500;
/// `ReplicaManager.IsrChangePropagationBlackOut`.
pub const ISR_CHANGE_BLACKOUT_MS: u64 = 5000;
/// `ReplicaManager.IsrChangePropagationInterval`.
pub const ISR_PROPAGATION_INTERVAL_MS: u64 = 60000;

impl Broker {
    /// Given which followers fetch now (`fetching`, observed by the world, see [`Fetching`]): when
    /// an ISR check is due — a follower fell out (after `replica.lag.time.max.ms`,
    /// `Partition.maybeShrinkIsr`) or caught up (after 1 s, `maybeExpandIsr`) and none is
    /// scheduled — its delay. Pure, so the world asks every step without copying the broker;
    /// [`Broker::schedule_isr_check`] acts.
    /// Generic over `fetching` (the world's, inlined; or a [`Fetching`]).
    pub fn isr_check_due<F>(&self, fetching: &mut F, cfg: &Config) -> Option<u64>
    where
        F: FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + ?Sized,
    {
        if !self.alive || self.isr_check_pending {
            return None;
        }
        // Without a copy of the changes: most steps change no ISR (a changed one is built in two
        // buffers reused from partition to partition).
        let (mut any, mut retry, mut shrink) = (false, true, false);
        let (mut isr, mut want) = (Vec::new(), Vec::new());
        for (i, (tp, lp)) in self.partitions.iter().enumerate().filter(|(_, (_, lp))| lp.is_leader) {
            if !self.desired_isr_of(i, tp, lp, fetching, &mut isr, &mut want) {
                continue;
            }
            any = true;
            // A write that failed is tried again at the next run of the isr-expiration task, every
            // replica.lag.time.max.ms / 2 (1.0.0 ReplicaManager.scala:321): Partition.updateIsr
            // logs "Cached zkVersion … skip updating ISR" each time (1.0.0 Partition.scala:560-573).
            retry &= lp.isr_write_failed_at == Some(lp.zk_version);
            shrink |= isr.len() < lp.isr.len();
        }
        if !any {
            return None;
        }
        Some(if retry {
            cfg.replica_lag_ms / 2
        } else if shrink {
            cfg.replica_lag_ms
        } else {
            1000
        })
    }

    /// The partitions whose ISR write to ZooKeeper awaits its response.
    pub fn isr_writes_in_flight(&self) -> impl Iterator<Item = &TopicPartition> {
        self.zk.outstanding.values().filter_map(|o| match &o.purpose {
            Purpose::IsrUpdate { tp, .. } => Some(tp),
            _ => None,
        })
    }

    /// Schedules the ISR check [`Broker::isr_check_due`] asked for.
    pub fn schedule_isr_check(&mut self, after_ms: u64, out: &mut Outbox) {
        self.isr_check_pending = true;
        out.timer(after_ms, Timer::IsrCheck);
    }

    /// The ISR each led partition should have, given which followers are caught up.
    pub fn desired_isr(&self, fetching: &mut Fetching<'_>) -> Vec<(TopicPartition, Vec<BrokerId>)> {
        let (mut isr, mut want) = (Vec::new(), Vec::new());
        let mut changes = Vec::new();
        for (i, (tp, lp)) in self.partitions.iter().enumerate() {
            if self.desired_isr_of(i, tp, lp, fetching, &mut isr, &mut want) {
                changes.push((tp.clone(), isr.clone()));
            }
        }
        changes
    }

    /// Whether one partition should have another ISR (this broker leads it and the ISR it should
    /// have differs from its ISR): then that ISR is left in `isr` (`want` is a buffer).
    #[allow(clippy::manual_contains)] // see `same`
    fn desired_isr_of<F>(
        &self,
        i: usize,
        tp: &TopicPartition,
        lp: &LocalPartition,
        fetching: &mut F,
        isr: &mut Vec<BrokerId>,
        want: &mut Vec<BrokerId>,
    ) -> bool
    where
        F: FnMut(usize, &TopicPartition, &LocalPartition) -> u64 + ?Sized,
    {
        if !lp.is_leader || (lp.isr_write_failed_at == Some(lp.zk_version) && lp.isr_refusals >= ISR_REFUSAL_REPEATS) {
            return false;
        }
        // Which replicas fetch, asked once for the partition (a bit per place in `replicas`, at
        // most 9 places: one per broker).
        debug_assert!(lp.replicas.len() <= 64, "{tp}: more than 64 replicas");
        let fetch = fetching(i, tp, lp);
        let fetches = |j: usize| fetch >> j & 1 == 1;
        // A replica is wanted when it is the leader or fetches from it (asked at its place among
        // the replicas: every place of one broker has its bit).
        let wanted_at = |j: usize| lp.replicas[j] == self.id || fetches(j);
        // The ISR stays as it is exactly when it holds the leader, every member is a replica
        // still wanted, and every wanted replica is a member.
        // (`iter().any`, not `contains`: its chunked search of integers costs more on a few ids.)
        let same = lp.isr.iter().any(|m| *m == self.id)
            && lp.isr.iter().all(|r| lp.replicas.iter().position(|x| x == r).is_some_and(wanted_at))
            && lp.replicas.iter().enumerate().all(|(j, r)| lp.isr.iter().any(|m| m == r) || !wanted_at(j));
        // Nor while a write of this partition's ISR awaits its answer (asked only when the ISR
        // would change: both answers are "nothing to write").
        if same || self.zk.has(|p| matches!(p, Purpose::IsrUpdate { tp: t, .. } if t == tp)) {
            return false;
        }
        want.clear();
        want.extend(lp.replicas.iter().enumerate().filter(|(j, _)| wanted_at(*j)).map(|(_, r)| *r));
        // Keep the leader's ISR order for replicas that stay; append the ones that catch up.
        isr.clear();
        isr.extend(lp.isr.iter().copied().filter(|r| want.contains(r)));
        want.retain(|r| !isr.contains(r));
        isr.extend_from_slice(want);
        if !isr.contains(&self.id) {
            isr.insert(0, self.id);
        }
        *isr != lp.isr
    }

    /// `Partition.maybeShrinkIsr` / `maybeExpandIsr`: write the new ISR with the cached zkVersion.
    pub fn isr_check(&mut self, fetching: &mut Fetching<'_>, out: &mut Outbox) {
        self.isr_check_pending = false;
        for (tp, isr) in self.desired_isr(fetching) {
            let lp = &self.partitions[&tp];
            let data = ZData::PartitionState {
                state: LeaderIsr {
                    leader: self.id,
                    leader_epoch: lp.leader_epoch,
                    isr: isr.clone(),
                    controller_epoch: lp.controller_epoch,
                },
            };
            out.log(EventKind::IsrChange, || {
                format!(
                    "[Partition {tp} broker={}] {} ISR from {} to {}",
                    self.id,
                    if isr.len() < lp.isr.len() { "Shrinking" } else { "Expanding" },
                    fmt_ids(lp.isr.iter().copied()),
                    fmt_ids(isr.iter().copied())
                )
            });
            let op = ZkOp::SetData { path: tp.state_path(), data, version: lp.zk_version };
            self.zk.send(op, Purpose::IsrUpdate { tp, isr }, out);
        }
    }

    pub(super) fn on_isr_write(&mut self, tp: &TopicPartition, isr: Vec<BrokerId>, result: ZkResult, out: &mut Outbox) {
        self.partitions_stamp.0 += 1;
        let Some(lp) = Rc::make_mut(&mut self.partitions).get_mut(tp) else { return };
        match result {
            ZkResult::Written { stat } => {
                lp.isr = isr;
                lp.zk_version = stat.version;
                out.log(EventKind::IsrChange, || {
                    format!(
                        "[Partition {tp} broker={}] ISR updated to [{}] and zkVersion updated to [{}]",
                        self.id,
                        fmt_ids(lp.isr.iter().copied()),
                        stat.version
                    )
                });
                self.record_isr_change(tp, out);
            }
            ZkResult::Error { code } => {
                lp.isr_refusals = if lp.isr_write_failed_at == Some(lp.zk_version) { lp.isr_refusals + 1 } else { 1 };
                lp.isr_write_failed_at = Some(lp.zk_version);
                let why = if code == ZkError::BadVersion {
                    format!("Cached zkVersion [{}] not equal to that in zookeeper, skip updating ISR", lp.zk_version)
                } else {
                    format!("ISR update failed with {}", code.name())
                };
                out.log(EventKind::IsrChange, || format!("[Partition {tp} broker={}] {why}", self.id));
                if lp.isr_refusals >= ISR_REFUSAL_REPEATS {
                    out.log(
                        EventKind::Info,
                        || format!(
                            "[Partition {tp} broker={}] (Kafka keeps retrying and logging this every replica.lag.time.max.ms/2 until a LeaderAndIsr brings a new zkVersion; the model stops after {ISR_REFUSAL_REPEATS} refusals to keep the trace finite)",
                            self.id
                        ),
                    );
                }
                out.mark(crate::mark::Mark::IsrUpdateRefused {
                    broker: self.id,
                    partition: tp.clone(),
                    cached_zk_version: lp.zk_version,
                    code: code.name().into(),
                });
            }
            _ => {}
        }
    }

    /// `ReplicaManager.recordIsrChange` (1.0.0 `ReplicaManager.scala:255-260`): remember the
    /// partition for the next propagation; make sure the propagation task will run.
    pub(super) fn record_isr_change(&mut self, tp: &TopicPartition, out: &mut Outbox) {
        self.isr_change_set.insert(tp.clone());
        self.last_isr_change_ms = self.now_ms;
        self.schedule_isr_propagation(out);
    }

    /// The next run of the `isr-change-propagation` task (every 2.5 s from the process start,
    /// 1.0.0 `ReplicaManager.scala:322`).
    fn schedule_isr_propagation(&mut self, out: &mut Outbox) {
        if self.isr_propagation_pending {
            return;
        }
        self.isr_propagation_pending = true;
        let into = self.now_ms.saturating_sub(self.started_ms) % ISR_PROPAGATION_PERIOD_MS;
        out.timer(ISR_PROPAGATION_PERIOD_MS - into, Timer::IsrPropagation);
    }

    /// `ReplicaManager.maybePropagateIsrChanges` (1.0.0 `ReplicaManager.scala:262-280`): when
    /// changes are pending and none came in the last 5 s (`IsrChangePropagationBlackOut`, :134) or
    /// the last propagation is over 60 s old (`IsrChangePropagationInterval`, :135), write them all
    /// in one sequential `/isr_change_notification/isr_change_` znode
    /// (`ReplicationUtils.propagateIsrChanges`, 1.0.0 `ReplicationUtils.scala:42-47`).
    pub fn maybe_propagate_isr_changes(&mut self, out: &mut Outbox) {
        self.isr_propagation_pending = false;
        if self.isr_change_set.is_empty() {
            return;
        }
        let now = self.now_ms;
        let quiet = self.last_isr_change_ms + ISR_CHANGE_BLACKOUT_MS < now;
        let overdue = self.last_isr_propagation_ms.is_none_or(|t| t + ISR_PROPAGATION_INTERVAL_MS < now);
        if !(quiet || overdue) {
            self.schedule_isr_propagation(out);
            return;
        }
        let partitions: Vec<TopicPartition> = core::mem::take(&mut self.isr_change_set).into_iter().collect();
        self.last_isr_propagation_ms = Some(now);
        out.mark(crate::mark::Mark::IsrChangesPropagated { broker: self.id, partitions: partitions.clone() });
        self.zk.send(
            ZkOp::Create {
                path: "/isr_change_notification/isr_change_".into(),
                data: ZData::IsrChange { partitions },
                ephemeral: false,
                sequential: true,
            },
            Purpose::IsrNotify,
            out,
        );
    }
}
