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
                control_plane: zk,
            },
            Mode::Kafka11 => Behaviour {
                retry_after_expiry: false,
                expire_event: true,
                reread_controller_on_change: true,
                fenced_writes: false,
                control_plane: zk,
            },
            Mode::Fenced => Behaviour {
                retry_after_expiry: true,
                expire_event: false,
                reread_controller_on_change: false,
                fenced_writes: true,
                control_plane: zk,
            },
            Mode::Kraft => Behaviour {
                retry_after_expiry: false,
                expire_event: false,
                reread_controller_on_change: false,
                fenced_writes: false,
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
        assert_eq!(Behaviour { fenced_writes: false, ..fenced }, legacy);
        assert!(Mode::Kraft.behaviour().is_kraft() && !legacy.is_kraft());
    }
}
