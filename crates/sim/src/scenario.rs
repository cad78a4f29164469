//! Scenarios: a JSON description of the cluster (brokers, topics, replication, session timeout,
//! latencies), the consumer groups, the seed and a timed script of faults. Validation names the
//! exact field that is wrong, so the CLI and the page can say so in one line.
use crate::command::{Command, CommandError};
use crate::ids::{BrokerId, NodeId, TopicPartition};
pub use crate::mode::Mode;
use crate::network::Latency;
use crate::vec_map::{VecMap, VecSet};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

/// The offsets topic.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// A scenario file.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name.
    pub name: String,
    /// What it shows.
    #[serde(default)]
    pub description: String,
    /// PRNG seed (latency jitter).
    #[serde(default)]
    pub seed: u64,
    /// The cluster.
    pub cluster: ClusterSpec,
    /// Consumer clients.
    #[serde(default)]
    pub consumers: Vec<ConsumerSpec>,
    /// Timed faults.
    #[serde(default)]
    pub script: Vec<ScriptEntry>,
    /// Faults made by hand in the playground, each applied right after the run's `after_step`-th
    /// step: a step number is exact where a time could fall between two events of one millisecond.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after_steps: Vec<StepFault>,
    /// The behaviour the scenario was saved under; `--mode` and the page's picker override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Stop at this virtual time (default: 30 s after the last scripted fault).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<u64>,
    /// Story captions shown by the playground at matching steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub captions: Vec<Caption>,
}

/// A caption: shown at the first step whose node matches and whose line contains `contains`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct Caption {
    /// Node of the event (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeId>,
    /// The step carries a [`crate::Mark`] with these fields (a partial match: every field given
    /// must be equal, e.g. `{"mark": "leader_elected", "partition": {"topic":
    /// "__consumer_offsets", "partition": 3}, "leader": 1}`). This is how built-in captions find
    /// their step: on typed facts, not on log prose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<serde_json::Value>,
    /// Text the event's line contains (for steps no mark describes; older files use only this).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub contains: String,
    /// The caption.
    pub text: String,
    /// The behaviour whose story it tells (default: the scenario's own): one scenario can tell
    /// how the incident unfolds, and how each fix stops it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
}

/// Where a caption matched a step.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CaptionMatch {
    /// A mark of the step, or its headline line.
    Headline,
    /// Only one of its detail lines.
    Detail,
}

impl Caption {
    /// Whether (and how strongly) this caption describes `e`, whose marks are given as JSON
    /// (`marks`, computed once per event). Every condition given must hold: the node, the mark (a
    /// partial match of one of the step's marks), the text.
    fn matches(&self, e: &crate::Event, marks: &[serde_json::Value]) -> Option<CaptionMatch> {
        if self.node.is_some_and(|n| n != e.node) {
            return None;
        }
        if let Some(pattern) = &self.mark {
            if !marks.iter().any(|m| json_contains(m, pattern)) {
                return None;
            }
        }
        if self.contains.is_empty() || e.line.contains(&self.contains) {
            Some(CaptionMatch::Headline)
        } else if e.details.iter().any(|d| d.contains(&self.contains)) {
            Some(CaptionMatch::Detail)
        } else {
            None
        }
    }
}

/// `value` has every field of `pattern` (recursively for objects; arrays and scalars equal).
fn json_contains(value: &serde_json::Value, pattern: &serde_json::Value) -> bool {
    match (value, pattern) {
        (serde_json::Value::Object(v), serde_json::Value::Object(p)) => {
            p.iter().all(|(k, pv)| v.get(k).is_some_and(|vv| json_contains(vv, pv)))
        }
        (v, p) => v == p,
    }
}

/// A caption resolved to the step it tells.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StepCaption {
    /// Step (1-based, `events[step-1]`).
    pub step: usize,
    /// Text.
    pub text: String,
}

/// Cluster description.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Broker ids.
    pub brokers: Vec<BrokerId>,
    /// `zookeeper.session.timeout.ms`.
    #[serde(default = "d_session")]
    pub session_timeout_ms: u64,
    /// Link latencies.
    #[serde(default)]
    pub latency: Latency,
    /// Topics (the offsets topic is added when missing).
    #[serde(default)]
    pub topics: Vec<TopicSpec>,
    /// `offsets.topic.num.partitions`.
    #[serde(default = "d_offsets")]
    pub offsets_topic_partitions: u32,
    /// `unclean.leader.election.enable`.
    #[serde(default)]
    pub unclean_leader_election: bool,
    /// The controller at time 0 (default: the first broker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<BrokerId>,
    /// `/controller_epoch` at time 0.
    #[serde(default = "d_epoch")]
    pub controller_epoch: i32,
    /// `replica.lag.time.max.ms`.
    #[serde(default = "d_lag")]
    pub replica_lag_time_max_ms: u64,
    /// The ZooKeeper ensemble (default: see [`ZkSpec`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zookeeper: Option<ZkSpec>,
}

/// `cluster.zookeeper`: the ensemble. Absent, a scenario whose faults name `zk` gets the one
/// standalone server `zk` (what older files mean); any other gets three servers `zk1`…`zk3`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct ZkSpec {
    /// 1 (the standalone server `zk`), 3 or 5 (`zk1`…`zk5`).
    pub servers: u8,
    /// `tickTime`, ms: the session expiry bucket width and the unit of `syncLimit`.
    #[serde(default = "d_tick")]
    pub tick_ms: u64,
    /// `syncLimit`, in ticks.
    #[serde(default = "d_sync")]
    pub sync_limit: u64,
    /// Each broker's connection string (by broker id), servers in the order it tries them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub connect: BTreeMap<String, Vec<NodeId>>,
}

fn d_tick() -> u64 {
    2000
}
fn d_sync() -> u64 {
    5
}

/// The ensemble a run builds, validated.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct ZkEnsemble {
    /// The servers: `[zk]`, or `zk1`…`zkN`.
    pub servers: Vec<NodeId>,
    /// `tickTime`, ms.
    pub tick_ms: u64,
    /// `syncLimit`, ticks.
    pub sync_limit: u64,
    /// Each broker's connection string.
    pub connect: VecMap<BrokerId, Vec<NodeId>>,
}

impl ZkEnsemble {
    /// A majority of the servers.
    pub fn quorum(&self) -> usize {
        self.servers.len() / 2 + 1
    }

    /// The broker's connection string.
    pub fn connect_of(&self, b: BrokerId) -> Vec<NodeId> {
        self.connect.get(&b).cloned().unwrap_or_else(|| self.servers.clone())
    }
}

fn d_session() -> u64 {
    6000
}
fn d_offsets() -> u32 {
    50
}
fn d_epoch() -> i32 {
    1
}
fn d_lag() -> u64 {
    10_000
}
fn d_rf() -> u32 {
    3
}

/// A topic.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
    /// Name.
    pub name: String,
    /// Partition count.
    pub partitions: u32,
    /// Replication factor.
    #[serde(default = "d_rf")]
    pub replication_factor: u32,
    /// Index of the broker that gets the first replica of partition 0 (`AdminUtils` start index).
    #[serde(default)]
    pub start_index: u32,
    /// Leader epoch of every partition at time 0 (a cluster with history).
    #[serde(default)]
    pub leader_epoch: i32,
    /// State znode version of every partition at time 0.
    #[serde(default)]
    pub zk_version: i32,
}

/// A consumer client of one group.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    /// Client id (node `c<id>`).
    #[serde(default = "d_client")]
    pub id: u32,
    /// `group.id`.
    pub group: String,
}

fn d_client() -> u32 {
    1
}

/// One scripted fault.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct ScriptEntry {
    /// Virtual time, ms.
    pub at_ms: u64,
    /// The fault.
    #[serde(rename = "do")]
    pub command: Command,
}

/// A fault placed by step number rather than by time (see [`Scenario::after_steps`]).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct StepFault {
    /// Applied right after this many steps of the run.
    pub after_step: u64,
    /// The fault.
    #[serde(rename = "do")]
    pub command: Command,
}

/// Why a scenario was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    /// One line, whatever the message echoes from the file (see [`one_line`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&one_line(&self.0))
    }
}

/// `msg` with its control characters escaped (a line break as `\n`, NUL as `\u{0}`), so a message
/// that echoes user input (serde's "unknown field", a name from a file or a link) stays one line.
pub fn one_line(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    for c in msg.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn err<T>(msg: String) -> Result<T, ScenarioError> {
    Err(ScenarioError(msg))
}

/// The cluster's static configuration, derived from a validated scenario.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Config {
    /// Broker ids, sorted.
    pub brokers: Vec<BrokerId>,
    /// Session timeout.
    pub session_timeout_ms: u64,
    /// Latencies.
    pub latency: Latency,
    /// Assignment: partition → replicas.
    pub assignment: VecMap<TopicPartition, Vec<BrokerId>>,
    /// Topic names, sorted.
    pub topics: Vec<String>,
    /// Initial leader epoch and znode version per partition.
    pub initial: VecMap<TopicPartition, (i32, i32)>,
    /// `offsets.topic.num.partitions`.
    pub offsets_partitions: u32,
    /// Unclean election.
    pub unclean: bool,
    /// Controller at time 0.
    pub controller: BrokerId,
    /// Controller epoch at time 0.
    pub controller_epoch: i32,
    /// `replica.lag.time.max.ms`.
    pub replica_lag_ms: u64,
    /// Consumers.
    pub consumers: Vec<ConsumerSpec>,
    /// End time.
    pub end_ms: u64,
    /// Kafka behaviour.
    pub mode: Mode,
    /// [`Scenario::after_steps`], sorted by step.
    pub after_steps: Vec<(u64, Command)>,
    /// The ZooKeeper ensemble (unused in KRaft mode).
    pub zk: ZkEnsemble,
}

impl Config {
    /// What the configured Kafka behaviour does.
    pub fn behaviour(&self) -> crate::mode::Behaviour {
        self.mode.behaviour()
    }

    /// The ZooKeeper read timeout: 2/3 of the session timeout (`ClientCnxn`).
    pub fn read_timeout_ms(&self) -> u64 {
        self.session_timeout_ms * 2 / 3
    }

    /// A ZooKeeper client's connect attempt timeout: the session timeout over the number of servers
    /// in its connection string, `servers` (3.4.10 `ClientCnxn.java:396`).
    pub fn connect_timeout_ms(&self, servers: usize) -> u64 {
        self.session_timeout_ms / servers.max(1) as u64
    }

    /// The `__consumer_offsets` partition each configured consumer's group maps to
    /// ([`crate::consumer::coordinator_partition`]), without repeats, in consumer order.
    pub fn group_partitions(&self) -> Vec<TopicPartition> {
        let mut v: Vec<TopicPartition> = Vec::new();
        for c in &self.consumers {
            let tp = TopicPartition::new(
                OFFSETS_TOPIC,
                crate::consumer::coordinator_partition(&c.group, self.offsets_partitions),
            );
            if !v.contains(&tp) {
                v.push(tp);
            }
        }
        v
    }

    /// The KRaft controller voters' ids (none when the control plane is ZooKeeper).
    pub fn voters(&self) -> core::ops::RangeInclusive<u32> {
        self.behaviour().voters()
    }

    /// All partitions of a topic.
    pub fn partitions_of<'a>(&'a self, topic: &'a str) -> impl Iterator<Item = &'a TopicPartition> + 'a {
        self.assignment.keys().filter(move |tp| tp.topic == topic)
    }

    /// All nodes.
    pub fn nodes(&self) -> Vec<NodeId> {
        let mut v = if self.behaviour().is_kraft() {
            self.voters().map(NodeId::Voter).collect()
        } else {
            self.zk.servers.clone()
        };
        v.extend(self.brokers.iter().map(|b| NodeId::Broker(*b)));
        v.extend(self.consumers.iter().map(|c| NodeId::Client(c.id)));
        v
    }
}

impl Scenario {
    /// The behaviour whose story `caption` tells: its own `mode`, else the scenario's, else legacy.
    pub fn caption_mode(&self, caption: &Caption) -> Mode {
        caption.mode.or(self.mode).unwrap_or_default()
    }

    /// The captions of `mode` (a caption without one belongs to the scenario's own mode) resolved
    /// against a run's events: each caption belongs to the first step it matches as a headline
    /// (a mark or the main line), else to the first where only a detail line matches. Only steps up
    /// to `until` count: after a user's first command the run is no longer the one the story
    /// tells. One step shows one caption (the first). The page and the tests both use this.
    pub fn caption_steps(&self, events: &[crate::Event], until: Option<usize>, mode: Mode) -> Vec<StepCaption> {
        let captions: Vec<&Caption> = self.captions.iter().filter(|c| self.caption_mode(c) == mode).collect();
        if captions.is_empty() {
            return Vec::new();
        }
        // Each step's marks as JSON, once, for the captions' partial matches.
        let marks: Vec<Vec<serde_json::Value>> = events
            .iter()
            .map(|e| e.marks.iter().map(|m| serde_json::to_value(m).unwrap_or_default()).collect())
            .collect();
        let mut out: Vec<StepCaption> = captions
            .into_iter()
            .filter_map(|c| {
                let at = |strength: CaptionMatch| {
                    events.iter().zip(&marks).position(|(e, m)| c.matches(e, m) == Some(strength))
                };
                at(CaptionMatch::Headline)
                    .or_else(|| at(CaptionMatch::Detail))
                    .map(|i| StepCaption { step: i + 1, text: c.text.clone() })
            })
            .collect();
        out.retain(|c| until.map(|u| c.step <= u).unwrap_or(true));
        crate::sorted::sort_by_key(&mut out, |c| c.step);
        out.dedup_by_key(|c| c.step);
        out
    }

    /// The behaviour a run of this scenario opens in: `requested` (a CLI flag, a link, an embed's
    /// `mode=`, the page's picker) if given, else the scenario's own `mode`, else legacy. The CLI,
    /// the page, the embed, [`crate::Timeline`] and [`crate::World`] all ask this one question.
    pub fn opening_mode(&self, requested: Option<Mode>) -> Mode {
        requested.or(self.mode).unwrap_or_default()
    }

    /// Parses and validates JSON.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > 1_000_000 {
            return err(format!("scenario is {} bytes; the limit is 1000000", text.len()));
        }
        let s: Scenario =
            serde_json::from_str(text).map_err(|e| ScenarioError(format!("invalid scenario JSON: {e}")))?;
        s.config()?;
        Ok(s)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Validates and derives the static configuration.
    pub fn config(&self) -> Result<Config, ScenarioError> {
        let c = &self.cluster;
        if c.brokers.is_empty() {
            return err("cluster.brokers is empty: a cluster needs at least one broker".into());
        }
        if c.brokers.len() > 9 {
            return err(format!("cluster.brokers has {} brokers; the playground supports 1 to 9", c.brokers.len()));
        }
        let mut brokers = c.brokers.clone();
        crate::sorted::sort(&mut brokers);
        for w in brokers.windows(2) {
            if w[0] == w[1] {
                return err(format!("cluster.brokers lists broker {} twice", w[0]));
            }
        }
        if let Some(b) = brokers.iter().find(|b| **b < 0 || **b > 999) {
            return err(format!("cluster.brokers: broker id {b} is out of range 0..=999"));
        }
        if c.session_timeout_ms < 100 || c.session_timeout_ms > 600_000 {
            return err(format!("cluster.session_timeout_ms = {} is out of range 100..=600000", c.session_timeout_ms));
        }
        if c.offsets_topic_partitions == 0 || c.offsets_topic_partitions > 200 {
            return err(format!(
                "cluster.offsets_topic_partitions = {} is out of range 1..=200",
                c.offsets_topic_partitions
            ));
        }
        let controller = c.controller.unwrap_or(brokers[0]);
        if !brokers.contains(&controller) {
            return err(format!("cluster.controller = {controller} is not one of the brokers"));
        }
        if c.controller_epoch < 1 {
            return err("cluster.controller_epoch must be at least 1".into());
        }
        let mut topics = c.topics.clone();
        if !topics.iter().any(|t| t.name == OFFSETS_TOPIC) {
            topics.push(TopicSpec {
                name: OFFSETS_TOPIC.into(),
                partitions: c.offsets_topic_partitions,
                replication_factor: (brokers.len() as u32).min(3),
                start_index: 0,
                leader_epoch: 0,
                zk_version: 0,
            });
        }
        let mut assignment = VecMap::new();
        let mut initial = VecMap::new();
        let mut names = BTreeSet::new();
        let mut total = 0u32;
        for (i, t) in topics.iter().enumerate() {
            if t.name.is_empty()
                || t.name.len() > 249
                || !t.name.chars().all(|ch| ch.is_ascii_alphanumeric() || "._-".contains(ch))
            {
                return err(format!("cluster.topics[{i}].name '{}' is not a legal topic name", t.name));
            }
            if !names.insert(t.name.clone()) {
                return err(format!("cluster.topics lists topic '{}' twice", t.name));
            }
            if t.partitions == 0 {
                return err(format!("cluster.topics[{i}] ('{}') has 0 partitions", t.name));
            }
            if t.name == OFFSETS_TOPIC && t.partitions != c.offsets_topic_partitions {
                return err(format!(
                    "cluster.topics[{i}]: {OFFSETS_TOPIC} has {} partitions but offsets_topic_partitions is {}",
                    t.partitions, c.offsets_topic_partitions
                ));
            }
            if t.replication_factor == 0 || t.replication_factor as usize > brokers.len() {
                return err(format!(
                    "cluster.topics[{i}] ('{}'): replication_factor {} must be between 1 and the {} brokers",
                    t.name,
                    t.replication_factor,
                    brokers.len()
                ));
            }
            total += t.partitions;
            if total > 500 {
                return err("the cluster has more than 500 partitions; the limit is 500".into());
            }
            let n = brokers.len();
            for p in 0..t.partitions {
                // Round-robin as AdminUtils.assignReplicasToBrokers without racks and without the
                // random shift: replica r of partition p goes to broker (start + p + r) mod n.
                let replicas: Vec<BrokerId> = (0..t.replication_factor as usize)
                    .map(|r| brokers[(t.start_index as usize + p as usize + r) % n])
                    .collect();
                let tp = TopicPartition::new(&t.name, p);
                initial.insert(tp.clone(), (t.leader_epoch.max(0), t.zk_version.max(0)));
                assignment.insert(tp, replicas);
            }
        }
        let zk = self.ensemble(&brokers)?;
        let mut ids = VecSet::new();
        for (i, cs) in self.consumers.iter().enumerate() {
            if cs.group.is_empty() {
                return err(format!("consumers[{i}].group is empty"));
            }
            if cs.group.chars().count() > 255 {
                return err(format!("consumers[{i}].group is longer than 255 characters"));
            }
            if !ids.insert(cs.id) {
                return err(format!("consumers lists client id {} twice", cs.id));
            }
        }
        let known = |n: NodeId| match n {
            NodeId::Zk(_) => zk.servers.contains(&n),
            NodeId::Broker(b) => brokers.contains(&b),
            NodeId::Client(c) => ids.contains(&c),
            NodeId::Voter(v) => (1..=crate::mode::KRAFT_VOTERS).contains(&v),
        };
        let check = |what: String, cmd: &Command| -> Result<(), ScenarioError> {
            cmd.validate(&known).map_err(|e| match e {
                CommandError::UnknownNode(n) => ScenarioError(format!(
                    "{what} ({}): unknown node {n}; nodes are {}",
                    cmd.describe(),
                    node_list(&zk.servers, &brokers, &ids)
                )),
                CommandError::Invalid(m) => ScenarioError(format!("{what}: {m}")),
            })
        };
        let mut last = 0;
        for (i, e) in self.script.iter().enumerate() {
            check(format!("script[{i}]"), &e.command)?;
            last = last.max(e.at_ms);
        }
        let mut after_steps: Vec<(u64, Command)> = Vec::with_capacity(self.after_steps.len());
        for (i, f) in self.after_steps.iter().enumerate() {
            check(format!("after_steps[{i}]"), &f.command)?;
            after_steps.push((f.after_step, f.command.clone()));
        }
        crate::sorted::sort_by_key(&mut after_steps, |(s, _)| *s);
        if let Some(w) = after_steps.windows(2).find(|w| w[0].0 == w[1].0) {
            return err(format!("after_steps lists step {} twice; one fault per step", w[0].0));
        }
        let end_ms = self.end_ms.unwrap_or(last + 30_000);
        if end_ms < last {
            return err(format!("end_ms = {end_ms} is before the last scripted fault at {last} ms"));
        }
        Ok(Config {
            brokers,
            session_timeout_ms: c.session_timeout_ms,
            latency: c.latency,
            topics: names.into_iter().collect(),
            assignment,
            initial,
            offsets_partitions: c.offsets_topic_partitions,
            unclean: c.unclean_leader_election,
            controller,
            controller_epoch: c.controller_epoch,
            replica_lag_ms: c.replica_lag_time_max_ms,
            consumers: self.consumers.clone(),
            end_ms,
            mode: self.mode.unwrap_or_default(),
            after_steps,
            zk,
        })
    }

    /// The explorer's cluster: the same brokers, topics and timeouts on one standalone ZooKeeper
    /// server `zk` (keeping the scenario's tickTime), whose faults (`cut b1 zk`, …) its alphabet
    /// names. Searching an ensemble's own faults (server links, a server's crash) is not done yet.
    pub fn pin_zookeeper(&mut self) {
        let (tick_ms, sync_limit) =
            self.cluster.zookeeper.as_ref().map(|z| (z.tick_ms, z.sync_limit)).unwrap_or((d_tick(), d_sync()));
        self.cluster.zookeeper = Some(ZkSpec { servers: 1, tick_ms, sync_limit, connect: BTreeMap::new() });
    }

    /// `cluster.zookeeper`, validated, or the default ensemble (see [`ZkSpec`]).
    fn ensemble(&self, brokers: &[BrokerId]) -> Result<ZkEnsemble, ScenarioError> {
        let names_zk = self
            .script
            .iter()
            .map(|e| &e.command)
            .chain(self.after_steps.iter().map(|f| &f.command))
            .any(|c| c.nodes().contains(&NodeId::ZK));
        let spec = self.cluster.zookeeper.clone().unwrap_or(ZkSpec {
            servers: if names_zk { 1 } else { 3 },
            tick_ms: d_tick(),
            sync_limit: d_sync(),
            connect: BTreeMap::new(),
        });
        if ![1, 3, 5].contains(&spec.servers) {
            return err(format!("cluster.zookeeper.servers = {}: an ensemble has 1, 3 or 5 servers", spec.servers));
        }
        if spec.tick_ms < 100 || spec.tick_ms > 60_000 {
            return err(format!("cluster.zookeeper.tick_ms = {} is out of range 100..=60000", spec.tick_ms));
        }
        if spec.sync_limit < 1 || spec.sync_limit > 100 {
            return err(format!("cluster.zookeeper.sync_limit = {} is out of range 1..=100", spec.sync_limit));
        }
        let servers: Vec<NodeId> =
            if spec.servers == 1 { alloc::vec![NodeId::ZK] } else { (1..=spec.servers).map(NodeId::Zk).collect() };
        let mut connect = VecMap::new();
        for (key, list) in &spec.connect {
            let b: BrokerId = key
                .parse()
                .ok()
                .filter(|b| brokers.contains(b))
                .ok_or_else(|| ScenarioError(format!("cluster.zookeeper.connect: '{key}' is not a broker id")))?;
            if list.is_empty() {
                return err(format!("cluster.zookeeper.connect[{key}] is empty"));
            }
            if let Some(n) = list.iter().find(|n| !servers.contains(n)) {
                return err(format!(
                    "cluster.zookeeper.connect[{key}]: {n} is not a ZooKeeper server of this ensemble"
                ));
            }
            connect.insert(b, list.clone());
        }
        // StaticHostProvider (3.4.10 StaticHostProvider.java:94) walks the list round robin; the
        // default list starts each broker at a different server so the clients spread out.
        let n = servers.len();
        for &b in brokers {
            connect.or_insert_with(b, || {
                let start = (b - 1).rem_euclid(n as BrokerId) as usize;
                (0..n).map(|i| servers[(start + i) % n]).collect()
            });
        }
        Ok(ZkEnsemble { servers, tick_ms: spec.tick_ms, sync_limit: spec.sync_limit, connect })
    }
}

fn node_list(servers: &[NodeId], brokers: &[BrokerId], clients: &VecSet<u32>) -> String {
    let mut v: Vec<String> = servers.iter().map(|s| s.to_string()).collect();
    v.extend(brokers.iter().map(|b| format!("b{b}")));
    v.extend(clients.iter().map(|c| format!("c{c}")));
    v.join(", ")
}

/// Checks that a command makes sense on its own; see [`Command::validate`].
pub fn validate_command(cmd: &Command) -> Result<(), String> {
    cmd.validate(&|_| true).map_err(|e| e.to_string())
}

/// The built-in scenarios, by name.
pub fn builtins() -> Vec<(&'static str, &'static str)> {
    alloc::vec![
        ("seed-incident", include_str!("../scenarios/seed-incident.json")),
        ("seed-incident-recovery", include_str!("../scenarios/seed-incident-recovery.json")),
        ("zkclient-retry", include_str!("../scenarios/zkclient-retry.json")),
        ("clean-failover", include_str!("../scenarios/clean-failover.json")),
        ("controller-moved", include_str!("../scenarios/controller-moved.json")),
        ("operator-delete", include_str!("../scenarios/operator-delete.json")),
        ("kafka-6879-deadlock", include_str!("../scenarios/kafka-6879-deadlock.json")),
    ]
}

/// A built-in scenario by name.
pub fn builtin(name: &str) -> Option<Scenario> {
    builtins().into_iter().find(|(n, _)| *n == name).and_then(|(_, j)| Scenario::from_json(j).ok())
}

/// Names of the built-ins.
pub fn builtin_names() -> Vec<String> {
    builtins().into_iter().map(|(n, _)| n.to_string()).collect()
}
