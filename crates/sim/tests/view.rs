//! The typed view (issue 13 part 3): the facts a page used to re-derive from strings (node kinds,
//! session states, message states and categories, the watched partition, the headline, what an
//! alert is about) come typed from the core, and agree with the world they describe.
mod common;

use common::*;
use splitbrain_sim::alerts::Subject;
use splitbrain_sim::compare::{side_by_side, Run, RunFacts};
use splitbrain_sim::consumer::ConsumerStatus;
use splitbrain_sim::ids::NodeKind;
use splitbrain_sim::message::Category;
use splitbrain_sim::scenario::Mode;
use splitbrain_sim::view::{Headline, MessageState, MetadataStore, NodeStatus, ZkRole};
use splitbrain_sim::zk_client::ConnState;
use splitbrain_sim::{AlertKind, Command, Direction, Mark, NodeId, Timeline};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn seed_timeline() -> Timeline {
    let sc = splitbrain_sim::scenario::builtin("seed-incident").expect("built-in");
    let mut t = Timeline::new(sc, None).expect("valid");
    t.compute_all();
    t
}

#[test]
fn node_kinds_follow_ids_and_statuses_follow_kinds() {
    let t = seed_timeline();
    for step in [0, t.len() / 2, t.len()] {
        let v = t.world_at(step).expect("step").view();
        for n in &v.nodes {
            assert_eq!(n.kind, n.id.kind(), "{}", n.id);
            let fits = match (n.kind, n.status) {
                (NodeKind::Broker, NodeStatus::Session(_)) => n.alive,
                (NodeKind::Broker | NodeKind::Voter, NodeStatus::Down) => !n.alive,
                (NodeKind::Zk, NodeStatus::Zk(_)) => n.id != NodeId::ZK,
                (NodeKind::Zk, NodeStatus::Standalone) => n.id == NodeId::ZK,
                (NodeKind::Client, NodeStatus::Consumer(_)) => true,
                (NodeKind::Voter, NodeStatus::Voter(_)) => n.alive,
                _ => false,
            };
            assert!(fits, "step {step}: {} is {:?} with status {:?}", n.id, n.kind, n.status);
        }
        let kinds: Vec<NodeKind> = v.nodes.iter().map(|n| n.kind).collect();
        assert_eq!(kinds.iter().filter(|k| **k == NodeKind::Zk).count(), v.zk_servers.len());
        assert_eq!(v.zk_servers.iter().filter(|z| z.role == ZkRole::Leader).count(), 1, "step {step}");
        assert_eq!(v.zk_leader, v.zk_servers.iter().find(|z| z.role == ZkRole::Leader).map(|z| z.id));
    }
}

/// Issue 32: what the page used to work out in strings comes typed — the group and its partition,
/// who leads it, its znodes, where leadership is recorded, the quorum's leader.
#[test]
fn the_watched_partition_and_where_leadership_is_recorded_are_typed() {
    let t = seed_timeline();
    let start = t.world_at(0).expect("start").view();
    let watched = offsets(3);
    assert_eq!(start.watched_group.as_deref(), Some(start.consumers[0].group.as_str()));
    assert_eq!(start.consumers[0].coordinator_tp(), watched);
    assert_eq!(start.metadata, MetadataStore::ZooKeeper);
    assert_eq!(start.quorum_leader, None);
    let leader = start.watched_leader().expect("the partition is in the table");
    assert!(leader > 0);
    for n in &start.nodes {
        assert_eq!(
            n.leads_watched,
            n.id == NodeId::Broker(leader) && n.leads.contains(&watched.to_string()),
            "{}",
            n.id
        );
    }
    let znodes: Vec<&str> =
        start.zk_tree.iter().filter(|z| z.partition.as_ref() == Some(&watched)).map(|z| z.path.as_str()).collect();
    assert_eq!(znodes, [watched.state_path().trim_end_matches("/state"), watched.state_path().as_str()]);
    assert!(start.zk_tree.iter().filter(|z| !z.path.contains("/partitions/")).all(|z| z.partition.is_none()));
    let end = t.world_at(t.len()).expect("end").view();
    assert_eq!(end.watched_leader(), Some(-1));
    // Local belief, not ZooKeeper's: the star follows what each broker's ReplicaManager leads.
    assert!(end.nodes.iter().all(|n| n.leads_watched == n.leads.contains(&watched.to_string())));

    let sc = splitbrain_sim::scenario::builtin("seed-incident").expect("built-in");
    let mut k = Timeline::with_mode(sc, None, Mode::Kraft).expect("valid");
    k.seek(400);
    let v = k.view();
    assert_eq!(v.metadata, MetadataStore::MetadataLog);
    let q = v.quorum_leader.expect("a quorum leader by step 400");
    assert!(v.nodes.iter().any(|n| n.id == q && n.kind == NodeKind::Voter && n.acting_controller));
    assert!(v.zk_tree.iter().all(|z| z.partition.is_none()), "metadata log records are no znodes");
}

/// Issue 32: the side-by-side comparison (the group's partition in both runs, whether they
/// differ, and why) is the core's.
#[test]
fn side_by_side_compares_the_watched_partition_and_judges_why() {
    let sc = splitbrain_sim::scenario::builtin("seed-incident").expect("built-in");
    let legacy = seed_timeline();
    let mut fenced = Timeline::with_mode(sc, None, Mode::Fenced).expect("valid");
    fenced.compute_all();
    let (lv, fv) =
        (legacy.world_at(legacy.len()).expect("end").view(), fenced.world_at(fenced.len()).expect("end").view());
    fn run<'a>(view: &'a splitbrain_sim::View, t: &'a Timeline, mode: Mode) -> Run<'a> {
        Run { view, events: t.events(), behaviour: mode.behaviour() }
    }
    let c = side_by_side(run(&lv, &legacy, Mode::Legacy), run(&fv, &fenced, Mode::Fenced));
    assert_eq!(c.partition, Some(offsets(3)));
    assert_eq!(
        c.main,
        RunFacts { leader: Some(-1), leaderless: lv.partitions.iter().filter(|p| p.leader < 0).count() }
    );
    assert!(c.other.leader.is_some_and(|l| l > 0), "{c:?}");
    assert!(c.differs);
    assert!(c.verdict.is_some_and(|v| v != splitbrain_sim::compare::Verdict::Same), "{c:?}");
    let same = side_by_side(run(&lv, &legacy, Mode::Legacy), run(&lv, &legacy, Mode::Legacy));
    assert!(!same.differs);
    assert_eq!(same.verdict, Some(splitbrain_sim::compare::Verdict::Same));
}

#[test]
fn the_seed_incident_headline_goes_calm_split_stuck() {
    let t = seed_timeline();
    let events = t.events();
    let watched = offsets(3);
    let start = t.world_at(0).expect("start").view();
    assert_eq!(start.watched.as_ref(), Some(&watched));
    assert_eq!(start.headline, Headline::Calm);

    // The step where broker 2 wins /controller while broker 1 still acts: split brain, typed.
    let (e, _) = first_mark(events, |m| matches!(m, Mark::ControllerElected { broker: 2, .. })).expect("b2 elected");
    let v = t.world_at(e.step as usize).expect("step").view();
    assert_eq!(v.headline, Headline::SplitBrain { acting: vec![1, 2], zk_controller: Some(2) });
    let split = v.alerts.iter().find(|a| a.kind == AlertKind::MultipleControllers).expect("split alert");
    assert_eq!(split.subject, Subject::Controllers(vec![1, 2]));
    let before = t.world_at(e.step as usize - 1).expect("step").view();
    assert!(!matches!(before.headline, Headline::SplitBrain { .. }), "{:?}", before.headline);

    // The end: the group is stuck on its partition, which has leader -1 with broker 2 in its ISR.
    let end = t.world_at(t.len()).expect("end").view();
    let c = &end.consumers[0];
    assert_eq!(c.status, ConsumerStatus::CoordinatorNotAvailable);
    assert_eq!(end.headline, Headline::Stuck { group: c.group.clone(), partition: watched.clone(), leader: Some(-1) });
    assert!(end
        .alerts
        .iter()
        .any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr && a.subject == Subject::Partition(watched.clone())));
    assert!(end
        .alerts
        .iter()
        .any(|a| a.kind == AlertKind::NoCoordinator && a.subject == Subject::Group(c.group.clone())));
    // Every alert's key names its subject (the key is what traces carry).
    for a in &end.alerts {
        match &a.subject {
            Subject::Partition(tp) => assert!(a.key.ends_with(&tp.to_string()), "{}", a.key),
            Subject::Group(g) => assert!(a.key.ends_with(g.as_str()), "{}", a.key),
            Subject::Controller(b) => assert!(a.key.ends_with(&b.to_string()), "{}", a.key),
            s => assert!(a.kind == AlertKind::MultipleControllers, "{s:?}"),
        }
    }
}

#[test]
fn messages_carry_typed_state_and_category() {
    // Cut broker 3 from ZooKeeper both ways: the first message across it is dropped, typed.
    let mut w = world("seed-incident");
    let b3 = NodeId::Broker(3);
    let mut dropped = None;
    let mut seen = std::collections::BTreeSet::new();
    let mut b3_statuses = Vec::new();
    for i in 0..400 {
        if i == 5 {
            for server in w.view().zk_servers.iter().map(|z| z.id).collect::<Vec<_>>() {
                w.apply(&Command::Cut { a: b3, b: server, dir: Direction::Both }).expect("cut");
            }
        }
        if w.step().is_none() {
            break;
        }
        let v = w.view();
        b3_statuses.extend(v.nodes.iter().filter(|n| n.id == b3).map(|n| n.status));
        for m in &v.messages {
            seen.insert((m.category, m.state));
            if m.state == MessageState::Dropped && dropped.is_none() {
                dropped = Some(m.clone());
            }
        }
    }
    let d = dropped.expect("a dropped message");
    assert!(d.from == b3 || d.to == b3, "{d:?}");
    assert!(d.from.is_zk() || d.to.is_zk(), "{d:?}");
    assert_eq!(d.category, Category::Zk);
    assert!(seen.contains(&(Category::Zk, MessageState::InFlight)));
    assert!(seen.contains(&(Category::Zk, MessageState::Delivered)));
    // Broker 3 is connected first, and its client shows disconnected once a cut lasts its read timeout.
    let first = |s: NodeStatus| b3_statuses.iter().position(|x| *x == s);
    let connected = first(NodeStatus::Session(ConnState::Connected)).expect("b3 connected");
    let disconnected = first(NodeStatus::Session(ConnState::Disconnected)).expect("b3 disconnected");
    assert!(connected < disconnected, "{b3_statuses:?}");
}
