#![allow(unexpected_cfgs)]
//! The ratio probe: one source, compiled against two revisions of the core by
//! `scripts/bench-ratio.sh` (copied into `crates/sim/examples/`), so both are measured with the
//! same workloads on the same machine in one run. It uses only API both revisions have: a scenario
//! from JSON, `World::with_mode` + `step`, and `Explorer`.
//!
//! Prints `name<TAB>unit<TAB>count<TAB>seconds` lines. Filter by name prefix: `probe long-random explore-`.
use splitbrain_sim::explore::{Explorer, Options};
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Mode, Scenario, World};
use std::time::Instant;

/// The long random run: the clean-failover cluster with 5 brokers and 400 seeded faults (the
/// workload of `benches/sim.rs`), written as scenario JSON so every revision parses it the same.
fn long_random() -> Scenario {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut script = Vec::new();
    for i in 0..400u64 {
        let b = format!("b{}", next() % 5 + 1);
        let other = if next() % 2 == 0 { "zk".to_string() } else { format!("b{}", next() % 5 + 1) };
        let at = 1_000 + i * 1_500;
        let op = match next() % 6 {
            0 | 1 if other != b => format!(r#"{{"op":"cut","a":"{b}","b":"{other}"}}"#),
            2 | 3 if other != b => format!(r#"{{"op":"heal","a":"{b}","b":"{other}"}}"#),
            4 => format!(r#"{{"op":"restart","node":"{b}"}}"#),
            _ => format!(r#"{{"op":"rejoin","node":"{b}"}}"#),
        };
        script.push(format!(r#"{{"at_ms":{at},"do":{op}}}"#));
    }
    let json = format!(
        r#"{{"name":"long-random","seed":1,"cluster":{{"brokers":[1,2,3,4,5],"controller":1,"session_timeout_ms":6000,
        "controller_epoch":7,"offsets_topic_partitions":50,"topics":[{{"name":"__consumer_offsets","partitions":50,
        "replication_factor":3,"start_index":2,"leader_epoch":13,"zk_version":27}}]}},
        "consumers":[{{"id":1,"group":"payments-group"}}],"script":[{}],"end_ms":{}}}"#,
        script.join(","),
        1_000 + 400 * 1_500 + 30_000
    );
    Scenario::from_json(&json).expect("the long random scenario parses")
}

fn events(s: &Scenario, mode: Mode, structured: bool) -> u64 {
    let mut w = World::with_mode(s, s.seed, mode).unwrap();
    // Built with `--cfg render_switch` (a revision that has the switch): structured events only,
    // text rendered when shown. Without it, every event carries its formatted lines.
    #[cfg(render_switch)]
    w.set_render(!structured);
    let _ = structured;
    let mut n = 0;
    while w.step().is_some() {
        n += 1;
    }
    n
}

/// Best of `reps` timings of `f`, with the count it returns.
fn best(reps: u32, mut f: impl FnMut() -> u64) -> (u64, f64) {
    let mut out = (0, f64::MAX);
    for _ in 0..reps {
        let t = Instant::now();
        let n = f();
        out = (n, out.1.min(t.elapsed().as_secs_f64()));
    }
    out
}

fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let want = |name: &str| only.is_empty() || only.iter().any(|o| name.starts_with(o.as_str()));
    let long = long_random();
    let seed = builtin("seed-incident").unwrap();
    for (name, scenario, reps) in [("long-random", &long, 5), ("seed-incident", &seed, 10)] {
        if want(name) {
            let (n, s) = best(reps, || events(scenario, Mode::Legacy, false));
            println!("{name}\tevents\t{n}\t{s:.6}");
        }
        if cfg!(render_switch) && want(&format!("{name}-structured")) {
            let (n, s) = best(reps, || events(scenario, Mode::Legacy, true));
            println!("{name}-structured\tevents\t{n}\t{s:.6}");
        }
    }
    for mode in Mode::ALL {
        let name = format!("explore-{}", mode.name());
        if !want(&name) {
            continue;
        }
        // 200 schedules from seeds 1.., each search stopping at its first find (a find costs a
        // shrink; both revisions pay that the same way).
        let (n, s) = best(1, || {
            let mut tried = 0;
            let mut seed_no = 1;
            while tried < 200 {
                let mut ex = Explorer::new(seed.clone(), Options { mode, seed: seed_no, ..Options::default() });
                ex.run(200 - tried);
                tried += ex.tried();
                seed_no += 1;
            }
            tried
        });
        println!("{name}\tschedules\t{n}\t{s:.6}");
    }
}
