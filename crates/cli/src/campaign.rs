//! `splitbrain campaign`: many random fault schedules across the four modes, natively and in
//! parallel, counting panics (which must be 0) and violations per mode. Not run in CI
//! (`scripts/campaign.sh` runs it; docs/trust.md has the measured figures).
//!
//! Schedule `j` (`0..N`, from `--start`) runs under mode `j % 4` (legacy, 1.1, fenced, kraft), in
//! round `j / 4`. Each schedule is one of the explorer's fresh swarm runs
//! ([`splitbrain_sim::explore::evaluate`] of a [`CandidateKind::Swarm`] candidate: faults injected
//! while the world runs, a violation confirmed by an ordinary replay), with a world seed and a
//! swarm seed derived from (campaign seed, round): the four modes of a round draw from the same
//! streams. Nothing depends on threads or on how the work is split: shard `i/n` takes the rounds
//! `r` with `r % n == i`, so the shards of a campaign together run exactly its schedules.
//!
//! Each schedule runs under [`std::panic::catch_unwind`]: a panic is counted (with the schedule's
//! index, to re-run it alone with `--start J --schedules 1`), and the campaign goes on. That needs
//! a build that unwinds: the release profile aborts on panic, so the campaign has its own profile
//! (`cargo build --profile campaign`), and refuses to run in a build that aborts.
use rayon::prelude::*;
use splitbrain_sim::explore::{evaluate, Candidate, CandidateKind, Explorer, Options, Property, Shard};
use splitbrain_sim::rng::Rng;
use splitbrain_sim::{Mode, Scenario};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What to run ([`Campaign::new`]).
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The cluster searched, prepared as the explorer prepares it ([`Explorer::base`]).
    base: Scenario,
    /// Schedules in all (this shard runs its part of them).
    pub schedules: u64,
    /// The first schedule's index (to re-run one schedule alone).
    pub start: u64,
    /// The campaign's seed.
    pub seed: u64,
    /// This shard.
    pub shard: Shard,
}

/// One mode's tally.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Schedules run.
    pub schedules: u64,
    /// Schedules that panicked.
    pub panics: u64,
    /// Schedules that end at leader -1 with a live ISR member after the settle time (the
    /// explorer's `leader-minus-one`, confirmed by a replay of the schedule).
    pub leader_minus_one: u64,
    /// Schedules whose run had two live brokers acting as controller at some step (the
    /// explorer's `two-controllers`: [`splitbrain_sim::AlertKind::MultipleControllers`]).
    pub two_controllers: u64,
}

/// A schedule that panicked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panic {
    /// Its index in the campaign.
    pub index: u64,
    /// Its mode.
    pub mode: Mode,
    /// The panic's message.
    pub message: String,
}

/// What a campaign (or one slice of it) found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Per mode, in [`Mode::ALL`]'s order.
    pub modes: [Tally; 4],
    /// The first [`MAX_PANICS_KEPT`] panics, by index.
    pub panics: Vec<Panic>,
}

/// Panics kept with their message (all are counted).
pub const MAX_PANICS_KEPT: usize = 20;

impl Report {
    /// Schedules run, all modes.
    pub fn schedules(&self) -> u64 {
        self.modes.iter().map(|t| t.schedules).sum()
    }

    /// Panics, all modes.
    pub fn panic_count(&self) -> u64 {
        self.modes.iter().map(|t| t.panics).sum()
    }

    fn merge(&mut self, other: Report) {
        for (a, b) in self.modes.iter_mut().zip(other.modes) {
            a.schedules += b.schedules;
            a.panics += b.panics;
            a.leader_minus_one += b.leader_minus_one;
            a.two_controllers += b.two_controllers;
        }
        self.panics.extend(other.panics);
        self.panics.sort_by_key(|p| p.index);
        self.panics.truncate(MAX_PANICS_KEPT);
    }
}

/// The mode of schedule `j`.
pub fn mode_of(j: u64) -> Mode {
    Mode::ALL[(j % Mode::ALL.len() as u64) as usize]
}

/// The (world seed, swarm seed) of round `round` of a campaign seeded `seed`.
pub fn seeds_of(seed: u64, round: u64) -> (u64, u64) {
    let mut r = Rng::new(seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xCA3B_A160);
    (r.next_u64(), r.next_u64())
}

/// What one schedule gave.
enum Verdict {
    Ran { leader_minus_one: bool, two_controllers: bool },
    Panicked(String),
}

fn one(base: &Scenario, seed: u64, j: u64) -> Verdict {
    let round = j / Mode::ALL.len() as u64;
    let (world_seed, swarm_seed) = seeds_of(seed, round);
    let opts = Options { mode: mode_of(j), seed: world_seed, property: Property::LeaderMinusOne, ..Options::default() };
    let c = Candidate { index: round, kind: CandidateKind::Swarm { seed: swarm_seed } };
    match catch_unwind(AssertUnwindSafe(|| evaluate(base, &opts, &c))) {
        Ok(o) => Verdict::Ran { leader_minus_one: o.facts.violated, two_controllers: o.facts.two_controllers },
        Err(payload) => Verdict::Panicked(
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| String::from("(a panic without a message)")),
        ),
    }
}

/// True when this build turns a panic into an unwind that [`catch_unwind`] can count.
pub fn can_count_panics() -> bool {
    cfg!(panic = "unwind")
}

impl Campaign {
    /// A campaign on `scenario`'s cluster (its script is ignored), prepared as
    /// `splitbrain explore` prepares it: one standalone ZooKeeper server.
    pub fn new(scenario: Scenario, schedules: u64, start: u64, seed: u64, shard: Shard) -> Campaign {
        let base = Explorer::new(scenario, Options::default()).base().clone();
        Campaign { base, schedules, start, seed, shard }
    }

    /// The indices this shard runs, in order.
    pub fn indices(&self) -> impl Iterator<Item = u64> + '_ {
        let modes = Mode::ALL.len() as u64;
        (self.start..self.start.saturating_add(self.schedules))
            .filter(move |j| (j / modes) % self.shard.count as u64 == self.shard.index as u64)
    }

    /// Runs the schedules `indices` (on the current rayon pool) and tallies them. The panic hook is
    /// silenced meanwhile (a panic is reported in the tally, with its message), then restored.
    pub fn run_slice(&self, indices: &[u64]) -> Report {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let verdicts: Vec<(u64, Verdict)> = indices.par_iter().map(|&j| (j, one(&self.base, self.seed, j))).collect();
        std::panic::set_hook(hook);
        let mut r = Report::default();
        for (j, v) in verdicts {
            let m = (j % Mode::ALL.len() as u64) as usize;
            let t = &mut r.modes[m];
            t.schedules += 1;
            match v {
                Verdict::Ran { leader_minus_one, two_controllers } => {
                    t.leader_minus_one += leader_minus_one as u64;
                    t.two_controllers += two_controllers as u64;
                }
                Verdict::Panicked(message) => {
                    t.panics += 1;
                    if r.panics.len() < MAX_PANICS_KEPT {
                        r.panics.push(Panic { index: j, mode: mode_of(j), message });
                    }
                }
            }
        }
        r
    }

    /// Runs the whole shard in slices of `slice` schedules, calling `progress` after each with the
    /// report so far.
    pub fn run(&self, slice: usize, mut progress: impl FnMut(&Report)) -> Report {
        let mut total = Report::default();
        let mut it = self.indices().peekable();
        while it.peek().is_some() {
            let chunk: Vec<u64> = it.by_ref().take(slice.max(1)).collect();
            total.merge(self.run_slice(&chunk));
            progress(&total);
        }
        total
    }
}
