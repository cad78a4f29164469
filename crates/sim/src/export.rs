//! Exports of a run: the trace as JSON lines (the schema of `splitbrain run --json`), as a Kafka
//! `controller.log`-style text, and as a Mermaid sequence diagram of the messages that matter.
use crate::event::{Event, EventKind};
use crate::ids::NodeId;
use crate::view::Summary;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One JSON object per event, then `{"final": SUMMARY}`.
pub fn json_lines(events: &[Event], summary: &Summary) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&serde_json::to_string(e).unwrap_or_default());
        s.push('\n');
    }
    s.push_str(&serde_json::to_string(&serde_json::json!({ "final": summary })).unwrap_or_default());
    s.push('\n');
    s
}

/// Virtual time as a log4j timestamp on an arbitrary day of the Kafka 1.0 era.
fn stamp(ms: u64) -> String {
    let (d, rem) = (ms / 86_400_000, ms % 86_400_000);
    let (h, m, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    format!("2018-03-{:02} {h:02}:{m:02}:{s:02},{milli:03}", 1 + d)
}

/// The log4j logger of a line by its prefix, searched in order (the first match wins; a line
/// matching none is the simulator's own).
const LOGGERS: &[(&str, &str)] = &[
    ("[Controller", "kafka.controller.KafkaController"),
    ("[ReplicaManager", "kafka.server.ReplicaManager"),
    ("[Partition", "kafka.cluster.Partition"),
    ("[ZkClient", "org.I0Itec.zkclient.ZkClient"),
    ("[KafkaHealthcheck", "kafka.server.KafkaHealthcheck"),
    ("[GroupCoordinator", "kafka.coordinator.group.GroupCoordinator"),
    ("[Consumer", "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"),
    ("zk:", "org.apache.zookeeper.server.ZooKeeperServer"),
];

fn logger(line: &str) -> &'static str {
    LOGGERS.iter().find(|(prefix, _)| line.starts_with(prefix)).map_or("splitbrain.Simulator", |(_, l)| l)
}

/// The log lines brokers and ZooKeeper wrote, in log4j layout (`[time] LEVEL message (logger)`),
/// each prefixed by the node that wrote it. Message plumbing (`b2 ← zk: ok`) is left out.
pub fn controller_log(events: &[Event]) -> String {
    let mut s = String::new();
    for e in events {
        for line in core::iter::once(&e.line).chain(e.details.iter()) {
            let plumbing = line.contains(" ← ") || line.contains(" → ") && !line.starts_with("DROPPED");
            if plumbing {
                continue;
            }
            let level = match e.kind {
                EventKind::ControlRejected | EventKind::MessageDropped => "WARN",
                EventKind::LeaderChange if line.contains("\"leader\":-1") || line.contains("failed") => "ERROR",
                _ if line.contains("Cached zkVersion") || line.contains("COORDINATOR_NOT_AVAILABLE") => "WARN",
                _ => "INFO",
            };
            s.push_str(&format!("[{}] {level} {} {line} ({})\n", stamp(e.time_ms), e.node, logger(line)));
        }
        for a in &e.alerts_raised {
            s.push_str(&format!("[{}] ALERT {a}\n", stamp(e.time_ms)));
        }
    }
    s
}

fn participant(n: NodeId) -> String {
    match n {
        NodeId::Zk(_) => format!("{n}"),
        other => format!("{other}"),
    }
}

fn clean(label: &str) -> String {
    // Mermaid treats ; # and : specially in message text.
    label.replace([';', '#'], " ").replace(':', " -").chars().take(120).collect()
}

/// A Mermaid `sequenceDiagram`: controller requests and ZooKeeper writes as arrows (dropped ones
/// crossed out), elections, resignations, leader changes and expiries as notes. At most
/// `max_lines` lines, then a note saying how many were left out.
pub fn mermaid(events: &[Event], max_lines: usize) -> String {
    let mut nodes = BTreeSet::new();
    let mut body = Vec::new();
    for e in events {
        let significant = matches!(
            e.kind,
            EventKind::ControllerElected
                | EventKind::ControllerResigned
                | EventKind::LeaderChange
                | EventKind::SessionExpired
                | EventKind::Fault
                | EventKind::IsrChange
                | EventKind::ControlRejected
        );
        match (e.from, e.message.as_deref()) {
            (Some(from), Some(cat)) if cat == "control" || e.kind == EventKind::MessageDropped || significant => {
                nodes.insert(from);
                nodes.insert(e.node);
                let arrow = if e.kind == EventKind::MessageDropped { "-x" } else { "->>" };
                let text = e.line.split_once(": ").map(|(_, t)| t).unwrap_or(&e.line);
                body.push(format!("    {}{arrow}{}: {}", participant(from), participant(e.node), clean(text)));
            }
            _ if significant => {
                nodes.insert(e.node);
                body.push(format!("    Note over {}: {}", participant(e.node), clean(&e.line)));
            }
            _ => {}
        }
    }
    let mut s = String::from("sequenceDiagram\n");
    for n in &nodes {
        s.push_str(&format!("    participant {}\n", participant(*n)));
    }
    let total = body.len();
    for l in body.into_iter().take(max_lines) {
        s.push_str(&l);
        s.push('\n');
    }
    if total > max_lines {
        if let Some(n) = nodes.iter().next() {
            s.push_str(&format!("    Note over {}: … {} more lines left out\n", participant(*n), total - max_lines));
        }
    }
    s
}
