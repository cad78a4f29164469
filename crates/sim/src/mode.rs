//! The one seam where Kafka versions differ. A [`Mode`] names a Kafka behaviour; [`Behaviour`] is
//! what that behaviour *does*, as named properties derived once from the mode. The controller, the
//! brokers, the world, the view and the explorer ask these properties; no other file of the core
//! names a `Mode` variant (the scenario parser aside, which only reads and writes the name).
//!
//! | property | legacy (0.11–1.0) | 1.1 (KAFKA-5642) | fenced (KAFKA-6082) | kraft |
//! |---|---|---|---|---|
//! | [`retry_after_expiry`](Behaviour::retry_after_expiry) | yes | no | yes | – |
//! | [`expire_event`](Behaviour::expire_event) | no | yes | no | – |
//! | [`reread_controller_on_change`](Behaviour::reread_controller_on_change) | no | yes | no | – |
//! | [`fenced_writes`](Behaviour::fenced_writes) | no | no | yes | – |
//! | [`epoch_bump_failure_swallowed`](Behaviour::epoch_bump_failure_swallowed) | yes | no | – (bumped in the create) | – |
//! | [`controller_move_checks_owner`](Behaviour::controller_move_checks_owner) | no | no | yes | – |
//! | [`context_reads_one_by_one`](Behaviour::context_reads_one_by_one) | yes | no | no | – |
//! | [`control_plane`](Behaviour::control_plane) | ZooKeeper | ZooKeeper | ZooKeeper | KRaft quorum |
//!
//! Sources, by property:
//! - `retry_after_expiry`: 1.0.0 `ZkUtils` wraps I0Itec `ZkClient`, whose `retryUntilConnected`
//!   (zkclient 0.10 `ZkClient.java`) retries after `SessionExpiredException` on the new session;
//!   1.1.0 `KafkaZkClient.retryRequestsUntilConnected` retries only `CONNECTIONLOSS`.
//! - `expire_event`: 1.1.0 `KafkaController.scala`, `StateChangeHandler.beforeInitializingSession`
//!   puts `Expire` with `clearAndPut`; `Expire.process` sets `activeControllerId = -1` and calls
//!   `onControllerResignation()`.
//! - `reread_controller_on_change`: 1.1.0 `ControllerChange.process` is `maybeResign()`, which reads
//!   `/controller` when processed; 1.0.0 `ControllerChange(newControllerId)` carries the id read
//!   when the listener fired.
//! - `fenced_writes`: 2.1.0 `KafkaZkClient.registerControllerAndIncrementControllerEpoch` (create
//!   `/controller` and bump `/controller_epoch` in one `multi`) and
//!   `wrapRequestWithControllerEpochCheck` (every controller write a `multi` whose first op checks
//!   the `/controller_epoch` version read at election; BADVERSION is `ControllerMovedException`).
//! - `epoch_bump_failure_swallowed`: 1.0.0 `KafkaController.scala:665-694`
//!   (`incrementControllerEpoch`): a failed conditional update throws `ControllerMovedException`
//!   *inside* the `try`, whose `case oe: Throwable => error(...)` (:690) swallows it; `info(s"Incremented
//!   epoch to ${controllerContext.epoch}")` (:693) then logs the unchanged epoch and the failover goes on.
//!   1.1.0 `KafkaController.scala:612-640` throws it out of `onControllerFailover` into `elect`'s
//!   catch-all (:1214-1216), which calls `triggerControllerMove`.
//! - `controller_move_checks_owner`: 1.0.0 `KafkaController.scala:1652-1656` and 1.1.0 :1180-1184
//!   `triggerControllerMove` resign, set `activeControllerId = -1` and delete `/controller` whoever
//!   holds it; 2.1.0 :1174-1189 first re-reads `/controller` and returns if it is not the owner, and
//!   deletes with the `/controller_epoch` version check.
//! - `context_reads_one_by_one`: 1.0.0 `KafkaController.scala:704-719` (`initializeControllerContext`)
//!   and `updateLeaderAndIsrCache` (:800-804) call `ZkUtils.getPartitionLeaderAndIsrForTopics`
//!   (1.0.0 `ZkUtils.scala:738-746`), one synchronous `readDataMaybeNull` per partition; 1.1.0
//!   `KafkaController.scala:725-726` calls `KafkaZkClient.getTopicPartitionStates`, one pipelined batch
//!   of async `GetDataRequest`s (`retryRequestsUntilConnected`).
//! - `control_plane`: KIP-500/595/631 (see [`crate::kraft`]).
use alloc::format;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// Which Kafka behaviour the brokers run. A scenario runs unchanged in each.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Kafka 0.11–1.0: unfenced controller writes, ZkClient retrying on a new session (the bug).
    #[default]
    Legacy,
    /// Kafka 1.1–2.0: legacy plus what KAFKA-5642 (1.1.0) changed. The new `ZooKeeperClient` does
    /// not retry a request that failed with `SESSIONEXPIRED`, and on expiry
    /// (`StateChangeHandler.beforeInitializingSession`) the controller clears its event queue and
    /// processes `Expire` (resign) before the new session opens; `ControllerChange` re-reads
    /// `/controller` when processed. Controller writes are still unfenced, so a controller that
    /// moves *without* its session expiring (an operator deleting `/controller`) can still write.
    #[serde(rename = "1.1")]
    Kafka11,
    /// Legacy plus exactly what KAFKA-6082 (released in 2.1.0) changed: `/controller` is created in
    /// the same `multi` as the epoch bump, and every controller write is a `multi` that first
    /// checks the `/controller_epoch` version read at election; a failed check is
    /// `ControllerMovedException` and the controller resigns (`maybeResign`).
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
    /// A failed `/controller_epoch` bump is logged and ignored (1.0): the failover goes on with the
    /// old epoch. When false, it is `ControllerMovedException` out of `onControllerFailover`, caught
    /// by `elect`, which calls `triggerControllerMove`.
    pub epoch_bump_failure_swallowed: bool,
    /// `triggerControllerMove` re-reads `/controller` and deletes it only if it is still ours
    /// (2.1.0); when false it deletes `/controller` whoever holds it (1.0, 1.1).
    pub controller_move_checks_owner: bool,
    /// `initializeControllerContext` / `updateLeaderAndIsrCache` read the partition state znodes one
    /// synchronous `getData` at a time (1.0); when false, in one pipelined batch (1.1+).
    pub context_reads_one_by_one: bool,
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

    /// Parses a mode's [`name`](Mode::name).
    pub fn parse(s: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown mode '{s}' (modes: legacy, 1.1, fenced, kraft)"))
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

    /// What this behaviour does.
    pub const fn behaviour(self) -> Behaviour {
        let zk = ControlPlaneKind::ZooKeeper;
        match self {
            Mode::Legacy => Behaviour {
                retry_after_expiry: true,
                expire_event: false,
                reread_controller_on_change: false,
                fenced_writes: false,
                epoch_bump_failure_swallowed: true,
                controller_move_checks_owner: false,
                context_reads_one_by_one: true,
                control_plane: zk,
            },
            Mode::Kafka11 => Behaviour {
                retry_after_expiry: false,
                expire_event: true,
                reread_controller_on_change: true,
                fenced_writes: false,
                epoch_bump_failure_swallowed: false,
                controller_move_checks_owner: false,
                context_reads_one_by_one: false,
                control_plane: zk,
            },
            Mode::Fenced => Behaviour {
                retry_after_expiry: true,
                expire_event: false,
                reread_controller_on_change: false,
                fenced_writes: true,
                epoch_bump_failure_swallowed: false,
                controller_move_checks_owner: true,
                context_reads_one_by_one: false,
                control_plane: zk,
            },
            Mode::Kraft => Behaviour {
                retry_after_expiry: false,
                expire_event: false,
                reread_controller_on_change: false,
                fenced_writes: false,
                epoch_bump_failure_swallowed: false,
                controller_move_checks_owner: false,
                context_reads_one_by_one: false,
                control_plane: ControlPlaneKind::Kraft,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_each_fix_changes_one_thing_from_legacy() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.name()), Ok(m));
        }
        assert!(Mode::parse("2.1").is_err());
        let legacy = Mode::Legacy.behaviour();
        let k11 = Mode::Kafka11.behaviour();
        assert!(!k11.retry_after_expiry && k11.expire_event && k11.reread_controller_on_change);
        assert!(!k11.fenced_writes && legacy.retry_after_expiry);
        let fenced = Mode::Fenced.behaviour();
        assert!(fenced.fenced_writes && fenced.controller_move_checks_owner && !legacy.controller_move_checks_owner);
        assert!(legacy.epoch_bump_failure_swallowed && legacy.context_reads_one_by_one);
        assert!(!k11.epoch_bump_failure_swallowed && !k11.context_reads_one_by_one);
        assert!(Mode::Kraft.behaviour().is_kraft() && !legacy.is_kraft());
    }
}
