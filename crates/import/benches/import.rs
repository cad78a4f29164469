//! `parse`, and the whole import (report and fit), on 1 000 000 realistic lines in memory: three brokers' controller, state-change and
//! server logs (1.1-style prefixes for broker 1, 0.10-style for broker 2, a docker-compose paste
//! for broker 3), with stack traces, typed and untyped statements. Prints one-shot figures, then
//! lets criterion time it.
//!
//!     cargo bench -p splitbrain-import --bench import
use criterion::{black_box, Criterion};
use splitbrain_import::parse::{parse, Input};
use std::fmt::Write as _;
use std::time::Instant;

/// Lines generated in all.
const LINES: usize = 1_000_000;

fn ts(i: usize) -> String {
    let ms = i % 1000;
    let s = (i / 1000) % 60;
    let m = (i / 60_000) % 60;
    format!("2017-11-10 15:{m:02}:{s:02},{ms:03}")
}

/// One line of one of the three logs (`k` picks the statement).
fn line(out: &mut String, file: usize, i: usize) {
    let t = ts(i);
    let p = i % 50;
    let k = i % 20;
    match file {
        // Broker 1: a 1.1 controller + state-change log.
        0 => match k {
            0 => writeln!(out, "[{t}] INFO [Controller id=1] 1 successfully elected as the controller (kafka.controller.KafkaController)"),
            1 => writeln!(out, "[{t}] TRACE [Controller id=1 epoch=8] Sending become-leader LeaderAndIsr request PartitionState(controllerEpoch=8, leader=1, leaderEpoch=14, isr=1,2, zkVersion=27, replicas=1,2,3, isNew=false) to broker 2 for partition __consumer_offsets-{p} (state.change.logger)"),
            2 => writeln!(out, "[{t}] TRACE [Controller id=1 epoch=8] Changed partition my-topic-{p} from OfflinePartition to OnlinePartition with state LeaderAndIsr(leader=1, leaderEpoch=15, isr=List(1, 2), zkVersion=28) (state.change.logger)"),
            3 => writeln!(out, "[{t}] INFO [Controller id=1] Newly added brokers: 3, deleted brokers: 2, all live brokers: 1,3 (kafka.controller.KafkaController)"),
            4 => writeln!(out, "[{t}] ERROR [Controller id=1 epoch=8] Controller 1 epoch 8 failed to change state for partition t-{p} from OfflinePartition to OnlinePartition (state.change.logger)\nkafka.common.StateChangeFailedException: Failed to elect leader for partition t-{p} under strategy OfflinePartitionLeaderElectionStrategy\n\tat kafka.controller.PartitionStateMachine.$anonfun$doElectLeaderForPartitions$9(PartitionStateMachine.scala:328)\n\tat scala.collection.mutable.HashMap.foreach(HashMap.scala:130)"),
            _ => writeln!(out, "[{t}] DEBUG [Controller id=1] Processing event {i} of the controller queue with nothing special in it (kafka.controller.KafkaController)"),
        },
        // Broker 2: a 0.10 server log.
        1 => match k {
            0 => writeln!(out, "[{t}] INFO Partition [my-topic,{p}] on broker 2: Shrinking ISR for partition [my-topic,{p}] from 2,1,3 to 2 (kafka.cluster.Partition)"),
            1 => writeln!(out, "[{t}] INFO Partition [my-topic,{p}] on broker 2: Cached zkVersion [27] not equal to that in zookeeper, skip updating ISR (kafka.cluster.Partition)"),
            2 => writeln!(out, "[{t}] INFO zookeeper state changed (Expired) (org.I0Itec.zkclient.ZkClient)"),
            3 => writeln!(out, "[{t}] WARN Broker 2 ignoring LeaderAndIsr request from controller 1 with correlation id 5 since its controller epoch 7 is old. Latest known controller epoch is 8 (state.change.logger)"),
            4 => writeln!(out, "[{t}] INFO conflict in /brokers/ids/2 data: {{\"jmx_port\":-1,\"host\":\"kafka2\",\"version\":3,\"port\":9092}} stored data: {{\"jmx_port\":-1,\"host\":\"kafka2\",\"version\":3,\"port\":9092}} (kafka.utils.ZkUtils)"),
            _ => writeln!(out, "[{t}] INFO [ReplicaFetcherThread-0-1], Starting the fetch of partition my-topic-{p} at offset {i} (kafka.server.ReplicaFetcherThread)"),
        },
        // Broker 3: a docker-compose paste of a 2.x server log, another layout.
        _ => match k {
            0 => writeln!(out, "kafka-3  | {t} INFO  [controller-event-thread] kafka.controller.KafkaController:1218 - [Controller id=3] 3 successfully elected as the controller. Epoch incremented to 9 and epoch zk version is now 8"),
            1 => writeln!(out, "kafka-3  | {t} INFO  [data-plane-kafka-request-handler-1] kafka.cluster.Partition:954 - [Partition my-topic-{p} broker=3] Shrinking ISR from 3,1,2 to 3. Leader: (highWatermark: 10, endOffset: 12). Out of sync replicas: (brokerId: 1, endOffset: 10) (brokerId: 2, endOffset: 10)."),
            2 => writeln!(out, "kafka-3  | {t} INFO  [main-SendThread(zk:2181)] org.apache.zookeeper.ClientCnxn:1299 - Session establishment complete on server zk/10.0.0.2:2181, sessionid = 0x15fa0b2c0d2000{}, negotiated timeout = 6000", i % 10),
            _ => writeln!(out, "kafka-3  | {t} INFO  [kafka-request-handler-{}] kafka.server.ReplicaManager:1 - [ReplicaManager broker=3] Handling a request of no interest number {i}", i % 8),
        },
    }
    .expect("a String takes writes");
}

/// The three logs, about `LINES` lines in all.
fn logs() -> [String; 3] {
    let mut out = [String::new(), String::new(), String::new()];
    let mut lines = 0;
    let mut i = 0;
    while lines < LINES {
        let f = i % 3;
        let before = out[f].len();
        line(&mut out[f], f, i / 3);
        lines += out[f][before..].bytes().filter(|b| *b == b'\n').count();
        i += 1;
    }
    out
}

fn main() {
    let logs = logs();
    let inputs = [
        Input { name: "broker1/controller.log", bytes: logs[0].as_bytes(), broker: None },
        Input { name: "kafka-2-server.log", bytes: logs[1].as_bytes(), broker: None },
        Input { name: "paste", bytes: logs[2].as_bytes(), broker: None },
    ];
    let bytes: usize = logs.iter().map(String::len).sum();
    // One-shot figures (the first run, then the best of three).
    let start = Instant::now();
    let parsed = parse(&inputs, &mut |_, _| {});
    let first = start.elapsed().as_secs_f64();
    let mut best = first;
    for _ in 0..2 {
        let start = Instant::now();
        black_box(parse(&inputs, &mut |_, _| {}));
        best = best.min(start.elapsed().as_secs_f64());
    }
    let typed = parsed.records.iter().filter(|r| r.event.is_some()).count();
    println!(
        "import: {} lines ({:.1} MB), {} records, {} typed: first {:.3} s, best {:.3} s = {:.2} M lines/s",
        parsed.lines,
        bytes as f64 / 1e6,
        parsed.records.len(),
        typed,
        first,
        best,
        parsed.lines as f64 / best / 1e6
    );
    // The whole import: parse, timeline, signatures (the report), then the fit's four replays.
    let whole = |inputs: &[Input<'_>]| {
        let parsed = parse(inputs, &mut |_, _| {});
        let report = splitbrain_import::report::report(inputs, &parsed);
        let fit = splitbrain_import::fit::fit(&report);
        (report, fit)
    };
    let mut best_whole = f64::MAX;
    let mut answer = None;
    for _ in 0..3 {
        let start = Instant::now();
        answer = Some(black_box(whole(&inputs)));
        best_whole = best_whole.min(start.elapsed().as_secs_f64());
    }
    if let Some((report, fit)) = &answer {
        println!(
            "import + timeline + signatures + fit: best {:.3} s ({} signatures, {} epochs, fitted {})",
            best_whole,
            report.signatures.len(),
            report.epochs.len(),
            fit.fitted
        );
    }
    let mut c = Criterion::default().sample_size(10).configure_from_args();
    c.bench_function("parse 1M lines", |b| b.iter(|| black_box(parse(&inputs, &mut |_, _| {}))));
    c.bench_function("import 1M lines (report and fit)", |b| b.iter(|| black_box(whole(&inputs))));
    c.final_summary();
}
