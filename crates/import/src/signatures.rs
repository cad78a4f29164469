//! The split-brain signatures: patterns in the timeline that mean what Kafka's code says they
//! mean, each with its evidence lines, an explanation and the release that changed it.
use crate::event::Broker;
use crate::event::{Event, Partition};
use crate::timeline::{Marker, Timeline};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// Evidence cap: a signature lists at most this many lines (and counts the rest).
pub const EVIDENCE_CAP: usize = 20;

/// One signature.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Signature {
    /// From the vocabulary: `overlapping_controllers`, `deposed_controller_write`,
    /// `zk_version_mismatch`, `leader_none`, `session_expired`, `stale_broker_registration`,
    /// `election_error`, `controller_resigned`, `stale_controller_epoch`.
    pub kind: &'static str,
    /// Brokers involved.
    pub brokers: Vec<Broker>,
    /// Global line numbers of the evidence (at most [`EVIDENCE_CAP`]).
    pub lines: Vec<u32>,
    /// Evidence lines beyond the cap.
    pub more: u32,
    /// What it means, in Kafka's terms.
    pub explain: String,
    /// The Kafka change and release that changed it.
    pub fixed_in: &'static str,
    /// Is it a split-brain signature (an alarm), or context (a resignation, an expiry)?
    pub alarm: bool,
}

/// Evidence being gathered for one signature.
struct Found {
    kind: &'static str,
    key: Vec<i64>,
    brokers: Vec<Broker>,
    lines: Vec<u32>,
    more: u32,
    explain: String,
    fixed_in: &'static str,
    alarm: bool,
}

impl Found {
    fn add_line(&mut self, line: u32) {
        if self.lines.contains(&line) {
            return;
        }
        if self.lines.len() < EVIDENCE_CAP {
            self.lines.push(line);
        } else {
            self.more += 1;
        }
    }
    fn add_broker(&mut self, b: Option<Broker>) {
        if let Some(b) = b {
            if !self.brokers.contains(&b) {
                self.brokers.push(b);
            }
        }
    }
}

/// The signatures being gathered, one per kind and key.
#[derive(Default)]
struct Book {
    found: Vec<Found>,
}

impl Book {
    /// The signature of `kind` and `key`, made with `explain`, `fixed_in` and `alarm` the first time.
    fn entry(
        &mut self,
        kind: &'static str,
        key: Vec<i64>,
        make: impl FnOnce() -> (String, &'static str, bool),
    ) -> &mut Found {
        if let Some(i) = self.found.iter().position(|f| f.kind == kind && f.key == key) {
            return &mut self.found[i];
        }
        let (explain, fixed_in, alarm) = make();
        self.found.push(Found { kind, key, brokers: Vec::new(), lines: Vec::new(), more: 0, explain, fixed_in, alarm });
        self.found.last_mut().expect("just pushed")
    }
}

/// KAFKA-6082's release and what it did: the fix for every deposed controller's write.
pub const FENCE: &str = "KAFKA-6082, 2.1.0: every controller write to ZooKeeper is a multi() that checks /controller_epoch's zkVersion, so a deposed controller's write fails with BADVERSION and it resigns (KafkaZkClient.retryRequestsUntilConnected, 2.1.0)";

/// Is this event a controller's decision or write (what a deposed controller must not do)?
fn is_decision(e: &Event) -> bool {
    matches!(e, Event::SelectedLeader { .. } | Event::LeaderIsr { .. } | Event::LeaderAndIsrSent { .. })
}

/// Is this event something only the acting controller does?
fn is_controller_act(e: &Event) -> bool {
    is_decision(e) || matches!(e, Event::BrokersChanged { .. })
}

/// The signatures one line makes by itself: kind, what it means, the release that changed it, and
/// whether it is an alarm.
const PER_LINE: [(&str, &str, &str, bool); 7] = [
    (
        "leader_none",
        "A partition has no leader (leader -1, an offline partition, or an election that found no live replica in the ISR). If it is a __consumer_offsets partition, every group that hashes to it has no coordinator. After a deposed controller's write, 0.11-2.0's ISR removal re-reads the partition's state from ZooKeeper, finds the dead broker as leader and writes leader -1 without electing (KafkaController.removeReplicaFromIsr), and nothing elects a leader until another broker fails or the controller moves.",
        FENCE,
        true,
    ),
    (
        "zk_version_mismatch",
        "A partition leader's cached zkVersion of the partition's state znode is older than ZooKeeper's, so its conditional ISR write fails and it skips shrinking or expanding the ISR (Partition.updateIsr, \"Cached zkVersion ... not equal to that in zookeeper, skip updating ISR\"). Someone else wrote the state after the last LeaderAndIsr this broker obeyed: typically a controller whose cache disagrees with ZooKeeper, or a deposed controller. It repeats until a LeaderAndIsr with the current zkVersion arrives, which in 0.8-1.0 may be never (KAFKA-2729).",
        "KAFKA-2729 (0.8.2-1.0): no single fix; 1.1.0's controller rewrite (KAFKA-5642) removed the session-expiry path by which a deposed controller's write leaves a leader's zkVersion stale, and 2.1.0 (KAFKA-6082) fences every deposed controller write",
        true,
    ),
    (
        "stale_controller_epoch",
        "A broker ignored a request from a controller whose epoch is older than the newest it has seen (ReplicaManager.becomeLeaderOrFollower / KafkaApis: \"since its controller epoch ... is old\"). So a deposed controller was still sending requests after a newer one took over: brokers reject them, but its writes to ZooKeeper were not fenced before 2.1.0.",
        FENCE,
        true,
    ),
    (
        "election_error",
        "\"Error while electing or becoming controller\": an exception inside elect() or onControllerFailover(). In 0.11-1.0 the catch-all calls triggerControllerMove, which deletes /controller with no version and no owner check (KafkaController.elect), so a lost ZooKeeper read can move a healthy controller while another broker's failover is running: the network-only road to two acting controllers.",
        "KAFKA-5642, 1.1.0 (KafkaZkClient retries a read lost to CONNECTIONLOSS instead of throwing it into elect); KAFKA-6082, 2.1.0 (the moved controller's writes are fenced)",
        true,
    ),
    (
        "stale_broker_registration",
        "A broker could not register /brokers/ids/N because the ephemeral znode still belonged to an older ZooKeeper session (0.8-0.10: \"conflict in /brokers/ids/N ... stored in a different session\"; 1.1+: \"node already exists and owner ... does not match current session\"). Until the old session expires, the broker is alive but the controller does not count it, and the broker may fail to start.",
        "KAFKA-1387, 0.9.0.0 (ZKCheckedEphemeral replaced 0.8's wait-and-retry on a conflicted ephemeral); KAFKA-7165, 2.2.0 (the broker deletes and re-creates its own previous session's registration)",
        true,
    ),
    (
        "session_expired",
        "A broker's ZooKeeper session expired: ZooKeeper deleted its ephemeral znodes (/brokers/ids/N, and /controller if it was controller), so the controller treats it as failed and, if it was controller, another broker may be elected. In 0.8-1.0 the I0Itec ZkClient retries an interrupted operation on the new session, so a controller's failover can go on writing after it was deposed.",
        "KAFKA-5642, 1.1.0: the new ZooKeeperClient does not retry a request that failed with SESSIONEXPIRED, and the controller resigns (Expire) before the new session opens",
        false,
    ),
    (
        "controller_resigned",
        "A broker resigned as controller (onControllerResignation): it had been controller, or it processed a controller change. Healthy on its own: a controlled shutdown and every failover log it.",
        "context: not a fault",
        false,
    ),
];

/// Finds the signatures of `timeline`.
pub fn find(timeline: &Timeline) -> Vec<Signature> {
    let mut book = Book::default();
    let broker_of = |m: &Marker| timeline.lanes.get(m.lane as usize).and_then(|l| l.broker);
    deposed(timeline, &mut book, &broker_of);
    let led = Led::of(timeline);
    for m in &timeline.markers {
        let by = broker_of(m);
        let (kind, who): (&'static str, [Option<Broker>; 2]) = match &m.event {
            Event::ZkVersionSkip { .. } => ("zk_version_mismatch", [by, None]),
            Event::LeaderNone { partition } if !led.later(m, partition.as_ref()) => ("leader_none", [by, None]),
            Event::SelectedLeader { leader: -1, partition, .. } | Event::LeaderIsr { leader: -1, partition, .. }
                if !led.later(m, Some(partition)) =>
            {
                ("leader_none", [by, None])
            }
            Event::SessionExpired { .. } => ("session_expired", [by, None]),
            Event::StaleRegistration { broker } => ("stale_broker_registration", [broker.or(by), None]),
            Event::ElectionError { broker } => ("election_error", [broker.or(by), None]),
            Event::Resigned { broker } => ("controller_resigned", [broker.or(by), None]),
            Event::StaleControllerEpoch { controller, .. } => ("stale_controller_epoch", [by, *controller]),
            _ => continue,
        };
        let Some(&(_, explain, fixed_in, alarm)) = PER_LINE.iter().find(|(k, ..)| *k == kind) else { continue };
        let f = book.entry(kind, Vec::new(), || (String::from(explain), fixed_in, alarm));
        f.add_line(m.line);
        who.into_iter().for_each(|b| f.add_broker(b));
    }
    let mut out: Vec<Signature> = book
        .found
        .into_iter()
        .map(|f| Signature {
            kind: f.kind,
            brokers: f.brokers,
            lines: f.lines,
            more: f.more,
            explain: f.explain,
            fixed_in: f.fixed_in,
            alarm: f.alarm,
        })
        .collect();
    out.sort_by_key(|s| (!s.alarm, order(s.kind)));
    out
}

/// The order signatures are listed in: the story first.
fn order(kind: &str) -> usize {
    [
        "overlapping_controllers",
        "deposed_controller_write",
        "leader_none",
        "zk_version_mismatch",
        "stale_controller_epoch",
        "election_error",
        "stale_broker_registration",
        "session_expired",
        "controller_resigned",
    ]
    .iter()
    .position(|k| *k == kind)
    .unwrap_or(99)
}

/// Where each partition last had a leader: the latest timed marker naming a leader (its time and
/// line), and per file the last line naming one.
#[derive(Default)]
struct Led<'a> {
    timed: BTreeMap<&'a Partition, (i64, u32)>,
    untimed: BTreeMap<(&'a Partition, u16), u32>,
}

impl<'a> Led<'a> {
    fn of(timeline: &'a Timeline) -> Led<'a> {
        let mut led = Led::default();
        for x in &timeline.markers {
            let p = match &x.event {
                Event::SelectedLeader { partition, leader, .. } | Event::LeaderIsr { partition, leader, .. }
                    if *leader >= 0 =>
                {
                    partition
                }
                Event::LeaderAndIsrSent { partition: Some(p), leader: Some(l), .. }
                | Event::LeaderAndIsrReceived { partition: Some(p), leader: Some(l), .. }
                    if *l >= 0 =>
                {
                    p
                }
                _ => continue,
            };
            if let Some(t) = x.ts_ms {
                let e = led.timed.entry(p).or_insert((t, x.line));
                if (t, x.line) > *e {
                    *e = (t, x.line);
                }
            }
            let e = led.untimed.entry((p, x.file)).or_insert(x.line);
            *e = (*e).max(x.line);
        }
        led
    }

    /// The partition got a leader after this marker (a failover's transient OfflinePartition, an
    /// election that followed): not an alarm. Without times, only a later line of the same file is
    /// known to come after.
    fn later(&self, m: &Marker, partition: Option<&Partition>) -> bool {
        let Some(p) = partition else { return false };
        let same_file = self.untimed.get(&(p, m.file)).is_some_and(|l| *l > m.line);
        match m.ts_ms {
            Some(t) => same_file || self.timed.get(p).is_some_and(|&(lt, ll)| (lt, ll) > (t, m.line)),
            None => same_file,
        }
    }
}

/// Controllers acting after a newer epoch began: `overlapping_controllers` when a deposed
/// controller does anything only a controller does before it resigns, and
/// `deposed_controller_write` when that is a decision or a write.
fn deposed(timeline: &Timeline, book: &mut Book, broker_of: &dyn Fn(&Marker) -> Option<Broker>) {
    let bands = &timeline.epochs;
    // For each band index, the latest band of each controller up to it.
    let mut latest: Vec<(Broker, usize)> = Vec::new();
    let mut last_of: Vec<Vec<(Broker, usize)>> = Vec::with_capacity(bands.len());
    for (i, b) in bands.iter().enumerate() {
        match latest.iter_mut().find(|(c, _)| *c == b.controller) {
            Some(x) => x.1 = i,
            None => latest.push((b.controller, i)),
        }
        last_of.push(latest.clone());
    }
    for m in &timeline.markers {
        let Some(by) = broker_of(m) else { continue };
        if !is_controller_act(&m.event) {
            continue;
        }
        // The band the act falls in, and this broker's latest band up to it.
        let Some(cur) = m.band.map(|b| b as usize) else { continue };
        let Some(ai) = last_of.get(cur).and_then(|l| l.iter().find(|(c, _)| *c == by)).map(|x| x.1) else {
            continue;
        };
        let (own, newer) = (&bands[ai], &bands[cur]);
        if ai == cur || !began(newer, m) || newer.controller == by {
            continue;
        }
        if own.resigned_line.is_some_and(|l| resigned_before(own, l, m)) {
            continue;
        }
        let key = alloc::vec![by as i64, newer.controller as i64];
        let pair = (by, newer.controller, own.epoch, newer.epoch);
        let f = book.entry("overlapping_controllers", key.clone(), || {
            (
                alloc::format!(
                    "Broker {} was still acting as controller{} after broker {} became controller{}: two controllers at once. Nothing in 0.8-2.0 stops the older one until it processes the controller change and resigns; in 0.11-1.0 it first finishes the event it is processing (a whole failover, one partition at a time).",
                    pair.0,
                    epoch_words(pair.2),
                    pair.1,
                    epoch_words(pair.3)
                ),
                FENCE,
                true,
            )
        });
        f.add_broker(Some(by));
        f.add_broker(Some(newer.controller));
        f.add_line(own.line);
        f.add_line(newer.line);
        f.add_line(m.line);
        if is_decision(&m.event) {
            let f = book.entry("deposed_controller_write", key, || {
                (
                    alloc::format!(
                        "Broker {} decided or wrote partition state{} after broker {} had become controller{}. Before 2.1.0 a controller's ZooKeeper writes are conditional only on the partition znode's own version, so if the new controller has not written that partition yet the write lands, and the new controller's cache now disagrees with ZooKeeper: it will not elect for that partition because its cache says the leader is alive.",
                        pair.0,
                        epoch_words(pair.2),
                        pair.1,
                        epoch_words(pair.3)
                    ),
                    FENCE,
                    true,
                )
            });
            f.add_broker(Some(by));
            f.add_broker(Some(newer.controller));
            f.add_line(m.line);
        }
    }
}

fn epoch_words(e: Option<i32>) -> String {
    match e {
        Some(e) => alloc::format!(" (epoch {e})"),
        None => String::new(),
    }
}

fn began(b: &crate::timeline::EpochBand, m: &Marker) -> bool {
    match (b.from_ms, m.ts_ms) {
        (Some(a), Some(t)) => a <= t && b.line != m.line,
        _ => b.line < m.line,
    }
}

fn resigned_before(own: &crate::timeline::EpochBand, line: u32, m: &Marker) -> bool {
    match (own.resigned_ms, m.ts_ms) {
        (Some(r), Some(t)) => r <= t,
        _ => line < m.line,
    }
}

/// The report's one-sentence verdict.
pub fn verdict(signatures: &[Signature]) -> String {
    let alarms: Vec<&str> = signatures.iter().filter(|s| s.alarm).map(|s| s.kind).collect();
    if alarms.is_empty() {
        String::from("no split-brain signature")
    } else {
        alloc::format!("split-brain signatures: {}", alarms.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Partition;
    use crate::parse::{Parsed, Record};
    use crate::testkit::rec;
    use crate::timeline;
    use alloc::vec;

    fn p3() -> Partition {
        Partition { topic: "__consumer_offsets".into(), partition: 3 }
    }

    fn kinds(records: Vec<Record>) -> Vec<&'static str> {
        let parsed = Parsed { lines: records.len() as u32, records, files: Vec::new() };
        find(&timeline::build(&parsed)).iter().filter(|s| s.alarm).map(|s| s.kind).collect()
    }

    fn seed() -> Vec<Record> {
        vec![
            rec(1, 30_006, 1, Event::Elected { broker: 1, epoch: Some(8) }),
            rec(2, 30_936, 2, Event::Elected { broker: 2, epoch: Some(9) }),
            rec(
                3,
                31_847,
                1,
                Event::SelectedLeader {
                    partition: p3(),
                    leader: 1,
                    leader_epoch: Some(14),
                    isr: vec![1, 2],
                    controller_epoch: Some(8),
                    zk_version: None,
                },
            ),
            rec(4, 32_850, 1, Event::Resigned { broker: Some(1) }),
            rec(
                5,
                200_000_000,
                2,
                Event::LeaderIsr {
                    partition: p3(),
                    leader: -1,
                    leader_epoch: Some(15),
                    isr: vec![2],
                    controller_epoch: Some(9),
                },
            ),
        ]
    }

    #[test]
    fn the_seed_blog_shape_is_a_split_brain() {
        let k = kinds(seed());
        assert_eq!(&k[..3], &["overlapping_controllers", "deposed_controller_write", "leader_none"], "{k:?}");
    }

    #[test]
    fn a_write_before_the_newer_election_is_not_deposed() {
        let mut r = seed();
        r[2].ts_ms = Some(30_500);
        r.swap(1, 2);
        let k = kinds(r);
        assert!(!k.contains(&"deposed_controller_write") && !k.contains(&"overlapping_controllers"), "{k:?}");
    }

    #[test]
    fn a_resigned_controller_is_not_deposed_and_a_clean_failover_is_healthy() {
        let r = vec![
            rec(1, 1_000, 1, Event::Elected { broker: 1, epoch: Some(8) }),
            rec(2, 2_000, 1, Event::Resigned { broker: Some(1) }),
            rec(3, 3_000, 2, Event::Elected { broker: 2, epoch: Some(9) }),
            rec(
                4,
                4_000,
                2,
                Event::SelectedLeader {
                    partition: p3(),
                    leader: 2,
                    leader_epoch: Some(14),
                    isr: vec![2, 3],
                    controller_epoch: Some(9),
                    zk_version: None,
                },
            ),
        ];
        assert!(kinds(r).is_empty());
    }

    #[test]
    fn an_election_race_is_healthy() {
        let r = vec![
            rec(1, 1_000, 3, Event::Elected { broker: 3, epoch: Some(4) }),
            rec(2, 1_001, 1, Event::ElectionLost { winner: 3, loser: Some(1) }),
        ];
        let parsed = Parsed { lines: 2, records: r, files: Vec::new() };
        let sigs = find(&timeline::build(&parsed));
        assert_eq!(verdict(&sigs), "no split-brain signature");
    }

    #[test]
    fn an_offline_partition_that_is_elected_later_is_a_healthy_failover() {
        let r = vec![
            rec(1, 1_000, 2, Event::Elected { broker: 2, epoch: Some(9) }),
            rec(2, 1_100, 2, Event::LeaderNone { partition: Some(p3()) }),
            rec(
                3,
                1_200,
                2,
                Event::SelectedLeader {
                    partition: p3(),
                    leader: 2,
                    leader_epoch: Some(14),
                    isr: vec![2],
                    controller_epoch: Some(9),
                    zk_version: None,
                },
            ),
        ];
        assert!(kinds(r.clone()).is_empty());
        let k = kinds(r[..2].to_vec());
        assert_eq!(k, vec!["leader_none"], "left leaderless at the end of the log");
    }

    #[test]
    fn a_controller_known_only_by_its_epoch_prefix_is_deposed_too() {
        let mut acting = rec(1, 1_000, 1, Event::BrokersChanged { added: vec![], deleted: vec![3], live: vec![1, 2] });
        acting.prefix_epoch = Some(40);
        let mut write = rec(
            3,
            2_000,
            1,
            Event::SelectedLeader {
                partition: p3(),
                leader: 1,
                leader_epoch: Some(14),
                isr: vec![1, 2],
                controller_epoch: Some(40),
                zk_version: None,
            },
        );
        write.prefix_epoch = Some(40);
        let r = vec![acting, rec(2, 1_500, 2, Event::Elected { broker: 2, epoch: Some(41) }), write];
        let k = kinds(r);
        assert_eq!(&k[..2], &["overlapping_controllers", "deposed_controller_write"], "{k:?}");
    }

    #[test]
    fn evidence_is_capped_and_counted() {
        let r: Vec<Record> = (1..=100)
            .map(|i| rec(i, i as i64, 3, Event::ZkVersionSkip { partition: Some(p3()), cached: Some(27) }))
            .collect();
        let parsed = Parsed { lines: 100, records: r, files: Vec::new() };
        let sigs = find(&timeline::build(&parsed));
        let z = sigs.iter().find(|s| s.kind == "zk_version_mismatch").expect("found");
        assert_eq!((z.lines.len(), z.more), (EVIDENCE_CAP, 100 - EVIDENCE_CAP as u32));
    }
}
