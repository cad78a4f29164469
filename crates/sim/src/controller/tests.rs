//! The controller driven message by message, without a world (as quinn-proto's `tests/util.rs`
//! drives one connection): a [`Harness`] owns one broker's controller, its ZooKeeper client and an
//! outbox; a test feeds an event, reads the ZooKeeper request the controller thread is blocked on,
//! answers it, and checks the state and the marks.
use super::*;
use crate::effects::{Effect, Outbox};
use crate::mark::Mark;
use crate::message::Payload;
use crate::mode::{Behaviour, Mode};
use crate::scenario::{builtin, OFFSETS_TOPIC};
use crate::zk_client::ConnState;
use crate::zookeeper::ops::ZkError;
use alloc::vec;

/// Broker 3's controller, active with epoch 7 (`/controller_epoch` at version 6), its cache holding
/// one partition, `__consumer_offsets-3`, assigned to `replicas` and led as `cached` says.
struct Harness {
    id: BrokerId,
    c: Controller,
    zk: ZkClient,
    cfg: Config,
    out: Outbox,
}

fn tp() -> TopicPartition {
    TopicPartition::new(OFFSETS_TOPIC, 3)
}

fn stat(version: i32) -> Stat {
    Stat { version, cversion: 0, czxid: 0, mzxid: 0, ephemeral_owner: None }
}

fn li(leader: BrokerId, leader_epoch: i32, isr: &[BrokerId], controller_epoch: i32) -> LeaderIsr {
    LeaderIsr { leader, leader_epoch, isr: isr.to_vec(), controller_epoch }
}

fn state_znode(s: LeaderIsr, version: i32) -> ZkResult {
    ZkResult::Data { data: ZData::PartitionState { state: s }, stat: stat(version) }
}

/// The first Kafka behaviour with the given property (tests name properties, not versions).
fn mode_where(f: impl Fn(Behaviour) -> bool) -> Mode {
    Mode::ALL.into_iter().find(|m| f(m.behaviour())).expect("some mode has it")
}

impl Harness {
    fn new(mode: Mode, replicas: &[BrokerId], cached: LeaderIsr) -> Self {
        let mut cfg = builtin("seed-incident").expect("built-in").config().expect("valid");
        cfg.mode = mode;
        let mut zk = ZkClient::default();
        zk.session = Some(0x100);
        zk.state = ConnState::Connected;
        let mut c = Controller { active_id: 3, listeners: true, ..Controller::default() };
        c.ctx = ControllerContext {
            epoch: 7,
            epoch_zk_version: 6,
            live_brokers: [1, 2, 3].into_iter().collect(),
            assignment: Rc::new([(tp(), replicas.to_vec())].into_iter().collect()),
            leadership: alloc::rc::Rc::new(
                [(tp(), alloc::rc::Rc::new(Cached { state: cached, zk_version: 27 }))].into_iter().collect(),
            ),
            loaded: true,
            log: Default::default(),
        };
        c.partition_states.insert(tp(), PartitionState::OnlinePartition);
        Harness { id: 3, c, zk, cfg, out: Outbox::default() }
    }

    /// A broker that has not been the controller, its cache empty.
    fn fresh(mode: Mode) -> Self {
        let mut h = Harness::new(mode, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
        h.c = Controller::default();
        h
    }

    fn run(&mut self) {
        self.c.run(&mut ControllerIo { id: self.id, zk: &mut self.zk, cfg: &self.cfg, out: &mut self.out });
    }

    fn event(&mut self, ev: ControllerEvent) {
        self.c.enqueue(ev);
        self.run();
    }

    /// The one ZooKeeper request the controller thread waits on (checked to have been sent).
    fn pending(&self) -> ZkOp {
        let ops: Vec<&ZkOp> = self.zk.outstanding.values().map(|o| &*o.op).collect();
        assert_eq!(ops.len(), 1, "one request outstanding: {ops:?}");
        let sent = self.out.effects.iter().any(|e| {
            matches!(e, Effect::Send { payload: Payload::ZkRequest { op, controller: true, .. }, .. } if **op == *ops[0])
        });
        assert!(sent, "{:?} was sent to ZooKeeper", ops[0]);
        ops[0].clone()
    }

    fn nothing_pending(&self) -> bool {
        self.zk.outstanding.is_empty()
    }

    /// ZooKeeper answers the outstanding request.
    fn respond(&mut self, result: ZkResult) {
        let xid = *self.zk.outstanding.keys().next().expect("a request to answer");
        let done = self.zk.complete(xid).expect("outstanding");
        let mut io = ControllerIo { id: self.id, zk: &mut self.zk, cfg: &self.cfg, out: &mut self.out };
        self.c.on_result(done.op, result, &mut io);
        self.run();
    }

    fn marks(&self) -> Vec<Mark> {
        self.out.marks()
    }

    /// The marks of decisions (elections, resignations, ISR and leader writes), without the marks
    /// that only report what the controller read (BrokerChange, context loads, state-machine
    /// start-up), which [`Harness::marks`] also returns.
    fn decisions(&self) -> Vec<Mark> {
        self.marks()
            .into_iter()
            .filter(|m| {
                !matches!(
                    m,
                    Mark::BrokerChange { .. }
                        | Mark::LiveBrokersRead { .. }
                        | Mark::ContextLoaded { .. }
                        | Mark::PartitionStatesStarted { .. }
                        | Mark::PartitionStateMachineStarted { .. }
                        | Mark::BrokerStartup { .. }
                )
            })
            .collect()
    }

    fn logged(&self, needle: &str) -> bool {
        self.out.effects.iter().any(|e| matches!(e, Effect::Log { line, .. } if line.contains(needle)))
    }

    fn leader_and_isr_to(&self, broker: BrokerId) -> Vec<(BrokerId, i32)> {
        self.out
            .effects
            .iter()
            .filter_map(|e| match e {
                Effect::Send { to: NodeId::Broker(b), payload: Payload::LeaderAndIsr { partitions, .. } }
                    if *b == broker =>
                {
                    Some(partitions.iter().map(|p| (p.leader, p.leader_epoch)))
                }
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// `BrokerChange` after broker 1's registration vanished: the thread reads `/brokers/ids` and
    /// the registrations of 2 and 3.
    fn broker_1_dies(&mut self) {
        self.event(ControllerEvent::BrokerChange);
        assert_eq!(self.pending(), ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true });
        self.respond(ZkResult::Children { names: vec!["2".into(), "3".into()] });
        assert_eq!(self.pending(), ZkOp::GetDataMany { paths: vec!["/brokers/ids/2".into(), "/brokers/ids/3".into()] });
        self.respond(ZkResult::DataMany {
            items: vec![Some((ZData::Broker { id: 2 }, stat(0))), Some((ZData::Broker { id: 3 }, stat(0)))],
        });
        assert_eq!(self.c.ctx.live_brokers, [2, 3].into_iter().collect());
        assert!(self.marks().contains(&Mark::BrokerChange {
            controller: 3,
            added: vec![],
            deleted: vec![1],
            live: vec![2, 3]
        }));
    }
}

use crate::ids::NodeId;

#[test]
fn cache_says_leader_3_so_no_election_but_removing_1_from_the_isr_writes_no_leader() {
    let legacy = mode_where(|b| !b.fenced_writes && !b.reread_controller_on_change && !b.is_kraft());
    let mut h = Harness::new(legacy, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    h.broker_1_dies();
    assert!(h.logged("Partitions whose cached leader is offline: 0 — no leader election needed"));
    // No election: the next request is removeReplicaFromIsr's read of the state znode.
    assert_eq!(h.pending(), ZkOp::GetData { path: tp().state_path(), watch: false });
    assert_eq!(
        h.c.job.as_ref().and_then(|j| j.waiting_on()).as_deref(),
        Some("removeReplicaFromIsr(__consumer_offsets-3, 1)")
    );
    // ZooKeeper says broker 1 leads (a deposed controller's decision the cache never saw).
    h.respond(state_znode(li(1, 14, &[1, 2], 7), 28));
    let written = li(-1, 15, &[2], 7);
    assert_eq!(
        h.pending(),
        ZkOp::SetData { path: tp().state_path(), data: ZData::PartitionState { state: written.clone() }, version: 28 }
    );
    assert_eq!(h.c.job.as_ref().map(|j| j.writing()), Some(vec![tp()]));
    h.respond(ZkResult::Written { stat: stat(29) });
    assert_eq!(
        h.decisions(),
        vec![Mark::IsrReplicaRemoved {
            controller: 3,
            partition: tp(),
            replica: 1,
            leader: -1,
            leader_epoch: 15,
            isr: vec![2],
            controller_epoch: 7,
            cached_leader: Some(3),
            zk_version: 29,
        }]
    );
    assert!(h.logged("ZooKeeper said the leader was 1 while the controller's cache said 3, so no election was run"));
    assert_eq!(*h.c.ctx.leadership[&tp()], Cached { state: written, zk_version: 29 });
    assert_eq!(h.c.partition_states[&tp()], PartitionState::OnlinePartition, "still never elected");
    assert_eq!(h.c.replica_states[&(tp(), 1)], ReplicaState::OfflineReplica);
    assert_eq!(h.leader_and_isr_to(2), vec![(-1, 15)]);
    assert!(h.leader_and_isr_to(1).is_empty(), "broker 1 is offline");
    assert!(h.nothing_pending() && h.c.job.is_none(), "BrokerChange is done");
}

#[test]
fn an_offline_partition_gets_the_first_live_isr_replica_and_a_leader_elected_mark() {
    let legacy = mode_where(|b| !b.fenced_writes && !b.reread_controller_on_change && !b.is_kraft());
    let mut h = Harness::new(legacy, &[1, 2, 3], li(1, 14, &[1, 2, 3], 7));
    h.broker_1_dies();
    assert!(h.logged("Partitions whose cached leader is offline: 1 — __consumer_offsets-3"));
    assert_eq!(h.c.partition_states[&tp()], PartitionState::OfflinePartition);
    assert_eq!(h.pending(), ZkOp::GetData { path: tp().state_path(), watch: false });
    assert_eq!(
        h.c.job.as_ref().and_then(|j| j.waiting_on()).as_deref(),
        Some("electLeaderForPartition(__consumer_offsets-3)")
    );
    h.respond(state_znode(li(1, 14, &[1, 2, 3], 7), 28));
    let elected = li(2, 15, &[2, 3], 7);
    assert_eq!(
        h.pending(),
        ZkOp::SetData { path: tp().state_path(), data: ZData::PartitionState { state: elected.clone() }, version: 28 }
    );
    // 1.0's selector logs its choice before the write (PartitionLeaderSelector.scala:90).
    let selected = Mark::LeaderSelected {
        controller: 3,
        partition: tp(),
        leader: 2,
        leader_epoch: 15,
        isr: vec![2, 3],
        controller_epoch: 7,
        read_zk_version: 28,
    };
    assert_eq!(h.decisions(), vec![selected.clone()], "selected, not yet written");
    assert!(h.logged("Selected new leader and ISR {\"leader\":2,\"leader_epoch\":15,\"isr\":[2,3]} for offline partition __consumer_offsets-3"));
    h.respond(ZkResult::Written { stat: stat(29) });
    assert_eq!(
        h.decisions()[1..],
        vec![Mark::LeaderElected {
            controller: 3,
            partition: tp(),
            leader: 2,
            leader_epoch: 15,
            isr: vec![2, 3],
            controller_epoch: 7,
            zk_version: 29,
        }]
    );
    assert_eq!(h.c.partition_states[&tp()], PartitionState::OnlinePartition);
    // Then removeReplicaFromIsr(1) re-reads: 1 is no longer in the ISR, nothing is written.
    assert_eq!(h.pending(), ZkOp::GetData { path: tp().state_path(), watch: false });
    h.respond(state_znode(elected.clone(), 29));
    assert!(h.logged("Cannot remove replica 1 from ISR of partition __consumer_offsets-3 since it is not in the ISR"));
    assert_eq!(h.leader_and_isr_to(2), vec![(2, 15)]);
    assert!(h.nothing_pending() && h.c.job.is_none());
}

#[test]
fn no_live_isr_replica_is_a_failed_election_mark_and_no_write() {
    let legacy = mode_where(|b| !b.fenced_writes && !b.reread_controller_on_change && !b.is_kraft());
    let mut h = Harness::new(legacy, &[1, 2, 3], li(1, 14, &[1], 7));
    h.broker_1_dies();
    h.respond(state_znode(li(1, 14, &[1], 7), 28));
    assert_eq!(h.decisions(), vec![Mark::LeaderElectionFailed { controller: 3, partition: tp() }]);
    assert!(h.logged("NoReplicaOnlineException"));
    assert_eq!(h.c.partition_states[&tp()], PartitionState::OfflinePartition);
    // removeReplicaFromIsr(1): the last ISR member stays (unclean election is off).
    assert_eq!(h.pending(), ZkOp::GetData { path: tp().state_path(), watch: false });
}

#[test]
fn fenced_writes_check_the_epoch_version_read_at_election_and_a_failed_check_resigns() {
    let fenced = mode_where(|b| b.fenced_writes);
    let mut h = Harness::fresh(fenced);
    h.id = 2;
    h.event(ControllerEvent::Startup);
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller".into(), watch: true });
    h.respond(ZkResult::Error { code: ZkError::NoNode });
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller_epoch".into(), watch: false });
    h.respond(ZkResult::Data { data: ZData::ControllerEpoch { epoch: 7 }, stat: stat(6) });
    // registerControllerAndIncrementControllerEpoch: one multi.
    assert_eq!(
        h.pending(),
        ZkOp::Multi {
            ops: vec![
                MultiOp::Create {
                    path: "/controller".into(),
                    data: ZData::Controller { broker_id: 2, timestamp: 0 },
                    ephemeral: true,
                    sequential: false
                },
                MultiOp::SetData {
                    path: "/controller_epoch".into(),
                    data: ZData::ControllerEpoch { epoch: 8 },
                    version: 6
                },
            ]
        }
    );
    h.respond(ZkResult::MultiOk);
    assert_eq!(h.decisions(), vec![Mark::ControllerElected { broker: 2, controller_epoch: Some(8) }]);
    assert!(h.c.is_active(2));
    assert_eq!((h.c.ctx.epoch, h.c.ctx.epoch_zk_version), (8, 7));
    // initializeControllerContext, with no epoch read or bump of its own.
    reads_isr_notifications_and_brokers_2_and_3(&mut h);
    assert_eq!(h.pending(), ZkOp::GetChildren { path: "/brokers/topics".into(), watch: true });
    h.respond(ZkResult::Children { names: vec![OFFSETS_TOPIC.into()] });
    let assignment = ZData::Assignment { partitions: [(3, vec![1, 2, 3])].into_iter().collect() };
    h.respond(ZkResult::DataMany { items: vec![Some((assignment, stat(0)))] });
    assert_eq!(h.pending(), ZkOp::GetDataMany { paths: vec![tp().state_path()] });
    h.respond(ZkResult::DataMany {
        items: vec![Some((ZData::PartitionState { state: li(1, 14, &[1, 2], 7) }, stat(28)))],
    });
    // The group's partition is named in the note (payments-group maps to __consumer_offsets-3).
    assert!(h.logged(
        "Loaded leader and ISR of 1 partitions into the controller context; __consumer_offsets-3: {\"leader\":1,\"leader_epoch\":14,\"isr\":[1,2]} (zkVersion 28)"
    ));
    // initializePartitionState: p3 (leader 1, not live) starts Offline. `Started partition state
    // machine` waits for the elections (2.1.0 PSM:67, after triggerOnlinePartitionStateChange).
    assert!(h.marks().contains(&Mark::PartitionStatesStarted { controller: 2, online: 0, offline: 1 }));
    assert!(!h.marks().iter().any(|m| matches!(m, Mark::PartitionStateMachineStarted { .. })));
    // electLeaderForPartition: read, then a write fenced at the version read at election.
    assert_eq!(h.pending(), ZkOp::GetData { path: tp().state_path(), watch: false });
    h.respond(state_znode(li(1, 14, &[1, 2], 7), 28));
    let ZkOp::Multi { ops } = h.pending() else { panic!("a fenced write is a multi") };
    assert_eq!(ops[0], MultiOp::Check { path: "/controller_epoch".into(), version: 7 });
    assert_eq!(
        ops[1],
        MultiOp::SetData {
            path: tp().state_path(),
            data: ZData::PartitionState { state: li(2, 15, &[2], 8) },
            version: 28
        }
    );
    // Another broker bumped /controller_epoch meanwhile: ControllerMovedException.
    // 2.1.0's batch logs no "Selected new leader" line (PSM:211-213 traces after the batch).
    assert!(!h.decisions().iter().any(|m| matches!(m, Mark::LeaderSelected { .. })));
    h.respond(ZkResult::MultiFailed { index: 0, code: ZkError::BadVersion });
    assert_eq!(
        h.decisions()[1..],
        [Mark::ControllerMoved { broker: 2, controller_epoch: 8, epoch_zk_version: 7 }],
        "the controller-moved line"
    );
    assert!(!h.decisions().iter().any(|m| matches!(m, Mark::LeaderElected { .. })));
    // maybeResign: re-read /controller; broker 3 holds it, so resign.
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller".into(), watch: true });
    h.respond(ZkResult::Data { data: ZData::Controller { broker_id: 3, timestamp: 0 }, stat: stat(0) });
    assert_eq!(h.decisions()[2..], [Mark::ControllerResigned { broker: 2, controller_epoch: 8 }]);
    assert!(h.logged("Resigned (broker 2 held epoch 8; /controller is now broker 3)"));
    assert_eq!((h.c.active_id, h.c.ctx.epoch, h.c.listeners), (3, 0, false));
    assert!(h.nothing_pending() && h.c.job.is_none(), "the rest of the failover was abandoned");
    // ControllerMovedException left PartitionStateMachine.startup before its log line.
    assert!(!h.marks().iter().any(|m| matches!(m, Mark::PartitionStateMachineStarted { .. })));
}

/// 1.0's failover in 1.0's order of log lines: `Currently active brokers` after every partition
/// state is read (1.0.0 KC:712-716), `Started partition state machine` after the elections (1.0.0
/// PSM:56-61). The facts the lines tell are marked with them: [`Mark::ContextLoaded`] carries the
/// live brokers, [`Mark::PartitionStateMachineStarted`] the states the elections left.
#[test]
fn one_oh_logs_the_live_brokers_after_the_state_reads_and_the_partition_states_after_the_elections() {
    let one_oh = mode_where(|b| b.epoch_bump_failure_swallowed && b.context_reads_one_by_one);
    let mut h = won_and_read_epoch(one_oh);
    h.respond(ZkResult::Written { stat: stat(7) });
    reads_isr_notifications_and_brokers_2_and_3(&mut h);
    let is_loaded = |m: &Mark| matches!(m, Mark::ContextLoaded { .. });
    let is_started = |m: &Mark| matches!(m, Mark::PartitionStateMachineStarted { .. });
    // /brokers/ids is read, but the line that names the live brokers is not logged yet.
    assert!(h.marks().contains(&Mark::LiveBrokersRead { controller: 3, live: vec![2, 3] }));
    assert!(!h.marks().iter().any(is_loaded));
    assert_eq!(h.pending(), ZkOp::GetChildren { path: "/brokers/topics".into(), watch: true });
    h.respond(ZkResult::Children { names: vec![OFFSETS_TOPIC.into()] });
    let p0 = TopicPartition::new(OFFSETS_TOPIC, 0);
    let assignment = ZData::Assignment { partitions: [(0, vec![2, 3]), (3, vec![1, 2, 3])].into_iter().collect() };
    h.respond(ZkResult::DataMany { items: vec![Some((assignment, stat(0)))] });
    // getPartitionLeaderAndIsrForTopics: one getData at a time; still no line after the first.
    assert_eq!(h.pending(), ZkOp::GetData { path: p0.state_path(), watch: false });
    h.respond(state_znode(li(2, 13, &[2, 3], 7), 27));
    assert!(!h.marks().iter().any(is_loaded));
    assert_eq!(h.pending(), ZkOp::GetData { path: tp().state_path(), watch: false });
    h.respond(state_znode(li(1, 14, &[1, 2], 7), 28));
    // updateLeaderAndIsrCache is done: now `Currently active brokers in the cluster: Set(2, 3)`.
    assert!(h.marks().contains(&Mark::ContextLoaded { controller: 3, partitions: 2, live: vec![2, 3] }));
    // initializePartitionState: p0 Online (leader 2 live), p3 Offline (leader 1 is not).
    assert!(h.marks().contains(&Mark::PartitionStatesStarted { controller: 3, online: 1, offline: 1 }));
    assert!(!h.marks().iter().any(is_started), "PSM:60 comes after triggerOnlinePartitionStateChange");
    // electLeaderForPartition(p3): read, write.
    assert_eq!(h.pending(), ZkOp::GetData { path: tp().state_path(), watch: false });
    h.respond(state_znode(li(1, 14, &[1, 2], 7), 28));
    assert!(matches!(h.pending(), ZkOp::SetData { ref path, version: 28, .. } if *path == tp().state_path()));
    assert!(!h.marks().iter().any(is_started));
    h.respond(ZkResult::Written { stat: stat(29) });
    // The elections are done: `Started partition state machine with initial state -> …` prints the
    // map as they left it, p3 Online.
    let marks = h.marks();
    let elected = marks.iter().position(|m| matches!(m, Mark::LeaderElected { leader: 2, .. })).expect("p3 elected");
    let started = marks.iter().position(is_started).expect("the partition state machine started");
    assert!(elected < started);
    assert_eq!(marks[started], Mark::PartitionStateMachineStarted { controller: 3, online: 2, offline: 0 });
    assert!(h.nothing_pending() && h.c.job.is_none(), "the failover is done");
}

#[test]
fn every_write_is_fenced_with_fenced_writes_and_none_without() {
    for mode in Mode::ALL.into_iter().filter(|m| !m.behaviour().is_kraft()) {
        let mut h = Harness::new(mode, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
        h.broker_1_dies();
        h.respond(state_znode(li(3, 13, &[3, 1, 2], 7), 27));
        let op = h.pending();
        let write = ZkOp::SetData {
            path: tp().state_path(),
            data: ZData::PartitionState { state: li(3, 14, &[3, 2], 7) },
            version: 27,
        };
        if mode.behaviour().fenced_writes {
            let ZkOp::Multi { ops } = op else { panic!("{mode:?}: a fenced write is a multi") };
            assert_eq!(ops[0], MultiOp::Check { path: "/controller_epoch".into(), version: 6 });
            h.respond(ZkResult::MultiOk);
        } else {
            assert_eq!(op, write, "{mode:?}");
            h.respond(ZkResult::Written { stat: stat(28) });
        }
        assert_eq!(h.c.ctx.leadership[&tp()].zk_version, 28, "{mode:?}: the unwrapped result carries the version");
        assert!(matches!(h.decisions()[..], [Mark::IsrReplicaRemoved { leader: 3, cached_leader: Some(3), .. }]));
    }
}

#[test]
fn controller_change_rereads_controller_only_when_the_behaviour_says_so() {
    let rereads = mode_where(|b| b.reread_controller_on_change);
    let mut h = Harness::new(rereads, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    // Enqueued when /controller still named broker 3; processed after it moved to 2.
    h.event(ControllerEvent::ControllerChange(3));
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller".into(), watch: true });
    assert_eq!(h.c.job.as_ref().and_then(|j| j.waiting_on()).as_deref(), Some("getControllerID"));
    assert!(h.c.is_active(3), "still active until the read returns");
    h.respond(ZkResult::Data { data: ZData::Controller { broker_id: 2, timestamp: 0 }, stat: stat(0) });
    assert_eq!(h.decisions(), vec![Mark::ControllerResigned { broker: 3, controller_epoch: 7 }]);
    assert_eq!(h.c.active_id, 2);

    let trusts = mode_where(|b| !b.reread_controller_on_change && !b.is_kraft());
    let mut h = Harness::new(trusts, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    h.event(ControllerEvent::ControllerChange(3));
    assert!(h.nothing_pending(), "1.0 trusts the id the event carries");
    assert!(h.c.is_active(3) && h.decisions().is_empty(), "so a stale ControllerChange(3) keeps it active");
}

impl Harness {
    /// Every outstanding ZooKeeper request, in the order sent (each checked to have been sent).
    fn pending_all(&self) -> Vec<ZkOp> {
        let ops: Vec<ZkOp> = self.zk.outstanding.values().map(|o| (*o.op).clone()).collect();
        for op in &ops {
            assert!(
                self.out
                    .effects
                    .iter()
                    .any(|e| matches!(e, Effect::Send { payload: Payload::ZkRequest { op: o, .. }, .. } if **o == *op)),
                "{op:?} was sent"
            );
        }
        ops
    }

    /// ZooKeeper answers the outstanding requests in the order sent.
    fn respond_all(&mut self, results: Vec<ZkResult>) {
        assert_eq!(results.len(), self.zk.outstanding.len());
        for r in results {
            self.respond(r);
        }
    }

    /// `IsrChangeNotification` naming `tp()` in two notifications, up to the deletes.
    fn two_notifications_processed(&mut self) {
        self.event(ControllerEvent::IsrChangeNotification);
        assert_eq!(self.pending(), ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true });
        self.respond(ZkResult::Children {
            names: vec!["isr_change_0000000001".into(), "isr_change_0000000002".into()],
        });
        let change = || Some((ZData::IsrChange { partitions: vec![tp()] }, stat(0)));
        self.respond(ZkResult::DataMany { items: vec![change(), change()] });
        self.respond(ZkResult::DataMany {
            items: vec![Some((ZData::PartitionState { state: li(3, 13, &[3, 1, 2], 7) }, stat(28)))],
        });
    }
}

fn notification(n: u32) -> String {
    format!("/isr_change_notification/isr_change_000000000{n}")
}

#[test]
fn isr_change_notification_deletes_are_one_fenced_request_each_with_fenced_writes() {
    // 2.1.0 KafkaZkClient.deleteIsrChangeNotifications (:951): a DeleteRequest per notification,
    // each with the /controller_epoch zkVersionCheck; 1.1.0 (:823) the same deletes, unfenced.
    for mode in Mode::ALL.into_iter().filter(|m| !m.behaviour().is_kraft()) {
        let b = mode.behaviour();
        let mut h = Harness::new(mode, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
        h.two_notifications_processed();
        let ops = h.pending_all();
        let delete = |n| ZkOp::Delete { path: notification(n), version: -1 };
        let check = || MultiOp::Check { path: "/controller_epoch".into(), version: 6 };
        let fenced = |n| ZkOp::Multi { ops: vec![check(), MultiOp::Delete { path: notification(n), version: -1 }] };
        match (b.pipelined_notification_deletes, b.fenced_writes) {
            (true, true) => assert_eq!(ops, vec![fenced(1), fenced(2)], "{mode:?}"),
            (true, false) => assert_eq!(ops, vec![delete(1), delete(2)], "{mode:?}"),
            (false, _) => assert_eq!(ops.len(), 1, "{mode:?}: legacy deletes them in one multi"),
        }
        let n = ops.len();
        // A fenced delete and legacy's one multi answer MultiOk; an unfenced delete answers Deleted.
        let ok = if b.fenced_writes || n == 1 { ZkResult::MultiOk } else { ZkResult::Deleted };
        h.respond_all(vec![ok; n]);
        assert!(h.nothing_pending() && h.c.job.is_none(), "{mode:?}: the event is done");
    }
}

#[test]
fn a_fenced_pipelined_write_whose_epoch_check_fails_is_controller_moved_after_every_response() {
    let fenced = mode_where(|b| b.fenced_writes && b.pipelined_notification_deletes);
    let mut h = Harness::new(fenced, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    h.two_notifications_processed();
    assert_eq!(h.pending_all().len(), 2);
    // The first delete's check fails: nothing happens until the second response is in
    // (retryRequestsUntilConnected collects the batch, then maybeThrowControllerMoveException).
    h.respond(ZkResult::MultiFailed { index: 0, code: ZkError::BadVersion });
    assert!(!h.marks().iter().any(|m| matches!(m, Mark::ControllerMoved { .. })));
    h.respond(ZkResult::MultiOk);
    assert!(h.marks().contains(&Mark::ControllerMoved { broker: 3, controller_epoch: 7, epoch_zk_version: 6 }));
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller".into(), watch: true }, "maybeResign");
}

#[test]
fn a_batched_election_reads_and_writes_every_offline_partition_at_once() {
    let batched = mode_where(|b| b.batched_elections && !b.fenced_writes);
    let other = TopicPartition::new(OFFSETS_TOPIC, 6);
    let mut h = Harness::new(batched, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    Rc::make_mut(&mut h.c.ctx.assignment).insert(other.clone(), vec![3, 1, 2]);
    h.c.ctx.cache(other.clone(), Cached { state: li(3, 13, &[3, 1, 2], 7), zk_version: 27 });
    h.c.ctx.live_brokers = [1, 2].into_iter().collect();
    for t in [tp(), other.clone()] {
        h.c.partition_states.insert(t, PartitionState::OfflinePartition);
    }
    h.c.job = Some(Job {
        event: ControllerEvent::BrokerChange,
        // What a batched behaviour queues for `triggerOnlinePartitionStateChange`.
        steps: vec![super::batch_election::Step::Trigger.into()].into(),
        waiting: None,
        pipeline: Vec::new(),
    });
    h.run();
    let read = |t: &TopicPartition| ZkOp::GetData { path: t.state_path(), watch: false };
    assert_eq!(h.pending_all(), vec![read(&tp()), read(&other)], "one pipelined read");
    // p3 was rewritten by someone else meanwhile (zkVersion 28): its write will get BADVERSION.
    h.respond_all(vec![state_znode(li(3, 13, &[3, 1, 2], 7), 28), state_znode(li(3, 13, &[3, 1, 2], 7), 27)]);
    let new = li(1, 14, &[1, 2], 7);
    let write = |t: &TopicPartition, v| ZkOp::SetData {
        path: t.state_path(),
        data: ZData::PartitionState { state: new.clone() },
        version: v,
    };
    assert_eq!(h.pending_all(), vec![write(&tp(), 28), write(&other, 27)], "one pipelined write");
    assert!(h.decisions().is_empty(), "nothing is cached before every response is in");
    h.respond(ZkResult::Error { code: ZkError::BadVersion });
    assert!(h.decisions().is_empty());
    h.respond(ZkResult::Written { stat: stat(28) });
    assert!(matches!(h.decisions()[..], [Mark::LeaderElected { ref partition, leader: 1, .. }] if *partition == other));
    // electLeaderForPartitions retries with the whole batch (1.1.0 PSM:254), not only p3.
    assert_eq!(h.pending_all(), vec![read(&tp()), read(&other)]);
}

#[test]
fn trigger_controller_move_checks_the_owner_only_when_the_behaviour_says_so() {
    // What elect's catch-all runs (`Controller::elect_failed`): 2.1.0's check, or 1.0/1.1's delete.
    let move_job = |h: &mut Harness| {
        let checks = h.cfg.behaviour().controller_move_checks_owner;
        let step = if checks { failover::Step::MoveControllerCheck } else { failover::Step::MoveController(None) };
        h.c.job = Some(Job {
            event: ControllerEvent::Reelect,
            steps: vec![step.into()].into(),
            waiting: None,
            pipeline: Vec::new(),
        });
        h.run();
    };
    let checks = mode_where(|b| b.controller_move_checks_owner);
    assert!(checks.behaviour().fenced_writes);
    // Broker 2 holds /controller already: warn, and delete nothing.
    let mut h = Harness::new(checks, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    move_job(&mut h);
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller".into(), watch: false });
    h.respond(ZkResult::Data { data: ZData::Controller { broker_id: 2, timestamp: 0 }, stat: stat(0) });
    assert!(h.logged("Controller has already moved when trying to trigger controller movement"));
    assert!(h.nothing_pending() && h.decisions().is_empty() && h.c.active_id == 2);
    // Still ours: resign, then delete /controller fenced with the epoch version held before.
    let mut h = Harness::new(checks, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    move_job(&mut h);
    h.respond(ZkResult::Data { data: ZData::Controller { broker_id: 3, timestamp: 0 }, stat: stat(0) });
    assert_eq!(
        h.decisions(),
        vec![
            Mark::ControllerResigned { broker: 3, controller_epoch: 7 },
            Mark::ControllerMoveTriggered { broker: 3, owner_checked: true }
        ]
    );
    assert_eq!(
        h.pending(),
        ZkOp::Multi {
            ops: vec![
                MultiOp::Check { path: "/controller_epoch".into(), version: 6 },
                MultiOp::Delete { path: "/controller".into(), version: -1 }
            ]
        }
    );
    // Without the property, 1.0/1.1's unconditional delete.
    let blind = mode_where(|b| !b.controller_move_checks_owner && !b.is_kraft());
    let mut h = Harness::new(blind, &[3, 1, 2], li(3, 13, &[3, 1, 2], 7));
    move_job(&mut h);
    assert_eq!(h.pending(), ZkOp::Delete { path: "/controller".into(), version: -1 });
}

#[test]
fn register_broker_and_reelect_registers_then_reelects_and_stops_on_a_foreign_node() {
    let on_thread = mode_where(|b| b.register_on_controller_thread);
    let mut h = Harness::fresh(on_thread);
    h.event(ControllerEvent::RegisterBrokerAndReelect);
    let create = ZkOp::Create {
        path: "/brokers/ids/3".into(),
        data: ZData::Broker { id: 3 },
        ephemeral: true,
        sequential: false,
    };
    assert_eq!(h.pending(), create, "not fenced: registration is not a controller write");
    h.respond(ZkResult::Created { path: "/brokers/ids/3".into() });
    assert!(h.marks().contains(&Mark::BrokerRegistered { broker: 3, on_controller_thread: true }));
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller".into(), watch: true }, "then Reelect");
    // A node held by another session: CheckedEphemeral fails, and Reelect does not run.
    let mut h = Harness::fresh(on_thread);
    h.event(ControllerEvent::RegisterBrokerAndReelect);
    h.respond(ZkResult::Error { code: ZkError::NodeExists });
    assert_eq!(h.pending(), ZkOp::GetData { path: "/brokers/ids/3".into(), watch: false });
    let foreign = Stat { ephemeral_owner: Some(0x99), ..stat(0) };
    h.respond(ZkResult::Data { data: ZData::Broker { id: 3 }, stat: foreign });
    assert!(h.logged("node already exists and owner"));
    assert!(h.nothing_pending() && h.c.job.is_none());
    assert!(!h.marks().iter().any(|m| matches!(m, Mark::BrokerRegistered { .. })));
}

/// `initializeControllerContext`'s first reads: no ISR change notification, brokers 2 and 3 live.
fn reads_isr_notifications_and_brokers_2_and_3(h: &mut Harness) {
    assert_eq!(h.pending(), ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true });
    h.respond(ZkResult::Children { names: Vec::new() });
    assert_eq!(h.pending(), ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true });
    h.respond(ZkResult::Children { names: vec!["2".into(), "3".into()] });
    h.respond(ZkResult::DataMany {
        items: vec![Some((ZData::Broker { id: 2 }, stat(0))), Some((ZData::Broker { id: 3 }, stat(0)))],
    });
}

/// Broker 3 (fresh) wins `/controller` and reads `/controller_epoch` = 7 at version 6; the
/// conditional bump is next.
fn won_and_read_epoch(mode: Mode) -> Harness {
    let mut h = Harness::fresh(mode);
    h.event(ControllerEvent::Startup);
    h.respond(ZkResult::Error { code: ZkError::NoNode });
    assert!(matches!(h.pending(), ZkOp::Create { ref path, ephemeral: true, .. } if path == "/controller"));
    h.respond(ZkResult::Created { path: "/controller".into() });
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller_epoch".into(), watch: false });
    h.respond(ZkResult::Data { data: ZData::ControllerEpoch { epoch: 7 }, stat: stat(6) });
    assert!(matches!(h.pending(), ZkOp::SetData { ref path, version: 6, .. } if path == "/controller_epoch"));
    h
}

#[test]
fn one_oh_swallows_a_failed_epoch_bump_and_goes_on_with_the_old_epoch() {
    let one_oh = mode_where(|b| b.epoch_bump_failure_swallowed);
    let mut h = won_and_read_epoch(one_oh);
    h.respond(ZkResult::Error { code: ZkError::BadVersion });
    assert_eq!(
        h.decisions()[1..],
        [Mark::ControllerEpochBumpFailed { broker: 3, controller_epoch: 7, swallowed: true }]
    );
    assert!(h.logged("Incremented epoch to 7"), "KC:693 logs the epoch it kept");
    assert_eq!((h.c.active_id, h.c.ctx.epoch), (3, 7));
    // The failover goes on: registerIsrChangeNotificationListener is next.
    assert_eq!(h.pending(), ZkOp::GetChildren { path: "/isr_change_notification".into(), watch: true });
}

#[test]
fn one_one_turns_a_failed_epoch_bump_into_an_unchecked_controller_move() {
    let later = mode_where(|b| !b.epoch_bump_failure_swallowed && !b.fenced_writes && !b.is_kraft());
    let mut h = won_and_read_epoch(later);
    h.respond(ZkResult::Error { code: ZkError::BadVersion });
    assert_eq!(
        h.decisions()[1..],
        [
            Mark::ControllerEpochBumpFailed { broker: 3, controller_epoch: 7, swallowed: false },
            Mark::ControllerResigned { broker: 3, controller_epoch: 7 },
            Mark::ControllerMoveTriggered { broker: 3, owner_checked: false },
        ]
    );
    assert!(!h.logged("Incremented epoch to"), "1.0's swallow-and-log line is not 1.1's");
    // triggerControllerMove deletes /controller whoever holds it.
    assert_eq!(h.pending(), ZkOp::Delete { path: "/controller".into(), version: -1 });
    assert_eq!(h.c.active_id, -1);
}

#[test]
fn a_controller_create_that_fails_with_sessionexpired_triggers_an_unchecked_controller_move() {
    let one_oh = mode_where(|b| !b.controller_move_checks_owner && !b.is_kraft());
    let mut h = Harness::fresh(one_oh);
    h.event(ControllerEvent::Startup);
    h.respond(ZkResult::Error { code: ZkError::NoNode });
    assert!(h.zk.outstanding.values().all(|o| o.raw), "ZKCheckedEphemeral creates on the raw handle");
    h.respond(ZkResult::Error { code: ZkError::SessionExpired });
    assert_eq!(h.decisions(), [Mark::ControllerMoveTriggered { broker: 3, owner_checked: false }]);
    assert!(h.logged("Error while electing or becoming controller on broker 3: SESSIONEXPIRED"));
    assert_eq!(h.pending(), ZkOp::Delete { path: "/controller".into(), version: -1 });
    assert!(!h.zk.outstanding.values().any(|o| o.raw), "the delete goes through ZkClient");
}

#[test]
fn with_the_owner_check_a_failed_create_deletes_nothing_held_by_another_broker() {
    let checks = mode_where(|b| b.controller_move_checks_owner);
    let mut h = Harness::fresh(checks);
    h.event(ControllerEvent::Startup);
    h.respond(ZkResult::Error { code: ZkError::NoNode });
    h.respond(ZkResult::Data { data: ZData::ControllerEpoch { epoch: 7 }, stat: stat(6) });
    assert!(matches!(h.pending(), ZkOp::Multi { .. }));
    h.respond(ZkResult::Error { code: ZkError::SessionExpired });
    // 2.1's triggerControllerMove re-reads /controller first (no watch): broker 1 holds it.
    assert_eq!(h.pending(), ZkOp::GetData { path: "/controller".into(), watch: false });
    h.respond(ZkResult::Data { data: ZData::Controller { broker_id: 1, timestamp: 0 }, stat: stat(0) });
    assert!(h.logged("Controller has already moved when trying to trigger controller movement"));
    assert!(h.decisions().is_empty() && h.nothing_pending() && h.c.active_id == 1);
}
