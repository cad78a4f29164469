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
    legacy.seek(40);
    legacy.apply(Command::Cut { a: NodeId::Broker(1), b: NodeId::Broker(3), dir: Direction::Both }).unwrap();
    legacy.compute_all();
    let by_time = legacy.scenario_with_user_faults_by_time();
    assert_eq!(by_time.script.len(), builtin("seed-incident").unwrap().script.len() + 1);
    let t_cut = legacy.world_at(40).unwrap().now();
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

/// seed-incident with its end moved to 10^15 ms: a consumer without a coordinator retries for
/// ever, so only a bound ends the run.
fn hostile() -> splitbrain_sim::Scenario {
    let mut s = builtin("seed-incident").unwrap();
    s.end_ms = Some(1_000_000_000_000_000);
    s
}

/// The world stops at the step limit and at the time limit, and says which as a typed fact; a
/// run that ends on its own names no bound.
#[test]
fn the_world_stops_at_a_bound_and_says_which() {
    use splitbrain_sim::{Bound, Limits, World};
    let mut w = World::new(&hostile()).unwrap();
    w.set_limits(Limits { max_steps: 700, max_time_ms: u64::MAX });
    assert_eq!(w.stopped_by(), None);
    let events = run_to_end(&mut w);
    assert_eq!(events.len(), 700);
    assert_eq!(w.step_count(), 700);
    assert_eq!(w.stopped_by(), Some(Bound::Steps(700)));
    assert!(!w.finished(), "a bound is not the run's end");

    let limit = 180_000_000;
    let mut w = World::new(&hostile()).unwrap();
    w.set_limits(Limits { max_steps: u64::MAX, max_time_ms: limit });
    let events = run_to_end(&mut w);
    assert!(events.iter().all(|e| e.time_ms <= limit));
    assert!(w.next_time().is_some_and(|t| t > limit));
    assert_eq!(w.stopped_by(), Some(Bound::TimeMs(limit)));

    for (name, _) in splitbrain_sim::scenario::builtins() {
        let mut w = world(name);
        assert_eq!(w.limits(), Limits::default());
        run_to_end(&mut w);
        assert_eq!(w.stopped_by(), None, "{name} ends on its own, within the default limits");
        assert!(w.finished(), "{name}");
    }
}

/// The timeline holds its run to the same limits: computing everything stops at the bound, and
/// the timeline says so.
#[test]
fn the_timeline_stops_at_the_bound_and_says_so() {
    use splitbrain_sim::{Bound, Limits, Mode};
    let limits = Limits { max_steps: 1_000, max_time_ms: u64::MAX };
    let mut t = Timeline::with_limits(hostile(), None, Mode::Legacy, limits).unwrap();
    assert!(t.compute(400), "more remains after 400 steps");
    assert_eq!(t.len(), 400);
    assert_eq!(t.cursor(), 0, "computing does not move the cursor");
    assert_eq!(t.stopped_by(), None);
    t.seek(usize::MAX);
    assert_eq!(t.len(), 1_000);
    assert_eq!(t.cursor(), 1_000);
    assert!(t.is_complete());
    assert_eq!(t.stopped_by(), Some(Bound::Steps(1_000)));
    assert!(t.forward().is_none());
    let mut plain = splitbrain_sim::World::new(&hostile()).unwrap();
    plain.set_limits(limits);
    assert_eq!(t.events(), &run_to_end(&mut plain)[..]);
}

/// The views of a plain run, step by step (index = steps taken).
fn plain_views(w: &mut splitbrain_sim::World) -> Vec<splitbrain_sim::View> {
    let mut v = vec![w.view()];
    while w.step().is_some() {
        v.push(w.view());
    }
    v
}

/// The timeline keeps a world only every few steps and replays the rest: for every built-in (in
/// its own mode, and seed-incident also fenced and in KRaft), walking back from the end and from
/// step 200 to 0, forward again to the end, seeking, and `world_at` show
/// exactly the worlds of a plain run, and the events are the plain run's.
#[test]
fn stepping_across_checkpoints_shows_the_same_worlds_as_a_plain_run() {
    use splitbrain_sim::scenario::builtins;
    use splitbrain_sim::{Mode, World};
    let mut runs: Vec<(&str, Mode)> =
        builtins().into_iter().map(|(n, _)| (n, builtin(n).unwrap().opening_mode(None))).collect();
    runs.extend([("seed-incident", Mode::Fenced), ("seed-incident", Mode::Kraft)]);
    for (name, mode) in runs {
        {
            let s = builtin(name).unwrap();
            let mut plain = World::with_mode(&s, s.seed, mode).unwrap();
            let views = plain_views(&mut plain);
            let mut t = Timeline::with_mode(s.clone(), None, mode).unwrap();
            t.seek(usize::MAX);
            let n = t.len();
            assert_eq!(n + 1, views.len(), "{name} {mode:?}");
            assert_eq!(t.view(), views[n], "{name} {mode:?} end");
            // Back across several checkpoints, from the end and from step 200 down to 0.
            while t.back() && t.cursor() + 100 > n {
                assert_eq!(t.view(), views[t.cursor()], "{name} {mode:?} back to {}", t.cursor());
            }
            t.seek(200);
            while t.back() {
                assert_eq!(t.view(), views[t.cursor()], "{name} {mode:?} back to {}", t.cursor());
            }
            while t.forward().is_some() {
                assert_eq!(t.view(), views[t.cursor()], "{name} {mode:?} forward to {}", t.cursor());
            }
            for k in [0, 1, 31, 32, 33, 63, 64, 65, n / 2, n.saturating_sub(1), n] {
                let k = k.min(n);
                assert_eq!(t.world_at(k).unwrap().view(), views[k], "{name} {mode:?} world_at {k}");
                t.seek(k);
                assert_eq!(t.view(), views[k], "{name} {mode:?} seek {k}");
            }
            assert!(t.world_at(n + 1).is_none());
            let mut again = World::with_mode(&s, s.seed, mode).unwrap();
            assert_eq!(t.events(), &run_to_end(&mut again)[..], "{name} {mode:?} events");
        }
    }
}

/// After a fork (commands made in the past, between checkpoints), stepping back and forth
/// replays the user's commands at their steps: the views are those of the saved scenario run
/// as a plain world; undo brings back the old future's views.
#[test]
fn a_forked_timeline_replays_the_users_commands_across_checkpoints() {
    use splitbrain_sim::{scenario::Mode, World};
    let mut t = timeline();
    t.seek(45);
    t.apply(Command::Cut { a: NodeId::Broker(2), b: NodeId::Zk(1), dir: Direction::Both }).unwrap();
    t.apply(Command::Crash { node: NodeId::Broker(3) }).unwrap();
    t.compute_all();
    let before: Vec<_> = (0..=t.len()).map(|k| t.world_at(k).unwrap().view()).collect();
    t.seek(70);
    t.apply(Command::Heal { a: NodeId::Broker(2), b: NodeId::Zk(1), dir: Direction::Both }).unwrap();
    t.compute_all();
    let saved = t.scenario_with_user_faults(Mode::Legacy);
    let views = plain_views(&mut World::new(&saved).unwrap());
    assert_eq!(views.len(), t.len() + 1);
    t.seek(t.len());
    while t.back() {
        assert_eq!(t.view(), views[t.cursor()], "back to {}", t.cursor());
    }
    for k in (0..=t.len()).step_by(7) {
        assert_eq!(t.world_at(k).unwrap().view(), views[k], "world_at {k}");
    }
    assert!(t.undo());
    assert_eq!(t.cursor(), 70);
    assert_eq!(t.view(), before[70]);
    for k in (0..before.len()).step_by(5) {
        t.seek(k);
        assert_eq!(t.view(), before[k], "after undo, seek {k}");
    }
}
