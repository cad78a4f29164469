//! The history: stepping back shows exactly the earlier world; acting in the past forks and one
//! undo restores the old future.
mod common;
use common::*;
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Command, Direction, NodeId, Timeline};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn timeline() -> Timeline {
    Timeline::new(builtin("seed-incident").unwrap(), None).unwrap()
}

#[test]
fn stepping_back_restores_the_earlier_view_exactly() {
    let mut t = timeline();
    let v0 = t.view();
    for _ in 0..200 {
        t.forward();
    }
    let v200 = t.view();
    assert_ne!(v0, v200);
    t.seek(0);
    assert_eq!(t.view(), v0);
    t.seek(200);
    assert_eq!(t.view(), v200);
    assert!(t.back());
    assert_eq!(t.cursor(), 199);
}

#[test]
fn the_timeline_computes_the_same_events_as_a_plain_run() {
    let mut t = timeline();
    t.compute_all();
    let plain = run_to_end(&mut world("seed-incident"));
    assert_eq!(t.events(), &plain[..]);
}

#[test]
fn a_cut_in_the_past_forks_and_undo_restores() {
    let mut t = timeline();
    t.compute_all();
    let full = t.len();
    let end_view = {
        t.seek(full);
        t.view()
    };
    t.seek(10);
    let ev = t.apply(Command::Cut { a: NodeId::Broker(2), b: NodeId::Zk(1), dir: Direction::Both }).unwrap().clone();
    assert_eq!(ev.step, 11);
    assert_eq!(t.len(), 11, "the old future is discarded");
    assert_eq!(t.user_commands().len(), 1);
    assert!(!t.view().links.iter().any(|l| l.a == NodeId::Zk(1) && l.b == NodeId::Broker(2) && l.a_to_b));
    assert!(t.undo());
    assert_eq!(t.len(), full);
    assert_eq!(t.cursor(), 10);
    t.seek(full);
    assert_eq!(t.view(), end_view);
    assert!(!t.undo(), "one undo only");
}

#[test]
fn impossible_commands_are_refused_and_change_nothing() {
    let mut t = timeline();
    t.seek(5);
    let before = t.len();
    let e = t.apply(Command::Cut { a: NodeId::Client(1), b: NodeId::Zk(1), dir: Direction::Both }).unwrap_err();
    assert!(e.contains("clients only talk to brokers"), "{e}");
    let e = t.apply(Command::Crash { node: NodeId::Broker(7) }).unwrap_err();
    assert!(e.contains("unknown node b7"), "{e}");
    assert_eq!(t.len(), before);
    assert!(!t.can_undo());
}

/// The playground's "scenario .json" export: the user's faults saved by step replay to the same
/// run through the JSON file and a plain `World`, as `splitbrain run` does it.
#[test]
fn a_scenario_saved_with_user_faults_replays_to_the_same_run() {
    use splitbrain_sim::scenario::{Mode, Scenario};
    use splitbrain_sim::World;
    for mode in [Mode::Legacy, Mode::Fenced, Mode::Kraft] {
        let mut t = Timeline::with_mode(builtin("seed-incident").unwrap(), Some(7), mode).unwrap();
        t.seek(40);
        t.apply(Command::Cut { a: NodeId::Broker(2), b: NodeId::Zk(1), dir: Direction::Both }).unwrap();
        t.seek(90);
        t.apply(Command::Crash { node: NodeId::Broker(3) }).unwrap();
        t.seek(91);
        t.apply(Command::Heal { a: NodeId::Broker(2), b: NodeId::Zk(1), dir: Direction::Both }).unwrap();
        t.compute_all();
        let saved = t.scenario_with_user_faults(mode);
        assert_eq!(saved.after_steps.len(), 3);
        assert_eq!(saved.mode, Some(mode));
        let reread = Scenario::from_json(&saved.to_json()).unwrap();
        assert_eq!(reread, saved);
        let mut w = World::new(&reread).unwrap();
        let events = run_to_end(&mut w);
        assert_eq!(events.len(), t.len(), "{mode:?}");
        assert_eq!(&events[..], t.events(), "{mode:?}");
        assert_eq!(w.summary(), t.world_at(t.len()).unwrap().summary());
    }
}

#[test]
fn two_faults_after_the_same_step_are_refused() {
    use splitbrain_sim::scenario::{Scenario, StepFault};
    let mut s: Scenario = builtin("clean-failover").unwrap();
    let f = StepFault { after_step: 3, command: Command::Crash { node: NodeId::Broker(1) } };
    s.after_steps = vec![f.clone(), f];
    let e = Scenario::from_json(&s.to_json()).unwrap_err().to_string();
    assert!(e.contains("after_steps lists step 3 twice"), "{e}");
}

/// Side by side: the same faults replayed under the fix by virtual time; at the moment legacy
/// writes leader -1 for partition 3, the fenced run at the same time has partition 3 led.
#[test]
fn the_same_faults_by_time_show_the_divergence_at_the_same_moment() {
    use splitbrain_sim::scenario::Mode;
    let mut legacy = timeline();
    legacy.seek(30);
    legacy.apply(Command::Cut { a: NodeId::Broker(2), b: NodeId::Broker(3), dir: Direction::Both }).unwrap();
    legacy.compute_all();
    let by_time = legacy.scenario_with_user_faults_by_time();
    assert_eq!(by_time.script.len(), builtin("seed-incident").unwrap().script.len() + 1);
    let t_cut = legacy.world_at(30).unwrap().now();
    assert!(by_time.script.iter().any(|e| e.at_ms == t_cut && matches!(e.command, Command::Cut { .. })));
    let mut fenced = Timeline::with_mode(by_time, None, Mode::Fenced).unwrap();
    fenced.compute_all();
    let p3 = |t: &Timeline, step: usize| {
        let v = t.world_at(step).unwrap().view();
        v.partitions.iter().find(|p| p.partition == 3).map(|p| p.leader).unwrap()
    };
    let minus_one =
        (1..=legacy.len()).find(|s| p3(&legacy, *s) == -1).expect("legacy reaches leader -1 for partition 3");
    let t = legacy.world_at(minus_one).unwrap().now();
    let k = fenced.step_at_time(t);
    assert!(fenced.world_at(k).unwrap().now() <= t);
    assert!(k == fenced.len() || fenced.events()[k].time_ms > t, "k is the last step at or before t");
    assert_ne!(p3(&fenced, k), -1, "fenced has partition 3 led at the same moment");
}

/// One answer to "which behaviour does this built-in open in": `World`, `Timeline` and the
/// scenario's `opening_mode` agree for every built-in (controller-moved is written for 1.1), and a
/// requested mode overrides the scenario's own.
#[test]
fn world_and_timeline_open_every_builtin_in_the_same_mode() {
    use splitbrain_sim::scenario::{builtin, builtins};
    use splitbrain_sim::{Mode, World};
    let mut own = Vec::new();
    for (name, _) in builtins() {
        let s = builtin(name).unwrap();
        let opening = s.opening_mode(None);
        assert_eq!(opening, s.mode.unwrap_or_default(), "{name}");
        assert_eq!(World::new(&s).unwrap().mode(), opening, "{name}: World::new");
        assert_eq!(Timeline::new(s.clone(), None).unwrap().world().mode(), opening, "{name}: Timeline::new");
        assert_eq!(s.opening_mode(Some(Mode::Kraft)), Mode::Kraft, "{name}: a requested mode wins");
        own.push((name, opening));
    }
    assert!(own.contains(&("controller-moved", Mode::Kafka11)), "{own:?}");
}
