//! What a node's handler asks the world to do: send a message, set a timer, write a log line.
//! Handlers never touch the network or the clock themselves (sans-IO), so the same broker code runs
//! under the simulator, a test, or a model checker.
use crate::event::EventKind;
use crate::ids::NodeId;
use crate::message::Payload;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Timers a node can set.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(tag = "timer", rename_all = "snake_case")]
pub enum Timer {
    /// Broker's ZooKeeper client: no answer for the read timeout? Then Disconnected.
    ZkReadTimeout {
        /// Connection generation the timer belongs to.
        gen: u64,
    },
    /// Broker's ZooKeeper client: the sleep before its next connect attempt is over.
    ZkReconnect {
        /// Connection generation the timer belongs to.
        gen: u64,
    },
    /// ZooKeeper leader: the session expirer's bucket time.
    ZkExpireBucket {
        /// The bucket.
        at: u64,
    },
    /// ZooKeeper server: `syncLimit * tickTime` after its link to `peer` stalled at `since`
    /// (a follower's socket timeout on its leader; a leader's synced-quorum check).
    ZkSyncLimit {
        /// The peer.
        peer: NodeId,
        /// When the link stalled.
        since: u64,
    },
    /// ZooKeeper server: an election round's wait is over.
    ZkElection {
        /// The round.
        round: u64,
    },
    /// Partition leader: `Partition.maybeShrinkIsr` / `maybeExpandIsr`.
    IsrCheck,
    /// `ReplicaManager.maybePropagateIsrChanges` (the `isr-change-propagation` task, every 2.5 s).
    IsrPropagation,
    /// Consumer: retry FindCoordinator after backoff.
    ConsumerRetry,
    /// Consumer: a request got no answer within `request.timeout.ms`.
    ConsumerTimeout {
        /// Correlation id.
        corr: u64,
    },
    /// Consumer: send a heartbeat.
    ConsumerHeartbeat,
    /// KRaft voter: no leader heard (fetch timeout) or election timed out.
    RaftElection {
        /// Timer generation.
        gen: u64,
    },
    /// KRaft leader: check that a majority still fetches (KAFKA-15489).
    RaftCheckQuorum,
    /// KRaft active controller: fence a broker whose heartbeats lapsed.
    FenceCheck {
        /// The broker.
        broker: crate::ids::BrokerId,
    },
}

/// One effect.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Effect {
    /// Send a message.
    Send {
        /// Destination.
        to: NodeId,
        /// Payload.
        payload: Payload,
    },
    /// Set a timer on this node.
    Timer {
        /// Delay from now, ms.
        after_ms: u64,
        /// The timer.
        timer: Timer,
    },
    /// Set a timer after `after_ms` plus a uniform draw in `0..=up_to_ms` from the world's one
    /// seeded PRNG (a client's reconnect sleep).
    RandomTimer {
        /// The fixed part of the delay, ms.
        after_ms: u64,
        /// The most the random part adds, ms.
        up_to_ms: u64,
        /// The timer.
        timer: Timer,
    },
    /// A typed mark of what happened ([`crate::mark`]).
    Mark(crate::mark::Mark),
    /// A log line.
    Log {
        /// Kind of event it belongs to.
        kind: EventKind,
        /// Text.
        line: String,
    },
}

/// A log line's text, formatted only when the outbox renders ([`Outbox::render`]): a `String`
/// already made, or a closure that makes it.
pub trait Line {
    /// The text.
    fn text(self) -> String;
}

impl Line for String {
    fn text(self) -> String {
        self
    }
}

impl<F: FnOnce() -> String> Line for F {
    fn text(self) -> String {
        self()
    }
}

/// The effects of one handler call, in order.
#[derive(Clone, Debug)]
pub struct Outbox {
    /// Effects.
    pub effects: Vec<Effect>,
    /// The step's main line and kind, when the handler says what the whole step was (ZooKeeper's
    /// `zk: … → …`); `None` keeps the line the world wrote for the delivery or timer. Not an
    /// effect: it replaces the step's line rather than adding one.
    pub headline: Option<(EventKind, String)>,
    /// Whether log lines and the headline are formatted (the world's render switch,
    /// `World::set_render`). Off, they keep their kinds with empty text: the same decisions,
    /// no formatting.
    pub render: bool,
}

impl Default for Outbox {
    fn default() -> Self {
        Outbox::new(true)
    }
}

impl Outbox {
    /// An empty outbox that formats its lines or not.
    pub fn new(render: bool) -> Self {
        Outbox { effects: Vec::new(), headline: None, render }
    }

    /// An empty outbox that fills `effects` (emptied first), keeping its room.
    pub fn reusing(render: bool, mut effects: Vec<Effect>) -> Self {
        effects.clear();
        Outbox { effects, headline: None, render }
    }

    /// Queues a message.
    pub fn send(&mut self, to: NodeId, payload: Payload) {
        self.effects.push(Effect::Send { to, payload });
    }

    /// Sets a timer.
    pub fn timer(&mut self, after_ms: u64, timer: Timer) {
        self.effects.push(Effect::Timer { after_ms, timer });
    }

    /// Sets a timer `after_ms` plus a random `0..=up_to_ms` from now (the world draws it).
    pub fn random_timer(&mut self, after_ms: u64, up_to_ms: u64, timer: Timer) {
        self.effects.push(Effect::RandomTimer { after_ms, up_to_ms, timer });
    }

    /// Records a typed mark.
    pub fn mark(&mut self, mark: crate::mark::Mark) {
        self.effects.push(Effect::Mark(mark));
    }

    /// Writes a log line.
    pub fn log(&mut self, kind: EventKind, line: impl Line) {
        let line = if self.render { line.text() } else { String::new() };
        self.effects.push(Effect::Log { kind, line });
    }

    /// Sets the step's main line and kind (the last call wins).
    pub fn headline(&mut self, kind: EventKind, line: impl Line) {
        let line = if self.render { line.text() } else { String::new() };
        self.headline = Some((kind, line));
    }
}

/// What a handler did, read back by the unit tests that drive a node message by message.
#[cfg(test)]
impl Outbox {
    /// The messages sent, in order.
    pub(crate) fn sent(&self) -> Vec<(NodeId, Payload)> {
        self.effects
            .iter()
            .filter_map(|e| if let Effect::Send { to, payload } = e { Some((*to, payload.clone())) } else { None })
            .collect()
    }

    /// The timers set, in order.
    pub(crate) fn timers(&self) -> Vec<(u64, Timer)> {
        self.effects
            .iter()
            .filter_map(
                |e| if let Effect::Timer { after_ms, timer } = e { Some((*after_ms, timer.clone())) } else { None },
            )
            .collect()
    }

    /// The marks, in order.
    pub(crate) fn marks(&self) -> Vec<crate::mark::Mark> {
        self.effects.iter().filter_map(|e| if let Effect::Mark(m) = e { Some(m.clone()) } else { None }).collect()
    }

    /// The log lines with their kinds, in order.
    pub(crate) fn logs(&self) -> Vec<(EventKind, String)> {
        self.effects
            .iter()
            .filter_map(|e| if let Effect::Log { kind, line } = e { Some((*kind, line.clone())) } else { None })
            .collect()
    }

    /// The log lines' text, in order.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.logs().into_iter().map(|(_, line)| line).collect()
    }
}
