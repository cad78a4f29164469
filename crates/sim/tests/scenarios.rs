//! The built-in scenarios tell the story they claim, checked on the final state and on the trace.
//! The golden trace of `seed-incident` (tests/golden/seed-incident.trace) was read line by line
//! against the incident (see tests/golden/README.md); regenerate it with UPDATE_GOLDEN=1 only
//! after reading the diff.
mod common;
use common::*;
use splitbrain_sim::alerts::AlertKind;
use splitbrain_sim::{EventKind, NodeId};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("golden/seed-incident.trace");

fn p3(w: &splitbrain_sim::World) -> splitbrain_sim::view::PartitionView {
    w.partition_views().into_iter().find(|p| p.topic == "__consumer_offsets" && p.partition == 3).expect("p3")
}

#[test]
fn seed_incident_matches_the_reviewed_golden_trace() {
    let mut w = world("seed-incident");
    let text = trace_text(&run_to_end(&mut w));
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/seed-incident.trace"), &text).unwrap();
        return;
    }
    if text != GOLDEN {
        let (a, b): (Vec<&str>, Vec<&str>) = (text.lines().collect(), GOLDEN.lines().collect());
        let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        panic!(
            "trace differs from the golden trace at line {}:\n  got:      {}\n  expected: {}\n(trace hash {:x}, golden {:x})",
            i + 1,
            a.get(i).unwrap_or(&"<end>"),
            b.get(i).unwrap_or(&"<end>"),
            fnv(&text),
            fnv(GOLDEN)
        );
    }
}

#[test]
fn seed_incident_ends_with_leader_minus_one_and_a_stuck_consumer() {
    let mut w = world("seed-incident");
    let events = run_to_end(&mut w);
    let p = p3(&w);
    assert_eq!((p.leader, p.isr.clone()), (-1, vec![2]), "partition 3 ends leaderless with ISR [2]");
    assert_eq!(w.acting_controllers(), vec![2], "broker 2 is the only acting controller");
    assert_eq!(w.zk_controller(), Some(2));
    let c = &w.consumer_views()[0];
    assert_eq!(
        (c.group.as_str(), c.coordinator_partition, c.status.as_str()),
        ("payments-group", 3, "coordinator_not_available")
    );
    assert!(w
        .alerts()
        .iter()
        .any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr && a.message.contains("__consumer_offsets-3 ")));
    assert!(w.alerts().iter().any(|a| a.kind == AlertKind::NoCoordinator));

    // The story, beat by beat, in order.
    let find = |from: usize, node: NodeId, needle: &str| -> usize {
        events[from..]
            .iter()
            .position(|e| e.node == node && (e.line.contains(needle) || e.details.iter().any(|d| d.contains(needle))))
            .map(|i| i + from)
            .unwrap_or_else(|| panic!("no event on {node} containing {needle:?} after step {from}"))
    };
    let b1 = NodeId::Broker(1);
    let b2 = NodeId::Broker(2);
    let e1 = find(0, b1, "successfully elected as the controller");
    let saw = find(e1, b1, "Currently active brokers in the cluster: Set(1, 2)");
    let lost = find(saw, NodeId::Zk, "DROPPED b1 → zk: setData /brokers/topics/__consumer_offsets/partitions/3/state");
    let e2 = find(lost, b2, "successfully elected as the controller");
    let loaded = find(e2, b2, "__consumer_offsets-3: {\"leader\":3,\"leader_epoch\":13,\"isr\":[3,1,2]}");
    let landed =
        find(loaded, NodeId::Zk, "a deposed controller's decision {\"leader\":1,\"leader_epoch\":14,\"isr\":[1,2]}");
    let resigned = find(landed, b1, "Broker 1 resigned as the controller");
    let minus1 = find(
        resigned,
        b2,
        "New leader and ISR for partition __consumer_offsets-3 is {\"leader\":-1,\"leader_epoch\":15,\"isr\":[2]}",
    );
    let stuck = find(minus1, NodeId::Client(1), "COORDINATOR_NOT_AVAILABLE");
    assert!(
        e1 < saw
            && saw < lost
            && lost < e2
            && e2 < loaded
            && loaded < landed
            && landed < resigned
            && resigned < minus1
            && minus1 < stuck
    );
    // Broker 2 ran no election for partition 3 at its failover.
    assert!(!events[e2..landed]
        .iter()
        .any(|e| e.node == b2 && e.line.contains("for offline partition __consumer_offsets-3 ")));
    // The split brain is visible while broker 1 acts after broker 2 took over.
    assert!(events[e2..=resigned].iter().any(|e| e.alerts_raised.iter().any(|a| a.contains("act as controller: 1,2"))));
    // Broker 3, the stale leader, cannot change the ISR any more.
    assert!(events.iter().any(|e| e.node == NodeId::Broker(3)
        && e.line.contains("__consumer_offsets-3 broker=3] Cached zkVersion [27] not equal to that in zookeeper")));
    // Broker 1 resigned about a second after its write landed.
    let gap = events[resigned].time_ms - events[landed].time_ms;
    assert!((500..=2000).contains(&gap), "resigned {gap} ms after the zombie write");
}

#[test]
fn a_bare_startup_does_not_heal_but_a_failure_seen_by_the_controller_does() {
    let mut w = world("seed-incident-recovery");
    let events = run_to_end(&mut w);
    let mentions = |e: &splitbrain_sim::Event, s: &str| e.line.contains(s) || e.details.iter().any(|d| d.contains(s));
    let startup =
        events.iter().rposition(|e| mentions(e, "New broker startup callback for 1")).expect("b1 startup handled");
    let failure = events.iter().position(|e| mentions(e, "deleted brokers: 3")).expect("b3 failure handled");
    assert!(startup < failure);
    // Between broker 1's startup and broker 3's failure, partition 3 is still leaderless.
    let mut replay = world("seed-incident-recovery");
    for _ in 0..=startup + 40 {
        replay.step();
    }
    assert_eq!(p3(&replay).leader, -1, "a bare broker startup elects nothing for an Online partition");
    // In the end: led from the ISR, consumer joined, no alerts.
    let p = p3(&w);
    assert_eq!(p.leader, 2);
    assert!(w.partition_views().iter().all(|p| p.leader >= 0));
    assert_eq!(w.consumer_views()[0].status, "stable");
    assert!(w.alerts().is_empty(), "alerts left: {:?}", w.alerts());
}

#[test]
fn clean_failover_leads_every_partition_without_split_brain() {
    let mut w = world("clean-failover");
    let events = run_to_end(&mut w);
    assert!(w.partition_views().iter().all(|p| p.leader >= 0 && !p.isr.is_empty()));
    assert_eq!(w.acting_controllers().len(), 1);
    assert_eq!(w.consumer_views()[0].status, "stable");
    assert!(w.alerts().is_empty());
    assert!(!events.iter().any(|e| e.alerts_raised.iter().any(|a| a.contains("act as controller"))), "no split brain");
    assert!(events.iter().any(|e| e.kind == EventKind::ControllerElected));
}

#[test]
fn same_seed_same_trace_other_seed_other_timing() {
    let a = trace_text(&run_to_end(&mut world("seed-incident")));
    let b = trace_text(&run_to_end(&mut world("seed-incident")));
    assert_eq!(fnv(&a), fnv(&b));
    let s = splitbrain_sim::scenario::builtin("seed-incident").unwrap();
    let mut other = splitbrain_sim::World::with_seed(&s, 99).unwrap();
    let c = trace_text(&run_to_end(&mut other));
    assert_ne!(fnv(&a), fnv(&c), "the seed drives latency jitter");
}
