//! What Kafka 1.1.0's `KafkaZkClient` controller changed, and what 2.1.0 (`fenced`) keeps of it:
//! no retry after SESSIONEXPIRED, batched elections and ISR removals, `RegisterBrokerAndReelect`,
//! and the `1.0`/`2.1` mode aliases. Tests ask [`splitbrain_sim::Behaviour`] properties and
//! find events by marks.
mod common;
use common::*;
use splitbrain_sim::scenario::{builtin, Scenario};
use splitbrain_sim::share::{b64url_encode, deflate, Link};
use splitbrain_sim::{Command, Event, Mark, Mode, NodeId, World};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const ZK_MODES: [Mode; 3] = [Mode::Legacy, Mode::Kafka11, Mode::Fenced];

fn run(s: &Scenario, mode: Mode) -> (World, Vec<Event>) {
    let mut w = World::with_mode(s, s.seed, mode).unwrap();
    let ev = run_to_end(&mut w);
    (w, ev)
}

/// `seed-incident` with broker 1's cut moved to `at_ms`.
fn seed_with_b1_cut_at(at_ms: u64) -> Scenario {
    let mut s = builtin("zkclient-retry").unwrap();
    let cut = s
        .script
        .iter_mut()
        .find(|e| {
            e.command == Command::Cut { a: NodeId::Broker(1), b: NodeId::ZK, dir: splitbrain_sim::Direction::Both }
        })
        .expect("seed-incident cuts broker 1 from ZooKeeper");
    cut.at_ms = at_ms;
    s
}

/// The steps (by index) carrying a mark that satisfies `pred`, each once.
fn steps_with(events: &[Event], pred: impl Fn(&Mark) -> bool) -> Vec<usize> {
    events.iter().enumerate().filter(|(_, e)| e.marks.iter().any(&pred)).map(|(i, _)| i).collect()
}

fn count(events: &[Event], pred: impl Fn(&Mark) -> bool) -> usize {
    marks(events).filter(|(_, m)| pred(m)).count()
}

#[test]
fn a_batch_in_flight_at_expiry_fails_whole_when_expiry_is_not_retried() {
    // Broker 1's link drops while its batched writes (or, in legacy, one of its one-by-one
    // writes) are on the wire; its session expires 6 s later.
    let s = seed_with_b1_cut_at(16_390);
    for mode in ZK_MODES {
        let b = mode.behaviour();
        let (w, events) = run(&s, mode);
        let expired = mark_index(&events, 0, |m| matches!(m, Mark::SessionExpired { owner: NodeId::Broker(1), .. }))
            .expect("broker 1's session expires");
        let learned = mark_index(&events, expired, |m| matches!(m, Mark::SessionExpiryLearned { broker: 1, .. }))
            .expect("broker 1 learns it");
        let failed = events[learned]
            .marks
            .iter()
            .find_map(|m| match m {
                Mark::SessionExpiryLearned { failed_requests, .. } => Some(*failed_requests),
                _ => None,
            })
            .unwrap();
        if b.retry_after_expiry {
            assert_eq!(failed, 0, "{mode:?}: ZkClient keeps them to retry");
            assert!(deposed_write_landed(&events).is_some(), "{mode:?}: the retried write lands");
        } else {
            assert!(failed > 1, "{mode:?}: the whole pipelined batch fails with SESSIONEXPIRED ({failed})");
            assert!(b.expire_event);
            assert!(deposed_write_landed(&events).is_none(), "{mode:?}");
            assert!(w.partition_views().iter().all(|p| p.leader >= 0), "{mode:?}");
            if b.expire_waits_under_init_lock {
                // KAFKA-6879 (1.1.0): PartitionStateMachine swallows the failed batch and the
                // failover goes on to its next request, which waits on the lock the expiry handler
                // holds while it waits for Expire: broker 1 never resigns nor opens a session.
                assert!(
                    has_mark(&events[learned], |m| *m
                        == Mark::ControllerDeadlock {
                            broker: 1,
                            event: "Reelect".into(),
                            blocked_in: "fetchPendingPreferredReplicaElections".into(),
                            resigned: false,
                        }),
                    "{mode:?}"
                );
                assert!(!events[learned..].iter().any(|e| has_mark(e, |m| matches!(
                    m,
                    Mark::ControllerResigned { broker: 1, .. } | Mark::BrokerRegistered { broker: 1, .. }
                ))));
                assert!(w.broker(1).unwrap().is_active(), "{mode:?}: activeControllerId is still 1");
            } else {
                // Expire: the queue is cleared and the controller resigns in the same step.
                assert!(
                    has_mark(&events[learned], |m| matches!(m, Mark::ControllerResigned { broker: 1, .. })),
                    "{mode:?}"
                );
            }
        }
    }
}

#[test]
fn elections_are_one_pipelined_batch_with_batched_elections() {
    for mode in ZK_MODES {
        let (_, events) = run(&builtin("zkclient-retry").unwrap(), mode);
        let by_b1 = |m: &Mark| matches!(m, Mark::LeaderElected { controller: 1, .. });
        assert_eq!(count(&events, by_b1), 17, "{mode:?}: broker 3's partitions");
        let steps = steps_with(&events, by_b1);
        if mode.behaviour().batched_elections {
            assert_eq!(steps.len(), 1, "{mode:?}: every response of the batch is in before any is cached");
        } else {
            assert_eq!(steps.len(), 17, "{mode:?}: 1.0 elects one partition at a time");
        }
    }
}

#[test]
fn isr_removal_is_one_batch_per_dead_replica_with_batched_isr_removal() {
    for mode in ZK_MODES {
        let (_, events) = run(&builtin("zkclient-retry").unwrap(), mode);
        let crash = mark_index(&events, 0, |m| matches!(m, Mark::Fault { command: Command::Crash { .. } })).unwrap();
        let removed = |m: &Mark| matches!(m, Mark::IsrReplicaRemoved { controller: 2, replica: 1, .. });
        let steps = steps_with(&events[crash..], removed);
        assert!(count(&events[crash..], removed) > 1, "{mode:?}");
        if mode.behaviour().batched_isr_removal {
            assert_eq!(steps.len(), 1, "{mode:?}");
        } else {
            assert!(steps.len() > 1, "{mode:?}: 1.0 removes the replica one partition at a time");
        }
    }
}

#[test]
fn a_new_session_registers_the_broker_on_the_controller_thread_from_1_1() {
    // Broker 3's session expires at 16 s and it reconnects at 17 s.
    for mode in ZK_MODES {
        let (_, events) = run(&builtin("zkclient-retry").unwrap(), mode);
        let learned = mark_index(&events, 0, |m| matches!(m, Mark::SessionExpiryLearned { broker: 3, .. })).unwrap();
        let at = mark_index(&events, learned, |m| matches!(m, Mark::BrokerRegistered { broker: 3, .. }))
            .expect("broker 3 registers again");
        let on_thread = mode.behaviour().register_on_controller_thread;
        assert!(
            has_mark(&events[at], |m| *m == Mark::BrokerRegistered { broker: 3, on_controller_thread: on_thread }),
            "{mode:?}"
        );
        if on_thread {
            // Expire (the resignation) first, then the new session's RegisterBrokerAndReelect.
            let resigned =
                mark_index(&events, learned, |m| matches!(m, Mark::ControllerResigned { broker: 3, .. })).unwrap();
            assert!(resigned < at, "{mode:?}");
        }
    }
}

#[test]
fn fenced_is_1_1_plus_the_fence_and_the_aliases_name_1_0_and_2_1() {
    let k11 = Mode::Kafka11.behaviour();
    let fenced = Mode::Fenced.behaviour();
    assert!(fenced.fenced_writes && fenced.controller_move_checks_owner);
    assert!(!fenced.retry_after_expiry && fenced.expire_event && fenced.reread_controller_on_change);
    assert_eq!(
        (fenced.batched_elections, fenced.batched_isr_removal, fenced.register_on_controller_thread),
        (k11.batched_elections, k11.batched_isr_removal, k11.register_on_controller_thread)
    );
    // Everywhere a mode is parsed: the name, a scenario's "mode", a link's mode and compare.
    assert_eq!(Mode::parse("2.1"), Ok(Mode::Fenced));
    assert_eq!(Mode::parse("1.0"), Ok(Mode::Legacy));
    let mut json = builtin("clean-failover").unwrap().to_json();
    assert!(!json.contains("\"mode\""));
    json = json.replacen('{', "{\"mode\":\"2.1\",", 1);
    assert_eq!(Scenario::from_json(&json).unwrap().mode, Some(Mode::Fenced));
    let json = json.replace("\"2.1\"", "\"1.0\"");
    assert_eq!(Scenario::from_json(&json).unwrap().mode, Some(Mode::Legacy));
    let link = r#"{"builtin":"zkclient-retry","mode":"2.1","seed":1,"step":5,"compare":"1.0"}"#;
    let l = Link::decode(&format!("v1.{}", b64url_encode(&deflate(link.as_bytes())))).unwrap();
    assert_eq!((l.mode, l.compare), (Mode::Fenced, Some(Mode::Legacy)));
    // …and a mode is always written under its own name.
    let written = serde_json::to_string(&l).unwrap();
    assert!(written.contains("\"mode\":\"fenced\"") && written.contains("\"compare\":\"legacy\""), "{written}");
}
