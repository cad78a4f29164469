//! The one seam where Kafka versions differ. A [`Mode`] names a Kafka behaviour; [`Behaviour`] is
//! what that behaviour *does*, as named properties derived once from the mode. The controller, the
//! brokers, the world, the view and the explorer ask these properties; no other file of the core
//! names a `Mode` variant (the scenario parser aside, which only reads and writes the name).
//!
//! `legacy` is Kafka 1.0.0 (`ZkUtils` over I0Itec `ZkClient`), `1.1` is Kafka 1.1.0 (KAFKA-5642's
//! `KafkaZkClient`/`ZooKeeperClient`), and `fenced` is Kafka 2.1.0: 1.1's client and controller plus
//! KAFKA-6082's fence. `fenced` is *not* "legacy plus the fence": it has no retry after expiry, the
//! `Expire` event, `maybeResign`, the batched state machines and `RegisterBrokerAndReelect` of 1.1.
//! The names `1.0` and `2.1` are accepted everywhere a mode is parsed, as aliases of `legacy` and
//! `fenced`.
//!
//! | property | legacy (1.0.0) | 1.1 (1.1.0) | fenced (2.1.0) | kraft |
//! |---|---|---|---|---|
//! | [`retry_after_expiry`](Behaviour::retry_after_expiry) | yes | no | no | – |
//! | [`expire_event`](Behaviour::expire_event) | no | yes | yes | – |
//! | [`reread_controller_on_change`](Behaviour::reread_controller_on_change) | no | yes | yes | – |
//! | [`fenced_writes`](Behaviour::fenced_writes) | no | no | yes | – |
//! | [`batched_elections`](Behaviour::batched_elections) | no | yes | yes | – |
//! | [`batched_isr_removal`](Behaviour::batched_isr_removal) | no | yes | yes | – |
//! | [`pipelined_notification_deletes`](Behaviour::pipelined_notification_deletes) | no | yes | yes | – |
//! | [`register_on_controller_thread`](Behaviour::register_on_controller_thread) | no | yes | yes | – |
//! | [`controller_move_checks_owner`](Behaviour::controller_move_checks_owner) | no | no | yes | – |
//! | [`epoch_bump_failure_swallowed`](Behaviour::epoch_bump_failure_swallowed) | yes | no | – (bumped in the create) | – |
//! | [`context_reads_one_by_one`](Behaviour::context_reads_one_by_one) | yes | no | no | – |
//! | [`owner_read_fails_on_connection_loss`](Behaviour::owner_read_fails_on_connection_loss) | yes | no | no | – |
//! | [`expire_waits_under_init_lock`](Behaviour::expire_waits_under_init_lock) | – (no `Expire`) | yes (KAFKA-6879) | no | – |
//! | [`control_plane`](Behaviour::control_plane) | ZooKeeper | ZooKeeper | ZooKeeper | KRaft quorum |
//!
//! Sources, by property (paths under `core/src/main/scala/kafka/`; KC = `controller/KafkaController.scala`,
//! PSM = `controller/PartitionStateMachine.scala`, RSM = `controller/ReplicaStateMachine.scala`,
//! KZC = `zk/KafkaZkClient.scala`):
//! - `retry_after_expiry`: 1.0.0 `ZkUtils` wraps I0Itec `ZkClient`, whose `retryUntilConnected`
//!   (zkclient 0.10 `ZkClient.java`) retries after `SessionExpiredException` on the new session;
//!   1.1.0 KZC:1440 and 2.1.0 KZC:1592 `retryRequestsUntilConnected` retry only `CONNECTIONLOSS`.
//! - `expire_event`: `StateChangeHandler.beforeInitializingSession` puts `Expire` with `clearAndPut`
//!   (1.1.0 KC:160, 2.1.0 KC:167); `Expire.process` sets `activeControllerId = -1` and calls
//!   `onControllerResignation()` (1.1.0 KC:1493, 2.1.0 KC:1522).
//! - `reread_controller_on_change`: `ControllerChange.process` reads `/controller` when processed
//!   (1.1.0 KC:1456; 2.1.0 KC:1495 → `maybeResign` KC:1191); 1.0.0 `ControllerChange(newControllerId)`
//!   carries the id read when the listener fired.
//! - `fenced_writes`: 2.1.0 KZC:97 `registerControllerAndIncrementControllerEpoch` (create
//!   `/controller` and bump `/controller_epoch` in one `multi`), and every controller write carries
//!   `controllerZkVersionCheck(expectedControllerEpochZkVersion)` (KZC:1699, a `ZkVersionCheck` that
//!   `ZooKeeperClient.send`, 2.1.0 `zookeeper/ZooKeeperClient.scala`:167, turns into
//!   `multi(check, op)`, :198/:215); a failed check is
//!   `ControllerMovedException` (KZC:1706 `maybeThrowControllerMoveException`). The writes the model
//!   makes and where 2.1.0 checks them: partition state setData KZC:189, state create KZC:205,
//!   `/isr_change_notification` deletes KZC:951, `/controller` delete KZC:1010.
//!   (`wrapRequestWithControllerEpochCheck` is 2.2.0's name; 2.1.0 has none of that name.)
//! - `batched_elections`: `PSM.doElectLeaderForPartitions` (1.1.0 PSM:276, 2.1.0 PSM:314): one
//!   pipelined read of the partitions' state znodes (`getTopicPartitionStatesRaw`, 2.1.0 KZC:176),
//!   then one pipelined `updateLeaderAndIsr` (2.1.0 KZC:245), each a conditional setData.
//! - `batched_isr_removal`: `RSM.doRemoveReplicasFromIsr` (1.1.0 RSM:282, 2.1.0 RSM:294), one batch
//!   per dead replica (2.1.0 RSM:104 `groupBy(_.replica)`), with
//!   `adjustedIsr = if (isr.size == 1) isr else isr - r` (1.1.0 RSM:290, 2.1.0 RSM:302): the last
//!   ISR member is kept whatever `unclean.leader.election.enable` says.
//! - `pipelined_notification_deletes`: `deleteIsrChangeNotifications(sequenceNumbers)` sends one
//!   delete per notification, pipelined (1.1.0 KZC:823; 2.1.0 KZC:951, each with the epoch check).
//! - `register_on_controller_thread`: `afterInitializingSession` puts `RegisterBrokerAndReelect`
//!   (1.1.0 KC:157, 2.1.0 KC:164), which registers the broker (`registerBrokerInZk`, 1.1.0 KZC:82;
//!   `registerBroker`, 2.1.0 KZC:85) and then runs `Reelect` on the controller thread
//!   (1.1.0 KC:1483, 2.1.0 KC:1512). 1.0.0 registers in `KafkaHealthcheck`'s own listener.
//! - `controller_move_checks_owner`: 2.1.0 `triggerControllerMove` (KC:1174) re-reads `/controller`
//!   and deletes it (fenced) only if this broker still holds it; 1.0.0 (KC:1652) and 1.1.0
//!   (KC:1180) delete it unconditionally.
//! - `epoch_bump_failure_swallowed`: 1.0.0 `KafkaController.scala:665-694`
//!   (`incrementControllerEpoch`): a failed conditional update throws `ControllerMovedException`
//!   *inside* the `try`, whose `case oe: Throwable => error(...)` (:690) swallows it; `info(s"Incremented
//!   epoch to ${controllerContext.epoch}")` (:693) then logs the unchanged epoch and the failover goes on.
//!   1.1.0 `KafkaController.scala:612-640` throws it out of `onControllerFailover` into `elect`'s
//!   catch-all (:1214-1216), which calls `triggerControllerMove`.
//! - `context_reads_one_by_one`: 1.0.0 `KafkaController.scala:704-719` (`initializeControllerContext`)
//!   and `updateLeaderAndIsrCache` (:800-804) call `ZkUtils.getPartitionLeaderAndIsrForTopics`
//!   (1.0.0 `ZkUtils.scala:738-746`), one synchronous `readDataMaybeNull` per partition; 1.1.0
//!   `KafkaController.scala:725-726` calls `KafkaZkClient.getTopicPartitionStates`, one pipelined batch
//!   of async `GetDataRequest`s (`retryRequestsUntilConnected`).
//! - `owner_read_fails_on_connection_loss`: 1.0.0 `ZkUtils.scala:1093-1094` (`ZKCheckedEphemeral`'s
//!   create answered `NODEEXISTS` reads the holder with `getData` on the raw handle); its callback's
//!   `case _` (:1129-1131) takes `CONNECTIONLOSS` as the result, which `create()` throws (:1220-1221)
//!   as a plain `ZkException` into `elect`'s catch-all (KC:1692-1694) → `triggerControllerMove`.
//!   1.1.0 KZC:1492-1494 and 2.1.0 KZC:1647-1649 (`getAfterNodeExists`) retry it with
//!   `retryRequestUntilConnected`.
//! - `expire_waits_under_init_lock` (KAFKA-6879): 1.1.0 `zookeeper/ZooKeeperClient.scala`:356-364
//!   `scheduleSessionExpiryHandler` runs `beforeInitializingSession` *inside*
//!   `inWriteLock(initializationLock)`, and only then `initialize()` (the new session, :328-345)
//!   and `afterInitializingSession`; the controller's `beforeInitializingSession` (1.1.0 KC:160-164)
//!   does `clearAndPut(expireEvent)` and blocks in `expireEvent.waitUntilProcessed()`, a latch that
//!   `Expire.process` counts down as its first statement (KC:1497-1498, await at :1503-1505). Every
//!   ZooKeeper request takes the read lock (`handleRequests`, :137, via `retryRequestsUntilConnected`,
//!   KZC:1440-1444). So if the event the controller thread is processing when the session expires
//!   makes one more request after its call failed, the thread blocks on the read lock and never
//!   takes `Expire`, and the expiry thread holds the write lock waiting for it: no new session, ever.
//!   In 1.1.0 that happens when the failed call is inside `elect`'s `try` (KC:1199-1203: the
//!   create and all of `onControllerFailover`), whose catch-all (:1214-1216) calls
//!   `triggerControllerMove` → `onControllerResignation`, `activeControllerId = -1`,
//!   `zkClient.deleteController()` (:1180-1184), a request; or when `PartitionStateMachine`
//!   swallows it (`handleStateChanges`, 1.1.0 PSM:111-121) and `onControllerFailover` goes on to
//!   `fetchPendingPreferredReplicaElections` (KC:251, :661-662). With the thread idle, `Expire` is
//!   taken at once, counts the latch down first, and nothing blocks. 1.1.1 (KAFKA-6879, commit
//!   80396dab) calls the callbacks *before* taking the lock (1.1.1 ZooKeeperClient.scala:328-333,
//!   `callBeforeInitializingSession`); its rename of `waitUntilProcessed` to
//!   `waitUntilProcessingStarted` (1.1.1 KC:166, :1501-1507) changes nothing, the latch was already
//!   counted down first. 2.1.0 has the fix (ZooKeeperClient.scala:371-376; KC:173, :1527-1532).
//!   The model finds only these two paths: other events that swallow the error and go on to
//!   ZooKeeper (e.g. a `BrokerChange` whose election fails before `removeReplicasFromIsr`) let the
//!   error escape the event instead, as before.
//! - `control_plane`: KIP-500/595/631 (see [`crate::kraft`]).
use alloc::format;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// Which Kafka behaviour the brokers run. A scenario runs unchanged in each.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Kafka 0.11–1.0 (1.0.0): unfenced controller writes, ZkClient retrying on a new session (the
    /// bug). Also parsed as `1.0`.
    #[default]
    #[serde(alias = "1.0")]
    Legacy,
    /// Kafka 1.1.0 (KAFKA-5642's `KafkaZkClient`). The new `ZooKeeperClient` does not retry a
    /// request that failed with `SESSIONEXPIRED`, and on expiry
    /// (`StateChangeHandler.beforeInitializingSession`) the controller clears its event queue and
    /// processes `Expire` (resign) before the new session opens; `ControllerChange` re-reads
    /// `/controller` when processed; the broker re-registers through `RegisterBrokerAndReelect` on
    /// the controller thread; elections and ISR removals are batched (pipelined reads, then
    /// pipelined conditional writes). Controller writes are still unfenced, so a controller that
    /// moves *without* its session expiring (an operator deleting `/controller`) can still write.
    /// As shipped, 1.1.0 waits for `Expire` while holding `ZooKeeperClient`'s initialization lock,
    /// so a session that expires while the controller thread is inside `elect`/`onControllerFailover`
    /// deadlocks the broker's ZooKeeper client for good (KAFKA-6879,
    /// [`Behaviour::expire_waits_under_init_lock`]); 1.1.1 fixed that and behaves like 2.1.0 there.
    #[serde(rename = "1.1")]
    Kafka11,
    /// Kafka 2.1.0: everything 1.1.0 has, plus KAFKA-6082: `/controller` is created in the same
    /// `multi` as the epoch bump, every controller write is a `multi` that first checks the
    /// `/controller_epoch` version read at election (a failed check is `ControllerMovedException`
    /// and the controller resigns through `maybeResign`), and `triggerControllerMove` deletes
    /// `/controller` only if this broker still holds it. Also parsed as `2.1`.
    #[serde(alias = "2.1")]
    Fenced,
    /// A simplified KRaft (KIP-500/595/631): a Raft quorum of three controller voters instead of
    /// ZooKeeper; faults on a broker's link to ZooKeeper cut its links to every voter.
    Kraft,
}

/// Number of controller voters in a KRaft quorum (`controller.quorum.voters`): `q1..q3`.
pub const KRAFT_VOTERS: u32 = 3;

/// What holds the cluster's metadata and elects the controller.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ControlPlaneKind {
    /// A ZooKeeper ensemble; every broker runs a controller that races for `/controller`.
    ZooKeeper,
    /// A KRaft quorum of controller voters; brokers only follow its metadata log.
    Kraft,
}

/// What a Kafka behaviour does, as named properties (see the table in the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Behaviour {
    /// A ZooKeeper request that failed with `SESSIONEXPIRED` is retried on the next session
    /// (I0Itec `ZkClient.retryUntilConnected`). When false, expiry fails every pending request and
    /// only `CONNECTIONLOSS` is retried (`KafkaZkClient.retryRequestsUntilConnected`).
    pub retry_after_expiry: bool,
    /// On session expiry the controller's queue is cleared and `Expire` is processed first:
    /// `activeControllerId = -1`, `onControllerResignation()`.
    pub expire_event: bool,
    /// `ControllerChange` re-reads `/controller` when processed (`maybeResign`) instead of trusting
    /// the id it carried when enqueued.
    pub reread_controller_on_change: bool,
    /// `/controller` is created in one `multi` with the `/controller_epoch` bump, and every
    /// controller write is a `multi` that first checks the `/controller_epoch` version.
    pub fenced_writes: bool,
    /// Offline partitions are elected in one batch (`doElectLeaderForPartitions`): one pipelined
    /// read of their state znodes, then one pipelined set of conditional writes. When false, 1.0's
    /// loop reads and writes one partition at a time.
    pub batched_elections: bool,
    /// A dead replica leaves the ISR of all its partitions in one batch
    /// (`doRemoveReplicasFromIsr`), and a size-1 ISR is kept as it is. When false, 1.0's
    /// `removeReplicaFromIsr` goes one partition at a time and keeps the last member only when
    /// unclean election is off.
    pub batched_isr_removal: bool,
    /// `/isr_change_notification` children are deleted one request each, pipelined (and each
    /// fenced when writes are). When false, the model deletes them in one `multi`.
    pub pipelined_notification_deletes: bool,
    /// After a new session the broker re-registers through `RegisterBrokerAndReelect` on the
    /// controller's event thread; when false, `KafkaHealthcheck`'s listener registers at once.
    pub register_on_controller_thread: bool,
    /// `triggerControllerMove` re-reads `/controller` and deletes it only if this broker still
    /// holds it; when false it resigns and deletes `/controller` whoever holds it.
    pub controller_move_checks_owner: bool,
    /// A failed `/controller_epoch` bump is logged and ignored (1.0): the failover goes on with the
    /// old epoch. When false, it is `ControllerMovedException` out of `onControllerFailover`, caught
    /// by `elect`, which calls `triggerControllerMove`.
    pub epoch_bump_failure_swallowed: bool,
    /// `initializeControllerContext` / `updateLeaderAndIsrCache` read the partition state znodes one
    /// synchronous `getData` at a time (1.0); when false, in one pipelined batch (1.1+).
    pub context_reads_one_by_one: bool,
    /// `elect`'s read of `/controller` after its create found the node (`ZKCheckedEphemeral`'s
    /// `getData`, on the raw handle) fails with `CONNECTIONLOSS` when the connection drops under
    /// it, and `elect`'s catch-all then runs `triggerControllerMove` (1.0). When false, the read is
    /// retried on the next connection (1.1+).
    pub owner_read_fails_on_connection_loss: bool,
    /// KAFKA-6879 (1.1.0 only): the session-expiry handler holds `ZooKeeperClient`'s
    /// initialization write lock while it waits for the controller thread to take `Expire`. If the
    /// event in progress makes another ZooKeeper request after its call failed, that request
    /// blocks on the read lock: the controller thread and the expiry handler wait for each other
    /// forever and no new session is ever opened. When false (1.1.1, 2.1.0) the callbacks run
    /// before the lock is taken and the blocked request fails and lets the thread reach `Expire`.
    pub expire_waits_under_init_lock: bool,
    /// ZooKeeper or a KRaft quorum.
    pub control_plane: ControlPlaneKind,
}

impl Behaviour {
    /// True when the control plane is a KRaft quorum (no ZooKeeper, no broker-side controllers).
    pub fn is_kraft(self) -> bool {
        self.control_plane == ControlPlaneKind::Kraft
    }

    /// The controller voters' ids: `1..=KRAFT_VOTERS` with a KRaft quorum, none with ZooKeeper.
    pub fn voters(self) -> core::ops::RangeInclusive<u32> {
        1..=if self.is_kraft() { KRAFT_VOTERS } else { 0 }
    }
}

impl Mode {
    /// Every mode, oldest Kafka behaviour first.
    pub const ALL: [Mode; 4] = [Mode::Legacy, Mode::Kafka11, Mode::Fenced, Mode::Kraft];

    /// Parses a mode's [`name`](Mode::name), or an alias: `1.0` is `legacy`, `2.1` is `fenced`.
    pub fn parse(s: &str) -> Result<Mode, String> {
        let s = match s {
            "1.0" => "legacy",
            "2.1" => "fenced",
            other => other,
        };
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown mode '{s}' (modes: legacy or 1.0, 1.1, fenced or 2.1, kraft)"))
    }

    /// The name, as the CLI, scenario files and links spell it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Legacy => "legacy",
            Mode::Kafka11 => "1.1",
            Mode::Fenced => "fenced",
            Mode::Kraft => "kraft",
        }
    }

    /// The Kafka release whose code this behaviour follows (the module doc's table), as Kafka
    /// numbers it: what the tools' views name (`crate::tools::invocation`). `None` for kraft, which
    /// follows KIPs rather than one release.
    pub fn release(self) -> Option<&'static str> {
        match self {
            Mode::Legacy => Some("1.0.0"),
            Mode::Kafka11 => Some("1.1.0"),
            Mode::Fenced => Some("2.1.0"),
            Mode::Kraft => None,
        }
    }

    /// What this behaviour does.
    pub const fn behaviour(self) -> Behaviour {
        let zk = ControlPlaneKind::ZooKeeper;
        // 1.1.0: KAFKA-5642's KafkaZkClient and the controller built on it.
        let kafka_zk_client = Behaviour {
            retry_after_expiry: false,
            expire_event: true,
            reread_controller_on_change: true,
            fenced_writes: false,
            batched_elections: true,
            batched_isr_removal: true,
            pipelined_notification_deletes: true,
            register_on_controller_thread: true,
            controller_move_checks_owner: false,
            epoch_bump_failure_swallowed: false,
            context_reads_one_by_one: false,
            owner_read_fails_on_connection_loss: false,
            expire_waits_under_init_lock: true,
            control_plane: zk,
        };
        match self {
            Mode::Legacy => Behaviour {
                retry_after_expiry: true,
                expire_event: false,
                reread_controller_on_change: false,
                fenced_writes: false,
                batched_elections: false,
                batched_isr_removal: false,
                pipelined_notification_deletes: false,
                register_on_controller_thread: false,
                controller_move_checks_owner: false,
                epoch_bump_failure_swallowed: true,
                context_reads_one_by_one: true,
                owner_read_fails_on_connection_loss: true,
                expire_waits_under_init_lock: false,
                control_plane: zk,
            },
            Mode::Kafka11 => kafka_zk_client,
            // 2.1.0: 1.1.0 plus KAFKA-6082, and with 1.1.1's KAFKA-6879 fix.
            Mode::Fenced => Behaviour {
                fenced_writes: true,
                controller_move_checks_owner: true,
                expire_waits_under_init_lock: false,
                ..kafka_zk_client
            },
            Mode::Kraft => Behaviour {
                retry_after_expiry: false,
                expire_event: false,
                reread_controller_on_change: false,
                fenced_writes: false,
                batched_elections: false,
                batched_isr_removal: false,
                pipelined_notification_deletes: false,
                register_on_controller_thread: false,
                controller_move_checks_owner: false,
                epoch_bump_failure_swallowed: false,
                context_reads_one_by_one: false,
                owner_read_fails_on_connection_loss: false,
                expire_waits_under_init_lock: false,
                control_plane: ControlPlaneKind::Kraft,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse_and_fenced_is_1_1_plus_the_fence() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.name()), Ok(m));
        }
        assert_eq!(Mode::parse("1.0"), Ok(Mode::Legacy));
        assert_eq!(Mode::parse("2.1"), Ok(Mode::Fenced));
        assert!(Mode::parse("2.0").is_err());
        // Scenario files and links spell modes through serde: the aliases work there too, and a
        // mode is always written under its own name.
        assert_eq!(serde_json::from_str::<Mode>("\"2.1\"").unwrap(), Mode::Fenced);
        assert_eq!(serde_json::from_str::<Mode>("\"1.0\"").unwrap(), Mode::Legacy);
        assert_eq!(serde_json::to_string(&Mode::Fenced).unwrap(), "\"fenced\"");
        let legacy = Mode::Legacy.behaviour();
        let k11 = Mode::Kafka11.behaviour();
        assert!(!k11.retry_after_expiry && k11.expire_event && k11.reread_controller_on_change);
        assert!(k11.batched_elections && k11.batched_isr_removal && k11.register_on_controller_thread);
        assert!(!k11.fenced_writes && !k11.controller_move_checks_owner && legacy.retry_after_expiry);
        assert!(!legacy.batched_elections && !legacy.batched_isr_removal && !legacy.register_on_controller_thread);
        let fenced = Mode::Fenced.behaviour();
        assert_eq!(
            Behaviour {
                fenced_writes: false,
                controller_move_checks_owner: false,
                expire_waits_under_init_lock: true,
                ..fenced
            },
            k11
        );
        assert!(k11.expire_waits_under_init_lock && !fenced.expire_waits_under_init_lock);
        assert!(!legacy.expire_waits_under_init_lock && !Mode::Kraft.behaviour().expire_waits_under_init_lock);
        assert!(legacy.epoch_bump_failure_swallowed && legacy.context_reads_one_by_one);
        assert!(!k11.epoch_bump_failure_swallowed && !k11.context_reads_one_by_one);
        assert!(Mode::Kraft.behaviour().is_kraft() && !legacy.is_kraft());
    }
}
