//! `fenced` (KAFKA-6082) and `1.1` (KAFKA-5642) against `legacy` on the same scenarios.
mod common;
use common::*;
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Command, Mark, Mode, NodeId, World};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn run(name: &str, mode: Mode) -> (World, Vec<splitbrain_sim::Event>) {
    let s = builtin(name).unwrap();
    let mut w = World::with_mode(&s, s.seed, mode).unwrap();
    let ev = run_to_end(&mut w);
    (w, ev)
}

#[test]
fn fenced_seed_incident_ends_with_every_partition_led() {
    let (w, events) = run("seed-incident", Mode::Fenced);
    assert!(
        w.partition_views().iter().all(|p| p.leader >= 0),
        "{:?}",
        w.partition_views().iter().filter(|p| p.leader < 0).collect::<Vec<_>>()
    );
    assert_eq!(w.consumer_views()[0].status, "stable");
    assert!(w.alerts().is_empty(), "{:?}", w.alerts());
    // The zombie's write is refused by ZooKeeper and it resigns instead of writing.
    let refused = mark_index(&events, 0, |m| matches!(m, Mark::WriteRefused { from: 1, .. }));
    let moved = mark_index(&events, 0, |m| matches!(m, Mark::ControllerMoved { broker: 1, .. }));
    assert!(refused.is_some() && moved.is_some() && refused < moved, "refused {refused:?}, moved {moved:?}");
    // Broker 1 held epoch 8 when it was refused, and resigns from it.
    let resigned = mark_index(&events, moved.unwrap(), |m| matches!(m, Mark::ControllerResigned { broker: 1, .. }))
        .expect("broker 1 resigns after ControllerMovedException");
    assert!(has_mark(&events[moved.unwrap()], |m| matches!(m, Mark::ControllerMoved { controller_epoch: 8, .. })));
    assert!(has_mark(&events[resigned], |m| *m == Mark::ControllerResigned { broker: 1, controller_epoch: 8 }));
    assert!(deposed_write_landed(&events).is_none());
}

#[test]
fn legacy_and_fenced_share_the_fault_schedule_but_not_the_outcome() {
    let (legacy, _) = run("seed-incident", Mode::Legacy);
    let (fenced, _) = run("seed-incident", Mode::Fenced);
    let p3 = |w: &World| w.partition_views().into_iter().find(|p| p.partition == 3).unwrap().leader;
    assert_eq!(p3(&legacy), -1);
    assert!(p3(&fenced) >= 0);
    assert_eq!(legacy.mode(), Mode::Legacy);
    assert_eq!(fenced.view().mode, "fenced");
}

#[test]
fn fenced_clean_failover_is_still_clean() {
    let (w, _) = run("clean-failover", Mode::Fenced);
    assert!(w.partition_views().iter().all(|p| p.leader >= 0));
    assert!(w.alerts().is_empty());
}

fn p3_leader(w: &World) -> i32 {
    w.partition_views().into_iter().find(|p| p.partition == 3).unwrap().leader
}

#[test]
fn kafka_1_1_closes_the_session_expiry_path_of_the_seed_incident() {
    let (w, events) = run("seed-incident", Mode::Kafka11);
    // Broker 1's interrupted write fails with its expired session instead of being retried: the
    // step where broker 1 resigns after ZooKeeper expired its session says so (no mark tells
    // which requests failed, so the wording is checked on the step the marks find).
    let expired = mark_index(&events, 0, |m| matches!(m, Mark::SessionExpired { owner: NodeId::Broker(1), .. }))
        .expect("broker 1's session expires");
    let failed =
        mark_index(&events, expired, |m| matches!(m, Mark::SessionExpiryLearned { broker: 1, failed_requests: 1 }))
            .expect("broker 1 learns its session expired, and its one pending request fails");
    assert!(has_mark(&events[failed], |m| matches!(m, Mark::ControllerResigned { broker: 1, .. })));
    assert!(says(&events[failed], "Processing Expire"), "{:?}", events[failed]);
    // …so it never lands, and every partition ends led, with the group served.
    assert!(deposed_write_landed(&events).is_none());
    assert!(w.partition_views().iter().all(|p| p.leader >= 0));
    assert_eq!(w.consumer_views()[0].status, "stable");
    assert!(w.alerts().is_empty(), "{:?}", w.alerts());
    assert_eq!(w.view().mode, "1.1");
}

#[test]
fn a_controller_move_without_expiry_still_breaks_1_1_but_not_the_fence() {
    for mode in [Mode::Legacy, Mode::Kafka11] {
        let (w, events) = run("controller-moved", mode);
        let fault = |pred: &dyn Fn(&Command) -> bool| {
            mark_index(&events, 0, |m| matches!(m, Mark::Fault { command } if pred(command))).expect("fault applied")
        };
        let crash = fault(&|c| *c == Command::Crash { node: NodeId::Broker(1) });
        // No session of broker 1 expired before the crash: the controller moved by the operator's delete.
        assert!(
            first_mark(&events[..crash], |m| matches!(m, Mark::SessionExpired { owner: NodeId::Broker(1), .. }))
                .is_none(),
            "{mode:?}"
        );
        let (zombie_event, zombie) = deposed_write_landed(&events).expect("zombie write");
        let zombie_at = events.iter().position(|e| e.step == zombie_event.step).unwrap();
        assert!(
            matches!(
                zombie,
                Mark::DeposedWriteAccepted { from: 1, controller_epoch: 8, current_controller_epoch: 9, .. }
            ),
            "{mode:?}: {zombie:?}"
        );
        let deleted = fault(&|c| *c == Command::DeleteController);
        assert!(deleted < zombie_at && zombie_at < crash, "{mode:?}");
        // The notification ZooKeeper held while broker 1 was cut reaches it when the link heals
        // (the connection never dropped), and broker 1 resigns long before its crash. A watch
        // notification has no mark: it is found by its line.
        let heal = fault(&|c| matches!(c, Command::Heal { a: NodeId::Broker(1), b: NodeId::ZK, .. }));
        let notified = deleted
            + events[deleted..]
                .iter()
                .position(|e| e.node == NodeId::Broker(1) && e.line.contains("watch NodeDeleted /controller"))
                .expect("broker 1 hears of the delete");
        let resigned =
            mark_index(&events, 0, |m| matches!(m, Mark::ControllerResigned { broker: 1, .. })).expect("b1 resigns");
        assert!(heal < notified && notified < resigned && resigned < crash, "{mode:?}");
        assert_eq!(p3_leader(&w), -1, "{mode:?}");
        assert_eq!(w.consumer_views()[0].status, "coordinator_not_available", "{mode:?}");
    }
    let (w, events) = run("controller-moved", Mode::Fenced);
    assert!(deposed_write_landed(&events).is_none());
    assert!(first_mark(&events, |m| matches!(m, Mark::ControllerMoved { broker: 1, .. })).is_some());
    assert!(w.partition_views().iter().all(|p| p.leader >= 0));
}

#[test]
fn a_scenario_file_names_its_mode_and_world_new_honours_it() {
    let s = builtin("controller-moved").unwrap();
    assert_eq!(s.mode, Some(Mode::Kafka11));
    assert_eq!(world("controller-moved").mode(), Mode::Kafka11);
    assert_eq!(Mode::parse("1.1"), Ok(Mode::Kafka11));
    assert!(Mode::parse("1.0").unwrap_err().contains("legacy, 1.1, fenced, kraft"));
    for m in Mode::ALL {
        assert_eq!(Mode::parse(m.name()), Ok(m));
    }
}

#[test]
fn every_builtin_caption_matches_a_step_of_its_own_mode() {
    for (name, _) in splitbrain_sim::scenario::builtins() {
        let s = builtin(name).unwrap();
        for mode in Mode::ALL {
            let captions: Vec<_> = s.captions.iter().filter(|c| s.caption_mode(c) == mode).collect();
            if captions.is_empty() {
                continue;
            }
            let events = run_to_end(&mut World::with_mode(&s, s.seed, mode).unwrap());
            // The page's own resolution: every caption gets a step of its own.
            let resolved = s.caption_steps(&events, None, mode);
            for c in captions {
                assert!(
                    resolved.iter().any(|r| r.text == c.text),
                    "{name} in {}: caption {:?} / {:?} matches no step (or shares one)",
                    mode.name(),
                    c.mark,
                    c.contains
                );
            }
        }
    }
}

#[test]
fn the_seed_incident_tells_the_story_of_each_fix() {
    let s = builtin("seed-incident").unwrap();
    for mode in [Mode::Legacy, Mode::Kafka11, Mode::Fenced] {
        let n = s.captions.iter().filter(|c| c.mode.unwrap_or_default() == mode).count();
        assert!(n >= 5, "{}: {n} captions", mode.name());
    }
}

#[test]
fn deleting_controller_is_refused_clearly_when_there_is_none_and_in_kraft() {
    let mut s = builtin("clean-failover").unwrap();
    s.script.clear();
    let mut w = World::with_mode(&s, 1, Mode::Kraft).unwrap();
    let e = w.apply(&splitbrain_sim::Command::DeleteController).unwrap();
    assert!(e.line.contains("KRaft has no /controller"), "{}", e.line);
    let mut w = World::with_mode(&s, 1, Mode::Legacy).unwrap();
    let first = w.apply(&splitbrain_sim::Command::DeleteController).unwrap();
    assert!(first.line.contains("every broker watching it re-elects"), "{}", first.line);
    assert!(w.zk().expect("ZooKeeper").get("/controller").is_none());
    let again = w.apply(&splitbrain_sim::Command::DeleteController).unwrap();
    assert!(again.line.contains("FAULT ignored: /controller does not exist"), "{}", again.line);
    // The brokers re-elect: some broker holds /controller again.
    run_to_end(&mut w);
    assert!(w.zk().expect("ZooKeeper").get("/controller").is_some());
}
