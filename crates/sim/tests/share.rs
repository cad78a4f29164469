//! Permalinks restore the exact run; hostile links fail with a message; exports carry the trace.
mod common;
use common::*;
use splitbrain_sim::export::{controller_log, json_lines, mermaid};
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::share::{b64url_encode, Link, MAX_LINK_BYTES};
use splitbrain_sim::{Command, Direction, Mode, NodeId, Timeline};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn with_user_faults() -> Timeline {
    let mut t = Timeline::with_mode(builtin("seed-incident").unwrap(), Some(4), Mode::Legacy).unwrap();
    t.seek(30);
    t.apply(Command::Cut { a: NodeId::Broker(2), b: NodeId::Zk(1), dir: Direction::AToB }).unwrap();
    t.seek(120);
    t.apply(Command::Crash { node: NodeId::Broker(3) }).unwrap();
    t.seek(200);
    t
}

#[test]
fn a_link_restores_the_same_state_at_the_same_step() {
    let t = with_user_faults();
    let link = Link::of(&t, Mode::Legacy).encode();
    assert!(link.starts_with("v3."));
    assert!(Link::decode(&link).unwrap().notice().is_none(), "a link made now needs no notice");
    let back = Link::decode(&format!("#{link}")).unwrap();
    assert_eq!(back.builtin.as_deref(), Some("seed-incident"));
    assert_eq!(back.commands.len(), 2);
    let r = back.restore().unwrap();
    assert_eq!(r.cursor(), 200);
    assert_eq!(r.view(), t.view());
    assert_eq!(r.events()[..200], t.events()[..200]);
}

#[test]
fn a_custom_scenario_travels_inside_the_link() {
    let mut s = builtin("clean-failover").unwrap();
    s.name = "my <b>own</b> run".into();
    s.cluster.brokers = vec![1, 2, 3, 4, 5];
    let mut t = Timeline::with_mode(s.clone(), None, Mode::Fenced).unwrap();
    t.seek(50);
    let link = Link::of(&t, Mode::Fenced);
    assert!(link.builtin.is_none());
    let enc = link.encode();
    let back = Link::decode(&enc).unwrap();
    assert_eq!(back.scenario.as_ref(), Some(&s));
    assert_eq!(back.mode, Mode::Fenced);
    assert_eq!(back.restore().unwrap().view(), t.view());
}

#[test]
fn hostile_links_fail_with_a_message() {
    let good = Link::of(&with_user_faults(), Mode::Legacy).encode();
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "empty"),
        ("hello".into(), "no version prefix"),
        (good.replacen("v3.", "v9.", 1), "newer splitbrain"),
        (good.replacen("v3.", "v0.", 1), "not supported"),
        (good.replacen("v3.", "vx.", 1), "not a link version"),
        (format!("{}$%", &good[..good.len() / 2]), "not valid base64url"),
        (good[..good.len() / 2].to_string(), "corrupted"),
        (format!("v1.{}", "A".repeat(MAX_LINK_BYTES)), "limit"),
        (format!("v1.{}", b64url_encode(b"not deflate at all")), "corrupted"),
    ];
    for (link, needle) in cases {
        let e = Link::decode(&link).unwrap_err();
        assert!(e.contains(needle), "{link:.40}: {e}");
    }
    // Valid encoding, hostile content.
    let json = br#"{"builtin":"<img src=x onerror=alert(1)>","seed":1}"#;
    let enc = format!("v1.{}", b64url_encode(&miniz_deflate(json)));
    let e = Link::decode(&enc).unwrap().restore().unwrap_err();
    assert!(e.contains("unknown built-in scenario"), "{e}");
    let json =
        br#"{"builtin":"seed-incident","seed":1,"commands":[{"at_step":999999,"command":{"op":"crash","node":"b1"}}]}"#;
    let e = Link::decode(&format!("v1.{}", b64url_encode(&miniz_deflate(json)))).unwrap().restore().unwrap_err();
    assert!(e.contains("past the end of the run"), "{e}");
    let json =
        br#"{"builtin":"seed-incident","seed":1,"commands":[{"at_step":3,"command":{"op":"crash","node":"b9"}}]}"#;
    let e = Link::decode(&format!("v1.{}", b64url_encode(&miniz_deflate(json)))).unwrap().restore().unwrap_err();
    assert!(e.contains("unknown node b9"), "{e}");
    let json = br#"{"builtin":"seed-incident","seed":1,"evil":true}"#;
    let e = Link::decode(&format!("v1.{}", b64url_encode(&miniz_deflate(json)))).unwrap_err();
    assert!(e.contains("not a valid run description"), "{e}");
}

/// A link made before the ensemble (version 1) still opens, says why its run may differ, and a
/// version-1 link to `seed-incident` opens `zkclient-retry`, which carries that scenario's old
/// faults; the same link at version 2 (before seed-incident lost its operator) opens
/// `operator-delete`, with a notice; at version 3 it opens `seed-incident` itself.
#[test]
fn an_old_link_opens_with_a_notice_and_the_scenario_it_meant() {
    let json = br#"{"builtin":"seed-incident","seed":1,"step":40}"#;
    let old = Link::decode(&format!("v1.{}", b64url_encode(&miniz_deflate(json)))).unwrap();
    let notice = old.notice().expect("a v1 link gets a notice");
    assert!(notice.contains("zkclient-retry"), "{notice}");
    let t = old.restore().unwrap();
    assert_eq!(t.scenario().name, "zkclient-retry");
    assert_eq!(t.cursor(), 40);
    let v2 = Link::decode(&format!("v2.{}", b64url_encode(&miniz_deflate(json)))).unwrap();
    let notice = v2.notice().expect("a v2 link gets a notice");
    assert!(notice.contains("operator-delete"), "{notice}");
    assert_eq!(v2.restore().unwrap().scenario().name, "operator-delete");
    let new = Link::decode(&format!("v3.{}", b64url_encode(&miniz_deflate(json)))).unwrap();
    assert!(new.notice().is_none());
    assert_eq!(new.restore().unwrap().scenario().name, "seed-incident");
    let json = br#"{"builtin":"clean-failover","seed":1}"#;
    let other = Link::decode(&format!("v1.{}", b64url_encode(&miniz_deflate(json)))).unwrap();
    assert!(other.notice().is_some_and(|n| !n.contains("zkclient-retry")));
    assert_eq!(other.restore().unwrap().scenario().name, "clean-failover");
}

fn miniz_deflate(data: &[u8]) -> Vec<u8> {
    // The same raw DEFLATE the encoder uses, through the public encoder of a known link shape.
    splitbrain_sim::share::deflate(data)
}

#[test]
fn exports_carry_the_trace() {
    // zkclient-retry: one ZooKeeper server `zk`, and a write dropped on a cut link.
    let mut w = world("zkclient-retry");
    let events = run_to_end(&mut w);
    let jl = json_lines(&events, &w.summary());
    assert_eq!(jl.lines().count(), events.len() + 1);
    assert!(jl.lines().last().unwrap().starts_with("{\"final\":"));
    let log = controller_log(&events);
    assert!(log.contains("INFO b1 [Controller id=1] 1 successfully elected as the controller"));
    assert!(log.contains("(kafka.controller.KafkaController)"));
    assert!(log.contains(
        "ERROR b2 [Controller id=2] New leader and ISR for partition __consumer_offsets-3 is {\"leader\":-1"
    ));
    assert!(log.starts_with("[2018-03-01 00:00:09,000]"), "the first event is b3's cut at 9 s: {}", &log[..40]);
    let m = mermaid(&events, 10_000);
    assert!(m.starts_with("sequenceDiagram\n"));
    assert!(m.contains("participant b1") && m.contains("participant zk"));
    assert!(m.contains("b1-xzk"), "the dropped write is crossed out");
    assert!(!m.contains("more lines left out"));
    let short = mermaid(&events, 40);
    assert!(short.lines().count() <= 40 + 8);
    assert!(short.contains("more lines left out"));
}

#[test]
fn the_side_by_side_mode_travels_in_the_link_and_older_links_still_open() {
    let t = with_user_faults();
    let mut l = Link::of(&t, Mode::Legacy);
    assert_eq!(l.compare, None);
    let without = l.encode();
    l.compare = Some(Mode::Fenced);
    let back = Link::decode(&l.encode()).unwrap();
    assert_eq!(back.compare, Some(Mode::Fenced));
    assert_eq!(back, l);
    // A link made before the field existed decodes with no comparison.
    assert_eq!(Link::decode(&without).unwrap().compare, None);
}
