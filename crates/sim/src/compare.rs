//! Why two runs of the same scenario and faults, under two Kafka behaviours, disagree about one
//! partition — so that a side-by-side view credits a fix only for what the fix did.
//!
//! The same faults at the same times do not make the same interleaving under two behaviours:
//! 1.1+ pipelines its ZooKeeper reads and batches its elections, so a controller finishes its
//! failover sooner, and a cut that caught 1.0's write in flight may come after 2.1's batch has
//! landed. Then the partition ends led in both the fixed and the "fixed" run for a reason that has
//! nothing to do with KAFKA-6082 or KAFKA-5642. The verdict looks for the fix *acting on that
//! partition* in the healthy run, from the marks both runs carry:
//!
//! * the fence (KAFKA-6082, 2.1.0 `KafkaZkClient` epoch-checked `multi`): a [`Mark::WriteRefused`]
//!   for the partition, by the broker whose deposed write landed in the other run;
//! * KAFKA-5642 (1.1.0 `KafkaZkClient.retryRequestsUntilConnected` retries only CONNECTIONLOSS): a
//!   [`Mark::SessionExpiryLearned`] of that broker that failed a pending write of the partition;
//! * KRaft: there is no ZooKeeper for a deposed controller to write to.
//!
//! Anything else is a difference of timing, and says so.
use crate::event::Event;
use crate::ids::{BrokerId, TopicPartition};
use crate::mark::Mark;
use crate::mode::{Behaviour, ControlPlaneKind};
use crate::view::View;
use serde::Serialize;

/// One run's side of the comparison: its events so far, the partition's leader now, and the
/// behaviour it runs.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    /// Its events up to the step compared.
    pub events: &'a [Event],
    /// The partition's leader at that step (-1: none).
    pub leader: BrokerId,
    /// The behaviour it runs.
    pub behaviour: Behaviour,
}

/// What a fix did to the partition in the run where it stayed led.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "fix", rename_all = "snake_case")]
pub enum FixAct {
    /// The `/controller_epoch` check refused the deposed controller's write of the partition.
    Fenced {
        /// The deposed controller's broker.
        from: BrokerId,
    },
    /// The deposed controller's session expiry failed its pending requests instead of retrying
    /// them on the new session.
    PendingFailedOnExpiry {
        /// The deposed controller's broker.
        broker: BrokerId,
    },
    /// A KRaft quorum holds the metadata: no deposed ZooKeeper controller writes it.
    NoZooKeeper,
}

/// Why the two runs disagree about the partition (or that they do not).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Both runs have a leader, or neither has.
    Same,
    /// The fix made the difference.
    Fix(FixAct),
    /// They differ, but not through the fix: the faults met the runs at different points.
    Timing,
}

/// The verdict for `partition` between two runs.
pub fn verdict(partition: &TopicPartition, a: Side<'_>, b: Side<'_>) -> Verdict {
    let (broken, healthy) = match (a.leader < 0, b.leader < 0) {
        (true, false) => (a, b),
        (false, true) => (b, a),
        _ => return Verdict::Same,
    };
    let deposed = broken.events.iter().flat_map(|e| &e.marks).find_map(|m| match m {
        Mark::DeposedWriteAccepted { from, partition: p, .. } if p == partition => Some(*from),
        _ => None,
    });
    let Some(from) = deposed else { return Verdict::Timing };
    if healthy.behaviour.control_plane == ControlPlaneKind::Kraft {
        return Verdict::Fix(FixAct::NoZooKeeper);
    }
    let marks = || healthy.events.iter().flat_map(|e| &e.marks);
    if marks()
        .any(|m| matches!(m, Mark::WriteRefused { from: f, partition: Some(p), .. } if *f == from && p == partition))
    {
        return Verdict::Fix(FixAct::Fenced { from });
    }
    if !healthy.behaviour.retry_after_expiry
        && marks().any(|m| matches!(m, Mark::SessionExpiryLearned { broker, failed_writes, .. } if *broker == from && failed_writes.contains(partition)))
    {
        return Verdict::Fix(FixAct::PendingFailedOnExpiry { broker: from });
    }
    Verdict::Timing
}

/// One run as the side-by-side view compares it: its view at the step shown, its events up to
/// that step, and its behaviour.
#[derive(Clone, Copy)]
pub struct Run<'a> {
    /// Its view at the step compared.
    pub view: &'a View,
    /// Its events up to that step.
    pub events: &'a [Event],
    /// The behaviour it runs.
    pub behaviour: Behaviour,
}

/// What one run shows of the watched partition and the cluster.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
pub struct RunFacts {
    /// The watched partition's leader (-1: none), if the run has that partition.
    pub leader: Option<BrokerId>,
    /// How many partitions have no leader.
    pub leaderless: usize,
}

impl RunFacts {
    fn of(v: &View, partition: Option<&TopicPartition>) -> RunFacts {
        RunFacts {
            leader: partition.and_then(|tp| v.partition(tp)).map(|p| p.leader),
            leaderless: v.partitions.iter().filter(|p| p.leader < 0).count(),
        }
    }
}

/// Two runs side by side at the same virtual time, as the core judges them.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct SideBySide {
    /// The partition compared: the main run's watched partition (the group's coordinator
    /// partition).
    pub partition: Option<TopicPartition>,
    /// The main run.
    pub main: RunFacts,
    /// The other run.
    pub other: RunFacts,
    /// The runs differ in the partition's leader or in the number of leaderless partitions.
    pub differs: bool,
    /// Why they disagree about the partition, when both runs have it.
    pub verdict: Option<Verdict>,
}

/// Compares two runs of the same scenario and faults under two behaviours.
pub fn side_by_side(main: Run<'_>, other: Run<'_>) -> SideBySide {
    let partition = main.view.watched.clone();
    let (a, b) = (RunFacts::of(main.view, partition.as_ref()), RunFacts::of(other.view, partition.as_ref()));
    let verdict = match (&partition, a.leader, b.leader) {
        (Some(tp), Some(la), Some(lb)) => Some(verdict(
            tp,
            Side { events: main.events, leader: la, behaviour: main.behaviour },
            Side { events: other.events, leader: lb, behaviour: other.behaviour },
        )),
        _ => None,
    };
    SideBySide { partition, main: a, other: b, differs: a != b, verdict }
}

impl Verdict {
    /// One clause for the side-by-side line, naming the partition.
    pub fn words(&self, partition: &str) -> alloc::string::String {
        use alloc::format;
        match self {
            Verdict::Same => format!("both runs agree on {partition}"),
            Verdict::Fix(FixAct::Fenced { from }) => format!(
                "the fence made the difference: ZooKeeper refused broker {from}'s write of {partition} with BADVERSION (KAFKA-6082)"
            ),
            Verdict::Fix(FixAct::PendingFailedOnExpiry { broker }) => format!(
                "KAFKA-5642 made the difference: broker {broker}'s session expiry failed its pending write of {partition} instead of retrying it"
            ),
            Verdict::Fix(FixAct::NoZooKeeper) => {
                format!("no ZooKeeper, no deposed controller writing {partition}: KRaft's quorum holds the metadata")
            }
            Verdict::Timing => format!(
                "not the fix: the same faults met the two runs at different points (a timing shift), so {partition} ends differently without the fix acting on it"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventKind;
    use crate::ids::NodeId;
    use crate::mode::Mode;
    use alloc::vec;
    use alloc::vec::Vec;

    fn ev(marks: Vec<Mark>) -> Event {
        Event {
            step: 1,
            time_ms: 0,
            node: NodeId::Broker(1),
            from: None,
            message: None,
            kind: EventKind::Info,
            line: "x".into(),
            details: Vec::new(),
            alerts_raised: Vec::new(),
            alerts_cleared: Vec::new(),
            marks,
            delivery: None,
        }
    }

    fn tp() -> TopicPartition {
        TopicPartition::new("__consumer_offsets", 3)
    }

    fn deposed() -> Mark {
        Mark::DeposedWriteAccepted {
            from: 1,
            partition: tp(),
            leader: 1,
            leader_epoch: 14,
            isr: vec![1, 2],
            controller_epoch: 8,
            current_controller_epoch: 9,
        }
    }

    #[test]
    fn the_fix_is_credited_only_when_it_acted_on_the_partition() {
        let broken = [ev(vec![deposed()])];
        let side = |events, leader, mode: Mode| Side { events, leader, behaviour: mode.behaviour() };
        let refused = [ev(vec![Mark::WriteRefused { from: 1, expected_epoch_version: 7, partition: Some(tp()) }])];
        let other = [ev(vec![Mark::WriteRefused {
            from: 1,
            expected_epoch_version: 7,
            partition: Some(TopicPartition::new("__consumer_offsets", 6)),
        }])];
        let a = side(&broken[..], -1, Mode::Legacy);
        assert_eq!(verdict(&tp(), a, side(&refused[..], 2, Mode::Fenced)), Verdict::Fix(FixAct::Fenced { from: 1 }));
        assert_eq!(verdict(&tp(), side(&refused[..], 2, Mode::Fenced), a), Verdict::Fix(FixAct::Fenced { from: 1 }));
        assert_eq!(
            verdict(&tp(), a, side(&other[..], 2, Mode::Fenced)),
            Verdict::Timing,
            "another partition's refusal"
        );
        assert_eq!(verdict(&tp(), a, side(&[], 2, Mode::Fenced)), Verdict::Timing);
        assert_eq!(verdict(&tp(), a, side(&[], 2, Mode::Kraft)), Verdict::Fix(FixAct::NoZooKeeper));
        let failed =
            [ev(vec![Mark::SessionExpiryLearned { broker: 1, failed_requests: 3, failed_writes: vec![tp()] }])];
        assert_eq!(
            verdict(&tp(), a, side(&failed[..], 2, Mode::Kafka11)),
            Verdict::Fix(FixAct::PendingFailedOnExpiry { broker: 1 })
        );
        let kept = [ev(vec![Mark::SessionExpiryLearned { broker: 1, failed_requests: 0, failed_writes: vec![] }])];
        let others = [ev(vec![Mark::SessionExpiryLearned {
            broker: 1,
            failed_requests: 2,
            failed_writes: vec![TopicPartition::new("__consumer_offsets", 6)],
        }])];
        assert_eq!(
            verdict(&tp(), a, side(&others[..], 2, Mode::Kafka11)),
            Verdict::Timing,
            "another partition's write"
        );
        assert_eq!(verdict(&tp(), a, side(&kept[..], 2, Mode::Kafka11)), Verdict::Timing);
        assert_eq!(verdict(&tp(), a, side(&broken[..], -1, Mode::Fenced)), Verdict::Same);
        assert_eq!(verdict(&tp(), side(&[], -1, Mode::Legacy), side(&[], 2, Mode::Fenced)), Verdict::Timing);
    }
}
