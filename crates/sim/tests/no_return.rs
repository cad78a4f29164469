//! The point of no return (`explore::no_return`): on the incident it exists, lies before broker 2's
//! final ISR write (the one that writes leader -1), and is the same on every call; in 2.1 the run
//! never ends at leader -1, so there is none.
mod common;
use common::{marks, run_to_end};
use splitbrain_sim::explore::no_return::{continuation_seed, point_of_no_return};
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::{Mark, Mode, World};

#[test]
fn incident_has_a_point_of_no_return_before_the_final_isr_write() {
    let s = builtin("seed-incident").unwrap();
    let p = point_of_no_return(&s, Mode::Legacy, s.seed, 20).expect("the incident ends at leader -1");
    assert!(p.held * 100 >= 95 * p.of, "{p:?}");
    assert_eq!(p.of, 20);
    if let Some(before) = p.held_before {
        assert!(before * 100 < 95 * p.of, "the step before also holds: {p:?}");
    }
    // Broker 2's last ISR write of leader -1, found by its mark.
    let mut w = World::with_mode(&s, s.seed, Mode::Legacy).unwrap();
    let events = run_to_end(&mut w);
    let (last_write, _) = marks(&events)
        .filter(|(_, m)| matches!(m, Mark::IsrReplicaRemoved { controller: 2, leader: -1, .. }))
        .last()
        .expect("broker 2 writes leader -1");
    assert!(p.step < last_write.step, "point {} is not before the write at step {}", p.step, last_write.step);
    // The step's event is reported as it happened. (With the incident's 2 ms of jitter and every
    // fault scripted, the outcome is sealed from the opening world: step 0, 19 of 20.)
    match p.step {
        0 => assert_eq!((p.node, p.marks.len(), p.held_before), (None, 0, None)),
        n => {
            let e = &events[n as usize - 1];
            assert_eq!((e.step, Some(e.node), &e.marks, e.time_ms), (n, p.node, &p.marks, p.time_ms));
        }
    }
    // Deterministic.
    assert_eq!(point_of_no_return(&s, Mode::Legacy, s.seed, 20), Some(p));
}

#[test]
fn fenced_never_ends_at_leader_minus_one_so_there_is_no_point() {
    let s = builtin("seed-incident").unwrap();
    assert_eq!(point_of_no_return(&s, Mode::Fenced, s.seed, 20), None);
}

#[test]
fn reseed_changes_only_the_jitter() {
    let s = builtin("seed-incident").unwrap();
    let mut a = World::with_mode(&s, s.seed, Mode::Legacy).unwrap();
    for _ in 0..50 {
        a.step();
    }
    let mut b = a.clone();
    b.reseed(continuation_seed(1, 0));
    assert_eq!(a.step_count(), b.step_count());
    assert_eq!(a.now(), b.now());
    let ta: Vec<u64> = (0..200).filter_map(|_| a.step()).map(|e| e.time_ms).collect();
    let tb: Vec<u64> = (0..200).filter_map(|_| b.step()).map(|e| e.time_ms).collect();
    assert_ne!(ta, tb, "another seed draws other jitter");
    assert_ne!(continuation_seed(1, 0), continuation_seed(1, 1));
}
