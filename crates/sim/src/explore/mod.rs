//! The schedule explorer: searches fault schedules on a cluster for one that violates a property
//! (swarm-style random search from a seed, or a bounded exhaustive enumeration for small
//! clusters), then shrinks the schedule by delta debugging (Zeller's ddmin) to a minimal one and
//! returns it as a scenario that `run` and the playground load. Deterministic: the same seed and
//! budget find the same counterexample. Work is done in slices (`Explorer::run`) so a browser can
//! yield between them. Who may call it: the CLI (`explore`, `campaign`), the page's worker and the
//! tests; it drives worlds through `World`'s public methods only and is called by nothing in the
//! core.
pub mod exhaustive;
pub mod no_return;
mod proto;

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

mod determinism;
mod facts;
mod guided;
mod shrink;

pub use determinism::{check as check_determinism, trace_hash, Determinism};
pub use facts::Facts;
pub use guided::{Candidate, CandidateKind, Outcome, BATCH};
pub use proto::Prototype;
pub use shrink::{is_one_minimal, shrink, shrink_with, FirstViolating};

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
    /// Which part of a sharded campaign this search explores (its own random stream).
    pub shard: Shard,
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
            shard: Shard::default(),
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
    violates_world(World::with_mode(&s, opts.seed, opts.mode).ok()?, opts)
}

/// [`violates`] on `proto`'s cluster (a prototype of the base [`with_schedule`] pins, with the
/// options' seed and mode): the same answer, without building the world from the scenario.
pub fn violates_on(proto: &Prototype, schedule: &[ScriptEntry], opts: &Options) -> Option<u64> {
    violates_world(world_on(proto, schedule, Some(end_of(schedule, opts.settle_ms)), opts).ok()?, opts)
}

/// `proto`'s world with `script` and `end_ms`, in the options' seed and mode (built from the
/// scenario if the prototype has others).
fn world_on(
    proto: &Prototype,
    script: &[ScriptEntry],
    end_ms: Option<u64>,
    opts: &Options,
) -> Result<World, crate::scenario::ScenarioError> {
    if (proto.seed(), proto.mode()) == (opts.seed, opts.mode) {
        proto.world(script, end_ms)
    } else {
        World::with_mode(&proto.scenario(script, end_ms), opts.seed, opts.mode)
    }
}

/// The end time [`with_schedule`] gives a schedule.
fn end_of(schedule: &[ScriptEntry], settle_ms: u64) -> u64 {
    schedule.iter().map(|e| e.at_ms).max().unwrap_or(0) + settle_ms
}

fn violates_world(mut w: World, opts: &Options) -> Option<u64> {
    w.set_render(false);
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
    s.end_ms = Some(end_of(schedule, settle_ms));
    s
}

/// The faults the explorer may inject on `base`'s cluster; `resets`: also reset each broker's
/// connection to the (pinned, standalone) ZooKeeper server.
fn alphabet(base: &Scenario, operator: bool, resets: bool) -> Vec<Command> {
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
    if resets {
        v.extend(brokers.iter().map(|&b| Command::Reset { a: b, b: NodeId::ZK }));
    }
    v
}

/// The random search resets broker–ZooKeeper connections in ZooKeeper modes (a KRaft broker
/// holds no ZooKeeper connection).
fn resets(mode: Mode) -> bool {
    !mode.behaviour().is_kraft()
}

/// The most a ZooKeeper client sleeps before it reconnects after a lost connection: 1.0's
/// catch-all deletes `/controller` within it of a lost read of the holder.
pub(crate) use crate::zk_client::RECONNECT_SLEEP_MS;

/// How long `elect`'s read of the `/controller` holder is on the wire at most: a round trip
/// between a broker and ZooKeeper, jitter included. A reset aimed at the read lands within it.
fn read_window_ms(base: &Scenario) -> u64 {
    let l = &base.cluster.latency;
    (2 * (l.broker_zk_ms + l.jitter_ms)).max(1)
}

/// Shard `index` of `count`: a disjoint, deterministic part of a search campaign.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// How many shards the campaign has (≥ 1).
    pub count: u32,
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl Shard {
    /// Parses `i/n` (`0 ≤ i < n`).
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard expects i/n with 0 <= i < n and n >= 1, got '{s}'");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The seed of this shard's random stream: shard 0 of 1 is the search seed's own stream;
    /// every other (index, count) pair is mixed into a stream of its own.
    fn stream(self, seed: u64) -> u64 {
        if self.count == 1 {
            return seed ^ 0xE7;
        }
        let mut r =
            Rng::new(seed ^ ((self.count as u64) << 32 | self.index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next_u64()
    }
}

/// A search in progress.
///
/// The random search runs in batches: [`Explorer::next_batch`] draws a batch of candidates from
/// the corpus and the search's random stream, [`Explorer::evaluate`] runs one candidate (a pure
/// function of it: any thread), and [`Explorer::absorb`] takes the outcomes back in index order,
/// updates the corpus and stops at the first violation (then shrinks it). [`Explorer::run`] does
/// the same one candidate at a time, so a browser can yield between slices: the result and the
/// count of schedules tried do not depend on how the work was split.
pub struct Explorer {
    base: Scenario,
    opts: Options,
    rng: Rng,
    alphabet: Vec<Command>,
    brokers: Vec<crate::ids::BrokerId>,
    tried: u64,
    /// Index of the next candidate of the random search (its batches draw from it).
    next_index: u64,
    /// The exhaustive search's tree, once started.
    tree: Option<exhaustive::Exhaustive>,
    found: Option<Counterexample>,
    exhausted: bool,
    moves_triggered: u64,
    corpus: guided::Corpus,
    /// The batch `run` is working through, and the outcomes it has so far.
    pending: Vec<Candidate>,
    done: Vec<Outcome>,
    /// The opening world every candidate's world is made from, built on first use.
    proto: core::cell::OnceCell<Prototype>,
}

impl Explorer {
    /// A search of `base`'s cluster (its script is ignored).
    pub fn new(mut base: Scenario, opts: Options) -> Self {
        base.pin_zookeeper();
        let alphabet = alphabet(&base, opts.operator, resets(opts.mode));
        let rng = Rng::new(opts.shard.stream(opts.seed));
        let brokers = base.cluster.brokers.clone();
        Explorer {
            base,
            opts,
            rng,
            alphabet,
            brokers,
            tried: 0,
            next_index: 0,
            tree: None,
            found: None,
            exhausted: false,
            moves_triggered: 0,
            corpus: guided::Corpus::default(),
            pending: Vec::new(),
            done: Vec::new(),
            proto: core::cell::OnceCell::new(),
        }
    }

    /// The prototype of the searched cluster with the search's seed and mode: every candidate's
    /// world is made from it (the same world [`World::with_mode`] builds from the scenario).
    pub fn prototype(&self) -> &Prototype {
        self.proto.get_or_init(|| Prototype::new(&self.base, self.opts.seed, self.opts.mode))
    }

    /// The cluster searched (ZooKeeper pinned as the search runs it).
    pub fn base(&self) -> &Scenario {
        &self.base
    }

    /// The settings.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Schedules tried so far.
    pub fn tried(&self) -> u64 {
        self.tried + self.done.len() as u64
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
    pub fn run(&mut self, n: u64) -> Option<&Counterexample> {
        for _ in 0..n {
            if self.found.is_some() || self.exhausted {
                break;
            }
            if self.opts.exhaustive {
                let Some((schedule, bad)) = self.next_exhaustive() else {
                    self.exhausted = true;
                    break;
                };
                self.tried += 1;
                // The tree judged the schedule; the replay as a scenario decides.
                if bad && violates_on(self.prototype(), &schedule, &self.opts).is_some() {
                    let seq = |c: &[Vec<ScriptEntry>]| {
                        c.iter().position(|s| violates_on(self.prototype(), s, &self.opts).is_some())
                    };
                    let small = shrink_with(&schedule, &seq);
                    self.found = Some(self.counterexample(schedule.len(), small));
                }
                continue;
            }
            if self.pending.is_empty() {
                self.pending = self.next_batch(BATCH);
            }
            let o = self.evaluate(&self.pending[self.done.len()]);
            let violated = o.facts.violated;
            self.done.push(o);
            if violated || self.done.len() == self.pending.len() {
                self.pending.clear();
                let outcomes = core::mem::take(&mut self.done);
                self.absorb(outcomes);
            }
        }
        self.found.as_ref()
    }

    /// The next batch of up to `limit` (at most [`BATCH`]) candidates of the random search. It
    /// depends only on what was absorbed before, not on how earlier batches were evaluated.
    pub fn next_batch(&mut self, limit: usize) -> Vec<Candidate> {
        // A reset matters only while a read is on the wire (a few tens of ms): mutations place
        // one aimed at such a read, never blindly (the resets end the alphabet).
        let blind = self.alphabet.iter().take_while(|c| !matches!(c, Command::Reset { .. })).count();
        let palette = guided::Palette {
            alphabet: &self.alphabet[..blind],
            brokers: &self.brokers,
            max_faults: self.opts.max_faults,
            operator: self.opts.operator,
            resets: resets(self.opts.mode),
            read_window_ms: read_window_ms(&self.base),
            side_seed: self.opts.shard.stream(self.opts.seed) ^ 0x5E7_0000,
        };
        let b = guided::batch(&self.corpus, &mut self.rng, self.next_index, limit, &palette);
        self.next_index += b.len() as u64;
        b
    }

    /// Runs one candidate: a pure function of the candidate (and the search's cluster and
    /// settings); see [`evaluate`], which any thread can call with the explorer's
    /// [`base`](Explorer::base) and [`options`](Explorer::options).
    pub fn evaluate(&self, c: &Candidate) -> Outcome {
        evaluate_with(Some(self.prototype()), &self.base, &self.opts, c)
    }

    /// Takes back a batch's outcomes (in index order; a prefix of the batch is fine): counts
    /// them up to the first violation, updates the corpus, and shrinks a violation, judging
    /// candidates one at a time.
    pub fn absorb(&mut self, outcomes: Vec<Outcome>) -> Option<&Counterexample> {
        let (proto, opts) = (self.prototype().clone(), self.opts.clone());
        let seq = move |c: &[Vec<ScriptEntry>]| c.iter().position(|s| violates_on(&proto, s, &opts).is_some());
        self.absorb_with(outcomes, &seq)
    }

    /// [`Explorer::absorb`], with the shrinker's rounds judged by `first_violating` (e.g. in
    /// parallel: any judge that returns the index of the first violating schedule gives the same
    /// counterexample).
    pub fn absorb_with(&mut self, outcomes: Vec<Outcome>, first_violating: &FirstViolating) -> Option<&Counterexample> {
        for o in outcomes {
            if self.found.is_some() {
                break;
            }
            self.tried += 1;
            self.moves_triggered += (o.facts.moves_triggered > 0) as u64;
            if o.facts.violated {
                let small = shrink_with(&o.schedule, first_violating);
                self.found = Some(self.counterexample(o.schedule.len(), small));
            } else {
                self.corpus.absorb(&o);
            }
        }
        self.found.as_ref()
    }

    fn counterexample(&self, original_faults: usize, small: Vec<ScriptEntry>) -> Counterexample {
        let steps = violates_on(self.prototype(), &small, &self.opts).unwrap_or(0);
        let mut s = with_schedule(&self.base, &small, self.opts.settle_ms);
        s.name = format!("counterexample-{}", self.opts.property.name());
        let shard = match self.opts.shard {
            Shard { count: 1, .. } => String::new(),
            Shard { index, count } => format!(" --shard {index}/{count}"),
        };
        s.description = format!(
            "Found by `splitbrain explore --mode {} --seed {}{shard}` after {} schedules; shrunk from {} to {} faults.",
            self.opts.mode.name(),
            self.opts.seed,
            self.tried,
            original_faults,
            small.len()
        );
        s.seed = self.opts.seed;
        // The file runs in the mode it was found in (`run` and the playground).
        s.mode = Some(self.opts.mode);
        Counterexample { property: self.opts.property, schedule: small, steps, original_faults, scenario: s }
    }
}

/// Replays `schedule` on `base` and records what the run reached (whether it violates the
/// property included): the judge of a mutated candidate.
fn replay(proto: Option<&Prototype>, base: &Scenario, schedule: &[ScriptEntry], opts: &Options) -> Facts {
    let mut facts = Facts::default();
    let w = match proto {
        Some(p) => world_on(p, schedule, Some(end_of(schedule, opts.settle_ms)), opts),
        None => World::with_mode(&with_schedule(base, schedule, opts.settle_ms), opts.seed, opts.mode),
    };
    let Ok(mut w) = w else { return facts };
    w.set_render(false);
    let mut guard = 0u32;
    while let Some(e) = w.step() {
        facts.observe(&e, &w);
        guard += 1;
        if opts.property == Property::TwoControllers && facts.two_controllers {
            facts.violated = true;
            return facts;
        }
        if guard > 200_000 {
            break;
        }
    }
    facts.violated = opts.property == Property::LeaderMinusOne
        && w.alerts().iter().any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr);
    facts
}

/// Swarm testing (Groce et al.) driven by the run itself, like FoundationDB's buggify or a
/// Jepsen nemesis: a world runs the base cluster, and faults are injected near what is
/// happening (mostly at the broker that just acted), or at a random later time when the
/// cluster is quiet. The injected faults are recorded with their times; that timed schedule is
/// the candidate, judged by an ordinary replay. One online run from the random stream `seed`:
/// the schedule it injected, and what the run reached (`violated`: the run itself went wrong, so
/// only such candidates pay for a replay). `prefix` (faults replayed as they are) and `from_ms`
/// (when injection starts) let a run grow a new tail on a corpus schedule; the batches do not
/// use that yet (a prefix-plus-tail mutation measured worse over seeds 1-12, see the report of
/// issue 12's second search round). With `proto` (a prototype of `base` with the options' seed and
/// mode), the run's world is made from it.
fn swarm_run(
    proto: Option<&Prototype>,
    base: &Scenario,
    opts: &Options,
    seed: u64,
    prefix: &[ScriptEntry],
    from_ms: u64,
) -> (Vec<ScriptEntry>, Facts) {
    let mut rng = Rng::new(seed);
    let mut facts = Facts::default();
    // Faults this run adds after the prefix (at least one when the prefix leaves room).
    let room = opts.max_faults.saturating_sub(prefix.len());
    let k = prefix.len()
        + if prefix.is_empty() {
            2 + rng.up_to(room.saturating_sub(2) as u64) as usize
        } else {
            1 + rng.up_to(room.saturating_sub(1) as u64) as usize
        };
    let k = k.min(opts.max_faults);
    // Swarm: this schedule uses a random subset of fault kinds.
    let kinds = [rng.up_to(3) != 0, rng.up_to(3) != 0, rng.up_to(2) == 0, rng.up_to(2) == 0];
    let per_step = 8 + rng.up_to(40);
    // Half the runs aim at 1.0's window: cut the active controller from ZooKeeper while it is
    // electing leaders (its writes then stall, its session expires, another broker takes over,
    // and ZkClient retries the writes when the link heals).
    let aim = if rng.up_to(1) == 0 { Some(2 + rng.up_to(30)) } else { None };
    // Most runs also finish what they reach: end the leader a landed deposed write named, and
    // bring back an ISR member an ISR removal stranded at leader -1.
    let finish = rng.up_to(3) != 0;
    // Half the runs in a ZooKeeper mode reset a broker's ZooKeeper connection while its `elect`
    // reads the `/controller` holder after NODEEXISTS (1.0 then runs `triggerControllerMove`);
    // drawn from a stream of their own, so a run that aims none injects what it did before.
    let mut side = Rng::new(seed ^ 0x5E7_0000_0000);
    let aim_resets = resets(opts.mode) && side.up_to(1) == 0;
    let window = read_window_ms(base);
    let mut resets_left = 2u32;
    let w = match proto {
        Some(p) => world_on(p, prefix, Some(u64::MAX / 4), opts),
        None => {
            let mut s = base.clone();
            s.script = prefix.to_vec();
            s.end_ms = Some(u64::MAX / 4);
            World::with_mode(&s, opts.seed, opts.mode)
        }
    };
    let Ok(mut w) = w else { return (Vec::new(), facts) };
    w.set_render(false);
    let brokers: Vec<NodeId> = base.cluster.brokers.iter().map(|b| NodeId::Broker(*b)).collect();
    let mut out: Vec<ScriptEntry> = prefix.to_vec();
    let mut steps = 0u32;
    let (mut killed, mut revived) = (false, 0usize);
    let (mut injecting, mut ended) = (true, false);
    while steps < 200_000 {
        injecting &= out.len() < k && steps < 20_000;
        let live = w.now() >= from_ms;
        if injecting && live {
            let quiet = w.next_time().map(|t| t > w.now() + 1_000).unwrap_or(true);
            let act = if quiet { true } else { rng.up_to(per_step) == 0 };
            if act {
                let at = if quiet { w.now() + 500 + 100 * rng.up_to(100) } else { w.now() + 1 };
                let focus = match w.last_node() {
                    Some(NodeId::Broker(b)) if rng.up_to(3) != 0 => NodeId::Broker(b),
                    _ => brokers[rng.up_to(brokers.len() as u64 - 1) as usize],
                };
                if let Some(cmd) = pick(&mut rng, opts, &w, focus, &brokers, kinds) {
                    if w.schedule(at, cmd.clone()).is_ok() {
                        out.push(ScriptEntry { at_ms: at, command: cmd });
                    }
                }
            }
        }
        if !injecting && !ended {
            // Done injecting: the run ends `settle_ms` after its last fault.
            ended = true;
            w.set_end(out.iter().map(|e| e.at_ms).max().unwrap_or(0) + opts.settle_ms);
        }
        let Some(e) = w.step() else { break };
        let reads = facts.owner_reads.len();
        facts.observe(&e, &w);
        steps += 1;
        if opts.property == Property::TwoControllers && facts.two_controllers {
            facts.violated = true;
            crate::sorted::sort_by_key(&mut out, |e| e.at_ms);
            return (out, facts);
        }
        if !live {
            continue;
        }
        // The read was lost: the broker deletes `/controller` once it reconnects. Bring back a
        // broker the run keeps away (cut from ZooKeeper, or crashed) before that, so that it
        // joins the race for the node.
        let lost = e.marks.iter().any(|m| matches!(m, crate::Mark::ControllerOwnerReadLost { .. }));
        if aim_resets && lost && out.len() < opts.max_faults && side.up_to(2) != 0 {
            let cut = w.cut_links();
            let away: Vec<Command> = brokers
                .iter()
                .filter_map(|&node| {
                    let b = node.broker()?;
                    if w.broker(b).is_some_and(|x| !x.alive) {
                        Some(Command::Restart { node })
                    } else if cut.contains(&(NodeId::ZK, node)) {
                        Some(Command::Heal { a: node, b: NodeId::ZK, dir: Direction::Both })
                    } else {
                        None
                    }
                })
                .collect();
            if !away.is_empty() {
                let cmd = away[side.up_to(away.len() as u64 - 1) as usize].clone();
                let at = w.now() + 1 + side.up_to(RECONNECT_SLEEP_MS - 1);
                if w.schedule(at, cmd.clone()).is_ok() {
                    out.push(ScriptEntry { at_ms: at, command: cmd });
                    if ended {
                        w.set_end(at + opts.settle_ms);
                    }
                }
            }
        }
        if aim_resets && resets_left > 0 && facts.owner_reads.len() > reads && out.len() < opts.max_faults {
            let (_, b, server) = facts.owner_reads[reads];
            if side.up_to(1) == 0 {
                let at = w.now() + 1 + side.up_to(window - 1);
                let cmd = Command::Reset { a: NodeId::Broker(b), b: server };
                if w.schedule(at, cmd.clone()).is_ok() {
                    resets_left -= 1;
                    out.push(ScriptEntry { at_ms: at, command: cmd });
                    if ended {
                        w.set_end(at + opts.settle_ms);
                    }
                }
            }
        }
        let mut react: Option<(u64, Command)> = None;
        if let Some(rate) = aim.filter(|_| injecting) {
            let electing = e.marks.iter().find_map(|m| match m {
                crate::Mark::LeaderSelected { controller, .. } => Some(NodeId::Broker(*controller)),
                _ => None,
            });
            if let Some(c) = electing.filter(|c| !w.cut_links().contains(&(NodeId::ZK, *c))) {
                if rng.up_to(rate) == 0 {
                    react = Some((
                        w.now() + 1 + rng.up_to(200),
                        Command::Cut { a: c, b: NodeId::ZK, dir: Direction::Both },
                    ));
                }
            }
        }
        if finish && react.is_none() && out.len() < opts.max_faults {
            if !killed && !facts.deposed.is_empty() {
                killed = true;
                let node = NodeId::Broker(facts.deposed[0].2);
                let cmd = match rng.up_to(1) {
                    0 => Command::Cut { a: node, b: NodeId::ZK, dir: Direction::Both },
                    _ => Command::Crash { node },
                };
                let reach = [50, 2_000, 10_000][rng.up_to(2) as usize];
                react = Some((w.now() + 1 + rng.up_to(reach), cmd));
            } else if revived < facts.stranded.len() {
                let (_, b) = facts.stranded[revived];
                revived += 1;
                let node = NodeId::Broker(b);
                let cmd = if w.broker(b).is_some_and(|x| !x.alive) {
                    Some(Command::Restart { node })
                } else if w.cut_links().contains(&(NodeId::ZK, node)) {
                    Some(Command::Heal { a: node, b: NodeId::ZK, dir: Direction::Both })
                } else {
                    None
                };
                let reach = [50, 2_000, 10_000][rng.up_to(2) as usize];
                react = cmd.map(|c| (w.now() + 1 + rng.up_to(reach), c));
            }
        }
        if let Some((at, cmd)) = react {
            if w.schedule(at, cmd.clone()).is_ok() {
                out.push(ScriptEntry { at_ms: at, command: cmd });
                if ended {
                    w.set_end(at + opts.settle_ms);
                }
            }
        }
    }
    facts.violated = opts.property == Property::LeaderMinusOne
        && w.alerts().iter().any(|a| a.kind == AlertKind::LeaderlessWithLiveIsr);
    crate::sorted::sort_by_key(&mut out, |e| e.at_ms);
    (out, facts)
}

fn pick(
    rng: &mut Rng,
    opts: &Options,
    w: &World,
    focus: NodeId,
    brokers: &[NodeId],
    kinds: [bool; 4],
) -> Option<Command> {
    let cut = w.cut_links();
    let down: Vec<NodeId> =
        brokers.iter().copied().filter(|b| w.broker(b.broker().unwrap_or(-1)).is_some_and(|x| !x.alive)).collect();
    // Drawn only when enabled, so searches without it keep their schedules.
    if opts.operator && rng.up_to(5) == 0 {
        return Some(Command::DeleteController);
    }
    for _ in 0..8 {
        match rng.up_to(3) {
            0 if kinds[0] && !cut.contains(&(NodeId::ZK, focus)) => {
                return Some(Command::Cut { a: focus, b: NodeId::ZK, dir: Direction::Both })
            }
            1 if kinds[1] && !cut.is_empty() => {
                let (a, b) = cut[rng.up_to(cut.len() as u64 - 1) as usize];
                return Some(Command::Heal { a, b, dir: Direction::Both });
            }
            2 if kinds[2] && down.is_empty() => return Some(Command::Crash { node: focus }),
            2 if kinds[2] => return Some(Command::Restart { node: down[0] }),
            _ if kinds[3] => {
                let other = brokers[rng.up_to(brokers.len() as u64 - 1) as usize];
                if other != focus {
                    return Some(Command::Cut { a: focus, b: other, dir: Direction::Both });
                }
            }
            _ => {}
        }
    }
    None
}

/// Runs one candidate of a search of `base` with `opts`: a pure function of its arguments, safe to
/// call from any thread (the explorer itself holds worlds, which are not `Sync`).
pub fn evaluate(base: &Scenario, opts: &Options, c: &Candidate) -> Outcome {
    evaluate_with(None, base, opts, c)
}

/// [`evaluate`] with every world made from `proto` (a prototype of `base`, [pinned](Scenario::pin_zookeeper),
/// with the options' seed and mode), as the explorer does; the same outcome.
pub fn evaluate_on(proto: &Prototype, base: &Scenario, opts: &Options, c: &Candidate) -> Outcome {
    evaluate_with(Some(proto), base, opts, c)
}

fn evaluate_with(proto: Option<&Prototype>, base: &Scenario, opts: &Options, c: &Candidate) -> Outcome {
    let (schedule, mut facts) = match &c.kind {
        CandidateKind::Swarm { seed } => {
            let (schedule, mut facts) = swarm_run(proto, base, opts, *seed, &[], 0);
            // A swarm run is replayed only if its own run went wrong; the replay decides.
            let violated = || match proto {
                Some(p) => violates_on(p, &schedule, opts).is_some(),
                None => violates(base, &schedule, opts).is_some(),
            };
            facts.violated = facts.violated && violated();
            (schedule, facts)
        }
        CandidateKind::Replay { schedule } => (schedule.clone(), replay(proto, base, schedule, opts)),
    };
    crate::sorted::sort(&mut facts.hot);
    Outcome { index: c.index, schedule, facts }
}
