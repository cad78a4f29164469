//! A message's meaning: the text after the envelope and the logger prefix, read into an
//! [`Event`]. One matcher per meaning; each knows every wording Kafka's releases used for it.
//! Every wording is cited as `tag:file:line` (paths under `core/src/main/scala/kafka/` unless
//! said; **ZK** is apache/zookeeper, **zkclient** sgroschupf/zkclient) and listed in
//! `docs/log-formats.md`. Matching ignores case and reads partitions as `[t,3]`, `[t, 3]` or
//! `t-3`; it never reads past [`crate::envelope::SCAN_CAP`] bytes.
use crate::event::{Broker, Event, Partition};
use crate::text::{
    after_ci, alnum, broker, broker_after, find_ci, hex, i32_of, int, list, list_of, lower, partition, partition_after,
    skip_blank, starts_ci,
};
use alloc::vec::Vec;

/// What the envelope and the prefix already said.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ctx<'a> {
    /// The broker the logger prefix names.
    pub writer: Option<Broker>,
    /// The controller epoch the prefix states.
    pub epoch: Option<i32>,
    /// The partition the prefix names (`[Partition t-3 broker=1]`).
    pub partition: Option<&'a Partition>,
}

/// A recognised message: its event and the broker the text says wrote it.
#[derive(Clone, PartialEq, Debug)]
pub struct Found {
    pub event: Event,
    pub writer: Option<Broker>,
}

fn found(event: Event) -> Option<Found> {
    Some(Found { event, writer: None })
}

fn by(event: Event, writer: Option<Broker>) -> Option<Found> {
    Some(Found { event, writer })
}

// Trigger words, matched (ignoring case) where a word starts; a message is only examined by the
// matchers whose words it holds, so a line costs one scan.
const ELECTED: u64 = 1 << 0;
const ELECTING: u64 = 1 << 1;
const INCREMENTED: u64 = 1 << 2;
const RESIGN: u64 = 1 << 3;
const MOVED: u64 = 1 << 4;
const MOVED_EXC: u64 = 1 << 5;
const EXPIRED: u64 = 1 << 6;
const ESTABLISHMENT: u64 = 1 << 7;
const CONFLICT: u64 = 1 << 8;
const OWNER: u64 = 1 << 9;
const REGISTERED: u64 = 1 << 10;
const REGISTERING: u64 = 1 << 11;
const NEWLY: u64 = 1 << 12;
const SELECTED: u64 = 1 << 13;
const LEADERANDISR: u64 = 1 << 14;
const CHANGED: u64 = 1 << 15;
const OLD: u64 = 1 << 16;
const FAILED: u64 = 1 << 17;
const CACHED: u64 = 1 << 18;
const SHRINKING: u64 = 1 << 19;
const EXPANDING: u64 = 1 << 20;
const NO_REPLICA_EXC: u64 = 1 << 21;
const NO_BROKER_ISR: u64 = 1 << 22;
const NO_REPLICA_FOR: u64 = 1 << 23;
const SHUTTING: u64 = 1 << 24;
const CONTROLLED: u64 = 1 << 25;
const STARTED: u64 = 1 << 26;
const NEW_LEADER: u64 = 1 << 27;
const ERROR: u64 = 1 << 28;
const INITIATED: u64 = 1 << 29;
const IGNORING: u64 = 1 << 30;
const INITIALIZING: u64 = 1 << 31;
const ALREADY: u64 = 1 << 32;
const FROM_CONTROLLER: u64 = 1 << 33;
const SENT_BY: u64 = 1 << 34;

fn words(c: u8) -> &'static [(&'static [u8], u64)] {
    match c {
        b'a' => &[(b"already", ALREADY)],
        b'c' => &[
            (b"cached", CACHED),
            (b"changed", CHANGED),
            (b"conflict", CONFLICT),
            (b"controlled", CONTROLLED),
            (b"controllermovedexception", MOVED_EXC),
        ],
        b'e' => &[
            (b"elected", ELECTED),
            (b"electing", ELECTING),
            (b"error", ERROR),
            (b"establishment", ESTABLISHMENT),
            (b"expanding", EXPANDING),
            (b"expired", EXPIRED),
        ],
        b'f' => &[(b"failed", FAILED), (b"from controller ", FROM_CONTROLLER)],
        b'i' => &[
            (b"incremented", INCREMENTED),
            (b"initiated", INITIATED),
            (b"ignoring", IGNORING),
            (b"initializing", INITIALIZING),
        ],
        b'l' => &[(b"leaderandisr", LEADERANDISR)],
        b'm' => &[(b"moved", MOVED)],
        b'n' => &[
            (b"newly", NEWLY),
            (b"noreplicaonlineexception", NO_REPLICA_EXC),
            (b"no broker in isr", NO_BROKER_ISR),
            (b"no replica for partition", NO_REPLICA_FOR),
            (b"new leader", NEW_LEADER),
        ],
        b'o' => &[(b"old", OLD), (b"owner", OWNER)],
        b'r' => &[(b"resign", RESIGN), (b"registered", REGISTERED), (b"registering", REGISTERING)],
        b's' => &[
            (b"selected", SELECTED),
            (b"shrinking", SHRINKING),
            (b"shutting", SHUTTING),
            (b"started", STARTED),
            (b"sent by controller ", SENT_BY),
        ],
        _ => &[],
    }
}

fn scan(m: &[u8]) -> u64 {
    let mut has = 0u64;
    let mut prev_alnum = false;
    for (i, &b) in m.iter().enumerate() {
        let a = alnum(b);
        if a && !prev_alnum {
            for (w, bit) in words(lower(b)) {
                if has & bit == 0 && starts_ci(&m[i..], w) {
                    has |= bit;
                }
            }
        }
        prev_alnum = a;
    }
    has
}

/// The meaning of `msg` (a message without its logger prefix), if the importer knows it.
pub fn recognise(msg: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    let m = &msg[..msg.len().min(crate::envelope::SCAN_CAP)];
    let has = scan(m);
    if has == 0 {
        return None;
    }
    let on = |bits: u64| has & bits != 0;
    if on(ELECTED | INCREMENTED) {
        if let Some(f) = elected(m, ctx) {
            return Some(f);
        }
    }
    if on(ELECTING) {
        // "Error while electing or becoming leader on broker %d": 0.8.2.2:server/ZookeeperLeaderElector.scala:93,
        // 0.10.2.1:server/ZookeeperLeaderElector.scala:97; "... controller on broker %d":
        // 0.11.0.0:controller/KafkaController.scala:1589, 1.0.0:controller/KafkaController.scala:1693,
        // 1.1.0:controller/KafkaController.scala:1215, 2.1.0:controller/KafkaController.scala:1232 (". Trigger controller movement immediately").
        if let Some(r) = after_ci(m, b"error while electing or becoming ") {
            let b = broker_after(r, b" on broker ");
            return by(Event::ElectionError { broker: b }, b);
        }
    }
    if on(RESIGN) {
        if let Some(f) = resigned(m, ctx) {
            return Some(f);
        }
    }
    if on(MOVED | MOVED_EXC) {
        // "Controller moved to another broker. Aborting controller startup procedure" /
        // "... Aborting controlled shutdown": 0.8.2.2:controller/KafkaController.scala:228,677;
        // 1.0.0:controller/KafkaController.scala:671,1467; 2.1.0:zk/KafkaZkClient.scala:127.
        // "Controller moved to another broker when processing $event.": 2.1.0:controller/ControllerEventManager.scala:93,
        // 2.8.0:controller/KafkaController.scala:2462; "... when moving some partitions to $targetState state":
        // 2.1.0:controller/PartitionStateMachine.scala:137; "... replicas ...": 2.1.0:controller/ReplicaStateMachine.scala:111;
        // "because controller has moved to another broker": 2.1.0:controller/KafkaController.scala:604,627;
        // "Controller has already moved when trying to trigger controller movement": 2.1.0:controller/KafkaController.scala:1177.
        if find_ci(m, b"controller moved to another broker").is_some()
            || find_ci(m, b"controller has moved to another broker").is_some()
            || find_ci(m, b"controller has already moved").is_some()
            || find_ci(m, b"controllermovedexception").is_some()
        {
            return found(Event::ControllerMoved { new_controller: None });
        }
    }
    if on(EXPIRED | ESTABLISHMENT | INITIALIZING | REGISTERING) {
        if let Some(f) = session(m) {
            return Some(f);
        }
    }
    if on(CONFLICT | OWNER | ALREADY) {
        if let Some(f) = stale_registration(m) {
            return Some(f);
        }
    }
    if on(REGISTERED) {
        // "Registered broker %d at path %s with address %s:%d.": 0.8.2.2:utils/ZkUtils.scala:179;
        // "... with addresses: %s": 0.10.2.1:utils/ZkUtils.scala:396, 1.0.0:utils/ZkUtils.scala:428;
        // 1.1.0:zk/KafkaZkClient.scala:85, 2.1.0:zk/KafkaZkClient.scala:88, 2.8.0:zk/KafkaZkClient.scala:97.
        if let Some(r) = after_ci(m, b"registered broker ") {
            let b = broker(r).map(|x| x.0);
            return by(Event::Registered { broker: b }, b);
        }
    }
    if on(NEWLY) {
        if let Some(f) = brokers_changed(m) {
            return Some(f);
        }
    }
    if on(SELECTED) {
        // "Selected new leader and ISR %s for offline partition %s": 0.8.2.2:controller/PartitionLeaderSelector.scala:92,
        // 0.10.2.1:controller/PartitionLeaderSelector.scala:90, 1.0.0:controller/PartitionLeaderSelector.scala:90.
        if let Some(r) = after_ci(m, b"selected new leader and isr ") {
            let p = partition_after(r, b" for offline partition ").or_else(|| partition_after(r, b" for partition "));
            if let (Some(st), Some(p)) = (state(r), p) {
                return Some(selected(p, st, ctx));
            }
        }
    }
    if on(NEW_LEADER) {
        // "New leader and ISR for partition %s is %s": 0.8.2.2:controller/KafkaController.scala:1029,
        // 0.10.2.1:controller/KafkaController.scala:1094, 1.0.0:controller/KafkaController.scala:1097.
        if let Some(r) = after_ci(m, b"new leader and isr for partition ") {
            if let Some((p, n)) = partition(skip_blank(r)) {
                let r = &skip_blank(r)[n..];
                if let Some(st) = state(r) {
                    return Some(leader_isr(p, st));
                }
            }
        }
        // "New leader is %d" (the /controller listener): 0.8.2.2:server/ZookeeperLeaderElector.scala:123,
        // 0.10.2.1:server/ZookeeperLeaderElector.scala:128. Not "... election. New leader is %d" (a partition's).
        if starts_ci(m, b"new leader is ") {
            if let Some((c, _)) = broker(&m[14..]) {
                return found(Event::ControllerIs { controller: c, epoch: None });
            }
        }
    }
    if on(LEADERANDISR | OLD) {
        if let Some(f) = leader_and_isr(m, ctx) {
            return Some(f);
        }
    }
    if on(NO_REPLICA_EXC | NO_BROKER_ISR | NO_REPLICA_FOR) {
        if let Some(f) = leader_none(m, ctx) {
            return Some(f);
        }
    }
    if on(CHANGED) {
        if let Some(f) = changed(m, ctx) {
            return Some(f);
        }
    }
    if on(FAILED | INITIATED | ERROR) {
        if let Some(f) = failed(m, ctx) {
            return Some(f);
        }
    }
    if on(CACHED) {
        // "Cached zkVersion [%d] not equal to that in zookeeper, skip updating ISR": 0.8.2.2:cluster/Partition.scala:401,
        // 0.10.2.1:cluster/Partition.scala:481, 1.0.0:cluster/Partition.scala:572, 1.1.0:cluster/Partition.scala:679,
        // 2.1.0:cluster/Partition.scala:975; without brackets ("Cached zkVersion $zkVersion not equal"): 2.4.0:cluster/Partition.scala:1186.
        if let Some(r) = after_ci(m, b"cached zkversion ") {
            if find_ci(r, b"not equal to that in zookeeper").is_some() {
                let r = r.strip_prefix(b"[").unwrap_or(r);
                let cached = int(r).and_then(|(v, _)| i32::try_from(v).ok());
                return found(Event::ZkVersionSkip { partition: ctx.partition.cloned(), cached });
            }
        }
    }
    if on(SHRINKING | EXPANDING) {
        if let Some(f) = isr_change(m, ctx) {
            return Some(f);
        }
    }
    if on(SHUTTING | CONTROLLED | STARTED) {
        // "shutting down" (KafkaServer): 0.8.2.2:server/KafkaServer.scala:266, 1.0.0:server/KafkaServer.scala:505,
        // 1.1.0:server/KafkaServer.scala:547, 2.1.0:server/KafkaServer.scala:558, 2.8.0:server/KafkaServer.scala:657;
        // the same words from the request handler pool and the replica fetcher manager, which shut down only with the
        // broker (0.8.2.2:server/KafkaRequestHandler.scala:87, server/ReplicaFetcherManager.scala:31). Threads write
        // "Shutting down" (capital S, ShutdownableThread) when they stop for other reasons: not typed.
        // "Starting controlled shutdown": 0.8.2.2:server/KafkaServer.scala:181, 1.1.0:server/KafkaServer.scala:530,
        // 2.1.0:server/KafkaServer.scala:541, 2.8.0:server/KafkaServer.scala:640.
        if m == b"shutting down" || starts_ci(m, b"starting controlled shutdown") {
            return found(Event::ShuttingDown);
        }
        // "started" (KafkaServer): 0.8.2.2:server/KafkaServer.scala:129, 1.0.0:server/KafkaServer.scala:297,
        // 1.1.0:server/KafkaServer.scala:319, 2.1.0:server/KafkaServer.scala:322, 2.8.0:server/KafkaServer.scala:409.
        if m == b"started" {
            return found(Event::Started);
        }
    }
    if on(FROM_CONTROLLER | SENT_BY) {
        if let Some(f) = heard_from_controller(m) {
            return Some(f);
        }
    }
    None
}

/// A broker's line naming the controller (and its epoch) whose request it handled: which controller
/// that broker obeyed, and when. 2.6+ logs the state-change logger at INFO by default, so these are
/// what remain of the TRACE "Received LeaderAndIsr request" lines there.
/// ReplicaManager, "... from controller %d [epoch %d] ...": 1.0.0:server/ReplicaManager.scala:1135,1141,1192,1214,1243,1262;
/// 2.1.0:server/ReplicaManager.scala:1169,1175,1226,1248,1278; 2.6.0:server/ReplicaManager.scala:376,1236,1445,1555;
/// 2.8.0:server/ReplicaManager.scala:357,1321,1480,1572,1682.
/// MetadataCache, "... UpdateMetadata request sent by controller %d epoch %d ...": 1.0.0:server/MetadataCache.scala:212,217;
/// 2.1.0:server/MetadataCache.scala:257,262; 2.6.0:server/MetadataCache.scala:336,342,347; 2.8.0:server/MetadataCache.scala:428,434,439.
fn heard_from_controller(m: &[u8]) -> Option<Found> {
    let (at, key) = match find_ci(m, b"from controller ") {
        Some(i) => (i, &b"from controller "[..]),
        None => (find_ci(m, b"sent by controller ")?, &b"sent by controller "[..]),
    };
    let rest = &m[at + key.len()..];
    let (controller, n) = broker(rest)?;
    let after = skip_blank(&rest[n..]);
    let epoch = if starts_ci(after, b"epoch ") { i32_of(after, b"epoch ") } else { None };
    let leader_and_isr = find_ci(m, b"leaderandisr").is_some()
        || find_ci(m, b"become-leader").is_some()
        || find_ci(m, b"become-follower").is_some();
    if leader_and_isr {
        let partition = partition_after(m, b" for partition ");
        let e = Event::LeaderAndIsrReceived {
            partition,
            controller: Some(controller),
            controller_epoch: epoch,
            leader: None,
        };
        return by(e, broker_lead(m));
    }
    by(Event::ControllerIs { controller, epoch }, broker_lead(m))
}

fn elected(m: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    // "%d successfully elected as leader": 0.8.2.2:server/ZookeeperLeaderElector.scala:79,
    // 0.10.2.1:server/ZookeeperLeaderElector.scala:83; "%d successfully elected as the controller":
    // 0.11.0.0:controller/KafkaController.scala:1575, 1.0.0:controller/KafkaController.scala:1679,
    // 1.1.0:controller/KafkaController.scala:1201; "... Epoch incremented to %d and epoch zk version is now %d":
    // 2.1.0:controller/KafkaController.scala:1218, 2.8.0:controller/KafkaController.scala:1517.
    if let Some(i) = find_ci(m, b" successfully elected as ") {
        let head = &m[..i];
        let start = head.iter().rposition(|b| !b.is_ascii_digit() && *b != b'-').map(|p| p + 1).unwrap_or(0);
        let b = broker(&head[start..]).map(|x| x.0).or(ctx.writer)?;
        let epoch = i32_of(&m[i..], b"epoch incremented to ");
        return by(Event::Elected { broker: b, epoch }, Some(b));
    }
    // "Broker %d was elected as leader instead of broker %d": 0.8.2.2:server/ZookeeperLeaderElector.scala:88,
    // 0.10.2.1:server/ZookeeperLeaderElector.scala:92; "... as controller instead of broker %d":
    // 0.11.0.0:controller/KafkaController.scala:1584, 1.0.0:controller/KafkaController.scala:1688,
    // 1.1.0:controller/KafkaController.scala:1210, 2.1.0:controller/KafkaController.scala:1227.
    if let Some(i) = find_ci(m, b" was elected as ") {
        let winner = broker_after(&m[..i], b"broker ")?;
        let loser = broker_after(&m[i..], b"instead of broker ");
        return by(Event::ElectionLost { winner, loser }, loser);
    }
    // "Broker %d has been elected as leader, so stopping the election process.": 0.8.2.2:server/ZookeeperLeaderElector.scala:71;
    // "... as the controller, so stopping ...": 0.11.0.0:controller/KafkaController.scala:1565,
    // 1.0.0:controller/KafkaController.scala:1669, 1.1.0:controller/KafkaController.scala:1195, 2.1.0:controller/KafkaController.scala:1208.
    if let Some(i) = find_ci(m, b" has been elected as ") {
        let c = broker_after(&m[..i], b"broker ")?;
        return found(Event::ControllerIs { controller: c, epoch: None });
    }
    // "Controller %d epoch %d elected leader %d for Offline partition %s": 0.8.2.2:controller/PartitionStateMachine.scala:368,
    // 0.10.2.1:controller/PartitionStateMachine.scala:350, 0.11.0.0:controller/PartitionStateMachine.scala:318;
    // "Elected leader %d for Offline partition %s":
    // 1.0.0:controller/PartitionStateMachine.scala:313.
    if let Some(i) = find_ci(m, b"elected leader ") {
        if i == 0 || m[i - 1] == b' ' {
            let r = &m[i + 15..];
            let (leader, _) = broker(r)?;
            let p = partition_after(r, b" for offline partition ")?;
            let (_, e) = controller_epoch_lead(m);
            if leader < 0 {
                return found(Event::LeaderNone { partition: Some(p) });
            }
            return found(Event::SelectedLeader {
                partition: p,
                leader,
                leader_epoch: None,
                isr: Vec::new(),
                controller_epoch: e.or(ctx.epoch),
                zk_version: None,
            });
        }
    }
    // "Controller %d incremented epoch to %d": 0.8.2.2:controller/KafkaController.scala:699,
    // 0.10.2.1:controller/KafkaController.scala:731, 0.11.0.0:controller/KafkaController.scala:642 (not in 1.0.0);
    // "Epoch incremented to %d": 1.1.0:controller/KafkaController.scala:638, 2.0.0:controller/KafkaController.scala:647.
    if let Some(i) = find_ci(m, b" incremented epoch to ") {
        let b = broker_after(&m[..i], b"controller ").or(ctx.writer)?;
        let epoch = int(&m[i + 22..]).and_then(|(v, _)| i32::try_from(v).ok());
        return by(Event::Elected { broker: b, epoch }, Some(b));
    }
    if starts_ci(m, b"epoch incremented to ") {
        let b = ctx.writer?;
        let epoch = int(&m[21..]).and_then(|(v, _)| i32::try_from(v).ok());
        return by(Event::Elected { broker: b, epoch }, Some(b));
    }
    None
}

fn resigned(m: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    // "Resigning" (debug) / "Resigned" (info): 1.0.0:controller/KafkaController.scala:324,354,
    // 1.1.0:controller/KafkaController.scala:279,314, 2.1.0:controller/KafkaController.scala:293,328,
    // 2.8.0:controller/KafkaController.scala:451,488.
    let t = m.strip_suffix(b".").unwrap_or(m);
    if t.eq_ignore_ascii_case(b"resigned") || t.eq_ignore_ascii_case(b"resigning") {
        return by(Event::Resigned { broker: ctx.writer }, None);
    }
    // "Broker %d resigned as the controller": 0.10.2.1:controller/KafkaController.scala:398,
    // 0.11.0.0:controller/KafkaController.scala:324.
    if let Some(i) = find_ci(m, b" resigned as the controller") {
        let b = broker_after(&m[..i], b"broker ").or(ctx.writer);
        return by(Event::Resigned { broker: b }, b);
    }
    // "Controller resigning, broker id %d" (debug): 0.10.2.1:controller/KafkaController.scala:367,
    // 0.11.0.0:controller/KafkaController.scala:297.
    if let Some(r) = after_ci(m, b"controller resigning, broker id ") {
        let b = broker(r).map(|x| x.0);
        return by(Event::Resigned { broker: b }, b);
    }
    // "Forcing the controller to resign": 0.10.2.1:controller/KafkaController.scala:281,
    // 1.0.0:controller/KafkaController.scala:1646, 1.1.0:controller/KafkaController.scala:1174, 2.1.0:controller/KafkaController.scala:1168.
    if find_ci(m, b"forcing the controller to resign").is_some() {
        return by(Event::Resigned { broker: ctx.writer }, None);
    }
    None
}

fn session(m: &[u8]) -> Option<Found> {
    // "ZK expired; shut down all controller components and try to re-elect": 0.8.2.2:controller/KafkaController.scala:1106,
    // 0.10.2.1:controller/KafkaController.scala:1171; "ZK expired, but the current controller id %d is the same as
    // this broker id, skip re-elect": 0.10.2.1:controller/KafkaController.scala:1181.
    // (Not the old consumer's "ZK expired; release old broker parition ownership" / "ZK expired: resubscribing":
    // 0.10.2.1:consumer/ZookeeperConsumerConnector.scala:519, consumer/ZookeeperTopicEventWatcher.scala:91.)
    if starts_ci(m, b"zk expired; shut down all controller components")
        || starts_ci(m, b"zk expired, but the current controller")
    {
        return found(Event::SessionExpired { session: None });
    }
    // "Session expired." (Kafka's own ZooKeeper client): 1.0.0:controller/ZookeeperClient.scala:218,
    // 1.1.0:zookeeper/ZooKeeperClient.scala:359, 2.1.0:zookeeper/ZooKeeperClient.scala:427, 2.5.0:zookeeper/ZooKeeperClient.scala:424,
    // 2.8.0:zookeeper/ZooKeeperClient.scala:463 (the message of scheduleReinitialize, logged at :434); the
    // ZooKeeperClientExpiredException "Session expired either before or while waiting for connection": 2.8.0:...:279.
    if starts_ci(m, b"session expired") {
        return found(Event::SessionExpired { session: None });
    }
    // zkclient: "zookeeper state changed (Expired)": zkclient 0.10:src/main/java/org/I0Itec/zkclient/ZkClient.java:713.
    if let Some(r) = after_ci(m, b"zookeeper state changed (") {
        if starts_ci(r, b"expired") {
            return found(Event::SessionExpired { session: None });
        }
        return None;
    }
    // ZooKeeper client: "Unable to reconnect to ZooKeeper service, session 0x%x has expired":
    // ZK release-3.4.10:src/java/main/org/apache/zookeeper/ClientCnxn.java:1283,
    // release-3.5.9:zookeeper-server/src/main/java/org/apache/zookeeper/ClientCnxn.java:1378.
    if let Some(r) = after_ci(m, b"unable to reconnect to zookeeper service, session ") {
        return found(Event::SessionExpired { session: hex(r) });
    }
    // "Session establishment complete on server %s, sessionid = 0x%x, negotiated timeout = %d":
    // ZK release-3.4.10:src/java/main/org/apache/zookeeper/ClientCnxn.java:1299, release-3.5.9:...ClientCnxn.java:1394.
    if find_ci(m, b"session establishment complete").is_some() {
        let s = after_ci(m, b"sessionid = ").or_else(|| after_ci(m, b"sessionid=")).and_then(hex);
        return found(Event::NewSession { session: s });
    }
    // "re-registering broker info in ZK for broker %d": 0.8.2.2:server/KafkaHealthcheck.scala:80,
    // 0.10.2.1:server/KafkaHealthcheck.scala:104, 1.0.0:server/KafkaHealthcheck.scala:120.
    if let Some(r) = after_ci(m, b"re-registering broker info in zk for broker ") {
        let b = broker(r).map(|x| x.0);
        return by(Event::NewSession { session: None }, b);
    }
    // "Initializing a new session to %s.": 1.0.0:controller/ZookeeperClient.scala:47,183,
    // 1.1.0:zookeeper/ZooKeeperClient.scala:84,331, 2.1.0:zookeeper/ZooKeeperClient.scala:86,379.
    if starts_ci(m, b"initializing a new session to ") {
        return found(Event::NewSession { session: None });
    }
    None
}

/// The broker id of a `/brokers/ids/N` path in `s`.
fn ids_path(s: &[u8]) -> Option<Broker> {
    broker_after(s, b"/brokers/ids/")
}

fn stale_registration(m: &[u8]) -> Option<Found> {
    // "conflict in %s data: %s stored data: %s": 0.8.2.2:utils/ZkUtils.scala:249, 0.10.2.1:utils/ZkUtils.scala:493,
    // 1.0.0:utils/ZkUtils.scala:525, 1.1.0:utils/ZkUtils.scala:494 (only /brokers/ids/N is a registration;
    // /controller is the election's own conflict).
    // "I wrote this conflicted ephemeral node [%s] at %s a while back in a different session, hence I will backoff
    // for this node to be deleted by Zookeeper and retry": 0.8.2.2:utils/ZkUtils.scala:285.
    // "A broker is already registered on the path /brokers/ids/%d. This probably indicates that you either have
    // configured a brokerid that is already in use, or else you have shutdown this broker and restarted it faster than
    // the zookeeper timeout so it appears to be re-registering.": 0.8.2.2:utils/ZkUtils.scala:174, 1.0.0:utils/ZkUtils.scala:440.
    // "Error while creating ephemeral at %s, node already exists and owner '%d' does not match current session
    // '%d'": 1.1.0:zk/KafkaZkClient.scala:1497, 2.1.0:zk/KafkaZkClient.scala:1652, 2.8.0:zk/KafkaZkClient.scala:1897.
    let meaning = find_ci(m, b"conflict in ").is_some()
        || find_ci(m, b"conflicted ephemeral node").is_some()
        || find_ci(m, b"already registered on the path").is_some()
        || (find_ci(m, b"already exists").is_some() && find_ci(m, b"does not match current session").is_some());
    if !meaning {
        return None;
    }
    let b = ids_path(m)?;
    by(Event::StaleRegistration { broker: Some(b) }, Some(b))
}

fn brokers_changed(m: &[u8]) -> Option<Found> {
    // "Newly added brokers: %s, deleted brokers: %s, all live brokers: %s": 0.8.2.2:controller/ReplicaStateMachine.scala:366,
    // 0.10.2.1:controller/ReplicaStateMachine.scala:369, 0.11.0.0:controller/KafkaController.scala:1158,
    // 1.0.0:controller/KafkaController.scala:1221, 1.1.0:controller/KafkaController.scala:1235, 2.1.0:controller/KafkaController.scala:1253;
    // with ", bounced brokers: %s" before "all live": 2.8.0:controller/KafkaController.scala:1576.
    let r = after_ci(m, b"newly added brokers:")?;
    let added = list(r);
    let deleted = list_of(r, b"deleted brokers:").unwrap_or_default();
    let live = list_of(r, b"all live brokers:").unwrap_or_default();
    found(Event::BrokersChanged { added, deleted, live })
}

/// A partition state as Kafka prints it: JSON `{"leader":1,"leader_epoch":14,"isr":[1,2]}`
/// (LeaderAndIsr.toString 0.8–1.0), `(Leader:1,ISR:1,2,LeaderEpoch:14,ControllerEpoch:8)`
/// (LeaderIsrAndControllerEpoch.toString 0.8–1.0), `LeaderAndIsr(leader=1, leaderEpoch=14,
/// isr=List(1, 2), zkVersion=27)` (1.1+), `PartitionState(controllerEpoch=8, leader=1,
/// leaderEpoch=14, isr=1,2, zkVersion=27, ...)` (1.0–2.3 requests),
/// `LeaderAndIsrPartitionState(... controllerEpoch=8, leader=1, leaderEpoch=14, isr=[1, 2], ...)` (2.4+).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct State {
    pub leader: Option<Broker>,
    pub leader_epoch: Option<i32>,
    pub isr: Option<Vec<Broker>>,
    pub controller_epoch: Option<i32>,
    pub zk_version: Option<i32>,
}

/// Reads the first partition state in `s`.
pub fn state(s: &[u8]) -> Option<State> {
    let mut st = State::default();
    if let Some(i) = find_ci(s, b"\"leader\"") {
        let j = &s[i..];
        st.leader = i32_of(j, b"\"leader\":");
        st.leader_epoch = i32_of(j, b"\"leader_epoch\":");
        st.isr = list_of(j, b"\"isr\":");
        st.controller_epoch = i32_of(j, b"\"controller_epoch\":");
        st.zk_version = i32_of(j, b"\"zkversion\":").or_else(|| i32_of(j, b"\"version\":"));
    } else if let Some(i) = find_ci(s, b"(leader:") {
        let j = &s[i..];
        st.leader = i32_of(j, b"leader:");
        st.isr = list_of(j, b"isr:");
        st.leader_epoch = i32_of(j, b"leaderepoch:");
        st.controller_epoch = i32_of(j, b"controllerepoch:");
    } else if let Some(i) = find_ci(s, b"leader=") {
        let from = i.saturating_sub(64);
        let j = &s[from..];
        st.leader = i32_of(j, b"leader=");
        st.leader_epoch = i32_of(j, b"leaderepoch=");
        st.isr = list_of(j, b"isr=");
        st.controller_epoch = i32_of(j, b"controllerepoch=");
        st.zk_version = i32_of(j, b"zkversion=");
    }
    st.leader.map(|_| st)
}

fn selected(p: Partition, st: State, ctx: &Ctx<'_>) -> Found {
    let leader = st.leader.unwrap_or(-1);
    if leader < 0 {
        return Found { event: Event::LeaderNone { partition: Some(p) }, writer: None };
    }
    Found {
        event: Event::SelectedLeader {
            partition: p,
            leader,
            leader_epoch: st.leader_epoch,
            isr: st.isr.unwrap_or_default(),
            controller_epoch: st.controller_epoch.or(ctx.epoch),
            zk_version: st.zk_version,
        },
        writer: None,
    }
}

fn leader_isr(p: Partition, st: State) -> Found {
    let leader = st.leader.unwrap_or(-1);
    if leader < 0 {
        return Found { event: Event::LeaderNone { partition: Some(p) }, writer: None };
    }
    Found {
        event: Event::LeaderIsr {
            partition: p,
            leader,
            leader_epoch: st.leader_epoch,
            isr: st.isr.unwrap_or_default(),
            controller_epoch: st.controller_epoch,
        },
        writer: None,
    }
}

/// `Controller %d epoch %d ...` (0.8–0.10 state-change lines): the controller and its epoch.
fn controller_epoch_lead(m: &[u8]) -> (Option<Broker>, Option<i32>) {
    if !starts_ci(m, b"controller ") {
        return (None, None);
    }
    let Some((c, n)) = broker(&m[11..]) else { return (None, None) };
    let r = &m[11 + n..];
    if !starts_ci(r, b" epoch ") {
        return (Some(c), None);
    }
    (Some(c), int(&r[7..]).and_then(|(v, _)| i32::try_from(v).ok()))
}

/// `Broker %d ...` (0.8–0.10 state-change lines on the receiving broker).
fn broker_lead(m: &[u8]) -> Option<Broker> {
    if starts_ci(m, b"broker ") {
        broker(&m[7..]).map(|x| x.0)
    } else {
        None
    }
}

fn leader_and_isr(m: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    let p_for = || partition_after(m, b" for partition ");
    // Stale epochs. "Broker %d ignoring LeaderAndIsr request from controller %d with correlation id %d since its
    // controller epoch %d is old. Latest known controller epoch is %d": 0.8.2.2:server/ReplicaManager.scala:337,
    // 0.10.2.1:server/ReplicaManager.scala:655; "Ignoring LeaderAndIsr request from controller %d with correlation id %d
    // since its controller epoch %d is old. Latest known controller epoch is %d": 1.0.0:server/ReplicaManager.scala:1014,
    // 1.1.0:server/ReplicaManager.scala:1033, 2.4.0:server/ReplicaManager.scala:1185.
    // "Broker %d received stop replica request from an old controller epoch %d. Latest known controller epoch is %d":
    // 0.10.2.1:server/ReplicaManager.scala:254; "Received stop replica request from an old controller epoch %d.":
    // 1.0.0:server/ReplicaManager.scala:363. "Received update metadata request with correlation id %d from an old
    // controller %d with epoch %d. Latest known controller epoch is %d": 1.0.0:server/ReplicaManager.scala:991,
    // 2.1.0:server/ReplicaManager.scala:995.
    if let Some(i) = find_ci(m, b"controller epoch ") {
        let is_old = find_ci(&m[i..], b" is old").is_some() || find_ci(m, b"from an old controller").is_some();
        if is_old {
            let latest = i32_of(m, b"latest known controller epoch is ");
            let (controller, epoch) = if let Some(r) = after_ci(m, b"from an old controller ") {
                if starts_ci(r, b"epoch ") {
                    (None, int(&r[6..]).and_then(|(v, _)| i32::try_from(v).ok()))
                } else {
                    (broker(r).map(|x| x.0), i32_of(r, b"with epoch "))
                }
            } else {
                (broker_after(m, b"from controller "), i32_of(m, b"since its controller epoch "))
            };
            return by(Event::StaleControllerEpoch { controller, epoch, latest }, broker_lead(m));
        }
    }
    find_ci(m, b"leaderandisr request")?;
    let st = state(m);
    // Sent. "Controller %d epoch %d sending %s LeaderAndIsr request %s with correlationId %d to broker %d for
    // partition [%s,%d]": 0.8.2.2:controller/ControllerChannelManager.scala:283, 0.10.2.1:controller/ControllerChannelManager.scala:353;
    // "Sending %s LeaderAndIsr request %s to broker %d for partition %s": 1.0.0:controller/ControllerChannelManager.scala:410,
    // 1.1.0:controller/ControllerChannelManager.scala:406. "Controller %d epoch %d sent LeaderAndIsr request %s with new
    // assigned replica list %s to leader %d for partition being reassigned %s": 0.8.2.2:controller/KafkaController.scala:878;
    // "Sent LeaderAndIsr request %s with new assigned replica list ...": 1.0.0:controller/KafkaController.scala:888.
    let sending = find_ci(m, b"sending ").is_some_and(|i| find_ci(&m[i..], b"leaderandisr request").is_some())
        || starts_ci(m, b"sent leaderandisr request")
        || find_ci(m, b" sent leaderandisr request").is_some();
    if sending && find_ci(m, b"failed to send").is_none() {
        let (c, e) = controller_epoch_lead(m);
        let to = broker_after(m, b" to broker ").or_else(|| broker_after(m, b" to leader "));
        let partition = p_for().or_else(|| partition_after(m, b" for partition being reassigned "));
        let controller_epoch = e.or(st.as_ref().and_then(|s| s.controller_epoch)).or(ctx.epoch);
        return by(Event::LeaderAndIsrSent { partition, to, controller_epoch, leader: st.and_then(|s| s.leader) }, c);
    }
    // Received. "Broker %d received LeaderAndIsr request %s correlation id %d from controller %d epoch %d for
    // partition [%s,%d]": 0.8.2.2:server/ReplicaManager.scala:329, 0.10.2.1:server/ReplicaManager.scala:648;
    // "Received LeaderAndIsr request %s correlation id %d from controller %d epoch %d for partition %s":
    // 1.0.0:server/ReplicaManager.scala:1007, 1.1.0:server/ReplicaManager.scala:1027, 2.4.0:server/ReplicaManager.scala:1178.
    if find_ci(m, b"received leaderandisr request ").is_some() {
        let controller = broker_after(m, b" from controller ");
        let controller_epoch = find_ci(m, b" from controller ")
            .and_then(|i| i32_of(&m[i..], b"epoch "))
            .or(st.as_ref().and_then(|s| s.controller_epoch));
        return by(
            Event::LeaderAndIsrReceived {
                partition: p_for(),
                controller,
                controller_epoch,
                leader: st.and_then(|s| s.leader),
            },
            broker_lead(m),
        );
    }
    None
}

fn leader_none(m: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    // NoReplicaOnlineException: "No broker in ISR for partition %s is alive. Live brokers are: [%s], ISR brokers are:
    // [%s]": 0.8.2.2:controller/PartitionLeaderSelector.scala:66, 1.0.0:controller/PartitionLeaderSelector.scala:65;
    // "No replica for partition %s is alive. Live brokers are: [%s], Assigned replicas are: [%s]":
    // 0.8.2.2:controller/PartitionLeaderSelector.scala:75, 1.0.0:controller/PartitionLeaderSelector.scala:74.
    // "No broker in ISR is alive for %s. Elect leader %d from live brokers %s. There's potential data loss." (warn) and
    // "... Pick the leader from the alive assigned replicas: %s" (debug): 0.8.2.2:controller/PartitionLeaderSelector.scala:71,81,
    // 1.0.0:controller/PartitionLeaderSelector.scala:70,79: the ISR is all dead (the partition is offline until an unclean
    // election, which the same line may announce).
    let p = partition_after(m, b"no broker in isr for partition ")
        .or_else(|| partition_after(m, b"no replica for partition "))
        .or_else(|| partition_after(m, b"no broker in isr is alive for "))
        .or_else(|| partition_after(m, b"partition "))
        .or_else(|| ctx.partition.cloned());
    if find_ci(m, b"noreplicaonlineexception").is_some()
        || find_ci(m, b"no broker in isr").is_some()
        || find_ci(m, b"no replica for partition ").is_some_and(|i| find_ci(&m[i..], b" is alive").is_some())
    {
        return found(Event::LeaderNone { partition: p });
    }
    None
}

fn changed(m: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    // "Controller %d epoch %d changed partition %s from %s to %s with leader %d": 0.8.2.2:controller/PartitionStateMachine.scala:213;
    // "Changed partition %s from %s to %s with leader %d": 1.0.0:controller/PartitionStateMachine.scala:170;
    // "Changed partition %s from %s to %s with state %s" (LeaderAndIsr(...)): 1.1.0:controller/PartitionStateMachine.scala:169,177,
    // 2.1.0:controller/PartitionStateMachine.scala:204,212, 2.8.0:controller/PartitionStateMachine.scala:229,245;
    // "Changed partition %s state from %s to %s": 1.1.0:controller/PartitionStateMachine.scala:184.
    // "Partition %s state changed to %s after removing replica %d from the ISR as part of transition to
    // OfflineReplica": 2.8.0:controller/ReplicaStateMachine.scala:229 (the state is "(Leader:..,ISR:..,..)").
    if starts_ci(m, b"partition ") {
        if let Some(i) = find_ci(m, b" state changed to ") {
            let p = partition(&m[10..]).map(|x| x.0)?;
            return Some(leader_isr(p, state(&m[i..])?));
        }
    }
    let r = after_ci(m, b"changed partition ")?;
    let (p, n) = partition(skip_blank(r))?;
    let r = &skip_blank(r)[n..];
    let to = after_ci(r, b" to ")?;
    if starts_ci(to, b"offlinepartition") {
        return found(Event::LeaderNone { partition: Some(p) });
    }
    if !starts_ci(to, b"onlinepartition") {
        return None;
    }
    let (_, e) = controller_epoch_lead(m);
    if let Some(l) = after_ci(to, b"with leader ") {
        let leader = broker(l)?.0;
        if leader < 0 {
            return found(Event::LeaderNone { partition: Some(p) });
        }
        return found(Event::SelectedLeader {
            partition: p,
            leader,
            leader_epoch: None,
            isr: Vec::new(),
            controller_epoch: e.or(ctx.epoch),
            zk_version: None,
        });
    }
    let st = state(to)?;
    let mut f = selected(p, st, ctx);
    if let Event::SelectedLeader { controller_epoch, .. } = &mut f.event {
        *controller_epoch = controller_epoch.or(e);
    }
    Some(f)
}

/// A failed state change of a partition: `LeaderNone` when it was a move to OnlinePartition from
/// a state without a leader, else `StateChangeFailed`.
fn failed_move(r: &[u8], p: Option<Partition>) -> Event {
    let leaderless = [&b" from offlinepartition to onlinepartition"[..], b" from newpartition to onlinepartition"]
        .iter()
        .any(|w| find_ci(r, w).is_some());
    if leaderless {
        Event::LeaderNone { partition: p }
    } else {
        Event::StateChangeFailed { partition: p }
    }
}

fn failed(m: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    // "Controller %d epoch %d initiated state change for partition %s from %s to %s failed":
    // 0.8.2.2:controller/PartitionStateMachine.scala:183,234, 0.10.2.1:controller/PartitionStateMachine.scala:178,228,
    // 0.11.0.0:controller/PartitionStateMachine.scala:188;
    // "Initiated state change for partition %s from %s to %s failed": 1.0.0:controller/PartitionStateMachine.scala:184.
    // A failed move from OfflinePartition or NewPartition to OnlinePartition leaves the partition
    // where it was, with no leader: the state machine records OnlinePartition only on success
    // (1.0.0:controller/PartitionStateMachine.scala:168, the catch logging at 182-184; 2.8.0:...:231,247,
    // "Ignore; no need to update partition state on election error" at 248, logged at 510), so it
    // is a `LeaderNone`, which a later election of the partition clears.
    if let Some(r) = after_ci(m, b"initiated state change for partition ") {
        if find_ci(r, b" failed").is_some() {
            let p = partition(skip_blank(r)).map(|x| x.0);
            let (c, _) = controller_epoch_lead(m);
            return by(failed_move(r, p), c);
        }
    }
    // "Controller %d epoch %d failed to change state for partition %s from %s to %s":
    // 1.1.0:controller/PartitionStateMachine.scala:432, 2.1.0:controller/PartitionStateMachine.scala:470, 2.8.0:...:510.
    if let Some(r) = after_ci(m, b"failed to change state for partition ") {
        let p = partition(skip_blank(r)).map(|x| x.0);
        let (c, _) = controller_epoch_lead(m);
        return by(failed_move(r, p), c);
    }
    // "Failed to elect leader for partition %s under strategy %s" (StateChangeFailedException):
    // 1.1.0:controller/PartitionStateMachine.scala:327, 2.1.0:...:365, 2.8.0:...:423. Under the offline strategy it
    // means no live replica could lead.
    if let Some(r) = after_ci(m, b"failed to elect leader for partition ") {
        let p = partition(skip_blank(r)).map(|x| x.0);
        if find_ci(r, b"offlinepartition").is_some() {
            return found(Event::LeaderNone { partition: p });
        }
        return found(Event::StateChangeFailed { partition: p });
    }
    // "Error while moving some partitions to the online state": 0.8.2.2:controller/PartitionStateMachine.scala:125,
    // 1.0.0:controller/PartitionStateMachine.scala:89; "... to %s state": 0.8.2.2:...:150, 1.1.0:controller/PartitionStateMachine.scala:119;
    // "Error while moving some replicas to %s state": 0.8.2.2:controller/ReplicaStateMachine.scala:117, 1.1.0:controller/ReplicaStateMachine.scala:108.
    if find_ci(m, b"error while moving some ").is_some() {
        return found(Event::StateChangeFailed { partition: ctx.partition.cloned() });
    }
    None
}

fn isr_change(m: &[u8], ctx: &Ctx<'_>) -> Option<Found> {
    // "Shrinking ISR for partition [%s,%d] from %s to %s": 0.8.2.2:cluster/Partition.scala:328, 0.10.2.1:cluster/Partition.scala:395;
    // "Shrinking ISR from %s to %s": 0.11.0.0:cluster/Partition.scala:430, 1.0.0:cluster/Partition.scala:443,
    // 1.1.0:cluster/Partition.scala:510, 2.1.0:cluster/Partition.scala:639; "Shrinking ISR from %s to %s. Leader:
    // (highWatermark: %d, endOffset: %d). Out of sync replicas: %s.": 2.5.0:cluster/Partition.scala:847, 2.8.0:cluster/Partition.scala:954.
    // "Expanding ISR for partition [%s,%d] from %s to %s": 0.8.2.2:cluster/Partition.scala:248; "Expanding ISR for
    // partition %s from %s to %s": 0.10.2.1:cluster/Partition.scala:277; "Expanding ISR from %s to %s":
    // 0.11.0.0:cluster/Partition.scala:305, 1.0.0:cluster/Partition.scala:316, 2.1.0:cluster/Partition.scala:513, 2.5.0:cluster/Partition.scala:688.
    let (shrink, r) =
        if let Some(r) = after_ci(m, b"shrinking isr ") { (true, r) } else { (false, after_ci(m, b"expanding isr ")?) };
    let mut partition_ = ctx.partition.cloned();
    let mut r = r;
    if let Some(q) = after_ci(r, b"for partition ") {
        if let Some((p, n)) = partition(skip_blank(q)) {
            partition_ = Some(p);
            r = &skip_blank(q)[n..];
        }
    }
    let f = after_ci(r, b"from ")?;
    let from = list(f);
    let to = list(after_ci(f, b" to ")?);
    let event = if shrink {
        Event::IsrShrink { partition: partition_, from, to }
    } else {
        Event::IsrExpand { partition: partition_, from, to }
    };
    found(event)
}

/// A `kafka-topics --describe` row: `Topic: t\tPartition: 3\tLeader: -1\tReplicas: 3,1,2\tIsr: 2`
/// (tabs or spaces; `Leader: none` in 0.8; the lower-case `topic: t partition: 3 leader: -1 ...`
/// of the oldest tools). `Some(None)` for a row without a leader (the topic's summary row).
pub fn describe(s: &[u8]) -> Option<Option<Event>> {
    let s = skip_blank(s);
    if !starts_ci(s, b"topic:") {
        return None;
    }
    let r = skip_blank(&s[6..]);
    let tl = r.iter().take(300).take_while(|b| !b.is_ascii_whitespace()).count();
    let topic = &r[..tl];
    let Some(pr) = after_ci(r, b"partition:") else {
        return if find_ci(r, b"partitioncount:").is_some() { Some(None) } else { None };
    };
    let (pn, _) = int(skip_blank(pr))?;
    let part = {
        let mut buf = Vec::with_capacity(topic.len() + 4);
        buf.push(b'[');
        buf.extend_from_slice(topic);
        buf.push(b',');
        buf.extend_from_slice(alloc::format!("{pn}]").as_bytes());
        partition(&buf).map(|x| x.0)
    };
    let Some(part) = part else { return Some(None) };
    let Some(lr) = after_ci(r, b"leader:") else { return Some(None) };
    let lr = skip_blank(lr);
    if starts_ci(lr, b"none") {
        return Some(Some(Event::LeaderNone { partition: Some(part) }));
    }
    let Some((leader, _)) = broker(lr) else { return Some(None) };
    if leader < 0 {
        return Some(Some(Event::LeaderNone { partition: Some(part) }));
    }
    let isr = list_of(r, b"isr:").unwrap_or_default();
    Some(Some(Event::LeaderIsr { partition: part, leader, leader_epoch: None, isr, controller_epoch: None }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn ev(s: &str) -> Option<Event> {
        recognise(s.as_bytes(), &Ctx::default()).map(|f| f.event)
    }
    fn writer(s: &str) -> Option<Broker> {
        recognise(s.as_bytes(), &Ctx::default()).and_then(|f| f.writer)
    }
    fn with(s: &str, writer: Broker, epoch: Option<i32>, p: Option<&Partition>) -> Option<Event> {
        recognise(s.as_bytes(), &Ctx { writer: Some(writer), epoch, partition: p }).map(|f| f.event)
    }
    fn p(t: &str, n: u32) -> Partition {
        Partition { topic: t.to_string(), partition: n }
    }

    #[test]
    fn elected_every_release() {
        assert_eq!(ev("1 successfully elected as leader"), Some(Event::Elected { broker: 1, epoch: None }));
        assert_eq!(writer("1 successfully elected as leader"), Some(1));
        assert_eq!(ev("2 successfully elected as the controller"), Some(Event::Elected { broker: 2, epoch: None }));
        assert_eq!(
            ev("2 successfully elected as the controller. Epoch incremented to 9 and epoch zk version is now 8"),
            Some(Event::Elected { broker: 2, epoch: Some(9) })
        );
        assert_eq!(ev("Controller 2 incremented epoch to 9"), Some(Event::Elected { broker: 2, epoch: Some(9) }));
        assert_eq!(with("Epoch incremented to 9", 3, None, None), Some(Event::Elected { broker: 3, epoch: Some(9) }));
        assert_eq!(ev("Epoch incremented to 9"), None);
    }

    #[test]
    fn election_lost_and_controller_is() {
        let lost = Some(Event::ElectionLost { winner: 3, loser: Some(1) });
        assert_eq!(ev("Broker 3 was elected as controller instead of broker 1"), lost);
        assert_eq!(ev("Broker 3 was elected as leader instead of broker 1"), lost);
        assert_eq!(ev("broker 3 WAS ELECTED AS CONTROLLER INSTEAD OF BROKER 1"), lost);
        assert_eq!(writer("Broker 3 was elected as controller instead of broker 1"), Some(1));
        let is = Some(Event::ControllerIs { controller: 3, epoch: None });
        assert_eq!(ev("Broker 3 has been elected as the controller, so stopping the election process."), is);
        assert_eq!(ev("Broker 3 has been elected as leader, so stopping the election process."), is);
        assert_eq!(ev("New leader is 3"), is);
        assert_eq!(ev("Partition [t,1] completed preferred replica leader election. New leader is 3"), None);
        assert_eq!(
            ev("A controller has been elected but just resigned, this will result in another round of election"),
            None
        );
    }

    #[test]
    fn resigned_every_release() {
        assert_eq!(with("Resigned", 1, None, None), Some(Event::Resigned { broker: Some(1) }));
        assert_eq!(with("Resigning", 1, None, None), Some(Event::Resigned { broker: Some(1) }));
        assert_eq!(ev("Broker 1 resigned as the controller"), Some(Event::Resigned { broker: Some(1) }));
        assert_eq!(ev("Controller resigning, broker id 1"), Some(Event::Resigned { broker: Some(1) }));
        assert_eq!(with("Forcing the controller to resign", 2, None, None), Some(Event::Resigned { broker: Some(2) }));
        assert_eq!(ev("Resigned"), Some(Event::Resigned { broker: None }));
    }

    #[test]
    fn controller_moved_and_election_error() {
        let moved = Some(Event::ControllerMoved { new_controller: None });
        assert_eq!(ev("Controller moved to another broker. Aborting controller startup procedure"), moved);
        assert_eq!(ev("Controller moved to another broker when processing Startup."), moved);
        assert_eq!(
            ev("Controller moved to another broker when moving some partitions to OnlinePartition state"),
            moved
        );
        assert_eq!(ev("Controller has already moved when trying to trigger controller movement"), moved);
        assert_eq!(ev("Caused by: kafka.common.ControllerMovedException: x"), moved);
        let e = Some(Event::ElectionError { broker: Some(1) });
        assert_eq!(ev("Error while electing or becoming leader on broker 1"), e);
        assert_eq!(ev("Error while electing or becoming controller on broker 1"), e);
        assert_eq!(
            ev("Error while electing or becoming controller on broker 1. Trigger controller movement immediately"),
            e
        );
        assert_eq!(writer("Error while electing or becoming controller on broker 1"), Some(1));
    }

    #[test]
    fn sessions() {
        let exp = Some(Event::SessionExpired { session: None });
        assert_eq!(ev("ZK expired; shut down all controller components and try to re-elect"), exp);
        assert_eq!(ev("Session expired."), exp);
        assert_eq!(ev("zookeeper state changed (Expired)"), exp);
        assert_eq!(ev("zookeeper state changed (SyncConnected)"), None);
        assert_eq!(
            ev("Unable to reconnect to ZooKeeper service, session 0x15fa0b2c0d20001 has expired, closing socket connection"),
            Some(Event::SessionExpired { session: Some(0x15fa0b2c0d20001) })
        );
        assert_eq!(
            ev("Session establishment complete on server zk1/10.0.0.1:2181, sessionid = 0x25fa0b2c0d2000a, negotiated timeout = 6000"),
            Some(Event::NewSession { session: Some(0x25fa0b2c0d2000a) })
        );
        assert_eq!(ev("re-registering broker info in ZK for broker 2"), Some(Event::NewSession { session: None }));
        assert_eq!(writer("re-registering broker info in ZK for broker 2"), Some(2));
        assert_eq!(ev("Initializing a new session to zk:2181."), Some(Event::NewSession { session: None }));
        assert_eq!(
            ev("Broker registration for controller 1 is not available (i.e. the Controller's ZK session expired)"),
            None
        );
    }

    #[test]
    fn registrations() {
        assert_eq!(
            ev("Registered broker 2 at path /brokers/ids/2 with address kafka2:9092."),
            Some(Event::Registered { broker: Some(2) })
        );
        assert_eq!(
            ev("Registered broker 2 at path /brokers/ids/2 with addresses: EndPoint(kafka2,9092,ListenerName(PLAINTEXT),PLAINTEXT)"),
            Some(Event::Registered { broker: Some(2) })
        );
        let stale = Some(Event::StaleRegistration { broker: Some(2) });
        assert_eq!(ev("conflict in /brokers/ids/2 data: {\"jmx_port\":-1} stored data: {\"jmx_port\":-1}"), stale);
        assert_eq!(ev("I wrote this conflicted ephemeral node [{\"jmx_port\":-1}] at /brokers/ids/2 a while back in a different session, hence I will backoff for this node to be deleted by Zookeeper and retry"), stale);
        assert_eq!(ev("Error while creating ephemeral at /brokers/ids/2, node already exists and owner '99' does not match current session '100'"), stale);
        assert_eq!(ev("A broker is already registered on the path /brokers/ids/2. This probably indicates that you either have configured a brokerid that is already in use"), stale);
        assert_eq!(ev("conflict in /controller data: {\"brokerid\":1} stored data: {\"brokerid\":2}"), None);
    }

    #[test]
    fn brokers_changed_with_and_without_bounced() {
        assert_eq!(
            ev("Newly added brokers: 3, deleted brokers: 1, all live brokers: 2,3"),
            Some(Event::BrokersChanged { added: vec![3], deleted: vec![1], live: vec![2, 3] })
        );
        assert_eq!(
            ev("Newly added brokers: , deleted brokers: 1, bounced brokers: , all live brokers: 2,3"),
            Some(Event::BrokersChanged { added: vec![], deleted: vec![1], live: vec![2, 3] })
        );
    }

    #[test]
    fn selected_leader_both_forms() {
        assert_eq!(
            ev(
                r#"Selected new leader and ISR {"leader":1,"leader_epoch":14,"isr":[1,2]} for offline partition [my-topic,3]"#
            ),
            Some(Event::SelectedLeader {
                partition: p("my-topic", 3),
                leader: 1,
                leader_epoch: Some(14),
                isr: vec![1, 2],
                controller_epoch: None,
                zk_version: None
            })
        );
        assert_eq!(
            ev("Selected new leader and ISR (Leader:1,ISR:1,2,LeaderEpoch:14,ControllerEpoch:8) for offline partition my-topic-3"),
            Some(Event::SelectedLeader {
                partition: p("my-topic", 3),
                leader: 1,
                leader_epoch: Some(14),
                isr: vec![1, 2],
                controller_epoch: Some(8),
                zk_version: None
            })
        );
        assert_eq!(
            ev(r#"Selected new leader and ISR {"leader":-1,"leader_epoch":14,"isr":[]} for offline partition [t, 0]"#),
            Some(Event::LeaderNone { partition: Some(p("t", 0)) })
        );
    }

    #[test]
    fn changed_partition_state() {
        assert_eq!(
            with("Changed partition t-3 from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=2, leaderEpoch=15, isr=List(2), zkVersion=28)", 1, Some(9), None),
            Some(Event::SelectedLeader {
                partition: p("t", 3),
                leader: 2,
                leader_epoch: Some(15),
                isr: vec![2],
                controller_epoch: Some(9),
                zk_version: Some(28)
            })
        );
        assert_eq!(
            ev("Controller 1 epoch 8 changed partition [t,3] from OfflinePartition to OnlinePartition with leader 2"),
            Some(Event::SelectedLeader {
                partition: p("t", 3),
                leader: 2,
                leader_epoch: None,
                isr: vec![],
                controller_epoch: Some(8),
                zk_version: None
            })
        );
        assert_eq!(
            ev("Changed partition t-3 state from OnlinePartition to OfflinePartition"),
            Some(Event::LeaderNone { partition: Some(p("t", 3)) })
        );
        assert_eq!(
            ev("Changed partition t-3 state from NonExistentPartition to NewPartition with assigned replicas 1,2"),
            None
        );
    }

    #[test]
    fn elected_leader_for_offline_partition_and_state_changed() {
        assert_eq!(
            ev("Controller 1 epoch 8 elected leader 2 for Offline partition [t,3]"),
            Some(Event::SelectedLeader {
                partition: p("t", 3),
                leader: 2,
                leader_epoch: None,
                isr: vec![],
                controller_epoch: Some(8),
                zk_version: None
            })
        );
        assert_eq!(
            with("Elected leader 2 for Offline partition t-3", 1, Some(9), None),
            Some(Event::SelectedLeader {
                partition: p("t", 3),
                leader: 2,
                leader_epoch: None,
                isr: vec![],
                controller_epoch: Some(9),
                zk_version: None
            })
        );
        assert_eq!(
            ev("Partition t-3 state changed to (Leader:-1,ISR:1,LeaderEpoch:15,ControllerEpoch:9) after removing replica 1 from the ISR as part of transition to OfflineReplica"),
            Some(Event::LeaderNone { partition: Some(p("t", 3)) })
        );
        assert_eq!(
            ev("Partition t-3 state changed to (Leader:2,ISR:2,LeaderEpoch:15,ControllerEpoch:9) after removing replica 1 from the ISR as part of transition to OfflineReplica"),
            Some(Event::LeaderIsr { partition: p("t", 3), leader: 2, leader_epoch: Some(15), isr: vec![2], controller_epoch: Some(9) })
        );
    }

    #[test]
    fn leader_isr_and_leader_none() {
        assert_eq!(
            ev(r#"New leader and ISR for partition [t,3] is {"leader":1,"leader_epoch":14,"isr":[1]}"#),
            Some(Event::LeaderIsr {
                partition: p("t", 3),
                leader: 1,
                leader_epoch: Some(14),
                isr: vec![1],
                controller_epoch: None
            })
        );
        assert_eq!(
            ev(r#"New leader and ISR for partition [t,3] is {"leader":-1,"leader_epoch":14,"isr":[1]}"#),
            Some(Event::LeaderNone { partition: Some(p("t", 3)) })
        );
        let none = Some(Event::LeaderNone { partition: Some(p("t", 3)) });
        assert_eq!(ev("kafka.common.NoReplicaOnlineException: No replica for partition [t,3] is alive. Live brokers are: [Set()], Assigned replicas are: [List(1)]"), none);
        assert_eq!(
            ev("No broker in ISR for partition [t,3] is alive. Live brokers are: [Set(2)], ISR brokers are: [1]"),
            none
        );
        assert_eq!(
            ev("No broker in ISR is alive for [t,3]. Elect leader 2 from live brokers 2. There's potential data loss."),
            none
        );
        assert_eq!(
            ev("Failed to elect leader for partition t-3 under strategy OfflinePartitionLeaderElectionStrategy"),
            none
        );
    }

    #[test]
    fn leader_and_isr_sent_received_stale() {
        assert_eq!(
            ev("Controller 1 epoch 8 sending become-leader LeaderAndIsr request (Leader:1,ISR:1,2,LeaderEpoch:14,ControllerEpoch:8) with correlationId 5 to broker 2 for partition [t,3]"),
            Some(Event::LeaderAndIsrSent { partition: Some(p("t", 3)), to: Some(2), controller_epoch: Some(8), leader: Some(1) })
        );
        assert_eq!(
            with("Sending become-follower LeaderAndIsr request PartitionState(controllerEpoch=8, leader=1, leaderEpoch=14, isr=1,2, zkVersion=27, replicas=1,2,3, isNew=false) to broker 2 for partition t-3", 1, Some(8), None),
            Some(Event::LeaderAndIsrSent { partition: Some(p("t", 3)), to: Some(2), controller_epoch: Some(8), leader: Some(1) })
        );
        assert_eq!(
            ev("Broker 2 received LeaderAndIsr request (LeaderAndIsrInfo:(Leader:1,ISR:1,2,LeaderEpoch:14,ControllerEpoch:8),ReplicationFactor:3),AllReplicas:1,2,3) correlation id 5 from controller 1 epoch 8 for partition [t,3]"),
            Some(Event::LeaderAndIsrReceived { partition: Some(p("t", 3)), controller: Some(1), controller_epoch: Some(8), leader: Some(1) })
        );
        assert_eq!(writer("Broker 2 received LeaderAndIsr request (x) correlation id 5 from controller 1 epoch 8 for partition [t,3]"), Some(2));
        assert_eq!(
            ev("Received LeaderAndIsr request PartitionState(controllerEpoch=8, leader=1, leaderEpoch=14, isr=1,2, zkVersion=27, replicas=1,2,3, isNew=false) correlation id 5 from controller 1 epoch 8 for partition t-3"),
            Some(Event::LeaderAndIsrReceived { partition: Some(p("t", 3)), controller: Some(1), controller_epoch: Some(8), leader: Some(1) })
        );
        let stale = Some(Event::StaleControllerEpoch { controller: Some(1), epoch: Some(8), latest: Some(9) });
        assert_eq!(ev("Broker 2 ignoring LeaderAndIsr request from controller 1 with correlation id 5 since its controller epoch 8 is old. Latest known controller epoch is 9"), stale);
        assert_eq!(ev("Ignoring LeaderAndIsr request from controller 1 with correlation id 5 since its controller epoch 8 is old. Latest known controller epoch is 9"), stale);
        assert_eq!(ev("Received update metadata request with correlation id 5 from an old controller 1 with epoch 8. Latest known controller epoch is 9"), stale);
        assert_eq!(
            ev("Received stop replica request from an old controller epoch 8. Latest known controller epoch is 9"),
            Some(Event::StaleControllerEpoch { controller: None, epoch: Some(8), latest: Some(9) })
        );
    }

    #[test]
    fn leader_and_isr_sent_for_a_reassignment() {
        assert_eq!(
            ev("Controller 1 epoch 8 sent LeaderAndIsr request (Leader:2,ISR:2,3,LeaderEpoch:15,ControllerEpoch:8) with new assigned replica list 2,3 to leader 2 for partition being reassigned [t,3]"),
            Some(Event::LeaderAndIsrSent { partition: Some(p("t", 3)), to: Some(2), controller_epoch: Some(8), leader: Some(2) })
        );
        assert_eq!(
            with("Sent LeaderAndIsr request (Leader:2,ISR:2,3,LeaderEpoch:15,ControllerEpoch:8) with new assigned replica list 2,3 to leader 2 for partition being reassigned t-3", 1, Some(8), None),
            Some(Event::LeaderAndIsrSent { partition: Some(p("t", 3)), to: Some(2), controller_epoch: Some(8), leader: Some(2) })
        );
        assert_eq!(
            ev("Controller 1 epoch 8 failed to send LeaderAndIsr request with new assigned replica list 2,3 to leader 2 for partition being reassigned [t,3]"),
            None
        );
    }

    #[test]
    fn lines_naming_the_controller_a_broker_obeyed() {
        assert_eq!(
            ev("Handling LeaderAndIsr request correlationId 5 from controller 1 for 3 partitions"),
            Some(Event::LeaderAndIsrReceived {
                partition: None,
                controller: Some(1),
                controller_epoch: None,
                leader: None
            })
        );
        assert_eq!(
            ev("Stopped fetchers as part of become-follower request from controller 3 epoch 6 with correlation id 9 for partition t-0 with leader 2"),
            Some(Event::LeaderAndIsrReceived { partition: Some(p("t", 0)), controller: Some(3), controller_epoch: Some(6), leader: None })
        );
        assert_eq!(
            ev("Add 4 partitions and deleted 0 partitions from metadata cache in response to UpdateMetadata request sent by controller 2 epoch 9 with correlation id 12"),
            Some(Event::ControllerIs { controller: 2, epoch: Some(9) })
        );
        assert_eq!(
            ev("Ignoring LeaderAndIsr request from controller 1 with correlation id 1 since its controller epoch 7 is old. Latest known controller epoch is 8"),
            Some(Event::StaleControllerEpoch { controller: Some(1), epoch: Some(7), latest: Some(8) })
        );
    }

    #[test]
    fn state_change_failed() {
        let none = Some(Event::LeaderNone { partition: Some(p("t", 3)) });
        assert_eq!(ev("Controller 1 epoch 8 initiated state change for partition [t,3] from OfflinePartition to OnlinePartition failed"), none);
        assert_eq!(ev("Initiated state change for partition t-3 from NewPartition to OnlinePartition failed"), none);
        assert_eq!(ev("Controller 1 epoch 8 failed to change state for partition t-3 from OfflinePartition to OnlinePartition"), none);
        let f = Some(Event::StateChangeFailed { partition: Some(p("t", 3)) });
        assert_eq!(ev("Controller 1 epoch 8 initiated state change for partition [t,3] from OnlinePartition to OnlinePartition failed"), f);
        assert_eq!(ev("Controller 1 epoch 8 failed to change state for partition t-3 from OnlinePartition to OfflinePartition"), f);
        assert_eq!(
            ev("Error while moving some partitions to the online state"),
            Some(Event::StateChangeFailed { partition: None })
        );
        assert_eq!(
            ev("Error while moving some replicas to OnlineReplica state"),
            Some(Event::StateChangeFailed { partition: None })
        );
    }

    #[test]
    fn zk_version_and_isr() {
        let part = p("t", 3);
        assert_eq!(
            with("Cached zkVersion [27] not equal to that in zookeeper, skip updating ISR", 1, None, Some(&part)),
            Some(Event::ZkVersionSkip { partition: Some(part.clone()), cached: Some(27) })
        );
        assert_eq!(
            ev("Cached zkVersion 27 not equal to that in zookeeper, skip updating ISR"),
            Some(Event::ZkVersionSkip { partition: None, cached: Some(27) })
        );
        assert_eq!(
            ev("Shrinking ISR for partition [t,3] from 1,2,3 to 1"),
            Some(Event::IsrShrink { partition: Some(part.clone()), from: vec![1, 2, 3], to: vec![1] })
        );
        assert_eq!(
            with("Shrinking ISR from 1,2,3 to 1", 1, None, Some(&part)),
            Some(Event::IsrShrink { partition: Some(part.clone()), from: vec![1, 2, 3], to: vec![1] })
        );
        assert_eq!(
            ev("Shrinking ISR from 1,2,3 to 1. Leader: (highWatermark: 10, endOffset: 12). Out of sync replicas: (brokerId: 2, endOffset: 10)."),
            Some(Event::IsrShrink { partition: None, from: vec![1, 2, 3], to: vec![1] })
        );
        assert_eq!(
            ev("Expanding ISR for partition t-3 from 1 to 1,2"),
            Some(Event::IsrExpand { partition: Some(part.clone()), from: vec![1], to: vec![1, 2] })
        );
        assert_eq!(
            ev("Expanding ISR from 1 to 1,2"),
            Some(Event::IsrExpand { partition: None, from: vec![1], to: vec![1, 2] })
        );
    }

    #[test]
    fn lifecycle() {
        assert_eq!(ev("shutting down"), Some(Event::ShuttingDown));
        assert_eq!(ev("Starting controlled shutdown"), Some(Event::ShuttingDown));
        assert_eq!(ev("Shutting down"), None);
        assert_eq!(ev("started"), Some(Event::Started));
        assert_eq!(ev("Starting"), None);
        assert_eq!(ev("an ordinary line about nothing"), None);
    }

    #[test]
    fn describe_rows() {
        assert_eq!(
            describe(b"Topic: __consumer_offsets\tPartition: 3\tLeader: -1\tReplicas: 3,1,2\tIsr: 2"),
            Some(Some(Event::LeaderNone { partition: Some(p("__consumer_offsets", 3)) }))
        );
        assert_eq!(
            describe(b"\tTopic: t  Partition: 3  Leader: 1  Replicas: 1,2  Isr: 1,2"),
            Some(Some(Event::LeaderIsr {
                partition: p("t", 3),
                leader: 1,
                leader_epoch: None,
                isr: vec![1, 2],
                controller_epoch: None
            }))
        );
        assert_eq!(
            describe(b"topic: t partition: 3 leader: -1 replicas: 1,2 isr: "),
            Some(Some(Event::LeaderNone { partition: Some(p("t", 3)) }))
        );
        assert_eq!(describe(b"Topic: t\tLeader: none"), None);
        assert_eq!(describe(b"Topic:t\tPartitionCount:3\tReplicationFactor:3\tConfigs:"), Some(None));
        assert_eq!(
            describe(b"Topic: t\tPartition: 0\tLeader: none\tReplicas: 1\tIsr: "),
            Some(Some(Event::LeaderNone { partition: Some(p("t", 0)) }))
        );
        assert_eq!(describe(b"[2017] INFO x"), None);
    }
}
