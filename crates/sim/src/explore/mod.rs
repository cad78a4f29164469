//! The schedule explorer: searches fault schedules on a cluster for one that violates a property
//! (swarm-style random search from a seed, or a bounded exhaustive enumeration for small
//! clusters), then shrinks the schedule by delta debugging (Zeller's ddmin) to a minimal one and
//! returns it as a scenario that `run` and the playground load. Deterministic: the same seed and
//! budget find the same counterexample. Work is done in slices (`Explorer::run`) so a browser can
//! yield between them.
pub mod no_return;

use crate::alerts::AlertKind;
use crate::command::{Command, Direction};
use crate::ids::NodeId;
use crate::rng::Rng;
use crate::scenario::{Mode, Scenario, ScriptEntry};
use crate::world::World;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// What the explorer looks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Property {
    /// A partition is still at leader -1 with a live ISR member once the cluster has been quiet
    /// for the settle time (the incident; a transient -1 during recovery does not count).
    LeaderMinusOne,
    /// At some step two live brokers act as controller (fencing does not prevent this; it makes
    /// the deposed one harmless).
    TwoControllers,
}

impl Property {
    /// Parses `leader-minus-one` / `two-controllers`.
    pub fn parse(s: &str) -> Result<Property, String> {
        match s {
            "leader-minus-one" | "leader_minus_one" => Ok(Property::LeaderMinusOne),
            "two-controllers" | "two_controllers" => Ok(Property::TwoControllers),
            o => Err(format!("unknown property '{o}' (properties: leader-minus-one, two-controllers)")),
        }
    }

    /// The name.
    pub fn name(self) -> &'static str {
        match self {
            Property::LeaderMinusOne => "leader_minus_one",
            Property::TwoControllers => "two_controllers",
        }
    }
}

/// Explorer settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Kafka behaviour under test.
    pub mode: Mode,
    /// Seed of the search (and of each run's latency jitter).
    pub seed: u64,
    /// Property.
    pub property: Property,
    /// Most faults per schedule.
    pub max_faults: usize,
    /// Enumerate schedules exhaustively instead of sampling.
    pub exhaustive: bool,
    /// Quiet time after the last fault before the end-state check.
    pub settle_ms: u64,
    /// Also inject an operator's delete of `/controller`: the one way left to move a 1.1
    /// controller without its session expiring.
    pub operator: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::default(),
            seed: 1,
            property: Property::LeaderMinusOne,
            max_faults: 8,
            exhaustive: false,
            settle_ms: 30_000,
            operator: false,
        }
    }
}

/// A violating schedule.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Counterexample {
    /// The property violated.
    pub property: Property,
    /// The shrunk schedule.
    pub schedule: Vec<ScriptEntry>,
    /// Steps of the run that shows it.
    pub steps: u64,
    /// Length of the schedule before shrinking.
    pub original_faults: usize,
    /// A scenario (the base cluster plus the schedule) that reproduces it.
    pub scenario: Scenario,
}

/// Runs `schedule` on `base`; returns the number of steps if the property is violated.
pub fn violates(base: &Scenario, schedule: &[ScriptEntry], opts: &Options) -> Option<u64> {
    let s = with_schedule(base, schedule, opts.settle_ms);
    let mut w = World::with_mode(&s, opts.seed, opts.mode).ok()?;
    let mut guard = 0u32;
    while w.step().is_some() {
        guard += 1;
        if opts.property == Property::TwoControllers
            && w.alerts().iter().any(|a| a.kind == AlertKind::MultipleControllers)
        {
            return Some(w.step_count());
        }
        if guard > 200_000 {
            break;
        }
    }
    (opts.property == Property::LeaderMinusOne && w.alerts().iter().any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr))
        .then(|| w.step_count())
}

/// The base cluster with `schedule` as its script, ending `settle_ms` after the last fault.
pub fn with_schedule(base: &Scenario, schedule: &[ScriptEntry], settle_ms: u64) -> Scenario {
    let mut s = base.clone();
    s.pin_zookeeper();
    s.script = schedule.to_vec();
    s.captions.clear();
    s.end_ms = Some(schedule.iter().map(|e| e.at_ms).max().unwrap_or(0) + settle_ms);
    s
}

/// The faults the explorer may inject on `base`'s cluster.
fn alphabet(base: &Scenario, operator: bool) -> Vec<Command> {
    let brokers: Vec<NodeId> = base.cluster.brokers.iter().map(|b| NodeId::Broker(*b)).collect();
    let mut v = Vec::new();
    if operator {
        v.push(Command::DeleteController);
    }
    for &b in &brokers {
        v.push(Command::Cut { a: b, b: NodeId::ZK, dir: Direction::Both });
        v.push(Command::Heal { a: b, b: NodeId::ZK, dir: Direction::Both });
        v.push(Command::Crash { node: b });
        v.push(Command::Restart { node: b });
    }
    for (i, &a) in brokers.iter().enumerate() {
        for &b in &brokers[i + 1..] {
            v.push(Command::Cut { a, b, dir: Direction::Both });
            v.push(Command::Heal { a, b, dir: Direction::Both });
        }
    }
    v
}

/// ddmin over the schedule's entries, then drop entries one by one while the violation holds.
pub fn shrink(base: &Scenario, schedule: &[ScriptEntry], opts: &Options) -> Vec<ScriptEntry> {
    let mut cur: Vec<ScriptEntry> = schedule.to_vec();
    let mut n = 2usize;
    while cur.len() >= 2 {
        let chunk = cur.len().div_ceil(n);
        let mut reduced = false;
        let mut start = 0;
        while start < cur.len() {
            let end = (start + chunk).min(cur.len());
            let complement: Vec<ScriptEntry> = cur[..start].iter().chain(&cur[end..]).cloned().collect();
            if !complement.is_empty() && violates(base, &complement, opts).is_some() {
                cur = complement;
                n = (n - 1).max(2);
                reduced = true;
                break;
            }
            start = end;
        }
        if !reduced {
            if n >= cur.len() {
                break;
            }
            n = (n * 2).min(cur.len());
        }
    }
    cur
}

/// A search in progress.
pub struct Explorer {
    base: Scenario,
    opts: Options,
    rng: Rng,
    alphabet: Vec<Command>,
    tried: u64,
    next_index: u64,
    found: Option<Counterexample>,
    exhausted: bool,
    moves_triggered: u64,
}

/// Times (ms) the exhaustive search places faults at: a coarse grid that still lets a cut land
/// inside a controller failover.
const GRID_MS: [u64; 6] = [1_000, 7_200, 7_500, 14_000, 20_000, 40_000];

impl Explorer {
    /// A search of `base`'s cluster (its script is ignored).
    pub fn new(mut base: Scenario, opts: Options) -> Self {
        base.pin_zookeeper();
        let alphabet = alphabet(&base, opts.operator);
        let rng = Rng::new(opts.seed ^ 0xE7);
        Explorer {
            base,
            opts,
            rng,
            alphabet,
            tried: 0,
            next_index: 0,
            found: None,
            exhausted: false,
            moves_triggered: 0,
        }
    }

    /// Schedules tried so far.
    pub fn tried(&self) -> u64 {
        self.tried
    }

    /// The counterexample, once found.
    pub fn found(&self) -> Option<&Counterexample> {
        self.found.as_ref()
    }

    /// True when the exhaustive search has enumerated everything within its bound.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// How many random runs so far reached `triggerControllerMove` (a
    /// [`crate::Mark::ControllerMoveTriggered`]): 1.0's unconditional delete of `/controller`
    /// from `elect`'s catch-all is a path the search reaches, not only a hand-placed one.
    pub fn moves_triggered(&self) -> u64 {
        self.moves_triggered
    }

    /// Tries up to `n` more schedules; stops at the first violation (then shrunk) or when an
    /// exhaustive search is done.
    /// Tries up to `n` more schedules; stops early (and shrinks) at the first violation.
    pub fn run(&mut self, n: u64) -> Option<&Counterexample> {
        for _ in 0..n {
            if self.found.is_some() || self.exhausted {
                break;
            }
            let (schedule, online_bad) = if self.opts.exhaustive {
                match self.next_exhaustive() {
                    Some(s) => (s, true),
                    None => {
                        self.exhausted = true;
                        break;
                    }
                }
            } else {
                self.random_run()
            };
            self.tried += 1;
            // A random candidate is replayed only if its own run went wrong; the replay decides.
            if online_bad && violates(&self.base, &schedule, &self.opts).is_some() {
                let small = shrink(&self.base, &schedule, &self.opts);
                let steps = violates(&self.base, &small, &self.opts).unwrap_or(0);
                self.found = Some(Counterexample {
                    property: self.opts.property,
                    original_faults: schedule.len(),
                    scenario: {
                        let mut s = with_schedule(&self.base, &small, self.opts.settle_ms);
                        s.name = format!("counterexample-{}", self.opts.property.name());
                        s.description = format!(
                            "Found by `splitbrain explore --mode {} --seed {}` after {} schedules; shrunk from {} to {} faults.",
                            self.opts.mode.name(),
                            self.opts.seed,
                            self.tried,
                            schedule.len(),
                            small.len()
                        );
                        s.seed = self.opts.seed;
                        // The file runs in the mode it was found in (`run` and the playground).
                        s.mode = Some(self.opts.mode);
                        s
                    },
                    schedule: small,
                    steps,
                });
            }
        }
        self.found.as_ref()
    }

    /// Swarm testing (Groce et al.) driven by the run itself, like FoundationDB's buggify or a
    /// Jepsen nemesis: a world runs the base cluster, and faults are injected near what is
    /// happening (mostly at the broker that just acted), or at a random later time when the
    /// cluster is quiet. The injected faults are recorded with their times; that timed schedule is
    /// the candidate, judged by an ordinary replay.
    /// One online run: the schedule it injected, and whether that run itself violated the
    /// property (so only violating candidates pay for a replay).
    fn random_run(&mut self) -> (Vec<ScriptEntry>, bool) {
        let k = 2 + self.rng.up_to(self.opts.max_faults.saturating_sub(2) as u64) as usize;
        // Swarm: this schedule uses a random subset of fault kinds.
        let kinds = [self.rng.up_to(3) != 0, self.rng.up_to(3) != 0, self.rng.up_to(2) == 0, self.rng.up_to(2) == 0];
        let per_step = 8 + self.rng.up_to(40);
        let mut s = self.base.clone();
        s.script.clear();
        s.end_ms = Some(u64::MAX / 4);
        let Ok(mut w) = World::with_mode(&s, self.opts.seed, self.opts.mode) else { return (Vec::new(), false) };
        let brokers: Vec<NodeId> = self.base.cluster.brokers.iter().map(|b| NodeId::Broker(*b)).collect();
        let mut out: Vec<ScriptEntry> = Vec::new();
        let mut steps = 0u32;
        let mut moved = false;
        let mut note = |e: &crate::Event| {
            moved |= e.marks.iter().any(|m| matches!(m, crate::Mark::ControllerMoveTriggered { .. }));
        };
        while out.len() < k && steps < 20_000 {
            let quiet = w.next_time().map(|t| t > w.now() + 1_000).unwrap_or(true);
            let act = if quiet { true } else { self.rng.up_to(per_step) == 0 };
            if act {
                let at = if quiet { w.now() + 500 + 100 * self.rng.up_to(100) } else { w.now() + 1 };
                let focus = match w.last_node() {
                    Some(NodeId::Broker(b)) if self.rng.up_to(3) != 0 => NodeId::Broker(b),
                    _ => brokers[self.rng.up_to(brokers.len() as u64 - 1) as usize],
                };
                if let Some(cmd) = self.pick(&w, focus, &brokers, kinds) {
                    if w.schedule(at, cmd.clone()).is_ok() {
                        out.push(ScriptEntry { at_ms: at, command: cmd });
                    }
                }
            }
            match w.step() {
                Some(e) => note(&e),
                None => break,
            }
            steps += 1;
            if self.opts.property == Property::TwoControllers
                && w.alerts().iter().any(|a| a.kind == AlertKind::MultipleControllers)
            {
                self.moves_triggered += moved as u64;
                out.sort_by_key(|e| e.at_ms);
                return (out, true);
            }
        }
        let last = out.iter().map(|e| e.at_ms).max().unwrap_or(0);
        w.set_end(last + self.opts.settle_ms);
        while steps < 200_000 {
            match w.step() {
                Some(e) => note(&e),
                None => break,
            }
            steps += 1;
        }
        self.moves_triggered += moved as u64;
        let bad = self.opts.property == Property::LeaderMinusOne
            && w.alerts().iter().any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr);
        out.sort_by_key(|e| e.at_ms);
        (out, bad)
    }

    fn pick(&mut self, w: &World, focus: NodeId, brokers: &[NodeId], kinds: [bool; 4]) -> Option<Command> {
        let cut = w.cut_links();
        let down: Vec<NodeId> =
            brokers.iter().copied().filter(|b| w.broker(b.broker().unwrap_or(-1)).is_some_and(|x| !x.alive)).collect();
        // Drawn only when enabled, so searches without it keep their schedules.
        if self.opts.operator && self.rng.up_to(5) == 0 {
            return Some(Command::DeleteController);
        }
        for _ in 0..8 {
            match self.rng.up_to(3) {
                0 if kinds[0] && !cut.contains(&(NodeId::ZK, focus)) => {
                    return Some(Command::Cut { a: focus, b: NodeId::ZK, dir: Direction::Both })
                }
                1 if kinds[1] && !cut.is_empty() => {
                    let (a, b) = cut[self.rng.up_to(cut.len() as u64 - 1) as usize];
                    return Some(Command::Heal { a, b, dir: Direction::Both });
                }
                2 if kinds[2] && down.is_empty() => return Some(Command::Crash { node: focus }),
                2 if kinds[2] => return Some(Command::Restart { node: down[0] }),
                _ if kinds[3] => {
                    let other = brokers[self.rng.up_to(brokers.len() as u64 - 1) as usize];
                    if other != focus {
                        return Some(Command::Cut { a: focus, b: other, dir: Direction::Both });
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The next schedule in a fixed enumeration of up to `max_faults` faults from the alphabet at
    /// the times of `GRID_MS`, in increasing order (mixed-radix counting).
    fn next_exhaustive(&mut self) -> Option<Vec<ScriptEntry>> {
        let a = self.alphabet.len() as u64;
        let max = self.opts.max_faults.min(GRID_MS.len());
        let mut idx = self.next_index;
        self.next_index += 1;
        // Schedules of length L occupy a block of a^L indices; the slots are the first L grid times.
        for len in 1..=max {
            let block = a.checked_pow(len as u32)?;
            if idx < block {
                let mut v = Vec::with_capacity(len);
                let mut x = idx;
                for &t in GRID_MS.iter().take(len) {
                    v.push(ScriptEntry { at_ms: t, command: self.alphabet[(x % a) as usize].clone() });
                    x /= a;
                }
                return Some(v);
            }
            idx -= block;
        }
        None
    }
}
