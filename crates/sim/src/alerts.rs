//! Properties checked after every step and reported as alerts (never panics): more than one
//! broker acting as controller; a partition with leader -1 while a replica in its ISR is alive; an
//! active controller whose cache disagrees with ZooKeeper; a consumer group without a coordinator.
use crate::broker::Broker;
use crate::consumer::{Consumer, ConsumerStatus};
use crate::controller::Cached;
use crate::ids::{fmt_ids, BrokerId, TopicPartition, NO_LEADER};
use crate::sorted::CollectOrdered;
use crate::vec_map::{VecMap, VecSet};
use crate::znodes::leader_isr_json;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::data_tree::DataTree;
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
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

/// What an alert is about.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash, Default)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    /// The cluster as a whole (an alert read back without its subject).
    #[default]
    Cluster,
    /// The brokers acting as controller at once.
    Controllers(Vec<BrokerId>),
    /// KRaft voters elected leader of one epoch: the epoch.
    Epoch(u64),
    /// One active controller (its cache).
    Controller(BrokerId),
    /// One partition.
    Partition(TopicPartition),
    /// One consumer group.
    Group(String),
}

/// One active alert.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Alert {
    /// Property.
    pub kind: AlertKind,
    /// What it is about, typed (a UI picks and groups alerts by it; never parsed from text). Not
    /// in `run --json`'s summary, whose alerts name it in `key`.
    #[serde(skip_serializing, default)]
    pub subject: Subject,
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
    divergences(zk, brokers, memo, None, render, &mut StatePaths::default());
    out.extend(memo.values().filter_map(|d| d.alert.clone()));
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
            subject: Subject::Controllers(acting.to_vec()),
            key: String::from("multiple_controllers"),
            message: text(render, || {
                format!("{} brokers act as controller: {} (split brain)", acting.len(), fmt_ids(acting.iter().copied()))
            }),
        });
    }
}

/// Leaderless partitions with a registered ISR member, in the tree's path order.
fn leaderless_in_tree(zk: &DataTree, render: bool, out: &mut Vec<Alert>) {
    let registered = registered(zk);
    for (path, node) in zk.nodes() {
        if let ZData::PartitionState { state } = &node.data {
            out.extend(leaderless(
                || TopicPartition::from_state_path(path).unwrap_or_else(|| TopicPartition::new(path, 0)),
                state.leader,
                &state.isr,
                &registered,
                "alive",
                render,
            ));
        }
    }
}

/// State znode paths written into one buffer that keeps the last topic's part: the partitions the
/// alerts look up are mostly one topic's (`__consumer_offsets`), so a path costs its digits.
#[derive(Clone, Debug, Default)]
pub(crate) struct StatePaths {
    buf: String,
    /// The topic `buf` starts with (`/brokers/topics/<topic>/partitions/`, `prefix` bytes).
    topic: Option<crate::ids::Topic>,
    prefix: usize,
}

impl StatePaths {
    /// `tp`'s state znode path ([`TopicPartition::state_path`]).
    fn of(&mut self, tp: &TopicPartition) -> &str {
        if self.topic.as_ref() == Some(&tp.topic) {
            self.buf.truncate(self.prefix);
        } else {
            self.buf.clear();
            TopicPartition::write_state_path_head(&tp.topic, &mut self.buf);
            self.prefix = self.buf.len();
            self.topic = Some(tp.topic.clone());
        }
        TopicPartition::write_state_path_tail(tp.partition, &mut self.buf);
        debug_assert_eq!(self.buf, tp.state_path());
        &self.buf
    }

    /// The partition's state, as its state znode holds it.
    fn state<'z>(&mut self, zk: &'z DataTree, tp: &TopicPartition) -> Option<&'z LeaderIsr> {
        match zk.get(self.of(tp)).map(|n| &n.data) {
            Some(ZData::PartitionState { state }) => Some(state),
            _ => None,
        }
    }
}

/// The brokers registered under `/brokers/ids`.
fn registered(zk: &DataTree) -> VecSet<BrokerId> {
    zk.child_names("/brokers/ids").filter_map(|s| s.parse().ok()).collect_ordered()
}

/// A partition ordered as its state znode's path, `/brokers/topics/<t>/partitions/<p>/state`,
/// orders in the tree: a map keyed by it iterates in [`leaderless_in_tree`]'s order without
/// building a path.
#[derive(Clone, PartialEq, Eq, Debug)]
struct ByStatePath(TopicPartition);

impl Ord for ByStatePath {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        let (a, b) = (&self.0, &other.0);
        if a.topic == b.topic {
            // The paths differ in the partition's digits only, each followed by "/state": as
            // '/' sorts before every digit, they order as the digit strings do.
            let (mut da, mut db) = ([0u8; 20], [0u8; 20]);
            crate::ids::digits(u64::from(a.partition), &mut da).cmp(crate::ids::digits(u64::from(b.partition), &mut db))
        } else {
            a.with_state_path(|pa| b.with_state_path(|pb| pa.cmp(pb)))
        }
    }
}

impl PartialOrd for ByStatePath {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A partition whose state znode says leader -1: its ISR then, and the alert it makes with the
/// registered brokers [`Leaderless::registered`] (`None` if no member is registered).
#[derive(Clone, Debug)]
struct LeaderlessEntry {
    isr: Vec<BrokerId>,
    alert: Option<Alert>,
    /// `isr` changed (or is new) since `alert` was made.
    dirty: bool,
}

/// The leaderless section's memo: every partition whose state znode says leader -1, in the tree's
/// path order, each with its alert, so a step re-reads only the state znodes it changed and
/// remakes only their alerts (all of them when a broker (un)registers).
#[derive(Clone, Debug, Default)]
struct Leaderless {
    entries: VecMap<ByStatePath, LeaderlessEntry>,
    /// The registered brokers the alerts were made with.
    registered: VecSet<BrokerId>,
    /// The tree may have changed `/brokers/ids` since `registered` was read.
    registered_stale: bool,
    /// The tree's `brokers_version` the entries describe.
    at: Option<u64>,
}

impl Leaderless {
    /// Every leader -1 partition of the tree, from scratch (alerts not made yet).
    fn scan(zk: &DataTree) -> VecMap<ByStatePath, LeaderlessEntry> {
        zk.nodes()
            .filter_map(|(path, n)| match &n.data {
                ZData::PartitionState { state } if state.leader == NO_LEADER => Some((path, state)),
                _ => None,
            })
            .filter_map(|(path, state)| {
                let e = LeaderlessEntry { isr: state.isr.clone(), alert: None, dirty: true };
                Some((ByStatePath(TopicPartition::from_state_path(path)?), e))
            })
            .collect_ordered()
    }

    /// Brings the entries to the tree `zk` (from scratch if `all`) and `out`, the alerts they
    /// make in path order, with them; whether `out` changed.
    fn update(&mut self, zk: &DataTree, all: bool, render: bool, paths: &mut StatePaths, out: &mut Vec<Alert>) -> bool {
        let since = self.at.filter(|_| !all);
        let (mut changed, mut dirty, mut fresh) = (false, false, false);
        match (since, since.and_then(|v| zk.state_changes_since(v))) {
            (Some(since), Some(changes)) => {
                let mut n = 0;
                for tp in changes {
                    n += 1;
                    let key = ByStatePath(tp.clone());
                    match paths.state(zk, tp) {
                        Some(s) if s.leader == NO_LEADER => match self.entries.get_mut(&key) {
                            None => {
                                self.entries
                                    .insert(key, LeaderlessEntry { isr: s.isr.clone(), alert: None, dirty: true });
                                dirty = true;
                            }
                            Some(e) => {
                                if e.isr != s.isr {
                                    e.isr.clone_from(&s.isr);
                                    e.dirty = true;
                                    dirty = true;
                                }
                            }
                        },
                        _ => changed |= self.entries.remove(&key).is_some_and(|e| e.alert.is_some()),
                    }
                }
                // Every change under `/brokers/` bumps `brokers_version` once: one that was not a
                // state znode's may have (un)registered a broker.
                self.registered_stale |= n != zk.brokers_version() - since;
            }
            _ => {
                self.entries = Self::scan(zk);
                self.registered_stale = true;
                fresh = true;
                dirty = true;
            }
        }
        self.at = Some(zk.brokers_version());
        // Read `/brokers/ids` only while some partition is leaderless (no alert reads it else).
        if !self.entries.is_empty() && (dirty || self.registered_stale) {
            let mut every = all;
            if self.registered_stale {
                let now = registered(zk);
                every |= now != self.registered;
                self.registered = now;
                self.registered_stale = false;
            }
            for (tp, e) in self.entries.iter_mut().filter(|(_, e)| every || e.dirty) {
                let a = leaderless(|| tp.0.clone(), NO_LEADER, &e.isr, &self.registered, "alive", render);
                changed |= a != e.alert;
                e.alert = a;
                e.dirty = false;
            }
        }
        if fresh {
            let l: Vec<Alert> = self.entries.values().filter_map(|e| e.alert.clone()).collect();
            changed = l != *out;
            *out = l;
        } else if changed {
            out.clear();
            out.extend(self.entries.values().filter_map(|e| e.alert.clone()));
        }
        debug_assert!({
            let mut l = Vec::new();
            leaderless_in_tree(zk, render, &mut l);
            l == *out
        });
        changed
    }
}

/// Brings `memo` to the cache divergence of every active, loaded controller (its entries, in
/// broker order, are the findings then); whether an alert in it changed. `unchanged`: brokers
/// (and the tree) known unchanged since the memo was made, whose finding is taken as it is.
fn divergences<'a>(
    zk: &DataTree,
    brokers: impl Iterator<Item = &'a Rc<Broker>> + Clone,
    memo: &mut DivergenceMemo,
    unchanged: Option<&dyn Fn(BrokerId) -> bool>,
    render: bool,
    paths: &mut StatePaths,
) -> bool {
    // The memo is updated in place: an entry is replaced when its controller's finding is, and
    // the entries of brokers no longer acting are dropped at the end.
    let finding = |b: &&Rc<Broker>| b.alive && b.is_active() && b.controller.ctx.loaded;
    let mut seen = 0;
    let mut changed = false;
    for b in brokers.clone().filter(finding) {
        seen += 1;
        if unchanged.is_some_and(|u| u(b.id)) && memo.contains_key(&b.id) {
            continue;
        }
        // Sorted below, so membership is a binary search (a 1.1 batch writes up to 50
        // partitions, in order as a rule).
        let mut writing = b.controller.job.as_ref().map(|j| j.writing()).unwrap_or_default();
        let leadership = &b.controller.ctx.leadership;
        let log = &b.controller.ctx.log;
        let fresh = |writing: Vec<TopicPartition>, paths: &mut StatePaths| {
            let diffs: VecSet<TopicPartition> = leadership
                .iter()
                .filter(|(tp, c)| writing.binary_search(tp).is_err() && differs(zk, tp, c, paths))
                .map(|(tp, _)| tp.clone())
                .collect_ordered();
            Rc::new(Divergence {
                version: zk.brokers_version(),
                leadership: Rc::downgrade(leadership),
                mark: log.mark(),
                alert: cache_divergence(zk, b.id, leadership, &diffs, render),
                diffs,
                writing,
            })
        };
        let Some(rc) = memo.get_mut(&b.id) else {
            if !writing.is_sorted() {
                crate::sorted::sort(&mut writing);
            }
            let d = fresh(writing, paths);
            changed |= d.alert.is_some();
            memo.insert(b.id, d);
            continue;
        };
        // The memo's list is sorted, so one equal to it is too: only another list is sorted (if
        // it is not already) and walked against it (`sym_diff`).
        let same_writing = rc.writing == writing;
        if !same_writing && !writing.is_sorted() {
            crate::sorted::sort(&mut writing);
        }
        // The memo holds the cache weakly: a write to it (`Rc::make_mut`) then moves it, so the
        // same address is the same cache, and the memo never makes the controller copy it.
        if same_writing
            && rc.version == zk.brokers_version()
            && core::ptr::eq(rc.leadership.as_ptr(), Rc::as_ptr(leadership))
        {
            continue;
        }
        // From the last finding: re-read only the partitions whose state znode moved, whose
        // cached entry changed, or that started or stopped being written. The finding is updated
        // in place (copied only if a cloned world shares it).
        let base = zk.state_changes_since(rc.version).and_then(|changes| Some((changes, log.since(&rc.mark)?)));
        let Some((changes, written)) = base else {
            let d = fresh(writing, paths);
            changed |= d.alert != rc.alert;
            *rc = d;
            continue;
        };
        let d = Rc::make_mut(rc);
        let was_empty = d.diffs.is_empty();
        let recheck = |tp: &TopicPartition| match leadership.get(tp) {
            Some(c) if writing.binary_search(tp).is_err() && differs(zk, tp, c, paths) => {
                d.diffs.insert(tp.clone());
            }
            _ => {
                d.diffs.remove(tp);
            }
        };
        // Re-read: the partitions whose state znode changed; those in only one of the old and
        // the new `writing` (`diffs` holds no partition of the old one: one written before and
        // now is left out as it was); the cached entries written since (the log's), changed or
        // not. Each once when more than one of those has some (a batch's partitions are in all
        // three when its responses arrive); one alone is walked as it is (a repeat re-reads).
        let mut changes = changes.peekable();
        let sources =
            usize::from(changes.peek().is_some()) + usize::from(!same_writing) + usize::from(!written.is_empty());
        if sources > 1 {
            let mut todo: Vec<&TopicPartition> = changes.collect();
            if !same_writing {
                sym_diff(&d.writing, &writing, |tp| todo.push(tp));
            }
            todo.extend(written);
            crate::sorted::sort(&mut todo);
            todo.dedup();
            todo.into_iter().for_each(recheck);
        } else if !same_writing {
            sym_diff(&d.writing, &writing, recheck);
        } else {
            changes.chain(written).for_each(recheck);
        }
        debug_assert!(d.diffs.iter().eq(leadership
            .iter()
            .filter(|(tp, c)| !writing.contains(tp) && differs(zk, tp, c, paths))
            .map(|(tp, _)| tp)));
        // Without text, an alert is (kind, subject, key): the same while some partition differs.
        if render || was_empty != d.diffs.is_empty() {
            let alert = cache_divergence(zk, b.id, leadership, &d.diffs, render);
            changed |= alert != d.alert;
            d.alert = alert;
        }
        d.version = zk.brokers_version();
        d.leadership = Rc::downgrade(leadership);
        d.mark = log.mark();
        if !same_writing {
            d.writing = writing;
        }
    }
    if memo.len() != seen {
        let seen: Vec<BrokerId> = brokers.filter(finding).map(|b| b.id).collect();
        memo.retain(|id, d| {
            let keep = seen.contains(id);
            changed |= !keep && d.alert.is_some();
            keep
        });
    }
    changed
}

/// Calls `f` on every partition in exactly one of the sorted `a` and `b`.
fn sym_diff<'t>(a: &'t [TopicPartition], b: &'t [TopicPartition], mut f: impl FnMut(&'t TopicPartition)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            core::cmp::Ordering::Less => {
                f(&a[i]);
                i += 1;
            }
            core::cmp::Ordering::Greater => {
                f(&b[j]);
                j += 1;
            }
            core::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
        }
    }
    a[i..].iter().chain(&b[j..]).for_each(f);
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
    /// A ZooKeeper server's handler ran.
    pub zk: bool,
    /// The ZooKeeper servers whose handler ran, in first-touch order.
    pub zk_servers: Vec<crate::ids::NodeId>,
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
        self.zk = false;
        self.zk_servers.clear();
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
    leaderless_memo: Leaderless,
    divergence_memo: DivergenceMemo,
    divergence: Vec<Alert>,
    /// The buffer the leaderless and divergence sections build state paths in.
    paths: StatePaths,
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
        brokers: &VecMap<BrokerId, Rc<Broker>>,
        consumers: &VecMap<u32, Rc<Consumer>>,
        touched: Option<&Touched>,
        render: bool,
    ) -> Option<Vec<Alert>> {
        let all = touched.is_none() || render != self.render;
        self.render = render;
        let brokers_changed = all || touched.is_some_and(|t| !t.brokers.is_empty());
        let tree_changed = all || self.tree != Some(tree);
        let mut changed = false;
        if brokers_changed {
            let same = !all
                && brokers.values().filter(|b| b.alive && b.is_active()).map(|b| b.id).eq(self.acting.iter().copied());
            if !same {
                let acting = acting(brokers.values());
                let mut multi = Vec::new();
                multiple_controllers(&acting, render, &mut multi);
                changed |= multi != self.multi;
                self.multi = multi;
                self.acting = acting;
            }
        }
        if tree_changed {
            changed |= self.leaderless_memo.update(zk, all, render, &mut self.paths, &mut self.leaderless);
            self.tree = Some(tree);
        }
        // A controller's finding reads the tree and that controller only: with the tree as it was,
        // a step that wrote no broker the memo holds and none now acting and loaded leaves every
        // finding (and their order) as it was.
        let divergence_moved = tree_changed
            || touched.is_some_and(|t| {
                t.brokers.iter().any(|b| {
                    self.divergence_memo.contains_key(b)
                        || brokers.get(b).is_some_and(|x| x.alive && x.is_active() && x.controller.ctx.loaded)
                })
            });
        if divergence_moved {
            if all {
                self.divergence_memo.clear();
            }
            let unchanged = |id: BrokerId| !tree_changed && touched.is_some_and(|t| !t.brokers.contains(&id));
            let memo = &mut self.divergence_memo;
            if divergences(zk, brokers.values(), memo, Some(&unchanged), render, &mut self.paths) || all {
                let d: Vec<Alert> = self.divergence_memo.values().filter_map(|d| d.alert.clone()).collect();
                changed |= d != self.divergence;
                self.divergence = d;
            }
        }
        // Without text, a consumer's alert is its group's (kind, subject, key): the same groups
        // without a coordinator, in the same order, are the same alerts.
        let same_groups = || {
            let mut stuck = consumers.values().filter(|c| c.status == ConsumerStatus::CoordinatorNotAvailable);
            let mut had = self.coordinator.iter().map(|a| match &a.subject {
                Subject::Group(g) => Some(g),
                _ => None,
            });
            loop {
                match (stuck.next(), had.next()) {
                    (None, None) => return true,
                    (Some(c), Some(Some(g))) if c.group == *g => {}
                    _ => return false,
                }
            }
        };
        if all || (touched.is_some_and(|t| t.consumers) && (render || !same_groups())) {
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
#[derive(Clone, Debug)]
pub(crate) struct Divergence {
    version: u64,
    /// The cache it was computed from, held weakly (see `divergences`).
    leadership: alloc::rc::Weak<crate::controller::Leadership>,
    /// The controller's leadership log then: what was written to the cache since.
    mark: crate::controller::LogMark,
    /// The partitions being written then, sorted.
    writing: Vec<TopicPartition>,
    /// The cached partitions (not being written) whose state znode differs from the cache.
    diffs: VecSet<TopicPartition>,
    alert: Option<Alert>,
}

/// The last findings by controller; see [`Divergence`].
pub(crate) type DivergenceMemo = VecMap<BrokerId, Rc<Divergence>>;

/// The partition's state znode differs from the cached leadership (leader, ISR or leader epoch).
fn differs(zk: &DataTree, tp: &TopicPartition, c: &Cached, paths: &mut StatePaths) -> bool {
    paths.state(zk, tp).is_some_and(|state| {
        state.leader != c.state.leader || state.isr != c.state.isr || state.leader_epoch != c.state.leader_epoch
    })
}

/// An active controller's `partitionLeadershipInfo` differing from the state znodes (leaving out
/// the partition it is writing): `diffs`, the partitions that differ, in the cache's order.
fn cache_divergence(
    zk: &DataTree,
    id: BrokerId,
    leadership: &crate::controller::Leadership,
    diffs: &VecSet<TopicPartition>,
    render: bool,
) -> Option<Alert> {
    if diffs.is_empty() {
        return None;
    }
    let n = diffs.len();
    Some(Alert {
        kind: AlertKind::CacheDivergence,
        subject: Subject::Controller(id),
        key: key("cache_divergence:", i64::from(id)),
        message: text(render, || {
            let mut shown: Vec<String> = diffs
                .iter()
                .take(3)
                .filter_map(|tp| {
                    let c = leadership.get(tp)?;
                    match zk.get(&tp.state_path()).map(|n| &n.data) {
                        Some(ZData::PartitionState { state }) => Some(format!(
                            "{tp}: cache {} vs ZooKeeper {}",
                            leader_isr_json(&c.state),
                            leader_isr_json(state)
                        )),
                        _ => None,
                    }
                })
                .collect();
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
                subject: Subject::Epoch(u64::from(*epoch)),
                key: key("multiple_leaders:", i64::from(*epoch)),
                message: text(render, || {
                    format!("{} voters were elected leader of epoch {epoch} (Raft allows one)", leaders.len())
                }),
            });
        }
    }
    let img = k.image();
    let mut live = None;
    for (tp, p) in img.partitions.iter().filter(|(_, p)| p.leader == NO_LEADER) {
        let live = live.get_or_insert_with(|| img.live());
        out.extend(leaderless(|| tp.clone(), p.leader, &p.isr, live, "unfenced", render));
    }
    no_coordinator(consumers, render, &mut out);
    out
}

/// A partition with leader -1 while an ISR member is `live` (registered in ZooKeeper, unfenced in
/// KRaft; `live_word` says which): the same test in every mode. `tp` is named only for an alert.
fn leaderless(
    tp: impl FnOnce() -> TopicPartition,
    leader: BrokerId,
    isr: &[BrokerId],
    live: &VecSet<BrokerId>,
    live_word: &str,
    render: bool,
) -> Option<Alert> {
    if leader != NO_LEADER || !isr.iter().any(|r| live.contains(r)) {
        return None;
    }
    let tp = tp();
    Some(Alert {
        kind: AlertKind::LeaderlessWithLiveIsr,
        key: partition_key("leaderless:", &tp),
        subject: Subject::Partition(tp.clone()),
        message: text(render, || {
            let alive = isr.iter().copied().filter(|r| live.contains(r));
            format!("{tp} has leader -1 although ISR member(s) {} are {live_word}", fmt_ids(alive))
        }),
    })
}

/// An alert key `{prefix}{n}`, built without `core::fmt` (keys are built whenever alerts are).
fn key(prefix: &str, n: i64) -> String {
    let mut k = String::with_capacity(prefix.len() + 11);
    k.push_str(prefix);
    crate::ids::push_decimal(&mut k, n);
    k
}

/// An alert key `{prefix}{tp}` (`tp` as `Display` writes it: `topic-partition`).
fn partition_key(prefix: &str, tp: &TopicPartition) -> String {
    let mut k = String::with_capacity(prefix.len() + tp.topic.len() + 11);
    k.push_str(prefix);
    tp.write_display(&mut k);
    debug_assert_eq!(k, alloc::format!("{prefix}{tp}"));
    k
}

/// A group whose consumer gets COORDINATOR_NOT_AVAILABLE (the same in every mode).
fn no_coordinator<'a>(consumers: impl Iterator<Item = &'a Rc<Consumer>>, render: bool, out: &mut Vec<Alert>) {
    for c in consumers.filter(|c| c.status == ConsumerStatus::CoordinatorNotAvailable) {
        out.push(Alert {
            kind: AlertKind::NoCoordinator,
            subject: Subject::Group(c.group.clone()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_state_path_orders_as_the_paths() {
        let tps: Vec<TopicPartition> = ["__consumer_offsets", "t", "t-a", "t/a", "ta", "a"]
            .iter()
            .flat_map(|t| [0, 1, 2, 9, 10, 11, 19, 20, 100, 4_294_967_295].map(|p| TopicPartition::new(t, p)))
            .collect();
        for a in &tps {
            for b in &tps {
                let (ka, kb) = (ByStatePath(a.clone()), ByStatePath(b.clone()));
                assert_eq!(ka.cmp(&kb), a.state_path().cmp(&b.state_path()), "{a} vs {b}");
            }
        }
    }
}
