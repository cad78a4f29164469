//! `splitbrain campaign`: the tally's fields, and that it depends neither on threads nor on how
//! the schedules are split into shards (the shards of a campaign together run exactly its
//! schedules).
use std::process::{Command, Output};

fn sb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_splitbrain")).args(args).output().expect("binary runs")
}

/// The per-mode tallies of `campaign --json` (schedules, panics, leader -1, two controllers).
fn tally(args: &[&str]) -> (serde_json::Value, Vec<[u64; 4]>) {
    let o = sb(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(out.lines().last().expect("a line")).expect("JSON");
    let modes = v["modes"]
        .as_array()
        .expect("modes")
        .iter()
        .map(|m| ["schedules", "panics", "leader_minus_one", "two_controllers"].map(|k| m[k].as_u64().expect(k)))
        .collect();
    (v, modes)
}

#[test]
fn a_campaign_tallies_every_mode_and_its_shards_add_up_to_it() {
    let base = ["campaign", "--schedules", "160", "--seed", "3", "--json"];
    let (v, whole) = tally(&[&base[..], &["--threads", "2"]].concat());
    assert_eq!(v["schedules"], 160);
    assert_eq!(v["panics"], 0);
    assert_eq!(v["panicked"], serde_json::json!([]));
    assert_eq!(v["shard"], "0/1");
    let names: Vec<&str> = v["modes"].as_array().unwrap().iter().map(|m| m["mode"].as_str().unwrap()).collect();
    assert_eq!(names, ["legacy", "1.1", "fenced", "kraft"]);
    for m in &whole {
        assert_eq!(m[0], 40, "each mode runs a quarter: {whole:?}");
        assert_eq!(m[1], 0, "no panics: {whole:?}");
    }
    // Not vacuous: fresh swarm runs reach two acting controllers often (about a quarter of them in
    // legacy, 1.1 and fenced in a 20 000-schedule campaign).
    assert!(whole[0][3] > 0, "some legacy schedule reaches two controllers: {whole:?}");

    let (_, one_thread) = tally(&[&base[..], &["--threads", "1"]].concat());
    assert_eq!(one_thread, whole, "threads do not change the tally");
    let (a, first) = tally(&[&base[..], &["--threads", "1", "--shard", "0/2"]].concat());
    let (_, second) = tally(&[&base[..], &["--threads", "1", "--shard", "1/2"]].concat());
    assert_eq!(a["shard"], "0/2");
    assert!(first[0][0] > 0 && second[0][0] > 0, "both shards run schedules: {first:?} {second:?}");
    let sum: Vec<[u64; 4]> = first.iter().zip(&second).map(|(x, y)| [0, 1, 2, 3].map(|k| x[k] + y[k])).collect();
    assert_eq!(sum, whole, "shards 0/2 and 1/2 together are the campaign");
}

#[test]
fn a_schedule_reruns_alone_from_its_index() {
    // Schedules 8..12 are round 2 in the four modes; run alone, one at a time, they add up to
    // the run of all four.
    let (_, four) = tally(&["campaign", "--schedules", "4", "--start", "8", "--seed", "5", "--json"]);
    let mut sum = [[0u64; 4]; 4];
    for j in 8..12 {
        let (v, one) = tally(&["campaign", "--schedules", "1", "--start", &j.to_string(), "--seed", "5", "--json"]);
        assert_eq!(v["schedules"], 1);
        assert_eq!(one[j % 4][0], 1, "schedule {j} runs in mode {}", j % 4);
        for (s, o) in sum.iter_mut().zip(&one) {
            *s = [0, 1, 2, 3].map(|k| s[k] + o[k]);
        }
    }
    assert_eq!(sum.to_vec(), four);
}

#[test]
fn campaign_rejects_bad_arguments_in_one_line() {
    for (args, says) in [
        (vec!["campaign", "--shard", "2/2"], "--shard expects i/n"),
        (vec!["campaign", "--schedules", "many"], "--schedules expects a non-negative integer"),
        (vec!["campaign", "--threads", "0"], "--threads must be between 1 and 1024"),
        (vec!["campaign", "--fast"], "unknown option '--fast'"),
    ] {
        let o = sb(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err} should say {says}");
    }
}
