//! Kafka's own tools, pointed at the model at one step (issue 13): what `kafka-topics.sh`,
//! kcat, `zookeeper-shell.sh` and a JMX reader would print. Each view reads only the state the
//! real tool reads (the ZooKeeper data tree, one broker's metadata cache, each broker's gauges),
//! returns typed rows, and renders them with the tool's own format strings, cited in each file.
//! Nothing here changes the world or decides Kafka behaviour.
pub mod jmx;
pub mod kcat;
pub mod topics;
pub mod zk_shell;

use crate::ids::BrokerId;
use crate::world::World;
use alloc::format;
use alloc::string::String;

/// Which tool's view.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tool {
    /// `kafka-topics.sh --zookeeper … --describe` ([`topics`]).
    Topics,
    /// `kafka-topics.sh --bootstrap-server … --describe` ([`topics`], AdminClient).
    TopicsAdmin,
    /// `kcat -L` ([`kcat`]).
    Kcat,
    /// `zookeeper-shell.sh … get` ([`zk_shell`]).
    ZkShell,
    /// The brokers' controller and replica-manager gauges ([`jmx`]).
    Jmx,
}

impl Tool {
    /// The names `--as` takes.
    pub const NAMES: [&'static str; 5] = ["topics", "topics-admin", "kcat", "zk-shell", "jmx"];

    /// Parses an `--as` value.
    pub fn parse(s: &str) -> Result<Tool, String> {
        Ok(match s {
            "topics" => Tool::Topics,
            "topics-admin" => Tool::TopicsAdmin,
            "kcat" => Tool::Kcat,
            "zk-shell" => Tool::ZkShell,
            "jmx" => Tool::Jmx,
            _ => return Err(format!("unknown tool '{s}' (tools: {})", Tool::NAMES.join(", "))),
        })
    }
}

/// What the tools may be asked besides the world.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--unavailable-partitions` (topics views).
    pub unavailable: bool,
    /// `--under-replicated-partitions` (topics views).
    pub under_replicated: bool,
    /// The broker a client tool asks (`--bootstrap-server` / `-b`); default the first live broker.
    pub broker: Option<BrokerId>,
}

/// The broker a client tool bootstraps from: `asked`, or the lowest-numbered live broker.
pub fn bootstrap(world: &World, asked: Option<BrokerId>) -> Result<BrokerId, String> {
    match asked {
        Some(id) => match world.broker(id) {
            Some(b) if b.alive => Ok(id),
            Some(_) => Err(format!("broker {id} is not running at this step: the tool cannot connect to it")),
            None => Err(format!("no broker {id} in this scenario")),
        },
        None => world
            .brokers()
            .filter(|b| b.alive)
            .map(|b| b.id)
            .min()
            .ok_or_else(|| String::from("no broker is running at this step: the tool cannot connect")),
    }
}

/// Renders `tool` at the world's current step. `zxid_times` dates znodes for `zk-shell`.
pub fn render(world: &World, tool: Tool, opts: &Options, zxid_times: &zk_shell::ZxidTimes) -> Result<String, String> {
    match tool {
        Tool::Topics => topics::from_zookeeper(world, opts).map(|t| topics::render(&t)),
        Tool::TopicsAdmin => topics::from_admin_client(world, opts).map(|t| topics::render(&t)),
        Tool::Kcat => kcat::metadata(world, opts.broker).map(|m| kcat::render(&m)),
        Tool::ZkShell => zk_shell::gets(world, zxid_times).map(|g| zk_shell::render(&g)),
        Tool::Jmx => Ok(jmx::render(&jmx::gauges(world))),
    }
}
