//! Kafka's own tools, pointed at the model at one step (issue 13): what `kafka-topics.sh`,
//! kcat, `zookeeper-shell.sh` and a JMX reader would print, and what `state-change.log` holds. Each view reads only the state the
//! real tool reads (the ZooKeeper data tree, one broker's metadata cache, each broker's gauges),
//! returns typed rows, and renders them with the tool's own format strings, cited in each file.
//! Nothing here changes the world or decides Kafka behaviour. Who may call it: the CLI
//! (`describe`) and the page's tools panel, through [`Walk`]; nothing in the core calls it.
pub mod jmx;
pub mod kcat;
pub mod state_change;
pub mod topics;
pub mod zk_shell;

use crate::event::Event;
use crate::ids::BrokerId;
use crate::world::World;
use alloc::format;
use alloc::string::String;
use core::fmt::Write;

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

/// A world walked step by step from its start, with the [`History`] the tools need of the steps
/// taken: the one way `splitbrain describe` and the playground's panel
/// ([`crate::Timeline::tools_walk`]) reach a step and render a tool there.
#[derive(Clone, Debug)]
pub struct Walk {
    world: World,
    history: History,
}

impl Walk {
    /// Starts at `world` as built (before its first step).
    pub fn start(world: World) -> Walk {
        let history = History::start(&world);
        Walk { world, history }
    }

    /// The world reached.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// What the tools collected up to the world reached.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Takes one step with `next` (the world's own step, or a command replayed at it) and records
    /// it; false when `next` took none.
    pub fn advance(&mut self, next: impl FnOnce(&mut World) -> Option<Event>) -> bool {
        match next(&mut self.world) {
            Some(event) => {
                self.history.observe(&event, &self.world);
                true
            }
            None => false,
        }
    }

    /// [`render`]s `tool` at the world reached.
    pub fn render(&self, tool: Tool, opts: &Options) -> Result<String, String> {
        render(&self.world, tool, opts, &self.history)
    }
}

/// The command a view stands for and whose code its strings come from, for a reader who wants to
/// run it on a real cluster. Descriptive text for the page; [`render`] never prints it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Invocation {
    /// The command line, e.g. `kafka-topics.sh --zookeeper zk1:2181,zk2:2181,zk3:2181 --describe`.
    pub command: String,
    /// Which release's code the format strings follow (the sources cited in each tool's file).
    pub source: String,
}

/// What [`render`] of `tool` stands for at `world`'s step: the command line (hosts as the model
/// names them: `broker-N:9092` as in the brokers' registrations, the ZooKeeper servers at
/// `:2181`) and the release whose strings it prints, as each tool's module doc cites them.
pub fn invocation(world: &World, tool: Tool, opts: &Options) -> Invocation {
    let release = world.mode().release();
    let kafka = |what: &str| match release {
        Some(r) => format!("Kafka {r}'s {what}"),
        None => format!("the ZooKeeper-era {what} (this mode models a KRaft quorum)"),
    };
    let mut zk = String::new();
    for s in world.zk_servers() {
        if !zk.is_empty() {
            zk.push(',');
        }
        let _ = write!(zk, "{}:2181", s.id());
    }
    if zk.is_empty() {
        zk.push_str("zk:2181");
    }
    let first_zk = String::from(zk.split(',').next().unwrap_or("zk:2181"));
    let broker = match bootstrap(world, opts.broker) {
        Ok(b) => format!("broker-{b}:9092"),
        Err(_) => opts.broker.map_or(String::from("broker-N:9092"), |b| format!("broker-{b}:9092")),
    };
    let filters = format!(
        "{}{}",
        if opts.unavailable { " --unavailable-partitions" } else { "" },
        if opts.under_replicated { " --under-replicated-partitions" } else { "" }
    );
    let (command, source) = match tool {
        Tool::Topics => (
            format!("kafka-topics.sh --zookeeper {zk} --describe{filters}"),
            kafka("TopicCommand (--zookeeper): the leader is read from the partition's state znode"),
        ),
        Tool::TopicsAdmin => (
            format!("kafka-topics.sh --bootstrap-server {broker} --describe{filters}"),
            String::from(
                "Kafka 2.2.0's TopicCommand (--bootstrap-server, the first release with it): the AdminClient                  asks one broker's metadata cache",
            ),
        ),
        Tool::Kcat => (
            format!("kcat -L -b {broker}"),
            String::from("kcat 1.7.1's metadata_print: one broker's metadata cache"),
        ),
        Tool::ZkShell => (
            format!(
                "zookeeper-shell.sh {first_zk} get PATH   # /controller, /controller_epoch, /brokers/ids/*, \
                 each partition's state znode"
            ),
            String::from("ZooKeeper 3.4.10's ZooKeeperMain (the version Kafka 1.0.0 bundles)"),
        ),
        Tool::Jmx => (
            String::from(
                "JMX, each running broker: ActiveControllerCount, OfflinePartitionsCount, UnderReplicatedPartitions",
            ),
            kafka("gauge beans, one tab-separated line per broker and bean (this project's layout, not JmxTool's CSV)"),
        ),
        Tool::StateChange => (
            String::from("cat logs/state-change.log   # the controllers' state.change.logger"),
            kafka("state.change.logger lines, in log4j's [%d] %p %m (%c)%n"),
        ),
    };
    Invocation { command, source }
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
