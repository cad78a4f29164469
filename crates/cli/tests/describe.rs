//! `splitbrain describe`: golden lines of each tool's format for seed-incident, at the end and at
//! broker 2's election, and exit status 2 for bad input.
use std::process::{Command, Output};

fn sb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_splitbrain")).args(args).output().expect("binary runs")
}

fn ok(args: &[&str]) -> String {
    let o = sb(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("utf-8")
}

fn has(out: &str, line: &str) {
    assert!(out.lines().any(|l| l == line), "no line {line:?} in:\n{out}");
}

/// The step of the event carrying `controller_elected` for `broker` (matched on the mark's fields).
fn elected_step(broker: i64) -> u64 {
    ok(&["run", "seed-incident", "--json"])
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| {
            e["marks"]
                .as_array()
                .is_some_and(|m| m.iter().any(|m| m["mark"] == "controller_elected" && m["broker"] == broker))
        })
        .and_then(|e| e["step"].as_u64())
        .expect("broker 2 is elected")
}

const P3_ZK: &str = "\tTopic: __consumer_offsets\tPartition: 3\tLeader: -1\tReplicas: 3,1,2\tIsr: 2";
const HEADER: &str = "Topic:__consumer_offsets\tPartitionCount:50\tReplicationFactor:3\tConfigs:segment.bytes=104857600,cleanup.policy=compact,compression.type=producer";

#[test]
fn topics_reads_leader_minus_one_from_the_znode() {
    let out = ok(&["describe", "seed-incident", "--step", "end", "--as", "topics"]);
    assert_eq!(out.lines().next(), Some(HEADER));
    has(&out, P3_ZK);
    has(&out, "\tTopic: __consumer_offsets\tPartition: 1\tLeader: 2\tReplicas: 1,2,3\tIsr: 2,3");
    assert_eq!(out.lines().count(), 51);
    // --unavailable-partitions: no header, only the leaderless partitions (17 at the end).
    let un = ok(&["describe", "seed-incident", "--as", "topics", "--unavailable-partitions"]);
    assert_eq!(
        un.lines().next(),
        Some("\tTopic: __consumer_offsets\tPartition: 0\tLeader: -1\tReplicas: 3,1,2\tIsr: 2")
    );
    has(&un, P3_ZK);
    assert_eq!(un.lines().count(), 17);
    // 2.1.0 (fenced) prints the same strings, and ends with p3 led by 3: nothing unavailable.
    let fenced = ok(&["describe", "seed-incident", "--mode", "fenced", "--as", "topics"]);
    has(&fenced, "\tTopic: __consumer_offsets\tPartition: 3\tLeader: 3\tReplicas: 3,1,2\tIsr: 2,3");
    assert_eq!(
        ok(&["describe", "seed-incident", "--mode", "fenced", "--as", "topics", "--unavailable-partitions"]),
        ""
    );
}

#[test]
fn topics_admin_prints_leader_none_and_an_empty_isr() {
    let out = ok(&["describe", "seed-incident", "--step", "end", "--as", "topics-admin"]);
    assert_eq!(out.lines().next(), Some(HEADER));
    has(&out, "\tTopic: __consumer_offsets\tPartition: 3\tLeader: none\tReplicas: 3,1,2\tIsr: ");
    has(&out, "\tTopic: __consumer_offsets\tPartition: 1\tLeader: 2\tReplicas: 1,2,3\tIsr: 2,3");
}

#[test]
fn kcat_prints_leader_minus_one_leader_not_available_and_the_controller() {
    let out = ok(&["describe", "seed-incident", "--as", "kcat"]);
    let head: Vec<&str> = out.lines().take(6).collect();
    assert_eq!(
        head,
        [
            "Metadata for all topics (from broker -1: broker-2:9092/bootstrap):",
            " 2 brokers:",
            "  broker 2 at broker-2:9092 (controller)",
            "  broker 3 at broker-3:9092",
            " 1 topics:",
            "  topic \"__consumer_offsets\" with 50 partitions:",
        ]
    );
    has(&out, "    partition 3, leader -1, replicas: 3,1,2, isrs: , Broker: Leader not available");
    has(&out, "    partition 1, leader 2, replicas: 1,2,3, isrs: 2,3");
    let b3 = ok(&["describe", "seed-incident", "--as", "kcat", "--broker", "3"]);
    assert_eq!(b3.lines().next(), Some("Metadata for all topics (from broker -1: broker-3:9092/bootstrap):"));
}

#[test]
fn zk_shell_gets_the_state_znode_with_its_stat() {
    let out = ok(&["describe", "seed-incident", "--as", "zk-shell"]);
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "{\"controller_epoch\":9,\"leader\":-1,\"version\":1,\"leader_epoch\":15,\"isr\":[2]}")
        .expect("a leader -1 state znode");
    assert_eq!(
        &lines[at + 1..at + 13],
        [
            "cZxid = 0xd",
            "ctime = Thu Jan 01 00:00:00 UTC 1970",
            "mZxid = 0x9b",
            "mtime = Sat Jan 03 00:00:09 UTC 1970",
            "pZxid = 0xd",
            "cversion = 0",
            "dataVersion = 29",
            "aclVersion = 0",
            "ephemeralOwner = 0x0",
            "dataLength = 74",
            "numChildren = 0",
            "{\"controller_epoch\":9,\"leader\":2,\"version\":1,\"leader_epoch\":14,\"isr\":[2,3]}",
        ]
    );
    assert_eq!(lines[0], "{\"version\":1,\"brokerid\":2,\"timestamp\":\"0\"}");
    assert!(lines[9].starts_with("ephemeralOwner = 0x1") && lines[9] != "ephemeralOwner = 0x0");
}

#[test]
fn jmx_sums_active_controller_count_to_two_at_broker_2s_election() {
    let step = elected_step(2).to_string();
    let out = ok(&["describe", "seed-incident", "--step", &step, "--as", "jmx"]);
    let active: Vec<&str> = out.lines().filter(|l| l.contains("name=ActiveControllerCount")).collect();
    assert_eq!(
        active,
        [
            "1\tkafka.controller:type=KafkaController,name=ActiveControllerCount\tValue=1",
            "2\tkafka.controller:type=KafkaController,name=ActiveControllerCount\tValue=1",
            "3\tkafka.controller:type=KafkaController,name=ActiveControllerCount\tValue=0",
        ]
    );
    has(&out, "1\tkafka.controller:type=KafkaController,name=OfflinePartitionsCount\tValue=8");
    has(&out, "2\tkafka.controller:type=KafkaController,name=OfflinePartitionsCount\tValue=0");
    has(&out, "1\tkafka.server:type=ReplicaManager,name=UnderReplicatedPartitions\tValue=0");
    assert_eq!(out.lines().count(), 9);
    // The step before, broker 1 alone acts as controller.
    let before = (elected_step(2) - 1).to_string();
    let out = ok(&["describe", "seed-incident", "--step", &before, "--as", "jmx"]);
    let sum: u32 = out
        .lines()
        .filter(|l| l.contains("name=ActiveControllerCount"))
        .map(|l| l.rsplit("Value=").next().unwrap().parse::<u32>().unwrap())
        .sum();
    assert_eq!(sum, 1);
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    for (args, says) in [
        (&["describe", "seed-incident", "--as", "nope"][..], "unknown tool 'nope'"),
        (&["describe", "seed-incident", "--as", "jmx", "--step", "x"][..], "--step expects a step number or 'end'"),
        (&["describe", "seed-incident", "--as", "jmx", "--step", "99999999"][..], "is beyond the run's end"),
        (&["describe", "seed-incident"][..], "describe needs --as"),
        (&["describe", "seed-incident", "--as", "zk-shell", "--mode", "kraft"][..], "no ZooKeeper"),
        (&["describe", "seed-incident", "--as", "kcat", "--broker", "1"][..], "broker 1 is not running"),
        (&["describe", "seed-incident", "--as", "kcat", "--broker", "9"][..], "no broker 9"),
    ] {
        let o = sb(args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn state_change_shows_broker_1_electing_itself_and_the_later_leader_minus_one() {
    let out = ok(&["describe", "seed-incident", "--step", "end", "--as", "state-change"]);
    let l = |t: &str, rest: &str| format!("[1970-01-0{t}] TRACE {rest} (state.change.logger)");
    // 1.0.0 PartitionStateMachine.scala:313 and :170: broker 1's controller (epoch 8) chose itself.
    has(
        &out,
        &l("1 00:00:18,091", "[Controller id=1 epoch=8] Elected leader 1 for Offline partition __consumer_offsets-3"),
    );
    has(
        &out,
        &l(
            "1 00:00:18,091",
            "[Controller id=1 epoch=8] Changed partition __consumer_offsets-3 from OfflinePartition to OnlinePartition with leader 1",
        ),
    );
    // ControllerChannelManager.scala:410: broker 2's controller (epoch 9) sends the leader -1 it wrote.
    let minus1 = l(
        "3 00:00:09,406",
        "[Controller id=2 epoch=9] Sending become-follower LeaderAndIsr request PartitionState(controllerEpoch=9, leader=-1, leaderEpoch=15, isr=2, zkVersion=29, replicas=3,1,2, isNew=false) to broker 2 for partition __consumer_offsets-3",
    );
    has(&out, &minus1);
    // Broker 1's choice comes first, the leader -1 later.
    let at = |s: &str| out.lines().position(|x| x == s).unwrap();
    assert!(
        at(&l(
            "1 00:00:18,091",
            "[Controller id=1 epoch=8] Elected leader 1 for Offline partition __consumer_offsets-3"
        )) < at(&minus1)
    );
    // Before broker 1's failover wrote anything, the log is empty.
    assert_eq!(ok(&["describe", "seed-incident", "--step", &elected_step(2).to_string(), "--as", "state-change"]), "");
    // 1.1.0 PartitionStateMachine.scala:177: one line with the LeaderAndIsr.
    let k11 = ok(&["describe", "seed-incident", "--mode", "1.1", "--as", "state-change"]);
    assert!(k11.lines().all(|x| x.ends_with(" (state.change.logger)") && !x.contains("Elected leader")), "{k11}");
    assert!(k11.lines().any(|x| x.contains("] Changed partition __consumer_offsets-3 from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=1, leaderEpoch=14, isr=List(1, 2), zkVersion=28)")), "{k11}");
    assert_eq!(sb(&["describe", "seed-incident", "--mode", "kraft", "--as", "state-change"]).status.code(), Some(2));
}

/// The playground's panel reaches a step through `Timeline::tools_walk`: at a few steps, every
/// tool's text (or refusal) is what `splitbrain describe --step N --as T` prints (or says).
#[test]
fn the_playgrounds_timeline_walk_renders_what_describe_prints() {
    use splitbrain_sim::tools::{Options, Tool};
    let mut t =
        splitbrain_sim::Timeline::new(splitbrain_sim::scenario::builtin("seed-incident").unwrap(), None).unwrap();
    t.compute_all();
    let mut walk = None;
    for step in [0, 16, elected_step(2) as usize, t.len()] {
        let w = t.tools_walk(step, walk.take()).expect("computed");
        for name in Tool::NAMES {
            let tool = Tool::parse(name).unwrap();
            let page = w.render(tool, &Options::default());
            let o = sb(&["describe", "seed-incident", "--step", &step.to_string(), "--as", name]);
            match page {
                Ok(text) => assert_eq!(String::from_utf8(o.stdout).unwrap(), text, "step {step} --as {name}"),
                Err(e) => assert!(String::from_utf8_lossy(&o.stderr).contains(&e), "step {step} --as {name}: {e}"),
            }
        }
        walk = Some(w);
    }
    // With the filter and another broker asked, at the end.
    let w = walk.unwrap();
    let opts = Options { unavailable: true, broker: Some(3), ..Options::default() };
    for name in ["topics", "topics-admin", "kcat"] {
        let cli = ok(&["describe", "seed-incident", "--as", name, "--unavailable-partitions", "--broker", "3"]);
        assert_eq!(cli, w.render(Tool::parse(name).unwrap(), &opts).unwrap(), "--as {name}");
    }
}
