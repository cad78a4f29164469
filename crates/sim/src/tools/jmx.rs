//! The gauges a JMX reader shows per broker, one line per broker and bean:
//! `<broker>\t<mbean>\tValue=<n>` (this project's line, not `kafka.tools.JmxTool`'s CSV). Bean names
//! are `KafkaMetricsGroup.explicitMetricName`'s `<package>:type=<class>,name=<name>` (1.0.0
//! `core/src/main/scala/kafka/metrics/KafkaMetricsGroup.scala:41-64`). Only running brokers answer.
//! - `ActiveControllerCount`: `if (isActive) 1 else 0` (1.0.0 `controller/KafkaController.scala:194-199`,
//!   `isActive` `:360`; 2.1.0 `:107-112`). Summed over brokers it is 2 in a split brain.
//! - `OfflinePartitionsCount`: 0 unless active, else the cached leaderships whose leader is not a
//!   live broker of the context (`updateMetrics`, 1.0.0 `KafkaController.scala:1615-1624`; no topic
//!   deletion is modelled). Kafka refreshes it after each controller event; here it is computed
//!   from the context at the step.
//! - `UnderReplicatedPartitions`: partitions this broker leads with `isr.size < replicas.size`
//!   (1.0.0 `server/ReplicaManager.scala:232,249`, `cluster/Partition.scala:128-129`).
use crate::ids::BrokerId;
use crate::world::World;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// `ActiveControllerCount`'s bean.
pub const ACTIVE_CONTROLLER_COUNT: &str = "kafka.controller:type=KafkaController,name=ActiveControllerCount";
/// `OfflinePartitionsCount`'s bean.
pub const OFFLINE_PARTITIONS_COUNT: &str = "kafka.controller:type=KafkaController,name=OfflinePartitionsCount";
/// `UnderReplicatedPartitions`' bean.
pub const UNDER_REPLICATED_PARTITIONS: &str = "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions";

/// One gauge reading.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Gauge {
    /// Broker.
    pub broker: BrokerId,
    /// MBean name.
    pub mbean: &'static str,
    /// Value.
    pub value: i64,
}

/// Every running broker's three gauges, by broker id.
pub fn gauges(world: &World) -> Vec<Gauge> {
    let mut out = Vec::new();
    let mut brokers: Vec<_> = world.brokers().filter(|b| b.alive).collect();
    crate::sorted::sort_by_key(&mut brokers, |b| b.id);
    for b in brokers {
        let active = b.is_active();
        let ctx = &b.controller.ctx;
        let offline = if active {
            ctx.leadership.values().filter(|c| !ctx.live_brokers.contains(&c.state.leader)).count()
        } else {
            0
        };
        let urp = b.partitions.values().filter(|p| p.is_leader && p.isr.len() < p.replicas.len()).count();
        for (mbean, value) in [
            (ACTIVE_CONTROLLER_COUNT, active as i64),
            (OFFLINE_PARTITIONS_COUNT, offline as i64),
            (UNDER_REPLICATED_PARTITIONS, urp as i64),
        ] {
            out.push(Gauge { broker: b.id, mbean, value });
        }
    }
    out
}

/// The lines.
pub fn render(g: &[Gauge]) -> String {
    let mut s = String::new();
    for x in g {
        let _ = writeln!(s, "{}\t{}\tValue={}", x.broker, x.mbean, x.value);
    }
    s
}
