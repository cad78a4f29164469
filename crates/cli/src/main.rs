//! `splitbrain`: run scenarios of the Kafka controller split-brain simulation from a terminal.
//!
//! ```text
//! splitbrain scenarios
//! splitbrain run <built-in | path.json> [--seed N] [--until-ms T] [--max-steps N] [--max-time-ms T] [--json]
//! splitbrain coordinator <group> [--partitions N]
//! splitbrain import FILE... [--json] [--broker N=FILE]
//! splitbrain zk-replay <file | ->
//! splitbrain campaign [--schedules N] [--seed N] [--shard i/n] [--threads N] [--start J] [--json]
//! ```
//! Bad input prints one line naming the problem and exits with status 2. Every run is held to the
//! core's [`Limits`] (200 000 steps, 30 days of virtual time, unless raised with `--max-steps` /
//! `--max-time-ms`): a scenario that ends past the time limit is refused (status 2, naming the
//! limit), and a run that meets the step limit is cut there with a note saying so.
use splitbrain_cli::zk_replay;
use splitbrain_sim::scenario::{builtin, builtins};
use splitbrain_sim::view::describe_partition;
use splitbrain_sim::{coordinator_partition, Limits, Mode, Scenario, World};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

mod describe;
mod import;

const USAGE: &str = "usage:
  splitbrain scenarios
  splitbrain run <built-in name | path.json> [--mode legacy|1.1|fenced|kraft] [--seed N] [--until-ms T] [--json]
                 [--max-steps N] [--max-time-ms T]   (limits; defaults 200000 steps, 2592000000 ms = 30 days)
                 (modes: legacy is Kafka 1.0.0, alias 1.0; 1.1 is 1.1.0; fenced is 2.1.0, alias 2.1)
  splitbrain coordinator <group> [--partitions N]
  splitbrain describe <built-in name | path.json> [--mode M] [--seed N] [--step N|end]
                      --as topics|topics-admin|kcat|zk-shell|jmx|state-change [--broker N]
                      [--unavailable-partitions] [--under-replicated-partitions]
                      (what Kafka's own tool would print after step N; default end)
  splitbrain explore [--mode legacy|1.1|fenced|kraft] [--seed N] [--budget-schedules K | --budget-ms T]
                     [--property leader-minus-one|two-controllers] [--exhaustive] [--max-faults F] [--operator]
                     [--scenario NAME|FILE] [--out FILE] [--json]
                     [--threads N] [--shard i/n]
                     (--exhaustive: every schedule of <= --max-faults faults at the --grid times, in s,
                      default 1.0,7.2,7.5; equal states merged unless --no-merge)
  splitbrain run ... --no-return [N]  also the point of no return (N continuations, default 20)
  splitbrain import FILE... [--json] [--broker N=FILE]
                    Kafka controller.log / state-change.log / server.log (0.8-2.8, any mix, - for
                    a paste on stdin): timeline by controller epoch, split-brain signatures with
                    their lines, and the fitted scenario replayed under 1.0, 1.1, 2.1 and KRaft
  splitbrain zk-replay <file | ->   ZooKeeper client operations (JSON lines) on the model's ZooKeeper,
                                    one JSON line out per operation
  splitbrain campaign [--schedules N] [--seed N] [--shard i/n] [--threads N] [--start J]
                      [--scenario NAME|FILE] [--json]
                      N random explorer schedules (default 1000000) across legacy, 1.1, fenced
                      and kraft: panics (exit 1 if any), violations per mode, schedules/s.
                      Needs a build that unwinds panics: scripts/campaign.sh";

pub(crate) struct Fail(String);

/// `println!` that ends quietly when stdout is closed (`| head`), instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg)) => {
            eprintln!("splitbrain: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), Fail> {
    match args.first().map(String::as_str) {
        Some("scenarios") => {
            no_extra(&args[1..])?;
            for (name, json) in builtins() {
                let desc = Scenario::from_json(json).map(|s| s.description).unwrap_or_default();
                say!("{name:<24} {desc}");
            }
            Ok(())
        }
        Some("run") => cmd_run(&args[1..]),
        Some("coordinator") => cmd_coordinator(&args[1..]),
        Some("explore") => cmd_explore(&args[1..]),
        Some("zk-replay") => cmd_zk_replay(&args[1..]),
        Some("campaign") => cmd_campaign(&args[1..]),
        Some("import") => import::cmd_import(&args[1..]).map(|text| {
            let _ = io::stdout().lock().write_all(text.as_bytes());
        }),
        Some("describe") => describe::cmd_describe(&args[1..]).map(|text| {
            let _ = io::stdout().lock().write_all(text.as_bytes());
        }),
        Some("-h") | Some("--help") | Some("help") => {
            say!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(Fail(format!("unknown command '{other}'\n{USAGE}"))),
        None => Err(Fail(format!("no command given\n{USAGE}"))),
    }
}

fn cmd_zk_replay(args: &[String]) -> Result<(), Fail> {
    use std::io::BufRead;
    let (src, rest) = args.split_first().ok_or_else(|| Fail(String::from("zk-replay needs a file or -")))?;
    no_extra(rest)?;
    let input: Box<dyn BufRead> = if src == "-" {
        Box::new(io::stdin().lock())
    } else {
        let f = std::fs::File::open(src).map_err(|e| Fail(format!("cannot read {src}: {e}")))?;
        Box::new(io::BufReader::new(f))
    };
    let mut replay = zk_replay::Replay::default();
    let mut out = BufWriter::new(io::stdout().lock());
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| Fail(format!("cannot read {src}: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let i = n + 1;
        let answer = replay.line(i, &line).map_err(|e| {
            let _ = out.flush();
            Fail(format!("zk-replay: line {i}: {e}"))
        })?;
        if writeln!(out, "{answer}").is_err() {
            return Ok(()); // stdout closed
        }
    }
    let _ = out.flush();
    Ok(())
}

fn cmd_campaign(args: &[String]) -> Result<(), Fail> {
    use splitbrain_cli::campaign::{can_count_panics, Campaign, Report};
    use splitbrain_sim::explore::Shard;
    let (mut schedules, mut seed, mut start) = (1_000_000u64, 1u64, 0u64);
    let (mut shard, mut threads, mut json, mut base) = (Shard::default(), None, false, "seed-incident".to_string());
    let mut i = 0;
    while i < args.len() {
        let val = |i: usize| args.get(i + 1).ok_or_else(|| Fail(format!("{} needs a value", args[i])));
        match args[i].as_str() {
            "--schedules" => schedules = number("--schedules", args.get(i + 1))?,
            "--seed" => seed = number("--seed", args.get(i + 1))?,
            "--start" => start = number("--start", args.get(i + 1))?,
            "--shard" => shard = Shard::parse(val(i)?).map_err(Fail)?,
            "--scenario" => base = val(i)?.clone(),
            "--threads" => {
                let n: usize = number("--threads", args.get(i + 1))?;
                if n == 0 || n > 1024 {
                    return Err(Fail(format!("--threads must be between 1 and 1024, got {n}")));
                }
                threads = Some(n);
            }
            "--json" => {
                json = true;
                i += 1;
                continue;
            }
            s => return Err(Fail(format!("unknown option '{s}'"))),
        }
        i += 2;
    }
    if !can_count_panics() {
        return Err(Fail(
            "campaign counts panics, which needs a build that unwinds them; this one aborts (the release profile): run scripts/campaign.sh, or cargo run --profile campaign -p splitbrain-cli -- campaign".into(),
        ));
    }
    let campaign = Campaign::new(load(&base)?, schedules, start, seed, shard);
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Fail(format!("cannot start {threads} threads: {e}")))?;
    let started = std::time::Instant::now();
    let mine = campaign.indices().count() as u64;
    let mut last = std::time::Instant::now();
    let report: Report = pool.install(|| {
        campaign.run(4096, |r| {
            if last.elapsed().as_secs() >= 10 {
                last = std::time::Instant::now();
                let secs = started.elapsed().as_secs_f64();
                eprintln!(
                    "campaign: {}/{mine} schedules, {} panics, {:.0} s, {:.1} schedules/s",
                    r.schedules(),
                    r.panic_count(),
                    secs,
                    r.schedules() as f64 / secs
                );
            }
        })
    });
    let secs = started.elapsed().as_secs_f64();
    let rate = report.schedules() as f64 / secs.max(1e-9);
    let shard_s = format!("{}/{}", shard.index, shard.count);
    let scenario_flag = if base == "seed-incident" { String::new() } else { format!(" --scenario {base}") };
    let rerun = |j: u64| format!("splitbrain campaign --seed {seed}{scenario_flag} --start {j} --schedules 1");
    if json {
        let modes: Vec<_> = Mode::ALL
            .iter()
            .zip(report.modes)
            .map(|(m, t)| {
                serde_json::json!({
                    "mode": m.name(), "schedules": t.schedules, "panics": t.panics,
                    "leader_minus_one": t.leader_minus_one, "two_controllers": t.two_controllers,
                })
            })
            .collect();
        let panicked: Vec<_> = report
            .panics
            .iter()
            .map(|p| serde_json::json!({"index": p.index, "mode": p.mode.name(), "message": p.message, "rerun": rerun(p.index)}))
            .collect();
        say!(
            "{}",
            serde_json::json!({
                "schedules": report.schedules(), "seed": seed, "start": start, "shard": shard_s,
                "threads": threads, "seconds": (secs * 1000.0).round() / 1000.0,
                "schedules_per_second": (rate * 10.0).round() / 10.0,
                "panics": report.panic_count(), "modes": modes, "panicked": panicked,
            })
        );
    } else {
        say!(
            "campaign: {} schedules (seed {seed}, shard {shard_s}, from {start}) on {threads} threads in {secs:.1} s: {rate:.1} schedules/s",
            report.schedules()
        );
        say!("{:<8} {:>10} {:>7} {:>10} {:>16}", "mode", "schedules", "panics", "leader -1", "two controllers");
        for (m, t) in Mode::ALL.iter().zip(report.modes) {
            say!(
                "{:<8} {:>10} {:>7} {:>10} {:>16}",
                m.name(),
                t.schedules,
                t.panics,
                t.leader_minus_one,
                t.two_controllers
            );
        }
        say!("panics: {}", report.panic_count());
        for p in &report.panics {
            say!("  schedule {} ({}): {} — re-run: {}", p.index, p.mode.name(), p.message, rerun(p.index));
        }
    }
    if report.panic_count() > 0 {
        let _ = io::stdout().flush();
        std::process::exit(1);
    }
    Ok(())
}

fn no_extra(rest: &[String]) -> Result<(), Fail> {
    match rest.first() {
        Some(x) => Err(Fail(format!("unexpected argument '{x}'"))),
        None => Ok(()),
    }
}

fn number<T: std::str::FromStr>(flag: &str, v: Option<&String>) -> Result<T, Fail> {
    let v = v.ok_or_else(|| Fail(format!("{flag} needs a value")))?;
    v.parse().map_err(|_| Fail(format!("{flag} expects a non-negative integer, got '{v}'")))
}

/// Loads a built-in by name, or a scenario file.
fn load(spec: &str) -> Result<Scenario, Fail> {
    if let Some(s) = builtin(spec) {
        return Ok(s);
    }
    let looks_like_file = spec.ends_with(".json") || spec.contains('/') || std::path::Path::new(spec).exists();
    if !looks_like_file {
        let names: Vec<&str> = builtins().into_iter().map(|(n, _)| n).collect();
        return Err(Fail(format!(
            "unknown scenario '{spec}' (built-ins: {}; or give a path to a .json file)",
            names.join(", ")
        )));
    }
    let text = std::fs::read_to_string(spec).map_err(|e| Fail(format!("cannot read scenario file '{spec}': {e}")))?;
    Scenario::from_json(&text).map_err(|e| Fail(format!("{spec}: {e}")))
}

fn cmd_run(args: &[String]) -> Result<(), Fail> {
    let mut spec = None;
    let mut seed = None;
    let mut until = None;
    let mut json = false;
    let mut mode = None;
    let mut no_return_n: Option<u32> = None;
    let mut limits = Limits::default();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--max-steps" => {
                limits.max_steps = number::<u64>("--max-steps", args.get(i + 1))?;
                i += 1;
            }
            "--max-time-ms" => {
                limits.max_time_ms = number::<u64>("--max-time-ms", args.get(i + 1))?;
                i += 1;
            }
            "--no-return" => {
                // An optional count of continuations follows.
                match args.get(i + 1).and_then(|v| v.parse::<u32>().ok()) {
                    Some(n) if n > 0 && n <= 1000 => {
                        no_return_n = Some(n);
                        i += 1;
                    }
                    Some(_) => return Err(Fail("--no-return takes 1 to 1000 continuations".into())),
                    None => no_return_n = Some(20),
                }
            }
            "--mode" => {
                let v = args.get(i + 1).ok_or_else(|| Fail("--mode needs a value".into()))?;
                mode = Some(Mode::parse(v).map_err(Fail)?);
                i += 1;
            }
            "--seed" => {
                seed = Some(number::<u64>("--seed", args.get(i + 1))?);
                i += 1;
            }
            "--until-ms" => {
                until = Some(number::<u64>("--until-ms", args.get(i + 1))?);
                i += 1;
            }
            "--json" => json = true,
            s if s.starts_with('-') => return Err(Fail(format!("unknown option '{s}'"))),
            s if spec.is_none() => spec = Some(s.to_string()),
            s => return Err(Fail(format!("unexpected argument '{s}'"))),
        }
        i += 1;
    }
    let spec = spec.ok_or_else(|| Fail(format!("run needs a scenario\n{USAGE}")))?;
    let scenario = load(&spec)?;
    // A scenario saved by the playground names its mode; --mode overrides it.
    let mode = scenario.opening_mode(mode);
    let mut world =
        World::with_mode(&scenario, seed.unwrap_or(scenario.seed), mode).map_err(|e| Fail(format!("{spec}: {e}")))?;
    let end = until.unwrap_or(world.config().end_ms).min(world.config().end_ms);
    if end > limits.max_time_ms {
        return Err(Fail(format!(
            "{spec}: the run would go on to {end} ms, past {}; raise it with --max-time-ms {end}, or stop earlier with --until-ms T",
            splitbrain_sim::Bound::TimeMs(limits.max_time_ms).describe()
        )));
    }
    world.set_limits(limits);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut io_ok = true;
    while let Some(ev) = world.step_until(end) {
        let r = if json {
            writeln!(out, "{}", serde_json::to_string(&ev).unwrap_or_default())
        } else {
            let mut r =
                writeln!(out, "{:>6} {:>13} {:<4} {}", ev.step, fmt_time(ev.time_ms), ev.node.to_string(), ev.line);
            for a in &ev.alerts_raised {
                r = r.and_then(|_| writeln!(out, "{:>25} ALERT {a}", ""));
            }
            for a in &ev.alerts_cleared {
                r = r.and_then(|_| writeln!(out, "{:>25} cleared: {a}", ""));
            }
            r
        };
        if r.is_err() {
            io_ok = false;
            break;
        }
    }
    let summary = world.summary();
    let stopped_by = world.stopped_by_until(end);
    if let Some(b) = stopped_by {
        let raise = match b {
            splitbrain_sim::Bound::Steps(n) => format!("--max-steps {}", n.saturating_mul(2)),
            splitbrain_sim::Bound::TimeMs(t) => format!("--max-time-ms {}", t.saturating_mul(2)),
        };
        eprintln!(
            "splitbrain: note: the run was cut at {} (after {} steps, at {}), before its end at {end} ms; raise it with {raise}",
            b.describe(),
            world.step_count(),
            fmt_time(world.now())
        );
    }
    if world.finished() {
        for (step, cmd) in world.unreached_step_faults() {
            eprintln!(
                "splitbrain: note: '{}' (after step {step}) was not applied: the run ended after {} steps",
                cmd.describe(),
                world.step_count()
            );
        }
    }
    if io_ok {
        if json {
            let last = match stopped_by {
                // Only a run cut at a bound says so: a complete run's line is as before.
                Some(b) => serde_json::json!({ "final": summary, "stopped_by": b }),
                None => serde_json::json!({ "final": summary }),
            };
            let _ = writeln!(out, "{last}");
        } else {
            let _ = print_summary(&mut out, &world);
        }
        if let Some(n) = no_return_n {
            let p = splitbrain_sim::explore::no_return::point_of_no_return(&scenario, mode, world.seed(), n);
            let _ = if json {
                writeln!(out, "{}", serde_json::json!({ "no_return": p }))
            } else {
                match &p {
                    Some(p) => writeln!(out, "{}", describe_no_return(p)),
                    None => writeln!(out, "no point of no return: the run does not end at leader -1"),
                }
            };
        }
    }
    let _ = out.flush();
    Ok(())
}

fn fmt_time(ms: u64) -> String {
    let (d, rem) = (ms / 86_400_000, ms % 86_400_000);
    let secs = rem as f64 / 1000.0;
    if d > 0 {
        format!("{d}d+{secs:.3}s")
    } else {
        format!("{secs:.3}s")
    }
}

fn print_summary(out: &mut impl Write, world: &World) -> io::Result<()> {
    let s = world.summary();
    writeln!(
        out,
        "\n== {} (seed {}, mode {}) after {} steps, at {} ==",
        s.scenario,
        s.seed,
        s.mode,
        s.steps,
        fmt_time(s.time_ms)
    )?;
    if let Some(k) = world.kraft() {
        let leaders: Vec<String> = k
            .voters
            .values()
            .filter(|v| v.alive && v.role == splitbrain_sim::kraft::Role::Leader)
            .map(|v| format!("q{} (epoch {})", v.id, v.epoch))
            .collect();
        writeln!(
            out,
            "KRaft quorum leader: {}",
            if leaders.is_empty() { "none".to_string() } else { leaders.join(", ") }
        )?;
    } else {
        writeln!(
            out,
            "/controller: {}   acting controllers: {:?}",
            s.zk_controller.map(|b| format!("broker {b}")).unwrap_or_else(|| "none".into()),
            s.acting_controllers
        )?;
    }
    let leaderless: Vec<_> = s.partitions.iter().filter(|p| p.leader < 0).collect();
    writeln!(out, "partitions: {} total, {} without a leader", s.partitions.len(), leaderless.len())?;
    for p in leaderless {
        writeln!(out, "  {}", describe_partition(p))?;
    }
    for c in &s.consumers {
        writeln!(
            out,
            "consumer c{} group '{}': coordinator partition {} (abs(hashCode {}) % {}), status {}{}",
            c.id,
            c.group,
            c.coordinator_partition,
            c.hash_code,
            c.partitions,
            c.status.name(),
            c.coordinator.map(|b| format!(", coordinator broker {b}")).unwrap_or_default()
        )?;
    }
    if s.alerts.is_empty() {
        writeln!(out, "alerts: none")?;
    } else {
        writeln!(out, "alerts:")?;
        for a in &s.alerts {
            writeln!(out, "  - {}", a.message)?;
        }
    }
    Ok(())
}

fn cmd_coordinator(args: &[String]) -> Result<(), Fail> {
    let mut group = None;
    let mut partitions = 50u32;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--partitions" => {
                partitions = number("--partitions", args.get(i + 1))?;
                if partitions == 0 {
                    return Err(Fail("--partitions must be at least 1".into()));
                }
                i += 1;
            }
            s if s.starts_with("--") => return Err(Fail(format!("unknown option '{s}'"))),
            s if group.is_none() => group = Some(s.to_string()),
            s => return Err(Fail(format!("unexpected argument '{s}'"))),
        }
        i += 1;
    }
    let group = group.ok_or_else(|| Fail(format!("coordinator needs a group id\n{USAGE}")))?;
    say!("{}", coordinator_partition(&group, partitions));
    Ok(())
}

fn cmd_explore(args: &[String]) -> Result<(), Fail> {
    use splitbrain_sim::explore::{check_determinism, Explorer, Options, Property, Shard, BATCH};
    use splitbrain_sim::scenario::ScriptEntry;
    use std::io::IsTerminal;
    let mut opts = Options::default();
    let mut budget_schedules: Option<u64> = None;
    let mut budget_ms: Option<u64> = None;
    let mut threads: Option<usize> = None;
    let mut json = false;
    let mut base = "seed-incident".to_string();
    let mut out_file: Option<String> = None;
    let mut grid: Option<Vec<u64>> = None;
    let mut merge = true;
    let mut i = 0;
    while i < args.len() {
        let val = |i: usize| args.get(i + 1).ok_or_else(|| Fail(format!("{} needs a value", args[i])));
        match args[i].as_str() {
            "--mode" => opts.mode = Mode::parse(val(i)?).map_err(Fail)?,
            "--seed" => opts.seed = number("--seed", args.get(i + 1))?,
            "--budget-schedules" => budget_schedules = Some(number("--budget-schedules", args.get(i + 1))?),
            "--budget-ms" => budget_ms = Some(number("--budget-ms", args.get(i + 1))?),
            "--property" => opts.property = Property::parse(val(i)?).map_err(Fail)?,
            "--max-faults" => opts.max_faults = number("--max-faults", args.get(i + 1))?,
            "--scenario" => base = val(i)?.clone(),
            "--out" => out_file = Some(val(i)?.clone()),
            "--shard" => opts.shard = Shard::parse(val(i)?).map_err(Fail)?,
            "--threads" => {
                let n: usize = number("--threads", args.get(i + 1))?;
                if n == 0 || n > 1024 {
                    return Err(Fail(format!("--threads must be between 1 and 1024, got {n}")));
                }
                threads = Some(n);
            }
            "--grid" => grid = Some(parse_grid(val(i)?)?),
            "--no-merge" => {
                merge = false;
                i += 1;
                continue;
            }
            "--exhaustive" => {
                opts.exhaustive = true;
                i += 1;
                continue;
            }
            "--operator" => {
                opts.operator = true;
                i += 1;
                continue;
            }
            "--json" => {
                json = true;
                i += 1;
                continue;
            }
            s => return Err(Fail(format!("unknown option '{s}'"))),
        }
        i += 2;
    }
    if budget_schedules.is_some() && budget_ms.is_some() {
        return Err(Fail("give either --budget-schedules or --budget-ms, not both".into()));
    }
    if opts.max_faults < 1 || opts.max_faults > 50 {
        return Err(Fail("--max-faults must be between 1 and 50".into()));
    }
    if (grid.is_some() || !merge) && !opts.exhaustive {
        return Err(Fail("--grid and --no-merge apply to --exhaustive".into()));
    }
    let scenario = load(&base)?;
    if opts.exhaustive {
        return cmd_exhaustive(&scenario, &opts, grid, merge, json, out_file);
    }
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Fail(format!("cannot start {threads} threads: {e}")))?;
    let budget = budget_schedules.unwrap_or(if budget_ms.is_some() { u64::MAX } else { 2000 });
    let deadline = budget_ms.map(|ms| std::time::Instant::now() + std::time::Duration::from_millis(ms));
    let started = std::time::Instant::now();
    let mut ex = Explorer::new(scenario, opts.clone());
    let (judge_base, judge_opts) = (ex.base().clone(), ex.options().clone());
    // Each worker builds the opening world once (a `Prototype` holds `Rc`s, so one per thread's
    // task) and clones it per schedule: the same world `World::with_mode` builds.
    let proto = || splitbrain_sim::explore::Prototype::new(&judge_base, judge_opts.seed, judge_opts.mode);
    // The shrinker's rounds, judged in parallel: every complement is run, the first (in order)
    // that still violates is kept — the same answer as a sequential ddmin.
    let judge = |cands: &[Vec<ScriptEntry>]| -> Option<usize> {
        let verdicts: Vec<bool> = pool.install(|| {
            use rayon::prelude::*;
            cands
                .par_iter()
                .map_init(proto, |p, s| splitbrain_sim::explore::violates_on(p, s, &judge_opts).is_some())
                .collect()
        });
        verdicts.iter().position(|v| *v)
    };
    let tty = std::io::stderr().is_terminal() && !json;
    while ex.tried() < budget && ex.found().is_none() && !ex.exhausted() {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        if opts.exhaustive {
            ex.run(1);
        } else {
            let batch = ex.next_batch((budget - ex.tried()).min(BATCH as u64) as usize);
            let outcomes = pool.install(|| {
                use rayon::prelude::*;
                batch
                    .par_iter()
                    .map_init(proto, |p, c| splitbrain_sim::explore::evaluate_on(p, &judge_base, &judge_opts, c))
                    .collect::<Vec<_>>()
            });
            ex.absorb_with(outcomes, &judge);
        }
        if tty && (ex.tried() % 10 == 0 || !opts.exhaustive || ex.found().is_some()) {
            let frac = if budget == u64::MAX { 0.0 } else { ex.tried() as f64 / budget as f64 };
            let bar: String = (0..30).map(|k| if (k as f64) < frac * 30.0 { '#' } else { '.' }).collect();
            eprint!("\r[{bar}] {} schedules, {:.1} s", ex.tried(), started.elapsed().as_secs_f64());
        }
    }
    if tty {
        eprintln!();
    }
    let secs = started.elapsed().as_secs_f64();
    let found = ex.found().cloned();
    // The determinism check: the shrunk counterexample, replayed twice, gives one trace hash.
    let det = match &found {
        Some(c) => Some(
            check_determinism(&c.scenario, opts.mode)
                .map_err(|e| Fail(format!("replaying the counterexample: {e}")))?,
        ),
        None => None,
    };
    if let (Some(c), Some(path)) = (&found, &out_file) {
        std::fs::write(path, c.scenario.to_json()).map_err(|e| Fail(format!("cannot write {path}: {e}")))?;
    }
    let shard = format!("{}/{}", opts.shard.index, opts.shard.count);
    if json {
        let violation = found.as_ref().map(|c| {
            let d = det.expect("checked with the find");
            serde_json::json!({
                "property": c.property,
                "schedule": c.schedule,
                "steps": c.steps,
                "faults": c.schedule.len(),
                "original_faults": c.original_faults,
                "trace_hash": format!("{:016x}", d.hash),
                "deterministic": d.deterministic(),
                "scenario": c.scenario,
                "no_return": no_return(c),
            })
        });
        say!(
            "{}",
            serde_json::json!({"result": {"violation": violation, "schedules": ex.tried(), "mode": opts.mode.name(), "seconds": secs, "threads": threads, "shard": shard}})
        );
    } else {
        match &found {
            Some(c) => {
                say!(
                    "violation of {} after {} schedules ({:.2} s, mode {}, {} thread(s), shard {}); shrunk from {} to {} faults, {} steps:",
                    c.property.name(),
                    ex.tried(),
                    secs,
                    opts.mode.name(),
                    threads,
                    shard,
                    c.original_faults,
                    c.schedule.len(),
                    c.steps
                );
                for e in &c.schedule {
                    say!("  at {:>8} ms  {}", e.at_ms, e.command.describe());
                }
                let d = det.expect("checked with the find");
                if d.deterministic() {
                    say!("replayed twice: trace hash {:016x} both times ({} steps): deterministic", d.hash, d.steps);
                }
                if let Some(p) = no_return(c) {
                    say!("{}", describe_no_return(&p));
                }
                match &out_file {
                    Some(p) => say!("scenario written to {p} (splitbrain run {p})"),
                    None => say!("(add --out FILE to save it as a scenario for `splitbrain run` and the playground)"),
                }
            }
            None => say!(
                "no violation of {} in {} schedules ({:.2} s, mode {}, {} thread(s), shard {}){}",
                opts.property.name(),
                ex.tried(),
                secs,
                opts.mode.name(),
                threads,
                shard,
                if ex.exhausted() { "; the bounded space is exhausted" } else { "" }
            ),
        }
    }
    if let Some(d) = det.filter(|d| !d.deterministic()) {
        return Err(Fail(format!(
            "the counterexample is not deterministic: two replays gave trace hashes {:016x} and {:016x}",
            d.hash, d.second
        )));
    }
    Ok(())
}

/// `1.0,7.2,7.5` (seconds, at most 3 decimals) as ms.
fn parse_grid(v: &str) -> Result<Vec<u64>, Fail> {
    let bad = || Fail(format!("--grid expects increasing times in seconds, like 1.0,7.2,7.5; got '{v}'"));
    let mut out = Vec::new();
    for t in v.split(',') {
        let (whole, frac) = t.trim().split_once('.').unwrap_or((t.trim(), ""));
        if whole.is_empty() || frac.len() > 3 || !frac.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        let s: u64 = whole.parse().map_err(|_| bad())?;
        let f: u64 = if frac.is_empty() {
            0
        } else {
            frac.parse::<u64>().map_err(|_| bad())? * 10u64.pow(3 - frac.len() as u32)
        };
        out.push(s.checked_mul(1000).and_then(|ms| ms.checked_add(f)).ok_or_else(bad)?);
    }
    if out.is_empty() || out[0] == 0 || out.windows(2).any(|w| w[0] >= w[1]) || out.len() > 12 {
        return Err(Fail(format!("--grid expects 1 to 12 increasing times after 0 s; got '{v}'")));
    }
    Ok(out)
}

/// The point of no return of a leader -1 counterexample (20 continuations).
fn no_return(c: &splitbrain_sim::explore::Counterexample) -> Option<splitbrain_sim::explore::no_return::NoReturn> {
    use splitbrain_sim::explore::Property;
    let mode = c.scenario.opening_mode(None);
    (c.property == Property::LeaderMinusOne)
        .then(|| splitbrain_sim::explore::no_return::point_of_no_return(&c.scenario, mode, c.scenario.seed, 20))
        .flatten()
}

fn describe_no_return(p: &splitbrain_sim::explore::no_return::NoReturn) -> String {
    let what: Vec<String> = p
        .marks
        .iter()
        .map(|m| {
            serde_json::to_value(m)
                .ok()
                .and_then(|v| v.get("mark").and_then(|m| m.as_str().map(String::from)))
                .unwrap_or_default()
        })
        .collect();
    let at = match p.node {
        Some(n) => format!(
            "step {} at {} ({n}{}{})",
            p.step,
            fmt_time(p.time_ms),
            if what.is_empty() { "" } else { ": " },
            what.join(", ")
        ),
        None => "step 0 (the opening world: the scripted faults decide it)".to_string(),
    };
    format!(
        "point of no return: {at}; {} of {} continuations from there end at leader -1{}",
        p.held,
        p.of,
        p.held_before.map(|b| format!(" ({b} from the step before)")).unwrap_or_default()
    )
}

fn cmd_exhaustive(
    scenario: &Scenario,
    opts: &splitbrain_sim::explore::Options,
    grid: Option<Vec<u64>>,
    merge: bool,
    json: bool,
    out_file: Option<String>,
) -> Result<(), Fail> {
    use splitbrain_sim::explore::exhaustive::{Exhaustive, GRID_MS};
    use splitbrain_sim::explore::{shrink, violates, with_schedule};
    let grid = grid.unwrap_or_else(|| GRID_MS.to_vec());
    let started = std::time::Instant::now();
    let mut ex = Exhaustive::new(scenario, opts, &grid, merge).map_err(Fail)?;
    let verdict = ex.run_to_end();
    let secs = started.elapsed().as_secs_f64();
    // A violation is replayed as a scenario (the judge), shrunk, and saved if asked.
    let counterexample = verdict.violation.as_ref().map(|v| {
        let replayed = violates(scenario, v, opts).is_some();
        let small = if replayed { shrink(scenario, v, opts) } else { v.clone() };
        let mut s = with_schedule(scenario, &small, opts.settle_ms);
        s.name = format!("counterexample-{}", opts.property.name());
        s.seed = opts.seed;
        s.mode = Some(opts.mode);
        (replayed, small, s)
    });
    if let (Some((_, _, s)), Some(path)) = (&counterexample, &out_file) {
        std::fs::write(path, s.to_json()).map_err(|e| Fail(format!("cannot write {path}: {e}")))?;
    }
    let nr = counterexample.as_ref().and_then(|(replayed, small, s)| {
        (*replayed && opts.property == splitbrain_sim::explore::Property::LeaderMinusOne).then(|| {
            let _ = small;
            splitbrain_sim::explore::no_return::point_of_no_return(s, opts.mode, s.seed, 20)
        })?
    });
    if json {
        say!(
            "{}",
            serde_json::json!({"exhaustive": {
                "statement": verdict.statement(),
                "verdict": verdict,
                "seconds": secs,
                "replayed": counterexample.as_ref().map(|c| c.0),
                "shrunk": counterexample.as_ref().map(|c| &c.1),
                "no_return": nr,
            }})
        );
        return Ok(());
    }
    say!("{} [{:.1} s, seed {}]", verdict.statement(), secs, opts.seed);
    if let Some((replayed, small, _)) = &counterexample {
        say!(
            "  {} as a scenario; shrunk to {} faults:",
            if *replayed { "replays" } else { "does NOT replay" },
            small.len()
        );
        for e in small {
            say!("  at {:>8} ms  {}", e.at_ms, e.command.describe());
        }
        if let Some(p) = &nr {
            say!("{}", describe_no_return(p));
        }
    }
    Ok(())
}
