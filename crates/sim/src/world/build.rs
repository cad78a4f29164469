//! The steady state a scenario describes, at time 0: every broker registered and caught up, one
//! controller with a loaded context, every partition led by its first replica, each consumer
//! stable in its group. The control plane is built once for the behaviour: ZooKeeper's tree with
//! its sessions, ephemerals and watches, or a KRaft quorum with every broker's metadata image.
use super::{ControlPlane, Item, World};
use crate::alerts;
use crate::broker::Broker;
use crate::consumer::Consumer;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use crate::network::Network;
use crate::rng::Rng;
use crate::scenario::{Config, Mode, Scenario, ScenarioError, OFFSETS_TOPIC};
use crate::sched::Queue;
use crate::vec_map::VecMap;
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
        let (plane, brokers) = ControlPlane::steady_state(&cfg);
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
pub(in crate::world) fn running_broker(cfg: &Config, b: BrokerId) -> Broker {
    let mut br = Broker::new(b);
    br.alive = true;
    br.incarnation = 1;
    br.zk.connected();
    br.registered = true;
    br.set_started();
    br.controller_epoch = cfg.controller_epoch;
    br
}
