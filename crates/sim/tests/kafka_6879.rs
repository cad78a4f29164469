//! KAFKA-6879: Kafka 1.1.0's session-expiry handler waits for the controller thread to take
//! `Expire` while it holds `ZooKeeperClient`'s initialization lock; a thread still inside
//! `elect`/`onControllerFailover` blocks on that lock with its next request. The built-in
//! `kafka-6879-deadlock` gets there with network faults only; 1.1.1's fix (kept in 2.1.0, the
//! `fenced` mode) recovers from the same faults.
mod common;
use common::*;
use splitbrain_sim::scenario::{builtin, builtins};
use splitbrain_sim::zk_client::ConnState;
use splitbrain_sim::{Command, Event, Mark, Mode, NodeId, World};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const NAME: &str = "kafka-6879-deadlock";

fn run(name: &str, mode: Mode) -> (World, Vec<Event>) {
    let s = builtin(name).unwrap();
    let mut w = World::with_mode(&s, s.seed, mode).unwrap();
    let ev = run_to_end(&mut w);
    (w, ev)
}

fn deadlocks(events: &[Event]) -> Vec<&Mark> {
    marks(events).map(|(_, m)| m).filter(|m| matches!(m, Mark::ControllerDeadlock { .. })).collect()
}

fn learned(events: &[Event], broker: i32) -> usize {
    mark_index(events, 0, |m| matches!(m, Mark::SessionExpiryLearned { broker: b, .. } if *b == broker))
        .unwrap_or_else(|| panic!("broker {broker} learns its session expired"))
}

fn registered_after(events: &[Event], broker: i32, from: usize) -> bool {
    mark_index(events, from, |m| matches!(m, Mark::BrokerRegistered { broker: b, .. } if *b == broker)).is_some()
}

#[test]
fn the_scenario_opens_in_1_1() {
    assert_eq!(builtin(NAME).unwrap().opening_mode(None), Mode::Kafka11);
}

#[test]
fn kafka_1_1_deadlocks_when_the_session_expires_in_the_middle_of_a_failover() {
    let (w, events) = run(NAME, Mode::Kafka11);
    assert_eq!(
        deadlocks(&events),
        [&Mark::ControllerDeadlock {
            broker: 1,
            event: "Reelect".into(),
            blocked_in: "triggerControllerMove: deleteController".into(),
            resigned: true,
        }]
    );
    // It happens as broker 1 learns the expiry, with its failover's read pending.
    let at = learned(&events, 1);
    assert!(has_mark(&events[at], |m| matches!(m, Mark::ControllerDeadlock { broker: 1, .. })));
    assert!(has_mark(&events[at], |m| matches!(m, Mark::SessionExpiryLearned { failed_requests: 1.., .. })));
    assert!(has_mark(&events[at], |m| matches!(m, Mark::ControllerResigned { broker: 1, .. })));
    // No new session, no registration, no further controller work on broker 1.
    assert!(!registered_after(&events, 1, at));
    let b1 = w.broker(1).unwrap();
    assert!(b1.alive && b1.zk.init_blocked && b1.zk.state == ConnState::Expired);
    assert!(b1.controller.stuck.is_some() && !b1.is_active() && b1.controller.job.is_none());
    assert!(
        !events[at + 1..].iter().any(|e| matches!(e.node, NodeId::Zk(_)) && e.from == Some(NodeId::Broker(1))),
        "ZooKeeper hears nothing more from broker 1"
    );
    let zk = w.zk().unwrap();
    assert!(zk.get("/brokers/ids/1").is_none(), "broker 1 is missing from /brokers/ids");
    assert!(zk.get("/brokers/ids/2").is_some() && zk.get("/brokers/ids/3").is_some());
    // Broker 2 moved broker 1's partitions; broker 1, told nothing, still leads them.
    let p1 = offsets(1);
    let view = w.partition_views().into_iter().find(|p| p.topic == p1.topic && p.partition == p1.partition).unwrap();
    assert_eq!(view.leader, 2);
    assert!(b1.partitions.get(&p1).is_some_and(|p| p.is_leader));
    // Broker 3 learnt its own expiry with its controller thread idle: Expire ran, no deadlock.
    let b3 = learned(&events, 3);
    assert!(has_mark(&events[b3], |m| matches!(m, Mark::ControllerResigned { broker: 3, .. })));
    assert!(registered_after(&events, 3, b3));
    assert!(w.broker(3).unwrap().zk.state == ConnState::Connected && w.broker(3).unwrap().controller.stuck.is_none());
}

#[test]
fn the_fix_and_1_0_get_through_the_same_faults() {
    for mode in [Mode::Fenced, Mode::Legacy] {
        let (w, events) = run(NAME, mode);
        assert!(deadlocks(&events).is_empty(), "{mode:?}");
        let at = learned(&events, 1);
        assert!(registered_after(&events, 1, at), "{mode:?}: broker 1 re-registers on a new session");
        let b1 = w.broker(1).unwrap();
        assert!(!b1.zk.init_blocked && b1.zk.state == ConnState::Connected && b1.controller.stuck.is_none());
        assert!(w.zk().unwrap().get("/brokers/ids/1").is_some(), "{mode:?}");
    }
    // 2.1.0 learns the expiry with the failover's read pending, as 1.1.0 does: the same moment.
    let (_, events) = run(NAME, Mode::Fenced);
    let at = learned(&events, 1);
    assert!(has_mark(&events[at], |m| matches!(m, Mark::SessionExpiryLearned { failed_requests: 1.., .. })));
    assert!(has_mark(&events[at], |m| matches!(m, Mark::ControllerResigned { broker: 1, .. })));
}

#[test]
fn a_restart_clears_the_deadlock() {
    let (mut w, _) = run(NAME, Mode::Kafka11);
    w.apply(&Command::Crash { node: NodeId::Broker(1) }).unwrap();
    w.apply(&Command::Restart { node: NodeId::Broker(1) }).unwrap();
    let events = run_to_end(&mut w);
    assert!(registered_after(&events, 1, 0));
    let b1 = w.broker(1).unwrap();
    assert!(!b1.zk.init_blocked && b1.controller.stuck.is_none());
    assert!(w.zk().unwrap().get("/brokers/ids/1").is_some());
}

#[test]
fn no_other_builtin_deadlocks_in_any_mode() {
    for (name, _) in builtins() {
        if name == NAME {
            continue;
        }
        for mode in Mode::ALL {
            let (_, events) = run(name, mode);
            assert!(deadlocks(&events).is_empty(), "{name} in {mode:?}: {:?}", deadlocks(&events));
        }
    }
}
