//! ZooKeeper's `DataTree` (release-3.4.10) with the session table of `SessionTrackerImpl`: znodes
//! with data and versions, ephemeral owners, the one-shot watch tables of its `WatchManager`,
//! conditional `setData`/`delete`, `multi` with `check`, and `PrepRequestProcessor`'s checks.
//! Each server holds its own replica ([`super::server::ZkServerNode`]); only the server applies
//! requests to it (the world reads it, and builds it for a scenario's steady state).
use super::ops::{MultiOp, Stat, ZkError, ZkOp, ZkResult};
use super::session::{Session, SessionId};
use super::watch::{ClientWatch, WatchEvent, WatchEventType};
use crate::ids::{NodeId, TopicPartition};
use crate::sorted::CollectOrdered;
use crate::vec_map::{VecMap, VecSet};
use crate::znodes::ZData;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

/// One znode.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Znode {
    /// Its data.
    pub data: ZData,
    /// Its stat.
    pub stat: Stat,
    /// How many children were ever created under it: ZooKeeper's persisted `cversion`
    /// (`StatPersisted`), which only a create bumps (`release-3.4.10 DataTree.java:392-396`; a
    /// delete sets only `pzxid`, `DataTree.java:467`) and which names the next sequential child
    /// (`PrepRequestProcessor.java:345-349`). The `cversion` a client reads, [`Stat::cversion`],
    /// is creates plus deletes (`DataNode.copyStat`, `DataNode.java:155-158`: `2 * cversion -
    /// numChildren`). Scenario set-up ([`DataTree::seed_node`]) counts nothing.
    pub child_creates: i32,
}

/// Which watch table a watch lives in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
enum WatchTable {
    Data,
    Child,
}

/// The ensemble's data (ZooKeeper's `DataTree` with the session table of `SessionTrackerImpl`):
/// what [`super::server::ZkServerNode`] reads and writes when it handles a request.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct DataTree {
    /// The znodes by path, each shared copy-on-write: a server's tree cloned for a schedule's
    /// world copies a znode only when it is written.
    nodes: BTreeMap<Rc<str>, Rc<Znode>>,
    sessions: VecMap<SessionId, Session>,
    watches: BTreeMap<(String, WatchTable), VecSet<SessionId>>,
    zxid: u64,
    next_session: u64,
    /// Bumped by every change under `/brokers/` (registrations and partition states): what the
    /// alerts read, so they are looked at again only when it moves (not on every zxid).
    brokers_version: u64,
    /// Which partition state znodes the last changes under `/brokers/` touched: a derived index
    /// (not state: it compares equal and hashes to nothing), so the alerts re-read only those.
    state_log: crate::derived::Derived<StateLog>,
}

/// The partitions whose state znode was created, set or deleted, by the `brokers_version` of the
/// change, keeping the last [`StateLog::KEEP`] changes (older readers recompute from scratch).
#[derive(Clone, Debug, Default)]
struct StateLog {
    /// Changes at or below this version may have been dropped.
    floor: u64,
    entries: VecDeque<(u64, TopicPartition)>,
}

impl StateLog {
    const KEEP: usize = 512;

    fn push(&mut self, version: u64, tp: TopicPartition) {
        if self.entries.len() == Self::KEEP {
            if let Some((v, _)) = self.entries.pop_front() {
                self.floor = v;
            }
        }
        self.entries.push_back((version, tp));
    }
}

fn parent_of(path: &str) -> Option<&str> {
    let idx = path.rfind('/')?;
    if idx == 0 {
        if path.len() > 1 {
            Some("/")
        } else {
            None
        }
    } else {
        Some(&path[..idx])
    }
}

fn child_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

impl DataTree {
    /// Notes a change at `path` (see `brokers_version`).
    fn changed(&mut self, path: &str) {
        if path.starts_with("/brokers/") {
            self.brokers_version += 1;
            if path.ends_with("/state") {
                if let Some(tp) = TopicPartition::from_state_path(path) {
                    self.state_log.push(self.brokers_version, tp);
                }
            }
        }
    }

    /// The partitions whose state znode changed after `brokers_version` was `since` (repeats
    /// possible), or `None` when that is too long ago to tell.
    pub(crate) fn state_changes_since(&self, since: u64) -> Option<impl Iterator<Item = &TopicPartition>> {
        if since < self.state_log.floor || since > self.brokers_version {
            return None;
        }
        let first = self.state_log.entries.partition_point(|(v, _)| *v <= since);
        Some(self.state_log.entries.range(first..).map(|(_, tp)| tp))
    }

    /// A counter that moves whenever a znode under `/brokers/` is created, changed or deleted.
    pub fn brokers_version(&self) -> u64 {
        self.brokers_version
    }

    /// An empty tree holding only `/`.
    pub fn new() -> Self {
        let mut s = DataTree { next_session: 0x1000, ..Default::default() };
        s.nodes.insert(
            "/".into(),
            Rc::new(Znode {
                data: ZData::Empty,
                stat: Stat { version: 0, cversion: 0, czxid: 0, mzxid: 0, ephemeral_owner: None },
                child_creates: 0,
            }),
        );
        s
    }

    /// The id the next [`DataTree::open_session`] will give.
    pub fn next_session_id(&self) -> SessionId {
        self.next_session + 1
    }

    /// Opens a new session for `owner` (`SessionTrackerImpl.createSession`). `_now` is not read:
    /// when a session was created or last heard from decides nothing here (the leader's
    /// [`super::session_tracker::SessionTracker`] keeps its expiry time).
    pub fn open_session(&mut self, owner: NodeId, timeout_ms: u64, _now: u64) -> SessionId {
        self.next_session += 1;
        let id = self.next_session;
        self.sessions.insert(id, Session { id, owner, timeout_ms, expired: false });
        id
    }

    /// A live session?
    pub fn is_live(&self, id: SessionId) -> bool {
        self.sessions.get(&id).map(|s| !s.expired).unwrap_or(false)
    }

    /// The session record.
    pub fn session(&self, id: SessionId) -> Option<&Session> {
        self.sessions.get(&id)
    }

    /// All sessions, oldest first.
    pub fn sessions(&self) -> impl Iterator<Item = &Session> {
        self.sessions.values()
    }

    /// Expires a session: deletes its ephemerals and fires their watches (`DataTree.killSession`;
    /// the session's own watches go with it, `WatchManager.removeWatcher`). Returns the deleted
    /// paths and the notifications.
    pub fn expire(&mut self, id: SessionId) -> (Vec<String>, Vec<WatchEvent>) {
        self.kill_session(id, false)
    }

    /// Closes a session at its client's request (`ZooKeeper.close`): as [`DataTree::expire`], but
    /// the session's own watches on its ephemerals still fire, since the server applies the
    /// `closeSession` (`DataTree.killSession`, `release-3.4.10 DataTree.java:879-890`, its deletes
    /// triggering every watcher) while the connection is still open and closes it only afterwards
    /// (`FinalRequestProcessor.java:116,124-133`; `release-3.8.0-1 FinalRequestProcessor.java:111-124`).
    pub fn close_session(&mut self, id: SessionId) -> (Vec<String>, Vec<WatchEvent>) {
        self.kill_session(id, true)
    }

    fn kill_session(&mut self, id: SessionId, keep_own: bool) -> (Vec<String>, Vec<WatchEvent>) {
        let mut events = Vec::new();
        let mut deleted = Vec::new();
        if let Some(s) = self.sessions.get_mut(&id) {
            if s.expired {
                return (deleted, events);
            }
            s.expired = true;
        } else {
            return (deleted, events);
        }
        let owned: Vec<String> = self
            .nodes
            .iter()
            .filter(|(_, n)| n.stat.ephemeral_owner == Some(id))
            .map(|(p, _)| String::from(&**p))
            .collect();
        for p in owned {
            self.zxid += 1;
            self.remove_node(&p, &mut events);
            deleted.push(p);
        }
        // A dead session's watches are gone.
        for set in self.watches.values_mut() {
            set.remove(&id);
        }
        if !keep_own {
            events.retain(|e| e.session != id);
        }
        (deleted, events)
    }

    /// The znode at `path`.
    pub fn get(&self, path: &str) -> Option<&Znode> {
        self.nodes.get(path).map(|n| &**n)
    }

    /// The znode at `path`, to write (copied first if a cloned tree shares it).
    fn node_mut(&mut self, path: &str) -> Option<&mut Znode> {
        self.nodes.get_mut(path).map(Rc::make_mut)
    }

    /// Every znode, in path order.
    pub fn nodes(&self) -> impl Iterator<Item = (&str, &Znode)> {
        self.nodes.iter().map(|(p, n)| (&**p, &**n))
    }

    /// Current zxid.
    pub fn zxid(&self) -> u64 {
        self.zxid
    }

    /// Children names of `path`, sorted.
    pub fn children(&self, path: &str) -> Vec<String> {
        self.child_names(path).map(String::from).collect()
    }

    /// [`DataTree::children`], borrowed and lazy (nothing allocated but the prefix).
    pub fn child_names<'a>(&'a self, path: &str) -> impl Iterator<Item = &'a str> + 'a {
        let mut prefix = String::with_capacity(path.len() + 1);
        prefix.push_str(path);
        if path != "/" {
            prefix.push('/');
        }
        let n = prefix.len();
        self.nodes
            .range::<str, _>((core::ops::Bound::Included(prefix.as_str()), core::ops::Bound::Unbounded))
            .take_while(move |(p, _)| p.starts_with(prefix.as_str()))
            // `/` itself starts with the prefix `/` but is no child of itself.
            .filter(move |(p, _)| p.len() > n && !p[n..].contains('/'))
            .map(|(p, _)| child_name(p))
    }

    /// `path` has a child (what [`DataTree::children`] would list is not empty).
    pub fn has_children(&self, path: &str) -> bool {
        self.child_names(path).next().is_some()
    }

    fn add_watch(&mut self, path: &str, table: WatchTable, session: SessionId) {
        self.watches.entry((path.into(), table)).or_default().insert(session);
    }

    /// `DataTree.setWatches` (release-3.4.10 `DataTree.java:1164-1199`): a reconnected client's
    /// watches, registered again for `session`, or fired at once when the node changed since the
    /// client read it. The client's `relativeZxid` is modelled per watch: a data watch fires
    /// `NodeDataChanged` when the node's `mzxid` moved past the one read (`NodeCreated` for an
    /// exists watch on a node that now exists), a child watch `NodeChildrenChanged` when its
    /// children differ from those read; either fires `NodeDeleted` when the node is gone.
    pub fn set_watches(&mut self, session: SessionId, watches: &[ClientWatch]) -> Vec<WatchEvent> {
        let mut events = Vec::new();
        for w in watches {
            let path = w.path();
            let node = self.nodes.get(path);
            let fired = match (w, node) {
                (ClientWatch::Data { mzxid: Some(_), .. } | ClientWatch::Child { .. }, None) => {
                    Some(WatchEventType::NodeDeleted)
                }
                (ClientWatch::Data { mzxid: None, .. }, Some(_)) => Some(WatchEventType::NodeCreated),
                (ClientWatch::Data { mzxid: Some(m), .. }, Some(n)) if n.stat.mzxid > *m => {
                    Some(WatchEventType::NodeDataChanged)
                }
                (ClientWatch::Child { names, .. }, Some(_)) if self.children(path) != *names => {
                    Some(WatchEventType::NodeChildrenChanged)
                }
                _ => None,
            };
            match (fired, w) {
                (Some(kind), _) => events.push(WatchEvent { session, path: path.into(), kind }),
                (None, ClientWatch::Data { .. }) => self.add_watch(path, WatchTable::Data, session),
                (None, ClientWatch::Child { .. }) => self.add_watch(path, WatchTable::Child, session),
            }
        }
        events
    }

    /// The client's connection to this server closed: its watches here go with it
    /// (`NIOServerCnxn.close` → `ZooKeeperServer.removeCnxn` → `DataTree.removeCnxn`,
    /// release-3.4.10 `NIOServerCnxn.java:1018`).
    pub fn drop_watches(&mut self, session: SessionId) {
        self.watches.retain(|_, set| {
            set.remove(&session);
            !set.is_empty()
        });
    }

    fn fire(&mut self, path: &str, table: WatchTable, kind: WatchEventType, out: &mut Vec<WatchEvent>) {
        if let Some(set) = self.watches.remove(&(String::from(path), table)) {
            for session in set {
                out.push(WatchEvent { session, path: path.into(), kind });
            }
        }
    }

    fn remove_node(&mut self, path: &str, events: &mut Vec<WatchEvent>) {
        self.changed(path);
        self.nodes.remove(path);
        // One NodeDeleted per session even with a data and a child watch on the path: the child
        // table skips the watchers the data table just notified (`release-3.4.10
        // DataTree.java:505-507`, `triggerWatch(path, NodeDeleted, processed)`).
        let first = events.len();
        self.fire(path, WatchTable::Data, WatchEventType::NodeDeleted, events);
        let notified: VecSet<SessionId> = events[first..].iter().map(|e| e.session).collect_ordered();
        if let Some(set) = self.watches.remove(&(String::from(path), WatchTable::Child)) {
            for session in set.into_iter().filter(|s| !notified.contains(s)) {
                events.push(WatchEvent { session, path: path.into(), kind: WatchEventType::NodeDeleted });
            }
        }
        if let Some(parent) = parent_of(path) {
            let parent = String::from(parent);
            if let Some(p) = self.node_mut(&parent) {
                // What a client reads as cversion counts deletes too (see `Znode::child_creates`).
                p.stat.cversion += 1;
            }
            self.fire(&parent, WatchTable::Child, WatchEventType::NodeChildrenChanged, events);
        }
    }

    /// An operator's `delete <path>` from `zookeeper-shell` (on its own short session): removes a
    /// childless node and returns the watch notifications; `None` if there is no such node or it
    /// has children.
    pub fn admin_delete(&mut self, path: &str) -> Option<Vec<WatchEvent>> {
        if !self.nodes.contains_key(path) || self.has_children(path) {
            return None;
        }
        let mut events = Vec::new();
        self.zxid += 1;
        self.remove_node(path, &mut events);
        Some(events)
    }

    /// Creates a node directly (scenario set-up), with its parents, firing nothing.
    pub fn seed_node(&mut self, path: &str, data: ZData, owner: Option<SessionId>) {
        self.changed(path);
        let mut acc = String::new();
        for part in path.split('/').filter(|s| !s.is_empty()) {
            acc.push('/');
            acc.push_str(part);
            if !self.nodes.contains_key(acc.as_str()) {
                self.zxid += 1;
                self.nodes.insert(
                    Rc::from(acc.as_str()),
                    Rc::new(Znode {
                        data: ZData::Empty,
                        stat: Stat {
                            version: 0,
                            cversion: 0,
                            czxid: self.zxid,
                            mzxid: self.zxid,
                            ephemeral_owner: None,
                        },
                        child_creates: 0,
                    }),
                );
            }
        }
        let n = self.node_mut(path).expect("just created");
        n.data = data;
        n.stat.ephemeral_owner = owner;
    }

    /// Sets a node's version directly (scenario set-up: a cluster with history).
    pub fn seed_version(&mut self, path: &str, version: i32) {
        self.changed(path);
        if let Some(n) = self.node_mut(path) {
            n.stat.version = version;
        }
    }

    fn check_create(&self, path: &str, ephemeral_parent_check: bool) -> Result<(), ZkError> {
        if self.nodes.contains_key(path) {
            return Err(ZkError::NodeExists);
        }
        let parent = parent_of(path).ok_or(ZkError::NodeExists)?;
        match self.nodes.get(parent) {
            None => Err(ZkError::NoNode),
            Some(p) if ephemeral_parent_check && p.stat.ephemeral_owner.is_some() => {
                Err(ZkError::NoChildrenForEphemerals)
            }
            Some(_) => Ok(()),
        }
    }

    fn do_create(&mut self, path: &str, data: ZData, owner: Option<SessionId>, events: &mut Vec<WatchEvent>) {
        self.changed(path);
        self.zxid += 1;
        let z = self.zxid;
        self.nodes.insert(
            path.into(),
            Rc::new(Znode {
                data,
                stat: Stat { version: 0, cversion: 0, czxid: z, mzxid: z, ephemeral_owner: owner },
                child_creates: 0,
            }),
        );
        self.fire(path, WatchTable::Data, WatchEventType::NodeCreated, events);
        if let Some(parent) = parent_of(path) {
            let parent = String::from(parent);
            if let Some(p) = self.node_mut(&parent) {
                p.stat.cversion += 1;
                p.child_creates += 1;
            }
            self.fire(&parent, WatchTable::Child, WatchEventType::NodeChildrenChanged, events);
        }
    }

    /// The path a create of `path` makes: with `sequential`, `path` followed by the parent's
    /// persisted cversion as ten digits (`release-3.4.10 PrepRequestProcessor.java:345-349`,
    /// `String.format("%010d", parentCVersion)`; `release-3.8.0-1 PrepRequestProcessor.java:690-692`).
    fn create_path(&self, path: &str, sequential: bool) -> String {
        if !sequential {
            return path.into();
        }
        let n = parent_of(path).and_then(|p| self.nodes.get(p)).map(|p| p.child_creates).unwrap_or(0);
        format!("{path}{n:010}")
    }

    fn check_version(&self, path: &str, version: i32) -> Result<(), ZkError> {
        let n = self.nodes.get(path).ok_or(ZkError::NoNode)?;
        if version != -1 && n.stat.version != version {
            return Err(ZkError::BadVersion);
        }
        Ok(())
    }

    fn do_set(&mut self, path: &str, data: ZData, events: &mut Vec<WatchEvent>) -> Stat {
        self.changed(path);
        self.zxid += 1;
        let z = self.zxid;
        // A new znode in the slot: the old one's data is not copied just to be overwritten.
        let n = self.nodes.get_mut(path).expect("checked");
        let mut stat = n.stat;
        stat.version += 1;
        stat.mzxid = z;
        *n = Rc::new(Znode { data, stat, child_creates: n.child_creates });
        self.fire(path, WatchTable::Data, WatchEventType::NodeDataChanged, events);
        stat
    }

    /// Applies one request from `session`: `PrepRequestProcessor`'s checks (session, versions,
    /// parents; `multi` all or nothing) and `DataTree.processTxn`. Requests on an expired session
    /// fail with `SESSIONEXPIRED` (the server never applies them). Returns the result and the watch
    /// notifications it triggered (`WatchManager.triggerWatch`), for the server to deliver. `_now`
    /// is not read: the session's touch is the server's ([`super::session_tracker`]).
    pub fn apply(&mut self, session: SessionId, op: &ZkOp, _now: u64) -> (ZkResult, Vec<WatchEvent>) {
        let mut events = Vec::new();
        if !self.is_live(session) {
            return (ZkResult::Error { code: ZkError::SessionExpired }, events);
        }
        let res = match op {
            ZkOp::Create { path, data, ephemeral, sequential } => {
                let full = self.create_path(path, *sequential);
                match self.check_create(&full, true) {
                    Err(code) => ZkResult::Error { code },
                    Ok(()) => {
                        self.do_create(&full, data.clone(), ephemeral.then_some(session), &mut events);
                        ZkResult::Created { path: full }
                    }
                }
            }
            ZkOp::Delete { path, version } => match self.check_version(path, *version) {
                Err(code) => ZkResult::Error { code },
                Ok(()) if self.has_children(path) => ZkResult::Error { code: ZkError::NotEmpty },
                Ok(()) => {
                    self.zxid += 1;
                    self.remove_node(path, &mut events);
                    ZkResult::Deleted
                }
            },
            ZkOp::SetData { path, data, version } => match self.check_version(path, *version) {
                Err(code) => ZkResult::Error { code },
                Ok(()) => ZkResult::Written { stat: self.do_set(path, data.clone(), &mut events) },
            },
            ZkOp::GetData { path, watch } => match self.nodes.get(path.as_str()).map(|n| Znode::clone(n)) {
                None => {
                    // Plain ZooKeeper leaves no watch here; ZkClient's subscribed reads arm an
                    // `exists` watch instead, which is what a watched read means in this model.
                    if *watch {
                        self.add_watch(path, WatchTable::Data, session);
                    }
                    ZkResult::Error { code: ZkError::NoNode }
                }
                Some(n) => {
                    if *watch {
                        self.add_watch(path, WatchTable::Data, session);
                    }
                    ZkResult::Data { data: n.data, stat: n.stat }
                }
            },
            ZkOp::GetDataPlain { path, watch } => match self.nodes.get(path.as_str()).map(|n| Znode::clone(n)) {
                None => ZkResult::Error { code: ZkError::NoNode },
                Some(n) => {
                    if *watch {
                        self.add_watch(path, WatchTable::Data, session);
                    }
                    ZkResult::Data { data: n.data, stat: n.stat }
                }
            },
            ZkOp::Exists { path, watch } => {
                if *watch {
                    self.add_watch(path, WatchTable::Data, session);
                }
                ZkResult::Exists { stat: self.nodes.get(path.as_str()).map(|n| n.stat) }
            }
            ZkOp::GetChildren { path, watch } => {
                if !self.nodes.contains_key(path.as_str()) {
                    ZkResult::Error { code: ZkError::NoNode }
                } else {
                    if *watch {
                        self.add_watch(path, WatchTable::Child, session);
                    }
                    ZkResult::Children { names: self.children(path) }
                }
            }
            ZkOp::GetDataMany { paths } => ZkResult::DataMany {
                items: paths.iter().map(|p| self.nodes.get(p.as_str()).map(|n| (n.data.clone(), n.stat))).collect(),
            },
            ZkOp::Multi { ops } => self.apply_multi(session, ops, &mut events),
        };
        (res, events)
    }

    fn apply_multi(&mut self, session: SessionId, ops: &[MultiOp], events: &mut Vec<WatchEvent>) -> ZkResult {
        if independent(ops) {
            // Debug builds check the shortcut against the scratch copy.
            #[cfg(debug_assertions)]
            let reference = {
                let (mut tree, mut ev) = (self.clone(), Vec::new());
                let r = tree.apply_scratch(session, ops, &mut ev);
                (tree, ev, r)
            };
            #[cfg(debug_assertions)]
            let at = events.len();
            let r = self.apply_independent(session, ops, events);
            #[cfg(debug_assertions)]
            debug_assert!(reference == (self.clone(), events[at..].to_vec(), r.clone()), "multi shortcut");
            return r;
        }
        self.apply_scratch(session, ops, events)
    }

    /// `multi` with each op checked against the tree as the ops before it left it, on a scratch
    /// copy, so the transaction is all-or-nothing.
    fn apply_scratch(&mut self, session: SessionId, ops: &[MultiOp], events: &mut Vec<WatchEvent>) -> ZkResult {
        let mut scratch = self.clone();
        let mut scratch_events = Vec::new();
        for (index, op) in ops.iter().enumerate() {
            let r = match op {
                MultiOp::Check { path, version } => scratch.check_version(path, *version),
                MultiOp::SetData { path, data, version } => scratch.check_version(path, *version).map(|_| {
                    scratch.do_set(path, data.clone(), &mut scratch_events);
                }),
                MultiOp::Create { path, data, ephemeral, sequential } => {
                    let full = scratch.create_path(path, *sequential);
                    scratch.check_create(&full, true).map(|_| {
                        scratch.do_create(&full, data.clone(), ephemeral.then_some(session), &mut scratch_events);
                    })
                }
                MultiOp::Delete { path, version } => scratch.check_version(path, *version).and_then(|_| {
                    if !scratch.has_children(path) {
                        scratch.zxid += 1;
                        scratch.remove_node(path, &mut scratch_events);
                        Ok(())
                    } else {
                        Err(ZkError::NotEmpty)
                    }
                }),
            };
            if let Err(code) = r {
                return ZkResult::MultiFailed { index, code };
            }
        }
        *self = scratch;
        events.extend(scratch_events);
        ZkResult::MultiOk
    }

    /// [`DataTree::apply_multi`] for ops that cannot see each other's effects ([`independent`]):
    /// each op's check reads the tree as it was, so all are checked first (the first failure in
    /// order is the answer, as with a scratch copy) and then applied in place, in order. The
    /// result, tree and events are those of the scratch path, without copying the tree.
    fn apply_independent(&mut self, session: SessionId, ops: &[MultiOp], events: &mut Vec<WatchEvent>) -> ZkResult {
        for (index, op) in ops.iter().enumerate() {
            let r = match op {
                MultiOp::Check { path, version } | MultiOp::SetData { path, version, .. } => {
                    self.check_version(path, *version)
                }
                MultiOp::Create { path, .. } => self.check_create(path, true),
                MultiOp::Delete { path, version } => self.check_version(path, *version).and_then(|_| {
                    if !self.has_children(path) {
                        Ok(())
                    } else {
                        Err(ZkError::NotEmpty)
                    }
                }),
            };
            if let Err(code) = r {
                return ZkResult::MultiFailed { index, code };
            }
        }
        for op in ops {
            match op {
                MultiOp::Check { .. } => {}
                MultiOp::SetData { path, data, .. } => {
                    self.do_set(path, data.clone(), events);
                }
                MultiOp::Create { path, data, ephemeral, .. } => {
                    self.do_create(path, data.clone(), ephemeral.then_some(session), events);
                }
                MultiOp::Delete { path, .. } => {
                    self.zxid += 1;
                    self.remove_node(path, events);
                }
            }
        }
        ZkResult::MultiOk
    }
}

/// Whether no op of a `multi` can change what another op checks: every path differs and none is
/// an ancestor of another (a create or delete changes only its parent's children, a setData only
/// its own version), and no create is sequential (its name reads the parent's child count).
fn independent(ops: &[MultiOp]) -> bool {
    fn path(op: &MultiOp) -> &str {
        match op {
            MultiOp::Check { path, .. }
            | MultiOp::SetData { path, .. }
            | MultiOp::Create { path, .. }
            | MultiOp::Delete { path, .. } => path,
        }
    }
    let above = |a: &str, b: &str| b.len() > a.len() && b.starts_with(a) && (a == "/" || b.as_bytes()[a.len()] == b'/');
    ops.iter().enumerate().all(|(i, a)| {
        !matches!(a, MultiOp::Create { sequential: true, .. })
            && ops[i + 1..].iter().all(|b| {
                let (pa, pb) = (path(a), path(b));
                pa != pb && !above(pa, pb) && !above(pb, pa)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn server() -> (DataTree, SessionId, SessionId) {
        let mut zk = DataTree::new();
        let a = zk.open_session(NodeId::Broker(1), 6000, 0);
        let b = zk.open_session(NodeId::Broker(2), 6000, 0);
        zk.seed_node("/brokers/ids", ZData::Empty, None);
        (zk, a, b)
    }

    fn create(path: &str, eph: bool) -> ZkOp {
        ZkOp::Create { path: path.into(), data: ZData::Empty, ephemeral: eph, sequential: false }
    }

    #[test]
    fn versions_and_conditional_set() {
        let (mut zk, a, _) = server();
        zk.apply(a, &create("/x", false), 1);
        let set = |v| ZkOp::SetData { path: "/x".into(), data: ZData::ControllerEpoch { epoch: 1 }, version: v };
        assert!(matches!(zk.apply(a, &set(0), 2).0, ZkResult::Written { stat } if stat.version == 1));
        assert_eq!(zk.apply(a, &set(0), 3).0, ZkResult::Error { code: ZkError::BadVersion });
        assert!(matches!(zk.apply(a, &set(-1), 4).0, ZkResult::Written { stat } if stat.version == 2));
    }

    #[test]
    fn ephemerals_die_with_their_session_and_fire_watches() {
        let (mut zk, a, b) = server();
        zk.apply(a, &create("/controller", true), 1);
        zk.apply(b, &ZkOp::GetData { path: "/controller".into(), watch: true }, 2);
        zk.apply(b, &ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true }, 2);
        zk.apply(a, &create("/brokers/ids/1", true), 3);
        let (deleted, events) = zk.expire(a);
        assert_eq!(deleted, vec![String::from("/brokers/ids/1"), String::from("/controller")]);
        assert!(zk.get("/controller").is_none());
        // The child watch fired on the create already (one-shot), the data watch fires on delete.
        assert_eq!(
            events,
            vec![WatchEvent { session: b, path: "/controller".into(), kind: WatchEventType::NodeDeleted }]
        );
        assert_eq!(
            zk.apply(a, &ZkOp::GetData { path: "/".into(), watch: false }, 4).0,
            ZkResult::Error { code: ZkError::SessionExpired }
        );
    }

    #[test]
    fn watches_are_one_shot() {
        let (mut zk, a, b) = server();
        zk.apply(a, &create("/x", false), 1);
        zk.apply(b, &ZkOp::GetData { path: "/x".into(), watch: true }, 1);
        let set = ZkOp::SetData { path: "/x".into(), data: ZData::Empty, version: -1 };
        assert_eq!(zk.apply(a, &set, 2).1.len(), 1);
        assert_eq!(zk.apply(a, &set, 3).1.len(), 0);
    }

    #[test]
    fn multi_is_all_or_nothing() {
        let (mut zk, a, _) = server();
        zk.apply(a, &create("/controller_epoch", false), 1);
        zk.apply(a, &create("/s", false), 1);
        let ops = vec![
            MultiOp::SetData { path: "/s".into(), data: ZData::ControllerEpoch { epoch: 9 }, version: 0 },
            MultiOp::Check { path: "/controller_epoch".into(), version: 5 },
        ];
        assert_eq!(
            zk.apply(a, &ZkOp::Multi { ops }, 2).0,
            ZkResult::MultiFailed { index: 1, code: ZkError::BadVersion }
        );
        assert_eq!(zk.get("/s").unwrap().stat.version, 0);
        let ops = vec![
            MultiOp::Check { path: "/controller_epoch".into(), version: 0 },
            MultiOp::SetData { path: "/s".into(), data: ZData::ControllerEpoch { epoch: 9 }, version: 0 },
        ];
        assert_eq!(zk.apply(a, &ZkOp::Multi { ops }, 3).0, ZkResult::MultiOk);
        assert_eq!(zk.get("/s").unwrap().stat.version, 1);
    }

    #[test]
    fn a_multi_whose_ops_see_each_other_is_checked_in_order() {
        let (mut zk, a, _) = server();
        zk.apply(a, &create("/p", false), 1);
        zk.apply(a, &create("/p/c", false), 1);
        let del = |path: &str| MultiOp::Delete { path: path.into(), version: -1 };
        // Independent ops take the shortcut; ops on a path and its parent do not.
        assert!(independent(&[del("/p/c"), del("/q")]));
        assert!(!independent(&[del("/p/c"), del("/p")]));
        assert!(!independent(&[del("/p"), del("/p")]));
        assert!(independent(&[del("/p"), del("/pq")]));
        // The parent is empty once its child's delete, earlier in the same multi, is applied.
        assert_eq!(zk.apply(a, &ZkOp::Multi { ops: vec![del("/p/c"), del("/p")] }, 2).0, ZkResult::MultiOk);
        assert!(zk.get("/p").is_none());
        // In the other order the parent still has its child: nothing is applied.
        zk.apply(a, &create("/p", false), 3);
        zk.apply(a, &create("/p/c", false), 3);
        assert_eq!(
            zk.apply(a, &ZkOp::Multi { ops: vec![del("/p"), del("/p/c")] }, 4).0,
            ZkResult::MultiFailed { index: 0, code: ZkError::NotEmpty }
        );
        assert!(zk.get("/p/c").is_some());
        // Independent deletes: a failure at the second leaves the first undone.
        assert_eq!(
            zk.apply(a, &ZkOp::Multi { ops: vec![del("/p/c"), del("/missing")] }, 5).0,
            ZkResult::MultiFailed { index: 1, code: ZkError::NoNode }
        );
        assert!(zk.get("/p/c").is_some());
    }

    #[test]
    fn children_and_sequential_nodes() {
        let (mut zk, a, _) = server();
        zk.seed_node("/isr_change_notification", ZData::Empty, None);
        let op = ZkOp::Create {
            path: "/isr_change_notification/isr_change_".into(),
            data: ZData::Empty,
            ephemeral: false,
            sequential: true,
        };
        zk.apply(a, &op, 1);
        zk.apply(a, &op, 2);
        assert_eq!(
            zk.children("/isr_change_notification"),
            vec![String::from("isr_change_0000000000"), String::from("isr_change_0000000001")]
        );
        assert_eq!(zk.children("/brokers"), vec![String::from("ids")]);
        assert_eq!(zk.apply(a, &create("/nope/x", false), 3).0, ZkResult::Error { code: ZkError::NoNode });
    }
}
