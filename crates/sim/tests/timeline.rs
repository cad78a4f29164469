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
    let ev = t.apply(Command::Cut { a: NodeId::Broker(2), b: NodeId::Zk, dir: Direction::Both }).unwrap().clone();
    assert_eq!(ev.step, 11);
    assert_eq!(t.len(), 11, "the old future is discarded");
    assert_eq!(t.user_commands().len(), 1);
    assert!(!t.view().links.iter().any(|l| l.a == NodeId::Zk && l.b == NodeId::Broker(2) && l.a_to_b));
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
    let e = t.apply(Command::Cut { a: NodeId::Client(1), b: NodeId::Zk, dir: Direction::Both }).unwrap_err();
    assert!(e.contains("clients only talk to brokers"), "{e}");
    let e = t.apply(Command::Crash { node: NodeId::Broker(7) }).unwrap_err();
    assert!(e.contains("unknown node b7"), "{e}");
    assert_eq!(t.len(), before);
    assert!(!t.can_undo());
}
