//! Which broker wrote a line: from the logger prefix (`logIdent`) the line carries, from a
//! thread name, or from a name (a file's, a docker-compose service's, a pod's).
//!
//! The prefixes, per release (every one read at the tag; see `docs/log-formats.md`):
//! - 0.8–0.11: `[Controller 1]: `, `[Partition state machine on Controller 1]: `,
//!   `[Replica state machine on controller 1]: `, `[SessionExpirationListener on 3], `,
//!   `[BrokerChangeListener on Controller 1]: `, `[Channel manager on controller 1]: `,
//!   `[KafkaApi-1] `, `[Replica Manager on Broker 1]: `, `[Kafka Server 1], `,
//!   `Partition [t,3] on broker 1: `, `[Topic Deletion Manager 1], `;
//! - 1.0+: `[Controller id=1] `, `[Controller id=1 epoch=8] ` / `[Broker id=1] ` (state-change
//!   logger), `[PartitionStateMachine controllerId=1] `, `[ReplicaStateMachine controllerId=1] `,
//!   `[ReplicaManager broker=1] `, `[Partition t-3 broker=1] `, `[KafkaServer id=1] ` (1.1+),
//!   `[RequestSendThread controllerId=1] `, `[ControllerEventThread controllerId=1] `;
//! - threads: `Controller-1-to-broker-2-send-thread` (the controller's send thread: broker 1).
//!
//! `[Controller id=N]` is the prefix of KafkaController's logger on every broker, controller or
//! not ("Resigning", "Controller moved" on a broker that is not controller carry it too): it says
//! who wrote the line, never that the writer is controller.
use crate::event::{Broker, Partition};
use crate::text::{alnum, broker, find_ci, int, partition, skip_blank, starts_ci};

/// The logger prefix of a message.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Ident {
    /// The broker it names (the writer).
    pub broker: Option<Broker>,
    /// The controller epoch it states (`[Controller id=1 epoch=8]`).
    pub epoch: Option<i32>,
    /// The partition it names (`[Partition t-3 broker=1]`, `Partition [t,3] on broker 1:`).
    pub partition: Option<Partition>,
    /// Bytes of the message it spans (with the `: `/`, ` after it).
    pub len: usize,
}

/// Reads the logger prefixes at the start of `msg` (up to three `[...]` groups, and the 0.8–0.11
/// `Partition [t,3] on broker 1: `).
pub fn ident(msg: &[u8]) -> Ident {
    let mut id = Ident::default();
    let mut p = 0;
    for _ in 0..3 {
        let s = &msg[p..];
        if s.first() == Some(&b'[') {
            let Some(close) = s.iter().take(200).position(|b| *b == b']') else { break };
            let inner = &s[1..close];
            if inner.first().is_none_or(|b| !b.is_ascii_alphabetic()) || inner.contains(&b'[') {
                break;
            }
            // `[topic,3]` starting a message is a partition, not a prefix.
            if partition(&s[..close + 1]).is_some() && !inner.contains(&b' ') {
                break;
            }
            let g = group(inner);
            id.broker = id.broker.or(g.broker);
            id.epoch = id.epoch.or(g.epoch);
            if id.partition.is_none() {
                id.partition = g.partition;
            }
            p += close + 1;
            p += sep(&msg[p..]);
        } else if starts_ci(s, b"partition [") {
            // 0.8–0.11 `Partition [t,3] on broker 1: ` (cluster/Partition.scala logIdent).
            let Some((part, n)) = partition(&s[10..]) else { break };
            let r = &s[10 + n..];
            if !starts_ci(r, b" on broker ") {
                break;
            }
            let Some((b, m)) = broker(&r[11..]) else { break };
            if r.get(11 + m) != Some(&b':') {
                break;
            }
            id.broker = id.broker.or(Some(b));
            id.partition = Some(part);
            p += 10 + n + 11 + m + 1;
            p += sep(&msg[p..]);
        } else {
            break;
        }
    }
    id.len = p;
    id
}

fn sep(s: &[u8]) -> usize {
    let mut n = 0;
    if matches!(s.first(), Some(b':' | b',')) {
        n += 1;
    }
    n + s[n..].iter().take_while(|b| **b == b' ' || **b == b'\t').count()
}

/// What one `[...]` group (its inside) names.
pub fn group(inner: &[u8]) -> Ident {
    let mut id = Ident::default();
    // `Controller-1-to-broker-2-send-thread`: the controller (writer) is the first number.
    // (0.8.2.2:controller/ControllerChannelManager.scala:115, 1.1.0:controller/ControllerChannelManager.scala:150;
    // `prefix:Controller-...` when the broker has a thread name prefix, 0.10.2.1+ :127.)
    if let Some(i) = find_ci(inner, b"controller-") {
        if let Some((b, n)) = broker(&inner[i + 11..]) {
            if starts_ci(&inner[i + 11 + n..], b"-to-broker-") {
                id.broker = Some(b);
                return id;
            }
        }
    }
    // `key=N` forms (1.0+): controllerId, id, broker, brokerId, replicaId; epoch=N.
    for key in [&b"controllerid="[..], b"brokerid=", b"replicaid=", b"broker=", b"id="] {
        if id.broker.is_none() {
            id.broker = key_int(inner, key).and_then(|v| Broker::try_from(v).ok());
        }
    }
    id.epoch = key_int(inner, b"epoch=").and_then(|v| i32::try_from(v).ok());
    // `Partition t-3 broker=1`, `Log partition=t-3, dir=...`.
    if starts_ci(inner, b"partition ") {
        id.partition = partition(&inner[10..]).map(|p| p.0);
    } else if let Some(i) = find_ci(inner, b"partition=") {
        id.partition = partition(&inner[i + 10..]).map(|p| p.0);
    }
    if id.broker.is_some() {
        return id;
    }
    // `X on broker N`, `X on controller N`, `X on Controller N`, `X on N` (0.8–0.11).
    if let Some(i) = find_ci(inner, b" on ") {
        let mut r = &inner[i + 4..];
        for w in [&b"broker "[..], b"controller "] {
            if starts_ci(r, w) {
                r = &r[w.len()..];
            }
        }
        if let Some((b, n)) = broker(r) {
            if n == r.len() {
                id.broker = Some(b);
                return id;
            }
        }
    }
    // `Controller 1`, `Controller 1 epoch 8`, `Kafka Server 1`, `KafkaApi-1`, `Topic Deletion
    // Manager 1`, `GroupCoordinator 1`.
    for w in [
        &b"controller "[..],
        b"kafka server ",
        b"kafkaapi-",
        b"topic deletion manager ",
        b"groupcoordinator ",
        b"transactioncoordinator ",
    ] {
        if starts_ci(inner, w) {
            if let Some((b, n)) = broker(&inner[w.len()..]) {
                let rest = &inner[w.len() + n..];
                if rest.is_empty() {
                    id.broker = Some(b);
                } else if starts_ci(rest, b" epoch ") {
                    id.broker = Some(b);
                    id.epoch = int(&rest[7..]).and_then(|(v, _)| i32::try_from(v).ok());
                }
            }
        }
    }
    id
}

/// `key` (lower case, `...=`) at a word start in `s`, and the integer after it.
fn key_int(s: &[u8], key: &[u8]) -> Option<i64> {
    let mut from = 0;
    while from < s.len() {
        let i = from + find_ci(&s[from..], key)?;
        if i == 0 || !alnum(s[i - 1]) {
            return int(skip_blank(&s[i + key.len()..])).map(|(v, _)| v);
        }
        from = i + 1;
    }
    None
}

/// The writer a 0.8–0.11 message names at its start: `Broker N ...` (the receiving broker's
/// state-change lines, 0.8.2.2:server/ReplicaManager.scala:329; "Broker %d starting become controller
/// state transition", 0.11.0.0:controller/KafkaController.scala:248) or `Controller N epoch E ...`
/// (the controller's state-change lines, 0.8.2.2:controller/PartitionStateMachine.scala:213).
pub fn text_lead(msg: &[u8]) -> Option<Broker> {
    for (w, needs_epoch) in [(&b"broker "[..], false), (b"controller ", true)] {
        if starts_ci(msg, w) {
            let (b, n) = broker(&msg[w.len()..])?;
            let rest = &msg[w.len() + n..];
            let ok = if needs_epoch { starts_ci(rest, b" epoch ") } else { rest.first() == Some(&b' ') };
            return if ok { Some(b) } else { None };
        }
    }
    None
}

/// The broker a thread name (`%t`) names: only the controller's send thread
/// (`Controller-1-to-broker-2-send-thread`) does.
pub fn thread(t: &[u8]) -> Option<Broker> {
    if find_ci(t, b"-to-broker-").is_some() {
        group(t).broker
    } else {
        None
    }
}

/// The broker a name gives: a file name (`broker2/controller.log`, `kafka-3.log`,
/// `kafka3-server.log`), a docker-compose service (`kafka-1`, `kafka_1`, `kafka1_1`) or a pod
/// (`kafka-0`). `kafka` or `broker` (a word) then an id: glued (`kafka3`) at most 2 digits,
/// after `-`, `_` or `.` at most 4, and the id must end the word (`kafka1663.log`,
/// `server.log.2017-11-10-15`, `controller.log.1`, `kafka-2017-11-10.log` give none).
/// The last path segment is tried first.
pub fn name(name: &[u8]) -> Option<Broker> {
    let name = &name[..name.len().min(4096)];
    for seg in name.rsplit(|b| *b == b'/' || *b == b'\\') {
        if let Some(b) = segment(seg) {
            return Some(b);
        }
    }
    None
}

fn segment(seg: &[u8]) -> Option<Broker> {
    let mut i = 0;
    while i < seg.len() {
        let word_start = i == 0 || !seg[i - 1].is_ascii_alphabetic();
        let w = [&b"kafka"[..], b"broker"].into_iter().find(|w| word_start && starts_ci(&seg[i..], w));
        if let Some(w) = w {
            let mut j = i + w.len();
            let glued = !matches!(seg.get(j), Some(b'-' | b'_' | b'.'));
            if !glued {
                j += 1;
            }
            let digits = seg[j..].iter().take_while(|b| b.is_ascii_digit()).count();
            let max = if glued { 2 } else { 4 };
            let end = seg.get(j + digits).copied();
            let ends_word = match end {
                None => true,
                Some(b'-') => !seg.get(j + digits + 1).is_some_and(u8::is_ascii_digit),
                Some(c) => !c.is_ascii_alphanumeric(),
            };
            if digits > 0 && digits <= max && ends_word {
                return broker(&seg[j..]).map(|(b, _)| b);
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn b(s: &str) -> Option<Broker> {
        ident(s.as_bytes()).broker
    }

    #[test]
    fn new_prefixes() {
        assert_eq!(b("[Controller id=1] Resigned"), Some(1));
        let id = ident(b"[Controller id=1 epoch=8] Sending become-leader");
        assert_eq!((id.broker, id.epoch, id.len), (Some(1), Some(8), 26));
        assert_eq!(b("[Broker id=2] Received LeaderAndIsr"), Some(2));
        assert_eq!(b("[PartitionStateMachine controllerId=3] x"), Some(3));
        assert_eq!(b("[ReplicaStateMachine controllerId=3] x"), Some(3));
        assert_eq!(b("[KafkaServer id=4] started"), Some(4));
        assert_eq!(b("[ReplicaManager broker=5] x"), Some(5));
        assert_eq!(b("[ReplicaFetcher replicaId=6, leaderId=2, fetcherId=0] x"), Some(6));
        let id = ident(b"[Partition my-topic-3 broker=1] Shrinking ISR from 1,2 to 1");
        assert_eq!(id.broker, Some(1));
        assert_eq!(id.partition.unwrap().to_string(), "my-topic-3");
        assert_eq!(&b"[Partition my-topic-3 broker=1] Shrinking"[id.len..], b"Shrinking");
    }

    #[test]
    fn old_prefixes() {
        assert_eq!(b("[Controller 1]: x"), Some(1));
        let id = ident(b"[Controller 1 epoch 8]: x");
        assert_eq!((id.broker, id.epoch), (Some(1), Some(8)));
        assert_eq!(b("[Partition state machine on Controller 1]: x"), Some(1));
        assert_eq!(b("[Replica state machine on controller 1]: x"), Some(1));
        assert_eq!(b("[SessionExpirationListener on 3], ZK expired"), Some(3));
        assert_eq!(b("[BrokerChangeListener on Controller 1]: Newly"), Some(1));
        assert_eq!(b("[Controller-1-to-broker-2-send-thread], Starting"), Some(1));
        assert_eq!(b("[KafkaApi-1] x"), Some(1));
        assert_eq!(b("[Kafka Server 1], started"), Some(1));
        assert_eq!(b("[Replica Manager on Broker 2]: x"), Some(2));
        let id = ident(b"Partition [t,3] on broker 1: Shrinking ISR from 1,2 to 1");
        assert_eq!((id.broker, id.partition.map(|p| p.partition)), (Some(1), Some(3)));
        assert_eq!(id.len, 29);
        assert_eq!(b("[ReplicaFetcherThread-0-2], Starting"), None);
        assert_eq!(b("[topic,3] x"), None);
        assert_eq!(ident(b"[topic,3] x").len, 0);
    }

    #[test]
    fn text_leads() {
        assert_eq!(text_lead(b"Broker 2 handling LeaderAndIsr request correlationId 5 from controller 1"), Some(2));
        assert_eq!(text_lead(b"Controller 1 epoch 8 changed state of replica 2"), Some(1));
        assert_eq!(text_lead(b"Controller 1 is ready"), None);
        assert_eq!(text_lead(b"Broker failure callback for 2"), None);
    }

    #[test]
    fn threads() {
        assert_eq!(thread(b"Controller-1-to-broker-2-send-thread"), Some(1));
        assert_eq!(thread(b"kafka:Controller-3-to-broker-2-send-thread"), Some(3));
        assert_eq!(thread(b"controller-event-thread"), None);
        assert_eq!(thread(b"kafka-request-handler-3"), None);
    }

    #[test]
    fn names() {
        assert_eq!(name(b"broker2/controller.log"), Some(2));
        assert_eq!(name(b"kafka-3.log"), Some(3));
        assert_eq!(name(b"kafka3-server.log"), Some(3));
        assert_eq!(name(b"logs/kafka_1/server.log"), Some(1));
        assert_eq!(name(b"kafka-0"), Some(0));
        assert_eq!(name(b"kafka-1001.log"), Some(1001));
        assert_eq!(name(b"kafka1663.log"), None);
        assert_eq!(name(b"server.log.2017-11-10-15"), None);
        assert_eq!(name(b"controller.log.1"), None);
        assert_eq!(name(b"kafka-2017-11-10.log"), None);
        assert_eq!(name(b"paste"), None);
    }
}
