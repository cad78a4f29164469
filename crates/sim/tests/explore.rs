//! The explorer finds the split brain in `legacy`, not in `fenced`, and its counterexamples replay.
#![cfg(not(target_arch = "wasm32"))]
mod common;
use common::*;
use splitbrain_sim::explore::{violates, Explorer, Options, Property};
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Mode, Scenario, World};

fn base() -> Scenario {
    builtin("seed-incident").unwrap()
}

#[test]
fn legacy_search_finds_and_shrinks_a_leader_minus_one_schedule() {
    // Seed 3: with 1.0's batched ISR notifications and tick-bucket expiry the random search needs
    // more schedules on average (release, 2026-12-03: seeds 1-6 find one after 5112, 1409, 390,
    // 2681, 1469 and 4033 schedules), so the debug-build test uses the seed that keeps it fast.
    let mut ex = Explorer::new(base(), Options { mode: Mode::Legacy, seed: 3, ..Options::default() });
    let c = ex.run(2000).cloned().expect("a violation within 2000 schedules");
    // Tick-bucket expiry (ZooKeeper 3.4 SessionTrackerImpl) shifts which schedules break: seed 1 now
    // shrinks to 7 faults (it was 6 with exact-instant expiry).
    assert!(c.schedule.len() <= 7, "shrunk to a handful of faults: {:?}", c.schedule);
    assert!(c.schedule.len() <= c.original_faults);
    // It replays, from the scenario file the explorer writes.
    let s = Scenario::from_json(&c.scenario.to_json()).expect("counterexample is a valid scenario");
    let mut w = World::with_mode(&s, s.seed, Mode::Legacy).unwrap();
    run_to_end(&mut w);
    assert!(w.partition_views().iter().any(|p| p.leader == -1), "replay ends with a leaderless partition");
    // Minimal: dropping any one fault loses the violation.
    let opts = Options { mode: Mode::Legacy, seed: 3, ..Options::default() };
    for i in 0..c.schedule.len() {
        let mut fewer = c.schedule.clone();
        fewer.remove(i);
        assert!(violates(&base(), &fewer, &opts).is_none(), "fault {i} is not needed: {:?}", c.schedule);
    }
    // The same counterexample runs in fenced mode without leaving a partition leaderless.
    let mut f = World::with_mode(&s, s.seed, Mode::Fenced).unwrap();
    run_to_end(&mut f);
    assert!(f.partition_views().iter().all(|p| p.leader >= 0));
}

#[test]
fn fenced_survives_the_same_budget_without_leader_minus_one() {
    let mut ex = Explorer::new(base(), Options { mode: Mode::Fenced, seed: 1, ..Options::default() });
    assert!(ex.run(400).is_none(), "{:?}", ex.found().map(|c| &c.schedule));
    assert_eq!(ex.tried(), 400);
}

#[test]
fn kraft_survives_the_same_budget_without_leader_minus_one() {
    let mut ex = Explorer::new(base(), Options { mode: Mode::Kraft, seed: 1, ..Options::default() });
    assert!(ex.run(2000).is_none(), "{:?}", ex.found().map(|c| &c.schedule));
}

#[test]
fn the_search_is_deterministic() {
    let run =
        || Explorer::new(base(), Options { mode: Mode::Legacy, seed: 3, ..Options::default() }).run(2000).cloned();
    assert_eq!(run(), run());
}

#[test]
fn two_controllers_are_found_in_both_modes() {
    // Fencing makes a deposed controller harmless; it does not stop it believing it is active.
    for mode in [Mode::Legacy, Mode::Fenced] {
        let mut ex =
            Explorer::new(base(), Options { mode, seed: 2, property: Property::TwoControllers, ..Options::default() });
        let c = ex.run(500).cloned().expect("two controllers are easy to reach");
        assert!(c.schedule.len() <= 3, "{mode:?}: {:?}", c.schedule);
    }
}

#[test]
fn kafka_1_1_survives_network_and_crash_faults_but_not_an_operator_moving_the_controller() {
    // KAFKA-5642 closes the session-expiry path: cuts, heals, crashes and restarts find nothing…
    let mut ex = Explorer::new(base(), Options { mode: Mode::Kafka11, seed: 1, ..Options::default() });
    assert!(ex.run(400).is_none(), "{:?}", ex.found().map(|c| &c.schedule));
    // …but a controller moved without expiry (an operator deleting /controller) still lets a
    // deposed controller write. 1.1.0 elects in one pipelined batch, so the window is only while
    // that batch is on the wire: the random search (seeds 1-3, 2000 schedules; seed 1, 20000)
    // no longer hits it, so the schedule is the hand-placed one of the controller-moved built-in,
    // shrunk here: every fault it keeps is needed, the operator's delete among them.
    let opts = Options { mode: Mode::Kafka11, seed: 1, operator: true, ..Options::default() };
    let schedule: Vec<_> = builtin("controller-moved").unwrap().script;
    assert!(violates(&base(), &schedule, &opts).is_some(), "the operator's schedule breaks 1.1");
    let c = splitbrain_sim::explore::shrink(&base(), &schedule, &opts);
    assert!(c.iter().any(|e| e.command == splitbrain_sim::Command::DeleteController), "{c:?}");
    assert!(c.len() <= 6, "{c:?}");
    for i in 0..c.len() {
        let mut fewer = c.clone();
        fewer.remove(i);
        assert!(violates(&base(), &fewer, &opts).is_none(), "fault {i} is not needed: {c:?}");
    }
    // The same schedule leaves every partition led in fenced.
    assert!(violates(&base(), &c, &Options { mode: Mode::Fenced, ..opts }).is_none());
}

/// 1.0's controller-move paths are reachable by the search, not only by hand: some random runs hit
/// `elect`'s catch-all and its unconditional `triggerControllerMove`.
#[test]
#[ignore = "slow in a debug build: run with --release --ignored"]
fn the_search_reaches_one_oh_trigger_controller_move() {
    let budget: u64 = std::env::var("MOVE_BUDGET").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let mut seed = 11;
    let (mut tried, mut moves) = (0, 0);
    while tried < budget && moves == 0 {
        let mut ex = Explorer::new(base(), Options { mode: Mode::Legacy, seed, ..Options::default() });
        ex.run(budget - tried);
        tried += ex.tried();
        moves += ex.moves_triggered();
        seed += 1;
    }
    eprintln!("triggerControllerMove reached in {moves} run(s) within {tried} schedules");
    assert!(moves > 0, "no random run reached triggerControllerMove in {tried} schedules");
}
