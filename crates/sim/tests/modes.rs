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
    let (w, events) = run("zkclient-retry", Mode::Fenced);
    assert!(
        w.partition_views().iter().all(|p| p.leader >= 0),
        "{:?}",
        w.partition_views().iter().filter(|p| p.leader < 0).collect::<Vec<_>>()
    );
    assert_eq!(w.consumer_views()[0].status, splitbrain_sim::consumer::ConsumerStatus::Stable);
    assert!(w.alerts().is_empty(), "{:?}", w.alerts());
    // 2.1.0 elects in one pipelined batch: broker 1's writes, __consumer_offsets-3 among them, are
    // all acknowledged before its link is cut, so nothing of its failover is left to refuse. What
    // keeps the partition led here is that timing, not the fence: broker 2 loads leader 1 (not
    // live) and elects again.
    let cut = mark_index(&events, 0, |m| {
        matches!(m, Mark::Fault { command: Command::Cut { a: NodeId::Broker(1), b: NodeId::Zk(_), .. } })
    })
    .unwrap();
    let p3 = offsets(3);
    let b1_p3 = mark_index(
        &events,
        0,
        |m| matches!(m, Mark::LeaderElected { controller: 1, partition, .. } if *partition == p3),
    )
    .expect("broker 1 elects __consumer_offsets-3");
    assert!(b1_p3 < cut);
    assert!(mark_index(
        &events,
        cut,
        |m| matches!(m, Mark::LeaderElected { controller: 2, leader: 2, partition, .. } if *partition == p3)
    )
    .is_some());
    assert!(first_mark(&events, |m| matches!(m, Mark::WriteRefused { .. } | Mark::ControllerMoved { .. })).is_none());
    // 2.1.0 has 1.1.0's client: on expiry broker 1 resigns through Expire, retrying nothing.
    let learned = mark_index(&events, cut, |m| matches!(m, Mark::SessionExpiryLearned { broker: 1, .. })).unwrap();
    assert!(has_mark(&events[learned], |m| *m == Mark::ControllerResigned { broker: 1, controller_epoch: 8 }));
    assert!(deposed_write_landed(&events).is_none());
}

#[test]
fn legacy_and_fenced_share_the_fault_schedule_but_not_the_outcome() {
    let (legacy, _) = run("zkclient-retry", Mode::Legacy);
    let (fenced, _) = run("zkclient-retry", Mode::Fenced);
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
    let (w, events) = run("zkclient-retry", Mode::Kafka11);
    // Broker 1's interrupted write fails with its expired session instead of being retried: the
    // step where broker 1 resigns after ZooKeeper expired its session says so (no mark tells
    // which requests failed, so the wording is checked on the step the marks find).
    let expired = mark_index(&events, 0, |m| matches!(m, Mark::SessionExpired { owner: NodeId::Broker(1), .. }))
        .expect("broker 1's session expires");
    // (With 1.1's batched election nothing is pending any more at this schedule's cut: see
    // tests/kafka_zk_client.rs for a batch that is on the wire when the session expires.)
    let failed = mark_index(&events, expired, |m| matches!(m, Mark::SessionExpiryLearned { broker: 1, .. }))
        .expect("broker 1 learns its session expired");
    assert!(has_mark(&events[failed], |m| matches!(m, Mark::ControllerResigned { broker: 1, .. })));
    assert!(says(&events[failed], "Processing Expire"), "{:?}", events[failed]);
    // …so it never lands, and every partition ends led, with the group served.
    assert!(deposed_write_landed(&events).is_none());
    assert!(w.partition_views().iter().all(|p| p.leader >= 0));
    assert_eq!(w.consumer_views()[0].status, splitbrain_sim::consumer::ConsumerStatus::Stable);
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
        assert_eq!(
            w.consumer_views()[0].status,
            splitbrain_sim::consumer::ConsumerStatus::CoordinatorNotAvailable,
            "{mode:?}"
        );
    }
    // In fenced (2.1.0) broker 1's election is one request shorter (the create carries the epoch
    // bump), so its batch lands before the cut: nothing deposed is written, and nothing is refused.
    let (w, events) = run("controller-moved", Mode::Fenced);
    assert!(deposed_write_landed(&events).is_none());
    assert!(first_mark(&events, |m| matches!(m, Mark::WriteRefused { .. })).is_none());
    assert!(w.partition_views().iter().all(|p| p.leader >= 0));
}

#[test]
fn a_scenario_file_names_its_mode_and_world_new_honours_it() {
    let s = builtin("controller-moved").unwrap();
    assert_eq!(s.mode, Some(Mode::Kafka11));
    assert_eq!(world("controller-moved").mode(), Mode::Kafka11);
    assert_eq!(Mode::parse("1.1"), Ok(Mode::Kafka11));
    assert_eq!(Mode::parse("1.0"), Ok(Mode::Legacy));
    assert!(Mode::parse("2.0").unwrap_err().contains("legacy or 1.0, 1.1, fenced or 2.1, kraft"));
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
    let s = builtin("zkclient-retry").unwrap();
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

/// A built-in run to its end under `mode`, for the side-by-side verdict: its events, the final
/// leader of `__consumer_offsets-3`, and the behaviour.
struct Run(Vec<splitbrain_sim::Event>, i32, splitbrain_sim::Behaviour);

impl Run {
    fn of(name: &str, mode: Mode) -> Run {
        let s = builtin(name).unwrap();
        let mut w = World::with_mode(&s, s.seed, mode).unwrap();
        let events = run_to_end(&mut w);
        let p = w.partition_views().into_iter().find(|p| p.topic == "__consumer_offsets" && p.partition == 3).unwrap();
        Run(events, p.leader, mode.behaviour())
    }

    fn side(&self) -> splitbrain_sim::compare::Side<'_> {
        splitbrain_sim::compare::Side { events: &self.0, leader: self.1, behaviour: self.2 }
    }
}

/// The side-by-side verdict credits a fix only when it acted on the partition: in `zkclient-retry`
/// kraft has no ZooKeeper to write to, while in fenced (2.1.0) p3 stays led because 2.1's faster
/// failover wrote it before the cut: a timing shift, not the fence. (In `seed-incident` the fence
/// itself refuses p3: see `the_fence_itself_keeps_p3_led_in_the_seed_incident`.)
#[test]
fn the_side_by_side_verdict_credits_a_fix_only_when_it_acted() {
    use splitbrain_sim::compare::{verdict, FixAct, Verdict};
    let run_mode = |mode| Run::of("zkclient-retry", mode);
    let legacy = run_mode(Mode::Legacy);
    assert_eq!(legacy.1, -1);
    let kraft = run_mode(Mode::Kraft);
    assert_eq!(verdict(&offsets(3), legacy.side(), kraft.side()), Verdict::Fix(FixAct::NoZooKeeper));
    let fenced = run_mode(Mode::Fenced);
    let v = verdict(&offsets(3), legacy.side(), fenced.side());
    let refused_p3 =
        first_mark(&fenced.0, |m| matches!(m, Mark::WriteRefused { partition: Some(p), .. } if *p == offsets(3)));
    assert_eq!(v == Verdict::Fix(FixAct::Fenced { from: 1 }), refused_p3.is_some(), "{v:?}");
    // 2.1.0 pipelines its failover: broker 1's batch had landed before the cut, so the fence has
    // nothing of p3 to refuse, and the line must not credit it.
    assert!(refused_p3.is_none());
    assert_eq!(v, Verdict::Timing);
}

/// The partition-state reads of every failover in `mode`'s `seed-incident`: how many distinct
/// "updateLeaderAndIsrCache(<partition>)" waits broker 1's controller went through.
fn one_by_one_state_reads(mode: Mode) -> usize {
    let s = builtin("zkclient-retry").unwrap();
    let mut w = World::with_mode(&s, s.seed, mode).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    while w.step().is_some() {
        if w.now() > 40_000 {
            break;
        }
        let b1 = w.broker(1).unwrap();
        if let Some(on) = b1.controller.job.as_ref().and_then(|j| j.waiting_on()) {
            if on.contains("updateLeaderAndIsrCache(") {
                seen.insert(on);
            }
        }
    }
    seen.len()
}

#[test]
fn one_oh_reads_partition_states_one_by_one_and_later_versions_in_one_batch() {
    let one_oh = Mode::ALL.into_iter().find(|m| m.behaviour().context_reads_one_by_one).unwrap();
    let batched =
        Mode::ALL.into_iter().find(|m| !m.behaviour().context_reads_one_by_one && !m.behaviour().is_kraft()).unwrap();
    assert_eq!(one_by_one_state_reads(one_oh), 50, "one synchronous getData per partition");
    assert_eq!(one_by_one_state_reads(batched), 0, "one pipelined batch");
}

/// 1.0's `elect` creates `/controller` with `ZKCheckedEphemeral` on the raw handle: when broker 2's
/// session expires under that create, `SESSIONEXPIRED` reaches `elect`'s catch-all and
/// `triggerControllerMove` deletes `/controller` without checking who holds it — here broker 3's,
/// the active controller's — and broker 2 then takes over while broker 3 is still failing over.
#[test]
fn a_create_lost_with_its_session_makes_one_oh_delete_another_brokers_controller_znode() {
    use splitbrain_sim::scenario::ScriptEntry;
    use splitbrain_sim::Direction;
    let mut s = builtin("zkclient-retry").unwrap();
    s.script.retain(|e| e.at_ms <= 17_000);
    let (b2, zk) = (NodeId::Broker(2), NodeId::ZK);
    // Broker 1 is cut for good just after it won (the old seed-incident's cut, without its heal).
    let b1 = NodeId::Broker(1);
    s.script.insert(1, ScriptEntry { at_ms: 16_470, command: Command::Cut { a: b1, b: zk, dir: Direction::Both } });
    s.script.push(ScriptEntry { at_ms: 24_085, command: Command::Cut { a: b2, b: zk, dir: Direction::Both } });
    s.script.push(ScriptEntry { at_ms: 33_530, command: Command::Heal { a: b2, b: zk, dir: Direction::Both } });
    s.end_ms = Some(60_000);
    let unchecked = Mode::ALL.into_iter().find(|m| !m.behaviour().controller_move_checks_owner).unwrap();
    let mut w = World::with_mode(&s, s.seed, unchecked).unwrap();
    let events = run_to_end(&mut w);
    let e3 = mark_index(&events, 0, |m| matches!(m, Mark::ControllerElected { broker: 3, .. })).expect("3 wins");
    let moved = mark_index(&events, e3, |m| *m == Mark::ControllerMoveTriggered { broker: 2, owner_checked: false })
        .expect("broker 2's catch-all triggers a controller move");
    let e2 = mark_index(&events, moved, |m| matches!(m, Mark::ControllerElected { broker: 2, .. }))
        .expect("broker 3's /controller was deleted and broker 2 wins it");
    assert!(e3 < moved && moved < e2);
}

/// In `operator-delete` the fence itself keeps `__consumer_offsets-3` led under `fenced` (2.1.0):
/// broker 1's stalled write of p3 reaches ZooKeeper after broker 2 bumped `/controller_epoch`, and
/// is refused with BADVERSION; the side-by-side verdict credits the fence. Under 1.1 the
/// controller moved without a session expiry, so 1.1's fix does not apply and p3 ends at -1.
#[test]
fn the_fence_itself_keeps_p3_led_when_an_operator_moves_the_controller() {
    use splitbrain_sim::compare::{verdict, FixAct, Verdict};
    let run_mode = |mode| Run::of("operator-delete", mode);
    let legacy = run_mode(Mode::Legacy);
    let fenced = run_mode(Mode::Fenced);
    assert_eq!(legacy.1, -1);
    assert!(fenced.1 >= 0, "p3 ends led under fenced");
    let refused = mark_index(
        &fenced.0,
        0,
        |m| matches!(m, Mark::WriteRefused { from: 1, partition: Some(p), .. } if *p == offsets(3)),
    )
    .expect("broker 1's write of p3 is refused with BADVERSION");
    let b2 = mark_index(&fenced.0, 0, |m| matches!(m, Mark::ControllerElected { broker: 2, .. })).unwrap();
    assert!(b2 < refused, "refused because broker 2 had moved /controller_epoch on");
    assert!(first_mark(&fenced.0, |m| matches!(m, Mark::DeposedWriteAccepted { .. })).is_none());
    assert_eq!(verdict(&offsets(3), legacy.side(), fenced.side()), Verdict::Fix(FixAct::Fenced { from: 1 }));
    let k11 = run_mode(Mode::Kafka11);
    assert_eq!(k11.1, -1, "1.1: the controller moved without an expiry");
    assert!(
        first_mark(&k11.0, |m| matches!(m, Mark::SessionExpired { owner: NodeId::Broker(1), .. })).is_none()
            || mark_index(&k11.0, 0, |m| matches!(m, Mark::SessionExpired { owner: NodeId::Broker(1), .. }))
                > mark_index(&k11.0, 0, |m| matches!(m, Mark::DeposedWriteAccepted { .. }))
    );
    assert_eq!(verdict(&offsets(3), legacy.side(), k11.side()), Verdict::Same);
    let kraft = run_mode(Mode::Kraft);
    assert_eq!(verdict(&offsets(3), legacy.side(), kraft.side()), Verdict::Fix(FixAct::NoZooKeeper));
}

/// `seed-incident` has no operator: until the two-day mark its script is network faults only, and
/// broker 2's own 1.0 code removes broker 1's live `/controller` between the two elections: the
/// blip loses its read of the holder (`ControllerOwnerReadLost`), the catch-all triggers a
/// controller move, and the unconditional delete lands from broker 2's session on a server it
/// reconnected to. 1.1 and 2.1 retry that read, so nothing deletes `/controller` and p3 stays led.
#[test]
fn the_seed_incident_needs_no_operator_broker_twos_own_code_deletes_the_live_controller_znode() {
    let s = builtin("seed-incident").unwrap();
    for e in s.script.iter().filter(|e| e.at_ms < 172_800_000) {
        assert!(
            matches!(
                e.command,
                Command::Cut { .. } | Command::Heal { .. } | Command::Reset { .. } | Command::SetLatency { .. }
            ),
            "not a network fault: {:?}",
            e.command
        );
    }
    let legacy = Run::of("seed-incident", Mode::Legacy);
    let events = &legacy.0;
    let e1 = mark_index(events, 0, |m| matches!(m, Mark::ControllerElected { broker: 1, .. })).expect("1 wins");
    let lost = mark_index(events, e1, |m| *m == Mark::ControllerOwnerReadLost { broker: 2 }).expect("the read is lost");
    let moved = mark_index(events, lost, |m| *m == Mark::ControllerMoveTriggered { broker: 2, owner_checked: false })
        .expect("elect's catch-all triggers a controller move");
    let deleted = mark_index(events, moved, |m| {
        matches!(m, Mark::ControllerZnodeDeleted { by: 2, holder: 1, holder_live: true, .. })
    })
    .expect("broker 2's session deletes broker 1's live /controller");
    let e2 = mark_index(events, deleted, |m| matches!(m, Mark::ControllerElected { broker: 2, .. })).expect("2 wins");
    assert!(e1 <= lost && lost <= moved && moved < deleted && deleted < e2);
    // The delete reached ZooKeeper from broker 2's session, on a step of its own at a server.
    let step = &events[deleted];
    assert!(step.node.is_zk(), "{:?}", step.node);
    assert_eq!(legacy.1, -1);
    for mode in [Mode::Kafka11, Mode::Fenced] {
        let run = Run::of("seed-incident", mode);
        assert!(first_mark(&run.0, |m| matches!(m, Mark::ControllerOwnerReadLost { .. })).is_none(), "{mode:?}");
        assert!(first_mark(&run.0, |m| matches!(m, Mark::ControllerZnodeDeleted { .. })).is_none(), "{mode:?}");
        assert!(run.1 >= 0, "{mode:?}: p3 ends led");
    }
}
