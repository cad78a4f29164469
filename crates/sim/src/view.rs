//! Plain data for a UI or a JSON dump: nodes, links with messages in flight, the ZooKeeper tree,
//! each controller's cache beside ZooKeeper, partitions, consumers and alerts. Building a view
//! never changes the world.
use crate::alerts::Alert;
use crate::consumer::ConsumerStatus;
use crate::consumer::{java_string_hash, kafka_abs};
use crate::ids::{BrokerId, NodeId, NodeKind, TopicPartition};
use crate::message::Category;
use crate::scenario::OFFSETS_TOPIC;
use crate::world::{Item, World};
use crate::zk_client::ConnState;
use crate::znodes::leader_isr_json;
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::proto::Role;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// What a node's badge says of it, by kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    /// A stopped broker or voter process.
    Down,
    /// A broker: its ZooKeeper client's connection and session.
    Session(ConnState),
    /// A KRaft voter: its Raft role.
    Voter(crate::kraft::Role),
    /// A server of a ZooKeeper ensemble: its role.
    Zk(ZkRole),
    /// The one standalone ZooKeeper server.
    Standalone,
    /// A consumer: where it is with its coordinator.
    Consumer(ConsumerStatus),
}

impl NodeStatus {
    /// The snake_case word (`connected`, `expired`, `down`, `leader`, `coordinator_not_available`,
    /// …; empty for a standalone server).
    pub fn name(self) -> &'static str {
        match self {
            NodeStatus::Down => "down",
            NodeStatus::Session(s) => s.name(),
            NodeStatus::Voter(r) => r.name(),
            NodeStatus::Zk(r) => r.name(),
            NodeStatus::Standalone => "",
            NodeStatus::Consumer(c) => c.name(),
        }
    }
}

/// A ZooKeeper server's role as the view shows it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkRole {
    /// Leads the ensemble (a standalone server always leads).
    Leader,
    /// Follows the leader.
    Follower,
    /// Looking for a leader: serves no client.
    Looking,
}

impl ZkRole {
    /// The snake_case word.
    pub fn name(self) -> &'static str {
        match self {
            ZkRole::Leader => "leader",
            ZkRole::Follower => "follower",
            ZkRole::Looking => "looking",
        }
    }
}

/// Where a message is at the step shown.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageState {
    /// Sent, not yet delivered.
    InFlight,
    /// Delivered by this step.
    Delivered,
    /// Dropped by this step (a cut link or a dead node).
    Dropped,
}

impl MessageState {
    /// The snake_case word.
    pub fn name(self) -> &'static str {
        match self {
            MessageState::InFlight => "in_flight",
            MessageState::Delivered => "delivered",
            MessageState::Dropped => "dropped",
        }
    }
}

/// Where partition leadership is recorded: what a UI names when it says where a leader is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetadataStore {
    /// ZooKeeper: each partition's state znode, written by the controller.
    #[default]
    ZooKeeper,
    /// KRaft: the quorum's committed metadata log.
    MetadataLog,
}

/// What the run shows at this step, in one word, decided by the core so that every UI agrees.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Headline {
    /// More than one broker acts as controller.
    SplitBrain {
        /// The brokers with `isActive`.
        acting: Vec<BrokerId>,
        /// The broker `/controller` names.
        zk_controller: Option<BrokerId>,
    },
    /// The watched group has no coordinator: its partition has no live leader.
    Stuck {
        /// The group.
        group: String,
        /// Its coordinator partition.
        partition: TopicPartition,
        /// That partition's leader as recorded (in [`View::metadata`]; -1: none), if the
        /// partition is in the table.
        leader: Option<BrokerId>,
    },
    /// Neither.
    Calm,
}

/// A node in the picture.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct NodeView {
    /// Id.
    pub id: NodeId,
    /// What kind of node.
    pub kind: NodeKind,
    /// Label.
    pub label: String,
    /// Process running.
    pub alive: bool,
    /// Its state: a broker's ZooKeeper session, a voter's or server's role, a consumer's status.
    pub status: NodeStatus,
    /// Session id, hex.
    pub session_id: Option<String>,
    /// Holds `/controller` in ZooKeeper.
    pub zk_controller: bool,
    /// Believes it is controller (`isActive`).
    pub acting_controller: bool,
    /// `ReplicaManager.controllerEpoch`.
    pub controller_epoch: i32,
    /// Partitions it leads locally (`topic-p`).
    pub leads: Vec<String>,
    /// The controller event being processed and the queue behind it.
    pub controller_queue: Vec<String>,
    /// What the controller thread is blocked on.
    pub controller_waiting: Option<String>,
    /// A broker: the ZooKeeper server its client is connected to (or tries next).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zk_server: Option<NodeId>,
    /// It leads [`View::watched`] (the group's coordinator partition) locally.
    #[serde(default)]
    pub leads_watched: bool,
}

/// A ZooKeeper server of the ensemble.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ZkServerView {
    /// `zk` (standalone) or `zk1`…`zk5`.
    pub id: NodeId,
    /// Its role.
    pub role: ZkRole,
    /// The leader it follows (itself when it leads).
    pub leader: Option<NodeId>,
    /// The zxid of the last transaction it applied.
    pub zxid: u64,
    /// The clients connected to it.
    pub clients: Vec<NodeId>,
}

/// A link.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LinkView {
    /// End a.
    pub a: NodeId,
    /// End b.
    pub b: NodeId,
    /// a → b passes.
    pub a_to_b: bool,
    /// b → a passes.
    pub b_to_a: bool,
    /// Latency ms.
    pub latency_ms: u64,
}

/// A message in flight, delivered or dropped in the last step.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct MessageView {
    /// Id.
    pub id: u64,
    /// From.
    pub from: NodeId,
    /// To.
    pub to: NodeId,
    /// What kind of message.
    pub category: Category,
    /// Label.
    pub label: String,
    /// Sent at.
    pub sent_ms: u64,
    /// Arrives at.
    pub deliver_ms: u64,
    /// In flight, delivered or dropped.
    pub state: MessageState,
}

/// A znode.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ZnodeView {
    /// Path.
    pub path: String,
    /// Data as Kafka writes it.
    pub data: String,
    /// Data version.
    pub version: i32,
    /// Ephemeral owner: session id and the broker holding it.
    pub ephemeral_owner: Option<String>,
    /// The partition it belongs to: a partition's znode `/brokers/topics/<t>/partitions/<p>` or
    /// its `state` child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<TopicPartition>,
}

/// One partition's leadership.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LeaderView {
    /// Leader.
    pub leader: BrokerId,
    /// Leader epoch.
    pub leader_epoch: i32,
    /// ISR.
    pub isr: Vec<BrokerId>,
    /// Controller epoch.
    pub controller_epoch: i32,
    /// Znode version.
    pub zk_version: i32,
}

impl LeaderView {
    fn of(s: &LeaderIsr, v: i32) -> Self {
        LeaderView {
            leader: s.leader,
            leader_epoch: s.leader_epoch,
            isr: s.isr.clone(),
            controller_epoch: s.controller_epoch,
            zk_version: v,
        }
    }
}

/// A cached partition next to ZooKeeper.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct CacheRow {
    /// Partition.
    pub tp: TopicPartition,
    /// Controller's cache.
    pub cache: Option<LeaderView>,
    /// ZooKeeper.
    pub zk: Option<LeaderView>,
    /// Leader, ISR or leader epoch differ.
    pub differs: bool,
}

/// A broker's controller context.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ControllerView {
    /// Broker.
    pub broker: BrokerId,
    /// `isActive`.
    pub active: bool,
    /// `activeControllerId`.
    pub active_controller_id: BrokerId,
    /// Context epoch.
    pub epoch: i32,
    /// Live brokers in the context.
    pub live_brokers: Vec<BrokerId>,
    /// Rows (only when the context is loaded).
    pub rows: Vec<CacheRow>,
    /// Number of differing rows.
    pub differing: usize,
}

/// A partition row.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PartitionView {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: u32,
    /// Replicas.
    pub replicas: Vec<BrokerId>,
    /// Leader (ZooKeeper).
    pub leader: BrokerId,
    /// ISR.
    pub isr: Vec<BrokerId>,
    /// Leader epoch.
    pub leader_epoch: i32,
    /// Controller epoch of the decision.
    pub controller_epoch: i32,
    /// Znode version.
    pub zk_version: i32,
}

impl PartitionView {
    /// Whether this row is `tp`.
    pub fn is(&self, tp: &TopicPartition) -> bool {
        self.partition == tp.partition && self.topic == tp.topic.as_str()
    }
}

impl From<crate::message::PartitionStateInfo> for PartitionView {
    fn from(i: crate::message::PartitionStateInfo) -> Self {
        PartitionView {
            topic: i.tp.topic.into(),
            partition: i.tp.partition,
            replicas: i.replicas,
            leader: i.leader,
            isr: i.isr,
            leader_epoch: i.leader_epoch,
            controller_epoch: i.controller_epoch,
            zk_version: i.zk_version,
        }
    }
}

/// A consumer.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ConsumerView {
    /// Client id.
    pub id: u32,
    /// Group.
    pub group: String,
    /// Java hashCode.
    pub hash_code: i32,
    /// Utils.abs of it.
    pub abs_hash: i32,
    /// `offsets.topic.num.partitions`.
    pub partitions: u32,
    /// Coordinator partition.
    pub coordinator_partition: u32,
    /// Status.
    pub status: ConsumerStatus,
    /// Coordinator broker.
    pub coordinator: Option<BrokerId>,
    /// Attempts since it lost its coordinator.
    pub attempts: u32,
}

impl ConsumerView {
    /// Its coordinator partition: partition [`ConsumerView::coordinator_partition`] of the
    /// offsets topic.
    pub fn coordinator_tp(&self) -> TopicPartition {
        TopicPartition::new(OFFSETS_TOPIC, self.coordinator_partition)
    }
}

/// The full state for a UI.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct View {
    /// Scenario name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Kafka behaviour, as [`crate::scenario::Mode::name`] writes it.
    pub mode: String,
    /// Step.
    pub step: u64,
    /// Time.
    pub time_ms: u64,
    /// Nodes.
    pub nodes: Vec<NodeView>,
    /// Links.
    pub links: Vec<LinkView>,
    /// Messages.
    pub messages: Vec<MessageView>,
    /// ZooKeeper tree (the leader's replica).
    pub zk_tree: Vec<ZnodeView>,
    /// The ZooKeeper servers (empty in `kraft` mode).
    #[serde(default)]
    pub zk_servers: Vec<ZkServerView>,
    /// The leading ZooKeeper server, if one leads.
    #[serde(default)]
    pub zk_leader: Option<NodeId>,
    /// Controllers (every broker's controller component).
    pub controllers: Vec<ControllerView>,
    /// Partitions.
    pub partitions: Vec<PartitionView>,
    /// Consumers.
    pub consumers: Vec<ConsumerView>,
    /// Alerts.
    pub alerts: Vec<Alert>,
    /// Broker in `/controller`.
    pub zk_controller: Option<BrokerId>,
    /// Brokers with `isActive`.
    pub acting_controllers: Vec<BrokerId>,
    /// The run is over.
    pub finished: bool,
    /// The partition the story watches: the first consumer's coordinator partition.
    pub watched: Option<TopicPartition>,
    /// The group whose coordinator partition [`View::watched`] is.
    #[serde(default)]
    pub watched_group: Option<String>,
    /// Where partition leadership is recorded: ZooKeeper, or (KRaft) the metadata log.
    #[serde(default)]
    pub metadata: MetadataStore,
    /// KRaft: the voter leading the quorum, if one leads.
    #[serde(default)]
    pub quorum_leader: Option<NodeId>,
    /// Split brain, stuck or calm.
    pub headline: Headline,
}

impl View {
    /// The row of `tp` in the partition table.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&PartitionView> {
        self.partitions.iter().find(|p| p.is(tp))
    }

    /// The leader of the watched partition as recorded (-1: none), if there is one to watch.
    pub fn watched_leader(&self) -> Option<BrokerId> {
        self.watched.as_ref().and_then(|tp| self.partition(tp)).map(|p| p.leader)
    }
}

/// The end-of-run summary (`{"final": ...}` of `splitbrain run --json`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// Scenario.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Kafka behaviour.
    pub mode: String,
    /// Steps.
    pub steps: u64,
    /// Virtual time.
    pub time_ms: u64,
    /// Partitions.
    pub partitions: Vec<PartitionView>,
    /// `/controller` holder.
    pub zk_controller: Option<BrokerId>,
    /// Acting controllers.
    pub acting_controllers: Vec<BrokerId>,
    /// Consumers.
    pub consumers: Vec<ConsumerView>,
    /// Alerts.
    pub alerts: Vec<Alert>,
}

impl World {
    /// A znode, when the control plane is ZooKeeper.
    pub(crate) fn znode(&self, path: &str) -> Option<&crate::zookeeper::data_tree::Znode> {
        self.zk()?.get(path)
    }

    /// `/controller`'s broker.
    pub fn zk_controller(&self) -> Option<BrokerId> {
        match self.znode("/controller").map(|n| &n.data) {
            Some(ZData::Controller { broker_id, .. }) => Some(*broker_id),
            _ => None,
        }
    }

    /// Live brokers with `isActive`.
    pub fn acting_controllers(&self) -> Vec<BrokerId> {
        self.brokers().filter(|b| b.alive && b.is_active()).map(|b| b.id).collect()
    }

    /// The partition table as ZooKeeper holds it (in `kraft` mode: the committed metadata).
    pub fn partition_views(&self) -> Vec<PartitionView> {
        self.plane_partition_states().into_iter().map(PartitionView::from).collect()
    }

    /// Consumers.
    pub fn consumer_views(&self) -> Vec<ConsumerView> {
        self.consumers()
            .map(|c| {
                let h = java_string_hash(&c.group);
                ConsumerView {
                    id: c.id,
                    group: c.group.clone(),
                    hash_code: h,
                    abs_hash: kafka_abs(h),
                    partitions: self.config().offsets_partitions,
                    coordinator_partition: c.partition,
                    status: c.status,
                    coordinator: c.coordinator,
                    attempts: c.attempts,
                }
            })
            .collect()
    }

    /// The summary.
    pub fn summary(&self) -> Summary {
        Summary {
            scenario: self.name().into(),
            seed: self.seed(),
            mode: self.mode().name().into(),
            steps: self.step_count(),
            time_ms: self.now(),
            partitions: self.partition_views(),
            zk_controller: self.zk_controller(),
            acting_controllers: self.acting_controllers(),
            consumers: self.consumer_views(),
            alerts: self.alerts().to_vec(),
        }
    }

    /// The ZooKeeper servers, their roles and clients (empty in `kraft` mode).
    pub fn zk_server_views(&self) -> Vec<ZkServerView> {
        self.zk_servers()
            .map(|z| {
                let (role, leader) = match z.role() {
                    Role::Leading => (ZkRole::Leader, Some(z.id())),
                    Role::Following(l) => (ZkRole::Follower, Some(l)),
                    Role::Looking => (ZkRole::Looking, None),
                };
                ZkServerView {
                    id: z.id(),
                    role,
                    leader,
                    zxid: z.zxid(),
                    clients: z.clients().keys().copied().collect(),
                }
            })
            .collect()
    }

    /// Everything a UI draws.
    pub fn view(&self) -> View {
        let zkc = self.zk_controller();
        let consumers = self.consumer_views();
        let watched = consumers.first().map(ConsumerView::coordinator_tp);
        let mut nodes = Vec::new();
        nodes.extend(self.plane_voter_views());
        let zk_servers = self.zk_server_views();
        for z in &zk_servers {
            nodes.push(NodeView {
                id: z.id,
                kind: NodeKind::Zk,
                label: if z.id == NodeId::ZK { "ZooKeeper".into() } else { format!("ZooKeeper {}", z.id) },
                alive: true,
                status: if z.id == NodeId::ZK { NodeStatus::Standalone } else { NodeStatus::Zk(z.role) },
                session_id: None,
                zk_controller: false,
                acting_controller: false,
                controller_epoch: match self.znode("/controller_epoch").map(|n| &n.data) {
                    Some(ZData::ControllerEpoch { epoch }) => *epoch,
                    _ => 0,
                },
                leads: Vec::new(),
                controller_queue: Vec::new(),
                controller_waiting: None,
                zk_server: None,
                leads_watched: false,
            });
        }
        for b in self.brokers() {
            let mut q: Vec<String> = Vec::new();
            if let Some(j) = &b.controller.job {
                q.push(format!("▶ {}", j.event.name()));
            }
            if let Some(s) = &b.controller.stuck {
                // KAFKA-6879: `clearAndPut` left `Expire` behind the event that never ends.
                q.push(format!("▶ {}", s.event));
                q.push("Expire".into());
            }
            q.extend(b.controller.queue.iter().map(|e| e.name()));
            nodes.push(NodeView {
                id: NodeId::Broker(b.id),
                kind: NodeKind::Broker,
                label: format!("broker {}", b.id),
                alive: b.alive,
                status: if b.alive { NodeStatus::Session(b.zk.state) } else { NodeStatus::Down },
                session_id: b.zk.session.map(|s| format!("0x{s:x}")),
                zk_controller: zkc == Some(b.id),
                acting_controller: b.alive && b.is_active(),
                controller_epoch: b.controller_epoch,
                leads: if b.alive {
                    b.partitions.iter().filter(|(_, p)| p.is_leader).map(|(tp, _)| format!("{tp}")).collect()
                } else {
                    Vec::new()
                },
                controller_queue: q,
                controller_waiting: b.controller.job.as_ref().and_then(|j| j.waiting_on()).or_else(|| {
                    b.controller
                        .stuck
                        .as_ref()
                        .map(|s| format!("{} (deadlocked on the ZooKeeper client's lock)", s.call))
                }),
                zk_server: self.plane_client_server(b),
                leads_watched: b.alive
                    && watched.as_ref().is_some_and(|w| b.partitions.get(w).is_some_and(|p| p.is_leader)),
            });
        }
        for c in self.consumers() {
            nodes.push(NodeView {
                id: NodeId::Client(c.id),
                kind: NodeKind::Client,
                label: format!("consumer {}", c.group),
                alive: true,
                status: NodeStatus::Consumer(c.status),
                session_id: None,
                zk_controller: false,
                acting_controller: false,
                controller_epoch: 0,
                leads: Vec::new(),
                controller_queue: Vec::new(),
                controller_waiting: None,
                zk_server: None,
                leads_watched: false,
            });
        }
        let links = self
            .network()
            .links()
            .map(|l| LinkView { a: l.a, b: l.b, a_to_b: l.a_to_b.up, b_to_a: l.b_to_a.up, latency_ms: l.latency_ms })
            .collect();
        let mut messages: Vec<MessageView> = Vec::new();
        let mv = |m: &crate::message::Message, state: MessageState| MessageView {
            id: m.id,
            from: m.from,
            to: m.to,
            category: m.payload.category(),
            label: m.payload.label(),
            sent_ms: m.sent_ms,
            deliver_ms: m.deliver_ms,
            state,
        };
        if let Some(m) = &self.last_delivered {
            messages.push(mv(m, MessageState::Delivered));
        }
        for m in &self.last_dropped {
            messages.push(mv(m, MessageState::Dropped));
        }
        for (_, item) in self.queued() {
            if let Item::Deliver(m) = item {
                if m.from != m.to {
                    messages.push(mv(m, MessageState::InFlight));
                }
            }
        }
        let mut zk_tree: Vec<ZnodeView> = Vec::new();
        zk_tree.extend(self.plane_log_entries());
        let zk_tree_zk = self
            .zk()
            .into_iter()
            .flat_map(|z| z.nodes())
            .filter(|(p, _)| *p != "/")
            .map(|(p, n)| ZnodeView {
                path: String::from(p),
                data: n.data.to_json(),
                version: n.stat.version,
                ephemeral_owner: n.stat.ephemeral_owner.map(|s| {
                    let owner =
                        self.zk().and_then(|z| z.session(s)).map(|x| format!(" ({})", x.owner)).unwrap_or_default();
                    format!("0x{s:x}{owner}")
                }),
                partition: TopicPartition::from_state_path(p)
                    .or_else(|| TopicPartition::from_state_path(&format!("{p}/state"))),
            })
            .collect::<Vec<ZnodeView>>();
        zk_tree.extend(zk_tree_zk);
        let mut controllers = Vec::new();
        for b in self.brokers() {
            let ctx = &b.controller.ctx;
            let mut rows = Vec::new();
            if ctx.loaded {
                for (tp, c) in ctx.leadership.iter() {
                    let zk = match self.znode(&tp.state_path()) {
                        Some(n) => match &n.data {
                            ZData::PartitionState { state } => Some(LeaderView::of(state, n.stat.version)),
                            _ => None,
                        },
                        None => None,
                    };
                    let cache = LeaderView::of(&c.state, c.zk_version);
                    let in_flight = b.controller.job.as_ref().is_some_and(|j| j.writing().contains(tp));
                    let differs = !in_flight
                        && zk
                            .as_ref()
                            .map(|z| {
                                z.leader != cache.leader || z.isr != cache.isr || z.leader_epoch != cache.leader_epoch
                            })
                            .unwrap_or(true);
                    rows.push(CacheRow { tp: tp.clone(), cache: Some(cache), zk, differs });
                }
            }
            let differing = rows.iter().filter(|r| r.differs).count();
            controllers.push(ControllerView {
                broker: b.id,
                active: b.alive && b.is_active(),
                active_controller_id: b.controller.active_id,
                epoch: ctx.epoch,
                live_brokers: ctx.live_brokers.iter().copied().collect(),
                rows,
                differing,
            });
        }
        let acting_controllers = self.acting_controllers();
        let partitions = self.partition_views();
        let leader_of = |tp: &TopicPartition| partitions.iter().find(|p| p.is(tp)).map(|p| p.leader);
        let headline = if acting_controllers.len() > 1 {
            Headline::SplitBrain { acting: acting_controllers.clone(), zk_controller: zkc }
        } else {
            match consumers.iter().find(|c| c.status == ConsumerStatus::CoordinatorNotAvailable) {
                Some(c) => {
                    let partition = c.coordinator_tp();
                    Headline::Stuck { group: c.group.clone(), leader: leader_of(&partition), partition }
                }
                None => Headline::Calm,
            }
        };
        View {
            scenario: self.name().into(),
            seed: self.seed(),
            mode: self.mode().name().into(),
            step: self.step_count(),
            time_ms: self.now(),
            nodes,
            links,
            messages,
            zk_tree,
            zk_leader: zk_servers.iter().find(|z| z.role == ZkRole::Leader).map(|z| z.id),
            zk_servers,
            controllers,
            watched_group: consumers.first().map(|c| c.group.clone()),
            partitions,
            consumers,
            alerts: self.alerts().to_vec(),
            zk_controller: zkc,
            acting_controllers,
            finished: self.finished(),
            watched,
            metadata: self.plane_metadata(),
            quorum_leader: self.plane_quorum_leader(),
            headline,
        }
    }
}

/// One line for a summary table.
pub fn describe_partition(p: &PartitionView) -> String {
    let s = LeaderIsr {
        leader: p.leader,
        leader_epoch: p.leader_epoch,
        isr: p.isr.clone(),
        controller_epoch: p.controller_epoch,
    };
    format!("{}-{} {} (zkVersion {})", p.topic, p.partition, leader_isr_json(&s), p.zk_version)
}
