//! The steady state a scenario describes, at time 0: every broker registered and caught up, one
//! controller with a loaded context, every partition led by its first replica, each consumer
//! stable in its group. The control plane is built once for the behaviour: ZooKeeper's tree with
//! its sessions, ephemerals and watches, or a KRaft quorum with every broker's metadata image.
use super::{Item, World};
use crate::alerts;
use crate::broker::Broker;
use crate::consumer::Consumer;
use crate::controller::partition_state::PartitionState;
use crate::controller::replica_state::ReplicaState;
use crate::controller::{Cached, ControllerContext};
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::kraft::Kraft;
use crate::message::PartitionStateInfo;
use crate::network::Network;
use crate::rng::Rng;
use crate::scenario::{Config, Mode, Scenario, ScenarioError, OFFSETS_TOPIC};
use crate::sched::Queue;
use crate::sorted::CollectOrdered;
use crate::vec_map::{VecMap, VecSet};
use crate::znodes::{LeaderIsr, ZData};
use crate::zookeeper::data_tree::DataTree;
use crate::zookeeper::ops::ZkOp;
use crate::zookeeper::server::ZkServerNode;
use crate::zookeeper::session::SessionId;
use alloc::format;
use alloc::rc::Rc;
use alloc::vec::Vec;

impl World {
    /// Builds the world at time 0 in the steady state the scenario describes, in the scenario's
    /// [opening mode](Scenario::opening_mode).
    pub fn new(scenario: &Scenario) -> Result<World, ScenarioError> {
        Self::with_seed(scenario, scenario.seed)
    }

    /// Same, with another seed.
    pub fn with_seed(scenario: &Scenario, seed: u64) -> Result<World, ScenarioError> {
        Self::with_mode(scenario, seed, scenario.opening_mode(None))
    }

    /// Same, with another seed and Kafka behaviour.
    pub fn with_mode(scenario: &Scenario, seed: u64, mode: Mode) -> Result<World, ScenarioError> {
        let mut cfg = scenario.config()?;
        cfg.mode = mode;
        let net = Network::new(&cfg.nodes(), &cfg.latency);
        let (plane, brokers) = Self::plane_steady_state(&cfg);
        let mut consumers = VecMap::new();
        for c in &cfg.consumers {
            let p = crate::consumer::coordinator_partition(&c.group, cfg.offsets_partitions);
            let coordinator = cfg.assignment.get(&TopicPartition::new(OFFSETS_TOPIC, p)).map(|r| r[0]);
            consumers.insert(
                c.id,
                Rc::new(Consumer::stable(c.id, &c.group, cfg.offsets_partitions, coordinator, cfg.brokers.clone())),
            );
        }
        let mut queue = Queue::default();
        let mut script: Vec<(usize, &crate::scenario::ScriptEntry)> = scenario.script.iter().enumerate().collect();
        crate::sorted::sort_by_key(&mut script, |(i, e)| (e.at_ms, *i));
        for (_, e) in script {
            queue.push(e.at_ms, Item::Script(e.command.clone()));
        }
        let mut w = World {
            cfg: Rc::new(cfg),
            name: scenario.name.clone(),
            seed,
            now: 0,
            step: 0,
            queue,
            rng: Rng::new(seed),
            net: Rc::new(net),
            plane,
            brokers,
            consumers,
            next_msg: 1,
            alerts: Vec::new(),
            alert_memo: alerts::Incremental::default(),
            touched: alerts::Touched::default(),
            isr_seen: VecMap::new(),
            relay_seen: VecMap::new(),
            relay_zk_seen: VecMap::new(),
            isr_links: Vec::new(),
            last_dropped: Vec::new(),
            last_delivered: None,
            last_node: None,
            stalled: Vec::new(),
            limits: crate::limits::Limits::default(),
            render: true,
            spare: Vec::new(),
        };
        // ZooKeeper's implicit PING round as the steady state leaves it (nothing in KRaft).
        let mut log =
            super::StepLog::new(true, NodeId::ZK, crate::event::EventKind::Info, alloc::string::String::new());
        w.sync_zk_relay(&mut log);
        w.alerts = w.compute_alerts(None).unwrap_or_default();
        w.touched.clear();
        Ok(w)
    }
}

/// A broker process that is up, registered and started, at incarnation 1.
fn running_broker(cfg: &Config, b: BrokerId) -> Broker {
    let mut br = Broker::new(b);
    br.alive = true;
    br.incarnation = 1;
    br.zk.connected();
    br.registered = true;
    br.set_started();
    br.controller_epoch = cfg.controller_epoch;
    br
}

/// ZooKeeper: `/controller_epoch`, `/isr_change_notification`, every broker's session and
/// ephemeral registration, `/controller` held by the configured controller, the topics'
/// assignments and partition states; every broker watches `/controller`, and the controller also
/// watches `/brokers/ids`, `/isr_change_notification` and `/brokers/topics`, with its context
/// loaded and both state machines Online.
pub(super) fn zookeeper_steady_state(cfg: &Config) -> (VecMap<NodeId, ZkServerNode>, VecMap<BrokerId, Rc<Broker>>) {
    let mut zk = DataTree::new();
    let epoch = cfg.controller_epoch;
    zk.seed_node("/controller_epoch", ZData::ControllerEpoch { epoch }, None);
    zk.seed_version("/controller_epoch", epoch - 1);
    zk.seed_node("/isr_change_notification", ZData::Empty, None);
    let mut sessions: VecMap<BrokerId, SessionId> = VecMap::new();
    for &b in &cfg.brokers {
        let s = zk.open_session(NodeId::Broker(b), cfg.session_timeout_ms, 0);
        sessions.insert(b, s);
        zk.seed_node(&format!("/brokers/ids/{b}"), ZData::Broker { id: b }, Some(s));
    }
    zk.seed_node(
        "/controller",
        ZData::Controller { broker_id: cfg.controller, timestamp: 0 },
        Some(sessions[&cfg.controller]),
    );
    for t in &cfg.topics {
        let partitions = cfg.partitions_of(t).map(|tp| (tp.partition, cfg.assignment[tp].clone())).collect_ordered();
        zk.seed_node(&format!("/brokers/topics/{t}"), ZData::Assignment { partitions }, None);
    }
    let mut leadership = VecMap::new();
    for (tp, replicas) in &cfg.assignment {
        let (le, ver) = cfg.initial[tp];
        let state = LeaderIsr { leader: replicas[0], leader_epoch: le, isr: replicas.clone(), controller_epoch: epoch };
        zk.seed_node(&tp.state_path(), ZData::PartitionState { state: state.clone() }, None);
        zk.seed_version(&tp.state_path(), ver);
        leadership.insert(tp.clone(), alloc::rc::Rc::new(Cached { state, zk_version: ver }));
    }
    let live: VecSet<BrokerId> = cfg.brokers.iter().copied().collect_ordered();
    let infos: VecMap<TopicPartition, PartitionStateInfo> =
        leadership.iter().map(|(tp, c)| (tp.clone(), c.info(tp, cfg.assignment[tp].clone()))).collect_ordered();
    let mut brokers = VecMap::new();
    for &b in &cfg.brokers {
        let s = sessions[&b];
        let mut br = running_broker(cfg, b);
        br.zk.session = Some(s);
        br.zk.servers = cfg.zk.connect_of(b);
        br.controller.active_id = cfg.controller;
        // The watches the broker's reads left, on the server it is connected to (each server's
        // copy of the tree drops the others' below) and in its client's `ZKWatchManager`.
        let read = ZkOp::GetData { path: "/controller".into(), watch: true };
        let (r, _) = zk.apply(s, &read, 0);
        br.zk.note_watch(&read, &r);
        if b == cfg.controller {
            for path in ["/brokers/ids", "/isr_change_notification", "/brokers/topics"] {
                let read = ZkOp::GetChildren { path: path.into(), watch: true };
                let (r, _) = zk.apply(s, &read, 0);
                br.zk.note_watch(&read, &r);
            }
            let ver = zk.get("/controller_epoch").map(|n| n.stat.version).unwrap_or(0);
            br.controller.ctx = ControllerContext {
                epoch,
                epoch_zk_version: ver,
                live_brokers: live.clone(),
                assignment: cfg.assignment.clone().into(),
                leadership: Rc::new(leadership.clone()),
                log: Default::default(),
                loaded: true,
            };
            br.controller.listeners = true;
            for (tp, replicas) in &cfg.assignment {
                br.controller.partition_states.insert(tp.clone(), PartitionState::OnlinePartition);
                for r in replicas {
                    br.controller.replica_states.insert((tp.clone(), *r), ReplicaState::OnlineReplica);
                }
            }
        }
        br.load_metadata(live.clone(), infos.clone());
        brokers.insert(b, Rc::new(br));
    }
    // Every server holds the same tree at time 0; with equal zxids the highest id won the
    // election (FastLeaderElection.totalOrderPredicate).
    let ens = &cfg.zk;
    let leader = ens.servers.iter().max().copied();
    let mut servers = VecMap::new();
    for &id in &ens.servers {
        let peers: Vec<NodeId> = ens.servers.iter().copied().filter(|p| *p != id).collect();
        let mut z = ZkServerNode::member(id, peers, zk.clone(), ens.tick_ms, ens.sync_limit, leader, 0);
        for (b, br) in &brokers {
            let br: &Rc<Broker> = br;
            if br.zk.server() == id {
                z.seed_client(NodeId::Broker(*b), sessions[b]);
            } else {
                z.drop_watches(sessions[b]);
            }
        }
        servers.insert(id, z);
    }
    (servers, brokers)
}

/// KRaft: the quorum with its committed metadata log, and every broker having published the
/// image it describes. Brokers hold no ZooKeeper session and run no controller.
pub(super) fn kraft_steady_state(cfg: &Config) -> (Kraft, VecMap<BrokerId, Rc<Broker>>) {
    let quorum = Kraft::new(cfg);
    let img = quorum.image().clone();
    let mut brokers = VecMap::new();
    for &b in &cfg.brokers {
        let mut br = running_broker(cfg, b);
        br.load_metadata_image(&img);
        brokers.insert(b, Rc::new(br));
    }
    (quorum, brokers)
}
