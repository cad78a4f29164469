//! `splitbrain describe <scenario> [--mode M] [--seed N] [--step N|end] --as TOOL [--broker N]
//! [--unavailable-partitions] [--under-replicated-partitions]`: what one of Kafka's own tools would
//! print after step N (the core's `tools` module renders it).
use crate::{load, number, Fail};
use splitbrain_sim::tools::{Options, Tool, Walk};
use splitbrain_sim::{Mode, World};

pub(crate) fn cmd_describe(args: &[String]) -> Result<String, Fail> {
    let (mut spec, mut mode, mut seed, mut step, mut tool) = (None, None, None, None::<Option<u64>>, None);
    let mut opts = Options::default();
    let mut i = 0;
    while i < args.len() {
        let val = |i: usize| args.get(i + 1).ok_or_else(|| Fail(format!("{} needs a value", args[i])));
        match args[i].as_str() {
            "--mode" => mode = Some(Mode::parse(val(i)?).map_err(Fail)?),
            "--seed" => seed = Some(number::<u64>("--seed", args.get(i + 1))?),
            "--broker" => opts.broker = Some(number::<i32>("--broker", args.get(i + 1))?),
            "--as" => tool = Some(Tool::parse(val(i)?).map_err(Fail)?),
            "--step" => {
                let v = val(i)?;
                step = Some(if v == "end" {
                    None
                } else {
                    Some(v.parse().map_err(|_| Fail(format!("--step expects a step number or 'end', got '{v}'")))?)
                });
            }
            "--unavailable-partitions" | "--under-replicated-partitions" => {
                if args[i] == "--unavailable-partitions" {
                    opts.unavailable = true;
                } else {
                    opts.under_replicated = true;
                }
                i += 1;
                continue;
            }
            s if s.starts_with('-') => return Err(Fail(format!("unknown option '{s}'"))),
            s if spec.is_none() => {
                spec = Some(s.to_string());
                i += 1;
                continue;
            }
            s => return Err(Fail(format!("unexpected argument '{s}'"))),
        }
        i += 2;
    }
    let spec = spec.ok_or_else(|| Fail("describe needs a scenario".into()))?;
    let tool = tool.ok_or_else(|| Fail(format!("describe needs --as {}", Tool::NAMES.join("|"))))?;
    let scenario = load(&spec)?;
    let mode = scenario.opening_mode(mode);
    let world =
        World::with_mode(&scenario, seed.unwrap_or(scenario.seed), mode).map_err(|e| Fail(format!("{spec}: {e}")))?;
    // The core's walk, as the playground's panel takes it (`Timeline::tools_walk`).
    let mut walk = Walk::start(world);
    let want = step.flatten();
    while want.is_none_or(|n| walk.world().step_count() < n) {
        if !walk.advance(World::step) {
            break;
        }
    }
    let reached = walk.world().step_count();
    if let Some(n) = want.filter(|n| reached < *n) {
        return Err(Fail(format!("step {n} is beyond the run's end: {spec} ends after {reached} steps")));
    }
    walk.render(tool, &opts).map_err(Fail)
}
