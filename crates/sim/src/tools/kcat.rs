//! `kcat -L -b broker-N:9092`: kcat 1.7.1 `kcat.c:1105-1161` (`metadata_print`).
//!
//! The MetadataResponse is the bootstrap broker's metadata cache (1.0.0
//! `core/src/main/scala/kafka/server/MetadataCache.scala:66-106`, `getPartitionMetadata`): a
//! partition whose leader is not a live broker of that cache is `LEADER_NOT_AVAILABLE` with leader
//! `Node.noNode()` (-1) and an empty ISR (`:76-79`); with the v1+ request librdkafka sends, replicas
//! are never filtered (`getEndpoints`, `:54-64`), so no other partition error arises here.
//! librdkafka's `rd_kafka_err2str` names it `Broker: Leader not available`. The first request
//! goes to the bootstrap connection, whose node id is still -1 and whose name is
//! `host:port/bootstrap` (librdkafka's broker naming; not re-read from its source here).
//!
//! ` (controller)` marks `rd_kafka_controllerid` (`kcat.c:1120`), the response's controller id. The
//! model's metadata cache does not keep the UpdateMetadata's controller id, so the broker's
//! `activeControllerId` (what its `/controller` watch last read) stands in for it.
//! Brokers, topics and partitions are listed in id order.
use super::bootstrap;
use crate::ids::BrokerId;
use crate::world::World;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// One partition of the response.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct KcatPartition {
    /// Id.
    pub id: u32,
    /// Leader, -1 when not available.
    pub leader: BrokerId,
    /// Replicas.
    pub replicas: Vec<BrokerId>,
    /// ISR.
    pub isrs: Vec<BrokerId>,
    /// `rd_kafka_err2str` of the partition error, if any.
    pub err: Option<&'static str>,
}

/// The metadata kcat prints.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct KcatMetadata {
    /// The bootstrap broker asked (its `host:port`).
    pub bootstrap: BrokerId,
    /// Live brokers of its cache.
    pub brokers: Vec<BrokerId>,
    /// The controller id, or -1.
    pub controller: BrokerId,
    /// Topics and their partitions.
    pub topics: Vec<(String, Vec<KcatPartition>)>,
}

/// Asks `broker` (default: the lowest-numbered live one) for all topics' metadata.
pub fn metadata(world: &World, broker: Option<BrokerId>) -> Result<KcatMetadata, String> {
    let id = bootstrap(world, broker)?;
    let b = world.broker(id).expect("bootstrap checked it");
    let alive = &b.metadata.alive;
    let mut topics: Vec<(String, Vec<KcatPartition>)> = Vec::new();
    for (tp, s) in &b.metadata.partitions {
        if topics.last().is_none_or(|(t, _)| *t != tp.topic.as_str()) {
            topics.push((String::from(tp.topic.as_str()), Vec::new()));
        }
        let ok = s.leader >= 0 && alive.contains(&s.leader);
        topics.last_mut().expect("pushed").1.push(KcatPartition {
            id: tp.partition,
            leader: if ok { s.leader } else { -1 },
            replicas: s.replicas.clone(),
            isrs: if ok { s.isr.clone() } else { Vec::new() },
            err: (!ok).then_some("Broker: Leader not available"),
        });
    }
    Ok(KcatMetadata {
        bootstrap: id,
        brokers: alive.iter().copied().collect(),
        controller: if b.controller.active_id >= 0 { b.controller.active_id } else { -1 },
        topics,
    })
}

fn list(s: &mut String, v: &[BrokerId]) {
    for (k, b) in v.iter().enumerate() {
        let _ = write!(s, "{}{b}", if k > 0 { "," } else { "" });
    }
}

/// kcat's stdout.
pub fn render(m: &KcatMetadata) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Metadata for all topics (from broker -1: broker-{}:9092/bootstrap):", m.bootstrap);
    let _ = writeln!(s, " {} brokers:", m.brokers.len());
    for b in &m.brokers {
        let _ = writeln!(s, "  broker {b} at broker-{b}:9092{}", if *b == m.controller { " (controller)" } else { "" });
    }
    let _ = writeln!(s, " {} topics:", m.topics.len());
    for (t, parts) in &m.topics {
        let _ = writeln!(s, "  topic \"{t}\" with {} partitions:", parts.len());
        for p in parts {
            let _ = write!(s, "    partition {}, leader {}, replicas: ", p.id, p.leader);
            list(&mut s, &p.replicas);
            s.push_str(", isrs: ");
            list(&mut s, &p.isrs);
            match p.err {
                Some(e) => {
                    let _ = writeln!(s, ", {e}");
                }
                None => s.push('\n'),
            }
        }
    }
    s
}
