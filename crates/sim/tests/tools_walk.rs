//! `Timeline::tools_walk`: the playground's way to a tool's view at a step is the CLI's walk
//! (`tools::Walk` over `World::step`), goes on from an earlier walk of the same run, and never
//! from a walk of a run the user has since changed.
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::tools::{self, Options, Tool, Walk};
use splitbrain_sim::{Command, Direction, Mode, NodeId, Timeline, World};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const TOOLS: [Tool; 6] = [Tool::Topics, Tool::TopicsAdmin, Tool::Kcat, Tool::ZkShell, Tool::Jmx, Tool::StateChange];

fn timeline() -> Timeline {
    let mut t = Timeline::new(builtin("seed-incident").unwrap(), None).unwrap();
    t.compute_all();
    t
}

/// Every tool's output (or refusal) at a walk.
fn outputs(render: impl Fn(Tool) -> Result<String, String>) -> Vec<Result<String, String>> {
    TOOLS.iter().map(|t| render(*t)).collect()
}

/// The CLI's path: a plain world walked `n` steps.
fn plain(n: usize) -> Vec<Result<String, String>> {
    let s = builtin("seed-incident").unwrap();
    let mut w = Walk::start(World::with_mode(&s, s.seed, s.opening_mode(None)).unwrap());
    for _ in 0..n {
        assert!(w.advance(World::step));
    }
    outputs(|t| w.render(t, &Options::default()))
}

#[test]
fn a_walk_resumed_step_by_step_renders_what_a_fresh_walk_and_the_plain_run_render() {
    let t = timeline();
    let len = t.len();
    let mut walk = None;
    for step in [0, 1, 2, 50, 144, 145, 146, 300, len] {
        let resumed = t.tools_walk(step, walk.take()).unwrap();
        let fresh = t.tools_walk(step, None).unwrap();
        assert_eq!(resumed.step(), step);
        assert_eq!(resumed.walk().world().step_count(), step as u64);
        let opts = Options::default();
        let got = outputs(|tool| resumed.render(tool, &opts));
        assert_eq!(got, outputs(|tool| fresh.render(tool, &opts)), "step {step}");
        assert_eq!(got, plain(step), "step {step}");
        walk = Some(resumed);
    }
    // The state-change log grows along the run: the walk kept what the earlier steps wrote.
    let end = t.tools_walk(len, None).unwrap().render(Tool::StateChange, &Options::default()).unwrap();
    assert!(end.lines().count() > 1, "{end}");
}

#[test]
fn stepping_back_walks_again_from_the_start() {
    let t = timeline();
    let at_end = t.tools_walk(t.len(), None).unwrap();
    let back = t.tools_walk(145, Some(at_end)).unwrap();
    assert_eq!(back.step(), 145);
    assert_eq!(outputs(|tool| back.render(tool, &Options::default())), plain(145));
    assert!(t.tools_walk(t.len() + 1, None).is_none(), "past the computed steps");
}

#[test]
fn a_walk_of_a_run_the_user_changed_is_not_resumed() {
    let mut t = timeline();
    let stale = t.tools_walk(60, None).unwrap();
    let old_end = t.tools_walk(t.len(), None).unwrap().render(Tool::StateChange, &Options::default());
    // Broker 1 crashes at step 40, before the walk's step: the run from there on is another one.
    t.seek(40);
    t.apply(Command::Crash { node: NodeId::Broker(1) }).unwrap();
    t.compute_all();
    let len = t.len();
    let resumed = t.tools_walk(len, Some(stale)).unwrap();
    let fresh = t.tools_walk(len, None).unwrap();
    let opts = Options::default();
    assert_eq!(outputs(|tool| resumed.render(tool, &opts)), outputs(|tool| fresh.render(tool, &opts)));
    assert_ne!(fresh.render(Tool::StateChange, &opts), old_end, "the crash changes the log");
    assert_eq!(resumed.walk().world().step_count(), len as u64);
    // A walk before the user's command is still this run's, and goes on through it.
    let early = t.tools_walk(30, None).unwrap();
    let on = t.tools_walk(len, Some(early)).unwrap();
    assert_eq!(outputs(|tool| on.render(tool, &opts)), outputs(|tool| fresh.render(tool, &opts)));
    // The other direction of a cut changes the run too.
    let mut u = timeline();
    let before = u.tools_walk(20, None).unwrap();
    u.seek(10);
    u.apply(Command::Cut { a: NodeId::Broker(1), b: NodeId::Zk(1), dir: Direction::Both }).unwrap();
    u.compute_all();
    let a = u.tools_walk(u.len(), Some(before)).unwrap();
    let b = u.tools_walk(u.len(), None).unwrap();
    assert_eq!(outputs(|tool| a.render(tool, &opts)), outputs(|tool| b.render(tool, &opts)));
}

#[test]
fn the_invocation_names_the_command_and_the_release_the_mode_models() {
    let t = timeline();
    let w = t.tools_walk(t.len(), None).unwrap();
    let opts = Options::default();
    let topics = w.invocation(Tool::Topics, &opts);
    assert!(topics.command.starts_with("kafka-topics.sh --zookeeper zk"), "{topics:?}");
    assert!(topics.command.ends_with(":2181 --describe"), "{topics:?}");
    assert!(topics.source.starts_with("Kafka 1.0.0's TopicCommand"), "{topics:?}");
    let un = w.invocation(Tool::Topics, &Options { unavailable: true, ..Options::default() });
    assert!(un.command.ends_with(" --describe --unavailable-partitions"), "{un:?}");
    // Broker 1 is down at the end: the client tools ask the lowest-numbered live broker, 2.
    let admin = w.invocation(Tool::TopicsAdmin, &opts);
    assert_eq!(admin.command, "kafka-topics.sh --bootstrap-server broker-2:9092 --describe");
    assert!(admin.source.starts_with("Kafka 2.2.0's TopicCommand"), "{admin:?}");
    let kcat = w.invocation(Tool::Kcat, &Options { broker: Some(3), ..Options::default() });
    assert_eq!(kcat.command, "kcat -L -b broker-3:9092");
    for tool in [Tool::ZkShell, Tool::Jmx, Tool::StateChange] {
        assert!(!w.invocation(tool, &opts).command.is_empty());
    }
    // The release follows the mode.
    let mut f = Timeline::with_mode(builtin("seed-incident").unwrap(), None, Mode::parse("fenced").unwrap()).unwrap();
    f.compute(10);
    let fw = f.tools_walk(10, None).unwrap();
    assert!(fw.invocation(Tool::StateChange, &opts).source.starts_with("Kafka 2.1.0's"));
    assert!(tools::invocation(fw.walk().world(), Tool::Topics, &opts).source.starts_with("Kafka 2.1.0's"));
}
