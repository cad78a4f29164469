//! The feedback-guided swarm: a small corpus of the schedules whose runs came closest to the split
//! brain (ranked by [`Facts::score`]), and the batches of candidates drawn from it — mostly
//! mutations of corpus entries (shift a fault by a few or a few hundred ms, insert a fault near a
//! hot spot of the parent's run, change a fault's kind, delete one, or a finisher: end the leader
//! a deposed write named, bring back a stranded ISR member, or repair a deposed write that could
//! not end at -1 as it landed), plus fresh swarm runs.
//!
//! A batch depends only on the corpus and the search's own random stream, never on the outcomes
//! of its own members, so its candidates can be evaluated on any number of threads and absorbed
//! in index order with the same result (see [`super::Explorer::next_batch`]).
use super::facts::Facts;
use crate::command::{Command, Direction};
use crate::ids::{BrokerId, NodeId};
use crate::rng::Rng;
use crate::scenario::ScriptEntry;
use alloc::vec::Vec;

/// Candidates per batch. Fixed (not the thread count), so results do not depend on threads.
pub const BATCH: usize = 16;
/// Schedules kept in the corpus.
const CORPUS: usize = 8;

/// One schedule to try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its position in the search (0, 1, 2, … within this shard).
    pub index: u64,
    /// What to run.
    pub kind: CandidateKind,
}

/// How a candidate's schedule comes about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CandidateKind {
    /// A fresh online swarm run from this random seed: faults injected while the world runs.
    Swarm {
        /// The run's own random stream.
        seed: u64,
    },
    /// A fixed schedule (a mutation of a corpus entry), judged by an ordinary replay.
    Replay {
        /// The schedule.
        schedule: Vec<ScriptEntry>,
    },
}

/// What evaluating a candidate gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The candidate's index.
    pub index: u64,
    /// The schedule that ran (a swarm run's injected faults, sorted by time).
    pub schedule: Vec<ScriptEntry>,
    /// What the run reached.
    pub facts: Facts,
}

struct Entry {
    schedule: Vec<ScriptEntry>,
    facts: Facts,
    score: u32,
}

/// The best schedules so far.
#[derive(Default)]
pub(crate) struct Corpus {
    entries: Vec<Entry>,
}

impl Corpus {
    /// Keeps `o` if it scores above zero and beats the worst entry (ties: the earlier stays).
    pub(crate) fn absorb(&mut self, o: &Outcome) {
        let score = o.facts.score();
        if score == 0 || o.schedule.is_empty() || self.entries.iter().any(|e| e.schedule == o.schedule) {
            return;
        }
        // Diversity: at most two entries per score, so one lineage of near-copies cannot fill it.
        if self.entries.iter().filter(|e| e.score == score).count() >= 2 {
            return;
        }
        if self.entries.len() == CORPUS {
            if self.entries.last().is_some_and(|w| w.score >= score) {
                return;
            }
            self.entries.pop();
        }
        let at = self.entries.iter().position(|e| e.score < score).unwrap_or(self.entries.len());
        self.entries.insert(at, Entry { schedule: o.schedule.clone(), facts: o.facts.clone(), score });
    }

    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// An entry, biased towards the best (the better of two uniform draws).
    fn pick(&self, rng: &mut Rng) -> &Entry {
        let n = self.entries.len() as u64 - 1;
        let i = rng.up_to(n).min(rng.up_to(n));
        &self.entries[i as usize]
    }
}

/// What a mutation may use: the fault alphabet and the brokers.
pub(crate) struct Palette<'a> {
    pub alphabet: &'a [Command],
    pub brokers: &'a [BrokerId],
    pub max_faults: usize,
    pub operator: bool,
    /// Resets of broker–ZooKeeper connections are in the alphabet (ZooKeeper modes).
    pub resets: bool,
    /// How long a broker's read of the `/controller` holder is on the wire at most, ms.
    pub read_window_ms: u64,
    /// The seed of the side streams aimed resets are drawn from (one per candidate).
    pub side_seed: u64,
}

/// The next batch: up to `limit` (≤ [`BATCH`]) candidates numbered from `first`.
pub(crate) fn batch(corpus: &Corpus, rng: &mut Rng, first: u64, limit: usize, p: &Palette) -> Vec<Candidate> {
    (0..limit.min(BATCH) as u64)
        .map(|k| {
            let fresh = corpus.is_empty() || rng.up_to(3) == 0;
            let kind = if fresh {
                CandidateKind::Swarm { seed: rng.next_u64() }
            } else {
                let parent = corpus.pick(rng);
                let mut schedule = mutate(&parent.schedule, &parent.facts, rng, p);
                // From a stream of the candidate's own, so the mutation above is drawn as before.
                let mut side = Rng::new(p.side_seed ^ (first + k).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                aim_reset(&mut schedule, &parent.facts, &mut side, p);
                CandidateKind::Replay { schedule }
            };
            Candidate { index: first + k, kind }
        })
        .collect()
}

/// One to three mutations of `schedule`.
fn mutate(schedule: &[ScriptEntry], facts: &Facts, rng: &mut Rng, p: &Palette) -> Vec<ScriptEntry> {
    let mut s = schedule.to_vec();
    for _ in 0..=rng.up_to(2) {
        let len = s.len() as u64;
        // A parent whose run let a deposed controller's write land: end the leader it wrote (the
        // active controller's ISR removal then reads that leader from ZooKeeper and writes -1).
        if !facts.deposed.is_empty() && rng.up_to(1) == 0 {
            let (t, _, leader) = facts.deposed[rng.up_to(facts.deposed.len() as u64 - 1) as usize];
            // Half the time keep only the faults up to the write: a later fault that moves the
            // active controller again would let the next one read ZooKeeper afresh and heal it.
            if rng.up_to(1) == 0 {
                s.retain(|e| e.at_ms <= t);
            }
            make_room(&mut s, rng, p);
            let victim = if leader < 0 || rng.up_to(3) == 0 {
                p.brokers[rng.up_to(p.brokers.len() as u64 - 1) as usize]
            } else {
                leader
            };
            let node = NodeId::Broker(victim);
            let command = match rng.up_to(2) {
                0 => Command::Cut { a: node, b: NodeId::ZK, dir: Direction::Both },
                _ => Command::Crash { node },
            };
            let reach = [50, 2_000, 10_000][rng.up_to(2) as usize];
            let at = t + rng.up_to(reach);
            s.push(ScriptEntry { at_ms: at, command });
            continue;
        }
        // A parent whose deposed write landed but could not end at -1: repair the moment it
        // lands. No controller active then: bring back a broker the schedule had cut from
        // ZooKeeper or crashed, shortly before, so that it wins `/controller` first. The write
        // named the active controller: move the controller off it shortly before, so that the
        // write names a leader that the next controller has already replaced.
        if facts.deposed.is_empty() && !facts.unfit.is_empty() && rng.up_to(1) == 0 {
            let (t, from, leader, active) = facts.unfit[rng.up_to(facts.unfit.len() as u64 - 1) as usize];
            let reach = [300, 2_000, 6_000][rng.up_to(2) as usize];
            let before = t.saturating_sub(rng.up_to(reach)).max(1);
            let command = match active {
                None => {
                    let down: Vec<Command> =
                        away_at(&s, t).into_iter().filter(|(b, _)| *b != from).map(|(_, c)| c).collect();
                    (!down.is_empty()).then(|| down[rng.up_to(down.len() as u64 - 1) as usize].clone())
                }
                Some(c) if c == leader || c == from => {
                    let node = NodeId::Broker(c);
                    Some(match rng.up_to(1) {
                        0 => Command::Cut { a: node, b: NodeId::ZK, dir: Direction::Both },
                        _ => Command::Crash { node },
                    })
                }
                Some(_) => None,
            };
            if let Some(command) = command {
                make_room(&mut s, rng, p);
                s.push(ScriptEntry { at_ms: before, command });
                continue;
            }
        }
        // A parent whose run wrote leader -1 over a dead ISR member: bring that member back.
        if !facts.stranded.is_empty() && rng.up_to(2) == 0 {
            make_room(&mut s, rng, p);
            let (t, b) = facts.stranded[rng.up_to(facts.stranded.len() as u64 - 1) as usize];
            let node = NodeId::Broker(b);
            let command = match rng.up_to(1) {
                0 => Command::Heal { a: node, b: NodeId::ZK, dir: Direction::Both },
                _ => Command::Restart { node },
            };
            let reach = [50, 2_000, 10_000][rng.up_to(2) as usize];
            s.push(ScriptEntry { at_ms: t + rng.up_to(reach), command });
            continue;
        }
        match rng.up_to(9) {
            // Shift one fault: a few ms (which message of a burst it lands between) or a few
            // hundred (which phase of a failover).
            0..=2 if len > 0 => {
                let i = rng.up_to(len - 1) as usize;
                let d = if rng.up_to(1) == 0 { 1 + rng.up_to(30) } else { 30 + rng.up_to(1_500) };
                let at = &mut s[i].at_ms;
                *at = if rng.up_to(1) == 0 { *at + d } else { at.saturating_sub(d).max(1) };
            }
            // Insert a fault near a hot spot of the parent's run, aimed at the broker it concerns.
            3..=5 if s.len() < p.max_faults => {
                let (t, b) = match facts.hot.len() {
                    0 => (rng.up_to(s.iter().map(|e| e.at_ms).max().unwrap_or(0) + 5_000), p.brokers[0]),
                    n => facts.hot[rng.up_to(n as u64 - 1) as usize],
                };
                let reach = [40, 400, 4_000, 12_000][rng.up_to(3) as usize];
                let at = t + rng.up_to(reach);
                let command = aimed(b, rng, p);
                s.push(ScriptEntry { at_ms: at.max(1), command });
            }
            // Change one fault's kind.
            6 if len > 0 => {
                let i = rng.up_to(len - 1) as usize;
                s[i].command = p.alphabet[rng.up_to(p.alphabet.len() as u64 - 1) as usize].clone();
            }
            // Delete one fault.
            7 | 8 if len > 1 => {
                s.remove(rng.up_to(len - 1) as usize);
            }
            // Otherwise add a random fault at a random time within the schedule's span.
            _ if s.len() < p.max_faults => {
                let last = s.iter().map(|e| e.at_ms).max().unwrap_or(0);
                let command = p.alphabet[rng.up_to(p.alphabet.len() as u64 - 1) as usize].clone();
                s.push(ScriptEntry { at_ms: 1 + rng.up_to(last + 2_000), command });
            }
            _ => {}
        }
    }
    crate::sorted::sort_by_key(&mut s, |e| e.at_ms);
    s
}

/// One mutation in three of a parent whose run had a broker read the `/controller` holder after
/// NODEEXISTS: reset that broker's ZooKeeper connection while the read is on the wire (1.0's
/// `elect` then runs `triggerControllerMove` and deletes whoever holds `/controller`).
fn aim_reset(s: &mut Vec<ScriptEntry>, facts: &Facts, rng: &mut Rng, p: &Palette) {
    if !p.resets || facts.owner_reads.is_empty() || rng.up_to(2) != 0 {
        return;
    }
    let (t, b, server) = facts.owner_reads[rng.up_to(facts.owner_reads.len() as u64 - 1) as usize];
    // Faults after the read change what the parent's run did there; keep them half the time.
    if rng.up_to(1) == 0 {
        s.retain(|e| e.at_ms <= t);
    }
    make_room(s, rng, p);
    let at = t + 1 + rng.up_to(p.read_window_ms.saturating_sub(1));
    // Half the time also bring back a broker the schedule keeps away then, within the reconnect
    // sleep after which the lost read's broker deletes `/controller`, so that it joins the race.
    let back: Vec<Command> = away_at(s, at).into_iter().filter(|(x, _)| *x != b).map(|(_, c)| c).collect();
    s.push(ScriptEntry { at_ms: at, command: Command::Reset { a: NodeId::Broker(b), b: server } });
    if !back.is_empty() && rng.up_to(1) == 0 {
        make_room(s, rng, p);
        let command = back[rng.up_to(back.len() as u64 - 1) as usize].clone();
        s.push(ScriptEntry { at_ms: at + rng.up_to(super::RECONNECT_SLEEP_MS - 1), command });
    }
    crate::sorted::sort_by_key(s, |e| e.at_ms);
}

/// The brokers `schedule` has cut from ZooKeeper or crashed by time `t`, each with the fault that
/// brings it back (a heal or a restart).
fn away_at(schedule: &[ScriptEntry], t: u64) -> Vec<(BrokerId, Command)> {
    let mut away: Vec<(BrokerId, Command)> = Vec::new();
    let mut sorted: Vec<&ScriptEntry> = schedule.iter().filter(|e| e.at_ms < t).collect();
    crate::sorted::sort_by_key(&mut sorted, |e| e.at_ms);
    for e in sorted {
        match &e.command {
            Command::Cut { a: NodeId::Broker(b), b: NodeId::ZK, .. }
            | Command::Cut { a: NodeId::ZK, b: NodeId::Broker(b), .. } => {
                let node = NodeId::Broker(*b);
                away.retain(|x| x.0 != *b);
                away.push((*b, Command::Heal { a: node, b: NodeId::ZK, dir: Direction::Both }));
            }
            Command::Crash { node: NodeId::Broker(b) } => {
                away.retain(|x| x.0 != *b);
                away.push((*b, Command::Restart { node: NodeId::Broker(*b) }));
            }
            Command::Heal { a: NodeId::Broker(b), b: NodeId::ZK, .. }
            | Command::Heal { a: NodeId::ZK, b: NodeId::Broker(b), .. }
            | Command::Restart { node: NodeId::Broker(b) } => away.retain(|x| x.0 != *b),
            _ => {}
        }
    }
    away
}

/// Drops a random fault when the schedule is full (a finishing fault matters more).
fn make_room(s: &mut Vec<ScriptEntry>, rng: &mut Rng, p: &Palette) {
    while s.len() >= p.max_faults.max(1) {
        s.remove(rng.up_to(s.len() as u64 - 1) as usize);
    }
}

/// A fault aimed at broker `b` (two times in three), else any fault of the alphabet.
fn aimed(b: BrokerId, rng: &mut Rng, p: &Palette) -> Command {
    let node = NodeId::Broker(b);
    match rng.up_to(if p.operator { 6 } else { 5 }) {
        0 | 1 => Command::Cut { a: node, b: NodeId::ZK, dir: Direction::Both },
        2 => Command::Heal { a: node, b: NodeId::ZK, dir: Direction::Both },
        3 => Command::Crash { node },
        6 => Command::DeleteController,
        _ => p.alphabet[rng.up_to(p.alphabet.len() as u64 - 1) as usize].clone(),
    }
}
