//! Kafka's own tools, pointed at the model at one step (issue 13): what `kafka-topics.sh`,
//! kcat, `zookeeper-shell.sh` and a JMX reader would print, and what `state-change.log` holds. Each view reads only the state the
//! real tool reads (the ZooKeeper data tree, one broker's metadata cache, each broker's gauges),
//! returns typed rows, and renders them with the tool's own format strings, cited in each file.
//! Nothing here changes the world or decides Kafka behaviour.
pub mod jmx;
pub mod kcat;
pub mod state_change;
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
    /// `state-change.log` up to the step ([`state_change`]).
    StateChange,
}

impl Tool {
    /// The names `--as` takes.
    pub const NAMES: [&'static str; 6] = ["topics", "topics-admin", "kcat", "zk-shell", "jmx", "state-change"];

    /// Parses an `--as` value.
    pub fn parse(s: &str) -> Result<Tool, String> {
        Ok(match s {
            "topics" => Tool::Topics,
            "topics-admin" => Tool::TopicsAdmin,
            "kcat" => Tool::Kcat,
            "zk-shell" => Tool::ZkShell,
            "jmx" => Tool::Jmx,
            "state-change" => Tool::StateChange,
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

/// What the tools need from the steps before the current one, collected as the run goes
/// ([`History::observe`] after every step).
#[derive(Clone, Debug, Default)]
pub struct History {
    /// When each zxid was written (`zk-shell`'s stat).
    pub zxid_times: zk_shell::ZxidTimes,
    /// `state-change.log` so far.
    pub state_change: state_change::StateChangeLog,
}

impl History {
    /// Records the world as built, before its first step.
    pub fn start(world: &World) -> History {
        let mut h = History::default();
        h.zxid_times.observe(world);
        h
    }

    /// Records `event`, the step just taken; `world` is the world after it.
    pub fn observe(&mut self, event: &crate::event::Event, world: &World) {
        self.zxid_times.observe(world);
        self.state_change.observe(event, world);
    }
}

/// Renders `tool` at the world's current step, with what `history` collected up to it.
pub fn render(world: &World, tool: Tool, opts: &Options, history: &History) -> Result<String, String> {
    let zxid_times = &history.zxid_times;
    match tool {
        Tool::Topics => topics::from_zookeeper(world, opts).map(|t| topics::render(&t)),
        Tool::TopicsAdmin => topics::from_admin_client(world, opts).map(|t| topics::render(&t)),
        Tool::Kcat => kcat::metadata(world, opts.broker).map(|m| kcat::render(&m)),
        Tool::ZkShell => zk_shell::gets(world, zxid_times).map(|g| zk_shell::render(&g)),
        Tool::Jmx => Ok(jmx::render(&jmx::gauges(world))),
        Tool::StateChange if world.mode().behaviour().is_kraft() => {
            Err(String::from("kraft mode has no ZooKeeper-era controller: there is no state-change.log to show"))
        }
        Tool::StateChange => Ok(state_change::render(history.state_change.lines())),
    }
}
