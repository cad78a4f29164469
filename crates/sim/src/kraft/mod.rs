//! A simplified KRaft (KIP-500/595/631), to run the same faults without ZooKeeper: three
//! controller voters (`q1..q3`) elect a leader per epoch with Raft's rules (one vote per epoch,
//! the candidate's log at least as up to date — `UnattachedState.canGrantVote`), replicate a
//! metadata log and commit it at a majority with an entry of the leader's own epoch
//! (`LeaderState.maybeUpdateHighWatermark`); a leader that loses its majority resigns (check
//! quorum, KAFKA-15489). The active controller fences a broker whose heartbeats lapse for
//! `broker.session.timeout.ms` and, in the same batch, rewrites each of its partitions' ISR and
//! leader together (`ReplicationControlManager.handleBrokerFenced`, `PartitionChangeBuilder`);
//! unfencing elects leaders for leaderless partitions (`handleBrokerUnfenced`). Brokers learn
//! only committed records from the leader.
//!
//! Simplifications: replication is pushed by the leader when there is something new (standing
//! for followers' Fetch long-polls); heartbeats are implicit while a link is up, so an idle
//! cluster produces no events; no snapshots, no reconfiguration, no ELR.
//!
//! Sans-IO, like the brokers: each handler runs one voter (`on_message`, `on_timer`; `on_change`
//! re-derives every voter's liveness timers) and writes that voter's ordinary
//! [`Outbox`]; the world routes it. What a voter would learn from heartbeats and fetches comes in
//! as a [`Reach`] the world computes from its network, and the randomised election timeout is
//! asked of a [`Draw`] (the world answers from its one PRNG, in the order asked).
//!
//! Layout: [`record`] holds the metadata records and the image they fold into (all the message
//! layer needs); this module the quorum. A broker's side (applying committed records to its own
//! image, metadata cache and local partitions) is the broker's: `broker/metadata_listener.rs`.
//! Who may call it: the world, only through the control-plane seam (`world/control_plane/`),
//! and read-only the views, lanes and tools.

pub mod record;
#[cfg(test)]
mod tests;

pub use record::{Entry, Image, Part, Record};

use crate::effects::{Outbox, Timer};
use crate::event::EventKind;
use crate::ids::{BrokerId, NodeId, NO_LEADER};
use crate::mark::Mark;
use crate::message::Payload;
use crate::scenario::Config;
use crate::sorted::CollectOrdered;
use crate::vec_map::{VecMap, VecSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Number of controller voters ([`crate::mode::KRAFT_VOTERS`]).
pub const VOTERS: u32 = crate::mode::KRAFT_VOTERS;
/// `quorum.fetch.timeout.ms`.
pub const FETCH_TIMEOUT_MS: u64 = 2000;
/// `quorum.election.timeout.ms` (randomised to `[T, 2T)`).
pub const ELECTION_TIMEOUT_MS: u64 = 1000;
/// `broker.session.timeout.ms`.
pub const BROKER_SESSION_MS: u64 = 9000;

/// Raft role.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Following a known leader.
    Follower,
    /// No leader known (after a resignation or a higher epoch).
    Unattached,
    /// Asking for votes.
    Candidate,
    /// Leader of its epoch.
    Leader,
}

impl Role {
    /// The snake_case word.
    pub fn name(self) -> &'static str {
        match self {
            Role::Follower => "follower",
            Role::Unattached => "unattached",
            Role::Candidate => "candidate",
            Role::Leader => "leader",
        }
    }
}

/// A controller voter.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Voter {
    /// Voter id.
    pub id: u32,
    /// Process running.
    pub alive: bool,
    /// Role.
    pub role: Role,
    /// Current epoch.
    pub epoch: u32,
    /// Vote cast in this epoch.
    pub voted_for: Option<u32>,
    /// Known leader in this epoch.
    pub leader: Option<u32>,
    /// The log.
    pub log: Vec<Entry>,
    /// Committed entries (the high watermark).
    pub commit: usize,
    /// The image of the committed log.
    pub image: Image,
    votes: VecSet<u32>,
    matched: VecMap<u32, usize>,
    /// (log length, high watermark) last sent to each follower: nothing is re-sent until one grows.
    sent: VecMap<u32, (usize, usize)>,
    sent_to_broker: VecMap<BrokerId, usize>,
    /// Bumped to invalidate pending election timers.
    pub timer_gen: u64,
    timer_armed: bool,
}

fn voter_node(v: u32) -> NodeId {
    NodeId::Voter(v)
}

/// The quorum and the active controller's bookkeeping.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Kraft {
    /// Voters by id.
    pub voters: VecMap<u32, Voter>,
    /// Leader of each epoch ever elected (the "one leader per epoch" property).
    pub epoch_leaders: VecMap<u32, VecSet<u32>>,
    fence_armed: VecSet<BrokerId>,
    quorum_check_armed: bool,
}

/// What the voters learn from outside when they run: who can talk to whom right now and which
/// brokers' processes run (heartbeats and fetches are implicit while a link is up, so this stands
/// for them). The world computes it from its network; a test writes it by hand.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Reach {
    /// Voter → voter directions that are up.
    voter_links: VecSet<(u32, u32)>,
    /// Every broker, and whether its process runs.
    brokers: VecMap<BrokerId, bool>,
    /// (broker, voter) pairs linked both ways.
    broker_links: VecSet<(BrokerId, u32)>,
}

impl Reach {
    /// The reach of `voters` and `brokers` (id → process running) when `up(from, to)` says
    /// whether the direction `from → to` is up.
    pub fn new(
        voters: impl IntoIterator<Item = u32> + Clone,
        brokers: &VecMap<BrokerId, bool>,
        up: impl Fn(NodeId, NodeId) -> bool,
    ) -> Reach {
        let mut r = Reach { brokers: brokers.clone(), ..Reach::default() };
        for a in voters.clone() {
            for b in voters.clone() {
                if up(voter_node(a), voter_node(b)) {
                    r.voter_links.insert((a, b));
                }
            }
            for b in brokers.keys() {
                if up(NodeId::Broker(*b), voter_node(a)) && up(voter_node(a), NodeId::Broker(*b)) {
                    r.broker_links.insert((*b, a));
                }
            }
        }
        r
    }

    /// The direction voter `from` → voter `to` is up.
    pub fn sends(&self, from: u32, to: u32) -> bool {
        self.voter_links.contains(&(from, to))
    }

    /// Voters `a` and `b` are linked both ways.
    pub fn talk(&self, a: u32, b: u32) -> bool {
        self.sends(a, b) && self.sends(b, a)
    }

    /// Broker `b` runs and is linked both ways with voter `v` (its heartbeats arrive).
    pub fn contact(&self, b: BrokerId, v: u32) -> bool {
        self.brokers.get(&b).copied().unwrap_or(false) && self.broker_links.contains(&(b, v))
    }

    /// Every broker, and whether its process runs.
    pub fn brokers(&self) -> impl Iterator<Item = (BrokerId, bool)> + '_ {
        self.brokers.iter().map(|(b, a)| (*b, *a))
    }
}

/// A source of random numbers a voter asks for its randomised election timeout
/// (`QuorumState.randomElectionTimeoutMs`): given `max`, a value in `0..=max`. The world draws
/// them from its one PRNG when asked, so the order of draws is the handlers' own.
pub type Draw<'a> = &'a mut dyn FnMut(u64) -> u64;

impl Kraft {
    /// A settled quorum: q1 leads epoch 1; every broker registered and unfenced; every partition
    /// led by its first replica with the full ISR.
    pub fn new(cfg: &Config) -> Self {
        let mut log = alloc::vec![Entry { epoch: 1, record: Rc::new(Record::LeaderChange { leader: 1, epoch: 1 }) }];
        for b in &cfg.brokers {
            log.push(Entry { epoch: 1, record: Rc::new(Record::RegisterBroker { broker: *b }) });
        }
        for (tp, replicas) in &cfg.assignment {
            let (le, _) = cfg.initial[tp];
            log.push(Entry {
                epoch: 1,
                record: Rc::new(Record::partition(tp.clone(), replicas.clone(), replicas.clone(), replicas[0], le, le)),
            });
        }
        let mut image = Image::default();
        for e in &log {
            image.apply(&e.record);
        }
        let n = log.len();
        let voters = (1..=VOTERS)
            .map(|id| {
                (
                    id,
                    Voter {
                        id,
                        alive: true,
                        role: if id == 1 { Role::Leader } else { Role::Follower },
                        epoch: 1,
                        voted_for: Some(1),
                        leader: Some(1),
                        log: log.clone(),
                        commit: n,
                        image: image.clone(),
                        votes: VecSet::new(),
                        matched: (1..=VOTERS).map(|v| (v, n)).collect_ordered(),
                        sent: (1..=VOTERS).map(|v| (v, (n, n))).collect_ordered(),
                        sent_to_broker: cfg.brokers.iter().map(|b| (*b, n)).collect_ordered(),
                        timer_gen: 0,
                        timer_armed: false,
                    },
                )
            })
            .collect_ordered();
        let mut epoch_leaders = VecMap::new();
        epoch_leaders.insert(1, [1u32].into_iter().collect_ordered());
        Kraft { voters, epoch_leaders, fence_armed: VecSet::new(), quorum_check_armed: false }
    }

    /// The active controller: a leader whose own-epoch record is committed.
    pub fn active(&self) -> Option<&Voter> {
        self.voters
            .values()
            .filter(|v| v.alive && v.role == Role::Leader && v.commit_in_own_epoch())
            .max_by_key(|v| v.epoch)
    }

    /// Live voters that believe they lead.
    pub fn leaders(&self) -> Vec<u32> {
        self.voters.values().filter(|v| v.alive && v.role == Role::Leader).map(|v| v.id).collect()
    }

    /// The most advanced committed image.
    pub fn image(&self) -> &Image {
        let v = self.voters.values().max_by_key(|v| (v.commit, v.epoch)).expect("voters");
        &v.image
    }

    fn majority() -> usize {
        (VOTERS as usize) / 2 + 1
    }

    /// Re-derives every liveness timer after a change of links or processes (implicit
    /// heartbeats: a follower notices a silent leader after the fetch timeout, a leader without a
    /// majority resigns, a broker out of touch with the active controller is fenced).
    ///
    /// Returns each voter's effects, in the order the world must apply them (a run's random draws
    /// and message jitter follow that order).
    pub fn on_change(&mut self, reach: &Reach, draw: Draw<'_>) -> Vec<(u32, Outbox)> {
        let mut outs: Vec<(u32, Outbox)> = Vec::new();
        let leaders: Vec<u32> = self.leaders();
        let ids: Vec<u32> = self.voters.keys().copied().collect();
        for id in ids {
            let v = &self.voters[&id];
            if !v.alive || v.role == Role::Leader {
                continue;
            }
            let leader_ok = v.leader.is_some_and(|l| {
                self.voters.get(&l).is_some_and(|lv| lv.alive && lv.role == Role::Leader && lv.epoch == v.epoch)
                    && reach.talk(id, l)
            });
            if !leader_ok && !v.timer_armed {
                let wait = if v.role == Role::Candidate {
                    ELECTION_TIMEOUT_MS + draw(ELECTION_TIMEOUT_MS - 1)
                } else {
                    FETCH_TIMEOUT_MS
                };
                let vm = self.voters.get_mut(&id).expect("voter");
                vm.timer_armed = true;
                vm.timer_gen += 1;
                let mut out = Outbox::default();
                out.timer(wait, Timer::RaftElection { gen: vm.timer_gen });
                outs.push((id, out));
            }
        }
        // A leader re-sends what a follower it can reach again has not acknowledged.
        for l in leaders.iter().copied() {
            let to: VecSet<u32> = (1..=VOTERS).filter(|o| reach.sends(l, *o)).collect_ordered();
            let mut out = Outbox::default();
            self.replicate_to(l, &to, &mut out);
            outs.push((l, out));
        }
        for l in leaders {
            if self.reachable(reach, l) < Self::majority() && !self.quorum_check_armed {
                self.quorum_check_armed = true;
                let mut out = Outbox::default();
                out.timer(FETCH_TIMEOUT_MS * 3 / 2, Timer::RaftCheckQuorum);
                outs.push((l, out));
            }
        }
        if let Some(a) = self.active().map(|a| a.id) {
            let img = self.voters[&a].image.clone();
            let mut out = Outbox::default();
            for (b, _) in reach.brokers() {
                let contact = reach.contact(b, a);
                if !contact && !img.fenced.contains(&b) && self.fence_armed.insert(b) {
                    out.timer(BROKER_SESSION_MS, Timer::FenceCheck { broker: b });
                }
                if contact
                    && img.fenced.contains(&b)
                    && !self.voters[&a].log[self.voters[&a].commit..]
                        .iter()
                        .any(|e| *e.record == Record::UnfenceBroker { broker: b })
                {
                    self.unfence(a, b, &mut out);
                }
            }
            self.push_metadata(a, reach, &mut out);
            outs.push((a, out));
        }
        outs.retain(|(_, out)| !out.effects.is_empty());
        outs
    }

    /// Voters leader `l` can count on: itself and each live voter it is linked with both ways.
    fn reachable(&self, reach: &Reach, l: u32) -> usize {
        self.voters.values().filter(|v| v.id == l || (v.alive && reach.talk(l, v.id))).count()
    }

    /// A timer of voter `id` fired; its effects go to `out`.
    pub fn on_timer(&mut self, id: u32, t: &Timer, reach: &Reach, draw: Draw<'_>, out: &mut Outbox) {
        match t {
            Timer::RaftElection { gen } => {
                let v = self.voters.get_mut(&id).expect("voter");
                if !v.alive || *gen != v.timer_gen || v.role == Role::Leader {
                    return;
                }
                v.timer_armed = false;
                let leader_ok = v.leader.is_some_and(|l| reach.talk(id, l)) && v.role == Role::Follower;
                let lid = v.leader;
                if leader_ok && lid.is_some_and(|l| self.voters[&l].alive && self.voters[&l].role == Role::Leader) {
                    return;
                }
                let v = self.voters.get_mut(&id).expect("voter");
                v.epoch += 1;
                v.role = Role::Candidate;
                v.voted_for = Some(id);
                v.leader = None;
                v.votes = [id].into_iter().collect_ordered();
                let (le, li) = v.last();
                let epoch = v.epoch;
                out.log(EventKind::ControllerElected, || format!("[RaftManager nodeId=q{id}] No leader heard for {FETCH_TIMEOUT_MS} ms: candidate for epoch {epoch} (last log epoch {le}, offset {li})"));
                for o in 1..=VOTERS {
                    if o != id {
                        out.send(
                            voter_node(o),
                            Payload::RaftVote { epoch, candidate: id, last_epoch: le, last_index: li as u64 },
                        );
                    }
                }
                let v = self.voters.get_mut(&id).expect("voter");
                v.timer_armed = true;
                v.timer_gen += 1;
                let wait = ELECTION_TIMEOUT_MS + draw(ELECTION_TIMEOUT_MS - 1);
                out.timer(wait, Timer::RaftElection { gen: v.timer_gen });
            }
            Timer::RaftCheckQuorum => {
                self.quorum_check_armed = false;
                let n = self.reachable(reach, id);
                let v = self.voters.get_mut(&id).expect("voter");
                if v.alive && v.role == Role::Leader && n < Self::majority() {
                    v.role = Role::Unattached;
                    v.leader = None;
                    out.log(EventKind::ControllerResigned, || format!("[RaftManager nodeId=q{id}] Resigning as leader of epoch {}: no fetch from a majority of voters within {} ms (check quorum)", v.epoch, FETCH_TIMEOUT_MS * 3 / 2));
                    out.mark(Mark::RaftLeaderResigned { voter: id, epoch: v.epoch });
                }
            }
            Timer::FenceCheck { broker } => {
                self.fence_armed.remove(broker);
                self.fence_if_silent(id, *broker, reach.contact(*broker, id), out);
            }
            _ => {}
        }
    }

    /// The fence timer for `broker` fired at the active controller `id`
    /// (`ReplicationControlManager.handleBrokerFenced`).
    fn fence_if_silent(&mut self, id: u32, broker: BrokerId, contact: bool, out: &mut Outbox) {
        let Some(v) = self.voters.get(&id) else { return };
        if !v.alive || v.role != Role::Leader || contact || v.image.fenced.contains(&broker) {
            return;
        }
        let img = v.image.clone();
        let mut recs = alloc::vec![Record::FenceBroker { broker }];
        let live: VecSet<BrokerId> = img.live().into_iter().filter(|b| *b != broker).collect_ordered();
        for (tp, p) in img.partitions.iter() {
            if !p.isr.contains(&broker) && p.leader != broker {
                continue;
            }
            let mut isr: Vec<BrokerId> = p.isr.iter().copied().filter(|r| *r != broker).collect();
            if isr.is_empty() {
                isr = p.isr.clone(); // the ISR never shrinks to empty
            }
            let leader = if p.leader == broker || p.leader == NO_LEADER {
                p.replicas.iter().copied().find(|r| isr.contains(r) && live.contains(r)).unwrap_or(NO_LEADER)
            } else {
                p.leader
            };
            let leader_epoch = if leader != p.leader { p.leader_epoch + 1 } else { p.leader_epoch };
            recs.push(Record::partition(
                tp.clone(),
                p.replicas.clone(),
                isr,
                leader,
                leader_epoch,
                p.partition_epoch + 1,
            ));
        }
        out.log(EventKind::LeaderChange,
            || format!("[QuorumController id=q{id}] Fencing broker {broker}: no heartbeat for {BROKER_SESSION_MS} ms; {} partition change(s) in the same batch", recs.len() - 1),
        );
        out.mark(Mark::BrokerFenced { voter: id, broker, partitions: (recs.len() - 1) as u32 });
        self.append(id, recs, out);
    }

    fn unfence(&mut self, id: u32, broker: BrokerId, out: &mut Outbox) {
        let img = self.voters[&id].image.clone();
        let mut live = img.live();
        live.insert(broker);
        let mut recs = alloc::vec![Record::UnfenceBroker { broker }];
        for (tp, p) in img.partitions.iter() {
            if p.leader == NO_LEADER {
                if let Some(l) = p.replicas.iter().copied().find(|r| p.isr.contains(r) && live.contains(r)) {
                    let (le, pe) = (p.leader_epoch + 1, p.partition_epoch + 1);
                    recs.push(Record::partition(tp.clone(), p.replicas.clone(), p.isr.clone(), l, le, pe));
                }
            }
        }
        out.log(EventKind::Info, || {
            format!(
                "[QuorumController id=q{id}] Broker {broker} heartbeats again: unfencing it ({} partition election(s))",
                recs.len() - 1
            )
        });
        self.append(id, recs, out);
    }

    fn append(&mut self, id: u32, recs: Vec<Record>, out: &mut Outbox) {
        let v = self.voters.get_mut(&id).expect("voter");
        let epoch = v.epoch;
        for r in recs {
            v.log.push(Entry { epoch, record: Rc::new(r) });
        }
        let n = v.log.len();
        v.matched.insert(id, n);
        self.replicate(id, out);
    }

    fn replicate(&mut self, id: u32, out: &mut Outbox) {
        let all: VecSet<u32> = (1..=VOTERS).collect_ordered();
        self.replicate_to(id, &all, out);
    }

    /// Sends each follower in `to` what it has not been sent yet (log entries or a new high
    /// watermark); nothing when it is up to date.
    fn replicate_to(&mut self, id: u32, to: &VecSet<u32>, out: &mut Outbox) {
        let v = self.voters.get_mut(&id).expect("voter");
        for o in 1..=VOTERS {
            if o == id || !to.contains(&o) || v.sent.get(&o) == Some(&(v.log.len(), v.commit)) {
                continue;
            }
            v.sent.insert(o, (v.log.len(), v.commit));
            let m = v.matched.get(&o).copied().unwrap_or(0).min(v.log.len());
            let prev_epoch = if m == 0 { 0 } else { v.log[m - 1].epoch };
            out.send(
                voter_node(o),
                Payload::RaftAppend {
                    epoch: v.epoch,
                    leader: id,
                    prev_index: m as u64,
                    prev_epoch,
                    entries: v.log[m..].to_vec(),
                    commit: v.commit as u64,
                },
            );
        }
    }

    /// Pushes committed records each broker has not seen (standing for brokers' metadata fetches).
    fn push_metadata(&mut self, id: u32, reach: &Reach, out: &mut Outbox) {
        let v = self.voters.get_mut(&id).expect("voter");
        for (b, _) in reach.brokers() {
            let sent = v.sent_to_broker.get(&b).copied().unwrap_or(0);
            if sent < v.commit && reach.contact(b, id) {
                let records: Vec<Rc<Record>> = v.log[sent..v.commit].iter().map(|e| e.record.clone()).collect();
                out.send(NodeId::Broker(b), Payload::MetadataRecords { from_offset: sent as u64, records });
                v.sent_to_broker.insert(b, v.commit);
            }
        }
    }

    /// Replication to a follower was lost on a cut: send again when it is reachable.
    pub fn append_lost(&mut self, leader: u32, follower: u32) {
        if let Some(v) = self.voters.get_mut(&leader) {
            v.sent.remove(&follower);
        }
    }

    /// Records sent to a broker were lost on a cut: send them again when it is reachable.
    pub fn metadata_lost(&mut self, voter: u32, b: BrokerId, from: usize) {
        if let Some(v) = self.voters.get_mut(&voter) {
            let s = v.sent_to_broker.or_default(b);
            *s = (*s).min(from);
        }
    }

    /// A broker restarted: it needs the whole log again.
    pub fn broker_restarted(&mut self, b: BrokerId) {
        for v in self.voters.values_mut() {
            v.sent_to_broker.insert(b, 0);
        }
        self.fence_armed.remove(&b);
    }

    /// A voter crashed or restarted (its log survives on disk; its role does not).
    pub fn set_voter_alive(&mut self, id: u32, alive: bool) {
        if let Some(v) = self.voters.get_mut(&id) {
            v.alive = alive;
            v.role = Role::Unattached;
            v.leader = None;
            v.timer_armed = false;
            v.timer_gen += 1;
            v.sent_to_broker.clear();
        }
    }

    /// A quorum message arrived at voter `id`.
    pub fn on_message(&mut self, id: u32, from: NodeId, p: Payload, reach: &Reach, out: &mut Outbox) {
        let NodeId::Voter(src) = from else { return };
        match p {
            Payload::RaftVote { epoch, candidate, last_epoch, last_index } => {
                let v = self.voters.get_mut(&id).expect("voter");
                v.observe_epoch(epoch);
                let (me, mi) = v.last();
                let up_to_date = (last_epoch, last_index as usize) >= (me, mi);
                let has_live_leader = v.role == Role::Follower || v.role == Role::Leader;
                let granted =
                    epoch == v.epoch && !has_live_leader && v.voted_for.is_none_or(|c| c == candidate) && up_to_date;
                if granted {
                    v.voted_for = Some(candidate);
                }
                let e = v.epoch;
                out.log(EventKind::Info, || {
                    format!(
                        "[RaftManager nodeId=q{id}] Vote request from q{candidate} for epoch {epoch}: {}",
                        if granted { "granted" } else { "rejected" }
                    )
                });
                out.send(from, Payload::RaftVoteResponse { epoch: e, granted });
            }
            Payload::RaftVoteResponse { epoch, granted } => {
                let v = self.voters.get_mut(&id).expect("voter");
                if v.observe_epoch(epoch) {
                    return;
                }
                if v.role != Role::Candidate || epoch != v.epoch || !granted {
                    return;
                }
                v.votes.insert(src);
                if v.votes.len() >= Self::majority() {
                    v.role = Role::Leader;
                    v.leader = Some(id);
                    v.timer_armed = false;
                    v.timer_gen += 1;
                    let n = v.log.len();
                    v.matched = [(id, n)].into_iter().collect_ordered();
                    v.sent.clear();
                    v.sent_to_broker.clear();
                    let epoch = v.epoch;
                    self.epoch_leaders.or_default(epoch).insert(id);
                    out.log(EventKind::ControllerElected, || {
                        format!(
                            "[RaftManager nodeId=q{id}] Elected leader of epoch {epoch} with votes from {:?}",
                            self.voters[&id].votes
                        )
                    });
                    out.mark(Mark::RaftLeaderElected { voter: id, epoch });
                    self.append(id, alloc::vec![Record::LeaderChange { leader: id, epoch }], out);
                }
            }
            Payload::RaftAppend { epoch, leader, prev_index, prev_epoch, entries, commit } => {
                let v = self.voters.get_mut(&id).expect("voter");
                if epoch < v.epoch {
                    let e = v.epoch;
                    out.send(from, Payload::RaftAppendResponse { epoch: e, ok: false, matched: 0 });
                    return;
                }
                if epoch > v.epoch || v.role != Role::Follower || v.leader != Some(leader) {
                    if epoch > v.epoch {
                        v.voted_for = None;
                    }
                    v.epoch = epoch;
                    v.role = Role::Follower;
                    v.leader = Some(leader);
                    v.timer_armed = false;
                    v.timer_gen += 1;
                    out.log(EventKind::Info, || {
                        format!("[RaftManager nodeId=q{id}] Following q{leader} in epoch {epoch}")
                    });
                }
                let p = prev_index as usize;
                let ok = p <= v.log.len() && (p == 0 || v.log[p - 1].epoch == prev_epoch);
                if ok {
                    if v.log.len() > p {
                        let truncated = v.log.len() - p;
                        let keeps = v.log[p..].iter().zip(&entries).all(|(a, b)| a == b) && entries.len() >= truncated;
                        if !keeps {
                            v.log.truncate(p.max(v.commit));
                            if truncated > 0 && v.log.len() == p {
                                out.log(EventKind::Info, || format!("[RaftManager nodeId=q{id}] Truncated {truncated} uncommitted entries diverging from the leader"));
                            }
                        } else {
                            v.log.truncate(p);
                        }
                    }
                    if v.log.len() == p {
                        v.log.extend(entries);
                    }
                    let new_commit = (commit as usize).min(v.log.len());
                    v.advance_commit(new_commit);
                }
                let (e, m) = (v.epoch, if ok { v.log.len() } else { p.saturating_sub(1).min(v.log.len()) });
                out.send(from, Payload::RaftAppendResponse { epoch: e, ok, matched: m as u64 });
            }
            Payload::RaftAppendResponse { epoch, ok, matched } => {
                let v = self.voters.get_mut(&id).expect("voter");
                if v.observe_epoch(epoch) {
                    out.log(EventKind::ControllerResigned, || {
                        format!("[RaftManager nodeId=q{id}] A voter is at epoch {epoch}: stepping down")
                    });
                    return;
                }
                if v.role != Role::Leader || epoch != v.epoch {
                    return;
                }
                v.matched.insert(src, matched as usize);
                if !ok {
                    v.sent.remove(&src);
                    self.replicate(id, out);
                    return;
                }
                let v = self.voters.get_mut(&id).expect("voter");
                let mut ms: Vec<usize> = (1..=VOTERS).map(|o| v.matched.get(&o).copied().unwrap_or(0)).collect();
                crate::sorted::sort_by(&mut ms, |a, b| b.cmp(a));
                let hw = ms[Self::majority() - 1];
                if hw > v.commit && v.log[hw - 1].epoch == v.epoch {
                    let was_active = v.commit_in_own_epoch();
                    v.advance_commit(hw);
                    if !was_active && v.commit_in_own_epoch() {
                        out.log(EventKind::ControllerElected, || format!("[QuorumController id=q{id}] Active controller for epoch {}: its LeaderChange record is committed", v.epoch));
                        out.mark(Mark::QuorumControllerActive { voter: id, epoch: v.epoch });
                    }
                    self.replicate(id, out);
                    self.push_metadata(id, reach, out);
                }
            }
            _ => {}
        }
    }
}

impl Voter {
    /// Raft's term rule: any higher epoch seen makes a node step down to Unattached (no vote, no
    /// leader) in that epoch; returns whether the epoch was higher.
    fn observe_epoch(&mut self, epoch: u32) -> bool {
        if epoch <= self.epoch {
            return false;
        }
        self.epoch = epoch;
        self.role = Role::Unattached;
        self.voted_for = None;
        self.leader = None;
        true
    }

    fn last(&self) -> (u32, usize) {
        (self.log.last().map(|e| e.epoch).unwrap_or(0), self.log.len())
    }

    fn advance_commit(&mut self, to: usize) {
        while self.commit < to {
            self.image.apply(&self.log[self.commit].record);
            self.commit += 1;
        }
    }

    /// The leader has committed an entry of its own epoch (it may act as controller).
    pub fn commit_in_own_epoch(&self) -> bool {
        self.commit > 0 && self.log[..self.commit].iter().any(|e| e.epoch == self.epoch)
    }
}
