//! The render switch and the incremental alerts: a run with rendering off takes exactly the
//! decisions of a run with it on (the same steps, times, nodes, kinds, marks and alerts, the same
//! final state), and the alerts the world keeps step by step from what each step touched equal
//! the alerts computed from scratch — over every built-in in every mode, and random fault
//! schedules.
mod common;

use splitbrain_sim::scenario::{builtin, builtin_names};
use splitbrain_sim::{Alert, Command, Direction, Event, Mode, NodeId, Scenario, View, World};

/// What a step decided, without its text.
#[derive(Debug, PartialEq)]
struct Decided {
    step: u64,
    time_ms: u64,
    node: NodeId,
    from: Option<NodeId>,
    message: Option<String>,
    kind: splitbrain_sim::EventKind,
    marks: Vec<splitbrain_sim::Mark>,
    raised: usize,
    cleared: usize,
    alerts: Vec<(splitbrain_sim::AlertKind, String)>,
}

fn decided(e: &Event, w: &World) -> Decided {
    Decided {
        step: e.step,
        time_ms: e.time_ms,
        node: e.node,
        from: e.from,
        message: e.message.as_deref().map(String::from),
        kind: e.kind,
        marks: e.marks.clone(),
        raised: e.alerts_raised.len(),
        cleared: e.alerts_cleared.len(),
        alerts: w.alerts().iter().map(|a| (a.kind, a.key.clone())).collect(),
    }
}

/// The final state without the alerts' text.
fn state(w: &World) -> View {
    let mut v = w.view();
    for a in &mut v.alerts {
        a.message.clear();
    }
    // Text, and the copy of the last delivered message kept only for drawing, exist only with
    // rendering on (`World::set_render`); everything else must be equal.
    v.messages.retain(|m| m.state != splitbrain_sim::view::MessageState::Delivered);
    v
}

/// Runs `w` to its end, checking after every step that the alerts equal their recomputation.
fn run_checked(mut w: World, what: &str) -> (Vec<Decided>, Vec<Event>, View) {
    assert_eq!(w.alerts(), w.alerts_recomputed().as_slice(), "{what}: alerts at step 0");
    let mut out = Vec::new();
    let mut events = Vec::new();
    while let Some(e) = w.step() {
        let again: Vec<Alert> = w.alerts_recomputed();
        assert_eq!(w.alerts(), again.as_slice(), "{what}: incremental alerts differ at step {}", e.step);
        out.push(decided(&e, &w));
        events.push(e);
    }
    (out, events, state(&w))
}

fn compare(s: &Scenario, mode: Mode, seed: u64, what: &str) {
    let on = World::with_mode(s, seed, mode).expect("valid scenario");
    let mut off = on.clone();
    off.set_render(false);
    assert!(on.render() && !off.render());
    let (a, events_on, end_a) = run_checked(on, &format!("{what} (render on)"));
    let (b, events_off, end_b) = run_checked(off, &format!("{what} (render off)"));
    assert!(!a.is_empty(), "{what}: the run takes steps");
    assert_eq!(a.len(), b.len(), "{what}: same number of steps");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "{what}: render off decides differently");
    }
    assert_eq!(end_a, end_b, "{what}: same final state");
    assert!(events_on.iter().all(|e| !e.line.is_empty()), "{what}: rendered steps have lines");
    let rendered: Vec<&String> =
        events_off.iter().flat_map(|e| core::iter::once(&e.line).chain(&e.details)).filter(|l| !l.is_empty()).collect();
    assert!(rendered.is_empty(), "{what}: render off formatted {rendered:?}");
}

#[test]
fn render_off_decides_what_render_on_decides_for_every_builtin_in_every_mode() {
    let names = builtin_names();
    assert!(names.len() >= 5);
    for name in names {
        let s = builtin(&name).expect("built-in");
        for mode in Mode::ALL {
            compare(&s, mode, s.seed, &format!("{name} in {}", mode.name()));
        }
    }
}

/// A random fault schedule on a built-in (xorshift, so the test needs no dependency).
fn random_faults(base: &Scenario, seed: u64, n: usize) -> Vec<(u64, Command)> {
    let w = World::new(base).expect("valid");
    let brokers: Vec<NodeId> = w.brokers().map(|b| NodeId::Broker(b.id)).collect();
    let mut others: Vec<NodeId> = brokers.clone();
    others.extend(w.network().peers(brokers[0]).into_iter().filter(|n| n.is_zk()));
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as usize
    };
    let mut v = Vec::new();
    for i in 0..n {
        let b = brokers[next(brokers.len())];
        let o = others[next(others.len())];
        let at = 500 + i as u64 * 2_000 + next(1_500) as u64;
        let cmd = match next(7) {
            0 | 1 if o != b => Command::Cut { a: b, b: o, dir: Direction::Both },
            2 if o != b => Command::Cut { a: o, b, dir: Direction::default() },
            3 if o != b => Command::Heal { a: b, b: o, dir: Direction::Both },
            4 => Command::Restart { node: b },
            5 => Command::Crash { node: b },
            _ => Command::Rejoin { node: b },
        };
        v.push((at, cmd));
    }
    v
}

#[test]
fn incremental_alerts_equal_recomputed_alerts_under_random_faults() {
    for (name, seed) in [("seed-incident", 1u64), ("seed-incident", 2), ("clean-failover", 3)] {
        let base = builtin(name).expect("built-in");
        for mode in Mode::ALL {
            let mut on = World::with_mode(&base, seed, mode).expect("valid");
            for (at, cmd) in random_faults(&base, seed, 12) {
                on.schedule(at, cmd).expect("a known node");
            }
            let end = on.config().end_ms.max(40_000);
            on.set_end(end);
            let mut off = on.clone();
            off.set_render(false);
            let what = format!("{name} in {} with random faults {seed}", mode.name());
            let (a, _, end_a) = run_checked(on, &what);
            let (b, _, end_b) = run_checked(off, &what);
            assert_eq!(a, b, "{what}: render off decides differently");
            assert_eq!(end_a, end_b, "{what}: same final state");
        }
    }
}

#[test]
fn switching_render_mid_run_changes_no_decision() {
    let s = builtin("seed-incident").expect("built-in");
    let mut a = World::new(&s).expect("valid");
    let mut b = a.clone();
    let mut i = 0;
    loop {
        b.set_render(i % 3 != 0);
        let (x, y) = (a.step(), b.step());
        match (x, y) {
            (Some(x), Some(y)) => {
                assert_eq!(decided(&x, &a), decided(&y, &b), "step {}", x.step);
                if b.render() {
                    assert_eq!(x.line, y.line);
                    assert_eq!(a.alerts(), b.alerts());
                }
            }
            (None, None) => break,
            _ => panic!("one run ended before the other"),
        }
        i += 1;
    }
    assert_eq!(state(&a), state(&b));
}
