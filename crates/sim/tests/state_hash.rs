//! `World::state_hash`: equal for worlds with the same future however they got there, different
//! when one thing that decides the future differs.
mod common;
use common::world;
use splitbrain_sim::{Command, Direction, NodeId, World};

fn latency(a: NodeId, b: NodeId, ms: u64) -> Command {
    Command::SetLatency { a, b, ms }
}

fn at_steady_state() -> World {
    let mut w = world("seed-incident");
    while w.now() < 5_000 {
        w.step();
    }
    w
}

#[test]
fn faults_applied_in_either_order_give_one_state() {
    let base = at_steady_state();
    let (x, y) = (latency(NodeId::Broker(1), NodeId::Zk(2), 40), latency(NodeId::Broker(2), NodeId::Broker(3), 9));
    let mut a = base.clone();
    a.apply(&x).unwrap();
    a.apply(&y).unwrap();
    let mut b = base.clone();
    b.apply(&y).unwrap();
    b.apply(&x).unwrap();
    assert_eq!(a.state_hash(), b.state_hash());
    assert_ne!(a.state_hash(), base.state_hash(), "the faults changed the network");
    // The step counter is a label: setting a latency it already has is a step that changes
    // nothing else (the incident set b2 <-> zk1 to 16 ms at 0 s).
    let mut idle = base.clone();
    idle.apply(&latency(NodeId::Broker(2), NodeId::Zk(1), 16)).unwrap();
    assert_eq!(idle.step_count(), base.step_count() + 1);
    assert_eq!(idle.state_hash(), base.state_hash());
    let cut = Command::Cut { a: NodeId::Broker(1), b: NodeId::Broker(2), dir: Direction::Both };
    let mut c = a.clone();
    c.apply(&cut).unwrap();
    assert_ne!(c.state_hash(), a.state_hash(), "a cut link is a different world");
    // Both run on identically: same hashes step by step.
    for _ in 0..300 {
        let (ea, eb) = (a.step(), b.step());
        assert_eq!(ea.is_some(), eb.is_some());
        assert_eq!(a.state_hash(), b.state_hash());
    }
}

#[test]
fn one_differing_field_gives_another_hash() {
    let base = at_steady_state();
    let mut other_seed = base.clone();
    other_seed.reseed(99);
    assert_ne!(other_seed.state_hash(), base.state_hash(), "the PRNG state decides the jitter");
    let mut later_end = base.clone();
    later_end.set_end(base.config().end_ms + 1);
    assert_ne!(later_end.state_hash(), base.state_hash(), "the end decides when the run stops");
    let mut one_latency = base.clone();
    one_latency.apply(&latency(NodeId::Broker(1), NodeId::Zk(2), 16)).unwrap();
    let mut other_latency = base.clone();
    other_latency.apply(&latency(NodeId::Broker(1), NodeId::Zk(2), 17)).unwrap();
    assert_ne!(one_latency.state_hash(), other_latency.state_hash());
    // A clone hashes alike, and hashing does not change the world.
    assert_eq!(base.clone().state_hash(), base.state_hash());
}
