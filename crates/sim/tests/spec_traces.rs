//! Trace validation against the Quint specification (`spec/`, issue 35), as etcd does for Raft:
//! each simulator run is projected onto the spec's actions and written as a Quint `run` (a chain
//! of `.then(action).expect(state)`) under `spec/traces/generated/`; `scripts/spec-check.sh`
//! executes them with `quint test`. This test only writes the files (it changes nothing in the
//! simulation and reads the world only through public fields); it fails when a trace cannot be
//! projected at all (a mark or a state change it has no spec action for).
//!
//! The projection, per simulator step, in this order:
//! 1. ZooKeeper (the leading server's tree): a partition-state write is placed where it commits.
//!    A controller's write is recognised by the `(partition, zk_version)` its `LeaderElected` /
//!    `IsrReplicaRemoved` mark names later; any other write is a partition leader's own ISR
//!    change (`leaderIsrUpdate`).
//! 2. The step's marks, in order: `SessionExpired` → `expire`, `SessionExpiryLearned` /
//!    a restart → `newSession`, `Fault{Crash}` → `crash`, `ControllerElected` → `reelect` (win),
//!    `ControllerResigned` → `reelect` (resign), `ControllerOwnerReadLost` → `loseHolderRead`,
//!    `ControllerZnodeDeleted` → `deliverDelete`, `ControllerMoveTriggered{owner_checked}` →
//!    `fencedControllerMove`, `ControllerEpochIncremented` / `ControllerEpochBumpFailed` →
//!    `bumpEpoch`, `LiveBrokersRead` → `readLive`, `BrokerChange` → `brokerChange`,
//!    `LeaderElectionFailed` / `WriteRefused` → `electOffline` / `removeFromIsr` (no write).
//! 3. Each controller's `partitionLeadershipInfo`: an entry written in this step (a new `Rc`)
//!    that no write of step 1 explains is a read (`readPartition`), or, during ISR removal, a
//!    replica already out of the ISR (`removeFromIsr` without a write).
use splitbrain_sim::mark::Mark;
use splitbrain_sim::scenario::{builtin, builtin_names};
use splitbrain_sim::znodes::ZData;
use splitbrain_sim::{Command, Mode, NodeId, World};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::rc::Rc;

type Tp = splitbrain_sim::TopicPartition;

#[derive(Clone, PartialEq, Debug)]
struct St {
    leader: i32,
    leader_epoch: i32,
    isr: Vec<i32>,
    ctrl_epoch: i32,
    version: i32,
}

fn qset(v: &[i32]) -> String {
    format!("Set({})", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

fn qst(s: &St) -> String {
    format!(
        "{{ leader: {}, leaderEpoch: {}, isr: {}, ctrlEpoch: {} }}",
        s.leader,
        s.leader_epoch,
        qset(&s.isr),
        s.ctrl_epoch
    )
}

fn zk_parts(w: &World, index: &BTreeMap<Tp, usize>) -> Vec<St> {
    let mut out = vec![St { leader: -1, leader_epoch: -1, isr: vec![], ctrl_epoch: -1, version: -1 }; index.len()];
    for p in w.partition_views() {
        let tp = Tp::new(&p.topic, p.partition);
        if let Some(&i) = index.get(&tp) {
            out[i] = St {
                leader: p.leader,
                leader_epoch: p.leader_epoch,
                isr: p.isr.clone(),
                ctrl_epoch: p.controller_epoch,
                version: p.zk_version,
            };
        }
    }
    out
}

fn zk_controller_epoch(w: &World) -> (i32, i32) {
    match w.zk().and_then(|t| t.get("/controller_epoch")) {
        Some(n) => match &n.data {
            ZData::ControllerEpoch { epoch } => (*epoch, n.stat.version),
            _ => (0, 0),
        },
        None => (0, 0),
    }
}

/// Per broker: the cache entries (pointer, value) of `partitionLeadershipInfo`.
fn caches(w: &World, index: &BTreeMap<Tp, usize>) -> BTreeMap<i32, BTreeMap<usize, (usize, St)>> {
    let mut out = BTreeMap::new();
    for b in w.brokers() {
        let mut m = BTreeMap::new();
        for (tp, c) in b.controller.ctx.leadership.iter() {
            if let Some(&i) = index.get(tp) {
                let s = &c.state;
                m.insert(
                    i,
                    (
                        Rc::as_ptr(c) as usize,
                        St {
                            leader: s.leader,
                            leader_epoch: s.leader_epoch,
                            isr: s.isr.clone(),
                            ctrl_epoch: s.controller_epoch,
                            version: c.zk_version,
                        },
                    ),
                );
            }
        }
        out.insert(b.id, m);
    }
    out
}

/// The generator's shadow of what the spec's controller is doing, to name the right action.
#[derive(Clone, Default)]
struct Shadow {
    active: bool,
    phase: &'static str,
    isr_todo: BTreeSet<(usize, i32)>,
}

struct Projection {
    steps: Vec<String>,
    /// Why the projection gave up, if it did.
    unprojectable: Option<String>,
}

fn broker_of(n: &NodeId) -> Option<i32> {
    match n {
        NodeId::Broker(b) => Some(*b),
        _ => None,
    }
}

fn project(name: &str, mode: Mode, w0: World, label: &str) -> Result<(String, Projection), String> {
    let mut w = w0;
    let index: BTreeMap<Tp, usize> = {
        let mut tps: Vec<Tp> = w.partition_views().iter().map(|p| Tp::new(&p.topic, p.partition)).collect();
        tps.sort();
        tps.into_iter().enumerate().map(|(i, t)| (t, i)).collect()
    };
    let brokers: Vec<i32> = w.brokers().map(|b| b.id).collect();
    if brokers != vec![1, 2, 3] {
        return Err(format!("brokers {brokers:?}, the spec has 1, 2, 3"));
    }
    let holder = w.zk_controller().unwrap_or(-1);
    let (epoch, epoch_version) = zk_controller_epoch(&w);
    let parts0 = zk_parts(&w, &index);
    let replicas: BTreeMap<usize, Vec<i32>> =
        w.partition_views().iter().map(|p| (index[&Tp::new(&p.topic, p.partition)], p.replicas.clone())).collect();
    let mode_s = match mode {
        Mode::Legacy => "legacy",
        Mode::Fenced => "fenced",
        _ => return Err("mode".into()),
    };
    // Pass 1: run to the end, keep every event and the per-step snapshots.
    let mut events = Vec::new();
    let mut snaps = Vec::new();
    let mut prev_zk = parts0.clone();
    let mut prev_cache = caches(&w, &index);
    while let Some(e) = w.step() {
        let zk = zk_parts(&w, &index);
        let cache = caches(&w, &index);
        snaps.push((prev_zk.clone(), zk.clone(), prev_cache.clone(), cache.clone()));
        prev_zk = zk;
        prev_cache = cache;
        events.push(e);
    }
    // Controller writes by (partition, version).
    let mut ctl_writes: BTreeMap<(usize, i32), String> = BTreeMap::new();
    for e in &events {
        for m in &e.marks {
            match m {
                Mark::LeaderElected { controller, partition, zk_version, .. } => {
                    ctl_writes.insert(
                        (index[partition], *zk_version),
                        format!("electOffline({controller}, {})", index[partition]),
                    );
                }
                Mark::IsrReplicaRemoved { controller, partition, replica, zk_version, .. } => {
                    ctl_writes.insert(
                        (index[partition], *zk_version),
                        format!("removeFromIsr({controller}, {}, {replica})", index[partition]),
                    );
                }
                _ => {}
            }
        }
    }
    let mut sh: BTreeMap<i32, Shadow> =
        brokers.iter().map(|&b| (b, Shadow { phase: "idle", ..Default::default() })).collect();
    if let Some(s) = sh.get_mut(&holder) {
        s.active = true;
    }
    let mut out: Vec<String> = Vec::new();
    let mut unprojectable = None;
    let mut written_by_ctl: BTreeSet<(i32, usize)> = BTreeSet::new(); // cache entries explained by a write
    for (e, (zk_before, zk_after, cache_before, cache_after)) in events.iter().zip(snaps.iter()) {
        // 1. ZooKeeper partition writes at their commit.
        for i in 0..zk_after.len() {
            let (a, b) = (&zk_before[i], &zk_after[i]);
            if a.version == b.version {
                continue;
            }
            if b.version != a.version + 1 {
                unprojectable =
                    Some(format!("step {}: partition {i} jumped from v{} to v{}", e.step, a.version, b.version));
                break;
            }
            let act = match ctl_writes.get(&(i, b.version)) {
                Some(act) => {
                    let c: i32 = act[act.find('(').unwrap() + 1..act.find(',').unwrap()].parse().unwrap();
                    written_by_ctl.insert((c, i));
                    if act.starts_with("removeFromIsr") {
                        let r: i32 = act[act.rfind(", ").unwrap() + 2..act.len() - 1].parse().unwrap();
                        sh.get_mut(&c).unwrap().isr_todo.remove(&(i, r));
                    }
                    act.clone()
                }
                None => format!("leaderIsrUpdate({i}, {}, {})", qst(b), a.version),
            };
            out.push(format!(
                "    .then({act}).expect(zk.parts.get({i}).st == {} and zk.parts.get({i}).version == {}) // step {} {}",
                qst(b),
                b.version,
                e.step,
                e.time_ms
            ));
        }
        if unprojectable.is_some() {
            break;
        }
        // 2. Marks.
        let mut loaded_now: BTreeSet<i32> = BTreeSet::new();
        for m in &e.marks {
            let line = match m {
                Mark::SessionExpired { owner, .. } => broker_of(owner).map(|b| {
                    format!("    .then(expire({b})).expect(not(registered(zk).contains({b})) or session.get({b}) != {b} or true)")
                }),
                Mark::SessionExpiryLearned { broker, .. } => Some(format!("    .then(newSession({broker}))")),
                Mark::Fault { command: Command::Crash { node } } => broker_of(node).map(|b| {
                    sh.insert(b, Shadow { phase: "idle", ..Default::default() });
                    format!("    .then(crash({b}))")
                }),
                Mark::Fault { command: Command::Restart { node } } => broker_of(node).map(|b| {
                    sh.insert(b, Shadow { phase: "idle", ..Default::default() });
                    format!("    .then(crash({b})).then(newSession({b}))")
                }),
                Mark::Fault { command: Command::DeleteController } => Some("    .then(operatorDelete).expect(zk.controller == -1)".to_string()),
                Mark::ControllerElected { broker, .. } => {
                    let s = sh.get_mut(broker).unwrap();
                    s.active = true;
                    s.phase = "failover";
                    s.isr_todo.clear();
                    Some(format!("    .then(reelect({broker})).expect(zk.controller == {broker} and ctl.get({broker}).active)"))
                }
                Mark::ControllerResigned { broker, .. } => {
                    let s = sh.get_mut(broker).unwrap();
                    if s.active {
                        s.active = false;
                        s.phase = "idle";
                        s.isr_todo.clear();
                        Some(format!("    .then(reelect({broker})).expect(not(ctl.get({broker}).active))"))
                    } else {
                        None
                    }
                }
                Mark::ControllerOwnerReadLost { broker } => {
                    let s = sh.get_mut(broker).unwrap();
                    s.active = false;
                    s.phase = "idle";
                    Some(format!("    .then(loseHolderRead({broker}))"))
                }
                Mark::ControllerZnodeDeleted { by, holder, .. } => {
                    Some(format!("    .then(deliverDelete({by})).expect(zk.controller == -1) // held by {holder}"))
                }
                Mark::ControllerMoveTriggered { broker, owner_checked: true } => {
                    let s = sh.get_mut(broker).unwrap();
                    let was = s.active;
                    s.active = false;
                    s.phase = "idle";
                    was.then(|| format!("    .then(fencedControllerMove({broker}))"))
                }
                Mark::ControllerMoveTriggered { owner_checked: false, .. } => None, // with ControllerOwnerReadLost
                Mark::ControllerEpochIncremented { broker, controller_epoch, .. } => Some(format!(
                    "    .then(bumpEpoch({broker})).expect(ctl.get({broker}).epoch == {controller_epoch} and zk.epoch == {controller_epoch})"
                )),
                Mark::ControllerEpochBumpFailed { broker, controller_epoch, .. } => Some(format!(
                    "    .then(bumpEpoch({broker})).expect(ctl.get({broker}).epoch == {controller_epoch})"
                )),
                Mark::LiveBrokersRead { controller, live } => {
                    let s = sh.get_mut(controller).unwrap();
                    s.phase = "read";
                    Some(format!("    .then(readLive({controller})).expect(ctl.get({controller}).live == {})", qset(live)))
                }
                Mark::BrokerChange { controller, added, deleted, live } => {
                    let s = sh.get_mut(controller).unwrap();
                    if !s.active || (added.is_empty() && deleted.is_empty()) {
                        None
                    } else {
                        let cached: Vec<usize> = cache_before.get(controller).map(|m| m.keys().copied().collect()).unwrap_or_default();
                        for &d in deleted {
                            for &p in &cached {
                                s.isr_todo.insert((p, d));
                            }
                        }
                        Some(format!(
                            "    .then(brokerChange({controller})).expect(ctl.get({controller}).live == {})",
                            qset(live)
                        ))
                    }
                }
                Mark::LeaderElectionFailed { controller, partition } => {
                    Some(format!("    .then(electOffline({controller}, {}))", index[partition]))
                }
                Mark::WriteRefused { from, partition: Some(p), .. } => {
                    let s = sh.get_mut(from).unwrap();
                    if !s.active {
                        None
                    } else {
                        s.active = false;
                        let i = index[p];
                        let act = match s.isr_todo.iter().find(|(q, _)| *q == i) {
                            Some((_, r)) if s.phase != "elect" => format!("removeFromIsr({from}, {i}, {r})"),
                            _ => format!("electOffline({from}, {i})"),
                        };
                        s.phase = "idle";
                        s.isr_todo.clear();
                        Some(format!("    .then({act}).expect(not(ctl.get({from}).active)) // refused"))
                    }
                }
                Mark::ContextLoaded { controller, .. } => {
                    sh.get_mut(controller).unwrap().phase = "elect";
                    loaded_now.insert(*controller);
                    None
                }
                _ => None,
            };
            if let Some(l) = line {
                out.push(format!("{l} // step {} {} {}", e.step, e.time_ms, e.node));
            }
        }
        // 3. Cache entries written in this step and not by a write of step 1: reads.
        for (b, after) in cache_after {
            let before = cache_before.get(b);
            for (p, (ptr, st)) in after {
                let changed = before.and_then(|m| m.get(p)).map(|(q, _)| q != ptr).unwrap_or(true);
                if !changed {
                    continue;
                }
                if written_by_ctl.remove(&(*b, *p)) {
                    continue;
                }
                let s = sh.get_mut(b).unwrap();
                let act = if let Some(&(q, r)) = s.isr_todo.iter().find(|(q, _)| q == p) {
                    s.isr_todo.remove(&(q, r));
                    format!("removeFromIsr({b}, {p}, {r})")
                } else if s.phase == "read" || loaded_now.contains(b) {
                    format!("readPartition({b}, {p})")
                } else {
                    format!("isrChangeRead({b}, {p})")
                };
                out.push(format!(
                    "    .then({act}).expect(ctl.get({b}).cache.get({p}) == {} and ctl.get({b}).cacheVersion.get({p}) == {}) // step {} {}",
                    qst(st),
                    st.version,
                    e.step,
                    e.time_ms
                ));
            }
        }
    }
    // Final state: every partition as ZooKeeper's leader has it, and /controller.
    let fin = zk_parts(&w, &index);
    let holder_end = w.zk_controller().unwrap_or(-1);
    let mut ends = vec![format!("zk.controller == {holder_end}")];
    for (i, s) in fin.iter().enumerate() {
        ends.push(format!("zk.parts.get({i}).st == {} and zk.parts.get({i}).version == {}", qst(s), s.version));
    }
    let parts_q: Vec<String> = parts0
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "      {i} -> {{ st: {}, version: {}, replicas: [{}] }}",
                qst(s),
                s.version,
                replicas[&i].iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    let module = format!("t_{}", label.replace(['-', '.'], "_"));
    let mut q = String::new();
    writeln!(
        q,
        "// Generated by crates/sim/tests/spec_traces.rs from `{name}` ({mode_s}), {} simulator steps.",
        events.len()
    )
    .unwrap();
    writeln!(q, "// Do not edit: regenerate with `cargo test -p splitbrain-sim --test spec_traces`.").unwrap();
    writeln!(q, "module {module} {{").unwrap();
    writeln!(q, "  import zookeeper.* from \"../../zookeeper\"").unwrap();
    writeln!(q, "  import controller.* from \"../../controller\"").unwrap();
    writeln!(q, "  pure val PARTS: int -> Part = Map(\n{}\n  )", parts_q.join(",\n")).unwrap();
    writeln!(q, "  run traceTest = initWith(\"{mode_s}\", {holder}, {epoch}, {epoch_version}, PARTS)").unwrap();
    for l in &out {
        writeln!(q, "{l}").unwrap();
    }
    writeln!(q, "    .expect({})", ends.join("\n      and ")).unwrap();
    writeln!(q, "}}").unwrap();
    Ok((q, Projection { steps: out, unprojectable }))
}

fn out_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec/traces/generated")
}

#[test]
fn built_in_scenarios_project_onto_the_spec() {
    let dir = out_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let mut written = 0;
    let mut skipped = Vec::new();
    for name in builtin_names() {
        let s = builtin(&name).unwrap();
        for mode in [Mode::Legacy, Mode::Fenced] {
            let label = format!("{name}-{}", if mode == Mode::Legacy { "legacy" } else { "fenced" });
            let w = match World::with_mode(&s, s.seed, mode) {
                Ok(w) => w,
                Err(e) => {
                    skipped.push(format!("{label}: {e:?}"));
                    continue;
                }
            };
            match project(&name, mode, w, &label) {
                Ok((q, p)) => {
                    if let Some(why) = p.unprojectable {
                        skipped.push(format!("{label}: {why}"));
                        continue;
                    }
                    assert!(!p.steps.is_empty(), "{label}: nothing projected");
                    std::fs::write(dir.join(format!("{label}.qnt")), q).unwrap();
                    written += 1;
                }
                Err(why) => skipped.push(format!("{label}: {why}")),
            }
        }
    }
    std::fs::write(dir.join("SKIPPED.txt"), skipped.join("\n") + "\n").unwrap();
    eprintln!("wrote {written} traces; skipped {}: {skipped:#?}", skipped.len());
    assert!(written >= 2, "too few traces projected: {skipped:?}");
}
