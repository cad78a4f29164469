//! Properties checked after every step and reported as alerts (never panics): more than one
//! broker acting as controller; a partition with leader -1 while a replica in its ISR is alive; an
//! active controller whose cache disagrees with ZooKeeper; a consumer group without a coordinator.
use crate::broker::Broker;
use crate::consumer::{Consumer, ConsumerStatus};
use crate::controller::{leader_isr_json, Cached};
use crate::ids::{fmt_ids, BrokerId, TopicPartition, NO_LEADER};
use crate::zookeeper::{DataTree, ZData};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Display;
use serde::{Deserialize, Serialize};

/// Which property is violated.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// More than one live broker has `isActive` (split brain).
    MultipleControllers,
    /// A partition has leader -1 in ZooKeeper while an ISR member is registered.
    LeaderlessWithLiveIsr,
    /// An active controller's `partitionLeadershipInfo` differs from the state znodes.
    CacheDivergence,
    /// A consumer gets COORDINATOR_NOT_AVAILABLE.
    NoCoordinator,
}

/// One active alert.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Alert {
    /// Property.
    pub kind: AlertKind,
    /// Stable identity (kind plus subject) to tell raised from cleared.
    pub key: String,
    /// Human text.
    pub message: String,
}

/// Every alert that holds now, in a stable order (`memo`: the cache-divergence findings of the
/// last call, updated).
pub(crate) fn check<'a>(
    zk: &DataTree,
    brokers: impl Iterator<Item = &'a Rc<Broker>> + Clone,
    consumers: impl Iterator<Item = &'a Rc<Consumer>>,
    memo: &mut DivergenceMemo,
) -> Vec<Alert> {
    let mut out = Vec::new();
    let acting: Vec<BrokerId> = brokers.clone().filter(|b| b.alive && b.is_active()).map(|b| b.id).collect();
    if acting.len() > 1 {
        out.push(Alert {
            kind: AlertKind::MultipleControllers,
            key: String::from("multiple_controllers"),
            message: format!(
                "{} brokers act as controller: {} (split brain)",
                acting.len(),
                fmt_ids(acting.iter().copied())
            ),
        });
    }
    let registered: BTreeSet<BrokerId> = zk.children("/brokers/ids").iter().filter_map(|s| s.parse().ok()).collect();
    for (path, node) in zk.nodes() {
        if let ZData::PartitionState { state } = &node.data {
            leaderless(|| tp_of(path), state.leader, &state.isr, &registered, "alive", &mut out);
        }
    }
    let mut seen = DivergenceMemo::new();
    for b in brokers.filter(|b| b.alive && b.is_active() && b.controller.ctx.loaded) {
        let writing = b.controller.job.as_ref().map(|j| j.writing()).unwrap_or_default();
        let leadership = &b.controller.ctx.leadership;
        let d = match memo.get(&b.id) {
            Some(d) if d.zxid == zk.zxid() && d.writing == writing && d.leadership == *leadership => d.clone(),
            _ => Rc::new(Divergence {
                zxid: zk.zxid(),
                leadership: leadership.clone(),
                writing: writing.clone(),
                alert: cache_divergence(zk, b.id, leadership, &writing),
            }),
        };
        out.extend(d.alert.clone());
        seen.insert(b.id, d);
    }
    *memo = seen;
    no_coordinator(consumers, &mut out);
    out
}

/// What the cache-divergence check last found for one active controller, with everything it
/// depends on: ZooKeeper's zxid (bumped by every znode change), the controller's leadership
/// cache and the partition it is writing. While those are equal the finding is too, so it is not
/// looked up again (the check is most of a step's cost otherwise).
#[derive(Clone, Debug, Hash)]
pub(crate) struct Divergence {
    zxid: u64,
    leadership: BTreeMap<TopicPartition, Cached>,
    writing: Vec<TopicPartition>,
    alert: Option<Alert>,
}

/// The last findings by controller; see [`Divergence`].
pub(crate) type DivergenceMemo = BTreeMap<BrokerId, Rc<Divergence>>;

/// An active controller's `partitionLeadershipInfo` differing from the state znodes (leaving out
/// the partition it is writing).
fn cache_divergence(
    zk: &DataTree,
    id: BrokerId,
    leadership: &BTreeMap<TopicPartition, Cached>,
    writing: &[TopicPartition],
) -> Option<Alert> {
    let mut diffs = Vec::new();
    for (tp, c) in leadership.iter().filter(|(tp, _)| !writing.contains(tp)) {
        if let Some(ZData::PartitionState { state }) = zk.get(&tp.state_path()).map(|n| &n.data) {
            if state.leader != c.state.leader || state.isr != c.state.isr || state.leader_epoch != c.state.leader_epoch
            {
                diffs.push(format!(
                    "{tp}: cache {} vs ZooKeeper {}",
                    leader_isr_json(&c.state),
                    leader_isr_json(state)
                ));
            }
        }
    }
    if diffs.is_empty() {
        return None;
    }
    let n = diffs.len();
    let mut shown: Vec<String> = diffs.into_iter().take(3).collect();
    if n > 3 {
        shown.push(format!("and {} more", n - 3));
    }
    Some(Alert {
        kind: AlertKind::CacheDivergence,
        key: format!("cache_divergence:{id}"),
        message: format!("controller {id}'s cache disagrees with ZooKeeper on {n} partition(s): {}", shown.join("; ")),
    })
}

/// The same properties in `kraft` mode: two voters leading one epoch (never legal in Raft); a
/// committed partition with leader -1 while an unfenced broker is in its ISR; a group without
/// a coordinator.
pub fn check_kraft<'a>(k: &crate::kraft::Kraft, consumers: impl Iterator<Item = &'a Rc<Consumer>>) -> Vec<Alert> {
    let mut out = Vec::new();
    for (epoch, leaders) in &k.epoch_leaders {
        if leaders.len() > 1 {
            out.push(Alert {
                kind: AlertKind::MultipleControllers,
                key: format!("multiple_leaders:{epoch}"),
                message: format!("{} voters were elected leader of epoch {epoch} (Raft allows one)", leaders.len()),
            });
        }
    }
    let img = k.image();
    let live = img.live();
    for (tp, p) in &img.partitions {
        leaderless(|| tp, p.leader, &p.isr, &live, "unfenced", &mut out);
    }
    no_coordinator(consumers, &mut out);
    out
}

/// A partition with leader -1 while an ISR member is `live` (registered in ZooKeeper, unfenced in
/// KRaft; `live_word` says which): the same test in every mode. `tp` is named only for an alert.
fn leaderless<T: Display>(
    tp: impl FnOnce() -> T,
    leader: BrokerId,
    isr: &[BrokerId],
    live: &BTreeSet<BrokerId>,
    live_word: &str,
    out: &mut Vec<Alert>,
) {
    if leader != NO_LEADER {
        return;
    }
    let alive: Vec<BrokerId> = isr.iter().copied().filter(|r| live.contains(r)).collect();
    if !alive.is_empty() {
        let tp = tp();
        out.push(Alert {
            kind: AlertKind::LeaderlessWithLiveIsr,
            key: format!("leaderless:{tp}"),
            message: format!("{tp} has leader -1 although ISR member(s) {} are {live_word}", fmt_ids(alive)),
        });
    }
}

/// A group whose consumer gets COORDINATOR_NOT_AVAILABLE (the same in every mode).
fn no_coordinator<'a>(consumers: impl Iterator<Item = &'a Rc<Consumer>>, out: &mut Vec<Alert>) {
    for c in consumers.filter(|c| c.status == ConsumerStatus::CoordinatorNotAvailable) {
        out.push(Alert {
            kind: AlertKind::NoCoordinator,
            key: format!("no_coordinator:{}", c.group),
            message: format!(
                "group '{}' has no coordinator: __consumer_offsets-{} has no live leader (COORDINATOR_NOT_AVAILABLE, {} attempts)",
                c.group, c.partition, c.attempts
            ),
        });
    }
}

fn tp_of(state_path: &str) -> TopicPartition {
    // /brokers/topics/<t>/partitions/<p>/state
    let parts: Vec<&str> = state_path.split('/').collect();
    let topic = parts.get(3).copied().unwrap_or("");
    let p = parts.get(5).and_then(|s| s.parse().ok()).unwrap_or(0);
    TopicPartition::new(topic, p)
}
