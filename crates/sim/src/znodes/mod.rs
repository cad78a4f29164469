//! Kafka's znode schema (ZooKeeper-era Kafka, 1.0-2.1): what Kafka stores in each znode, typed
//! ([`ZData`]), with the JSON Kafka writes (`ZkUtils`, later `KafkaZkClient`'s `*ZNode.encode`),
//! and the leadership a partition's state znode holds ([`LeaderIsr`], with 1.0's
//! `LeaderAndIsr.toString` as [`leader_isr_json`]); [`writes`] is how Kafka's story reads a write
//! a ZooKeeper server commits. Who may call it: Kafka's side (the controller, brokers,
//! `zk_client.rs`, tools, views, alerts, the world's steady-state build) reads and writes it; the
//! ZooKeeper module holds [`ZData`] as opaque data in its requests and trees, and its server calls
//! [`writes`] at three points of a write. The schema itself depends on nothing of ZooKeeper;
//! [`writes`] reads its requests and a tree.
pub mod writes;

use crate::ids::{fmt_ids, BrokerId, TopicPartition};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// `kafka.api.LeaderAndIsr` plus the `controller_epoch` stored beside it in the state znode
/// (`LeaderIsrAndControllerEpoch`).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct LeaderIsr {
    /// Leader broker, or -1.
    pub leader: BrokerId,
    /// Leader epoch: bumped on every leader or controller ISR change.
    pub leader_epoch: i32,
    /// In-sync replicas.
    pub isr: Vec<BrokerId>,
    /// Epoch of the controller that made the leadership decision.
    pub controller_epoch: i32,
}

impl LeaderIsr {
    /// The znode's JSON, as `ZkUtils.leaderAndIsrZkData` writes it.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"controller_epoch\":{},\"leader\":{},\"version\":1,\"leader_epoch\":{},\"isr\":[{}]}}",
            self.controller_epoch,
            self.leader,
            self.leader_epoch,
            fmt_ids(self.isr.iter().copied())
        )
    }
}

/// Typed znode data; [`ZData::to_json`] renders what Kafka writes.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ZData {
    /// A container znode.
    Empty,
    /// `/controller`.
    Controller {
        /// Controller broker.
        broker_id: BrokerId,
        /// Creation time (virtual ms).
        timestamp: u64,
    },
    /// `/controller_epoch`.
    ControllerEpoch {
        /// The epoch.
        epoch: i32,
    },
    /// `/brokers/ids/<id>`.
    Broker {
        /// Broker id.
        id: BrokerId,
    },
    /// `/brokers/topics/<t>`: replica assignment by partition.
    Assignment {
        /// Partition → replicas (preference order).
        partitions: BTreeMap<u32, Vec<BrokerId>>,
    },
    /// `/brokers/topics/<t>/partitions/<p>/state`.
    PartitionState {
        /// The leadership.
        state: LeaderIsr,
    },
    /// `/isr_change_notification/isr_change_<seq>`.
    IsrChange {
        /// Partitions whose ISR changed.
        partitions: Vec<TopicPartition>,
    },
    /// Bytes written by a client that is not Kafka (`splitbrain zk-replay`), as UTF-8 text.
    Raw {
        /// The bytes.
        text: String,
    },
}

impl ZData {
    /// The bytes Kafka would store, as text.
    pub fn to_json(&self) -> String {
        match self {
            ZData::Empty => String::new(),
            ZData::Controller { broker_id, timestamp } => {
                format!("{{\"version\":1,\"brokerid\":{broker_id},\"timestamp\":\"{timestamp}\"}}")
            }
            ZData::ControllerEpoch { epoch } => epoch.to_string(),
            ZData::Broker { id } => format!(
                "{{\"jmx_port\":-1,\"host\":\"broker-{id}\",\"version\":4,\"port\":9092,\"endpoints\":[\"PLAINTEXT://broker-{id}:9092\"]}}"
            ),
            ZData::Assignment { partitions } => {
                let mut s = String::from("{\"version\":1,\"partitions\":{");
                for (i, (p, r)) in partitions.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    s.push_str(&format!("\"{p}\":[{}]", fmt_ids(r.iter().copied())));
                }
                s.push_str("}}");
                s
            }
            ZData::PartitionState { state } => state.to_json(),
            ZData::IsrChange { partitions } => {
                let mut s = String::from("{\"version\":1,\"partitions\":[");
                for (i, tp) in partitions.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    s.push_str(&format!("{{\"topic\":\"{}\",\"partition\":{}}}", tp.topic, tp.partition));
                }
                s.push_str("]}");
                s
            }
            ZData::Raw { text } => text.clone(),
        }
    }
}

/// `LeaderAndIsr.toString` in 1.0.
pub fn leader_isr_json(s: &LeaderIsr) -> String {
    format!(
        "{{\"leader\":{},\"leader_epoch\":{},\"isr\":[{}]}}",
        s.leader,
        s.leader_epoch,
        fmt_ids(s.isr.iter().copied())
    )
}
