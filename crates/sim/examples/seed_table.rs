//! How many schedules the guided search needs, seed by seed: `cargo run --release -p
//! splitbrain-sim --example seed_table -- FIRST LAST [CAP]` searches `seed-incident`'s cluster in
//! legacy for each seed from FIRST to LAST (one thread, at most CAP schedules, default 3 000) and
//! prints `seed:schedules` (`-` when none was found) and how many found within 300.
use splitbrain_sim::explore::{Explorer, Options};
use splitbrain_sim::scenario::{builtin, Mode};

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let (Some(&first), Some(&last)) = (args.first(), args.get(1)) else {
        eprintln!("usage: seed_table FIRST LAST [CAP]");
        std::process::exit(2);
    };
    let cap = args.get(2).copied().unwrap_or(3_000);
    let (mut within, mut line) = (0, String::new());
    for seed in first..=last {
        let opts = Options { mode: Mode::Legacy, seed, ..Options::default() };
        let mut ex = Explorer::new(builtin("seed-incident").expect("a built-in"), opts);
        ex.run(cap);
        let found = ex.found().is_some();
        within += (found && ex.tried() <= 300) as u32;
        line += &if found { format!("{seed}:{} ", ex.tried()) } else { format!("{seed}:- ") };
    }
    println!("{}\nwithin 300: {within} of {}", line.trim_end(), last.saturating_sub(first) + 1);
}
