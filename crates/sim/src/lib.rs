//! # splitbrain-sim
//!
//! A deterministic, `no_std` simulation of Apache Kafka's ZooKeeper-era controller, faithful to the
//! 0.11–1.0 code (`kafka.controller.KafkaController` with its single-threaded `ControllerEventManager`,
//! `PartitionStateMachine`, `ReplicaStateMachine`, and the I0Itec `ZkClient` that retries an interrupted
//! operation on a new session). It reproduces the split brain that leaves a `__consumer_offsets`
//! partition with leader -1 and a consumer group without a coordinator.
//!
//! The core is sans-IO, in the style of `quinn-proto`: inputs are values ([`Command`]), the world
//! advances one queued item per [`World::step`], and every step returns an [`Event`], within the
//! run's [`Limits`]. A [`Timeline`] keeps a world every few steps and replays the rest, so a UI
//! can show any earlier step in bounded time and memory, and fork the future when the user acts in
//! the past.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

pub mod alerts;
pub mod broker;
pub mod command;
pub mod compare;
pub mod consumer;
pub mod controller;
pub mod derived;
pub mod effects;
pub mod event;
pub mod explore;
pub mod export;
pub mod fnv;
pub mod ids;
pub mod kraft;
pub mod lanes;
pub mod limits;
pub mod mark;
pub mod message;
pub mod mode;
pub mod network;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod share;
pub mod sorted;
pub mod timeline;
pub mod tools;
pub mod vec_map;
pub mod view;
pub mod world;
pub mod zk_client;
pub mod znodes;
pub mod zookeeper;

pub use alerts::{Alert, AlertKind};
pub use command::{Command, Direction};
pub use consumer::{coordinator_partition, java_string_hash, kafka_abs};
pub use event::{Event, EventKind};
pub use ids::{NodeId, Topic, TopicPartition};
pub use limits::{Bound, Limits};
pub use mark::Mark;
pub use mode::{Behaviour, Mode};
pub use scenario::{Scenario, ScenarioError};
pub use timeline::Timeline;
pub use view::{Summary, View};
pub use world::World;
