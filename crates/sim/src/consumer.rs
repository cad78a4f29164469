//! The consumer's coordinator lookup: `GroupMetadataManager.partitionFor(groupId) =
//! Utils.abs(groupId.hashCode) % offsets.topic.num.partitions`, then FindCoordinator to any broker
//! (answered from that broker's metadata cache), JoinGroup to the coordinator, and rediscovery on
//! `COORDINATOR_NOT_AVAILABLE` / `NOT_COORDINATOR` or a dead coordinator (`AbstractCoordinator`).
//!
//! A failed lookup is retried after a fixed `retry.backoff.ms` (100 ms) in every mode: 1.0.0
//! `AbstractCoordinator.java:214-243` (`ensureCoordinatorReady`) answers a retriable error with
//! `client.awaitMetadataUpdate`, whose refresh is spaced by `retry.backoff.ms`, and loops. The growing
//! backoff (`retry.backoff.max.ms`) is KIP-580, Kafka 3.7+; the `kraft` mode does not claim a 3.7+
//! client, so it keeps the fixed backoff too.
use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId};
use crate::message::{ClientError, Payload};
use alloc::format;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// Java's `String.hashCode`: `h = 31*h + c` over UTF-16 code units, wrapping at 32 bits.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
}

/// Kafka's `Utils.abs`: `Math.abs` except that `Integer.MIN_VALUE` maps to 0 (not to itself).
/// Not `n & 0x7fffffff` — that is `Utils.toPositive` and gives other answers for negative `n`.
pub fn kafka_abs(n: i32) -> i32 {
    if n == i32::MIN {
        0
    } else {
        n.abs()
    }
}

/// The `__consumer_offsets` partition that holds `group`'s coordinator.
pub fn coordinator_partition(group: &str, partitions: u32) -> u32 {
    (kafka_abs(java_string_hash(group)) as u32) % partitions.max(1)
}

/// `retry.backoff.ms`.
pub const RETRY_BACKOFF_MS: u64 = 100;
/// `heartbeat.interval.ms`.
pub const HEARTBEAT_MS: u64 = 3000;
/// How long the model's client waits for an answer before giving up on a broker.
pub const REQUEST_TIMEOUT_MS: u64 = 2000;

/// Where the consumer is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ConsumerStatus {
    /// Sending FindCoordinator.
    Discovering,
    /// The last FindCoordinator answer was COORDINATOR_NOT_AVAILABLE; retrying after `retry.backoff.ms`.
    CoordinatorNotAvailable,
    /// Joining the group at its coordinator.
    Joining,
    /// A member of a stable group.
    Stable,
}

impl ConsumerStatus {
    /// snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            ConsumerStatus::Discovering => "discovering",
            ConsumerStatus::CoordinatorNotAvailable => "coordinator_not_available",
            ConsumerStatus::Joining => "joining",
            ConsumerStatus::Stable => "stable",
        }
    }
}

/// A consumer client.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Consumer {
    /// Client id.
    pub id: u32,
    /// Group id.
    pub group: String,
    /// Coordinator partition.
    pub partition: u32,
    /// Status.
    pub status: ConsumerStatus,
    /// Known coordinator.
    pub coordinator: Option<BrokerId>,
    /// FindCoordinator attempts since the coordinator was lost.
    pub attempts: u32,
    /// Outstanding correlation id.
    pub pending: Option<u64>,
    /// A heartbeat is scheduled.
    pub heartbeat_scheduled: bool,
    next_corr: u64,
    bootstrap: alloc::vec::Vec<BrokerId>,
    next_broker: usize,
}

impl Consumer {
    /// A consumer already in a stable group at `coordinator` (scenario set-up).
    pub fn stable(
        id: u32,
        group: &str,
        partitions: u32,
        coordinator: Option<BrokerId>,
        bootstrap: alloc::vec::Vec<BrokerId>,
    ) -> Self {
        Consumer {
            id,
            group: group.into(),
            partition: coordinator_partition(group, partitions),
            status: if coordinator.is_some() { ConsumerStatus::Stable } else { ConsumerStatus::Discovering },
            coordinator,
            attempts: 0,
            pending: None,
            heartbeat_scheduled: false,
            next_corr: 1,
            bootstrap,
            next_broker: 0,
        }
    }

    fn corr(&mut self) -> u64 {
        let c = self.next_corr;
        self.next_corr += 1;
        self.pending = Some(c);
        c
    }

    /// Send FindCoordinator to the next bootstrap broker (`leastLoadedNode`, here round-robin).
    pub fn find(&mut self, out: &mut Outbox) {
        if self.bootstrap.is_empty() {
            return;
        }
        let b = self.bootstrap[self.next_broker % self.bootstrap.len()];
        self.next_broker += 1;
        let corr = self.corr();
        if self.status != ConsumerStatus::CoordinatorNotAvailable {
            self.status = ConsumerStatus::Discovering;
        }
        out.send(NodeId::Broker(b), Payload::FindCoordinator { group: self.group.clone(), corr });
        out.timer(REQUEST_TIMEOUT_MS, Timer::ConsumerTimeout { corr });
    }

    /// Forget the coordinator and look it up again (a restart, or `markCoordinatorUnknown`).
    pub fn rediscover(&mut self, why: &str, out: &mut Outbox) {
        self.coordinator = None;
        self.status = ConsumerStatus::Discovering;
        self.heartbeat_scheduled = false;
        out.log(EventKind::Consumer, || {
            format!(
                "[Consumer clientId=c{}, groupId={}] {why}; looking up the coordinator (partition {})",
                self.id, self.group, self.partition
            )
        });
        self.find(out);
    }

    /// `retry.backoff.ms`, fixed (no KIP-580 exponential backoff before 3.7).
    fn backoff(&self) -> u64 {
        RETRY_BACKOFF_MS
    }

    /// A response.
    pub fn on_message(&mut self, from: NodeId, payload: Payload, out: &mut Outbox) {
        match payload {
            Payload::FindCoordinatorResponse { corr, result } if Some(corr) == self.pending => {
                self.pending = None;
                match result {
                    Ok(b) => {
                        self.coordinator = Some(b);
                        self.status = ConsumerStatus::Joining;
                        out.log(
                            EventKind::Consumer,
                            || format!("[Consumer clientId=c{}, groupId={}] Discovered group coordinator broker {b} (from {from})", self.id, self.group),
                        );
                        let corr = self.corr();
                        out.send(NodeId::Broker(b), Payload::JoinGroup { group: self.group.clone(), corr });
                        out.timer(REQUEST_TIMEOUT_MS, Timer::ConsumerTimeout { corr });
                    }
                    Err(e) => {
                        self.status = ConsumerStatus::CoordinatorNotAvailable;
                        self.attempts += 1;
                        let wait = self.backoff();
                        out.log(
                            EventKind::Consumer,
                            || format!(
                                "[Consumer clientId=c{}, groupId={}] FindCoordinator to {from} failed: {} (attempt {}); retrying in {wait} ms",
                                self.id,
                                self.group,
                                e.name(),
                                self.attempts
                            ),
                        );
                        if e == ClientError::CoordinatorNotAvailable {
                            out.mark(crate::mark::Mark::CoordinatorUnavailable {
                                consumer: self.id,
                                group: self.group.clone(),
                                partition: self.partition,
                            });
                        }
                        out.timer(wait, Timer::ConsumerRetry);
                    }
                }
            }
            Payload::GroupResponse { corr, error } if Some(corr) == self.pending => {
                self.pending = None;
                match error {
                    None => {
                        if self.status == ConsumerStatus::Joining {
                            self.status = ConsumerStatus::Stable;
                            self.attempts = 0;
                            out.log(
                                EventKind::Consumer,
                                || format!(
                                    "[Consumer clientId=c{}, groupId={}] Successfully joined group with coordinator broker {}",
                                    self.id,
                                    self.group,
                                    self.coordinator.unwrap_or(-1)
                                ),
                            );
                            out.mark(crate::mark::Mark::ConsumerJoined {
                                consumer: self.id,
                                group: self.group.clone(),
                                coordinator: self.coordinator.unwrap_or(-1),
                            });
                        }
                    }
                    Some(e @ ClientError::NotCoordinator) | Some(e @ ClientError::CoordinatorNotAvailable) => self
                        .rediscover(
                            &format!("Coordinator broker {} answered {}", self.coordinator.unwrap_or(-1), e.name()),
                            out,
                        ),
                }
            }
            _ => {}
        }
    }

    /// What the world observes of the coordinator now (`healthy`: alive, owning the group's
    /// partition, reachable): a stable member that is not already waiting notices trouble at its
    /// next heartbeat (`AbstractCoordinator`'s heartbeat thread, every `HEARTBEAT_MS`).
    /// Returns the wait until that heartbeat when one is due; pure, so the world asks every step
    /// without copying the consumer. [`Consumer::schedule_heartbeat`] acts.
    pub fn heartbeat_due(&self, healthy: bool, now: u64) -> Option<u64> {
        let waiting = self.heartbeat_scheduled || self.pending.is_some();
        if healthy || self.status != ConsumerStatus::Stable || waiting || self.coordinator.is_none() {
            return None;
        }
        Some(HEARTBEAT_MS - now % HEARTBEAT_MS)
    }

    /// Schedules the heartbeat [`Consumer::heartbeat_due`] asked for.
    pub fn schedule_heartbeat(&mut self, after_ms: u64, out: &mut Outbox) {
        self.heartbeat_scheduled = true;
        out.timer(after_ms, Timer::ConsumerHeartbeat);
    }

    /// Timers.
    pub fn on_timer(&mut self, t: &Timer, out: &mut Outbox) {
        match t {
            Timer::ConsumerRetry
                if self.status == ConsumerStatus::CoordinatorNotAvailable && self.pending.is_none() =>
            {
                self.find(out)
            }
            Timer::ConsumerTimeout { corr } if Some(*corr) == self.pending => {
                self.pending = None;
                match self.status {
                    ConsumerStatus::Discovering | ConsumerStatus::CoordinatorNotAvailable => {
                        out.log(
                            EventKind::Consumer,
                            || format!("[Consumer clientId=c{}, groupId={}] FindCoordinator got no answer within {REQUEST_TIMEOUT_MS} ms; trying another broker", self.id, self.group),
                        );
                        self.find(out)
                    }
                    _ => self.rediscover(
                        &format!(
                            "Group coordinator broker {} is unavailable (no answer within {REQUEST_TIMEOUT_MS} ms)",
                            self.coordinator.unwrap_or(-1)
                        ),
                        out,
                    ),
                }
            }
            Timer::ConsumerHeartbeat => {
                self.heartbeat_scheduled = false;
                if self.status == ConsumerStatus::Stable {
                    if let Some(b) = self.coordinator {
                        let corr = self.corr();
                        out.send(NodeId::Broker(b), Payload::Heartbeat { group: self.group.clone(), corr });
                        out.timer(REQUEST_TIMEOUT_MS, Timer::ConsumerTimeout { corr });
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effect;
    use crate::mark::Mark;

    /// The consumer driven message by message: a coordinator that stops owning the group is
    /// noticed at the next heartbeat tick, FindCoordinator answered COORDINATOR_NOT_AVAILABLE is a
    /// typed mark and a retry, and an answer naming broker 2 is followed by JoinGroup to it.
    #[test]
    fn loses_its_coordinator_is_told_none_is_available_then_joins_the_next() {
        let mut c = Consumer::stable(1, "payments-group", 50, Some(3), alloc::vec![1, 2, 3]);
        assert_eq!(c.heartbeat_due(true, 7_000), None, "a healthy coordinator needs nothing");
        assert_eq!(c.heartbeat_due(false, 7_000), Some(2_000), "the next 3 s heartbeat tick");
        let mut out = Outbox::default();
        c.schedule_heartbeat(2_000, &mut out);
        assert_eq!(c.heartbeat_due(false, 8_000), None, "already waiting for that heartbeat");
        c.rediscover("Coordinator broker 3 answered NOT_COORDINATOR", &mut out);
        let (to, find) = out.sent().pop().expect("a FindCoordinator");
        let Payload::FindCoordinator { corr, .. } = find else { panic!("{find:?}") };
        let mut out = Outbox::default();
        let none = Payload::FindCoordinatorResponse { corr, result: Err(ClientError::CoordinatorNotAvailable) };
        c.on_message(to, none, &mut out);
        assert_eq!(c.status, ConsumerStatus::CoordinatorNotAvailable);
        assert!(out.effects.contains(&Effect::Mark(Mark::CoordinatorUnavailable {
            consumer: 1,
            group: "payments-group".into(),
            partition: 3
        })));
        assert!(out.effects.iter().any(|e| matches!(e, Effect::Timer { timer: Timer::ConsumerRetry, .. })));
        let mut out = Outbox::default();
        c.on_timer(&Timer::ConsumerRetry, &mut out);
        let (to, find) = out.sent().pop().expect("a retried FindCoordinator");
        let Payload::FindCoordinator { corr, .. } = find else { panic!("{find:?}") };
        let mut out = Outbox::default();
        c.on_message(to, Payload::FindCoordinatorResponse { corr, result: Ok(2) }, &mut out);
        assert_eq!((c.status, c.coordinator), (ConsumerStatus::Joining, Some(2)));
        assert!(matches!(out.sent()[..], [(NodeId::Broker(2), Payload::JoinGroup { .. })]));
    }

    #[test]
    fn java_hash_code_vectors() {
        // Values from java.lang.String.hashCode (see research notes §4), including non-ASCII and
        // the one string whose hash is Integer.MIN_VALUE.
        let cases: &[(&str, i32, u32)] = &[
            ("", 0, 0),
            ("a", 97, 47),
            ("test-group", 627841412, 12),
            ("my-group", -1906497762, 12),
            ("group1", -1237460590, 40),
            ("console-consumer-1", 35782224, 24),
            ("order-service", 562889526, 26),
            ("polygenelubricants", i32::MIN, 0),
            ("消费组", 28099635, 35),
        ];
        for (g, h, p) in cases {
            assert_eq!(java_string_hash(g), *h, "hashCode of {g:?}");
            assert_eq!(coordinator_partition(g, 50), *p, "partition of {g:?}");
        }
    }

    #[test]
    fn utf16_surrogates_count_as_two_code_units() {
        // "😀" is U+1F600 = surrogates D83D DE00: 31*0xD83D + 0xDE00.
        assert_eq!(java_string_hash("😀"), 31 * 0xD83D + 0xDE00);
    }

    #[test]
    fn abs_is_not_to_positive() {
        assert_eq!(kafka_abs(i32::MIN), 0);
        assert_eq!(kafka_abs(-5), 5);
        // toPositive(-5) = -5 & 0x7fffffff = 2147483643: a different partition.
        assert_ne!((kafka_abs(-5) as u32) % 50, ((-5i32 & 0x7fff_ffff) as u32) % 50);
    }

    #[test]
    fn backoff_is_a_fixed_retry_backoff_ms() {
        let mut c = Consumer::stable(1, "g", 50, None, alloc::vec![1]);
        let waits: alloc::vec::Vec<u64> = (1..=6)
            .map(|a| {
                c.attempts = a;
                c.backoff()
            })
            .collect();
        assert_eq!(waits, [100; 6]);
    }
}
