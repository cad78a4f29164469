//! The explorer's fast path is the slow path: a schedule's world made from a [`Prototype`] (a clone
//! of the cluster's opening world plus the schedule) is the world `World::with_mode` builds from
//! the scenario with that schedule — the same state (`Debug`), the same full trace (every
//! `Event`, text included), the same final state, and the same error for a schedule that does not
//! validate. Checked over random schedules in every mode, on the explorer's cluster and on
//! ensembles of one and three ZooKeeper servers, with faults placed on the times of the items the
//! opening world already queues (ties are where the order of sequence numbers shows); and the
//! explorer's own candidates give the same outcomes either way.
#![cfg(not(target_arch = "wasm32"))]
use splitbrain_sim::explore::{evaluate, Explorer, Options, Prototype, BATCH};
use splitbrain_sim::scenario::{builtin, ScriptEntry};
use splitbrain_sim::{Command, Direction, Event, Mode, NodeId, Scenario, World};

/// A small xorshift stream, so the schedules are the same on every run.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A random schedule on `world`'s nodes: up to 8 faults, at times drawn from the opening world's
/// queued times (ties), 0, and anywhere in the first 20 s; sometimes with an unknown node.
fn schedule(r: &mut Stream, world: &World) -> Vec<ScriptEntry> {
    let brokers: Vec<NodeId> = world.brokers().map(|b| NodeId::Broker(b.id)).collect();
    let mut zks: Vec<NodeId> = world.config().zk.servers.clone();
    zks.push(NodeId::ZK);
    let queued: Vec<u64> = world.queued().map(|(t, _)| t).collect();
    let n = r.below(9);
    let mut out = Vec::new();
    for _ in 0..n {
        let at = match r.below(4) {
            0 if !queued.is_empty() => queued[r.below(queued.len() as u64) as usize],
            1 => 0,
            2 => r.below(20) * 500,
            _ => r.below(20_000),
        };
        let b = brokers[r.below(brokers.len() as u64) as usize];
        let other = if r.below(2) == 0 {
            zks[r.below(zks.len() as u64) as usize]
        } else {
            brokers[r.below(brokers.len() as u64) as usize]
        };
        let other = if r.below(40) == 0 { NodeId::Broker(42) } else { other };
        let command = match r.below(8) {
            0 | 1 if other != b => Command::Cut { a: b, b: other, dir: Direction::Both },
            2 if other != b => Command::Heal { a: b, b: other, dir: Direction::Both },
            3 => Command::Crash { node: b },
            4 => Command::Restart { node: b },
            5 => Command::DeleteController,
            6 => Command::Isolate { node: b },
            _ => Command::Rejoin { node: b },
        };
        out.push(ScriptEntry { at_ms: at, command });
    }
    out
}

/// Every event of a run to its end, and the final state.
fn run(mut w: World) -> (Vec<Event>, String) {
    let mut events = Vec::new();
    while let Some(e) = w.step() {
        events.push(e);
        assert!(events.len() < 200_000, "a run that does not end");
    }
    (events, format!("{w:?}"))
}

fn check(base: &Scenario, seed: u64, mode: Mode, cases: u32, stream: u64) -> (u32, u32) {
    let proto = Prototype::new(base, seed, mode);
    let opening = proto.world(&[], None).expect("the base builds");
    let mut r = Stream(stream);
    let (mut runs, mut errors) = (0, 0);
    for case in 0..cases {
        let script = schedule(&mut r, &opening);
        let end_ms = match r.below(4) {
            0 => None,
            _ => Some(script.iter().map(|e| e.at_ms).max().unwrap_or(0) + r.below(4) * 10_000),
        };
        let mut s = base.clone();
        s.script = script.clone();
        s.end_ms = end_ms;
        let slow = World::with_mode(&s, seed, mode);
        let fast = proto.world(&script, end_ms);
        let what = format!("{} seed {seed} {mode:?} case {case}: {script:?} end {end_ms:?}", base.name);
        match (slow, fast) {
            (Ok(slow), Ok(fast)) => {
                assert_eq!(format!("{slow:?}"), format!("{fast:?}"), "opening world differs: {what}");
                let (a, b) = (run(slow), run(fast));
                assert_eq!(a.0.len(), b.0.len(), "trace length differs: {what}");
                for (x, y) in a.0.iter().zip(&b.0) {
                    assert_eq!(x, y, "trace differs: {what}");
                }
                assert_eq!(a.1, b.1, "final world differs: {what}");
                runs += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "error differs: {what}");
                errors += 1;
            }
            (a, b) => panic!("one path failed: {what}: slow {:?}, fast {:?}", a.err(), b.err()),
        }
    }
    (runs, errors)
}

fn explorer_base() -> Scenario {
    Explorer::new(builtin("seed-incident").expect("built-in"), Options::default()).base().clone()
}

#[test]
fn prototype_worlds_and_traces_match_with_mode() {
    let bases =
        [explorer_base(), builtin("seed-incident").expect("built-in"), builtin("clean-failover").expect("built-in")];
    let (mut runs, mut errors) = (0, 0);
    for (i, base) in bases.iter().enumerate() {
        for mode in Mode::ALL {
            for seed in [1, 7] {
                let cases = if i == 0 { 12 } else { 6 };
                let (r, e) = check(base, seed, mode, cases, 0x9E37_79B9 ^ (seed << 8) ^ (i as u64) << 16 ^ mode as u64);
                runs += r;
                errors += e;
            }
        }
    }
    assert!(runs >= 150, "only {runs} runs compared");
    assert!(errors >= 1, "no invalid schedule compared");
}

/// The explorer's candidates (swarm runs, which inject while they run, and corpus mutations,
/// replayed) give the same outcomes from its prototype as from the scenario.
#[test]
fn explorer_outcomes_match_the_scenario_path() {
    for mode in Mode::ALL {
        for seed in [2, 5] {
            let mut ex = Explorer::new(
                builtin("seed-incident").expect("built-in"),
                Options { mode, seed, ..Options::default() },
            );
            let (base, opts) = (ex.base().clone(), ex.options().clone());
            for _ in 0..3 {
                let batch = ex.next_batch(BATCH);
                let outcomes: Vec<_> = batch.iter().map(|c| ex.evaluate(c)).collect();
                for (c, o) in batch.iter().zip(&outcomes) {
                    assert_eq!(*o, evaluate(&base, &opts, c), "{mode:?} seed {seed}: {c:?}");
                }
                if ex.absorb(outcomes).is_some() {
                    break;
                }
            }
        }
    }
}
