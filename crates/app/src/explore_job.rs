//! The explorer's job, as the page's Web Worker runs it, and the messages between the page and
//! that worker (JSON strings, so both sides share one typed protocol).
//!
//! Only the worker binary (`src/bin/explorer_worker.rs`) calls [`Search`]: the page's own wasm
//! uses the message types alone, so the explorer's code stays out of the first load.
use serde::{Deserialize, Serialize};
use splitbrain_sim::explore::no_return::point_of_no_return;
use splitbrain_sim::explore::{Explorer, Options};
use splitbrain_sim::scenario::{Mode, Scenario};

/// Schedules tried per search.
pub const BUDGET: u64 = 2000;

/// Page → worker.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToWorker {
    /// Start a search (replaces any search in progress).
    Start(Start),
    /// Stop search `id`; the worker answers [`FromWorker::Cancelled`].
    Cancel {
        /// The search to stop.
        id: u64,
    },
}

/// What to search.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Start {
    /// Tells this search's answers apart from an older one's.
    pub id: u64,
    /// The cluster, as scenario JSON (its script is ignored).
    pub scenario: String,
    /// The Kafka behaviour, by [`Mode::name`].
    pub mode: String,
    /// Seed of the search and of each run's jitter.
    pub seed: u64,
    /// Also let an operator delete `/controller`.
    pub operator: bool,
    /// Most schedules to try.
    pub budget: u64,
}

/// The point of no return of a counterexample: from `step` on, `held` of `of` continuations
/// still end at leader -1.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct NoReturnPoint {
    /// The earliest step from which the violation holds in enough continuations.
    pub step: u64,
    /// The virtual time of that step, in ms.
    pub time_ms: u64,
    /// Continuations from that step that still end at leader -1.
    pub held: u32,
    /// Continuations tried from that step.
    pub of: u32,
}

impl NoReturnPoint {
    /// The one sentence the page shows beside the marker.
    pub fn sentence(&self) -> String {
        format!(
            "Point of no return: from step {} on, {} of {} continuations still end at leader -1.",
            self.step, self.held, self.of
        )
    }
}

/// Worker → page.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker's wasm is running and takes messages.
    Ready,
    /// Still searching.
    Progress {
        /// The search.
        id: u64,
        /// Schedules tried so far.
        tried: u64,
        /// Seconds since the search started.
        seconds: f64,
    },
    /// A (shrunk) counterexample.
    Found {
        /// The search.
        id: u64,
        /// Schedules tried.
        tried: u64,
        /// Seconds from the start to the shrunk counterexample.
        seconds: f64,
        /// Faults in the shrunk schedule.
        faults: usize,
        /// Faults before shrinking.
        original: usize,
        /// The counterexample's name.
        name: String,
        /// The counterexample as scenario JSON (the cluster plus the schedule).
        scenario: String,
    },
    /// The point of no return of the counterexample just found (none: the core has no such
    /// analysis, or no step holds).
    NoReturn {
        /// The search.
        id: u64,
        /// The point, if any.
        point: Option<NoReturnPoint>,
    },
    /// The budget ran out without a violation.
    Clean {
        /// The search.
        id: u64,
        /// Schedules tried.
        tried: u64,
        /// Seconds.
        seconds: f64,
    },
    /// Stopped at the page's request.
    Cancelled {
        /// The search.
        id: u64,
        /// Schedules tried.
        tried: u64,
        /// Seconds.
        seconds: f64,
    },
    /// The request could not be served.
    Error {
        /// The search (0 when the message itself was unreadable).
        id: u64,
        /// What went wrong, for the page to show.
        message: String,
    },
}

impl FromWorker {
    /// JSON for `postMessage`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!(r#"{{"error":{{"id":0,"message":"{e}"}}}}"#))
    }
}

enum Phase {
    Searching,
    /// Found; the point of no return is computed next.
    NoReturn(Box<splitbrain_sim::explore::Counterexample>),
    Done,
}

/// A search that runs in slices of wall-clock time, so that its host (a worker, or the page's
/// main thread when no worker can start) can answer messages in between. The slicing never
/// changes what is found: the explorer is deterministic schedule by schedule.
pub struct Search {
    id: u64,
    ex: Explorer,
    budget: u64,
    mode: Mode,
    seed: u64,
    t0: f64,
    phase: Phase,
}

impl Search {
    /// A search for `start`, begun at `now_ms`; bad input is one message.
    pub fn new(start: &Start, now_ms: f64) -> Result<Search, String> {
        let mode = Mode::parse(&start.mode)?;
        let mut base =
            Scenario::from_json(&start.scenario).map_err(|e| format!("the scenario to search is invalid: {e}"))?;
        base.seed = start.seed;
        let opts = Options { mode, seed: start.seed, operator: start.operator, ..Options::default() };
        Ok(Search {
            id: start.id,
            ex: Explorer::new(base, opts),
            budget: start.budget,
            mode,
            seed: start.seed,
            t0: now_ms,
            phase: Phase::Searching,
        })
    }

    /// The search's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// True once the last message has been returned.
    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    fn seconds(&self, now_ms: f64) -> f64 {
        ((now_ms - self.t0) / 1000.0).max(0.0)
    }

    /// The answer to a cancel: how far the search got.
    pub fn cancel(&mut self, now_ms: f64) -> FromWorker {
        self.phase = Phase::Done;
        FromWorker::Cancelled { id: self.id, tried: self.ex.tried(), seconds: self.seconds(now_ms) }
    }

    /// Tries schedules (at least one) until `slice_ms` have passed by `now`, then says where the
    /// search stands. After [`FromWorker::Found`] the next call computes the point of no return.
    pub fn step(&mut self, slice_ms: f64, now: &dyn Fn() -> f64) -> FromWorker {
        let (id, t) = (self.id, now());
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Done => FromWorker::Error { id, message: "the search is over".into() },
            Phase::NoReturn(c) => FromWorker::NoReturn { id, point: no_return(&c, self.mode, self.seed) },
            Phase::Searching => {
                loop {
                    if self.ex.tried() >= self.budget || self.ex.exhausted() {
                        return FromWorker::Clean { id, tried: self.ex.tried(), seconds: self.seconds(now()) };
                    }
                    if let Some(c) = self.ex.run(1).cloned() {
                        let msg = FromWorker::Found {
                            id,
                            tried: self.ex.tried(),
                            seconds: self.seconds(now()),
                            faults: c.schedule.len(),
                            original: c.original_faults,
                            name: c.scenario.name.clone(),
                            scenario: c.scenario.to_json(),
                        };
                        self.phase = Phase::NoReturn(Box::new(c));
                        return msg;
                    }
                    if now() - t >= slice_ms {
                        break;
                    }
                }
                self.phase = Phase::Searching;
                FromWorker::Progress { id, tried: self.ex.tried(), seconds: self.seconds(now()) }
            }
        }
    }
}

/// Continuations per probed step of the point of no return.
pub const CONTINUATIONS: u32 = 20;

/// The point of no return of `c` ([`splitbrain_sim::explore::no_return`]), as a message field.
fn no_return(c: &splitbrain_sim::explore::Counterexample, mode: Mode, seed: u64) -> Option<NoReturnPoint> {
    let p = point_of_no_return(&c.scenario, mode, seed, CONTINUATIONS)?;
    Some(NoReturnPoint { step: p.step, time_ms: p.time_ms, held: p.held, of: p.of })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn start(scenario: String) -> Start {
        Start { id: 7, scenario, mode: "legacy".into(), seed: 3, operator: false, budget: 3 }
    }

    fn incident() -> String {
        splitbrain_sim::scenario::builtins().into_iter().find(|(n, _)| *n == "seed-incident").unwrap().1.to_string()
    }

    #[test]
    fn messages_round_trip_as_json() {
        let msgs = [
            FromWorker::Ready,
            FromWorker::Progress { id: 1, tried: 5, seconds: 0.25 },
            FromWorker::NoReturn { id: 1, point: Some(NoReturnPoint { step: 291, time_ms: 12_000, held: 19, of: 20 }) },
            FromWorker::Error { id: 0, message: "x".into() },
        ];
        for m in msgs {
            assert_eq!(serde_json::from_str::<FromWorker>(&m.to_json()).unwrap(), m);
        }
        let s = ToWorker::Start(start("{}".into()));
        assert_eq!(serde_json::from_str::<ToWorker>(&serde_json::to_string(&s).unwrap()).unwrap(), s);
        assert_eq!(serde_json::from_str::<ToWorker>(r#"{"cancel":{"id":4}}"#).unwrap(), ToWorker::Cancel { id: 4 });
    }

    #[test]
    fn the_sentence_is_built_from_the_fields() {
        let p = NoReturnPoint { step: 291, time_ms: 12_000, held: 19, of: 20 };
        assert_eq!(
            p.sentence(),
            "Point of no return: from step 291 on, 19 of 20 continuations still end at leader -1."
        );
    }

    #[test]
    fn bad_input_is_one_message() {
        let e = Search::new(&start("not json".into()), 0.0).err().unwrap();
        assert!(e.starts_with("the scenario to search is invalid"), "{e}");
        let mut bad_mode = start(incident());
        bad_mode.mode = "2.9".into();
        assert!(Search::new(&bad_mode, 0.0).is_err());
    }

    #[test]
    fn slices_do_not_change_the_search() {
        // One schedule per slice (a zero-length slice) against the whole budget in one slice.
        let clock = || 0.0;
        let mut a = Search::new(&start(incident()), 0.0).unwrap();
        let mut progress = 0;
        let end = loop {
            match a.step(0.0, &clock) {
                FromWorker::Progress { .. } => progress += 1,
                m => break m,
            }
        };
        let mut b = Search::new(&start(incident()), 0.0).unwrap();
        let whole = b.step(f64::INFINITY, &clock);
        assert_eq!(end, whole);
        assert!(progress >= 1);
        match whole {
            FromWorker::Clean { tried, .. } => assert_eq!(tried, 3),
            FromWorker::Found { tried, .. } => assert!(tried <= 3),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn cancel_reports_how_far_it_got() {
        let mut s = Search::new(&start(incident()), 0.0).unwrap();
        let _ = s.step(0.0, &|| 500.0);
        assert_eq!(s.cancel(1500.0), FromWorker::Cancelled { id: 7, tried: 1, seconds: 1.5 });
        assert!(s.finished());
    }
}
