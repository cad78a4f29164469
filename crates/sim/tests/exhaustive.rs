//! Bounded exhaustive verification (`explore::exhaustive`): merging equal states changes the
//! counts, not the verdict; every judged schedule agrees with its replay as a scenario; and the
//! two controllers of a session expiry are found with one fault.
#![cfg(not(target_arch = "wasm32"))]
use splitbrain_sim::explore::exhaustive::{schedule_count, Exhaustive, GRID_MS};
use splitbrain_sim::explore::{violates, Explorer, Options, Property};
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Mode, Scenario};

fn base() -> Scenario {
    builtin("seed-incident").unwrap()
}

#[test]
fn merging_keeps_the_verdict_and_explores_fewer_states() {
    let opts = Options { mode: Mode::Fenced, max_faults: 1, ..Options::default() };
    let merged = Exhaustive::new(&base(), &opts, &GRID_MS, true).unwrap().run_to_end();
    let plain = Exhaustive::new(&base(), &opts, &GRID_MS, false).unwrap().run_to_end();
    // 3 brokers: 4 faults each with ZooKeeper and 2 per broker pair = 18; 1 + 3 * 18 schedules.
    assert_eq!((merged.alphabet, schedule_count(3, 1, 18)), (18, 55));
    for v in [&merged, &plain] {
        assert!(v.exhausted && v.violation.is_none(), "{}", v.statement());
        assert_eq!(v.counts.schedules, 55);
    }
    assert_eq!(plain.counts.distinct_states + plain.counts.impossible, 55);
    assert_eq!(plain.counts.merged, 0);
    assert!(merged.counts.merged > 0, "{}", merged.statement());
    assert_eq!(merged.counts.distinct_states + merged.counts.merged, plain.counts.distinct_states);
    assert!(merged
        .statement()
        .starts_with("fenced: no leader -1 in any schedule of ≤ 1 faults on grid 1.0/7.2/7.5 s (55"));
}

#[test]
fn every_judged_schedule_agrees_with_its_replay_and_two_controllers_are_found() {
    // Two controllers need only the controller's session to expire: a cut from ZooKeeper.
    let opts = Options { mode: Mode::Legacy, max_faults: 1, property: Property::TwoControllers, ..Options::default() };
    let mut ex = Exhaustive::new(&base(), &opts, &GRID_MS, false).unwrap();
    let mut judged = Vec::new();
    while !ex.done() {
        judged.extend(ex.run(1));
    }
    let v = ex.verdict();
    let bad = v.violation.clone().expect("a cut of the controller from ZooKeeper gives two controllers");
    assert!(!v.exhausted);
    assert_eq!(judged.last(), Some(&(bad.clone(), true)));
    for (schedule, violated) in &judged {
        assert_eq!(violates(&base(), schedule, &opts).is_some(), *violated, "{schedule:?}");
    }
    assert!(judged.len() >= 2, "the empty schedule is judged first");
}

#[test]
fn the_explorer_runs_the_tree_in_slices() {
    let mut ex =
        Explorer::new(base(), Options { mode: Mode::Fenced, exhaustive: true, max_faults: 1, ..Options::default() });
    let direct =
        Exhaustive::new(&base(), &Options { mode: Mode::Fenced, max_faults: 1, ..Options::default() }, &GRID_MS, true)
            .unwrap()
            .run_to_end();
    while !ex.exhausted() {
        ex.run(7);
    }
    assert!(ex.found().is_none());
    assert_eq!(ex.tried(), direct.counts.distinct_states, "one schedule judged per distinct state");
}
