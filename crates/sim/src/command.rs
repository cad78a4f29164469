//! Inputs to the world, as values: the faults a scenario script or a user injects.
use crate::ids::NodeId;
use alloc::format;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// Which direction(s) of a link a cut or heal applies to.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Both directions.
    #[default]
    Both,
    /// Only messages from `a` to `b`.
    AToB,
    /// Only messages from `b` to `a`.
    BToA,
    /// Only requests: the client's side of the link to its server, whichever end is named first:
    /// broker → ZooKeeper, broker → KRaft voter, consumer → broker, and between brokers the higher
    /// id → the lower.
    Requests,
    /// Only replies and notifications: server → client (ZooKeeper → broker, voter → broker,
    /// broker → consumer, lower broker id → higher).
    Replies,
}

impl Direction {
    /// `Requests`/`Replies` as `AToB`/`BToA` for the link named `(a, b)`; others unchanged.
    pub fn resolve(self, a: NodeId, b: NodeId) -> Direction {
        // The server's rank: ZooKeeper servers and voters serve brokers, brokers serve consumers;
        // between two brokers the lower id is taken as the server.
        let rank = |n: NodeId| match n {
            NodeId::Zk(_) | NodeId::Voter(_) => 0,
            NodeId::Broker(_) => 1,
            NodeId::Client(_) => 2,
        };
        let a_is_client = match (a, b) {
            (NodeId::Broker(x), NodeId::Broker(y)) => x > y,
            _ => rank(a) > rank(b),
        };
        match (self, a_is_client) {
            (Direction::Requests, true) | (Direction::Replies, false) => Direction::AToB,
            (Direction::Requests, false) | (Direction::Replies, true) => Direction::BToA,
            (d, _) => d,
        }
    }
}

/// A fault or user action. Scenario scripts and the UI speak the same language.
///
/// In JSON an object tagged by `op`: `{"op":"cut","a":"b1","b":"zk","dir":"requests"}`. It is read
/// by one visitor over the object's fields ([`Command`]'s `Deserialize` below), not by serde's
/// internally tagged enum code, which buffers the object and is instantiated per variant (about
/// 19 KB of wasm); the messages are serde's own (`missing field`, `unknown variant`, `duplicate
/// field`). Unknown fields are ignored, as before; a known field that this command does not take
/// (`dir` on an `isolate`) is ignored too, but must now hold a valid value.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Hash)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Command {
    /// Cut the link between `a` and `b`: messages on it are dropped.
    Cut {
        /// One end.
        a: NodeId,
        /// The other end.
        b: NodeId,
        /// Which direction(s).
        #[serde(default)]
        dir: Direction,
    },
    /// Heal a cut link.
    Heal {
        /// One end.
        a: NodeId,
        /// The other end.
        b: NodeId,
        /// Which direction(s).
        #[serde(default)]
        dir: Direction,
    },
    /// Reset the TCP connection between a broker and a ZooKeeper server (a firewall, NAT or load
    /// balancer drops its state, a middlebox sends RST): both ends see the connection closed at
    /// once and what was in flight on it is lost; the link itself stays up, so the client's next
    /// connection works. The broker's ZooKeeper client drops the connection as for any socket
    /// error and connects to its next server after its reconnect sleep.
    Reset {
        /// One end.
        a: NodeId,
        /// The other end.
        b: NodeId,
    },
    /// Cut every link of `node` (a network partition isolating it).
    Isolate {
        /// The node.
        node: NodeId,
    },
    /// Heal every link of `node`.
    Rejoin {
        /// The node.
        node: NodeId,
    },
    /// Kill a broker process (`kill -9`): its ZooKeeper session lives on until it expires.
    Crash {
        /// The broker.
        node: NodeId,
    },
    /// Start a crashed broker (a new process with a new ZooKeeper session), or restart a running one.
    Restart {
        /// The broker.
        node: NodeId,
    },
    /// Restart a consumer (for example a deploy): it forgets its coordinator and looks it up again.
    RestartConsumer {
        /// The client.
        node: NodeId,
    },
    /// An operator deletes `/controller` (`zookeeper-shell … delete /controller`, the usual way to
    /// force a controller move): every broker re-elects, and the old controller learns it lost the
    /// role only when it processes that event — its session did not expire.
    DeleteController,
    /// Set the one-way latency of a link, both directions.
    SetLatency {
        /// One end.
        a: NodeId,
        /// The other end.
        b: NodeId,
        /// One-way latency in ms.
        ms: u64,
    },
}

/// A command's `op`.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Op {
    Cut,
    Heal,
    Reset,
    Isolate,
    Rejoin,
    Crash,
    Restart,
    RestartConsumer,
    DeleteController,
    SetLatency,
}

/// The fields any command has.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    Op,
    A,
    B,
    Dir,
    Node,
    Ms,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Command {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(CommandVisitor)
    }
}

struct CommandVisitor;

impl<'de> serde::de::Visitor<'de> for CommandVisitor {
    type Value = Command;

    fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str("a command: an object with an \"op\"")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut m: M) -> Result<Command, M::Error> {
        use serde::de::Error;
        fn put<'de, T: Deserialize<'de>, M: serde::de::MapAccess<'de>>(
            slot: &mut Option<T>,
            name: &'static str,
            m: &mut M,
        ) -> Result<(), M::Error> {
            if slot.is_some() {
                return Err(M::Error::duplicate_field(name));
            }
            *slot = Some(m.next_value()?);
            Ok(())
        }
        let (mut op, mut a, mut b, mut dir, mut node, mut ms) = (None, None, None, None, None, None);
        while let Some(k) = m.next_key::<Field>()? {
            match k {
                Field::Op => put(&mut op, "op", &mut m)?,
                Field::A => put(&mut a, "a", &mut m)?,
                Field::B => put(&mut b, "b", &mut m)?,
                Field::Dir => put(&mut dir, "dir", &mut m)?,
                Field::Node => put(&mut node, "node", &mut m)?,
                Field::Ms => put(&mut ms, "ms", &mut m)?,
                Field::Other => {
                    m.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        fn need<T, E: Error>(v: Option<T>, name: &'static str) -> Result<T, E> {
            v.ok_or_else(|| E::missing_field(name))
        }
        let op = need(op, "op")?;
        let dir: Direction = dir.unwrap_or_default();
        Ok(match op {
            Op::Cut => Command::Cut { a: need(a, "a")?, b: need(b, "b")?, dir },
            Op::Heal => Command::Heal { a: need(a, "a")?, b: need(b, "b")?, dir },
            Op::Reset => Command::Reset { a: need(a, "a")?, b: need(b, "b")? },
            Op::Isolate => Command::Isolate { node: need(node, "node")? },
            Op::Rejoin => Command::Rejoin { node: need(node, "node")? },
            Op::Crash => Command::Crash { node: need(node, "node")? },
            Op::Restart => Command::Restart { node: need(node, "node")? },
            Op::RestartConsumer => Command::RestartConsumer { node: need(node, "node")? },
            Op::DeleteController => Command::DeleteController,
            Op::SetLatency => Command::SetLatency { a: need(a, "a")?, b: need(b, "b")?, ms: need(ms, "ms")? },
        })
    }
}

impl Command {
    /// A short human description.
    pub fn describe(&self) -> String {
        let arrow = |d: &Direction| match d {
            Direction::Both => "<->",
            Direction::AToB => "->",
            Direction::BToA => "<-",
            Direction::Requests => "-requests->",
            Direction::Replies => "<-replies-",
        };
        match self {
            Command::Cut { a, b, dir } => format!("cut {a} {} {b}", arrow(dir)),
            Command::Heal { a, b, dir } => format!("heal {a} {} {b}", arrow(dir)),
            Command::Reset { a, b } => format!("reset the connection {a} <-> {b}"),
            Command::Isolate { node } => format!("isolate {node}"),
            Command::Rejoin { node } => format!("rejoin {node}"),
            Command::Crash { node } => format!("crash {node}"),
            Command::Restart { node } => format!("restart {node}"),
            Command::RestartConsumer { node } => format!("restart consumer {node}"),
            Command::SetLatency { a, b, ms } => format!("latency {a} <-> {b} = {ms} ms"),
            Command::DeleteController => String::from("delete /controller (operator)"),
        }
    }

    /// The one validation of a command, used by scenario files, [`crate::World::apply`] and
    /// [`crate::Timeline::apply`]: every node it names must be `known` to the cluster, and the
    /// command must make sense on its own (links exist, crash targets are brokers or voters).
    pub fn validate(&self, known: &dyn Fn(NodeId) -> bool) -> Result<(), CommandError> {
        if let Some(n) = self.nodes().into_iter().find(|n| !known(*n)) {
            return Err(CommandError::UnknownNode(n));
        }
        self.check_shape().map_err(CommandError::Invalid)
    }

    fn check_shape(&self) -> Result<(), String> {
        let cmd = self;
        let link_ok = |a: &NodeId, b: &NodeId| -> Result<(), String> {
            match (a, b) {
                _ if a == b => Err(format!("{a} has no link to itself")),
                (NodeId::Client(_), NodeId::Zk(_) | NodeId::Voter(_))
                | (NodeId::Zk(_) | NodeId::Voter(_), NodeId::Client(_)) => {
                    Err(format!("there is no link between {a} and {b}: clients only talk to brokers"))
                }
                (NodeId::Client(_), NodeId::Client(_)) => {
                    Err(format!("there is no link between {a} and {b}: clients only talk to brokers"))
                }
                _ => Ok(()),
            }
        };
        match cmd {
            Command::Cut { a, b, .. } | Command::Heal { a, b, .. } => link_ok(a, b),
            Command::Reset { a, b } => match (a, b) {
                (NodeId::Broker(_), NodeId::Zk(_) | NodeId::Voter(_))
                | (NodeId::Zk(_) | NodeId::Voter(_), NodeId::Broker(_)) => Ok(()),
                _ => Err(format!(
                    "reset takes a broker and a ZooKeeper server (the connection a ZooKeeper client holds), not {a} and {b}"
                )),
            },
            Command::SetLatency { a, b, ms } => {
                link_ok(a, b)?;
                if *ms > 600_000 {
                    return Err(format!("latency {ms} ms is above the 600000 ms limit"));
                }
                Ok(())
            }
            Command::Crash { node } | Command::Restart { node } => match node {
                NodeId::Broker(_) | NodeId::Voter(_) => Ok(()),
                other => Err(format!("only brokers (and KRaft voters) can crash or restart, not {other}")),
            },
            Command::RestartConsumer { node } => match node {
                NodeId::Client(_) => Ok(()),
                other => Err(format!("restart_consumer needs a client, not {other}")),
            },
            Command::Isolate { .. } | Command::Rejoin { .. } | Command::DeleteController => Ok(()),
        }
    }

    /// Every node the command names.
    pub fn nodes(&self) -> alloc::vec::Vec<NodeId> {
        match self {
            Command::Cut { a, b, .. }
            | Command::Heal { a, b, .. }
            | Command::Reset { a, b }
            | Command::SetLatency { a, b, .. } => {
                alloc::vec![*a, *b]
            }
            Command::Isolate { node }
            | Command::Rejoin { node }
            | Command::Crash { node }
            | Command::Restart { node }
            | Command::RestartConsumer { node } => alloc::vec![*node],
            // Sent to whichever server leads the ensemble when it happens: it names none.
            Command::DeleteController => alloc::vec::Vec::new(),
        }
    }
}

/// Why a command was refused ([`Command::validate`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CommandError {
    /// It names a node the cluster does not have.
    UnknownNode(NodeId),
    /// It makes no sense on its own (the message says why).
    Invalid(String),
}

impl core::fmt::Display for CommandError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CommandError::UnknownNode(n) => write!(f, "unknown node {n}"),
            CommandError::Invalid(m) => f.write_str(m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use alloc::string::ToString;

    fn parse(json: &str) -> Result<Command, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn every_command_reads_back_what_it_writes() {
        let (b1, zk) = (NodeId::Broker(1), NodeId::Zk(0));
        let all = [
            Command::Cut { a: b1, b: zk, dir: Direction::Requests },
            Command::Heal { a: zk, b: b1, dir: Direction::BToA },
            Command::Reset { a: b1, b: zk },
            Command::Isolate { node: b1 },
            Command::Rejoin { node: b1 },
            Command::Crash { node: b1 },
            Command::Restart { node: b1 },
            Command::RestartConsumer { node: NodeId::Client(1) },
            Command::DeleteController,
            Command::SetLatency { a: b1, b: zk, ms: 250 },
        ];
        for c in all {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(parse(&json), Ok(c.clone()), "{json}");
        }
    }

    #[test]
    fn fields_in_any_order_dir_defaults_unknown_fields_ignored() {
        assert_eq!(
            parse(r#"{"b":"zk","x":[1,{"y":2}],"a":"b1","op":"cut"}"#),
            Ok(Command::Cut { a: NodeId::Broker(1), b: NodeId::Zk(0), dir: Direction::Both })
        );
        assert_eq!(parse(r#"{"op":"delete_controller","node":"b1"}"#), Ok(Command::DeleteController));
    }

    #[test]
    fn bad_commands_get_serdes_messages() {
        let err = |json: &str| parse(json).unwrap_err();
        assert!(err(r#"{"op":"isolate"}"#).starts_with("missing field `node`"), "{}", err(r#"{"op":"isolate"}"#));
        assert!(err(r#"{"node":"b1"}"#).starts_with("missing field `op`"));
        assert!(err(r#"{"op":"set_latency","a":"b1","b":"zk"}"#).starts_with("missing field `ms`"));
        assert!(err(r#"{"op":"reset","a":"b1"}"#).starts_with("missing field `b`"));
        assert!(err(r#"{"op":"explode","node":"b1"}"#).starts_with("unknown variant `explode`"));
        assert!(err(r#"{"op":"crash","node":"b1","node":"b2"}"#).starts_with("duplicate field `node`"));
        assert!(err(r#"{"op":"cut","a":"b1","b":"zk","dir":"sideways"}"#).starts_with("unknown variant `sideways`"));
        assert!(err(r#"["cut"]"#).contains("a command: an object"), "{}", err(r#"["cut"]"#));
        assert!(err(r#"{"op":"crash"}"#).contains("line 1 column"), "positions are kept: {}", err(r#"{"op":"crash"}"#));
    }
}
