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

/// A message formatted only when the world renders (`World::set_render`); empty otherwise.
fn text(render: bool, f: impl FnOnce() -> String) -> String {
    if render {
        f()
    } else {
        String::new()
    }
}

/// Every alert that holds now, in a stable order, computed from scratch (`memo`: the
/// cache-divergence findings of the last call, updated). [`Incremental`] gives the same answer
/// from what a step touched; this is the reference it is checked against.
pub(crate) fn check<'a>(
    zk: &DataTree,
    brokers: impl Iterator<Item = &'a Rc<Broker>> + Clone,
    consumers: impl Iterator<Item = &'a Rc<Consumer>>,
    memo: &mut DivergenceMemo,
    render: bool,
) -> Vec<Alert> {
    let mut out = Vec::new();
    multiple_controllers(&acting(brokers.clone()), render, &mut out);
    leaderless_in_tree(zk, render, &mut out);
    divergences(zk, brokers, memo, None, render, &mut out);
    no_coordinator(consumers, render, &mut out);
    out
}

/// The live brokers acting as controller.
fn acting<'a>(brokers: impl Iterator<Item = &'a Rc<Broker>>) -> Vec<BrokerId> {
    brokers.filter(|b| b.alive && b.is_active()).map(|b| b.id).collect()
}

fn multiple_controllers(acting: &[BrokerId], render: bool, out: &mut Vec<Alert>) {
    if acting.len() > 1 {
        out.push(Alert {
            kind: AlertKind::MultipleControllers,
            key: String::from("multiple_controllers"),
            message: text(render, || {
                format!("{} brokers act as controller: {} (split brain)", acting.len(), fmt_ids(acting.iter().copied()))
            }),
        });
    }
}

/// Leaderless partitions with a registered ISR member, in the tree's path order.
fn leaderless_in_tree(zk: &DataTree, render: bool, out: &mut Vec<Alert>) {
    let registered: BTreeSet<BrokerId> = zk.children("/brokers/ids").iter().filter_map(|s| s.parse().ok()).collect();
    for (path, node) in zk.nodes() {
        if let ZData::PartitionState { state } = &node.data {
            leaderless(
                || TopicPartition::from_state_path(path).unwrap_or_else(|| TopicPartition::new(path, 0)),
                state.leader,
                &state.isr,
                &registered,
                "alive",
                render,
                out,
            );
        }
    }
}

/// Cache divergence of every active, loaded controller, in broker order. `unchanged`: brokers
/// (and the tree) known unchanged since the memo was made, whose finding is taken as it is.
fn divergences<'a>(
    zk: &DataTree,
    brokers: impl Iterator<Item = &'a Rc<Broker>>,
    memo: &mut DivergenceMemo,
    unchanged: Option<&dyn Fn(BrokerId) -> bool>,
    render: bool,
    out: &mut Vec<Alert>,
) {
    let mut seen = DivergenceMemo::new();
    for b in brokers.filter(|b| b.alive && b.is_active() && b.controller.ctx.loaded) {
        if let (Some(d), Some(true)) = (memo.get(&b.id), unchanged.map(|u| u(b.id))) {
            out.extend(d.alert.clone());
            seen.insert(b.id, d.clone());
            continue;
        }
        let writing = b.controller.job.as_ref().map(|j| j.writing()).unwrap_or_default();
        let leadership = &b.controller.ctx.leadership;
        let d = match memo.get(&b.id) {
            Some(d)
                if d.version == zk.brokers_version()
                    && d.writing == writing
                    && (Rc::ptr_eq(&d.leadership, leadership) || d.leadership == *leadership) =>
            {
                d.clone()
            }
            _ => Rc::new(Divergence {
                version: zk.brokers_version(),
                leadership: leadership.clone(),
                alert: cache_divergence(zk, b.id, leadership, &writing, render),
                writing,
            }),
        };
        out.extend(d.alert.clone());
        seen.insert(b.id, d);
    }
    *memo = seen;
}

/// What a step changed that the alerts read, collected by the world while the step runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Touched {
    /// Brokers whose state was written (through `World::broker_mut`), in first-touch order.
    pub brokers: Vec<BrokerId>,
    /// A consumer's state was written.
    pub consumers: bool,
    /// The network changed.
    pub net: bool,
}

impl Touched {
    /// Notes a broker written.
    pub fn broker(&mut self, id: BrokerId) {
        if !self.brokers.contains(&id) {
            self.brokers.push(id);
        }
    }

    /// Nothing touched.
    pub fn clear(&mut self) {
        self.brokers.clear();
        self.consumers = false;
        self.net = false;
    }
}

/// The alerts of the last step by section, each recomputed only when what it reads changed: the
/// acting controllers when a broker was written; the leaderless partitions when the tree the
/// alerts read (server and [`DataTree::brokers_version`]) changed; a controller's cache divergence when the tree or a
/// broker changed (and then only if its cache, the partitions it writes or the tree differ from
/// its last finding, [`Divergence`]); the groups without coordinator when a consumer changed.
/// The concatenation is, section for section, what [`check`] computes from scratch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Incremental {
    acting: Vec<BrokerId>,
    multi: Vec<Alert>,
    tree: Option<(crate::ids::NodeId, u64)>,
    leaderless: Vec<Alert>,
    divergence_memo: DivergenceMemo,
    divergence: Vec<Alert>,
    coordinator: Vec<Alert>,
    render: bool,
}

impl Incremental {
    /// Brings the sections up to date after a step; `None` when no alert (nor its text) changed,
    /// otherwise every alert that holds now, in [`check`]'s order. `tree` names the tree read
    /// (the server it is on and its `brokers_version`). `touched: None` recomputes everything.
    pub(crate) fn update(
        &mut self,
        tree: (crate::ids::NodeId, u64),
        zk: &DataTree,
        brokers: &BTreeMap<BrokerId, Rc<Broker>>,
        consumers: &BTreeMap<u32, Rc<Consumer>>,
        touched: Option<&Touched>,
        render: bool,
    ) -> Option<Vec<Alert>> {
        let all = touched.is_none() || render != self.render;
        self.render = render;
        let brokers_changed = all || touched.is_some_and(|t| !t.brokers.is_empty());
        let tree_changed = all || self.tree != Some(tree);
        let mut changed = false;
        if brokers_changed {
            let acting = acting(brokers.values());
            if all || acting != self.acting {
                let mut multi = Vec::new();
                multiple_controllers(&acting, render, &mut multi);
                changed |= multi != self.multi;
                self.multi = multi;
                self.acting = acting;
            }
        }
        if tree_changed {
            let mut l = Vec::new();
            leaderless_in_tree(zk, render, &mut l);
            changed |= l != self.leaderless;
            self.leaderless = l;
            self.tree = Some(tree);
        }
        if brokers_changed || tree_changed {
            if all {
                self.divergence_memo.clear();
            }
            let mut d = Vec::new();
            let unchanged = |id: BrokerId| !tree_changed && touched.is_some_and(|t| !t.brokers.contains(&id));
            divergences(zk, brokers.values(), &mut self.divergence_memo, Some(&unchanged), render, &mut d);
            changed |= d != self.divergence;
            self.divergence = d;
        }
        if all || touched.is_some_and(|t| t.consumers) {
            let mut c = Vec::new();
            no_coordinator(consumers.values(), render, &mut c);
            changed |= c != self.coordinator;
            self.coordinator = c;
        }
        changed.then(|| {
            let mut out = Vec::with_capacity(
                self.multi.len() + self.leaderless.len() + self.divergence.len() + self.coordinator.len(),
            );
            out.extend(self.multi.iter().cloned());
            out.extend(self.leaderless.iter().cloned());
            out.extend(self.divergence.iter().cloned());
            out.extend(self.coordinator.iter().cloned());
            out
        })
    }
}

/// What the cache-divergence check last found for one active controller, with everything it
/// depends on: the tree's `brokers_version` (bumped by every change under `/brokers/`, the only
/// znodes it reads; replicas apply one order of transactions, so equal counts mean equal
/// contents there), the controller's leadership
/// cache and the partition it is writing. While those are equal the finding is too, so it is not
/// looked up again (the check is most of a step's cost otherwise).
#[derive(Clone, Debug, Hash)]
pub(crate) struct Divergence {
    version: u64,
    /// The cache it was computed from, shared: a controller's cache changes through
    /// `Rc::make_mut`, which copies it while this memo holds it, so an unchanged cache is the
    /// same pointer.
    leadership: Rc<BTreeMap<TopicPartition, Cached>>,
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
    render: bool,
) -> Option<Alert> {
    let mut diffs = Vec::new();
    let mut path = String::with_capacity(64);
    for (tp, c) in leadership.iter().filter(|(tp, _)| !writing.contains(tp)) {
        path.clear();
        tp.write_state_path(&mut path);
        if let Some(ZData::PartitionState { state }) = zk.get(&path).map(|n| &n.data) {
            if state.leader != c.state.leader || state.isr != c.state.isr || state.leader_epoch != c.state.leader_epoch
            {
                diffs.push(text(render, || {
                    format!("{tp}: cache {} vs ZooKeeper {}", leader_isr_json(&c.state), leader_isr_json(state))
                }));
            }
        }
    }
    if diffs.is_empty() {
        return None;
    }
    let n = diffs.len();
    Some(Alert {
        kind: AlertKind::CacheDivergence,
        key: format!("cache_divergence:{id}"),
        message: text(render, || {
            let mut shown: Vec<String> = diffs.into_iter().take(3).collect();
            if n > 3 {
                shown.push(format!("and {} more", n - 3));
            }
            format!("controller {id}'s cache disagrees with ZooKeeper on {n} partition(s): {}", shown.join("; "))
        }),
    })
}

/// The same properties in `kraft` mode: two voters leading one epoch (never legal in Raft); a
/// committed partition with leader -1 while an unfenced broker is in its ISR; a group without
/// a coordinator.
pub fn check_kraft<'a>(
    k: &crate::kraft::Kraft,
    consumers: impl Iterator<Item = &'a Rc<Consumer>>,
    render: bool,
) -> Vec<Alert> {
    let mut out = Vec::new();
    for (epoch, leaders) in &k.epoch_leaders {
        if leaders.len() > 1 {
            out.push(Alert {
                kind: AlertKind::MultipleControllers,
                key: format!("multiple_leaders:{epoch}"),
                message: text(render, || {
                    format!("{} voters were elected leader of epoch {epoch} (Raft allows one)", leaders.len())
                }),
            });
        }
    }
    let img = k.image();
    let live = img.live();
    for (tp, p) in &img.partitions {
        leaderless(|| tp, p.leader, &p.isr, &live, "unfenced", render, &mut out);
    }
    no_coordinator(consumers, render, &mut out);
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
    render: bool,
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
            message: text(render, || {
                format!("{tp} has leader -1 although ISR member(s) {} are {live_word}", fmt_ids(alive))
            }),
        });
    }
}

/// A group whose consumer gets COORDINATOR_NOT_AVAILABLE (the same in every mode).
fn no_coordinator<'a>(consumers: impl Iterator<Item = &'a Rc<Consumer>>, render: bool, out: &mut Vec<Alert>) {
    for c in consumers.filter(|c| c.status == ConsumerStatus::CoordinatorNotAvailable) {
        out.push(Alert {
            kind: AlertKind::NoCoordinator,
            key: format!("no_coordinator:{}", c.group),
            message: text(render, || {
                format!(
                    "group '{}' has no coordinator: __consumer_offsets-{} has no live leader (COORDINATOR_NOT_AVAILABLE, {} attempts)",
                    c.group, c.partition, c.attempts
                )
            }),
        });
    }
}
