//! `fenced` (KAFKA-6082) against `legacy` on the same scenarios.
mod common;
use common::*;
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Mode, NodeId, World};

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
    let refused = events.iter().position(|e| {
        e.details.iter().chain(Some(&e.line)).any(|l| l.contains("refused a fenced controller write from b1"))
    });
    let moved = events
        .iter()
        .position(|e| e.node == NodeId::Broker(1) && e.line.contains("Controller moved to another broker"));
    assert!(refused.is_some() && moved.is_some() && refused < moved);
    assert!(!events.iter().any(|e| e
        .details
        .iter()
        .chain(Some(&e.line))
        .any(|l| l.contains("a deposed controller's decision"))));
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
