//! Your own incident: reads the controller.log, state-change.log and server.log that Kafka
//! 0.8–2.8 write into typed events ([`parse`]), merges them into a timeline by controller epoch
//! ([`timeline`]), names the split-brain signatures with their evidence ([`signatures`]) and fits a
//! splitbrain scenario that replays them under every Kafka behaviour ([`fit`]).
//!
//! It sits beside the simulator and never inside it: the simulator knows nothing of log lines,
//! and this crate decides no Kafka behaviour (the fitted scenario's replay does).
#![no_std]
extern crate alloc;

pub mod envelope;
pub mod event;
pub mod fit;
pub mod identity;
pub mod parse;
pub mod recognise;
pub mod report;
pub mod signatures;
#[cfg(test)]
mod testkit;
pub mod text;
pub mod timeline;

pub use event::{Broker, Event, Partition};
pub use parse::{Input, Parsed, Record};
pub use report::{import, Report};
