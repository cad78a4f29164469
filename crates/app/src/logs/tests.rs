//! The logs page drawn from a hand-made [`splitbrain_import::Report`] and
//! [`splitbrain_import::fit::Fit`] (the core's own types, as the real import will fill them):
//! written by the worker's [`crate::logs::job::answer`], read back by [`crate::logs::view`],
//! rendered to HTML natively, and checked by the page's structured attributes.
use crate::logs::job;
use crate::logs::view::{self, LogsView};
use splitbrain_import::fit::{Fit, ModeVerdict, Role};
use splitbrain_import::parse::{BrokerSource, FileInfo};
use splitbrain_import::report::RawLine;
use splitbrain_import::signatures::Signature;
use splitbrain_import::timeline::{EpochBand, Lane, Marker, Skew, Timeline};
use splitbrain_import::{Event, Input, Partition, Report};
use std::rc::Rc;
use yew::prelude::*;

const B1: &str = "[2018-03-10 15:48:30,006] INFO [Controller 1]: 1 successfully elected as the controller (kafka.controller.KafkaController)
[2018-03-10 15:48:50,120] INFO [Controller 1]: Broker 1 is sending LeaderAndIsr for [t,0] (state.change.logger)
not a log line at all
";
const B2: &str = "[2018-03-10 15:48:40,010] INFO [Controller 2]: 2 successfully elected as the controller (kafka.controller.KafkaController)
[2018-03-10 15:48:45,500] INFO [Controller 2]: Selected new leader and ISR {\"leader\":2,\"leader_epoch\":5,\"isr\":[2]} for offline partition [t,0] (state.change.logger)
";

const T0: i64 = 1_520_696_910_006;

fn marker(lane: u32, ts_ms: i64, line: u32, band: u32, event: Event) -> Marker {
    Marker { lane, ts_ms: Some(ts_ms), line, file: 0, band: Some(band), event }
}

/// A report of two brokers whose controller epochs overlap, as the real import would write it.
pub fn report() -> Report {
    let epochs = vec![
        EpochBand {
            epoch: Some(1),
            controller: 1,
            from_ms: Some(T0),
            resigned_ms: None,
            next_ms: Some(T0 + 10_004),
            line: 1,
            resigned_line: None,
            inferred: false,
        },
        EpochBand {
            epoch: Some(2),
            controller: 2,
            from_ms: Some(T0 + 10_004),
            resigned_ms: None,
            next_ms: None,
            line: 4,
            resigned_line: None,
            inferred: false,
        },
    ];
    let partition = Partition { topic: "t".into(), partition: 0 };
    let timeline = Timeline {
        omitted: 0,
        epochs_omitted: 0,
        start_ms: Some(T0),
        end_ms: Some(T0 + 20_114),
        lanes: vec![Lane { broker: Some(1), markers: 2 }, Lane { broker: Some(2), markers: 2 }],
        epochs: epochs.clone(),
        markers: vec![
            marker(0, T0, 1, 0, Event::Elected { broker: 1, epoch: None }),
            marker(1, T0 + 10_004, 4, 1, Event::Elected { broker: 2, epoch: None }),
            marker(
                1,
                T0 + 15_494,
                5,
                1,
                Event::SelectedLeader {
                    partition: partition.clone(),
                    leader: 2,
                    leader_epoch: Some(5),
                    isr: vec![2],
                    controller_epoch: None,
                    zk_version: None,
                },
            ),
            marker(
                0,
                T0 + 20_114,
                2,
                1,
                Event::LeaderAndIsrSent {
                    partition: Some(partition.clone()),
                    to: None,
                    controller_epoch: None,
                    leader: Some(1),
                },
            ),
        ],
        skews: vec![Skew {
            cause_broker: 2,
            effect_broker: 1,
            cause_line: 5,
            effect_line: 2,
            ms: 250,
            explain: "made up for the test".into(),
        }],
    };
    let signatures = vec![Signature {
        kind: "overlapping_controllers",
        brokers: vec![1, 2],
        lines: vec![2, 4],
        more: 3,
        explain: "broker 1 acted as controller after broker 2 was elected".into(),
        fixed_in: "KAFKA-5642, 1.1.0",
        alarm: true,
    }];
    let file = |name: &str, lines, broker| FileInfo {
        name: name.into(),
        lines,
        broker,
        broker_source: broker.map(|_| BrokerSource::Line),
        mixed: false,
    };
    Report {
        lines: 5,
        typed: 4,
        other: 0,
        unknown: 1,
        brokers: vec![1, 2],
        unknown_broker: 0,
        files: vec![file("broker1/controller.log", 3, Some(1)), file("paste", 2, None)],
        epochs,
        verdict: splitbrain_import::signatures::verdict(&signatures),
        signatures,
        unknown_lines: vec![RawLine { line: 3, file: 0, file_line: 3, text: "not a log line at all".into() }],
        timeline,
    }
}

/// A fit that replays it under every behaviour.
pub fn fit() -> Fit {
    let v = |mode: &str, leader, reproduced| ModeVerdict {
        mode: mode.into(),
        leader,
        reproduced,
        words: format!("{mode} did something"),
    };
    Fit {
        fitted: true,
        template: Some("seed-incident"),
        roles: vec![Role { role: "deposed controller", broker: 1 }, Role { role: "new controller", broker: 2 }],
        partition: Some(Partition { topic: "t".into(), partition: 0 }),
        scenario: Some("{}".into()),
        permalink: Some("v3.abc".into()),
        verdicts: vec![v("1.0", -1, true), v("1.1", -1, true), v("2.1", 2, false), v("kraft", 2, false)],
        missing: vec![],
    }
}

fn view_of(report: Report, fit: &Fit) -> (Rc<LogsView>, String) {
    let inputs = [
        Input { name: "broker1/controller.log", bytes: B1.as_bytes(), broker: None },
        Input { name: "paste", bytes: B2.as_bytes(), broker: None },
    ];
    let a = job::answer(&inputs, report, fit, &[]).unwrap();
    (Rc::new(view::parse(&a.view).unwrap()), a.export)
}

fn render<C: BaseComponent>(props: C::Properties) -> String {
    futures::executor::block_on(yew::LocalServerRenderer::<C>::with_props(props).hydratable(false).render())
}

fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}

#[test]
fn the_view_reads_back_the_core_s_report() {
    let (v, export) = view_of(report(), &fit());
    assert_eq!(v.report.verdict, "split-brain signatures: overlapping_controllers");
    assert_eq!(v.report.signatures[0].kind, "overlapping_controllers");
    assert_eq!(v.report.timeline.markers[2].kind(), "selected_leader");
    assert!(
        v.report.timeline.markers[2].fields().contains("partition t-0"),
        "{}",
        v.report.timeline.markers[2].fields()
    );
    assert_eq!(v.markers_total, 4);
    assert_eq!(v.report.files[0].broker_source.as_deref(), Some("line"));
    // Cited lines come with their text, numbered across the inputs.
    assert_eq!(v.line(4).map(|l| (l.file, l.file_line)), Some((1, 1)));
    assert!(v.line(2).unwrap().text.contains("LeaderAndIsr"));
    // The export is the whole, unthinned report and the fit, as the core serialised them.
    let e: serde_json::Value = serde_json::from_str(&export).unwrap();
    assert_eq!(e["report"]["timeline"]["markers"].as_array().unwrap().len(), 4);
    assert_eq!(e["fit"]["permalink"], "v3.abc");
}

#[test]
fn the_verdict_and_counts_are_drawn_as_typed() {
    let (view, _) = view_of(report(), &fit());
    let html = render::<crate::logs::verdict::Verdict>(crate::logs::verdict::VerdictProps {
        view,
        on_export: Callback::noop(),
    });
    assert!(html.contains(r#"data-testid="verdict""#) && html.contains(r#"data-alarm="true""#), "{html}");
    assert!(html.contains("split-brain signatures: overlapping_controllers"));
    assert!(html.contains(r#"data-count="lines">5<"#) && html.contains(r#"data-count="unknown">1<"#), "{html}");
    assert!(html.contains(r#"data-testid="export""#));
}

#[test]
fn signatures_show_their_evidence_with_raw_text() {
    let (view, _) = view_of(report(), &fit());
    let html = render::<crate::logs::signatures::Signatures>(crate::logs::signatures::SignaturesProps { view });
    assert!(html.contains(r#"data-kind="overlapping_controllers""#), "{html}");
    assert!(html.contains(r#"data-brokers="1, 2""#));
    assert!(html.contains(r#"data-line="4""#) && html.contains("2 successfully elected as the controller"), "{html}");
    assert!(html.contains("paste:1"), "the evidence names its file and line: {html}");
    assert!(html.contains("KAFKA-5642, 1.1.0") && html.contains("and 3 more lines"));
}

#[test]
fn the_timeline_draws_lanes_bands_markers_and_skews() {
    let (view, _) = view_of(report(), &fit());
    let html = render::<crate::logs::timeline::Timeline>(crate::logs::timeline::TimelineProps { view });
    assert_eq!(count(&html, r#"data-testid="lane""#), 2, "{html}");
    assert!(html.contains(r#"data-broker="1""#) && html.contains(r#"data-broker="2""#));
    assert_eq!(count(&html, r#"data-testid="band""#), 2);
    assert!(html.contains(r#"data-epoch="2" data-controller="2""#), "{html}");
    assert!(html.contains("epoch 1 · controller 1"));
    assert_eq!(count(&html, r#"class="log-marker"#), 4);
    assert_eq!(count(&html, r#"class="log-marker evidence""#), 2, "alarm evidence is marked");
    assert!(html.contains(r#"data-kind="elected""#) && html.contains(r#"data-kind="selected_leader""#));
    assert_eq!(count(&html, r#"data-testid="skew-line""#), 1);
    assert_eq!(count(&html, r#"data-testid="skew""#), 1);
    assert!(html.contains("15:48:30"), "the axis reads the logs' own clock: {html}");
}

#[test]
fn an_empty_timeline_says_so() {
    let (view, _) = view_of(Report { timeline: Timeline::default(), ..report() }, &Fit::default());
    let html = render::<crate::logs::timeline::Timeline>(crate::logs::timeline::TimelineProps { view });
    assert!(html.contains(r#"data-testid="timeline-empty""#), "{html}");
}

#[test]
fn the_fit_shows_verdicts_side_by_side_and_the_playground_link() {
    let (view, _) = view_of(report(), &fit());
    let html = render::<crate::logs::fit::FitPanel>(crate::logs::fit::FitProps { view });
    assert_eq!(count(&html, r#"data-testid="mode-verdict""#), 4, "{html}");
    assert!(html.contains(r#"data-mode="1.0" data-reproduced="true" data-leader="-1""#), "{html}");
    assert!(html.contains(r#"data-mode="kraft" data-reproduced="false" data-leader="2""#));
    assert!(html.contains(">KRaft<") && html.contains(">Kafka 2.1<"));
    assert!(html.contains(r#"href="index.html#v3.abc""#));
    let unfitted = Fit { missing: vec!["a line where a broker became controller".into()], ..Fit::default() };
    let (view, _) = view_of(report(), &unfitted);
    let html = render::<crate::logs::fit::FitPanel>(crate::logs::fit::FitProps { view });
    assert!(!html.contains("open-playground") && html.contains(r#"data-testid="fit-missing""#));
    assert!(html.contains("a line where a broker became controller"));
}

#[test]
fn unknown_lines_are_shown_raw_and_counted() {
    let (view, _) = view_of(report(), &fit());
    let html = render::<crate::logs::unknown::Unknown>(crate::logs::unknown::UnknownProps { view });
    assert!(html.contains(r#"data-total="1""#) && html.contains("not a log line at all"), "{html}");
    assert!(html.contains("broker1/controller.log:3"));
}

#[test]
fn files_offer_to_name_an_unknown_broker() {
    let (view, _) = view_of(report(), &fit());
    let sources: Rc<[crate::logs::state::Source]> = ["broker1/controller.log", "paste"]
        .iter()
        .map(|n| crate::logs::state::Source {
            name: n.to_string(),
            size: 10.0,
            data: crate::logs::state::SourceData::Text("x".into()),
            broker: None,
        })
        .collect();
    let html = render::<crate::logs::files::Files>(crate::logs::files::FilesProps {
        sources,
        view,
        on_broker: Callback::noop(),
        busy: false,
    });
    assert_eq!(count(&html, r#"data-testid="file-row""#), 2, "{html}");
    assert!(html.contains(r#"data-broker="1" data-source="line""#), "{html}");
    assert_eq!(count(&html, r#"data-testid="broker-input""#), 1, "only the file of no known broker asks: {html}");
}

#[test]
fn nothing_read_is_said_instead_of_a_verdict() {
    let empty = splitbrain_import::report::report(&[], &Default::default());
    let (view, _) = view_of(empty, &splitbrain_import::fit::fit(&report()));
    let html = render::<crate::logs::verdict::Verdict>(crate::logs::verdict::VerdictProps {
        view,
        on_export: Callback::noop(),
    });
    assert!(html.contains(r#"data-testid="nothing-read""#) && !html.contains(r#"data-testid="verdict""#), "{html}");
}
