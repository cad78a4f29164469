use super::*;
use crate::consumer::coordinator_partition;
use crate::controller::ControllerEvent;
use crate::effects::Effect;
use crate::ids::NO_LEADER;
use crate::ids::{NodeId, TopicPartition};
use crate::message::{ClientError, PartitionStateInfo};
use crate::message::{ConnectResult, Payload};
use crate::scenario::builtin;
use crate::scenario::OFFSETS_TOPIC;
use crate::vec_map::VecMap;
use crate::zk_client::{ConnState, Purpose};
use crate::znodes::ZData;
use crate::zookeeper::ops::{ZkError, ZkOp, ZkResult};
use alloc::vec;
use alloc::vec::Vec;

fn cfg() -> Config {
    builtin("seed-incident").expect("built-in").config().expect("valid")
}

fn offsets3() -> TopicPartition {
    TopicPartition::new(OFFSETS_TOPIC, 3)
}

fn info(leader: BrokerId, leader_epoch: i32, isr: &[BrokerId], controller_epoch: i32) -> PartitionStateInfo {
    PartitionStateInfo {
        tp: offsets3(),
        leader,
        leader_epoch,
        isr: isr.to_vec(),
        zk_version: 27,
        controller_epoch,
        replicas: vec![3, 1, 2],
    }
}

/// Broker 1, which has heard of controller epoch 8.
fn broker_at_epoch_8() -> Broker {
    let mut b = Broker::new(1);
    b.alive = true;
    b.controller_epoch = 8;
    b
}

#[test]
fn leader_and_isr_from_a_stale_controller_epoch_is_rejected_and_changes_nothing() {
    let mut b = broker_at_epoch_8();
    let mut out = Outbox::default();
    assert!(!b.on_leader_and_isr(3, 7, vec![Rc::new(info(1, 14, &[1, 2], 7))], &mut out));
    assert!(b.partitions.is_empty() && b.owned_offsets_partitions.is_empty());
    assert_eq!(b.controller_epoch, 8);
    let l = out.logs();
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].0, EventKind::ControlRejected);
    assert!(l[0].1.contains("with epoch 7 since its controller epoch is old. Latest known controller epoch is 8"));
}

#[test]
fn leader_and_isr_makes_a_leader_that_loads_its_groups_and_an_older_leader_epoch_is_ignored() {
    let mut b = broker_at_epoch_8();
    let mut out = Outbox::default();
    assert!(b.on_leader_and_isr(2, 9, vec![Rc::new(info(1, 14, &[1, 2], 9))], &mut out));
    assert_eq!(b.controller_epoch, 9, "a newer controller epoch is adopted");
    let lp = &b.partitions[&offsets3()];
    assert!(lp.is_leader && lp.leader_epoch == 14 && lp.isr == vec![1, 2]);
    assert!(b.owned_offsets_partitions.contains(&3), "GroupCoordinator immigration");
    // A request carrying the same leader epoch again is ignored.
    let mut out = Outbox::default();
    assert!(b.on_leader_and_isr(2, 9, vec![Rc::new(info(2, 14, &[2], 9))], &mut out));
    assert!(b.partitions[&offsets3()].is_leader);
    assert!(out.logs()[0].1.contains("since its leader epoch 14 is not higher than the current leader epoch 14"));
}

#[test]
fn a_leader_told_leader_minus_1_keeps_acting_as_leader_and_coordinator() {
    let mut b = broker_at_epoch_8();
    let mut out = Outbox::default();
    b.on_leader_and_isr(3, 8, vec![Rc::new(info(1, 14, &[1, 2], 8))], &mut out);
    let mut out = Outbox::default();
    assert!(b.on_leader_and_isr(3, 8, vec![Rc::new(info(NO_LEADER, 15, &[2], 8))], &mut out));
    assert!(out.logs()[0].1.contains("cannot become follower for partition __consumer_offsets-3 since the new leader -1 is unavailable; local state unchanged (still acting as its leader)"));
    let lp = &b.partitions[&offsets3()];
    assert!(lp.is_leader && lp.leader_epoch == 14);
    assert!(b.owned_offsets_partitions.contains(&3));
}

#[test]
fn update_metadata_from_an_old_controller_is_rejected_and_find_coordinator_reads_the_cache() {
    let cfg = cfg();
    let group = "payments-group";
    assert_eq!(coordinator_partition(group, cfg.offsets_partitions), 3, "the incident's group");
    let mut b = broker_at_epoch_8();
    let mut out = Outbox::default();
    assert!(!b.on_update_metadata(3, 7, vec![1, 2, 3], vec![Rc::new(info(3, 13, &[3, 1, 2], 7))], &mut out));
    assert!(out.logs()[0].1.contains("(ControllerMovedException)"));
    assert_eq!(b.find_coordinator(group, &cfg), Err(ClientError::CoordinatorNotAvailable), "nothing cached");
    let mut out = Outbox::default();
    assert!(b.on_update_metadata(2, 8, vec![1, 2], vec![Rc::new(info(2, 15, &[2], 8))], &mut out));
    assert_eq!(b.find_coordinator(group, &cfg), Ok(2));
    assert!(b.on_update_metadata(2, 8, vec![1, 2], vec![Rc::new(info(NO_LEADER, 16, &[2], 8))], &mut out));
    assert_eq!(b.find_coordinator(group, &cfg), Err(ClientError::CoordinatorNotAvailable));
}

#[test]
fn update_metadata_caches_the_last_state_of_each_partition_in_any_order() {
    // The cache is merged with the request in one walk; whatever the order (sorted, reversed,
    // repeated partitions), it must end as one insert per state, in request order, would.
    let state = |p: u32, leader: BrokerId| {
        Rc::new(PartitionStateInfo { tp: TopicPartition::new(OFFSETS_TOPIC, p), ..info(leader, 1, &[leader], 8) })
    };
    let requests: [Vec<Rc<PartitionStateInfo>>; 4] = [
        vec![state(1, 1), state(3, 2), state(5, 3)],
        vec![state(6, 1), state(4, 2), state(2, 3), state(0, 1)],
        vec![state(2, 2), state(2, 1), state(7, 3), state(1, 3), state(7, 2)],
        vec![state(0, 3), state(3, 3), state(3, 1), state(9, 2), state(8, 1)],
    ];
    let mut b = broker_at_epoch_8();
    let mut expected: VecMap<TopicPartition, Rc<PartitionStateInfo>> = VecMap::new();
    for parts in requests {
        for p in &parts {
            expected.insert(p.tp.clone(), p.clone());
        }
        assert!(b.on_update_metadata(2, 8, vec![1, 2, 3], parts, &mut Outbox::default()));
        assert_eq!(b.metadata.partitions, expected);
    }
}

#[test]
fn a_dead_broker_runs_no_controller_thread() {
    let cfg = cfg();
    let mut b = Broker::new(1);
    b.controller.enqueue(ControllerEvent::Startup);
    let mut out = Outbox::default();
    b.controller_run(&cfg, &mut out);
    assert!(out.effects.is_empty() && b.controller.queue.len() == 1);
    b.alive = true;
    b.zk.session = Some(5);
    b.zk.state = ConnState::Connected;
    b.controller_run(&cfg, &mut out);
    let elect = ZkOp::GetData { path: "/controller".into(), watch: true };
    assert!(matches!(
        &out.effects[..],
        [Effect::Send { to: NodeId::ZK, payload: Payload::ZkRequest { session: 5, op, controller: true, .. } }] if **op == elect
    ));
    assert_eq!(b.controller.job.as_ref().and_then(|j| j.waiting_on()).as_deref(), Some("elect"));
}

#[test]
fn zkclient_keeps_its_requests_for_the_new_session_but_the_raw_controller_create_fails() {
    let cfg = cfg();
    assert!(cfg.behaviour().retry_after_expiry, "seed-incident opens in 1.0's ZkClient behaviour");
    let mut b = Broker::new(1);
    b.alive = true;
    b.set_started();
    b.zk.session = Some(5);
    b.zk.state = ConnState::Connected;
    b.controller.enqueue(ControllerEvent::Startup);
    let mut out = Outbox::default();
    b.controller_run(&cfg, &mut out);
    let xid = *b.zk.outstanding.keys().next().unwrap();
    b.on_zk_response(5, xid, ZkResult::Error { code: ZkError::NoNode }, &cfg, &mut out);
    assert!(b.zk.outstanding.values().any(|o| o.raw), "elect's create is on the raw handle");
    let read = ZkOp::GetData { path: "/brokers/ids".into(), watch: false };
    b.zk.send(read.clone(), Purpose::ControllerWatch, &mut out);
    let mut out = Outbox::default();
    b.on_zk_connect_response(ConnectResult::Expired, &cfg, &mut out);
    b.controller_run(&cfg, &mut out);
    let marks = out.marks();
    assert!(marks.contains(&crate::mark::Mark::SessionExpiryLearned {
        broker: 1,
        failed_requests: 1,
        failed_writes: Vec::new()
    }));
    assert!(marks.contains(&crate::mark::Mark::ControllerMoveTriggered { broker: 1, owner_checked: false }));
    let ops: Vec<&ZkOp> = b.zk.outstanding.values().map(|o| &*o.op).collect();
    assert_eq!(ops.len(), 2, "{ops:?}");
    assert!(ops.contains(&&read), "ZkClient's own request waits for the new session");
    assert!(ops.contains(&&ZkOp::Delete { path: "/controller".into(), version: -1 }), "triggerControllerMove");
}

/// 1.0: a reset while `elect` reads the `/controller` holder after NODEEXISTS loses the read
/// (CONNECTIONLOSS, not retried): the catch-all runs `triggerControllerMove`, whose delete
/// waits for the next connection. The client sleeps U[0,1000) ms, moves to the next server,
/// sends SetWatches first, then what was queued (the delete), then ZkClient's retried read.
#[test]
fn a_reset_under_the_holder_read_makes_one_oh_delete_the_controller_znode_after_the_reconnect() {
    let cfg = cfg();
    assert!(cfg.behaviour().owner_read_fails_on_connection_loss);
    let (zk1, zk3) = (NodeId::Zk(1), NodeId::Zk(3));
    let mut b = Broker::new(2);
    b.alive = true;
    b.set_started();
    b.zk.session = Some(5);
    b.zk.servers = vec![zk1, zk3, NodeId::Zk(2)];
    b.zk.connected();
    b.controller.enqueue(ControllerEvent::Reelect);
    let mut out = Outbox::default();
    b.controller_run(&cfg, &mut out);
    let next = |b: &Broker| *b.zk.outstanding.keys().last().unwrap();
    // Reelect reads /controller (none), creates it, and the create finds it held.
    for _ in 0..4 {
        let o = b.zk.outstanding.values().last().unwrap().clone();
        if o.raw && !o.op.is_write() {
            break;
        }
        let answer = if o.op.is_write() { ZkError::NodeExists } else { ZkError::NoNode };
        b.on_zk_response(5, next(&b), ZkResult::Error { code: answer }, &cfg, &mut out);
    }
    let holder = b.zk.outstanding.values().last().unwrap();
    assert!(holder.raw && matches!(&*holder.op, ZkOp::GetData { watch: false, .. }), "{holder:?}");
    // ZkClient's own re-read of /controller is in flight too; it watches /brokers/ids, and
    // /controller since its read found none.
    let reread = ZkOp::GetData { path: "/controller".into(), watch: true };
    b.zk.send(reread.clone(), Purpose::ControllerWatch, &mut out);
    b.zk.note_watch(
        &ZkOp::GetChildren { path: "/brokers/ids".into(), watch: true },
        &ZkResult::Children { names: vec!["1".into(), "2".into()] },
    );

    let mut out = Outbox::default();
    assert!(!b.on_zk_reset(zk3, &cfg, &mut out), "not its connection: nothing happens");
    assert!(out.effects.is_empty());
    assert!(b.on_zk_reset(zk1, &cfg, &mut out));
    let marks = out.marks();
    assert!(marks.contains(&crate::mark::Mark::ControllerOwnerReadLost { broker: 2 }), "{marks:?}");
    assert!(marks.contains(&crate::mark::Mark::ControllerMoveTriggered { broker: 2, owner_checked: false }));
    assert!(out.sent().is_empty(), "disconnected: nothing goes out");
    let sleep = out.effects.iter().find_map(|e| match e {
        Effect::RandomTimer { after_ms, up_to_ms, timer: Timer::ZkReconnect { gen } } => {
            Some((*after_ms, *up_to_ms, *gen))
        }
        _ => None,
    });
    let gen = b.zk.conn_gen;
    assert_eq!(sleep, Some((0, 999, gen)), "r.nextInt(1000), no spin: zk3 is not the last server used");
    let ops: Vec<ZkOp> = b.zk.outstanding.values().map(|o| ZkOp::clone(&o.op)).collect();
    assert_eq!(ops, vec![reread.clone(), ZkOp::Delete { path: "/controller".into(), version: -1 }]);

    // The sleep is over: the client connects to zk3, resuming session 5.
    let mut out = Outbox::default();
    b.on_timer(&Timer::ZkReconnect { gen }, true, None, &cfg, &mut out);
    assert_eq!(out.sent(), vec![(zk3, Payload::ZkConnect { session: Some(5), timeout_ms: cfg.session_timeout_ms })]);
    let mut out = Outbox::default();
    b.on_zk_connect_response(ConnectResult::Connected(5), &cfg, &mut out);
    let sent: Vec<Payload> = out
        .sent()
        .into_iter()
        .map(|(to, p)| {
            assert_eq!(to, zk3);
            p
        })
        .collect();
    assert!(matches!(&sent[0], Payload::ZkSetWatches { session: 5, watches } if watches.len() == 2), "{sent:?}");
    let ops: Vec<&ZkOp> = sent[1..]
        .iter()
        .filter_map(|p| match p {
            Payload::ZkRequest { op, .. } => Some(&**op),
            _ => None,
        })
        .collect();
    assert_eq!(
        ops,
        vec![&ZkOp::Delete { path: "/controller".into(), version: -1 }, &reread],
        "queued first, retried after"
    );
}

/// StaticHostProvider's spinDelay: coming back round to the server last connected to costs a
/// second more than the random sleep.
#[test]
fn the_reconnect_sleep_adds_the_spin_delay_when_the_list_comes_back_round() {
    let mut c = crate::zk_client::ZkClient::default();
    c.servers = vec![NodeId::Zk(1), NodeId::Zk(2)];
    assert_eq!(c.reconnect_delay(), None, "never connected: the first attempt does not sleep");
    c.connected();
    assert_eq!(c.reconnect_delay(), Some((0, 999)), "next is zk2");
    let _ = c.next_server();
    assert_eq!(c.reconnect_delay(), Some((1000, 999)), "next is zk1 again, the last one connected");
}

#[test]
fn a_refused_isr_write_is_tried_and_refused_again_at_every_isr_expiration_run() {
    let cfg = cfg();
    let mut b = broker_at_epoch_8();
    b.zk.session = Some(5);
    b.zk.state = ConnState::Connected;
    let mut out = Outbox::default();
    assert!(b.on_leader_and_isr(3, 8, vec![Rc::new(info(1, 14, &[1, 2], 8))], &mut out));
    let mut only_me = |_: usize, _: &TopicPartition, _: &LocalPartition| 0;
    assert_eq!(b.isr_check_due(&mut only_me, &cfg), Some(cfg.replica_lag_ms), "the first shrink");
    for run in 0..3 {
        let mut out = Outbox::default();
        b.isr_check(&mut only_me, &mut out);
        let xid = *b.zk.outstanding.keys().next().expect("the ISR write is sent again");
        let done = b.zk.complete(xid).unwrap();
        assert!(matches!(*done.op, ZkOp::SetData { version: 27, .. }), "run {run}: {:?}", done.op);
        b.on_isr_write(&offsets3(), vec![1], ZkResult::Error { code: ZkError::BadVersion }, &mut out);
        let refused = crate::mark::Mark::IsrUpdateRefused {
            broker: 1,
            partition: offsets3(),
            cached_zk_version: 27,
            code: "BADVERSION".into(),
        };
        assert_eq!(out.marks(), vec![refused], "run {run}: logged again");
        assert_eq!(b.isr_check_due(&mut only_me, &cfg), Some(cfg.replica_lag_ms / 2), "next isr-expiration run");
    }
    // The model stops after ISR_REFUSAL_REPEATS refusals (Kafka never stops).
    Rc::make_mut(&mut b.partitions).get_mut(&offsets3()).unwrap().isr_refusals = ISR_REFUSAL_REPEATS;
    assert_eq!(b.isr_check_due(&mut only_me, &cfg), None);
}

#[test]
fn isr_changes_are_propagated_together_after_a_5_s_blackout_once_one_went_out_in_the_last_60_s() {
    let mut b = broker_at_epoch_8();
    b.zk.session = Some(5);
    b.zk.state = ConnState::Connected;
    let tp = |p| TopicPartition::new(OFFSETS_TOPIC, p);
    let created = |out: &Outbox| -> Vec<Vec<TopicPartition>> {
        out.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Send { payload: Payload::ZkRequest { op, .. }, .. } => match &**op {
                    ZkOp::Create { path, data: ZData::IsrChange { partitions }, sequential: true, .. }
                        if path == "/isr_change_notification/isr_change_" =>
                    {
                        Some(partitions.clone())
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect()
    };
    let timers = |out: &Outbox| -> Vec<u64> {
        out.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Timer { after_ms, timer: Timer::IsrPropagation } => Some(*after_ms),
                _ => None,
            })
            .collect()
    };
    // A lone change (no propagation in the last 60 s) goes out at the task's next run.
    let mut out = Outbox::default();
    b.now_ms = 1000;
    b.record_isr_change(&tp(1), &mut out);
    assert_eq!(timers(&out), vec![1500], "the 2.5 s task's next run");
    assert!(created(&out).is_empty(), "nothing written at the change itself");
    b.now_ms = 2500;
    let mut out = Outbox::default();
    b.maybe_propagate_isr_changes(&mut out);
    assert_eq!(created(&out), vec![vec![tp(1)]]);
    // Two more changes within 60 s of it: both wait until 5 s passed without a change.
    let mut out = Outbox::default();
    b.now_ms = 3000;
    b.record_isr_change(&tp(2), &mut out);
    b.now_ms = 4000;
    b.record_isr_change(&tp(4), &mut out);
    assert_eq!(timers(&out), vec![2000], "one run scheduled");
    for at in [5000, 7500] {
        b.now_ms = at;
        let mut out = Outbox::default();
        b.maybe_propagate_isr_changes(&mut out);
        assert!(created(&out).is_empty(), "at {at}: last change at 4000, inside the 5 s blackout");
        assert_eq!(timers(&out), vec![2500]);
    }
    b.now_ms = 10000;
    let mut out = Outbox::default();
    b.maybe_propagate_isr_changes(&mut out);
    assert_eq!(created(&out), vec![vec![tp(2), tp(4)]], "one znode for both");
    assert!(out
        .marks()
        .contains(&crate::mark::Mark::IsrChangesPropagated { broker: 1, partitions: vec![tp(2), tp(4)] }));
    assert!(timers(&out).is_empty() && b.isr_change_set.is_empty());
}
