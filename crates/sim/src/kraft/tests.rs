//! The voters driven directly, message by message, as quinn-proto's `tests/util.rs` drives a
//! `Pair` of endpoints: no world, no network, no PRNG. [`Quorum`] holds the voters, a hand-made
//! set of cut directions and dead brokers (from which it builds each handler's [`Reach`]), the
//! messages in flight (delivered one at a time, dropped if their link is cut on arrival), the
//! timers each voter armed (fired only when a test says so) and every log line. Election draws
//! answer 0, so a candidate's timeout is exactly `ELECTION_TIMEOUT_MS`.
use super::*;
use crate::effects::Effect;
use crate::ids::TopicPartition;
use crate::scenario::Scenario;
use alloc::collections::{BTreeSet, VecDeque};
use alloc::string::String;
use alloc::vec;

/// Three brokers, `orders` (3 partitions, 2 replicas) and 3 offsets partitions.
fn config() -> Config {
    Scenario::from_json(
        r#"{"name": "t", "cluster": {"brokers": [1, 2, 3], "offsets_topic_partitions": 3,
            "topics": [{"name": "orders", "partitions": 3, "replication_factor": 2}]}}"#,
    )
    .expect("scenario")
    .config()
    .expect("config")
}

fn q(v: u32) -> NodeId {
    NodeId::Voter(v)
}

struct Quorum {
    k: Kraft,
    /// Brokers and whether their processes run.
    brokers: VecMap<BrokerId, bool>,
    /// Directions that are cut.
    cut: BTreeSet<(NodeId, NodeId)>,
    /// (from, to, payload), oldest first.
    in_flight: VecDeque<(NodeId, NodeId, Payload)>,
    /// (voter, after_ms, timer) as armed, oldest first.
    timers: Vec<(u32, u64, Timer)>,
    /// (voter, kind, line).
    lines: Vec<(u32, EventKind, String)>,
    /// The `max` of each election draw asked for.
    draws: Vec<u64>,
}

impl Quorum {
    /// The settled quorum `Kraft::new` builds: q1 leads epoch 1, everything committed.
    fn new() -> Self {
        let cfg = config();
        Quorum {
            k: Kraft::new(&cfg),
            brokers: cfg.brokers.iter().map(|b| (*b, true)).collect(),
            cut: BTreeSet::new(),
            in_flight: VecDeque::new(),
            timers: Vec::new(),
            lines: Vec::new(),
            draws: Vec::new(),
        }
    }

    fn reach(&self) -> Reach {
        Reach::new(1..=VOTERS, &self.brokers, |a, b| !self.cut.contains(&(a, b)))
    }

    /// Cuts both directions between `n` and every voter and broker.
    fn isolate(&mut self, n: NodeId) {
        let others = (1..=VOTERS).map(q).chain(self.brokers.keys().map(|b| NodeId::Broker(*b)));
        for m in others.filter(|m| *m != n).collect::<Vec<_>>() {
            self.cut.insert((n, m));
            self.cut.insert((m, n));
        }
        self.change();
    }

    fn rejoin(&mut self, n: NodeId) {
        self.cut.retain(|(a, b)| *a != n && *b != n);
        self.change();
    }

    fn absorb(&mut self, v: u32, out: Outbox) {
        for e in out.effects {
            match e {
                Effect::Send { to, payload } => self.in_flight.push_back((q(v), to, payload)),
                Effect::Timer { after_ms, timer } => self.timers.push((v, after_ms, timer)),
                Effect::Log { kind, line } => self.lines.push((v, kind, line)),
                Effect::Mark(_) | Effect::RandomTimer { .. } => {}
            }
        }
    }

    /// What the world does after every event: re-derive the liveness timers.
    fn change(&mut self) {
        let reach = self.reach();
        let draws = &mut self.draws;
        let outs = self.k.on_change(&reach, &mut |max| {
            draws.push(max);
            0
        });
        for (v, out) in outs {
            self.absorb(v, out);
        }
    }

    /// The last timer voter `v` armed that `matches`.
    fn timer(&self, v: u32, matches: impl Fn(&Timer) -> bool) -> Option<(u64, Timer)> {
        self.timers.iter().rev().find(|(w, _, t)| *w == v && matches(t)).map(|(_, after, t)| (*after, t.clone()))
    }

    /// Fires voter `v`'s last armed timer that `matches`; panics when there is none.
    fn fire(&mut self, v: u32, matches: impl Fn(&Timer) -> bool) {
        let (_, t) = self.timer(v, matches).expect("an armed timer");
        let reach = self.reach();
        let mut out = Outbox::default();
        let draws = &mut self.draws;
        self.k.on_timer(
            v,
            &t,
            &reach,
            &mut |max| {
                draws.push(max);
                0
            },
            &mut out,
        );
        self.absorb(v, out);
        self.change();
    }

    /// Delivers the oldest message in flight (or drops it, as the world does); false when none.
    fn step(&mut self) -> bool {
        let Some((from, to, payload)) = self.in_flight.pop_front() else { return false };
        let NodeId::Voter(v) = to else { return true }; // brokers are not driven here
        if self.cut.contains(&(from, to)) || !self.k.voters[&v].alive {
            if let (Payload::RaftAppend { .. }, NodeId::Voter(l)) = (&payload, from) {
                self.k.append_lost(l, v);
            }
            return true;
        }
        let reach = self.reach();
        let mut out = Outbox::default();
        self.k.on_message(v, from, payload, &reach, &mut out);
        self.absorb(v, out);
        self.change();
        true
    }

    fn run(&mut self) {
        let mut n = 0;
        while self.step() {
            n += 1;
            assert!(n < 10_000, "the quorum does not settle");
        }
    }

    fn role(&self, v: u32) -> Role {
        self.k.voters[&v].role
    }

    fn said(&self, v: u32, kind: EventKind, contains: &str) -> bool {
        self.lines.iter().any(|(w, k, l)| *w == v && *k == kind && l.contains(contains))
    }

    /// Messages in flight from `from` to `to` matching `matches`.
    fn sent(&self, from: NodeId, to: NodeId, matches: impl Fn(&Payload) -> bool) -> Vec<Payload> {
        self.in_flight
            .iter()
            .filter(|(f, t, p)| *f == from && *t == to && matches(p))
            .map(|(_, _, p)| p.clone())
            .collect()
    }
}

fn is_election(t: &Timer) -> bool {
    matches!(t, Timer::RaftElection { .. })
}

#[test]
fn a_settled_quorum_does_nothing() {
    let mut s = Quorum::new();
    s.change();
    assert!(s.timers.is_empty() && s.in_flight.is_empty() && s.lines.is_empty(), "{:?}", s.timers);
    assert_eq!(s.k.active().map(|v| v.id), Some(1));
}

#[test]
fn a_follower_whose_election_timer_fires_becomes_candidate_and_requests_votes() {
    let mut s = Quorum::new();
    s.isolate(q(1));
    // Both followers lost the leader: each arms the fetch timeout, no draw yet.
    assert_eq!(s.timer(2, is_election).map(|(after, _)| after), Some(FETCH_TIMEOUT_MS));
    assert_eq!(s.timer(3, is_election).map(|(after, _)| after), Some(FETCH_TIMEOUT_MS));
    assert!(s.draws.is_empty());

    s.fire(2, is_election);
    let v2 = &s.k.voters[&2];
    assert_eq!((v2.role, v2.epoch, v2.voted_for, v2.leader), (Role::Candidate, 2, Some(2), None));
    assert!(s.said(2, EventKind::ControllerElected, "candidate for epoch 2"));
    let (last_epoch, last_index) = (1, s.k.voters[&2].log.len() as u64);
    for o in [1, 3] {
        assert_eq!(
            s.sent(q(2), q(o), |p| matches!(p, Payload::RaftVote { .. })),
            vec![Payload::RaftVote { epoch: 2, candidate: 2, last_epoch, last_index }],
            "vote request to q{o}"
        );
    }
    // The next election timeout is randomised in [T, 2T): one draw of 0..=T-1, answered 0.
    assert_eq!(s.draws, vec![ELECTION_TIMEOUT_MS - 1]);
    assert_eq!(s.timer(2, is_election).map(|(after, _)| after), Some(ELECTION_TIMEOUT_MS));
}

#[test]
fn a_majority_of_votes_makes_the_candidate_leader_and_then_active_controller() {
    let mut s = Quorum::new();
    s.isolate(q(1));
    s.fire(2, is_election);
    // q3 grants (q1's request is dropped on the cut link); nothing has been answered yet.
    assert!(s.step() && s.step());
    assert_eq!(s.role(2), Role::Candidate, "one vote (its own) is not a majority");
    assert!(s.said(3, EventKind::Info, "Vote request from q2 for epoch 2: granted"));
    assert_eq!(s.k.voters[&3].voted_for, Some(2));

    s.run();
    assert_eq!(s.role(2), Role::Leader);
    assert_eq!(s.k.voters[&2].leader, Some(2));
    assert_eq!(s.k.epoch_leaders.get(&2), Some(&[2u32].into_iter().collect()));
    assert!(s.said(2, EventKind::ControllerElected, "Elected leader of epoch 2"));
    // Its LeaderChange record of epoch 2 is committed by q3's acknowledgement
    // (`LeaderState.maybeUpdateHighWatermark`): only then is it the active controller.
    let v2 = &s.k.voters[&2];
    assert_eq!(v2.log[v2.commit - 1], Entry { epoch: 2, record: Record::LeaderChange { leader: 2, epoch: 2 }.into() });
    assert_eq!(s.k.voters[&3].role, Role::Follower);
    assert_eq!(s.k.voters[&3].commit, v2.commit);
    assert!(s.said(2, EventKind::ControllerElected, "Active controller for epoch 2"));
    assert_eq!(s.k.active().map(|v| v.id), Some(2));
}

#[test]
fn a_candidate_without_a_majority_stays_candidate() {
    let mut s = Quorum::new();
    s.isolate(q(1));
    s.isolate(q(3));
    s.fire(2, is_election);
    s.run();
    assert_eq!(s.role(2), Role::Candidate);
    assert!(!s.k.epoch_leaders.contains_key(&2));
}

#[test]
fn a_leader_that_loses_its_majority_resigns_at_the_quorum_check() {
    let mut s = Quorum::new();
    s.isolate(q(1));
    assert_eq!(s.timer(1, |t| *t == Timer::RaftCheckQuorum).map(|(after, _)| after), Some(FETCH_TIMEOUT_MS * 3 / 2));
    assert_eq!(s.role(1), Role::Leader, "not before the check");
    s.fire(1, |t| *t == Timer::RaftCheckQuorum);
    assert_eq!(s.role(1), Role::Unattached);
    assert_eq!(s.k.voters[&1].leader, None);
    assert!(s.said(1, EventKind::ControllerResigned, "(check quorum)"));
    assert!(s.k.active().is_none());
}

#[test]
fn a_leader_that_regains_its_majority_before_the_check_stays() {
    let mut s = Quorum::new();
    s.isolate(q(1));
    s.rejoin(q(1));
    s.fire(1, |t| *t == Timer::RaftCheckQuorum);
    assert_eq!(s.role(1), Role::Leader);
    assert!(!s.said(1, EventKind::ControllerResigned, ""));
}

/// The partitions broker `b` leads or is in the ISR of, at the settled start.
fn touching(k: &Kraft, b: BrokerId) -> Vec<TopicPartition> {
    k.image().partitions.iter().filter(|(_, p)| p.isr.contains(&b) || p.leader == b).map(|(tp, _)| tp.clone()).collect()
}

#[test]
fn a_broker_silent_for_the_session_timeout_is_fenced_with_its_partitions_moved_in_the_same_batch() {
    let mut s = Quorum::new();
    let affected = touching(&s.k, 3);
    assert!(!affected.is_empty());
    s.isolate(NodeId::Broker(3));
    assert_eq!(s.timer(1, |t| *t == Timer::FenceCheck { broker: 3 }).map(|(after, _)| after), Some(BROKER_SESSION_MS));
    let before = s.k.voters[&1].log.len();
    s.fire(1, |t| *t == Timer::FenceCheck { broker: 3 });
    assert!(s.said(1, EventKind::LeaderChange, "Fencing broker 3"));

    // One batch: the fence record then one PartitionChange per affected partition, appended
    // together and shipped to each follower in one RaftAppend.
    let batch: Vec<Record> = s.k.voters[&1].log[before..].iter().map(|e| (*e.record).clone()).collect();
    assert_eq!(batch[0], Record::FenceBroker { broker: 3 });
    let moved: Vec<_> = batch[1..]
        .iter()
        .map(|r| match r {
            Record::Partition { tp, part } => {
                assert!(!part.isr.contains(&3) && part.leader != 3, "{}", r.describe());
                tp.clone()
            }
            other => panic!("not a partition change: {}", other.describe()),
        })
        .collect();
    assert_eq!(moved, affected);
    for o in [2, 3] {
        let appends = s.sent(q(1), q(o), |p| matches!(p, Payload::RaftAppend { .. }));
        let [Payload::RaftAppend { entries, .. }] = &appends[..] else { panic!("one append to q{o}: {appends:?}") };
        assert_eq!(entries.iter().map(|e| (*e.record).clone()).collect::<Vec<_>>(), batch);
    }

    // Once committed, the image has broker 3 fenced and no partition led by it.
    s.run();
    let img = s.k.image();
    assert!(img.fenced.contains(&3) && !img.live().contains(&3));
    assert!(img.partitions.values().all(|p| p.leader != 3 && !p.isr.contains(&3)));
}

#[test]
fn a_broker_heard_again_before_the_session_timeout_is_not_fenced() {
    let mut s = Quorum::new();
    s.isolate(NodeId::Broker(3));
    s.rejoin(NodeId::Broker(3));
    let before = s.k.voters[&1].log.len();
    s.fire(1, |t| *t == Timer::FenceCheck { broker: 3 });
    assert_eq!(s.k.voters[&1].log.len(), before);
    assert!(!s.said(1, EventKind::LeaderChange, "Fencing"));
}

#[test]
fn a_partition_record_keeps_its_json_fields_and_shares_its_state_with_the_image() {
    let r = Record::partition(TopicPartition::new("orders", 1), vec![2, 3], vec![3], 3, 5, 9);
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(
        json,
        r#"{"type":"Partition","tp":{"topic":"orders","partition":1},"replicas":[2,3],"isr":[3],"leader":3,"leader_epoch":5,"partition_epoch":9}"#
    );
    assert_eq!(serde_json::from_str::<Record>(&json).unwrap(), r);
    let mut img = Image::default();
    img.apply(&r);
    let Record::Partition { tp, part } = &r else { unreachable!() };
    assert!(Rc::ptr_eq(&img.partitions[tp], part), "the image holds the record's state, not a copy");
}
