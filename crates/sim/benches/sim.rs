//! Throughput of the core: `seed-incident` end to end, and a long random run (events per second).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use splitbrain_sim::explore::{Explorer, Options};
use splitbrain_sim::scenario::{builtin, ScriptEntry};
use splitbrain_sim::{Command, Direction, Mode, NodeId, Scenario, Timeline, World};

fn run(s: &Scenario) -> u64 {
    let mut w = World::new(s).unwrap();
    let mut n = 0;
    while w.step().is_some() {
        n += 1;
    }
    n
}

/// A 5-broker cluster with 50 offsets partitions and a long, seeded schedule of cuts, heals,
/// crashes and restarts (a fixed xorshift so the workload is the same in every run).
fn long_random() -> Scenario {
    let mut s = builtin("clean-failover").unwrap();
    s.name = "long-random".into();
    s.cluster.brokers = vec![1, 2, 3, 4, 5];
    s.cluster.controller = Some(1);
    s.captions.clear();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    s.script = (0..400)
        .map(|i| {
            let b = NodeId::Broker((next() % 5) as i32 + 1);
            let other = if next() % 2 == 0 { NodeId::ZK } else { NodeId::Broker((next() % 5) as i32 + 1) };
            let command = match next() % 6 {
                0 | 1 if other != b => Command::Cut { a: b, b: other, dir: Direction::Both },
                2 | 3 if other != b => Command::Heal { a: b, b: other, dir: Direction::Both },
                4 => Command::Restart { node: b },
                _ => Command::Rejoin { node: b },
            };
            ScriptEntry { at_ms: 1_000 + i * 1_500, command }
        })
        .collect();
    s.end_ms = Some(1_000 + 400 * 1_500 + 30_000);
    s
}

fn benches(c: &mut Criterion) {
    let seed = builtin("seed-incident").unwrap();
    let events = run(&seed);
    let mut g = c.benchmark_group("sim");
    g.throughput(Throughput::Elements(events));
    g.bench_function("seed-incident end to end (events)", |b| b.iter(|| run(&seed)));
    g.bench_function("seed-incident through Timeline with history (events)", |b| {
        b.iter(|| {
            let mut t = Timeline::new(seed.clone(), None).unwrap();
            t.compute_all();
            t.len()
        })
    });
    let long = long_random();
    let n = run(&long);
    g.throughput(Throughput::Elements(n));
    g.bench_function("long random run, 5 brokers, 400 faults (events)", |b| b.iter(|| run(&long)));
    g.finish();
    let mut g = c.benchmark_group("explorer");
    g.throughput(Throughput::Elements(100));
    for mode in Mode::ALL {
        g.bench_function(format!("100 random schedules, seed-incident cluster, {} (schedules)", mode.name()), |b| {
            b.iter(|| {
                let mut ex = Explorer::new(seed.clone(), Options { mode, seed: 7, ..Options::default() });
                // A budget in 1.1/fenced/kraft never stops early; in legacy a find ends the slice.
                ex.run(100);
                ex.tried()
            })
        });
    }
    g.finish();
    eprintln!("seed-incident: {events} events; long random run: {n} events");
}

criterion_group!(name = sim; config = Criterion::default().sample_size(20); targets = benches);
criterion_main!(sim);
