//! `state-change.log`: the lines Kafka's `state.change.logger` writes, rendered from the run's
//! structured marks (never from the trace's prose), at the version the mode models.
//!
//! Layout: `config/log4j.properties` (1.0.0 `:30-34,86`) sends `state.change.logger` at TRACE to
//! `state-change.log` with `ConversionPattern=[%d] %p %m (%c)%n`. `%d` is log4j's ISO8601 date
//! `yyyy-MM-dd HH:mm:ss,SSS`; the model has no wall clock, so it is the step's virtual time from
//! the Unix epoch, in UTC (as `zk-shell` dates znodes). `%c` is `state.change.logger`
//! (1.0.0 `controller/StateChangeLogger.scala:24`). The message starts with the logger's ident,
//! `[Controller id=N epoch=E] ` (`StateChangeLogger.scala:41-43`, `withControllerEpoch` `:46`);
//! `TopicPartition` prints `topic-partition` (1.0.0 `common/TopicAndPartition.scala:40`).
//!
//! Lines, per mark (PSM = `controller/PartitionStateMachine.scala`, RSM =
//! `controller/ReplicaStateMachine.scala`, CCM = `controller/ControllerChannelManager.scala`):
//! - [`Mark::LeaderElected`], 1.0.0: `Elected leader $l for Offline partition $tp` (PSM:313), then
//!   `Changed partition $tp from OfflinePartition to OnlinePartition with leader $l` (PSM:170).
//!   1.1.0 (PSM:177) and 2.1.0 (PSM:212) write one line, `Changed partition $tp from
//!   OfflinePartition to OnlinePartition with state $leaderAndIsr`, where `LeaderAndIsr.toString`
//!   is `LeaderAndIsr(leader=$leader, leaderEpoch=$leaderEpoch, isr=$isr, zkVersion=$zkVersion)`
//!   (1.1.0/2.1.0 `api/LeaderAndIsr.scala:43-45`) and a Scala `List` prints `List(1, 2)`.
//! - [`Mark::IsrReplicaRemoved`] (the replica going OfflineReplica): the LeaderAndIsr carrying the
//!   shrunk ISR goes to the partition's other assigned replicas (1.0.0 RSM:213, 1.1.0 RSM:208-209,
//!   2.1.0 RSM:215-216), each logged when the batch is sent: `Sending $typeOfRequest LeaderAndIsr
//!   request $state to broker $broker for partition $topicPartition` (1.0.0 CCM:410, 1.1.0 CCM:406,
//!   2.1.0 CCM:408), `typeOfRequest` `become-leader` when the broker is the state's leader, else
//!   `become-follower` (1.0.0 CCM:406-409), and `$state` is `PartitionState(controllerEpoch=…,
//!   leader=…, leaderEpoch=…, isr=1,2, zkVersion=…, replicas=3,1,2, isNew=false)` (1.0.0
//!   `clients/…/requests/LeaderAndIsrRequest.java:291-298`; 1.1.0 and 2.1.0 `:293-300`), with `Utils.join(_, ",")`
//!   for the lists (1.0.0 `clients/…/utils/Utils.java:464-473`). This is
//!   where the leader -1 a controller wrote reaches the state-change log.
//!
//! Left out (the model has no fact to render them from): the `Started leader election` and
//! `Changed partition … to OfflinePartition` lines; `Changed state of replica … from … to
//! OfflineReplica` (the mark does not carry the replica's previous state); the LeaderAndIsr sends
//! after an election; UpdateMetadata and StopReplica sends; and every broker-side line
//! (`Handling LeaderAndIsr request correlationId …`, `Cached leader info …`), which print a
//! request's correlation id the model does not keep. Kafka groups one batch's `Sending` lines by
//! broker; here they follow the marks, partition by partition. Kraft mode has no such log.
use crate::event::Event;
use crate::ids::{BrokerId, TopicPartition};
use crate::mark::Mark;
use crate::world::World;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// The log4j level of a line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Level {
    /// `TRACE`.
    Trace,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Trace => "TRACE",
        }
    }
}

/// One line of `state-change.log`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Line {
    /// The step that wrote it.
    pub step: u64,
    /// Its virtual time, ms.
    pub time_ms: u64,
    /// Level.
    pub level: Level,
    /// The broker whose controller wrote it.
    pub controller: BrokerId,
    /// The controller epoch of the logger's ident.
    pub controller_epoch: i32,
    /// The message after the ident.
    pub message: String,
}

/// Which version's strings.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dialect {
    /// 1.0.0.
    Kafka10,
    /// 1.1.0 and 2.1.0 (the same strings for what is rendered here).
    Kafka11,
}

/// The lines of a run, collected step by step.
#[derive(Clone, Debug, Default)]
pub struct StateChangeLog {
    lines: Vec<Line>,
}

fn list(v: &[BrokerId], sep: &str) -> String {
    let mut s = String::new();
    for (k, b) in v.iter().enumerate() {
        let _ = write!(s, "{}{b}", if k > 0 { sep } else { "" });
    }
    s
}

impl StateChangeLog {
    /// Takes the lines `event` (the step just taken) writes; `world` is the world after it.
    pub fn observe(&mut self, event: &Event, world: &World) {
        let b = world.mode().behaviour();
        if b.is_kraft() {
            return;
        }
        let dialect = if b.batched_elections { Dialect::Kafka11 } else { Dialect::Kafka10 };
        for m in &event.marks {
            match m {
                Mark::LeaderElected {
                    controller,
                    partition,
                    leader,
                    leader_epoch,
                    isr,
                    controller_epoch,
                    zk_version,
                } => {
                    let mut push = |message| self.push(event, *controller, *controller_epoch, message);
                    match dialect {
                        Dialect::Kafka10 => {
                            push(format!("Elected leader {leader} for Offline partition {partition}"));
                            push(format!(
                                "Changed partition {partition} from OfflinePartition to OnlinePartition with leader {leader}"
                            ));
                        }
                        Dialect::Kafka11 => push(format!(
                            "Changed partition {partition} from OfflinePartition to OnlinePartition with state \
                             LeaderAndIsr(leader={leader}, leaderEpoch={leader_epoch}, isr=List({}), zkVersion={zk_version})",
                            list(isr, ", ")
                        )),
                    }
                }
                Mark::IsrReplicaRemoved {
                    controller,
                    partition,
                    replica,
                    leader,
                    leader_epoch,
                    isr,
                    controller_epoch,
                    zk_version,
                    ..
                } => {
                    let replicas = assignment(world, *controller, partition);
                    for to in replicas.iter().copied().filter(|r| *r != *replica && *r >= 0) {
                        let kind = if to == *leader { "become-leader" } else { "become-follower" };
                        self.push(
                            event,
                            *controller,
                            *controller_epoch,
                            format!(
                                "Sending {kind} LeaderAndIsr request PartitionState(controllerEpoch={controller_epoch}, \
                                 leader={leader}, leaderEpoch={leader_epoch}, isr={}, zkVersion={zk_version}, replicas={}, \
                                 isNew=false) to broker {to} for partition {partition}",
                                list(isr, ","),
                                list(&replicas, ",")
                            ),
                        );
                    }
                }
                _ => {}
            }
        }
    }

    fn push(&mut self, event: &Event, controller: BrokerId, controller_epoch: i32, message: String) {
        self.lines.push(Line {
            step: event.step,
            time_ms: event.time_ms,
            level: Level::Trace,
            controller,
            controller_epoch,
            message,
        });
    }

    /// The lines so far.
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }
}

/// The partition's replica assignment as `controller`'s context holds it.
fn assignment(world: &World, controller: BrokerId, tp: &TopicPartition) -> Vec<BrokerId> {
    world.broker(controller).and_then(|b| b.controller.ctx.assignment.get(tp).cloned()).unwrap_or_default()
}

/// log4j's `%d` (ISO8601: `yyyy-MM-dd HH:mm:ss,SSS`) of milliseconds from the Unix epoch, UTC:
/// the simulator's virtual time, and the importer's times read back as the logs wrote them.
pub fn log4j_date(ms: i64) -> String {
    let (y, m, d) = super::zk_shell::civil_date(ms.div_euclid(86_400_000));
    let rem = ms.rem_euclid(86_400_000);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02},{:03}",
        rem / 3_600_000,
        rem % 3_600_000 / 60_000,
        rem % 60_000 / 1000,
        rem % 1000
    )
}

/// The log file's text: `[%d] %p %m (%c)%n`.
pub fn render(lines: &[Line]) -> String {
    let mut s = String::new();
    for l in lines {
        let _ = writeln!(
            s,
            "[{}] {} [Controller id={} epoch={}] {} (state.change.logger)",
            log4j_date(l.time_ms as i64),
            l.level.name(),
            l.controller,
            l.controller_epoch,
            l.message
        );
    }
    s
}
