//! The CLI contract: `scenarios`, `run` (text and `--json`), `coordinator`, and exit status 2 with a
//! one-line error for bad input.
use std::process::{Command, Output};

fn sb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_splitbrain")).args(args).output().expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn final_state(o: &Output) -> serde_json::Value {
    let out = stdout(o);
    let last = out.lines().last().expect("output");
    let v: serde_json::Value = serde_json::from_str(last).expect("last line is JSON");
    v["final"].clone()
}

/// Every mark printed by `run --json`, in order, each with the step of the event that carries it.
fn marks(out: &str) -> Vec<(u64, serde_json::Value)> {
    out.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e.get("final").is_none())
        .flat_map(|e| {
            let step = e["step"].as_u64().expect("an event line has a step");
            e["marks"].as_array().cloned().unwrap_or_default().into_iter().map(move |m| (step, m))
        })
        .collect()
}

/// The first mark of kind `kind` whose fields include every field of `fields`, with its step.
fn find_mark(
    marks: &[(u64, serde_json::Value)],
    kind: &str,
    fields: serde_json::Value,
) -> Option<(u64, serde_json::Value)> {
    let fields = fields.as_object().expect("fields is an object").clone();
    marks.iter().find(|(_, m)| m["mark"] == kind && fields.iter().all(|(k, v)| &m[k] == v)).cloned()
}

#[test]
fn scenarios_lists_the_built_ins() {
    let o = sb(&["scenarios"]);
    assert!(o.status.success());
    for name in ["seed-incident", "seed-incident-recovery", "clean-failover"] {
        assert!(stdout(&o).lines().any(|l| l.starts_with(name)), "{name} missing");
    }
}

#[test]
fn run_seed_incident_json_ends_at_leader_minus_one_with_a_stuck_consumer() {
    let o = sb(&["run", "seed-incident", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    for l in &lines[..lines.len() - 1] {
        let e: serde_json::Value = serde_json::from_str(l).expect("each event line is JSON");
        assert!(e["step"].is_u64() && e["time_ms"].is_u64() && e["node"].is_string() && e["line"].is_string());
    }
    let f = final_state(&o);
    let p3 = f["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["topic"] == "__consumer_offsets" && p["partition"] == 3)
        .expect("partition 3")
        .clone();
    assert_eq!(p3["leader"], -1);
    assert_eq!(p3["isr"], serde_json::json!([2]));
    assert_eq!(p3["leader_epoch"], 15);
    assert_eq!(f["zk_controller"], 2);
    assert_eq!(f["acting_controllers"], serde_json::json!([2]));
    let c = &f["consumers"][0];
    assert_eq!(
        (c["group"].as_str(), c["coordinator_partition"].as_u64(), c["status"].as_str()),
        (Some("payments-group"), Some(3), Some("coordinator_not_available"))
    );
    assert!(f["alerts"].as_array().unwrap().iter().any(|a| a["kind"] == "no_coordinator"));
    // The marks tell how: broker 1's deposed controller's write for partition 3 landed, then
    // broker 2's controller, whose cache still said leader 3, wrote leader -1 with ISR [2], and
    // the consumer lost its coordinator.
    let marks = marks(&out);
    let p3 = serde_json::json!({"topic": "__consumer_offsets", "partition": 3});
    let (landed, zombie) = find_mark(&marks, "deposed_write_accepted", serde_json::json!({"partition": p3}))
        .expect("broker 1's write for partition 3 lands");
    assert_eq!(
        zombie,
        serde_json::json!({"mark": "deposed_write_accepted", "from": 1, "partition": p3, "leader": 1,
            "leader_epoch": 14, "isr": [1, 2], "controller_epoch": 8, "current_controller_epoch": 9})
    );
    let (minus1, removed) =
        find_mark(&marks, "isr_replica_removed", serde_json::json!({"partition": p3, "leader": -1}))
            .expect("leader -1 for partition 3");
    assert_eq!(
        removed,
        serde_json::json!({"mark": "isr_replica_removed", "controller": 2, "partition": p3, "replica": 1,
            "leader": -1, "leader_epoch": 15, "isr": [2], "controller_epoch": 9, "cached_leader": 3,
            "zk_version": 29})
    );
    let (stuck, _) = find_mark(
        &marks,
        "coordinator_unavailable",
        serde_json::json!({"consumer": 1, "group": "payments-group", "partition": 3}),
    )
    .expect("the consumer loses its coordinator");
    assert!(landed < minus1 && minus1 < stuck, "steps {landed}, {minus1}, {stuck}");
}

#[test]
fn healthy_scenario_leads_every_partition() {
    let f = final_state(&sb(&["run", "clean-failover", "--json"]));
    assert!(f["partitions"].as_array().unwrap().iter().all(|p| p["leader"].as_i64().unwrap() >= 0));
    assert_eq!(f["alerts"], serde_json::json!([]));
}

#[test]
fn text_run_and_until_ms_stop_early() {
    let o = sb(&["run", "seed-incident", "--until-ms", "20000"]);
    assert!(o.status.success());
    let out = stdout(&o);
    // The text run prints the header and Kafka's log lines.
    assert!(out.contains("1 successfully elected as the controller"));
    assert!(out.contains("== seed-incident (seed 1, mode legacy)"));
    // The same run as JSON: broker 1 was elected, and the run stopped before broker 2's election.
    let o = sb(&["run", "seed-incident", "--until-ms", "16500", "--json"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let marks = marks(&out);
    assert!(find_mark(&marks, "controller_elected", serde_json::json!({"broker": 1})).is_some());
    assert!(
        find_mark(&marks, "controller_elected", serde_json::json!({"broker": 2})).is_none(),
        "stopped before broker 2's election"
    );
}

#[test]
fn seed_changes_the_trace_and_same_seed_repeats_it() {
    let a = stdout(&sb(&["run", "seed-incident", "--json", "--seed", "5"]));
    let b = stdout(&sb(&["run", "seed-incident", "--json", "--seed", "5"]));
    let c = stdout(&sb(&["run", "seed-incident", "--json"]));
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn coordinator_prints_the_partition_alone() {
    for (g, p) in [("payments-group", "3"), ("my-group", "12"), ("polygenelubricants", "0"), ("消费组", "35")] {
        let o = sb(&["coordinator", g]);
        assert!(o.status.success());
        assert_eq!(stdout(&o).trim(), p, "group {g}");
    }
    assert_eq!(stdout(&sb(&["coordinator", "my-group", "--partitions", "7"])).trim(), "1");
}

fn assert_bad(args: &[&str], needle: &str) {
    let o = sb(args);
    assert_eq!(o.status.code(), Some(2), "{args:?} should exit 2");
    let e = stderr(&o);
    assert!(e.contains(needle), "{args:?}: error {e:?} should mention {needle:?}");
    assert!(!e.contains("panicked"), "{args:?} panicked: {e}");
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let dir = std::env::temp_dir().join(format!("splitbrain-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    assert_bad(&["run", "no-such-scenario"], "unknown scenario 'no-such-scenario'");
    assert_bad(&["run", &write("broken.json", "{\"name\": ")], "invalid scenario JSON");
    assert_bad(
        &["run", &write("nobrokers.json", r#"{"name":"x","cluster":{"brokers":[]}}"#)],
        "cluster.brokers is empty",
    );
    let unknown =
        r#"{"name":"x","cluster":{"brokers":[1,2,3]},"script":[{"at_ms":5,"do":{"op":"cut","a":"b7","b":"zk"}}]}"#;
    assert_bad(&["run", &write("unknown.json", unknown)], "unknown node b7");
    let impossible = r#"{"name":"x","cluster":{"brokers":[1]},"consumers":[{"group":"g"}],"script":[{"at_ms":5,"do":{"op":"cut","a":"c1","b":"zk"}}]}"#;
    assert_bad(&["run", &write("impossible.json", impossible)], "clients only talk to brokers");
    assert_bad(&["run", &dir.join("missing.json").to_string_lossy()], "cannot read scenario file");
    assert_bad(&["run", "seed-incident", "--seed", "x"], "--seed expects a non-negative integer");
    assert_bad(&["run", "seed-incident", "--wat"], "unknown option '--wat'");
    assert_bad(&["coordinator"], "coordinator needs a group id");
    assert_bad(&["coordinator", "g", "--partitions", "0"], "--partitions must be at least 1");
    assert_bad(&["frobnicate"], "unknown command 'frobnicate'");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_exported_scenario_file_runs_like_the_built_in() {
    let json = splitbrain_sim::scenario::builtins().into_iter().find(|(n, _)| *n == "seed-incident").unwrap().1;
    let p = std::env::temp_dir().join(format!("splitbrain-seed-{}.json", std::process::id()));
    std::fs::write(&p, json).unwrap();
    let a = stdout(&sb(&["run", "seed-incident", "--json"]));
    let b = stdout(&sb(&["run", &p.to_string_lossy(), "--json"]));
    assert_eq!(a, b);
    let _ = std::fs::remove_file(p);
}

#[test]
fn explore_finds_a_counterexample_in_legacy_and_none_in_fenced() {
    let dir = std::env::temp_dir().join(format!("splitbrain-explore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("cx.json");
    let o =
        // Seed 3: the guided search finds one at schedule 93 (101 before resets joined the alphabet).
        sb(&["explore", "--mode", "legacy", "--seed", "3", "--budget-schedules", "300", "--json", "--out", &out.to_string_lossy()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    let viol = &v["result"]["violation"];
    assert_eq!(viol["property"], "leader_minus_one");
    assert!(viol["schedule"].as_array().unwrap().len() <= 7);
    assert!(viol["steps"].as_u64().unwrap() > 0);
    assert_eq!(v["result"]["schedules"], 93);
    // The determinism check: replayed twice, one trace hash.
    assert_eq!(viol["deterministic"], true);
    assert_eq!(viol["trace_hash"].as_str().unwrap().len(), 16);
    // The written scenario runs with `splitbrain run` to a leaderless partition.
    let f = final_state(&sb(&["run", &out.to_string_lossy(), "--json"]));
    assert!(f["partitions"].as_array().unwrap().iter().any(|p| p["leader"] == -1));

    let o = sb(&["explore", "--mode", "fenced", "--budget-schedules", "150", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert_eq!(v["result"]["violation"], serde_json::Value::Null);
    assert_eq!(v["result"]["schedules"], 150);
    let text = stdout(&sb(&["explore", "--mode", "fenced", "--budget-schedules", "20"]));
    assert!(text.contains("no violation of leader_minus_one in 20 schedules"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kraft_mode_runs_the_seed_faults_to_a_healthy_cluster() {
    let f = final_state(&sb(&["run", "seed-incident", "--mode", "kraft", "--json"]));
    assert_eq!(f["mode"], "kraft");
    assert!(f["partitions"].as_array().unwrap().iter().all(|p| p["leader"].as_i64().unwrap() >= 0));
    assert_eq!(f["consumers"][0]["status"], "stable");
    assert_eq!(f["zk_controller"], serde_json::Value::Null);
}

#[test]
fn explore_rejects_bad_arguments() {
    assert_bad(&["explore", "--mode", "zab"], "unknown mode 'zab'");
    assert_bad(&["explore", "--budget-schedules", "5", "--budget-ms", "5"], "not both");
    assert_bad(&["explore", "--property", "x"], "unknown property 'x'");
    assert_bad(&["explore", "--budget-schedules"], "--budget-schedules needs a value");
    for bad in ["1/1", "2/1", "0/0", "x/2", "1", "-1/2", "1/2/3", ""] {
        assert_bad(&["explore", "--shard", bad], "--shard expects i/n with 0 <= i < n and n >= 1");
    }
    assert_bad(&["explore", "--shard"], "--shard needs a value");
    assert_bad(&["explore", "--threads", "0"], "--threads must be between 1 and 1024");
    assert_bad(&["explore", "--threads", "two"], "--threads expects a non-negative integer");
}

/// The result of `explore --json` without its wall-clock time and thread count.
fn explore_result(args: &[&str]) -> serde_json::Value {
    let o = sb(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let mut v: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    let r = v["result"].as_object_mut().unwrap();
    r.remove("seconds");
    r.remove("threads");
    v
}

/// Batches are drawn from the corpus, evaluated on any number of threads and absorbed in index
/// order; the shrinker's rounds take the first violating complement: 1, 2 and 4 threads give the
/// same counterexample after the same number of schedules.
#[test]
fn explore_does_not_depend_on_the_thread_count() {
    let run = |t: &str| {
        explore_result(&[
            "explore",
            "--mode",
            "legacy",
            "--seed",
            "1",
            "--budget-schedules",
            "300",
            "--json",
            "--threads",
            t,
        ])
    };
    let one = run("1");
    assert!(one["result"]["violation"].is_object(), "seed 1 finds one within 300: {one}");
    assert_eq!(run("2"), one);
    assert_eq!(run("4"), one);
}

/// A shard's search is deterministic (that shards draw different candidates is tested in the
/// core: `tests/explore.rs`).
#[test]
fn explore_shards_are_deterministic() {
    let run = |sh: &str| {
        explore_result(&[
            "explore",
            "--mode",
            "legacy",
            "--seed",
            "5",
            "--budget-schedules",
            "40",
            "--json",
            "--shard",
            sh,
        ])
    };
    let a = run("0/2");
    assert_eq!(a, run("0/2"));
    assert_eq!(a["result"]["shard"], "0/2");
    assert_eq!(run("1/2")["result"]["shard"], "1/2");
    // The one-shard campaign is the plain search.
    let plain = explore_result(&["explore", "--mode", "legacy", "--seed", "5", "--budget-schedules", "40", "--json"]);
    assert_eq!(plain, run("0/1"));
}

/// A scenario saved by the playground names its mode and places faults by step; `run` honours
/// both, and `--mode` still overrides the file's mode.
#[test]
fn a_playground_export_runs_in_its_saved_mode_with_faults_by_step() {
    let dir = std::env::temp_dir().join(format!("splitbrain-cli-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = splitbrain_sim::scenario::builtin("seed-incident").unwrap();
    let mut saved = base.clone();
    saved.mode = Some(splitbrain_sim::scenario::Mode::Fenced);
    let path = dir.join("fenced.json");
    std::fs::write(&path, saved.to_json()).unwrap();
    let p = path.to_str().unwrap();
    let fenced = final_state(&sb(&["run", p, "--json"]));
    assert_eq!(fenced["mode"], "fenced");
    assert_eq!(final_state(&sb(&["run", p, "--json", "--mode", "legacy"]))["mode"], "legacy");
    // A crash of broker 2 placed right after step 5 changes the run.
    saved.after_steps = vec![splitbrain_sim::scenario::StepFault {
        after_step: 5,
        command: splitbrain_sim::Command::Crash { node: splitbrain_sim::NodeId::Broker(2) },
    }];
    std::fs::write(&path, saved.to_json()).unwrap();
    let o = sb(&["run", p, "--json"]);
    let sixth: serde_json::Value = serde_json::from_str(stdout(&o).lines().nth(5).unwrap()).unwrap();
    assert_eq!(sixth["step"], 6);
    assert_eq!(
        sixth["marks"],
        serde_json::json!([{"mark": "fault", "command": {"op": "crash", "node": "b2"}}]),
        "{sixth}"
    );
    assert_ne!(final_state(&o), fenced);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kafka_1_1_the_controller_moved_scenario_and_operator_faults() {
    // controller-moved names its mode: `run` uses it, and it ends leaderless; fenced does not.
    let p3 = |f: &serde_json::Value| {
        f["partitions"].as_array().unwrap().iter().find(|p| p["partition"] == 3).unwrap()["leader"].clone()
    };
    let f = final_state(&sb(&["run", "controller-moved", "--json"]));
    assert_eq!((f["mode"].as_str(), p3(&f).as_i64()), (Some("1.1"), Some(-1)));
    let f = final_state(&sb(&["run", "controller-moved", "--json", "--mode", "fenced"]));
    assert!(p3(&f).as_i64().unwrap() >= 0);
    // operator-delete's controller moves without a session expiry (an outside delete): 1.1's fix
    // does not apply, and its stalled batch lands unfenced as in 1.0.
    let f = final_state(&sb(&["run", "operator-delete", "--json", "--mode", "1.1"]));
    assert_eq!(p3(&f).as_i64(), Some(-1));
    // seed-incident's blip is harmless in 1.1: KafkaZkClient retries the lost read of the holder,
    // so nothing deletes /controller and p3 stays led.
    let f = final_state(&sb(&["run", "seed-incident", "--json", "--mode", "1.1"]));
    assert!(p3(&f).as_i64().unwrap() >= 0);
    // With 1.1.0's batched elections the window an operator's delete needs is only while a batch
    // is on the wire; the explorer accepts --operator in 1.1 (a hand-placed schedule is in
    // tests/explore.rs, since random search no longer hits that window within its budget).
    let o = sb(&["explore", "--mode", "1.1", "--operator", "--budget-schedules", "20", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert_eq!((v["result"]["mode"].as_str(), v["result"]["schedules"].as_u64()), (Some("1.1"), Some(20)));
}

#[test]
fn modes_1_0_and_2_1_are_aliases_of_legacy_and_fenced() {
    for (alias, name) in [("1.0", "legacy"), ("2.1", "fenced")] {
        assert_eq!(final_state(&sb(&["run", "seed-incident", "--json", "--mode", alias]))["mode"], name);
        let o = sb(&["explore", "--mode", alias, "--budget-schedules", "3", "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
        assert_eq!(v["result"]["mode"], name);
    }
    // A scenario file may name its mode by the alias too.
    let dir = std::env::temp_dir().join(format!("splitbrain-alias-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("alias.json");
    std::fs::write(&p, r#"{"name":"alias","mode":"2.1","cluster":{"brokers":[1,2,3]},"end_ms":1000}"#).unwrap();
    assert_eq!(final_state(&sb(&["run", &p.to_string_lossy(), "--json"]))["mode"], "fenced");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fault_placed_after_the_last_step_is_reported_not_dropped_silently() {
    let dir = std::env::temp_dir().join(format!("splitbrain-late-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("late.json");
    std::fs::write(
        &p,
        r#"{"name":"late","cluster":{"brokers":[1,2,3]},"end_ms":1000,
            "after_steps":[{"after_step":50000,"do":{"op":"crash","node":"b1"}}]}"#,
    )
    .unwrap();
    let o = sb(&["run", &p.to_string_lossy(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("'crash b1' (after step 50000) was not applied: the run ended after"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run` opens every built-in in the same behaviour as `World::new` and `Timeline::new` (the
/// scenario's `opening_mode`), and prints its marks as structured JSON.
#[test]
fn run_opens_each_builtin_in_its_opening_mode_and_prints_marks() {
    use splitbrain_sim::scenario::{builtin, builtins};
    for (name, _) in builtins() {
        let s = builtin(name).unwrap();
        let f = final_state(&sb(&["run", name, "--json"]));
        assert_eq!(f["mode"], s.opening_mode(None).name(), "{name}");
    }
    let out = stdout(&sb(&["run", "seed-incident", "--json"]));
    let removed: Vec<serde_json::Value> =
        marks(&out).into_iter().map(|(_, m)| m).filter(|m| m["mark"] == "fault").collect();
    assert!(!removed.is_empty(), "seed-incident's faults are marked");
    assert_eq!(removed[1]["command"]["op"], "cut", "{:?}", removed[1]);
}

#[test]
fn explore_exhaustive_states_its_bound_with_counts() {
    let o = sb(&["explore", "--mode", "kraft", "--exhaustive", "--max-faults", "1", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON line");
    let e = &v["exhaustive"];
    assert_eq!(e["verdict"]["counts"]["schedules"], 55, "{e}");
    assert_eq!(e["verdict"]["exhausted"], true);
    assert!(e["verdict"]["violation"].is_null());
    let statement = e["statement"].as_str().unwrap();
    assert!(statement
        .starts_with("kraft: no leader -1 in any schedule of ≤ 1 faults on grid 1.0/7.2/7.5 s (55 schedules, "));
    // Another grid, in seconds: 1 + 2 * 18 schedules.
    let text = stdout(&sb(&["explore", "--mode", "kraft", "--exhaustive", "--max-faults", "1", "--grid", "1,8.3"]));
    assert!(text.contains("on grid 1.0/8.3 s (37 schedules, "), "{text}");
    assert_bad(&["explore", "--exhaustive", "--grid", "8,1"], "increasing");
    assert_bad(&["explore", "--exhaustive", "--grid", "x"], "--grid expects");
    assert_bad(&["explore", "--grid", "1,2"], "apply to --exhaustive");
}

#[test]
fn run_reports_the_point_of_no_return() {
    let text = stdout(&sb(&["run", "seed-incident", "--no-return", "5"]));
    assert!(text.contains("point of no return: step "), "{text}");
    assert!(text.contains(" of 5 continuations"), "{text}");
    let text = stdout(&sb(&["run", "seed-incident", "--mode", "fenced", "--no-return"]));
    assert!(text.contains("no point of no return: the run does not end at leader -1"), "{text}");
    assert_bad(&["run", "seed-incident", "--no-return", "0"], "1 to 1000");
}

/// seed-incident with its end moved to 10^15 ms (1000 simulated days of a stuck consumer is 2 M
/// events), written to a file; the path.
fn hostile_scenario(tag: &str) -> std::path::PathBuf {
    let mut s = splitbrain_sim::scenario::builtin("seed-incident").unwrap();
    s.end_ms = Some(1_000_000_000_000_000);
    let p = std::env::temp_dir().join(format!("splitbrain-hostile-{tag}-{}.json", std::process::id()));
    std::fs::write(&p, s.to_json()).unwrap();
    p
}

/// A scenario that ends past the virtual-time limit is refused at once: status 2, one line that
/// names the limit and the flag that raises it.
#[test]
fn run_refuses_a_scenario_ending_past_the_time_limit() {
    let p = hostile_scenario("time");
    let o = sb(&["run", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("virtual-time limit of 2592000000 ms") && err.contains("--max-time-ms"), "{err}");
    assert!(stdout(&o).is_empty());
}

/// Raising the time limit past the scenario's end, the run meets the step limit instead: it is
/// cut there, says so in a note (and `--json` names the bound), and exits 0.
#[test]
fn run_cut_at_the_step_limit_says_so() {
    let p = hostile_scenario("steps");
    let o = sb(&["run", p.to_str().unwrap(), "--max-time-ms", "1000000000000000", "--max-steps", "3000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["stopped_by"], serde_json::json!({"steps": 3000}));
    assert_eq!(last["final"]["steps"], 3000);
    assert_eq!(out.lines().count(), 3001, "3000 events and the final line");
    let err = stderr(&o);
    assert!(
        err.contains("note: the run was cut at the step limit of 3000 steps") && err.contains("--max-steps"),
        "{err}"
    );
}

/// `--until-ms` within the limit runs the hostile scenario to that time (no bound met, no note).
#[test]
fn run_within_the_limits_has_no_note() {
    let p = hostile_scenario("until");
    let o = sb(&["run", p.to_str().unwrap(), "--until-ms", "200000000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("cut at"), "{}", stderr(&o));
    let last: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert!(last.get("stopped_by").is_none(), "{last}");
    assert!(last["final"]["time_ms"].as_u64().unwrap() <= 200_000_000);
}

/// A built-in run to its end names no bound: its last line is `{"final": ..}` alone.
#[test]
fn a_complete_run_names_no_bound() {
    let o = sb(&["run", "clean-failover", "--json"]);
    let last: serde_json::Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert!(last.get("stopped_by").is_none(), "{last}");
    let o = sb(&["run", "clean-failover", "--max-steps", "x"]);
    assert_eq!(o.status.code(), Some(2));
}
