//! ZooKeeper as an ensemble (ZooKeeper 3.4.10): bucketed expiry, the implicit PING touch relay,
//! syncLimit, a client resuming its session on another server, elections, determinism. The
//! cluster is `clean-failover`'s (brokers 1–3, controller 3, 6 s sessions) with three servers:
//! b1 talks to zk1, b2 to zk2, b3 to zk3, and zk3 leads (equal zxids: the highest id won).
//! Every check finds its step by marks.
mod common;
use common::*;
use splitbrain_sim::command::Direction;
use splitbrain_sim::ids::NodeKind;
use splitbrain_sim::scenario::{builtin, ScriptEntry, ZkSpec};
use splitbrain_sim::view::ZkRole;
use splitbrain_sim::{Command, Event, Mark, NodeId, Scenario, World};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const B1: NodeId = NodeId::Broker(1);
const ZK1: NodeId = NodeId::Zk(1);
const ZK2: NodeId = NodeId::Zk(2);
const ZK3: NodeId = NodeId::Zk(3);

fn cut(at_ms: u64, a: NodeId, b: NodeId) -> ScriptEntry {
    ScriptEntry { at_ms, command: Command::Cut { a, b, dir: Direction::Both } }
}

fn heal(at_ms: u64, a: NodeId, b: NodeId) -> ScriptEntry {
    ScriptEntry { at_ms, command: Command::Heal { a, b, dir: Direction::Both } }
}

/// `clean-failover`'s cluster with `servers` ZooKeeper servers, `script`, ending at `end_ms`.
fn scenario(servers: u8, script: Vec<ScriptEntry>, end_ms: u64) -> Scenario {
    let mut s = builtin("clean-failover").unwrap();
    s.cluster.zookeeper = Some(ZkSpec { servers, tick_ms: 2000, sync_limit: 5, connect: Default::default() });
    s.script = script;
    s.captions.clear();
    s.end_ms = Some(end_ms);
    s
}

fn run(s: &Scenario) -> (World, Vec<Event>) {
    let mut w = World::new(s).expect("valid scenario");
    let events = run_to_end(&mut w);
    (w, events)
}

/// The session-expired marks: (time, session owner, the server that expired it, its bucket).
fn expiries(events: &[Event]) -> Vec<(u64, NodeId, Option<NodeId>, Option<u64>)> {
    marks(events)
        .filter_map(|(e, m)| match m {
            Mark::SessionExpired { owner, server, bucket_ms, .. } => Some((e.time_ms, *owner, *server, *bucket_ms)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_idle_ensemble_schedules_nothing() {
    let (w, events) = run(&scenario(3, vec![], 172_800_000));
    assert!(events.is_empty(), "{} events, first: {:?}", events.len(), events.first().map(|e| &e.line));
    assert_eq!(w.zk_servers().count(), 3);
}

#[test]
fn the_standalone_server_expires_a_silent_session_in_its_tick_bucket() {
    // Cut at 9.5 s: 6 s later is 15.5 s, rounded up to the next 2 s tick: 16 s.
    let s = scenario(1, vec![cut(9500, NodeId::Broker(3), NodeId::ZK)], 40_000);
    let (_, events) = run(&s);
    let e = expiries(&events);
    assert_eq!(e, vec![(16_000, NodeId::Broker(3), Some(NodeId::ZK), Some(16_000))]);
    // Cut at 10 s: 16 s is not strictly after; roundToInterval(16 000) = 18 000.
    let s = scenario(1, vec![cut(10_000, NodeId::Broker(3), NodeId::ZK)], 40_000);
    let (_, events) = run(&s);
    assert_eq!(expiries(&events)[0].0, 18_000);
}

/// zk1 (b1's server) loses its link to the leader zk3 at 1 s and never gets it back.
fn stalled_follower() -> (World, Vec<Event>) {
    run(&scenario(3, vec![cut(1000, ZK1, ZK3)], 40_000))
}

#[test]
fn a_client_on_a_stalled_follower_expires_at_the_leader_while_it_pings_its_follower() {
    let (_, events) = stalled_follower();
    // b1's link to zk1 never breaks, but its touches stop reaching zk3 at 1 s (the last ping
    // round): the leader expires it in bucket roundToInterval(1 000 + 6 000) = 8 000, before zk1
    // gives up on its leader (11 s).
    let e = expiries(&events);
    assert_eq!(e.first(), Some(&(8000, B1, Some(ZK3), Some(8000))), "{e:?}");
    let dropped = first_mark(&events, |m| matches!(m, Mark::ZkClientsDropped { .. })).map(|(e, _)| e.time_ms);
    assert!(dropped.is_some_and(|t| t > 8000), "zk1 still served b1 when the leader expired it");
    // Without the stall nothing expires.
    let (_, events) = run(&scenario(3, vec![cut(1000, ZK1, ZK2)], 40_000));
    assert!(expiries(&events).is_empty(), "{:?}", expiries(&events));
}

#[test]
fn a_follower_drops_its_clients_after_sync_limit_ticks() {
    let (_, events) = stalled_follower();
    let (e, m) = first_mark(&events, |m| matches!(m, Mark::ZkClientsDropped { .. })).expect("zk1 gives up");
    // syncLimit (5) × tickTime (2 000 ms) after the link stalled.
    assert_eq!(e.time_ms, 1000 + 5 * 2000);
    assert_eq!(m, &Mark::ZkClientsDropped { server: ZK1, clients: vec![B1] });
    // b1 moves on to the next server of its connection string.
    let moved = first_mark(&events, |m| matches!(m, Mark::ZkClientMoved { broker: 1, .. })).map(|(_, m)| m.clone());
    assert_eq!(moved, Some(Mark::ZkClientMoved { broker: 1, from: ZK1, to: ZK2 }));
}

#[test]
fn a_client_resumes_its_session_on_another_server() {
    // b1's own link to zk1 breaks: after its read timeout (4 s) it moves to zk2, which asks the
    // leader to revalidate the session — still alive (its bucket is 12 s), so it carries on.
    let (w, events) = run(&scenario(3, vec![cut(5000, B1, ZK1)], 40_000));
    let (e, m) = first_mark(&events, |m| matches!(m, Mark::ZkClientMoved { broker: 1, .. })).expect("b1 moves");
    assert_eq!(m, &Mark::ZkClientMoved { broker: 1, from: ZK1, to: ZK2 });
    assert!(e.time_ms >= 9000 && e.time_ms < 12_000, "{}", e.time_ms);
    assert!(expiries(&events).is_empty(), "{:?}", expiries(&events));
    let b1 = w.broker(1).unwrap();
    assert_eq!((b1.zk.session, b1.zk.server()), (Some(0x1001), ZK2));
    assert!(w.zk_servers().find(|z| z.id() == ZK2).unwrap().clients().contains_key(&B1));
}

#[test]
fn an_isolated_leader_is_replaced_by_the_highest_id_when_zxids_tie() {
    let s = scenario(3, vec![ScriptEntry { at_ms: 1000, command: Command::Isolate { node: ZK3 } }], 60_000);
    let (w, events) = run(&s);
    let (e, m) = first_mark(&events, |m| matches!(m, Mark::ZkLeaderElected { .. })).expect("a new leader");
    assert!(matches!(m, Mark::ZkLeaderElected { server, .. } if *server == ZK2), "{m:?}");
    assert!(e.time_ms > 11_000, "after syncLimit: {}", e.time_ms);
    // The old leader stopped leading (no quorum) and closed its clients.
    assert!(first_mark(&events, |m| matches!(m, Mark::ZkClientsDropped { server, .. } if *server == ZK3)).is_some());
    let leaders: Vec<NodeId> = w
        .zk_servers()
        .filter(|z| z.role() == splitbrain_sim::zookeeper::proto::Role::Leading)
        .map(|z| z.id())
        .collect();
    assert_eq!(leaders, vec![ZK2]);
}

#[test]
fn a_new_leader_is_the_server_with_the_latest_zxid_before_the_highest_id() {
    // zk2 loses the leader at 1 s and misses what follows (b2's crash → its session's closeSession
    // and the controller's writes). At 15 s zk1 loses the leader too; zk1 and zk2 elect zk1:
    // its zxid is later, though zk2's id is higher.
    let s = scenario(
        3,
        vec![
            cut(1000, ZK2, ZK3),
            ScriptEntry { at_ms: 1500, command: Command::Crash { node: NodeId::Broker(2) } },
            cut(15_000, ZK1, ZK3),
        ],
        60_000,
    );
    let (_, events) = run(&s);
    let elected: Vec<(NodeId, u64)> = marks(&events)
        .filter_map(|(_, m)| match m {
            Mark::ZkLeaderElected { server, zxid, .. } => Some((*server, *zxid)),
            _ => None,
        })
        .collect();
    let [(server, zxid)] = elected[..] else { panic!("one election: {elected:?}") };
    assert_eq!(server, ZK1);
    assert!(zxid > 0);
}

#[test]
fn a_healed_stall_rejoins_and_resyncs() {
    // The stall heals within syncLimit: nothing gives up, held commits arrive in order.
    let (w, events) = run(&scenario(3, vec![cut(1000, ZK1, ZK3), heal(9000, ZK1, ZK3)], 40_000));
    assert!(first_mark(&events, |m| matches!(m, Mark::ZkClientsDropped { .. })).is_none());
    let zxids: Vec<u64> = w.zk_servers().map(|z| z.zxid()).collect();
    assert!(zxids.iter().all(|z| *z == zxids[0]) && zxids[0] > 0, "{zxids:?}");
}

#[test]
fn a_three_server_incident_is_deterministic() {
    // seed-incident's faults, on the servers each broker talks to, plus a follower stall.
    let script = vec![
        cut(9000, NodeId::Broker(3), ZK3),
        cut(16_470, B1, ZK1),
        heal(17_000, NodeId::Broker(3), ZK3),
        cut(20_000, ZK1, ZK2),
        heal(25_030, B1, ZK1),
        ScriptEntry { at_ms: 172_800_000, command: Command::Crash { node: B1 } },
    ];
    let s = scenario(3, script, 172_875_000);
    let (_, a) = run(&s);
    let (_, b) = run(&s);
    assert!(!a.is_empty());
    assert_eq!(fnv(&trace_text(&a)), fnv(&trace_text(&b)));
    assert!(a.len() < 20_000, "{} events: heartbeats must stay implicit", a.len());
}

#[test]
fn the_view_shows_each_server_its_role_and_each_brokers_server() {
    let (w, _) = stalled_follower();
    let v = w.view();
    let roles: Vec<(NodeId, &str, Option<NodeId>)> =
        v.zk_servers.iter().map(|z| (z.id, z.role.name(), z.leader)).collect();
    // zk1 gave up on zk3 at 11 s and, cut off from the leader, is still looking; zk3 kept zk2.
    assert_eq!(roles, vec![(ZK1, "looking", None), (ZK2, "follower", Some(ZK3)), (ZK3, "leader", Some(ZK3))]);
    assert_eq!(v.zk_leader, Some(ZK3));
    let server_of = |b: NodeId| v.nodes.iter().find(|n| n.id == b).and_then(|n| n.zk_server);
    assert_eq!(server_of(B1), Some(ZK2), "b1 moved on after zk1 closed its connection");
    assert_eq!(server_of(NodeId::Broker(3)), Some(ZK3));
    assert!(v.nodes.iter().filter(|n| n.kind == NodeKind::Zk).count() == 3);
    assert!(v.zk_servers[1].clients.contains(&B1));
    // The one-server ensemble is the standalone `zk`, leading.
    let v = world("zkclient-retry").view();
    let one: Vec<(NodeId, &str)> = v.zk_servers.iter().map(|z| (z.id, z.role.name())).collect();
    assert_eq!(one, vec![(NodeId::ZK, "leader")]);
}

#[test]
fn random_faults_then_healing_leave_one_leader_equal_replicas_and_connected_clients() {
    // A small deterministic generator: cuts, heals and isolations of servers (from servers to
    // servers and brokers), then every server rejoins; 200 s later the ensemble has converged.
    let mut x: u64 = 12345;
    let mut rnd = |n: u64| {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (x >> 33) % n
    };
    let nodes = [ZK1, ZK2, ZK3, B1, NodeId::Broker(2), NodeId::Broker(3)];
    for k in 0..80 {
        let mut script = Vec::new();
        let mut t = 0;
        for _ in 0..(2 + rnd(6)) {
            t += 200 + rnd(12_000);
            let (a, b) = (nodes[rnd(3) as usize], nodes[rnd(6) as usize]);
            let command = match rnd(4) {
                0 | 1 => Command::Cut { a, b, dir: Direction::Both },
                2 => Command::Heal { a, b, dir: Direction::Both },
                _ => Command::Isolate { node: a },
            };
            if a != b {
                script.push(ScriptEntry { at_ms: t, command });
            }
        }
        for node in [ZK1, ZK2, ZK3] {
            script.push(ScriptEntry { at_ms: t + 1000, command: Command::Rejoin { node } });
        }
        let (w, _) = run(&scenario(3, script.clone(), t + 200_000));
        let servers = w.zk_server_views();
        let leaders: Vec<NodeId> = servers.iter().filter(|z| z.role == ZkRole::Leader).map(|z| z.id).collect();
        assert_eq!(leaders.len(), 1, "run {k}: {script:?}");
        assert!(servers.iter().all(|z| z.leader == Some(leaders[0]) && z.zxid == servers[0].zxid), "run {k}");
        let replica = |z: &splitbrain_sim::zookeeper::server::ZkServerNode| {
            let nodes: Vec<_> = z.tree().nodes().map(|(p, n)| (String::from(p), n.stat.version)).collect();
            let sessions: Vec<_> = z.tree().sessions().map(|s| (s.id, s.expired)).collect();
            (nodes, sessions)
        };
        let first = replica(w.zk_servers().next().unwrap());
        assert!(w.zk_servers().all(|z| replica(z) == first), "run {k}: replicas differ");
        for b in w.brokers() {
            let on = w.zk_servers().find(|z| z.id() == b.zk.server()).unwrap();
            assert_eq!(on.clients().get(&NodeId::Broker(b.id)), b.zk.session.as_ref(), "run {k}: b{}", b.id);
        }
    }
}
