//! The explorer finds the split brain in `legacy`, not in `fenced`, and its counterexamples replay.
#![cfg(not(target_arch = "wasm32"))]
mod common;
use common::*;
use splitbrain_sim::explore::{is_one_minimal, violates, Explorer, Options, Property, Shard, BATCH};
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Mode, Scenario, World};

fn base() -> Scenario {
    builtin("seed-incident").unwrap()
}

#[test]
fn legacy_search_finds_and_shrinks_a_leader_minus_one_schedule() {
    // Seed 3: the guided search finds one after 93 schedules (101 before resets joined the
    // alphabet; the unguided swarm needed 390; docs/explorer.md has the table for seeds 1-12).
    let mut ex = Explorer::new(base(), Options { mode: Mode::Legacy, seed: 3, ..Options::default() });
    let c = ex.run(300).cloned().expect("a violation within 300 schedules");
    assert_eq!(ex.tried(), 93);
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

/// 1-minimal counterexamples (issue 12, 3e): for the finds of several seeds, removing any one fault
/// loses the violation — each one-fault-removed schedule is really run.
#[test]
fn shrunk_counterexamples_are_one_minimal() {
    for (seed, tried) in [(1, 177), (3, 93), (12, 134)] {
        let opts = Options { mode: Mode::Legacy, seed, ..Options::default() };
        let mut ex = Explorer::new(base(), opts.clone());
        let c = ex.run(300).cloned().unwrap_or_else(|| panic!("seed {seed}: a violation within 300 schedules"));
        assert_eq!(ex.tried(), tried, "seed {seed}");
        assert!(c.schedule.len() < c.original_faults, "seed {seed}: shrunk {:?}", c.schedule);
        assert!(is_one_minimal(&base(), &c.schedule, &opts), "seed {seed}: not 1-minimal: {:?}", c.schedule);
    }
    // The check can fail: a schedule with one fault more than needed is not 1-minimal.
    let opts = Options { mode: Mode::Legacy, seed: 3, ..Options::default() };
    let c = Explorer::new(base(), opts.clone()).run(300).cloned().unwrap();
    let mut padded = c.schedule.clone();
    padded.push(splitbrain_sim::scenario::ScriptEntry {
        at_ms: 1,
        command: splitbrain_sim::Command::Heal {
            a: splitbrain_sim::NodeId::Broker(1),
            b: splitbrain_sim::NodeId::Broker(2),
            dir: splitbrain_sim::Direction::Both,
        },
    });
    padded.sort_by_key(|e| e.at_ms);
    assert!(violates(&base(), &padded, &opts).is_some());
    assert!(!is_one_minimal(&base(), &padded, &opts));
}

/// Batches evaluated in any order and absorbed in index order, or one candidate at a time with
/// `run`: the same counterexample after the same number of schedules (what lets the CLI spread a
/// batch over threads).
#[test]
fn the_result_does_not_depend_on_how_batches_are_split() {
    let opts = Options { mode: Mode::Legacy, seed: 1, ..Options::default() };
    let mut one = Explorer::new(base(), opts.clone());
    while one.found().is_none() && one.tried() < 300 {
        one.run(1);
    }
    let mut batched = Explorer::new(base(), opts.clone());
    while batched.found().is_none() && batched.tried() < 300 {
        let b = batched.next_batch(BATCH);
        // Evaluated back to front, as threads might finish them, then put in index order.
        let mut outs: Vec<_> = b.iter().rev().map(|c| batched.evaluate(c)).collect();
        outs.sort_by_key(|o| o.index);
        batched.absorb(outs);
    }
    assert!(one.found().is_some());
    assert_eq!(one.found(), batched.found());
    assert_eq!(one.tried(), batched.tried());
}

/// Shards draw different candidates, each deterministically; shard 0 of 1 is the plain search.
#[test]
fn shards_draw_disjoint_deterministic_streams() {
    let batch = |shard: Shard| {
        Explorer::new(base(), Options { mode: Mode::Legacy, seed: 7, shard, ..Options::default() }).next_batch(BATCH)
    };
    let (a, b) = (batch(Shard { index: 0, count: 2 }), batch(Shard { index: 1, count: 2 }));
    assert_eq!(a, batch(Shard { index: 0, count: 2 }));
    assert_ne!(a, b);
    assert_ne!(a, batch(Shard { index: 0, count: 3 }));
    assert_eq!(batch(Shard::default()), batch(Shard { index: 0, count: 1 }));
    assert_eq!(Shard::parse("1/2"), Ok(Shard { index: 1, count: 2 }));
    for bad in ["2/2", "0/0", "a/b", "3", "1/2/3"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
}

/// The determinism check: a counterexample replayed twice gives one trace hash, and the hash
/// changes when the run does.
#[test]
fn a_counterexample_replays_to_the_same_trace_hash() {
    let c =
        Explorer::new(base(), Options { mode: Mode::Legacy, seed: 3, ..Options::default() }).run(300).cloned().unwrap();
    let d = splitbrain_sim::explore::check_determinism(&c.scenario, Mode::Legacy).unwrap();
    assert!(d.deterministic());
    assert_eq!(d.hash, d.second);
    let (fenced, _) = splitbrain_sim::explore::trace_hash(&c.scenario, Mode::Fenced).unwrap();
    assert_ne!(d.hash, fenced);
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

/// Issue 12's done-when: from scratch, every seed 1-12 finds a leader -1 within 300 schedules
/// (19-254; seed 6 since the search judges a deposed write by the controller `/controller` names,
/// not by a broker cut from ZooKeeper that still believes it is active). About 6 s in the test
/// profile.
#[test]
fn every_seed_from_1_to_12_finds_within_300_schedules() {
    let mut missed = Vec::new();
    for seed in 1..=12 {
        let mut ex = Explorer::new(base(), Options { mode: Mode::Legacy, seed, ..Options::default() });
        let found = ex.run(300).cloned();
        eprintln!("seed {seed}: {} schedules, {:?}", ex.tried(), found.map(|c| (c.original_faults, c.schedule.len())));
        if ex.found().is_none() {
            missed.push(seed);
        }
    }
    assert!(missed.is_empty(), "no leader -1 within 300 schedules for seeds {missed:?}");
}

/// No operator needed: without `--operator` the legacy search finds a leader -1 through 1.0's own
/// `triggerControllerMove`. A reset of a broker's ZooKeeper connection while its `elect` reads the
/// `/controller` holder after NODEEXISTS loses the read; the catch-all then deletes the node of a
/// live controller. The shrunk schedule keeps the reset, and its replay shows the lost read and
/// the delete of a live holder's node (typed marks).
#[test]
fn without_an_operator_legacy_finds_a_split_brain_through_a_reset() {
    use splitbrain_sim::{Command, Mark};
    let opts = Options { mode: Mode::Legacy, seed: 10, ..Options::default() };
    assert!(!opts.operator);
    let mut ex = Explorer::new(base(), opts.clone());
    let c = ex.run(60).cloned().expect("a violation within 60 schedules");
    let is_reset = |c: &Command| matches!(c, Command::Reset { .. });
    assert!(c.schedule.iter().any(|e| is_reset(&e.command)), "no reset kept: {:?}", c.schedule);
    assert!(!c.schedule.iter().any(|e| e.command == Command::DeleteController), "{:?}", c.schedule);
    // Dropping the reset loses the violation: it is the reset that moves the controller.
    let without: Vec<_> = c.schedule.iter().filter(|e| !is_reset(&e.command)).cloned().collect();
    assert!(violates(&base(), &without, &opts).is_none(), "violates without its reset: {:?}", c.schedule);
    let s = Scenario::from_json(&c.scenario.to_json()).unwrap();
    let mut w = World::with_mode(&s, s.seed, Mode::Legacy).unwrap();
    let marks: Vec<Mark> = run_to_end(&mut w).into_iter().flat_map(|e| e.marks).collect();
    assert!(marks.iter().any(|m| matches!(m, Mark::ControllerOwnerReadLost { .. })), "no lost read of the holder");
    assert!(
        marks.iter().any(|m| matches!(m, Mark::ControllerZnodeDeleted { holder_live: true, .. })),
        "no live controller's /controller deleted by another broker"
    );
    assert!(w.partition_views().iter().any(|p| p.leader == -1));
}
