//! `kafka-topics.sh --describe`, in its two dialects.
//!
//! `--zookeeper` (1.0.0 `core/src/main/scala/kafka/admin/TopicCommand.scala:203-247`; 1.1.0 and
//! 2.1.0 print the same strings, 1.1.0 `TopicCommand.scala:227,243-249`, 2.1.0 `:228,244-250`): topics
//! sorted (`getTopics`, 1.0.0 `:85`), a header
//! `"Topic:%s\tPartitionCount:%d\tReplicationFactor:%d\tConfigs:%s%s"` (`:223`, no space after the
//! colons) and per partition `"\tTopic: "`, `"\tPartition: "`, `"\tLeader: "`, `"\tReplicas: "`,
//! `"\tIsr: "` (`:237-241`, with a space). The leader is the state znode's `"leader"` field
//! (`ZkUtils.getLeaderForPartition`, 1.0.0 `utils/ZkUtils.scala:339-343`), so a partition whose
//! znode says -1 prints `Leader: -1`; only a missing znode prints `none` (`:239`). Live brokers are
//! `/brokers/ids` (`ZkUtils.scala:325`); `--unavailable-partitions` keeps the partitions whose leader
//! is none or not live, `--under-replicated-partitions` those with `isr.size < replicas.size`
//! (`TopicCommand.scala:231-233`), and either drops the header (`:212`).
//!
//! `--bootstrap-server`: 2.2.0's AdminClient `TopicCommand` (the first with that option;
//! 2.2.0 `TopicCommand.scala:203-237`, header `:219`, partition line `printPartition` `:420-429`).
//! The leader is `Option(partition.leader())`: the broker answers a leaderless partition with
//! `LEADER_NOT_AVAILABLE`, leader `Node.noNode()` and an empty ISR (1.0.0
//! `server/MetadataCache.scala:76-79`); the client makes leader -1 `null` (2.2.0
//! `clients/.../requests/MetadataResponse.java:264`, `KafkaAdminClient.java:1488-1491`), so the tool
//! prints `Leader: none` and `Isr: ` (empty). The answer comes from one broker's metadata cache:
//! `Options::broker`, or the lowest-numbered live broker. The same 2.2.0 format is used in every
//! mode (kraft included: the model has no topic ids, so 3.x's `TopicId:` column is not drawn).
//!
//! `Configs:`: the model keeps no `/config/topics` znodes; `__consumer_offsets` shows the overrides
//! the broker creates it with (1.0.0 `coordinator/group/GroupCoordinator.scala:66-72`:
//! `cleanup.policy=compact`, `segment.bytes=104857600`, `compression.type=producer`) in the order a
//! `java.util.Hashtable` of 11 buckets iterates them (segment.bytes in bucket 8, then bucket 3);
//! other topics have none.
use super::{bootstrap, Options};
use crate::ids::BrokerId;
use crate::scenario::OFFSETS_TOPIC;
use crate::sorted::CollectOrdered;
use crate::vec_map::VecSet;
use crate::world::World;
use crate::znodes::ZData;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// One partition line.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PartitionRow {
    /// Partition id.
    pub partition: u32,
    /// The leader as the tool sees it; `None` prints `none`.
    pub leader: Option<BrokerId>,
    /// Assigned replicas.
    pub replicas: Vec<BrokerId>,
    /// ISR.
    pub isr: Vec<BrokerId>,
}

/// One topic.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TopicRows {
    /// Topic name.
    pub topic: String,
    /// The header line is printed (no `--unavailable-partitions` / `--under-replicated-partitions`).
    pub header: bool,
    /// `PartitionCount`.
    pub partition_count: usize,
    /// `ReplicationFactor` (the first partition's replica count).
    pub replication_factor: usize,
    /// `Configs` as `k=v,k=v`.
    pub configs: String,
    /// The partitions printed.
    pub partitions: Vec<PartitionRow>,
}

/// `Configs:` for a topic (see the module doc).
pub fn topic_configs(topic: &str) -> String {
    if topic == OFFSETS_TOPIC {
        String::from("segment.bytes=104857600,cleanup.policy=compact,compression.type=producer")
    } else {
        String::new()
    }
}

fn keep(p: &PartitionRow, opts: &Options, live: &VecSet<BrokerId>) -> bool {
    (!opts.under_replicated && !opts.unavailable)
        || (opts.under_replicated && p.isr.len() < p.replicas.len())
        || (opts.unavailable && p.leader.is_none_or(|l| !live.contains(&l)))
}

fn finish(topic: String, all: Vec<PartitionRow>, opts: &Options, live: &VecSet<BrokerId>) -> TopicRows {
    TopicRows {
        header: !opts.unavailable && !opts.under_replicated,
        partition_count: all.len(),
        replication_factor: all.first().map_or(0, |p| p.replicas.len()),
        configs: topic_configs(&topic),
        partitions: all.into_iter().filter(|p| keep(p, opts, live)).collect(),
        topic,
    }
}

/// `--zookeeper`: reads the ZooKeeper tree.
pub fn from_zookeeper(world: &World, opts: &Options) -> Result<Vec<TopicRows>, String> {
    let zk = world.zk().ok_or_else(|| {
        String::from("this mode has no ZooKeeper: kafka-topics.sh --zookeeper cannot run (try --as topics-admin)")
    })?;
    let live: VecSet<BrokerId> = zk.children("/brokers/ids").iter().filter_map(|s| s.parse().ok()).collect_ordered();
    let mut topics = zk.children("/brokers/topics");
    crate::sorted::sort(&mut topics);
    let mut out = Vec::new();
    for t in topics {
        let Some(ZData::Assignment { partitions }) = zk.get(&format!("/brokers/topics/{t}")).map(|n| &n.data) else {
            continue;
        };
        let rows = partitions
            .iter()
            .map(|(p, replicas)| {
                let state = match zk.get(&format!("/brokers/topics/{t}/partitions/{p}/state")).map(|n| &n.data) {
                    Some(ZData::PartitionState { state }) => Some(state),
                    _ => None,
                };
                PartitionRow {
                    partition: *p,
                    leader: state.map(|s| s.leader),
                    replicas: replicas.clone(),
                    isr: state.map(|s| s.isr.clone()).unwrap_or_default(),
                }
            })
            .collect();
        out.push(finish(t, rows, opts, &live));
    }
    Ok(out)
}

/// `--bootstrap-server`: one broker's MetadataResponse, from its metadata cache.
pub fn from_admin_client(world: &World, opts: &Options) -> Result<Vec<TopicRows>, String> {
    let id = bootstrap(world, opts.broker)?;
    let b = world.broker(id).expect("bootstrap checked it");
    let live = b.metadata.alive.clone();
    let mut topics: Vec<&str> = b.metadata.partitions.keys().map(|tp| tp.topic.as_str()).collect();
    topics.dedup();
    let mut out = Vec::new();
    for t in topics {
        let rows = b
            .metadata
            .partitions
            .iter()
            .filter(|(tp, _)| tp.topic == t)
            .map(|(tp, s)| {
                let leader = (s.leader >= 0 && live.contains(&s.leader)).then_some(s.leader);
                PartitionRow {
                    partition: tp.partition,
                    leader,
                    replicas: s.replicas.clone(),
                    isr: if leader.is_some() { s.isr.clone() } else { Vec::new() },
                }
            })
            .collect();
        out.push(finish(String::from(t), rows, opts, &live));
    }
    Ok(out)
}

fn ids(v: &[BrokerId]) -> String {
    let mut s = String::new();
    for (i, b) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{b}");
    }
    s
}

/// The tool's stdout.
pub fn render(topics: &[TopicRows]) -> String {
    let mut s = String::new();
    for t in topics {
        if t.header {
            let _ = writeln!(
                s,
                "Topic:{}\tPartitionCount:{}\tReplicationFactor:{}\tConfigs:{}",
                t.topic, t.partition_count, t.replication_factor, t.configs
            );
        }
        for p in &t.partitions {
            let leader = p.leader.map_or(String::from("none"), |l| format!("{l}"));
            let _ = writeln!(
                s,
                "\tTopic: {}\tPartition: {}\tLeader: {}\tReplicas: {}\tIsr: {}",
                t.topic,
                p.partition,
                leader,
                ids(&p.replicas),
                ids(&p.isr)
            );
        }
    }
    s
}
