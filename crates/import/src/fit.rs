//! Fits a splitbrain scenario to an import: the brokers, the partition of interest, the controller
//! and its epoch, and the faults the events imply; then replays it under every Kafka behaviour
//! and says what each would have done.
use crate::event::{Broker, Event, Partition};
use crate::report::Report;
use crate::timeline::Marker;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde_json::Value;
use splitbrain_sim::mark::Mark;
use splitbrain_sim::mode::Mode;
use splitbrain_sim::scenario::{builtin, Scenario, OFFSETS_TOPIC};
use splitbrain_sim::share::{self, Link};
use splitbrain_sim::timeline::Timeline as SimTimeline;
use splitbrain_sim::TopicPartition;

/// Which imported broker a broker of the fitted scenario plays.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Role {
    /// Its role in the story ("deposed controller", "new controller", "old leader").
    pub role: &'static str,
    /// The broker id (the fitted scenario keeps your ids).
    pub broker: Broker,
}

/// What one behaviour did with the fitted scenario.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct ModeVerdict {
    /// The behaviour (`1.0`, `1.1`, `2.1`, `kraft`).
    pub mode: String,
    /// The partition's leader at the end of the replay (-1: none).
    pub leader: i32,
    /// Did the replay reach the imported signature?
    pub reproduced: bool,
    /// What happened, in one sentence ("2.1 would have refused broker 1's write: BADVERSION").
    pub words: String,
}

/// The fit.
#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct Fit {
    /// Was a scenario fitted?
    pub fitted: bool,
    /// The built-in story it follows (`seed-incident`, `zkclient-retry`, ...).
    pub template: Option<&'static str>,
    /// Who plays what.
    pub roles: Vec<Role>,
    /// The partition of interest.
    pub partition: Option<Partition>,
    /// The fitted scenario, as scenario JSON.
    pub scenario: Option<String>,
    /// The playground's permalink fragment (after `#`) that opens it.
    pub permalink: Option<String>,
    /// One verdict per behaviour, 1.0 first.
    pub verdicts: Vec<ModeVerdict>,
    /// Where the logs are too thin: which lines would be needed.
    pub missing: Vec<String>,
}

/// The story the logs tell, read from the timeline: who was deposed, who took over, which
/// partition the deposed controller wrote, who led it before, and how the controller moved.
#[derive(Clone, PartialEq, Debug)]
struct Story {
    deposed: Broker,
    new: Broker,
    old_leader: Broker,
    partition: Partition,
    deposed_epoch: Option<i32>,
    leader_epoch: Option<i32>,
    /// Milliseconds from the deposed write to the partition's leader -1, if the logs show it.
    leader_none_after_ms: Option<i64>,
    template: &'static str,
    /// Why that template.
    moved_by: &'static str,
    /// The logs show how the controller moved (an election error or the deposed one's expiry).
    shown: bool,
    /// No line names the partition's old leader: `old_leader` is a broker id the logs never use.
    assumed_leader: bool,
}

/// The built-in each story is told on, and the broker ids it uses for the deposed controller,
/// the new controller and the partition's old leader.
const TEMPLATE_ROLES: [Broker; 3] = [1, 2, 3];
/// The template's partition of interest (`__consumer_offsets-3`, led by broker 3).
const TEMPLATE_PARTITION: u32 = 3;
/// The smallest and largest gap the fitted scenario keeps between the deposed write and the
/// deposed controller's failure (the logs' own gap, clamped).
const MIN_GAP_MS: i64 = 60_000;
const MAX_GAP_MS: i64 = 30 * 24 * 3_600_000;

/// Fits `report`.
pub fn fit(report: &Report) -> Fit {
    let story = match story(report) {
        Ok(s) => s,
        Err(missing) => return Fit { missing, ..Fit::default() },
    };
    let scenario = match scenario(&story) {
        Ok(s) => s,
        Err(e) => return Fit { missing: alloc::vec![e], ..Fit::default() },
    };
    replay(&story, scenario)
}

fn timed(m: &Marker) -> i64 {
    m.ts_ms.unwrap_or(i64::MIN)
}

/// Reads the story, or says which lines are missing.
fn story(report: &Report) -> Result<Story, Vec<String>> {
    let t = &report.timeline;
    let broker_of = |m: &Marker| t.lanes.get(m.lane as usize).and_then(|l| l.broker);
    let Some(sig) = report.signatures.iter().find(|s| s.kind == "deposed_controller_write") else {
        return Err(thin(report));
    };
    // The deposed decision: the first evidence line that is a decision naming a partition.
    let decision = t.markers.iter().find(|m| {
        sig.lines.contains(&m.line)
            && matches!(m.event, Event::SelectedLeader { .. } | Event::LeaderIsr { .. })
            && broker_of(m).is_some()
    });
    let Some(decision) = decision else {
        return Err(alloc::vec![String::from(
            "the deposed controller's decision names no partition: its state-change.log or controller.log line with the leader and ISR it chose (1.0: \"Selected new leader and ISR {...} for offline partition [topic,N]\")"
        )]);
    };
    let deposed = broker_of(decision).unwrap_or(-1);
    let (partition, isr, leader_epoch) = match &decision.event {
        Event::SelectedLeader { partition, isr, leader_epoch, .. }
        | Event::LeaderIsr { partition, isr, leader_epoch, .. } => (partition.clone(), isr.clone(), *leader_epoch),
        _ => unreachable!("matched above"),
    };
    let new = sig.brokers.iter().copied().find(|b| *b != deposed).unwrap_or(-1);
    let own_band = t.epochs.iter().rev().find(|b| b.controller == deposed && b.line < decision.line);
    let new_band = t.epochs.iter().rev().find(|b| b.controller == new && b.line < decision.line);
    // The old leader: a leader of the partition named before the decision by anyone but the two
    // controllers; else the one replica the decision's ISR leaves out; else a third broker seen.
    let named = t.markers.iter().filter(|m| m.line != decision.line && timed(m) <= timed(decision)).rev().find_map(
        |m| match &m.event {
            Event::LeaderIsr { partition: p, leader, .. } | Event::SelectedLeader { partition: p, leader, .. }
                if *p == partition && *leader >= 0 && *leader != deposed && *leader != new =>
            {
                Some(*leader)
            }
            Event::LeaderAndIsrSent { partition: Some(p), leader: Some(leader), .. }
            | Event::LeaderAndIsrReceived { partition: Some(p), leader: Some(leader), .. }
                if *p == partition && *leader >= 0 && *leader != deposed && *leader != new =>
            {
                Some(*leader)
            }
            _ => None,
        },
    );
    let third = report.brokers.iter().copied().find(|b| *b != deposed && *b != new && !isr.contains(b));
    // A broker the controller saw fail before its decision (the failure that made it elect).
    let failed = t.markers.iter().filter(|m| timed(m) <= timed(decision)).rev().find_map(|m| match &m.event {
        Event::BrokersChanged { deleted, .. } => deleted.iter().copied().find(|b| *b != deposed && *b != new),
        _ => None,
    });
    let third = third.or(failed);
    let known = named.or(third).or_else(|| report.brokers.iter().copied().find(|b| *b != deposed && *b != new));
    // No line names a third broker: one the logs never mention plays the old leader, and the fit
    // says so (the story needs a leader that is neither controller).
    let assumed_leader = known.is_none();
    let old_leader =
        known.unwrap_or_else(|| report.brokers.iter().copied().chain([deposed, new]).max().unwrap_or(0) + 1);
    // The leader -1 that followed, on this partition (or a leader_none naming no partition).
    let none = t.markers.iter().find(|m| {
        timed(m) > timed(decision)
            && match &m.event {
                Event::LeaderIsr { partition: p, leader: -1, .. }
                | Event::SelectedLeader { partition: p, leader: -1, .. } => *p == partition,
                Event::LeaderNone { partition: p } => p.as_ref().is_none_or(|p| *p == partition),
                _ => false,
            }
    });
    let leader_none_after_ms = none.and_then(|m| Some(m.ts_ms? - decision.ts_ms?));
    // How the controller moved: an election error (1.0's triggerControllerMove) before the new
    // controller's election; else the deposed controller's session expired first (ZkClient's
    // retry on the new session); else /controller was deleted under a live controller.
    let new_from = new_band.map(|b| (b.from_ms, b.line));
    let before_new = |m: &Marker| match (new_from, m.ts_ms) {
        (Some((Some(f), _)), Some(ts)) => ts <= f,
        (Some((_, l)), _) => m.line <= l,
        _ => false,
    };
    let after_own = |m: &Marker| {
        own_band.is_none_or(|b| match (b.from_ms, m.ts_ms) {
            (Some(f), Some(ts)) => ts >= f,
            _ => m.line >= b.line,
        })
    };
    let election_error =
        t.markers.iter().any(|m| matches!(m.event, Event::ElectionError { .. }) && before_new(m) && after_own(m));
    let expired = t.markers.iter().any(|m| {
        matches!(m.event, Event::SessionExpired { .. })
            && broker_of(m) == Some(deposed)
            && after_own(m)
            && timed(m) <= timed(decision)
    });
    let shown = election_error || expired;
    let (template, moved_by) = if election_error {
        ("seed-incident", "an election error: 1.0's elect() catch-all ran triggerControllerMove, which deleted /controller under the live controller")
    } else if expired {
        ("zkclient-retry", "the deposed controller's session expired during its failover, and I0Itec ZkClient retried its write on the new session")
    } else {
        ("operator-delete", "the controller moved without an election error or an expiry in these logs: /controller was deleted under a live controller (an operator or a tool)")
    };
    Ok(Story {
        deposed,
        new,
        old_leader,
        partition,
        deposed_epoch: own_band.and_then(|b| b.epoch),
        leader_epoch,
        leader_none_after_ms,
        template,
        moved_by,
        shown,
        assumed_leader,
    })
}

/// What a log too thin to fit would need.
fn thin(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if !report.signatures.iter().any(|s| s.alarm) {
        out.push(String::from("no split-brain signature: nothing to fit"));
        return out;
    }
    let alarms: Vec<&str> = report.signatures.iter().filter(|s| s.alarm).map(|s| s.kind).collect();
    out.push(alloc::format!(
        "the fitted replay tells a deposed controller's write, and these logs show none ({} explained above); to see one they would need:",
        alarms.join(", ")
    ));
    match report.epochs.len() {
        0 => out.push(String::from(
            "the controller.log lines where brokers became controller (0.11-1.0: \"[Controller N]: N successfully elected as the controller\"; 1.1+: \"[Controller id=N] N successfully elected as the controller. Epoch incremented to E\")",
        )),
        1 => out.push(alloc::format!(
            "the controller.log of the broker that became controller after broker {} (its election line): only one election is in these logs",
            report.epochs[0].controller
        )),
        _ => {}
    }
    out.push(String::from(
        "a decision by the older controller after the newer one's election: its state-change.log or controller.log line choosing a partition's leader (\"Selected new leader and ISR {\"leader\":L,\"leader_epoch\":E,\"isr\":[..]} for offline partition [topic,N]\")",
    ));
    out
}

/// A scenario JSON value: the template with the logs' broker ids, epochs and gap.
fn scenario(story: &Story) -> Result<Scenario, String> {
    let template = builtin(story.template).ok_or_else(|| alloc::format!("no built-in scenario {}", story.template))?;
    let mut v = serde_json::to_value(&template).map_err(|e| alloc::format!("{e}"))?;
    let ids = [story.deposed, story.new, story.old_leader];
    let map =
        |b: i64| -> i64 { TEMPLATE_ROLES.iter().position(|&r| r as i64 == b).map(|i| ids[i] as i64).unwrap_or(b) };
    relabel(&mut v, &map);
    let obj = v.as_object_mut().ok_or("template is not an object")?;
    obj.insert("name".into(), Value::from(alloc::format!("fitted-{}", story.template)));
    obj.insert(
        "description".into(),
        Value::from(alloc::format!(
            "Fitted to your logs: broker {} became controller, broker {} took over, and broker {} went on to write {} (led before by broker {}). The controller moved through {}. Told on the built-in {} with your broker ids.",
            story.deposed, story.new, story.deposed, story.partition, story.old_leader, story.moved_by, story.template
        )),
    );
    obj.remove("captions");
    let cluster = obj.get_mut("cluster").and_then(Value::as_object_mut).ok_or("template has no cluster")?;
    if let Some(e) = story.deposed_epoch {
        cluster.insert("controller_epoch".into(), Value::from((e - 1).max(0)));
    }
    if let Some(le) = story.leader_epoch {
        if let Some(topic) = cluster
            .get_mut("topics")
            .and_then(Value::as_array_mut)
            .and_then(|t| t.first_mut())
            .and_then(Value::as_object_mut)
        {
            topic.insert("leader_epoch".into(), Value::from((le - 1).max(0)));
        }
    }
    // The deposed controller's failure: the logs' gap after its write, instead of the template's.
    if let Some(gap) = story.leader_none_after_ms {
        let gap = gap.clamp(MIN_GAP_MS, MAX_GAP_MS) as u64;
        shift_late_faults(obj, gap);
    }
    let text = serde_json::to_string(&v).map_err(|e| alloc::format!("{e}"))?;
    Scenario::from_json(&text).map_err(|e| alloc::format!("the fitted scenario does not load: {}", e.0))
}

/// Replaces the template's broker ids: `brokers`, `controller`, connect keys and `bN` nodes.
fn relabel(v: &mut Value, map: &dyn Fn(i64) -> i64) {
    match v {
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().cloned().collect();
            for k in keys {
                let Some(mut child) = o.remove(&k) else { continue };
                match k.as_str() {
                    "brokers" => {
                        if let Value::Array(a) = &mut child {
                            for b in a.iter_mut() {
                                if let Some(n) = b.as_i64() {
                                    *b = Value::from(map(n));
                                }
                            }
                        }
                    }
                    "controller" => {
                        if let Some(n) = child.as_i64() {
                            child = Value::from(map(n));
                        }
                    }
                    _ => relabel(&mut child, map),
                }
                let key = match k.parse::<i64>() {
                    Ok(n) if is_connect_key(&child) => alloc::format!("{}", map(n)),
                    _ => k,
                };
                o.insert(key, child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| relabel(x, map)),
        Value::String(s) => {
            if let Some(n) = s.strip_prefix('b').and_then(|n| n.parse::<i64>().ok()) {
                *s = alloc::format!("b{}", map(n));
            }
        }
        _ => {}
    }
}

/// A connect map's value: a list of ZooKeeper server names.
fn is_connect_key(v: &Value) -> bool {
    v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(|x| x.as_str().is_some_and(|s| s.starts_with("zk"))))
}

/// Moves the template's late faults (a day or more in) so the first comes `gap` after the
/// deposed write (about 18 s into every template), and the end with them.
fn shift_late_faults(obj: &mut serde_json::Map<String, Value>, gap: u64) {
    const DAY: u64 = 86_400_000;
    const DEPOSED_WRITE_MS: u64 = 18_000;
    let Some(script) = obj.get_mut("script").and_then(Value::as_array_mut) else { return };
    let first = script.iter().filter_map(|e| e.get("at_ms").and_then(Value::as_u64)).filter(|&t| t >= DAY).min();
    let Some(first) = first else { return };
    let target = DEPOSED_WRITE_MS + gap;
    for e in script.iter_mut() {
        if let Some(t) = e.get("at_ms").and_then(Value::as_u64) {
            if t >= DAY {
                e["at_ms"] = Value::from(t - first + target);
            }
        }
    }
    if let Some(end) = obj.get("end_ms").and_then(Value::as_u64) {
        if end >= first {
            obj.insert("end_ms".into(), Value::from(end - first + target));
        }
    }
}

/// Replays the fitted scenario under every behaviour.
fn replay(story: &Story, scenario: Scenario) -> Fit {
    let tp = TopicPartition::new(OFFSETS_TOPIC, TEMPLATE_PARTITION);
    let runs: Vec<(Mode, Option<SimTimeline>)> = MODES
        .iter()
        .map(|&m| {
            let t = SimTimeline::with_mode(scenario.clone(), None, m).ok().map(|mut t| {
                t.compute_all();
                let end = t.len();
                t.seek(end);
                t
            });
            (m, t)
        })
        .collect();
    let leader = |t: &SimTimeline| {
        let v = t.world().view();
        v.partitions.iter().find(|p| p.topic == tp.topic && p.partition == tp.partition).map(|p| p.leader).unwrap_or(-1)
    };
    let deposed_landed = |t: &SimTimeline| {
        t.events().iter().position(|e| {
            e.marks.iter().any(|m| matches!(m, Mark::DeposedWriteAccepted { from, partition, .. } if *from == story.deposed && *partition == tp))
        })
    };
    let wants_none = story.leader_none_after_ms.is_some();
    let mut verdicts = Vec::new();
    let legacy = runs.first().and_then(|(_, t)| t.as_ref());
    for (mode, run) in &runs {
        let Some(t) = run else {
            verdicts.push(ModeVerdict {
                mode: mode_label(*mode).into(),
                leader: -1,
                reproduced: false,
                words: String::from("the fitted scenario did not load in this behaviour"),
            });
            continue;
        };
        let l = leader(t);
        let landed = deposed_landed(t).is_some();
        let reproduced = landed && (!wants_none || l < 0);
        let words = words(story, *mode, t, l, landed, legacy, &tp);
        verdicts.push(ModeVerdict { mode: mode_label(*mode).into(), leader: l, reproduced, words });
    }
    let link = legacy.map(|t| {
        let step = deposed_landed(t).map(|s| s + 1).unwrap_or(0) as u64;
        Link {
            builtin: None,
            scenario: Some(scenario.clone()),
            mode: Mode::Legacy,
            seed: scenario.seed,
            commands: Vec::new(),
            step,
            compare: Some(Mode::Fenced),
            version: share::VERSION,
        }
        .encode()
    });
    let mut missing = Vec::new();
    if !story.shown {
        missing.push(alloc::format!(
            "how the controller moved from broker {} to broker {}: these logs show neither an \"Error while electing or becoming controller\" (1.0's triggerControllerMove, the network-only path) nor broker {}'s session expiring before its write, so the fit assumes /controller was deleted under it; both brokers' server.log and controller.log around broker {}'s election would say which",
            story.deposed, story.new, story.deposed, story.new
        ));
    }
    if story.assumed_leader {
        missing.push(alloc::format!(
            "a line naming {}'s leader before broker {}'s decision (the new controller's LeaderAndIsr in state-change.log, or `kafka-topics --describe` before the incident): no third broker is in these logs, so broker {} (an id they never use) plays it",
            story.partition, story.deposed, story.old_leader
        ));
    }
    if story.partition.topic != OFFSETS_TOPIC || story.partition.partition != TEMPLATE_PARTITION {
        missing.push(alloc::format!(
            "the replay tells your {} on the template's {tp}: the failover's order of partitions (and so its timing) is the template's",
            story.partition
        ));
    }
    if !verdicts.first().is_some_and(|v| v.reproduced) {
        missing.push(alloc::format!(
            "the replay under 1.0 did not reach the logs' signature on the template's {tp}: the fit is a sketch, not a reproduction"
        ));
    }
    Fit {
        fitted: true,
        template: Some(story.template),
        roles: alloc::vec![
            Role { role: "deposed controller", broker: story.deposed },
            Role { role: "new controller", broker: story.new },
            Role { role: "old leader", broker: story.old_leader },
        ],
        partition: Some(story.partition.clone()),
        scenario: serde_json::to_string(&scenario).ok(),
        permalink: link,
        verdicts,
        missing,
    }
}

/// A behaviour's short name, as the page and the issue say it.
pub fn mode_label(mode: Mode) -> &'static str {
    match mode {
        Mode::Legacy => "1.0",
        Mode::Kafka11 => "1.1",
        Mode::Fenced => "2.1",
        Mode::Kraft => "KRaft",
    }
}

/// The behaviours replayed, 1.0 first.
const MODES: [Mode; 4] = [Mode::Legacy, Mode::Kafka11, Mode::Fenced, Mode::Kraft];

/// One sentence for a behaviour's replay, from its marks (the core's own reading of it).
fn words(
    story: &Story,
    mode: Mode,
    t: &SimTimeline,
    leader: i32,
    landed: bool,
    legacy: Option<&SimTimeline>,
    tp: &TopicPartition,
) -> String {
    let name = mode_label(mode);
    let d = story.deposed;
    let marks = || t.events().iter().flat_map(|e| &e.marks);
    if mode == Mode::Legacy {
        return match (landed, leader) {
            (true, l) if l < 0 => alloc::format!("{name} reaches it: broker {d}'s write of {tp} landed after broker {} took over, and ISR removal later wrote leader -1", story.new),
            (true, _) => alloc::format!("{name}: broker {d}'s write of {tp} landed after broker {} took over (a deposed controller's write)", story.new),
            _ => alloc::format!("{name}: the replay did not reproduce broker {d}'s write"),
        };
    }
    if mode == Mode::Kraft {
        return alloc::format!(
            "{name}: no ZooKeeper and no second controller writing it; the partition's leader is {leader} at the end"
        );
    }
    if marks().any(|m| matches!(m, Mark::WriteRefused { from, partition: Some(p), .. } if *from == d && p == tp)) {
        return alloc::format!(
            "{name} would have refused broker {d}'s write of {tp}: BADVERSION (KAFKA-6082), and broker {d} resigned"
        );
    }
    if marks().any(|m| matches!(m, Mark::SessionExpiryLearned { broker, failed_writes, .. } if *broker == d && failed_writes.contains(tp))) {
        return alloc::format!("{name} would have failed broker {d}'s pending write of {tp} on its session expiry instead of retrying it (KAFKA-5642)");
    }
    if marks().any(|m| matches!(m, Mark::ControllerDeadlock { .. })) {
        return alloc::format!(
            "{name}: the session expiry deadlocks a broker's ZooKeeper client (KAFKA-6879, fixed in 1.1.1)"
        );
    }
    let moved_in_legacy = legacy.is_some_and(|l| {
        l.events().iter().flat_map(|e| &e.marks).any(|m| matches!(m, Mark::ControllerZnodeDeleted { .. }))
    });
    let moved_here = marks().any(|m| matches!(m, Mark::ControllerZnodeDeleted { .. }));
    if moved_in_legacy && !moved_here {
        return alloc::format!("{name}: the controller never moved: the lost /controller read is retried (KafkaZkClient.retryRequestsUntilConnected), so there is no triggerControllerMove and no second controller");
    }
    if landed {
        return alloc::format!(
            "{name} does not stop it: broker {d}'s write of {tp} landed (leader {leader} at the end)"
        );
    }
    alloc::format!("{name}: broker {d}'s write never landed; {tp} ends with leader {leader}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Parsed;
    use crate::testkit::rec;
    use alloc::vec;

    fn p(n: u32) -> Partition {
        Partition { topic: "__consumer_offsets".into(), partition: n }
    }

    /// The seed blog's story, on brokers 11, 12 and 13, with an election error before broker 12's
    /// election and leader -1 two days after the deposed write.
    fn seed_report(moved: Option<(i32, Event)>) -> Report {
        let mut records = vec![
            rec(1, 30_006, 11, Event::Elected { broker: 11, epoch: Some(21) }),
            rec(3, 30_936, 12, Event::Elected { broker: 12, epoch: Some(22) }),
            rec(
                4,
                31_847,
                11,
                Event::SelectedLeader {
                    partition: p(3),
                    leader: 11,
                    leader_epoch: Some(14),
                    isr: vec![11, 12],
                    controller_epoch: Some(21),
                    zk_version: None,
                },
            ),
            rec(5, 32_850, 11, Event::Resigned { broker: Some(11) }),
            rec(
                6,
                31_847 + 2 * 86_400_000,
                12,
                Event::LeaderIsr {
                    partition: p(3),
                    leader: -1,
                    leader_epoch: Some(15),
                    isr: vec![12],
                    controller_epoch: Some(22),
                },
            ),
            rec(7, 31_900 + 2 * 86_400_000, 13, Event::Started),
        ];
        if let Some((b, e)) = moved {
            records.insert(1, rec(2, 30_500, b, e));
        }
        let parsed = Parsed { lines: records.len() as u32, records, files: Vec::new() };
        crate::report::report(&[], &parsed)
    }

    #[test]
    fn an_election_error_fits_the_network_only_story_which_1_1_and_2_1_never_start() {
        let f = fit(&seed_report(Some((12, Event::ElectionError { broker: Some(12) }))));
        assert_eq!(f.template, Some("seed-incident"), "{f:?}");
        assert_eq!(f.roles.iter().map(|r| r.broker).collect::<Vec<_>>(), vec![11, 12, 13]);
        let v: Vec<(&str, i32, bool)> = f.verdicts.iter().map(|v| (v.mode.as_str(), v.leader, v.reproduced)).collect();
        assert_eq!(v[0], ("1.0", -1, true), "{f:#?}");
        assert!(v[1..].iter().all(|(_, l, r)| *l >= 0 && !r), "{v:?}");
        assert!(f.verdicts[2].words.contains("never moved"), "{}", f.verdicts[2].words);
        let link = Link::decode(f.permalink.as_deref().expect("a permalink")).expect("it decodes");
        assert_eq!(link.scenario.as_ref().map(|s| s.cluster.brokers.clone()), Some(vec![11, 12, 13]));
        assert!(f.missing.is_empty(), "{:?}", f.missing);
    }

    #[test]
    fn with_no_cause_shown_the_fence_refuses_the_deposed_write_in_2_1() {
        let f = fit(&seed_report(None));
        assert_eq!(f.template, Some("operator-delete"), "{f:?}");
        assert_eq!((f.verdicts[0].leader, f.verdicts[0].reproduced), (-1, true), "{f:#?}");
        assert!(f.verdicts[2].leader >= 0 && f.verdicts[2].words.contains("BADVERSION"), "{:?}", f.verdicts[2]);
        assert!(f.missing.iter().any(|m| m.starts_with("how the controller moved")), "{:?}", f.missing);
    }

    #[test]
    fn the_deposed_controllers_expiry_fits_the_zkclient_retry_story() {
        let f = fit(&seed_report(Some((11, Event::SessionExpired { session: None }))));
        assert_eq!(f.template, Some("zkclient-retry"), "{f:?}");
        assert_eq!((f.verdicts[0].leader, f.verdicts[0].reproduced), (-1, true), "{f:#?}");
        assert!(f.verdicts[1].leader >= 0, "{:?}", f.verdicts[1]);
    }

    #[test]
    fn with_two_brokers_in_the_logs_a_third_id_plays_the_old_leader_and_the_fit_says_so() {
        let mut r = seed_report(None);
        r.brokers.retain(|b| *b != 13);
        r.timeline.markers.retain(|m| !matches!(m.event, Event::Started));
        let f = fit(&r);
        assert_eq!(f.roles.iter().map(|r| r.broker).collect::<Vec<_>>(), vec![11, 12, 13], "{f:?}");
        assert!(f.missing.iter().any(|m| m.contains("broker 13 (an id they never use) plays it")), "{:?}", f.missing);
        assert_eq!(f.verdicts[0].leader, -1, "{:?}", f.verdicts[0]);
    }

    #[test]
    fn a_healthy_report_says_there_is_nothing_to_fit() {
        let parsed = Parsed {
            lines: 1,
            records: vec![rec(1, 1, 1, Event::Elected { broker: 1, epoch: Some(3) })],
            files: Vec::new(),
        };
        let f = fit(&crate::report::report(&[], &parsed));
        assert!(!f.fitted && f.missing[0].starts_with("no split-brain signature"), "{f:?}");
    }
}
