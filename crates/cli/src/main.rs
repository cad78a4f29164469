//! `splitbrain`: run scenarios of the Kafka controller split-brain simulation from a terminal.
//!
//! ```text
//! splitbrain scenarios
//! splitbrain run <built-in | path.json> [--seed N] [--until-ms T] [--max-steps N] [--max-time-ms T] [--json]
//! splitbrain coordinator <group> [--partitions N]
//! ```
//! Bad input prints one line naming the problem and exits with status 2. Every run is held to the
//! core's [`Limits`] (200 000 steps, 30 days of virtual time, unless raised with `--max-steps` /
//! `--max-time-ms`): a scenario that ends past the time limit is refused (status 2, naming the
//! limit), and a run that meets the step limit is cut there with a note saying so.
use splitbrain_sim::scenario::{builtin, builtins};
use splitbrain_sim::view::describe_partition;
use splitbrain_sim::{coordinator_partition, Limits, Mode, Scenario, World};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

const USAGE: &str = "usage:
  splitbrain scenarios
  splitbrain run <built-in name | path.json> [--mode legacy|1.1|fenced|kraft] [--seed N] [--until-ms T] [--json]
                 [--max-steps N] [--max-time-ms T]   (limits; defaults 200000 steps, 2592000000 ms = 30 days)
                 (modes: legacy is Kafka 1.0.0, alias 1.0; 1.1 is 1.1.0; fenced is 2.1.0, alias 2.1)
  splitbrain coordinator <group> [--partitions N]
  splitbrain explore [--mode legacy|1.1|fenced|kraft] [--seed N] [--budget-schedules K | --budget-ms T]
                     [--property leader-minus-one|two-controllers] [--exhaustive] [--max-faults F] [--operator]
                     [--scenario NAME|FILE] [--out FILE] [--json]";

struct Fail(String);

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
        Some("-h") | Some("--help") | Some("help") => {
            say!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(Fail(format!("unknown command '{other}'\n{USAGE}"))),
        None => Err(Fail(format!("no command given\n{USAGE}"))),
    }
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
            c.status,
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
    use splitbrain_sim::explore::{Explorer, Options, Property};
    use std::io::IsTerminal;
    let mut opts = Options::default();
    let mut budget_schedules: Option<u64> = None;
    let mut budget_ms: Option<u64> = None;
    let mut json = false;
    let mut base = "seed-incident".to_string();
    let mut out_file: Option<String> = None;
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
    let scenario = load(&base)?;
    let budget = budget_schedules.unwrap_or(if budget_ms.is_some() { u64::MAX } else { 2000 });
    let deadline = budget_ms.map(|ms| std::time::Instant::now() + std::time::Duration::from_millis(ms));
    let started = std::time::Instant::now();
    let mut ex = Explorer::new(scenario, opts.clone());
    let tty = std::io::stderr().is_terminal() && !json;
    while ex.tried() < budget && ex.found().is_none() && !ex.exhausted() {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
        ex.run(1);
        if tty && (ex.tried() % 10 == 0 || ex.found().is_some()) {
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
    if let (Some(c), Some(path)) = (&found, &out_file) {
        std::fs::write(path, c.scenario.to_json()).map_err(|e| Fail(format!("cannot write {path}: {e}")))?;
    }
    if json {
        let violation = found.as_ref().map(|c| {
            serde_json::json!({
                "property": c.property,
                "schedule": c.schedule,
                "steps": c.steps,
                "faults": c.schedule.len(),
                "original_faults": c.original_faults,
                "scenario": c.scenario,
            })
        });
        say!(
            "{}",
            serde_json::json!({"result": {"violation": violation, "schedules": ex.tried(), "mode": opts.mode.name(), "seconds": secs}})
        );
        return Ok(());
    }
    match found {
        Some(c) => {
            say!(
                "violation of {} after {} schedules ({:.1} s, mode {}); shrunk from {} to {} faults, {} steps:",
                c.property.name(),
                ex.tried(),
                secs,
                opts.mode.name(),
                c.original_faults,
                c.schedule.len(),
                c.steps
            );
            for e in &c.schedule {
                say!("  at {:>8} ms  {}", e.at_ms, e.command.describe());
            }
            match out_file {
                Some(p) => say!("scenario written to {p} (splitbrain run {p})"),
                None => say!("(add --out FILE to save it as a scenario for `splitbrain run` and the playground)"),
            }
        }
        None => say!(
            "no violation of {} in {} schedules ({:.1} s, mode {}){}",
            opts.property.name(),
            ex.tried(),
            secs,
            opts.mode.name(),
            if ex.exhausted() { "; the bounded space is exhausted" } else { "" }
        ),
    }
    Ok(())
}
