//! `kraft`: the same faults against a Raft quorum; Raft's own rules hold under random faults.
mod common;
use common::*;
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Command, Mode, NodeId, World};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn kraft_world(name: &str) -> World {
    let s = builtin(name).unwrap();
    World::with_mode(&s, s.seed, Mode::Kraft).unwrap()
}

#[test]
fn seed_incident_in_kraft_ends_with_every_partition_led() {
    let mut w = kraft_world("seed-incident");
    let events = run_to_end(&mut w);
    assert!(w.partition_views().iter().all(|p| p.leader >= 0));
    assert_eq!(w.consumer_views()[0].status, "stable");
    assert!(w.alerts().is_empty(), "{:?}", w.alerts());
    // Broker 1's death is handled by fencing, with its partitions moved in the same batch.
    let fenced: Vec<_> = events
        .iter()
        .flat_map(|e| e.marks.iter())
        .filter(|m| matches!(m, splitbrain_sim::Mark::BrokerFenced { broker: 1, .. }))
        .collect();
    assert!(
        matches!(fenced[..], [splitbrain_sim::Mark::BrokerFenced { partitions: 50, .. }]),
        "broker 1 fenced once, with 50 partition changes in the batch: {fenced:?}"
    );
    let v = w.view();
    assert!(v.nodes.iter().any(|n| n.id == NodeId::Voter(1) && n.acting_controller));
    assert!(!v.nodes.iter().any(|n| n.id == NodeId::ZK), "no ZooKeeper in kraft mode");
}

#[test]
fn a_partitioned_leader_resigns_and_a_majority_elects_a_new_one() {
    let mut s = builtin("clean-failover").unwrap();
    s.script = vec![
        splitbrain_sim::scenario::ScriptEntry { at_ms: 5_000, command: Command::Isolate { node: NodeId::Voter(1) } },
        splitbrain_sim::scenario::ScriptEntry { at_ms: 20_000, command: Command::Crash { node: NodeId::Broker(3) } },
    ];
    s.end_ms = Some(60_000);
    let mut w = World::with_mode(&s, 1, Mode::Kraft).unwrap();
    let events = run_to_end(&mut w);
    // Voter 1, the leader, resigns by check quorum once isolated.
    let resigned = events
        .iter()
        .position(|e| e.marks.iter().any(|m| matches!(m, splitbrain_sim::Mark::RaftLeaderResigned { voter: 1, .. })))
        .expect("voter 1 resigns");
    assert!(events[resigned].time_ms > 5_000 && events[resigned].line.contains("(check quorum)"));
    assert!(events[resigned..].iter().any(|e| e
        .marks
        .iter()
        .any(|m| matches!(m, splitbrain_sim::Mark::QuorumControllerActive { voter, .. } if *voter != 1))));
    let v = w.view();
    let leaders: Vec<_> = v.nodes.iter().filter(|n| n.acting_controller).collect();
    assert_eq!(leaders.len(), 1);
    assert!(leaders[0].id != NodeId::Voter(1) && leaders[0].controller_epoch >= 2);
    // The new leader fenced broker 3 and moved its partitions.
    assert!(w.partition_views().iter().all(|p| p.leader >= 0 && p.leader != 3));
}

#[cfg(not(target_arch = "wasm32"))]
mod random {
    use super::*;
    use proptest::prelude::*;
    use splitbrain_sim::scenario::ScriptEntry;
    use splitbrain_sim::Direction;

    fn node() -> impl Strategy<Value = NodeId> {
        prop_oneof![(1u32..=3).prop_map(NodeId::Voter), (1i32..=3).prop_map(NodeId::Broker)]
    }

    fn command() -> impl Strategy<Value = Command> {
        prop_oneof![
            (node(), node()).prop_map(|(a, b)| Command::Cut { a, b, dir: Direction::Both }),
            (node(), node()).prop_map(|(a, b)| Command::Heal { a, b, dir: Direction::Both }),
            node().prop_map(|node| Command::Isolate { node }),
            node().prop_map(|node| Command::Rejoin { node }),
            node().prop_map(|node| Command::Crash { node }),
            node().prop_map(|node| Command::Restart { node }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

        #[test]
        fn one_leader_per_epoch_and_identical_committed_prefixes(seed in any::<u64>(), faults in prop::collection::vec((0u64..60_000, command()), 0..14)) {
            let mut s = builtin("clean-failover").unwrap();
            s.script = faults.into_iter().filter(|(_, c)| splitbrain_sim::scenario::validate_command(c).is_ok() && c.nodes().windows(2).all(|w| w[0] != w[1]))
                .map(|(t, c)| ScriptEntry { at_ms: t, command: c }).collect();
            s.end_ms = Some(120_000);
            let mut w = World::with_mode(&s, seed, Mode::Kraft).unwrap();
            let mut steps = 0;
            while w.step().is_some() {
                steps += 1;
                prop_assert!(steps < 100_000);
                let k = w.kraft().unwrap();
                for (epoch, leaders) in &k.epoch_leaders {
                    prop_assert!(leaders.len() <= 1, "epoch {epoch} has leaders {leaders:?}");
                }
                let voters: Vec<_> = k.voters.values().collect();
                let min = voters.iter().map(|v| v.commit).min().unwrap();
                for v in &voters {
                    prop_assert_eq!(&v.log[..min], &voters[0].log[..min], "committed prefixes differ");
                }
            }
            prop_assert!(!w.alerts().iter().any(|a| a.kind == splitbrain_sim::AlertKind::LeaderlessWithLiveIsr), "{:?}", w.alerts());
        }
    }
}
